"""Dask, for a sweep's cells and a black-box audit's blocks: the options that say where (``--scheduler ADDR``,
``--dask-local N``, declared once: :data:`SCHEDULER`, :data:`DASK_LOCAL`), the cluster they reach
(:func:`connect`, :func:`disconnect`), and :class:`DaskBlocks`, concurrent.futures' ``map`` on that cluster for the
seeded blocks of :func:`pdp_audit.verify.estimators.engine.iter_blocks` (whose numbers do not depend on where a block
ran).
"""

from __future__ import annotations

import contextlib
import logging
import numbers
import os
import signal
import sys
import warnings
import weakref
from collections import deque
from typing import Any, Iterator

from pdp_audit.verify.core.config import COMMAND_LINE, KEYWORDS, WORKERS, Names, Option, parse
from pdp_audit.verify.core.processes import Terminated, executor_for
from pdp_audit.verify.inputs.validation import InputError


class MissingDependency(InputError):
    """An optional dependency is not installed (one line, exit code 2)."""


def distributed_module():
    """``distributed``, or a one-line :class:`MissingDependency` saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise MissingDependency('Dask executors need Dask: pip install "dask[distributed]"') from None
    return distributed


def scheduler_problem(address: str) -> str | None:
    """Why ``address`` does not read as a Dask scheduler's address (``tcp://host:8786``, ``host:8786``), or None;
    read by Dask's own parser, without a connection or a name lookup."""
    distributed = distributed_module()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. Dask's FutureWarning on importing a removed protocol
            _, port = distributed.comm.get_address_host_port(address)
    except Exception as err:  # ValueError, mostly; a backend may raise what it likes
        return f"is not the address of a Dask scheduler (such as tcp://host:8786): {err}"
    if not 0 < port < 65536:
        return f"has port {port}, not in [1, 65535]"
    return None


#: Where the work goes beyond this machine's processes (``sweep``, ``blackbox``, ``BlackBoxBudget``,
#: ``SearchOptions``): a running Dask scheduler, or a LocalCluster of N worker processes started for the run.
SCHEDULER = Option(
    "scheduler",
    "str",
    None,
    "address of a running Dask scheduler, e.g. tcp://host:8786 (needs Dask: pip install 'dask[distributed]')",
    check=scheduler_problem,
)
DASK_LOCAL = Option(
    "dask_local",
    "int",
    None,
    "start a Dask LocalCluster of N worker processes (needs Dask: pip install 'dask[distributed]')",
    range=WORKERS,
    metavar="N",
)


#: ``workers`` as the callers spell it (its range is checked by each caller's own declaration).
WORKERS_KEY = Option("workers", "int", 1, "worker processes", range=WORKERS)


def check_scheduler_address(address: str, names: Names = COMMAND_LINE) -> None:
    """InputError naming ``--scheduler`` (or ``scheduler``, in ``names``' words) unless ``address`` reads as a Dask
    scheduler's address."""
    parse(SCHEDULER, address, names)


def checked_place(workers: int, scheduler: Any, dask_local: Any, names: Names = KEYWORDS) -> tuple:
    """(scheduler, dask_local) checked against their ranges, at most one of ``workers`` > 1, ``scheduler`` and
    ``dask_local`` given (one line naming two of them otherwise), and Dask installed when one of the last two is."""
    scheduler, dask_local = parse(SCHEDULER, scheduler, names), parse(DASK_LOCAL, dask_local, names)
    places = {WORKERS_KEY: workers > 1, SCHEDULER: scheduler is not None, DASK_LOCAL: dask_local is not None}
    given = [names(option) for option, wanted in places.items() if wanted]
    if len(given) > 1:
        raise names.error(f"give one of {given[0]} and {given[1]}, not both")
    if scheduler is not None or dask_local is not None:
        distributed_module()
    return scheduler, dask_local


def _numpy_friendly_workers():
    """Dask's configuration for the worker processes a LocalCluster spawns, without ``MALLOC_TRIM_THRESHOLD_``.

    Dask's nannies set glibc's trim threshold to 64 KiB by default, which also switches off glibc's adaptive mmap
    threshold: every large numpy temporary is then a fresh mmap, paid in page faults.  Our cells allocate such
    arrays in every block; measured (benchmarks/bench_sweep.py, Gaussian cells of 2e6 samples per world on 2
    cores) a cell took 18.5 s in a default Dask worker against 12.7 s in a local process, and 11.8 s without the
    setting.  The BLAS and OpenMP thread counts (1) are kept.
    """
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return dask.config.set({"distributed.nanny.pre-spawn-environ": environ})


