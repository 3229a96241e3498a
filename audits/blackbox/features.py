"""Scores for the black-box event test that fit discrete and independent outputs, learned on training releases only.

* :class:`OutcomeScore` -- for discrete outputs (sparse-vector answers, report-noisy-max indices, counts, bit
  vectors): each release is mapped to its *outcome*, the row with every value that is not an atom of its column
  replaced by one marker (atoms: values drawn at least :data:`ATOM_MIN_COUNT` times in the column on the training
  split; an atom's value kept bit for bit, so −0.0 and 0.0 are two outcomes), hashed to 64 bits; the score is the
  outcome's empirical log likelihood ratio
  log((c_D + a)/n_D) − log((c_D' + a)/n_D') with a = :data:`SMOOTHING` (NaN for an outcome never seen in
  training).  A threshold on it selects the outcomes whose ratio is largest: the most informative set of outcomes,
  as in the Neyman–Pearson lemma for discrete laws.  A hash collision only merges outcomes into one fixed set: the
  events built on it are still fixed before the fresh draws, so no collision can make a bound invalid.
* :class:`HistogramScore` -- naive Bayes on per-column histograms: Σ_j log(p̂_j(bin)/q̂_j(bin)) over quantile bins
  of each column (or of its first differences, ``differences``: a cumulative sum of independent noises, such as a
  prefix sum, has independent increments), fitted on the training split.  For independent coordinates (parallel
  Laplace, noisy histograms, RAPPOR bits) it is the exact log likelihood ratio up to the binning; for Laplace noise
  its per-column step function is the sign test that linear features miss.

* :class:`PooledHistogramScore` -- the same with one ratio per quantile-bin rank, estimated from all columns'
  counts together: for many columns that each move a little (parallel Laplace).

All are frozen functions of one release each (row by row), so the scores of fresh releases are independent draws
of a fixed statistic, whatever the training draws were.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from pdp_audit.audits.blackbox.cut_counts import CHUNK, CutGrid

#: A value is an atom of its column when the training split holds it at least this many times.
ATOM_MIN_COUNT = 5
#: Pseudo-count added to each outcome's or bin's count in each world before taking the ratio.
SMOOTHING = 0.5
#: The marker that replaces a value that is not an atom of its column (an arbitrary fixed 64-bit pattern).
NOT_AN_ATOM = np.uint64(0x7FF8DEADBEEF0001)
#: At most this many bins per column (quantiles of the pooled training releases) ...
MAX_BINS = 64
#: ... a column's values counted first among this many of its releases: a real-valued column shows more than
#: MAX_BINS there, and its quantiles need no list of its values (a sort of 1e6 releases at the default budget).
FEW_FIRST = 4096

_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))
_STEP = np.uint64(0x9E3779B97F4A7C15)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words that mixes every bit."""
    x = (x ^ (x >> np.uint64(30))) * _MIX[0]
    x = (x ^ (x >> np.uint64(27))) * _MIX[1]
    return x ^ (x >> np.uint64(31))


def pooled_sorted(train_d: np.ndarray, train_dp: np.ndarray, earlier: tuple | None = None) -> tuple[np.ndarray, ...]:
    """Per column, the training releases of both worlds sorted, each + 0.0 (−0.0 and 0.0 one value: equal values,
    equal bits): what the outcome keys find atoms in, and the histograms read their quantiles off
    (:func:`_quantiles`), one sort of each column for both (a third of the fits' time on 1-D Laplace was these
    quantiles and sorts, each stage of a staged run fitting on up to a million releases).  ``earlier``: (d, dp,
    their pooled_sorted) of releases that are the first rows of ``train_d`` and ``train_dp`` (an earlier stage's
    training releases): only the rows after them are sorted, then merged with those (a stable sort of two sorted
    runs, about a pass over them) -- the same array, equal values having equal bits."""
    if earlier is not None:
        d, dp, ordered = earlier
        later = (train_d[len(d) :], train_dp[len(dp) :])
        return tuple(_merged(o, _sorted_pooled_column(later[0][:, j], later[1][:, j])) for j, o in enumerate(ordered))
    return tuple(_sorted_pooled_column(train_d[:, j], train_dp[:, j]) for j in range(train_d.shape[1]))


