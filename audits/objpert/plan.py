"""``pdp-audit run objpert``: the audit's descriptor (its options are :mod:`pdp_audit.audits.objpert.config`;
the audit itself is :mod:`pdp_audit.audits.objpert.evidence`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pdp_audit.audits.objpert.checks import CHECKS, RUN_CHECKS
from pdp_audit.audits.objpert.config import ObjPertAuditConfig, check_data_width
from pdp_audit.verify.core.plan import AuditPlan, Setting
from pdp_audit.verify.inputs.validation import InputError

if TYPE_CHECKING:
    from pdp_audit.reports.records import Run


def audit(config: ObjPertAuditConfig, executor=None, progress: bool = False) -> Run:
    """Run the audit; a solver failure on the user's data or λ is an :class:`InputError` (one line, exit 2)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.objpert.evidence import run_objpert_audit
    from pdp_audit.mechanisms.objpert.mechanism import ObjPertSolverError

    try:
        return run_objpert_audit(config, executor=executor, progress=progress)
    except ObjPertSolverError as err:
        raise InputError(f"the ObjPert solver failed ({err}); try a larger --lam or a smaller noise scale") from None


PLAN = AuditPlan(
    "objpert",
    "Objective perturbation ([RW] Alg. 1): Theorems 5, 6, 8, 9, Corollary 7, Figure 1",
    ObjPertAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=6.0,
    quick={"trials": 20_000, "search_trials": 400},
    smoke={"trials": 2000, "search_trials": 200, "synthetic": "60,2"},
    settings=(
        Setting({}, {"sigma": 0.504}),
        Setting({"loss": "huber"}, {"sigma": 0.504}),
        Setting({"loss": "squared", "theta_radius": 1.0}),  # its certificate rests on the bounded domain: no deflation
    ),
    bytes_per_trial=11_000,  # 1.5 × the 7,229 that benchmarks/memory.py measured (θ and its Hessians per draw)
    data_check=check_data_width,
)
