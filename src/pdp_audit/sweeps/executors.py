"""Where sweep cells run: in this process, in local worker processes, or on Dask.

Every executor has ``run(tasks)``, a generator of ``(task, outcome)`` pairs in completion order, and
``close()``.  A cell's result depends only on its task (parameters and seed), so executors may run
cells in any order, anywhere, and run a cell again after a crash: the store keeps one row per cell.

* :class:`SerialExecutor` -- one cell after another, in this process.
* :class:`ProcessExecutor` -- a pool of local processes.  If a worker dies (killed, out of memory),
  the pool breaks; the cells that had not finished are resubmitted to a fresh pool.
* :class:`DaskExecutor` -- a Dask distributed cluster (an existing scheduler, or a LocalCluster of
  processes it starts), a few cells a Dask task (:func:`batches`).  The scheduler reruns cells whose worker died;
  a batch that kills workers repeatedly (Dask's KilledWorker) is resubmitted a cell a task, a few more times,
  before the sweep gives up.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import multiprocessing
import os
import signal
import socket
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from pdp_audit.sweeps.store import code_version
from pdp_audit.verify.core.dask_cluster import (
    MissingDependency,  # noqa: F401 (re-exported: where sweeps found it)
    connect,
    disconnect,
    distributed_module,
)
from pdp_audit.verify.core.processes import default_terminations, exit_with_parent, started_workers
from pdp_audit.verify.estimators.engine import blas_limited_for_good
from pdp_audit.verify.inputs.datasets import pinned_bytes
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError
from pdp_audit.verify.inputs.workers import available_cores, checked_workers

MAX_RESTARTS_WITHOUT_PROGRESS = 3


def execute_task(task, chunk_executor=None) -> dict:
    """Run one cell (in whatever process this is) and time it; ``chunk_executor`` runs its chunks.

    A cell with a data file reads it once and audits those bytes only if they are the ones fingerprinted when the
    spec was read (``task.data_sha256``); its effective parameters record their SHA-256."""
    start = time.perf_counter()
    with _audited_data(task):
        if chunk_executor is None:
            result = task.function(dict(task.parameters), task.seed, task.alpha, task.checks)
        else:
            result = task.function(dict(task.parameters), task.seed, task.alpha, task.checks, executor=chunk_executor)
    if task.data_sha256:
        result = {**result, "parameters": {**result.get("parameters", {}), "data_sha256": task.data_sha256}}

    return {
        "result": result,
        "elapsed": time.perf_counter() - start,
        "worker": f"{socket.gethostname()}:{os.getpid()}",
        "chunked": chunk_executor is not None,
        "code_version": code_version(),  # the store refuses a cell computed by other code
    }


@contextlib.contextmanager
def _audited_data(task):
    """The cell's data file pinned (read once) while it runs, refused if its bytes changed since the spec was read."""
    expected = task.data_sha256
    if not expected:
        yield
        return

    path = task.parameters["data"]
    with contextlib.ExitStack() as stack:
        try:
            content = stack.enter_context(pinned_bytes(path))
        except OSError as err:
            raise InputError(f"sweep cell {task.cell_id}: cannot read the data file {path!r}: {err.strerror}") from None
        found = hashlib.sha256(content).hexdigest()
        if found != expected:
            raise InputError(
                f"sweep cell {task.cell_id}: the data file {path!r} changed after the sweep started (SHA-256 "
                f"{expected[:12]}… then, {found[:12]}… now); run the sweep again into a new store"
            )
        yield


def cells_to_split(tasks, workers: int) -> set[str]:
    """Cells too large to balance as whole tasks: a chunkable cell costing more than a worker's fair share.

    Their chunks (the seeded blocks of their samples) are spread over all workers instead; the
    numbers do not change, since every block draws from its own ``SeedSequence`` keyed by identity.
    """
    if workers <= 1:
        return set()
    fair = sum(t.cost for t in tasks) / workers
    return {t.cell_id for t in tasks if t.chunked and t.cost > fair}


