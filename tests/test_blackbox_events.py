"""The exact event test of the black-box audit (pdp_audit.audits.blackbox.events, blackbox_features).

Statistical tests at α = 1e-6 with fixed seeds: the bound never exceeds the exact (or proved) ε of a correct
mechanism of the peers' benchmark, and broken mechanisms are refuted (the bound above the claim is exactly what the
validity tests forbid for the correct ones).  The Clopper–Pearson rates are checked against scipy's binomtest, and
the coverage of the bound against simulation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from scipy.stats import binomtest

from pdp_audit.audits.blackbox.attack import AttackOptions, blackbox_attack
from pdp_audit.audits.blackbox.event_choice import choose_events
from pdp_audit.audits.blackbox.events import Event, EventAttack, lower_rate, ratio_epsilon, upper_rate
from pdp_audit.audits.blackbox.features import HistogramScore, OutcomeKeys, OutcomeScore, PooledHistogramScore
from pdp_audit.cli.main import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import peer_mechanisms as pm  # noqa: E402

ALPHA = 1e-6
BY_NAME = {p.name: p for p in pm.PEERS}
EVENTS = AttackOptions("events", law="ideal")  # the real-valued law: these peers are its mechanisms


def attack(name: str, trials: int, seed: int, train_trials: int | None = None):
    pair = BY_NAME[name].pair
    return blackbox_attack(
        pair.sample_world("D"), pair.sample_world("D'"), trials, 0.0, seed, train_trials=train_trials, options=EVENTS
    )


@pytest.mark.parametrize("hits,n", [(0, 100), (3, 100), (50, 100), (100, 100), (1234, 100_000), (7, 10**7)])
def test_clopper_pearson_rates_have_their_binomial_tails(hits, n):
    """At the lower end p_lo, P(X ≥ k) ≤ 0.05; at the upper end q_hi, P(X ≤ k) ≤ 0.05 (valid), each within 1e-6 of
    0.05 (tight), the binomial tails computed independently as regularised incomplete beta functions in mpmath at
    40 digits; scipy's binomtest agrees to 1e-7."""
    mp.mp.dps = 40
    lo, hi = float(lower_rate(hits, n, 0.05)), float(upper_rate(hits, n, 0.05))
    if hits > 0:
        tail = mp.betainc(hits, n - hits + 1, 0, lo, regularized=True)  # P(X ≥ k) at p = lo
        assert 0.05 * (1 - 1e-6) <= tail <= 0.05
    if hits < n:
        tail = 1 - mp.betainc(hits + 1, n - hits, 0, hi, regularized=True)  # P(X ≤ k) at p = hi
        assert 0.05 * (1 - 1e-6) <= tail <= 0.05
    ci = binomtest(hits, n).proportion_ci(0.9, method="exact")
    assert (lo, hi) == pytest.approx((ci.low, ci.high), rel=1e-7, abs=1e-15)


def test_the_event_bound_covers_at_its_level():
    """A fixed event with P(S) = 0.02, Q(S) = 0.02·e^-0.2 (ε = 0.2 exactly on it), Poisson counts of means λP(S)
    and λQ(S) as the Poissonised fresh pass draws them: over 4,000 seeded repetitions at α = 0.05 the bound exceeds
    0.2 in at most α of them (255 is 1e-6 above the binomial mean of 200), and in more than 100 (the test is not
    conservative by far); with Q(S) halved (ε = 0.69) the same count is far above 255 -- so the check can fail."""
    rng = np.random.default_rng(0)
    lam, reps, p = 200_000.0, 4_000, 0.02
    for q, broken in ((p * np.exp(-0.2), False), (p / 2, True)):
        hits_d, hits_dp = rng.poisson(lam * p, reps), rng.poisson(lam * q, reps)
        bounds = [
            EventAttack((Event(0.0, True),), (int(a),), (int(b),), 0, 0, 0.0, lam, lam).epsilon_lower_bound_at(0.05)
            for a, b in zip(hits_d, hits_dp)
        ]
        exceed = int(np.sum(np.array(bounds) > 0.2))
        assert (exceed > 255) == broken, exceed
        assert broken or exceed > 100, exceed


