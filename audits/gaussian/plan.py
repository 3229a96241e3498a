"""``pdp-audit run gaussian``: the audit's descriptor (its options: :mod:`pdp_audit.audits.gaussian.config`)."""

from __future__ import annotations

from pdp_audit.audits.gaussian.checks import CHECKS, RUN_CHECKS
from pdp_audit.audits.gaussian.config import GaussianAuditConfig, check_data_width
from pdp_audit.verify.core.plan import AuditPlan, Setting, WorstCase


def audit(config: GaussianAuditConfig, executor=None, progress: bool = False):
    """Run the Gaussian audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.gaussian.evidence import run_gaussian_audit

    return run_gaussian_audit(config, executor=executor, progress=progress)


def worst_case_pair(config: GaussianAuditConfig):
    """The pair the audit decides, at its worst-case neighbour: this release's part of a joint release."""
    # deferred: loads scipy; run --help must not (the name is also this function's)
    from pdp_audit.audits.gaussian.evidence import setup, worst_case_pair

    return worst_case_pair(setup(config))[1]


PLAN = AuditPlan(
    "gaussian",
    "Gaussian mechanism on a count, clipped sum or mean (sum and count together) of a real dataset",
    GaussianAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=1.0,
    quick={"trials": 20_000},
    smoke={"trials": 2000},
    settings=(Setting({}, {"sigma": 3.0}), Setting({"query": "mean"}, {"noise_multiplier": 0.8})),
    bytes_per_trial=170,  # 1.5 × the 112 that benchmarks/memory.py measured
    data_check=check_data_width,
    worst_case=WorstCase(worst_case_pair, "sigma"),
)
