"""``pdp-audit run goe-release``: options and execution (the audit itself is
:mod:`pdp_audit.verify.plans.goe.evidence`)."""

from __future__ import annotations

import argparse

from pdp_audit.verify.options import count
from pdp_audit.verify.plans.goe.checks import TAU_READINGS
from pdp_audit.verify.plans.goe.evidence import GoeAuditConfig, run_goe_audit
from pdp_audit.verify.plans.plan import AuditPlan


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pdp-audit run goe-release`` besides the common ones (claim, budget, seed, outputs)."""
    parser.add_argument(
        "--d",
        type=count,
        default=50,
        help="matrix dimension for τ, ‖N‖₂ and the K15 per-instance view, 1..100 (default: 50, as in K16)",
    )
    parser.add_argument(
        "--beta", type=float, default=1.0, help="bound β on ‖H_x‖_F of one individual's term (default: 1)"
    )
    parser.add_argument(
        "--sigma3", type=float, default=None, help="Algorithm 6's noise scale σ₃ (default: calibrated to the claim)"
    )
    parser.add_argument(
        "--calibration",
        choices=("paper", "analytic"),
        default="paper",
        help="paper: σ₃ from Theorem 17's DP bound and s from the classical Analyze-Gauss bound; "
        "analytic: exact Gaussian calibration of both (default: paper)",
    )
    parser.add_argument(
        "--rho", type=float, default=0.01, help="failure probability ρ of Lemma 20's bound ‖N‖₂ ≤ σ₃τ (default: 0.01)"
    )
    parser.add_argument(
        "--matrices", type=count, default=50_000, help="Monte Carlo draws of the d×d noise (default: 5e4)"
    )
    parser.add_argument(
        "--tau-reading",
        choices=tuple(TAU_READINGS),
        default="algorithm6",
        help="τ of Lemma 20 that the deployment publishes: algorithm6 (the exact quantile for the (Z + Zᵀ)/√2 that "
        "Algorithm 6 adds) or unit-goe (the quantile of Chiani's unit GOE (Z + Zᵀ)/2, K16's printed 12 at d = 50: "
        "deploys that reading, so the check k16-as-printed becomes a guarantee) (default: algorithm6)",
    )


def configure(args: argparse.Namespace) -> GoeAuditConfig:
    """The audit's configuration from the parsed options, validated (InputError naming the option)."""
    config = GoeAuditConfig(
        d=args.d,
        epsilon=args.claim_epsilon,
        delta=args.claim_delta,
        beta=args.beta,
        sigma3=args.sigma3,
        calibration=args.calibration,
        rho=args.rho,
        trials=args.trials,
        matrices=args.matrices,
        seed=args.seed,
        alpha=args.alpha,
        tau_reading=args.tau_reading,
        paper_claims=args.paper_claims,
    )
    config.validate()
    return config


PLAN = AuditPlan(
    "goe-release",
    "[RW] Algorithm 6 (GOE Analyze Gauss) vs Analyze Gauss; τ of Lemma 20; K15, K16",
    add_arguments,
    configure,
    run_goe_audit,
)
