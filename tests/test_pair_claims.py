"""A user's DP claim is decided from every estimate of δ(ε) of its sampler (verify/evidence/pair_claims.py).

Each broken pair below has its true δ(ε) computed exactly (closed form or quadrature) and fails at the default
budget (1e5 releases per world, α = 1e-6); each correct twin passes.  The false-alarm probability of a correct
pair's run is at most α = 1e-6 (Holm over its checks); every seed is fixed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, optimize, stats

import pdp_audit
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import laplace as lap
from pdp_audit.mechanisms import mutant_pairs as zoo
from pdp_audit.mechanisms.mutant_pairs import GaussianWithView, RareLeak, StudentT
from pdp_audit.mechanisms.mutant_pairs import ShiftedLaplace as Laplace
from pdp_audit.verify.estimators.tails import hockey_integrand
from pdp_audit.verify.evidence.pair_claims import StreamedHockeyMean

CLAIM = (1.0, 1e-5)


def _t_delta(epsilon: float, s: float) -> float:
    """Exact δ(ε) of :class:`StudentT` by quadrature, split where p_D − e^ε p_D' changes sign."""

    def gap(o):
        return stats.t.pdf(o, 3, 0, s) - np.exp(epsilon) * stats.t.pdf(o, 3, 1, s)

    grid = np.linspace(-50 * s, 50 * s, 20_001)
    signs = np.sign(gap(grid))
    cuts = [optimize.brentq(gap, grid[i], grid[i + 1]) for i in np.flatnonzero(signs[:-1] * signs[1:] < 0)]
    points = [-np.inf, *cuts, np.inf]
    return sum(integrate.quad(lambda o: max(0.0, gap(o)), a, b, limit=500)[0] for a, b in zip(points, points[1:]))


def _verdicts(run) -> dict[str, str]:
    return {c.id: c.verdict for c in run.checks}


def test_a_rare_revealing_branch_fails_whatever_the_view_says():
    sigma = g.analytic_sigma(*CLAIM)
    p = 1e-3
    assert p + (1 - p) * g.analytic_delta(CLAIM[0], sigma) > 100 * CLAIM[1]  # the true δ
    whole = pdp_audit.PairBudget(
        100_000, early_stop=False, law="ideal"
    )  # the estimates' power on the whole budget in one pass
    run = pdp_audit.audit_pair(RareLeak(sigma, p), *CLAIM, trials=whole)
    assert _verdicts(run)["dp-forward"] == "fail" and run.verdict == "fail"
    twin = pdp_audit.audit_pair(
        RareLeak(g.analytic_sigma(CLAIM[0], 1e-6), 0.0), *CLAIM, trials=pdp_audit.PairBudget(law="ideal")
    )
    assert twin.verdict == "pass", _verdicts(twin)


@pytest.mark.parametrize("factor", [0.95, 0.97])
def test_a_view_narrower_than_the_sampler_fails(factor):
    sigma = optimize.brentq(lambda s: g.analytic_delta(CLAIM[0], s) - 1.3 * CLAIM[1], 0.5, 20)  # true δ 1.3× claim
    run = pdp_audit.audit_pair(GaussianWithView(sigma, factor), *CLAIM, trials=pdp_audit.PairBudget(law="ideal"))
    assert _verdicts(run)["noise-view"] == "fail" and run.verdict == "fail"


def test_a_correct_view_passes():
    run = pdp_audit.audit_pair(
        GaussianWithView(g.analytic_sigma(CLAIM[0], 1e-6)), *CLAIM, trials=pdp_audit.PairBudget(law="ideal")
    )
    assert run.verdict == "pass", _verdicts(run)


def test_releasing_the_input_fails_at_a_large_epsilon():
    scale = 1e-3  # δ(20) = 1 − e^{(20 − 1000)/2}: a total leak
    assert lap.laplace_delta(20.0, scale, 1.0) > 0.99
    run = pdp_audit.audit_pair(Laplace(scale), 20.0, 1e-5, trials=pdp_audit.PairBudget(law="ideal"))
    assert _verdicts(run)["dp-forward"] == "fail"
    # (4, 0)-DP passes; a loss near 20 would not without a noise view: where e^{−L} < 1/n the draws cannot bound the
    # loss's scale from above (pdp_audit.verify.estimators.loss_scale_band), and the claim would rest on the loss alone
    assert pdp_audit.audit_pair(Laplace(1 / 4), 20.0, 1e-3, trials=pdp_audit.PairBudget(law="ideal")).verdict == "pass"
    assert (
        pdp_audit.audit_pair(Laplace(1.15 / 20), 20.0, 1e-3, trials=pdp_audit.PairBudget(law="ideal")).verdict
        == "inconclusive"
    )


