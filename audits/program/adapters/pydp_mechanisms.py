"""PyDP's mechanisms recorded at their Python boundary: pipeline-dp's noise and partition selection.

pipeline-dp (its ``DPEngine`` on any backend) draws every noise value and every partition-selection coin through
PyDP, Google's differential-privacy library compiled behind pybind11: ``LaplaceMechanism`` and
``GaussianMechanism``'s ``add_noise(value)``, and a partition-selection strategy's ``should_keep(num_users)``.  The
draws themselves are out of reach; the calls are not.  Each is recorded with the value given, the output, and the
mechanism's public parameters (``epsilon``, ``delta``, its sensitivity), compared on a replay.

* ``add_noise(v)`` returns ``v + z``: recorded as additive noise ``z = output − v``, a replay returning
  ``v′ + z`` (the grey-box idea of Cebere, Erb, Desfontaines, Bellet & Fitzsimons, PETS 2026, §4).
* ``should_keep(n)``, ``noised_value_if_should_keep(n)`` and ``noised_value_above_threshold(v, t)`` show no noise
  apart from the value: a replay returns the recorded output.

**Sound for.**  Each call is accounted above by the budget its mechanism declares (:func:`.declared_budgets
.declared_step`), not by a law: PyDP's noise is the discretised "secure" Laplace and Gaussian of Google's library,
whose law on doubles is not the real-valued one, so no exact law is read and no lower step made (a refutation is the
black box's).  The declared budgets: ``LaplaceMechanism`` and ``GaussianMechanism`` are (ε, 0)- and (ε, δ)-DP for
values that move by at most their ``sensitivity`` (L1) and ``l2_sensitivity`` (their documentation); a
partition-selection strategy is (ε, δ)-DP for a privacy unit that changes the ``num_users`` of at most
``max_partitions_contributed`` partitions by one each, so one call whose count moves by one spends at most its whole
(ε, δ) -- the budget taken here per call, an upper bound whatever share of it the library spends per partition.  A
value moved by more than the declared sensitivity, or not finite, leaves the call unaccounted.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.adapters.base import Adapter, Hooks, Sources, Stepped, additive, replayed_sum
from pdp_audit.audits.program.adapters.declared_budgets import declared_step
from pdp_audit.audits.program.events import Event, LibraryCall, Mechanism
from pdp_audit.audits.program.recorder import program_line

#: PyDP's numerical mechanisms (``pydp.algorithms.numerical_mechanisms``), each with the public attribute that
#: holds the sensitivity its budget is declared for.
NUMERICAL = {"LaplaceMechanism": "sensitivity", "GaussianMechanism": "l2_sensitivity"}
#: PyDP's partition-selection strategies, by the name its public ``create_partition_strategy`` takes (a pre-threshold
#: gives one more class): ``num_users`` moves by one per privacy unit.  Their classes are reached through strategies
#: made by that public function (PyDP names them in a private module only).
SELECTION = ("truncated_geometric", "laplace", "gaussian")
#: The methods recorded whose output shows no noise apart from the value (a replay returns the recorded output).
_DECIDING = ("should_keep", "noised_value_if_should_keep", "noised_value_above_threshold")


def install(hooks: Hooks) -> None:
    """PyDP's mechanisms' methods recorded (or replayed) for the session (module notes)."""
    from pydp.algorithms import numerical_mechanisms, partition_selection

    classes = [getattr(numerical_mechanisms, name, None) for name in NUMERICAL]
    classes += _selection_classes(partition_selection)
    owners: dict[tuple[type, str], Callable] = {}
    for cls in (c for c in classes if isinstance(c, type)):
        for method in ("add_noise", *_DECIDING):
            # the class that defines it (``add_noise``: PyDP's base ``NumericalMechanism``), wrapped once
            owner = next((c for c in cls.__mro__ if method in vars(c)), None)
            if owner is not None and owner is not object:
                owners.setdefault((owner, method), vars(owner)[method])
    for (owner, method), original in owners.items():
        hooks.replace(owner, method, _recorded(method, original, hooks.sources))


def _selection_classes(partition_selection: Any) -> list[type]:
    """The classes of PyDP's partition-selection strategies, each with and without a pre-threshold, as the public
    ``create_partition_strategy`` makes them (a strategy PyDP's version does not make is left out)."""
    classes = []
    for name in SELECTION:
        for pre_threshold in ((), (2,)):
            try:
                made = partition_selection.create_partition_strategy(name, 1.0, 1e-5, 1, *pre_threshold)
            except Exception:  # noqa: BLE001 - PyDP's versions differ in the strategies they make
                continue
            classes.append(type(made))
    return classes


def declared(mechanism: Any, name: str) -> dict:
    """The budget ``mechanism`` (of PyDP's class ``name``) declares: its ε, δ and the sensitivity of the value it is
    given (a partition-selection strategy's ``num_users``: 1)."""
    epsilon, delta = (getattr(mechanism, k, None) for k in ("epsilon", "delta"))
    sensitivity = getattr(mechanism, NUMERICAL[name], None) if name in NUMERICAL else 1
    return {"epsilon": _float(epsilon), "delta": _float(delta) or 0.0, "sensitivity": _float(sensitivity)}


def _float(value: Any) -> float | None:
    """A PyDP attribute (a Python float or int) as a float; None stays None."""
    return None if value is None else float(value)


def _recorded(method: str, original: Callable, sources: Sources) -> Callable:
    """PyDP's ``method``, recorded as a call of the mechanism's class: its first argument is the value the data
    moves (``add_noise``'s value, ``should_keep``'s count); ``noised_value_above_threshold``'s second, the
    threshold, is a parameter."""

    def call_it(self: Any, *args: Any, **kwargs: Any) -> Any:
        tape = sources.tape()
        if tape is None or tape.depth or not args:
            return original(self, *args, **kwargs)
        value, name = args[0], type(self).__name__
        budget = declared(self, name)
        parameters: dict[str, Any] = dict(budget)
        parameters.update({f"argument {i}": a for i, a in enumerate(args[1:], 1)}, **kwargs)
        asked = Mechanism(f"pydp.{name}.{method}", parameters, (), None, input=value, declared=budget)
        if tape.recording:
            with tape.inside():
                output = original(self, *args, **kwargs)
            noise = float(output) - float(value) if _number(value) and _number(output) else None
            drawn: dict[str, Any] = {"noise": output}  # else: the output as recorded
            if method == "add_noise" and noise is not None and np.isfinite(noise):
                drawn = additive(noise, output)
            tape.recorded.append(dataclasses.replace(asked, output=output, line=program_line(), **drawn))
            return output
        before = tape.next_call(asked)
        if before.law != "library" or not _number(value):
            return before.noise
        return replayed_sum(tape, before, value, before.input)

    call_it.__name__, call_it.__doc__ = method, original.__doc__
    return call_it


def _number(value: Any) -> bool:
    """A real number a double holds exactly (a Python or numpy float, or an int of magnitude at most 2⁵³; not a
    bool): the noise ``output − value`` and a replay's ``value′ + noise`` are then read as doubles."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return abs(int(value)) <= 2**53
    return isinstance(value, (float, np.floating))


def budget_step(k: int, call: LibraryCall, other: Event) -> Stepped:
    """Every call by the budget its mechanism declares (:func:`.declared_budgets.declared_step`; module notes)."""
    return declared_step(k, call, other) if isinstance(call, Mechanism) else (None, None)


ADAPTER = Adapter("pydp", install, upper_step=budget_step)
