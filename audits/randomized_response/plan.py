"""``pdp-audit run randomized-response``: the audit's descriptor (its options:
:mod:`pdp_audit.audits.randomized_response.config`)."""

from __future__ import annotations

from pdp_audit.audits.randomized_response.checks import CHECKS
from pdp_audit.audits.randomized_response.config import RandomizedResponseAuditConfig
from pdp_audit.verify.core.plan import AuditPlan, Setting
from pdp_audit.verify.evidence.pure_dp_specs import RUN_CHECKS


def audit(config: RandomizedResponseAuditConfig, executor=None, progress: bool = False):
    """Run the randomized-response audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.randomized_response.evidence import run_randomized_response_audit

    return run_randomized_response_audit(config, executor=executor, progress=progress)


PLAN = AuditPlan(
    "randomized-response",
    "k-ary randomized response on a categorical column of a real dataset, pure (ε, 0)-DP",
    RandomizedResponseAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=0.3,
    quick={"trials": 20_000},
    smoke={"trials": 2000},
    settings=(Setting({}, {"noise_multiplier": 0.5}),),
    bytes_per_trial=250,  # the Laplace audit's, kept: benchmarks/memory.py measured 29
)
