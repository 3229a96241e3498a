"""Defects found by the third hostile pass over issue 27's classes (each test fails on the code before its fix).

Budgets are small (2e4 draws per world); the user's mechanism is a Gaussian shift written as a module in a
temporary folder, beside its deployment file.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pdp_audit.cli.main import main

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

pytest_plugins = ["pytester"]

#: A white-box pair N(0, 5²) vs N(1, 5²) whose factory reads the file its parameter ``source`` names.
SHIFT = textwrap.dedent(
    """
    import numpy as np

    class Shift:
        output_dim = 1
        def __init__(self, shift=1.0, width=1):
            self.shift, self.output_dim = shift, width
        def sample(self, world, size, rng):
            outputs = 5.0 * rng.standard_normal((size, self.output_dim))
            outputs[:, 0] += 0.0 if world == "D" else self.shift
            return outputs
        def privacy_loss(self, outputs):
            o = np.asarray(outputs)[:, 0]
            return ((o - self.shift) ** 2 - o ** 2) / 50.0

    def make(source=None, width=1):
        if source is not None:
            np.genfromtxt(source, delimiter=",", names=True)  # read as the user's code reads its data
        return Shift(width=width)
    """
)
DEPLOY = """mechanism = "shift:make"
[claim]
epsilon = 1.0
delta = 1e-5
[parameters]
{parameters}
[audit]
trials = 2e4
law = "ideal"
"""


def project(folder: Path, parameters: str = "", module: str = SHIFT) -> Path:
    """``shift.py``, ``people.csv`` and ``deploy.toml`` in ``folder``; returns the deployment file."""
    (folder / "shift.py").write_text(module, encoding="utf-8")
    (folder / "people.csv").write_text("age,label\n" + "".join(f"{i / 50:.2f},{i % 2}\n" for i in range(50)))
    toml = folder / "deploy.toml"
    toml.write_text(DEPLOY.format(parameters=parameters), encoding="utf-8")
    return toml


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- data loss: a file the user's code read is an input ------------------------------------------------------------


@pytest.mark.tier2(representatives=("--json",))
@pytest.mark.parametrize("option", ["--json", "--report"])
def test_certify_never_writes_over_a_file_the_factory_read_through_a_parameter_not_named_data(
    tmp_path, monkeypatch, capsys, option
):
    """``source = "people.csv"`` is read by the user's factory, not pinned as ``data``: the old code wrote the
    certificate over it (the user's data destroyed, exit 0)."""
    toml = project(tmp_path, parameters=f'source = "{tmp_path / "people.csv"}"')
    monkeypatch.chdir(tmp_path)
    before = digest(tmp_path / "people.csv")
    other = "--report" if option == "--json" else "--json"
    code = main(["certify", str(toml), option, "./people.csv", other, str(tmp_path / "other.out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "a file this command read" in err and err.count("\n") == 1, err
    assert digest(tmp_path / "people.csv") == before
    assert not (tmp_path / "other.out").exists()  # every output or none


@pytest.mark.tier2
def test_certify_still_writes_outputs_the_command_never_read(tmp_path, monkeypatch):
    toml = project(tmp_path, parameters='source = "people.csv"')
    monkeypatch.chdir(tmp_path)
    assert main(["certify", str(toml), "--json", "cert.json", "--report", "none", "--quiet"]) == 3
    assert (tmp_path / "cert.json").stat().st_size > 0


@pytest.mark.tier2
def test_blackbox_never_writes_over_a_file_its_sampler_read(tmp_path, monkeypatch, capsys):
    (tmp_path / "sampler_reads.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            class S:
                def sample(self, world, size, rng):
                    shift = np.loadtxt("shift.txt")  # read mid-audit, after the factory returned
                    return rng.standard_normal((size, 1)) + (0.0 if world == "D" else float(shift))
            def make():
                return S()
            """
        )
    )
    (tmp_path / "shift.txt").write_text("1.0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["blackbox", "sampler_reads:make", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2e3"]
    assert main([*argv, "--json", "shift.txt"]) == 2
    assert "a file this command read" in capsys.readouterr().err
    assert (tmp_path / "shift.txt").read_text() == "1.0\n"


def test_the_session_report_never_replaces_a_file_a_test_read(pytester):
    """``--audit-report expected`` wrote expected.json over the fixture a test had just read (exit 0)."""
    pytester.makepyfile(test_fixture="import json\n\ndef test_f():\n    assert json.load(open('expected.json'))['k']\n")
    fixture = pytester.path / "expected.json"
    fixture.write_text('{"k": 1}')
    # in this process (the refusal is the plugin's, no process boundary; the xdist one below runs its own processes)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--audit-report", "expected")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "a file this command read" in output, output
    assert fixture.read_text() == '{"k": 1}'


# slow: fast elsewhere (xdist sessions: test_pytest_plugin's and test_plugin_outputs' xdist tests)
@pytest.mark.slow
def test_under_xdist_the_controller_knows_the_files_its_workers_tests_read(pytester):
    pytest.importorskip("xdist")
    pytester.makepyfile(test_fixture="import json\n\ndef test_f():\n    assert json.load(open('expected.json'))['k']\n")
    fixture = pytester.path / "expected.json"
    fixture.write_text('{"k": 1}')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--audit-report", "expected")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "a file this command read" in output, output
    assert fixture.read_text() == '{"k": 1}'
    os.remove(fixture)


# --- the user's code: a BaseException of theirs ---------------------------------------------------------------------
ESCAPES = "class Escape(BaseException):\n    pass\n\n"


@pytest.mark.parametrize(
    "factory",
    [
        "def make():\n    raise Escape('mine')\n",  # the factory
        "raise Escape('on import')\n\ndef make():\n    pass\n",  # the module, while imported
    ],
)
def test_a_base_exception_of_the_users_code_is_their_error_in_one_line(tmp_path, capsys, factory):
    """A ``BaseException`` subclass (not Exception, not SystemExit) escaped the boundary: Python's traceback and
    exit 1, which reads as "a guarantee fails"."""
    toml = project(tmp_path, module=ESCAPES + factory)
    assert main(["certify", str(toml), "--report", "none", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Escape" in err and "Traceback" not in err, err


def test_a_user_exception_is_their_error_after_dask_is_imported(tmp_path, capsys):
    """main, in the suite's order: importing dask.distributed installs tblib's pickling of exceptions with their
    chain; the InputError naming ``Escape`` (raised from None, Escape still its context) then could not be sent
    from the child (exit 4, "the audit's result could not be sent")."""
    pytest.importorskip("distributed")
    toml = project(tmp_path, module=ESCAPES + "raise Escape('on import')\n\ndef make():\n    pass\n")
    assert main(["certify", str(toml), "--report", "none", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Escape" in err and "Traceback" not in err, err


def test_a_base_exception_of_a_blackbox_factory_is_their_error_in_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "escaping.py").write_text(ESCAPES + "def make():\n    raise Escape('mine')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["blackbox", "escaping:make", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2e3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Escape" in err, err


# --- budgets: releases too wide for one block -----------------------------------------------------------------------
def test_releases_too_wide_for_this_machine_are_refused_before_any_draw(tmp_path, monkeypatch, capsys):
    """An ``output_dim`` of 200,000 died of MemoryError (exit 4) in the first probe under a 2 GB limit; here the
    limit is made 100 MB, where a block of 65,536 releases of 2,000 doubles (held four times: 4.2 GB) cannot fit."""
    import pdp_audit.verify.core.processes as processes
    from pdp_audit import certify_files

    monkeypatch.setattr(processes, "physical_memory", lambda: 100_000_000)
    # the limit is this process's: the certification runs here, not in the sandbox's child
    monkeypatch.setattr(certify_files, "run_isolated", lambda function, *args, target: function(*args))
    toml = project(tmp_path, parameters="width = 2000")
    assert main(["certify", str(toml), "--report", "none", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "output_dim 2,000" in err and "at most 35 dimensions" in err, err


def test_the_width_check_lets_every_width_that_fits_through(monkeypatch):
    import pdp_audit.verify.core.processes as processes
    from pdp_audit.verify.evidence.pair_validation import check_block_memory
    from pdp_audit.verify.inputs.validation import InputError

    monkeypatch.setattr(processes, "physical_memory", lambda: 100_000_000)  # 0.75 × 1e8 / (65,536 × 8 × 4) = 35.8
    check_block_memory(type("Pair", (), {"output_dim": 35})())
    with pytest.raises(InputError, match="output_dim 36"):
        check_block_memory(type("Pair", (), {"output_dim": 36})())


# --- standard output closed ----------------------------------------------------------------------------------------
def _cli_with_stdout_closed(tmp_path, *argv) -> subprocess.CompletedProcess:
    command = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "pdp_audit.cli", *argv))
    return subprocess.run(["bash", "-c", command + " >&-"], cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_json_to_a_closed_standard_output_is_refused_before_the_work(tmp_path):
    """``--json -`` with standard output closed (``>&-``) was AttributeError, exit 4, after the work."""
    for name, shift in (("in.csv", 1.0), ("out.csv", 0.0)):
        (tmp_path / name).write_text("score\n" + "".join(f"{shift + i / 100:.2f}\n" for i in range(100)))
    result = _cli_with_stdout_closed(
        tmp_path, "canaries", "--in-scores", "in.csv", "--out-scores", "out.csv", "--delta", "1e-5", "--json", "-"
    )
    assert result.returncode == 2 and "standard output ('-') is closed" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


@pytest.mark.tier2
def test_a_factory_that_closes_standard_output_or_leaves_a_thread_running_is_one_command(tmp_path):
    """``os.close(1)`` in the user's factory: the summary's print raised EBADF, exit 4.  A factory that starts a
    (non-daemon) thread that never ends: the certificate was written, then the command hung forever waiting for the
    thread at exit.  The factory now runs in a child process (verify/core/sandbox.py), so it closes the
    child's descriptor only -- the command's own standard output is intact and its summary is printed -- and the
    thread lives in that child, which ends once it has delivered its result.  One factory does both: each broke the
    command alone (with the factory run in the command's process the command fails either way)."""
    module = SHIFT.replace(
        "    if source is not None:",
        "    import os, threading, time\n    os.close(1)\n"
        "    threading.Thread(target=time.sleep, args=(3600,)).start()\n"
        "    if source is not None:",
    )
    toml = project(tmp_path, module=module)
    command = [sys.executable, "-m", "pdp_audit.cli", "certify", str(toml), "--report", "none"]
    command += ["--json", "c.json"]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 3 and "UNDECIDED" in result.stdout, result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "c.json").stat().st_size > 0


# --- contracts: a deployment's error names the file's key ----------------------------------------------------------
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize(
    "example, key",
    [
        ("deploy-gaussian.toml", "parameters.target_column"),
        ("deploy-joint.toml", "release[1].parameters.target_column"),
    ],
)
def test_a_bad_data_column_in_a_deployment_names_the_files_key(tmp_path, capsys, example, key):
    """The CSV reader's message named ``--target-column``, an option of another command, not the file's key."""
    (tmp_path / "deploy-data.csv").write_bytes((EXAMPLES / "deploy-data.csv").read_bytes())
    text = (EXAMPLES / example).read_text(encoding="utf-8").replace('target_column = "label"', 'target_column = "nope"')
    (tmp_path / "d.toml").write_text(text, encoding="utf-8")
    assert main(["certify", str(tmp_path / "d.toml"), "--report", "none", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"d.toml: {key} 'nope' is not a column" in err and "--target-column" not in err, err


def test_the_reads_recorded_are_the_opens_that_read_a_files_content(tmp_path):
    from pdp_audit.verify.core import outputs

    names = {"r": "r", "rb": "rb", "r+": "r+", "w": "w", "a": "a"}
    for name in [*names, "rdwr", "trunc", "creat"]:
        (tmp_path / name).write_text("x")
    outputs.record_reads()
    for name, mode in names.items():
        open(tmp_path / name, mode).close()
    for name, flags in (("rdwr", os.O_RDWR), ("trunc", os.O_RDWR | os.O_TRUNC), ("creat", os.O_RDWR | os.O_CREAT)):
        os.close(os.open(tmp_path / name, flags))
    read = {os.path.basename(p) for p in outputs.read_paths() if p.startswith(str(tmp_path))}
    assert read == {"r", "rb", "r+", "rdwr"}
    outputs.record_reads()  # a new command forgets them
    assert not [p for p in outputs.read_paths() if p.startswith(str(tmp_path))]


def test_examples_on_a_full_disk_leave_nothing_behind(tmp_path, monkeypatch, capsys):
    """16 of the 22 examples were left in the folder on a full 64 KiB tmpfs (the last one cut short), and the next
    attempt was refused because the folder was not empty."""
    import errno

    import pdp_audit.cli.examples as examples

    opened = []

    def full_disk_open(path, mode="r", *args, **kwargs):
        opened.append(path)
        if len(opened) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return open(path, mode, *args, **kwargs)

    monkeypatch.setattr(examples, "open", full_disk_open, raising=False)
    assert main(["examples", str(tmp_path / "new" / "ex")]) == 2
    assert "No space left on device; nothing was left there" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    monkeypatch.undo()
    assert main(["examples", str(tmp_path / "new" / "ex")]) == 0  # the next attempt is not refused
