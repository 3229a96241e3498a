"""The screen of the privacy-report pipeline (:mod:`pdp_audit.audits.privacy_report.screening`): its certified
intervals contain the exact leverages and ε₁ (computed independently, by dense solves), and the table it produces
is the one computed with every user's leverages exactly -- and differs when the screen is broken."""

import numpy as np
import pytest

from pdp_audit.audits.privacy_report import dependent_screen, screening
from pdp_audit.audits.privacy_report import trials as tr
from pdp_audit.mechanisms.privacy_report import mechanism as pr

DELTA, RHO = 1e-6, 0.01
BUDGETS = {"dependent": (0.2, 0.7, 0.1), "adaptive": "0.5,1,1,1", "independent": (0.3,)}


def _work(mode: str, n: int = 200, d: int = 8) -> tr.PipelineTrials:
    X, y = pr.synthetic_logistic(n + 1, d, np.random.default_rng(11))
    cal = pr.calibrate(mode, BUDGETS[mode], d, DELTA, RHO)
    return tr.PipelineTrials(X[:-1], y[:-1], cal, 3, X[-1], float(y[-1]))


def _leverages(X: np.ndarray, A: np.ndarray) -> np.ndarray:
    """xᵀA_t⁻¹x by dense solves (independent of the pipeline's inverses and GEMMs), shape (T, k)."""
    return np.stack([np.einsum("ij,ji->i", X, np.linalg.solve(a, X.T)) for a in A])


def test_intervals_contain_the_exact_leverages_and_epsilon1():
    work = _work("dependent")
    rng = np.random.default_rng(5)
    draws = work.draw(40, rng)
    theta = work.pair.release_from_noise("D", draws["b"])
    H = work.pair.obj_d.hessian(theta)
    H0, lam0, mu0 = work.reference
    X = work.X
    mu = _leverages(X, H)
    box = screening.leverage_interval(mu0[: work.n], screening.deviation(H, H0, lam0))
    assert np.all((box.lo <= mu) & (mu <= box.hi))
    assert np.max(box.hi / box.lo) < 1.1  # narrow: what makes the screen settle almost every user
    Linv = np.linalg.inv(np.linalg.cholesky(H))
    P = Linv @ draws["N"] @ np.swapaxes(Linv, 1, 2)
    ev = np.linalg.eigvalsh(P)
    hat = screening.relative_interval(box, ev[:, 0], ev[:, -1])
    mu_hat = _leverages(X, H + draws["N"])
    pd = ev[:, 0] > -1
    assert pd.any()
    assert np.all((hat.lo[pd] <= mu_hat[pd]) & (mu_hat[pd] <= hat.hi[pd]))
    assert np.all(np.isinf(hat.lo[~pd]))
    # ε₁ of Corollary 7 at the exact leverage lies in the interval
    t = theta @ X.T
    f1, f2 = work.pair.loss.f1(t, work.y), work.pair.loss.f2(t, work.y)
    xb = draws["b"] @ X.T
    eps1 = pr.objpert_epsilon(f1, f2, work.xn2[: work.n], xb, mu, work.cal.sigma, True)
    s2 = work.cal.sigma**2
    interval = screening.epsilon1_interval(box, f2, f1**2 * work.xn2[: work.n] / (2 * s2) + f1 * xb / s2)
    assert np.all((interval.lo <= eps1) & (eps1 <= interval.hi))
    # a broken bound (H taken for H₀: r = 0) misses the exact leverages
    broken = screening.leverage_interval(mu0[: work.n], screening.deviation(H, H, lam0))
    assert not np.all((broken.lo <= mu) & (mu <= broken.hi))


def _table(work: tr.PipelineTrials, seed: int = 9) -> np.ndarray:
    return tr.run_blocks(work, 192, seed, "screen", block_size=96)


@pytest.mark.parametrize("mode", ["dependent", "adaptive", "independent"])
def test_screened_table_equals_every_user_computed_exactly(mode, monkeypatch):
    work = _work(mode)
    screened = _table(work)
    with monkeypatch.context() as m:  # no pair settled: every user's leverages computed exactly

        def nothing_settled(decision):
            return np.zeros(decision.certain.shape[0], bool), np.ones_like(decision.certain)

        m.setattr(screening, "settle", nothing_settled)
        exact = _table(_work(mode))
    np.testing.assert_array_equal(screened, exact)
    events = [c for c in tr.COLUMNS if c.endswith("_fail")]
    assert np.nansum(exact[:, [tr.INDEX[c] for c in events]]) > 0  # the comparison decides something
    # a screen that claims certainty it does not have changes the decisions
    monkeypatch.setattr(screening, "SLACK", -0.9)
    assert not np.array_equal(_table(_work(mode)), exact)


