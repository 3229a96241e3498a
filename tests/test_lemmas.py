"""The ledger's exact checks of issue #13 (verify/ledger/lemmas.py): each can fail — a printed form against its evident
correction on the same instances, or a deliberately perturbed constant — and the lemma run stays fast."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from pdp_audit.mechanisms import linreg_adaptive
from pdp_audit.verify.ledger import lemmas


def _rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize(
    "printed,corrected",
    [
        (lambda: lemmas._q14_bias(_rng(), corrected=False), lambda: lemmas._q14_bias(_rng(), corrected=True)),
        (lambda: lemmas._q22(_rng(), corrected=False), lambda: lemmas._q22(_rng(), corrected=True)),
        (lambda: lemmas._q19(_rng(), corrected=False), lambda: lemmas._q19(_rng(), corrected=True)),
        (lambda: lemmas._prop211("equality"), lambda: lemmas._prop211("corrected")),
        (lambda: lemmas._cor212(hypothesis=True), lambda: lemmas._cor212(hypothesis=False)),
        (lambda: lemmas._q26(_rng(), with_min=False), lambda: lemmas._q26(_rng(), with_min=True)),
        (lambda: lemmas._q36(corrected=False), lambda: lemmas._q36(corrected=True)),
        (lambda: lemmas._q42_q44("q42-eq8-product"), lambda: lemmas._q42_q44("q42-eq8-sum")),
        (lambda: lemmas._q43("q43-step2-printed"), lambda: lemmas._q43("q43-step2-scaled")),
        (lambda: lemmas._q49_direction(_rng(), printed=True), lambda: lemmas._q49_direction(_rng(), printed=False)),
        (lambda: lemmas._q51_private(), lambda: lemmas._q51_printed(_rng())),
        (lambda: lemmas._q7_mse(_rng(), "printed"), lambda: lemmas._k9_budget()),
    ],
)
def test_printed_form_fails_where_its_correction_holds(printed, corrected):
    assert printed().verdict == "fail"
    assert corrected().verdict == "pass"


def test_k9_budget_fails_with_a_larger_gamma(monkeypatch):
    original = linreg_adaptive.pdp_adaops_gamma
    monkeypatch.setattr(linreg_adaptive, "pdp_adaops_gamma", lambda *a: 1.01 * original(*a))
    assert lemmas._k9_budget().verdict == "fail"


def _math_with(**overrides):
    names = {name: getattr(math, name) for name in dir(math) if not name.startswith("_")}
    return types.SimpleNamespace(**{**names, **overrides})


def test_lemma12_fails_with_a_smaller_sensitivity(monkeypatch):
    assert lemmas._lemma12(_rng()).verdict == "pass"
    monkeypatch.setattr(lemmas, "math", _math_with(log1p=lambda v: 0.99 * math.log1p(v)))
    assert lemmas._lemma12(_rng()).verdict == "fail"


def test_generalisation_bounds_fail_when_shrunk(monkeypatch):
    original = lemmas._generalisation

    def shrunk(*args):
        g = original(*args)
        for key in ("prop29", "prop211_printed", "prop211_corrected"):
            g[key] *= 0.2
        g["e2_p"] = 1 + 0.2 * (g["e2_p"] - 1)
        g["e2_q"] = 1 + 0.2 * (g["e2_q"] - 1)
        return g

    monkeypatch.setattr(lemmas, "_generalisation", shrunk)
    assert lemmas._prop29().verdict == "fail"
    assert lemmas._prop211("printed").verdict == "fail"
    assert lemmas._prop211("corrected").verdict == "fail"
    assert lemmas._cor212(hypothesis=False).verdict == "fail"


def test_generalisation_by_enumeration():
    # Gen(A, 𝒟, n) of the Bernoulli instance by enumerating all 2^n data sets at n = 6
    n, p, beta = 6, 0.3, 1.0
    total = 0.0
    for bits in range(2**n):
        z = np.array([(bits >> i) & 1 for i in range(n)])
        k = z.sum()
        pi = float(lemmas._p_one(k, n, beta))
        weight = p**k * (1 - p) ** (n - k)
        train = np.mean(np.where(z == 1, 1 - pi, pi))
        test = p * (1 - pi) + (1 - p) * pi
        total += weight * (train - test)
    assert lemmas._generalisation(n, p, p, beta, 0.0)["gen"] == pytest.approx(abs(total), rel=1e-12)


def test_k3_and_k9_events_fail_against_an_honest_rate():
    assert lemmas._k3_assumption_d(_rng()).verdict == "fail"
    event = lemmas._k9_event()
    assert event.verdict == "fail"
    from scipy import stats

    assert stats.norm.sf(math.sqrt(20 * math.log(10))) <= 10.0**-10  # the threshold that would give n⁻¹⁰


def test_prop18_counterexample_is_an_exact_violation():
    from pdp_audit.mechanisms.linreg_bounds import ops_exact_epsilon
    from pdp_audit.mechanisms.linreg_calibration import appF_lipschitz, lr_C1

    n, eps, delta, d = 10, 1.0, 1e-6, 3
    lam = (lr_C1(eps, delta, 0.05, d) * n) ** (1 / 3)
    gamma = eps**2 * lam / (4 * math.log(2 / delta) * appF_lipschitz(lam, n) ** 2)
    rows = [r for r in lemmas._prop18(_rng()).details["rows"] if r[0] == n and r[1] == eps]
    assert rows and rows[0][4] > eps
    best = 0.0
    for s in np.linspace(0.05, 1, 12):
        X = np.zeros((n, d))
        X[:, 0] = s
        best = max(best, ops_exact_epsilon(X, np.ones(n), np.array([0.0, 1.0, 0.0]), 1.0, gamma, lam, delta))
    assert best > eps


def test_rem11_fails_only_where_theorem41_does():
    evidence = lemmas._rem11(_rng())
    assert evidence.verdict == "fail" and evidence.estimate > 1


def test_k31_checks_decide_from_the_exact_risks_and_can_go_either_way(monkeypatch):
    """k31-no-dominant fails when one calibration wins everywhere and passes otherwise; k31-ranking fails as soon as
    concentrated or balanced is worse than diffuse or conservative in one setting."""
    from pdp_audit.verify.ledger import lemmas as L

    assert L._k31("k31-no-dominant").verdict == "fail" and L._k31("k31-ranking").verdict == "pass"  # bundled data
    mixed = [
        ("a", 1.0, {"diffuse": 3.0, "concentrated": 1.0, "balanced": 2.0, "conservative": 3.0}),
        ("b", 1.0, {"diffuse": 3.0, "concentrated": 2.0, "balanced": 1.0, "conservative": 3.0}),
    ]
    monkeypatch.setattr(L, "_ops_calibration_risks", lambda: mixed)
    assert L._k31("k31-no-dominant").verdict == "pass" and L._k31("k31-ranking").verdict == "pass"
    mixed[1][2]["balanced"] = 3.5  # balanced worse than diffuse in one setting
    assert L._k31("k31-ranking").verdict == "fail"
