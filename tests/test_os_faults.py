"""Conditions of the operating system -- a full disk, a read-only file system, a loop of symbolic links, a lock
file that is a directory, a scheduler address that is none -- are one line naming the path, exit 2, and what was
already published is kept (issue 27, item 4; each was exit 4 with a traceback on main).

Faults are injected by monkeypatching (``os.replace``, the PDF writer's ``write``, ``sys.stdout``, ``os.write``,
the store's insert); standard output on a full disk is also tried on a real tmpfs where one can be mounted (root).
A read-only store is simulated by a ``-shm`` path SQLite cannot create.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pdp_audit.cli.main import main
from pdp_audit.sweeps.store import Store, load_results
from tests.sweep_toy import make_toy_store

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RUN = ["run", "gaussian", "--trials", "2000", "--quiet"]
ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


def _no_temporaries(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if ".pdp-" in p.name]


@pytest.fixture
def published(tmp_path, monkeypatch):
    """A folder holding an earlier report (PDF, JSON, CSV) that a failing write must leave as it was."""
    monkeypatch.chdir(tmp_path)
    for name in ("r.pdf", "r.json", "r.csv"):
        (tmp_path / name).write_text(f"earlier {name}\n")
    return tmp_path


def _unchanged(folder: Path) -> None:
    for name in ("r.pdf", "r.json", "r.csv"):
        assert (folder / name).read_text() == f"earlier {name}\n", name
    _no_temporaries(folder)


def _replace_fails(monkeypatch, code: int) -> None:
    def refuse(source, target, *args, **kwargs):
        raise OSError(code, os.strerror(code), str(source))

    monkeypatch.setattr(os, "replace", refuse)


def _pdf_writer_fails(monkeypatch) -> None:
    """matplotlib's PDF file runs out of space mid-page (and again while closing, as on a real full disk)."""
    from matplotlib.backends import backend_pdf

    def full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(backend_pdf.PdfFile, "write", full)


def _pdf_stand_in(monkeypatch) -> None:
    """The run's PDF rendered as a few bytes: where renaming the files into place fails, the PDF's pages are not
    the subject (rendering them was 2.4 of the 4 CPU seconds of such a test); the writer's faults render for real."""
    from pdp_audit.reports import pdf

    monkeypatch.setattr(pdf, "render_pdf", lambda run, path: Path(path).write_bytes(b"%PDF-1.4 stand-in\n"))


# one errno in the fast run: the others take the same path
@pytest.mark.parametrize(
    "code", [errno.ENOSPC, *(pytest.param(c, marks=pytest.mark.slow) for c in (errno.EROFS, errno.ELOOP))]
)
def test_run_reports_failing_to_publish_are_one_line_and_keep_the_earlier_files(code, published, monkeypatch, capsys):
    _pdf_stand_in(monkeypatch)
    _replace_fails(monkeypatch, code)
    assert main([*RUN, "--report", "r.pdf", "--json", "r.json"]) == 2
    err = _one_line(capsys)
    assert "cannot write 'r.pdf'" in err and os.strerror(code) in err and "unchanged" in err, err
    _unchanged(published)


@pytest.mark.parametrize("earlier", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_a_second_output_failing_to_publish_takes_the_first_back(earlier, published, monkeypatch, capsys):
    """main renamed the PDF into place, then failed to rename the JSON: a new PDF beside the earlier JSON (or a
    PDF alone), i.e. two files that describe different runs.  Every output is published, or none."""
    if not earlier:
        for name in ("r.pdf", "r.json"):
            (published / name).unlink()
    real = os.replace

    def second_fails(source, target, *args, **kwargs):
        if str(target).endswith("r.json"):
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(target))
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", second_fails)
    _pdf_stand_in(monkeypatch)
    assert main([*RUN, "--report", "r.pdf", "--json", "r.json"]) == 2
    assert "cannot write 'r.json'" in _one_line(capsys)
    if earlier:
        _unchanged(published)
    else:
        assert not (published / "r.pdf").exists() and not (published / "r.json").exists()
        _no_temporaries(published)