def _dependent_chunks(monkeypatch) -> tuple[tr.PipelineTrials, list]:
    """The data-dependent test work and the (H, state) of every chunk its table screened."""
    work = _work("dependent")
    chunks, screen = [], tr.PipelineTrials._screen
    monkeypatch.setattr(tr.PipelineTrials, "_screen", lambda self, H, st: chunks.append((H, st)) or screen(self, H, st))
    _table(work)
    monkeypatch.undo()
    return work, chunks


@pytest.mark.parametrize("candidate", ["score", "first user"])
def test_dependent_screen_in_fewer_passes_decides_as_the_general_one(candidate, monkeypatch):
    """Algorithm 2's data-dependent screen scales μ₀ by one factor a repetition: the same decisions (settled
    repetitions, pairs left to compute) as the general screen, and it is the path the chunks take -- whichever user of
    a repetition is tried first for the events some user certainly fails (the scored candidate, or always the first
    user, which leaves most repetitions to the search over every user)."""
    work, chunks = _dependent_chunks(monkeypatch)
    scaled = tr.PipelineTrials._screen_dependent
    assert chunks and all(scaled(work, screening.deviation(H, *work.reference[:2]), st) for H, st in chunks)
    if candidate == "first user":
        monkeypatch.setattr(
            dependent_screen, "_candidates", lambda tile, v: {k: np.zeros(tile.f1.shape[0], int) for k in ("a", "b")}
        )
    searched, at = [], dependent_screen._At  # the repetitions searched over every user, per event

    def search(reps, users):
        searched.append(0 if isinstance(reps, slice) else np.size(reps))
        return at(reps, users)

    monkeypatch.setattr(dependent_screen, "_At", search)
    fast = [work._screen(H, st) for H, st in chunks]
    monkeypatch.setattr(tr.PipelineTrials, "_screen_dependent", lambda self, r, st: None)
    generals = [work._screen(H, st) for H, st in chunks]
    # a repetition no user certainly fails is searched whatever the candidate; beyond these:
    needless = sum(searched) - sum(np.sum(~g[e][0]) for g in generals for e in dependent_screen.SETTLED_EVENTS)
    repetitions = sum(H.shape[0] for H, _ in chunks)
    if candidate == "first user":  # the search over every user ran in most repetitions
        assert needless > repetitions
    else:  # and the scored candidate spared it in nearly all
        assert needless < 0.1 * repetitions
    for got, general in zip(fast, generals):
        assert got.keys() == general.keys()
        for name, (settled, pairs) in general.items():
            np.testing.assert_array_equal(got[name][0], settled)
            np.testing.assert_array_equal(got[name][1], pairs)
            assert pairs.sum() < 0.05 * pairs.size  # the screen settles nearly every (repetition, user)


def _bounded_and_exact(work, chunks) -> list[tuple]:
    """Per tile of the chunks, the comparisons of every event with the logs bounded per repetition and exact."""
    out = []
    for H, st in chunks:
        terms: list = []
        with pytest.MonkeyPatch.context() as m:
            m.setattr(dependent_screen, "screen", terms.append)
            work._screen(H, st)
        for lo in range(0, H.shape[0], dependent_screen.TILE):
            tile = dependent_screen._Tile(terms[0], slice(lo, lo + dependent_screen.TILE))
            every = dependent_screen._At(slice(None), slice(None))
            cheap, exact = tile.cheap(every), tile.precise(every)
            for build in (*dependent_screen.SETTLED_EVENTS.values(), lambda v: sum(dependent_screen._uniform(v), [])):
                out.append((build(cheap), build(exact)))
    return out


def test_bounded_logs_are_never_more_certain_than_the_exact_intervals(monkeypatch):
    """The screen's first pass bounds the logs per repetition (:meth:`~.dependent_screen._Tile.cheap`): on every pair
    and comparison of the test chunks, "certainly" with the bounds implies "certainly" with the exact intervals, and
    "possibly" with these implies "possibly" with the bounds -- and bounds that leave the logs out (0)
    claim a certainty the exact intervals do not have."""
    work, chunks = _dependent_chunks(monkeypatch)
    pairs = _bounded_and_exact(work, chunks)
    decided = 0
    for cheap, exact in pairs:
        for (a, b), (x, y) in zip(cheap, exact):
            certain, possible = screening.greater(a, b), screening.greater(x, y)
            assert not np.any(certain.certain & ~possible.certain)
            assert not np.any(possible.possible & ~certain.possible)
            decided += np.sum(~certain.possible)
    assert decided > 0.9 * sum(np.size(p[1][0][0].lo) for p in pairs)  # the bounds decide most pairs
    monkeypatch.setattr(dependent_screen, "LOG_MARGIN", -1.0)
    broken = _bounded_and_exact(work, chunks)
    assert any(
        np.any(screening.greater(a, b).certain & ~screening.greater(x, y).certain)
        or np.any(screening.greater(x, y).possible & ~screening.greater(a, b).possible)
        for cheap, exact in broken
        for (a, b), (x, y) in zip(cheap, exact)
    )


