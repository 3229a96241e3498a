"""Primitives without a law the composition knows, audited in isolation by the black box.

The composition (:mod:`.accounting`) knows the exact privacy-loss law of Laplace and Gaussian noise as real-valued
laws, and of a discrete choice.  Two kinds of recorded call lie outside it:

* location families with no exact law here (``gumbel``, ``logistic``);
* continuous float noise (numpy's ``laplace``, ``normal``) when the run is about the program as implemented: its
  doubles can carry the value it is added to (Mironov, CCS 2012; Haney et al. 2022), so its real-valued law does
  not describe the primitive that runs.

Such a call whose arguments show the value its noise is applied to (its ``loc``, non-zero on D or on D′) is audited
alone: the primitive as recorded -- the same generator method, at its recorded scale -- applied to the value it was
given on D and on D′, as the black box's pair of samplers (:func:`primitive_pairs`), at the claim of the program
and at the run's law.  Among the pairs searched, each call is audited on the pair and element where its value moves
most in units of its scale (μ = |loc′ − loc|/scale).

A call that shows no value (``x + rng.laplace(0, b)``: its ``loc`` is 0) is audited the same way where its noise
**lands additively** in the release: a coordinate that carries it with coefficient 1 (the probe of
:mod:`.trace`, which shifts the recorded noise by known amounts and reads which coordinates move by as much).  The
value it is added to is read by replaying the program with that noise element set to 0 -- on D and on D′, every
other draw as recorded -- so the coordinate is x itself, to the last bit (:func:`landed_values`); the landing is
taken as ``x + η`` only where x plus the recorded noise gives the recorded coordinate exactly, and the samplers are
then the program's own arithmetic, ``x + rng.laplace(0, b)``.  A noise that lands otherwise (rounded, thresholded,
multiplied by a data-dependent weight) is not audited alone: the composition names it as not read.

A refutation says that this primitive alone, on that pair, loses more than the claim allows the whole program; the
program's release carries it, post-processed.  The verdicts are listed per primitive beside the composition, which
does not pass where there are any: the program is not certified on a refuted primitive (named first), and a primitive
not refuted leaves its part not certified, since no exact law composes it.  Its losses as the black box bounds and
estimates them are composed with the exact steps of its pair (:mod:`.estimated`): an estimate, said beside the
verdict, deciding nothing.  Not audited alone: the noise a call adds to a value it does not show where that noise
does not land additively in the release.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdp_audit.audits.program import trace
from pdp_audit.audits.program.events import Located

#: At most this many calls are audited in isolation (each costs one black-box run).
MOST_CALLS = 2
#: Fresh releases per world of an isolated audit, at most (the primitive alone is a vectorised numpy draw: the run's
#: ``trials`` up to this many; its estimate (:mod:`.estimated`) sharpens with them)
ISOLATED_TRIALS = 1_000_000
#: The float noise laws whose real-valued law is exact but whose float implementation is porous.
CONTINUOUS = ("laplace", "gaussian")


@dataclass(frozen=True)
class Primitive:
    """One recorded call's element audited alone: call ``call`` (its ``kind``), element ``index``, its ``scale``,
    the value its noise is applied to on D (``on_d``) and on D′ (``on_d_prime``) of the pair ``pair``; ``why``:
    no exact law here, or porous as implemented."""

    call: int
    kind: str
    index: int
    scale: float
    on_d: float
    on_d_prime: float
    pair: str
    why: str
    #: the noise is added to the value outside the call (``x + rng.laplace(0, b)``), read off the release
    outside: bool = False

    @property
    def mu(self) -> float:
        return abs(self.on_d_prime - self.on_d) / self.scale if self.scale > 0 else math.inf


class PrimitiveSampler:
    """The recorded primitive at ``loc`` and ``scale`` as a black-box sampler ``(size, rng) -> (size, 1)``: the
    generator's own method, drawn from the black box's ``rng`` (``outside``: drawn at 0 and added to ``loc``, as
    the program adds it)."""

    def __init__(self, kind: str, loc: float, scale: float, outside: bool = False):
        self.kind, self.loc, self.scale, self.outside = kind, loc, scale, outside

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        if self.outside:
            noise = np.asarray(getattr(rng, self.kind)(0.0, self.scale, size), dtype=float)
            return (self.loc + noise).reshape(size, 1)
        return np.asarray(getattr(rng, self.kind)(self.loc, self.scale, size), dtype=float).reshape(size, 1)


def _why(call: Any, law: str) -> str | None:
    if not isinstance(call, Located):
        return None
    if call.law is None:
        return f"no exact privacy-loss law for {call.name} noise here"
    if call.law in CONTINUOUS and law == "as-implemented":
        return f"float {call.name} noise, porous as implemented"
    return None


def _value(call: Any, index: int) -> float | None:
    """The value call ``call``'s element ``index`` is applied to (None: not shown)."""
    if call.value is None:
        return None
    values = np.atleast_1d(np.broadcast_to(np.asarray(call.value, dtype=float), np.shape(call.noise))).ravel()
    return float(values[index]) if index < values.size else None


