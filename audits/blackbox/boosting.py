"""Gradient-boosted trees fitted here, on binned releases: the black box's tree statistic, whose trees are ours to
read, store and re-apply (:mod:`pdp_audit.audits.blackbox.trees`), with no other library's private state.

The learner is the histogram-based gradient boosting of LightGBM (Ke et al., NeurIPS 2017, Sections 2-3) and
scikit-learn's ``HistGradientBoostingClassifier``, at the latter's defaults, for two classes under the logistic loss
(Friedman 2001, "Greedy function approximation", Section 4.5; Newton steps as in Chen & Guestrin, KDD 2016, Section
2.2, with no regularisation):

* each column is cut into at most :data:`MAX_BINS` bins at the midpoints of the quantiles of its training values (of
  every distinct value where there are fewer); a release x goes to bin b when t_{b−1} < x ≤ t_b;
* f₀ is the log-odds of the training labels; at round m, with p = σ(f_{m−1}), the gradients g = p − y and hessians
  h = p(1 − p) are summed per bin (one histogram per column and node), and a tree is grown best first: the leaf whose
  best split gains most, gain = G_L²/H_L + G_R²/H_R − G²/H, is split until the tree has :data:`MAX_LEAVES` leaves or
  no split gains (each child keeping :data:`MIN_SAMPLES_LEAF` releases and a hessian sum ≥ :data:`MIN_HESSIAN`); a
  leaf's value is −ν·G/H, ν = :data:`LEARNING_RATE`;
* on more than :data:`EARLY_STOPPING_ABOVE` releases a share :data:`VALIDATION_SHARE` of each class is held out, and
  boosting stops once the held-out log-loss has not fallen by :data:`TOLERANCE` in :data:`PATIENCE` rounds; at most
  :data:`MAX_ROUNDS` rounds.

The trees come out as :class:`~pdp_audit.audits.blackbox.trees.TreeNodes` with thresholds on the release's scale (a
split at bin b is x ≤ t_b), so the fitted function is exactly the :class:`~pdp_audit.audits.blackbox.trees.TreeEnsemble`
that scores releases and that a witness stores.  Every draw comes from ``seed`` (the split, the binning subsample):
the same releases and seed give the same trees.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from scipy import special

from pdp_audit.audits.blackbox.trees import TreeEnsemble, TreeNodes

#: scikit-learn's ``HistGradientBoostingClassifier`` defaults.
MAX_BINS = 255
MAX_LEAVES = 31
MIN_SAMPLES_LEAF = 20
MIN_HESSIAN = 1e-3
LEARNING_RATE = 0.1
MAX_ROUNDS = 100
EARLY_STOPPING_ABOVE = 10_000
VALIDATION_SHARE = 0.1
PATIENCE = 10
TOLERANCE = 1e-7
#: The relative rounding below which a split's gain is taken for none: G_L²/H_L + G_R²/H_R − G²/H is a difference of
#: sums of a few thousand rounded terms, so a split that gains nothing (a pure leaf's) computes a gain of ~1e-16 of
#: them, and 1e-12 of them is above that and below any gain that moves a leaf's value.  Sound for anything: the
#: trees are fitted on the training releases alone, and the statistic they make is frozen before the bounding draws
#: (:mod:`pdp_audit.audits.blackbox.events`, "Validity"), so this threshold shapes what is learned -- the test's
#: power -- and never decides a refutation or the level of one.
ROUNDING = 1e-12
#: The most releases the bin edges are computed from (a random subsample beyond).
BINNING_SAMPLE = 200_000


def bin_edges(column: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The thresholds t_0 < t_1 < … of one column (at most :data:`MAX_BINS` − 1): midpoints between consecutive
    distinct values where there are at most :data:`MAX_BINS`, else midpoints of its quantiles."""
    if column.size > BINNING_SAMPLE:
        column = column[rng.choice(column.size, BINNING_SAMPLE, replace=False)]
    distinct = np.unique(column)
    if distinct.size <= MAX_BINS:
        return (distinct[:-1] + distinct[1:]) * 0.5
    levels = np.linspace(0, 100, MAX_BINS + 1)[1:-1]
    return np.unique(np.percentile(column, levels, method="midpoint"))


