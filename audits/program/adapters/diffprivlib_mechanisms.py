"""diffprivlib's mechanisms as the audit reads them: each public ``randomise`` recorded as one call, replayed.

A mechanism that adds its noise to a number (:data:`ADDITIVE`: ``randomise(v) = v + z``) is recorded with its exact
law and scale, read from its public attributes, and its noise ``z = output − v``: a replay returns ``v′ + z``
(:func:`.base.replayed_sum`), composed exactly as numpy's Laplace and normal draws are.  Every other mechanism is
recorded by its output, which a replay returns, and accounted by the budget it declares (:func:`declared_step`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.adapters.base import Adapter, Hooks, Sources, Stepped, replayed_sum
from pdp_audit.audits.program.adapters.declared_budgets import declared_step as budget_step
from pdp_audit.audits.program.events import Event, LibraryCall, Mechanism
from pdp_audit.audits.program.recorder import copied, program_line

#: diffprivlib mechanisms that add noise to the value (``randomise(v) = v + noise``): the noise recorded is
#: ``output − value`` and a replay returns ``value′ + noise``; their exact law and scale, from public attributes.
ADDITIVE = {"Laplace": "laplace", "Gaussian": "gaussian", "GaussianAnalytic": "gaussian"}
#: diffprivlib's mechanisms that select with no value given (``randomise()``): their input is the public utility
#: they were made with (the data's doing), compared on a replay with its largest move (:func:`.declared_budgets
#: .declared_step`); their ``candidates``, ``measure`` and ``monotonic`` are noted beside it.
SELECTING = ("Exponential", "PermuteAndFlip")
#: diffprivlib's mechanisms that add continuous float noise (accounted by their declared budget where no exact law is
#: read here): porous as numpy's float samplers are (issue 60).  Its integer and index mechanisms (Geometric*,
#: Binary, Exponential*, PermuteAndFlip, GaussianDiscrete) and its Snapping are not.
FLOAT = (
    "Laplace", "LaplaceTruncated", "LaplaceBoundedDomain", "LaplaceBoundedNoise", "LaplaceFolded", "Gaussian",
    "GaussianAnalytic", "Staircase", "Uniform", "Vector", "Bingham",
)  # fmt: skip
#: diffprivlib mechanisms whose privacy loss scales linearly with the input's shift (post-processings of Laplace or
#: geometric noise): a shift below the declared sensitivity spends that share of the declared ε.
LINEAR = (
    "LaplaceTruncated", "LaplaceBoundedDomain", "LaplaceFolded", "LaplaceBoundedNoise", "GeometricTruncated",
    "GeometricFolded", "Geometric", "Staircase",
)  # fmt: skip


def install(hooks: Hooks) -> None:
    """Each mechanism class's own public ``randomise`` recorded (:func:`_recorded`)."""
    import diffprivlib.mechanisms as dpl

    for name in getattr(dpl, "__all__", dir(dpl)):
        cls = getattr(dpl, name, None)
        if isinstance(cls, type) and "randomise" in vars(cls):
            hooks.replace(cls, "randomise", _recorded(cls.__name__, vars(cls)["randomise"], hooks.sources))


def declared_step(k: int, call: LibraryCall, other: Event) -> Stepped:
    """A mechanism without an exact law here: its declared budget (:func:`.declared_budgets.declared_step`); one
    with an exact law is composed by it, as a draw."""
    if not isinstance(call, Mechanism) or call.law is not None:
        return None, None
    return budget_step(k, call, other, linear=call.mechanism in LINEAR, porous=call.mechanism in FLOAT)


def scale(mechanism: Any, name: str) -> float | None:
    """The noise scale of an additive diffprivlib mechanism from its public attributes (Laplace: sensitivity/(ε −
    log(1 − δ)); a Gaussian's σ is its public ``_scale`` only, so it is computed as diffprivlib documents it:
    Dwork & Roth 2014, Thm A.1, for ``Gaussian``; None where not known)."""
    sensitivity, epsilon, delta = (getattr(mechanism, k, None) for k in ("sensitivity", "epsilon", "delta"))
    if sensitivity is None or epsilon is None:
        return None
    if name == "Laplace":
        return float(sensitivity) / (float(epsilon) - math.log(1 - float(delta or 0.0)))
    if name == "Gaussian" and delta:
        return math.sqrt(2 * math.log(1.25 / float(delta))) * float(sensitivity) / float(epsilon)
    return None


def _mechanism_input(mechanism: Any, name: str, value: Any) -> Any:
    """What the data moves in a call: the value given, or a selecting mechanism's utility where none is given."""
    if value is None and name in SELECTING:
        return copied(np.asarray(getattr(mechanism, "utility", None), dtype=float))
    return value


def _asked(mechanism: Any, name: str, value: Any, additive: bool) -> Mechanism:
    """The event a call of ``randomise`` asks for: its public parameters, declared budget, law and scale."""
    parameters = {k: getattr(mechanism, k, None) for k in ("epsilon", "delta", "sensitivity")}
    parameters.update({k: getattr(mechanism, k) for k in ("lower", "upper", "bounds") if hasattr(mechanism, k)})
    declared = {k: parameters[k] for k in ("epsilon", "delta", "sensitivity")}
    noted = ("candidates", "measure", "monotonic")
    selecting = {k: copied(getattr(mechanism, k, None)) for k in noted} if name in SELECTING else None
    law, noise_scale = (ADDITIVE[name], scale(mechanism, name)) if additive else (None, None)
    shown = value if additive else None
    return Mechanism(f"diffprivlib.{name}", parameters, (), None, shown, noise_scale, law, declared=declared,
                     selecting=selecting)  # fmt: skip


def _recorded(name: str, original: Callable, sources: Sources) -> Callable:
    """diffprivlib's ``randomise``, recorded: called with the arguments the program gave (a selecting mechanism's
    ``randomise()`` takes none)."""

    def randomise(self: Any, *args: Any, **kwargs: Any) -> Any:
        tape = sources.tape()
        if tape is None or tape.depth:
            return original(self, *args, **kwargs)
        value: Any = args[0] if args else kwargs.get("value")
        additive = name in ADDITIVE and np.ndim(value) == 0 and isinstance(value, (int, float, np.number))
        asked = _asked(self, name, value, additive)
        given = None if additive else _mechanism_input(self, name, value)
        if tape.recording:
            with tape.inside():
                output = original(self, *args, **kwargs)
            noise = float(output) - float(value) if additive else output
            tape.recorded.append(
                dataclasses.replace(asked, noise=noise, line=program_line(), input=given, output=output)
            )
            return output
        recorded = tape.next_call(dataclasses.replace(asked, input=given) if given is not None else asked)
        return replayed_sum(tape, recorded, value, recorded.value) if additive else recorded.noise

    return randomise


ADAPTER = Adapter("diffprivlib", install, upper_step=declared_step)
