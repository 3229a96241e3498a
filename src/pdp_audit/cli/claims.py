"""``pdp-audit claims``: the claims ledger as a readable table or JSON, or run (``--run``).

    pdp-audit claims [--paper PDP|RW|LR] [--status checked|planned|not-simulable] [--json PATH|-]
    pdp-audit claims --run [--only ID ...] [--paper PDP|RW|LR] [--quick] [--seed K] [--workers N]
                     [--report claims.pdf] [--json claims.json] [--strict]

Listing exits 0.  ``--run`` decides every selected entry from a run of today's code
(:mod:`pdp_audit.ledger.runs`) and exits 0 when every computed verdict agrees with the ledger's expected one,
1 when one disagrees (a regression, or a finding that changed) or, with ``--strict``, when a claim fails.
A bad value exits 2 with one line on stderr (via the CLI's usage-error path).
"""

from __future__ import annotations

import argparse
import textwrap
import time

from pdp_audit.catalogue.arguments import add_option
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.ledger import entries as ledger
from pdp_audit.reports.files import json_text, print_out
from pdp_audit.reports.verdict_words import check_word
from pdp_audit.verify.core.config import SEED_OPTION, WORKERS_OPTION
from pdp_audit.verify.estimators.progress import say
from pdp_audit.verify.inputs.validation import InputError, shown

#: ``claims --run --workers``: by default one worker per core.
CLAIMS_WORKERS = WORKERS_OPTION.with_default(None)

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
        help=COMMAND_HELP["claims"],
        description="List the claims ledger: the checkable claims (K1–K36), printed ambiguities (Q1–Q53) and numbered "
        "results of [PDP], [RW] and [LR], each with what the suite found.",
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
    p.add_argument(
        "--only", nargs="+", default=None, metavar="ID", help="only these entries, statements in full (e.g. K16 Q25)"
    )
    p.add_argument(
        "--quiet", action="store_true", help="nothing on stdout but --json -'s document, no progress on stderr"
    )
    run = p.add_argument_group("run mode (decide every entry from a run of today's code)")
    run.add_argument("--run", action="store_true", help="run the checks each entry cites and decide it")
    run.add_argument("--quick", action="store_true", help="small budgets (more inconclusive verdicts)")
    add_option(run, SEED_OPTION)
    add_option(run, CLAIMS_WORKERS)
    run.add_argument("--report", default=None, help="PDF path (default: claims.pdf; 'none' to skip)")
    run.add_argument("--strict", action="store_true", help="also exit 1 when any claim fails")
    p.set_defaults(handler=command_claims)
    return p


def document(entries, paper: str | None, status: str | None) -> dict:
    """The JSON document of a selection of ledger entries, with its filters and counts."""
    return {
        "schema": 1,
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


def render_table(entries, full: bool = False) -> str:
    """The entries as a plain-text table, one line per entry (``full``: each statement whole, wrapped)."""
    header = f"{'ID':<12}{'PAPER':<6}{'STATUS':<14}{'KIND':<24}WHERE"
    lines = [header, "-" * _WIDTH]
    for e in entries:
        lines.append(f"{e.id:<12}{e.paper:<6}{e.status:<14}{e.kind:<24}{e.where}")
        if full:
            lines += _wrap("", e.statement)
        else:
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
    # deferred: loads numpy; claims --help must not
    from pdp_audit.use_cases import claims_listing_file

    if args.run:
        return command_claims_run(args)

    def listed() -> tuple:
        run_only = [name for name in ("quick", "strict", "report") if getattr(args, name)]
        if run_only:
            raise InputError(f"--{run_only[0]} needs --run")
        entries = selected_entries(args)
        return entries, document(entries, args.paper, args.status)

    entries, doc = claims_listing_file(args.json, listed)
    if args.json == "-":
        text = json_text(doc).rstrip("\n")  # print() adds it back
    else:
        text = render_table(entries, full=bool(args.only)) + (f"\n  json: {shown(args.json)}" if args.json else "")
    if args.json == "-" or not args.quiet:
        print_out(text)  # piped into head: not an error
    return 0


def selected_entries(args: argparse.Namespace) -> list:
    """The entries ``--paper``, ``--status`` and ``--only`` select (an unknown id is a one-line error)."""
    entries = ledger.select(args.paper, args.status)
    if args.only:
        unknown = [i for i in args.only if i not in ledger.BY_ID]
        if unknown:
            raise InputError(f"--only: unknown claim id {unknown[0]!r} (see `pdp-audit claims` for the ids)")
        entries = [e for e in entries if e.id in set(args.only)]
        if not entries:
            raise InputError("--only: none of the given ids is in the --paper/--status selection")
    return entries


def command_claims_run(args: argparse.Namespace) -> int:
    """``pdp-audit claims --run``: decide the selected entries, write the PDF and JSON, return 0/1."""
    # deferred: loads numpy; claims --help must not
    from pdp_audit.use_cases import claims_run_files

    start = time.perf_counter()
    quiet = args.json == "-" or args.quiet

    def progress(audit: str, outcome: dict) -> None:
        if not quiet:
            say(f"  ran {audit} ({outcome['elapsed']:.1f} s)")  # above the bar of the audits done

    result, report = claims_run_files(args, (SEED_OPTION, CLAIMS_WORKERS), lambda: selected_entries(args), progress)
    if not quiet:
        print_out(render_decisions(result, time.perf_counter() - start, report))
    return result.exit_code(args.strict)


def render_decisions(result, elapsed: float, report: str | None) -> str:
    """One line per entry (verdict, expected, agreement), then the counts."""
    marks = {True: "agrees", False: "DISAGREES", None: "undecided"}
    lines = [f"{'ID':<13}{'VERDICT':<15}{'EXPECTED':<15}AGREEMENT  KEY NUMBER"]
    for d in result.decisions:
        lines.append(
            f"{d.entry.id:<13}{check_word(d.verdict):<15}{check_word(d.expected):<15}{marks[d.agrees]:<11}{d.key_number}"
        )
    n = len(result.decisions)
    counts = {v: sum(d.verdict == v for d in result.decisions) for v in ("pass", "fail", "inconclusive")}
    lines.append(
        f"\npdp-audit claims --run: {n} entries, {counts['pass']} certified, {counts['fail']} refuted, "
        f"{counts['inconclusive']} undecided; {len(result.disagreements())} disagree with the ledger "
        f"({elapsed:.0f} s{', quick budgets' if result.quick else ''})"
    )
    if report:
        lines.append(f"  report: {shown(report)}")
    return "\n".join(lines)
