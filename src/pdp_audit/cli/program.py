"""``pdp-audit program MODULE:FUNCTION``: audit the DP claim of a program as it ships.

    pdp-audit program mypkg.stats:release --data people.csv --claim-epsilon 1 --claim-delta 0 --bounds 0,1

``FUNCTION(data, rng)`` is called with the dataset (``--data``: a CSV with a header row as a pandas DataFrame, or a
``.npy`` array of records) and a numpy Generator, and returns the release.  Its noise primitives are recorded and
replayed on neighbouring datasets (``--neighbours``), their exact privacy-loss laws composed, and a structural
finding confirmed by the black box on the witness pair (:mod:`pdp_audit.audits.program.audit`).  Exit 0: certified
on the pairs searched; 1: refuted; 3: undecided; 2: bad input.  The import and the audit run in a child process
(:func:`pdp_audit.verify.core.sandbox.run_isolated`), which ends as Python ends: a program that ends that process
itself is exit 2 and one line naming it.
"""

from __future__ import annotations

import argparse
import textwrap

from pdp_audit.catalogue.arguments import add_option
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.verdict_words import check_word, claim_word
from pdp_audit.use_cases import kind_options, program_files
from pdp_audit.verify.inputs.validation import shown

#: The program kind's options (:mod:`pdp_audit.audits.program.config`), the flags of this command.
PROGRAM_OPTIONS = tuple(o for o in kind_options("program") if o.cli)
#: The PDF written unless ``--report`` names another (or ``none``), in the working folder.
DEFAULT_REPORT = "pdp-audit-program.pdf"
#: The columns a summary line is wrapped at (fixed, not the terminal's: the same run prints the same text anywhere).
SUMMARY_WIDTH = 110
#: The indent of a check's wrapped continuation lines (under its verdict).
CONTINUED = " " * 6


def add_parser(subparsers) -> None:
    """Add ``pdp-audit program`` to the CLI's subparsers."""
    p = subparsers.add_parser(
        "program",
        help=COMMAND_HELP["program"],
        description="Record and replay a DP program's noise primitives on neighbouring datasets, compose their exact "
        "privacy-loss laws, confirm findings with the black box; exit 0 certified, 1 refuted, 3 undecided.",
    )
    p.add_argument(
        "target",
        help="MODULE:FUNCTION (a module of the current folder or an installed one); "
        "FUNCTION(data, rng) returns the release",
    )
    for option in PROGRAM_OPTIONS:
        add_option(p, option, required=option.key in ("claim_epsilon", "claim_delta", "data"))
    p.add_argument("--report", default=None, help=f"the PDF report (default: {DEFAULT_REPORT}; 'none' to skip)")
    p.add_argument("--json", default=None, help="write the JSON report here (- = stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr and no summary on stdout")
    p.set_defaults(handler=command_program)


def command_program(args: argparse.Namespace) -> int:
    """Audit the program and write the reports (:func:`pdp_audit.use_cases.program_files`), print its summary; the
    verdict's exit code."""
    # deferred: loads pdp_audit.reports.files; program --help must not
    from pdp_audit.reports.files import print_out

    values = {o.key: getattr(args, o.key) for o in PROGRAM_OPTIONS if getattr(args, o.key, None) is not None}
    args.report = args.report or DEFAULT_REPORT
    if args.report.lower() == "none":
        args.report = None
    run = program_files(args.target, values, args.report, args.json, progress=not args.quiet)
    if args.json != "-" and not args.quiet:
        print_out(_summary(run, args))
        if args.report:
            print_out(f"  report: {shown(args.report)}")
    return run.exit_code


def _summary(run, args: argparse.Namespace) -> str:
    """One line per check, its verdict and its whole note, wrapped at :data:`SUMMARY_WIDTH` between words (a note
    cut at a fixed length ended mid-sentence: "…holds for")."""
    claim = run.parameters
    composition = next((c for c in run.checks if c.id == "program-composition"), None)
    tightest = composition.details.get("certified_at") if composition is not None else None
    # the tightest claim the exact composition certifies, where only the claim's δ keeps it from a pass
    certified_at = f"; certified at ({tightest[0]:g}, {tightest[1]:.4g})" if tightest else ""
    lines = [
        f"pdp-audit program {shown(args.target)}: {claim_word(run.verdict)} (claim ε = {claim.get('epsilon')}, "
        f"δ = {claim.get('delta')}, {claim.get('neighbours')}){certified_at}"
    ]
    for check in run.checks:
        p = "" if check.pvalue is None else f" p = {check.pvalue:.3g}"
        lines.append(wrapped(f"  {check.id}: {check_word(check.verdict)}{p}  {check.note}"))
    if claim.get("scope"):  # what the verdict is about: the float program, or its primitives' real-valued laws
        lines.append(f"  scope: {claim['scope']}")
    return "\n".join(lines)


def wrapped(line: str) -> str:
    """``line`` as lines of at most :data:`SUMMARY_WIDTH` characters, broken between words only (a word longer than a
    line -- a path, a number -- stands whole on its own line), continued under the verdict."""
    return textwrap.fill(
        line,
        width=SUMMARY_WIDTH,
        subsequent_indent=CONTINUED,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    )
