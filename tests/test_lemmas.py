"""The ledger's exact checks of issue #13 (src/pdp_audit/ledger/lemmas/): each can fail — a printed form against its
evident correction on the same instances, or a deliberately perturbed constant — and the lemma run stays fast."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from pdp_audit.ledger import lemmas
from pdp_audit.ledger.lemmas import (
    generalisation,
    identities,
    inequalities,
    lr_algorithms,
    ops,
    privacy_loss,
    privacy_report,
    ridge_pdp,
    tails,
)
from pdp_audit.ledger.lemmas.exact import Lemma
from pdp_audit.mechanisms.linreg import adaptive as linreg_adaptive


def _rng():
    return np.random.default_rng(0)


@pytest.mark.tier2(cases=("q51-private-mean-q51-printed-unbiased",))
@pytest.mark.parametrize(
    "printed,corrected",
    [
        (ridge_pdp.q14_omega_d_over_n, ridge_pdp.q14_n_over_d),
        (ridge_pdp.q22_a5_printed, ridge_pdp.q22_a5_corrected),
        (ridge_pdp.q19_remark42_printed, ridge_pdp.q19_remark42_theta_hat),
        (generalisation.prop211_equality, generalisation.prop211_corrected),
        (generalisation.cor212_hypothesis, generalisation.cor212_bound),
        (privacy_report.q26_alg2_no_min, privacy_report.q26_pointwise_min),
        (privacy_report.q36_sqrt_d_sigma, privacy_report.q36_sigma_sqrt_d),
        (lr_algorithms.q42_eq8_product, lr_algorithms.q42_eq8_sum),
        (lr_algorithms.q43_step2_printed, lr_algorithms.q43_step2_scaled),
        (inequalities.q49_e1_direction_printed, inequalities.q49_e1_direction),
        (lr_algorithms.q51_private_mean, identities.q51_printed_unbiased),
        (ridge_pdp.q7_mse_printed, ridge_pdp.k9_ops_budget),
    ],
    ids=lambda lemma: lemma.spec.id,
)
def test_printed_form_fails_where_its_correction_holds(printed, corrected):
    assert printed.decide(_rng()).verdict == "fail"
    assert corrected.decide(_rng()).verdict == "pass"


def test_k9_budget_fails_with_a_larger_gamma(monkeypatch):
    original = linreg_adaptive.pdp_adaops_gamma
    monkeypatch.setattr(linreg_adaptive, "pdp_adaops_gamma", lambda *a: 1.01 * original(*a))
    assert ridge_pdp.k9_ops_budget.decide().verdict == "fail"


def _math_with(**overrides):
    names = {name: getattr(math, name) for name in dir(math) if not name.startswith("_")}
    return types.SimpleNamespace(**{**names, **overrides})


def test_lemma12_fails_with_a_smaller_sensitivity(monkeypatch):
    assert ops.lemma12_sensitivity.decide(_rng()).verdict == "pass"
    monkeypatch.setattr(ops, "math", _math_with(log1p=lambda v: 0.99 * math.log1p(v)))
    assert ops.lemma12_sensitivity.decide(_rng()).verdict == "fail"


def test_generalisation_bounds_fail_when_shrunk(monkeypatch):
    original = generalisation._generalisation

    def shrunk(*args):
        g = original(*args)
        for key in ("prop29", "prop211_printed", "prop211_corrected"):
            g[key] *= 0.2
        g["e2_p"] = 1 + 0.2 * (g["e2_p"] - 1)
        g["e2_q"] = 1 + 0.2 * (g["e2_q"] - 1)
        return g

    monkeypatch.setattr(generalisation, "_generalisation", shrunk)
    for lemma in (
        generalisation.prop29_bound,
        generalisation.prop211_printed,
        generalisation.prop211_corrected,
        generalisation.cor212_bound,
    ):
        assert lemma.decide().verdict == "fail", lemma.spec.id


def test_generalisation_by_enumeration():
    # Gen(A, 𝒟, n) of the Bernoulli instance by enumerating all 2^n data sets at n = 6
    n, p, beta = 6, 0.3, 1.0
    total = 0.0
    for bits in range(2**n):
        z = np.array([(bits >> i) & 1 for i in range(n)])
        k = z.sum()
        pi = float(generalisation._p_one(k, n, beta))
        weight = p**k * (1 - p) ** (n - k)
        train = np.mean(np.where(z == 1, 1 - pi, pi))
        test = p * (1 - pi) + (1 - p) * pi
        total += weight * (train - test)
    assert generalisation._generalisation(n, p, p, beta, 0.0)["gen"] == pytest.approx(abs(total), rel=1e-12)


def test_k3_and_k9_events_fail_against_an_honest_rate():
    assert ridge_pdp.k3_assumption_d.decide(_rng()).verdict == "fail"
    event = ridge_pdp.k9_event_e.decide()
    assert event.verdict == "fail"
    from scipy import stats

    assert stats.norm.sf(math.sqrt(20 * math.log(10))) <= 10.0**-10  # the threshold that would give n⁻¹⁰


@pytest.mark.tier2
def test_prop18_counterexample_is_an_exact_violation():
    from pdp_audit.mechanisms.linreg.bounds import ops_exact_epsilon
    from pdp_audit.mechanisms.linreg.calibration import appF_lipschitz, lr_C1

    n, eps, delta, d = 10, 1.0, 1e-6, 3
    lam = (lr_C1(eps, delta, 0.05, d) * n) ** (1 / 3)
    gamma = eps**2 * lam / (4 * math.log(2 / delta) * appF_lipschitz(lam, n) ** 2)
    rows = [r for r in ops.prop18_dp.decide(_rng()).details["rows"] if r[0] == n and r[1] == eps]
    assert rows and rows[0][4] > eps
    best = 0.0
    for s in np.linspace(0.05, 1, 12):
        X = np.zeros((n, d))
        X[:, 0] = s
        best = max(best, ops_exact_epsilon(X, np.ones(n), np.array([0.0, 1.0, 0.0]), 1.0, gamma, lam, delta))
    assert best > eps


@pytest.mark.tier2
def test_rem11_fails_only_where_theorem41_does():
    evidence = ops.rem11_pdp.decide(_rng())
    assert evidence.verdict == "fail" and evidence.estimate > 1


def test_k31_checks_decide_from_the_exact_risks_and_can_go_either_way(monkeypatch):
    """k31-no-dominant fails when one calibration wins everywhere and passes otherwise; k31-ranking fails as soon as
    concentrated or balanced is worse than diffuse or conservative in one setting."""
    assert ops.k31_no_dominant.decide().verdict == "fail" and ops.k31_ranking.decide().verdict == "pass"  # bundled
    mixed = [
        ("a", 1.0, {"diffuse": 3.0, "concentrated": 1.0, "balanced": 2.0, "conservative": 3.0}),
        ("b", 1.0, {"diffuse": 3.0, "concentrated": 2.0, "balanced": 1.0, "conservative": 3.0}),
    ]
    monkeypatch.setattr(ops, "_ops_calibration_risks", lambda: mixed)
    assert ops.k31_no_dominant.decide().verdict == "pass" and ops.k31_ranking.decide().verdict == "pass"
    mixed[1][2]["balanced"] = 3.5  # balanced worse than diffuse in one setting
    assert ops.k31_ranking.decide().verdict == "fail"


def test_every_check_the_subject_modules_declare_is_listed_once():
    """Nothing registers itself on import: ``LEMMAS`` lists every check the modules declare, each once."""
    modules = (
        generalisation,
        identities,
        inequalities,
        lr_algorithms,
        ops,
        privacy_loss,
        privacy_report,
        ridge_pdp,
        tails,
    )
    declared = [value.spec.id for module in modules for value in vars(module).values() if isinstance(value, Lemma)]
    listed = [lemma.spec.id for lemma in lemmas.LEMMAS]
    assert len(listed) == len(set(listed)) and sorted(declared) == sorted(listed)


def test_each_check_draws_its_instances_from_its_own_stream():
    """A check's random instances depend on the seed and its id only: computed alone or beside others, the same."""
    from pdp_audit.verify.estimators.engine import block_rng

    alone = lemmas.evidence(3, ["smw"])
    beside = [e for e in lemmas.evidence(3, ["smw-printed", "det-lemma", "smw"]) if e.spec.id == "smw"]
    direct = identities.smw.decide(block_rng(3, "lemma/smw", 0))
    assert (
        [(e.note, e.estimate) for e in alone]
        == [(e.note, e.estimate) for e in beside]
        == [(direct.note, direct.estimate)]
    )
    assert lemmas.evidence(4, ["smw"])[0].note != alone[0].note  # another seed, other instances
    with pytest.raises(KeyError, match="unknown lemma checks"):
        lemmas.evidence(0, ["no-such-check"])
