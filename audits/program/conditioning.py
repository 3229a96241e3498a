"""The draws a pair's composition is conditioned on without the release revealing them: why they let it certify and
never refute.

A pair's steps (:mod:`.accounting`) are read at one draw set: every recorded draw that is not a composed step is held
at its recorded value c while the steps' shifts are read.  So the composition is that of the *conditional* laws
P_D(· | c) and P_D′(· | c).  The release's own law is their mixture over the secret draws' law π (the same on D and
D′: each draw's law is checked the same on the replay, else the pair diverged or is rescaled):

    P_D = ∫ P_D(· | c) dπ(c),   P_D′ = ∫ P_D′(· | c) dπ(c).

* **Above, conditioning keeps a bound.**  The hockey-stick divergence is jointly convex, so
  δ_{P_D‖P_D′}(ε) ≤ ∫ δ_{P_D(·|c)‖P_D′(·|c)}(ε) dπ(c) ≤ sup_c δ(ε | c): a bound that holds for every c holds for the
  release (a mixture of DP laws is DP; Balle, Barthe & Gaboardi 2018 for subsampling).  The upper composition may
  certify -- for the draw sets read, as every certificate of this audit is.
* **Below, it does not.**  The mixture may lose far less than any one component: Poisson subsampling (each record kept
  by a coin of its own, Laplace noise of ε₀ = 2 on the sample's sum) is ε₀-DP given the coins that keep the record,
  and log(1 + q(e^{ε₀} − 1)) = 1.434 < 2 for q = ½ over them (Balle, Barthe & Gaboardi, NeurIPS 2018, Thm 8).  A
  lower composition of the carried steps above the claim refutes only where no such draw exists: where the release
  reveals every draw, conditioning on a draw is conditioning on the release (a post-processing of it), and the
  conditional bound is the release's.

**Revealed** here means: a noise element some release coordinate carries affinely (the probe reads it there,
:attr:`.trace.Probe.carrier`) or through a rounding whose own law is composed (:attr:`.trace.Probe.landings`).
**Secret**: every other recorded draw -- a call the probe cannot shift (a uniform coin, an index, a choice, an
integer), and an element of a shiftable call that no coordinate carries (a threshold's noise, an unused element).
The rule is deliberately coarse: no finite replay proves that a secret draw shapes no step (a coin that moves the
steps once in 10⁶ draws), so any secret draw makes the refutation the black box's, which conditions on nothing.

**Revealed draws that set other steps' shifts.**  Revealing a draw is not enough where its value sets another step's
shift: a step whose query an earlier noisy answer chooses (``y₂ = (s if y₁ > t else 0) + Lap``) has, given y₁, the
shift of its query at y₁, and the release's law is a mixture over y₁ of such conditional compositions, whose δ the
shifts read at the recorded y₁ may far exceed.  The composition is the pair's only where the release on D′ is D's
at the noise moved by constant shifts across the noise's range, R_D′(η) = R_D(η + Δ) (:mod:`.same_map`); where that
check finds a sample that differs, a lower composition above the claim is conditioned too
(:class:`.findings.Conditioned`, ``map_moved``) -- where the carried elements could shape one another: drawn by two
calls or more, or by one call of several elements the program sees whole (a vector drawn by numpy, random or torch).
One library mechanism that adds its noise inside the call (:class:`~.events.LibraryCall`) gives the program no
element before its input is made, so its elements set none of its shifts.  Where the check does not run (a pair
with a finding of its own) the rule above stands alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdp_audit.audits.program import trace
from pdp_audit.audits.program.events import LibraryCall


def secret_draws(recorded: trace.Run, found: trace.Probe) -> tuple[str, ...]:
    """The recorded draws of ``recorded`` that the release does not reveal at its draws (module notes), one label
    each: the calls that drew numbers the probe cannot shift (their signatures), then the elements no coordinate
    carries (call kind and flat index, the first four)."""
    shifted = {element.call for element in found.elements}
    hidden = list(dict.fromkeys(c.signature() for k, c in enumerate(recorded.calls) if k not in shifted and _drew(c)))
    if found.elements:
        shown = np.zeros(len(found.elements), dtype=bool)
        shown[found.carried().element] = True
        shown[[land.element for land in found.landings]] = True
        unshown = np.flatnonzero(~shown).tolist()
        for j in unshown[:4]:
            element = found.elements[j]
            hidden.append(f"{recorded.calls[element.call].name}[{element.index}]")
        if len(unshown) > 4:
            hidden.append(f"{len(unshown) - 4} more element(s)")
    return tuple(hidden)


def may_shape_one_another(recorded: trace.Run, found: trace.Probe) -> bool:
    """Whether the carried noise elements could set one another's shifts (module notes): carried from two calls or
    more, or from one call of several elements that is not a library mechanism's."""
    carried = {int(j) for j in found.carrier if j >= 0} | {land.element for land in found.landings}
    calls = {found.elements[j].call for j in carried}
    if len(calls) != 1:
        return len(calls) > 1
    (only,) = calls
    return len(carried) > 1 and not isinstance(recorded.calls[only], LibraryCall)


def _drew(call: Any) -> bool:
    """Whether ``call`` drew numbers (a coin, an index, an integer, noise): a library call that returns an object of
    its own (an OpenDP compositor's queryable) draws nothing itself -- its queries are calls of their own."""
    try:
        drawn = np.asarray(call.noise)
    except Exception:  # an object numpy cannot hold as an array: no draw of numbers
        return False
    return drawn.dtype.kind in "biufc" and drawn.size > 0
