"""Where a call's scale moves between D and D′ (its scale read from the data) and a release coordinate carries its
noise affinely at the recorded draws, whether the release carries that noise into the tails where the two scales'
laws differ most: an event there, verified by replay on D and on D′, and its law.

**Why.**  Lap(b) against Lap(b′ ≠ b) (or two Gaussians) has a log-likelihood ratio unbounded in its tails, so a
release x + η refutes every pure claim.  But the probe reads the release at the recorded draws only: ``clip(mean +
η, 0, 1)`` is x + η there and constant beyond its ends, its tails folded into two point masses whose loss is bounded
(a noisy mean of n values in [0, 1] with scale 2/n, clamped to [0, 1]: loss 0.5 on removing a record of 0 from eight,
against ε = 1).  A clamp after the noise is post-processing; the tails it removes decide nothing.

**The event** (:func:`read`).  Coordinate i carries element j with coefficient a at the recorded draw η₀ (value y₀
on D, y₀′ on D′ at D's draws).  Shifting the noise the program reads to u = η₀ + t, D's coordinate is predicted at
y₀ + a·t and D′'s at y₀′ + a·s·t, s = b′/b (the replay on D′ stretches the recorded noise to b′: u·s).  For a level
c, the event {σR_i > σc} (σ = sign a) is {u > e} on D and {u > e′} on D′, and u has D's law on both sides (D′'s
noise is u·s), so its partition's law is P = (F(e), 1 − F(e)) on D, Q = (F(e′), 1 − F(e′)) on D′ (F: Laplace or
Gaussian of scale b).  In each tail, the edge e maximising the tail group's δ(ε) by this prediction is chosen
(:data:`~.landing.TAIL_POINTS` points out to :data:`~.landing.TAIL_REACH` scales); then it is **verified by
replay**: D at u = e ∓ h (the level c is D's value at e − h, and D's value at e + h must be past it), D′ at its
predicted edge ∓ h′ (its value below the level at the lower end, past it at the upper).  Each edge is then known to
its bracket, as :mod:`.landing` knows a rounding's levels, and the partition's law is composed
(:func:`.rounded_steps.partitioned`, its slack the brackets' mass).  A clamp before the edge fails the check (the
values at both ends are the clamp's), and the edge is dropped.

**Sound for** a coordinate that is, as a function of the noise element alone, monotone where it is sampled: the
recorded draw, the probe's shifts and the bracket's ends on each side -- a local reading, as the probe's affine one
and :mod:`.landing`'s are; the partition {σR_i ≤ σc}, {σR_i > σc} is a post-processing of the release, so its δ(ε)
is at most the release's (Dwork & Roth 2014, Prop. 2.1).  A pure claim is refuted by a scale that moves exactly
only where that verified partition's δ(ε), lowered by its slack, is above 0 (:class:`.findings.Rescaled`); else
the scale's move is a finding for the black box to confirm, never a refutation on its own.

**Cost.**  Per neighbour whose carried call is rescaled, under a pure claim: four replays per tail (two on D, two on
D′), every such element in the same four.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.audits.program import landing, trace
from pdp_audit.audits.program.recorder import Call

#: The half-width of each bracket, as a share of the element's scale plus the edge's distance from the recorded draw:
#: wide enough for the rounding of the affine prediction (relative 1e-12 or so of a few hundred scales), narrow
#: enough that the brackets' mass (the partition's slack) is about 2⁻¹⁹ of a tail group's.
BRACKET = 2.0**-20


@dataclass(frozen=True)
class Edges:
    """Element ``element``'s verified tail edges (law ``law``, D's scale ``scale``): each a bracket of the noise u
    the program reads, on D (``on_d``) and on D′ (``on_d_prime``), in increasing order of D's."""

    element: int
    law: str
    scale: float
    on_d: tuple[tuple[float, float], ...]
    on_d_prime: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class _Carrier:
    """What the prediction needs of one carried element: its coordinate, coefficient, recorded draw, D's scale and
    law, the stretch s = b′/b, and the coordinate's values on D and on D′ at D's draws."""

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


