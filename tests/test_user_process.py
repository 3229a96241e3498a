"""The user's code behind a process boundary (issue #27, D15): ``pdp-audit blackbox MODULE:FACTORY`` and ``pdp-audit
certify`` of a ``module:factory`` deployment run the user's import, factory and sampler in a child process
(:func:`pdp_audit.verify.core.processes.in_user_process`).  An ``os._exit(0)``, a ``kill -9`` of itself, a segfault in
that code ended the whole command (exit 0, 137, 139: on main ``os._exit(0)`` was a command that certified nothing
exiting 0); now it is exit 2 and one line naming the code and how its process ended, and nothing is written.  A
killed command leaves no process behind, and a well-behaved target gives the bytes it gave in-process."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pdp_audit.audits.blackbox.evidence import UserSampler
from pdp_audit.audits.blackbox.search import DatasetSampler
from pdp_audit.audits.coverage.evidence import _called as coverage_called
from pdp_audit.audits.pair import deployed
from pdp_audit.mechanisms import base
from pdp_audit.verify.cli import blackbox as blackbox_cli
from pdp_audit.verify.cli import certify as certify_cli
from pdp_audit.verify.cli.main import main
from pdp_audit.verify.core import processes
from pdp_audit.verify.evidence import user_code

#: A user's module whose import, factory or sampler misbehaves as the environment says (FAULT_WHERE, FAULT_HOW).
FAULTY = textwrap.dedent(
    """
    import ctypes, os, signal, sys, threading, time
    import numpy as np

    WHERE, HOW = os.environ.get("FAULT_WHERE", ""), os.environ.get("FAULT_HOW", "")

    def fault():
        if HOW == "exit0":
            os._exit(0)
        if HOW == "kill9":
            os.kill(os.getpid(), signal.SIGKILL)
        if HOW == "segv":
            ctypes.string_at(0)
        if HOW in ("thread_exit0", "thread_sys_exit"):
            exit = (lambda: os._exit(0)) if HOW == "thread_exit0" else (lambda: sys.exit(0))
            thread = threading.Thread(target=exit)
            thread.start()
            thread.join()
            if HOW == "thread_exit0":
                time.sleep(5)  # os._exit in the thread ends the process meanwhile
        if HOW == "hang":
            with open(os.environ["FAULT_MARK"], "a") as mark:  # the test's sign that the user's code runs
                mark.write("hangs\\n")  # a line a call
            time.sleep(600)

    if WHERE == "import":
        fault()

    class Pair:
        def __init__(self, scale=2.0):
            self.scale, self.calls = scale, 0

        def sample(self, world, size, rng):
            self.calls += 1
            if WHERE == "sampler" and self.calls > 2:  # past the first small probe of certify
                fault()
            return rng.normal(1.0 if world == "D" else 0.0, self.scale, size=(size, 1))

    def make(**parameters):
        if WHERE == "factory":
            fault()
        return Pair(**parameters)
    """
)

DEPLOY = textwrap.dedent(
    """
    mechanism = "faulty_user:make"
    [claim]
    epsilon = 1.0
    delta = 1e-5
    [parameters]
    scale = 2.0
    [audit]
    trials = 2000
    """
)

CLAIM = ["--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2000"]


@pytest.fixture
def user_folder(tmp_path):
    (tmp_path / "faulty_user.py").write_text(FAULTY)
    (tmp_path / "deploy.toml").write_text(DEPLOY)
    return tmp_path


def cli(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pdp_audit.verify.cli", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )


FAULTS = [
    ("import", "exit0", "(exit status 0, as os._exit(0) does)"),
    ("factory", "exit0", "(exit status 0, as os._exit(0) does)"),
    ("sampler", "exit0", "(exit status 0, as os._exit(0) does)"),
    ("factory", "kill9", "(killed by signal SIGKILL"),
    ("sampler", "segv", "(killed by signal SIGSEGV)"),
    ("import", "thread_exit0", "(exit status 0, as os._exit(0) does)"),
]


def forked_command(folder: Path, monkeypatch, capfd, *args: str, **env: str) -> subprocess.CompletedProcess:
    """The command run here, its user's code forked from this process as the console script forks it (a fresh
    interpreter for each only repeated the imports): what the child writes reaches the file descriptors captured."""
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))  # what ``python -m`` puts first on the command's path
    monkeypatch.delitem(sys.modules, "faulty_user", raising=False)  # imported in the child only, each time
    monkeypatch.setattr(processes.threading, "active_count", lambda: 1)  # the fork path (see ``forking``)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capfd.readouterr()
    # A pytest session run in this process before (pytester's runpytest_inprocess) re-enables faulthandler on file
    # descriptor 2 as it ends, which capfd then captures: the child's SIGSEGV dump (its threads' stacks) joined the
    # command's one line.  Off while the command runs, as in a console script's process (no PYTHONFAULTHANDLER).
    handler_on = faulthandler.is_enabled()
    faulthandler.disable()
    try:
        code = main(list(args))
    finally:
        if handler_on:
            faulthandler.enable(file=sys.__stderr__)
    out, err = capfd.readouterr()
    assert "faulty_user" not in sys.modules  # the boundary was crossed: the faults ended a child, not this process
    return subprocess.CompletedProcess(args, code, out, err)


@pytest.mark.parametrize("where,how,ending", FAULTS)
def test_blackbox_user_code_ending_the_process_is_exit_2_in_one_line(
    user_folder, monkeypatch, capfd, where, how, ending
):
    """main: exit 0 (os._exit), 137 (SIGKILL), 139 (SIGSEGV), and nothing on stderr."""
    args = ("blackbox", "faulty_user:make", *CLAIM, "--json", "out.json")
    done = forked_command(user_folder, monkeypatch, capfd, *args, FAULT_WHERE=where, FAULT_HOW=how)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and done.stdout == "", done
    assert lines[0].startswith("pdp-audit: error: target: the code of faulty_user:make ended the audit process ")
    assert ending in lines[0] and lines[0].endswith("this is a fault in that code")
    assert not (user_folder / "out.json").exists()


@pytest.mark.parametrize("where,how,ending", [FAULTS[1], FAULTS[4]])
def test_certify_user_code_ending_the_process_is_exit_2_and_nothing_published(
    user_folder, monkeypatch, capfd, where, how, ending
):
    args = ("certify", "deploy.toml", "--json", "cert.json", "--report", "cert.pdf")
    done = forked_command(user_folder, monkeypatch, capfd, *args, FAULT_WHERE=where, FAULT_HOW=how)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    (line,) = done.stderr.splitlines()
    assert line.startswith("pdp-audit: error: deploy.toml: mechanism: the code of faulty_user:make ended the audit ")
    assert ending in line
    assert not (user_folder / "cert.json").exists() and not (user_folder / "cert.pdf").exists()


def test_sys_exit_in_a_thread_ends_only_that_thread_and_the_audit_decides(user_folder, monkeypatch, capsys, forking):
    """SystemExit in a thread ends the thread, not the process (Python's threading): the audit completes, and a
    black box never exits 0.  The command runs here, its user's code forked (a SystemExit in a thread is harmless
    to this process even if it were not)."""
    monkeypatch.chdir(user_folder)
    monkeypatch.syspath_prepend(str(user_folder))
    monkeypatch.delitem(sys.modules, "faulty_user", raising=False)
    monkeypatch.setenv("FAULT_WHERE", "factory")
    monkeypatch.setenv("FAULT_HOW", "thread_sys_exit")
    assert main(["blackbox", "faulty_user:make", *CLAIM]) == 3
    assert "INCONCLUSIVE" in capsys.readouterr().out


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid``, and theirs (from /proc)."""
    found, frontier = set(), {pid}
    while frontier:
        parents, frontier = frontier, set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rpartition(")")[2].split()[1]) in parents:
                    frontier.add(int(entry.name))
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """Running (a zombie nobody reaps in a container counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def hanging_command(folder: Path, *args: str) -> tuple[subprocess.Popen, set[int]]:
    """The command started on a sampler that hangs, once the sampler runs: the process and its descendants."""
    mark = folder / "running"
    env = {**os.environ, "FAULT_WHERE": "sampler", "FAULT_HOW": "hang", "FAULT_MARK": str(mark)}
    command = [sys.executable, "-m", "pdp_audit.verify.cli", "blackbox", "faulty_user:make", *CLAIM, *args]
    proc = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not mark.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    descendants = children_of(proc.pid)
    assert descendants, "the user's code runs in a child process"
    return proc, descendants


def gone_soon(pids: set[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not any(alive(pid) for pid in pids)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_terminated_command_leaves_no_process_behind(user_folder, workers):
    """SIGTERM (or kill -9) of the command: it dies as before (-15), and its child -- and that child's workers --
    exit too instead of sampling on as orphans.  The SIGTERM that reached the sampler ends the child's audit: read as
    the sampler's fault (MalformedPair), it called the sampler again and hung there until killed after CHILD_GRACE,
    its cleanup skipped."""
    proc, descendants = hanging_command(user_folder, "--workers", workers)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    proc.communicate()
    assert gone_soon(descendants), [pid for pid in descendants if alive(pid)]
    assert (user_folder / "running").read_text().splitlines() == ["hangs"], "the user's code ran on after SIGTERM"


def _terminated(*args, **kwargs):
    """The user's code as a SIGTERM finds it: the command's handler raises Terminated inside it."""
    raise processes.Terminated(signal.SIGTERM)


class _TerminatedOnAccess:
    """An object of the user's whose every method and property meets the SIGTERM."""

    output_dim = property(_terminated)
    sample = release = per_instance = __array__ = __str__ = _terminated


