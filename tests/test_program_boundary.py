"""The boundary between the program audit and the user's program (issue 72): what the user's program does wrong
is theirs, in one line and exit 2 -- never a verdict (exit 1), never our internal error (exit 4) -- and nothing
the program does reaches the audit's own data, files or processes.

Seen failing on main before the fix: a program raising on D was reported FAIL (exit 1, "program-record: fail").
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import psutil
import pytest

import pdp_audit
from pdp_audit.cli import main as cli
from pdp_audit.verify.core.processes import FORKS_PER_CALL
from pdp_audit.verify.core.sandbox import CHILD_GRACE

VALUES = np.linspace(0.0, 1.0, 8)


def _fixed(data, rng):
    return float(np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)


def raises_value(data, rng):
    raise ValueError("bad input here")


def wrong_signature(data):
    return 1.0


def exits(data, rng):
    sys.exit(3)


def out_of_memory(data, rng):
    raise MemoryError


def recurses(data, rng):
    return recurses(data, rng)


def bad_cell(data, rng):
    return float(data["nope"].sum()) + rng.laplace(0.0, 1.0)


FAULTS = [
    (raises_value, "ValueError: 'bad input here'", "in raises_value"),
    (wrong_signature, "TypeError", None),
    (exits, "SystemExit (sys.exit(3))", "in exits"),
    (out_of_memory, "MemoryError", "in out_of_memory"),
    (recurses, "RecursionError", "in recurses"),
    (bad_cell, "IndexError", "in bad_cell"),  # a numpy array indexed by a column name
]


@pytest.mark.parametrize(("program", "raised", "where"), FAULTS, ids=[f[0].__name__ for f in FAULTS])
def test_a_program_that_raises_on_its_own_data_is_the_users_fault_in_one_line(program, raised, where):
    """No release on D: nothing to audit.  One InputError naming the program, the exception, the line of the
    user's code it came from and that it was D (not a neighbour)."""
    with pytest.raises(pdp_audit.InputError) as caught:
        pdp_audit.audit_program(program, VALUES, epsilon=1.0, bounds=(0, 1), trials=2000)
    message = str(caught.value)
    assert "\n" not in message and program.__name__ in message and raised in message and "on D," in message
    if where is not None:
        assert "test_program_boundary.py, line " in message and where in message


def test_a_program_that_raises_on_a_neighbour_only_is_a_finding_not_an_error():
    """The same exception on D′ only is a difference the release shows: a finding with its witness pair, never the
    user's input error and never a certificate."""

    def strict(data, rng):
        if len(data) < len(VALUES):
            raise ValueError("too few records")
        return _fixed(data, rng)

    run = pdp_audit.audit_program(strict, VALUES, epsilon=1.0, bounds=(0, 1), trials=2000, law="ideal")
    structure = next(c for c in run.checks if c.id == "program-structure")
    assert run.verdict != "pass" and "too few records" in structure.note


PROGRAM = """
import sys

def raises(data, rng):
    raise ValueError("no such group")
"""


@pytest.mark.commands_in_process  # a raise is no boundary crossing: the hard exits are the tests below
def test_the_command_says_it_in_one_line_with_exit_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "faulty_stats.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ["program", "faulty_stats:raises", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    assert cli.main([*args, "--report", "none"]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "REFUTED" not in out, (out, err)
    assert "faulty_stats:raises raised ValueError: 'no such group' (faulty_stats.py, line 5, in raises)" in lines[0]