#: Dask's periodic bookkeeping in a LocalCluster we start, at the pace a run of cells needs: Dask's defaults sample the
#: running task's stack every 10 ms (the profiles of a dashboard we do not start), check each event loop's lag every
#: 20 ms, poll memory every 100 ms and rebalance queued tasks every 100 ms (the scheduler queues them on the workers'
#: free threads already).  Measured on 16 Gaussian cells of examples/sweep-100.toml (2 workers, 2 cores under load):
#: the workers' CPU seconds 3.7-4.0 with the defaults against 3.1-3.3 here and 2.8-3.2 for local processes, the
#: scheduler's (in this process) 0.5-0.6 against 0.2.  A worker the nanny restarts keeps them.
QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.scheduler.work-stealing": False,
}


#: The caller's values of the variables a LocalCluster's nannies write into this process's environment before they
#: spawn a worker (distributed's ``os.environ.update(pre_spawn_env)``: its ``distributed.nanny.pre-spawn-environ``,
#: and ``PYTHONHASHSEED``, set to 6640 where it was unset or 0), per cluster: given back once its workers have started
#: and again when it is closed (a nanny that restarts a worker writes them again) -- the caller's environment is its
#: own, and a later program audit in the same process reads its hash seed from it.
_CALLERS_ENVIRON: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _nanny_environ() -> dict[str, str | None]:
    """The caller's values (None: unset) of the variables a nanny writes before it spawns a worker."""
    import dask.config

    names = {"PYTHONHASHSEED", *(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})}
    return {name: os.environ.get(name) for name in sorted(names)}


def _given_back(saved: dict[str, str | None]) -> None:
    """This process's environment with ``saved``'s values (:func:`_nanny_environ`) again."""
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def connect(
    address: str | None = None,
    local_workers: int | None = None,
    cluster_options: dict | None = None,
    name: str = "",
):
    """(client, cluster or None, description): a client of the scheduler at ``address``, or of a LocalCluster of
    ``local_workers`` processes started here (one thread each; its workers ignore Ctrl-C, which reaches this process
    only, so that it closes them).  ``name``: the scheduler's option in the caller's words (``--scheduler``).

    The workers are spawned (fresh interpreters; Dask's default), never forked from this process: a fork of a process
    whose OpenMP threads had run copied their locks, and a child's first parallel region waited on threads the fork
    did not copy (scikit-learn's trees hung so).  Dask gives each one BLAS and OpenMP thread (its nanny's
    environment), and each ends with its nanny, which ends with this process."""
    distributed = distributed_module()
    if local_workers is None:
        try:
            client = distributed.Client(address, timeout="15s")
        except (OSError, TimeoutError, ValueError, TypeError) as err:
            raise InputError(f"{name or '--scheduler'}: cannot reach a Dask scheduler at {address!r}: {err}") from None
        return client, None, f"Dask scheduler {address}"
    options = dict(
        n_workers=local_workers,
        threads_per_worker=1,
        processes=True,
        # No dashboard, and the scheduler's HTTP server (its health and info pages) on the loopback interface only:
        # ":0" bound it to every interface, and with bokeh installed served an unauthenticated dashboard there.
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False},
        silence_logs=logging.ERROR,
    )
    options.update(cluster_options or {})
    # Worker processes inherit an ignored SIGINT: Ctrl-C (sent to the whole process group) reaches the driver
    # only, which then closes the cluster cleanly.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import dask

        with _numpy_friendly_workers(), dask.config.set(QUIET_CLUSTER):
            saved = _nanny_environ()
            try:
                cluster = distributed.LocalCluster(**options)
            except BaseException:
                _given_back(saved)
                raise
            _CALLERS_ENVIRON[cluster] = saved
    finally:
        signal.signal(signal.SIGINT, previous)
    client = distributed.Client(cluster)
    try:
        client.wait_for_workers(local_workers, timeout=120)
    except BaseException:
        disconnect(client, cluster)
        raise
    _given_back(saved)
    return client, cluster, f"Dask LocalCluster ({local_workers} worker processes)"


