"""Faults with real processes: workers killed mid-sweep (local pool and Dask), Ctrl-C, kill -9 of the driver."""

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from pdp_audit.sweeps.executors import DaskExecutor, ProcessExecutor, SerialExecutor, _pool_processes, _stop
from pdp_audit.sweeps.spec import run_sweep
from pdp_audit.sweeps.store import Store
from tests.sweep_toy import parse_toy_spec, toy_spec

CELLS = 16


def toy_results(executor, path, kill=None, sleep=0.1):
    spec = parse_toy_spec(toy_spec(CELLS, sleep))
    store = Store.for_sweep(path, spec, resume=False)
    done = []

    def on_cell(task, outcome):
        done.append(task.cell_id)
        if len(done) == 3 and kill is not None:
            kill()

    try:
        outcome = run_sweep(spec, store, executor, on_cell=on_cell)
        rows = {r["cell_id"]: json.dumps(r["checks"], sort_keys=True) for r in store.rows()}
        count = store.db.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    finally:
        store.close()
    assert count == len(rows) == CELLS and set(rows) == {c.cell_id for c in spec.cells}
    return outcome, rows


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return toy_results(SerialExecutor(), tmp_path_factory.mktemp("ref") / "ref.sqlite", sleep=0.1)[1]


def test_killed_local_worker_loses_and_duplicates_nothing(reference, tmp_path):
    executor = ProcessExecutor(2)

    def kill():
        os.kill(executor.pids()[0], signal.SIGKILL)

    outcome, rows = toy_results(executor, tmp_path / "p.sqlite", kill)
    assert executor.restarts >= 1  # the pool really broke and the unfinished cells were resubmitted
    assert outcome.ran == CELLS and rows == reference


def pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_a_pools_workers_are_found_by_public_api_and_an_unclean_stop_ends_them():
    """The pool's workers are this process's multiprocessing children started after the pool's ``others`` (not the
    pool's private list): every worker that ran a task is one, a child started before the pool is not, and the stop
    of a pool that did not finish cleanly ends them all and nothing else."""
    from concurrent.futures import ProcessPoolExecutor

    before = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
    before.start()
    try:
        others = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork"))
        ran = {f.result() for f in [pool.submit(pid_after, 0.5) for _ in range(4)]}
        workers = [p.pid for p in _pool_processes(others)]
        assert len(workers) == 2 and ran <= set(workers) and before.pid not in workers
        pool.submit(pid_after, 60)
        _stop(pool, False, others)
        assert not [p for p in _pool_processes(others) if p.is_alive()] and before.is_alive()
    finally:
        before.terminate()
        before.join()


def test_killed_dask_worker_loses_and_duplicates_nothing(reference, tmp_path):
    """A worker of the LocalCluster killed mid-sweep is replaced (spawned, as they all are) and every cell is stored
    once."""
    pytest.importorskip("distributed")
    executor = DaskExecutor(local_workers=2)
    try:
        pids = list(executor.client.run(os.getpid).values())
        outcome, rows = toy_results(executor, tmp_path / "d.sqlite", lambda: os.kill(pids[0], signal.SIGKILL))
    finally:
        executor.close()
    assert outcome.ran == CELLS and rows == reference


GAUSS = """
[sweep]
mechanism = "gaussian"
checks = ["dp-forward", "loss-law"]
[fixed]
trials = 10000
[grid]
claim_epsilon = [0.5, 1.0, 2.0, 4.0]
noise_multiplier = [0.5, 1.0]
"""  # cells of about a second: the signal reaches the driver long before the last one (under load too)


def start(tmp_path, *extra):
    spec = tmp_path / "g.toml"
    spec.write_text(GAUSS)
    args = [
        sys.executable,
        "-m",
        "pdp_audit.cli",
        "sweep",
        str(spec),
        "--workers",
        "2",
        "--store",
        str(tmp_path / "g.sqlite"),
        *extra,
    ]
    return args, subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stored(path):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return dict(db.execute("SELECT cell_id, checks FROM cells").fetchall())
        finally:
            db.close()
    except sqlite3.Error:
        return {}


