"""Rare-event tails (verify/estimators/rare.py): importance sampling against exact curves, plain Monte Carlo, broken
weights.

Every statistical assertion uses fixed seeds and a family-wise false-alarm probability ≤ 1e-6: the
m comparisons of a test are Bonferroni-corrected, each interval at confidence 1 − 1e-6/m.
"""

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_exact
from pdp_audit.mechanisms.analyze_gauss import GoeAnalyzeGaussPair
from pdp_audit.mechanisms.catalogue import registered
from pdp_audit.verify.core.checks import CheckSpec, finalize
from pdp_audit.verify.estimators import rare
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.tails import hockey_stick
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_claim import DpClaim

FALSE_ALARM = 1e-6
DIRECTIONS = ("D||D'", "D'||D")
N = 200_000
SIGMA = g.analytic_sigma(1.0, 1e-5)  # 3.7306


def gaussian_pair(dim: int = 3, sensitivity: float = 1.0, sigma: float = SIGMA) -> g.GaussianPair:
    delta_z = np.zeros(dim)
    delta_z[0] = sensitivity
    return g.GaussianPair(np.arange(dim, dtype=float), np.arange(dim, dtype=float) + delta_z, sigma)


def exact_tails(epsilon: float, eta: float) -> tuple[float, float]:
    """P_P[ℓ > ε] and P_Q[ℓ > ε] for a Gaussian loss: ℓ ~ N(η²/2, η²) under P, N(−η²/2, η²) under Q."""
    return float(stats.norm.sf((epsilon - eta**2 / 2) / eta)), float(stats.norm.sf((epsilon + eta**2 / 2) / eta))


def inside(value: float, interval: tuple[float, float]) -> bool:
    return interval[0] <= value <= interval[1]


# ------------------------------------------------------------------------------------------------
# Against the exact Gaussian-mechanism curve (Balle & Wang 2018, Theorem 8), down to δ = 1e-12
# ------------------------------------------------------------------------------------------------
TARGETS = (1e-3, 1e-6, 1e-9, 1e-12)
CONFIGS = ((1, 1.0, SIGMA), (5, 2.0, 3.0))


def test_gaussian_tails_match_the_exact_curve_down_to_1e12():
    # 2 configs x 4 targets x 2 directions x 3 quantities = 48 two-sided intervals at 1 − 1e-6/48 each.
    m = len(CONFIGS) * len(TARGETS) * len(DIRECTIONS) * 3
    alpha = FALSE_ALARM / m
    for seed, (dim, sens, sigma) in enumerate(CONFIGS):
        pair = gaussian_pair(dim, sens, sigma)
        for target in TARGETS:
            eps = g.analytic_epsilon(target, sigma, sens)
            exact = g.analytic_delta(eps, sigma, sens)
            tail_p, tail_q = exact_tails(eps, sens / sigma)
            for direction in DIRECTIONS:
                tail = rare.rare_tail(pair, eps, direction, N, seed)
                assert tail.certified and tail.escapes == 0 and tail.point.affine
                assert inside(exact, tail.interval(alpha)), (
                    target,
                    direction,
                    tail.estimate,
                    tail.interval(alpha),
                    exact,
                )
                assert inside(tail_p, tail.tail_p.interval(alpha)), (target, direction, "P_P")
                assert inside(tail_q, tail.tail_q.interval(alpha)), (target, direction, "P_Q")
                # resolution: the interval is a few per cent wide whatever δ (deterministic for the seed)
                assert tail.delta.relative_half_width(alpha) < 0.1, tail.delta.relative_half_width(alpha)


def test_dominating_point_of_the_gaussian_mechanism_is_the_closed_form():
    # ℓ = η²/2 − η uᵀw under D (u = Δ/‖Δ‖): the half-space {ℓ > ε} is at distance (ε − η²/2)/η along −u.
    pair = gaussian_pair(4, 1.5, 2.0)
    eta, eps = 0.75, 2.0
    for direction, sign in zip(DIRECTIONS, (-1.0, 1.0)):
        point = rare.dominating_point(pair, eps, direction)
        expected = np.zeros(4)
        expected[0] = sign * (eps - eta**2 / 2) / eta
        np.testing.assert_allclose(point.shift, expected, rtol=1e-9, atol=1e-12)
        assert point.affine and point.converged
        # delta_factor is the maximum of e^{-tz}(1 - e^{-γz}) over z ≥ 0 (checked on a fine grid)
        z = np.linspace(0, 5, 200_001)
        t, gam = point.distance, eta
        assert point.delta_factor() == pytest.approx(np.max(np.exp(-t * z) * -np.expm1(-gam * z)), rel=1e-6)


