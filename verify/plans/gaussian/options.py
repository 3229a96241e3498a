"""``pdp-audit run gaussian``: options and execution."""

from __future__ import annotations

import argparse

from pdp_audit.mechanisms.datasets import SHIPPED
from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.plans.gaussian.evidence import CALIBRATIONS, GaussianAuditConfig, run_gaussian_audit
from pdp_audit.verify.plans.plan import AuditPlan


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pdp-audit run gaussian`` besides the common ones (claim, budget, seed, outputs)."""
    parser.add_argument(
        "--query",
        choices=("sum", "count"),
        default="sum",
        help="count of rows, or sum of rows clipped to L2 norm = --sensitivity (default: sum)",
    )
    parser.add_argument(
        "--sensitivity",
        type=float,
        default=1.0,
        help="L2 clip bound C of the sum = its global sensitivity (default: 1)",
    )
    parser.add_argument(
        "--sigma",
        type=float,
        default=None,
        help="noise standard deviation (default: calibrated to the claim by --calibration)",
    )
    parser.add_argument(
        "--calibration",
        choices=CALIBRATIONS,
        default="analytic",
        help="how σ is calibrated to the claim: analytic (exact, Balle & Wang 2018) or classical "
        "(Δ√(2 log(1.25/δ))/ε, Dwork & Roth 2014, proved for ε < 1: deploys that printed calibration, whose check "
        "becomes a guarantee) (default: analytic)",
    )
    parser.add_argument(
        "--dataset", choices=sorted(SHIPPED), default=None, help="shipped dataset (default: diabetes, unless --data)"
    )
    parser.add_argument(
        "--data", default=None, help="your own numeric CSV with a header row (used as is; the query clips rows)"
    )
    parser.add_argument("--target-column", default=None, help="CSV column to leave out of the query (e.g. a label)")
    parser.add_argument(
        "--rho", type=float, default=0.01, help="failure probability of Corollary 23's ex-post bound (default: 0.01)"
    )


def _dataset(args: argparse.Namespace) -> str | None:
    """The shipped dataset to audit: none with ``--data`` (giving both is an error), else diabetes by default."""
    if args.data is not None:
        if args.dataset is not None:
            raise InputError("give one of --dataset and --data, not both")
        return None
    return args.dataset or "diabetes"


def configure(args: argparse.Namespace) -> GaussianAuditConfig:
    """The audit's configuration from the parsed options, validated (InputError naming the option)."""
    config = GaussianAuditConfig(
        epsilon=args.claim_epsilon,
        delta=args.claim_delta,
        sensitivity=args.sensitivity,
        query=args.query,
        sigma=args.sigma,
        trials=args.trials,
        seed=args.seed,
        alpha=args.alpha,
        rho=args.rho,
        dataset=_dataset(args),
        data=args.data,
        target_column=args.target_column,
        calibration=args.calibration,
        paper_claims=args.paper_claims,
    )
    config.validate()
    return config


PLAN = AuditPlan(
    "gaussian",
    "Gaussian mechanism on a count or clipped sum of a real dataset",
    add_arguments,
    configure,
    run_gaussian_audit,
)