def carriers(recorded: trace.Run, other: trace.Run, found: trace.Probe) -> list[_Carrier]:
    """The elements of the rescaled calls of ``other`` (D′ replayed) that a coordinate carries affinely, one
    coordinate each (its first), where their law is Laplace or Gaussian and both scales are positive and finite."""
    calls = {index for index, _, _ in other.rescaled}
    out, seen = [], set()
    for i in np.flatnonzero(found.carrier >= 0).tolist():
        j = int(found.carrier[i])
        element = found.elements[j]
        if j in seen or element.call not in calls or element.law not in landing.LAWS:
            continue
        seen.add(j)
        after = _scale(other.calls[element.call], element.index) if element.call < len(other.calls) else math.nan
        b, a = element.scale, float(found.coefficient[i])
        y, y_after = float(recorded.numbers[i]), float(other.numbers[i])
        draw = trace.noise_value(recorded.calls[element.call].noise, element.index)
        usable = 0 < b < math.inf and 0 < after < math.inf and a != 0 and math.isfinite(a * y * y_after * draw)
        if usable:
            out.append(_Carrier(j, i, a, draw, b, str(element.law), after / b, y, y_after))
    return out


def _scale(call: Call, index: int) -> float:
    """The ``index``-th element's scale in a replayed call (its scale broadcast to its noise's shape)."""
    scale = np.asarray(1.0 if call.scale is None else call.scale, dtype=float)
    return trace.noise_value(np.broadcast_to(scale, np.shape(call.noise)), index)


def read(on_d: landing.Replayer, on_after: landing.Replayer, found: list[_Carrier], epsilon: float) -> list[Edges]:
    """Per carrier, its tail edges verified by replay (module notes); those with none verified are left out."""
    planned = {c.element: _predicted(c, epsilon) for c in found}
    verified: dict[int, list[tuple[tuple[float, float], tuple[float, float]]]] = {c.element: [] for c in found}
    for side in range(2):
        group = [c for c in found if side < len(planned[c.element])]
        for c, edge in zip(group, _verified(on_d, on_after, group, [planned[c.element][side] for c in group])):
            if edge is not None:
                verified[c.element].append(edge)
    out = []
    for c in found:
        edges = sorted(verified[c.element])
        if edges:
            out.append(Edges(c.element, c.law, c.scale, tuple(e for e, _ in edges), tuple(e for _, e in edges)))
    return out


def _predicted(c: _Carrier, epsilon: float) -> list[float]:
    """D's edge in each tail (upper first) where the tail group's δ(ε) = max(Q − e^ε P, P − e^ε Q) is largest by the
    prediction, where it is positive."""
    out = []
    bound = math.exp(min(epsilon, 700.0))
    reach = landing.TAIL_REACH[c.law] * c.scale
    for side in (1.0, -1.0):
        e = c.draw + side * np.linspace(0.0, reach, landing.TAIL_POINTS)
        p = landing.side_masses(c.law, c.scale, side * e)
        q = landing.side_masses(c.law, c.scale, side * np.asarray(c.after(e)))
        with np.errstate(all="ignore"):
            gain = np.nan_to_num(np.maximum(q - bound * p, p - bound * q), nan=-1.0)
        if gain.max() > 0:
            out.append(float(e[int(np.argmax(gain))]))
    return out


def _verified(
    on_d: landing.Replayer, on_after: landing.Replayer, group: list[_Carrier], edges: list[float]
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
    ends_after = []
    for c, level, h in zip(group, levels, half):
        centre = c.draw + (level - c.value_after) / (c.coefficient * c.stretch) if math.isfinite(level) else c.draw
        ends_after.append((centre - h - c.draw, centre + h - c.draw))
    low_after, high_after = (on_after({c.element: t[end] for c, t in zip(group, ends_after)}) for end in (0, 1))
    if low_after is None or high_after is None:
        return [None] * len(group)
    out: list[tuple[tuple[float, float], tuple[float, float]] | None] = []
    for k, c in enumerate(group):
        below, above = float(low_after[c.coordinate]), float(high_after[c.coordinate])
        holds = passed[k] and _past(c, below, levels[k]) is False and _past(c, above, levels[k]) is True
        brackets = (_noise(c.draw, ends_d[k]), _noise(c.draw, ends_after[k]))
        out.append(brackets if holds and math.isfinite(levels[k]) else None)
    return out


def _past(c: _Carrier, value: float, level: float) -> bool | None:
    """Whether ``value`` is past ``level`` in the coefficient's direction (None: NaN, on no side)."""
    if math.isnan(value) or math.isnan(level):
        return None
    return math.copysign(1.0, c.coefficient) * (value - level) > 0


def _noise(draw: float, shifts: tuple[float, float]) -> tuple[float, float]:
    """The bracket in the noise's units: what the program reads at its ends, fl(η₀ + t)."""
    return (float(np.float64(draw) + np.float64(shifts[0])), float(np.float64(draw) + np.float64(shifts[1])))
