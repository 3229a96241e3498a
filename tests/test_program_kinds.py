"""A DP program through every way in: ``pdp-audit certify`` of a deployment file with ``program = "module:function"``
and a sweep cell of ``mechanism = "program"`` give the verdict, exit code and numbers of ``pdp-audit program`` /
``pdp_audit.audit_program`` with the same settings and seed; a bad key is one line naming it, exit 2, before the
program runs (and, for a sweep, before its store is made).  Seen failing: with the deployment's ``[audit] seed``
dropped (the numbers of the confirmation differ), and with the sweep's data read by the numeric CSV reader (the
labels' CSV refused)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

import pdp_audit
from pdp_audit.cli import main as cli
from pdp_audit.reports.json_report import check_to_dict, clean
from pdp_audit.sweeps.spec import SpecError, load_spec, parse_spec

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

#: A program that leaves a mark when it runs: a refused input must refuse before it.
MARKING = """
from pathlib import Path

import numpy as np


def release(data, rng):
    Path("ran.txt").write_text("ran")
    x = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return x.sum() + rng.laplace(0.0, 1.0)
"""


@pytest.fixture
def examples(tmp_path, monkeypatch):
    """The shipped examples (``pdp-audit examples``), the current folder and importable."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["examples", "ex"]) == 0
    folder = tmp_path / "ex"
    (folder / "marking.py").write_text(MARKING, encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    for name in ("marking", "program_sum", "program_budget", "program_histogram"):
        sys.modules.pop(name, None)  # the loaders register the modules, as an import does


def _command(program: str, *extra: str) -> list[str]:
    return [
        "program",
        program,
        "--data",
        "program-values.csv",
        "--claim-epsilon",
        "1",
        "--claim-delta",
        "0",
        "--bounds",
        "0,1",
        "--trials",
        "2000",
        "--report",
        "none",
        *extra,
    ]


def _document(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.tier2
def test_the_shipped_deployment_is_the_command_with_its_settings(examples, monkeypatch):
    """deploy-program.toml states the settings of its header's command: the same exit code, checks and numbers (its
    module and data found beside it, certified from another folder)."""
    monkeypatch.chdir(examples.parent)
    assert cli.main(["certify", "ex/deploy-program.toml", "--report", "none", "--json", "ex/cert.json"]) == 0
    monkeypatch.chdir(examples)
    assert cli.main(_command("program_sum:fixed", "--law", "ideal", "--json", "prog.json")) == 0
    certificate, command = _document(examples / "cert.json"), _document(examples / "prog.json")
    assert certificate["checks"] == command["checks"] and certificate["verdict"] == command["verdict"] == "pass"
    certified = certificate["certified"]
    assert certified["program"] == "program_sum:fixed" and certified["evidence"] == "program"
    assert certified["claim"] == {"epsilon": 1.0, "delta": 0.0, "neighbours": "add-remove"}
    audit = {"trials": 2000, "draw_sets": 8, "seed": 0, "alpha": 1e-6, "law": "ideal"}
    assert certified["audit"] == {**audit, "search": "random", "candidates": 32}
    assert certified["data_sha256"] == hashlib.sha256((examples / "program-values.csv").read_bytes()).hexdigest()
    assert certified["module_file"]["sha256"] == hashlib.sha256((examples / "program_sum.py").read_bytes()).hexdigest()
    assert certified["data_shape"] == [12, 1]
    mapping = {  # the same deployment given to the API as a mapping
        "program": "program_sum:fixed",
        "claim": {"epsilon": 1.0, "delta": 0.0},
        "parameters": {"data": "program-values.csv", "bounds": "0,1"},
        "audit": {"trials": 2000, "law": "ideal"},
    }
    run = pdp_audit.certify(mapping)
    assert run.exit_code == 0 and [clean(check_to_dict(c)) for c in run.checks] == certificate["checks"]


@pytest.mark.tier2
def test_a_refuted_program_has_the_same_numbers_through_both_routes(examples):
    """The budget spent twice, at a seed of its own and the default law: exit 1 both ways, the same checks -- the
    black box's confirmation included, not run both ways (the exact refutation decides)."""
    text = (examples / "deploy-program.toml").read_text(encoding="utf-8")
    text = text.replace("program_sum:fixed", "program_budget:spent_twice").replace("seed = 0", "seed = 7")
    (examples / "twice.toml").write_text(text.replace('law = "ideal"', ""), encoding="utf-8")
    assert cli.main(["certify", "twice.toml", "--report", "none", "--json", "cert.json"]) == 1
    assert cli.main(_command("program_budget:spent_twice", "--seed", "7", "--json", "prog.json")) == 1
    certificate, command = _document(examples / "cert.json"), _document(examples / "prog.json")
    assert certificate["checks"] == command["checks"]
    confirm = [c for c in certificate["checks"] if c["id"] == "program-confirm"]
    assert confirm and confirm[0]["verdict"] == "inconclusive" and confirm[0]["pvalue"] is None
    assert confirm[0]["details"]["not_run"] == "program-composition refutes the claim exactly"


@pytest.mark.tier2(representatives=("change2-program must be MODULE:FUNCTION", "change12-not both"))
@pytest.mark.parametrize(
    "change, named",
    [
        (("program_sum:fixed", "nosuch:fixed"), "program: no module 'nosuch'"),
        (("program_sum:fixed", "marking:nope"), "program: module 'marking'"),
        (("program_sum:fixed", "marking"), "program must be MODULE:FUNCTION"),
        (("program-values.csv", "missing.csv"), "parameters.data: no such file"),
        (("epsilon = 1.0", "epsilon = -1"), "claim.epsilon must be a finite number >= 0, got -1"),
        (("delta = 0.0 ", "delta = 1.0 "), "claim.delta must be a finite number in [0, 1), got 1.0"),
        (('"add-remove"', '"swap"'), "claim.neighbours must be one of 'add-remove', 'replace-one', got 'swap'"),
        (('bounds = "0,1"', 'bounds = "1,0"'), "parameters.bounds gives 1,0, whose LOW is above its HIGH"),
        (("trials = 2000", "trials = 3"), "audit.trials must be a whole number in [100, 1e9], got 3"),
        (("trials = 2000", "trails = 2000"), "unknown key 'audit.trails'; did you mean 'trials'?"),
        (('bounds = "0,1"', "trials = 5000"), "parameters.trials belongs in [audit]"),
        (('law = "ideal"', 'law = "exact"'), "audit.law must be one of"),
        (('program = "program_sum:fixed"', 'mechanism = "laplace"\nprogram = "marking:release"'), "not both"),
    ],
)
def test_a_bad_deployment_is_one_line_naming_the_key_before_the_program_runs(examples, capsys, change, named):
    text = (
        (examples / "deploy-program.toml").read_text(encoding="utf-8").replace("program_sum:fixed", "marking:release")
    )
    old, new = (c.replace("program_sum:fixed", "marking:release") for c in change)
    assert old in text
    (examples / "bad.toml").write_text(text.replace(old, new), encoding="utf-8")
    assert cli.main(["certify", "bad.toml", "--report", "none"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.count("\n") == 0 and message.startswith("pdp-audit: error: bad.toml: "), message
    assert named in message, message
    assert not (examples / "ran.txt").exists()


@pytest.mark.tier2
def test_the_marking_program_runs_where_nothing_is_wrong(examples):
    """The control of the test above: the same file, unchanged, runs the program (which leaves its mark)."""
    text = (
        (examples / "deploy-program.toml").read_text(encoding="utf-8").replace("program_sum:fixed", "marking:release")
    )
    (examples / "good.toml").write_text(text, encoding="utf-8")
    assert cli.main(["certify", "good.toml", "--report", "none"]) == 0
    assert (examples / "ran.txt").exists()


# --- a sweep cell of kind program ---------------------------------------------------------------------------------


@pytest.mark.tier2
def test_a_program_cell_is_audit_program_at_the_cells_seed_and_alpha(examples):
    """The shipped sweep over ε of the program that spends its budget twice: its cell at ε = 1 is refuted with the
    checks ``pdp_audit.audit_program`` gives at the cell's seed and α, the black box's confirmation included (the
    sweep's other cells: the next test)."""
    import program_budget

    spec = load_spec("sweep-program.toml")
    assert spec.swept == ["claim_epsilon"] and len(spec.cells) == 3
    cell = spec.cells[0]
    p = cell.parameters
    assert p["claim_epsilon"] == 1.0
    result = spec.kind.cell(dict(p), cell.seed, spec.alpha_per_cell, None)
    run = pdp_audit.audit_program(
        program_budget.spent_twice,
        pd.read_csv("program-values.csv"),
        p["claim_epsilon"],
        p["claim_delta"],
        neighbours=p["neighbours"],
        bounds=(0, 1),
        trials=p["trials"],
        seed=cell.seed,
        alpha=spec.alpha_per_cell,
        law=p["law"],
    )
    assert result["checks"] == [clean(check_to_dict(c)) for c in run.checks]
    assert result["verdict"] == "fail" and "program-confirm" in [c["id"] for c in result["checks"]]


@pytest.mark.tier2
def test_a_program_sweep_runs_stores_and_reports(examples):
    assert cli.main(["sweep", "sweep-program.toml", "--workers", "1", "--quiet", "--json", "sweep.json"]) == 1
    table = pdp_audit.read_sweep("sweep-program.sqlite")
    cells = set(zip(table["claim_epsilon"], table["cell_verdict"]))  # a row per check of each cell
    assert cells == {(1.0, "fail"), (2.0, "pass"), (4.0, "pass")}
    document = _document(examples / "sweep.json")
    assert document["mechanism"] == "program" and document["complete"]


def test_a_program_sweep_reads_a_table_of_labels(examples):
    """The labels' CSV is not a numeric table: the program's reader reads it (the numeric reader refused it)."""
    spec = parse_spec(
        '[sweep]\nmechanism = "program"\n[fixed]\nprogram = "program_histogram:fixed"\ndata = "program-labels.csv"\n'
        "claim_delta = 0.0\ntrials = 2000\n[grid]\nclaim_epsilon = [1.0, 2.0]\n"
    )
    assert len(spec.cells) == 2 and "program-labels.csv" in spec.data


@pytest.mark.parametrize(
    "change, named",
    [
        (("program_budget:spent_twice", "nosuch:spent_twice"), "program: no module 'nosuch'"),
        (("program_budget:spent_twice", "program_budget:nope"), "defines no 'nope'"),
        (("program_budget:spent_twice", "program_budget"), "program must be MODULE:FUNCTION"),
        (('program = "program_budget:spent_twice"', ""), "program is required"),
        (('data = "program-values.csv"', ""), "data is required"),
        (("program-values.csv", "missing.csv"), "data: 'missing.csv' does not exist"),
        (("[1.0, 2.0, 4.0]", "[1.0, -2.0]"), "grid.claim_epsilon[1] must be a finite number >= 0, got -2.0"),
        (('"add-remove"', '"swap"'), "fixed.neighbours must be one of"),
        (("trials = 2000", "trials = 2000\nseed = 3"), "unknown parameter 'fixed.seed'"),
    ],
)
def test_a_bad_program_cell_is_one_line_before_the_store_is_made(examples, capsys, change, named):
    old, new = change
    text = (examples / "sweep-program.toml").read_text(encoding="utf-8")
    assert old in text
    (examples / "bad.toml").write_text(text.replace(old, new), encoding="utf-8")
    assert cli.main(["sweep", "bad.toml", "--workers", "1", "--quiet"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.count("\n") == 0 and message.startswith("pdp-audit: error: bad.toml: "), message
    assert named in message, message
    assert not (examples / "bad.sqlite").exists()
    with pytest.raises(SpecError):
        load_spec("bad.toml")