#: Each guard of the user's code (where what it raises becomes the user's fault: MalformedPair, InputError), called on
#: code that a SIGTERM interrupts; ``folder`` holds a module ``terminated_user`` (and a package) whose import meets it.
GUARDS = {
    "UserSampler": lambda folder: UserSampler(_TerminatedOnAccess(), "D")(10, None),
    "DatasetSampler": lambda folder: DatasetSampler(_TerminatedOnAccess(), (0.0,), "D")(10, None),
    "coverage call": lambda folder: coverage_called(_terminated, "coverage(rng)"),
    "deployed method": lambda folder: deployed._GuardedMethod(_terminated, "sample")("D", 10),
    "per_instance": lambda folder: deployed.individuals("x", _TerminatedOnAccess(), "dp", "the pair"),
    "pair_attribute": lambda folder: base.pair_attribute(_TerminatedOnAccess(), "output_dim"),
    "returned_array": lambda folder: base.returned_array("sample('D', 10)", _TerminatedOnAccess()),
    "user_error": lambda folder: base.user_error(ValueError(_TerminatedOnAccess())),
    "call_factory": lambda folder: user_code.call_factory("x", user_code.Factory(_terminated, "m.f", "m.py", ""), {}),
    "module import": lambda folder: user_code.load_factory("x", folder, "terminated_user:make"),
    "parent package": lambda folder: user_code.load_factory("x", folder, "terminated_package.inner:make"),
    "module_file": lambda folder: user_code.module_file(folder, "terminated_package.inner:make"),
    "target import": lambda folder: blackbox_cli.load_factory("terminated_user:make"),
    "target factory": lambda folder: blackbox_cli.load_factory("terminated_factory:make"),
}


