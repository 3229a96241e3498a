"""Tests of the linear-regression mechanisms (mechanisms/linreg*.py).

Statistical tests use fixed seeds and state their false-alarm probability (all <= 1e-6).  Tests of the
papers' printed statements assert the *finding* (holds / fails and by how much), so that a change in
either the code or the finding is noticed; the numbers are printed with ``pytest -s``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from pdp_audit.mechanisms import gaussian as G
from pdp_audit.mechanisms.base import NeighbourPair
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import bounds as B
from pdp_audit.mechanisms.linreg import mechanism as L

ALPHA = 1e-6  # family-wise false-alarm probability of every statistical test below


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    return L.example_data(np.random.default_rng(7), 50, 3)


def _targets(X: np.ndarray, y: np.ndarray, n_out: int = 20) -> list[tuple]:
    """Every data point (Z = data without it) and ``n_out`` off-dataset unit-norm targets (Z = data)."""
    rng = np.random.default_rng(11)
    out = []
    for i in range(X.shape[0]):
        nb = L.Neighbours.remove(X, y, i)
        out.append((nb.X, nb.y, nb.x, nb.yz))
    for _ in range(n_out):
        x = rng.standard_normal(X.shape[1])
        out.append((X, y, x / np.linalg.norm(x), float(rng.uniform(-1, 1))))
    return out


# --- independent per-row laws (mean, covariance) of every stage, for moment and density checks ----


def _stages(pair, world: str, rows: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``[(values, mean, cov)]`` per stage, ``values/mean`` of shape (N, k), ``cov`` (N, k, k), computed
    from the data with numpy directly (not through the pair's own linear algebra)."""
    N = rows.shape[0]

    def const(mean, cov, vals):
        return vals, np.broadcast_to(mean, vals.shape), np.broadcast_to(cov, (N,) + np.shape(cov))

    if isinstance(pair, L.OPSPair):
        X, y = pair.nb.world(world)
        G = X.T @ X + pair.lam * np.eye(X.shape[1])
        return [const(np.linalg.solve(G, X.T @ y), np.linalg.inv(pair.gamma * G), rows)]
    if isinstance(pair, L.OutputPerturbationPair):
        return [const(pair.theta_hat[world], np.linalg.inv(pair.gamma * pair.A[world]), rows)]
    raise TypeError(type(pair))


def _pdp_adaops_stages(pair: A.PDPAdaOPSPair, nb: L.Neighbours, world: str, rows: np.ndarray):
    X, y = nb.world(world)
    n, d = X.shape
    lt = rows[:, 0]
    c = np.log(4 / pair.delta)
    inner = n / (d * pair.kappa) - lt + c / (pair.eps / 2)
    lam = np.minimum(0, inner) if pair.printed else np.maximum(0, inner)
    gamma = min(n * pair.eps**2 / (16 * pair.kappa**2 * d**2 * c), n * pair.eps / (8 * pair.kappa**2 * d**2))
    G = X.T @ X + lam[:, None, None] * np.eye(d)
    mean = np.linalg.solve(G, np.broadcast_to(X.T @ y, (len(lt), d))[:, :, None])[:, :, 0]
    lmin = np.linalg.eigvalsh(X.T @ X)[0]
    return [
        (lt[:, None], np.full((len(lt), 1), lmin), np.full((len(lt), 1, 1), pair.sd1**2)),
        (rows[:, 1:], mean, np.linalg.inv(gamma * G)),
    ]