class _PoolMap:
    """``map`` for one cell's chunks, on the sweep's process pool (used from a driver thread)."""

    def __init__(self, pool: ProcessPoolExecutor):
        self.pool = pool

    def map(self, fn, *iterables):
        futures = [self.pool.submit(fn, *args) for args in zip(*iterables)]
        try:
            return [f.result() for f in futures]
        finally:
            for f in futures:
                f.cancel()


class _DaskMap:
    """``map`` for one cell's chunks, as Dask tasks submitted from the worker running the cell."""

    def __init__(self, client):
        self.client = client

    def map(self, fn, *iterables):
        return self.client.gather(self.client.map(fn, *iterables, pure=False))


def execute_chunked_on_dask(task) -> dict:
    """Run one cell on a Dask worker, its chunks as further Dask tasks (see :func:`cells_to_split`)."""
    from distributed import worker_client

    with worker_client() as client:  # secedes from the worker's thread pool while its chunks run
        return execute_task(task, _DaskMap(client))


#: The most cells one Dask task runs (:func:`batches`).
MAX_BATCH = 8


def batches(tasks: list, threads: int) -> list[list]:
    """``tasks`` in consecutive batches, each one Dask task: ⌊R / (4 · threads)⌋ of the R cells not yet batched (at most
    :data:`MAX_BATCH`, at least one), so that batches shrink to single cells at the end and a worker that finishes
    early waits on at most about one cell of the others.  A task per cell paid Dask's round trip -- scheduling,
    serialising the cell and its outcome, the scheduler's and the workers' bookkeeping -- a hundred times on a small
    sweep: measured (100 Gaussian cells of 1e3 trials, 2 workers, 2 cores under load) 8 ms of the driver's CPU and
    11 ms of the workers' a cell over local processes."""
    out, start = [], 0
    while start < len(tasks):
        size = max(1, min(MAX_BATCH, (len(tasks) - start) // (4 * max(1, threads))))
        out.append(tasks[start : start + size])
        start += size
    return out


def execute_batch(tasks: list, chunked: bool = False) -> list[dict]:
    """On a Dask worker: the outcomes of ``tasks`` (:func:`execute_task`), one after another; ``chunked``: the one cell
    of ``tasks`` runs its chunks as further Dask tasks (:func:`execute_chunked_on_dask`).  A cell that raises ends the
    batch: its error carries ``pdp_batch``, the cell's index and the outcomes before it (stored by the driver, which
    then names the cell)."""
    if chunked:
        return [execute_chunked_on_dask(tasks[0])]
    outcomes: list[dict] = []
    for task in tasks:
        try:
            outcomes.append(execute_task(task))
        except Exception as error:
            with contextlib.suppress(AttributeError, TypeError):  # an exception type that takes no attribute
                error.pdp_batch = (len(outcomes), outcomes)  # type: ignore[attr-defined]
            raise
    return outcomes


def _worker_init() -> None:
    """Workers leave Ctrl-C to the driver (which stops them cleanly), and exit if the driver dies (kill -9).

    Each worker also uses one BLAS thread: there is one worker per core, so threaded BLAS inside a worker
    only oversubscribes the cores (and makes the small eigen- and linear solves of the audits slower).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    blas_limited_for_good()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    default_terminations()
    exit_with_parent()


def _named(error: BaseException, task) -> BaseException:
    """Say which cell raised: in the one-line message of an InputError (bad parameters, exit 2), else
    as a note under the traceback (Python ≥ 3.11) of what is then an internal error."""
    if isinstance(error, InputError):
        parameters = ", ".join(f"{k}={v!r}" for k, v in task.parameters.items())
        named = InputError(f"sweep cell {task.cell_id} ({parameters}): {error}")
        named.__cause__ = error
        return named
    if hasattr(error, "add_note"):
        error.add_note(f"while running sweep cell {task.cell_id} with parameters {task.parameters}")
    return error


class SerialExecutor:
    """One cell after another, in this process (no workers to start or stop)."""

    description = "serial (this process)"

    def run(self, tasks):
        for task in tasks:
            try:
                outcome = execute_task(task)
            except Exception as error:
                raise _named(error, task)
            yield task, outcome

    def close(self) -> None:
        pass


class ProcessExecutor:
    """A local process pool that survives the death of its workers."""

    forks = True  # workers inherit the driver's imports (see SweepMechanism.preload)

    def __init__(self, workers: int | None = None):
        self.workers = started_workers(workers or available_cores())
        self.description = f"{self.workers} local process{'es' if self.workers != 1 else ''}"
        self.restarts = 0
        self.chunked_cells = 0
        self._others: set = set()

    def pids(self) -> list[int]:
        """Process ids of the current pool's workers (for fault-injection tests)."""
        return [p.pid for p in _pool_processes(self._others)]

    def run(self, tasks):
        remaining = list(tasks)
        stalled = 0
        while remaining:
            finished: set[str] = set()
            broken = None
            split = cells_to_split(remaining, self.workers)
            workers = self.workers if split else min(self.workers, len(remaining))
            self._others = set(multiprocessing.active_children())  # before the pool: not its workers
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
            # Fork every worker now, before any driver thread exists: a fork while a driver thread holds an import
            # lock leaves the child waiting for that lock forever (the pool forks all workers on its first
            # submit when it forks at all).
            pool.submit(os.getpid).result()
            threads = (
                ThreadPoolExecutor(max_workers=len(split), thread_name_prefix="pdp-audit-chunks") if split else None
            )
            clean = False
            try:
                futures = {}
                for task in remaining:  # chunked cells are coordinated by driver threads, chunks run in the pool
                    if task.cell_id in split:
                        futures[threads.submit(execute_task, task, _PoolMap(pool))] = task
                        self.chunked_cells += 1
                    else:
                        futures[pool.submit(execute_task, task)] = task
                pending = set(futures)
                while pending and broken is None:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in sorted(done, key=lambda f: futures[f].cell_id):
                        error = future.exception()
                        if error is None:
                            finished.add(futures[future].cell_id)
                            yield futures[future], future.result()
                        elif isinstance(error, BrokenProcessPool):
                            broken = error
                        else:
                            raise _named(error, futures[future])
                if broken is not None:  # keep what finished before the pool broke
                    for future in pending:
                        if future.done() and not future.cancelled() and future.exception() is None:
                            finished.add(futures[future].cell_id)
                            yield futures[future], future.result()
                clean = broken is None
            finally:
                _stop(pool, clean, self._others)
                if threads is not None:
                    threads.shutdown(wait=True, cancel_futures=True)
            remaining = [t for t in remaining if t.cell_id not in finished]
            if broken is not None:
                self.restarts += 1
                stalled = 0 if finished else stalled + 1
                if stalled > MAX_RESTARTS_WITHOUT_PROGRESS:
                    raise RuntimeError(
                        f"worker processes died {stalled} times in a row without finishing a cell "
                        f"({len(remaining)} cells left): {broken}"
                    )

    def close(self) -> None:
        pass


def _pool_processes(others: set) -> list:
    """The worker processes of the one pool this process started after ``others`` (its multiprocessing children
    then): :func:`multiprocessing.active_children` less those -- the pool's own list of them is private."""
    return [p for p in multiprocessing.active_children() if p not in others]


#: Seconds a terminated pool worker is given to exit before it is killed.
STOP_SECONDS = 5.0


def _stop(pool: ProcessPoolExecutor, clean: bool, others: set) -> None:
    """Shut a pool down; unless it finished cleanly, terminate its workers (this process's multiprocessing children
    but ``others``) instead of waiting: those seen before the shutdown and any the pool started while it shut down,
    each killed where it outlives :data:`STOP_SECONDS` after its SIGTERM -- no worker is left behind (seen once in
    a full test run at load 4 on 2 cores: a worker alive after the stop)."""
    if clean:
        pool.shutdown(wait=True)
        return
    processes = _pool_processes(others)
    pool.shutdown(wait=False, cancel_futures=True)
    processes += [p for p in _pool_processes(others) if p not in processes]
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=STOP_SECONDS)
        if process.is_alive():
            process.kill()
            process.join()


class DaskExecutor:
    """Cells as Dask tasks: on an existing scheduler (``address``) or a LocalCluster of ``local_workers`` processes."""

    def __init__(
        self,
        address: str | None = None,
        local_workers: int | None = None,
        cluster_options: dict | None = None,
    ):
        # a LocalCluster's workers are spawned (dask_cluster.connect), never forked from this process
        self.client, self.cluster, self.description = connect(address, local_workers, cluster_options)
        self.resubmissions = 0
        self.chunked_cells = 0
        # An interrupted client logs a spurious traceback from tornado's callback; keep stderr to one line.
        self._tornado = logging.getLogger("tornado.application")
        self._tornado_level = self._tornado.level
        self._tornado.setLevel(logging.CRITICAL)

    def run(self, tasks):
        distributed = distributed_module()
        token = uuid.uuid4().hex[:8]
        tasks = list(tasks)
        futures = {}
        attempts: dict[str, int] = {}

        threads = sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values())
        split = cells_to_split(tasks, threads)

        def submit(batch: list, attempt: int, priority: int):
            chunked = batch[0].cell_id in split
            self.chunked_cells += chunked and attempt == 0
            key = f"pdp-cells-{batch[0].cell_id}-{len(batch)}-{token}-{attempt}"
            future = self.client.submit(execute_batch, batch, chunked, key=key, pure=False, priority=priority)
            futures[future] = batch
            attempts[batch[0].cell_id] = attempt
            return future

        whole = [t for t in tasks if t.cell_id not in split]
        plan = [[t] for t in tasks if t.cell_id in split] + batches(whole, threads)  # the split cells first
        queue = distributed.as_completed([submit(b, 0, len(plan) - i) for i, b in enumerate(plan)])
        try:
            for future in queue:
                batch = futures.pop(future)
                try:  # a result lost with its worker (status "lost") is made again by the scheduler: waited for
                    outcomes = future.result()
                except (*INTERRUPTIONS, SystemExit):  # Ctrl-C, SIGTERM: not a cell's failure
                    raise
                except BaseException as caught:  # Dask's FutureCancelledError may be asyncio's (not an Exception)
                    error = caught
                else:
                    yield from zip(batch, outcomes)
                    continue
                killed = type(error).__name__ in ("KilledWorker", "CommClosedError", "FutureCancelledError")
                if killed and attempts[batch[0].cell_id] < MAX_RESTARTS_WITHOUT_PROGRESS:
                    self.resubmissions += 1
                    for task in batch:  # one cell a task now: a cell that kills its worker is named alone
                        queue.add(submit([task], attempts[batch[0].cell_id] + 1, 0))
                    continue
                failed, done = getattr(error, "pdp_batch", (0, []))
                yield from zip(batch, done)
                raise _named(error, batch[failed])
        finally:
            for future in list(futures):
                future.cancel()

    def close(self) -> None:
        try:
            disconnect(self.client, self.cluster)
        finally:
            self._tornado.setLevel(self._tornado_level)


def make_executor(workers: int | None = None, scheduler: str | None = None, dask_local: int | None = None):
    """The executor the ``sweep`` options ask for: Dask (a scheduler or a LocalCluster), a process pool, or serial
    (``workers`` = 1; default: one process per core)."""
    workers = checked_workers(workers, "--workers")  # None: one per core this process may use
    if dask_local is not None:
        dask_local = checked_workers(dask_local, "--dask-local")
    if scheduler is not None:
        return DaskExecutor(address=scheduler)
    if dask_local is not None:
        return DaskExecutor(local_workers=dask_local)
    return SerialExecutor() if workers <= 1 else ProcessExecutor(workers)