@dataclass(eq=False)  # compared by identity: leaves.remove(leaf) needs no field-wise ==
class _Leaf:
    """A leaf being grown: its node index, its rows (on one column: the interval of bins ``first``..``last`` they
    are, :meth:`_Grower.split_bins`), their histograms ``hist`` (sums of g, of h and the count: 3 × column × bin), and
    its best split (gain, column, bin) or None."""

    node: int
    rows: np.ndarray | None
    hist: np.ndarray
    split: tuple[float, int, int] | None = None
    first: int = 0
    last: int = 0


class _Grower:
    """One tree, grown best first on the binned training releases ``codes`` (one array of bins per column; ``counts``
    their histograms, column × bin, the same every round) with gradients ``g`` and hessians ``h``."""

    def __init__(self, codes: list[np.ndarray], counts: np.ndarray, g: np.ndarray, h: np.ndarray):
        self.codes, self.counts, self.bins, self.g, self.h = codes, counts, counts.shape[1], g, h
        self.feature: list[int] = []
        self.bin: list[int] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.value: list[float] = []
        self.leaves: list[_Leaf] = []
        self.root: np.ndarray = np.empty(0)  # the root's histograms (:meth:`root_histograms`): :meth:`split_bins`

    def histograms(self, rows: np.ndarray) -> np.ndarray:
        """Per column and bin the sums of g, of h and the count over ``rows`` (np.bincount adds in row order)."""
        out = np.empty((3, len(self.codes), self.bins))
        g, h = self.g[rows], self.h[rows]
        for column, codes in enumerate(self.codes):
            at = codes[rows].astype(np.intp)  # once, not in each of the three bincounts
            out[0, column] = np.bincount(at, g, self.bins)
            out[1, column] = np.bincount(at, h, self.bins)
            out[2, column] = np.bincount(at, minlength=self.bins)
        return out

    def root_histograms(self) -> np.ndarray:
        """:meth:`histograms` of every row, read in place (no gather of rows)."""
        out = np.empty((3, len(self.codes), self.bins))
        for column, codes in enumerate(self.codes):
            out[0, column] = np.bincount(codes, self.g, self.bins)
            out[1, column] = np.bincount(codes, self.h, self.bins)
        out[2] = self.counts
        self.root = out
        return out

    def new_leaf(self, rows: np.ndarray | None, hist: np.ndarray) -> _Leaf:
        node = len(self.feature)
        for column in (self.feature, self.bin, self.left, self.right):
            column.append(-1)
        self.value.append(0.0)
        leaf = _Leaf(node, rows, hist)
        leaf.split = self.best_split(leaf)
        return leaf

    @staticmethod
    def best_split(leaf: _Leaf) -> tuple[float, int, int] | None:
        """The split of most gain, (gain, column, bin): rows of bin ≤ b go left; of equal gains the first in (column,
        bin) order.  Only the valid splits are scored, gathered in that order (np.flatnonzero), so np.argmax over them
        picks the split that np.argmax over every column × bin with −∞ at the invalid ones picked: the gains are the
        same expressions of the same floats, and an invalid split is never the first maximum when a valid one
        exists.  (Scoring every bin and masking cost ~10 temporary arrays of column × bin a call, most of them on
        splits that were invalid; each bin's running sums still come from one cumulative sum over all bins.)  The
        last bin is never valid (c_L = c leaves the right child no rows), so it needs no slicing off."""
        sums = np.cumsum(leaf.hist, axis=2)
        gl, hl, cl = sums
        g, h, c = leaf.hist[0, 0].sum(), leaf.hist[1, 0].sum(), leaf.hist[2, 0].sum()
        # counts are whole numbers below 2^53, so c − c_L ≥ m is exactly c_L ≤ c − m; H − H_L ≥ 1e-3 keeps the
        # divisions below away from zero
        valid = (cl >= MIN_SAMPLES_LEAF) & (cl <= c - MIN_SAMPLES_LEAF) & (hl >= MIN_HESSIAN) & (h - hl >= MIN_HESSIAN)
        at = valid.ravel().nonzero()[0]  # = np.flatnonzero, without its wrapper (~50k calls a fit)
        if at.size == 0:
            return None
        gl, hl = sums[0].ravel()[at], sums[1].ravel()[at]
        gr, hr = g - gl, h - hl
        children = gl**2 / hl + gr**2 / hr
        gain = children - g**2 / h
        best = int(np.argmax(gain))
        column, bin_ = divmod(int(at[best]), sums.shape[2])
        # a gain within the rounding of its terms is none (a pure leaf's split "gained" 1e-16 of them)
        return (float(gain[best]), column, bin_) if gain[best] > ROUNDING * children[best] else None

    def grow(self, rows: np.ndarray) -> None:
        """Grow from the root over ``rows`` (every row: on one column the root is the interval of all bins);
        leaves' values set (−ν·G/H)."""
        heap: list[tuple[float, int, _Leaf]] = []
        one_column = len(self.codes) == 1
        leaves = [self.new_leaf(None if one_column else rows, self.root_histograms())]
        leaves[0].last = self.bins - 1
        if leaves[0].split is not None:
            heapq.heappush(heap, (-leaves[0].split[0], leaves[0].node, leaves[0]))
        while heap and len(leaves) < MAX_LEAVES:
            _, _, leaf = heapq.heappop(heap)
            leaves.remove(leaf)
            for child in self.split(leaf):
                leaves.append(child)
                if child.split is not None:
                    heapq.heappush(heap, (-child.split[0], child.node, child))
        for leaf in leaves:
            self.value[leaf.node] = -LEARNING_RATE * leaf.hist[0, 0].sum() / leaf.hist[1, 0].sum()
        self.leaves = leaves

    def split(self, leaf: _Leaf) -> tuple[_Leaf, _Leaf]:
        """The two children of ``leaf`` at its best split; the larger child's histograms are the parent's less the
        smaller's (one pass over the smaller child's rows only)."""
        if leaf.rows is None:
            return self.split_bins(leaf)
        _, column, at = leaf.split  # type: ignore[misc]
        goes_left = self.codes[column][leaf.rows] <= at
        # positions, then a gather: a boolean mask's own indexing branches on every row (twice as slow)
        rows = (leaf.rows[np.flatnonzero(goes_left)], leaf.rows[np.flatnonzero(~goes_left)])
        small = 0 if rows[0].size <= rows[1].size else 1
        hist_small = self.histograms(rows[small])
        hist_large = leaf.hist - hist_small
        hists = (hist_small, hist_large) if small == 0 else (hist_large, hist_small)
        self.feature[leaf.node], self.bin[leaf.node] = column, at
        children = (self.new_leaf(rows[0], hists[0]), self.new_leaf(rows[1], hists[1]))
        self.left[leaf.node], self.right[leaf.node] = children[0].node, children[1].node
        return children

    def split_bins(self, leaf: _Leaf) -> tuple[_Leaf, _Leaf]:
        """:meth:`split` on one column, where every leaf is the rows whose bins lie in an interval (the root: all
        bins; a split at b: those ≤ b and those > b), with no pass over the rows: the smaller child's histograms are
        the root's on its interval and 0 elsewhere, the very numbers :meth:`histograms` sums over its rows (all the
        rows of each of its bins, added in row order, np.bincount's order; every other bin empty), and the larger
        child's are the parent's less the smaller's, as in :meth:`split`.  Which child is smaller is read off the
        counts (whole numbers below 2^53, summed exactly)."""
        _, column, at = leaf.split  # type: ignore[misc]
        spans = ((leaf.first, at), (at + 1, leaf.last))
        sizes = [leaf.hist[2, 0, first : last + 1].sum() for first, last in spans]
        small = 0 if sizes[0] <= sizes[1] else 1
        first, last = spans[small]
        hist_small = np.zeros_like(leaf.hist)
        hist_small[:, :, first : last + 1] = self.root[:, :, first : last + 1]
        hist_large = leaf.hist - hist_small
        hists = (hist_small, hist_large) if small == 0 else (hist_large, hist_small)
        self.feature[leaf.node], self.bin[leaf.node] = column, at
        children = (self.new_leaf(None, hists[0]), self.new_leaf(None, hists[1]))
        for child, (first, last) in zip(children, spans):
            child.first, child.last = first, last
        self.left[leaf.node], self.right[leaf.node] = children[0].node, children[1].node
        return children

    def tree(self, edges: list[np.ndarray]) -> TreeNodes:
        """The tree on the release's scale: a split at bin b of column j is x_j ≤ t_b (edges[j][b])."""
        feature = np.asarray(self.feature, dtype=np.int64)
        internal = feature >= 0
        threshold = np.array([edges[j][b] if j >= 0 else 0.0 for j, b in zip(self.feature, self.bin)])
        return TreeNodes(
            feature=feature,
            threshold=threshold,
            missing_left=np.zeros(feature.size, dtype=bool),  # releases are finite
            left=np.asarray(self.left, dtype=np.int64),
            right=np.asarray(self.right, dtype=np.int64),
            value=np.where(internal, 0.0, np.asarray(self.value)),
        )