def test_a_full_disk_while_the_pdf_is_rendered_is_one_line_naming_the_pdf(published, monkeypatch, capsys):
    _pdf_writer_fails(monkeypatch)
    assert main([*RUN, "--report", "r.pdf", "--json", "r.json"]) == 2
    err = _one_line(capsys)
    assert err.startswith("pdp-audit: error: --report: cannot write 'r.pdf': No space left on device"), err
    _unchanged(published)


def test_certify_on_a_full_disk_keeps_the_earlier_certificate(published, monkeypatch, capsys):
    shutil.copy(EXAMPLES / "deploy-data.csv", published / "deploy-data.csv")
    text = (EXAMPLES / "deploy-gaussian.toml").read_text(encoding="utf-8").replace("trials = 1e6", "trials = 2e3")
    (published / "deploy.toml").write_text(text, encoding="utf-8")
    _pdf_writer_fails(monkeypatch)
    assert main(["certify", "deploy.toml", "--report", "r.pdf", "--json", "r.json", "--quiet"]) == 2
    assert "--report: cannot write 'r.pdf'" in _one_line(capsys)
    _unchanged(published)


@pytest.mark.parametrize("fault", ["replace", "pdf"])
def test_report_of_a_store_on_a_full_disk_keeps_pdf_json_and_csv(fault, published, monkeypatch, capsys):
    store = make_toy_store(published / "toy.sqlite")
    _replace_fails(monkeypatch, errno.ENOSPC) if fault == "replace" else _pdf_writer_fails(monkeypatch)
    assert main(["report", str(store), "-o", "r.pdf", "--json", "r.json", "--csv", "r.csv", "--quiet"]) == 2
    assert "cannot write 'r.pdf': No space left on device" in _one_line(capsys)
    _unchanged(published)


def test_a_full_disk_behind_standard_output_is_one_line(published, monkeypatch, capsys):
    store = make_toy_store(published / "toy.sqlite")

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("sys.stdout", Full())
    assert main(["report", str(store), "-o", "none", "--csv", "-", "--quiet"]) == 2
    assert "cannot write standard output: No space left on device" in _one_line(capsys)


@pytest.fixture
def nearly_full_tmpfs(tmp_path):
    """A real 64 KiB tmpfs with 8 KiB left (root only: skipped where it cannot be mounted); unmounted afterwards."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        (mount / "fill").write_bytes(b"\0" * (56 * 1024))
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_standard_output_filling_a_real_disk_is_exit_2_not_a_truncated_document(nearly_full_tmpfs):
    """main exited 0 with the first 8 KiB of the document: Python's buffered stdout lost the ENOSPC at exit."""
    command = [sys.executable, "-m", "pdp_audit.cli", "schema"]
    assert len(subprocess.run(command, capture_output=True).stdout) > 8 * 1024  # more than the disk has left
    with open(nearly_full_tmpfs / "schema.json", "wb") as sink:
        done = subprocess.run(command, stdout=sink, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "pdp-audit: error: cannot write standard output: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["run", "--help"], ["run", "laplace", "--help"]])
def test_help_on_a_full_disk_is_one_line_and_exit_2(argv, buffered):
    """A help or version text on a full disk (/dev/full): argparse dropped the failed write (unbuffered standard
    output) or Python's flush at the end failed silently (buffered), and the command exited 0 with nothing
    written."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | (
        {} if buffered else {"PYTHONUNBUFFERED": "1"}
    )
    with open("/dev/full", "w") as full:
        command = [sys.executable, "-m", "pdp_audit.cli", *argv]
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, env=env)
    assert (done.returncode, done.stderr) == (
        2,
        "pdp-audit: error: cannot write standard output: No space left on device\n",
    )


PROGRAM = """
import numpy as np

def noisy_sum(data, rng):
    return float(np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)
"""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("command", ["list", "program"])
def test_a_commands_lines_on_a_full_disk_are_one_line_and_exit_2(tmp_path, command):
    """A command's verdict lines to /dev/full (issue 72): Python's flush at the end failed with "Exception ignored
    … OSError" and exit 120 (``pdp-audit blackbox … > /dev/full``)."""
    (tmp_path / "stats.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "d.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    argv = {
        "list": ["list"],
        "program": ["program", "stats:noisy_sum", "--data", "d.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
        + ["--bounds", "0,1", "--trials", "2000", "--report", "none", "--law", "ideal"],
    }[command]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "pdp_audit.cli", *argv], stdout=full, stderr=subprocess.PIPE, text=True, cwd=tmp_path
        )
    assert (done.returncode, done.stderr) == (
        2,
        "pdp-audit: error: cannot write standard output: No space left on device\n",
    )


def _stdout_to_a_file(monkeypatch, tmp_path, fake_write) -> Path:
    """sys.stdout on a real file (it has a descriptor), whose writes go through ``fake_write(real, fd, data)``."""
    path = tmp_path / "stdout.txt"
    sink = open(path, "w", encoding="utf-8")
    monkeypatch.setattr("sys.stdout", sink)
    real = os.write
    monkeypatch.setattr(
        os, "write", lambda fd, data: fake_write(real, fd, data) if fd == sink.fileno() else real(fd, data)
    )
    return path


def test_short_writes_to_standard_output_deliver_every_byte(tmp_path, monkeypatch, capsys):
    path = _stdout_to_a_file(monkeypatch, tmp_path, lambda real, fd, data: real(fd, bytes(data[:7])))
    assert main(["schema"]) == 0
    from pdp_audit.reports.json_report import run_schema_text

    assert path.read_text(encoding="utf-8") == run_schema_text()


def test_a_full_disk_after_part_of_standard_output_is_one_line(tmp_path, monkeypatch, capsys):
    taken = []

    def fills(real, fd, data):
        if taken:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        taken.append(real(fd, bytes(data[:4096])))
        return taken[-1]

    _stdout_to_a_file(monkeypatch, tmp_path, fills)
    assert main(["schema"]) == 2
    assert "cannot write standard output: No space left on device" in _one_line(capsys)


def test_the_csv_alone_on_a_full_disk_keeps_the_earlier_csv(published, monkeypatch, capsys):
    store = make_toy_store(published / "toy.sqlite")
    real = Path.write_text

    def full(self, text, *args, **kwargs):
        if ".r.csv." in self.name:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["report", str(store), "-o", "none", "--json", "r.json", "--csv", "r.csv", "--quiet"]) == 2
    assert "--csv: cannot write 'r.csv'" in _one_line(capsys)
    _unchanged(published)  # the JSON was complete, but nothing is published unless everything is


