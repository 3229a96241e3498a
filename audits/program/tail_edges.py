"""The edges of a rescaled call's tails: where a landing's reading (:mod:`.landing`) and a carrier's verified
partition (:mod:`.carried_events`) put one further edge in each tail, found by the noise's law at the claim's ε
(a prediction only: every edge it names is then checked by replay)."""

from __future__ import annotations

import math

import numpy as np

#: The tail edge's search: points per tail, out to this many scales beyond the farther first edge (Laplace tails at
#: 700 scales are below the smallest double; a Gaussian's at 38).
TAIL_POINTS = 4096
TAIL_REACH = {"laplace": 600.0, "gaussian": 36.0}


def tail_edges(
    law: str, scale: float, firsts: tuple[float, float], grid: tuple[float, float], epsilon: float
) -> list[int]:
    """The jumps k (from D's first, at ``firsts[0]`` on D and ``firsts[1]`` on D′, in the recorded draw's units;
    consecutive jumps ``grid[0]`` apart on D and ``grid[1]`` on D′) whose tail group's δ(ε) is largest by the law
    ``law`` of scale ``scale``, one per tail where it is positive (module notes); none where the grids are the
    same (no rescaled call)."""
    (e0, e0_after), (width, width_after) = firsts, grid
    if width == width_after or not (width > 0 and width_after > 0) or law not in TAIL_REACH:
        return []
    out = []
    reach = TAIL_REACH[law] * scale
    for side in (1.0, -1.0):
        start = max(side * e0, side * e0_after, 0.0)
        positions = side * np.linspace(start, start + reach, TAIL_POINTS)
        ks = np.unique(np.round((positions - e0) / width))
        ks = ks[ks * side > 0]
        if ks.size == 0:
            continue
        p = side_masses(law, scale, side * (e0 + ks * width))
        q = side_masses(law, scale, side * (e0_after + ks * width_after))
        bound = math.exp(min(epsilon, 700.0))
        gain = np.maximum(q - bound * p, p - bound * q)
        if gain.max() > 0:
            out.append(int(ks[int(np.argmax(gain))]))
    return out


def side_masses(law: str, scale: float, x: np.ndarray) -> np.ndarray:
    """P[η > x] under the law, for each x (symmetric: for the lower tail, called with −e); a prediction only."""
    # deferred: scipy.special costs more than half a CPU second of imports, and the fresh process that replays D's
    # record (:mod:`.fresh_process`) imports this module but never predicts a tail
    from scipy.special import ndtr

    z = np.abs(x) / scale
    upper = 0.5 * np.exp(-z) if law == "laplace" else ndtr(-z)
    return np.where(x >= 0, upper, 1.0 - upper)
