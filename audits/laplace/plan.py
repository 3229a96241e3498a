"""``pdp-audit run laplace``: the audit's descriptor (its options: :mod:`pdp_audit.audits.laplace.config`)."""

from __future__ import annotations

from pdp_audit.audits.laplace.checks import CHECKS
from pdp_audit.audits.laplace.config import LaplaceAuditConfig
from pdp_audit.verify.core.plan import AuditPlan, Setting, WorstCase
from pdp_audit.verify.evidence.pure_dp_specs import RUN_CHECKS


def audit(config: LaplaceAuditConfig, executor=None, progress: bool = False):
    """Run the Laplace audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.laplace.evidence import run_laplace_audit

    return run_laplace_audit(config, executor=executor, progress=progress)


def worst_case_pair(config: LaplaceAuditConfig):
    """The pair the audit decides, at its worst-case neighbour: this release's part of a joint release."""
    # deferred: loads scipy; run --help must not (the name is also this function's)
    from pdp_audit.audits.laplace.evidence import setup, worst_case_pair

    return worst_case_pair(setup(config))


PLAN = AuditPlan(
    "laplace",
    "Laplace mechanism on a count, L1-clipped sum, mean (noisy sum and count) or histogram of a real dataset, "
    "pure (ε, 0)-DP",
    LaplaceAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=0.3,
    quick={"trials": 20_000},
    smoke={"trials": 2000},
    settings=(
        Setting({}, {"noise_multiplier": 0.5}),
        Setting({"query": "mean"}, {"noise_multiplier": 0.5}),
        Setting({"query": "histogram"}, {"noise_multiplier": 0.5}),
    ),
    bytes_per_trial=250,  # 1.5 × the 165 that benchmarks/memory.py measured
    worst_case=WorstCase(worst_case_pair, "scale"),
)
