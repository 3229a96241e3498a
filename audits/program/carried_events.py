"""Whether the release carries a noise element where a refutation by composition needs it: events of the element's
noisy value, verified by replay on D and on D′, and their law.

**Why.**  A coordinate that is x + a·η at the recorded draws (the probe's affine reading) lets the lower composition
read x + η off the release: the release's δ(ε) is at least the element's step's (data processing read backwards).
But the probe reads the release near the recorded draws only.  ``clip(mean + η, 0, 1)`` is x + η there and constant
beyond its ends: the clamp folds the tails into point masses, and the event that decides the step's δ(ε) may lie
where the release no longer carries η (a Gaussian mean whose unclamped δ(1) is 3e-5 has, clamped to [0, 1],
δ(1) = 0 on the same pair).  So a lower step is composed only for what is verified here.

**A range** (:func:`ranges`).  For each carried element j (law F of scale b, recorded draw η₀) a range [−T, T] of
the noise with P[|η| > T] = τ_j: the program is replayed on D and on D′ with η at −T, −T + h, T − h and T, and the
coordinate must increase strictly in the coefficient's direction through those four points and the recorded draw,
on each side (a clamp before either end makes it flat there, and fails).  Where it holds, the coordinate is (read
locally, as the probe reads it) a strictly monotone post-processing of x + η on the range, the same on D and D′:
the value it recovers has the law of x + η but on an event of probability at most τ_j on either side, so the
element's step is composed with slack (1 + e^ε)·τ_j.  An infinite shift (the coordinate non-finite on D′ at D's
draws: δ(ε) = 1) is decided by the partition {the coordinate is non-finite} instead: its range reaches
:data:`RANGE_REACH` scales, the coordinate must be finite on D at the four points and non-finite on D′, and the
step's slack is again (1 + e^ε)·τ_j.

**Events** (:func:`events`), where the range fails, and for a rescaled call (its scale read from the data: b on D, b′
on D′, where the range says nothing of D′'s law).  Coordinate i carries element j with coefficient a at η₀ (value y₀
on D, y₀′ on D′ at D's draws).  Shifting the noise the program reads to u, D's coordinate is predicted at
y₀ + a(u − η₀) and D′'s at y₀′ + a·s(u − η₀), s = b′/b (the replay on D′ stretches the recorded noise to b′: u·s;
s = 1 where the call is not rescaled).  For a level c, the event {σR_i > σc} (σ = sign a) is {u > e} on D and
{u > e′} on D′, and u has D's law on both sides, so the partition's law is P = (F(e), 1 − F(e)) on D and
Q = (F(e′), 1 − F(e′)) on D′.  Edges are placed where the partition's δ(ε_j) is largest by this prediction, one for
each direction (ε_j the element's share of ε; for a rescaled call, out to :data:`~.tail_edges.TAIL_REACH` scales);
then each is **verified by replay**: D at u = e ∓ h (the level c is D's value at e − h, and D's value at e + h must
be past it), D′ at its predicted edge ∓ h′ (below the level at the lower end, past it at the upper).  Each edge is
then known to its bracket, and the partition's law is composed (:func:`.rounded_steps.partitioned`, its slack the
brackets' mass).  A clamp before the edge fails the check, and the edge is dropped.

**Sound for** a coordinate that is, as a function of the noise element alone, a monotone post-processing of x + η
that the data does not set, where it is sampled: the recorded draw, the probe's shifts, the range's ends and the
edges' brackets on each side -- a local reading, as the probe's and :mod:`.landing`'s are.  The partition
{σR_i ≤ σc}, {σR_i > σc} is a post-processing of the release, so its δ(ε) is at most the release's (Dwork & Roth
2014, Prop. 2.1).  An element with neither a range nor an edge verified is left out of the lower composition (the
composition of the others is still a lower bound).

**Cost.**  Per pair whose lower composition exceeds the claim: eight replays for every element's range, and four
per edge (every element's n-th edge in the same four), for the moved elements only (:func:`.carried_steps.unshown`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.special import ndtri

from pdp_audit.audits.program import landing, probing, tail_edges, trace
from pdp_audit.audits.program.events import Event
from pdp_audit.verify.inputs import release_codec

#: The half-width of each bracket, as a share of the element's scale plus the edge's distance from the recorded draw:
#: wide enough for the rounding of the affine prediction (relative 1e-12 or so of a few hundred scales), narrow
#: enough that the brackets' mass (the partition's slack) is about 2⁻¹⁹ of a tail group's.
BRACKET = 2.0**-20
#: The points per grid of the edges' prediction, each about the noisy values' centres and out to the tails.
POINTS = 2048
#: How far the range reaches at most, in scales (a Laplace tail at 700 scales is below the smallest double).
RANGE_REACH = {"laplace": 700.0, "gaussian": 37.0}


@dataclass(frozen=True)
class Edges:
    """Element ``element``'s verified edges (law ``law``, D's scale ``scale``): each a bracket of the noise u the
    program reads, on D (``on_d``) and on D′ (``on_d_prime``), in increasing order of D's."""

    element: int
    law: str
    scale: float
    on_d: tuple[tuple[float, float], ...]
    on_d_prime: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Carrier:
    """What the reading needs of one carried element: its coordinate, coefficient, recorded draw, D's scale and law,
    the stretch s = b′/b (1: not rescaled), and the coordinate's values on D and on D′ at D's draws."""

    element: int
    coordinate: int
    coefficient: float
    draw: float
    scale: float
    law: str
    stretch: float
    value: float
    value_after: float

    def after(self, e: np.ndarray | float) -> np.ndarray | float:
        """D′'s predicted edge for D's edge ``e`` (module notes): the level y₀ + a(e − η₀), reached on D′ at
        η₀ + (level − y₀′)/(a·s)."""
        a, s = self.coefficient, self.stretch
        return self.draw + ((e - self.draw) * a + self.value - self.value_after) / (a * s)


