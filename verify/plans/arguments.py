"""The command line of ``pdp-audit run NAME``: the options every audit shares, and one audit's whole parser.

Kept below the CLI so that other entry points (the claims ledger's run mode) parse an audit's command exactly as
``pdp-audit run`` does.
"""

from __future__ import annotations

import argparse

from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.options import count
from pdp_audit.verify.plans.plan import AuditPlan


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`InputError` (one line, exit 2) instead of exiting."""

    def error(self, message: str):  # one line, no usage dump
        raise InputError(f"{self.prog}: {message}")


def add_common_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every ``pdp-audit run NAME`` shares: the claim, budget, seed, α, workers and outputs."""
    parser.add_argument("--claim-epsilon", type=float, default=1.0, help="claimed ε (default: 1)")
    parser.add_argument("--claim-delta", type=float, default=1e-5, help="claimed δ (default: 1e-5)")
    parser.add_argument(
        "--trials",
        type=count,
        default=1_000_000,
        help="Monte Carlo samples per world (default: 1e6 unless the audit says otherwise)",
    )
    parser.add_argument("--seed", type=count, default=0, help="root seed (default: 0)")
    parser.add_argument(
        "--alpha", type=float, default=1e-6, help="family-wise false-alarm probability of the run (default: 1e-6)"
    )
    parser.add_argument(
        "--workers", type=count, default=1, help="worker processes (default: 1; results do not depend on it)"
    )
    parser.add_argument(
        "--report", default=None, help="PDF report path (default: pdp-audit-<mechanism>.pdf; 'none' to skip)"
    )
    parser.add_argument("--json", default=None, help="JSON results path, or - for stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress or summary on stderr/stdout")
    parser.add_argument(
        "--paper-claims",
        action="store_true",
        help="also check the papers' statements as printed (an appendix of findings; never changes the exit code)",
    )


def add_run_arguments(parser: argparse.ArgumentParser, audit: AuditPlan) -> argparse.ArgumentParser:
    """``parser`` as ``pdp-audit run NAME``'s: the audit's own options, the shared ones, the audit's defaults."""
    audit.add_arguments(parser)
    add_common_run_arguments(parser)
    parser.set_defaults(**audit.defaults)
    return parser


def run_parser(name: str) -> Parser:
    """The whole parser of ``pdp-audit run NAME`` (its prog names the command, as in the CLI's messages)."""
    from pdp_audit.verify.plans.catalogue import plans_by_name

    return add_run_arguments(Parser(prog=f"pdp-audit run {name}"), plans_by_name()[name])


def parse_run(argv: list[str]) -> argparse.Namespace:
    """Parse ``run NAME [options]`` exactly as the CLI does (a bad option is an InputError: one line, exit 2)."""
    from pdp_audit.verify.plans.catalogue import plans_by_name

    if len(argv) < 2 or argv[0] != "run" or argv[1] not in plans_by_name():
        raise InputError(f"not an audit command: {' '.join(argv[:2])!r}")
    return run_parser(argv[1]).parse_args(argv[2:], argparse.Namespace(mechanism=argv[1]))