def test_the_event_bound_with_delta_covers_at_its_level():
    """δ = 1e-4 carried by a point mass: P(S) = Q(S)·e^0.2 + δ on the event.  At α = 0.05 over 4,000 repetitions
    the bound exceeds 0.2 in at most 255 (the excess allowance and the binomial each get α/2); with the point mass
    ten times δ, far more often."""
    rng = np.random.default_rng(1)
    lam, reps, q, delta = 2e6, 4_000, 0.01, 1e-4
    for mass, broken in ((delta, False), (10 * delta, True)):
        p = q * np.exp(0.2) + mass
        hits_d, hits_dp = rng.poisson(lam * p, reps), rng.poisson(lam * q, reps)
        attack_ = [
            EventAttack((Event(0.0, True),), (int(a),), (int(b),), 0, 0, delta, lam, lam)
            for a, b in zip(hits_d, hits_dp)
        ]
        exceed = int(np.sum(np.array([a.epsilon_lower_bound_at(0.05) for a in attack_]) > 0.2))
        assert (exceed > 255) == broken, exceed


def test_the_ratio_test_is_the_clopper_pearson_bound_of_the_share_of_d_and_tighter_than_two_intervals():
    """At δ = 0 the bound is logit of the exact binomial lower end of A successes in A + B trials (checked against
    mpmath's regularised incomplete beta, 40 digits); on 2,000 and 1,800 hits it is above what dividing two
    Clopper–Pearson ends at α/2 each gives."""
    mp.mp.dps = 40
    a_hits, b_hits, alpha = 2_000, 1_800, 0.1
    bound = float(ratio_epsilon(a_hits, b_hits, 1e6, 1e6, 0.0, alpha))
    share = np.exp(bound) / (1 + np.exp(bound))
    tail = mp.betainc(a_hits, b_hits + 1, 0, share, regularized=True)  # P(Bin(K, share) ≥ A) = I_share(A, K − A + 1)
    assert alpha * (1 - 1e-6) <= tail <= alpha
    divided = np.log(float(lower_rate(a_hits, 1e6, alpha / 2)) / float(upper_rate(b_hits, 1e6, alpha / 2)))
    assert bound > divided + 0.02, (bound, divided)


def test_the_choice_singles_out_a_rare_outcome_that_carries_the_leak():
    """A discrete score: outcome 2 is rare (P = 1%, log ratio 0.15), outcome 1 common (P = 5%, log ratio 0.06).  On
    1e6 fresh releases per world the rare outcome alone bounds ε at 0.12 (confidence 0.9, Bonferroni over 2
    events), both together at 0.07.  Each selection half holds the exact rates (125,000 releases per world), so the
    choice must be the rare outcome; the cautious reading of the choice half (level 0.05) chose both outcomes
    (SVT1's shortfall)."""
    h, n, (p1, r1), (p2, r2) = 125_000, 1_000_000, (0.01, 0.15), (0.05, 0.06)

    def half(rare, common):
        k1, k2 = round(rare * h), round(common * h)
        return np.concatenate([np.full(k1, 2.0), np.full(k2, 1.0), np.zeros(h - k1 - k2)])

    q1, q2 = p1 * np.exp(-r1), p2 * np.exp(-r2)
    scores = (half(p1, p2), half(q1, q2))
    a = 0.1 / 2
    rare = float(ratio_epsilon(p1 * n, q1 * n, n, n, 0.0, a))
    both = float(ratio_epsilon((p1 + p2) * n, (q1 + q2) * n, n, n, 0.0, a))
    assert rare > both + 0.03  # the premise: the rare outcome is the better event
    chosen = choose_events(scores, scores, (n, n), 0.0)
    assert chosen.events[0] == Event(2.0, True)


