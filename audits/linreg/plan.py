"""``pdp-audit run {output-perturbation, ops, adaops, adassp, ssp}``: one descriptor per mechanism, on the shared
config :class:`~pdp_audit.audits.linreg.config.LinregAuditConfig` (each hides the other mechanisms'
options).  The audit itself is :func:`pdp_audit.audits.linreg.evidence.run_linreg_audit`."""

from __future__ import annotations

from pdp_audit.audits.linreg.checks import CHECKS, RUN_CHECKS
from pdp_audit.audits.linreg.config import SPECIFIC, LinregAuditConfig, check_data_width
from pdp_audit.verify.core.plan import AuditPlan, Setting

HELP = {
    "output-perturbation": "Gaussian output perturbation of ridge regression ([PDP] (3.2), Lemma 2.4, Figs 1-2)",
    "ops": "One-Posterior-Sample ([PDP] Thm 4.1, Remark 4.2, Prop 4.3; [LR] App. F calibration)",
    "adaops": "AdaOPS, joint release of every stage ([LR] Algorithm 1 or [PDP] Algorithm 1)",
    "adassp": "AdaSSP, joint release ([LR] Algorithm 2, Theorem 3; [LR] Fig. 3)",
    "ssp": "Sufficient statistics perturbation ([LR] §3.2, App. C.1)",
}
#: Relative run time at the defaults (benchmarks/certify_defaults.md).
COST = {"output-perturbation": 1.0, "ops": 1.0, "adaops": 3.0, "adassp": 2.0, "ssp": 2.0}
#: Peak memory per trial, bytes: 1.5 × the largest that benchmarks/memory.py measured (defaults and smoke budgets).
MEMORY = {"output-perturbation": 300, "ops": 300, "adaops": 220, "adassp": 1700, "ssp": 1700}
#: The settings each mechanism certifies, each with the noise multiplier that breaks its claim.
SETTINGS = {
    "output-perturbation": (Setting({}, {"noise_multiplier": 0.1}),),
    "ops": (Setting({}, {"noise_multiplier": 0.5}),),
    "adaops": (
        Setting({}, {"noise_multiplier": 0.1}),
        Setting({"algorithm": "pdp"}, {"noise_multiplier": 0.5}),
    ),
    "adassp": (Setting({}, {"noise_multiplier": 0.5}),),
    "ssp": (Setting({}, {"noise_multiplier": 0.5}),),
}


def audit(config: LinregAuditConfig, executor=None, progress: bool = False):
    """Run one linear-regression audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.linreg.evidence import run_linreg_audit

    return run_linreg_audit(config, executor=executor, progress=progress)


def plan(name: str) -> AuditPlan:
    """The :class:`~pdp_audit.verify.core.plan.AuditPlan` of ``pdp-audit run <name>``."""
    others = {key for keys in SPECIFIC.values() for key in keys} - set(SPECIFIC[name])
    return AuditPlan(
        name,
        HELP[name],
        LinregAuditConfig,
        audit,
        CHECKS,
        RUN_CHECKS,
        fixed={"mechanism": name},
        hidden=frozenset(others),
        cost=COST[name],
        quick={"trials": 20_000, "search": 32},
        smoke={"trials": 2000, "search": 8, "synthetic": "200,3", "no_reproduce": True},
        settings=SETTINGS[name],
        bytes_per_trial=MEMORY[name],
        data_check=check_data_width,
    )


PLANS: tuple[AuditPlan, ...] = tuple(plan(name) for name in HELP)
