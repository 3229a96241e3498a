"""A series of pipeline bugs whose release is rounded for publication, beside their correct twins (issue 70, item 4:
a bug behind a rounded release is refuted like the same bug unrounded).

Each bug is the last line of a realistic program rounding the release -- Python's ``round(x, 2)``, numpy's
``np.round(x, 2)``, pandas' ``.round(2)`` -- over a scale read from the private size under add/remove (Cebere,
Erb, Desfontaines, Bellet & Fitzsimons, PETS 2026, §5: the size is private under add/remove).  Unrounded, the
pure claim is refuted exactly by the scale that moved; rounded, the scale's move is read through the rounding
(:mod:`pdp_audit.audits.program.rounded_steps`): the rounded coordinate's levels in the tails of the two scales,
verified by replay, give a lower bound on δ(ε) above 0 -- an exact refutation by composition, no statistical error.
The twins (a public size, the median's own scale) are never refuted, and certified at ``law="ideal"``.

Seen failing before the tails were read: every bug INCONCLUSIVE ("the scale of a call depends on the data ... a
finding for the black box to confirm", the black box p = 1 on D's pair).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pdp_audit

EPSILON = 1.0
#: The shipped examples' program-values.csv (``pdp-audit examples DIR``): 12 values in [0, 1].
VALUES = pd.DataFrame({"value": [0.05, 0.132, 0.214, 0.295, 0.377, 0.459, 0.541, 0.623, 0.705, 0.786, 0.868, 0.95]})
#: A survey's published size (public: it does not move with the data).
PUBLISHED_SIZE = 12
#: The twins' noise, 25% above what the sum's move of 1/N needs: the shipped values are not dyadic, so their float
#: sum moves by 1/N plus a rounding, and a composition exactly at ε would be left undecided (no margin certifies).
TWIN_SCALE = 1.25 / (PUBLISHED_SIZE * EPSILON)


def _clipped(data):
    return np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)


def mean_private_size(data, rng):
    """Bug: the mean's noise of scale 1/(nε) with n = len(data), private under add/remove; rounded to cents."""
    x = _clipped(data)
    return round(float(x.mean() + rng.laplace(0.0, 1.0 / (len(x) * EPSILON))), 2)


def mean_private_size_numpy(data, rng):
    x = _clipped(data)
    return float(np.round(x.mean() + rng.laplace(0.0, 1.0 / (len(x) * EPSILON)), 2))


def mean_private_size_pandas(data, rng):
    x = _clipped(data)
    return pd.Series({"mean": x.mean() + rng.laplace(0.0, 1.0 / (len(x) * EPSILON))}).round(2)


def mean_published_size(data, rng):
    """The twin: the sum over the published size moves by 1/N when a record is added or removed."""
    return round(float(_clipped(data).sum() / PUBLISHED_SIZE + rng.laplace(0.0, TWIN_SCALE)), 2)


def mean_published_size_numpy(data, rng):
    total = _clipped(data).sum() / PUBLISHED_SIZE
    return float(np.round(total + rng.laplace(0.0, TWIN_SCALE), 2))


def mean_published_size_pandas(data, rng):
    total = _clipped(data).sum() / PUBLISHED_SIZE
    return pd.Series({"mean": total + rng.laplace(0.0, TWIN_SCALE)}).round(2)


def median_mean_scale(data, rng):
    """Bug: a median released with the mean's noise scale 1/(nε), n private under add/remove."""
    x = _clipped(data)
    return round(float(np.median(x) + rng.laplace(0.0, 1.0 / (len(x) * EPSILON))), 2)


def median_domain_scale(data, rng):
    """The twin: a median of values in [0, 1] moves by at most 1 when a record is added or removed."""
    return round(float(np.median(_clipped(data)) + rng.laplace(0.0, 1.0 / EPSILON)), 2)


PAIRS = [
    pytest.param(mean_private_size, mean_published_size, id="mean-round"),
    pytest.param(mean_private_size_numpy, mean_published_size_numpy, id="mean-np-round"),
    pytest.param(mean_private_size_pandas, mean_published_size_pandas, id="mean-pandas-round"),
    pytest.param(median_mean_scale, median_domain_scale, id="median-round"),
]


def _audit(program, law="as-implemented"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pdp_audit.audit_program(
            program, VALUES, EPSILON, 0.0, bounds=(0, 1), trials=100, seed=0, search="named", draw_sets=2, law=law
        )


def _summary(run) -> list:
    return [(c.id, c.verdict, c.note[:240]) for c in run.checks]


@pytest.mark.tier2(representatives=("mean-round",))
@pytest.mark.parametrize(("bug", "twin"), PAIRS)
def test_the_rounded_bug_is_refuted_by_composition_and_its_twin_certified(bug, twin):
    run = _audit(bug)
    checks = {c.id: c for c in run.checks}
    assert run.verdict == "fail", _summary(run)
    assert checks["program-composition"].verdict == "fail", _summary(run)
    assert "read through a rounding" in checks["program-composition"].note, _summary(run)
    assert _audit(twin).verdict != "fail", _summary(_audit(twin))
    certified = _audit(twin, law="ideal")
    assert certified.verdict == "pass", _summary(certified)
