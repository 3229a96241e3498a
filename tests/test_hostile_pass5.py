"""Defects found by the fifth hostile pass (issue 42; ``benchmarks/hostile_pass5.py`` on the installed wheel).  Each
test fails on the code before its fix.  Budgets are small (at most 2e3 releases per world)."""

from __future__ import annotations

import json
import math
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
from pdp_audit.cli.main import main
from pdp_audit.verify.inputs.validation import InputError
from tests.test_sandbox import alive

CLAIM = ("--claim-epsilon", "1", "--claim-delta", "1e-3", "--trials", "1000", "--statistic", "logistic")


def cli(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )


def one_line_exit_2(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.stdout[-500:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    return lines[0]


def refused_here(folder: Path, monkeypatch, capsys, *args: str) -> str:
    """The command's one line and exit 2, run in this process from ``folder``: for a refusal of what was typed or
    read, where a fresh interpreter only repeated the imports (the tests whose input could exhaust memory run a
    process of their own)."""
    monkeypatch.chdir(folder)
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return one_line_exit_2(subprocess.CompletedProcess(args, code, out, err))


# --- the one-run audit's guesses (item 4) --------------------------------------------------------------------------

SCORES = np.random.default_rng(0).normal(size=400)
BITS = np.random.default_rng(1).integers(0, 2, 400)


@pytest.mark.parametrize(
    "guesses",
    [(math.inf, 1), (10**400, 1), ("1", "2"), "12", b"\x01\x02", {1: 2, 3: 4}, (True, False), np.array(["1", "2"])],
    ids=["inf", "10**400", "strings", "a-string", "bytes", "a-dict", "booleans", "numpy-strings"],
)
def test_guesses_that_are_no_two_whole_numbers_are_refused_in_one_line(guesses):
    """inf and 10**400 raised OverflowError; ("1", "2"), "12", bytes, a dict's keys and booleans were read."""
    with pytest.raises(InputError, match=r"^guesses(:| must be two whole numbers).{1,200}$"):
        pdp_audit.audit_one_run(SCORES, BITS, 0.0, guesses=guesses)


def test_whole_guesses_of_numpy_and_float_types_are_read():
    for guesses in [(np.int64(10), np.int64(12)), np.array([10, 12]), (10.0, 12.0)]:
        run = pdp_audit.audit_one_run(SCORES, BITS, 0.0, guesses=guesses)
        assert run.parameters["guesses"] == "10 12"


def test_a_guess_beyond_a_double_on_the_command_line_is_one_line(tmp_path, monkeypatch, capsys):
    np.savetxt(tmp_path / "s.csv", SCORES, header="score", comments="")
    np.savetxt(tmp_path / "b.csv", BITS, header="included", comments="", fmt="%d")
    line = refused_here(
        tmp_path,
        monkeypatch,
        capsys,
        "canaries",
        "--one-run",
        "--scores",
        "s.csv",
        "--inclusion",
        "b.csv",
        "--delta",
        "0",
        "--guesses",
        "1" + "0" * 400,
        "1",
    )
    assert "guesses: (k+, k-) = (1000" in line


# --- scores that are no real numbers (item 1) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "scores, said",
    [
        (np.ma.masked_array(np.arange(10.0), mask=[0, 1] * 5), "masked"),
        (np.arange(10).astype("timedelta64[s]"), "timedelta64"),
        (np.arange(10) > 4, "bool"),
    ],
    ids=["masked", "timedelta", "bool"],
)
def test_scores_that_are_no_real_numbers_are_refused(scores, said):
    """A masked array's masked scores were audited (np.asarray drops the mask); timedeltas were read as integers."""
    with pytest.raises(InputError, match=said):
        pdp_audit.audit_canary_scores(scores, np.arange(10.0), 1e-5)


@pytest.mark.parametrize("dtype", ["timedelta64[ns]", "bool"])
def test_a_npy_of_timedeltas_or_booleans_is_refused(tmp_path, monkeypatch, capsys, dtype):
    np.save(tmp_path / "in.npy", np.arange(300).astype(dtype))
    np.save(tmp_path / "out.npy", np.arange(300.0))
    args = ("canaries", "--in-scores", "in.npy", "--out-scores", "out.npy", "--delta", "1e-5")
    assert "expected real numbers" in refused_here(tmp_path, monkeypatch, capsys, *args)


def test_a_npy_header_beyond_memory_is_refused_before_reading(tmp_path):
    """A sparse 16 GB .npy of zeros had the command killed for memory after a minute."""
    with open(tmp_path / "in.npy", "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": "<f8", "fortran_order": False, "shape": (10**11,)})
        handle.truncate(8 * 10**11 + 128)
    np.save(tmp_path / "out.npy", np.arange(300.0))
    start = time.monotonic()
    done = cli(tmp_path, "canaries", "--in-scores", "in.npy", "--out-scores", "out.npy", "--delta", "1e-5")
    assert "100,000,000,000 scores need about" in one_line_exit_2(done)
    assert time.monotonic() - start < 30