def _lr_adaops_stages(pair: A.LRAdaOPSPair, nb: L.Neighbours, world: str, rows: np.ndarray):
    X, y = nb.world(world)
    d, k, c = X.shape[1], pair.k, np.log(6 / pair.k.delta)
    nu, Dl = rows[:, 0], rows[:, 1]
    lt = np.maximum(nu, 0)
    lam = A.lr_adaops_lambda(lt, k)  # the (7) solver is checked separately against scipy
    G = X.T @ X + lam[:, None, None] * np.eye(d)
    theta = np.linalg.solve(G, np.broadcast_to(X.T @ y, (len(nu), d))[:, :, None])[:, :, 0]
    s = np.log(1 + k.x_bound**2 / (lam + lt))
    m_D = np.log(k.y_bound + k.x_bound * np.linalg.norm(theta, axis=1)) + s / (k.eps / (4 * c))
    sd_D = s / (k.eps / (4 * np.sqrt(c)))
    gamma = (lt + lam) * k.eps_tilde**2 / (c * (k.x_bound * np.exp(Dl)) ** 2)
    lmin = np.linalg.eigvalsh(X.T @ X)[0]
    N = len(nu)
    return [
        (nu[:, None], np.full((N, 1), lmin - k.shift_lambda), np.full((N, 1, 1), k.sd_lambda**2)),
        (Dl[:, None], m_D[:, None], (sd_D**2)[:, None, None]),
        (rows[:, 2:], theta, np.linalg.inv(gamma[:, None, None] * G)),
    ]


def _ssp_like_stages(nb: L.Neighbours, world: str, rows: np.ndarray, sd_xtx: float, sd_xy: float, offset: int):
    X, y = nb.world(world)
    d = X.shape[1]
    iu = np.triu_indices(d)
    p, N = len(iu[0]), rows.shape[0]
    u = rows[:, offset : offset + p]
    return [
        (u, np.broadcast_to((X.T @ X)[iu], u.shape), np.broadcast_to(sd_xtx**2 * np.eye(p), (N, p, p))),
        (rows[:, offset + p :], np.broadcast_to(X.T @ y, (N, d)), np.broadcast_to(sd_xy**2 * np.eye(d), (N, d, d))),
    ]