def test_goe_release_through_the_diagonal_adapter():
    # The GOE release has no noise view of its own; mean(world) + diag noise_sd is its exact law.
    rng = np.random.default_rng(4)
    x = rng.standard_normal(3)
    pair = GoeAnalyzeGaussPair(np.eye(3) * 5, np.outer(x, x), sigma3=2.0)
    eps = g.analytic_epsilon(1e-10, 1.0, pair.eta)
    exact = g.analytic_delta(eps, 1.0, pair.eta)
    alpha = FALSE_ALARM / 2  # two directions
    for direction in DIRECTIONS:
        tail = rare.rare_tail(pair, eps, direction, N, 7)
        assert tail.certified and inside(exact, tail.interval(alpha)), (direction, tail.interval(alpha), exact)


# ------------------------------------------------------------------------------------------------
# Against plain Monte Carlo where both are feasible
# ------------------------------------------------------------------------------------------------
def test_gaussian_agrees_with_plain_monte_carlo():
    # At δ ≈ 1e-3 both estimators resolve the tails.  Each comparison: the plain Clopper–Pearson interval
    # (1 − a/2) and the importance-sampled interval (1 − a/2) both cover with prob ≥ 1 − a, so they
    # overlap; 2 directions x 3 quantities, a = 1e-6/6.
    pair = gaussian_pair(3, 1.0, SIGMA)
    eps = g.analytic_epsilon(1e-3, SIGMA)
    a = FALSE_ALARM / 6
    loss_d, loss_dp = sample_privacy_loss(pair, "D", 1_000_000, 3), sample_privacy_loss(pair, "D'", 1_000_000, 3)
    for direction, (lp, lq) in zip(DIRECTIONS, ((loss_d, loss_dp), (-loss_dp, -loss_d))):
        plain = hockey_stick(lp, lq, [eps], a / 2)
        tail = rare.rare_tail(pair, eps, direction, N, 3)
        plain_ci = (plain.lower_bound(0, a / 4), plain.upper_bound(0, a / 4))
        assert max(plain_ci[0], tail.lower_bound(a / 2)) <= min(plain_ci[1], tail.upper_bound(a / 2))
        for est, count, n in ((tail.tail_p, plain.count_p[0], plain.n_p), (tail.tail_q, plain.count_q[0], plain.n_q)):
            lo, hi = stats.beta.ppf([a / 4, 1 - a / 4], [count, count + 1], [n - count + 1, n - count])
            assert max(lo, est.lower_bound(a / 2)) <= min(hi, est.upper_bound(a / 2)), (direction, count, est.estimate)


@pytest.mark.slow
def test_objective_perturbation_lower_bounds_agree_with_plain_monte_carlo():
    # ObjPert's loss is not affine in the noise: only the lower bound is certified.  Valid one-sided
    # comparison: rare lower bound (1 − a) ≤ plain upper bound (1 − a), a = 1e-6/8 over 4 pairs x 2 directions.
    pairs = registered()["objpert"].example_pairs(np.random.default_rng(0))
    a = FALSE_ALARM / (2 * len(pairs) * 2)
    for k, pair in enumerate(pairs):
        loss_d, loss_dp = sample_privacy_loss(pair, "D", 100_000, k), sample_privacy_loss(pair, "D'", 100_000, k)
        for direction, (lp, lq) in zip(DIRECTIONS, ((loss_d, loss_dp), (-loss_dp, -loss_d))):
            eps = float(np.quantile(lp, 0.99))  # a tail both estimators see
            plain = hockey_stick(lp, lq, [eps], a)
            tail = rare.rare_tail(pair, eps, direction, 20_000, k)
            assert not tail.point.affine and tail.point.converged
            assert tail.lower_bound(a) <= plain.upper_bound(0, a), (k, direction, tail.estimate, plain.estimate)
            assert tail.upper_bound(a) == np.inf or tail.certified


# ------------------------------------------------------------------------------------------------
# A wrong weight is caught; results depend on the seed only
# ------------------------------------------------------------------------------------------------
class DroppedNormaliser(rare.ShiftedTailSampler):
    """The classic bug: r(w) = exp(−μᵀw), forgetting the normaliser exp(‖μ‖²/2) of eq. (2)."""

    def log_weight(self, w):
        return -(w @ self.point.shift)


class FlippedShift(rare.ShiftedTailSampler):
    """Another: the weight of a shift −μ, r(w) = exp(+μᵀw + ‖μ‖²/2)."""

    def log_weight(self, w):
        mu = self.point.shift
        return w @ mu + 0.5 * float(mu @ mu)


