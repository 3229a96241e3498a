"""Sweeps give bitwise-identical results serially, on 2 local processes and on a real Dask LocalCluster,
in any order."""

import json
import sys

import pytest

from pdp_audit.sweeps.executors import DaskExecutor, ProcessExecutor, SerialExecutor
from pdp_audit.sweeps.spec import run_sweep
from pdp_audit.sweeps.store import Store, load_results
from tests.sweep_toy import parse_toy_spec, toy_spec

SPEC = """
[sweep]
mechanism = "gaussian"
seed = 11
checks = ["dp-forward", "dp-reverse", "loss-law", "lr-attack"]
[fixed]
trials = 3000
[grid]
claim_epsilon = [0.5, 1.0]
noise_multiplier = [0.5, 1.0]
[[cells]]
synthetic = "50,3"
"""


class Reversed:
    """Runs the cells in the opposite order (an executor wrapper)."""

    def __init__(self, inner):
        self.inner = inner
        self.description = "reversed " + inner.description

    def run(self, tasks):
        return self.inner.run(list(tasks)[::-1])


def sweep_with(executor, path, text=SPEC):
    spec = parse_toy_spec(text)
    store = Store.for_sweep(path, spec, resume=False)
    try:
        outcome = run_sweep(spec, store, executor)
        rows = {r["cell_id"]: (r["seed"], json.dumps(r["checks"], sort_keys=True), r["verdict"]) for r in store.rows()}
    finally:
        store.close()
    from pdp_audit.reports.sweep_json import sweep_to_dict

    # Everything but the code version (other files of the suite may be edited while tests run)
    doc = sweep_to_dict(load_results(path))
    doc.pop("code_versions")
    for cell in doc["cells"]:
        cell.pop("code_version")
    return outcome, rows, json.dumps(doc, sort_keys=True)


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    return sweep_with(SerialExecutor(), tmp_path_factory.mktemp("serial") / "s.sqlite")


def test_serial_result_is_complete(serial):
    outcome, rows, _ = serial
    assert outcome.ran == 5 and len(rows) == 5
    verdicts = {json.loads(text)[0]["verdict"] for _, text, _ in rows.values()}
    assert "fail" in verdicts and "pass" in verdicts


def test_order_does_not_matter(serial, tmp_path):
    _, rows, doc = sweep_with(Reversed(SerialExecutor()), tmp_path / "r.sqlite")
    assert rows == serial[1] and doc == serial[2]


def test_two_local_processes_match_serial_bitwise(serial, tmp_path):
    outcome, rows, doc = sweep_with(ProcessExecutor(2), tmp_path / "p.sqlite")
    assert rows == serial[1] and doc == serial[2]
    assert outcome.executor == "2 local processes"


# One cell much larger than the other: it is split into chunks spread over the workers.
UNEVEN = """
[sweep]
mechanism = "gaussian"
seed = 5
checks = ["dp-forward", "dp-reverse", "loss-law", "lr-attack"]
[grid]
trials = [2000, 140000]
"""  # three blocks of samples in the large cell


@pytest.fixture(scope="module")
def uneven(tmp_path_factory):
    return sweep_with(SerialExecutor(), tmp_path_factory.mktemp("uneven") / "u.sqlite", UNEVEN)


def test_a_large_cell_is_split_into_chunks_with_the_same_numbers(uneven, tmp_path):
    executor = ProcessExecutor(2)
    _, rows, doc = sweep_with(executor, tmp_path / "p.sqlite", UNEVEN)
    assert executor.chunked_cells == 1
    assert rows == uneven[1] and doc == uneven[2]


@pytest.mark.slow  # CI runs it in its fixed sample of slow tests (.ci/run); the Dask fault tests run by default
def test_dask_cluster_matches_serial_bitwise(serial, uneven, tmp_path):
    # An existing cluster reached by address (--scheduler); --dask-local is exercised by the fault tests.
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
    )
    executor = DaskExecutor(address=cluster.scheduler_address)
    try:
        executor.client.wait_for_workers(2, timeout=120)
        _, rows, doc = sweep_with(Reversed(executor), tmp_path / "d.sqlite")
        assert rows == serial[1] and doc == serial[2]
        _, rows, doc = sweep_with(executor, tmp_path / "u.sqlite", UNEVEN)
        assert executor.chunked_cells == 1  # the large cell's chunks ran as Dask tasks from its worker
        assert rows == uneven[1] and doc == uneven[2]
    finally:
        executor.close()
        cluster.close()


