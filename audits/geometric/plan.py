"""``pdp-audit run geometric``: the audit's descriptor (its options: :mod:`pdp_audit.audits.geometric.config`)."""

from __future__ import annotations

from pdp_audit.audits.geometric.checks import CHECKS
from pdp_audit.audits.geometric.config import GeometricAuditConfig
from pdp_audit.verify.core.plan import AuditPlan, Setting
from pdp_audit.verify.evidence.pure_dp_specs import RUN_CHECKS


def audit(config: GeometricAuditConfig, executor=None, progress: bool = False):
    """Run the geometric audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.geometric.evidence import run_geometric_audit

    return run_geometric_audit(config, executor=executor, progress=progress)


PLAN = AuditPlan(
    "geometric",
    "two-sided geometric (discrete Laplace) mechanism on a count or integer clamped sum, pure (ε, 0)-DP",
    GeometricAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=0.3,
    quick={"trials": 20_000},
    smoke={"trials": 2000},
    settings=(Setting({}, {"noise_multiplier": 0.5}), Setting({"query": "count"}, {"noise_multiplier": 0.5})),
    bytes_per_trial=250,  # the Laplace audit's, kept: benchmarks/memory.py measured 45
)
