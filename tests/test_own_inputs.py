"""No command writes over its own inputs, none publishes two outputs to one file, a replaced report keeps its
permissions, folders are never created, and a certificate fingerprints the bytes it audited."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from pdp_audit.cli.main import main

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SMALL_SWEEP = '[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\n[grid]\nclaim_epsilon = [1.0]\n'

#: A program audit's flags but its outputs: cheap, and never reached where the outputs are refused first.
PROGRAM_FLAGS = ["--data", "deploy-data.csv", "--claim-epsilon", "1", "--claim-delta", "0", "--trials", "200"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working folder with a deployment, its data, a sweep spec and a user's module."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path / "deploy-data.csv")
    text = (EXAMPLES / "deploy-gaussian.toml").read_text(encoding="utf-8").replace("trials = 1e6", "trials = 2e4")
    (tmp_path / "deploy.toml").write_text(text, encoding="utf-8")
    (tmp_path / "spec.toml").write_text(SMALL_SWEEP, encoding="utf-8")
    (tmp_path / "mymech.py").write_text(
        "class P:\n    def sample(self, world, size, rng):\n        return rng.normal(size=(size, 1))\n\n\n"
        "def make():\n    return P()\n",
        encoding="utf-8",
    )
    (tmp_path / "myprog.py").write_text("def release(data, rng):\n    return float(len(data))\n", encoding="utf-8")
    return tmp_path


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize(
    "argv, option, what",
    [
        (["run", "gaussian", "--data", "deploy-data.csv", "--json", "deploy-data.csv"], "--json", "the data file"),
        (["run", "gaussian", "--data", "deploy-data.csv", "--report", "deploy-data.csv"], "--report", "the data file"),
        (["certify", "deploy.toml", "--json", "deploy.toml"], "--json", "the deployment file"),
        (["certify", "deploy.toml", "--report", "deploy.toml"], "--report", "the deployment file"),
        (["certify", "deploy.toml", "--json", "deploy-data.csv"], "--json", "the deployed data"),
        (["sweep", "spec.toml", "--json", "spec.toml"], "--json", "the sweep spec"),
        (["sweep", "spec.toml", "--store", "spec.toml"], "--store", "the sweep spec"),
        (["sweep", "spec.toml", "--report", "spec.toml"], "--report", "the sweep spec"),
        (
            ["blackbox", "mymech:make", "--claim-epsilon", "1", "--claim-delta", "0", "--json", "mymech.py"],
            "--json",
            "the module of TARGET",
        ),
        *(
            (["program", "myprog:release", *PROGRAM_FLAGS, option, path], option, "the module of TARGET")
            for option, path in (("--json", "myprog.py"), ("--report", "./myprog.py"))
        ),
        (
            [
                "benchmark",
                "linreg",
                "--data",
                "deploy-data.csv",
                "--target-column",
                "label",
                "--json",
                "deploy-data.csv",
            ],
            "--json",
            "the data file",
        ),
    ],
)
def test_an_output_naming_an_input_is_refused_before_anything_runs(folder, capsys, argv, option, what):
    before = snapshot(folder)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"pdp-audit: error: {option}: ") and what in err, err
    assert snapshot(folder) == before  # not one byte written, no file made


@pytest.fixture
def helper_modules(folder):
    """A target module that imports a helper module and a package (names unique to the test: sys.modules caches)."""
    tag = f"t{os.getpid()}_{abs(hash(str(folder)))}"
    (folder / f"helper_{tag}.py").write_text("X = 1\n", encoding="utf-8")
    (folder / f"pkg_{tag}").mkdir()
    (folder / f"pkg_{tag}" / "__init__.py").write_text("Y = 2\n", encoding="utf-8")
    (folder / f"target_{tag}.py").write_text(
        f"import helper_{tag}\nimport pkg_{tag}\nfrom mymech import make\n", encoding="utf-8"
    )
    yield tag
    for name in (f"helper_{tag}", f"pkg_{tag}", f"target_{tag}", "mymech"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("output", ["helper_{tag}.py", "pkg_{tag}/__init__.py", "link.json"])
def test_blackbox_refuses_to_write_over_a_module_its_target_imported(helper_modules, output, monkeypatch, capsys):
    from pdp_audit import use_cases
    from pdp_audit.verify.core.plan import KindPlan

    # the target's code here, not in the sandbox's child, so that the audit itself cannot start unnoticed
    monkeypatch.setattr(use_cases, "run_isolated", lambda function, *args, target: function(*args))
    monkeypatch.setattr(KindPlan, "execute", lambda *a, **k: pytest.fail("the audit ran"))
    os.symlink(f"pkg_{helper_modules}/__init__.py", "link.json")
    before = {p: p.read_bytes() for p in Path().rglob("*.py")}
    argv = ["blackbox", f"target_{helper_modules}:make", "--claim-epsilon", "1", "--claim-delta", "0"]
    assert main([*argv, "--json", output.format(tag=helper_modules)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "which this command imported; it would be overwritten" in err, err
    assert {p: p.read_bytes() for p in Path().rglob("*.py")} == before


def test_certify_refuses_to_write_over_a_module_its_mechanism_imported(helper_modules, capsys):
    (Path() / "own.toml").write_text(
        f'mechanism = "target_{helper_modules}:make"\n[claim]\nepsilon = 1.0\ndelta = 1e-5\n[audit]\ntrials = 2000\n',
        encoding="utf-8",
    )
    before = {p: p.read_bytes() for p in Path().rglob("*.py")}
    argv = ["certify", "own.toml", "--quiet", "--report", "none", "--json", f"helper_{helper_modules}.py"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "which this command imported; it would be overwritten" in err, err
    assert {p: p.read_bytes() for p in Path().rglob("*.py")} == before


def test_a_link_to_an_input_is_the_input(folder, capsys):
    os.symlink("deploy.toml", folder / "alias.toml")
    os.link(folder / "deploy-data.csv", folder / "hard.csv")
    assert main(["certify", "deploy.toml", "--json", "alias.toml"]) == 2
    assert "the deployment file" in capsys.readouterr().err
    assert main(["certify", "deploy.toml", "--report", "hard.csv"]) == 2
    assert "the deployed data" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["run", "gaussian", "--report", "same.out", "--json", "same.out"], "also the path of --report"),
        (["run", "gaussian", "--report", "-"], "a PDF cannot go to standard output"),
        (["run", "gaussian", "--report", "no/such/folder/x.pdf"], "the folder"),
        (["mutants", "--json", "m.out", "--report", "m.out"], "also the path of --json"),
    ],
)
def test_outputs_must_be_distinct_files_in_existing_folders(folder, capsys, argv, needle):
    before = snapshot(folder)
    assert main(argv) == 2
    assert needle in capsys.readouterr().err
    assert snapshot(folder) == before and not (folder / "no").exists()


def test_report_refuses_two_documents_on_standard_output(folder, capsys):
    assert main(["sweep", "spec.toml", "--quiet"]) in (0, 1, 3)
    assert main(["report", "spec.sqlite", "-o", "none", "--json", "-", "--csv", "-"]) == 2
    assert "--csv: '-' is also the path of --json" in capsys.readouterr().err


def test_a_replaced_report_keeps_its_permissions(folder):
    private = folder / "private.json"
    private.write_text("{}")
    private.chmod(0o600)
    assert main(["run", "gaussian", "--trials", "2000", "--report", "none", "--json", str(private), "--quiet"]) != 4
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and json.loads(private.read_text())["mechanism"] == "gaussian"
    fresh = folder / "fresh.json"
    assert main(["run", "gaussian", "--trials", "2000", "--report", "none", "--json", str(fresh), "--quiet"]) != 4
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_a_certificate_fingerprints_the_bytes_it_audited(folder, monkeypatch):
    """The data file is replaced after it was read, before the audit parses it: the certificate and the audit
    must both be about the bytes that were read (before: the hash and shape of one file, the audit of another)."""
    from pdp_audit.verify.core.plan import AuditPlan

    original = (folder / "deploy-data.csv").read_bytes()
    execute = AuditPlan.execute

    def replaced_then_executed(self, config, *args, **kwargs):
        rows = original.decode().splitlines()
        (folder / "deploy-data.csv").write_text("\n".join(rows[:11]) + "\n")  # ten rows instead of 300
        return execute(self, config, *args, **kwargs)

    monkeypatch.setattr(AuditPlan, "execute", replaced_then_executed)
    assert main(["certify", "deploy.toml", "--report", "none", "--json", "cert.json", "--quiet"]) == 0
    certified = json.loads((folder / "cert.json").read_text())
    assert certified["certified"]["data_sha256"] == hashlib.sha256(original).hexdigest()
    assert certified["certified"]["data_shape"][0] == 300
    assert certified["parameters"]["n_rows"] == 300  # the audit parsed the same bytes


def test_a_data_file_replaced_between_two_parses_is_refused(folder, monkeypatch, capsys):
    """A pinned file's bytes are hashed as they are parsed, not held: where the audit parses the file again (the
    fingerprint's parse not handed over) and finds other bytes, the run stops in one line, exit 2 -- never a
    certificate naming one file's digest beside the audit of another."""
    from pdp_audit.verify.core.plan import AuditPlan
    from pdp_audit.verify.inputs import datasets

    class Forgetful(dict):  # the hand-over cache that keeps nothing: the audit parses the file again
        def __setitem__(self, key, value) -> None:
            pass

    original = (folder / "deploy-data.csv").read_bytes()
    execute = AuditPlan.execute

    def replaced_then_executed(self, config, *args, **kwargs):
        rows = original.decode().splitlines()
        (folder / "deploy-data.csv").write_text("\n".join(rows[:11]) + "\n")
        return execute(self, config, *args, **kwargs)

    monkeypatch.setattr(datasets, "_PARSED", Forgetful())
    monkeypatch.setattr(AuditPlan, "execute", replaced_then_executed)
    assert main(["certify", "deploy.toml", "--report", "none", "--json", "cert.json", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "deploy-data.csv changed while it was being read" in err and err.count("\n") == 1, err
    assert not (folder / "cert.json").exists()


def test_one_writer_per_store_whatever_the_path_spelling(tmp_path):
    from pdp_audit.sweeps.schema import SpecError
    from pdp_audit.sweeps.writer_lock import lock_store

    (tmp_path / "real.sqlite").write_bytes(b"")
    os.symlink("real.sqlite", tmp_path / "link.sqlite")
    held = lock_store(str(tmp_path / "real.sqlite"))
    try:
        with pytest.raises(SpecError, match="another pdp-audit sweep is writing it"):
            lock_store(str(tmp_path / "link.sqlite"))
        with pytest.raises(SpecError):
            lock_store(str(tmp_path / "." / "real.sqlite"))
    finally:
        held.close()


@pytest.mark.parametrize(
    "signal_name",
    ["SIGTERM", pytest.param("SIGKILL", marks=pytest.mark.slow), pytest.param("SIGHUP", marks=pytest.mark.slow)],
)
def test_workers_of_run_die_with_it(tmp_path, signal_name):
    """`run --workers 2` killed by a signal: its worker processes exit too (they kept running, orphaned)."""
    import signal
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    argv = [sys.executable, "-m", "pdp_audit.cli", "run", "gaussian", "--workers", "2", "--trials", "1e8"]
    process = subprocess.Popen([*argv, "--report", "none", "--quiet"], cwd=tmp_path)
    deadline = time.time() + 60
    workers = []
    while time.time() < deadline and len(workers) < 2:
        assert process.poll() is None
        workers = psutil.Process(process.pid).children(recursive=True)
        time.sleep(0.1)
    assert len(workers) >= 2, "the run started no workers"
    process.send_signal(getattr(signal, signal_name))
    process.wait(timeout=30)
    gone, alive = psutil.wait_procs(workers, timeout=15)
    for leftover in alive:  # clean up before failing
        leftover.kill()
    assert not alive, f"{len(alive)} worker(s) outlived the run"
    assert process.returncode == -getattr(signal, signal_name)  # after its cleanup, the run still ends by the signal


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="needs Linux's /proc")
def test_an_output_in_proc_is_named_as_the_kernel_file_system_it_is(tmp_path, capsys):
    """It said 'No such file or directory' of /proc/version, a file that exists."""
    assert main(["tau", "--d", "3", "--rho", "0.1", "--json", "/proc/version"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'/proc' is on the kernel's proc file system" in err, err
    assert "No such file" not in err
