"""A damaged store is one line naming the cell and what is wrong (exit 2), for `report`, `sweep --resume` and the
API -- never an internal error (issue 27, item 8: each of these was exit 4 with a traceback)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pdp_audit.cli.main import main
from pdp_audit.sweeps.executors import SerialExecutor
from pdp_audit.sweeps.schema import SpecError
from pdp_audit.sweeps.spec import run_sweep
from pdp_audit.sweeps.store import Store, load_results
from tests.sweep_toy import parse_toy_spec, toy_spec


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    """A complete store of four toy cells."""
    path = tmp_path_factory.mktemp("good") / "toy.sqlite"
    spec = parse_toy_spec(toy_spec(4, 0.0))
    store = Store.for_sweep(path, spec, resume=False)
    try:
        run_sweep(spec, store, SerialExecutor())
    finally:
        store.close()
    return path


def _first_cell(db) -> tuple[str, list]:
    cell_id, checks = db.execute("SELECT cell_id, checks FROM cells ORDER BY position LIMIT 1").fetchone()
    return cell_id, json.loads(checks)


def _set_checks(db, change) -> None:
    cell_id, checks = _first_cell(db)
    change(checks[0])
    db.execute("UPDATE cells SET checks = ? WHERE cell_id = ?", (json.dumps(checks), cell_id))


def _set(column: str, value: str):
    def damage(db):
        db.execute(f"UPDATE cells SET {column} = ? WHERE cell_id = ?", (value, _first_cell(db)[0]))

    return damage


def _set_meta(key: str, value) -> callable:
    def damage(db):
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(value), key))

    return damage


def _spec_change(change):
    def damage(db):
        spec = json.loads(db.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()[0])
        change(spec)
        db.execute("UPDATE meta SET value = ? WHERE key = 'spec'", (json.dumps(spec),))

    return damage


def _insert_copy(db, cell_id: str) -> None:
    """A copy of the first cell's row under another id (a cell the spec does not have)."""
    columns = [row[1] for row in db.execute("PRAGMA table_info(cells)")]
    row = list(db.execute("SELECT * FROM cells ORDER BY position LIMIT 1").fetchone())
    row[columns.index("cell_id")] = cell_id
    db.execute(f"INSERT INTO cells VALUES ({', '.join('?' * len(row))})", row)


def _set_parameter(key: str, value):
    def damage(db):
        cell_id = _first_cell(db)[0]
        parameters = json.loads(db.execute("SELECT parameters FROM cells WHERE cell_id = ?", (cell_id,)).fetchone()[0])
        db.execute(
            "UPDATE cells SET parameters = ? WHERE cell_id = ?", (json.dumps({**parameters, key: value}), cell_id)
        )

    return damage


def _set_spec_cell(key: str, value):
    return _spec_change(lambda s: s["cells"][1].update({key: value}))