def carriers(
    recorded: trace.Run, other: trace.Run, found: trace.Probe, among: np.ndarray | None = None
) -> list[Carrier]:
    """The elements a coordinate carries affinely, one coordinate each (its first), where their law is Laplace or
    Gaussian, both scales (D's and D′'s) finite and both positive or both 0, and the coordinate finite on D;
    ``among``: a mask of the elements asked for (None: all).  Every element at once, in numpy: each test is the
    float comparison, and each value the float, that one element's alone would be."""
    n = len(found.elements)
    at = np.flatnonzero(found.carrier >= 0)
    element = found.carrier[at]
    _, first = np.unique(element, return_index=True)  # each element's first coordinate
    first.sort()  # in the coordinates' order
    i, j = at[first], element[first]
    columns = found.columns()
    laws = columns.law[j]
    keep = (laws == landing.LAWS[0]) | (laws == landing.LAWS[1])  # an object array: elementwise ==
    keep &= columns.call[j] < len(other.calls)
    if among is not None:
        keep &= among[j]
    i, j = i[keep], j[keep]
    wanted = np.zeros(n, dtype=bool)
    wanted[j] = True
    b, after = columns.scale[j], _scales(other.calls, found, wanted)[j]
    a, y, y_after = found.coefficient[i], recorded.numbers[i], other.numbers[i]
    draw = probing.draws(recorded.calls, found.grouped(), n)[j]
    with np.errstate(all="ignore"):
        usable = (0 <= b) & (b < math.inf) & (0 <= after) & (after < math.inf) & (a != 0) & np.isfinite(a * y * draw)
        usable &= (b > 0) == (after > 0)
        stretch = np.where(b > 0, after / np.where(b > 0, b, 1.0), 1.0)
    laws = columns.law[j]
    rows = zip(*(v[usable].tolist() for v in (j, i, a, draw, b, laws, stretch, y, y_after)))
    return [Carrier(k, c, coef, d, s, str(law), st, v, va) for k, c, coef, d, s, law, st, v, va in rows]


def _scales(calls: Sequence[Event], found: trace.Probe, wanted: np.ndarray) -> np.ndarray:
    """Per element, its scale in the replayed ``calls`` (its call's scale broadcast to its noise's shape), read for
    the calls of the ``wanted`` elements only (NaN elsewhere)."""
    out = np.full(len(found.elements), math.nan)
    for call, start, stop, indices in found.grouped():
        if wanted[start:stop].any():
            scale = np.asarray(1.0 if calls[call].scale is None else calls[call].scale, dtype=float)
            flat = np.atleast_1d(np.broadcast_to(scale, np.shape(calls[call].noise))).ravel()
            out[start:stop] = flat[indices]
    return out