@pytest.mark.tier2
def test_a_local_cluster_spawned_here_matches_serial_bitwise(serial, tmp_path):
    """``--dask-local``'s workers are spawned, never forked from here (a fork of a process whose OpenMP threads had
    run hung): fresh interpreters without the sweep's modules this process imported, one BLAS thread each (Dask's
    environment), giving the serial bytes.  Forked, they started with the modules (on 1081ccf)."""
    pytest.importorskip("distributed")
    preload = parse_toy_spec(SPEC).kind.preload
    assert preload and all(module in sys.modules for module in preload)
    executor = DaskExecutor(local_workers=2)
    try:
        started = executor.client.run(_worker_state, preload)
        assert all(not imported and threads <= {1} for imported, threads in started.values()), started
        _, rows, doc = sweep_with(Reversed(executor), tmp_path / "f.sqlite")
        assert rows == serial[1] and doc == serial[2]
    finally:
        executor.close()


def test_a_local_cluster_leaves_the_callers_environment_as_it_was(monkeypatch):
    """distributed's nannies write their pre-spawn variables into this process's environment before each worker is
    spawned (``PYTHONHASHSEED`` = 6640 where it was unset or 0): a sweep or a black box on ``--dask-local`` left them
    in the caller's process (and a program audit after it read its hash seed from there)."""
    pytest.importorskip("distributed")
    import os

    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "12345")
    executor = DaskExecutor(local_workers=1)
    try:
        assert "PYTHONHASHSEED" not in os.environ
        assert os.environ["MALLOC_TRIM_THRESHOLD_"] == "12345"
    finally:
        executor.close()
    assert "PYTHONHASHSEED" not in os.environ and os.environ["MALLOC_TRIM_THRESHOLD_"] == "12345"


def _worker_state(modules):
    """On a worker: whether ``modules`` are imported, and its BLAS libraries' thread counts."""
    import sys

    from threadpoolctl import threadpool_info

    threads = {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    return all(m in sys.modules for m in modules), threads


def test_a_cell_is_the_same_in_any_grid(tmp_path):
    # The same cell inside a bigger grid gets the same seed and the same estimates (its alpha, hence
    # its intervals, shrink with the number of cells: Bonferroni over cells).  Cell identity and seeding do not
    # depend on the mechanism: the toy's seeded estimate shows them at no cost.
    _, small, _ = sweep_with(SerialExecutor(), tmp_path / "s.sqlite", toy_spec(3, 0.0))
    _, bigger, _ = sweep_with(SerialExecutor(), tmp_path / "b.sqlite", toy_spec(5, 0.0))
    assert small and set(small) < set(bigger)
    for cell_id, (seed, text, _) in small.items():
        assert bigger[cell_id][0] == seed
        estimates = [c["estimate"] for c in json.loads(text)]
        assert [c["estimate"] for c in json.loads(bigger[cell_id][1])] == estimates


def test_dask_batches_shrink_to_single_cells_and_keep_the_order():
    """A Dask task runs a batch of cells: every cell once, in order, at most MAX_BATCH a task, the last ones alone."""
    from pdp_audit.sweeps.executors import MAX_BATCH, batches

    for cells, threads in ((100, 2), (7, 2), (1, 1), (0, 4), (1000, 16)):
        planned = batches(list(range(cells)), threads)
        assert [c for batch in planned for c in batch] == list(range(cells))
        assert all(1 <= len(b) <= MAX_BATCH for b in planned) and (not planned or len(planned[-1]) == 1)
        assert [len(b) for b in planned] == sorted((len(b) for b in planned), reverse=True)
    assert len(batches(list(range(100)), 2)) < 40  # a third of the round trips of a task a cell


def test_a_cell_failing_in_a_batch_is_named_with_the_outcomes_before_it(tmp_path):
    """execute_batch stops at a cell that raises; its error says which and carries the outcomes before it (the driver
    stores them and names that cell)."""
    from dataclasses import replace

    from pdp_audit.sweeps.executors import execute_batch
    from pdp_audit.sweeps.spec import tasks_for

    spec = parse_toy_spec(toy_spec(3, 0.0))
    tasks = tasks_for(spec, spec.cells)
    broken = replace(tasks[1], parameters={**tasks[1].parameters, "sleep": "no"})  # time.sleep("no"): TypeError
    with pytest.raises(TypeError) as raised:
        execute_batch([tasks[0], broken, tasks[2]])
    failed, done = raised.value.pdp_batch
    assert failed == 1 and len(done) == 1 and done[0]["result"]["checks"][0]["exact"] == tasks[0].parameters["x"]