def _adassp_stages(pair: A.AdaSSPPair, nb: L.Neighbours, world: str, rows: np.ndarray):
    X, y = nb.world(world)
    d, k, N = X.shape[1], pair.k, rows.shape[0]
    lmin = np.linalg.eigvalsh(X.T @ X)[0]
    first = [(rows[:, :1], np.full((N, 1), lmin - k.shift_lambda), np.full((N, 1, 1), k.sd_lambda**2))]
    rest = _ssp_like_stages(nb, world, rows, k.sd_xtx, k.sd_xy, 1)
    if pair.output == "printed":
        lam = np.maximum(0, k.lam_threshold - np.maximum(rows[:, 0], 0))
        G = X.T @ X + lam[:, None, None] * np.eye(d)
        Gi = np.linalg.inv(G)
        rest[1] = (rows[:, 1 + d * (d + 1) // 2 :], np.einsum("nij,j->ni", Gi, X.T @ y), k.sd_xy**2 * Gi @ Gi)
    return first + rest


def stages_of(pair, nb: L.Neighbours, world: str, rows: np.ndarray):
    if isinstance(pair, A.PDPAdaOPSPair):
        return _pdp_adaops_stages(pair, nb, world, rows)
    if isinstance(pair, A.LRAdaOPSPair):
        return _lr_adaops_stages(pair, nb, world, rows)
    if isinstance(pair, A.AdaSSPPair):
        return _adassp_stages(pair, nb, world, rows)
    if isinstance(pair, A.SSPPair):
        return _ssp_like_stages(nb, world, rows, pair.release.sd_xtx, pair.release.sd_xy, 0)
    return _stages(pair, world, rows)


def whiten(stages) -> np.ndarray:
    """Rows that must be iid N(0, I) if every stage has the stated conditional mean/covariance."""
    cols = []
    for vals, mean, cov in stages:
        Lc = np.linalg.cholesky(np.asarray(cov))
        cols.append(np.linalg.solve(Lc, (vals - mean)[:, :, None])[:, :, 0])
    return np.column_stack(cols)


def moment_test(W: np.ndarray, alpha: float = ALPHA) -> list[str]:
    """Failures of ``W ~ iid N(0, I_k)`` among m = 2k + k(k-1)/2 exact two-sided tests at level alpha/m each:
    per coordinate, the mean (sqrt(N) mean ~ N(0,1)) and the variance (sum w^2 ~ χ²_N), and per pair j<k
    the sum ((w_j+w_k)^2/2) ~ χ²_N (detects wrong correlations).  Bonferroni: false alarm <= alpha.
    E.g. k=3, N=20000: m=9, |z| <= 5.31 and sum/N in [0.948, 1.054]; k=10: |z| <= 5.66, [0.944, 1.058]."""
    N, k = W.shape
    m = 2 * k + k * (k - 1) // 2
    a = alpha / m
    z_crit = stats.norm.isf(a / 2)
    lo, hi = stats.chi2.ppf(a / 2, N), stats.chi2.isf(a / 2, N)
    bad = []
    for j in range(k):
        if abs(np.sqrt(N) * W[:, j].mean()) > z_crit:
            bad.append(f"mean[{j}] z={np.sqrt(N) * W[:, j].mean():.2f}")
        if not lo <= np.sum(W[:, j] ** 2) <= hi:
            bad.append(f"var[{j}]={np.mean(W[:, j] ** 2):.4f}")
        for i in range(j):
            s = np.sum((W[:, i] + W[:, j]) ** 2 / 2)
            if not lo <= s <= hi:
                bad.append(f"corr[{i},{j}] ratio={s / N:.4f}")
    return bad


def _all_pairs() -> list[tuple[str, object, L.Neighbours]]:
    rng = np.random.default_rng(3)
    add, remove = L.example_neighbours(rng)
    X, y = add.X, add.y
    logistic = L.Neighbours.add(X, np.where(y >= 0, 1.0, -1.0), add.x, 1.0)
    kap = A.prop44_kappa_max(*remove.X.shape, 4.0, 1e-3)
    return [
        ("ops-add", L.OPSPair(add, 30.0, 0.0), add),
        ("ops-remove-ridge", L.OPSPair(remove, 30.0, 2.0), remove),
        ("op-fisher", L.OutputPerturbationPair(add, 30.0, "fisher"), add),
        ("op-l2-each", L.OutputPerturbationPair(remove, 3.0, "l2", lam=1.0, a_from="each"), remove),
        ("op-democratic", L.OutputPerturbationPair(remove, 0.2, "democratic"), remove),
        ("op-logistic", L.OutputPerturbationPair(logistic, 3.0, "fisher", loss="logistic", lam=1.0), logistic),
        ("pdp-adaops", A.PDPAdaOPSPair(remove, 4.0, 1e-3, kap), remove),
        ("pdp-adaops-printed", A.PDPAdaOPSPair(remove, 4.0, 1e-3, kap, printed=True), remove),
        ("lr-adaops", A.LRAdaOPSPair(add, 4.0, 1e-3), add),
        ("lr-adaops-product", A.LRAdaOPSPair(remove, 4.0, 1e-3, eq8="product"), remove),
        ("ssp", A.SSPPair(remove, 2.0, 1e-3), remove),
        ("adassp", A.AdaSSPPair(add, 4.0, 1e-3), add),
        ("adassp-printed", A.AdaSSPPair(remove, 4.0, 1e-3, output="printed"), remove),
    ]


PAIRS = _all_pairs()
IDS = [p[0] for p in PAIRS]


@pytest.mark.parametrize("name,pair,nb", PAIRS, ids=IDS)
def test_sampler_moments(name, pair, nb):
    """Every stage has its stated conditional mean/covariance on both worlds (false alarm <= 1e-6 per world)."""
    assert isinstance(pair, NeighbourPair)
    for i, world in enumerate(("D", "D'")):
        rows = pair.sample(world, 20000, np.random.default_rng(100 + i))
        assert rows.shape == (20000, pair.output_dim)
        bad = moment_test(whiten(stages_of(pair, nb, world, rows)), ALPHA / 2)
        assert not bad, f"{name} on {world}: {bad}"


class _BrokenSampling(L.GaussianLaw):
    """Fault injection: uses ``L^{-1} ξ`` (covariance ``L^{-1}L^{-T} != P^{-1}``) instead of ``L^{-T} ξ``."""

    def sample(self, size, rng):
        xi = rng.standard_normal((size, self.dim))
        return self.mean + np.linalg.solve(self.chol, xi.T).T


def test_moment_test_detects_wrong_cholesky(data):
    X, y = data
    nb = L.Neighbours.remove(X, y, 0)
    pair = L.OPSPair(nb, 30.0, 0.0)
    law = pair.laws["D"]
    # make the precision clearly non-diagonal so that L^{-1} and L^{-T} differ
    P = 30.0 * np.array([[40.0, 25.0, 5.0], [25.0, 30.0, 8.0], [5.0, 8.0, 20.0]])
    broken = _BrokenSampling.from_precision(law.mean, P)
    good = L.GaussianLaw.from_precision(law.mean, P)
    cov = np.linalg.inv(P)
    for sampler, should_fail in ((good, False), (broken, True)):
        rows = sampler.sample(20000, np.random.default_rng(5))
        W = whiten([(rows, np.broadcast_to(law.mean, rows.shape), np.broadcast_to(cov, (20000, 3, 3)))])
        assert bool(moment_test(W)) == should_fail


# --- normalisation of the joint densities --------------------------------------------------------


def normalisation_failures(pair, rng_seed: int = 0) -> list[str]:
    """Two Monte Carlo checks that ``log p_D - log p_D'`` comes from normalised densities of the samplers.

    (a) Bounded, exact: ``E_D[min(1, e^{-L})] = E_D'[min(1, e^{L})]`` (both equal ∫min(p, q)); Hoeffding
        on N = 200000 draws per world, each side off by > t = sqrt(log(4/α)/(2N)) = 0.0062 w.p. <= α/2.
    (b) ``E_D[e^{-L}] = 1`` by median of k = 112 group means of m = 2000 (Chebyshev: a group mean is off by
        more than 2σ/sqrt(m) w.p. <= 1/4; Hoeffding: the median is, w.p. <= exp(-k/8) = 8.3e-7), with
        ``σ^2 = Var_D(e^{-L}) = E_D'[e^{-L}] - 1`` estimated from the D' draws and inflated 4x (assumption).
    """
    rng = np.random.default_rng(rng_seed)
    N = 224000
    l_d = pair.privacy_loss(pair.sample("D", N, rng))
    l_p = pair.privacy_loss(pair.sample("D'", N, rng))
    bad = []
    t = np.sqrt(np.log(4 / ALPHA) / (2 * N))
    a, b = np.mean(np.minimum(1, np.exp(-l_d))), np.mean(np.minimum(1, np.exp(l_p)))
    if abs(a - b) > 2 * t:
        bad.append(f"overlap D {a:.4f} vs D' {b:.4f}")
    var = max(np.mean(np.exp(-l_p)) - 1.0, 0.0) * 4 + 1e-12
    med = np.median(np.exp(-l_d).reshape(112, 2000).mean(axis=1))
    if abs(med - 1) > 2 * np.sqrt(var / 2000):
        bad.append(f"E_D[e^-L] median-of-means {med:.4f} (radius {2 * np.sqrt(var / 2000):.4f})")
    return bad


@pytest.mark.parametrize("name,pair,nb", PAIRS, ids=IDS)
def test_joint_density_normalised(name, pair, nb):
    assert not normalisation_failures(pair), name


class _BrokenOPS(L.OPSPair):
    """Fault injection: the D' density uses covariance 1.5x its true value (wrong covariance factor)."""

    def __init__(self, nb, gamma, lam):
        super().__init__(nb, gamma, lam)
        self._bad = L.GaussianLaw(self.laws["D'"].mean, self.laws["D'"].chol / np.sqrt(1.5))

    def privacy_loss(self, outputs):
        return self.laws["D"].log_density(outputs) - self._bad.log_density(outputs)


def test_normalisation_detects_broken_density(data):
    X, y = data
    assert normalisation_failures(_BrokenOPS(L.Neighbours.remove(X, y, 0), 30.0, 0.0))


# --- privacy losses vs an independent computation -----------------------------------------------


@pytest.mark.parametrize("name,pair,nb", PAIRS, ids=IDS)
def test_privacy_loss_matches_scipy(name, pair, nb):
    """``privacy_loss`` equals a scipy.stats evaluation of the per-stage laws on a few rows, to 1e-10."""
    rng = np.random.default_rng(9)
    rows = np.vstack([pair.sample("D", 3, rng), pair.sample("D'", 3, rng)])
    want = np.zeros(len(rows))
    for sign, world in ((1, "D"), (-1, "D'")):
        for vals, mean, cov in stages_of(pair, nb, world, rows):
            want += sign * np.array([stats.multivariate_normal.logpdf(v, m, c) for v, m, c in zip(vals, mean, cov)])
    np.testing.assert_allclose(pair.privacy_loss(rows), want, rtol=0, atol=1e-10)


# --- estimators, Lemma 3.1, eq. (3.4) ------------------------------------------------------------


def test_erm_solvers(data):
    from sklearn.linear_model import LogisticRegression, Ridge

    X, y = data
    np.testing.assert_allclose(L.ridge(X, y, 2.0), Ridge(alpha=2.0, fit_intercept=False).fit(X, y).coef_, atol=1e-10)
    yl = np.where(y >= 0, 1.0, -1.0)
    th = L.fit_erm(X, yl, "logistic", 1.0)
    assert np.linalg.norm(L.loss_gradient("logistic", X, yl, th) + th) < 1e-11
    sk = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=10000).fit(X, yl).coef_[0]
    # the objective is 1-strongly convex (λ = 1): two approximate minimisers differ by at most the sum of their
    # gradients' norms, so scikit-learn's own residual (which varies with its version) sets the tolerance
    residual = np.linalg.norm(L.loss_gradient("logistic", X, yl, sk) + sk)
    assert np.linalg.norm(th - sk) <= residual + 1e-11
    with pytest.raises(ValueError, match="lam"):
        L.ridge(X, y, -1.0)
    with pytest.raises(ValueError, match="labels"):
        L.fit_erm(X, y, "logistic", 1.0)


@pytest.mark.parametrize("loss,lam", [("ridge", 0.5), ("logistic", 1.0)])
def test_lemma31_identity(data, loss, lam):
    """[PDP] Lemma 3.1: the first identity holds to 1e-10; the second holds only with its sign flipped
    (printed ``-[∫ Σ∇²ℓ + ∇²r]^{-1} ∇ℓ(θ̂', z)``; stationarity gives ``+``).  Finding F1."""
    X, y = data
    if loss == "logistic":
        y = np.where(y >= 0, 1.0, -1.0)
    for i in (0, 3, 17):
        nb = L.Neighbours.remove(X, y, i)
        diff = L.fit_erm(nb.X, nb.y, loss, lam) - L.fit_erm(*nb.with_target, loss, lam)
        scale = np.linalg.norm(diff)
        assert np.linalg.norm(L.lemma31_difference(nb, loss, lam, 1) - diff) <= 1e-10 * scale
        assert np.linalg.norm(L.lemma31_difference(nb, loss, lam, 2) + diff) <= 1e-10 * scale  # sign flipped
        assert np.linalg.norm(L.lemma31_difference(nb, loss, lam, 2) - diff) > scale


def test_eq34_lines(data):
    """[PDP] (3.4): line 2 equals the exact ``||θ̂ - θ̂'||_A`` (1e-10); line 1 (Q9) does not (finding F2)."""
    X, y = data
    ratios = []
    for shape in ("l2", "democratic", "fisher"):
        for i in range(0, 50, 7):
            nb = L.Neighbours.remove(X, y, i)
            Am = L.noise_shape_matrix(shape, nb.X, 0.0)
            exact = L.OutputPerturbationPair(L.Neighbours.add(nb.X, nb.y, nb.x, nb.yz), 1.0, Am).sensitivity_A()
            assert abs(B.eq34_sensitivity(nb.X, nb.y, nb.x, nb.yz, Am, 0.0, 2) - exact) <= 1e-10 * exact
            ratios.append(B.eq34_sensitivity(nb.X, nb.y, nb.x, nb.yz, Am, 0.0, 1) / exact)
    print(f"(3.4) line 1 / exact: min {min(ratios):.4f} max {max(ratios):.4f}")
    assert min(ratios) < 0.99  # line 1 understates the sensitivity


# --- exact privacy profiles ------------------------------------------------------------------------


def test_gaussian_profile_vs_mc(data):
    """``whitened_delta`` equals the MC hockey-stick of an output-perturbation pair (shared A:
    a Gaussian mechanism with ``s = sqrt(γ) Δ_A``).  MC of a [0,1] variable, N = 400000: Hoeffding
    radius sqrt(log(2/1e-6)/(2N)) = 0.0043 (false alarm <= 1e-6)."""
    X, y = data
    pair = L.OutputPerturbationPair(L.Neighbours.remove(X, y, 5), 2000.0, "fisher")
    s = np.sqrt(pair.gamma) * pair.sensitivity_A()
    loss = pair.privacy_loss(pair.sample("D", 400000, np.random.default_rng(1)))
    for eps in (0.0, 0.5, 1.0):
        mc = np.mean(np.maximum(0, 1 - np.exp(eps - loss)))
        assert abs(mc - float(G.whitened_delta(eps, s))) < 0.0043


def test_ops_exact_delta_vs_mc_and_quadrature(data):
    """The exact OPS profile (scalar reduction) equals 1-D quadrature to 1e-8 and the MC hockey-stick of
    :class:`OPSPair` (Hoeffding radius 0.0043 at N = 400000, false alarm <= 1e-6 per value)."""
    X, y = data
    nb = L.Neighbours.remove(X, y, int(np.argmax(np.abs(y - X @ L.ridge(X, y)))))
    gamma, lam = 30.0, 0.5
    pair = L.OPSPair(nb, gamma, lam)  # remove: D = [Z, z] (= Q), D' = Z (= P)
    mu, mu_p = B.leverages(nb.X, nb.x, lam)
    r, r_p = B.ops_residuals(nb.X, nb.y, nb.x, nb.yz, lam)
    loss_pq = lambda s: -0.5 * np.log1p(mu) + gamma / 2 * (s**2 - r**2 / (1 + mu))  # noqa: E731
    l_d = pair.privacy_loss(pair.sample("D", 400000, np.random.default_rng(2)))
    l_p = -pair.privacy_loss(pair.sample("D'", 400000, np.random.default_rng(3)))
    for eps in (0.5, 1.0, 2.0):
        fwd, bwd = B.ops_exact_delta(nb.X, nb.y, nb.x, nb.yz, gamma, lam, eps)
        sd = np.sqrt(mu / gamma)
        quad = integrate.quad(
            lambda s: max(0.0, 1 - np.exp(eps - loss_pq(s))) * stats.norm.pdf(s, r, sd),
            r - 12 * sd,
            r + 12 * sd,
            limit=400,
            epsabs=1e-12,
        )[0]
        assert abs(quad - fwd) < 1e-8
        assert abs(np.mean(np.maximum(0, 1 - np.exp(eps - l_p))) - fwd) < 0.0043
        assert abs(np.mean(np.maximum(0, 1 - np.exp(eps - l_d))) - bwd) < 0.0043


def _violations(bound, targets, gamma, lam, delta):
    ratios = np.array([max(B.ops_exact_delta(*t, gamma, lam, bound(*t, gamma, lam, delta))) / delta for t in targets])
    eps_gap = max(B.ops_exact_epsilon(*t, gamma, lam, delta) - bound(*t, gamma, lam, delta) for t in targets)
    return int(np.sum(ratios > 1)), float(ratios.max()), float(eps_gap)


@pytest.mark.tier2
def test_theorem41_validity(data):
    """[PDP] Theorem 4.1 ((4.3), (4.4)) against the exact pDP profile at all 50 data points and 20
    off-dataset targets.  Finding F3: at δ = 1e-2 (4.3) holds everywhere, but at δ = 1e-6 both (4.3)
    and (4.4) fail at *every* target (the proof's tail step uses ``sqrt(log(2/δ))`` where a Gaussian tail
    needs about ``sqrt(2 log(2/δ))``, Q12); (4.4) is not equal to (4.3) and fails already at δ = 1e-2."""
    X, y = data
    targets = _targets(X, y)
    f43 = lambda *a: B.thm41_epsilon(*a, form="4.3")  # noqa: E731
    f44 = lambda *a: B.thm41_epsilon(*a, form="4.4")  # noqa: E731
    res = {}
    for gamma, lam in ((30.0, 0.0), (1.0, 0.0), (300.0, 1.0)):
        for delta in (1e-2, 1e-6):
            for name, f in (("4.3", f43), ("4.4", f44)):
                res[(gamma, lam, delta, name)] = v = _violations(f, targets, gamma, lam, delta)
                print(
                    f"Thm 4.1 ({name}) γ={gamma} λ={lam} δ={delta}: violated at {v[0]}/70, "
                    f"max δ_exact/δ = {v[1]:.3g}, max ε_exact - ε_printed = {v[2]:.3g}"
                )
    for gamma, lam in ((30.0, 0.0), (1.0, 0.0), (300.0, 1.0)):
        assert res[(gamma, lam, 1e-2, "4.3")][0] == 0
        assert res[(gamma, lam, 1e-6, "4.3")][0] == 70 and res[(gamma, lam, 1e-6, "4.3")][1] > 5
        assert res[(gamma, lam, 1e-6, "4.4")][0] == 70
    assert res[(300.0, 1.0, 1e-2, "4.4")][0] > 0
    # (4.3) and (4.4) are printed as equal; they are not
    gap = max(abs(f43(*t, 30.0, 0.0, 1e-6) - f44(*t, 30.0, 0.0, 1e-6)) for t in targets)
    print(f"max |(4.3) - (4.4)| at γ=30, δ=1e-6: {gap:.3g}")
    assert gap > 0.1


def test_remark42_and_prop43_pdp(data):
    """[PDP] Remark 4.2 and Prop. 4.3 (4.5) against the exact profile (finding F4): Remark 4.2 fails at
    every target at δ = 1e-6 (same tail constant as Thm 4.1, Q12); (4.5) fails for γ = 1 at δ = 1e-6, while
    for γ = 30 its γ-scaled third term (Q13) makes it loose enough to hold."""
    X, y = data
    targets = _targets(X, y)
    r42 = _violations(B.remark42_epsilon, targets, 30.0, 0.0, 1e-6)
    p45_small = _violations(B.prop43_pdp_epsilon, targets, 1.0, 0.0, 1e-6)
    p45_big = _violations(B.prop43_pdp_epsilon, targets, 30.0, 0.0, 1e-6)
    print(f"Remark 4.2 (γ=30, δ=1e-6): {r42}; (4.5) γ=1: {p45_small}; (4.5) γ=30: {p45_big}")
    assert r42[0] == 70 and r42[1] > 10
    assert p45_small[0] > 0 and p45_small[1] > 2
    assert p45_big[0] == 0


def test_prop43_dp_bound(data):
    """[PDP] (4.6) upper-bounds the exact pDP ε of every target tried (it is loose by orders of magnitude)."""
    X, y = data
    targets = _targets(X, y)
    for gamma, lam in ((1.0, 5.0), (5.0, 1.0)):
        exact = max(B.ops_exact_epsilon(*t, gamma, lam, 1e-6) for t in targets)
        assert exact < B.prop43_dp_epsilon(X.shape[0], gamma, lam, 1e-6)
    assert B.prop43_sup_residual(100, 4.0, True) == 6.0 and B.prop43_sup_residual(100, 4.0, False) == 3.5


def test_lemma24_eq33(data):
    """[PDP] Lemma 2.4 and (3.3) against the exact Gaussian-mechanism profile (shared Fisher A), finding F5:
    Lemma 2.4's ``γΔ_A sqrt(log(1.25/δ))`` is invalid for small γ (whitened sensitivity is ``sqrt(γ)Δ_A``);
    (3.3) (no γ) is invalid for γ >= 1 at δ = 1e-6 and for γ = 10 already at δ = 1e-2."""
    X, y = data
    worst = {}
    for gamma in (0.1, 1.0, 10.0):
        for delta in (1e-2, 1e-6):
            r24 = r33 = 0.0
            for i in range(50):
                nb = L.Neighbours.remove(X, y, i)
                Am = L.noise_shape_matrix("fisher", nb.X)
                th_p = L.ridge(*nb.with_target)
                D = B.eq34_sensitivity(nb.X, nb.y, nb.x, nb.yz, Am, 0.0, 2)
                s = np.sqrt(gamma) * D
                r24 = max(r24, float(G.whitened_delta(B.lemma24_epsilon(D, gamma, delta), s)) / delta)
                g, H = -2 * (nb.yz - nb.x @ th_p) * nb.x, 2 * nb.X.T @ nb.X  # Lemma 3.1 for ℓ = (y - x^Tθ)^2
                r33 = max(r33, float(G.whitened_delta(B.eq33_epsilon(g, H, Am, delta), s)) / delta)
            worst[(gamma, delta)] = (r24, r33)
            print(f"γ={gamma} δ={delta}: max δ_exact/δ Lemma 2.4 {r24:.3g}, (3.3) {r33:.3g}")
    assert worst[(0.1, 1e-6)][0] > 100 and worst[(1.0, 1e-6)][0] > 1 and worst[(10.0, 1e-6)][0] < 1
    assert worst[(0.1, 1e-6)][1] < 1 and worst[(1.0, 1e-6)][1] > 1 and worst[(10.0, 1e-2)][1] > 1


# --- Proposition 4.3 (3)(4) by Monte Carlo --------------------------------------------------------


def test_prop43_mse_monte_carlo(data):
    """[PDP] Prop. 4.3(3) by MC over ``y ~ N(Xθ0, σ²I)`` and the OPS noise (N = 200000): the derived exact
    MSE lies in the 1 - 1e-6 interval (CLT, z = 4.89), the printed "=" does not (finding F6, Q15)."""
    X, _ = data
    rng = np.random.default_rng(4)
    theta0, sigma, gamma, lam = np.array([0.5, -0.3, 0.8]), 0.3, 2.0, 3.0
    N = 200000
    G = L.gram(X, lam)
    Y = X @ theta0 + sigma * rng.standard_normal((N, X.shape[0]))
    noise = L.GaussianLaw.from_precision(np.zeros(3), gamma * G).sample(N, rng)
    err = np.sum((np.linalg.solve(G, X.T @ Y.T).T + noise - theta0) ** 2, axis=1)
    z = stats.norm.isf(ALPHA / 2)
    half = z * err.std(ddof=1) / np.sqrt(N)
    exact, printed = B.ops_mse_exact(X, theta0, sigma, gamma, lam), B.prop43_mse_printed(X, theta0, sigma, gamma, lam)
    print(f"Prop 4.3(3): MC {err.mean():.5f} ± {half:.5f}; exact {exact:.5f}; printed {printed:.5f}")
    assert abs(err.mean() - exact) < half
    assert abs(err.mean() - printed) > half


def test_prop43_optimisation_gap(data):
    """[PDP] Prop. 4.3(4): MC of ``E F(θ̃) - F(θ̂)`` (N = 200000, 1 - 1e-6 CLT interval) matches the
    derived exact value, which is ``d/(2γ)`` at λ = 0 -- half the printed ``d/γ`` (finding F7, Q16);
    with λ > 0 the printed value is not an equality either.  The printed tail bound
    ``d log(d/δ)/γ`` holds (exact χ²_d computation at λ = 0)."""
    X, y = data
    d = X.shape[1]
    for lam, gamma in ((0.0, 4.0), (2.0, 4.0)):
        theta = L.ops_law(X, y, gamma, lam).sample(200000, np.random.default_rng(6))
        theta_hat = L.ridge(X, y, 2 * lam)
        gap = B.prop43_objective(X, y, theta, lam) - B.prop43_objective(X, y, theta_hat, lam)[0]
        half = stats.norm.isf(ALPHA / 2) * gap.std(ddof=1) / np.sqrt(len(gap))
        exact, printed = B.ops_gap_exact(X, y, gamma, lam), B.prop43_gap_printed(d, gamma)
        print(f"Prop 4.3(4) λ={lam}: MC {gap.mean():.5f} ± {half:.5f}; exact {exact:.5f}; printed {printed:.5f}")
        assert abs(gap.mean() - exact) < half and abs(gap.mean() - printed) > half
    assert B.ops_gap_exact(X, y, 4.0, 0.0) == pytest.approx(d / 8, rel=1e-12)
    for dd in (1, 3, 10):
        for delta in (0.1, 1e-3, 1e-6):  # 2γ(F(θ̃) - F(θ̂)) ~ χ²_d at λ = 0
            assert stats.chi2.sf(2 * dd * np.log(dd / delta), dd) <= delta