def primitives(analysis: Any, law: str, program: Any = None, data: Any = None) -> list[Primitive]:
    """The calls to audit in isolation (module notes), each on the pair and element where its value moves most (a
    pair read on its own draw set's record); with ``program`` and ``data``, also the calls whose noise lands
    additively in the release, their values read by :func:`landed_values`."""
    best: dict[int, Primitive] = {}
    landed: dict[int, tuple[float, Any, Any, int]] = {}  # call -> (μ, pair, element, coordinate)
    for pair in analysis.pairs:
        replayed = pair.comparison.replayed
        if replayed is None or pair.comparison.divergence is not None:
            continue
        seen = analysis.seen_by(pair)
        for j in _audited(seen, law):
            found = _moved_value(seen, replayed, pair, j, law, landed)
            if found is not None and (found.call not in best or found.mu > best[found.call].mu):
                best[found.call] = found
    if program is not None:
        for k, (_, pair, j, coordinate) in sorted(landed.items()):
            if k not in best:
                found = landed_values(program, data, analysis.seen_by(pair), pair, j, coordinate, law)
                if found is not None:
                    best[k] = found
    return [best[k] for k in sorted(best)][:MOST_CALLS]


def _moved_value(seen: Any, replayed: Any, pair: Any, j: int, law: str, landed: dict) -> Primitive | None:
    """Element ``j``'s call as a primitive to audit alone, where its value moved between D and D′ by a finite μ;
    None else -- where it shows no value on either side (a location 0 on both: the value may be added outside the
    call), ``pair`` is kept in ``landed`` for :func:`landed_values`."""
    element = seen.probe.elements[j]
    call = seen.recorded.calls[element.call]
    why = _why(call, law)
    if why is None or not (element.scale > 0 and math.isfinite(element.scale)):
        return None
    on_d = _value(call, element.index)
    after = replayed.calls[element.call] if element.call < len(replayed.calls) else None
    on_d_prime = None if after is None else _value(after, element.index)
    if on_d is None or on_d_prime is None or not (on_d or on_d_prime):
        _note_landing(landed, pair, seen.probe, j)
        return None
    if on_d_prime == on_d:
        return None
    found = Primitive(element.call, call.name, element.index, element.scale, on_d, on_d_prime, pair.neighbour.name, why)
    return found if math.isfinite(found.mu) else None


def _audited(seen: Any, law: str) -> list[int]:
    """The elements of the calls :func:`_why` names (a call's elements share its answer: asked once a call, so that
    a call of 10⁵ elements not audited alone costs nothing per element)."""
    out: list[int] = []
    for call, start, stop, _ in seen.probe.grouped():
        if _why(seen.recorded.calls[call], law) is not None:
            out += range(start, stop)
    return out


def _note_landing(landed: dict, pair: Any, probe: Any, j: int) -> None:
    """Keep ``pair`` for element ``j``'s call where its noise lands additively and its value moves most there."""
    element, coordinate = probe.elements[j], _landing(probe, j)
    shift = float(pair.comparison.shifts[j]) if j < pair.comparison.shifts.size else math.nan
    mu = abs(shift) / element.scale
    if coordinate is None or pair.comparison.source[j] != "release" or not 0 < mu < math.inf:
        return
    if element.call not in landed or mu > landed[element.call][0]:
        landed[element.call] = (mu, pair, j, coordinate)


def _landing(probe: Any, j: int) -> int | None:
    """The first release coordinate that carries noise element ``j`` with coefficient 1 (to the probe's
    precision: :func:`landed_values` checks the landing exactly), or None."""
    at = np.flatnonzero((probe.carrier == j) & (np.abs(probe.coefficient - 1.0) <= 1e-6))
    return int(at[0]) if at.size else None


