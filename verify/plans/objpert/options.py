"""``pdp-audit run objpert``: options and execution (the audit itself is
:mod:`pdp_audit.verify.plans.objpert.evidence`)."""

from __future__ import annotations

import argparse

from pdp_audit.mechanisms.objpert import ObjPertSolverError
from pdp_audit.mechanisms.validation import InputError
from pdp_audit.reports.records import Run
from pdp_audit.verify.options import count
from pdp_audit.verify.plans.objpert.context import (
    DEFAULT_SEARCH_TRIALS,
    DEFAULT_SYNTHETIC,
    DEFAULT_TRIALS,
    LOSSES,
    ObjPertAuditConfig,
)
from pdp_audit.verify.plans.objpert.evidence import run_objpert_audit
from pdp_audit.verify.plans.plan import AuditPlan


def synthetic_size(text: str) -> tuple[int, int]:
    """``n,d`` (two whole numbers)."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected n,d (e.g. 200,2), got {text!r}")
    try:
        return count(parts[0].strip()), count(parts[1].strip())
    except argparse.ArgumentTypeError as err:
        raise argparse.ArgumentTypeError(f"expected n,d (e.g. 200,2): {err}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pdp-audit run objpert`` besides the shared ones (claim, budget, seed, outputs)."""
    parser.add_argument(
        "--loss",
        choices=LOSSES,
        default="logistic",
        help="loss ℓ(θ; (x, y)): logistic (y = ±1), squared (y − xᵀθ)² "
        "or huber (pseudo-Huber of width --huber-kappa) (default: logistic)",
    )
    parser.add_argument(
        "--huber-kappa",
        type=float,
        default=1.0,
        help="width κ of the pseudo-Huber loss; its gradient bound ξ = κ (default: 1)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--data",
        default=None,
        help="your own numeric CSV with a header row; rows must lie in the unit ball (or --normalize-rows)",
    )
    source.add_argument(
        "--synthetic",
        type=synthetic_size,
        default=None,
        metavar="N,D",
        help="synthetic data: N rows uniform in the unit ball of R^D, [RW] Fig. 1's generator "
        f"(default: {DEFAULT_SYNTHETIC[0]},{DEFAULT_SYNTHETIC[1]})",
    )
    source.add_argument(
        "--dataset",
        choices=("breast-cancer",),
        default=None,
        help="shipped data set (z-scored, rows scaled to unit norm)",
    )
    parser.add_argument("--target-column", default=None, help="CSV label column (default: the last column)")
    parser.add_argument(
        "--normalize-rows",
        action="store_true",
        help="scale every data row to unit L2 norm (else rows outside the unit ball are an error)",
    )
    parser.add_argument(
        "--lam",
        type=float,
        default=None,
        help="ridge parameter λ > 0 (default: Theorem 5's 2β/ε, = 1/(2ε) for logistic)",
    )
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument(
        "--sigma",
        type=float,
        default=None,
        help="noise scale σ of the released mechanism (its DP: the dp-* checks; Theorem 5's readings become "
        "paper findings)",
    )
    noise.add_argument(
        "--calibration",
        choices=("printed", "variance"),
        default="variance",
        help="which reading of Theorem 5's σ (ledger Q1) the released mechanism uses; its DP is a guarantee, "
        "the other reading's a paper finding (--paper-claims) (default: variance)",
    )
    parser.add_argument(
        "--theta-radius", type=float, default=None, help="radius R with ‖θ‖ ≤ R behind ξ = 2(1 + R) of the squared loss"
    )
    parser.add_argument(
        "--rho", type=float, default=0.05, help="failure probability ρ of Theorem 9's bounds (default: 0.05)"
    )
    parser.add_argument(
        "--search-trials",
        type=count,
        default=DEFAULT_SEARCH_TRIALS,
        help=f"releases from D that rank the candidate worst neighbours (default: {DEFAULT_SEARCH_TRIALS})",
    )


def configure(args: argparse.Namespace) -> ObjPertAuditConfig:
    """The audit's configuration from the parsed options, validated (InputError naming the option)."""
    config = ObjPertAuditConfig(
        loss=args.loss,
        huber_kappa=args.huber_kappa,
        epsilon=args.claim_epsilon,
        delta=args.claim_delta,
        lam=args.lam,
        sigma=args.sigma,
        calibration=args.calibration,
        theta_radius=args.theta_radius,
        data=args.data,
        target_column=args.target_column,
        synthetic=args.synthetic,
        dataset=args.dataset,
        normalize_rows=args.normalize_rows,
        rho=args.rho,
        trials=args.trials,
        search_trials=args.search_trials,
        seed=args.seed,
        alpha=args.alpha,
        paper_claims=args.paper_claims,
    )
    config.validate()
    return config


def audit(config: ObjPertAuditConfig, executor=None, progress: bool = False) -> Run:
    """Run the audit; a solver failure on the user's data or λ is an :class:`InputError` (one line, exit 2)."""
    try:
        return run_objpert_audit(config, executor=executor, progress=progress)
    except ObjPertSolverError as err:
        raise InputError(f"the ObjPert solver failed ({err}); try a larger --lam or a smaller noise scale") from None


PLAN = AuditPlan(
    "objpert",
    "Objective perturbation ([RW] Alg. 1): Theorems 5, 6, 8, 9, Corollary 7, Figure 1",
    add_arguments,
    configure,
    audit,
    defaults={"trials": DEFAULT_TRIALS},
)