def outside(law: str, scale: float, reach: float) -> float:
    """P[|η| > reach] under the element's law."""
    z = reach / scale
    return math.exp(-z) if law == "laplace" else 2.0 * float(tail_edges.side_masses("gaussian", 1.0, np.array([z]))[0])


def ranges(
    on_d: landing.Replayer, on_after: landing.Replayer, found: list[Carrier], taus: dict[int, float]
) -> dict[int, float]:
    """Per carrier, the mass outside its range where the range is verified on both sides (module notes): ``taus``
    the mass each is allowed outside.  A carrier of scale 0 (its noise is its recorded draw, always) has no outside
    where its coordinate differs between D and D′; one whose coordinate is non-finite on D′ at D's draws (an
    infinite shift), out to :data:`RANGE_REACH` scales, where it stays non-finite on D′ at the range's four points
    and finite on D (module notes)."""
    degenerate = [c for c in found if c.scale == 0]
    found = [c for c in found if c.scale > 0]
    reach = {c.element: _reach(c, taus[c.element] if math.isfinite(c.value_after) else 0.0) for c in found}
    half = {c.element: BRACKET * (c.scale + reach[c.element]) for c in found}
    points = [(-1.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 0.0)]  # (end, bracket): −T, −T + h, T − h, T
    out = {c.element: outside(c.law, c.scale, reach[c.element]) for c in found}
    for replayer, on_d_side in ((on_d, True), (on_after, False)) if found else ():
        runs = [
            replayer({c.element: end * reach[c.element] + h * half[c.element] - c.draw for c in found})
            for end, h in points
        ]
        for c, holds in zip(found, _held(runs, found, on_d_side).tolist()):
            if not holds:
                out.pop(c.element, None)
    for c in degenerate:
        if not release_codec.differ(np.array([c.value]), np.array([c.value_after])).all():
            continue
        out[c.element] = 0.0
    return out


def _held(runs: list[np.ndarray | None], found: list[Carrier], on_d_side: bool) -> np.ndarray:
    """Per carrier, whether its range holds on one side (module notes) at the four ``runs`` (−T, −T + h, T − h, T):
    its coordinate strictly increasing in the coefficient's direction through them and the recorded draw (between
    −T + h and T − h), or for an infinite shift (non-finite on D′ at D's draws), finite throughout on D and
    non-finite throughout on D′.  A run that failed (None) fails every carrier.  Every carrier at once, in numpy,
    as :func:`carriers` reads them; NaN compares False (fails)."""
    if any(r is None for r in runs):
        return np.zeros(len(found), dtype=bool)
    at = np.array([c.coordinate for c in found], dtype=np.int64)
    values = [np.asarray(r, dtype=float)[at] for r in runs]
    recorded = np.array([c.value if on_d_side else c.value_after for c in found], dtype=float)
    infinite = ~np.isfinite(np.array([c.value_after for c in found], dtype=float))
    chain = np.stack(values[:2] + [recorded] + values[2:])
    sign = np.copysign(1.0, np.array([c.coefficient for c in found], dtype=float))
    with np.errstate(invalid="ignore"):
        monotone = np.all(sign * np.diff(chain, axis=0) > 0, axis=0)
    finite = np.all(np.isfinite(np.stack(values)) == on_d_side, axis=0)
    return (infinite & finite) | (~infinite & monotone)


def _reach(c: Carrier, tau: float) -> float:
    """T with P[|η| > T] at most ``tau`` (capped at :data:`RANGE_REACH` scales)."""
    cap = RANGE_REACH[c.law] * c.scale
    if not tau > 0:
        return cap
    z = -math.log(tau) if c.law == "laplace" else -float(ndtri(tau / 2))
    return min(cap, float(np.nextafter(z * c.scale, math.inf)))


def events(
    on_d: landing.Replayer, on_after: landing.Replayer, found: list[Carrier], epsilons: dict[int, float]
) -> list[Edges]:
    """Per carrier, its edges verified by replay (module notes), placed for its ``epsilons``; those with none
    verified are left out."""
    found = [c for c in found if c.scale > 0 and math.isfinite(c.value_after)]  # an edge on D′ is predicted
    planned = {c.element: _predicted(c, epsilons[c.element]) for c in found}
    verified: dict[int, list[tuple[tuple[float, float], tuple[float, float]]]] = {c.element: [] for c in found}
    for n in range(2):
        group = [c for c in found if n < len(planned[c.element])]
        for c, edge in zip(group, _verified(on_d, on_after, group, [planned[c.element][n] for c in group])):
            if edge is not None:
                verified[c.element].append(edge)
    out = []
    for c in found:
        edges = sorted(verified[c.element])
        if edges:
            out.append(Edges(c.element, c.law, c.scale, tuple(e for e, _ in edges), tuple(e for _, e in edges)))
    return out


