"""Tests of the adaptive linear-regression mechanisms (mechanisms/linreg/adaptive.py): schedules, calibrations and
the printed variants.  Statistical tests use fixed seeds and state their false-alarm probability (all <= 1e-6).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from pdp_audit.mechanisms import gaussian as G
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import bounds as B
from pdp_audit.mechanisms.linreg import calibration as C
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.mechanisms.linreg.data import REGRESSION_DATASETS, load_regression, preprocess, synthetic_regression

ALPHA = 1e-6  # family-wise false-alarm probability of every statistical test below


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    """The example data of tests/test_linreg.py (same seed and size)."""
    return L.example_data(np.random.default_rng(7), 50, 3)


# --- adaptive algorithms: schedules, calibrations, printed variants -----------------------------


def test_lr_adaops_schedule():
    """(7) via the convex reduction equals a direct bounded scalar minimisation; ε̄ and ε̃ solve their quadratics."""
    k = A.lr_adaops_constants(1.0, 1e-6, 5)
    c = np.log(6 / 1e-6)
    assert k.eps_bar**2 / (2 * c) + k.eps_bar - 0.25 == pytest.approx(0, abs=1e-14)
    assert k.eps_tilde**2 / 2 * (1 / c + (1 + c) / c) + k.eps_tilde - 0.5 == pytest.approx(0, abs=1e-14)
    kp = A.lr_adaops_constants(1.0, 1e-6, 5, eq8="product")
    assert kp.eps_tilde**2 / 2 * (1 / c) * ((1 + c) / c) + kp.eps_tilde - 0.5 == pytest.approx(0, abs=1e-14)
    for lt in (0.0, 50.0, 500.0, 5000.0, 1e5):
        t_min = max(k.t_floor - lt, 0.0)
        f = lambda lg: float(A.eq7_objective(np.exp(lg) + t_min + lt, k.C1, k.C2, 1.0))  # noqa: E731
        res = optimize.minimize_scalar(f, bounds=(-30, 20), method="bounded", options={"xatol": 1e-12})
        direct = min(t_min + np.exp(res.x), t_min) if f(-30) <= res.fun else t_min + np.exp(res.x)
        ours = float(A.lr_adaops_lambda(np.array([lt]), k)[0])
        assert float(A.eq7_objective(ours + lt, k.C1, k.C2, 1.0)) <= float(
            A.eq7_objective(direct + lt, k.C1, k.C2, 1.0)
        ) * (1 + 1e-9)
        assert ours >= t_min - 1e-12


def test_stage_claims():
    """Each single Gaussian release at its assigned budget (finding F8, Q52): with ε = 1, δ = 1e-6 every
    release's exact δ(ε_k) exceeds δ_k ([LR]: std ``Δ sqrt(log(6/δ))/(ε/k)`` for ``(ε/k, δ/3)``,
    [PDP] Alg. 1 ``sqrt(log(4/δ))/(ε/2)`` for ``(ε/2, δ/2)``, SSP App. C.1); at ε = 0.1 all hold."""
    for eps, expect_fail in ((1.0, True), (0.1, False)):
        for name, (s, ek, dk) in A.stage_claims(eps, 1e-6, 10).items():
            ratio = float(G.whitened_delta(ek, s)) / dk
            print(
                f"ε={eps} {name}: exact δ(ε_k)/δ_k = {ratio:.3g}, "
                f"exact ε(δ_k) = {G.analytic_epsilon(dk, 1.0, s):.4g} vs ε_k = {ek:.4g}"
            )
            assert (ratio > 1.5) if expect_fail else (ratio < 0.5)


def test_prop44_closed_forms():
    """[PDP] Prop. 4.4's OPS-step bound is <= ε/2 at the largest allowed κ (holds); printed MSE uses ``1+γ``."""
    for n, d, eps, delta in ((1000, 3, 1.0, 1e-6), (50, 3, 1.0, 1e-3), (10000, 10, 0.1, 1e-6)):
        kap = A.prop44_kappa_max(n, d, eps, delta)
        assert A.prop44_ops_step_epsilon(n, d, eps, delta, kap) <= eps / 2
    X = np.eye(3) * 4
    assert A.prop44_mse(X, 1.0, 2.0, printed=True) == pytest.approx(3 / 16 * 3)
    assert A.prop44_mse(X, 1.0, 2.0, printed=False) == pytest.approx(3 / 16 * 1.5)


