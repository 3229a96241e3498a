"""The use cases the entry points call: what one command of ``pdp-audit``, or one assertion of the pytest plugin,
does between parsing its input and rendering its result, as one function that returns the decided
:class:`~pdp_audit.reports.records.Run`.

Each checks every input and output before any work (an output may not be a file the command reads:
:func:`pdp_audit.verify.core.outputs.check_outputs`), runs the audit -- a user's code in a process of its own
(:mod:`pdp_audit.verify.core.sandbox`), which ends as Python ends -- and writes the PDF and JSON (the black box: the
JSON document of its one check), both complete before either replaces what was there.  The other commands
(``tau``, ``claims``, ``mutants``, ``sweep``, ``report``, ``benchmark``) have theirs here too, each returning what its
command prints.  ``pdp-audit certify`` is :func:`pdp_audit.certify_files.certify_files`, ``blackbox``'s search,
witness re-check and report :func:`pdp_audit.blackbox_search_files.blackbox_search_files`; the plugin's
``assert_dp``, ``assert_dp_blackbox``, ``assert_program_dp`` and ``assert_coverage`` are the public API's audits
(:mod:`pdp_audit`).  The catalogues are imported when a use case runs, not with this module: ``pdp-audit program
--help`` builds no built-in audit's parser.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import math
import os
import sys
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Iterator

from pdp_audit.catalogue.arguments import configure_from_args, typed
from pdp_audit.mechanisms.base import user_error
from pdp_audit.verify.core.checks import without_figures
from pdp_audit.verify.core.config import COMMAND_LINE, WORKERS_OPTION, build, options, pair_value
from pdp_audit.verify.core.outputs import check_outputs, record_reads, store_inputs
from pdp_audit.verify.core.plan import AuditPlan
from pdp_audit.verify.core.sandbox import import_from_current_folder, run_isolated, user_state
from pdp_audit.verify.estimators.progress import asking, progress_bar
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from pdp_audit.reports.records import Run


def audit_plans() -> dict[str, AuditPlan]:
    """Every built-in audit's :class:`~pdp_audit.verify.core.plan.AuditPlan` by its ``run`` name, in the order
    ``pdp-audit list`` shows them: what ``pdp-audit run NAME`` generates its parser from."""
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

    return plans_by_name()


def kind_options(name: str) -> tuple:
    """The options the user-facing audit kind ``name`` declares (:data:`pdp_audit.catalogue.kinds.KINDS`): the
    fields of its config, what its command's flags are generated from."""
    # deferred: loads hashlib; run --help must not
    from pdp_audit.catalogue.kinds import kinds_by_name

    return kinds_by_name()[name].options


def command_config(name: str, values: dict[str, Any]) -> Any:
    """The config of the user-facing audit kind ``name`` from a command's flags (``values`` by option key), every
    one checked before any work, errors naming the flags (:meth:`~pdp_audit.verify.core.plan.KindPlan.configure`)."""
    # deferred: loads hashlib; run --help must not
    from pdp_audit.catalogue.kinds import kinds_by_name

    return kinds_by_name()[name].plan.configure(values, COMMAND_LINE)


def run_files(args: argparse.Namespace) -> tuple[Run, str | None]:
    """``pdp-audit run NAME``: the audit's config from the parsed command line (every value checked, errors naming
    the flags; ``--workers`` too), the outputs checked against the data file, the run decided over ``--workers``
    processes and its reports written (``--report``, default ``pdp-audit-NAME.pdf``, ``none`` for no PDF;
    ``--json``).  The decided run and the PDF's path (None: none)."""
    # deferred: loads importlib.metadata; run --help must not
    from pdp_audit.reports.publish import write_run_reports

    plan = audit_plans()[args.mechanism]
    config = configure_from_args(plan, args)
    typed(args, WORKERS_OPTION)
    report = args.report or f"pdp-audit-{args.mechanism}.pdf"
    pdf = None if report.lower() == "none" else report
    check_outputs({"--report": pdf, "--json": args.json}, {"the data file (--data)": getattr(config, "data", None)})
    with without_figures() if pdf is None else nullcontext():  # no PDF: nothing draws them
        run = plan.execute(config, workers=args.workers, progress=not args.quiet)
    with collector_aside_while_drawing(pdf):
        write_run_reports(run, pdf, args.json)
    return run, pdf