def _predicted(c: Carrier, epsilon: float) -> list[float]:
    """D's edges where the two-group partition's δ(ε) is largest by the prediction, one per direction (D over D′,
    D′ over D), where positive; on a grid about both centres (η = 0 on D, where D′'s edge is 0) and out to the
    tails."""
    bound = math.exp(min(epsilon, 700.0))
    centre = c.draw + (c.value_after - c.value) / c.coefficient - c.draw * c.stretch  # D's edge where D′'s is 0
    low, high = min(0.0, centre) - 10 * c.scale, max(0.0, centre) + 10 * c.scale
    reach = tail_edges.TAIL_REACH[c.law] * c.scale
    e = np.unique(np.concatenate([np.linspace(low, high, POINTS), np.linspace(low - reach, high + reach, POINTS)]))
    e_after = np.asarray(c.after(e), dtype=float)
    p_up, q_up = tail_edges.side_masses(c.law, c.scale, e), tail_edges.side_masses(c.law, c.scale, e_after)
    p_low, q_low = tail_edges.side_masses(c.law, c.scale, -e), tail_edges.side_masses(c.law, c.scale, -e_after)
    out = []
    with np.errstate(all="ignore"):
        for (p1, p2), (q1, q2) in (((p_low, p_up), (q_low, q_up)), ((q_low, q_up), (p_low, p_up))):
            gain = np.nan_to_num(np.maximum(p1 - bound * q1, 0) + np.maximum(p2 - bound * q2, 0), nan=-1.0)
            if gain.max() > 0:
                out.append(float(e[int(np.argmax(gain))]))
    return sorted(set(out))


def _verified(
    on_d: landing.Replayer, on_after: landing.Replayer, group: list[Carrier], edges: list[float]
) -> list[tuple[tuple[float, float], tuple[float, float]] | None]:
    """Each carrier's edge ``edges[k]`` checked by four replays for the group (module notes): its brackets on D and
    on D′ in the noise's units, or None where a check fails."""
    if not group:
        return []
    half = [BRACKET * (c.scale + abs(e - c.draw)) for c, e in zip(group, edges)]
    ends_d = [(e - h - c.draw, e + h - c.draw) for c, e, h in zip(group, edges, half)]
    low, high = (on_d({c.element: t[end] for c, t in zip(group, ends_d)}) for end in (0, 1))
    if low is None or high is None:
        return [None] * len(group)
    levels = [float(low[c.coordinate]) for c in group]
    passed = [_past(c, float(high[c.coordinate]), level) is True for c, level in zip(group, levels)]
    ends_after = [_after_ends(c, level, h) for c, level, h in zip(group, levels, half)]
    low_after, high_after = (on_after({c.element: t[end] for c, t in zip(group, ends_after)}) for end in (0, 1))
    if low_after is None or high_after is None:
        return [None] * len(group)
    out: list[tuple[tuple[float, float], tuple[float, float]] | None] = []
    for k, c in enumerate(group):
        below, above = float(low_after[c.coordinate]), float(high_after[c.coordinate])
        holds = passed[k] and _past(c, below, levels[k]) is False and _past(c, above, levels[k]) is True
        brackets = (landing.noise_bracket(c.draw, ends_d[k]), landing.noise_bracket(c.draw, ends_after[k]))
        out.append(brackets if holds and math.isfinite(levels[k]) else None)
    return out


def _after_ends(c: Carrier, level: float, half: float) -> tuple[float, float]:
    """The shifts bracketing where D′ reaches D's ``level`` (±``half`` about it; about the draw where the level is not
    finite)."""
    centre = c.draw + (level - c.value_after) / (c.coefficient * c.stretch) if math.isfinite(level) else c.draw
    return (centre - half - c.draw, centre + half - c.draw)


def _past(c: Carrier, value: float, level: float) -> bool | None:
    """Whether ``value`` is past ``level`` in the coefficient's direction (None: NaN, on no side)."""
    if math.isnan(value) or math.isnan(level):
        return None
    return math.copysign(1.0, c.coefficient) * (value - level) > 0
