"""The use case of ``pdp-audit blackbox`` with a search over neighbouring inputs, a witness re-check, or a PDF
report (the command line: :mod:`pdp_audit.cli.blackbox_search`).

With ``--search``, ``FACTORY()`` returns a mechanism (:class:`pdp_audit.audits.blackbox.search.SearchMechanism`:
``dimension`` and ``release(dataset, size, rng)``); candidate pairs are ranked on pilot attacks and the chosen one
attacked on fresh releases.  ``--witness W.json`` re-applies the frozen test of a blackbox JSON to fresh releases of
the same target, by default as many as the witness was bounded on.  ``--report R.pdf`` writes the PDF; without
``--search`` it attacks the pair ``FACTORY()`` returns, exactly as a plain run, and adds the witness to the JSON.
"""

from __future__ import annotations

import argparse

from pdp_audit.reports.certified_claim import NOT_REPRODUCIBLE, reproducible
from pdp_audit.reports.files import json_text, print_out
from pdp_audit.reports.numbers import fmt_level
from pdp_audit.reports.verdict_words import claim_word
from pdp_audit.use_cases import load_factory, module_file
from pdp_audit.verify.core.config import pair_value
from pdp_audit.verify.core.outputs import check_outputs
from pdp_audit.verify.core.sandbox import run_isolated
from pdp_audit.verify.inputs.validation import InputError, shown


def _count(text: str, name: str, low: int, high: int) -> int:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (low <= value <= high and value == int(value)):
        raise InputError(f"{name} must be an integer in [{low:g}, {high:g}], got {text!r}")
    return int(value)


def blackbox_search_files(args: argparse.Namespace) -> int:
    """``pdp-audit blackbox`` with ``--search``, ``--witness`` or ``--report``: the outputs checked against TARGET's
    module and the witness, and the witness read and checked (:func:`read_witness`: a damaged or edited one is
    refused in one line before anything else starts), then :func:`searched_blackbox` in a process of its own
    (:func:`pdp_audit.verify.core.sandbox.run_isolated`): its outcome holds the user's objects, and a hard exit in
    the user's code cannot end the command with 0.  The exit code."""
    # deferred: loads numpy; blackbox --help must not
    from pdp_audit.audits.blackbox.neighbours import Neighbours
    from pdp_audit.audits.blackbox.witness_file import read_witness

    try:  # first, named by its flag: a radius whose candidates overflow is refused before anything runs
        Neighbours.parse(args.neighbours)
    except InputError as err:
        raise InputError(f"--{err}") from None
    report = _report(args)
    if args.witness and args.search:
        raise InputError("--witness re-checks a stored test: it takes no --search")
    inputs = {"the module of TARGET": module_file(args.target), "--witness": args.witness}
    check_outputs({"--json": args.json, "--report": report}, inputs)
    witness = read_witness(args.witness, args.target) if args.witness else None
    if witness is not None and args.trials is None:  # the witness's own budget: the same seed reproduces its bound
        args.trials = _witness_trials(witness)
    return run_isolated(searched_blackbox, args, witness, target=f"target: the code of {shown(args.target)}")


def _report(args: argparse.Namespace) -> str | None:
    return None if args.report is None or args.report.lower() == "none" else args.report


def searched_blackbox(args: argparse.Namespace, witness: dict | None) -> int:
    """Run the search, the re-check of ``witness`` (read and checked by :func:`blackbox_search_files`) or the
    reported attack of ``args`` (already typed), its outputs checked again once TARGET is imported, and write its
    JSON and PDF; 1 refuted, 3 otherwise."""
    # deferred: loads scipy; blackbox --help must not
    from pdp_audit.audits.blackbox.search_check import SearchOptions

    report = _report(args)
    options = SearchOptions(
        search=args.search or "patterns",
        neighbours=args.neighbours,
        candidates=_count(args.candidates, "candidates", 1, 10_000),
        pilot_trials=_count(args.pilot_trials, "pilot-trials", 100, 10**8),
        trials=args.trials,
        train_trials=args.train_trials,
        workers=args.workers,
        statistic=args.statistic,
        rounds=_count(args.rounds, "rounds", 1, 10),
        scheduler=args.scheduler,
        dask_local=args.dask_local,
        law=args.law,
    ).checked()
    factory = load_factory(args.target, "release" if (args.search or _searched(witness)) else "sample")
    check_outputs({"--json": args.json, "--report": report}, {"--witness": args.witness})
    claim = (args.claim_epsilon, args.claim_delta, args.alpha)
    if witness is not None:
        return _recheck(args, factory, witness, claim, report)
    return _attack(args, factory, options, claim, report)


