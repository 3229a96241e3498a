"""Sweep specs, cell identities and seeds, the results store, and the sweep/report CLI (serial, fast)."""

import json
import sqlite3
import subprocess
import sys

import pandas as pd
import pytest

import pdp_audit
from pdp_audit.cli.main import main
from pdp_audit.sweeps.spec import SpecError, parse_spec
from pdp_audit.sweeps.store import Store, load_results

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

GAUSS = """
[sweep]
mechanism = "gaussian"
seed = 3
alpha = 1e-6
checks = ["dp-forward", "loss-law"]
[fixed]
trials = 2000
[grid]
claim_epsilon = [0.5, 1.0]
noise_multiplier = [0.5, 1.0]
"""


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_grid_is_a_cartesian_product_plus_explicit_cells():
    spec = parse_spec(GAUSS + "[[cells]]\nclaim_epsilon = 2.0\nsigma = 3.0\n")
    assert len(spec.cells) == 5
    assert [(c.parameters["claim_epsilon"], c.parameters["noise_multiplier"]) for c in spec.cells[:4]] == [
        (0.5, 0.5),
        (0.5, 1.0),
        (1.0, 0.5),
        (1.0, 1.0),
    ]
    assert spec.cells[4].parameters["sigma"] == 3.0 and spec.cells[4].parameters["trials"] == 2000
    assert spec.swept == ["claim_epsilon", "noise_multiplier", "sigma"]
    assert spec.alpha_per_cell == pytest.approx(1e-6 / 5)


def test_the_spec_keeps_its_toml_text_for_the_reports_provenance_page():
    """The sweep report's "Spec (TOML):" was empty: the length check of name and description reused the name of
    the TOML text, so the spec stored the description (usually empty) as its source."""
    text = GAUSS.replace("[sweep]", '[sweep]\ndescription = "a description"', 1)
    assert "a description" in text
    assert parse_spec(text).source == text and parse_spec(GAUSS).source == GAUSS


def test_cell_identity_and_seed_depend_on_parameters_not_position():
    small = parse_spec(GAUSS)
    big = parse_spec(
        GAUSS.replace("claim_epsilon = [0.5, 1.0]", "claim_epsilon = [2.0, 1.0, 0.5]").replace(
            "noise_multiplier = [0.5, 1.0]", "noise_multiplier = [1.0, 0.5]"
        )
    )
    by_id = {c.cell_id: c for c in big.cells}
    for cell in small.cells:
        assert by_id[cell.cell_id].seed == cell.seed and by_id[cell.cell_id].parameters == cell.parameters
    assert [by_id[c.cell_id].position for c in small.cells] != [c.position for c in small.cells]
    # writing a default explicitly, or an int for a float, or 2e3 for 2000 is the same cell
    same = parse_spec(GAUSS.replace("trials = 2000", "trials = 2e3\nclaim_delta = 1e-5\nsensitivity = 1"))
    assert [c.cell_id for c in same.cells] == [c.cell_id for c in small.cells]
    # another root seed gives other seeds; ids stay (they name parameters)
    other = parse_spec(GAUSS.replace("seed = 3", "seed = 4"))
    assert [c.cell_id for c in other.cells] == [c.cell_id for c in small.cells]
    assert not {c.seed for c in other.cells} & {c.seed for c in small.cells}
    assert len({c.seed for c in small.cells}) == len(small.cells)