def test_delta_form_is_the_largest_delta_the_test_rejects():
    """The δ lower bound at ε is the largest δ whose test (excess allowance at α/2, binomial at α/2) rejects ε: just
    below it the ε bound at that δ is above ε, just above it not."""
    attack_ = EventAttack((Event(1.0, False),), (1_000,), (4_000,), 0, 0, 0.0, 1e5, 1e5)
    found = attack_.delta_lower_bound_at(0.1, 0.5)
    assert found > 0
    for factor, above in ((0.98, True), (1.02, False)):
        at = EventAttack((Event(1.0, False),), (1_000,), (4_000,), 0, 0, found * factor, 1e5, 1e5)
        assert (at.epsilon_lower_bound_at(0.1) > 0.5) == above, factor


def test_an_attack_whose_poisson_size_overran_the_budget_bounds_nothing():
    attack_ = EventAttack((Event(1.0, True),), (5_000,), (100,), 0, 0, 0.0, 1e5, 1e5, poissonised=False)
    assert attack_.epsilon_lower_bound_at(0.1) == 0.0 and attack_.delta_lower_bound_at(0.1, 0.1) == 0.0


def test_outcome_keys_tell_rows_apart_and_merge_non_atoms():
    rows = np.array([[0.0, 1.0], [-0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.37, 1.0], [0.41, 1.0]] * 5)
    keys = OutcomeKeys.fit(rows)
    h = keys(rows[:6])
    assert h[0] == h[3] and h[0] != h[2]  # the order of the columns matters
    assert h[0] != h[1]  # −0.0 and 0.0 are one atom, two outcomes: a zero's sign is part of the release (issue 70)
    assert h[4] != h[5]  # 0.37 and 0.41 are drawn 5 times each: atoms
    few = OutcomeKeys.fit(rows[:12])(rows[4:6])  # drawn twice each: not atoms, one outcome "a real number"
    assert few[0] == few[1]


def test_outcome_score_is_the_empirical_log_ratio_and_nan_where_unseen():
    rng = np.random.default_rng(1)
    d, dp = rng.integers(0, 4, (20_000, 2)).astype(float), rng.integers(0, 3, (20_000, 2)).astype(float)
    score = OutcomeScore.fit(d, dp)
    both = np.array([[0.0, 0.0], [3.0, 3.0], [7.0, 7.0]])
    s = score(both)
    count_d = np.sum((d == both[0]).all(axis=1))
    count_dp = np.sum((dp == both[0]).all(axis=1))
    assert s[0] == pytest.approx(np.log((count_d + 0.5) / (count_dp + 0.5)), rel=1e-12)
    assert s[1] > 3 and np.isnan(s[2])  # (3, 3) only under D; (7, 7) never seen
    assert OutcomeScore.fit(rng.standard_normal((5_000, 1)), rng.standard_normal((5_000, 1))) is None


def test_histogram_score_of_independent_bits_is_their_summed_log_ratio():
    rng = np.random.default_rng(2)
    n, p, q = 200_000, np.array([0.7, 0.5, 0.2]), np.array([0.3, 0.5, 0.2])
    d, dp = (rng.random((n, 3)) < p).astype(float), (rng.random((n, 3)) < q).astype(float)
    score = HistogramScore.fit(d, dp)
    exact = np.log(p / q).sum(), np.log((1 - p) / (1 - q)).sum()
    assert score(np.ones((1, 3)))[0] == pytest.approx(exact[0], abs=0.03)
    assert score(np.zeros((1, 3)))[0] == pytest.approx(exact[1], abs=0.03)


# slow: 10 s; the pooled statistic's power is measured by benchmarks/blackbox_peers.py, LaplaceParallel
@pytest.mark.slow
def test_pooled_histograms_see_many_columns_that_each_move_a_little():
    """20 Laplace columns each shifted by 1 at scale 200 (DP-Sniper's parallel Laplace: a log ratio within ±0.005
    per column).  Per-column histograms estimate each of 64 bins' ratios from one column (noise √(2/c) ≈ 0.025 at
    3e3 releases per bin, five times the signal); the pooled score estimates 16 bins' from all 20 columns.  On 1e6
    fresh releases per world (standard error of a separation ≈ 0.0014) the pooled score separates the worlds by
    more than twice the per-column one (measured 0.015 and 0.020 against 0.0033 and 0.0044 on two seeds; the
    optimal per-column sign test: 0.018 and 0.025)."""
    rng = np.random.default_rng(7)
    d, dp = 1.0 + rng.laplace(scale=200.0, size=(200_000, 20)), rng.laplace(scale=200.0, size=(200_000, 20))
    pooled, columns = PooledHistogramScore.fit(d, dp), HistogramScore.fit(d, dp)
    fresh_d, fresh_dp = 1.0 + rng.laplace(scale=200.0, size=(10**6, 20)), rng.laplace(scale=200.0, size=(10**6, 20))

    def separation(score):
        a, b = score(fresh_d), score(fresh_dp)
        return (a.mean() - b.mean()) / np.sqrt((a.var() + b.var()) / 2)

    assert separation(pooled) > 2 * separation(columns), (separation(pooled), separation(columns))