@pytest.mark.parametrize("sampler", [DroppedNormaliser, FlippedShift])
def test_a_wrong_weight_is_caught(sampler):
    pair = gaussian_pair(2, 1.0, SIGMA)
    eps = g.analytic_epsilon(1e-10, SIGMA)
    exact = g.analytic_delta(eps, SIGMA)
    tail = rare.rare_tail(pair, eps, "D||D'", N, 0, blocks=rare.TailBlocks(sampler=sampler))
    assert not inside(exact, tail.interval(FALSE_ALARM)), tail.interval(FALSE_ALARM)
    correct = rare.rare_tail(pair, eps, "D||D'", N, 0)
    assert inside(exact, correct.interval(FALSE_ALARM))


class InsideTheSlack(rare.ShiftedTailSampler):
    """Weights 30% too large under a rounding slack of 50% (a coarse view's): draws near μ exceed the bound b inside
    the slack, so they are not escapes and are clipped to b."""

    def log_weight(self, w):
        return super().log_weight(w) + math.log1p(0.3)

    def slack(self, w, ell):
        return 0.5


def test_draws_clipped_inside_the_slack_raise_the_upper_bound():
    """A draw whose weight exceeds the bound within the rounding slack is clipped to it (not an escape); clipping
    lowers the mean, so the upper bound is multiplied by the largest such value (v ≤ peak · min(v, 1)), never left
    to the clipped mean.  Seen failing: the clipped draws' upper bound was the clipped mean's (no peak)."""
    pair = gaussian_pair(2, 1.0, SIGMA)
    eps = g.analytic_epsilon(1e-10, SIGMA)
    tail = rare.rare_tail(pair, eps, "D||D'", 20_000, 0, blocks=rare.TailBlocks(sampler=InsideTheSlack))
    assert tail.certified and tail.escapes == 0
    assert 1.2 < tail.peak <= 1.3 * (1 + 1e-12), tail.peak
    clipped = replace(tail.delta, peak=1.0).upper_bound(FALSE_ALARM)
    assert tail.upper_bound(FALSE_ALARM) == pytest.approx(tail.peak * clipped, rel=1e-12)
    assert tail.upper_bound(FALSE_ALARM) > 1.2 * clipped
    assert rare.rare_tail(pair, eps, "D||D'", 20_000, 0).peak == 1.0  # the right weights never exceed b


def test_same_seed_same_result_whatever_the_workers():
    pair = gaussian_pair(3)
    serial = rare.rare_tail(pair, 1.5, "D'||D", 150_000, 9, blocks=rare.TailBlocks(block_size=10_000))
    with ThreadPoolExecutor(3) as pool:
        parallel = rare.rare_tail(
            pair, 1.5, "D'||D", 150_000, 9, executor=pool, blocks=rare.TailBlocks(block_size=10_000)
        )
    assert (serial.delta, serial.tail_p, serial.tail_q, serial.escapes) == (
        parallel.delta,
        parallel.tail_p,
        parallel.tail_q,
        parallel.escapes,
    )
    assert (
        rare.rare_tail(pair, 1.5, "D'||D", 150_000, 10, blocks=rare.TailBlocks(block_size=10_000)).delta != serial.delta
    )


def test_bad_inputs():
    pair = gaussian_pair(2)
    with pytest.raises(ValueError, match="direction"):
        rare.rare_tail(pair, 1.0, "sideways", 100, 0)
    with pytest.raises(ValueError, match="n must be"):
        rare.rare_tail(pair, 1.0, "D||D'", 1, 0)
    with pytest.raises(TypeError, match="noise-level view"):
        rare.noise_view(object())
    with pytest.raises(ValueError, match="alpha"):
        rare.empirical_bernstein_radius(0.1, 10, 0.0)


# ------------------------------------------------------------------------------------------------
# The audit switches to importance sampling below the plain resolution
# ------------------------------------------------------------------------------------------------
def dp_check(pair, delta_claim, trials, sigma, direction="D||D'"):
    eps = 1.0
    loss_d, loss_dp = sample_privacy_loss(pair, "D", trials, 1), sample_privacy_loss(pair, "D'", trials, 1)
    plain = hockey_stick(loss_d, loss_dp, [eps], FALSE_ALARM)
    return builders.dp_claim_check(
        DpClaim(CheckSpec("dp", "DP", "claim", "δ(ε) ≤ δ", "test"), direction, eps, delta_claim),
        plain,
        pair,
        trials,
        1,
        exact=gaussian_exact.delta_upper(eps, sigma),  # proven: a float δ may sit an ulp above the claim
    )