def landed_values(program: Any, data: Any, seen: Any, pair: Any, j: int, coordinate: int, law: str) -> Any:
    """Primitive ``j`` of ``seen``'s record, whose noise lands additively in release ``coordinate``, with the value it
    is added to on D and on ``pair``'s D′: the coordinate of a replay with that noise element set to 0 (module
    notes); None where a replay diverges or raises, or x plus the recorded noise is not the recorded coordinate
    (the landing is not ``x + η`` in floating point)."""
    element = seen.probe.elements[j]
    call = seen.recorded.calls[element.call]
    eta = float(np.atleast_1d(np.asarray(call.noise, dtype=float)).ravel()[element.index])
    shifts = np.zeros(len(seen.probe.elements))
    shifts[j] = -eta
    zero = seen.probe.perturbation(shifts)
    values = []
    for dataset in (data, pair.neighbour.data):
        try:
            again = trace.replay(program, dataset, seen.recorded.calls, zero)
        except (trace.Divergence, trace.ProgramFault):
            return None
        if again.numbers.size <= coordinate:
            return None
        values.append(float(again.numbers[coordinate]))
    on_d, on_d_prime = values
    if not (on_d + eta == float(seen.recorded.numbers[coordinate])) or on_d == on_d_prime:
        return None
    why = _why(call, law) or ""
    return Primitive(
        element.call, call.name, element.index, element.scale, on_d, on_d_prime, pair.neighbour.name, why, True
    )


def primitive_pairs(primitive: Primitive) -> tuple[PrimitiveSampler, PrimitiveSampler]:
    """The black box's samplers of ``primitive`` on D and on D′."""
    return (
        PrimitiveSampler(primitive.kind, primitive.on_d, primitive.scale, primitive.outside),
        PrimitiveSampler(primitive.kind, primitive.on_d_prime, primitive.scale, primitive.outside),
    )


@dataclass(frozen=True)
class Isolated:
    """A primitive's audit in isolation (:data:`Primitive`), read alone at the run's α: ``refuted`` where the black
    box's p-value is at most α (its test, not corrected for the run's other checks, which it does not join), its
    ``pvalue``, its ε lower bound at 1 − α (None where not read) and the black box's own ``verdict`` (None: not run);
    ``bound``: its ε lower bound at any confidence 1 − a (the estimate at a = 1/2: :mod:`.estimated`)."""

    primitive: Primitive
    law: str
    refuted: bool
    pvalue: float | None
    epsilon_lower: float | None
    verdict: str | None
    bound: Callable[[float], float] | None = field(default=None, compare=False, repr=False)

    @property
    def named(self) -> str:
        """The call as a report names it: ``call 0 gumbel``."""
        return f"call {self.primitive.call} {self.primitive.kind}"

    def row(self) -> dict:
        """The audit as the JSON writes it (one record per primitive)."""
        p = self.primitive
        out: dict[str, Any] = {
            "call": p.call,
            "kind": p.kind,
            "element": p.index,
            "scale": p.scale,
            "value_on_d": p.on_d,
            "value_on_d_prime": p.on_d_prime,
            "pair": p.pair,
            "why": p.why,
            "law": self.law,
            "added_outside": p.outside,
        }
        if self.verdict is not None:
            out.update(verdict="fail" if self.refuted else self.verdict, pvalue=self.pvalue)
        if self.epsilon_lower is not None:
            out["epsilon_lower"] = self.epsilon_lower
        return out

    @property
    def line(self) -> str:
        """The audit in words, for the composition's note."""
        p = self.primitive
        if self.refuted and self.epsilon_lower is not None:
            found = f"refuted (ε ≥ {self.epsilon_lower:.3g}, p = {self.pvalue:.2g})"
        elif self.pvalue is not None:
            found = f"not refuted (p = {self.pvalue:.2g})"
        else:
            found = "fail" if self.refuted else self.verdict or "not run"
        return f"call {p.call} {p.kind} ({p.why}) on {p.pair}: {found}"


def audited(primitive: Primitive, evidence: list[Any], law: str, alpha: float) -> Isolated:
    """The isolated audit's outcome (:class:`Isolated`) from the black box's ``evidence``."""
    attack = next((e for e in evidence if e.spec.id == "blackbox-attack"), evidence[0] if evidence else None)
    if attack is None:
        return Isolated(primitive, law, False, None, None, None)
    refuted = attack.verdict == "fail" or (attack.pvalue is not None and attack.pvalue <= alpha)
    interval = attack.interval
    if interval is None:
        return Isolated(primitive, law, refuted, attack.pvalue, None, attack.verdict or "inconclusive")

    def bound(level: float) -> float:
        return float(interval(level)[0])

    return Isolated(primitive, law, refuted, attack.pvalue, bound(alpha), attack.verdict or "inconclusive", bound)


def line(audits: list[Isolated]) -> str:
    """One sentence of the isolated audits, for the composition's note."""
    return (
        "Audited in isolation by the black box at the claim, at the recorded scale and values (no exact law of "
        "theirs is composed, so the composition cannot certify them): " + "; ".join(a.line for a in audits) + "."
    )
