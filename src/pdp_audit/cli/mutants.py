"""``pdp-audit mutants``: the mutant zoo's detection table (:mod:`pdp_audit.mutants`).

    pdp-audit mutants --quick --json mutants.json --report mutants.pdf

Audits every mutant (a plausible bug, the mechanism still claiming its guarantee) and its correct twin, prints
one line per mutant and exits 0 when every mutant fails and every twin passes, 1 otherwise.  Each pair's pass is
drawn in looks and stopped once decided (the releases per world the maximum; the JSON records the draws each used:
:mod:`pdp_audit.verify.evidence.pair_sequential`): at most 1e5 releases per world, 4e4 with ``--quick``
(:data:`pdp_audit.mutant_runs.QUICK_MAX_TRIALS`).  A coverage case's draws are decided likewise, by a confidence
sequence (:mod:`pdp_audit.verify.evidence.coverage_sequential`).  ``--no-early-stop`` draws the whole budget in one
pass: 1e5, 2e4 with ``--quick``.  ``--only ID ...`` audits those mutants alone.
"""

from __future__ import annotations

import argparse
import sys

from pdp_audit.audits.pair.config import EARLY_STOP_OPTION
from pdp_audit.catalogue.arguments import add_option, typed
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.verdict_words import check_word
from pdp_audit.verify.core.config import ALPHA_OPTION, SEED_OPTION, Option, Range
from pdp_audit.verify.estimators.progress import say
from pdp_audit.verify.inputs.validation import InputError

#: ``--trials`` of the zoo: releases per world of each mutant and twin (default: 1e5; with --quick 4e4 at most, 2e4
#: with --no-early-stop).
MUTANT_TRIALS = Option("trials", "int", None, "releases per world (overrides --quick)", range=Range(1000, 1e7))


def add_parser(subparsers) -> None:
    """Add ``pdp-audit mutants`` to the CLI's subparsers."""
    p = subparsers.add_parser(
        "mutants",
        help=COMMAND_HELP["mutants"],
        description="Audit every mutant of the zoo and its correct twin; exit 0 when every mutant fails and every "
        "twin passes.",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="at most 4e4 releases per world instead of 1e5 (2e4, the whole of them, with --no-early-stop)",
    )
    for option in (MUTANT_TRIALS, SEED_OPTION, ALPHA_OPTION, EARLY_STOP_OPTION):
        add_option(p, option)
    p.add_argument("--json", default=None, help="write the table as JSON to this path (- = stdout)")
    p.add_argument("--report", default=None, help="write the table as a PDF to this path ('none', as for run: no PDF)")
    p.add_argument("--quiet", action="store_true", help="no table on stdout and no progress on stderr")
    p.add_argument("--only", nargs="+", metavar="ID", default=None, help="only these mutants (ids as the table prints)")
    p.set_defaults(handler=command_mutants)


def command_mutants(args: argparse.Namespace) -> int:
    """Run the zoo, write the table, return 0 if every mutant is caught."""
    # deferred: loads scipy; mutants --help must not
    from pdp_audit import mutant_runs as runs
    from pdp_audit import mutants as zoo

    # deferred: loads tempfile; mutants --help must not
    from pdp_audit.reports.files import print_out, reader_left
    from pdp_audit.use_cases import mutants_files

    typed(args, MUTANT_TRIALS, SEED_OPTION, ALPHA_OPTION, EARLY_STOP_OPTION)
    trials = args.trials or (runs.quick_trials(args.early_stop) if args.quick else runs.TRIALS)
    if args.report is not None and args.report.lower() == "none":  # as every other command reads it
        args.report = None
    chosen = zoo.MUTANTS
    if args.only:
        known = {m.id for m in zoo.MUTANTS}
        unknown = [name for name in args.only if name not in known]
        if unknown:
            raise InputError(f"--only: no mutant {unknown[0]!r}; `pdp-audit mutants --quick` lists them")
        chosen = tuple(m for m in zoo.MUTANTS if m.id in args.only)

    def tell(mutant, outcome) -> None:  # a line per mutant, above the bar of the mutants done
        if not args.quiet and args.json != "-":
            mark = "caught" if outcome.ok else "MISSED"
            caught_by = ", ".join(outcome.caught_by) or "—"
            verdict, twin = check_word(outcome.verdict), check_word(outcome.twin_verdict)
            line = f"  {mark:7s} {mutant.id:28s} mutant {verdict:12s} by {caught_by}; twin {twin}"
            try:
                say(line, sys.stdout)
            except BrokenPipeError:  # the reader left: the other mutants still run, the exit code stays theirs
                reader_left()

    doc = mutants_files(chosen, trials, args, tell)
    if not args.quiet and args.json != "-":
        print_out(f"pdp-audit mutants: {doc['caught']} of {doc['total']} caught ({trials:,} releases per world)")
    return 0 if doc["caught"] == doc["total"] else 1