@pytest.mark.parametrize("guard", GUARDS)
def test_every_guard_of_the_users_code_lets_a_termination_through(tmp_path, monkeypatch, guard):
    """A SIGTERM that arrives while the user's code runs is no fault of that code: no guard turns it into a verdict
    (UserSampler's MalformedPair kept the audit's process sampling until it was killed); ``Terminated`` of
    ``verify.core.processes`` is the one the guards name (``mechanisms.interruptions``)."""
    raising = "from pdp_audit.mechanisms.interruptions import Terminated\nraise Terminated(15)\n"
    (tmp_path / "terminated_user.py").write_text(raising)
    (tmp_path / "terminated_factory.py").write_text(
        "from pdp_audit.mechanisms.interruptions import Terminated\ndef make():\n    raise Terminated(15)\n"
    )
    (tmp_path / "terminated_package").mkdir()
    (tmp_path / "terminated_package" / "__init__.py").write_text(raising)
    monkeypatch.chdir(tmp_path)
    for name in ("terminated_user", "terminated_factory", "terminated_package"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(processes.Terminated) as caught:
        GUARDS[guard](tmp_path)
    assert caught.value.signum == signal.SIGTERM  # the one raised in the code, not one made up on the way


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_an_interrupted_command_exits_130_and_leaves_no_process_behind(user_folder):
    proc, descendants = hanging_command(user_folder, "--json", "out.json")
    proc.send_signal(signal.SIGINT)  # to the command alone: it interrupts its child
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert err.splitlines()[-1].startswith("pdp-audit: interrupted"), err
    assert gone_soon(descendants), [pid for pid in descendants if alive(pid)]
    assert not (user_folder / "out.json").exists()


def in_process(work, target):
    """:func:`processes.in_user_process` as it was before the boundary: the work in this process."""
    return work()


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=pytest.mark.slow)])  # workers: test_workers
def test_a_well_behaved_target_gives_the_bytes_it_gave_in_process(user_folder, monkeypatch, forking, workers):
    """The commands run here through the boundary (forked from this process, as ``python -m`` would fork them: a
    fresh interpreter for each only repeated the imports), then with the boundary removed."""
    args = ["blackbox", "faulty_user:make", *CLAIM, "--workers", workers]
    certify = ["certify", "deploy.toml", "--report", "none", "--workers", workers, "--quiet"]
    monkeypatch.chdir(user_folder)
    monkeypatch.syspath_prepend(str(user_folder))  # what ``python -m`` puts first on the command's path
    monkeypatch.delitem(sys.modules, "faulty_user", raising=False)  # another test's faulty_user (a worker's cache)
    assert main([*args, "--json", "child.json"]) == 3
    assert main([*certify, "--json", "cert-child.json"]) == 3
    assert "faulty_user" not in sys.modules  # imported in the children only: the boundary was crossed
    for module in (blackbox_cli, certify_cli):
        monkeypatch.setattr(module, "in_user_process", in_process)
    assert main([*args, "--json", "parent.json"]) == 3
    assert main([*certify, "--json", "cert-parent.json"]) == 3
    child, parent = (user_folder / "child.json").read_bytes(), (user_folder / "parent.json").read_bytes()
    assert child == parent and json.loads(child)["check"]["verdict"] == "inconclusive"
    cert_child, cert_parent = (user_folder / "cert-child.json").read_bytes(), (user_folder / "cert-parent.json")
    assert cert_child == cert_parent.read_bytes()


