"""``pdp-audit tau``: the threshold τ of [RW] Lemma 20 for the GOE noise of Algorithm 6.

τ is the (1 − ρ/2)-quantile of λ_max(N), N = σ (Z + Zᵀ)/√2 with Zᵢⱼ ~ N(0, 1) iid (off-diagonal variance
σ², diagonal 2σ²), so that P[‖N‖₂ ≤ τ] ≥ 1 − ρ.  Computed by :func:`pdp_audit.mechanisms.goe.tau`: the exact CDF of
Chiani (2014, Theorem 2) for d ≤ 100 (method "auto"), the Tracy–Widom β = 1 approximation above, labelled
``"method": "tracy-widom"`` in the output.

Output: the JSON object ``{"d", "rho", "sigma", "tau", "method"}`` on stdout (also with ``--json -``); with
``--json PATH`` the object is written to PATH and one readable line goes to stdout.
"""

from __future__ import annotations

import argparse

from pdp_audit.catalogue.arguments import add_option, typed
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.files import print_out
from pdp_audit.verify.core.config import Option, Range
from pdp_audit.verify.inputs.validation import InputError

#: σ of ``tau``: a normal double (with room), as δ and ρ are (:data:`pdp_audit.verify.core.config.DELTA`).
SIGMA = Range(1e-300)

TAU_OPTIONS = (
    Option("d", "int", None, "matrix dimension d >= 1", range=Range(1)),
    # ρ/2 must stay a normal double (see mechanisms.goe.MIN_TAIL)
    Option("rho", "float", None, "failure probability ρ in [2e-300, 1)", range=Range(2e-300, 1, open_high=True)),
    # τ = σ τ₁ is exact only for a normal σ: at σ = 5e-324 (subnormal: one significant bit) it was 60% off, silently
    Option(
        "sigma", "float", 1.0, "noise scale σ₃ >= 1e-300 of Algorithm 6 (default: 1; τ scales linearly)", range=SIGMA
    ),
)

#: Largest d accepted with ``--method exact`` (the exact CDF costs ~d³ big-number products per evaluation:
#: about 3 s at d = 100, 25 s at d = 150).
EXACT_LIMIT_D = 200


def add_parser(subparsers) -> None:
    """Add ``pdp-audit tau`` to the CLI's subparsers."""
    p = subparsers.add_parser(
        "tau",
        help=COMMAND_HELP["tau"],
        description="Quantile τ = F⁻¹(1 − ρ/2) of the largest eigenvalue of N = σ (Z + Zᵀ)/√2 (Algorithm 6's noise; "
        "[RW] Lemma 20), so that P[‖N‖₂ ≤ τ] ≥ 1 − ρ. Exact (Chiani 2014) for d ≤ 100, Tracy–Widom above. "
        "Prints the JSON {d, rho, sigma, tau, method}.",
    )
    for option in TAU_OPTIONS:
        add_option(p, option, required=option.default is None)
    p.add_argument(
        "--method",
        choices=("auto", "exact", "tracy-widom"),
        default="auto",
        help=f"exact CDF (Chiani 2014; d <= {EXACT_LIMIT_D}), Tracy–Widom approximation, or auto "
        "(exact for d <= 100; default)",
    )
    p.add_argument(
        "--json",
        default=None,
        help="write the JSON to this path and print a readable line instead (- = stdout, the default)",
    )
    p.add_argument("--quiet", action="store_true", help="no summary on stdout (--json PATH: no readable line)")
    p.set_defaults(handler=command_tau)


def validate(args: argparse.Namespace) -> None:
    """One-line InputErrors naming the option (the CLI turns them into exit code 2)."""
    typed(args, *TAU_OPTIONS)
    if args.method == "exact" and args.d > EXACT_LIMIT_D:
        raise InputError(
            f"--method exact supports d <= {EXACT_LIMIT_D} (got --d {args.d}); use --method tracy-widom or auto"
        )


def describe(result: dict) -> str:
    """The readable line for ``--json PATH``."""
    how = (
        "exact: Chiani 2014, Theorem 2"
        if result["method"] == "exact"
        else "Tracy–Widom β=1 approximation, error O(d^(-2/3)) in the edge variable"
    )
    return (
        f"tau = {result['tau']:.10g}  (d = {result['d']}, rho = {result['rho']:g}, sigma = {result['sigma']:g}; "
        f"{how}); "
        f"P[||N||_2 <= tau] >= 1 - rho for N = sigma (Z + Z^T)/sqrt(2)"
    )


def command_tau(args: argparse.Namespace) -> int:
    """Compute τ for the parsed options and print or write its JSON (:func:`pdp_audit.use_cases.tau_file`; exit code
    0)."""
    # deferred: loads numpy; tau --help must not
    from pdp_audit.use_cases import tau_file

    validate(args)
    result = tau_file(args)
    if args.json not in (None, "-") and not args.quiet:
        print_out(describe(result))
    return 0
