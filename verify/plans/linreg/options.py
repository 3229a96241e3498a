"""``pdp-audit run {output-perturbation, ops, adaops, adassp, ssp}``: options and execution.

One :class:`~pdp_audit.verify.plans.plan.AuditPlan` per mechanism, all built by :func:`plan` from the
same option builders; the common run options (claim, trials, seed, alpha, workers, report, json,
quiet) come from :func:`pdp_audit.verify.plans.arguments.add_common_run_arguments`.  The audit itself is
:func:`pdp_audit.verify.plans.linreg.evidence.run_linreg_audit`.
"""

from __future__ import annotations

import argparse

from pdp_audit.mechanisms.linreg_data import REGRESSION_DATASETS
from pdp_audit.verify.options import count
from pdp_audit.verify.plans.linreg.context import CALIBRATIONS, LinregAuditConfig, parse_synthetic
from pdp_audit.verify.plans.plan import AuditPlan

HELP = {
    "output-perturbation": "Gaussian output perturbation of ridge regression ([PDP] (3.2), Lemma 2.4, Figs 1-2)",
    "ops": "One-Posterior-Sample ([PDP] Thm 4.1, Remark 4.2, Prop 4.3; [LR] App. F calibration)",
    "adaops": "AdaOPS, joint release of every stage ([LR] Algorithm 1 or [PDP] Algorithm 1)",
    "adassp": "AdaSSP, joint release ([LR] Algorithm 2, Theorem 3; [LR] Fig. 3)",
    "ssp": "Sufficient statistics perturbation ([LR] §3.2, App. C.1)",
}


def _synthetic(text: str) -> tuple[int, int]:
    try:
        return parse_synthetic(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--synthetic ")) from None


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return value


def add_common(parser: argparse.ArgumentParser, reproduces: bool) -> None:
    """The options every linear-regression audit has: the data, the search, fault injection, reproductions."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--dataset",
        choices=sorted(REGRESSION_DATASETS),
        default="diabetes",
        help="bundled regression data set (default: diabetes)",
    )
    source.add_argument("--data", default=None, help="your own numeric CSV with a header row (needs --target-column)")
    source.add_argument(
        "--synthetic",
        type=_synthetic,
        default=None,
        metavar="n,d",
        help="synthetic linear Gaussian data, e.g. 500,5 ([LR] Fig. 3 design)",
    )
    parser.add_argument("--target-column", default=None, help="CSV column holding the response y")
    parser.add_argument(
        "--search", type=count, default=128, help="candidate neighbours scored by the adversarial search (default: 128)"
    )
    parser.add_argument(
        "--noise-multiplier",
        type=_number,
        default=1.0,
        help="fault injection: multiply every noise standard deviation by M (M < 1 breaks the calibration; default: 1)",
    )
    parser.add_argument(
        "--no-reproduce",
        dest="reproduce",
        action="store_false",
        help="skip the reproduced figures" if reproduces else "no effect (this audit reproduces no figure)",
    )


def add_output_perturbation(parser: argparse.ArgumentParser) -> None:
    """The options of ``run output-perturbation``: λ and σ."""
    parser.add_argument("--lam", type=_number, default=None, help="ridge λ (default: 1, as [PDP] Fig. 1)")
    parser.add_argument(
        "--sigma",
        type=_number,
        default=None,
        help="noise σ (default: analytic calibration to the claim at the global sensitivity bound)",
    )


def add_ops(parser: argparse.ArgumentParser) -> None:
    """The options of ``run ops``: the [LR] App. F calibration, or γ and λ directly."""
    parser.add_argument(
        "--calibration", choices=CALIBRATIONS, default="balanced", help="[LR] App. F calibration (default: balanced)"
    )
    parser.add_argument("--gamma", type=_number, default=None, help="override γ of the calibration")
    parser.add_argument("--lam", type=_number, default=None, help="override λ of the calibration")


def add_adaops(parser: argparse.ArgumentParser) -> None:
    """The options of ``run adaops``: which Algorithm 1, κ, and the printed forms."""
    parser.add_argument(
        "--algorithm", choices=("lr", "pdp"), default="lr", help="[LR] Algorithm 1 (default) or [PDP] Algorithm 1"
    )
    parser.add_argument(
        "--kappa", type=_number, default=None, help="κ of [PDP] Algorithm 1 (default: its largest allowed value)"
    )
    parser.add_argument(
        "--printed",
        action="store_true",
        help="run the algorithm as printed ([PDP]: λ_n = min{0, ·}, Q5; [LR]: eq. (8) product, Q42)",
    )


def add_adassp(parser: argparse.ArgumentParser) -> None:
    """The options of ``run adassp``: ρ and the printed output."""
    parser.add_argument("--rho", type=float, default=0.05, help="ρ of step 3 (default: 0.05)")
    parser.add_argument(
        "--printed",
        action="store_true",
        help="release the printed output (XᵀX + λI)^{-1}X̂y (Q51) instead of the private one",
    )
    parser.add_argument(
        "--figure-n",
        type=count,
        default=None,
        help="reproduce [LR] Figure 3 at this n only (with --paper-claims; default: n = 1e2, 1e3, …, 1e6); "
        "a sweep over it draws the figure",
    )


SPECIFIC = {
    "output-perturbation": add_output_perturbation,
    "ops": add_ops,
    "adaops": add_adaops,
    "adassp": add_adassp,
    "ssp": lambda p: None,
}
REPRODUCES = {"output-perturbation", "ops", "adassp"}


def config_from_args(name: str, args: argparse.Namespace) -> LinregAuditConfig:
    """The audit configuration of mechanism ``name`` from parsed options (absent options take their defaults)."""
    get = lambda key, default=None: getattr(args, key, default)  # noqa: E731
    return LinregAuditConfig(
        mechanism=name,
        epsilon=args.claim_epsilon,
        delta=args.claim_delta,
        trials=args.trials,
        seed=args.seed,
        alpha=args.alpha,
        dataset=args.dataset,
        data=args.data,
        target_column=args.target_column,
        synthetic=args.synthetic,
        search=args.search,
        noise_multiplier=args.noise_multiplier,
        reproduce=get("reproduce", False),
        printed=get("printed", False),
        lam=get("lam"),
        sigma=get("sigma"),
        gamma=get("gamma"),
        calibration=get("calibration", "balanced"),
        algorithm=get("algorithm", "lr"),
        kappa=get("kappa"),
        rho=get("rho", 0.05),
        figure_n=get("figure_n"),
        paper_claims=get("paper_claims", False),
    )


def audit(config: LinregAuditConfig, executor=None, progress: bool = False):
    """Run one linear-regression audit (imported here: the evidence modules are heavy)."""
    from pdp_audit.verify.plans.linreg.evidence import run_linreg_audit

    return run_linreg_audit(config, executor=executor, progress=progress)


def plan(name: str) -> AuditPlan:
    """The :class:`~pdp_audit.verify.plans.plan.AuditPlan` of ``pdp-audit run <name>``."""

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        add_common(parser, name in REPRODUCES)
        SPECIFIC[name](parser)

    def configure(args: argparse.Namespace):
        config = config_from_args(name, args)
        config.validate()
        return config

    return AuditPlan(name, HELP[name], add_arguments, configure, audit)


PLANS: tuple[AuditPlan, ...] = tuple(plan(name) for name in HELP)
