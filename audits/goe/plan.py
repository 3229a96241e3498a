"""``pdp-audit run goe-release``: the audit's descriptor (its options are :mod:`pdp_audit.audits.goe.config`)."""

from __future__ import annotations

from pdp_audit.audits.goe.checks import CHECKS, RUN_CHECKS
from pdp_audit.audits.goe.config import GoeAuditConfig
from pdp_audit.verify.core.plan import AuditPlan, Setting


def audit(config: GoeAuditConfig, executor=None, progress: bool = False):
    """Run the GOE-release audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.goe.evidence import run_goe_audit

    return run_goe_audit(config, executor=executor, progress=progress)


PLAN = AuditPlan(
    "goe-release",
    "[RW] Algorithm 6 (GOE Analyze Gauss) vs Analyze Gauss; τ of Lemma 20; K15, K16",
    GoeAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=2.5,
    quick={"trials": 20_000, "matrices": 5000},
    smoke={"trials": 2000, "matrices": 1000},
    settings=(Setting({}, {"sigma3": 2.0}),),
    bytes_per_trial=440,  # 1.5 × the 291 that benchmarks/memory.py measured
)
