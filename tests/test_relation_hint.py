"""The neighbour-relation hint (issue 86, item 5; :mod:`pdp_audit.audits.program.relation_hint`): a program whose calls
follow the dataset's size n -- noise of shape (n,), a scale 1/n -- diverges or is rescaled under add-remove; the
structure check's note and page 1 then name ``--neighbours replace-one``, where the same program replays with the same
calls.  A hint, never a verdict: the verdicts are those of the run without it.  A program whose scale follows its data
(not n) gets none.

Seen failing on main: no note named ``--neighbours replace-one`` (the module did not exist)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import decision
from pdp_audit.audits.program.relation_hint import PAGE_HINT, _follows
from pdp_audit.reports.layout_check import checking_pages
from pdp_audit.reports.review_page import review_pages

DATA = np.array([0, 1, 2, 3, 5, 6, 7, 8]) / 8
OPTIONS = {"epsilon": 1.0, "delta": 0.0, "trials": 200, "seed": 0, "bounds": (0, 1), "law": "ideal", "search": "named"}


def per_record(data, rng):
    """Noise on each record: the release has len(data) coordinates."""
    values = np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0)
    return values + rng.laplace(0.0, 1.0, size=len(values))


def public_mean(data, rng):
    """A mean whose count n is public: noise of scale 1/(ε n)."""
    values = np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0)
    return values.sum() / len(values) + rng.laplace(0.0, 1.0 / len(values))


def scale_from_data(data, rng):
    """Noise whose scale follows the data's sum, not n: no relation makes it comparable."""
    values = np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0)
    return values.sum() + rng.laplace(0.0, 1.0 + values.sum())


def _structure(run):
    return next(c for c in run.checks if c.id == "program-structure")


@pytest.mark.parametrize("program", [per_record, public_mean], ids=["shape-n", "scale-1/n"])
def test_calls_that_follow_the_size_name_replace_one_and_replay_there(program, monkeypatch, tmp_path):
    run = pdp_audit.audit_program(program, DATA, **OPTIONS)
    structure = _structure(run)
    assert "--neighbours replace-one" in structure.note and structure.details["relation_hint"], structure.note
    assert run.review is not None and PAGE_HINT in run.review.reading, run.review.reading
    figures = review_pages(run.review)  # page 1 still fits on one page, without overlaps or text off the page
    try:
        assert len(figures) == 1
    finally:
        for figure in figures:
            plt.close(figure)
    found: list[str] = []
    with checking_pages(found):
        pdp_audit.write_report(run, pdf=tmp_path / "hint.pdf")
    assert not found, found
    # the hint changes no verdict: the same run without it decides the same
    monkeypatch.setattr(decision, "replace_one_hint", lambda pairs, records: None)
    without = pdp_audit.audit_program(program, DATA, **OPTIONS)
    assert [(c.id, c.verdict) for c in without.checks] == [(c.id, c.verdict) for c in run.checks]
    assert "replace-one" not in _structure(without).note and run.verdict == without.verdict
    # under replace-one D and D′ have one size: the same calls on every neighbour
    replaced = pdp_audit.audit_program(program, DATA, **{**OPTIONS, "neighbours": "replace-one"})
    assert _structure(replaced).verdict == "pass", _structure(replaced).note


def test_a_scale_that_follows_the_data_gets_no_hint():
    run = pdp_audit.audit_program(scale_from_data, DATA, **OPTIONS)
    structure = _structure(run)
    assert structure.verdict != "pass" and "replace-one" not in structure.note, structure.note


def test_only_numbers_that_follow_n_are_read_as_following_it():
    """A shape moved by n′ − n, a scale ∝ 1/n or ∝ n to the six printed digits; nothing else."""
    assert _follows("laplace(shape=(8,), scale=1)", "laplace(shape=(7,), scale=1)", 8, 7)
    assert _follows("laplace(shape=(8, 3), scale=1)", "laplace(shape=(9, 3), scale=1)", 8, 9)
    assert _follows("laplace(shape=(), scale=0.125)", "laplace(shape=(), scale=0.142857)", 8, 7)  # 1/n
    assert _follows("normal(shape=(), scale=0.8)", "normal(shape=(), scale=0.7)", 8, 7)  # ∝ n
    assert not _follows("laplace(shape=(8,), scale=1)", "laplace(shape=(6,), scale=1)", 8, 7)  # moved by 2
    assert not _follows("laplace(shape=(), scale=1)", "laplace(shape=(), scale=2)", 8, 7)  # the data's doing
    assert not _follows("laplace(shape=(), scale=0.125)", "normal(shape=(), scale=0.142857)", 8, 7)  # another call
    assert not _follows("laplace(shape=(), scale=1)", "laplace(shape=(), scale=1)", 8, 7)  # nothing differs
    assert not _follows("laplace(shape=(), scale=0.125)", "laplace(shape=(), scale=0.1429)", 8, 7)  # 4 digits off
