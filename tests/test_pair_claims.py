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
    run = pdp_audit.audit_pair(RareLeak(sigma, p), *CLAIM)
    assert _verdicts(run)["dp-forward"] == "fail" and run.verdict == "fail"
    twin = pdp_audit.audit_pair(RareLeak(g.analytic_sigma(CLAIM[0], 1e-6), 0.0), *CLAIM)
    assert twin.verdict == "pass", _verdicts(twin)


@pytest.mark.parametrize("factor", [0.95, 0.97])
def test_a_view_narrower_than_the_sampler_fails(factor):
    sigma = optimize.brentq(lambda s: g.analytic_delta(CLAIM[0], s) - 1.3 * CLAIM[1], 0.5, 20)  # true δ 1.3× claim
    run = pdp_audit.audit_pair(GaussianWithView(sigma, factor), *CLAIM)
    assert _verdicts(run)["noise-view"] == "fail" and run.verdict == "fail"


def test_a_correct_view_passes():
    run = pdp_audit.audit_pair(GaussianWithView(g.analytic_sigma(CLAIM[0], 1e-6)), *CLAIM)
    assert run.verdict == "pass", _verdicts(run)


def test_releasing_the_input_fails_at_a_large_epsilon():
    scale = 1e-3  # δ(20) = 1 − e^{(20 − 1000)/2}: a total leak
    assert lap.laplace_delta(20.0, scale, 1.0) > 0.99
    run = pdp_audit.audit_pair(Laplace(scale), 20.0, 1e-5)
    assert _verdicts(run)["dp-forward"] == "fail"
    # (4, 0)-DP passes; a loss near 20 would not without a noise view: where e^{−L} < 1/n the draws cannot bound the
    # loss's scale from above (pdp_audit.verify.estimators.loss_scale_band), and the claim would rest on the loss alone
    assert pdp_audit.audit_pair(Laplace(1 / 4), 20.0, 1e-3).verdict == "pass"
    assert pdp_audit.audit_pair(Laplace(1.15 / 20), 20.0, 1e-3).verdict == "inconclusive"


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


def test_a_heavy_tailed_violation_is_decided_at_the_default_budget():
    s_broken = optimize.brentq(lambda s: _t_delta(1.0, s) - 2.3e-3, 0.3, 50)
    # correct with the margin the loss-scale band needs at 1e5 (δ(1/1.2) = 0.3e-3 ⇒ δ(1) ≤ 0.3e-3 for a loss 1.2× off)
    s_correct = optimize.brentq(lambda s: _t_delta(1.0 / 1.2, s) - 0.3e-3, 0.3, 50)
    assert _verdicts(pdp_audit.audit_pair(StudentT(s_broken), 1.0, 1e-3))["dp-forward"] == "fail"
    assert pdp_audit.audit_pair(StudentT(s_correct), 1.0, 1e-3).verdict == "pass"


def test_pure_claims_are_accepted_and_decided():
    """Without a noise view a pure claim cannot pass (it did, "when nothing contradicted it"): the correct Laplace is
    inconclusive and names what its draws certify -- its loss has an atom at ε and the loss-scale band (about ±8% at
    1e5) bounds δ(1) by that of a loss 1.08× larger, not 0; the broken one fails."""
    correct = pdp_audit.audit_pair(Laplace(1.0), 1.0, 0.0)
    assert correct.verdict == "inconclusive"
    forward = next(c for c in correct.checks if c.id == "dp-forward")
    assert "cannot be shown by sampling" in forward.note and 1e-3 < forward.ci[1] < 0.05
    broken = pdp_audit.audit_pair(Laplace(1.0), 0.9, 0.0)  # true δ(0.9) = 1 − e^{−0.05}
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
    run = pdp_audit.audit_pair(GaussianWithView(4.0), 1.0, 1e-2, trials=20_000)
    figure = next(c for c in run.checks if c.id == "dp-reverse").figure
    assert "D' called D'" in figure.ylabel


def test_a_hint_never_predicts_a_pass_while_an_estimate_exceeds_the_claim():
    """140 of 1e5 draws impossible under D' (δ ≥ 1.4e-3) beside a bounded mean of 0 (a loss that omits them),
    claimed δ = 1e-3: the mean's upper bound is below the claim already, and the hint used to predict a pass for a
    mechanism over its claim; it now names the budget at which the atom fails it."""
    from pdp_audit.verify.estimators.rare import BoundedMean
    from pdp_audit.verify.evidence.pair_claims import atom_estimate, budget_to_decide, mean_estimate

    estimates = [mean_estimate(BoundedMean(100_000, 0.0, 0.0, 1.0)), atom_estimate(140, 100_000)]
    hint = budget_to_decide(estimates, 1e-3, 1e-6)
    assert "lie above the claimed δ" in hint, hint


def test_bounds_on_delta_stay_in_the_unit_interval():
    """`run laplace` printed `CI [-4.381e-05, 1.612e-05]` for a δ: a lower end below 0 (lo_P − e^ε hi_Q).  The
    bounds are clipped to [0, 1], where δ lies -- the same statement, and no decision changes (claims are ≥ 0)."""
    from pdp_audit.verify.estimators.tails import hockey_stick

    rng = np.random.default_rng(0)
    tails = hockey_stick(rng.normal(0, 0.1, 20_000), rng.normal(0, 0.1, 20_000), np.array([0.05, 3.0]), 1e-6)
    low, high = tails.interval()
    assert np.all(low >= 0) and np.all(high <= 1) and low[1] == 0.0
    assert tails.lower_bound(0, 1e-6) >= 0 and 0 <= tails.upper_bound(1, 1e-6) <= 1
