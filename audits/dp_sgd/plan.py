"""``pdp-audit run dp-sgd``: the audit's descriptor (its options: :mod:`pdp_audit.audits.dp_sgd.config`)."""

from __future__ import annotations

from pdp_audit.audits.dp_sgd.checks import CHECKS, RUN_CHECKS
from pdp_audit.audits.dp_sgd.config import DpSgdAuditConfig
from pdp_audit.verify.core.plan import AuditPlan, Setting


def audit(config: DpSgdAuditConfig, executor=None, progress: bool = False):
    """Run the DP-SGD audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.dp_sgd.evidence import run_dp_sgd_audit

    return run_dp_sgd_audit(config, executor=executor, progress=progress)


PLAN = AuditPlan(
    "dp-sgd",
    "DP-SGD (Poisson-subsampled Gaussian over T steps): the (ε, δ) an accountant printed, decided from exact "
    "samples of the composed privacy loss",
    DpSgdAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=2.0,
    quick={"trials": 5000, "steps": 100},
    smoke={"trials": 1000, "steps": 20},
    settings=(Setting({}, {"noise_multiplier": 0.9}),),
    bytes_per_trial=100,
)