def test_a_csv_beyond_the_cap_is_refused_before_reading(tmp_path):
    """A sparse 4 GiB file was read for 66 s before its error."""
    with open(tmp_path / "in.csv", "wb") as handle:
        handle.write(b"score\n1.0\n2.0\n")
        handle.truncate(2**30 + 1)
    done = cli(tmp_path, "canaries", "--in-scores", "in.csv", "--out-scores", "in.csv", "--delta", "1e-5")
    assert "a CSV of scores is read up to 1 GiB" in one_line_exit_2(done)


def test_digits_grouped_by_underscores_are_no_score(tmp_path, monkeypatch, capsys):
    """Python's float reads "1_5" as 15."""
    (tmp_path / "in.csv").write_text("score\n1.5\n2.5\n1_5\n")
    args = ("canaries", "--in-scores", "in.csv", "--out-scores", "in.csv", "--delta", "1e-5")
    line = refused_here(tmp_path, monkeypatch, capsys, *args)
    assert "row 3 (line 4), column 'score': '1_5' is not a number" in line


# --- arguments of the other public functions (item 4) --------------------------------------------------------------


@pytest.mark.parametrize("function", ["gaussian_delta", "gaussian_epsilon", "gaussian_sigma"])
@pytest.mark.parametrize(
    "value", ["0.5", b"0.5", True, 10**400, 1 + 0j], ids=["str", "bytes", "bool", "huge", "complex"]
)
def test_the_calibrations_refuse_what_is_no_real_number(function, value):
    """A string and a boolean were read as numbers, 10**400 raised OverflowError, a complex warned."""
    with pytest.raises(InputError, match=r"^(epsilon|delta) must be .*, got .{1,80}$"):
        getattr(pdp_audit, function)(value, 1e-5 if function == "gaussian_sigma" else 2.0)  # a valid second


def test_yes_no_keywords_refuse_strings():
    """per_instance="no" ran the per-instance audit; progress and paper_claims likewise took any string as True."""

    class Pair:
        output_dim = 1
        calls = 0

        def sample(self, world, size, rng):
            Pair.calls += 1
            return rng.standard_normal((size, 1))

        def privacy_loss(self, outputs):
            return np.zeros(len(outputs))

    with pytest.raises(InputError, match="^per_instance must be True or False, got 'no'$"):
        pdp_audit.audit_pair(Pair(), 1.0, 1e-3, trials=1000, per_instance="no")
    with pytest.raises(InputError, match="^progress must be True or False, got 'yes'$"):
        pdp_audit.audit_blackbox(Pair(), 1.0, 1e-3, trials=1000, progress="yes")
    with pytest.raises(InputError, match="^paper_claims must be True or False, got 'no'$"):
        pdp_audit.run_audit("gaussian", trials=1000, paper_claims="no")
    assert Pair.calls == 0


def test_run_audit_and_read_sweep_refuse_arguments_of_the_wrong_type():
    """A list as the audit's name raised TypeError (unhashable); read_sweep(None) TypeError out of os.fspath."""
    with pytest.raises(InputError, match="^name must be an audit"):
        pdp_audit.run_audit(["gaussian"])
    with pytest.raises(InputError, match="^path must be the path of a sweep store, got None$"):
        pdp_audit.read_sweep(None)


# --- the streams' encoding -----------------------------------------------------------------------------------------