VALID = [
    ("TruncatedGeometric", 31),
    ("ReportNoisyMax1", 32),
    ("SVT1", 33),
    ("OneTimeRappor", 34),
    ("NumericalSVT", 35),
    ("LaplaceParallel", 36),
]


@pytest.mark.tier2(representatives=("ReportNoisyMax1-32", "TruncatedGeometric-31"))
@pytest.mark.parametrize("name,seed", VALID)
def test_event_bound_never_exceeds_the_exact_epsilon_of_a_correct_mechanism(name, seed):
    peer = BY_NAME[name]
    limit = peer.exact_epsilon if peer.exact_epsilon is not None else peer.proved_epsilon
    result = attack(name, 200_000, seed, train_trials=20_000)
    assert result.statistic in ("logistic", "trees", "histograms", "increments", "pooled", "outcomes")
    for alpha in (ALPHA, 0.1):
        assert result.epsilon_lower_bound_at(alpha) <= limit, (name, alpha, result)


@pytest.mark.tier2(representatives=("ReportNoisyMax4-200000",))
@pytest.mark.parametrize("name,trials", [("ReportNoisyMax4", 200_000), ("SVT5", 20_000), ("SVT4", 1_500_000)])
def test_event_test_refutes_incorrect_variants(name, trials):
    bound = attack(name, trials, 41, train_trials=30_000).epsilon_lower_bound_at(ALPHA)
    assert bound > BY_NAME[name].claimed_epsilon, (name, bound)


