"""The judgement of a neighbouring pair (:func:`judge`): its findings and the compositions of its primitives, read
exactly where the first judgement is undecided by the rounding of its readings alone (:func:`read_exactly`).

For each neighbour D′ (:mod:`.neighbours`) the replay (:mod:`.trace`) gives either a control-flow divergence (the
first diverging call), or per noise element its shift, from which the pair's composition is built
(:mod:`.accounting`):

* a **lower** composition of the elements the release carries affinely (their noisy values can be read off the
  release at the recorded draws, so the release's δ(ε) is at least theirs: the data-processing inequality read
  backwards) -- above the claim, the claim is refuted by composition;
* an **upper** composition of every element with a known law and a visible shift (the release, where it is a
  function of the noisy values, has δ(ε) at most theirs, by post-processing) -- within the claim, and nothing else
  unexplained, the pair is certified.

What neither explains is a finding for the black box to confirm: a release coordinate free of noise that differs,
a release whose structure differs, a noisy coordinate that differs but is not affine in the noise, a primitive
whose law or input is not visible, a scale that depends on the data.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from pdp_audit.audits.program import (
    accounting,
    carried_events,
    carried_steps,
    comparison,
    conditioning,
    exact_shifts,
    lattice_noise,
    probing,
    step_laws,
    trace,
)
from pdp_audit.audits.program.findings import (
    CarriedAbove,
    CoefficientMoved,
    Conditioned,
    Diverged,
    Fault,
    Finding,
    FreeDiffers,
    Inconsistent,
    MapMoved,
    NoisyDiffers,
    Rescale,
    Rescaled,
    StructureDiffers,
    Unaccounted,
    UpperAbove,
    apart,
)
from pdp_audit.audits.program.pair_steps import SHIFTED, steps_of
from pdp_audit.audits.program.results import Against, PairReading, PairResult


def read_exactly(session: trace.Session, data: Any, readings: list[PairReading], claim: tuple) -> list[PairResult]:
    """Each pair judged (:func:`judge`) on its draw set; where its pure composition lies within the rounding of its
    readings (:attr:`.accounting.Composed.rounding`), its shifts are read exactly (:func:`.exact_shifts.read`: one
    more replay each, on D′, in the session of the pairs' replays; D's, the same for all, once per draw set), and
    where a rescaled call is carried, its tail edges (:mod:`.carried_events`); then, where the lower composition
    exceeds the claim on steps not yet shown carried, their ranges (:func:`.carried_steps.ranges_read`).  Each
    reading makes a new :class:`.results.PairReading`, judged anew -- the earlier judgement is discarded, not
    changed.  Every judgement is made under :meth:`.trace.Session.ours` (the composition imports)."""
    with session.ours():
        judged = [judge(reading, claim, provisional=True) for reading in readings]
    for stage in ("shifts", "ranges"):
        wanted = {k: asked for k, pair in enumerate(judged) if (asked := _wanted(pair, stage))}
        for k, asked in sorted(wanted.items()):
            session.draws(readings[k].drawn.seed)
            readings[k] = _read_pair(session, (data, judged[k]), readings[k], asked, claim)
        with session.ours():
            for k in sorted(wanted):
                judged[k] = judge(readings[k], claim)
    return judged


def _wanted(pair: PairResult, stage: str) -> set[str]:
    """What a judged pair asks to be read at ``stage`` (:func:`read_exactly`)."""
    if stage == "ranges":
        return {"ranges"} if pair.unshown else set()
    asked = {"rounding"} if pair.against.within_readings else set()
    if any(isinstance(f, Unaccounted) and f.why == lattice_noise.NOT_EXACT for f in pair.findings):
        asked.add("rounding")  # integer noise is composed on its exact shift alone
    if any(isinstance(f, Rescaled) and f.asks for f in pair.findings):
        asked.add("tails")
    return asked


def _read_pair(
    session: trace.Session, judged: tuple[Any, PairResult], reading: PairReading, asked: set[str], claim: tuple
) -> PairReading:
    """``reading`` read further on D and D′ with its draw set's draws (``judged``: D and the pair's judgement): its
    shifts exactly, its rescaled calls' tail edges, its carried steps' ranges -- as ``asked``; a new reading."""
    data, pair = judged
    drawn, c = reading.drawn, reading.comparison
    made = reading.neighbour.data
    if "rounding" in asked:
        c = exact_shifts.read(session, (data, made), drawn.shared, c)
    if c.replayed is None or not asked & {"tails", "ranges"}:
        return dataclasses.replace(reading, comparison=c)
    replayers = (
        probing.replayer(session, data, drawn.recorded, drawn.probe),
        probing.replayer(session, made, drawn.recorded, drawn.probe),
    )
    found = drawn.probe
    among = np.zeros(len(found.elements), dtype=bool)  # the elements read: a histogram's pair moves 2 of 10⁵
    if "tails" in asked:
        among |= np.isin(found.columns().call, [index for index, _, _ in c.replayed.rescaled])
    if "ranges" in asked:
        among[list(pair.unshown)] = True
    carriers = carried_events.carriers(drawn.recorded, c.replayed, found, among)
    if "tails" in asked:
        c = dataclasses.replace(c, tails=carried_steps.tails_read(replayers, carriers, claim[0]))
    if "ranges" in asked and pair.lower is not None:
        unshown = set(pair.unshown)
        chosen = [carrier for carrier in carriers if carrier.element in unshown]
        c = carried_steps.ranges_read(replayers, chosen, pair.lower.low, c, claim)
    return dataclasses.replace(reading, comparison=c)


def against(lower: accounting.Composed | None, upper: accounting.Composed, delta: float) -> Against:
    """The pair's compositions against the claim's ``delta`` (:class:`.results.Against`): the one place a composed δ
    is compared with the claim's.  A lower bound above δ refutes (:func:`.accounting.exceeds`: every lower bound is
    proven as a double); an upper bound at most δ certifies the pair's steps; a Gaussian upper bound certified at
    its read μ but not at its proven top, or a pure one within the rounding of its readings, is read again."""
    within_readings = upper.rounding or (upper.read is not None and upper.read <= delta < upper.high)
    return Against(lower is not None and accounting.exceeds(lower, delta), upper.high > delta, within_readings)


def judge(reading: PairReading, claim: tuple[float, float], provisional: bool = False) -> PairResult:
    """The pair's result: its findings and compositions (module notes) and how they lie against the claim
    (:func:`against`), built once.  ``provisional``: a first judgement, where a pure composition within the rounding
    of its readings is bounded by δ(ε) ≤ 1 without its ceiling (:func:`.accounting.composed_delta`): such a pair's
    shifts are read exactly and it is judged anew (:func:`read_exactly`), this judgement discarded -- its lower
    composition is not made either."""
    epsilon, delta = claim
    c, drawn = reading.comparison, reading.drawn
    recorded, found = drawn.recorded, drawn.probe
    made = functools.partial(PairResult, reading.neighbour, c, drawn)
    if c.divergence is not None:
        d = c.divergence
        return made((Diverged(d.index, str(d.recorded), str(d.replayed), d.moved),))
    if c.fault is not None:  # not a witness for the black box (its sampler would raise): a finding to read
        return made((Fault(c.fault),))
    structural = _structural(c, recorded, found, epsilon, delta)
    drawn_steps = (recorded, found, drawn.shared.steps)  # the draw set's steps, made once for its pairs
    carried, known, unaccounted, at = steps_of(c, drawn_steps, epsilon, unmoved=not provisional)
    upper = accounting.composed_delta(known, epsilon, ceiling=not provisional)
    if provisional and not (upper.rounding and not any(isinstance(s, step_laws.Discrete) for s in known)):
        # without the elements read as unmoved, each [0, e_j] more on Σε_i: where the pure sum (no choice's ratio,
        # :func:`.accounting.certified`) is undecided without them, it is with them (its low end is the same, its
        # high end higher), and the pair is read
        unmoved = exact_shifts.unmoved(c, found, SHIFTED)
        if unmoved:
            known[at:at] = unmoved
            upper = accounting.composed_delta(known, epsilon, ceiling=False)
    if provisional and upper.rounding:  # judged anew once read (_wanted asks for its upper's rounding)
        found_so_far = (*structural, *unaccounted)
        return made(found_so_far, upper=upper, steps=known, carried=carried, against=against(None, upper, delta))
    same = carried == known  # the same steps composed once (an OpenDP law's lower steps are not among the known)
    lower = (upper if same else accounting.composed_delta(carried, epsilon)) if carried else None
    compared = against(lower, upper, delta)
    composition: list[Finding] = list(unaccounted) + _carriers_moved(c, found, recorded)
    bounds, unshown = _bounds_above(c, recorded, found, (lower, upper), compared)
    return made(tuple(structural + composition + bounds), lower, upper, known, carried, unshown, against=compared)


def _bounds_above(
    c: comparison.Comparison,
    recorded: trace.Run,
    found: trace.Probe,
    bounds: tuple[accounting.Composed | None, accounting.Composed],
    compared: Against,
) -> tuple[list[Finding], tuple]:
    """The finding of a composition above the claim's δ, and the carried elements the release does not show: the
    lower composition (of the noise the release carries) above it -- conditioned where it rests on draws the release
    does not reveal, or where the map moves away from the recorded draws that may shape one another -- or else the
    upper one above it, where D's steps describe D′'s release."""
    lower, upper = bounds
    unshown = carried_steps.unshown(c, found) if compared.lower_above else ()
    if compared.lower_above and not unshown:
        assert lower is not None  # given draws the release does not reveal, a bound on the conditional laws only
        secret = conditioning.secret_draws(recorded, found)
        # the map shown to move away from the recorded draws where the carried draws may set one another's shifts:
        # the shifts read hold at the recorded draws only (conditioning); at the recorded draws alone, the reading's
        # rounding there, which the composition bounds itself
        moved = c.map_moved is not None and c.map_moved.noise != 0
        away = moved and conditioning.may_shape_one_another(recorded, found)
        return [Conditioned(lower, secret, away) if secret or away else CarriedAbove(lower)], unshown
    if compared.upper_above and not c.carriers_moved:  # else no composition of D's steps describes D′'s release
        return [UpperAbove(upper)], unshown
    return [], unshown


def _carriers_moved(c: comparison.Comparison, found: trace.Probe, recorded: trace.Run) -> list[Finding]:
    """The finding of a pair whose release coordinates carry other noise elements on D′ than on D
    (:func:`.comparison._carriers_read`: noise added in an order the data sets): the steps read per element compare
    D's draws with D′'s in an order that is not the release's, so no composition of them, upper or lower, describes
    the pair -- unaccounted, of magnitude 0 (a pair whose input moved out of a mechanism's reach ranks first)."""
    if not c.carriers_moved:
        return []
    element = found.elements[int(found.carrier[c.carriers_moved[0]])]
    label = f"{recorded.calls[element.call].name}[{element.index}]"
    why = (
        f"{len(c.carriers_moved)} release coordinate(s) carry other noise on D′ than on D (noise added in an order "
        "the data sets): not composed"
    )
    return [Unaccounted(element.call, label, why)]


def _structural(
    c: comparison.Comparison, recorded: trace.Run, found: trace.Probe, epsilon: float, delta: float
) -> list[Finding]:
    """The structure check's findings on a pair that replayed (module notes), in the order a report lists them."""
    out: list[Finding] = []
    if c.replayed is not None and c.replayed.rescaled:
        carried_calls = {found.elements[int(j)].call for j in found.carrier if j >= 0}
        moved = tuple(Rescale(i, str(a), str(b)) for i, a, b in c.replayed.rescaled)
        carried = tuple(m.call for m in moved if m.call in carried_calls)
        tails = carried_steps.tails_shown(c, found, epsilon)
        secret = conditioning.secret_draws(recorded, found) if tails > 0 else ()
        out.append(Rescaled(moved, carried, delta == 0, tails, secret))
    if c.structure_differs:
        out.append(StructureDiffers())
    if c.free_differ:
        i, where = c.free_differ[0], c.free_differ
        on_d_prime = _value(c.replayed.numbers if c.replayed else None, i)
        far = apart(recorded.numbers[where], c.replayed.numbers[where]) if c.replayed else 0.0
        out.append(FreeDiffers(len(where), i, _value(recorded.numbers, i), on_d_prime, _free(found), far))
    if c.noisy_differ:
        out.append(NoisyDiffers(len(c.noisy_differ)))
    if c.inconsistent:
        out.append(Inconsistent(len(c.inconsistent)))
    if c.map_moved is not None:
        m = c.map_moved
        out.append(MapMoved(m.noise, m.coordinate, m.on_d, m.on_d_prime, m.count, m.moved))
    if c.coefficient_changed:  # exact only where the call's own scale moved (Rescaled, above)
        out.append(CoefficientMoved(tuple(c.coefficient_changed)))
    return out


def _free(found: trace.Probe) -> str:
    """What a coordinate no probed draw moved is free of: all the recorded noise, or only the noise the probe can
    shift where some draws it cannot (a uniform turned into Laplace noise by hand) may still carry it."""
    if not found.unperturbed:
        return "free of the recorded noise"
    return f"that no shifted draw moves (the draws of {found.unperturbed[0]} are not shifted)"


def _value(numbers: Any, i: int) -> str:
    if numbers is None or i >= len(numbers):
        return "absent"
    return f"{numbers[i]:.6g}"
