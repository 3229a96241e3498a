"""``pdp-audit run privacy-report``: options and execution.

The audit itself is :mod:`pdp_audit.verify.plans.privacy_report.evidence`.
"""

from __future__ import annotations

import argparse

from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.options import count
from pdp_audit.verify.plans.plan import AuditPlan
from pdp_audit.verify.plans.privacy_report.context import DATASETS, PrivacyReportAuditConfig
from pdp_audit.verify.plans.privacy_report.evidence import run_privacy_report_audit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pdp-audit run privacy-report`` besides the common ones (claim, budget, seed, outputs)."""
    parser.add_argument(
        "--mode",
        choices=("independent", "dependent", "adaptive"),
        default="dependent",
        help="Algorithm 2 data-independent or data-dependent report, or Algorithm 4 (default: dependent)",
    )
    parser.add_argument(
        "--budget",
        default=None,
        help="ε₁[,ε₂,ε₃[,ε₄]] of ObjPert and of the report's releases (default: 1 | 0.2,0.7,0.1 | 0.2,0.6,0.1,0.1)",
    )
    parser.add_argument(
        "--rho",
        type=float,
        default=0.01,
        help="failure probability ρ of the report's bounds, in (0, 1/3) (default: 0.01)",
    )
    parser.add_argument(
        "--repetitions",
        type=count,
        default=20_000,
        help="repetitions of the whole pipeline ObjPert → report for the coverage checks (default: 2e4)",
    )
    parser.add_argument(
        "--dataset",
        choices=DATASETS,
        default="synthetic",
        help="synthetic logistic data ([RW] §4.1) or breast-cancer (bundled substitute for the UCI data) "
        "(default: synthetic)",
    )
    parser.add_argument("--n", type=count, default=None, help="rows of the synthetic data (default: 1000)")
    parser.add_argument("--d", type=count, default=None, help="dimension of the synthetic data, 1..100 (default: 50)")
    parser.add_argument(
        "--lambda",
        dest="lam",
        type=float,
        default=None,
        help="ridge λ of ObjPert (default: Theorem 5's 2β/ε₁, raised to Algorithm 2's 2σ₃τ in the data-dependent mode)",
    )
    parser.add_argument(
        "--lambda-inflation", type=float, default=None, help="λ = c · 2β/ε₁ ([RW] Fig. 2's λ-inflation)"
    )
    parser.add_argument("--sigma", type=float, default=None, help="ObjPert's noise σ (default: Theorem 5)")
    parser.add_argument("--sigma2", type=float, default=None, help="Algorithm 5's noise σ₂ (default: calibrated to ε₂)")
    parser.add_argument("--sigma3", type=float, default=None, help="Algorithm 6's noise σ₃ (default: calibrated to ε₃)")
    parser.add_argument("--sigma4", type=float, default=None, help="Algorithm 3's noise σ₄ (default: calibrated to ε₄)")
    parser.add_argument(
        "--calibration",
        choices=("analytic", "classical"),
        default="analytic",
        help="σ₂, σ₃, σ₄ by the analytic Gaussian mechanism ([RW] §4.2) or the theorems' classical bounds "
        "(default: analytic)",
    )
    parser.add_argument(
        "--tau-reading",
        choices=("algorithm6", "unit-goe"),
        default="algorithm6",
        help="τ of Lemma 20: exact for (Z + Zᵀ)/√2, or the printed unit-GOE value (12 at d = 50, Q4) "
        "(default: algorithm6)",
    )
    parser.add_argument(
        "--lambda-condition",
        choices=("sigma3", "sigma2"),
        default="sigma3",
        help="λ requirement 2σ₃τ (Algorithm 2) or 2σ₂τ as printed in Prop. 21 (Q3) (default: sigma3)",
    )
    parser.add_argument(
        "--gradient-bound",
        choices=("absolute", "printed"),
        default="absolute",
        help="ḡ with |f'(J^P)ᵀx| or the printed signed form (Q25; deploys it: q25-printed-gradient becomes a "
        "guarantee) (default: absolute)",
    )
    parser.add_argument(
        "--lambda-hat",
        choices=("shifted", "raw"),
        default="shifted",
        help="λ̂ in Prop. 12 / Algorithm 4: the shifted lower bound or the raw release (Q28) (default: shifted)",
    )
    parser.add_argument(
        "--noise-scale2",
        type=float,
        default=1.0,
        help="multiply the gradient noise actually added by this (< 1: a broken release; the accounting keeps σ₂)",
    )
    parser.add_argument(
        "--noise-scale3",
        type=float,
        default=1.0,
        help="multiply the Hessian noise actually added by this (< 1: a broken release; the accounting keeps σ₃)",
    )
    parser.add_argument(
        "--no-figures",
        dest="figures",
        action="store_false",
        help="with --paper-claims, leave out the reproductions of [RW] Figures 2–6 (paper pages)",
    )


def configure(args: argparse.Namespace) -> PrivacyReportAuditConfig:
    """The audit's configuration from the parsed options, validated (InputError naming the option)."""
    if args.claim_epsilon is not None:  # the shared option would be silently ignored: the ε's are the budget's
        raise InputError("--claim-epsilon does not apply to privacy-report: give the stages' ε's with --budget")
    config = PrivacyReportAuditConfig(
        mode=args.mode,
        budget=args.budget,
        delta=args.claim_delta,
        rho=args.rho,
        dataset=args.dataset,
        n=args.n,
        d=args.d,
        lam=args.lam,
        lambda_inflation=args.lambda_inflation,
        sigma=args.sigma,
        sigma2=args.sigma2,
        sigma3=args.sigma3,
        sigma4=args.sigma4,
        calibration=args.calibration,
        tau_reading=args.tau_reading,
        lambda_condition=args.lambda_condition,
        gradient_bound=args.gradient_bound,
        lambda_hat=args.lambda_hat,
        noise_scale2=args.noise_scale2,
        noise_scale3=args.noise_scale3,
        repetitions=args.repetitions,
        trials=args.trials,
        seed=args.seed,
        alpha=args.alpha,
        figures=args.figures,
        paper_claims=args.paper_claims,
    )
    config.validate()
    return config


PLAN = AuditPlan(
    "privacy-report",
    "[RW] Algorithms 2–5: the privately published privacy report of ObjPert, coverage of its bounds",
    add_arguments,
    configure,
    run_privacy_report_audit,
    defaults={"claim_epsilon": None},
)
