"""``pdp-audit claims``: the claims ledger as a readable table or JSON.

    pdp-audit claims [--paper PDP|RW|LR] [--status checked|planned|not-simulable] [--json PATH|-]

Exit code 0; a bad filter value exits 2 with one line on stderr (via the CLI's usage-error path).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from verify.ledger import entries as ledger
from verify.options import check_output_path

_WIDTH = 118
_INDENT = " " * 12


def _paper(text: str) -> str:
    try:
        return ledger.normalize_paper(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _status(text: str) -> str:
    try:
        return ledger.normalize_status(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``pdp-audit claims`` to the subcommands."""
    p = subparsers.add_parser(
        "claims",
        help="the claims ledger: every checkable claim of the papers and what the suite found",
        description="List the claims ledger (verify/ledger/table.py): K, Q and numbered results of the design notes.",
    )
    p.add_argument("--paper", type=_paper, default=None, metavar="{PDP,RW,LR}", help="only this paper's entries")
    p.add_argument(
        "--status",
        type=_status,
        default=None,
        metavar="{checked,planned,not-simulable}",
        help="only entries with this status",
    )
    p.add_argument(
        "--json", default=None, metavar="PATH", help="write the selection as JSON to PATH, or - for stdout (no table)"
    )
    p.set_defaults(handler=command_claims)
    return p


def document(entries, paper: str | None, status: str | None) -> dict:
    """The JSON document of a selection of ledger entries, with its filters and counts."""
    return {
        "filters": {"paper": paper, "status": status},
        "counts": ledger.counts(entries),
        "total": len(entries),
        "issues": {f"#{k}": v for k, v in ledger.ISSUES.items()},
        "findings_run": ledger.FINDINGS_RUN,
        "entries": [e.to_dict() for e in entries],
    }


def _wrap(label: str, text: str) -> list[str]:
    return textwrap.wrap(
        f"{label}{text}",
        width=_WIDTH,
        break_on_hyphens=False,
        initial_indent=_INDENT,
        subsequent_indent=_INDENT + " " * len(label),
    )


def render_table(entries) -> str:
    """The entries as a plain-text table, one line per entry."""
    header = f"{'ID':<12}{'PAPER':<6}{'STATUS':<14}{'KIND':<24}WHERE"
    lines = [header, "-" * _WIDTH]
    for e in entries:
        lines.append(f"{e.id:<12}{e.paper:<6}{e.status:<14}{e.kind:<24}{e.where}")
        lines.append(_INDENT + textwrap.shorten(e.statement, width=_WIDTH - len(_INDENT), placeholder=" …"))
        if e.status == "checked":
            lines += _wrap("checks: ", e.evidence)
        elif e.status == "planned":
            lines += _wrap("planned: ", e.evidence)
        else:
            lines += _wrap("why not: ", e.evidence)
        if e.finding:
            lines += _wrap("finding: ", e.finding)
        if e.note:
            lines += _wrap("note: ", e.note)
    c = ledger.counts(entries)
    lines.append("")
    lines.append(
        f"{len(entries)} entries: {c['checked']} checked, {c['planned']} planned, {c['not simulable']} not simulable"
    )
    return "\n".join(lines)


def command_claims(args: argparse.Namespace) -> int:
    """``pdp-audit claims``: print (and optionally write as JSON) the selected entries; exit 0."""
    check_output_path(args.json, "--json")
    entries = ledger.select(args.paper, args.status)
    doc = document(entries, args.paper, args.status)
    if args.json and args.json != "-":
        from reports.files import atomic_path

        with atomic_path(args.json) as tmp:
            tmp.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if args.json == "-":
        text = json.dumps(doc, ensure_ascii=False, indent=2)
    else:
        text = render_table(entries) + (f"\n  json: {args.json}" if args.json else "")
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
