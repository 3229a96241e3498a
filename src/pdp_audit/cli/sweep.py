"""``pdp-audit sweep SPEC.toml``: run a parameter sweep into a SQLite store (see
:mod:`pdp_audit.sweeps.spec`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pdp_audit.catalogue.arguments import add_option, typed
from pdp_audit.cli.commands import COMMAND_HELP
from pdp_audit.reports.verdict_words import claim_word
from pdp_audit.verify.core.config import WORKERS, Option
from pdp_audit.verify.core.dask_cluster import DASK_LOCAL, SCHEDULER, distributed_module
from pdp_audit.verify.inputs.validation import shown

EXIT_INTERRUPTED = 130

#: Where a sweep runs: local processes, or Dask (:data:`pdp_audit.verify.core.dask_cluster.SCHEDULER`, ``DASK_LOCAL``).
SWEEP_WORKERS = Option(
    "workers", "int", None, "local worker processes (default: the number of cores; 1 = serial)", range=WORKERS
)


def add_parser(subparsers) -> None:
    """Add ``pdp-audit sweep`` to the subcommands."""
    p = subparsers.add_parser(
        "sweep",
        help=COMMAND_HELP["sweep"],
        description="Run every cell of a sweep spec (cells already in --store are kept with --resume).",
    )
    p.add_argument("spec", help="sweep spec (TOML); `pdp-audit examples DIR` writes examples of them")
    where = p.add_mutually_exclusive_group()
    add_option(where, SWEEP_WORKERS)
    add_option(where, SCHEDULER)
    add_option(where, DASK_LOCAL)
    p.add_argument(
        "--store", default=None, help="results store (default: SPEC's stem + .sqlite, in the current directory)"
    )
    p.add_argument(
        "--resume", action="store_true", help="finish a store made by the same spec: run only its missing cells"
    )
    p.add_argument("--report", default=None, help="also write the sweep's PDF report here")
    p.add_argument("--json", default=None, help="also write the sweep's JSON here (- for stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.set_defaults(handler=command_sweep)


def command_sweep(args: argparse.Namespace) -> int:
    """``pdp-audit sweep``: run the spec's missing cells into the store, write the reports; the sweep's exit code."""
    # deferred: loads tempfile; sweep --help must not
    from pdp_audit.reports.files import print_out
    from pdp_audit.sweeps.executors import make_executor
    from pdp_audit.sweeps.spec import load_spec, run_sweep
    from pdp_audit.sweeps.store import Store
    from pdp_audit.use_cases import check_sweep_files, sweep_outputs

    typed(args, SWEEP_WORKERS, SCHEDULER, DASK_LOCAL)  # --scheduler read as an address, before any store is made
    spec = load_spec(args.spec)
    store_path = args.store or f"{Path(args.spec).stem}.sqlite"
    check_sweep_files(args.spec, spec, store_path, args.report, args.json)
    if args.scheduler is not None or args.dask_local is not None:
        distributed_module()  # a one-line error now, before any store is made, if Dask is missing
    store = Store.for_sweep(store_path, spec, args.resume)
    older = sorted({v for (v,) in store.db.execute("SELECT DISTINCT code_version FROM cells")} - {store.code_version})
    if older and not args.quiet:
        print(
            f"pdp-audit: warning: {shown(store_path)} holds cells computed by other code ({'; '.join(older)}; this is "
            f"{store.code_version}); the report lists every code version",
            file=sys.stderr,
        )
    executor = None
    try:
        if store.completed_ids() >= {c.cell_id for c in spec.cells}:
            # deferred: loads scipy; sweep --help must not
            from pdp_audit.sweeps.executors import SerialExecutor

            executor = SerialExecutor()  # nothing left to run: start no workers
        else:
            executor = make_executor(args.workers, args.scheduler, args.dask_local)
        outcome = run_sweep(spec, store, executor, progress=not args.quiet)
    except KeyboardInterrupt:
        done = len(store.completed_ids())
        left = len(spec.cells) - done
        print(
            f"pdp-audit: interrupted; {done} of {len(spec.cells)} cells are saved in {shown(store_path)}; "
            f"run the same command with --resume to finish the other {left}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        try:
            if executor is not None:
                executor.close()
        finally:
            store.close()
    if args.json or args.report:
        sweep_outputs(store_path, args.report, args.json)
    if not args.quiet:
        counts = outcome.counts
        out = sys.stderr if args.json == "-" else sys.stdout
        print_out(
            f"pdp-audit sweep {shown(spec.name)}: {claim_word(outcome.verdict)} — {len(spec.cells)} cells: "
            f"{counts['pass']} certified, {counts['fail']} refuted, {counts['inconclusive']} undecided "
            f"({outcome.ran} run now, {outcome.reused} from the store; "
            f"{outcome.elapsed:.1f} s on {outcome.executor}); store: {shown(store_path)}",
            file=out,
        )
    return outcome.exit_code
