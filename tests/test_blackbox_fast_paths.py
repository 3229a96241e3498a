"""The black box's shortcuts give the numbers they stand for bit for bit: the logistic statistic's scores
(learned_statistics.linear_scores) as a fixed-order sum of each row, the same in every block, and the histogram
score fitted with its values counted on a prefix first (features.FEW_FIRST) against the one that lists them all, and the
fits that
read their quantiles and atoms off one sort of the pooled columns (features.pooled_sorted) against those that do not."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.blackbox import features
from pdp_audit.audits.blackbox.learned_statistics import Z_MAX, Standardiser, learn_statistic


def _logistic(seed: int):
    """A logistic statistic of 1–3 columns (a Laplace column, a flag column, a wide Gaussian) and fresh releases
    beyond its training range."""
    rng = np.random.default_rng(seed)
    n = 5_000
    d = np.column_stack([rng.laplace(1.0, 3.0, n), rng.choice([0.0, -1000.0, 2.5], n), rng.normal(0, 1e6, n)])
    dp = np.column_stack([rng.laplace(0.0, 3.0, n), rng.choice([0.0, -1000.0, 7.0], n), rng.normal(0, 1, n)])
    statistic, _ = learn_statistic(d[:, : seed % 3 + 1], dp[:, : seed % 3 + 1], (seed % 3 + 1, "x"))
    fresh = np.vstack([d, dp])[:, : seed % 3 + 1] * rng.choice([1.0, 1e3], (10_000, 1))  # beyond the training range
    return statistic, fresh


@pytest.mark.parametrize("seed", range(4))
def test_logistic_scores_are_the_fixed_order_sum_of_each_row(seed):
    """The logistic score is Σ_k w_k·(f_k − m_k)/s_k + b with the products added in the features' order and the
    intercept last: the same doubles as Python's floats computing that sum row by row (learned_statistics.
    linear_scores), and within a few ulps of scikit-learn's decision function (another order of the same sum)."""
    statistic, fresh = _logistic(seed)
    features = statistic.features(fresh)
    mean, scale = statistic.scaler.mean_.tolist(), statistic.scaler.scale_.tolist()
    weights, intercept = statistic.model.coef_[0].tolist(), float(statistic.model.intercept_[0])
    expected = []
    for row in features[::97].tolist():
        x = [(f - m) / s for f, m, s in zip(row, mean, scale)]
        total = x[0] * weights[0]
        for k in range(1, len(x)):
            total += x[k] * weights[k]
        expected.append(total + intercept)
    assert np.array_equal(statistic(fresh)[::97].view(np.uint64), np.array(expected).view(np.uint64))
    sklearn = statistic.model.decision_function(statistic.scaler.transform(features))
    assert np.allclose(statistic(fresh), sklearn, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_a_release_gets_the_same_logistic_score_in_every_block(seed):
    """A release's score is a fixed function of it: the same double alone, repeated in a block of any length, or at
    any position among other releases.  A BLAS product (X @ coef.T, scikit-learn's decision function) rounds a row by
    where it falls in its block: the same release then scored 1 ulp apart in two blocks, and an event {score ≥ t}
    with t one of its scores held it in one block and not in the other (the snapping mechanism refuted, issue 70)."""
    statistic, fresh = _logistic(seed)
    rows = fresh[::1_000]
    alone = np.array([statistic(row[None, :])[0] for row in rows])
    for size in (2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 1_000):
        for i, row in enumerate(rows):
            repeated = statistic(np.repeat(row[None, :], size, axis=0))
            assert np.all(repeated.view(np.uint64) == alone[i : i + 1].view(np.uint64)), (size, i)
    mixed = np.vstack([fresh[:37], rows, fresh[37:40]])
    assert np.array_equal(statistic(mixed)[37 : 37 + len(rows)].view(np.uint64), alone.view(np.uint64))


@pytest.mark.parametrize("columns", [1, 3, 12])
def test_the_standardiser_a_column_at_a_time_is_numpys_broadcast(columns):
    """Standardiser: z = clip((ldexp(o, −e) − c) / s) centred and scaled a column at a time
    (learned_statistics.by_column), bit for bit numpy's broadcast of c and s along the rows, on columns of every
    magnitude and fresh releases far beyond the training range (clipped)."""
    rng = np.random.default_rng(columns)
    train = rng.laplace(1.0, 3.0, (5_000, columns)) * np.resize([1.0, 1e290, 1e-300], columns)
    fresh = train * rng.choice([1.0, -1e3, 1e9], (5_000, 1))
    standardise = Standardiser.fit(train)
    with np.errstate(over="ignore"):
        z = (np.ldexp(fresh, -standardise.exponent) - standardise.centre) / standardise.scale
    expected = np.clip(z, -Z_MAX, Z_MAX)
    assert np.array_equal(standardise(fresh).view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("values", [3, 64, 65, 5_000, None])
def test_a_histogram_fitted_from_a_prefix_first_is_the_one_fitted_from_all_values(monkeypatch, values):
    """A column with few values in its first releases and many later, or many throughout, or few throughout."""
    rng = np.random.default_rng(values or 0)
    draw = (lambda n: rng.integers(0, values, n).astype(float)) if values else (lambda n: rng.normal(size=n))
    d, dp = draw((20_000, 1)), draw((20_000, 1)) + 1
    d[features.FEW_FIRST :, 0] += rng.normal(size=20_000 - features.FEW_FIRST) * (values == 64)  # few, then many
    quick = features.HistogramScore.fit(d, dp)
    monkeypatch.setattr(features, "FEW_FIRST", None)  # pooled[:None]: every value listed, as before
    full = features.HistogramScore.fit(d, dp)
    assert all(np.array_equal(a, b) for a, b in zip(quick.edges + quick.log_ratio, full.edges + full.log_ratio))


def _bits(arrays) -> list:
    return [np.asarray(a, dtype=float).view(np.uint64).tolist() for a in arrays]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_the_pooled_sorted_columns_are_numpys(dtype):
    """features.pooled_sorted, sorted in place in one array, bit for bit and type for type
    ``np.sort(np.concatenate([d_j, dp_j]) + 0.0)``: zeros of both signs one value, integers made doubles, float32
    kept."""
    rng = np.random.default_rng(8)
    d, dp = (np.round(rng.normal(0, 3, (n, 2)), 1).astype(dtype) for n in (1000, 900))
    if dtype != np.int64:
        d[:50, 0], dp[:50, 1] = -0.0, 0.0
    for got, j in zip(features.pooled_sorted(d, dp), range(2)):
        expected = np.sort(np.concatenate([d[:, j], dp[:, j]]) + 0.0)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_a_stages_sorted_columns_merge_the_earlier_stages():
    """pooled_sorted given an earlier stage's sorted columns of its first rows: bit for bit the sort of all rows
    (zeros of both signs, repeated values); the staged run's memo (attack._merging_sorts) merges only where the
    remembered rows are the first ones, and sorts all otherwise."""
    from pdp_audit.audits.blackbox.attack import _merging_sorts

    rng = np.random.default_rng(9)
    d, dp = (np.round(rng.laplace(0, 2, (n, 2)), 1) for n in (3000, 2800))
    d[::7, 0], dp[::5, 1] = -0.0, 0.0
    whole = features.pooled_sorted(d, dp)
    earlier = (d[:1000], dp[:1200], features.pooled_sorted(d[:1000], dp[:1200]))
    merged = features.pooled_sorted(d, dp, earlier)
    assert [m.tobytes() for m in merged] == [w.tobytes() for w in whole]
    learned: dict = {}
    ordered = _merging_sorts(learned)
    ordered(d[:1000], dp[:1200])
    assert [m.tobytes() for m in ordered(d, dp)] == [w.tobytes() for w in whole]
    other = dp + 1.0  # not the remembered rows' continuation: all sorted anew
    expected = features.pooled_sorted(d, other)
    assert [m.tobytes() for m in ordered(d, other)] == [e.tobytes() for e in expected]
    wrong = features.pooled_sorted(d, other, (d[:1000], dp[:1200], earlier[2]))  # a merge of the wrong rows
    assert [m.tobytes() for m in wrong] != [e.tobytes() for e in expected]


@pytest.mark.parametrize("kind", ["real", "zeros of both signs", "counts"])
def test_fits_on_the_pooled_columns_sorted_once_are_the_fits_of_the_releases(kind):
    """The histograms' quantile edges and ratios, the pooled histogram's, and the outcome keys' atoms, fitted with
    :func:`features.pooled_sorted` given, bit for bit those fitted without: real values, a column half zeros of
    either sign (whose signs np.quantile may read: read as they are there), and counts with atoms."""
    rng = np.random.default_rng(7)
    n = 20_000

    def draw(shift):
        real = rng.laplace(shift, 1.0, n)
        zeros = np.where(rng.random(n) < 0.5, np.copysign(0.0, rng.normal(size=n)), real)
        counts = rng.poisson(3.0 + shift, n).astype(float)
        return np.column_stack(
            {"real": [real, -real], "zeros of both signs": [zeros, real], "counts": [counts, real]}[kind]
        )

    d, dp = draw(0.0), draw(0.5)
    ordered = features.pooled_sorted(d, dp)
    for fit in (features.HistogramScore.fit, features.PooledHistogramScore.fit):
        plain, shared = fit(d, dp), fit(d, dp, ordered=ordered)
        assert _bits(plain.edges) == _bits(shared.edges)
        ratios = [r if isinstance(r, tuple) else (r,) for r in (plain.log_ratio, shared.log_ratio)]
        assert _bits(ratios[0]) == _bits(ratios[1])
    plain, shared = features.OutcomeScore.fit(d, dp), features.OutcomeScore.fit(d, dp, ordered)
    assert (plain is None) == (shared is None) == (kind == "real")
    if plain is not None:
        assert _bits(plain.keys.atoms) == _bits(shared.keys.atoms) and _bits([plain.table]) == _bits([shared.table])


@pytest.mark.parametrize("kind", ["real", "atoms"])
def test_the_pooled_histograms_rank_is_the_mean_of_both_searches(kind):
    """PooledHistogramScore._rank: (#(cut < x) + #(cut ≤ x)) // 2, the ties read off the runs of equal cuts (one
    repeated value spans several quantile edges where it carries that much of the training mass), bit for bit the
    two searches, for real values, atoms, a cut's own value, ±∞ and NaN."""
    rng = np.random.default_rng(3)
    draw = {"real": lambda n: rng.laplace(0.0, 2.0, n), "atoms": lambda n: rng.choice([-1.0, 0.0, 0.0, 0.0, 2.5], n)}
    train = draw[kind](20_000)
    cut = np.quantile(train, np.arange(1, features.POOLED_BINS) / features.POOLED_BINS)
    x = np.concatenate([draw[kind](20_000), cut, [np.inf, -np.inf, np.nan, -0.0]])
    left, right = features.sorted_position(cut, x, "left"), features.sorted_position(cut, x, "right")
    assert (kind == "atoms") == bool(np.any(right - left > 1))  # repeated edges, where they should be
    assert np.array_equal(features.PooledHistogramScore._rank(cut, x), (left + right) // 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("differences", [False, True])
def test_the_histograms_columns_as_rows_are_numpys(dtype, differences):
    """HistogramScore.columns: the columns (or np.diff(releases, axis=1, prepend=0.0)) as contiguous rows, bit for
    bit numpy's, in numpy's type (a float prepend makes differences float64), −0.0 included."""
    rng = np.random.default_rng(5)
    magnitudes = [1.0, 1e-300, 1e300] if dtype == np.float64 else [1.0]  # as far as the type reaches
    releases = (rng.laplace(0.0, 50.0, (1_000, 7)) * rng.choice(magnitudes, (1, 7))).astype(dtype)
    if dtype != np.int64:
        releases[:3, :3] = -0.0
    expected = (np.diff(releases, axis=1, prepend=0.0) if differences else releases).T
    rows = features.HistogramScore.columns(releases, differences)
    assert rows.flags.c_contiguous and rows.dtype == expected.dtype
    assert np.array_equal(rows.view(np.uint8), np.ascontiguousarray(expected).view(np.uint8))


def test_the_atoms_an_atom_at_a_time_are_the_broadcast_comparison():
    """Atoms: the releases with each atom replaced by its column's fill and the atoms' indicators, compared an atom
    at a time, bit for bit the comparison of each column with all its atoms at once (the definition), on columns
    with one atom, several, none, -0.0 against an atom 0.0, and real values beside them."""
    from pdp_audit.audits.blackbox.learned_statistics import Atoms

    rng = np.random.default_rng(11)
    n = 20_000
    train = np.column_stack(
        [
            np.where(rng.random(n) < 0.3, -1000.0, rng.normal(size=n)),
            rng.choice([0.0, 1.0, 2.0, 3.0, 7.5], n),
            rng.normal(size=n),
            np.where(rng.random(n) < 0.5, 0.0, rng.laplace(size=n)),
        ]
    )
    atoms = Atoms.fit(train)
    assert atoms is not None and atoms.columns == (0, 1, 3) and max(a.size for a in atoms.values) > 1
    fresh = train[::-1].copy()
    fresh[:50, 3] = -0.0
    filled, indicators = atoms(fresh)
    expected_filled, expected = fresh.copy(), []
    for j, values, fill in zip(atoms.columns, atoms.values, atoms.fill):
        hits = fresh[:, j][:, None] == values[None, :]
        expected_filled[hits.any(axis=1), j] = fill
        expected.append(hits.astype(float))
    assert np.array_equal(filled.view(np.uint64), expected_filled.view(np.uint64))
    assert np.array_equal(indicators.view(np.uint64), np.hstack(expected).view(np.uint64))
