"""Post-processing proved, not assumed (issue 83, item 3): a release is credited with the privacy of its noise only
where it is the same map of the noise on D and on D′ -- R_D′(η) = R_D(η + Δ) across the noise's range, checked by
replay (:mod:`pdp_audit.audits.program.same_map`).

A map that moves with the data is affine at the recorded draws on both sides, and its shift reads as the noise's:
``max(s + Lap(1), s)`` -- the exact sum half of the time -- was certified at ``--law ideal``, as were a clamp to a
range read from the data and a clamp at the dataset's size; a threshold at s/2 was undecided on a noisy coordinate
at some draw sets, its map not named.  Each is now a finding ("the release on D′ is not D's at the noise moved by the
shifts read (a post-processing that moves with the data, or a shift misread)"), never certified; the black box
refutes the first on its witness.  So is a rounding the probe reads as affine with a wrong coefficient (its shift
misread: an ε = 1.2 sum rounded to cents was certified).  The common correct programs -- a clamp at a constant, a
maximum with 0, a rounding, a histogram, a mean by a public n -- still certify: their map is the same on D and D′,
to the proven rounding of the replays.

Seen failing on main (7c9814f): the hostile maximum, the two clamps and the cents' sum certified (exit 0); the
threshold's finding did not name its map; no pair counted its map's samples.

Every audit is exact but for the black box's confirmation, at α = 1e-6 with a fixed seed.
"""

from __future__ import annotations

import numpy as np
import pytest

import pdp_audit

ALPHA = 1e-6
TRIALS = 200
#: Values whose float sums are exact (dyadic): a sum of sevenths moved by a record of 1 moves by 1 + 2⁻⁵², which is
#: not certified at ε exactly (Casacuberta et al., CCS 2022) -- a different question from this one.
DYADIC = np.array([0.0, 0.125, 0.25, 0.5, 0.5, 0.75, 1.0, 0.25])
LABELS = np.array([0, 0, 1, 1, 1, 2, 3, 3, 0, 1])
#: A public bound (not read from the data).
PUBLIC_N = 8


def _sum(data):
    return float(np.clip(np.nan_to_num(data), 0.0, 1.0).sum())


def hostile_max(data, rng):
    """Bug: the exact sum half of the time -- an atom at s on D that D′ = D with s + 1 never shows (ε = ∞)."""
    s = _sum(data)
    return max(s + rng.laplace(0.0, 1.0), s)


def threshold_at_half(data, rng):
    """Bug: the noisy sum released above s/2 only -- a threshold that moves with the data."""
    s = _sum(data)
    v = s + rng.laplace(0.0, 1.0)
    return v if v > s / 2 else 0.0


def clamp_to_data_range(data, rng):
    """Bug: the noisy sum clamped to a range read from the data, n·[min, max] -- its ends move with the data."""
    x = np.clip(np.nan_to_num(data), 0.0, 1.0)
    return float(np.clip(x.sum() + rng.laplace(0.0, 1.0), len(x) * x.min(), len(x) * x.max()))


def clamp_at_size(data, rng):
    """Bug under add-remove: a clamp at the private size -- an atom at n on D, none at n on D′ of n + 1 records."""
    return float(np.clip(_sum(data) + rng.laplace(0.0, 1.0), 0.0, len(data)))


MOVING = (hostile_max, threshold_at_half, clamp_to_data_range, clamp_at_size)


def clamp_at_public_n(data, rng):
    return float(np.clip(_sum(data) + rng.laplace(0.0, 1.0), 0.0, PUBLIC_N))


def maximum_with_zero(data, rng):
    return max(float((np.asarray(data) == 2).sum()) + rng.laplace(0.0, 1.0), 0.0)


def rounded(data, rng):
    return round(_sum(data) + rng.laplace(0.0, 2.0), 2)


def histogram(data, rng):
    counts = np.array([(np.asarray(data) == c).sum() for c in range(4)], dtype=float)
    return counts + rng.laplace(0.0, 1.0, 4)


def mean_by_public_n(data, rng):
    return (_sum(data) + rng.laplace(0.0, 2.0)) / PUBLIC_N


CORRECT = {
    clamp_at_public_n: DYADIC,
    maximum_with_zero: LABELS,
    rounded: DYADIC,
    histogram: LABELS,
    mean_by_public_n: DYADIC,
}


def _audit(program, data):
    bounds = None if data is LABELS else (0, 1)
    return pdp_audit.audit_program(
        program, data, epsilon=1.0, trials=TRIALS, seed=0, alpha=ALPHA, law="ideal", bounds=bounds
    )


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