def wait_for_cells(path, at_least, process, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if len(stored(path)) >= at_least:
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("the sweep made no progress")


# slow: fast elsewhere (a signal ending a sweep: the SIGTERM test below, kill -9 in the slow run)
@pytest.mark.slow
def test_ctrl_c_keeps_completed_cells_and_resume_finishes_the_rest(tmp_path):
    args, process = start(tmp_path)
    wait_for_cells(tmp_path / "g.sqlite", 1, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0] and "--resume" in lines[0] and "Traceback" not in err
    kept = stored(tmp_path / "g.sqlite")
    assert 1 <= len(kept) < 8
    resumed = subprocess.run(args + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode in (0, 1, 3), resumed.stderr
    assert f"({8 - len(kept)} run now, {len(kept)} from the store" in resumed.stdout
    final = stored(tmp_path / "g.sqlite")
    assert len(final) == 8 and all(final[k] == v for k, v in kept.items())


@pytest.mark.tier2
def test_sigterm_keeps_completed_cells_and_ends_the_sweep_by_the_signal(tmp_path):
    """SIGTERM runs the same cleanup as Ctrl-C (store closed, workers stopped), then the driver ends by the signal."""
    psutil = pytest.importorskip("psutil")
    args, process = start(tmp_path)
    wait_for_cells(tmp_path / "g.sqlite", 1, process)
    workers = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    gone, alive = psutil.wait_procs(workers, timeout=15)
    for leftover in alive:  # clean up before failing
        leftover.kill()
    assert process.returncode == -signal.SIGTERM, err
    assert err.strip().count("\n") == 0 and "SIGTERM" in err and "Traceback" not in err, err
    assert not alive and 1 <= len(stored(tmp_path / "g.sqlite")) < 8
    store_files = {"g.sqlite", "g.sqlite.lock", "g.sqlite-wal", "g.sqlite-shm"}  # SQLite's own, kept for --resume
    assert {p.name for p in tmp_path.iterdir()} - store_files == {"g.toml"}  # no temporary of ours


@pytest.mark.slow  # CI runs it in its fixed sample of slow tests (.ci/run)
def test_kill_9_of_the_driver_leaves_a_store_that_resumes(tmp_path):
    psutil = pytest.importorskip("psutil")
    args, process = start(tmp_path)
    wait_for_cells(tmp_path / "g.sqlite", 2, process)
    workers = psutil.Process(process.pid).children(recursive=True)
    process.kill()
    process.communicate(timeout=30)
    kept = stored(tmp_path / "g.sqlite")
    assert len(kept) >= 2
    gone, alive = psutil.wait_procs(workers, timeout=10)  # orphaned workers notice and exit
    assert not alive
    resumed = subprocess.run(args + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode in (0, 1, 3), resumed.stderr
    final = stored(tmp_path / "g.sqlite")
    assert len(final) == 8 and all(final[k] == v for k, v in kept.items())


def test_killed_worker_during_a_chunked_cell(tmp_path):
    # The large cell is split into chunks run by the pool; one chunk kills its worker (once): the pool
    # is replaced, the cell runs again (split again) and its numbers are those of a serial run.
    marker = tmp_path / "crashed"
    text = (
        f'[sweep]\nmechanism = "toy-chunked"\n[[cells]]\nchunks = 20\nsleep = 0.05\ncrash_chunk = 7\n'
        f'crash_marker = "{marker}"\n[[cells]]\nchunks = 1\nsleep = 0.05\n'
    )

    def results(executor, path):
        spec = parse_toy_spec(text)
        store = Store.for_sweep(path, spec, resume=False)
        try:
            run_sweep(spec, store, executor)
            return {r["cell_id"]: json.dumps(r["checks"], sort_keys=True) for r in store.rows()}
        finally:
            store.close()

    executor = ProcessExecutor(2)
    rows = results(executor, tmp_path / "p.sqlite")
    assert marker.exists() and executor.restarts >= 1 and executor.chunked_cells == 2  # split before and after
    assert len(rows) == 2 and rows == results(SerialExecutor(), tmp_path / "s.sqlite")  # marker exists: no crash
