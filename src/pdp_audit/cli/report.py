"""``pdp-audit report STORE.sqlite``: render a sweep's store as a PDF (and JSON), complete or not."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.verdict_words import claim_word
from pdp_audit.verify.inputs.validation import InputError, shown


def add_parser(subparsers) -> None:
    """Add ``pdp-audit report`` to the subcommands."""
    p = subparsers.add_parser(
        "report",
        help=COMMAND_HELP["report"],
        description="Render any sweep store, complete or partial.",
    )
    p.add_argument("store", help="a store written by pdp-audit sweep")
    p.add_argument("-o", "--output", default=None, help="PDF path (default: the store's stem + .pdf; 'none' to skip)")
    p.add_argument("--json", default=None, help="JSON path, or - for stdout")
    p.add_argument(
        "--csv",
        default=None,
        help="CSV path (- for stdout): one row per cell and check (parameters, estimate, interval, verdict)",
    )
    p.add_argument("--quiet", action="store_true", help="no summary")
    p.set_defaults(handler=command_report)


def command_report(args: argparse.Namespace) -> int:
    """``pdp-audit report``: write the store's PDF and/or JSON and print a one-line summary; exit 0."""
    # deferred: loads logging; report --help must not
    from pdp_audit.reports.files import print_out
    from pdp_audit.use_cases import sweep_report_files

    if not Path(args.store).name:
        raise InputError(f"pdp-audit report: STORE must name a sweep store file, got {args.store!r}")
    pdf = args.output or str(Path(args.store).with_suffix(".pdf"))
    results = sweep_report_files(args.store, pdf, args.json, args.csv)  # one-line error if it is not a store
    if not args.quiet:
        counts = results.counts
        total = len(results.cells) + len(results.missing)
        out = sys.stderr if "-" in (args.json, args.csv) else sys.stdout
        state = "" if results.complete else f" (incomplete: {len(results.missing)} of {total} cells missing)"
        print_out(
            f"pdp-audit report {shown(results.spec['name'])}: {claim_word(results.verdict)}{state} — "
            f"{counts['pass']} certified, {counts['fail']} refuted, {counts['inconclusive']} undecided"
            + (f"; report: {shown(pdf)}" if pdf.lower() != "none" else ""),
            file=out,
        )
    return 0