@pytest.fixture
def forking(monkeypatch):
    """The boundary forks only in a process without other threads (a pytest-xdist worker has some): these tests'
    work starts no OpenMP pool, so forking from the test process is safe, and the fork path is what they test."""
    monkeypatch.setattr(processes.threading, "active_count", lambda: 1)


def test_a_host_with_threads_of_its_own_runs_the_work_here(monkeypatch):
    """A fork from a host with threads (a test runner, a notebook) could deadlock the child (GNU OpenMP after the
    host used scikit-learn's trees hung the suite): there the work runs in this process."""
    monkeypatch.setattr(processes.threading, "active_count", lambda: 3)
    assert processes.in_user_process(lambda: os.getpid(), "x") == os.getpid()


def test_what_the_child_raises_is_raised_here_with_its_traceback(forking):
    def work():
        raise ZeroDivisionError("in the child")

    with pytest.raises(ZeroDivisionError, match="in the child") as caught:
        processes.in_user_process(work, "target: the code of 'x:y'")
    assert isinstance(caught.value.__cause__, processes.ChildTraceback)
    assert "in work" in str(caught.value.__cause__)
    assert processes.in_user_process(lambda: os.getpid(), "x") != os.getpid()


def test_a_sys_exit_that_reaches_the_child_is_the_users_fault_never_an_exit_0():
    """Our code never exits in the child: a SystemExit that reaches its top came from the user's code.  Run in a
    fresh single-threaded interpreter, where the boundary forks as the command line's does (forced inside a
    pytest-xdist worker, whose threads the fork drops, the full suite twice reported the code as None: not
    explained yet)."""
    script = (
        "import sys\n"
        "from pdp_audit.verify.core import processes\n"
        "try:\n"
        "    processes.in_user_process(lambda: sys.exit(0), \"target: the code of 'x:y'\")\n"
        "except processes.InputError as err:\n"
        "    print(err)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("target: the code of 'x:y' called sys.exit(0) outside"), done.stdout


def test_a_message_the_parent_cannot_read_is_our_error_never_a_silent_exit(forking):
    """An exception class of a module only the child imported (the user's) cannot be unpickled here: exit 4 with
    the reason (an internal error: the guards let the user's exception through), never "the code ended"."""

    def work():
        import types

        module = types.ModuleType("only_in_the_child")
        module.Fault = type("Fault", (Exception,), {"__module__": "only_in_the_child"})
        sys.modules["only_in_the_child"] = module
        raise module.Fault("cannot be unpickled here")

    with pytest.raises(RuntimeError, match="could not be read here.*only_in_the_child"):
        processes.in_user_process(work, "x")
    assert "only_in_the_child" not in sys.modules