def test_pdp_adaops_printed_min_is_unrunnable_for_large_release(data):
    """Q5: with the printed ``min`` the shift ``λ_n <= 0`` makes ``X^TX + λ_n I`` indefinite once
    ``λ̃_min > λ_min + n/(dκ) + log(4/δ)/(ε/2)`` -- a release with positive density: a clear error is raised."""
    X, y = data
    nb = L.Neighbours.remove(X, y, 0)
    kap = A.prop44_kappa_max(*nb.X.shape, 4.0, 1e-3)
    printed = A.PDPAdaOPSPair(nb, 4.0, 1e-3, kap, printed=True)
    intended = A.PDPAdaOPSPair(nb, 4.0, 1e-3, kap)
    row = np.array([[1e4, 0.0, 0.0, 0.0]])
    assert np.isfinite(intended.privacy_loss(row)).all()
    with pytest.raises(A.UnrunnableError, match="Q5"):
        printed.privacy_loss(row)


def test_ops_calibrations():
    """The four [LR] App. F calibrations each make the App. F bound equal to ε."""
    n, d, eps, delta = 1000, 5, 1.0, 1e-6
    lams = {}
    for method in ("diffuse", "concentrated", "balanced", "conservative"):
        lam, gamma = C.ops_calibration(method, eps, delta, n, d)
        lams[method] = lam
        assert C.appF_epsilon(gamma, lam, n, delta) == pytest.approx(eps, rel=1e-9)
    assert C.ops_calibration("concentrated", eps, delta, n, d)[1] == 1.0
    assert lams["balanced"] >= lams["diffuse"] and lams["conservative"] >= lams["diffuse"]
    with pytest.raises(ValueError, match="method"):
        C.ops_calibration("other", eps, delta, n, d)  # type: ignore[arg-type]


def test_ssp_and_adassp_estimates(data):
    X, y = data
    nb = L.Neighbours.remove(X, y, 0)
    rows = A.SSPPair(nb, 1e6, 0.5).sample("D", 4, np.random.default_rng(0))  # negligible noise
    np.testing.assert_allclose(A.SSPPair(nb, 1e6, 0.5).estimate(rows), np.tile(L.ridge(X, y), (4, 1)), atol=1e-4)
    pair = A.AdaSSPPair(nb, 1e6, 0.5)
    np.testing.assert_allclose(
        pair.estimate(pair.sample("D", 3, np.random.default_rng(1))), np.tile(L.ridge(X, y), (3, 1)), atol=1e-4
    )


# --- data and parameter validation ----------------------------------------------------------------


def test_datasets():
    rng = np.random.default_rng(0)
    X, y, theta0 = synthetic_regression(200, 4, rng)
    assert X.shape == (200, 4) and np.all((0 <= theta0) & (theta0 <= 1))
    Xp, yp = preprocess(X, y)
    np.testing.assert_allclose(np.linalg.norm(Xp, axis=1), 1.0)
    assert yp.min() == -1.0 and yp.max() == 1.0
    assert "diabetes" in REGRESSION_DATASETS and load_regression("diabetes")[0].shape == (442, 10)
    with pytest.raises(ValueError, match="name"):
        load_regression("nope")