@pytest.mark.tier2
def test_cli_events_writes_the_event_and_its_counts(tmp_path, monkeypatch):
    (tmp_path / "peer_mech_events.py").write_text(
        "import peer_mechanisms as pm\n\ndef svt5():\n    return pm.PEERS[12].pair\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "bb.json"
    common = ["--claim-epsilon", "0.1", "--claim-delta", "0", "--trials", "20000", "--statistic", "events"]
    assert main(["blackbox", "peer_mech_events:svt5", *common, "--json", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["statistic"] == "events" and "Exact event test" in doc["check"]["note"]
    details = doc["check"]["details"]
    assert details["train_per_world"] == 20_000 and details["test_per_world"] == 20_000
    event = details["events"][0]  # the event as data: a reviewer can re-count it
    assert event["favours"] in ("D", "D'") and 0 <= event["hits_dprime"] <= 20_000 and 0 <= event["hits_d"] <= 20_000
    assert doc["check"]["formula"].startswith("ε ≥ max over events S fixed before the fresh draws")


class TextbookLaplace:
    """Mironov's (CCS 2012) textbook floating-point Laplace: x − λ·sign(r)·ln(1 − 2|r|), r uniform in [−½, ½) as a
    double.  As a real-valued mechanism it is (1/λ)-DP for inputs 0 and 1; as floats, x = 1 rounds the sum to
    doubles whose last significand bit is 0 three times in four, x = 0 half the time."""

    def __init__(self, x: float, scale: float = 10.0):
        self.x, self.scale = x, scale

    def __call__(self, size, rng):
        r = rng.random(size) - 0.5
        return (self.x - self.scale * np.sign(r) * np.log(1 - 2 * np.abs(r)))[:, None]


@pytest.mark.tier2
def test_number_structure_finds_mironovs_float_laplace_leak():
    """Claimed ε = 0.1 (λ = 10): refuted at α = 1e-6 with the number-structure features -- by ``events-numbers``
    and by the default event test as implemented, which reads them because the releases are floats; under the
    real-valued law (``law="ideal"``) the same budget sees only the Laplace law, ε ≤ 0.1."""
    pair = (TextbookLaplace(0.0), TextbookLaplace(1.0))
    found = blackbox_attack(*pair, 50_000, 0.0, 51, train_trials=20_000, options=AttackOptions("events-numbers"))
    assert found.epsilon_lower_bound_at(ALPHA) > 1.0, found
    default = blackbox_attack(*pair, 50_000, 0.0, 51, train_trials=20_000, options=AttackOptions())
    assert default.floats and default.learned.numbers and default.epsilon_lower_bound_at(ALPHA) > 1.0, default
    plain = blackbox_attack(*pair, 50_000, 0.0, 51, train_trials=20_000, options=EVENTS)
    assert not plain.learned.numbers and plain.epsilon_lower_bound_at(ALPHA) <= 0.1, plain


def test_number_structure_keeps_the_bound_valid_on_integer_outputs():
    peer = BY_NAME["TruncatedGeometric"]
    pair = peer.pair
    result = blackbox_attack(
        pair.sample_world("D"),
        pair.sample_world("D'"),
        200_000,
        0.0,
        52,
        train_trials=20_000,
        options=AttackOptions("events-numbers"),
    )
    assert result.epsilon_lower_bound_at(ALPHA) <= peer.exact_epsilon, result


def test_an_outcome_ranking_refitted_on_more_draws_counts_them_in():
    """The refitted score's ratios are those of a fit on the training and the further releases together (for the
    outcomes seen in training); positions of unseen outcomes (NaN) are left out."""
    rng = np.random.default_rng(3)
    train_d, train_dp = rng.integers(0, 4, (5_000, 2)).astype(float), rng.integers(0, 4, (5_000, 2)).astype(float)
    more_d, more_dp = rng.integers(0, 4, (20_000, 2)).astype(float), rng.integers(1, 4, (15_000, 2)).astype(float)
    score = OutcomeScore.fit(train_d, train_dp)
    refitted = score.refitted(score.index(more_d), score.index(more_dp))
    direct = OutcomeScore.fit(np.vstack([train_d, more_d]), np.vstack([train_dp, more_dp]))
    probe = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 3.0]])
    assert refitted(probe) == pytest.approx(direct(probe), rel=1e-12)
    assert not np.allclose(score(probe), refitted(probe))  # the further draws moved the ratios


@pytest.mark.parametrize("zeros", ["none", "positive", "negative", "both"])
@pytest.mark.parametrize("rounding", [1, None])
def test_the_cuts_read_off_the_sorted_worlds_are_numpys(zeros, rounding):
    """The thresholds tried, read off the two worlds' sorted scores (no merge), are np.unique's of the pooled scores
    (or of np.quantile's past MAX_THRESHOLDS values) bit for bit, zeros of either sign included (with both, the
    pooled scores are read as they are)."""
    from pdp_audit.audits.blackbox.event_choice import _cuts, _finite_sorted
    from pdp_audit.audits.blackbox.events import MAX_THRESHOLDS

    rng = np.random.default_rng(7)
    scores = [rng.normal(size=n) for n in (5_000, 4_000)]
    scores = [s if rounding is None else np.round(s, rounding) for s in scores]
    scores[1][:3] = np.nan
    signs = {"none": (), "positive": (0.0,), "negative": (-0.0,), "both": (0.0, -0.0)}[zeros]
    scores = [np.where(s == 0, np.nan, s) for s in scores]
    for k, zero in enumerate(signs):
        scores[k][10:20] = zero
    pooled = np.concatenate(scores)
    pooled = pooled[np.isfinite(pooled)]
    want = np.unique(pooled)
    if want.size > MAX_THRESHOLDS:
        want = np.unique(np.quantile(pooled, np.linspace(0, 1, MAX_THRESHOLDS)))
    cuts = _cuts(tuple(scores), _finite_sorted(tuple(scores)))
    assert np.array_equal(cuts.view(np.int64), want.view(np.int64))