@pytest.mark.parametrize(
    "text,needle",
    [
        ("[sweep]\nmechanism = 'gaussian'\n[grdi]\nx = [1]\n", "unknown key 'grdi'"),
        ("[sweep]\nmechanism = 'gaussian'\nsed = 1\n", "unknown key 'sweep.sed'"),
        ("[sweep]\nmechanism = 'nope'\n", "sweep.mechanism must be one of"),
        (
            "[sweep]\nmechanism = 'gaussian'\n[grid]\nclaim_epsilon = [1.0, -1.0]\n",
            "grid.claim_epsilon[1] must be a finite number in [1e-6, 100], got -1.0",
        ),
        (
            "[sweep]\nmechanism = 'gaussian'\n[fixed]\nclaim_delta = 2\n",
            "fixed.claim_delta must be a finite number in [1e-300, 1), got 2",
        ),
        (
            "[sweep]\nmechanism = 'gaussian'\n[fixed]\ntrials = 10\n",
            "fixed.trials must be a whole number in [1000, 1e9], got 10",
        ),
        (
            "[sweep]\nmechanism = 'gaussian'\n[grid]\nclaim_epsilon = 1.0\n",
            "grid.claim_epsilon must be a non-empty list",
        ),
        ("[sweep]\nmechanism = 'gaussian'\n[grid]\nalpha = [1e-3]\n", "alpha is the sweep's family-wise"),
        ("[sweep]\nmechanism = 'gaussian'\n[grid]\nlambda = [1.0]\n", "unknown parameter 'grid.lambda'"),
        ("[sweep]\nmechanism = 'gaussian'\nalpha = 0\n", "sweep.alpha must be a finite number in [1e-50, 1), got 0"),
        ("[sweep]\nmechanism = 'gaussian'\n[fixed]\nn = 10\n", "unknown parameter 'fixed.n' for mechanism 'gaussian'"),
        (
            "[sweep]\nmechanism = 'gaussian'\n[fixed]\nsynthetic = '10,2'\ndata = 'x.csv'\n",
            "s.toml: [fixed]: give one of data and synthetic, not both",
        ),
        (
            "[sweep]\nmechanism = 'gaussian'\n[fixed]\nquery = 'count'\nsensitivity = 2.0\n",
            "sensitivity applies to query",
        ),
        (
            "[sweep]\nmechanism = 'gaussian'\n[fixed]\nsigma = 'auto'\n",
            "fixed.sigma must be a finite number > 0, got 'auto'",
        ),
        ("[sweep]\nmechanism = 'gaussian'\n[grid]\nclaim_epsilon = [1.0, 1]\n", "two cells have the same parameters"),
        (
            "[sweep]\nmechanism = 'gaussian'\n[fixed]\nclaim_epsilon = 1\n[grid]\nclaim_epsilon = [2.0]\n",
            "grid.claim_epsilon is also set in [fixed]",
        ),
        ("[[cells]]\nclaim_epsilon = -2.0\n[sweep]\nmechanism = 'gaussian'\n", "cells[0]: claim_epsilon must be"),
        ("[sweep\nmechanism = 'gaussian'\n", "not valid TOML"),
        (  # printed on the cover page: a 1 MB description took 83 s to lay out (issue 27, item 12)
            "[sweep]\nmechanism = 'gaussian'\ndescription = '" + "x" * 2001 + "'\n",
            "sweep.description must be at most 2000 characters (it is printed on the cover page), got 2001",
        ),
        ("[sweep]\nmechanism = 'gaussian'\nname = '" + "n" * 201 + "'\n", "sweep.name must be at most 200"),
    ],
)
def test_bad_specs_name_the_key(text, needle):
    with pytest.raises(SpecError) as info:
        parse_spec(text, where="s.toml")
    message = str(info.value)
    assert needle in message and message.startswith("s.toml") and "\n" not in message, message