def test_the_zoo_pairs_break_their_claims_exactly():
    """The broken guarantees of the users'-pair mutants (mechanisms/mutant_pairs.py), computed exactly."""
    assert g.analytic_delta(1.0, zoo.SIGMA_OVER) == pytest.approx(1.3e-5, rel=0.01)
    assert _t_delta(1.0, zoo.T_BROKEN) > 3 * 1e-3 and _t_delta(1.0, zoo.T_TWIN) == 0.0
    assert lap.laplace_delta(1.0, 1 / 1.1, 1.0) == pytest.approx(1 - np.exp(-0.05))
    assert lap.laplace_delta(20.0, 1e-3, 1.0) > 0.99 and lap.laplace_delta(20.0, 1 / 20, 1.0) == 0.0
    assert g.analytic_delta(2.5, zoo.S_CLIP) == pytest.approx(10 * 5e-3)  # loss-clipped-at-2 (the sampler's δ)
    assert 0.1 + 0.9 * g.analytic_delta(1.0, zoo.SIGMA_CLAIM) > 10 * 1e-2 - 1e-9  # rare-branch-finite-loss
    truncated = zoo.Truncated(4.0, 8.0)
    assert (2 * 8.0 - 1) / (2 * 4.0**2) < 1.0 and truncated.true_delta() > 3 * 5e-3  # its closed form holds at ε = 1
    assert g.analytic_delta(1.0, zoo.SIGMA_TWIN / 2) > 100 * 1e-5  # float32-noise-halved
    assert lap.laplace_delta(1.0, 0.5, 1.0) > 100 * 1e-3  # float32-laplace-scale-halved


def _geometric_delta(epsilon: float, scale: float, counts: int, reveal: float = 0.0) -> float:
    """Exact δ_{D‖D'}(ε) of ``counts`` counts each one larger on D, two-sided geometric noise of ``scale`` (pmf
    (1 − q)/(1 + q)·q^|n|, q = e^{−1/b}, enumerated over |n| ≤ 60b), by convolving each count's loss law;
    ``reveal``: the probability of a release impossible under D' (L = +∞, contributes 1)."""
    q, n = np.exp(-1.0 / scale), np.arange(-int(60 * scale), int(60 * scale) + 1)
    pmf = (1 - q) / (1 + q) * q ** np.abs(n)
    steps = np.abs(1 + n) - np.abs(n)  # one count's loss times b on D: o = 1 + n against the centres 0 and 1
    law = {0: 1.0}
    for _ in range(counts):
        moved: dict[int, float] = {}
        for total, mass in law.items():
            for step in (-1, 1):
                moved[total + step] = moved.get(total + step, 0.0) + mass * float(pmf[steps == step].sum())
        law = moved
    finite = sum(mass * max(0.0, 1 - np.exp(epsilon - total / scale)) for total, mass in law.items())
    return reveal + (1 - reveal) * finite


def test_the_geometric_zoo_pairs_break_their_claims_exactly():
    """geometric-count-reveals-input: δ(1) = 1e-3 (1000× the claim 1e-6), its twin (1, 0)-DP exactly;
    geometric-counts-scale-too-small: δ(0.9) = 3.5e-5 (35×), its twin 1.5e-7 -- by enumeration here, against the
    binomial closed form of :class:`MovedCounts`."""
    assert _geometric_delta(1.0, 1.0, 1, zoo.REVEALING_P) == pytest.approx(1e-3, rel=1e-12)
    assert _geometric_delta(1.0, 1.0, 1) == 0.0
    broken, twin = (_geometric_delta(0.9, b, 20) for b in (zoo.MOVED_BROKEN, zoo.MOVED_TWIN))
    for b, value in ((zoo.MOVED_BROKEN, broken), (zoo.MOVED_TWIN, twin)):
        lam, q = 1 / b, np.exp(-1 / b)
        k = np.arange(21)
        closed = np.sum(stats.binom.pmf(k, 20, q / (1 + q)) * np.clip(1 - np.exp(0.9 - (20 - 2 * k) * lam), 0, None))
        assert value == pytest.approx(closed, rel=1e-9)
    assert broken == pytest.approx(3.54e-5, rel=0.01) and twin == pytest.approx(1.49e-7, rel=0.01)


