"""The black-box audit's blocks on Dask (issue 30, "streamed and parallel"): ``pdp-audit blackbox --scheduler ADDR``
and ``--dask-local N`` (the options of ``sweep``, declared once in :mod:`pdp_audit.verify.core.dask_cluster`), and
``BlackBoxBudget(scheduler=, dask_local=)`` / ``SearchOptions(...)`` in Python.  The numbers are those of a serial
run and of ``--workers 2``, bit for bit; a sampler Dask cannot send or load is one line naming it; no process is
left behind after a success, an error, Ctrl-C or SIGTERM."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.blackbox.search_check import SearchOptions
from pdp_audit.cli.main import main
from pdp_audit.reports.json_report import check_to_dict
from pdp_audit.verify.core import dask_cluster
from tests.test_sandbox import alive, children_of

pytest.importorskip("distributed")

CLAIM = ["--claim-epsilon", "1", "--claim-delta", "1e-5"]


class Shift:
    """N(1, 2²) on D, N(0, 2²) on D' (module level: picklable, importable on the workers)."""

    def sample(self, world, size, rng):
        return rng.normal(1.0 if world == "D" else 0.0, 2.0, size=(size, 1))


@pytest.fixture(scope="module")
def scheduler():
    """The address of a LocalCluster of 2 processes that this test module starts once (``--scheduler`` reaches it)."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.CRITICAL,
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _check(budget: pdp_audit.BlackBoxBudget) -> str:
    run = pdp_audit.audit_blackbox(Shift(), 1.0, 1e-5, trials=200_000, seed=4, budget=budget)
    return json.dumps(check_to_dict(run.checks[0]), sort_keys=True)


@pytest.mark.slow
def test_dask_gives_the_numbers_of_a_serial_run_and_of_worker_processes(scheduler):
    """The event test's three passes (training, selection, fresh: 4 blocks per world, as many as the tasks kept in
    flight) on Dask: the same events, counts and bound as serially and on 2 processes (9-15 s measured on 2 shared
    cores, the three runs; the cluster starts once per module, in ~2 s)."""
    serial = _check(pdp_audit.BlackBoxBudget(train_trials=5_000))
    assert json.loads(serial)["details"]["events"]  # a bound from counted events, not an empty run
    assert _check(pdp_audit.BlackBoxBudget(train_trials=5_000, workers=2)) == serial
    assert _check(pdp_audit.BlackBoxBudget(train_trials=5_000, scheduler=scheduler)) == serial


class NoisyMax:
    """The noisy maximum of 3 answers (Laplace noise of scale 2): a mechanism for the search."""

    dimension = 3

    def release(self, answers, size, rng):
        return (answers + rng.laplace(scale=2.0, size=(size, 3))).max(axis=1)


@pytest.mark.slow
def test_the_searchs_pilots_and_final_attack_run_on_dask_with_the_same_numbers(scheduler):
    """3 pilots and the final attack, through the same blocks (3.5-5.7 s measured)."""
    mechanism = NoisyMax()
    runs = [
        pdp_audit.audit_blackbox_search(
            mechanism,
            0.1,
            0.0,
            seed=3,
            options=SearchOptions(candidates=3, pilot_trials=3_000, trials=20_000, scheduler=where),
        )
        for where in (None, scheduler)
    ]
    ranking = [[(r.candidate.name, r.pilot_bound) for r in run.result.ranking] for run in runs]
    assert ranking[0] == ranking[1] and len(ranking[0]) == 3
    assert runs[0].run.checks[0].ci == runs[1].run.checks[0].ci
    assert runs[0].witness == runs[1].witness


def test_a_sampler_the_workers_cannot_import_is_one_line_naming_it(scheduler, tmp_path, monkeypatch):
    """Its module is importable here (on this process's path), not on the scheduler's workers."""
    (tmp_path / "only_here.py").write_text(
        "class OnlyHere:\n    def sample(self, world, size, rng):\n        return rng.normal(size=(size, 1))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from only_here import OnlyHere

    budget = pdp_audit.BlackBoxBudget(scheduler=scheduler)
    with pytest.raises(pdp_audit.InputError) as caught:
        pdp_audit.audit_blackbox(OnlyHere(), 1.0, 1e-5, trials=1_000, budget=budget)
    message = str(caught.value)
    assert message.startswith("scheduler: the sampler OnlyHere.sample cannot be loaded on the Dask workers")
    assert "only_here" in message and "\n" not in message


def test_a_sampler_dask_cannot_send_is_refused_before_a_cluster_is_reached():
    """A lock cannot be pickled, even by cloudpickle (a lambda can: Dask sends it by value).  The scheduler's port
    is closed: the refusal comes first."""
    import threading

    lock = threading.Lock()

    def holds_a_lock(size, rng):
        with lock:
            return rng.normal(size=(size, 1))

    budget = pdp_audit.BlackBoxBudget(scheduler="tcp://127.0.0.1:9")
    with pytest.raises(pdp_audit.InputError, match=r"^scheduler: the sampler .*holds_a_lock cannot be sent to Dask "):
        pdp_audit.audit_blackbox((holds_a_lock, holds_a_lock), 1.0, 1e-5, trials=1_000, budget=budget)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--dask-local", "0"], "--dask-local must be a whole number in [1, 256], got 0"),
        (["--dask-local", "2.5"], "--dask-local must be a whole number in [1, 256], got 2.5"),
        (["--scheduler", "not a url"], "--scheduler is not the address of a Dask scheduler (such as tcp://host"),
        (["--scheduler", "tcp://h:99999"], "--scheduler has port 99999, not in [1, 65535]"),
        (["--workers", "2", "--dask-local", "2"], "not allowed with argument"),
        (["--scheduler", "tcp://h:1", "--dask-local", "2"], "not allowed with argument"),
    ],
)
def test_the_dask_options_are_sweeps_checked_before_any_work(argv, message, tmp_path, capsys, monkeypatch):
    """The same words from ``blackbox`` and ``sweep`` (one declaration): one line, exit 2, before the target is
    imported or a store made."""
    monkeypatch.chdir(tmp_path)
    assert main(["blackbox", "no_such_module:make", *CLAIM, *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    spec = tmp_path / "s.toml"
    spec.write_text('[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\nsynthetic = "50,3"\n')
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"), *argv]) == 2
    swept = capsys.readouterr().err
    assert swept.count("\n") == 1 and message in swept, swept
    assert swept.partition(message)[2] == err.partition(message)[2]
    assert not list(tmp_path.glob("s.sqlite*"))


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"dask_local": 0}, "dask_local must be a whole number in [1, 256], got 0"),
        ({"scheduler": "not a url"}, "scheduler is not the address of a Dask scheduler"),
        ({"scheduler": 8786}, "scheduler must be a string, got 8786"),
        ({"workers": 2, "dask_local": 2}, "give one of workers and dask_local, not both"),
        ({"scheduler": "tcp://h:1", "dask_local": 2}, "give one of scheduler and dask_local, not both"),
    ],
)
def test_the_api_checks_them_in_its_words_before_any_draw(keywords, message):
    def never(size, rng):
        raise AssertionError("a release was drawn")

    with pytest.raises(pdp_audit.InputError) as caught:
        pdp_audit.audit_blackbox((never, never), 1.0, 1e-5, budget=pdp_audit.BlackBoxBudget(**keywords))
    assert message in str(caught.value)
    with pytest.raises(pdp_audit.InputError) as caught:
        SearchOptions(**keywords).checked()
    assert message in str(caught.value)


class _Future:
    def __init__(self, client, value, block=True):
        self.client, self.value, self.block = client, value, block

    def result(self):
        self.client.pending -= self.block
        return self.value

    def cancel(self):
        self.client.pending -= self.block


class _Client:
    """A stand-in for a Dask client: runs each task at once, counts the tasks in flight and those that send data."""

    def __init__(self):
        self.pending = self.most = self.shared = 0

    def scheduler_info(self):
        return {"workers": {"a": {"nthreads": 1}, "b": {"nthreads": 1}}}

    def submit(self, fn, *args, pure=True):
        assert pure is False
        if fn is dask_cluster._itself:  # an object the blocks share, sent once
            self.shared += 1
            return _Future(self, args[0], block=False)
        self.pending += 1
        self.most = max(self.most, self.pending)
        args = [tuple(x.value if isinstance(x, _Future) else x for x in a) if isinstance(a, tuple) else a for a in args]
        return _Future(self, fn(*args))


def test_dask_blocks_come_in_order_few_in_flight_and_their_work_is_sent_once():
    """Memory flat in the number of blocks: at most 2 tasks per worker thread in flight, whatever their number; the
    work every block shares (sampler, frozen statistic) sent once, not once per block."""
    from pdp_audit.verify.estimators.engine import iter_blocks, run_blocks

    class Work:
        def __call__(self, size, rng):
            return rng.random(size)

    client = _Client()
    blocks = dask_cluster.DaskBlocks(client)
    got = list(iter_blocks(Work(), 50 * 1000, 7, "s", blocks, block_size=1000))
    assert len(got) == 50 and client.most == 2 * 2 and client.shared == 1 and client.pending == 0
    assert (run_blocks(Work(), 50 * 1000, 7, "s", block_size=1000) == np.concatenate(got)).all()


class Marked:
    """A pair whose sampler, on a Dask worker, leaves that worker's pid in ``folder`` (and raises if ``fails``)."""

    def __init__(self, folder: str, fails: bool = False):
        self.folder, self.fails = folder, fails

    def sample(self, world, size, rng):
        import multiprocessing

        if "Dask" in multiprocessing.current_process().name:
            Path(self.folder, str(os.getpid())).touch()
            if self.fails:
                raise ValueError("broken on a worker")
        return rng.normal(1.0 if world == "D" else 0.0, 2.0, size=(size, 1))


@pytest.mark.slow
def test_the_api_closes_its_local_cluster_after_a_run_and_after_an_error(tmp_path):
    """``dask_local`` starts a LocalCluster for the call and closes it before returning, whatever the outcome: no
    worker outlives the call in the caller's process (8 s measured: two clusters of one worker)."""
    for fails in (False, True):
        marks = tmp_path / str(fails)
        marks.mkdir()
        budget = pdp_audit.BlackBoxBudget(train_trials=1_000, dask_local=1)
        run = pdp_audit.audit_blackbox(Marked(str(marks), fails), 1.0, 1e-5, trials=5_000, budget=budget)
        (check,) = run.checks
        assert check.id == ("pair-protocol" if fails else "blackbox-attack"), check
        pids = [int(p.name) for p in marks.iterdir()]
        assert pids and not [pid for pid in pids if alive(pid)]


# --- the command line, with its LocalCluster: real processes (slow: each run starts a cluster) --------------------

#: A user's module of the current folder: a Dask worker that runs its sampler writes its pid under FAULT_MARKS, and
#: does what FAULT_HOW says there (hang, raise, segfault).
DASK_USER = textwrap.dedent(
    """
    import ctypes, multiprocessing, os, time
    import numpy as np

    HOW, MARKS = os.environ.get("FAULT_HOW", ""), os.environ.get("FAULT_MARKS", "")

    class Pair:
        def sample(self, world, size, rng):
            if "Dask" in multiprocessing.current_process().name:
                if MARKS:
                    open(os.path.join(MARKS, str(os.getpid())), "w").close()
                if HOW == "hang":
                    time.sleep(600)
                if HOW == "raise":
                    raise ValueError("broken on a worker")
                if HOW == "segv":
                    ctypes.string_at(0)
            return rng.normal(1.0 if world == "D" else 0.0, 2.0, size=(size, 1))

    def make():
        return Pair()
    """
)

BUDGET = ["--trials", "200000", "--train-trials", "20000"]


@pytest.fixture
def user_folder(tmp_path):
    (tmp_path / "dask_user.py").write_text(DASK_USER)
    (tmp_path / "marks").mkdir()
    return tmp_path


def command(folder: Path, *args: str) -> list[str]:
    """The console script, as a user runs it: its ``sys.path`` starts at its own folder, not the current one (``python
    -m`` would put the current folder there, and every process it spawns would import from it anyway)."""
    script = Path(sys.executable).with_name("pdp-audit")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "pdp_audit.cli"]
    return [*launcher, "blackbox", "dask_user:make", *CLAIM, *BUDGET, *args]


