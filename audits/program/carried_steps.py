"""The lower steps of one pair that the release is shown to carry (:mod:`.carried_events`): what the lower
composition -- a refutation's -- composes of each noise element read off the release, and which of them still need
their events read.

* An element read off the release (the probe's affine reading, its call not rescaled) whose range is verified: its
  own step (Laplace or Gaussian of its μ), with the slack (1 + e^ε)·τ of its range's outside τ.
* One whose range fails but whose edges are verified: the law of the partition of its noisy value by them
  (:func:`.rounded_steps.partitioned`), a post-processing of the release.
* One with neither: no lower step (the others' composition is still a lower bound).
* One not read yet: its own step, with no slack, named in :attr:`.results.PairResult.unshown` where the lower
  composition exceeds the claim -- the pair is then read (:func:`ranges_read`) and judged anew; until then it is
  no refutation.  An element read as unmoved (shift 0) has no lower step, so nothing of it is read: its range's
  share of the slack goes to the moved ones (:func:`ranges_read`).
* A rescaled call (its scale read from the data): its law on D′ is not D's, so its own step is no lower step; the
  partition by its verified tail edges is (:func:`tail_steps`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from pdp_audit.audits.program import accounting, carried_events, comparison, rounded_steps, step_laws, trace
from pdp_audit.audits.program.landing import LAWS, Replayer

#: The share of the lower composition's excess over δ the ranges' outsides may take in all: the slack then lowers
#: the bound by at most that, and a refutation stands or falls as before to 2⁻³⁰ of its margin.
RANGE_SHARE = 2.0**-30


def rescaled_calls(c: comparison.Comparison) -> frozenset[int]:
    """The calls D′'s replay drew at another scale than D's (their law is not D's: :func:`tail_steps`)."""
    return frozenset(index for index, _, _ in c.replayed.rescaled) if c.replayed is not None else frozenset()


def shown(
    c: comparison.Comparison,
    element: tuple[trace.Probe, int, str],
    step: step_laws.Step,
    epsilon: float,
    rescaled: frozenset[int] | None = None,
) -> list[step_laws.Step]:
    """Element ``j``'s lower step (module notes; ``element`` = (the probe, j, where its shift was read)); ``step`` its
    own.  None but where its shift was read off the release and its call is not rescaled (``rescaled``: the pair's
    :func:`rescaled_calls`, made once a pair by the caller of a wide release's 10⁵ elements; None: made here)."""
    found, j, source = element
    rescaled = rescaled_calls(c) if rescaled is None else rescaled
    if source != "release" or found.elements[j].call in rescaled:  # a rescaled call's law is not D's: tail_steps
        return []
    if c.ranges is None:
        return [step]
    if j in c.ranges:
        return [dataclasses.replace(step, slack=_factor(epsilon) * c.ranges[j])]
    edges = c.events.get(j)
    if edges is None:
        return []
    law = rounded_steps.partitioned(
        edges.law, edges.scale, (edges.on_d, edges.on_d_prime), epsilon, step.call, step.label
    )
    return [law] if law is not None else []


def tail_steps(c: comparison.Comparison, recorded: trace.Run, found: trace.Probe, epsilon: float) -> list:
    """The partitions by the rescaled calls' verified tail edges (module notes)."""
    out = []
    for edges in c.tails:
        element = found.elements[edges.element]
        label = f"{recorded.calls[element.call].name}[{element.index}] tails"
        step = rounded_steps.partitioned(
            edges.law, edges.scale, (edges.on_d, edges.on_d_prime), epsilon, element.call, label
        )
        out += [step] if step is not None else []
    return out


def tails_shown(c: comparison.Comparison, found: trace.Probe, epsilon: float) -> float:
    """The largest lower bound on the release's δ(ε) of a rescaled call's tail partition verified by replay (its law's
    δ(ε) net of its slack), 0 where none is verified."""
    shown_ = 0.0
    for edges in c.tails:
        call = found.elements[edges.element].call
        step = rounded_steps.partitioned(edges.law, edges.scale, (edges.on_d, edges.on_d_prime), epsilon, call, "tail")
        if step is not None:
            shown_ = max(shown_, float(accounting.composed_delta([step], epsilon).low))
    return shown_


def unshown(c: comparison.Comparison, found: trace.Probe) -> tuple[int, ...]:
    """The elements read off the release whose lower step is composed (:func:`.pair_steps.steps_of`: a shift read, not
    NaN, and moved -- non-zero, or read exactly and non-zero) but not yet shown carried (no range read).  An element
    read as unmoved has no lower step (its upper one is :func:`.exact_shifts.unmoved`'s): nothing of it is to be
    shown, and a histogram's neighbour moves two of its 10⁵ bins.  Found in numpy over the elements."""
    if c.ranges is not None:
        return ()
    n = min(len(found.elements), c.shifts.size, len(c.source))
    columns = found.columns()
    rescaled = [index for index, _, _ in c.replayed.rescaled] if c.replayed is not None else []
    read_exactly = np.zeros(n, dtype=bool)
    read_exactly[[j for j, d in c.exact.items() if d and j < n]] = True
    with np.errstate(invalid="ignore"):
        moved = ~np.isnan(c.shifts[:n]) & ((c.shifts[:n] != 0) | read_exactly)
    lawful = np.zeros(n, dtype=bool)
    for law in LAWS:
        lawful |= columns.law[:n] == law
    release = np.asarray(c.source[:n], dtype=object) == "release"
    return tuple(np.flatnonzero(moved & lawful & release & ~np.isin(columns.call[:n], rescaled)).tolist())


def tails_read(
    replayers: tuple[Replayer, Replayer], carriers: list[carried_events.Carrier], epsilon: float
) -> list[carried_events.Edges]:
    """The edges of the rescaled calls the release carries on the pair, verified by replay on D and on D′ with the
    draw set's draws (``replayers``; :func:`.carried_events.events`, at the claim's ``epsilon``)."""
    rescaled = [c for c in carriers if c.stretch != 1.0]
    return carried_events.events(*replayers, rescaled, {c.element: epsilon for c in rescaled})


def ranges_read(
    replayers: tuple[Replayer, Replayer],
    carriers: list[carried_events.Carrier],
    low: float,
    read: comparison.Comparison,
    claim: tuple[float, float],
) -> comparison.Comparison:
    """``read`` with the ranges of the ``carriers`` verified by replay (:func:`.carried_events.ranges`), together
    allowed :data:`RANGE_SHARE` of the lower composition's excess over δ (``low`` − δ), and where one fails, its
    edges (:func:`.carried_events.events`, each at its share of ε by its μ): a new comparison."""
    epsilon, delta = claim
    allowed = max(0.0, low - delta) * RANGE_SHARE / (max(1, len(carriers)) * _factor(epsilon))
    ranges = carried_events.ranges(*replayers, carriers, {c.element: allowed for c in carriers})
    rest = [c for c in carriers if c.element not in ranges]
    mu = {c.element: abs(float(read.shifts[c.element])) / c.scale for c in rest}
    total = sum(v for v in mu.values() if math.isfinite(v))
    shares = {j: epsilon * v / total if total > 0 and math.isfinite(v) else epsilon for j, v in mu.items()}
    events = {e.element: e for e in carried_events.events(*replayers, rest, shares)}
    return dataclasses.replace(read, ranges=ranges, events=events)


def _factor(epsilon: float) -> float:
    """1 + e^ε: a total variation τ on each side moves δ(ε) by at most (1 + e^ε)·τ."""
    return 1.0 + math.exp(min(epsilon, 700.0))
