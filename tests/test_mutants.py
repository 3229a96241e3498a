"""The mutant zoo (verify/mutants.py): every mutant must fail, by one of the checks meant to catch it, and its
correct twin must pass -- at the quick budget (2e4 releases per world), fixed seeds, α = 1e-6 per run.  A
mutant the suite stops catching fails the build here."""

import json

import pytest

from verify import mutants as zoo
from verify.cli.main import main


@pytest.mark.parametrize("mutant", zoo.MUTANTS, ids=lambda m: m.id)
def test_every_mutant_is_caught_and_its_twin_passes(mutant):
    outcome = zoo.run_mutant(mutant, zoo.QUICK_TRIALS)
    assert outcome.verdict == "fail", (mutant.id, outcome.verdict)
    assert set(outcome.caught_by) & set(mutant.expected), (mutant.id, outcome.caught_by, mutant.expected)
    assert outcome.twin_verdict == "pass", (mutant.id, outcome.twin_failing)


def test_the_zoo_covers_at_least_fifteen_distinct_bugs():
    ids = [m.id for m in zoo.MUTANTS]
    assert len(ids) >= 15 and len(set(ids)) == len(ids)


def test_cli_table_json_and_pdf(tmp_path, capsys):
    out, pdf = tmp_path / "m.json", tmp_path / "m.pdf"
    assert main(["mutants", "--quick", "--json", str(out), "--report", str(pdf)]) == 0
    doc = json.loads(out.read_text())
    assert doc["caught"] == doc["total"] == len(zoo.MUTANTS)
    row = doc["mutants"][0]
    assert {"id", "description", "caught_by", "trials", "verdict"} <= set(row) and row["trials"] == zoo.QUICK_TRIALS
    assert pdf.read_bytes().startswith(b"%PDF")
    assert "17 of 17 caught" in capsys.readouterr().out.replace(str(len(zoo.MUTANTS)), "17")


def test_a_missed_mutant_makes_the_command_fail(tmp_path, monkeypatch, capsys):
    """A 'mutant' that is in fact correct is not caught: the table says MISSED and the exit code is 1."""
    correct = zoo.Mutant("not-a-bug", "the correct Gaussian mechanism", ("dp-forward",), zoo._twin, zoo._twin)
    monkeypatch.setattr(zoo, "MUTANTS", (correct,))
    assert main(["mutants", "--quick", "--json", str(tmp_path / "m.json")]) == 1
    assert "MISSED" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--trials", "10"], "--trials must be in"),
        (["--alpha", "2"], "--alpha must be in [1e-50, 1)"),
        (["--alpha", "1e-320"], "--alpha must be in [1e-50, 1)"),  # found by the fuzz run: scipy warnings
        (["--seed", "-1"], "--seed must be >= 0"),  # found by the fuzz run: exit 4
    ],
)
def test_bad_options_are_one_line(args, needle, capsys):
    assert main(["mutants", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
