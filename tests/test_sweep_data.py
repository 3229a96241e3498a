"""A sweep audits the bytes it fingerprinted: each cell with a data file records the SHA-256 read when the spec was
read, audits those bytes only, and a resumed sweep whose data changed is refused before any cell runs."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pdp_audit.cli.main import main
from pdp_audit.sweeps.executors import execute_task
from pdp_audit.sweeps.spec import canonical_json, cell_digest, load_spec, tasks_for
from pdp_audit.verify.inputs.validation import InputError

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SPEC = (
    '[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\ndata = "data.csv"\n[grid]\nclaim_epsilon = [1.0, 2.0]\n'
)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path / "data.csv")
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    return tmp_path


def _sweep(*extra: str) -> int:
    return main(["sweep", "spec.toml", "--workers", "1", "--quiet", "--store", "s.sqlite", *extra])


def test_each_cell_records_the_sha256_of_the_data_it_audited(folder):
    assert _sweep() in (0, 1, 3)
    digest = hashlib.sha256((folder / "data.csv").read_bytes()).hexdigest()
    with sqlite3.connect(folder / "s.sqlite") as db:
        effective = [json.loads(row[0]) for row in db.execute("SELECT effective FROM cells")]
    assert len(effective) == 2 and all(e["data_sha256"] == digest for e in effective)


def _interrupted(folder: Path) -> None:
    """A store of the spec with one of its two cells done (as a sweep stopped half-way leaves it)."""
    assert _sweep() in (0, 1, 3)
    with sqlite3.connect(folder / "s.sqlite") as db:
        db.execute("DELETE FROM cells WHERE position = 1")


def test_a_resumed_sweep_whose_data_changed_is_refused_in_one_line(folder, capsys):
    _interrupted(folder)
    rows = (folder / "data.csv").read_text().splitlines()
    (folder / "data.csv").write_text("\n".join(rows[:-1]) + "\n")  # one row less
    capsys.readouterr()
    assert _sweep("--resume") == 2
    err = capsys.readouterr().err
    assert "the data file 'data.csv' changed since" in err and "run into a new store" in err and err.count("\n") == 1
    with sqlite3.connect(folder / "s.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 1  # nothing ran on the other bytes


def test_a_resumed_sweep_on_the_same_bytes_finishes(folder):
    _interrupted(folder)
    assert _sweep("--resume") in (0, 1, 3)
    with sqlite3.connect(folder / "s.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 2


def test_data_replaced_after_the_spec_was_read_is_not_audited(folder):
    """The bytes fingerprinted when the spec was read are the only bytes a cell audits."""
    spec = load_spec("spec.toml")
    task = tasks_for(spec, spec.cells)[0]
    (folder / "data.csv").write_text("a,b\n1,2\n3,4\n5,6\n")
    with pytest.raises(InputError, match=r"the data file 'data.csv' changed after the sweep started"):
        execute_task(task)
    (folder / "data.csv").unlink()
    with pytest.raises(InputError, match=r"no such file 'data.csv'"):
        execute_task(dataclasses.replace(task))


def test_a_spec_naming_a_missing_data_file_is_refused_when_read(folder, capsys):
    (folder / "data.csv").unlink()
    assert _sweep() == 2
    err = capsys.readouterr().err
    assert "data: cannot read 'data.csv'" in err and err.count("\n") == 1
    assert not (folder / "s.sqlite").exists()


@pytest.mark.parametrize(
    "grid,content,needle",
    [
        ('target_column = ["nope"]', None, "target_column = 'nope': --target-column 'nope' is not a column of"),
        ('query = ["sum"]', "a,b\n1,x\n", "line 2, column 'b'"),  # a cell that is no number
        ('query = ["sum"]', "a,b\n1,inf\n", "non-finite value"),
    ],
)
def test_data_a_cell_cannot_read_is_refused_when_the_spec_is_read(grid, content, needle, folder, capsys):
    """main found a missing target column only after the first cell had run, and the store it left behind refused
    the corrected spec both ways (issue 27, D12): now nothing runs and no store is made."""
    if content is not None:
        (folder / "data.csv").write_text(content)
    (folder / "spec.toml").write_text(SPEC.replace("claim_epsilon = [1.0, 2.0]", grid))
    assert _sweep() == 2
    err = capsys.readouterr().err
    assert "spec.toml: the cells with data = 'data.csv'" in err and needle in err and err.count("\n") == 1, err
    assert not (folder / "s.sqlite").exists()


def test_a_store_with_the_old_gaussian_keys_is_not_resumed_but_still_reported(folder, capsys):
    """Gaussian sweeps took their own keys (epsilon, sigma_scale, …) before they became `run gaussian`'s: such a
    store cannot be resumed (its cell ids name the old keys); the message says so, and `report` still reads it."""
    (folder / "data.csv").unlink()
    (folder / "spec.toml").write_text(SPEC.replace('data = "data.csv"\n', ""))
    _interrupted(folder)
    with sqlite3.connect(folder / "s.sqlite") as db:  # as pdp-audit 0.1 wrote it: ids the hash of the old keys
        spec = json.loads(db.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()[0])
        for cell in spec["cells"]:
            cell["parameters"]["sigma_scale"] = cell["parameters"].pop("noise_multiplier")
            old_id, cell["id"] = cell["id"], cell_digest("gaussian", cell["parameters"]).hex()[:16]
            db.execute(
                "UPDATE cells SET cell_id = ?, parameters = ? WHERE cell_id = ?",
                (cell["id"], canonical_json(cell["parameters"]), old_id),
            )
        db.execute("UPDATE meta SET value = ? WHERE key = 'spec'", (json.dumps(spec),))
        identity = json.loads(db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()[0])
        identity["cells"] = sorted(cell["id"] for cell in spec["cells"])
        db.execute("UPDATE meta SET value = ? WHERE key = 'identity'", (json.dumps(identity),))
    capsys.readouterr()
    assert _sweep("--resume") == 2
    err = capsys.readouterr().err
    assert "holds Gaussian cells under the sweep keys of pdp-audit 0.1" in err and err.count("\n") == 1
    assert main(["report", "s.sqlite", "-o", "none", "--quiet"]) in (0, 1, 3)  # rendered, not refused


def _wide_csv(path: Path, columns: int, target: bool = False) -> None:
    """A CSV of 6 rows and ``columns`` numeric columns (``x0, x1, ...``), plus a column ``y`` if ``target``."""
    names = [f"x{i}" for i in range(columns)] + (["y"] if target else [])
    rows = [",".join(f"{0.001 * ((r + i) % 7):g}" for i in range(len(names))) for r in range(6)]
    path.write_text(",".join(names) + "\n" + "\n".join(rows) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "mechanism,cap,label_column,extra",
    [
        ("gaussian", 100, False, ""),
        ("objpert", 100, True, ""),  # without target_column, the last column is the label
        ("ssp", 200, True, 'target_column = "y"\n'),
    ],
)
def test_the_data_width_cap_is_checked_when_the_spec_is_read(
    tmp_path, monkeypatch, mechanism, cap, label_column, extra
):
    """main: a file one column too wide passed the spec and failed only when its cell ran (after the store was made:
    the corrected spec was then refused by it); a file at the cap still passes."""
    monkeypatch.chdir(tmp_path)  # a spec's data path is relative to the working folder
    spec = f'[sweep]\nmechanism = "{mechanism}"\n[fixed]\ntrials = 2000\ndata = "wide.csv"\n{extra}'
    (tmp_path / "spec.toml").write_text(spec + "[grid]\nclaim_epsilon = [1.0, 2.0]\n", encoding="utf-8")
    extra_column = label_column and not extra  # objpert: the label is a column of the file, not a feature
    _wide_csv(tmp_path / "wide.csv", cap + 1 + extra_column, target=bool(extra))
    with pytest.raises(InputError) as refused:
        load_spec("spec.toml")
    message = str(refused.value)
    assert f"has {cap + 1:,} feature columns; this audit takes at most {cap}" in message and "\n" not in message
    assert message.startswith("spec.toml: the cells with data = 'wide.csv'"), message
    _wide_csv(tmp_path / "wide.csv", cap + extra_column, target=bool(extra))
    assert len(load_spec("spec.toml").cells) == 2
