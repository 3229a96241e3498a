"""The ``pdp-audit`` command line.

Exit codes: 0 every check passes, 1 some check fails, 3 no fail but some inconclusive,
2 bad usage or input (one line on stderr naming the option and its valid range), 130 interrupted.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from verify.audit_registry import load_audits
from verify.cli_types import count

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad usage or input: reported as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message}")


def add_common_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claim-epsilon", type=float, default=1.0, help="claimed ε (default: 1)")
    parser.add_argument("--claim-delta", type=float, default=1e-5, help="claimed δ (default: 1e-5)")
    parser.add_argument("--trials", type=count, default=1_000_000, help="Monte Carlo samples per world (default: 1e6 unless the audit says otherwise)")
    parser.add_argument("--seed", type=count, default=0, help="root seed (default: 0)")
    parser.add_argument("--alpha", type=float, default=1e-6, help="family-wise false-alarm probability of the run (default: 1e-6)")
    parser.add_argument("--workers", type=count, default=1, help="worker processes (default: 1; results do not depend on it)")
    parser.add_argument("--report", default=None, help="PDF report path (default: pdp-audit-<mechanism>.pdf; 'none' to skip)")
    parser.add_argument("--json", default=None, help="JSON results path, or - for stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress or summary on stderr/stdout")


def build_parser() -> Parser:
    """``list`` and ``run`` are built in; other subcommands come from :mod:`verify.command_catalogue`.

    A command module exposes ``add_parser(subparsers)``, which registers its subparser and sets
    ``handler`` (a function of the parsed arguments returning the exit code) as a default.
    """
    from verify import command_catalogue

    parser = Parser(prog="pdp-audit", description="Certify (per-instance) differential-privacy claims by simulation.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    sub.add_parser("list", help="what can be audited").set_defaults(handler=lambda args: command_list())
    run = sub.add_parser("run", help="audit one mechanism and write a PDF/JSON report")
    run.set_defaults(handler=command_run)
    mechanisms = run.add_subparsers(dest="mechanism", required=True, parser_class=Parser)
    for name, audit in load_audits().items():
        p = mechanisms.add_parser(name, help=audit.help)
        audit.add_arguments(p)
        add_common_run_arguments(p)
        p.set_defaults(**audit.defaults)
    for module in command_catalogue.COMMANDS:
        module.add_parser(sub)
    return parser


def command_list() -> int:
    from mechanisms.base import registered

    audits = load_audits()
    print("Audits (pdp-audit run NAME):")
    for name, audit in audits.items():
        print(f"  {name:24s} {audit.help}")
    print("\nRegistered mechanisms (common contract suite):")
    for name, mech in registered().items():
        print(f"  {name:24s} {mech.description}")
    return 0


def print_summary(run, elapsed: float) -> None:
    print(f"pdp-audit run {run.mechanism}: {run.verdict.upper()} ({elapsed:.1f} s)")
    for check in run.checks:
        ci = "" if check.ci is None else f"  CI [{check.ci[0]:.4g}, {check.ci[1]:.4g}]"
        est = "" if check.estimate is None else f"estimate {check.estimate:.4g}"
        print(f"  {check.verdict.upper():13s} {check.id:24s} {est}{ci}")


def command_run(args: argparse.Namespace) -> int:
    from reports.json_report import write_json
    from reports.pdf import write_pdf

    audit = load_audits()[args.mechanism]
    start = time.perf_counter()
    run = audit.execute(args)
    report = args.report or f"pdp-audit-{args.mechanism}.pdf"
    if args.json:
        write_json(run, args.json)
    if report.lower() != "none":
        write_pdf(run, report)
    if not args.quiet and args.json != "-":
        print_summary(run, time.perf_counter() - start)
        if report.lower() != "none":
            print(f"  report: {report}")
    return run.exit_code


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except UsageError as err:
        print(str(err), file=sys.stderr)
        return EXIT_USAGE
    except ValueError as err:  # parameter validation: one line naming the parameter
        print(f"pdp-audit: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `pdp-audit ... | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("pdp-audit: interrupted; reports are written only when complete, so no partial file was left", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
