"""Importance sampling for Laplace and two-sided geometric noise (verify/estimators/tilting.py), the translation view's
checks
(verify/estimators/view_structure.py) and the scale identity of the loss (verify/estimators/consistency_scale.py).

Exact values are independent computations: δ(ε) of the Laplace histogram by nested quadrature split at the loss's
kinks, of the geometric one by direct summation over the integer lattice.  Statistical assertions use fixed seeds and
thresholds whose false-alarm probability is at most 1e-6; each is shown to fail on a deliberately broken input.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy import integrate, stats

import pdp_audit
from pdp_audit.mechanisms.mutant_pairs import MovedCounts, NoisyHistogram
from pdp_audit.verify.estimators import tilting, view_structure
from pdp_audit.verify.estimators.consistency_scale import scale_identity

ALPHA = 1e-6


def _phi(n: np.ndarray | float, d: float, lam: float):
    """One coordinate's loss term λ(|n + d| − |n|) of the L1 form."""
    return lam * (np.abs(n + d) - np.abs(n))


def laplace_histogram_delta(epsilon: float, scale: float) -> float:
    """δ_{D‖D'}(ε) of :class:`NoisyHistogram` (Laplace): the loss is φ(n₀; +1) + φ(n₁; −1), n ~ Lap(0, b)², the
    other bins cancel.  Nested quadrature, each coordinate split at its kinks (−|d|, 0 or 0, |d|)."""
    lam = 1.0 / scale

    def density(n):
        return 0.5 * lam * math.exp(-lam * abs(n))

    def inner(n0):
        phi0 = _phi(n0, 1.0, lam)
        value = 0.0
        for a, b in ((-np.inf, 0.0), (0.0, 1.0), (1.0, np.inf)):
            value += integrate.quad(
                lambda n1: density(n1) * max(0.0, -math.expm1(epsilon - phi0 - _phi(n1, -1.0, lam))),
                a,
                b,
                epsabs=1e-13,
                limit=200,
            )[0]
        return density(n0) * value

    return sum(
        integrate.quad(inner, a, b, epsabs=1e-13, limit=200)[0]
        for a, b in ((-np.inf, -1.0), (-1.0, 0.0), (0.0, np.inf))
    )


def geometric_histogram_delta(epsilon: float, scale: float) -> float:
    """The same for two-sided geometric noise, P(n) ∝ e^{−|n|/b}: a sum over n₀, n₁ ∈ [−400, 400]."""
    lam = 1.0 / scale
    n = np.arange(-400, 401, dtype=float)
    p = np.tanh(lam / 2) * np.exp(-lam * np.abs(n))
    loss = _phi(n, 1.0, lam)[:, None] + _phi(n, -1.0, lam)[None, :]
    return float(np.sum(p[:, None] * p[None, :] * np.maximum(0.0, -np.expm1(epsilon - loss))))


EXACT = {"laplace": laplace_histogram_delta, "geometric": geometric_histogram_delta}


@pytest.mark.parametrize("law", ["laplace", "geometric"])
def test_the_tilted_proposal_has_an_exact_likelihood_ratio(law):
    """E_g[r·1{n₀ > t}] = P_f(n₀ > t) and E_g[r] = 1 under the clipped tilt (2e5 draws, |z| < 5.5: false alarm below
    4e-8 each); a weight off by 5% (a log Z computed for another τ) fails the same assertion."""
    pair = NoisyHistogram(1.0, 1.0, law)
    tilt = tilting.tilt_for(pair, 0.8, "D||D'")
    assert tilt.tau > 0.3 and tilt.log_bound < 0
    noise, log_r = tilt.draw(200_000, np.random.default_rng(1))
    lam = 1.0 / pair.noise_scale
    t = 3.0
    exact_tail = (
        0.5 * math.exp(-lam * t) if law == "laplace" else np.exp(-lam * np.ceil(t + 1e-12)) / (1 + np.exp(-lam))
    )

    def z_scores(log_weights):
        r = np.exp(log_weights)
        out = []
        for values, target in ((r, 1.0), (r * (noise[:, 0] > t), exact_tail)):
            out.append((values.mean() - target) / (values.std() / math.sqrt(values.size)))
        return out

    assert all(abs(z) < 5.5 for z in z_scores(log_r))
    assert any(abs(z) > 5.5 for z in z_scores(log_r + math.log(1.05)))