def _log_loss(y: np.ndarray, raw: np.ndarray) -> float:
    """The mean logistic loss of log-odds ``raw`` for labels ``y`` (log(1 + e^{−f}) for y = 1, log(1 + e^f) for 0)."""
    return float(np.mean(np.logaddexp(0.0, np.where(y == 1, -raw, raw))))


def _held_out(y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Whether each release is held out for early stopping: a :data:`VALIDATION_SHARE` of each class, at random."""
    out = np.zeros(y.size, dtype=bool)
    if y.size <= EARLY_STOPPING_ABOVE:
        return out
    for label in (0, 1):
        members = np.flatnonzero(y == label)
        out[rng.choice(members, int(round(VALIDATION_SHARE * members.size)), replace=False)] = True
    return out


def _stalled(losses: list[float]) -> bool:
    """Whether the held-out loss has not fallen by :data:`TOLERANCE` below its value :data:`PATIENCE` rounds ago."""
    if len(losses) <= PATIENCE:
        return False
    reference = losses[-PATIENCE - 1]
    return not any(loss < reference - TOLERANCE for loss in losses[-PATIENCE:])


def _by_bin(grower: _Grower, tree: TreeNodes) -> np.ndarray:
    """A one-column tree's leaf value for each bin (its leaves are intervals of bins: :meth:`_Grower.split_bins`)."""
    out = np.empty(grower.bins)
    for leaf in grower.leaves:
        out[leaf.first : leaf.last + 1] = tree.value[leaf.node]
    return out


def fit_trees(x: np.ndarray, y: np.ndarray, seed: int) -> TreeEnsemble:
    """The boosted trees of the releases ``x`` (rows × columns, finite) with labels ``y`` (1 for D, 0 for D'); see the
    module's docstring."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    rng = np.random.default_rng(seed)
    held = _held_out(y, rng)
    train_x, train_y = x[~held], y[~held]
    edges = [bin_edges(train_x[:, j], rng) for j in range(x.shape[1])]
    codes = [np.searchsorted(e, train_x[:, j], side="left").astype(np.uint8) for j, e in enumerate(edges)]
    rate = float(np.clip(train_y.mean(), 1e-15, 1 - 1e-15))
    baseline = float(np.log(rate / (1 - rate)))
    raw = np.full(train_y.size, baseline)
    held_raw = np.full(int(held.sum()), baseline)
    trees: list[TreeNodes] = []
    losses = [_log_loss(y[held], held_raw)] if held.any() else []
    rows = np.arange(train_y.size)
    counts = np.stack([np.bincount(c, minlength=MAX_BINS) for c in codes])
    x_held = x[held]
    # one column: the held-out releases' bins, as the training ones' (x ≤ t_b, t_b = edges[0][b], is exactly
    # searchsorted's position ≤ b for a finite x)
    held_codes = np.searchsorted(edges[0], x_held[:, 0], side="left") if len(codes) == 1 else None
    for _ in range(MAX_ROUNDS):
        p = special.expit(raw)
        grower = _Grower(codes, counts, p - train_y, p * (1 - p))
        grower.grow(rows)
        tree = grower.tree(edges)
        trees.append(tree)
        by_bin = _by_bin(grower, tree) if len(codes) == 1 else None
        if by_bin is not None:  # the same one addition per release
            raw += by_bin[codes[0]]
        else:
            for leaf in grower.leaves:  # each training release's leaf, known from the growth
                raw[leaf.rows] += tree.value[leaf.node]
        if held.any():
            held_raw += tree(x_held) if by_bin is None else by_bin[held_codes]
            losses.append(_log_loss(y[held], held_raw))
            if _stalled(losses):
                break
    return TreeEnsemble(baseline, tuple(trees), x.shape[1])