DAMAGES = {
    # the probe's five: an unknown verdict, checks null, a check without an id, parameters as a list, a string estimate
    "unknown cell verdict": (_set("verdict", "maybe"), "unknown verdict 'maybe'"),
    "checks null": (_set("checks", "null"), "its checks must be a list, got null"),
    "check without id": (lambda db: _set_checks(db, lambda c: c.pop("id")), "a check needs an id"),
    "parameters a list": (_set("parameters", "[1, 2]"), "its parameters must be a table, got a list"),
    "estimate a string": (
        lambda db: _set_checks(db, lambda c: c.update(estimate="0.5")),
        "its estimate must be a number or null, got '0.5'",
    ),
    # and their kin
    "unknown check verdict": (lambda db: _set_checks(db, lambda c: c.update(verdict="ok")), "unknown verdict 'ok'"),
    "ci of three": (lambda db: _set_checks(db, lambda c: c.update(ci=[1, 2, 3])), "its ci must be null or two"),
    "details a list": (lambda db: _set_checks(db, lambda c: c.update(details=[1])), "its details must be a table"),
    "checks not JSON": (_set("checks", "{oops"), "its checks is not JSON text"),
    "estimates a list": (_set("estimates", "[]"), "its estimates must be a table"),
    "a nested parameter": (_set("parameters", '{"x": [1], "sleep": 0.0}'), "parameter 'x' must be a single value"),
    "a swept parameter missing": (_set("parameters", '{"sleep": 0.0}'), "no value of the swept parameter 'x'"),
    "seed as text": (_set("seed", "seven"), "its seed must be a whole number"),
    "spec a list": (_set_meta("spec", [1]), "its spec: must be a table"),
    "spec cells null": (_spec_change(lambda s: s.update(cells=None)), "cells must be a list, got null"),
    "spec name a number": (_spec_change(lambda s: s.update(name=3)), "name must be text, got 3"),
    "spec swept a string": (_spec_change(lambda s: s.update(swept="x")), "swept must be a list of names"),
    "identity null": (_set_meta("identity", None), "its identity: must be a table, got null"),
    "spec source a number": (_set_meta("spec_source", 5), "its spec source: must be text"),
    "a newline in a verdict": (_set("verdict", "pass\npdp-audit: CERTIFIED"), "unknown verdict 'pass\\npdp-audit"),
    # cells the spec does not have (issue 27, D6: each was reported, e.g. PASS with 5 of 4 cells done)
    "an inserted cell": (lambda db: _insert_copy(db, "f" * 16), f"cell '{'f' * 16}': it is not one of the spec's 4"),
    "a renamed cell": (
        lambda db: db.execute("UPDATE cells SET cell_id = 'ab' WHERE position = 0"),
        "cell 'ab': it is not",
    ),
    "a parameter edited": (_set_parameter("x", 7), "its parameters do not match its id"),
    "a parameter of the wrong type": (_set_parameter("x", "two"), "its parameters do not match its id"),
    "spec mechanism unknown": (
        _spec_change(lambda s: s.update(mechanism="nope")),
        "not the hash of the mechanism 'nope'",
    ),
    "spec parameter edited": (_set_spec_cell("parameters", {"x": 9, "sleep": 0.0}), "its id is not the hash"),
    "spec cell id renamed": (_set_spec_cell("id", "0" * 16), "its id is not the hash"),
    "spec position duplicated": (_set_spec_cell("position", 0), "its position 0 is not a position of its own in 0 … 3"),
    "spec position out of range": (_set_spec_cell("position", 99), "its position 99 is not a position of its own"),
    "cell position moved": (_set("position", "3"), "its position is 3, the spec's cell has 0"),
    "cell position negative": (_set("position", "-5"), "its position is -5"),
    # issue 27, D11: a cell without checks was PASS with --json and exit 4 with a PDF
    "checks empty": (_set("checks", "[]"), "it has no checks"),
    # the third hostile pass: a verdict its checks do not decide was reported (PASS over a failing check), and
    # JSON nested thousands deep was exit 4 (RecursionError)
    "a failing check under a pass verdict": (
        lambda db: _set_checks(db, lambda c: c.update(verdict="fail")),
        "its verdict is 'pass', but its checks decide 'fail'",
    ),
    "a fail verdict no check decides": (_set("verdict", "fail"), "its verdict is 'fail', but its checks decide 'pass'"),
    "checks nested deeply": (_set("checks", "[" * 100_000 + "]" * 100_000), "its checks is not JSON text"),
    "spec nested deeply": (
        lambda db: db.execute("UPDATE meta SET value = ? WHERE key = 'spec'", ("[" * 100_000 + "]" * 100_000,)),
        "nested too deeply",
    ),
}


def _damaged_copy(good_store, tmp_path, damage) -> str:
    path = tmp_path / "damaged.sqlite"
    path.write_bytes(good_store.read_bytes())
    with sqlite3.connect(path) as db:
        damage(db)
    sqlite3.connect(path).close()
    return str(path)


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_report_on_a_damaged_store_is_one_line_naming_what_is_wrong(name, good_store, tmp_path, capsys):
    damage, words = DAMAGES[name]
    path = _damaged_copy(good_store, tmp_path, damage)
    outputs = ["-o", str(tmp_path / "r.pdf"), "--json", str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv")]
    assert main(["report", path, *outputs]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "damaged.sqlite: the store is damaged" in err and words in err, err
    assert not any((tmp_path / name).exists() for name in ("r.pdf", "r.json", "r.csv"))  # nothing half-made


@pytest.mark.parametrize(
    "name", ["unknown cell verdict", "check without id", "identity null", "a failing check under a pass verdict"]
)
def test_resuming_a_damaged_store_is_refused_in_one_line(name, good_store, tmp_path, capsys, monkeypatch):
    damage, words = DAMAGES[name]
    path = _damaged_copy(good_store, tmp_path, damage)
    spec = parse_toy_spec(toy_spec(4, 0.0))
    with pytest.raises(SpecError, match="the store is damaged") as raised:
        Store.for_sweep(path, spec, resume=True)
    assert words in str(raised.value)
    Store.for_sweep(str(good_store), spec, resume=True).close()  # the lock was released, the good one opens


def test_the_api_reader_refuses_a_damaged_store(good_store, tmp_path):
    path = _damaged_copy(good_store, tmp_path, DAMAGES["estimate a string"][0])
    with pytest.raises(SpecError, match="cell '[0-9a-f]{16}', checks\\[0\\] \\('toy-mean'\\)"):
        load_results(path)
    assert len(load_results(good_store).cells) == 4  # the checks accept what pdp-audit writes
