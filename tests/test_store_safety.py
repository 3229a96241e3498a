"""The sweep store is never damaged by its readers, never written by two sweeps, and a damaged one is one line."""

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from pdp_audit.cli.main import main
from pdp_audit.sweeps.executors import SerialExecutor
from pdp_audit.sweeps.schema import SpecError
from pdp_audit.sweeps.spec import run_sweep
from pdp_audit.sweeps.store import Store, load_results
from tests.sweep_toy import parse_toy_spec, toy_spec

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def store_path(tmp_path):
    spec = parse_toy_spec(toy_spec(4, 0.0))
    path = tmp_path / "toy.sqlite"
    store = Store.for_sweep(path, spec, resume=False)
    try:
        run_sweep(spec, store, SerialExecutor())
    finally:
        store.close()
    return path


def test_reading_a_store_changes_no_byte_of_it(store_path):
    before = _digest(store_path)
    assert len(load_results(store_path).cells) == 4
    assert _digest(store_path) == before


def test_report_leaves_a_foreign_sqlite_file_as_it_was(tmp_path, capsys):
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t (x)")
    before = _digest(foreign)
    assert main(["report", str(foreign), "-o", str(tmp_path / "r.pdf")]) == 2
    assert "is not a pdp-audit sweep store" in capsys.readouterr().err
    assert _digest(foreign) == before
    with sqlite3.connect(foreign) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL


def test_report_on_an_empty_file_writes_nothing_into_it(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    assert main(["report", str(empty)]) == 2
    assert empty.stat().st_size == 0 and capsys.readouterr().err.count("\n") == 1


def _damage_pages(source, target):
    data = bytearray(source.read_bytes())
    size = int.from_bytes(data[16:18], "big")  # SQLite's page size, from the header
    for page in range(1, len(data) // size):  # every page but the first: the tables are garbage now
        data[page * size : (page + 1) * size] = b"\xff" * size
    target.write_bytes(bytes(data))


def _damage_json(source, target):
    target.write_bytes(source.read_bytes())
    with sqlite3.connect(target) as db:
        db.execute("UPDATE cells SET checks = '{not json' WHERE position = 0")
    sqlite3.connect(target).close()


@pytest.mark.parametrize("damage", [_damage_pages, _damage_json])
def test_a_damaged_store_is_one_line_exit_2(damage, store_path, tmp_path, capsys):
    damaged = tmp_path / "damaged.sqlite"
    damage(store_path, damaged)
    assert main(["report", str(damaged), "-o", str(tmp_path / "r.pdf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged.sqlite" in err and "Traceback" not in err


def test_report_refuses_to_write_over_the_store(store_path, capsys):
    before = _digest(store_path)
    assert main(["report", str(store_path), "-o", str(store_path)]) == 2
    assert "is the store itself" in capsys.readouterr().err and _digest(store_path) == before


def test_a_second_sweep_on_the_same_store_is_refused(tmp_path):
    spec = parse_toy_spec(toy_spec(2, 0.0))
    path = tmp_path / "locked.sqlite"
    first = Store.for_sweep(path, spec, resume=False)
    try:
        with pytest.raises(SpecError, match="another pdp-audit sweep is writing it"):
            Store.for_sweep(path, spec, resume=True)
    finally:
        first.close()
    Store.for_sweep(path, spec, resume=True).close()  # released when the first one closed


def _spellings(store_path, suffix):
    """The same companion file of the store under every spelling a user may give: name, ./name, absolute path,
    a symbolic link to it, a hard link to it (made only when the companion exists)."""
    companion = store_path.parent / (store_path.name + suffix)
    os.symlink(companion.name, store_path.parent / f"sym{suffix}.json")
    names = [companion.name, f"./{companion.name}", str(companion), f"sym{suffix}.json"]
    if companion.exists():
        os.link(companion, store_path.parent / f"hard{suffix}.json")
        names.append(f"hard{suffix}.json")
    return names


@pytest.fixture
def store_with_log(store_path, monkeypatch):
    """A store whose last commit is still in its write-ahead log only (a writer is open and has not checkpointed)."""
    monkeypatch.chdir(store_path.parent)
    writer = sqlite3.connect(store_path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")  # as a sweep writing it (a finished store is one file again)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO meta VALUES ('note', '\"only in the log\"')")
    assert (store_path.parent / "toy.sqlite-wal").stat().st_size > 0
    yield store_path
    writer.close()


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal", ".lock"])
@pytest.mark.parametrize("option", ["--json", "--csv", "-o"])
def test_report_refuses_the_files_beside_the_store_as_outputs(suffix, option, store_with_log, capsys):
    folder = store_with_log.parent
    for name in _spellings(store_with_log, suffix):
        before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
        assert main(["report", "toy.sqlite", "-o", "none", option, name, "--quiet"]) == 2, name
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "of the store this command reads" in err, err
        assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    with sqlite3.connect(store_with_log) as db:  # the cell only in the log is still there
        assert db.execute("SELECT value FROM meta WHERE key = 'note'").fetchone() is not None


def test_sweep_refuses_the_files_beside_its_store_as_outputs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    spec = Path(__file__).resolve().parents[1] / "examples" / "sweep-small.toml"
    for outputs in (["--json", "S.sqlite-wal"], ["--report", "S.sqlite.lock"], ["--json", f"{tmp_path}/S.sqlite-shm"]):
        assert main(["sweep", str(spec), "--store", "S.sqlite", "--quiet", *outputs]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "of the store this command reads" in err, err
        assert list(tmp_path.iterdir()) == []  # refused before the store was made


def test_a_second_sweep_through_a_hard_link_of_the_store_is_refused(tmp_path):
    spec = parse_toy_spec(toy_spec(2, 0.0))
    path = tmp_path / "locked.sqlite"
    first = Store.for_sweep(path, spec, resume=False)
    os.link(path, tmp_path / "other-name.sqlite")  # another name, hence another .lock: the inode is locked
    try:
        with pytest.raises(SpecError, match="another pdp-audit sweep is writing it"):
            Store.for_sweep(tmp_path / "other-name.sqlite", spec, resume=True)
        assert not (tmp_path / "other-name.sqlite.lock").exists()  # the refused sweep's own lock file is gone
    finally:
        first.close()
    Store.for_sweep(tmp_path / "other-name.sqlite", spec, resume=True).close()  # released when the first closed
