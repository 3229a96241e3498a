"""Rounded and branched releases of known bug classes refuted on the pair their reading names (issue 83, item 5).

A release rounded for publication must be refuted where its unrounded bug would be.  Before, the black box confirmed
the witness of every finding (:meth:`~pdp_audit.audits.program.results.Analysis.worst`), and a pair whose upper
composition exceeds the claim by its readings' rounding alone (pure ε 1 + 3e-13, from a rounding's bisected edges)
ranks above a noisy coordinate that differs: the NaN fallback ``0.0 if math.isnan(v) else round(v, 1)`` was
confirmed on that pair, where no release can show anything, and left undecided (exit 3), while its NaN pair -- the
one the structure check names -- refutes at once.  A threshold at s/2 before a rounding showed no structural finding
at all (its map moves with the data: :mod:`pdp_audit.audits.program.same_map`) and was undecided too.  Now the
confirmation runs first on the structure check's witness (:func:`~pdp_audit.audits.program.confirmation.witness`).

The redraw loop (its acceptance [0, len(data)] moves with the data) and categories read from the data were refuted
on their right pair on main already at these budgets; they are kept here as the same class's guard.  Each fixed twin
-- NaN mapped, a clamp at a public bound instead of the loop, categories declared, a threshold at a constant -- is
not refuted at ``--law ideal``.

Seen failing on main (7c9814f): the NaN fallback and the rounded threshold at s/2 ended exit 3.

Every audit is exact but for the black box's confirmation, at α = 1e-6 with a fixed seed: a twin is refuted by chance
with probability at most 1e-6.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdp_audit

ALPHA = 1e-6
TRIALS = 500
VALUES = np.array([0.2, 0.5, 0.9, 0.1])
ONES = np.ones(4)
LABELS = np.array(["a", "a", "b", "b", "c"])
#: Public bounds and categories (not read from the data).
PUBLIC_N = 4
THRESHOLD = 0.5
CATEGORIES = ("a", "b", "c")


def _sum(data):
    """The clipped sum, NaN where a record is NaN (``np.clip`` passes it)."""
    return float(np.clip(np.asarray(data, dtype=float), 0.0, 1.0).sum())


def _mapped_sum(data):
    return float(np.clip(np.nan_to_num(np.asarray(data, dtype=float), nan=0.0, posinf=1.0, neginf=0.0), 0, 1).sum())


def nan_fallback(data, rng):
    """Bug: a NaN record makes the sum NaN, and the fallback releases the constant 0.0 on every draw."""
    v = _sum(data) + rng.laplace(0.0, 1.0)
    return 0.0 if math.isnan(v) else round(v, 1)


def nan_mapped(data, rng):
    v = _mapped_sum(data) + rng.laplace(0.0, 1.0)
    return 0.0 if math.isnan(v) else round(v, 1)


def redraw(data, rng):
    """Bug: a redraw loop instead of a clamp -- its acceptance [0, n] moves with the private size."""
    s, n = _mapped_sum(data), len(data)
    while True:
        v = s + rng.laplace(0.0, 1.0)
        if 0 <= v <= n:
            return round(v)


def clamped(data, rng):
    return round(min(max(_mapped_sum(data) + rng.laplace(0.0, 1.0), 0.0), PUBLIC_N))


def categories_from_data(data, rng):
    """Bug (OpenDP-style): the categories read from the data -- removing the only "c" removes its count."""
    labels = np.asarray(data)
    return {c: round(float((labels == c).sum()) + rng.laplace(0.0, 1.0), 1) for c in sorted(set(labels.tolist()))}


def categories_declared(data, rng):
    labels = np.asarray(data)
    return {c: round(float((labels == c).sum()) + rng.laplace(0.0, 1.0), 1) for c in CATEGORIES}


def threshold_at_half(data, rng):
    """Bug: the rounded noisy sum released above s/2 only -- a threshold that moves with the data."""
    s = _mapped_sum(data)
    v = s + rng.laplace(0.0, 1.0)
    return round(v, 1) if v > s / 2 else 0.0


def threshold_at_constant(data, rng):
    v = _mapped_sum(data) + rng.laplace(0.0, 1.0)
    return round(v, 1) if v > THRESHOLD else 0.0


#: Each bug, its data, its fixed twin, the pairs that show it (None: any the structure check names) and the black
#: box's releases per world that refute it there (the threshold's window is a seventh of the releases on D).
CASES = {
    "nan_fallback": (nan_fallback, VALUES, nan_mapped, ("add a record of NaN",), TRIALS),
    "threshold_at_half": (threshold_at_half, VALUES, threshold_at_constant, None, 2 * TRIALS),
    "redraw": (redraw, ONES, clamped, None, TRIALS),
    "categories_from_data": (
        categories_from_data,
        LABELS,
        categories_declared,
        ("remove record 4 (the last)", "add a record of a class the data lacks in field 'value'"),
        TRIALS,
    ),
}


def _audit(program, data, trials=TRIALS):
    bounds = None if data is LABELS else (0, 1)
    return pdp_audit.audit_program(
        program, data, epsilon=1.0, trials=trials, seed=0, alpha=ALPHA, law="ideal", bounds=bounds
    )


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


@pytest.mark.tier2(representatives=("nan_fallback", "redraw"))
@pytest.mark.parametrize("name", list(CASES))
def test_a_rounded_or_branched_bug_is_refuted_on_the_pair_its_reading_names(name):
    program, data, _, witnesses, trials = CASES[name]
    run = _audit(program, data, trials)
    assert run.exit_code == 1, [(c.id, c.verdict, c.note[:300]) for c in run.checks]
    structure, confirm = _check(run, "program-structure"), _check(run, "program-confirm")
    named = structure.details["witness"]
    assert witnesses is None or named in witnesses, named
    # refuted on the named pair itself (its own test, not a screened one joined to it)
    assert confirm.details["witness"] == named and "screened" not in confirm.details, confirm.note
    assert confirm.pvalue <= ALPHA


@pytest.mark.tier2(representatives=("nan_fallback",))
@pytest.mark.parametrize("name", list(CASES))
def test_its_fixed_twin_is_not_refuted(name):
    _, data, twin, _, _ = CASES[name]
    run = _audit(twin, data)
    assert run.exit_code in (0, 3), [(c.id, c.verdict, c.note[:300]) for c in run.checks]