def disconnect(client, cluster) -> None:
    """Close ``client`` and the LocalCluster ``cluster`` (if any), without the log lines of connections lost."""
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # closing after Ctrl-C logs lost connections: expected
    try:
        client.close()
        if cluster is not None:
            cluster.close()
    finally:
        quiet.setLevel(level)
        if cluster is not None and cluster in _CALLERS_ENVIRON:
            _given_back(_CALLERS_ENVIRON.pop(cluster))


def kill_local_workers(cluster) -> None:
    """SIGKILL the worker processes of a LocalCluster now (on SIGTERM: no time to close them politely; they would
    otherwise end only when this process does, as Dask's workers watch their nanny's process)."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _sys_path_first(folder: str):
    """A worker plugin putting ``folder`` first on each worker's ``sys.path``, on the workers there are and on any
    the nanny starts again: a LocalCluster's workers then import a module of the folder the command imported the
    user's target from (:func:`pdp_audit.cli.blackbox.load_factory` puts it first while it imports).  Its
    class is local (Dask sends it by value): ``distributed`` is imported only when a cluster is made."""
    from distributed import WorkerPlugin

    class SysPathFirst(WorkerPlugin):
        name = "pdp-audit-sys-path"

        def setup(self, worker) -> None:
            if folder not in sys.path:
                sys.path.insert(0, folder)

    return SysPathFirst()


#: Tasks in flight per worker thread: enough to keep every worker busy while the next block is submitted.
IN_FLIGHT_PER_THREAD = 2

#: Types sent with each task as they are (numpy's scalars are numbers too); anything else a map's tasks share is sent
#: to the cluster once.
_PLAIN = (numbers.Number, str, bytes, type(None))


class DaskBlocks:
    """concurrent.futures' ``map`` on a Dask cluster, for :func:`pdp_audit.verify.estimators.engine.iter_blocks`: the
    results in
    order, at most :data:`IN_FLIGHT_PER_THREAD` tasks per worker thread in flight (the memory of a few blocks,
    whatever their number: 15,259 blocks per world at 1e9 releases), and each object the tasks of one map share (a
    block's work: the sampler and the frozen statistic) sent to the cluster once, not once per block (as the result
    of a task, which the scheduler makes again if the worker holding it dies).  Workers that die on a block (Dask
    retries it on others first) are a one-line :class:`InputError` naming ``where`` and ``what`` ran there."""

    def __init__(self, client, cluster=None, where: str = "dask_local", what: str = "the blocks"):
        self.client, self.cluster, self.where, self.what = client, cluster, where, what

    def map(self, fn, *iterables) -> Iterator:
        return self._ordered(fn, zip(*iterables))

    def _in_flight(self) -> int:
        workers = self.client.scheduler_info().get("workers", {}).values()
        return IN_FLIGHT_PER_THREAD * max(1, sum(w.get("nthreads", 1) for w in workers))

    def _ordered(self, fn, calls) -> Iterator:
        shared: dict[int, tuple] = {}

        def sent(value):
            if isinstance(value, tuple):  # a block's job: (work, seed, stream, block, size)
                return tuple(sent(v) for v in value)
            if isinstance(value, _PLAIN):
                return value
            if id(value) not in shared:  # the object kept beside its future: its id stays its own
                # a task's result, not scattered data: if the worker holding it dies, the scheduler makes it again
                shared[id(value)] = (value, self.client.submit(_itself, value, pure=False))
            return shared[id(value)][1]

        pending: deque = deque()
        limit = self._in_flight()
        try:
            for args in calls:
                pending.append(self.client.submit(fn, *(sent(a) for a in args), pure=False))
                if len(pending) >= limit:
                    yield self._result(pending.popleft())
            while pending:
                yield self._result(pending.popleft())
        finally:
            for future in pending:
                future.cancel()
            shared.clear()

    def _result(self, future):
        try:
            return future.result()
        except Exception as err:
            if type(err).__name__ in ("KilledWorker", "CommClosedError", "FutureCancelledError"):
                raise InputError(
                    f"{self.where}: the Dask workers running {self.what} died ({type(err).__name__}): a segfault or "
                    "a hard exit in that code, or a worker out of memory?"
                ) from None
            raise

    def check_loadable(self, value: Any, name: str) -> None:
        """A one-line InputError naming ``name`` unless ``value`` can be sent to the cluster and loaded on a worker
        (its class importable there), before any block runs."""
        data = sendable(value, name, self.where)
        why = self.client.submit(_load_problem, data, pure=False).result()
        if why:
            raise InputError(
                f"{self.where}: {name} cannot be loaded on the Dask workers ({why}); its module must be importable "
                "there (a module of the current folder is, on a LocalCluster)"
            )


def _itself(value: Any) -> Any:
    """A task whose result is ``value``: how an object the blocks share reaches the cluster once."""
    return value


def sendable(value: Any, name: str, where: str) -> bytes:
    """``value`` as Dask sends it (pickle, or cloudpickle for what pickle refuses: a lambda, a local function), or a
    one-line InputError naming ``name`` and ``where``."""
    from distributed.protocol import pickle as dask_pickle

    try:
        return dask_pickle.dumps(value)
    except Exception as err:  # noqa: BLE001 - any pickling failure means the same thing here
        raise InputError(
            f"{where}: {name} cannot be sent to Dask workers ({type(err).__name__}: {err}); give it no open file, "
            "lock or generator, or use workers"
        ) from None


def _load_problem(data: bytes) -> str | None:
    """On a worker: why ``data`` cannot be loaded there, or None."""
    from distributed.protocol import pickle as dask_pickle

    try:
        dask_pickle.loads(data)
    except Exception as err:  # noqa: BLE001 - the user's module may raise anything on import
        return f"{type(err).__name__}: {err}"
    return None


@contextlib.contextmanager
def block_executor(workers: int, scheduler: str | None = None, dask_local: int | None = None, shipped=None):
    """Where a run's seeded blocks go: a :class:`DaskBlocks` on the scheduler at ``scheduler`` or on a LocalCluster
    of ``dask_local`` processes, else :func:`pdp_audit.verify.core.processes.executor_for` ``workers`` (None: serially);
    the numbers are the same on each.  On Dask, each of ``shipped`` (its name in a message → an object every block
    needs: the user's samplers) is checked to be sendable before the cluster is reached and loadable on a worker
    before any block (one line naming it otherwise).  A LocalCluster's workers import from the current folder first
    (as the command imported the user's target); on Ctrl-C, SIGTERM or SIGHUP
    (:class:`pdp_audit.verify.core.processes.Terminated`) they are killed at once (a block of the user's code may not
    end
    soon), else closed on leaving."""
    what = " and ".join(shipped or ()) or "the blocks"
    if scheduler is None and dask_local is None:
        from concurrent.futures.process import BrokenProcessPool

        try:
            with executor_for(workers) as executor:
                yield executor
        except BrokenProcessPool:  # the user's code ended its worker (a segfault, a hard exit), or memory ran out
            raise InputError(
                f"workers: a worker process running {what} ended abruptly (a segfault or a hard exit in that code, or "
                "killed: out of memory?)"
            ) from None
        return
    where = "scheduler" if scheduler is not None else "dask_local"  # as the API and the options' messages name it
    for name, value in (shipped or {}).items():
        sendable(value, name, where)
    # its workers log nothing below CRITICAL either (a heartbeat lost as the cluster closes after a worker died)
    client, cluster, _ = connect(scheduler, dask_local, {"silence_logs": logging.CRITICAL}, name=where)
    quiet = _quiet_logs()  # a worker lost is said in one line (DaskBlocks), not in Dask's log lines
    try:
        if cluster is not None:
            client.register_plugin(_sys_path_first(os.getcwd()))
        blocks = DaskBlocks(client, cluster, where, what)
        for name, value in (shipped or {}).items():
            blocks.check_loadable(value, name)
        yield blocks
    except (Terminated, KeyboardInterrupt):  # a block of the user's code may run for long: no waiting for it
        kill_local_workers(cluster)
        raise
    finally:
        try:
            disconnect(client, cluster)
        finally:
            quiet.close()


def _quiet_logs() -> contextlib.ExitStack:
    """Dask's and tornado's loggers at CRITICAL until the stack returned is closed (their levels restored then)."""
    stack = contextlib.ExitStack()
    for name in ("distributed", "tornado.application"):
        logger = logging.getLogger(name)
        stack.callback(logger.setLevel, logger.level)
        logger.setLevel(logging.CRITICAL)
    return stack