@pytest.fixture(scope="module")
def moving():
    return {program.__name__: _audit(program, DYADIC) for program in MOVING}


@pytest.mark.parametrize("name", [p.__name__ for p in MOVING])
def test_a_map_that_moves_with_the_data_is_not_certified(moving, name):
    run = moving[name]
    assert run.exit_code in (1, 3), [(c.id, c.verdict, c.note[:200]) for c in run.checks]
    assert _check(run, "program-composition").verdict != "pass"
    structure = _check(run, "program-structure")
    assert "a post-processing that moves with the data" in structure.note, structure.note


def test_the_hostile_maximum_is_refuted_by_the_black_box_on_its_witness(moving):
    """max(s + Lap(1), s): P[R = s] = 1/2 on D, 0 on D′ -- refuted at once on the pair whose map moved."""
    run = moving["hostile_max"]
    assert run.exit_code == 1
    confirm = _check(run, "program-confirm")
    assert confirm.verdict == "fail" and confirm.pvalue <= ALPHA
    assert confirm.details["witness"] == _check(run, "program-structure").details["witness"]


# tier 1 keeps a rounding and a histogram; the other maps' certificates run in tier 2
@pytest.mark.tier2(representatives=("rounded", "histogram"))
@pytest.mark.parametrize("program", list(CORRECT), ids=lambda p: p.__name__)
def test_a_correct_post_processing_still_certifies(program):
    run = _audit(program, CORRECT[program])
    assert run.exit_code == 0, [(c.id, c.verdict, c.note[:300]) for c in run.checks]


def rounded_sum(data, rng):
    """Bug: values in [0, 12] summed with Laplace noise of scale 10 (ε = 1.2), rounded to cents."""
    return round(float(np.clip(np.nan_to_num(data), 0.0, 12.0).sum()) + rng.laplace(0.0, 10.0), 2)


def test_a_rounding_read_as_affine_is_not_certified_on_a_misread_shift():
    """The probe's shifts of ±w = ±2⁻⁷ cross a cent's boundary both ways at this draw: the cents' rounding reads as
    affine with coefficient 0.01/w = 1.28, and the shift of 12 as 12/1.28 = 9.375 (pure ε 0.9375 ≤ 1).  Main
    certified this ε = 1.2 program so; D′'s release at the noise moved by the misread shift is not D's, and the pair
    is a finding."""
    run = pdp_audit.audit_program(
        rounded_sum, np.array([1.0, 2.0, 3.0, 4.0]), 1.0, 0.0, trials=100, seed=0, law="ideal", bounds=(0, 12),
        search="named", draw_sets=2,
    )  # fmt: skip
    assert run.exit_code != 0 and _check(run, "program-composition").verdict != "pass"
    assert "a shift misread" in _check(run, "program-structure").note


def test_the_check_compares_every_pair_it_credits():
    """The clamp at a public n is checked on both sides of each of its two kinks and at the range's ends: the
    condition holds there to the proven rounding of the replays, not by a tolerance."""
    from pdp_audit.audits.program import search
    from pdp_audit.audits.program.analysis import analyse

    found = analyse(clamp_at_public_n, DYADIC, "add-remove", (0, 1), (1.0, 0.0), 0, 2, search.Budget())
    moved = [p for p in found.pairs if p.upper is not None and p.upper.pure > 0]
    assert moved and all(p.comparison.map_samples >= 7 and p.comparison.map_moved is None for p in moved)


def noise_notch(data, rng):
    """Bug: the noisy sum and whether its noise fell in (2.9, 3.1): the flag puts the sum within 0.2 of s + 3 with
    probability about 0.0047 on D, and D′ = D with s + 1 never gives that event (δ ≥ 0.0047 at every ε)."""
    eta = rng.laplace(0.0, 1.0)
    return np.array([_sum(data) + eta, float(2.9 < eta < 3.1)])


@pytest.mark.xfail(strict=True, reason="a known hole (session 33): the same map is checked on a grid of the noise")
def test_a_notch_narrower_than_the_grid_is_not_certified():
    """The same map is checked at samples of the noise's line (:mod:`pdp_audit.audits.program.same_map`): a piece of
    R_D narrower than the grid's step is not seen, so this release is certified at (1.2, 1e-4) though its δ is about
    0.0047.  Strict: once the check reads the map whole (a notch seen, or the run left undecided), this test passes
    and its mark must go."""
    run = pdp_audit.audit_program(
        noise_notch, DYADIC, 1.2, 1e-4, trials=TRIALS, seed=0, alpha=ALPHA, law="ideal", bounds=(0, 1)
    )
    assert run.exit_code != 0, [(c.id, c.verdict, c.note[:200]) for c in run.checks]
