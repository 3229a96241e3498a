"""``pdp-audit blackbox MODULE:FACTORY``: try to refute a DP claim of a mechanism that can only be sampled.

    pdp-audit blackbox mypkg.mech:make_pair --claim-epsilon 1 --claim-delta 1e-5 --json out.json

``FACTORY`` is called with no arguments and returns an object with ``sample(world, size, rng)`` (``world`` is
"D" or "D'"; releases as a (size, d) array) -- a neighbouring pair without its privacy loss.  A test statistic is
learned on ``--train-trials`` releases per world (default ``--trials``) and ε is bounded on ``--trials`` fresh ones,
streamed in blocks over ``--workers`` processes (:mod:`pdp_audit.audits.blackbox.attack`; the numbers do not depend on
the workers).
Exit 1 when the claim is refuted, 3 when it is not (a black-box audit never certifies: it cannot exit 0).  The
import, the factory and the audit run in a child process (:func:`pdp_audit.verify.core.sandbox.run_isolated`): a
target that ends that process itself (an exit that skips Python's own, a segfault) is exit 2 and one line naming it.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from pdp_audit.audits.blackbox.config import command_defaults
from pdp_audit.blackbox_search_files import blackbox_search_files
from pdp_audit.catalogue.arguments import add_option
from pdp_audit.cli import blackbox_search
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.certified_claim import NOT_REPRODUCIBLE, reproducible
from pdp_audit.reports.files import print_out
from pdp_audit.reports.numbers import fmt_level
from pdp_audit.reports.verdict_words import claim_word
from pdp_audit.use_cases import blackbox_files, command_config, kind_options
from pdp_audit.verify.inputs.validation import InputError, shown

#: Where the blocks of releases are drawn (a group of its own on the command line: one of them).
PLACE_KEYS = ("workers", "scheduler", "dask_local")
#: The claim and budget of ``blackbox``: the black-box kind's options (:mod:`pdp_audit.audits.blackbox.config`).
BLACKBOX_OPTIONS = tuple(o for o in kind_options("blackbox") if o.key not in PLACE_KEYS and o.cli)
#: Where the blocks of releases are drawn: worker processes, or Dask (the options of ``sweep``, declared once).
PLACE_OPTIONS = tuple(o for o in kind_options("blackbox") if o.key in PLACE_KEYS)


def configured(args: argparse.Namespace):
    """The black-box kind's config from the command line (every flag checked once, in its words), and ``args``
    holding its values with ``--trials`` and ``--statistic`` resolved by the kind's one rule
    (:func:`pdp_audit.audits.blackbox.config.command_defaults`)."""
    keys = [o.key for o in (*BLACKBOX_OPTIONS, *PLACE_OPTIONS)]
    config = command_config("blackbox", {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None})
    for key in keys:
        setattr(args, key, getattr(config, key))
    resolved(args)
    return replace(config, trials=args.trials, statistic=args.statistic, workers=args.workers)


def resolved(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with ``--trials`` and ``--statistic`` given their defaults where not given, by the black-box
    kind's one rule (:func:`pdp_audit.audits.blackbox.config.command_defaults`)."""
    reported = bool(args.report and args.report.lower() != "none")
    args.trials, args.statistic, workers = command_defaults(
        args.trials, args.statistic, getattr(args, "workers", None), bool(args.search), reported, bool(args.witness)
    )
    if workers is not None:
        args.workers = workers
    return args


def add_parser(subparsers) -> None:
    """Add ``pdp-audit blackbox`` to the CLI's subparsers."""
    p = subparsers.add_parser(
        "blackbox",
        help=COMMAND_HELP["blackbox"],
        description="Learn a test of D vs D' on sampled releases and bound ε on fresh ones; exit 1 if the claim is "
        "refuted, 3 otherwise.",
    )
    p.add_argument(
        "target",
        help="MODULE:FACTORY (a module of the current folder or an installed one); FACTORY() returns an object with "
        "sample(world, size, rng)",
    )
    for option in BLACKBOX_OPTIONS:
        add_option(p, option, required=option.key in ("claim_epsilon", "claim_delta"))
    where = p.add_mutually_exclusive_group()  # as sweep's: where the blocks run (the numbers do not depend on it)
    for option in PLACE_OPTIONS:
        add_option(where, option)
    p.add_argument("--json", default=None, help="write the decided check as JSON to this path (- = stdout)")
    p.add_argument("--quiet", action="store_true", help="no summary on stdout")
    blackbox_search.add_search_arguments(p)
    p.set_defaults(handler=command_blackbox)


def command_blackbox(args: argparse.Namespace) -> int:
    """Run the black-box attack (:func:`pdp_audit.use_cases.blackbox_files`) and print its check; 1 if refuted, 3
    otherwise."""
    said = getattr(args, "early_stop", None)  # given (--early-stop True, --no-early-stop False), or None
    config = configured(args)
    # a search, a witness or a report draws its whole budget (the default's early stop is a plain run's): what the
    # user asked of the plain run's pass alone is refused
    if blackbox_search.wanted(args) and (said or args.time_limit is not None):
        flag = "--early-stop" if said else "--time-limit"
        raise InputError(
            f"{flag} stops a plain run's fresh pass; --search, --witness and --report draw the whole budget"
        )
    if blackbox_search.wanted(args):  # the whole search in the child: its outcome holds the user's objects
        return blackbox_search_files(args)
    run = blackbox_files(args, config)  # the user's code in a process of its own; the JSON written
    if args.json != "-" and not args.quiet:
        (check,) = run.checks
        print_out(_summary(args, check))
    return run.exit_code


def _summary(args: argparse.Namespace, check) -> str:
    """The one line printed for the decided check: the bound, or why the sampler broke the protocol."""
    head = f"pdp-audit blackbox {shown(args.target)}: {claim_word(check.verdict)}"
    if check.id == "pair-protocol":
        return f"{head}  pair-protocol: {check.note}"
    lo = check.ci[0] if check.ci else float("nan")
    line = f"{head}  ε lower bound {lo:.4g} at confidence {fmt_level(check.level)} (claim ε = {args.claim_epsilon:g})"
    if check.details.get("float_implementation") == "not audited":  # float releases read as reals: said on the line
        line += "; the float implementation was not audited"
    return line + ("" if reproducible([check]) else NOT_REPRODUCIBLE)