def _merged(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The sorted arrays ``first`` and ``second`` as one sorted array (a stable sort merges the two runs it finds)."""
    merged = np.concatenate([first, second])
    merged.sort(kind="stable")
    return merged


def _sorted_pooled_column(d: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """``np.sort(np.concatenate([d, dp]) + 0.0)`` in the one array the concatenation makes (three arrays of a million
    releases were fresh memory, whose first touch cost about as much as the sort)."""
    column = np.concatenate([d, dp])
    if column.dtype.kind == "f":
        column += 0.0
    else:  # integers: + 0.0 makes them doubles
        column = column + 0.0
    column.sort()
    return column


def _quantiles(pooled: np.ndarray, ordered: np.ndarray | None, probabilities: np.ndarray) -> np.ndarray:
    """``np.quantile(pooled, probabilities)``, read off ``ordered`` (:func:`pooled_sorted`'s column of the same
    values) where it holds no zero: np.quantile takes order statistics (the same values in any order of them) and
    interpolates between them, so the same numbers; where a zero is an order statistic, its sign in ``pooled`` may
    differ from the + 0.0 of ``ordered`` and show in the interpolation, so the values are read as they are."""
    if ordered is not None:
        at = int(np.searchsorted(ordered, 0.0))
        if at == ordered.size or ordered[at] != 0:
            return np.quantile(ordered, probabilities)
    return np.quantile(pooled, probabilities)


@dataclass(frozen=True)
class OutcomeKeys:
    """Per column, the sorted atoms found on the training split; maps releases to 64-bit outcome hashes."""

    atoms: tuple[np.ndarray, ...]

    @classmethod
    def fit(cls, releases: np.ndarray) -> OutcomeKeys:
        return cls.of_sorted(np.sort(column + 0.0) for column in releases.T)  # + 0.0: −0.0 and 0.0 are one value

    @classmethod
    def of_sorted(cls, columns) -> OutcomeKeys:
        """The atoms of the training releases' ``columns``, each sorted and + 0.0 (:func:`pooled_sorted`)."""
        atoms = []
        for ordered in columns:
            # a value drawn k times is a run of k in order: ATOM_MIN_COUNT equal at distance ATOM_MIN_COUNT − 1 (the
            # values np.unique counts at least that often, without counting every value of a real-valued column)
            span = ATOM_MIN_COUNT - 1
            runs = np.flatnonzero(ordered[span:] == ordered[: ordered.size - span])
            atoms.append(np.unique(ordered[runs]))
        return cls(tuple(atoms))

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        """Each release's outcome hash: per column, the release's own 64 bits where its value is an atom (−0.0 and
        0.0 are one atom, two outcomes: the sign of a zero is part of the release, and an exact function of it),
        :data:`NOT_AN_ATOM` elsewhere."""
        h = np.zeros(len(releases), dtype=np.uint64)
        for j, atoms in enumerate(self.atoms):
            column = np.ascontiguousarray(releases[:, j], dtype=np.float64)
            word = np.where(np.isin(column, atoms), column.view(np.uint64), NOT_AN_ATOM)
            h = _splitmix(h + _STEP + word)
        return h

    def any_atoms(self) -> bool:
        return any(a.size for a in self.atoms)


@dataclass(frozen=True)
class OutcomeScore:
    """The empirical log likelihood ratio of each release's outcome (:class:`OutcomeKeys`), NaN where unseen;
    ``counts`` = (of D, of D') per outcome of ``table`` and ``sizes`` the releases they were counted on."""

    keys: OutcomeKeys
    table: np.ndarray  # sorted outcome hashes seen in training
    log_ratio: np.ndarray  # their smoothed log ratios
    counts: tuple[np.ndarray, np.ndarray]
    sizes: tuple[int, int]

    @classmethod
    def fit(cls, train_d: np.ndarray, train_dp: np.ndarray, ordered: tuple | None = None) -> OutcomeScore | None:
        """None when no column has an atom, or when most training releases are outcomes seen only once (nothing to
        rank: the outputs are real numbers).  ``ordered``: :func:`pooled_sorted` of the same releases, if made."""
        keys = (
            OutcomeKeys.of_sorted(ordered) if ordered is not None else OutcomeKeys.fit(np.vstack([train_d, train_dp]))
        )
        if not keys.any_atoms():
            return None
        hd, hdp = keys(train_d), keys(train_dp)
        table, inverse, counts = np.unique(np.concatenate([hd, hdp]), return_inverse=True, return_counts=True)
        if np.sum(counts[counts >= 2]) < 0.5 * counts.sum():
            return None
        count_d = np.bincount(inverse[: len(hd)], minlength=table.size)
        count_dp = np.bincount(inverse[len(hd) :], minlength=table.size)
        return cls._of_counts(keys, table, (count_d, count_dp), (len(hd), len(hdp)))

    @classmethod
    def _of_counts(cls, keys, table, counts, sizes) -> OutcomeScore:
        (count_d, count_dp), (n_d, n_dp) = counts, sizes
        ratio = np.log((count_d + SMOOTHING) / n_d) - np.log((count_dp + SMOOTHING) / n_dp)
        return cls(keys, table, ratio, (count_d, count_dp), (n_d, n_dp))

    def index(self, releases: np.ndarray) -> np.ndarray:
        """Each release's outcome as its position in ``table`` (a float; NaN where unseen in training)."""
        h = self.keys(releases)
        at = np.minimum(np.searchsorted(self.table, h), self.table.size - 1)
        return np.where(self.table[at] == h, at.astype(float), np.nan)

    def refitted(self, index_d: np.ndarray, index_dp: np.ndarray) -> OutcomeScore:
        """The score with the outcomes ``index_d`` and ``index_dp`` (positions from :meth:`index`, NaN ignored) of
        further releases of D and D' counted in: the ranking of outcomes from more draws than the training split
        holds (SVT1's most telling outcome, P ≈ 0.024 at a ratio e^0.088, ranks second on 2e5 training releases
        about one time in three on its own)."""
        extra = [
            np.bincount(i[np.isfinite(i)].astype(np.int64), minlength=self.table.size) for i in (index_d, index_dp)
        ]
        counts = (self.counts[0] + extra[0], self.counts[1] + extra[1])
        sizes = (self.sizes[0] + len(index_d), self.sizes[1] + len(index_dp))
        return self._of_counts(self.keys, self.table, counts, sizes)

    def of_index(self, index: np.ndarray) -> np.ndarray:
        """The score of releases given by their outcome positions (NaN stays NaN)."""
        at = np.where(np.isfinite(index), index, 0).astype(np.int64)
        return np.where(np.isfinite(index), self.log_ratio[at], np.nan)

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        return self.of_index(self.index(releases))


@dataclass(frozen=True)
class OutcomeIndex:
    """The selection pass's view of an :class:`OutcomeScore`: each release's outcome position, so that the ranking
    of outcomes can be refitted on the selection pass (:meth:`OutcomeScore.refitted`) before the events are
    chosen."""

    score: OutcomeScore

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        return self.score.index(releases)


def sorted_position(cut: np.ndarray, x: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted(cut, x, side)`` for a sorted ``cut`` without NaN and a column ``x``: how many edges are < x
    ("left") or ≤ x ("right"), NaN after them all.  By the lookup on a uniform grid of the cuts' range
    (:class:`~pdp_audit.audits.blackbox.cut_counts.CutGrid`, exact: the module docstring), a chunk of
    :data:`~pdp_audit.audits.blackbox.cut_counts.CHUNK` values at a time: a few passes over the values where a
    binary search makes one a level, and numpy's its branch per comparison, which the processor cannot predict (the
    histogram scores and the trees' step functions look up tens of millions of releases in a few hundred edges:
    more time than drawing them)."""
    position = np.zeros(np.shape(x), dtype=np.intp)
    if cut.size == 0:
        return position
    missing = np.isnan(x)
    if missing.any():
        x = np.where(missing, cut[0], x)
    grid = _grid_of(np.ascontiguousarray(cut, dtype=float).tobytes())
    for start in range(0, position.size, CHUNK):
        position[start : start + CHUNK] = grid.place(x[start : start + CHUNK], side)
    position[missing] = cut.size
    return position


@functools.lru_cache(maxsize=32)
def _grid_of(cut: bytes):
    """The grid of the cuts whose float64 bytes are ``cut``, made once for the blocks that look up the same edges
    (at most 32 kept, each at most 2 MB: a table of :data:`~pdp_audit.audits.blackbox.cut_counts.CELLS` entries)."""
    return CutGrid.sized(np.frombuffer(cut))


@dataclass(frozen=True)
class HistogramScore:
    """Σ_j of the smoothed log ratio of the bin of column j (``differences``: of o_j − o_{j−1}, o_0 = 0)."""

    edges: tuple[np.ndarray, ...]  # interior bin edges per column
    log_ratio: tuple[np.ndarray, ...]
    differences: bool = False

    @staticmethod
    def columns(releases: np.ndarray, differences: bool) -> np.ndarray:
        """The columns the score reads (``differences``: o_j − o_{j−1}, o_0 = 0, as ``np.diff(releases, axis=1,
        prepend=0.0)``), each a contiguous row: shape (columns, releases).  Each is searched a pass per level of
        :func:`sorted_position`; a column of a C-ordered array is strided across every release's memory."""
        rows = np.ascontiguousarray(releases.T)
        if not differences:
            return rows
        rows = rows.astype(np.result_type(rows.dtype, np.float64), copy=False)  # np.diff's, with its float prepend
        out = np.empty_like(rows)
        np.subtract(rows[0], 0.0, out=out[0])
        np.subtract(rows[1:], rows[:-1], out=out[1:])
        return out

    @classmethod
    def fit(
        cls, train_d: np.ndarray, train_dp: np.ndarray, differences: bool = False, ordered: tuple | None = None
    ) -> HistogramScore:
        """``ordered``: :func:`pooled_sorted` of the same releases, if made (not of their differences)."""
        cd, cdp = cls.columns(train_d, differences), cls.columns(train_dp, differences)
        edges, ratios = [], []
        for j in range(len(cd)):
            pooled = np.concatenate([cd[j], cdp[j]])
            values = np.unique(pooled[:FEW_FIRST])  # more than MAX_BINS values among the first: more in all,
            if values.size <= MAX_BINS:  # and no need to sort the whole column to list them
                values = np.unique(pooled)
            if values.size <= MAX_BINS:
                cut = (values[1:] + values[:-1]) / 2  # one bin per value
            else:
                sorted_column = None if ordered is None or differences else ordered[j]
                cut = np.unique(_quantiles(pooled, sorted_column, np.arange(1, MAX_BINS) / MAX_BINS))
            bins = cut.size + 1
            # np.searchsorted's integers, by the grid lookup (the fit looks up every training release)
            count_d = np.bincount(sorted_position(cut, cd[j]), minlength=bins)
            count_dp = np.bincount(sorted_position(cut, cdp[j]), minlength=bins)
            edges.append(cut)
            ratios.append(np.log((count_d + SMOOTHING) / len(train_d)) - np.log((count_dp + SMOOTHING) / len(train_dp)))
        return cls(tuple(edges), tuple(ratios), differences)

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        cols = self.columns(releases, self.differences)
        total = np.zeros(len(releases))
        for j, (cut, ratio) in enumerate(zip(self.edges, self.log_ratio)):
            total += ratio[sorted_position(cut, cols[j])]
        return total


#: Quantile bins per column of :class:`PooledHistogramScore` (each bin's ratio is estimated from every column's
#: releases in it, so fewer, fuller bins than :data:`MAX_BINS`).
POOLED_BINS = 16


@dataclass(frozen=True)
class PooledHistogramScore:
    """Σ_j r(b_j(o_j)): each column cut at its own training quantiles into :data:`POOLED_BINS` bins b_j, and one
    smoothed log ratio r per bin *rank*, estimated from the counts of all columns together.

    Why: where many columns each carry a tiny part of the difference (20 parallel Laplace copies, each
    e^0.005-close), a per-column histogram estimates each bin's ratio from that column alone and its noise swamps the
    signal (log-ratio standard error √(2/c) for c releases per bin: 0.025 at 2e5 releases and 64 bins, against
    0.005), whereas columns that move alike pool their counts (√20 less noise, and 4× fewer bins).  For such
    columns the optimal test Σ_j log(p(o_j)/q(o_j)) is of this form up to the binning (Laplace: a clipped linear
    function of each o_j, here a step at the median).  Where the columns do not move alike it is merely another
    candidate, which the selection pass (on releases apart from the training ones) leaves unchosen.  Fitted on
    training releases only: a frozen function of one release."""

    edges: tuple[np.ndarray, ...]  # interior quantile edges per column
    log_ratio: np.ndarray  # per bin rank

    @classmethod
    def fit(cls, train_d: np.ndarray, train_dp: np.ndarray, ordered: tuple | None = None) -> PooledHistogramScore:
        """``ordered``: :func:`pooled_sorted` of the same releases, if made."""
        bins = POOLED_BINS
        count_d, count_dp = np.zeros(bins), np.zeros(bins)
        edges = []
        for j in range(train_d.shape[1]):
            pooled = np.concatenate([train_d[:, j], train_dp[:, j]])
            cut = _quantiles(pooled, None if ordered is None else ordered[j], np.arange(1, bins) / bins)
            edges.append(cut)
            count_d += np.bincount(cls._rank(cut, train_d[:, j]), minlength=bins)
            count_dp += np.bincount(cls._rank(cut, train_dp[:, j]), minlength=bins)
        n_d, n_dp = count_d.sum(), count_dp.sum()
        ratio = np.log((count_d + SMOOTHING) / n_d) - np.log((count_dp + SMOOTHING) / n_dp)
        return cls(tuple(edges), ratio)

    @staticmethod
    def _rank(cut: np.ndarray, column: np.ndarray) -> np.ndarray:
        """The bin of each value: ties at an edge (an atom) go to the middle of the bins it spans, so that a
        repeated value has one bin whatever the quantiles' rounding: (#(cut < x) + #(cut ≤ x)) // 2."""
        column = np.ascontiguousarray(column)  # read once a level of the search, and again for the ties
        below = sorted_position(cut, column, "left")
        return below + _equal_from(cut, column, below) // 2

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        total = np.zeros(len(releases))
        for j, cut in enumerate(self.edges):
            total += self.log_ratio[self._rank(cut, releases[:, j])]
        return total


def _equal_from(cut: np.ndarray, x: np.ndarray, below: np.ndarray) -> np.ndarray:
    """How many of the sorted ``cut`` equal each x, given ``below`` = #(cut < x): #(cut ≤ x) − #(cut < x), without a
    second search.  The cuts equal to x are those from position ``below`` on that equal ``cut[below]``: none unless
    ``cut[below]`` is x, else the run of ``cut[below]``'s value from there (read off the cuts).  A NaN after the last
    cut equals nothing (an x above every cut, or NaN, counts none, as its search does)."""
    ended = np.append(cut, np.nan)
    run = np.append(np.searchsorted(cut, cut, "right") - np.arange(cut.size), 0)  # equal cuts from each on
    return run[below] * (ended[below] == x)


#: A block's rows are scored once per distinct row when at most this share of them are distinct.
DISTINCT_SHARE = 0.25


def distinct_rows(releases: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(the distinct rows of ``releases``, the index of each release's row among them) where at most
    :data:`DISTINCT_SHARE` of the rows are distinct, else (``releases``, None).  Rows are compared byte for byte, so
    a function of a row gets the same number either way: the trees' traversal was two thirds of the time of the
    default event test on a grid-valued float mechanism's 8e6 releases (the snapping mechanism, whose structure as
    numbers it reads: 5 columns, no step function), whose rows take a few hundred values."""
    if len(releases) < 1024 or releases.ndim != 2:
        return releases, None
    rows = np.ascontiguousarray(releases)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    if len(np.unique(keys[:1024])) > DISTINCT_SHARE * 1024:  # continuous releases: no sort of the whole block
        return releases, None
    _, first, repeated = np.unique(keys, return_index=True, return_inverse=True)
    if len(first) > DISTINCT_SHARE * len(rows):
        return releases, None
    return rows[first], repeated.ravel()
