"""Gradient-boosted trees as data: the black box's trees (fitted by :mod:`pdp_audit.audits.blackbox.boosting`) as
node arrays, evaluated by a numpy traversal, so that a witness can store the event test's trees and re-apply them.

A fitted ensemble's decision function is

    f(x) = b + Σ_t v_t(leaf_t(x)),

b the baseline (the log-odds of the training labels), and leaf_t(x) the leaf of tree t that x reaches from the
root: at an internal node of feature j and threshold τ, x goes left when x_j ≤ τ, right when x_j > τ, and where
x_j is NaN to the side the node's "missing goes left" flag names; v_t is that leaf's value (the learning rate is
already in it).  :meth:`TreeEnsemble.__call__` adds the trees' float64 values to the baseline in the order of the
trees: the scores of a run and of its witness re-applied are the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdp_audit.audits.blackbox.features import sorted_position
from pdp_audit.verify.inputs.validation import InputError, finite_number

#: The most nodes a stored tree may have (scikit-learn's default grows at most 31 leaves, 61 nodes; a witness of
#: far larger trees was edited) and the most trees (its default stops at 100 iterations).
MAX_NODES = 1 << 16
MAX_TREES = 10_000


@dataclass(frozen=True, eq=False)
class TreeNodes:
    """One tree: per node its ``feature`` (−1 at a leaf), ``threshold``, ``missing_left`` and children (``left``,
    ``right``: −1 at a leaf), and at a leaf its ``value``.  Node 0 is the root; every child's index exceeds its
    parent's (scikit-learn numbers them depth first), so a traversal ends within as many steps as there are
    nodes."""

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray

    def leaves(self, x: np.ndarray) -> np.ndarray:
        """The leaf each row of ``x`` reaches (level by level over the rows still at an internal node)."""
        x = np.ascontiguousarray(x)
        flat, width = x.reshape(-1), x.shape[1]
        # x_j ≤ τ is false for NaN: where no node sends NaN left, the comparison alone is the rule
        nan_left = bool(self.missing_left.any())
        node = np.zeros(len(x), dtype=np.int64)
        active = np.flatnonzero(self.left[node] >= 0)
        while active.size:
            at = node[active]
            values = flat[active * width + self.feature[at]]  # a flat gather: 2-D fancy indexing is slower
            if nan_left:
                with np.errstate(invalid="ignore"):
                    go_left = np.where(np.isnan(values), self.missing_left[at], values <= self.threshold[at])
            else:
                go_left = values <= self.threshold[at]
            reached = np.where(go_left, self.left[at], self.right[at])
            node[active] = reached
            active = active[self.left[reached] >= 0]
        return node

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.value[self.leaves(x)]


@dataclass(frozen=True, eq=False)
class TreeEnsemble:
    """f(x) = ``baseline`` + Σ over ``trees`` of the leaf value x reaches (module docstring), on releases of
    ``width`` columns."""

    baseline: float
    trees: tuple[TreeNodes, ...]
    width: int

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        x = np.asarray(releases, dtype=np.float64)
        out = np.zeros(len(x)) + self.baseline  # as scikit-learn: zeros, then the baseline added
        for tree in self.trees:
            out += tree(x)
        return out


@dataclass(frozen=True, eq=False)
class StepFunction:
    """A fitted ensemble on one column as the step function it is: every split compares x with a threshold, so f is
    constant on each interval (t_{i−1}, t_i] between consecutive ``cuts`` (the thresholds, sorted, finite) and
    above the last; ``values[i]`` is f on interval i, computed by the ensemble itself at a point of it (t_i, and the
    double after the last cut).  For finite x, ``values[searchsorted(cuts, x, "left")]`` is then the ensemble's own
    float64 number for x, bit for bit (the same leaves, added in the same order): a lookup instead of a traversal
    of every tree.  (±∞ thresholds send every finite x the same way and are left out.)"""

    cuts: np.ndarray
    values: np.ndarray

    @classmethod
    def of(cls, ensemble: TreeEnsemble) -> StepFunction:
        """The step function of a one-column :class:`TreeEnsemble`."""
        splits = [tree.threshold[tree.left >= 0] for tree in ensemble.trees]
        cuts = np.unique(np.concatenate([np.asarray(s, np.float64) for s in splits] or [np.empty(0)]))
        cuts = cuts[np.isfinite(cuts)]
        last = np.nextafter(cuts[-1], np.inf) if cuts.size else 0.0
        points = np.append(cuts, last if np.isfinite(last) else cuts[-1])  # an interval no finite x is in
        return cls(cuts, np.asarray(ensemble(points[:, None]), dtype=np.float64))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.values[sorted_position(self.cuts, x, "left")]


def to_data(ensemble: TreeEnsemble) -> dict:
    """JSON-ready data: the baseline, the columns read (``dimension``) and per tree its node arrays (floats as
    Python writes them: exactly)."""
    return {
        "baseline": float(ensemble.baseline),
        "dimension": int(ensemble.width),
        "trees": [
            {
                "feature": [int(v) for v in t.feature],
                "threshold": [float(v) for v in t.threshold],
                "missing_left": [bool(v) for v in t.missing_left],
                "left": [int(v) for v in t.left],
                "right": [int(v) for v in t.right],
                "value": [float(v) for v in t.value],
            }
            for t in ensemble.trees
        ],
    }


def _integers(values, name: str) -> np.ndarray:
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise InputError(f"witness: the trees' {name!r} must be lists of integers")
    return np.asarray(values, dtype=np.int64) if values else np.empty(0, np.int64)


def _floats(values, name: str) -> np.ndarray:
    if not isinstance(values, list) or not all(finite_number(v) for v in values):
        raise InputError(f"witness: the trees' {name!r} must be lists of finite numbers")
    return np.asarray(values, dtype=np.float64)


def _tree(data, width: int) -> TreeNodes:
    """One tree's node arrays, checked: equal lengths, a leaf exactly where both children are −1, features within
    ``width`` at internal nodes, and children after their parent (a traversal must end)."""
    if not isinstance(data, dict):
        raise InputError("witness: each tree must be a table of node arrays")
    try:
        raw = {k: data[k] for k in ("feature", "threshold", "missing_left", "left", "right", "value")}
    except KeyError as err:
        raise InputError(f"witness: a tree lacks its {err.args[0]!r} array") from None
    if not isinstance(raw["missing_left"], list) or not all(isinstance(v, bool) for v in raw["missing_left"]):
        raise InputError("witness: the trees' 'missing_left' must be lists of true/false")
    tree = TreeNodes(
        _integers(raw["feature"], "feature"),
        _floats(raw["threshold"], "threshold"),
        np.asarray(raw["missing_left"], dtype=bool),
        _integers(raw["left"], "left"),
        _integers(raw["right"], "right"),
        _floats(raw["value"], "value"),
    )
    n = tree.feature.size
    arrays = (tree.threshold, tree.missing_left, tree.left, tree.right, tree.value)
    if not 1 <= n <= MAX_NODES or any(a.size != n for a in arrays):
        raise InputError(f"witness: a tree's node arrays must have one equal length in [1, {MAX_NODES}]")
    leaf = tree.left < 0
    index = np.arange(n)
    internal_ok = (tree.left > index) & (tree.right > index) & (tree.left < n) & (tree.right < n)
    internal_ok &= (tree.feature >= 0) & (tree.feature < width)
    leaf_ok = (tree.left == -1) & (tree.right == -1) & (tree.feature == -1)
    if not np.all(np.where(leaf, leaf_ok, internal_ok)):
        raise InputError(
            "witness: a tree's nodes do not form a tree (a leaf has children −1 and feature −1; an internal node's "
            f"children come after it and its feature is a column in [0, {width}))"
        )
    return tree


def from_data(data, width: int) -> TreeEnsemble:
    """The :class:`TreeEnsemble` of :func:`to_data`'s data on releases of ``width`` columns (InputError, one
    line, for data that is not such trees)."""
    if not isinstance(data, dict):
        raise InputError("witness: the trees must be a table")
    baseline, trees = data.get("baseline"), data.get("trees")
    if not finite_number(baseline):
        raise InputError("witness: the trees' 'baseline' must be a finite number")
    if data.get("dimension") != width or isinstance(data.get("dimension"), bool):
        raise InputError(f"witness: the trees read {data.get('dimension')!r} columns, the releases give {width}")
    if not isinstance(trees, list) or not 1 <= len(trees) <= MAX_TREES:
        raise InputError(f"witness: 'trees' must be a list of 1 to {MAX_TREES} trees")
    return TreeEnsemble(float(baseline), tuple(_tree(t, width) for t in trees), width)