def test_spectral_certificates_agree_with_the_eigenvalues():
    rng = np.random.default_rng(8)
    d = 12
    N = pr.goe_noise(d, 1.0, rng, 400)
    ev = np.linalg.eigvalsh(N)
    norm = np.maximum(-ev[:, 0], ev[:, -1])
    lower = screening.norm_lower_bound(N)
    assert np.all(lower <= norm) and np.median(lower / norm) > 0.95
    A = rng.standard_normal((400, d, d))
    H = A @ np.swapaxes(A, 1, 2) + d * np.eye(d)
    Linv = np.linalg.inv(np.linalg.cholesky(H))
    p = np.linalg.eigvalsh(Linv @ N @ np.swapaxes(Linv, 1, 2))
    for t in np.quantile(norm, [0.1, 0.5, 0.9]):
        inside = screening.pencil_inside(N, None, t)
        assert np.array_equal(inside, norm < t)  # no eigenvalue within 1e-9 of t in this sample
        np.testing.assert_array_equal(tr._norm_exceeds(N, t, lower), norm > t)
        # a lower bound that is not one (inflated) decides wrongly
        assert not np.array_equal(tr._norm_exceeds(N, t, 1.3 * norm), norm > t)
    for t in np.quantile(np.maximum(-p[:, 0], p[:, -1]), [0.2, 0.8]):
        np.testing.assert_array_equal(screening.pencil_inside(N, H, t), (p[:, 0] > -t) & (p[:, -1] < t))


def test_cholesky_leverages_match_mpmath():
    """xᵀA⁻¹x = ‖L⁻¹x‖² (one triangular solve) against 40-digit arithmetic, where needed; +∞ where not definite."""
    import mpmath

    rng = np.random.default_rng(21)
    d, k = 5, 4
    B = rng.standard_normal((2, d, d))
    A = B @ np.swapaxes(B, 1, 2) + 0.1 * np.eye(d)
    X = rng.standard_normal((k, d))
    need = np.array([[True, False, True, True], [True, True, True, True]])
    factors = tr._Factors.of(A, np.array([True, False]))
    got = factors.quadratic(X, need)
    with mpmath.workdps(40):
        exact = [
            float((mpmath.matrix(X[j]).T * mpmath.inverse(mpmath.matrix(A[0])) * mpmath.matrix(X[j]))[0])
            for j in range(k)
        ]
    cond = np.linalg.cond(A[0])
    np.testing.assert_allclose(got[0, need[0]], np.array(exact)[need[0]], rtol=50 * cond * np.finfo(float).eps)
    assert np.isnan(got[0, 1]) and np.all(np.isinf(got[1]))


def test_target_fields_match_dense_solves():
    """ε₁ of Corollary 7 for the three targets, from the pipeline, against dense solves at tolerances set by its
    terms (ε₁ = |A + B + C| can cancel: the error is relative to |A| + |B| + |C|, not to ε₁)."""
    work = _work("dependent")
    draws = work.draw(64, np.random.default_rng(13))
    theta = work.pair.release_from_noise("D", draws["b"])
    table = work._chunk(theta, draws)
    H = work.pair.obj_d.hessian(theta)
    s2 = work.cal.sigma**2
    for target, rows in (
        ("median", np.full(64, work.median)),
        ("added", np.full(64, work.n)),
        ("random", draws["random"]),
    ):
        x = work.Xall[rows]
        mu = np.einsum("ti,ti->t", x, np.linalg.solve(H, x[..., None])[..., 0])
        t = np.einsum("ti,ti->t", x, theta)
        y = work.yall[rows]
        f1, f2 = work.pair.loss.f1(t, y), work.pair.loss.f2(t, y)
        member = rows < work.n
        xb = np.einsum("ti,ti->t", x, draws["b"])
        eps1 = pr.objpert_epsilon(f1, f2, work.xn2[rows], xb, mu, work.cal.sigma, member)
        scale = np.abs(np.log1p(f2 * mu)) + f1**2 * work.xn2[rows] / (2 * s2) + np.abs(f1 * xb) / s2
        assert np.all(np.abs(table[:, tr.INDEX[f"{target}_eps1"]] - eps1) <= 1e-13 * scale)
