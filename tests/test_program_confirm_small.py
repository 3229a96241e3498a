"""The black box's confirmation on a smaller pair (:mod:`pdp_audit.audits.program.smaller`): where the witness pair
on D needs more releases than the budget, the finding is confirmed on a pair made of D's first records.

``program_mean:size_as_public`` (the guide's mean whose noise scale is 1/len(data)) is refuted exactly on D's 12
records, but an event test there would need about 1.4e7 releases per world; on D₁ = record 0 of D and D₁ with a
record at the domain's upper end added (scale 1 against 1/2) about 850.  At the guide's budget (2,000 releases per
world, α = 1e-6, seed 0) it is confirmed there.  Seen failing: with the search disabled (``smaller.SIZES`` empty) the
confirmation is inconclusive (p = 1), which :func:`test_without_the_search_the_mean_is_not_confirmed` pins.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import pdp_audit
from pdp_audit.audits.program import smaller

ALPHA = 1e-6
TRIALS = 2000
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _examples_mean():
    spec = importlib.util.spec_from_file_location("program_mean_example", EXAMPLES / "program_mean.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MEAN = _examples_mean()
DATA = pd.read_csv(EXAMPLES / "program-values.csv")


def _audit(program, data=DATA, **options):
    options = {"epsilon": 1.0, "bounds": (0, 1), "trials": TRIALS, "seed": 0, "alpha": ALPHA, **options}
    return pdp_audit.audit_program(program, data, **options)


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


@pytest.mark.tier2
def test_the_size_as_public_mean_is_confirmed_on_a_smaller_pair():
    run = _audit(MEAN.size_as_public)
    structure, confirm = _check(run, "program-structure"), _check(run, "program-confirm")
    assert run.verdict == "fail" and structure.verdict == "fail"
    # the witness stays a pair on D (a removal: each moves the scale 1/len(data) alike; the one of largest verified
    # bound is named), and the confirmation names it beside the smaller pair it ran on
    witness = structure.details["witness"]
    assert witness.startswith("remove record ") and confirm.details["witness"] == witness
    assert confirm.verdict == "fail" and confirm.adjusted_pvalue <= ALPHA, confirm.note
    small = confirm.details["smaller_pair"]
    assert small["base_records"] == [0] and small["neighbour"] == "add a record at the domain's upper end"
    assert small["releases_needed"] <= TRIALS < confirm.details["witness_releases_needed"]
    # the scale's move refutes the claim exactly: the confirmation is a corroboration, said first
    assert confirm.note.startswith("A corroboration only (program-structure refutes the claim exactly): one look")
    assert (
        "Run on a smaller pair: D₁ = record 0 of D, and D₁′ = D₁ with a record at the domain's upper end added"
        in confirm.note
    )
    assert "corroborates it on a smaller pair, D₁ = record 0 of D" in run.review.reading


@pytest.mark.tier2
def test_without_the_search_the_mean_is_not_confirmed(monkeypatch):
    """The same audit with no base tried: D's witness pair would need about 1.4e7 releases per world, beyond a
    corroboration of the exact refutation, so the black box is not run, and says why."""
    monkeypatch.setattr(smaller, "SIZES", ())
    run = _audit(MEAN.size_as_public)
    confirm = _check(run, "program-confirm")
    assert run.verdict == "fail" and confirm.verdict != "fail" and confirm.pvalue is None
    assert "smaller_pair" not in confirm.details and confirm.details["not_run"], confirm.note
    assert "would need about 1.4e+07 releases per world" in confirm.note, confirm.note


@pytest.mark.tier2
def test_the_fixed_mean_never_fails_nor_confirms_on_a_smaller_pair():
    run = _audit(MEAN.fixed)
    assert run.verdict != "fail", [(c.id, c.verdict, c.note[:200]) for c in run.checks]
    assert all("smaller_pair" not in c.details for c in run.checks)


def test_a_certified_program_never_searches_smaller_pairs(monkeypatch):
    def searched(*args):
        raise AssertionError("a certified program searched smaller pairs")

    def noisy_sum(data, rng):
        return np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)

    monkeypatch.setattr(smaller, "smallest", searched)
    assert _audit(noisy_sum, law="ideal").verdict == "pass"


def needs_three(data, rng):
    """The size-as-public mean of a program that refuses fewer than three records."""
    if len(data) < 3:
        raise ValueError("at least three records")
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return values.mean() + rng.laplace(0.0, 1.0 / len(values))


@pytest.mark.tier2
def test_a_program_raising_on_small_bases_skips_them():
    """Bases of one and two records raise (skipped, never a finding), and so does the base of three's neighbour with
    a record removed: the pair kept is the base of three with a record added."""
    config = SimpleNamespace(
        claim_epsilon=1.0, claim_delta=0.0, neighbours="add-remove", seed=0, alpha=ALPHA, domain_of=lambda data: (0, 1)
    )
    witness = _audit(needs_three, trials=TRIALS)
    assert _check(witness, "program-record").verdict == "pass"
    assert "program's own fault" not in " ".join(c.note for c in witness.checks)
    from pdp_audit.audits.program.analysis import analyse

    pair = analyse(needs_three, DATA, "add-remove", (0.0, 1.0), (1.0, 0.0), 0, 1).worst(confirmable=True)
    # the search itself (the audit's confirmation of this exact refutation is a corroboration, run only where a
    # pair's exact law says it refutes within its short budget)
    small = smaller.smallest(needs_three, DATA, config, pair)
    assert small is not None and small.details()["base_records"] == [0, 1, 2], small
    assert small.details()["neighbour"].startswith("add ")
    assert smaller.smallest(lambda data, rng: 1 / 0, DATA, config, pair) is None  # raises everywhere: none


@pytest.mark.parametrize(("k", "name"), [(1, "D₁ = record 0 of D"), (3, "D₃ = records 0–2 of D")])
def test_a_base_is_named_by_its_records(k, name):
    assert smaller.Smaller(k, None, None, 1.0, "").name == name  # type: ignore[arg-type]