def environ(folder: Path, how: str = "") -> dict:
    # no progress lines on the captured stderr (a run past LINE_INTERVAL prints them off a terminal)
    return {**os.environ, "FAULT_HOW": how, "FAULT_MARKS": str(folder / "marks"), "PDP_AUDIT_PROGRESS": "0"}


def run_command(folder: Path, *args: str, how: str = "") -> subprocess.CompletedProcess:
    """``pdp-audit blackbox`` on the user's module in ``folder``, its sampler faulting as ``how`` says."""
    return subprocess.run(
        command(folder, *args), cwd=folder, env=environ(folder, how), capture_output=True, text=True, timeout=300
    )


def after_plan(stderr: str) -> str:
    """Standard error after the plan a run states before any draw (docs/how-to/blackbox.md: one line, ``Budget: N
    fresh releases per world, …``; progress lines are off here): it must come first, once."""
    plan, _, rest = stderr.partition("\n")
    assert plan.startswith("pdp-audit blackbox: Budget") and "Budget" not in rest, stderr
    return rest


def workers_gone(folder: Path, seconds: float = 10.0) -> list[int]:
    """The Dask workers that ran the sampler (their pids marked) and are still alive after ``seconds``."""
    pids = [int(p.name) for p in (folder / "marks").iterdir()]
    assert pids, "the sampler ran on Dask workers"
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