def test_draws_impossible_in_the_other_world_refute_a_claim_by_their_count_alone():
    """A geometric count that releases its input marked by a half with probability 1e-3 (zoo:
    geometric-count-reveals-input), claimed (1, 1e-6), default budget 1e5, seed 0: about 100 draws with L = +∞
    refute δ = 1e-6 by their count alone (exact binomial p-value < 1e-200, at α/6 of the check's α); the twin
    without the debug path passes (its bounded-loss proof)."""
    whole = pdp_audit.PairBudget(100_000, early_stop=False, law="ideal")  # the count of the whole budget in one pass
    run = pdp_audit.audit_pair(zoo.RevealingCount(1.0, zoo.REVEALING_P), 1.0, 1e-6, trials=whole, seed=0)
    for check in (c for c in run.checks if c.id in ("dp-forward", "dp-reverse")):
        atom = check.details["atom"]
        assert check.verdict == "fail" and 50 < atom["count"] < 200 and atom["split"] == 6
        assert atom["pvalue"] < 1e-200 and check.ci[0] > 100 * 1e-6
        assert "The atom at L = +∞ alone" in check.note and "α/6 of the check's α" in check.note
    twin = pdp_audit.audit_pair(zoo.RevealingCount(1.0), 1.0, 1e-6, seed=0, trials=pdp_audit.PairBudget(law="ideal"))
    assert twin.verdict == "pass", _verdicts(twin)
    assert all("atom" not in c.details for c in twin.checks if c.id.startswith("dp-"))


def test_a_heavy_tailed_violation_is_decided_at_the_default_budget():
    s_broken = optimize.brentq(lambda s: _t_delta(1.0, s) - 2.3e-3, 0.3, 50)
    # correct with the margin the loss-scale band needs at 1e5 (δ(1/1.2) = 0.3e-3 ⇒ δ(1) ≤ 0.3e-3 for a loss 1.2× off)
    s_correct = optimize.brentq(lambda s: _t_delta(1.0 / 1.2, s) - 0.3e-3, 0.3, 50)
    assert (
        _verdicts(pdp_audit.audit_pair(StudentT(s_broken), 1.0, 1e-3, trials=pdp_audit.PairBudget(law="ideal")))[
            "dp-forward"
        ]
        == "fail"
    )
    assert (
        pdp_audit.audit_pair(StudentT(s_correct), 1.0, 1e-3, trials=pdp_audit.PairBudget(law="ideal")).verdict == "pass"
    )


def test_pure_claims_are_accepted_and_decided():
    """Without a noise view a pure claim cannot pass (it did, "when nothing contradicted it"): the correct Laplace is
    inconclusive and names what its draws certify -- its loss has an atom at ε and the loss-scale band (about ±8% at
    1e5) bounds δ(1) by that of a loss 1.08× larger, not 0; the broken one fails."""
    correct = pdp_audit.audit_pair(Laplace(1.0), 1.0, 0.0, trials=pdp_audit.PairBudget(law="ideal"))
    assert correct.verdict == "inconclusive"
    forward = next(c for c in correct.checks if c.id == "dp-forward")
    assert "cannot be shown by sampling" in forward.note and 1e-3 < forward.ci[1] < 0.05
    broken = pdp_audit.audit_pair(
        Laplace(1.0), 0.9, 0.0, trials=pdp_audit.PairBudget(law="ideal")
    )  # true δ(0.9) = 1 − e^{−0.05}
    assert _verdicts(broken)["dp-forward"] == "fail"


def test_the_streamed_mean_is_the_mean_of_the_integrand():
    rng = np.random.default_rng(2)
    losses = np.concatenate([rng.normal(0.5, 1.0, 12_345), [np.inf, -np.inf]])
    streamed = StreamedHockeyMean(0.7)
    for block in np.array_split(losses, 7):
        streamed.add(block)
    values = hockey_integrand(losses, 0.7)
    result = streamed.result()
    assert result.n == losses.size and streamed.infinite == 1
    assert result.mean == pytest.approx(values.mean(), rel=1e-12)
    assert result.variance == pytest.approx(values.var(ddof=1), rel=1e-9)
    assert values.min() >= 0 and values.max() == 1.0


def test_the_integrand_mean_is_delta():
    """E_P[(1 − e^{ε−L})₊] = δ(ε): the mean of 1e6 Laplace draws against the exact profile, at the 1e-6 level of
    its empirical Bernstein interval."""
    pair = lap.LaplacePair(np.zeros(1), np.ones(1), 1.0)
    losses = pair.privacy_loss(pair.sample("D", 1_000_000, np.random.default_rng(4)))
    streamed = StreamedHockeyMean(0.4)
    streamed.add(losses)
    lo, hi = streamed.result().interval(1e-6)
    assert lo <= lap.laplace_delta(0.4, 1.0, 1.0) <= hi