def _witness_trials(witness: dict) -> int:
    """The fresh releases per world the witness was bounded on, checked as ``--trials`` is."""
    try:
        return pair_value("trials", witness.get("trials"))
    except (InputError, TypeError, ValueError) as err:
        raise InputError(f"witness: its 'trials' ({err})") from None


def _searched(witness: dict | None) -> bool:
    return bool(witness and witness.get("pair"))


def _attack(args, factory, options, claim, report) -> int:
    # deferred: loads scipy; blackbox --help must not
    from pdp_audit.audits.blackbox.search_check import audit_blackbox_search_with

    # bars on a terminal only, as a plain run shows them: pilots, then the final attack's releases
    outcome = audit_blackbox_search_with(factory, claim, args.seed, options, args.target, bool(args.search), True)
    doc = {
        "schema": 1,
        "target": args.target,
        "claim": {"epsilon": args.claim_epsilon, "delta": args.claim_delta},
        "trials": args.trials,
        **({} if args.train_trials is None else {"train_trials": args.train_trials}),
        "statistic": args.statistic,  # always named, as a plain run does (its default differs)
        "seed": args.seed,
        "alpha": args.alpha,
        **outcome.documents(),
    }
    _publish(args, outcome, doc, report)
    return outcome.run.exit_code


def _recheck(args, factory, witness, claim, report) -> int:
    # deferred: loads scipy; blackbox --help must not
    from pdp_audit.audits.blackbox.search_check import recheck_witness_with

    outcome = recheck_witness_with(factory, witness, claim, args.trials, args.seed, args.workers)
    doc = {
        "schema": 1,
        "target": args.target,
        "claim": {"epsilon": args.claim_epsilon, "delta": args.claim_delta},
        "trials": args.trials,
        "seed": args.seed,
        "alpha": args.alpha,
        "rechecked_witness": {"seed": witness.get("seed"), "epsilon_lower_bound": witness.get("epsilon_lower_bound")},
        **outcome.documents(),
    }
    _publish(args, outcome, doc, report)
    return outcome.run.exit_code


def _publish(args, outcome, doc: dict, report: str | None) -> None:
    # deferred: loads matplotlib; blackbox --help must not
    from pdp_audit.reports.blackbox_report import render_blackbox_pdf
    from pdp_audit.reports.publish import write_together

    text = json_text(doc)
    write_together(report, args.json, lambda tmp: render_blackbox_pdf(outcome.report_record(), tmp), text)
    if args.json != "-" and not getattr(args, "quiet", False):
        (check,) = outcome.run.checks
        head = f"pdp-audit blackbox {shown(args.target)}: {claim_word(check.verdict)}"
        if check.id == "pair-protocol":
            print_out(f"{head}  pair-protocol: {check.note}")
        else:
            lo = check.ci[0] if check.ci else float("nan")
            chosen = f"  pair: {outcome.chosen_name}" if outcome.chosen_name else ""
            again = "" if reproducible([check]) else NOT_REPRODUCIBLE  # the same seed reruns another run
            print_out(
                f"{head}  ε lower bound {lo:.4g} at confidence {fmt_level(check.level)} "
                f"(claim ε = {args.claim_epsilon:g}){chosen}{again}"
            )
        if report:
            print_out(f"  report: {shown(report)}")