@pytest.mark.slow
def test_cli_dask_local_gives_the_bytes_of_worker_processes_and_leaves_no_worker(user_folder):
    """A module of the current folder reaches the LocalCluster's workers (their path starts with that folder, as
    the command imported it); 13-25 s measured on 2 shared cores (the cluster starts in 2-5 s)."""
    local = run_command(user_folder, "--workers", "2", "--json", "w.json")
    dask = run_command(user_folder, "--dask-local", "2", "--json", "d.json")
    assert local.returncode == dask.returncode == 1, (local, dask)
    assert (user_folder / "w.json").read_bytes() == (user_folder / "d.json").read_bytes()
    assert after_plan(dask.stderr) == "" and dask.stdout == local.stdout
    assert not workers_gone(user_folder)


@pytest.mark.slow
def test_a_sampler_that_raises_on_a_dask_worker_is_the_pairs_fault_and_leaves_no_worker(user_folder):
    done = run_command(user_folder, "--dask-local", "2", how="raise")
    assert done.returncode == 1 and "pair-protocol" in done.stdout and "broken on a worker" in done.stdout, done
    assert after_plan(done.stderr) == ""
    assert not workers_gone(user_folder)


@pytest.mark.slow
def test_a_sampler_that_kills_its_dask_workers_is_one_line_exit_2(user_folder):
    """Dask retries the block on a fresh worker 3 times, then gives up (KilledWorker): the user's code, not ours
    (20-34 s measured)."""
    done = run_command(user_folder, "--dask-local", "2", how="segv")
    assert done.returncode == 2, done
    said = after_plan(done.stderr)
    assert said.count("\n") == 1 and "the Dask workers running the sampler Pair.sample died" in said, done
    assert not workers_gone(user_folder)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)])