def test_bad_spec_through_the_cli_is_one_line_exit_2(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text("[sweep]\nmechanism = 'gaussian'\n[grid]\nclaim_epsilon = [1.0, -1.0]\n")
    result = run_cli("sweep", str(spec), "--store", str(tmp_path / "s.sqlite"))
    assert result.returncode == 2
    assert (
        result.stderr.strip().count("\n") == 0
        and "grid.claim_epsilon[1]" in result.stderr
        and "Traceback" not in result.stderr
    )
    assert not (tmp_path / "s.sqlite").exists()


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    spec = out / "g.toml"
    spec.write_text(GAUSS)
    code = main(
        [
            "sweep",
            str(spec),
            "--workers",
            "1",
            "--store",
            str(out / "g.sqlite"),
            "--json",
            str(out / "g.json"),
            "--report",
            str(out / "g.pdf"),
            "--quiet",
        ]
    )
    return code, out


@pytest.mark.tier2
def test_sweep_stores_one_row_per_cell_and_fails_the_deflated_cells(done):
    code, out = done
    doc = json.loads((out / "g.json").read_text())
    assert code == 1 and doc["verdict"] == "fail" and doc["complete"] and doc["cells_done"] == 4
    for cell in doc["cells"]:
        assert [c["id"] for c in cell["checks"]] == ["dp-forward", "loss-law"]
        assert cell["alpha"] == pytest.approx(1e-6 / 4)
        scale = cell["parameters"]["noise_multiplier"]
        forward = cell["checks"][0]
        assert forward["verdict"] == ("fail" if scale == 0.5 else "pass") or (
            scale == 0.5 and forward["verdict"] != "pass"
        )
        assert cell["effective_parameters"]["sigma"] == pytest.approx(
            scale * cell["effective_parameters"]["calibrated_sigma"]
        )
    db = sqlite3.connect(out / "g.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # WAL while the sweep wrote; one file now
    assert db.execute("SELECT COUNT(*), COUNT(DISTINCT cell_id) FROM cells").fetchone() == (4, 4)
    row = db.execute("SELECT parameters, seed, code_version, estimates, checks, verdict FROM cells LIMIT 1").fetchone()
    assert (
        json.loads(row[0])["trials"] == 2000
        and row[1] > 0
        and row[2].startswith("0.")
        and json.loads(row[3])["dp-forward"]["ci"]
    )
    assert (out / "g.pdf").read_bytes().startswith(b"%PDF")


def cli(capsys, *args):
    """The CLI in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_store_refuses_to_be_overwritten_or_resumed_by_another_spec(done, tmp_path, capsys):
    _, out = done
    spec, store = out / "g.toml", out / "g.sqlite"
    code, _, err = cli(capsys, "sweep", spec, "--workers", 1, "--store", store)
    assert code == 2 and "already exists" in err and "--resume" in err and err.count("\n") == 1
    other = tmp_path / "other.toml"
    other.write_text(GAUSS.replace("seed = 3", "seed = 4"))
    code, _, err = cli(capsys, "sweep", other, "--workers", 1, "--store", store, "--resume")
    assert code == 2 and "different spec (seed = 3 there, 4 here)" in err
    grown = tmp_path / "grown.toml"
    grown.write_text(GAUSS.replace("claim_epsilon = [0.5, 1.0]", "claim_epsilon = [0.5, 1.0, 2.0]"))
    code, _, err = cli(capsys, "sweep", grown, "--workers", 1, "--store", store, "--resume")
    assert code == 2 and "grid differs: 0 cells only in the store, 2 only in the spec" in err
    # resuming a complete store runs nothing
    code, stdout, _ = cli(capsys, "sweep", spec, "--workers", 1, "--store", store, "--resume")
    assert code == 1 and "(0 run now, 4 from the store" in stdout


def test_report_renders_any_store(done, tmp_path, capsys):
    _, out = done
    code, stdout, err = cli(capsys, "report", out / "g.sqlite", "-o", tmp_path / "r.pdf", "--json", tmp_path / "r.json")
    assert code == 0, err
    assert "pdp-audit report g: REFUTED — 2 certified, 2 refuted" in stdout
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "r.json").read_bytes() == (out / "g.json").read_bytes()
    not_a_store = tmp_path / "x.sqlite"
    not_a_store.write_text("hello")
    code, _, err = cli(capsys, "report", not_a_store)
    assert code == 2 and "not a pdp-audit sweep store" in err and err.count("\n") == 1
    code, _, err = cli(capsys, "report", tmp_path / "none.sqlite")
    assert code == 2 and "no such store" in err


@pytest.mark.tier2
def test_partial_store_reports_incomplete(tmp_path):
    spec = tmp_path / "g.toml"
    spec.write_text(GAUSS)
    from pdp_audit.sweeps.spec import load_spec

    parsed = load_spec(spec)
    store = Store.for_sweep(tmp_path / "p.sqlite", parsed, resume=False)
    store.close()
    results = load_results(tmp_path / "p.sqlite")
    assert not results.complete and len(results.missing) == 4 and results.verdict == "inconclusive"
    assert main(["report", str(tmp_path / "p.sqlite"), "-o", str(tmp_path / "p.pdf"), "--quiet"]) == 0
    # an empty store of the same spec may be started again without --resume
    assert main(["sweep", str(spec), "--workers", "1", "--store", str(tmp_path / "p.sqlite"), "--quiet"]) == 1


def test_missing_dask_is_a_one_line_error(tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name.split(".")[0] in ("distributed", "dask"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    spec = tmp_path / "g.toml"
    spec.write_text(GAUSS)
    from pdp_audit.sweeps.executors import MissingDependency, make_executor

    with pytest.raises(MissingDependency, match=r'pip install "dask\[distributed\]"'):
        make_executor(dask_local=2)
    assert main(["sweep", str(spec), "--dask-local", "2", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert not (tmp_path / "s.sqlite").exists()


def test_examples_parse(monkeypatch):
    from pathlib import Path

    from pdp_audit.sweeps.spec import load_spec

    folder = Path(__file__).resolve().parent.parent.joinpath("examples")
    monkeypatch.chdir(folder)  # as a user runs them: `pdp-audit examples ex && cd ex` (data paths are relative)
    examples = sorted(folder.glob("*.toml"))
    examples = [p for p in examples if "[sweep]" in p.read_text()]
    assert examples
    sizes = {p.name: len(load_spec(p).cells) for p in examples}
    assert any(n >= 100 for n in sizes.values()), sizes


def test_bad_cell_parameters_are_one_line_exit_2_naming_the_cell(tmp_path, capsys):
    spec = tmp_path / "big.toml"
    spec.write_text("[sweep]\nmechanism = 'gaussian'\n[fixed]\ntrials = 1000\nsigma = 1e9\nnoise_multiplier = 10\n")
    assert main(["sweep", str(spec), "--workers", "1", "--store", str(tmp_path / "s.sqlite"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert (
        "sweep cell" not in err
        and "big.toml: [fixed]: sigma × noise_multiplier (the deployed σ) must be in [1e-9, 1e9]" in err
        and err.count("\n") == 1
    ), err


def broken_cell(parameters: dict, seed: int, alpha: float, checks=None) -> dict:
    raise ValueError("an internal inconsistency")  # not the user's input: must not read as bad usage


def test_a_cell_error_that_is_not_bad_input_stays_an_internal_error(tmp_path):
    from pdp_audit.sweeps.executors import SerialExecutor
    from pdp_audit.sweeps.schema import SweepMechanism
    from pdp_audit.sweeps.spec import run_sweep
    from pdp_audit.verify.core.config import Option, Range
    from pdp_audit.verify.inputs.validation import InputError

    broken = SweepMechanism("broken", broken_cell, {"x": Option("x", "int", 0, "", range=Range(0, 10))})
    spec = parse_spec("[sweep]\nmechanism = 'broken'\n", mechanisms=(broken,))
    store = Store.for_sweep(tmp_path / "b.sqlite", spec, resume=False)
    try:
        with pytest.raises(ValueError, match="an internal inconsistency") as info:
            run_sweep(spec, store, SerialExecutor())
    finally:
        store.close()
    assert not isinstance(info.value, InputError)


def test_only_the_given_mechanisms_can_be_swept():
    with pytest.raises(SpecError, match="sweep.mechanism must be one of 'adaops', .*'ssp', got 'toy'"):
        parse_spec("[sweep]\nmechanism = 'toy'\n")


def test_a_store_reads_into_a_dataframe_and_a_csv_of_the_same_rows(done, tmp_path, capsys):
    from pdp_audit.sweeps.store import read_frame

    _, out = done
    frame = read_frame(out / "g.sqlite")
    doc = json.loads((out / "g.json").read_text())
    assert len(frame) == sum(len(cell["checks"]) for cell in doc["cells"]) == 8  # one row per cell and check
    forward = frame[frame.check == "dp-forward"].sort_values("position")
    expected = sorted(doc["cells"], key=lambda c: c["position"])
    assert list(forward.noise_multiplier) == [c["parameters"]["noise_multiplier"] for c in expected]
    assert list(forward.verdict) == [c["checks"][0]["verdict"] for c in expected]
    pd.testing.assert_frame_equal(pdp_audit.read_sweep(out / "g.sqlite"), frame)  # the public API
    assert list(forward.ci_hi) == [c["checks"][0]["ci"][1] for c in expected]
    code, _, err = cli(capsys, "report", out / "g.sqlite", "-o", "none", "--csv", tmp_path / "g.csv", "--quiet")
    assert code == 0, err
    again = pd.read_csv(tmp_path / "g.csv")
    assert list(again.columns) == list(frame.columns) and len(again) == len(frame)
    assert list(again.estimate) == pytest.approx(list(frame.estimate), rel=1e-15, nan_ok=True)
    code, _, err = cli(capsys, "report", out / "g.sqlite", "-o", "none", "--csv", out / "g.sqlite")
    assert code == 2 and "--csv" in err and "is the store itself" in err


def test_a_cell_computed_by_other_code_is_refused_and_the_store_keeps_the_rest(tmp_path):
    """A Dask worker with another pdp-audit installed must not write its numbers under this code's version."""
    from pdp_audit.sweeps.executors import SerialExecutor, execute_task
    from pdp_audit.sweeps.spec import run_sweep, tasks_for

    spec = parse_spec(GAUSS)
    store = Store.for_sweep(tmp_path / "v.sqlite", spec, resume=False)
    try:
        first, second = tasks_for(spec, spec.cells)[:2]
        assert store.add(first, execute_task(first))  # same code: stored
        foreign = {**execute_task(second), "code_version": "0.0.1+000000000000", "worker": "elsewhere:1"}
        with pytest.raises(SpecError, match="worker elsewhere:1 runs pdp-audit 0.0.1.*install the same pdp-audit"):
            store.add(second, foreign)
        assert store.completed_ids() == {first.cell_id}
        run_sweep(spec, store, SerialExecutor())  # the rest of the sweep runs on this code
        assert len(store.completed_ids()) == len(spec.cells)
    finally:
        store.close()


def test_a_finished_sweep_and_its_report_leave_the_store_as_one_file(tmp_path):
    """No ``-wal``, ``-shm`` or ``.lock`` beside a store once its sweep has ended, nor after ``pdp-audit report``
    read it (a read-only connection to a WAL store made both and could not remove them); ``--resume`` writes it
    again."""
    spec = tmp_path / "g.toml"
    spec.write_text(GAUSS.replace("noise_multiplier = [0.5, 1.0]", "noise_multiplier = [1.0]"))
    store = ["--store", str(tmp_path / "g.sqlite")]
    assert main(["sweep", str(spec), "--workers", "1", "--quiet", *store]) in (0, 1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite", "g.toml"]
    assert main(["report", str(tmp_path / "g.sqlite"), "-o", str(tmp_path / "r.pdf")]) in (0, 1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite", "g.toml", "r.pdf"]
    assert main(["sweep", str(spec), "--workers", "1", "--quiet", "--resume", *store]) in (0, 1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite", "g.toml", "r.pdf"]
    assert len(load_results(tmp_path / "g.sqlite").cells) == 2