@contextmanager
def collector_aside_while_drawing(pdf: str | None) -> Iterator[None]:
    """While a command draws its PDF ``pdf``: the renderer (matplotlib) imported, then every object alive set aside
    from the cyclic garbage collector (:func:`gc.freeze`), and given back to it after (:func:`gc.unfreeze`).  Those
    objects -- the libraries' modules, the run -- all outlive the drawing, whose many short-lived objects set off
    the collector's full passes, each of which would walk them all again: about an eighth of ``pdp-audit run``'s CPU
    with its PDF (``benchmarks/pdf_report.py``).  No PDF, or objects frozen already (a caller's own): nothing
    changes."""
    if pdf is None or gc.get_freeze_count():
        yield
        return
    # deferred: loads matplotlib; run --help must not
    import pdp_audit.reports.pdf  # noqa: F401 (its libraries' objects among those set aside)

    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def program_files(
    target: str, values: dict[str, Any], report: str | None, json: str | None, progress: bool = True
) -> Run:
    """``pdp-audit program MODULE:FUNCTION``: the program kind's config from the flags' ``values`` (every one
    checked before the program runs, errors naming the flags), the outputs checked against ``--data`` and the
    program's module file (found without importing it), the program
    audited in the sandbox's child (a hard exit in it cannot end the command with 0) and the reports written
    (``report``: the PDF, None for none; ``json``: ``"-"`` for standard output; ``progress``: the stages' lines and
    the black box's bars on standard error, none under ``--quiet``)."""
    # deferred: loads hashlib; run --help must not
    from pdp_audit.catalogue.kinds import kinds_by_name
    from pdp_audit.reports.publish import write_run_reports

    config = kinds_by_name()["program"].plan.configure({**values, "program": target}, COMMAND_LINE)
    inputs = {"--data": values.get("data"), "the module of TARGET": module_file(target)}
    check_outputs({"--report": report, "--json": json}, inputs)
    # deferred: loads numpy; run --help must not
    from pdp_audit.audits.program.fresh_process import audit_environment

    where = f"target: the code of {shown(target)}"
    run = run_isolated(audited_program, config, report, json, progress, target=where, environment=audit_environment())
    write_run_reports(run, report, json)
    return run


def audited_program(config: Any, report: str | None = None, json: str | None = None, progress: bool = True) -> Run:
    """The program kind's audit of ``config`` (its Run), in the sandbox's child; the current folder importable.
    The outputs (``report``, ``json``) are checked again once it is done, against every file the audit read and
    every module it imported (a helper module the program imports was written over); with ``json`` ``"-"``, what
    the program prints goes to standard error."""
    # deferred: loads hashlib; run --help must not
    from pdp_audit.catalogue.kinds import kinds_by_name

    # deferred: loads tempfile; run --help must not
    from pdp_audit.reports.files import prints_to_standard_error

    if json == "-":
        prints_to_standard_error()
    sys.path.insert(0, os.getcwd())
    run = kinds_by_name()["program"].plan.execute(config, progress)
    check_outputs({"--report": report, "--json": json})
    return run