def test_an_interrupted_or_terminated_dask_run_leaves_no_process_behind(user_folder, signum, code):
    """The sampler hangs on the workers: Ctrl-C or SIGTERM of the command ends it at once (its LocalCluster's
    workers killed, not awaited), and neither its child, nor the workers, nor Dask's resource tracker outlive it."""
    proc = subprocess.Popen(
        command(user_folder, "--dask-local", "2"),
        cwd=user_folder,
        env=environ(user_folder, "hang"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not any((user_folder / "marks").iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    descendants = children_of(proc.pid)
    assert len(descendants) >= 3  # the user's process and its two workers
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, (out, err)
    said = after_plan(err)  # the plan, stated before the interruption, then one line
    assert said.count("\n") == 1 and said.startswith("pdp-audit: ") and "Traceback" not in said, err
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in descendants) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in descendants if alive(pid)]
    assert not workers_gone(user_folder, 0)


@pytest.mark.tier2
def test_a_sampler_importing_its_sibling_lazily_runs_on_a_local_dask_cluster(tmp_path):
    """Issue 42 item 2 on Dask: the LocalCluster's workers unpickle the user's sampler and import the module beside
    it when it first draws (its folder is first on their sys.path); a correct mechanism is inconclusive, never
    refuted for a ModuleNotFoundError on a worker (its real-valued law: as implemented, a float Gaussian added to a
    value is porous and refuted)."""
    (tmp_path / "lazy_dask.py").write_text(
        textwrap.dedent(
            """
            class Pair:
                def sample(self, world, size, rng):
                    import lazy_dask_sibling  # imported only when a worker draws

                    return rng.normal(lazy_dask_sibling.SHIFT if world == "D" else 0.0, 5.0, size=(size, 1))

            def make():
                return Pair()
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "lazy_dask_sibling.py").write_text("SHIFT = 1.0\n", encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pdp_audit.cli",
            "blackbox",
            "lazy_dask:make",
            *CLAIM,
            "--trials",
            "2e4",
            "--dask-local",
            "1",
            "--report",
            "none",
            "--law",
            "ideal",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 3, done.stderr[-2000:]
    assert "UNDECIDED" in done.stdout + done.stderr


def test_a_local_cluster_listens_on_the_loopback_interface_only():
    """The LocalCluster that ``--dask-local`` starts opens no port beyond this machine: its scheduler (with its HTTP
    server), nanny and worker all listen on 127.0.0.1 (``dashboard_address=":0"`` bound the HTTP server to every
    interface, and with bokeh installed served an unauthenticated dashboard there)."""
    import psutil

    from pdp_audit.verify.core.dask_cluster import connect, disconnect

    def listening():  # (pid, address) of every socket this process and its children listen on
        processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
        return {(p.pid, c.laddr) for p in processes for c in p.net_connections(kind="tcp") if c.status == "LISTEN"}

    before = listening()  # another test's cluster in this worker is not this one's
    client, cluster, _ = connect(local_workers=1)
    try:
        opened = [address.ip for _, address in listening() - before]
        assert opened and set(opened) <= {"127.0.0.1"}, opened
    finally:
        disconnect(client, cluster)