SMALL_SWEEP = (
    '[sweep]\nmechanism = "gaussian"\nchecks = ["loss-law"]\n[fixed]\ntrials = 2000\nsynthetic = "50,3"\n'
    "[grid]\nclaim_epsilon = [0.5, 1.0, 2.0]\n"
)


def test_a_store_filling_the_disk_mid_sweep_keeps_its_cells_and_resumes(tmp_path, monkeypatch, capsys):
    (tmp_path / "s.toml").write_text(SMALL_SWEEP)
    real, calls = Store._insert, []

    def full_after_one(self, *args):
        calls.append(1)
        if len(calls) > 1:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, *args)

    monkeypatch.setattr(Store, "_insert", full_after_one)
    sweep = ["sweep", str(tmp_path / "s.toml"), "--store", str(tmp_path / "s.sqlite"), "--workers", "1", "--quiet"]
    assert main(sweep) == 2
    err = _one_line(capsys)
    assert "database or disk is full; the 1 cells committed before are kept" in err and "--resume" in err, err
    monkeypatch.setattr(Store, "_insert", real)
    assert main([*sweep, "--resume"]) in (0, 3)
    assert len(load_results(tmp_path / "s.sqlite").cells) == 3


def test_a_store_that_cannot_be_created_leaves_no_file(tmp_path, monkeypatch, capsys):
    """main left a 0-byte (or partial) store behind when the disk filled while the store was being created."""
    (tmp_path / "s.toml").write_text(SMALL_SWEEP)

    def full(self, spec):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "_create", full)
    sweep = ["sweep", str(tmp_path / "s.toml"), "--store", str(tmp_path / "s.sqlite"), "--workers", "1", "--quiet"]
    assert main(sweep) == 2
    assert "cannot write the store: database or disk is full" in _one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]  # no store, and no s.sqlite.lock either