def run_cell(audit: str, seed: int, alpha: float, options: dict[str, Any], checks: Any, where: str) -> tuple:
    """The cell of ``pdp-audit sweep`` with ``mechanism = audit``, root seed ``seed`` and ``options`` (keywords,
    errors naming ``where``), run at ``alpha`` with the check ids ``checks`` selected (None: all): ``(cell, alpha,
    result)`` with ``alpha`` as checked, what the pytest plugin's ``privacy_audit.run`` asserts on."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.sweeps.catalogue import SWEEPS
    from pdp_audit.sweeps.spec import cell_from_options

    mechanisms = {m.name: m for m in SWEEPS}
    if audit not in mechanisms:
        raise ValueError(f"audit must be one of {', '.join(sorted(mechanisms))}, got {audit!r}")
    alpha = pair_value("alpha", alpha)
    mechanism = mechanisms[audit]
    cell = cell_from_options(mechanism, seed, options, where)
    selected = tuple(checks) if checks else None
    unknown = [c for c in selected or () if not mechanism.has_check(c)]
    if unknown:
        raise ValueError(f"checks: {audit!r} has no check {unknown[0]!r} (valid: {mechanism.valid_checks()})")
    return cell, alpha, mechanism.cell(dict(cell.parameters), cell.seed, alpha, selected)


def canaries_files(
    scores: Callable[[], tuple[np.ndarray, np.ndarray]],
    one_run: bool,
    delta: float,
    options: dict[str, Any],
    guesses: tuple[int, int] | None,
    dp_sgd: str | None,
    outputs: tuple[str | None, str | None],
    inputs: dict[str, str | None],
) -> Run:
    """``pdp-audit canaries``: the outputs (``--report``, None for no PDF, and ``--json``) checked against the
    score files (``inputs``), the DP-SGD deployment ``dp_sgd`` (or None) checked, the scores read (``scores()``: the
    in- and out-canaries' scores, or ``--one-run``'s scores and inclusion bits), ε bounded (``options``: alpha,
    claim_epsilon -- the deployment's claim where None -- and seed; ``progress``, default True: bars of its stages,
    none under ``--quiet``) and the reports written; with ``dp_sgd`` the deployment certified and its upper bound set
    beside the canaries' lower bound (:func:`pdp_audit.training_run.training_run_report`)."""
    # deferred: loads pdp_audit.audits.canaries.evidence; run --help must not
    from pdp_audit.audits.canaries.evidence import audit_canary_scores, audit_one_run
    from pdp_audit.deployment import certify_deployment
    from pdp_audit.reports.publish import write_run_reports

    # deferred: loads scipy; run --help must not
    from pdp_audit.training_run import dp_sgd_deployment, training_run_report

    report, json = outputs
    check_outputs({"--report": report, "--json": json}, inputs)
    options = dict(options)
    progress = bool(options.pop("progress", True))
    deployment = None if dp_sgd is None else dp_sgd_deployment(dp_sgd, delta)
    if deployment is not None and options["claim_epsilon"] is None:  # the accountant's claim is the one tested
        options = {**options, "claim_epsilon": deployment.claim.get("epsilon")}
    first, second = scores()
    with asking(progress):  # a bar of its stages on a terminal (millions of canaries take a while)
        if one_run:
            run = audit_one_run(first, second, delta, guesses=guesses, **options)
        else:
            run = audit_canary_scores(first, second, delta, **options)
    if deployment is not None:  # bars of the certification on a terminal
        run = training_run_report(run, certify_deployment(deployment, progress=progress))
    write_run_reports(run, report, json)
    return run


def blackbox_files(args: argparse.Namespace, config: Any) -> Run:
    """``pdp-audit blackbox MODULE:FACTORY``'s audit (without ``--search``, ``--witness`` or ``--report``): the output
    checked against TARGET's module, then the import, the factory and the audit of ``config`` in a process of its own
    (:mod:`pdp_audit.verify.core.sandbox`): a hard exit in the user's code cannot end the command with 0, and its
    process ends as Python ends (its open files flushed, its atexit handlers run).  The decided run, its check
    written as JSON (``--json``; ``"-"``: standard output) with the claim and the budget it was decided at: ``args``
    holds the trials drawn (the default fitted to the sampler where it was slow)."""
    # deferred: loads tempfile; run --help must not
    from pdp_audit.reports.files import atomic_path, json_text, write_stdout
    from pdp_audit.reports.json_report import check_to_dict

    check_outputs({"--json": args.json}, {"the module of TARGET": module_file(args.target)})
    run = run_isolated(audited_blackbox, args, config, target=f"target: the code of {shown(args.target)}")
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
        write_stdout(text)
    elif args.json:
        with atomic_path(args.json) as tmp:
            tmp.write_text(text, encoding="utf-8")
    return run


def audited_blackbox(args: argparse.Namespace, config: Any) -> Run:
    """The black-box audit of ``args.target`` (its Run), in the sandbox's child: the import, the factory, the audit."""
    # deferred: loads hashlib; run --help must not
    from pdp_audit.catalogue.kinds import kinds_by_name

    # the current folder stays importable while the sampler runs (a lazy import of a module beside TARGET's)
    sys.path.insert(0, os.getcwd())
    factory = load_factory(args.target)
    check_outputs({"--json": args.json})  # again: the modules TARGET imported are known now, before the audit
    # a bar on a terminal only: a user's sampler may take minutes
    run = kinds_by_name()["blackbox"].plan.execute(replace(config, target=factory), True)
    check_outputs({"--json": args.json})  # and after the audit: a file the sampler read (in this process) too
    return run


def module_file(target: str) -> str | None:
    """The source file of TARGET's module, found as :func:`load_factory` would import it (None if none is found:
    importing it will say why)."""
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
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise InputError(f"target must be MODULE:FACTORY, got {target!r}")
    module = import_from_current_folder(module_name, "target")
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


def record_inputs() -> None:
    """What a ``pdp-audit`` command that may write does first, before its parser is built: from now on every file the
    process reads (the user's modules, their data, a fixture's file) is an input of the command, which none of its
    outputs may overwrite (:func:`~pdp_audit.verify.core.outputs.record_reads`, read back by :func:`check_outputs`)."""
    record_reads()


