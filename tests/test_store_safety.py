"""The sweep store is never damaged by its readers, never written by two sweeps, and a damaged one is one line."""

import hashlib
import sqlite3

import pytest

from pdp_audit.verify.cli.main import main
from pdp_audit.verify.sweeps.executors import SerialExecutor
from pdp_audit.verify.sweeps.schema import SpecError
from pdp_audit.verify.sweeps.spec import run_sweep
from pdp_audit.verify.sweeps.store import Store, load_results
from tests.sweep_toy import parse_toy_spec, toy_spec


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