def test_a_store_whose_creation_fails_leaves_no_wal_or_shm_beside_it(tmp_path, monkeypatch, capsys):
    """On a full tmpfs (hostile pass 4) SQLite could not remove its -wal and -shm on close: the failed creation
    removed the store and left those two behind.  Here the failing creation leaves them as the full disk did."""
    (tmp_path / "s.toml").write_text(SMALL_SWEEP)

    def full(self, spec):
        for suffix in ("-wal", "-shm"):
            Path(self.path + suffix).write_bytes(b"\0" * 32)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Store, "_create", full)
    sweep = ["sweep", str(tmp_path / "s.toml"), "--store", str(tmp_path / "s.sqlite"), "--workers", "1", "--quiet"]
    assert main(sweep) == 2
    _one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_a_file_refused_as_a_store_gets_no_lock_file_beside_it(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(SMALL_SWEEP)
    (tmp_path / "notes.txt").write_text("my notes\n")
    sweep = ["sweep", str(tmp_path / "s.toml"), "--store", str(tmp_path / "notes.txt"), "--workers", "1", "--quiet"]
    assert main(sweep) == 2 and "notes.txt" in _one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "s.toml"]
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"


@pytest.mark.parametrize(
    "argv",
    [
        [*RUN, "--report", "loop", "--json", "r.json"],
        [*RUN, "--report", "none", "--json", "loop"],
        ["tau", "--d", "3", "--rho", "0.1", "--json", "loop"],
        ["report", "toy.sqlite", "-o", "none", "--csv", "loop"],
        ["mutants", "--quick", "--json", "loop"],
    ],
)
def test_an_output_that_is_a_loop_of_links_is_refused_before_any_work(argv, published, monkeypatch, capsys):
    make_toy_store(published / "toy.sqlite")
    os.symlink("loop2", published / "loop")
    os.symlink("loop", published / "loop2")
    monkeypatch.setattr("pdp_audit.verify.core.plan.AuditPlan.execute", _no_work)
    assert main(argv) == 2
    assert "'loop' is a loop of symbolic links" in _one_line(capsys)
    _unchanged(published)


def _no_work(*args, **kwargs):
    raise AssertionError("an audit ran although an output could not be written")


def test_a_lock_file_that_is_a_directory_is_one_line(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\nsynthetic = "50,3"\n')
    (tmp_path / "s.sqlite.lock").mkdir()
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"), "--quiet"]) == 2
    err = _one_line(capsys)
    assert "cannot open its lock file" in err and "s.sqlite.lock" in err and "Is a directory" in err, err


@pytest.mark.parametrize("address", ["not a url", "tcp://host:notaport", "inproc://x", "tcp://h:99999", ""])
def test_a_scheduler_address_that_is_none_is_refused_before_a_store_is_made(address, tmp_path, capsys):
    pytest.importorskip("distributed")
    spec = tmp_path / "s.toml"
    spec.write_text('[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\nsynthetic = "50,3"\n')
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"), "--scheduler", address]) == 2
    assert "--scheduler" in _one_line(capsys)
    assert not list(tmp_path.glob("s.sqlite*"))


def _sqlite_as_on_read_only_media(monkeypatch) -> None:
    """SQLite as it behaves on a read-only mount: a WAL store opened ``mode=ro`` fails at its first read with
    SQLITE_CANTOPEN ("unable to open database file": its ``-shm`` file cannot be created there) unless it is
    opened as immutable (measured on a read-only tmpfs; :func:`test_a_store_on_a_real_read_only_mount_is_read`)."""
    real = sqlite3.connect

    class ReadOnlyMedia:
        def __init__(self, connection):
            self._connection = connection

        def execute(self, *args):
            raise sqlite3.OperationalError("unable to open database file")

        def __getattr__(self, name):
            return getattr(self._connection, name)

    def connect(database, *args, **kwargs):
        connection = real(database, *args, **kwargs)
        text = str(database)
        return ReadOnlyMedia(connection) if "mode=ro" in text and "immutable=1" not in text else connection

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_a_valid_store_on_read_only_media_is_read(tmp_path, monkeypatch, capsys):
    """main said 'is not a pdp-audit sweep store'."""
    store = make_toy_store(tmp_path / "toy.sqlite")
    _sqlite_as_on_read_only_media(monkeypatch)
    assert len(load_results(store).cells) == 4
    assert main(["report", str(store), "-o", str(tmp_path / "r.pdf"), "--quiet"]) == 0
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_a_store_on_read_only_media_with_a_log_left_is_unreadable_not_foreign(tmp_path, monkeypatch, capsys):
    """A write-ahead log beside it may hold committed cells: immutable reading would skip them, so it is refused,
    as unreadable."""
    store = make_toy_store(tmp_path / "toy.sqlite")
    (tmp_path / "toy.sqlite-wal").write_bytes(b"")
    _sqlite_as_on_read_only_media(monkeypatch)
    assert main(["report", str(store), "-o", "none"]) == 2
    err = _one_line(capsys)
    assert "cannot read the store: unable to open database file" in err and "not a pdp-audit" not in err, err


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a read-only tmpfs: needs root")
def test_a_store_on_a_real_read_only_mount_is_read(tmp_path, capsys):
    import subprocess

    store = make_toy_store(tmp_path / "toy.sqlite")
    media = tmp_path / "media"
    media.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(media)], capture_output=True).returncode:
        pytest.skip("mount is not permitted here")
    try:
        shutil.copy(store, media / "toy.sqlite")
        subprocess.run(["mount", "-o", "remount,ro", str(media)], check=True, capture_output=True)
        assert main(["report", str(media / "toy.sqlite"), "-o", str(tmp_path / "r.pdf"), "--quiet"]) == 0
        (tmp_path / "s.toml").write_text(SMALL_SWEEP)
        assert main(["sweep", str(tmp_path / "s.toml"), "--store", str(media / "new.sqlite")]) == 2
        assert "Read-only file system" in _one_line(capsys)
    finally:
        subprocess.run(["umount", "-l", str(media)], capture_output=True)  # lazily: never leave a mount behind


