"""The black box's boosting as first written (commit 02a97a1, before it was made faster): a plain oracle that
:mod:`pdp_audit.audits.blackbox.boosting` must match tree for tree (the same splits, thresholds and float64 leaf
values from the same releases and seed) -- per-node boolean masks, three bincounts per column, no reuse."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from scipy import special

from pdp_audit.audits.blackbox.boosting import (
    LEARNING_RATE,
    MAX_BINS,
    MAX_LEAVES,
    MAX_ROUNDS,
    MIN_HESSIAN,
    MIN_SAMPLES_LEAF,
    ROUNDING,
    _held_out,
    _log_loss,
    _stalled,
    bin_edges,
)
from pdp_audit.audits.blackbox.trees import TreeEnsemble, TreeNodes


@dataclass
class _Leaf:
    """A leaf being grown: its node index, its rows, their gradient and hessian histograms (column × bin), and its
    best split (gain, column, bin) or None."""

    node: int
    rows: np.ndarray
    grad: np.ndarray
    hess: np.ndarray
    count: np.ndarray
    split: tuple[float, int, int] | None = None


class _Grower:
    """One tree, grown best first on the binned training releases ``codes`` (one array of bins per column) with
    gradients ``g`` and hessians ``h``."""

    def __init__(self, codes: list[np.ndarray], bins: int, g: np.ndarray, h: np.ndarray):
        self.codes, self.bins, self.g, self.h = codes, bins, g, h
        self.feature: list[int] = []
        self.bin: list[int] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.value: list[float] = []
        self.leaves: list[_Leaf] = []

    def histograms(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        shape = (len(self.codes), self.bins)
        out = [np.zeros(shape) for _ in range(3)]
        g, h = self.g[rows], self.h[rows]
        for column, codes in enumerate(self.codes):
            at = codes[rows]
            out[0][column] = np.bincount(at, g, self.bins)
            out[1][column] = np.bincount(at, h, self.bins)
            out[2][column] = np.bincount(at, minlength=self.bins)
        return out[0], out[1], out[2]

    def new_leaf(self, rows: np.ndarray, hist: tuple | None = None) -> _Leaf:
        node = len(self.feature)
        for column in (self.feature, self.bin, self.left, self.right):
            column.append(-1)
        self.value.append(0.0)
        leaf = _Leaf(node, rows, *(hist if hist is not None else self.histograms(rows)))
        leaf.split = self.best_split(leaf)
        return leaf

    @staticmethod
    def best_split(leaf: _Leaf) -> tuple[float, int, int] | None:
        """The split of most gain, (gain, column, bin): rows of bin ≤ b go left."""
        gl, hl, cl = (np.cumsum(a, axis=1)[:, :-1] for a in (leaf.grad, leaf.hess, leaf.count))
        g, h, c = leaf.grad[0].sum(), leaf.hess[0].sum(), leaf.count[0].sum()
        gr, hr, cr = g - gl, h - hl, c - cl
        valid = (cl >= MIN_SAMPLES_LEAF) & (cr >= MIN_SAMPLES_LEAF) & (hl >= MIN_HESSIAN) & (hr >= MIN_HESSIAN)
        if not valid.any():
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            children = gl**2 / hl + gr**2 / hr
            gain = np.where(valid, children - g**2 / h, -np.inf)
        column, at = np.unravel_index(int(np.argmax(gain)), gain.shape)
        best = float(gain[column, at])
        # a gain within the rounding of its terms is none (a pure leaf's split "gained" 1e-16 of them)
        return (best, int(column), int(at)) if best > ROUNDING * float(children[column, at]) else None

    def grow(self, rows: np.ndarray) -> None:
        """Grow from the root over ``rows``; leaves' values set (−ν·G/H)."""
        heap: list[tuple[float, int, _Leaf]] = []
        leaves = [self.new_leaf(rows)]
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
            self.value[leaf.node] = -LEARNING_RATE * leaf.grad[0].sum() / leaf.hess[0].sum()
        self.leaves = leaves

    def split(self, leaf: _Leaf) -> tuple[_Leaf, _Leaf]:
        """The two children of ``leaf`` at its best split; the larger child's histograms are the parent's less the
        smaller's (one pass over the smaller child's rows only)."""
        _, column, at = leaf.split  # type: ignore[misc]
        goes_left = self.codes[column][leaf.rows] <= at
        rows = (leaf.rows[goes_left], leaf.rows[~goes_left])
        small = 0 if rows[0].size <= rows[1].size else 1
        hist_small = self.histograms(rows[small])
        hist_large = tuple(p - s for p, s in zip((leaf.grad, leaf.hess, leaf.count), hist_small))
        hists = (hist_small, hist_large) if small == 0 else (hist_large, hist_small)
        self.feature[leaf.node], self.bin[leaf.node] = column, at
        children = (self.new_leaf(rows[0], hists[0]), self.new_leaf(rows[1], hists[1]))
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
    for _ in range(MAX_ROUNDS):
        p = special.expit(raw)
        grower = _Grower(codes, MAX_BINS, p - train_y, p * (1 - p))
        grower.grow(rows)
        tree = grower.tree(edges)
        trees.append(tree)
        for leaf in grower.leaves:  # each training release's leaf, known from the growth
            raw[leaf.rows] += tree.value[leaf.node]
        if held.any():
            held_raw += tree(x[held])
            losses.append(_log_loss(y[held], held_raw))
            if _stalled(losses):
                break
    return TreeEnsemble(baseline, tuple(trees), x.shape[1])