def test_the_reverse_checks_roc_tests_d_prime_against_d():
    """The reverse check (δ_{D'‖D}) drew the forward attack's ROC and labelled its y axis "output of D called D"."""
    from pdp_audit.verify.estimators.attack import likelihood_ratio_attack
    from pdp_audit.verify.evidence.pair_figures import roc_figure

    rng = np.random.default_rng(0)
    heads = {"D": rng.normal(0.5, 1.0, 4000), "D'": rng.exponential(1.0, 4000) - 1.5}  # not mirror images
    roc = roc_figure(heads, 1.0, 1e-5)(1e-3)
    assert "D' called D'" in roc.ylabel and "D called D'" in roc.xlabel and "D' against D" in roc.curve_label
    reverse = likelihood_ratio_attack(-heads["D'"], -heads["D"], 1e-5, 1e-3).roc
    assert np.isin(roc.tpr, reverse.tpr).all() and np.isin(roc.fpr, reverse.fpr).all()
    run = pdp_audit.audit_pair(GaussianWithView(4.0), 1.0, 1e-2, trials=pdp_audit.PairBudget(20_000, law="ideal"))
    figure = next(c for c in run.checks if c.id == "dp-reverse").figure
    assert "D' called D'" in figure.ylabel


def test_a_hint_never_predicts_a_pass_while_an_estimate_exceeds_the_claim():
    """140 of 1e5 draws impossible under D' (δ ≥ 1.4e-3) beside a bounded mean of 0 (a loss that omits them),
    claimed δ = 1e-3: the mean's upper bound is below the claim already, and the hint used to predict a pass for a
    mechanism over its claim; it now names the budget of a fail (the atom's, or the estimates' contradiction)."""
    from pdp_audit.verify.estimators.rare import BoundedMean
    from pdp_audit.verify.evidence.pair_claims import CONTRADICTION, atom_estimate, budget_to_decide, mean_estimate

    estimates = [mean_estimate(BoundedMean(100_000, 0.0, 0.0, 1.0)), atom_estimate(140, 100_000)]
    hint = budget_to_decide(estimates, 1e-3, 1e-6)
    assert ("lie above the claimed δ" in hint or CONTRADICTION in hint) and "below" not in hint, hint


def test_bounds_on_delta_stay_in_the_unit_interval():
    """`run laplace` printed `CI [-4.381e-05, 1.612e-05]` for a δ: a lower end below 0 (lo_P − e^ε hi_Q).  The
    bounds are clipped to [0, 1], where δ lies -- the same statement, and no decision changes (claims are ≥ 0)."""
    from pdp_audit.verify.estimators.tails import hockey_stick

    rng = np.random.default_rng(0)
    tails = hockey_stick(rng.normal(0, 0.1, 20_000), rng.normal(0, 0.1, 20_000), np.array([0.05, 3.0]), 1e-6)
    low, high = tails.interval()
    assert np.all(low >= 0) and np.all(high <= 1) and low[1] == 0.0
    assert tails.lower_bound(0, 1e-6) >= 0 and 0 <= tails.upper_bound(1, 1e-6) <= 1


def test_a_hint_never_predicts_a_pass_where_the_estimates_would_contradict_each_other():
    """70 of 1e5 draws impossible under D' (δ ≥ 7e-4) beside a bounded mean of 0 (a loss that omits them), claimed
    δ = 1e-3: every value is below the claim, and the hint predicted a pass at 1.2e5 -- where the mean's upper bound
    falls below the atom's lower bound and the check fails by their contradiction.  It now predicts that fail, and
    the check recomputed from the estimates at 3× the hinted budget does fail (at a third of it, not yet)."""
    import re

    from pdp_audit.verify.core.checks import CheckSpec
    from pdp_audit.verify.estimators.rare import BoundedMean
    from pdp_audit.verify.evidence.pair_claims import (
        CONTRADICTION,
        atom_estimate,
        budget_to_decide,
        mean_estimate,
        pair_claim_check,
    )

    estimates = [mean_estimate(BoundedMean(100_000, 0.0, 0.0, 1.0)), atom_estimate(70, 100_000)]
    spec = CheckSpec("dp-forward", "claim", "", "", "")
    assert pair_claim_check(spec, estimates, 1.0, 1e-3).pvalue > 1e-6  # inconclusive now
    hint = budget_to_decide(estimates, 1e-3, 1e-6)
    assert CONTRADICTION in hint and "below" not in hint, hint
    budget = float(re.search(r"About ([0-9.e+]+) samples", hint).group(1))
    at = [pair_claim_check(spec, [e.at_budget(int(f * budget)) for e in estimates], 1.0, 1e-3) for f in (3, 1 / 3)]
    assert at[0].pvalue <= 1e-6 < at[1].pvalue, [c.pvalue for c in at]
