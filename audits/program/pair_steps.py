"""The steps of a pair's composition, one per noise element or call (:func:`steps_of`): the carried (lower) steps,
every known (upper) step, and the noise no step accounts for (:class:`.findings.Unaccounted`)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from pdp_audit.audits.program import (
    adapters,
    carried_steps,
    comparison,
    exact_shifts,
    lattice_noise,
    numpy_choice,
    rounded_steps,
    step_laws,
    trace,
)
from pdp_audit.audits.program.events import Located
from pdp_audit.audits.program.findings import Unaccounted


def steps_of(
    c: comparison.Comparison, drawn: tuple[trace.Run, trace.Probe, dict], epsilon: float, unmoved: bool = True
) -> tuple[list, list, list[Unaccounted], int]:
    """The carried steps (lower), all known steps (upper), and what cannot be accounted for, on the draw set
    ``drawn`` = (its record, its probe, its steps made so far: :func:`shifted_step`).  An OpenDP
    measurement's element is a lower step by its recorded law where the release carries it, its call an upper step by
    its privacy map (:mod:`.adapters`): those lower steps are not among the upper ones.  An element read
    through a rounding (:mod:`.landing`) is a lower step by its coordinate's own law (its slack at ``epsilon``) and
    an upper step by its element's law where D′'s release is D's at the shifted noise.  ``unmoved`` False: the steps
    of the elements read as unmoved (:func:`.exact_shifts.unmoved`) are not made; the last number says where among
    the known steps they go."""
    recorded, found, made = drawn
    carried, known, unaccounted = [], [], []
    rescaled = carried_steps.rescaled_calls(c)  # once a pair, not once an element
    stepped = _stepped(c, found)
    for j, key in zip(stepped, _readings(c, found, stepped)):
        if key is None:  # another law or source, or a shift of 0 read as moved: read element by element
            lower, upper, missing = _element_steps(c, drawn, (j, rescaled), epsilon)
            carried += lower
            known += upper
            unaccounted += missing
            continue
        step = made.get(key)
        if step is None:
            step = made[key] = _shifted(c, drawn, j, float(c.shifts[j]))
        known.append(step)
        carried += carried_steps.shown(c, (found, j, c.source[j]), step, epsilon, rescaled)
    at = len(known)
    for call, index in lattice_noise.common_carried(found):  # the release reads H beside G − H
        unaccounted.append(Unaccounted(call, f"geometric[{index}]", lattice_noise.COMMON_CARRIED))
    known += exact_shifts.unmoved(c, found, SHIFTED) if unmoved else []
    carried += carried_steps.tail_steps(c, recorded, found, epsilon)  # a rescaled call's verified partition
    if c.replayed is not None:
        budgets, problems = adapters.call_steps(recorded.calls, c.replayed.calls)
        known += budgets
        unaccounted += problems
    for k, p, q in c.choices:  # the chosen index is rarely released as it is: upper steps, not lower ones
        steps, why = numpy_choice.choice_steps(k, recorded.calls[k], (p, q))  # numpy's law, one per index drawn
        known += steps
        unaccounted += [Unaccounted(k, "choice", why)] if why else []
    return carried, known, unaccounted, at


def _element_steps(
    c: comparison.Comparison,
    drawn: tuple[trace.Run, trace.Probe, dict],
    at: tuple[int, frozenset[int]],
    epsilon: float,
) -> tuple[list, list, list[Unaccounted]]:
    """Element ``j``'s carried (lower) steps, known (upper) steps and unaccounted noise (:func:`steps_of`); ``at`` =
    (j, the pair's rescaled calls)."""
    recorded, found, _ = drawn
    j, rescaled = at
    element, shift, source = found.elements[j], float(c.shifts[j]), c.source[j]
    if source == "landing":
        return _landing_steps(c, recorded, found, j, epsilon)
    if element.law == "library":  # above by its privacy map or budget (below), below by its law where carried
        error = exact_shifts.shift_error(c, j)
        lower = adapters.lower_step(element.call, element.index, recorded.calls[element.call], shift, error)
        return ([lower] if lower is not None and source == "release" else []), [], []
    if element.law in lattice_noise.LAWS or element.law == lattice_noise.COMMON:  # numpy's integer noise: above only
        label = f"{recorded.calls[element.call].name}[{element.index}]"
        read = (float(c.exact.get(j, shift)), exact_shifts.shift_error(c, j) if j not in c.exact else 0.0, source)
        upper, why = lattice_noise.lattice_steps(recorded.calls, element, read, label)
        return [], upper, [Unaccounted(element.call, label, w) for w in why]
    exact = c.exact.get(j)
    if shift == 0 and source != "none" and not exact:  # read as unmoved: :func:`.exact_shifts.unmoved`
        return [], [], []
    if element.law is not None and source != "none" and not math.isnan(shift):
        step = shifted_step(c, drawn, j, shift)
        # where the release carries it, a lower step too
        return carried_steps.shown(c, (found, j, source), step, epsilon, rescaled), [step], []
    call = recorded.calls[element.call]
    label = f"{call.name}[{element.index}]"
    if source == "none" or math.isnan(shift):
        visible = element.law is not None or isinstance(call, Located) and call.law is None  # gumbel, logistic
        return [], [], [Unaccounted(element.call, label, _not_visible(found))] if visible else []
    return [], [], [_no_law(element.call, label, call.name, (shift, element.scale))]


def shifted_step(
    c: comparison.Comparison, drawn: tuple[trace.Run, trace.Probe, dict], j: int, shift: float
) -> step_laws.Step:
    """Element ``j``'s own step (:data:`SHIFTED`, by its law), of μ = |d|/b and its proven interval
    (:func:`.exact_shifts.mu_interval`), d its exact shift where read, else the shift as read (``shift``).  Made once
    a draw set for each reading (``drawn``'s dict, by :func:`_key`): the step is a function of the element -- its
    law, scale, call and index, the draw set's -- and of its reading on the pair -- the magnitude of the shift as
    read and its proven rounding bound, or of its exact value where read --, so every pair of the draw set that
    reads the element alike shares it, unchanged (a CDF's 50 pairs each move up to 10⁵ coordinates by ±1: each step
    made once, not once a pair, and held once)."""
    made = drawn[2]
    key = _key(j, abs(shift), exact_shifts.shift_error(c, j), c.exact.get(j))
    step = made.get(key)
    if step is None:
        step = made[key] = _shifted(c, drawn, j, shift)
    return step


def _key(j: int, magnitude: float, error: float, exact: Fraction | None) -> tuple:
    """The reading element ``j``'s own step is made of (:func:`shifted_step`): the shift's ``magnitude`` and its
    proven rounding bound (``error``), or its ``exact`` value's magnitude (as its integers: hashed faster than a
    Fraction) alone where read -- a record added or removed moves it alike."""
    return (j, True, magnitude, error) if exact is None else (j, False, abs(exact.numerator), exact.denominator)


def _shifted(
    c: comparison.Comparison, drawn: tuple[trace.Run, trace.Probe, dict], j: int, shift: float
) -> step_laws.Step:
    """Element ``j``'s own step, made (:func:`shifted_step`)."""
    recorded, found, _ = drawn
    exact = c.exact.get(j)
    element = found.elements[j]
    scale, law = element.scale, element.law
    assert law is not None  # the caller's: an element with a law (:func:`_element_steps`, :func:`_readings`)
    if exact is not None and scale > 0:
        shift = float(exact)
    mu = math.inf if scale <= 0 or math.isinf(shift) else abs(shift) / scale
    within = exact_shifts.mu_interval(c, j, shift, scale) if math.isfinite(mu) else None
    label = f"{recorded.calls[element.call].name}[{element.index}]"
    return SHIFTED[law](call=element.call, label=label, mu=mu, within=within)


def _readings(c: comparison.Comparison, found: trace.Probe, stepped: list[int]) -> list[tuple | None]:
    """Per element of ``stepped``, the reading its own step is made of (:func:`_key`), found in numpy over the
    elements: where :func:`_element_steps` would make that step alone -- a Laplace or Gaussian element whose shift
    is read (not NaN, not 0) off the release or a location, not through a rounding; else None (read element by
    element: another law, an OpenDP or integer noise, a shift of 0 read exactly as moved)."""
    if len(stepped) <= trace.SMALL_RELEASE:  # numpy's fixed cost per call exceeds the loop's
        return [None] * len(stepped)
    at = np.asarray(stepped, dtype=np.int64)
    law, source, shifts = found.columns().law[at], np.asarray(c.source, dtype=object)[at], c.shifts[at]
    with np.errstate(invalid="ignore"):
        plain = (law == "laplace") | (law == "gaussian")
        plain &= (source != "none") & (source != "landing") & ~np.isnan(shifts) & (shifts != 0)
    error = np.full(at.size, math.inf)
    inside = at < c.bounds.size
    error[inside] = c.bounds[at[inside]]  # :func:`.exact_shifts.shift_error`
    exact = c.exact
    readings = zip(stepped, plain.tolist(), np.abs(shifts).tolist(), error.tolist())
    return [_key(j, m, e, exact.get(j)) if ok else None for j, ok, m, e in readings]


def _landing_steps(
    c: comparison.Comparison, recorded: trace.Run, found: trace.Probe, j: int, epsilon: float
) -> tuple[list, list, list[Unaccounted]]:
    """An element read through a rounding: a lower step by its coordinate's own law (its slack at ``epsilon``), an
    upper step by its element's law where D′'s grid is shown to be D's, shifted (else unaccounted)."""
    element = found.elements[j]
    label = f"{recorded.calls[element.call].name}[{element.index}] read through a rounding"
    lower = rounded_steps.lower_step(c.landings[j], epsilon, element.call, label)
    upper = rounded_steps.upper_step(c.landings[j], element.call, label)
    why = "the rounding's grid on D′ is not shown to be D's, shifted"
    missing = [] if upper is not None else [Unaccounted(element.call, label, why)]
    return ([lower] if lower is not None else []), ([upper] if upper is not None else []), missing


def _no_law(call: int, label: str, kind: str, shifted: tuple[float, float]) -> Unaccounted:
    """The finding of noise with no exact law here whose input moved by ``shifted`` = (shift, scale): as x/(1 + x)
    of x = |shift|/scale, its magnitude, which orders the pairs for the black box's witness only
    (:attr:`.findings.Unaccounted.moved`)."""
    shift, scale = shifted
    moved = abs(shift) / scale if scale > 0 else math.inf
    reach = 1.0 if math.isinf(moved) else moved / (1.0 + moved)
    return Unaccounted(call, label, f"no exact law for {kind} noise here", reach)


def _stepped(c: comparison.Comparison, found: trace.Probe) -> list[int]:
    """The elements :func:`steps_of` reads one by one: all but those read as unmoved (shift 0, read from the release
    or a location, not exactly moved), which :func:`.exact_shifts.unmoved` composes per call -- found in numpy (a
    histogram's neighbour moves two of its bins), or for a few elements in Python, the same tests one by one (a
    shift that is not 0, NaN included; a source "none" or "landing"; an OpenDP law; an exact shift that is not 0)."""
    n = min(len(found.elements), c.shifts.size, len(c.source))
    if n <= trace.SMALL_RELEASE:  # numpy's fixed cost per call exceeds the loop's
        shifts, law = c.shifts[:n].tolist(), found.columns().law[:n].tolist()
        return [
            j
            for j in range(n)
            if shifts[j] != 0 or c.source[j] in ("none", "landing") or law[j] == "library" or c.exact.get(j)
        ]
    needed = c.shifts[:n] != 0  # NaN too: it compares unequal, silently
    source = c.source[:n]
    if "none" in source or "landing" in source:  # a list, scanned in C: most pairs read every element off the release
        kinds = np.asarray(source, dtype=object)
        needed |= (kinds == "none") | (kinds == "landing")
    needed |= found.columns().law[:n] == "library"
    exact = [j for j, d in c.exact.items() if d and j < n]
    if exact:
        needed[exact] = True
    return np.flatnonzero(needed).tolist()


#: The step of a location family's element, by its law (numpy's float samplers: porous).
SHIFTED = {"laplace": step_laws.Laplace, "gaussian": step_laws.Gaussian}


def _not_visible(found: trace.Probe) -> str:
    """Why an element's shift is not read: its call shows no value and no release coordinate carries its noise
    additively -- plainly, where some coordinate is noisy but not affine in the noise (a rounding, a threshold)."""
    if (found.carrier == -2).any():
        return (
            "the value its noise is added to is not shown by the call, and the noise reaches the release only "
            "non-additively (rounded, thresholded or weighted by the data): that value is not read, not certified"
        )
    return "the value its noise is added to is not visible"
