"""The black box's false-alarm series (issue 70): correct mechanisms whose releases are exact doubles -- integers,
points of a grid, zeros of both signs -- audited at the default statistic and at ``events-numbers``, never refuted;
and each one's broken twin (its noise 4× too small, or its shift doubled), refuted: the series can fail.

Every claim holds *as implemented* with margin (the proof in each mechanism's docstring); the audits run at α =
1e-6 with fixed seeds, so a correct mechanism's refutation here has probability at most 1e-6 -- unless the test is
not valid.  It was not: the logistic score was a BLAS product whose rounding depended on where a release fell in its
block, so an event {score ≥ t} with t a repeated release's score held that release in some blocks and not in others,
and Mironov's snapping mechanism was refuted at ε ≥ 1.33 against its true ε = 1
(:func:`pdp_audit.audits.blackbox.learned_statistics.linear_scores`).

The common argument (Mironov, CCS 2012, §5).  Each mechanism releases g(v + N) for a deterministic, monotone-in-
pieces post-processing g (rounding to a grid with ``np.round``, whose zero keeps the sign of its argument in
[−Λ/2, 0), and clamping) of a value v in {v_D, v_D'} plus noise N drawn by numpy from a 53-bit uniform through a
monotone map.  Each release value r is then {U : fl(v + N(U)) ∈ I_r} for an interval I_r of doubles: an interval of
the uniform, of probability the ideal law's mass of an interval whose ends move by a few ulps of the release range,
± 2^−52.  Every release value here has ideal mass ≥ 1e-6 in both worlds (the clamps keep the tails beyond the
precision of the uniform), so its probability is the ideal one to a relative 1e-8, and the ideal law of the
release, a post-processing of a (1/b)-DP Laplace or geometric release for a shift of one, is e^{1/b}-close: ε_true ≤
1/b + 1e-7 against each claim's ε = 1.1/b.  Randomized response draws one comparison of a 53-bit uniform with 3/4:
its probabilities are exact.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdp_audit

#: The clamp of the noisy values: every release value keeps ideal mass ≥ 1e-6 (module docstring).
BOUND = 10.0
ALPHA = 1e-6
#: Fresh releases per world: the whole budget for a correct mechanism (the broken twins stop early).
TRIALS = 20_000


def _audit(pair, epsilon: float, statistic: str, trials: int = TRIALS, seed: int = 0):
    budget = pdp_audit.BlackBoxBudget(statistic=statistic)
    run = pdp_audit.audit_blackbox(pair, epsilon, 0.0, trials=trials, seed=seed, alpha=ALPHA, budget=budget)
    (check,) = run.checks
    return run.verdict, check


class Snapping:
    """Mironov's snapping mechanism (CCS 2012, §5) on the grid Λ = 1: clamp v to [−B, B], add Laplace noise of
    scale b (``rng.laplace``), ``np.round`` to an integer (−0.0 for values in [−1/2, 0)), clamp to [−B, B]; v = 0 on
    D and ``shift`` on D'.  For shift 1 the release is a post-processing of v + Lap(b), (1/b)-DP: the module
    docstring's argument, each release value an interval of v + N of mass ≥ P(Lap(1) ≥ 10.5) ≈ 1.4e-5 at b = 1
    (the ±B atoms), ≥ (1 − e^{−1/2})/2 · e^{−10} ≈ 9e-6 inside."""

    def __init__(self, scale: float = 1.0, shift: float = 1.0, grid: float = 1.0):
        self.scale, self.shift, self.grid = scale, shift, grid

    def sample(self, world, size, rng):
        value = np.clip(0.0 if world == "D" else self.shift, -BOUND, BOUND)
        noisy = value + rng.laplace(0.0, self.scale, (size, 1))
        # division and multiplication by a power of two are exact: the grid's points, rounded half to even
        return np.clip(np.round(noisy / self.grid) * self.grid, -BOUND, BOUND)


class GeometricCount:
    """A count (3 on D, 3 + ``shift`` on D') plus two-sided geometric noise G − G' (p = 1 − e^{−1/b}), clamped to
    [0, B]: ε = 1/b for shift 1 (Ghosh, Roughgarden & Sundararajan 2009); integer releases, exact in float64.
    numpy's geometric sampler at p ≥ 1/3 compares one uniform with running float sums of the masses: each value's
    probability is its mass to a relative 1e-8 while the mass is ≥ 1e-6, which the clamp keeps (the tails beyond
    it, of mass ≥ P(G − G' ≥ 7) ≈ e^{−7}/(1 + e^{−1}) at b = 1, are gathered at 0 and B)."""

    def __init__(self, scale: float = 1.0, shift: float = 1.0):
        self.scale, self.shift = scale, shift

    def sample(self, world, size, rng):
        p = 1 - math.exp(-1 / self.scale)
        noise = rng.geometric(p, (size, 1)) - rng.geometric(p, (size, 1))
        count = 3.0 if world == "D" else 3.0 + self.shift
        return np.clip(count + noise, 0.0, BOUND)


class ZeroSignResponse:
    """Randomized response whose answer is the sign of a zero: the true bit (1 on D, 0 on D') kept with probability
    ``keep`` = 3/4 (``rng.random() < keep``: exactly 3/4, the uniform's 2^53 points and 3·2^51 below 3/4), released
    as −0.0 for 1 and 0.0 for 0: ε = log(keep/(1 − keep)) = log 3 ≈ 1.0986 (Warner 1965).  The release's whole
    content is the sign bit: an audit that reads −0.0 and 0.0 as one value can never refute the broken twin."""

    def __init__(self, keep: float = 0.75):
        self.keep = keep

    def sample(self, world, size, rng):
        bit = (1 if world == "D" else 0) ^ (rng.random((size, 1)) >= self.keep)
        return np.where(bit == 1, -0.0, 0.0)


class RoundedNoisyValue:
    """``np.round(x + noise)``: x = 0 on D, ``shift`` on D', Laplace noise of scale b, rounded to an integer (−0.0
    for x + noise in [−1/2, 0)) and clamped to [−B, B] (the snapping mechanism without its first clamp, on inputs
    inside it): (1/b)-DP for shift 1 by the module docstring's argument."""

    def __init__(self, scale: float = 1.0, shift: float = 1.0):
        self.scale, self.shift = scale, shift

    def sample(self, world, size, rng):
        x = 0.0 if world == "D" else self.shift
        return np.clip(np.round(x + rng.laplace(0.0, self.scale, (size, 1))), -BOUND, BOUND)


class ClampedCount:
    """A count (2 on D, 2 + ``shift`` on D') plus Laplace noise of scale b, rounded and clamped to [0, B] as a
    published count is: ``np.clip`` keeps the −0.0 that ``np.round`` gives in [−1/2, 0), so zeros of both signs are
    released; (1/b)-DP for shift 1 by the module docstring's argument (the atom at 0 is the interval (−∞, 1/2] of
    count + noise, its sign the sub-interval it lies in)."""

    def __init__(self, scale: float = 1.0, shift: float = 1.0):
        self.scale, self.shift = scale, shift

    def sample(self, world, size, rng):
        count = 2.0 if world == "D" else 2.0 + self.shift
        return np.clip(np.round(count + rng.laplace(0.0, self.scale, (size, 1))), 0.0, BOUND)


#: name -> (the correct mechanism, its broken twin, the claimed ε: 1.1/b for the Laplace and geometric ones, above
#: log 3 for randomized response).  The twins: the noise 4× too small (true ε = 4.4× the claim's 1/1.1), the shift
#: doubled (2/1.1), or randomized response keeping the bit with probability 0.95 (log 19 ≈ 2.94).
SERIES = {
    "snapping": (Snapping(), Snapping(scale=0.25), 1.1),
    "laplace-on-a-grid": (Snapping(grid=0.25), Snapping(grid=0.25, shift=2.0), 1.1),
    "geometric-count": (GeometricCount(), GeometricCount(shift=2.0), 1.1),
    "zero-sign-response": (ZeroSignResponse(), ZeroSignResponse(keep=0.95), 1.2),
    "rounded-noisy-value": (RoundedNoisyValue(), RoundedNoisyValue(scale=0.25), 1.1),
    "clamped-count": (ClampedCount(), ClampedCount(scale=0.25), 1.1),
}


@pytest.mark.parametrize("statistic", ["events", "events-numbers"])
@pytest.mark.parametrize("name", list(SERIES))
def test_a_correct_exact_release_is_never_refuted(name, statistic):
    correct, _, epsilon = SERIES[name]
    verdict, check = _audit(correct, epsilon, statistic)
    assert verdict == "inconclusive", (name, statistic, check.ci, check.note)


@pytest.mark.parametrize("name", list(SERIES))
def test_the_broken_twin_is_refuted(name):
    _, broken, epsilon = SERIES[name]
    verdict, check = _audit(broken, epsilon, "events")
    assert verdict == "fail", (name, check.ci, check.note)


def test_the_snapping_mechanism_at_a_seed_that_refuted_it():
    """Seed 12 at 1e5 fresh releases: the logistic score's event held the repeated release −1 in some blocks and
    not in others (its score computed 1 ulp apart), and the snapping mechanism was refuted at ε ≥ 1.33 against its
    claim of 1.1 (true ε = 1).  A release's score is now one double whatever its block."""
    verdict, check = _audit(Snapping(), 1.1, "events-numbers", trials=100_000, seed=12)
    assert verdict == "inconclusive", (check.ci, check.note)
    assert check.ci[0] <= 1.0 + 1e-6


def test_randomized_response_on_the_sign_of_a_zero_is_read():
    """The outcome score keys an atom by its bits: −0.0 and 0.0 are two outcomes, and the twin that keeps the bit
    with probability 0.95 is refuted at the default statistic with its claim of log 3 + 0.1."""
    verdict, check = _audit(ZeroSignResponse(keep=0.95), 1.2, "events")
    assert verdict == "fail" and check.details.get("statistic") == "outcomes", (check.ci, check.note)