def tau_file(args: argparse.Namespace) -> dict:
    """``pdp-audit tau``: the output checked (``--json``), τ computed for ``args`` (typed already: ``d``, ``rho``,
    ``sigma``, ``method``; :func:`pdp_audit.mechanisms.goe.tau`) and its JSON written to ``--json`` (None or ``"-"``:
    standard output).  The result as a dict; an InputError where τ is beyond the largest double."""
    # deferred: loads pdp_audit.mechanisms.goe; tau --help must not
    from pdp_audit.mechanisms.goe import tau
    from pdp_audit.reports.files import atomic_path, write_stdout
    from pdp_audit.verify.estimators.engine import one_blas_thread

    check_outputs({"--json": args.json})
    with one_blas_thread():  # the Tracy–Widom kernel is a small eigenproblem: BLAS threads only slow it down
        found = tau(int(args.d), float(args.rho), float(args.sigma), args.method)
        result = found.as_dict()
        if not math.isfinite(found.tau):  # τ = σ τ₁ beyond the doubles: no number to print (JSON has no inf)
            unit = tau(int(args.d), float(args.rho), 1.0, args.method).tau
            raise InputError(
                f"--sigma {args.sigma:g}: τ = σ × {unit:.6g} (its value at σ = 1) is beyond the largest double; "
                f"give --sigma below {sys.float_info.max / unit:.3g}"
            )
    text = json.dumps(result, allow_nan=False) + "\n"
    if args.json in (None, "-"):
        write_stdout(text)
    else:
        with atomic_path(args.json) as tmp:
            tmp.write_text(text, encoding="utf-8")
    return result


def check_sweep_files(spec_path: str, spec: Any, store: str, report: str | None, json_path: str | None) -> None:
    """``pdp-audit sweep``'s files, checked before any store is made: the outputs (``--store``, ``--report``,
    ``--json``) against what the sweep reads (the spec at ``spec_path``, the data files its cells name, the files
    beside the store that hold or guard its content), and the store a regular file or none yet (a database is
    written in place, never through a FIFO)."""
    data = sorted({str(c.parameters["data"]) for c in spec.cells if isinstance(c.parameters.get("data"), str)})
    inputs = {"the sweep spec": spec_path, **{f"a data file of the spec ({d})": d for d in data}}
    inputs.update((what, path) for what, path in store_inputs(store).items() if what != "the store itself")
    check_outputs({"--store": store, "--report": report, "--json": json_path}, inputs)
    why = not_a_regular_file(store, "sweep store")
    if why is not None and why != "does not exist":
        raise InputError(f"--store: {store!r} {why}")


def sweep_report_files(store: str, pdf: str, json_path: str | None, csv_path: str | None) -> Any:
    """``pdp-audit report STORE``: the outputs (``--output``, the PDF, ``none`` for none; ``--json``; ``--csv``)
    checked against the store and the files beside it that hold or guard its content, then the store's results
    written (:func:`sweep_outputs`: a one-line error if it is not a store).  The results read."""
    outputs = {"--output": None if pdf.lower() == "none" else pdf, "--json": json_path, "--csv": csv_path}
    check_outputs(outputs, store_inputs(store), pdfs=("--output",))
    return sweep_outputs(store, pdf, json_path, csv_path)


def sweep_outputs(store_path: str, pdf: str | None, json_path: str | None, csv_path: str | None = None) -> Any:
    """Render the store at ``store_path`` as PDF (``pdf``; ``none`` skips it), JSON (``json_path``) and CSV
    (``csv_path``; ``-``: stdout), published together (all or none: a full disk keeps every earlier file); returns
    the results read."""
    # deferred: loads importlib.metadata; sweep --help must not
    from pdp_audit.reports.publish import write_together
    from pdp_audit.reports.sweep_json import dumps

    # deferred: loads matplotlib; sweep --help must not
    from pdp_audit.reports.sweep_pdf import render_sweep_pdf
    from pdp_audit.sweeps.store import load_results

    results = load_results(store_path)
    pdf = None if pdf is None or pdf.lower() == "none" else pdf
    table = {csv_path: results.to_frame().to_csv(index=False, lineterminator="\n")} if csv_path else None
    text = dumps(results) if json_path else ""
    write_together(pdf, json_path, lambda tmp: render_sweep_pdf(results, tmp), text, table)
    return results


