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

A refutation says that this primitive alone, on that pair, loses more than the claim allows the whole program; the
program's release carries it, post-processed.  The verdicts are listed per primitive beside the composition, which
does not pass where there are any: the program is not certified on a refuted primitive (named first), and a primitive
not refuted leaves its part not certified, since no exact law composes it (what remains: their (ε, δ) lower bounds
with their confidence composed with the exact steps, and the noise a call adds to a value it does not show).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdp_audit.audits.program.recorder import LOCATION_FAMILIES

#: At most this many calls are audited in isolation (each costs one black-box run).
MOST_CALLS = 2
#: Fresh releases per world of an isolated audit, at most (the primitive alone is a vectorised numpy draw).
ISOLATED_TRIALS = 10_000
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

    @property
    def mu(self) -> float:
        return abs(self.on_d_prime - self.on_d) / self.scale if self.scale > 0 else math.inf


class PrimitiveSampler:
    """The recorded primitive at ``loc`` and ``scale`` as a black-box sampler ``(size, rng) -> (size, 1)``: the
    generator's own method, drawn from the black box's ``rng``."""

    def __init__(self, kind: str, loc: float, scale: float):
        self.kind, self.loc, self.scale = kind, loc, scale

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(getattr(rng, self.kind)(self.loc, self.scale, size), dtype=float).reshape(size, 1)


def _why(call: Any, law: str) -> str | None:
    if call.kind not in LOCATION_FAMILIES:
        return None
    if call.law is None:
        return f"no exact privacy-loss law for {call.kind} noise here"
    if call.law in CONTINUOUS and law == "as-implemented":
        return f"float {call.kind} noise, porous as implemented"
    return None


def _value(call: Any, index: int) -> float | None:
    """The value call ``call``'s element ``index`` is applied to (None: not shown)."""
    if call.value is None:
        return None
    values = np.atleast_1d(np.broadcast_to(np.asarray(call.value, dtype=float), np.shape(call.noise))).ravel()
    return float(values[index]) if index < values.size else None


def primitives(analysis: Any, law: str) -> list[Primitive]:
    """The calls to audit in isolation (module notes), each on the pair and element where its value moves most."""
    best: dict[int, Primitive] = {}
    recorded = analysis.recorded.calls
    for element in analysis.probe.elements:
        call = recorded[element.call]
        why = _why(call, law)
        if why is None or not (element.scale > 0 and math.isfinite(element.scale)):
            continue
        on_d = _value(call, element.index)
        if on_d is None:
            continue
        for pair in analysis.pairs:
            replayed = pair.comparison.replayed
            if replayed is None or pair.comparison.divergence is not None or element.call >= len(replayed.calls):
                continue
            on_d_prime = _value(replayed.calls[element.call], element.index)
            if on_d_prime is None or on_d_prime == on_d or not (on_d or on_d_prime):
                continue  # a location 0 on both sides shows nothing: the value may be added outside the call
            found = Primitive(
                element.call, call.kind, element.index, element.scale, on_d, on_d_prime, pair.neighbour.name, why
            )
            if math.isfinite(found.mu) and (element.call not in best or found.mu > best[element.call].mu):
                best[element.call] = found
    return [best[k] for k in sorted(best)][:MOST_CALLS]


def primitive_pairs(primitive: Primitive) -> tuple[PrimitiveSampler, PrimitiveSampler]:
    """The black box's samplers of ``primitive`` on D and on D′."""
    return (
        PrimitiveSampler(primitive.kind, primitive.on_d, primitive.scale),
        PrimitiveSampler(primitive.kind, primitive.on_d_prime, primitive.scale),
    )


def row(primitive: Primitive, evidence: list[Any], law: str, alpha: float) -> dict:
    """The isolated audit's outcome, one record per primitive: where it ran and what the black box found --
    ``verdict`` fail where its p-value is at most ``alpha`` (the black box's test, read alone: not corrected for the
    run's other checks, which it does not join), and its ε lower bound at 1 − ``alpha``."""
    attack = next((e for e in evidence if e.spec.id == "blackbox-attack"), evidence[0] if evidence else None)
    out: dict[str, Any] = {
        "call": primitive.call,
        "kind": primitive.kind,
        "element": primitive.index,
        "scale": primitive.scale,
        "value_on_d": primitive.on_d,
        "value_on_d_prime": primitive.on_d_prime,
        "pair": primitive.pair,
        "why": primitive.why,
        "law": law,
    }
    if attack is not None:
        refuted = attack.verdict == "fail" or (attack.pvalue is not None and attack.pvalue <= alpha)
        out.update(verdict="fail" if refuted else attack.verdict or "inconclusive", pvalue=attack.pvalue)
        if attack.interval is not None:
            out["epsilon_lower"] = float(attack.interval(alpha)[0])
    return out


def line(rows: list[dict]) -> str:
    """One sentence of the isolated audits, for the composition's note."""
    parts = []
    for r in rows:
        found = (
            f"refuted (ε ≥ {r['epsilon_lower']:.3g}, p = {r['pvalue']:.2g})"
            if r.get("verdict") == "fail" and "epsilon_lower" in r
            else f"not refuted (p = {r['pvalue']:.2g})"
            if r.get("pvalue") is not None
            else r.get("verdict", "not run")
        )
        parts.append(f"call {r['call']} {r['kind']} ({r['why']}) on {r['pair']}: {found}")
    return (
        "Audited in isolation by the black box at the claim, at the recorded scale and values (the composition does "
        "not pass on them): " + "; ".join(parts) + "."
    )
