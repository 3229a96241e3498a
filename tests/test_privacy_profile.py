"""A DP check with its privacy profile (verify/evidence/privacy_profile.py): which estimate decides the claim, the
``sampling`` field that says so, the pass rule with a bound, and the profile's importance-sampled points.

``sampling`` is "importance" exactly where importance sampling decided the check: the evidence then carries the
importance sampler's details (``shift_norm``), and the plain tails' counts otherwise.
"""

import numpy as np
import pytest

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.verify.core.checks import CheckSpec
from pdp_audit.verify.estimators.attack import likelihood_ratio_attack
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.tails import hockey_stick
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence import privacy_profile as pp
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.profile_figures import log_lines_figure, tail_curves_figure

SPEC = CheckSpec("dp", "DP", "claim", "δ(ε) ≤ δ", "test")
SIGMA = g.analytic_sigma(1.0, 1e-5)
TRIALS = 4_000
GRID = np.linspace(0.0, 2.0, 9)  # the claimed ε = 1 is its fifth point


class FlatLoss:
    """Both worlds release the same noise: the privacy loss is 0, flat in the noise (no shift to sample with)."""

    output_dim = 1
    noise_dim = 1
    noise_sigma = np.array([1.0])

    def sample(self, world, size, rng):
        return rng.standard_normal((size, 1))

    def release_from_noise(self, world, noise):
        return noise

    def privacy_loss(self, outputs):
        return np.zeros(len(outputs))


class WithoutNoiseView:
    """A Gaussian pair seen only through ``sample`` and ``privacy_loss``: importance sampling cannot draw from it."""

    def __init__(self, pair):
        self.pair = pair

    def sample(self, world, size, rng):
        return self.pair.sample(world, size, rng)

    def privacy_loss(self, outputs):
        return self.pair.privacy_loss(outputs)


def gaussian_pair() -> g.GaussianPair:
    return g.GaussianPair(np.zeros(2), np.array([1.0, 0.0]), SIGMA)


def losses(pair) -> tuple[np.ndarray, np.ndarray]:
    return sample_privacy_loss(pair, "D", TRIALS, 3), sample_privacy_loss(pair, "D'", TRIALS, 3)


def decide(pair, delta: float, direction: str = "D||D'", **plan):
    claim = DpClaim(SPEC, direction, 1.0, delta)
    sampled = losses(pair.pair if isinstance(pair, WithoutNoiseView) else pair)
    return pp.dp_check_with_profile(claim, pair, sampled, Draws(TRIALS, 3, 1e-6), pp.ProfilePlan(GRID, **plan))


@pytest.mark.parametrize(
    "pair,delta,plan,expected",
    [
        (gaussian_pair(), 1e-2, {}, "plain"),  # δ·n = 40 expected exceedances: plain tails resolve the claim
        (gaussian_pair(), 1e-5, {}, "importance"),  # δ·n = 0.04: importance sampling decides
        (gaussian_pair(), 1e-5, {"importance": False}, "plain"),  # the family does without importance sampling
        (WithoutNoiseView(gaussian_pair()), 1e-5, {}, "plain"),  # no noise-level view to shift
        (FlatLoss(), 1e-5, {}, "plain"),  # a flat loss offers no shift: plain tails decide
    ],
    ids=["resolved", "rare", "plain-only", "no-view", "flat-loss"],
)
def test_sampling_is_importance_exactly_where_importance_sampling_decided(pair, delta, plan, expected):
    check, profile = decide(pair, delta, **plan)
    assert check.sampling == expected
    assert ("shift_norm" in check.details) == (expected == "importance")
    assert ("count_p" in check.details) == (expected == "plain")
    if expected == "importance":  # the verdict's own draws are the profile's point at the claimed ε
        point = profile.points[profile.claim_index]
        assert check.estimate == point.estimate and check.interval(1e-3) == point.interval(1e-3)
    else:
        assert profile.claim_index not in profile.points


def test_the_builders_set_sampling_where_they_build_tail_evidence():
    pair = gaussian_pair()
    loss_d, loss_dp = losses(pair)
    plain = builders.tail_claim_check(SPEC, hockey_stick(loss_d, loss_dp, GRID, 1e-6), 1.0, 1e-2)
    assert plain.sampling == "plain"
    for delta, expected in ((1e-2, "plain"), (1e-5, "importance")):
        check = builders.dp_claim_check(
            DpClaim(SPEC, "D||D'", 1.0, delta), hockey_stick(loss_d, loss_dp, [1.0], 1e-6), pair, TRIALS, 3
        )
        assert check.sampling == expected and ("shift_norm" in check.details) == (expected == "importance")
    attack = builders.attack_check(SPEC, likelihood_ratio_attack(loss_d, loss_dp, 1e-5, 1e-6), 1.0, 1e-5)
    exact = builders.exact_check(SPEC, True, 0.0, "an identity")
    assert attack.sampling is None and exact.sampling is None  # not a claim decided from tails


def test_a_flat_loss_is_explained_in_the_note_unless_the_family_says_so_itself():
    explained, _ = decide(FlatLoss(), 1e-5)
    silent, _ = decide(FlatLoss(), 1e-5, explain_fallback=False)
    assert "no shift to use" in explained.note and "no shift to use" not in silent.note


def test_figure_points_are_sought_only_where_importance_sampling_may_draw():
    _, profile = decide(gaussian_pair(), 1e-2, figure_draws=500)
    assert profile.importance_draws == 500 and sorted(profile.points) == list(range(1, len(GRID)))
    assert profile.importance_epsilons == [float(e) for e in GRID[1:]]
    _, plain_only = decide(gaussian_pair(), 1e-2, figure_draws=500, importance=False)
    assert plain_only.importance_draws == 0 and not plain_only.points


def test_a_bound_supports_a_pass_only_with_an_interval_consistent_with_it():
    delta = 1e-5
    assert pp.bound_supported((0.0, 0.5 * delta), delta, None)  # the interval alone lies below the claim
    assert pp.bound_supported((0.0, 1.0), delta, 0.5 * delta)  # the bound holds, the interval's lower end below it
    assert not pp.bound_supported((0.6 * delta, 1.0), delta, 0.5 * delta)  # the interval contradicts the bound
    assert not pp.bound_supported((0.0, 1.0), delta, 2 * delta)  # the bound does not satisfy the claim
    check, _ = decide(gaussian_pair(), delta, bound=0.5 * delta)
    assert check.supports((0.0, 1.0), 1e-6) and not check.supports((0.6 * delta, 1.0), 1e-6)


def test_the_figures_draw_the_profile():
    exact = np.array([g.analytic_delta(float(e), SIGMA) for e in GRID])
    check, profile = decide(gaussian_pair(), 1e-5, curve=exact, figure_draws=500)
    curves = tail_curves_figure(profile, "plain", "importance sampling")(1e-3)
    assert list(curves.curves) == ["D‖D', plain", "D‖D', importance sampling"]
    assert curves.epsilon_claim == 1.0 and curves.delta_claim == 1e-5
    sampled = curves.curves["D‖D', importance sampling"]
    assert sampled.estimate[profile.claim_index] == check.estimate and np.isnan(sampled.estimate[0])
    lines = log_lines_figure(profile, "exact δ(ε)", "at the pair", 1e-6)(1e-3)
    assert [line.label.split(" ")[0] for line in lines.series] == ["plain", "importance", "exact", "claim"]
    assert lines.ylabel == "δ(ε), D‖D', at the pair"


def test_an_unknown_direction_is_refused():
    with pytest.raises(ValueError, match="direction"):
        decide(gaussian_pair(), 1e-2, direction="sideways")