@pytest.mark.parametrize("law", ["laplace", "geometric"])
@pytest.mark.parametrize("epsilon", [0.9, 0.99])
def test_the_importance_sampled_delta_covers_the_exact_one(law, epsilon):
    """The tilted interval at level 1 − 1e-6 contains δ(ε) computed independently, and is tight (δ ≈ 2.5e-3 at
    ε = 0.99, where ε is 1% below the pair's pure ε = 1)."""
    pair = NoisyHistogram(1.0, 1.0, law)
    exact = EXACT[law](epsilon, pair.noise_scale)
    tail = tilting.tilted_tail(pair, epsilon, "D||D'", 100_000, seed=3)
    assert tail.certified and tail.escapes == 0
    lo, hi = tail.lower_bound(ALPHA / 2), tail.upper_bound(ALPHA / 2)
    assert lo <= exact <= hi, (lo, exact, hi)
    assert hi - lo < 0.35 * exact


@pytest.mark.parametrize(
    "law", [pytest.param("laplace", marks=pytest.mark.slow), "geometric"]
)  # one law in the fast run
def test_a_correct_histogram_at_a_tight_claim_passes_at_the_default_budget(law):
    """The correct Laplace (geometric) histogram claimed (1, 1e-6) passes at 1e5 releases per world (measured 3.3 s
    and 3.0 s on the shared 2-core machine; before, only at the 1e8 cap after ~10 min); the twin with 0.8× the noise
    scale, whose exact δ(1) is far above the claim, fails."""
    start = time.perf_counter()
    run = pdp_audit.audit_pair(
        NoisyHistogram(1.0, 1.0, law), 1.0, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal")
    )
    seconds = time.perf_counter() - start
    assert run.verdict == "pass", pdp_audit.describe(run)
    forward = next(c for c in run.checks if c.id == "dp-forward")
    assert "tilted" in forward.note and forward.ci[1] < 1e-6
    assert seconds < 120
    broken = NoisyHistogram(1.0, 0.8, law)
    assert EXACT[law](1.0, broken.noise_scale) > 0.05
    run = pdp_audit.audit_pair(broken, 1.0, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal"))
    assert {c.id: c.verdict for c in run.checks}["dp-forward"] == "fail"


class NarrowSampler(NoisyHistogram):
    """``sample()`` draws noise ``factor`` × the declared scale; the view and the loss are written for the declared
    one: every identity of the loss holds for the view, and the tilted interval would certify the view."""

    def __init__(self, factor: float, law: str = "laplace"):
        super().__init__(1.0, 1.0, law)
        self.factor = factor

    def sample(self, world, size, rng):
        noise = super().sample(world, size, rng) - self.counts(world)
        if self.noise_law == "geometric":  # the same law at the narrower scale
            p = -np.expm1(-1.0 / (self.factor * self.noise_scale))
            noise = (rng.geometric(p, noise.shape) - rng.geometric(p, noise.shape)).astype(float)
            return self.counts(world) + noise
        return self.counts(world) + self.factor * noise


@pytest.mark.tier2(representatives=("geometric",))  # Laplace views are tilted by the other laplace cases here
@pytest.mark.parametrize("law", ["laplace", "geometric"])
def test_a_sampler_narrower_than_its_declared_view_fails(law):
    """3% less noise than declared: true δ(1) > 1e-6 (exact), and the one-sample scale test of sample()'s noise
    fails ``noise-view`` at 1e5 (KS and Mood on the losses did not: p = 0.17)."""
    pair = NarrowSampler(0.97, law)
    assert EXACT[law](1.0, 0.97 * pair.noise_scale) > 1e-3
    run = pdp_audit.audit_pair(pair, 1.0, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal"))
    verdicts = {c.id: c.verdict for c in run.checks}
    assert verdicts["noise-view"] == "fail" and run.verdict == "fail", pdp_audit.describe(run)


class ScaledLoss(NoisyHistogram):
    """The loss 1% larger than the view's (and the sampler's): off the L1 form on every draw."""

    def privacy_loss(self, outputs):
        return 1.01 * super().privacy_loss(outputs)


def test_a_loss_off_the_l1_form_certifies_nothing():
    tail = tilting.tilted_tail(ScaledLoss(1.0), 0.99, "D||D'", 20_000, seed=1)
    assert tail.escapes > 0 and not tail.certified and tail.upper_bound(ALPHA) == math.inf
    run = pdp_audit.audit_pair(ScaledLoss(1.0), 1.0, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal"))
    assert {c.id: c.verdict for c in run.checks}["noise-view"] == "fail"


@pytest.mark.parametrize("law", ["gaussian", "laplace", "geometric"])
def test_the_one_sample_scale_test(law):
    """Correct noise: p > 1e-6; noise 3% narrower: p < 1e-20 (5e4 rows of 8 coordinates)."""
    rng = np.random.default_rng(5)

    class View:
        noise_dim, noise_law, noise_sigma, noise_scale = 8, law, 1.5, 1.5

        def release_from_noise(self, world, noise):
            return noise + (1.0 if world == "D" else 0.0)

        def privacy_loss(self, outputs):
            return outputs.sum(axis=1)

    found = view_structure.translation_view(View(), law)
    assert found is not None
    noise = found.draw(50_000, rng)
    assert view_structure.scale_pvalue(found, noise) > ALPHA
    narrow = found.draw(50_000, rng) * 0.97 if law != "geometric" else None
    if narrow is None:
        p = -np.expm1(-1.0 / (0.97 * 1.5))
        narrow = (rng.geometric(p, (50_000, 8)) - rng.geometric(p, (50_000, 8))).astype(float)
    assert view_structure.scale_pvalue(found, narrow) < 1e-20


def test_the_scale_identity_sees_a_loss_of_the_wrong_scale():
    """Gaussian shift, η = 2: the exact loss gives p > 1e-6, a loss written for 1.03σ p < 1e-8 (1e5 draws a world;
    measured 1e-14 to 4e-10 over 6 seeds); the Laplace loss, with its atoms at ±ε, p > 1e-6."""
    rng = np.random.default_rng(2)
    sigma = 0.5
    o_d, o_dp = 1 + sigma * rng.standard_normal(100_000), sigma * rng.standard_normal(100_000)

    def loss(o, s):
        return (2 * o - 1) / (2 * (s * sigma) ** 2)

    assert scale_identity(loss(o_d, 1.0), loss(o_dp, 1.0)).pvalue > ALPHA
    assert scale_identity(loss(o_d, 1.03), loss(o_dp, 1.03)).pvalue < 1e-8
    pair = NoisyHistogram(1.0)
    laplace = [pair.privacy_loss(pair.sample(w, 100_000, rng)) for w in ("D", "D'")]
    assert scale_identity(*laplace).pvalue > ALPHA


def test_a_budget_hint_names_a_budget_that_decides():
    """The hint of an inconclusive claim (Laplace (2/3, 0) claimed (1, 1e-3) at 5e3 releases) names more than the
    budget run, and 3× it decides (benchmarks/budget_hints.py measures more cases)."""
    from pdp_audit.mechanisms.mutant_pairs import ShiftedLaplace

    run = pdp_audit.audit_pair(ShiftedLaplace(1.5), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"), seed=0)
    assert run.verdict == "inconclusive"
    note = next(c.note for c in run.checks if c.verdict == "inconclusive")
    hint = float(note.split("About ")[1].split(" samples")[0])
    assert hint > 5_000
    assert (
        pdp_audit.audit_pair(
            ShiftedLaplace(1.5), 1.0, 1e-3, trials=pdp_audit.PairBudget(int(3 * hint), law="ideal"), seed=1
        ).verdict
        == "pass"
    )


class WideLaplace:
    """Laplace noise over ``d`` coordinates, D shifted by 1/d on each: L1 sensitivity 1, a pure (1/b, 0) pair whose
    loss bound Σ|1/d|/b rounds a hair above 1 at d = 1000 (so tilting is tried, with log Z ≈ 1700)."""

    noise_law = "laplace"

    def __init__(self, d: int = 1000, scale: float = 1.0):
        self.noise_dim = self.output_dim = d
        self.noise_scale = scale
        self.shift = np.full(d, 1.0 / d)

    def centre(self, world):
        return self.shift if world == "D" else np.zeros(self.noise_dim)

    def sample(self, world, size, rng):
        return self.centre(world) + rng.laplace(0.0, self.noise_scale, (size, self.noise_dim))

    def release_from_noise(self, world, noise):
        return self.centre(world) + noise

    def privacy_loss(self, outputs):
        gaps = np.abs(outputs - self.centre("D'")) - np.abs(outputs - self.centre("D"))
        return np.sum(gaps, axis=1) / self.noise_scale


@pytest.mark.parametrize("d", [1_000, 10_000])
def test_a_tilt_over_thousands_of_coordinates_keeps_a_useful_bound(d):
    """log-space tilt: at d = 1e3 and 1e4 coordinates whose loss bound rounds a hair above ε = 1, log B is far below 0
    and the tail certified (main: log B ≈ 1700 at d = 1e3, the tilt gave up and plain draws decided; before that,
    math.exp overflowed).  Deterministic: log B is a closed form."""
    pair = WideLaplace(d)
    tilt = tilting.tilt_for(pair, 1.0, "D||D'")
    assert tilt.eta > 1.0 and tilt.log_bound < -600
    tail, reason = tilting.try_tilted_tail(pair, 1.0, "D||D'", 500, seed=0, stream="t")
    assert reason == "" and tail.certified and 0 < tail.upper_bound(ALPHA) < 1e-300


def test_a_wide_pure_laplace_is_proven_at_a_small_budget():
    """The replayed 1000-coordinate view: its L1 form verified on every draw and η ≤ ε in exact arithmetic (η is
    1000·fl(0.001) = 1 + 2.1e-17, so ε is the double above 1; the float sum of its terms, 1 + 4.4e-16, is above
    ε, so the tilt is tried), so the view's law is (ε, 0)-DP on 1e3 draws (main: inconclusive, the tilt refused) and
    the bound of this user's pair is the replay's rate alone (issue 60, item 4: a view the suite did not build is
    evidence with a rate, 1,000 rows per world here): (ε, 1e-6) is not decided, and δ̄ is that rate.  The same view at
    1/40 of the scale (η = 40) fails.  At ε = 1 itself the proof does not hold (issue 70: no tolerance decides)."""
    from pdp_audit.reports.certified_claim import certified_claim
    from pdp_audit.verify.estimators import view_replay

    epsilon = math.nextafter(1.0, 2.0)
    run = pdp_audit.audit_pair(WideLaplace(), epsilon, 1e-6, trials=pdp_audit.PairBudget(1_000, law="ideal"))
    assert run.exit_code == 3, pdp_audit.describe(run)
    forward = next(c for c in run.checks if c.id == "dp-forward")
    assert "replayed bounded loss" in forward.note, forward.note
    rows = next(c for c in run.checks if c.id == "noise-view").details["replay"]["rows_per_world"]
    rate = view_replay.Replay(rows, 0).unseen_delta(epsilon, 1e-6)
    claim = certified_claim(run.checks)
    assert claim is not None and rate <= claim.delta <= 2 * rate, (claim, rate)
    broken = pdp_audit.audit_pair(WideLaplace(scale=1 / 40), 1.0, 1e-6, trials=pdp_audit.PairBudget(1_000, law="ideal"))
    assert broken.verdict == "fail", pdp_audit.describe(broken)


class AllCounts(MovedCounts):
    """:class:`pdp_audit.mechanisms.mutant_pairs.MovedCounts` with its exact δ(ε)."""

    def exact_delta(self, epsilon: float) -> float:
        """δ(ε) = Σ_k P(K = k)(1 − e^{ε − η + 2λk})₊ (scipy's binomial pmf; both directions are equal by symmetry)."""
        lam = 1 / self.noise_scale
        k = np.arange(self.noise_dim + 1)
        pmf = stats.binom.pmf(k, self.noise_dim, math.exp(-lam) / (1 + math.exp(-lam)))
        return float(np.sum(pmf * np.maximum(0.0, -np.expm1(epsilon - self.noise_dim * lam + 2 * lam * k))))


@pytest.mark.parametrize("epsilon", [0.6, 0.9, 0.999999])
def test_the_tilt_along_the_loss_covers_and_resolves_a_small_delta(epsilon):
    """20 geometric counts, δ(ε) from 2e-4 down to 1.6e-12: the interval at 1 − 1e-6 holds the exact δ and is within
    15% of it on 2e4 draws (main: estimate 5e-19 and upper bound 2e10 at ε = 0.9, δ = 1.5e-7)."""
    pair = AllCounts()
    exact = pair.exact_delta(epsilon)
    tail = tilting.tilted_tail(pair, epsilon, "D||D'", 20_000, seed=4)
    lo, hi = tail.lower_bound(ALPHA / 2), tail.upper_bound(ALPHA / 2)
    assert lo <= exact <= hi <= 1.15 * exact, (lo, exact, hi)


def test_a_small_delta_claim_of_many_geometric_counts_is_decided_at_the_default_budget():
    """The issue's case: 20 geometric counts, δ(0.9) = 1.5e-7 claimed (0.9, 1e-6): passes at 1e5 (main: inconclusive,
    interval [0, 4.6e-4]); the twin with scale 16 (δ(0.9) = 3.5e-5) fails (main: inconclusive)."""
    correct, broken = AllCounts(), AllCounts(scale=16.0)
    assert correct.exact_delta(0.9) < 2e-7 and broken.exact_delta(0.9) > 3e-5
    # the suite's MovedCounts, its law by construction, keeps its view's bound (AllCounts, written here, would not)
    correct, broken = MovedCounts(), MovedCounts(scale=16.0)
    run = pdp_audit.audit_pair(correct, 0.9, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal"))
    assert run.verdict == "pass", pdp_audit.describe(run)
    assert {
        c.id: c.verdict
        for c in pdp_audit.audit_pair(broken, 0.9, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal")).checks
    }["dp-forward"] == "fail"


class FlaggedHistogram(NoisyHistogram):
    """:class:`NoisyHistogram` whose release carries two more columns the noise does not move -- a version tag
    before the counts and a flag after them -- equal in both worlds unless ``leaky_flag`` (then the flag is the world:
    the releases tell the worlds apart, δ(ε) = 1)."""

    def __init__(self, law: str = "laplace", factor: float = 1.0, leaky_flag: bool = False):
        super().__init__(1.0, factor, law)
        self.output_dim = self.noise_dim + 2
        self.leaky_flag = leaky_flag

    def _framed(self, world, counts):
        flag = 1.0 if (self.leaky_flag and world == "D'") else 0.0
        rows = counts.shape[0]
        return np.column_stack([np.full(rows, 3.0), counts, np.full(rows, flag)])

    def sample(self, world, size, rng):
        return self._framed(world, super().sample(world, size, rng))

    def release_from_noise(self, world, noise):
        return self._framed(world, super().release_from_noise(world, noise))

    def privacy_loss(self, outputs):
        counts = super().privacy_loss(outputs[:, 1:-1])
        return np.where(outputs[:, -1] == 0, counts, np.inf)


@pytest.mark.parametrize("law", ["laplace", "geometric"])
def test_a_view_with_columns_the_noise_does_not_move_is_tilted(law):
    """The counts placed between a constant tag and a flag: the probe finds the counts' columns, the tilted interval
    covers the exact δ(0.99) (the histogram's, ≈ 2.5e-3) as tightly as without the extra columns, and every draw
    verifies the structure.  A flag that tells the worlds apart is no translation of one law: no tilt, and why."""
    pair = FlaggedHistogram(law)
    exact = EXACT[law](0.99, pair.noise_scale)
    tail = tilting.tilted_tail(pair, 0.99, "D||D'", 100_000, seed=3)
    assert tail.certified and tail.escapes == 0
    assert list(tail.tilt.columns) == list(range(1, pair.noise_dim + 1))
    lo, hi = tail.lower_bound(ALPHA / 2), tail.upper_bound(ALPHA / 2)
    assert lo <= exact <= hi and hi - lo < 0.35 * exact, (lo, exact, hi)
    tail, reason = tilting.try_tilted_tail(FlaggedHistogram(law, leaky_flag=True), 0.99, "D||D'", 1_000, 0, "t")
    assert tail is None and "column the noise does not move" in reason


def test_a_flagged_view_is_proven_pure_and_its_narrow_twin_fails():
    """The flagged Laplace histogram at its own pure ε: the tilt verifies its loss bounded by ε on the replayed view
    (before the probe: a hint of 2e10 draws), and the pure claim about the user's code is then not decided, with the
    replay's rate as δ̄ (replay is evidence with a rate: :mod:`pdp_audit.verify.estimators.view_replay`); 0.8× the
    noise fails; a sampler 3% narrower than its flagged view fails noise-view, as without the flag."""
    run = pdp_audit.audit_pair(FlaggedHistogram(), 1.0, 0.0, trials=pdp_audit.PairBudget(20_000, law="ideal"), seed=0)
    assert run.verdict == "inconclusive", pdp_audit.describe(run)
    forward = next(c for c in run.checks if c.id == "dp-forward")
    assert "replayed bounded loss" in forward.note and 0 < forward.ci[1] < 0.01
    broken = pdp_audit.audit_pair(
        FlaggedHistogram(factor=0.8), 1.0, 1e-6, trials=pdp_audit.PairBudget(20_000, law="ideal"), seed=0
    )
    assert {c.id: c.verdict for c in broken.checks}["dp-forward"] == "fail", pdp_audit.describe(broken)


class OffLattice(NoisyHistogram):
    """The geometric histogram whose D′ centre sits ``offset`` off the integer lattice in its first bin."""

    def __init__(self, offset: float):
        super().__init__(1.0, 1.0, "geometric")
        self.offset = offset

    def counts(self, world):
        counts = super().counts(world)
        return counts + np.eye(1, counts.size, 0)[0] * (self.offset if world == "D'" else 0.0)


@pytest.mark.parametrize("offset", [2.0**-40, 1e-9, 0.5])
def test_a_geometric_view_off_the_lattice_by_any_amount_is_not_tilted(offset):
    """The worlds' supports differ when a centre leaves the integer lattice, by however little: the L1 form of an
    integer offset would describe a different law (its loss bounded where the true one is not).  The lattice test is
    decided in rationals; before it was, an offset within 1e-9 of the lattice (2⁻⁴⁰ here) was rounded to it and
    tilted as though on it."""
    tail, reason = tilting.try_tilted_tail(OffLattice(offset), 0.5, "D||D'", 1000, 1, "test")
    assert tail is None and "off the integer lattice" in reason
    assert tilting.try_tilted_tail(OffLattice(0.0), 0.5, "D||D'", 1000, 1, "test")[0] is not None