def _clipped_sum(frame, rng):
    return float(frame["value"].fillna(0.0).clip(0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)


def drops_in_place(data, rng):
    data.drop(index=data.index[:1], inplace=True)
    data["value"] = data["value"] * 1.0
    return _clipped_sum(data, rng)


def drops_a_copy(data, rng):
    data = data.drop(index=data.index[:1])
    return _clipped_sum(data, rng)


@pytest.mark.tier2
@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_a_program_that_changes_its_data_in_place_is_audited_as_one_that_does_not():
    """Each call gets its own copy of D or D′: the in-place drop ended in exit 4 (the audit's own D had lost a record),
    and the caller's DataFrame came back changed."""
    frame = pd.DataFrame({"value": VALUES})
    kept = frame.copy()
    options = {"epsilon": 1.0, "bounds": (0, 1), "trials": 200, "law": "ideal"}  # the same calls, not power
    in_place = pdp_audit.audit_program(drops_in_place, frame, **options)
    assert frame.equals(kept)
    copied = pdp_audit.audit_program(drops_a_copy, frame, **options)
    assert [(c.id, c.verdict) for c in in_place.checks] == [(c.id, c.verdict) for c in copied.checks]


FORKING = """
import os
import numpy as np

FORKED = []


if os.environ.get("FORK_AT_IMPORT"):
    os.fork()  # the copy returns into the import


def forks_once(data, rng):
    with open("calls.txt", "a") as calls:
        calls.write(f"{os.getpid()}\\n")
    noise = rng.laplace(0.0, 1.0)  # drawn before the fork: a draw in the copy would keep the claim undecided
    if not FORKED:
        FORKED.append(1)
        os.fork()  # the copy returns into the audit
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    return float(np.clip(values, 0.0, 1.0).sum()) + noise
"""


@pytest.mark.tier2(representatives=("certify",))
@pytest.mark.parametrize("command", ["program", "certify"])
def test_a_copy_the_program_forks_never_runs_the_audit(tmp_path, monkeypatch, command):
    """The copy returned into the audit and ran the rest of it (99 more calls of the program); a program forking on
    each call so became a fork bomb.  The copy ends where it leaves the user's code, as a forked child ends: its
    call, or the import of a deployment's module that forks as it is imported (certify)."""
    (tmp_path / "forking.py").write_text(FORKING, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    deployment = (
        DEPLOYMENT.format(key="program", target="forking:forks_once") + '[audit]\ntrials = 2000\nlaw = "ideal"\n'
    )
    (tmp_path / "d.toml").write_text(deployment.replace('"people.csv"', '"people.csv"\nbounds = "0,1"'), "utf-8")
    monkeypatch.chdir(tmp_path)
    if command == "certify":
        monkeypatch.setenv("FORK_AT_IMPORT", "1")
        assert cli.main(["certify", "d.toml", "--report", "none"]) == 0
    else:
        args = ["program", "forking:forks_once", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
        assert cli.main([*args, "--bounds", "0,1", "--law", "ideal", "--trials", "2000", "--report", "none"]) == 0
    # the audit's process makes every call but one: D's record replayed once in a fresh process (a pid of its own);
    # a copy returned into the audit would make the rest of the audit's calls
    callers = collections.Counter((tmp_path / "calls.txt").read_text(encoding="utf-8").split())
    (audit, _), *others = callers.most_common()
    assert len(others) <= 1 and all(calls == 1 for _, calls in others), callers


BOMB = """
import os
import numpy as np


def forks_each_call(data, rng):
    with open("calls.txt", "a") as calls:
        calls.write("start\\n")
    for _ in range(8):  # each copy forking again: 2⁸ processes a call
        os.fork()
    with open("calls.txt", "a") as calls:
        calls.write("end\\n")
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    return float(np.clip(values, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)
"""


@pytest.mark.tier2
def test_a_copy_the_program_forked_may_not_fork_again(tmp_path, monkeypatch):
    """A program whose copies fork again grew exponentially within one call (a fork bomb the command's own limits
    did not contain; as root RLIMIT_NPROC does not apply).  A copy's fork is refused: it ends where it leaves the
    program, so each call's copies are as many as the first process's forks, only the last one's copy reaches the
    program's last lines (it forks no more), and none is left when the audit ends.  Seen failing: 24,481 processes
    ran a call to its end (2⁸ a call)."""
    (tmp_path / "bomb.py").write_text(BOMB, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    # processes earlier tests on this worker left running (a joblib or multiprocessing helper) are not the audit's
    before = {(p.pid, p.create_time()) for p in psutil.Process().children(recursive=True)}
    args = ["program", "bomb:forks_each_call", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    assert cli.main(
        [*args, "--bounds", "0,1", "--law", "ideal", "--trials", "200", "--draw-sets", "1", "--report", "none"]
    ) in (0, 3)
    lines = (tmp_path / "calls.txt").read_text(encoding="utf-8").split()
    # each call's first process and the copy of its last fork (which forks no more) end; the other copies are refused
    assert lines.count("end") == 2 * lines.count("start"), lines.count("end")
    after = {(p.pid, p.create_time()) for p in psutil.Process().children(recursive=True)}
    assert not after - before, after - before
    assert not _running_in(tmp_path)  # nor a copy its parent's end handed to init


LOOP = """
import os
import numpy as np


def forks_in_a_loop(data, rng):
    forked = 0
    try:
        for _ in range(10**6):
            if os.fork() == 0:  # the copy leaves the program at once, and ends there
                return 0.0
            forked += 1
    except OSError:
        with open("forked.txt", "w") as record:
            record.write(str(forked))
        raise
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    return float(np.clip(values, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)
"""


@pytest.mark.tier2
def test_the_program_may_fork_only_so_many_copies_a_call(tmp_path):
    """A loop of forks in one call, each copy leaving the program at once (so none forks again), ran its 10^6 forks
    in that call, and as many in the next.  The first process's fork beyond :data:`FORKS_PER_CALL` in one call is
    refused as the system refuses one (OSError EAGAIN): the program dies of it on its own data, one line naming it,
    exit 2, and none of its copies is left.  Seen failing: the command had not ended after 60 s (the copies in the
    thousands)."""
    command = _program_command(tmp_path, "looping", LOOP, "forks_in_a_loop")
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the audit of a program forking in a loop did not end within 60 s")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    refused = f"'[Errno 11] pdp-audit: the audited code may fork at most {FORKS_PER_CALL} copies a call'"
    assert f"looping:forks_in_a_loop raised BlockingIOError: {refused} (looping.py, line 10" in lines[0], lines[0]
    assert (tmp_path / "forked.txt").read_text(encoding="utf-8") == str(FORKS_PER_CALL)
    assert not _running_in(tmp_path)


FORKING_ON = """
import os
import subprocess

import numpy as np


def forks_on(data, rng):
    with open("calls.txt", "a") as calls:
        calls.write("call\\n")
    for each in range(50):
        if os.fork() == 0:  # the copy leaves the program at once, and ends there
            if not each:  # what it started outlives it, in the audit's process group
                subprocess.Popen(["sleep", "100"])
            return 0.0
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    return float(np.clip(values, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)
"""


@pytest.mark.tier2
def test_a_killed_command_leaves_no_process_of_a_forking_program(tmp_path):
    """``kill -9`` of the command while its program forks on each call: the SIGTERM that the end of the command's
    pipe raises in the audit's process was dropped where it was raised, in logging's at-fork hook ("Exception
    ignored in: <function _releaseLock>"), and the orphan forked on to the audit's end.  It is ended
    :data:`CHILD_GRACE` seconds later if its unwinding did not end it, and with it what the copies started (in its
    process group, no longer its descendants).  Seen failing: the audit's process still forked 15 s after the kill;
    with that fixed, the copies' ``sleep`` processes were left."""
    command = _program_command(tmp_path, "forking_on", FORKING_ON, "forks_on")
    proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    calls = tmp_path / "calls.txt"
    try:
        deadline = time.monotonic() + 120
        while not (calls.exists() and calls.read_text(encoding="utf-8").count("call") >= 3):
            assert proc.poll() is None and time.monotonic() < deadline, "the program was not called thrice"
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + CHILD_GRACE + 10
        while _running_in(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running_in(tmp_path)
    finally:
        proc.kill()
        for left in _running_in(tmp_path):  # what this test started, were it left
            left.kill()


SPAWNING = """
import subprocess

import numpy as np


def spawns(data, rng):
    subprocess.Popen(["sleep", "100"])  # started from C (fork_exec: no fork counted), never waited for
    with open("started.txt", "a") as started:
        started.write("sleep\\n")
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    return float(np.clip(values, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)
"""


def test_what_the_program_starts_from_c_ends_with_the_audit(tmp_path):
    """A program that starts a process from C on each call (``subprocess.Popen``, which no count of Python's forks
    sees) and never waits for it: the command ends when the audit does, and none of those processes is left --
    each holds the command's output pipes, so one left would keep ``subprocess.run`` waiting its 100 s.  Seen
    failing with the audit process's sweep of its descendants and the group's kill taken out: not ended within 60
    s."""
    command = _program_command(tmp_path, "spawning", SPAWNING, "spawns")
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    except subprocess.TimeoutExpired:
        done = None
    left = _running_in(tmp_path)
    for each in left:  # what this test started: not left behind, whatever the outcome
        each.kill()
    assert done is not None, "the audit of a program starting processes did not end within 60 s"
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "started.txt").read_text(encoding="utf-8").count("sleep") >= 30
    assert not left, left


def _program_command(tmp_path, module: str, source: str, target: str) -> list[str]:
    """``pdp-audit program module:target`` at --law ideal on three records, its module written in ``tmp_path``."""
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    argv = ["program", f"{module}:{target}", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    return [sys.executable, "-m", "pdp_audit.cli", *argv, "--bounds", "0,1", "--law", "ideal", "--report", "none"]


def _running_in(folder) -> list:
    """The processes other than this one whose working folder is ``folder`` (zombies are over: not counted)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.pid != os.getpid() and process.status() != psutil.STATUS_ZOMBIE and process.cwd() == str(folder):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


DEPLOYMENT = """
{key} = "{target}"
[claim]
epsilon = 1.0
delta = 0.0
[parameters]
data = "people.csv"
"""


@pytest.mark.tier2(cases=("program-numpy:sum-module 'numpy' is Python's or an installed library's (loaded from ",))
@pytest.mark.parametrize(
    ("key", "target", "said"),
    [
        ("program", "os:getcwd", "module 'os' is Python's or an installed library's (loaded from "),
        ("program", "numpy:sum", "module 'numpy' is Python's or an installed library's (loaded from "),
        ("program", "sys:exit", "module 'sys' is Python's or an installed library's (built into Python)"),
        ("mechanism", "numpy:sum", "module 'numpy' is Python's or an installed library's (loaded from "),
    ],
)
def test_a_deployment_naming_a_loaded_library_is_refused_in_one_line(tmp_path, monkeypatch, capsys, key, target, said):
    """``program = "numpy:sum"`` executed numpy's __init__ again over the loaded numpy: RecursionError, exit 4;
    ``"os:getcwd"`` said "no module 'os' beside the deployment file or installed"."""
    (tmp_path / "d.toml").write_text(DEPLOYMENT.format(key=key, target=target), encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["certify", "d.toml", "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"d.toml: {key}: {said}" in err, err


PRINTING = """
import numpy as np


def talks(data, rng):
    print("hello from the program")
    values = np.nan_to_num(data["value"].to_numpy(dtype=float))
    return float(np.clip(values, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)
"""


@pytest.mark.tier2(representatives=("program",))
@pytest.mark.parametrize("command", ["program", "certify"])
def test_json_to_standard_output_is_the_document_alone(tmp_path, command):
    """``--json -``: the program's prints were mixed into the JSON on standard output; they go to standard error."""
    (tmp_path / "talking.py").write_text(PRINTING, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    deployment = DEPLOYMENT.format(key="program", target="talking:talks") + '[audit]\ntrials = 2000\nlaw = "ideal"\n'
    (tmp_path / "d.toml").write_text(deployment.replace('"people.csv"', '"people.csv"\nbounds = "0,1"'), "utf-8")
    argv = {
        "program": ["program", "talking:talks", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
        + ["--bounds", "0,1", "--trials", "2000", "--law", "ideal"],
        "certify": ["certify", "d.toml"],
    }[command]
    done = subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", *argv, "--report", "none", "--json", "-"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "pass" and "hello from the program" in done.stderr


HELPED = """
import helper


def release(data, rng):
    with open("lookup.txt", encoding="utf-8") as lookup:
        upper = float(lookup.read())
    return float(helper.clipped(data["value"].to_numpy(dtype=float), upper).sum()) + rng.laplace(0.0, 1.0)
"""
HELPER = """
import numpy as np


def clipped(values, upper):
    return np.clip(np.nan_to_num(values), 0.0, upper)
"""


@pytest.mark.tier2(representatives=("helper.py",))
@pytest.mark.parametrize("output", ["helper.py", "lookup.txt"])
def test_no_output_is_written_over_a_file_the_program_read_or_imported(tmp_path, monkeypatch, capsys, output):
    """``--json helper.py`` wrote the JSON over the module the program imports (exit 0): the outputs are checked
    again once the audit is done, against every module imported and file read, before anything is written."""
    for name, text in (("helped.py", HELPED), ("helper.py", HELPER), ("lookup.txt", "1.0"), ("d.csv", "value\n0.5\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    before = (tmp_path / output).read_bytes()
    monkeypatch.chdir(tmp_path)
    args = ["program", "helped:release", "--data", "d.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    assert cli.main([*args, "--bounds", "0,1", "--trials", "2000", "--law", "ideal", "--json", output]) == 2
    assert (tmp_path / output).read_bytes() == before and not (tmp_path / "pdp-audit-program.pdf").exists()
    assert f"--json: '{output}' is " in capsys.readouterr().err


POOLED = """
import multiprocessing
import numpy as np

POOLS = []


def _part(values):
    return float(np.clip(np.nan_to_num(values), 0.0, 1.0).sum())


def pooled(data, rng):
    values = data["value"].to_numpy(dtype=float)
    if POOLS:  # one pool, on the first call: each costs a fork of the audit's process
        return _part(values) + rng.laplace(0.0, 1.0)
    POOLS.append(1)
    with multiprocessing.get_context("fork").Pool(2) as pool:  # its exit ends the workers with SIGTERM
        total = sum(pool.map(_part, np.array_split(values, 2)))
    return total + rng.laplace(0.0, 1.0)
"""


def test_a_multiprocessing_pool_in_the_program_ends_as_it_does_without_the_audit(tmp_path):
    """The pool's workers inherited the audit's SIGTERM handler, raised inside the queue's lock when the pool's exit
    ended them, and the audit hung for good; they get the handling the process had before pdp-audit's."""
    (tmp_path / "pooling.py").write_text(POOLED, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    argv = ["program", "pooling:pooled", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    argv += ["--bounds", "0,1", "--trials", "2000", "--law", "ideal", "--report", "none"]
    command = [sys.executable, "-m", "pdp_audit.cli", *argv]
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("the audit of a program with a multiprocessing pool did not end within 240 s")
    assert done.returncode == 0 and "Terminated" not in done.stderr, done.stderr


def unlucky_on_fewer_records(data, rng):
    if len(data) < len(VALUES) and rng.random() < 0.95:
        raise ValueError("unlucky")
    return float(len(data)) + rng.laplace(0.0, 1.0)


def test_a_program_raising_on_the_witness_neighbour_at_fresh_draws_is_its_fault_not_ours():
    """The confirmation's first releases (which size its rows) met the program's fault on D′ and let it out of the
    audit: exit 4.  It is the black box's pair-protocol failure, naming the exception."""
    run = pdp_audit.audit_program(unlucky_on_fewer_records, VALUES, epsilon=1.0, bounds=(0, 1), trials=2000)
    protocol = next(c for c in run.checks if c.id == "pair-protocol")
    assert run.verdict == "fail" and "ValueError: 'unlucky'" in protocol.note