def test_a_store_that_cannot_be_read_is_named_as_such_not_as_a_foreign_file(tmp_path, monkeypatch, capsys):
    store = make_toy_store(tmp_path / "toy.sqlite")

    def cannot_open(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr("pdp_audit.sweeps.store._connect", cannot_open)
    assert main(["report", str(store), "-o", "none"]) == 2
    err = _one_line(capsys)
    assert "cannot read the store: disk I/O error" in err and "not a pdp-audit sweep store" not in err, err


def test_no_folder_is_made_for_a_store(tmp_path):
    """docs/explanation/reliability.md promises exit 2 for a missing folder; the store itself made one
    (Store.for_sweep's mkdir)."""
    from pdp_audit.sweeps.schema import SpecError
    from tests.sweep_toy import parse_toy_spec, toy_spec

    with pytest.raises(SpecError, match="does not exist"):
        Store.for_sweep(tmp_path / "missing" / "s.sqlite", parse_toy_spec(toy_spec(1, 0.0)), resume=False)
    assert not (tmp_path / "missing").exists()


def test_the_plugin_report_on_a_full_disk_is_one_line_and_keeps_the_earlier_report(pytester, monkeypatch):
    """The session report's JSON and PDF were written one after the other; an OS error was pytest's INTERNALERROR."""
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    pytester.makeconftest(  # os.replace full from the conftest's import to the end of the session, then given back
        "import errno, os\n\n"
        "REPLACE = os.replace\n\n"
        "def _full(*args, **kwargs):\n"
        "    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))\n\n"
        "def pytest_unconfigure(config):\n"
        "    os.replace = REPLACE\n\n"
        "os.replace = _full\n"
    )
    (pytester.path / "audit.json").write_text("earlier\n")
    (pytester.path / "audit.pdf").write_text("earlier\n")
    # in this process: the report's writing is the subject, not a process boundary; its pages are not (a stand-in)
    from matplotlib.figure import Figure

    from pdp_audit.reports import audit_session

    monkeypatch.setattr(audit_session, "save_pages", lambda pdf, pages: pdf.savefig(Figure()))
    replace = os.replace
    monkeypatch.setattr(os, "replace", replace)  # given back at teardown, whatever the session left
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--audit-report", "audit.pdf")
    assert os.replace is replace
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "pdp-audit: --audit-report: cannot write" in output and "No space left on device" in output, output
    assert "INTERNALERROR" not in output and "Traceback" not in output, output
    assert (pytester.path / "audit.json").read_text() == "earlier\n"
    assert (pytester.path / "audit.pdf").read_text() == "earlier\n"