def benchmark_files(args: argparse.Namespace, pdf: str, datasets: Callable[[], tuple]) -> tuple:
    """``pdp-audit benchmark linreg``: the outputs (``pdf``, ``none`` for none; ``--json``) checked against ``--data``
    before minutes of work, the config built from the flags and ``datasets()`` (the bundled data sets named: errors
    naming the flags), the benchmark run and its JSON and PDF written.  The config and the result."""
    # deferred: loads scipy; benchmark --help must not
    from pdp_audit.audits.linreg.benchmark import run_benchmark
    from pdp_audit.audits.linreg.benchmark_config import BenchmarkConfig
    from pdp_audit.reports import linreg_benchmark as report

    outputs = {"--report": None if pdf.lower() == "none" else pdf, "--json": args.json}
    check_outputs(outputs, {"the data file (--data)": getattr(args, "data", None)})
    chosen = datasets()
    given = {key: getattr(args, key) for key in options(BenchmarkConfig) if hasattr(args, key)}
    config = build(BenchmarkConfig, given, COMMAND_LINE, extra={"datasets": chosen})
    result = run_benchmark(config)
    if args.json:
        report.write_json(result, args.json)
    if pdf.lower() != "none":
        report.write_pdf(result, pdf)
    return config, result


def mutants_files(chosen: tuple, trials: int, args: argparse.Namespace, on_mutant: Callable[[Any, Any], None]) -> dict:
    """``pdp-audit mutants``: the outputs (``--json``; ``--report``, None for none) checked, each of the ``chosen``
    mutants and its correct twin audited on ``trials`` releases per world (``args``' seed, alpha and early stop; a bar
    of the mutants done on a terminal unless ``--quiet``), ``on_mutant(mutant, outcome)`` told of each, and the
    document written.  The document (:func:`pdp_audit.reports.mutants_report.mutants_document`)."""
    # deferred: loads scipy; mutants --help must not
    from pdp_audit import mutant_runs as runs
    from pdp_audit.reports.mutants_report import mutants_document, write_mutants_report

    check_outputs({"--json": args.json, "--report": args.report})
    rows = []
    bar_shown = not args.quiet
    with asking(bar_shown), progress_bar(len(chosen), "pdp-audit mutants", "mutant", bar_shown) as bar:
        for mutant in chosen:
            outcome = runs.run_mutant(mutant, trials, args.seed, args.alpha, args.early_stop)
            rows.append(outcome.to_dict())
            on_mutant(mutant, outcome)
            if bar is not None:
                bar.update(1)
    doc = mutants_document(rows, args.seed, args.alpha)
    write_mutants_report(doc, args.report, args.json)
    return doc


def claims_listing_file(json_path: str | None, listed: Callable[[], tuple]) -> tuple:
    """``pdp-audit claims`` without ``--run``: the output (``--json``) checked, then ``listed()`` (the selected
    entries and their document) and the document written to ``--json`` (``"-"``: the caller prints it).  The entries
    and the document."""
    # deferred: loads tempfile; claims --help must not
    from pdp_audit.reports.files import atomic_path, json_text

    check_outputs({"--json": json_path})
    entries, doc = listed()
    if json_path and json_path != "-":
        with atomic_path(json_path) as tmp:
            tmp.write_text(json_text(doc), encoding="utf-8")
    return entries, doc


def claims_run_files(
    args: argparse.Namespace, declared: tuple, select: Callable[[], list], on_audit: Callable[[str, dict], None]
) -> tuple:
    """``pdp-audit claims --run``: the outputs (``--json``; ``--report``, default ``claims.pdf``, ``none`` for none)
    checked before any audit (the flags ``declared`` typed between), the entries ``select()`` names decided
    (``--seed``, ``--quick``, over ``--workers`` processes; ``on_audit(audit, outcome)`` told of each audit run; bars
    unless the JSON goes to standard output), and the PDF and JSON written.  The ledger's result and the PDF's path
    (None: none)."""
    # deferred: loads scipy; claims --help must not
    from pdp_audit.ledger.runs import document, run_ledger
    from pdp_audit.reports.claims_report import write_claims_report
    from pdp_audit.sweeps.executors import make_executor

    check_outputs({"--json": args.json})
    typed(args, *declared)
    report = args.report or "claims.pdf"
    report = None if report.lower() == "none" else report
    check_outputs({"--report": report, "--json": args.json})
    entries = select()
    executor = make_executor(workers=args.workers)
    try:
        shown = args.json != "-" and not args.quiet
        result = run_ledger(entries, args.seed, args.quick, executor, on_audit=on_audit, progress=shown)
    finally:
        executor.close()
    write_claims_report(document(result), {d.entry.id: d.checks for d in result.decisions}, report, args.json)
    return result, report
