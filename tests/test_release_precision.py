"""Precision by dtype (issue 26, item 5): the loss resolution (mechanisms/base.py) and the noise view's affinity
tolerance and escape slack (verify/estimators/rare.py) follow the floating-point type of the releases.

On main, float32 releases of correct mechanisms were inconclusive at 1e5 releases per world: the loss resolution
2^-32 split the atom of a Laplace loss that float32 rounding spreads over ~1e-7, and the affinity tolerance 1e-8 (and
the escape slack 1e-9) refused the float32 Gaussian view, leaving importance sampling without an upper bound.  Each
audit below is decided at the default false-alarm probability α = 1e-6 with a fixed seed; float64 keeps its
constants exactly (the baseline of every built-in command is byte-identical).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdp_audit
from pdp_audit.mechanisms.base import (
    LOSS_RESOLUTION,
    at_loss_resolution,
    grid_through,
    loss_resolution,
    release_epsilon,
)
from pdp_audit.mechanisms.release_precision_pairs import GaussianF16Cells, GaussianF32, LaplaceF16, LaplaceF32
from pdp_audit.verify.estimators import rare

TRIALS = 100_000
F32_EPS, F64_EPS = float(np.finfo(np.float32).eps), float(np.finfo(np.float64).eps)


def _verdicts(run) -> dict[str, str]:
    return {c.id: c.verdict for c in run.checks}


@pytest.mark.parametrize("epsilon,delta", [(1.0, 1e-5), (3.0, 1e-8)])
def test_a_correct_float32_gaussian_passes_at_1e5(epsilon, delta):
    """σ calibrated at δ/10: on main both DP checks were inconclusive ("the loss is not affine in the noise")."""
    pair = GaussianF32(pdp_audit.gaussian_sigma(epsilon, delta / 10))
    run = pdp_audit.audit_pair(pair, epsilon, delta, trials=TRIALS, seed=0)
    assert run.verdict == "pass", pdp_audit.describe(run)
    assert {c.id for c in run.checks} == {"loss-consistency", "noise-view", "dp-forward", "dp-reverse"}


def test_a_float32_gaussian_with_half_the_noise_still_fails():
    pair = GaussianF32(0.5 * pdp_audit.gaussian_sigma(1.0, 1e-5))
    run = pdp_audit.audit_pair(pair, 1.0, 1e-5, trials=TRIALS, seed=0)
    assert run.verdict == "fail" and _verdicts(run)["dp-forward"] == "fail", pdp_audit.describe(run)


# the offset case in the fast run (the float grid moves with it); the other epsilons in the slow run
@pytest.mark.parametrize(
    "epsilon,offset",
    [pytest.param(1.0, 0.0, marks=pytest.mark.slow), pytest.param(0.3, 0.0, marks=pytest.mark.slow), (0.7, 100.0)],
)
def test_a_correct_float32_laplace_passes_at_1e5(epsilon, offset):
    """(ε, 0)-DP claimed as (ε, 1e-3): on main the atom at ε split and dp-forward was inconclusive (δ̂ ≈ 3e-4 at
    ε = 1); ε = 0.3 is not on the float32 grid (its atom must round with the threshold), 100 moves every release
    to a coarser float32 grid."""
    # the atom at ε must not make a correct mechanism fail; it passes with the margin the loss-scale band needs
    at_epsilon = pdp_audit.audit_pair(LaplaceF32(1 / epsilon, offset), epsilon, 1e-3, trials=TRIALS, seed=0)
    assert at_epsilon.verdict != "fail" and _verdicts(at_epsilon)["loss-consistency"] == "pass"
    run = pdp_audit.audit_pair(LaplaceF32(1.5 / epsilon, offset), epsilon, 1e-3, trials=TRIALS, seed=0)
    assert run.verdict == "pass", pdp_audit.describe(run)


def test_a_float32_laplace_with_half_the_scale_still_fails():
    """b = 1/(2ε): a true ε of 2 claimed as (1, 1e-3)."""
    run = pdp_audit.audit_pair(LaplaceF32(0.5), 1.0, 1e-3, trials=TRIALS, seed=0)
    assert run.verdict == "fail" and _verdicts(run)["dp-forward"] == "fail", pdp_audit.describe(run)


def test_float32_pairs_pass_the_contract_suite():
    pdp_audit.check_pair(GaussianF32(2.0))
    pdp_audit.check_pair(LaplaceF32(1.0))


def test_float64_keeps_its_constants_exactly():
    assert loss_resolution(F64_EPS) == LOSS_RESOLUTION == 2.0**-32
    assert loss_resolution(release_epsilon(np.zeros(3), np.zeros(3, dtype=np.int64))) == 2.0**-32
    assert rare.affine_rtol(F64_EPS) == rare.AFFINE_RTOL == 1e-8
    losses = np.random.default_rng(0).standard_normal(1000) * 3
    expected = np.rint(losses / 2.0**-32) * 2.0**-32  # the float64 rounding as it always was
    assert at_loss_resolution(losses).tobytes() == expected.tobytes()
    assert at_loss_resolution(losses, loss_resolution(F64_EPS)).tobytes() == expected.tobytes()


def test_float32_scales_both_tolerances():
    """2^13 ulps of 1 in the releases' type for the loss grid, 2^10 for the view's affinity: 2^-10 and 2^-13 for
    float32 (the coarser of releases and losses counts)."""
    assert release_epsilon(np.zeros(2, np.float32), np.zeros(2)) == F32_EPS
    assert loss_resolution(F32_EPS) == 2.0**-10
    assert rare.affine_rtol(F32_EPS) == 2.0**-13
    # moving L by at most half the resolution changes each likelihood ratio by less than 5e-4
    assert math.expm1(loss_resolution(F32_EPS) / 2) < 5e-4


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.23968, 0.05124, math.log(3)])
def test_the_float32_grid_goes_through_epsilon_and_keeps_its_atoms_whole(epsilon):
    """An atom at ±ε, or at ±ε/2 (a Laplace mechanism calibrated with a margin of 2), computed with float32 noise
    rounds to one value: ±ε are grid points, ε/2 is a grid point too (never a midpoint, where a spread atom would
    split).  On the plain 2^-10 grid the atom at ε = 2.23968 split (a fifth of its draws on the other side)."""
    step = grid_through(loss_resolution(F32_EPS), epsilon)
    assert loss_resolution(F32_EPS) / 2 < step <= loss_resolution(F32_EPS)
    for atom in (epsilon, -epsilon, epsilon / 2):
        spread = np.float32(atom) + np.arange(-40, 41) * np.spacing(np.float32(atom))
        assert np.unique(at_loss_resolution(spread, step)).size == 1, atom
    assert at_loss_resolution(np.array([epsilon, -epsilon]), step) == pytest.approx([epsilon, -epsilon], rel=1e-12)
    # float64 keeps its grid
    assert grid_through(LOSS_RESOLUTION, epsilon) == LOSS_RESOLUTION


def test_the_float32_view_is_affine_and_its_draws_do_not_escape():
    view = GaussianF32(pdp_audit.gaussian_sigma(1.0, 1e-6))
    tail = rare.rare_tail(view, 1.0, "D||D'", 20_000, seed=1)
    assert tail.point.affine and tail.point.release_epsilon == F32_EPS
    assert tail.escapes == 0 and tail.certified


def test_the_float16_loss_resolution_separates_the_losses():
    """2^13·eps was 8 for float16: every loss rounded to 0.  Capped at max(2^-10, ε/64)."""
    f16 = loss_resolution(float(np.finfo(np.float16).eps))
    assert f16 == 8.0
    from pdp_audit.mechanisms.base import separating_resolution

    assert separating_resolution(f16, 1.0) == 1 / 64 and separating_resolution(f16, 0.01) == 2.0**-10
    assert separating_resolution(loss_resolution(F32_EPS), 1.0) == loss_resolution(F32_EPS)  # float32 unchanged
    assert separating_resolution(LOSS_RESOLUTION, 1.0) == LOSS_RESOLUTION


@pytest.mark.parametrize(
    "pair,epsilon,delta",
    [(GaussianF16Cells(4.0), 1.0, 1e-2), (LaplaceF16(), 1.2, 1e-3)],
    ids=["gaussian-cells", "laplace"],
)
def test_a_correct_float16_pair_passes(pair, epsilon, delta):
    """δ(1) of the continuous Gaussian of σ = 4 is 2.5e-3 and float16 rounding (post-processing) only lowers it; the
    Laplace of scale 1 is (1, 0)-DP, claimed at 1.2 (without a view, a loss with an atom exactly at ε is inconclusive
    at any precision).  On main both FAILED (every loss rounded to 0)."""
    run = pdp_audit.audit_pair(pair, epsilon, delta, trials=TRIALS, seed=0)
    assert run.verdict == "pass", pdp_audit.describe(run)


@pytest.mark.parametrize(
    "pair,epsilon,delta",
    [(GaussianF16Cells(4.0, sampler_sigma=2.0), 1.0, 1e-2), (LaplaceF16(sampler_scale=0.5), 1.2, 1e-3)],
    ids=["gaussian-narrow-sampler", "laplace-narrow-sampler"],
)
def test_a_broken_float16_pair_fails_for_its_fault(pair, epsilon, delta):
    """The sampler half as wide as its loss says: loss-consistency (and the DP checks) fail, not every check at
    once for a rounding artefact."""
    run = pdp_audit.audit_pair(pair, epsilon, delta, trials=TRIALS, seed=0)
    assert run.verdict == "fail"
    assert _verdicts(run)["loss-consistency"] == "fail"