def test_bad_parameters(data):
    X, y = data
    nb = L.Neighbours.remove(X, y, 0)
    with pytest.raises(ValueError, match="gamma"):
        L.OPSPair(nb, 0.0)
    with pytest.raises(ValueError, match="delta"):
        B.thm41_epsilon(X, y, X[0], 0.0, 1.0, 0.0, 1.5)
    with pytest.raises(ValueError, match="kappa"):
        A.PDPAdaOPSPair(nb, 1.0, 1e-3, 100.0)
    with pytest.raises(ValueError, match="index"):
        L.Neighbours.remove(X, y, 50)
    with pytest.raises(ValueError, match="world"):
        L.OPSPair(nb, 1.0).sample("E", 1, np.random.default_rng(0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="output"):
        A.AdaSSPPair(nb, 1.0, 1e-3, output="x")  # type: ignore[arg-type]


def test_k30_for_free_reads_the_trend_and_fails_when_the_excess_grows():
    """fig3-dp-for-free passes when r − 1 falls over the last decade of n and fails when it grows (as OPS's does at
    its fixed calibration in the reproduction)."""
    from pdp_audit.audits.linreg.reproductions import _for_free_check

    ns = (100, 1000, 10_000, 100_000, 1_000_000)
    falling = [(30.0, 0.0), (300.0, 0.0), (400.0, 0.0), (25.0, 0.0), (6.0, 0.0)]
    rising = [(30.0, 0.0), (300.0, 0.0), (3000.0, 0.0), (6800.0, 0.0), (17700.0, 0.0)]
    results = {(eps, m): falling for eps in (0.1, 1.0) for m in ("AdaOPS", "AdaSSP")}
    check = _for_free_check(results, (0.1, 1.0), ns)
    assert check.verdict == "pass" and check.estimate == pytest.approx(math.log10(5 / 24))
    results[(1.0, "AdaSSP")] = rising
    assert _for_free_check(results, (0.1, 1.0), ns).verdict == "fail"


def test_fig3_relative_efficiency_decides_at_its_level_and_needs_enough_data_sets():
    """fig3-relative-efficiency: passes when every adaptive r − 1 is clearly below 1, fails when one is clearly
    above, and stays inconclusive with the figure's 5 data sets (4 degrees of freedom: a wide t-interval at 1e-6)."""
    from pdp_audit.audits.linreg.reproductions import FIG3_EPSILONS, FIG3_METHODS, efficiency_check
    from pdp_audit.verify.core.checks import finalize

    rng = np.random.default_rng(0)

    def per_dataset(r_minus_1: float, datasets: int):
        return {
            (eps, m): 1 + r_minus_1 + 0.5 * rng.standard_normal(datasets) for eps in FIG3_EPSILONS for m in FIG3_METHODS
        }

    def verdict(r_minus_1, datasets):
        return finalize([efficiency_check(per_dataset(r_minus_1, datasets), 1000)], 1e-6)[0].verdict

    assert verdict(0.2, 40) == "pass"
    assert verdict(3.0, 40) == "fail"
    assert verdict(3.0, 5) == "inconclusive"
    check = efficiency_check(per_dataset(0.2, 40), 1000)
    assert set(check.details["curves"]) == {f"{m}, ε = {eps:g}" for eps in FIG3_EPSILONS for m in FIG3_METHODS}


def test_figure_n_is_validated_before_any_work():
    from pdp_audit.catalogue.plans import plans_by_name
    from pdp_audit.verify.core.config import COMMAND_LINE

    plan = plans_by_name()["adassp"]
    with pytest.raises(ValueError, match=r"--figure-n must be a whole number in \[12, 1e6\], got 5"):
        plan.configure({"figure_n": "5", "paper_claims": True}, COMMAND_LINE)
    with pytest.raises(ValueError, match="it needs --paper-claims"):  # it would otherwise do nothing, silently
        plan.configure({"figure_n": "1000"}, COMMAND_LINE)
    assert plan.configure({"figure_n": 1000, "paper_claims": True}).figure_n == 1000
