"""The distinct values and the quantiles of two worlds' scores pooled, read off each world's sorted scores: no merge
of the millions of pooled scores, no selection of thousands of order statistics among them.

The event choice (:func:`pdp_audit.audits.blackbox.event_choice.choose_events`) sorts each world's scores to count its
events, and its thresholds are the pooled scores' distinct values or, past a few thousand, their quantiles: formerly
a merge of the two sorted runs (a stable sort of two million scores) and ``np.quantile`` of the merge (a partition at
8,192 positions and a copy), a tenth of the choice's time for a score of real values on the benchmark's 1-D Laplace
(issue 44).  Here the k-th smallest pooled score is found by a binary search on how many of the k + 1 smallest come
from the first world (:func:`order_statistics`, vectorised over the k), and the quantiles are interpolated between
them by NumPy's own arithmetic for its default method ('linear', Hyndman & Fan 1996, definition 7): the same doubles
as ``np.quantile`` of the pooled scores (tests/test_blackbox_pooled_order.py).  Equal doubles are the same bits but
for −0.0 and 0.0, whose order a sort leaves to its algorithm: where the pooled scores hold zeros of both signs
(:func:`mixed_zeros`) the caller reads the pooled scores as they are.
"""

from __future__ import annotations

import numpy as np


def mixed_zeros(ordered: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether the scores of the two worlds (``ordered``: each sorted, finite) hold zeros of both signs together."""
    signs = np.concatenate([np.signbit(s[s == 0]) for s in ordered])
    return bool(signs.any() and not signs.all())


def pooled_unique(ordered: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``np.unique`` of the two worlds' sorted scores pooled (no zeros of both signs: :func:`mixed_zeros`)."""
    return np.union1d(*(_distinct(s) for s in ordered))


def _distinct(ordered: np.ndarray) -> np.ndarray:
    first = np.empty(ordered.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def order_statistics(ordered: tuple[np.ndarray, np.ndarray], ks: np.ndarray) -> np.ndarray:
    """The k-th smallest (from 0) of the two sorted arrays ``ordered`` pooled, for each k of ``ks``.

    The k + 1 smallest are the i smallest of the first array a and the k + 1 − i smallest of the second b for the
    least i with b[k − i] ≤ a[i] (a[m] = +∞, b[−1] = −∞): as i grows b[k − i] falls and a[i] rises, so a binary
    search finds it, and the k-th smallest is max(a[i − 1], b[k − i])."""
    a, b = ordered
    pad_a = np.concatenate([[-np.inf], a, [np.inf]])  # pad_a[i + 1] = a[i]
    pad_b = np.concatenate([[-np.inf], b, [np.inf]])
    take = np.asarray(ks, dtype=np.intp) + 1
    lo, hi = np.maximum(take - b.size, 0), np.minimum(take, a.size)
    while np.any(lo < hi):
        i = (lo + hi) // 2
        more = pad_b[take - i] > pad_a[i + 1]  # b[take − i − 1] > a[i]: more of the smallest are a's
        lo, hi = np.where(more & (lo < hi), i + 1, lo), np.where(~more & (lo < hi), i, hi)
    return np.maximum(pad_a[lo], pad_b[take - lo])


def pooled_quantiles(ordered: tuple[np.ndarray, np.ndarray], q: np.ndarray) -> np.ndarray:
    """``np.quantile`` (method 'linear') of the two worlds' sorted scores pooled, at the increasing probabilities
    ``q`` in [0, 1], bit for bit: NumPy's virtual indexes (n − 1)·q, their floors and the next order statistics
    (both the last one at and past n − 1), and its interpolation a + (b − a)·γ, or b − (b − a)·(1 − γ) where γ ≥ 1/2
    (``numpy.lib._function_base_impl._lerp``)."""
    n = sum(s.size for s in ordered)
    virtual = (n - 1) * np.asarray(q, dtype=float)
    previous = np.floor(virtual)
    following = previous + 1
    last = virtual >= n - 1
    previous[last], following[last] = -1, -1
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    gamma = virtual - previous
    positions = np.unique(np.concatenate([previous, following]) % n)
    values = order_statistics(ordered, positions)
    low, high = (values[np.searchsorted(positions, k % n)] for k in (previous, following))
    step = high - low
    out = np.add(low, step * gamma)
    np.subtract(high, step * (1 - gamma), out=out, where=gamma >= 0.5)
    return out
