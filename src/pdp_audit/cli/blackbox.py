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
import importlib
import os
import sys
from dataclasses import replace

from pdp_audit import api
from pdp_audit.api import COMMAND_LINE, add_option, check_outputs, run_isolated
from pdp_audit.audits.blackbox.config import command_defaults
from pdp_audit.cli import blackbox_search
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.mechanisms.base import user_error
from pdp_audit.reports.files import json_text, print_out
from pdp_audit.reports.numbers import fmt_level
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError, quoted, shown

#: Where the blocks of releases are drawn (a group of its own on the command line: one of them).
PLACE_KEYS = ("workers", "scheduler", "dask_local")
#: The claim and budget of ``blackbox``: the black-box kind's options (:mod:`pdp_audit.audits.blackbox.config`).
BLACKBOX_OPTIONS = tuple(o for o in api.kind_options("blackbox") if o.key not in PLACE_KEYS and o.cli)
#: Where the blocks of releases are drawn: worker processes, or Dask (the options of ``sweep``, declared once).
PLACE_OPTIONS = tuple(o for o in api.kind_options("blackbox") if o.key in PLACE_KEYS)


def configured(args: argparse.Namespace):
    """The black-box kind's config from the command line (every flag checked once, in its words), and ``args``
    holding its values with ``--trials`` and ``--statistic`` resolved by the kind's one rule
    (:func:`pdp_audit.audits.blackbox.config.command_defaults`)."""
    keys = [o.key for o in (*BLACKBOX_OPTIONS, *PLACE_OPTIONS)]
    config = api.kind_config(
        "blackbox", {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}, COMMAND_LINE
    )
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
    blackbox_search.add_search_arguments(p)
    p.set_defaults(handler=command_blackbox)


def module_file(target: str) -> str | None:
    """The source file of TARGET's module, found as :func:`load_factory` would import it (None if none is found:
    importing it will say why)."""
    import importlib.util

    module_name = target.partition(":")[0]
    sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(module_name) if module_name else None
    except (ImportError, ValueError):
        return None
    finally:
        sys.path.remove(os.getcwd())
    return spec.origin if spec is not None and spec.has_location else None


def load_factory(target: str, needs: str = "sample"):
    """The object FACTORY() of ``MODULE:FACTORY``; one-line InputErrors for what cannot be loaded.  ``needs``:
    ``sample`` (a pair) or ``release`` (a mechanism for ``--search``)."""
    from pdp_audit.verify.core.sandbox import user_state

    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise InputError(f"target must be MODULE:FACTORY, got {target!r}")
    # the current folder first, as `python -m` would: a console script's sys.path starts at its own bin folder
    sys.path.insert(0, os.getcwd())
    try:
        with user_state():  # what the module sets of the process's state while it loads is undone
            module = importlib.import_module(module_name)
    except ImportError as err:
        raise InputError(f"target: cannot import module {module_name!r} ({err})") from None
    except BaseException as err:  # the user's module failed while it was imported: their code, their error
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise InputError(f"target: importing module {module_name!r} raised {user_error(err)}") from None
    finally:
        sys.path.remove(os.getcwd())
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise InputError(f"target: {module_name} has no callable {attr!r}")
    try:
        with user_state():  # an np.seterr, a recursion limit, sys.path emptied: undone for our code
            pair = factory()
    except BaseException as err:  # sys.exit(0) in the factory must not make a command that certifies
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise InputError(f"target: {target}() raised {user_error(err)}") from None  # nothing exit 0
    if needs == "release" and not callable(getattr(pair, "release", None)):
        raise InputError(
            f"target: {quoted(target + '()')} must return an object with dimension and release(dataset, size, rng)"
        )
    if needs == "sample" and not callable(getattr(pair, "sample", None)):
        raise InputError(f"target: {quoted(target + '()')} must return an object with sample(world, size, rng)")
    return pair


def command_blackbox(args: argparse.Namespace) -> int:
    """Run the black-box attack and report its check; 1 if refuted, 3 otherwise."""
    from pdp_audit.reports.json_report import check_to_dict

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
        target = f"target: the code of {shown(args.target)}"
        return run_isolated(blackbox_search.command, args, module_file, load_factory, target=target)
    check_outputs({"--json": args.json}, {"the module of TARGET": module_file(args.target)})

    # the user's code in a process of its own (pdp_audit.verify.core.sandbox): a hard exit in it cannot end this
    # command with 0, and its process ends as Python ends (its open files flushed, its atexit handlers run)
    run = run_isolated(audited, args, config, target=f"target: the code of {shown(args.target)}")
    args.trials = run.parameters.get("trials", args.trials)  # the default, fitted to the sampler where it was slow
    (check,) = run.checks
    doc = {
        "schema": 1,
        "target": args.target,
        "claim": {"epsilon": args.claim_epsilon, "delta": args.claim_delta},
        "trials": args.trials,
        **({} if args.train_trials is None else {"train_trials": args.train_trials}),
        "statistic": args.statistic,
        **({"law": args.law} if args.law != "as-implemented" else {}),
        "seed": args.seed,
        "alpha": args.alpha,
        "check": check_to_dict(check),
    }
    text = json_text(doc)
    if args.json == "-":
        from pdp_audit.reports.files import write_stdout

        write_stdout(text)
    else:
        if args.json:
            from pdp_audit.reports.files import atomic_path

            with atomic_path(args.json) as tmp:
                tmp.write_text(text, encoding="utf-8")
        print_out(_summary(args, check))
    return run.exit_code


def audited(args: argparse.Namespace, config):
    """The black-box audit of ``args.target`` (its Run), in the sandbox's child: the import, the factory, the audit."""
    # the current folder stays importable while the sampler runs (a lazy import of a module beside TARGET's)
    sys.path.insert(0, os.getcwd())
    factory = load_factory(args.target)
    check_outputs({"--json": args.json})  # again: the modules TARGET imported are known now, before the audit
    # a bar on a terminal only: a user's sampler may take minutes
    run = api.run_kind("blackbox", replace(config, target=factory), progress=True)
    check_outputs({"--json": args.json})  # and after the audit: a file the sampler read (in this process) too
    return run


def _summary(args: argparse.Namespace, check) -> str:
    """The one line printed for the decided check: the bound, or why the sampler broke the protocol."""
    head = f"pdp-audit blackbox {shown(args.target)}: {check.verdict.upper()}"
    if check.id == "pair-protocol":
        return f"{head}  pair-protocol: {check.note}"
    lo = check.ci[0] if check.ci else float("nan")
    line = f"{head}  ε lower bound {lo:.4g} at confidence {fmt_level(check.level)} (claim ε = {args.claim_epsilon:g})"
    if check.details.get("float_implementation") == "not audited":  # float releases read as reals: said on the line
        line += "; the float implementation was not audited"
    return line