def test_builder_uses_plain_tails_where_they_resolve_the_claim():
    assert builders.plain_sampling_resolves(1e-4, 1_000_000) and not builders.plain_sampling_resolves(1e-10, 1_000_000)
    check = dp_check(gaussian_pair(2, 1.0, g.analytic_sigma(1.0, 1e-3)), 1e-3, 100_000, g.analytic_sigma(1.0, 1e-3))
    assert "count_p" in check.details and "shift_norm" not in check.details
    assert check.sampling == "plain"


def test_tight_claim_at_1e10_passes_and_a_subtle_violation_fails():
    # σ calibrated to (1, 1e-10) passes through the closed form and a consistent interval; σ 10% too
    # small has δ(1) ≈ 1.8e-9 — 18x the claim but invisible to 1e5 plain draws — and fails.
    sigma = g.analytic_sigma(1.0, 1e-10)
    good = dp_check(gaussian_pair(2, 1.0, sigma), 1e-10, 100_000, sigma)
    bad_sigma = 0.9 * sigma
    bad = dp_check(gaussian_pair(2, 1.0, bad_sigma), 1e-10, 100_000, bad_sigma, "D'||D")
    assert good.sampling == bad.sampling == "importance"
    good, bad = finalize([good, bad], FALSE_ALARM)
    assert "shift_norm" in good.details and good.verdict == "pass", good.ci
    assert bad.verdict == "fail", (bad.estimate, bad.ci, bad.pvalue)
    assert g.analytic_delta(1.0, bad_sigma) > 10 * 1e-10
    plain_only = builders.tail_claim_check(
        CheckSpec("p", "t", "c", "f", "s"),
        hockey_stick(
            sample_privacy_loss(gaussian_pair(2, 1.0, bad_sigma), "D", 100_000, 1),
            sample_privacy_loss(gaussian_pair(2, 1.0, bad_sigma), "D'", 100_000, 1),
            [1.0],
            FALSE_ALARM,
        ),
        1.0,
        1e-10,
    )
    (plain_only,) = finalize([plain_only], FALSE_ALARM)
    assert plain_only.verdict != "fail"  # what the switch buys


def test_cli_claim_delta_1e10_passes_and_broken_sigma_fails(tmp_path):
    import json

    common = ["run", "gaussian", "--claim-delta", "1e-10", "--report", "none", "--quiet"]
    assert main(common + ["--trials", "200000", "--json", str(tmp_path / "ok.json")]) == 0
    doc = json.loads((tmp_path / "ok.json").read_text())
    forward = next(c for c in doc["checks"] if c["id"] == "dp-forward")
    assert forward["verdict"] == "pass" and forward["details"]["certified_upper_bound"]
    assert forward["ci"][1] < 1.1e-10  # the interval itself resolves δ = 1e-10
    broken = 0.9 * g.analytic_sigma(1.0, 1e-10)
    # refuted at p = 1e-60 from 5e3 draws a world up (seed 0): a tenth of the budget the pass needs decides it
    assert main(common + ["--trials", "20000", "--sigma", repr(broken), "--json", str(tmp_path / "bad.json")]) == 1
    verdicts = {c["id"]: c["verdict"] for c in json.loads((tmp_path / "bad.json").read_text())["checks"]}
    assert verdicts["dp-forward"] == verdicts["dp-reverse"] == "fail"


def test_an_adapted_view_is_not_compared_with_its_own_sampler():
    """A pair with ``mean``/``noise_sd`` and no view of its own is read through the diagonal adapter; the view's
    structure checks draw through the pair's ``sample()`` or not at all -- never through the adapter's own sampler,
    which would compare the view with itself (a check that cannot fail)."""
    from pdp_audit.verify.evidence.pair_validation import noise_view_check

    class MeanNoiseSd:
        output_dim = 1
        noise_sd = np.array([1.0])

        def mean(self, world):
            return np.array([1.0 if world == "D" else 0.0])

        def sample(self, world, size, rng):
            return self.mean(world) + rng.standard_normal((size, 1))

        def privacy_loss(self, o):
            return (o[:, 0] ** 2 - (o[:, 0] - 1.0) ** 2) / 2.0

    pair = MeanNoiseSd()
    rng = np.random.default_rng(0)
    losses = {w: pair.privacy_loss(pair.sample(w, 4000, rng)) for w in ("D", "D'")}
    check = noise_view_check(pair, losses, seed=0)
    assert check is not None and "loss_mismatches" not in check.details