@pytest.mark.tier2(representatives=("latin1",))
@pytest.mark.parametrize(
    "env", [{"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"}], ids=["ascii", "latin1"]
)
def test_a_verdict_prints_whatever_the_streams_encoding(tmp_path, env):
    """Printing ε on an ASCII standard output raised UnicodeEncodeError after the audit: exit 4."""
    rng = np.random.default_rng(2)
    np.savetxt(tmp_path / "in.csv", rng.normal(3, 1, 300), header="score", comments="")
    np.savetxt(tmp_path / "out.csv", rng.normal(0, 1, 300), header="score", comments="")
    done = cli(
        tmp_path,
        "canaries",
        "--in-scores",
        "in.csv",
        "--out-scores",
        "out.csv",
        "--delta",
        "1e-5",
        "--claim-epsilon",
        "0.1",
        "--report",  # the verdict printed is the subject, not the PDF
        "none",
        **env,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "\\u03b5" in done.stdout, done.stdout


# --- the user's code (item 3) --------------------------------------------------------------------------------------

MODULE = """
import os, subprocess, sys, time
import numpy as np

def hook():
{hook}

class Pair:
    output_dim = 1
    def sample(self, world, size, rng):
        if os.environ.get("HOOK_WHERE") == "sample":
            hook()
        if os.environ.get("SLOW"):
            time.sleep(0.2)
        return (1.0 if world == "D" else 0.0) + 4.0 * rng.standard_normal((size, 1))
    def privacy_loss(self, outputs):
        return (outputs[:, 0] - 0.5) / 16

def make(**parameters):
    if os.environ.get("HOOK_WHERE", "factory") == "factory":
        hook()
    return Pair()
"""

DEPLOY = 'mechanism = "mine:make"\n[claim]\nepsilon = 1.0\ndelta = 1e-3\n[audit]\ntrials = 1000\nseed = 0\n'


def user(tmp_path: Path, hook: str) -> Path:
    body = textwrap.indent(textwrap.dedent(hook).strip(), "    ")
    (tmp_path / "mine.py").write_text(MODULE.format(hook=body))
    (tmp_path / "deploy.toml").write_text(DEPLOY)
    return tmp_path


def command(kind: str) -> tuple[str, ...]:
    return ("blackbox", "mine:make", *CLAIM) if kind == "blackbox" else ("certify", "deploy.toml")


@pytest.mark.tier2(representatives=("factory-certify",))
@pytest.mark.parametrize("kind", ["blackbox", "certify"])
@pytest.mark.parametrize("where", ["factory", "sample"])
def test_a_keyboard_interrupt_raised_by_the_users_code_is_their_fault(tmp_path, kind, where):
    """No SIGINT arrived: it was "interrupted", exit 130, as if the user had pressed Ctrl-C."""
    done = cli(user(tmp_path, "raise KeyboardInterrupt"), *command(kind), HOOK_WHERE=where)
    line = one_line_exit_2(done)
    assert "raised KeyboardInterrupt, but no interrupt (SIGINT) reached the audit" in line
    assert "mine" in line


@pytest.mark.tier2(representatives=("blackbox",))
@pytest.mark.parametrize("kind", ["blackbox", "certify"])
def test_an_exception_whose_message_cannot_be_formed_is_the_users_fault(tmp_path, kind):
    """Its __str__ raised inside our message: an internal error, exit 4."""
    hook = """
    class Odd(Exception):
        def __str__(self):
            raise RuntimeError("no message")
    raise Odd()
    """
    line = one_line_exit_2(cli(user(tmp_path, hook), *command(kind)))
    assert "raised Odd: '<its message could not be formed: RuntimeError>'" in line


def test_a_huge_message_of_the_users_exception_is_cut(tmp_path):
    line = one_line_exit_2(cli(user(tmp_path, "raise ValueError('x' * 10_000_000)"), *command("certify")))
    assert len(line) < 600 and "(10,000,002 characters)" in line


#: What a factory changed of the process's state that broke our code after it returned (exit 4 with a traceback), at
#: exit (a traceback), or refused its JSON on standard output (``sys.stdout = None``: "standard output is closed",
#: exit 2): each alone, so one command per kind makes them all -- without any one of the restores of
#: ``user_float_rules`` it fails (checked by removing each).
STATE_CHANGES = ("sys.setrecursionlimit(60)", "sys.path[:] = []", "sys.stderr.close()", "sys.stdout = None")


@pytest.mark.tier2(representatives=("blackbox",))
@pytest.mark.parametrize("kind", ["blackbox", "certify"])
def test_state_the_factory_changes_is_given_back_to_our_code(tmp_path, kind):
    """Our code failed after the factory returned (exit 4 with a traceback) or at exit (a traceback).  The JSON goes
    to standard output (``--json -``), which our code writes after the factory returned."""
    # no certificate PDF (3 of certify's 5 CPU s): our code after the factory fails without the fixes all the same
    done = cli(user(tmp_path, "\n".join(STATE_CHANGES)), *command(kind), "--json", "-", "--report", "none")
    assert done.returncode == 3, done.stderr[-3000:]  # as without the hook: 1e3 releases decide nothing
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["claim" if kind == "blackbox" else "verdict"], done.stdout[-2000:]


def started(folder: Path) -> list[int]:
    path = folder / "pids"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


HELPER = """
p = subprocess.Popen(["sleep", "300"])
with open("pids", "a") as handle:
    handle.write(f"{p.pid}\\n")
"""


#: the same helper in a session of its own: beyond the audit's process group (ended as an orphan of the command)
HELPER_SETSID = HELPER.replace('["sleep", "300"]', '["sleep", "300"], start_new_session=True')


@pytest.mark.tier2(representatives=("blackbox",))
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("kind", ["blackbox", "certify"])
def test_a_process_the_users_code_started_ends_with_the_audit(tmp_path, kind):
    """A helper started by the factory outlived the command (and held its output pipes open: a reader waited); one
    started with ``setsid`` outlived it still, beyond the audit's process group.  The factory starts both: each
    helper is ended (or not) by what it is, whatever else the factory started, so one command checks both."""
    # no certificate PDF (2.9 CPU s of certify's 4.9): its rendering starts and ends no process
    both = HELPER + HELPER_SETSID
    ends_leaving_nothing(user(tmp_path, both), (*command(kind), "--report", "none"), timeout=300)
    assert len(started(tmp_path)) == 2


def ends_leaving_nothing(folder: Path, argv, timeout: float, **env: str) -> None:
    """The command run in ``folder`` ends undecided or certified (its stderr to a file, not a pipe the helpers would
    hold open) within ``timeout`` seconds, and no process the helpers wrote to ``pids`` is alive."""
    with open(folder / "err.txt", "w") as err:
        code = subprocess.run(
            [sys.executable, "-m", "pdp_audit.cli", *argv],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=err,
            timeout=timeout,
            env={**os.environ, **env},
        ).returncode
    assert code in (0, 3), (folder / "err.txt").read_text()[-2000:]
    pids = started(folder)
    try:
        assert pids and not any(alive(pid) for pid in pids)
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


#: a non-daemon ``multiprocessing`` child of the sampler: a worker process joins it when it exits
HELPER_MULTIPROCESSING = """
import multiprocessing
child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(300,))
child.start()
with open("pids", "a") as handle:
    handle.write(f"{child.pid}\\n")
"""


@pytest.mark.tier2(representatives=("certify",))
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("kind", ["blackbox", "certify"])
def test_a_multiprocessing_child_of_the_sampler_does_not_hold_the_workers(tmp_path, kind):
    """With two workers, each worker's exit joined the non-daemon child the sampler started (Python's multiprocessing
    does so at exit): the pool, and the command, waited the child's 300 s (hostile pass 5 on 7686df7: timed out)."""
    folder = user(tmp_path, HELPER_MULTIPROCESSING)
    (folder / "deploy.toml").write_text(DEPLOY + "workers = 2\n")
    argv = [*command(kind), "--report", "none", *(["--workers", "2"] if kind == "blackbox" else [])]  # PDF: above
    ends_leaving_nothing(folder, argv, timeout=120, HOOK_WHERE="sample")


def signalled_blackbox(folder: Path, *signals: tuple[int, float]) -> int:
    """The slow black box of ``folder`` started, sent each (signal, then a pause) once its factory's helper runs; its
    exit status.  Then: every process the helper file names is gone within 1 s of the command's end."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdp_audit.cli", *command("blackbox")],
        cwd=folder,
        env={**os.environ, "SLOW": "1"},
        stdout=subprocess.DEVNULL,  # not pipes: the helper would hold them open
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not started(folder):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    time.sleep(0.5)
    for signum, pause in signals:
        proc.send_signal(signum)
        time.sleep(pause)
    code = proc.wait(timeout=60)
    ended = time.monotonic()
    pids = started(folder)
    try:
        while any(alive(pid) for pid in pids) and time.monotonic() < ended + 1.0:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in pids)
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    return code


@pytest.mark.tier2(representatives=("15",))
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_processes_the_users_code_started_within_a_second(tmp_path, signum):
    """SIGTERM of certify left a helper started by the factory running."""
    signalled_blackbox(user(tmp_path, HELPER), (signum, 0.0))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_second_sigterm_still_ends_a_helper_in_a_session_of_its_own(tmp_path):
    """A second SIGTERM while the first was cleaned up after ended the command at once, before the orphans of the
    audit's child were killed: the factory's ``setsid`` helper outlived it (hostile pass 5, rerun on ed5ca62, under
    load).  Here the factory also ignores SIGTERM, so the first one's cleanup waits for the child and the second
    surely arrives during it."""
    ignoring = HELPER_SETSID + "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    code = signalled_blackbox(user(tmp_path, ignoring), (signal.SIGTERM, 1.0), (signal.SIGTERM, 0.0))
    assert code == -signal.SIGTERM


def test_a_sigint_the_users_code_sends_itself_is_its_fault(tmp_path):
    """It reached the audit's process alone (pdp-audit was never interrupted): "interrupted", exit 130, before."""
    line = one_line_exit_2(
        cli(user(tmp_path, "import signal; os.kill(os.getpid(), signal.SIGINT)"), *command("blackbox"))
    )
    assert "the code of mine:make was interrupted by a SIGINT that did not reach pdp-audit" in line
