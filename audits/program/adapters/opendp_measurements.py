"""OpenDP's measurements as the audit reads them: each call of a measurement recorded as one event, replayed.

``Measurement.__call__`` and ``invoke`` record the argument, the output and the measurement's metric, measure and
privacy map; a replay returns ``arg′ + (output − arg)`` for a numeric output of the argument's shape (an additive
measurement: :func:`.base.replayed_sum`), else the recorded output.  A measurement made by a constructor of
:data:`LAWS` also records its noise law (:func:`noise_law`; its scale is then a parameter compared on replay).  Its
steps: :mod:`.opendp_steps`.

An interactive measurement (a compositor: ``make_sequential_composition``, ``Context.compositor``) returns a
queryable, which draws nothing itself: each measurement asked of it is recorded as that measurement applied to the
compositor's argument, its answer the queryable's (which charges the budget), and on a replay the compositor is
made again on the replay's argument (a queryable answers each query once: the recorded one would refuse).  The
compositor's own call is then no step of the composition (:func:`.opendp_steps.map_step`): its queries are.

**Chains** (:func:`_install_chains`).  A measurement made by ``make_chain_mt(m, t)`` -- what ``t >> m`` builds -- is
recorded as the measurement ``m`` applied to ``t``'s output: a pipeline over categorical data (counts by category of
a vector of strings, then Laplace noise) is called on the strings, which hold no number, so neither the distance its
argument moved nor the noise the release carries can be read off the chain's argument; its transformation's output
(the counts) can.  *Sound for*: OpenDP's chain is "a Measurement that when invoked, computes
``measurement1(transformation0(x))``" (its documentation, OpenDP 0.16), and its transformations are deterministic
(the programming framework of Gaboardi, Hay & Vadhan, 2020, §2).  So ``chain(x) = m(t(x))`` in law, with ``t(x)``
computed by the transformation's own public ``__call__``: the recorder reads the release as ``m``'s output on it,
accounts ``m`` by its privacy map at the distance ``t(x)`` moved (the chain's map at the distance ``x`` moved is
``m``'s map after ``t``'s stability map: no looser) and, where ``m``'s law is read, below by that law.  A chain whose
parts are not known here (built before the recording, or by another combinator) is recorded as it is called.

**Polars** (:func:`_collected`, :func:`_handed`).  OpenDP's Polars measurements (``make_private_lazyframe``, what
``Context.query().….release()`` asks of a compositor) answer with a ``OnceFrame``: a one-shot handle whose
``collect()`` evaluates the private plan, drawing its noise in OpenDP's own sampler, and refuses a second time.  The
recorder collects it where the measurement answers (the same plan on the same data, so the same law) and hands the
program a ``OnceFrame`` over the frame collected: a replay hands it the recorded frame again, where the recorded
handle would refuse.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import sys
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.adapters import opendp_steps
from pdp_audit.audits.program.adapters.base import Adapter, Hooks, Sources, additive, replayed_sum
from pdp_audit.audits.program.events import Compiled
from pdp_audit.audits.program.recorder import Tape, copied, program_line

#: OpenDP constructors whose noise law is read from their arguments (``opendp.measurements``; its ``then_*`` partial
#: forms call them by their module name, so a chain built inside the session goes through them too): the law of the
#: noise each adds to its argument, coordinate by coordinate.
LAWS = {"make_laplace": "laplace", "make_geometric": "laplace", "make_gaussian": "gaussian"}
#: The name an OpenDP measurement's call is recorded under.
NAME = "opendp.Measurement"


def install(hooks: Hooks) -> None:
    """``Measurement.__call__``/``invoke``, the queryables' ways to ask a query, the constructors of :data:`LAWS`
    and ``make_chain_mt`` replaced for the session (module notes)."""
    from opendp.mod import Measurement

    measurements = _Measurements(hooks.sources, vars(Measurement)["__call__"])

    def recorded(measurement: Any, whole: Any) -> Any:  # a function: a class's attribute binds to the measurement
        return measurements.recorded(measurement, whole)

    for name in ("__call__", "invoke"):
        if name in vars(Measurement):
            hooks.replace(Measurement, name, recorded)
    for owner, name, original in _queryable_methods():
        hooks.replace(owner, name, measurements.query(original))
    try:
        from opendp import measurements as constructors
    except ImportError:  # OpenDP before 0.6: ``opendp.meas``, whose constructors have other names and laws
        constructors = None
    for name in LAWS:
        if constructors is not None and hasattr(constructors, name):
            hooks.replace(constructors, name, measurements.constructor(name, getattr(constructors, name)))
    _install_chains(hooks.replace, measurements.chains)


@dataclass(frozen=True)
class Parts:
    """A chain's two parts: the ``measurement`` applied to the output of the ``transformation``."""

    measurement: Any
    transformation: Any


class Noted:
    """Objects noted by id while they live (chains, measurements, queryables): a weak reference to each and what is
    noted of it."""

    def __init__(self) -> None:
        self._noted: dict[int, tuple[weakref.ref, Any]] = {}

    def note(self, made: Any, what: Any) -> None:
        key = id(made)
        self._noted[key] = (weakref.ref(made, lambda _: self._noted.pop(key, None)), what)

    def get(self, made: Any) -> Any:
        """What was noted of ``made`` (None: nothing)."""
        entry = self._noted.get(id(made))
        return entry[1] if entry is not None and entry[0]() is made else None


def _install_chains(replace: Callable[[Any, str, Any], None], chains: Noted) -> None:
    """OpenDP's public ``make_chain_mt`` (which ``Transformation.__rshift__`` calls by its module name) replaced for
    the session: it notes in ``chains`` the :class:`Parts` of each chain it makes (module notes)."""
    try:  # before 0.6 OpenDP named the module ``opendp.comb``
        combinators: Any = importlib.import_module("opendp.combinators")
    except ImportError:
        combinators = importlib.import_module("opendp.comb")
    original: Callable = combinators.make_chain_mt

    def make_chain_mt(measurement1: Any, transformation0: Any) -> Any:
        chain = original(measurement1, transformation0)
        chains.note(chain, Parts(measurement1, transformation0))
        return chain

    make_chain_mt.__doc__ = original.__doc__
    replace(combinators, "make_chain_mt", make_chain_mt)


class _Measurements:
    """The session's OpenDP calls: the laws of the measurements made in it, the chains' parts, and the queryables
    its compositors returned (each with the compositor's argument)."""

    def __init__(self, sources: Sources, call: Callable):
        self.sources, self.call = sources, call
        self.laws, self.asked, self.chains = Noted(), Noted(), Noted()

    def recorded(self, measurement: Any, whole: Any, answer: Callable[[], Any] | None = None) -> Any:
        """A measurement's call on ``whole`` (``answer``: a queryable's, which asks it), recorded or replayed."""
        tape = self.sources.tape()
        if tape is None or tape.depth:
            return self.call(measurement, whole)
        measured, arg = measurement, whole
        parts = self.chains.get(measurement)
        if parts is not None:  # a chain m ∘ t: recorded as m applied to t's output (module notes)
            with tape.inside():
                measured, arg = parts.measurement, parts.transformation(whole)
        parameters = {name: _named(measured, name) for name in ("input_metric", "output_measure")}
        law = self.laws.get(measured)
        if law is not None:
            parameters["scale"] = law["scale"]
        event = Compiled(NAME, parameters, (), None, input=copied(arg), measurement=measured)
        if tape.recording:
            return self._recording(tape, event, lambda: answer() if answer else self.call(measurement, whole), whole)
        before = tape.next_call(event)
        if before.interactive:
            with tape.inside():
                return self._interactive(self.call(measurement, whole), whole)
        if before.once:
            return _handed(before.noise)
        return before.noise if before.law != "library" else replayed_sum(tape, before, arg, before.input)

    def _recording(self, tape: Tape, asked: Compiled, call: Callable[[], Any], whole: Any) -> Any:
        """The call made on the recording run (on ``whole``), its event joining the record: a Polars frame collected
        ``once``; an ``interactive`` measurement's queryable; an additive one's noise ``output − arg``, shifted by a
        probe like a location family's, with its constructor's law; else its output."""
        with tape.inside():
            output = call()
            frame = _collected(output)
        line = program_line()
        if frame is not None:
            tape.recorded.append(dataclasses.replace(asked, noise=frame, once=True, line=line))
            return _handed(frame)  # the program gets a handle over the frame
        if _queryable(output):
            tape.recorded.append(dataclasses.replace(asked, noise=output, interactive=True, line=line))
            return self._interactive(output, whole)
        noise = _additive(asked.input, output)
        law = self.laws.get(asked.measurement)
        drawn = {"noise": output} if noise is None else {**additive(noise, output), "noise_law": law, "output": output}
        tape.recorded.append(dataclasses.replace(asked, line=line, **drawn))
        return output

    def _interactive(self, queryable: Any, whole: Any) -> Any:
        self.asked.note(queryable, whole)
        return queryable

    def query(self, original: Callable) -> Callable:
        """A queryable's ``original`` way to ask a query: a measurement asked of a compositor of the session is
        recorded as applied to the compositor's argument."""
        from opendp.mod import Measurement

        def answered(queryable: Any, measurement: Any) -> Any:
            whole = self.asked.get(queryable)
            if whole is None or not isinstance(measurement, Measurement):
                return original(queryable, measurement)
            return self.recorded(measurement, whole, lambda: original(queryable, measurement))

        answered.__name__, answered.__doc__ = original.__name__, original.__doc__
        return answered

    def constructor(self, name: str, original: Callable) -> Callable:
        """OpenDP's constructor ``name``, noting the law of each measurement it makes (:func:`noise_law`)."""

        def made(*args: Any, **kwargs: Any) -> Any:
            measurement = original(*args, **kwargs)
            law = noise_law(name, measurement, original, args, kwargs)
            if law is not None:
                self.laws.note(measurement, law)
            return measurement

        made.__name__, made.__doc__ = original.__name__, original.__doc__
        return made


def _queryable_methods() -> list[tuple[type, str, Callable]]:
    """OpenDP's public ways to ask a queryable a query: ``Queryable.__call__``, ``OdometerQueryable.__call__`` and
    ``invoke`` (each calls OpenDP's evaluation itself), as (class, name, function)."""
    import opendp.mod as mod

    found = []
    for class_name in ("Queryable", "OdometerQueryable"):
        owner = getattr(mod, class_name, None)
        for name in ("__call__", "invoke"):
            if isinstance(owner, type) and name in vars(owner):
                found.append((owner, name, vars(owner)[name]))
    return found


def _queryable(output: Any) -> bool:
    """Whether a measurement's output is an OpenDP queryable (an interactive measurement's)."""
    import opendp.mod as mod

    kinds = tuple(k for k in (getattr(mod, "Queryable", None), getattr(mod, "OdometerQueryable", None)) if k)
    return isinstance(output, kinds)


def _named(measurement: Any, name: str) -> str:
    """OpenDP's name of ``measurement``'s ``input_metric`` or ``output_measure``; "unknown" where OpenDP (before
    0.7) gives a measurement neither -- its map is then not read, and its steps stay unaccounted."""
    return str(getattr(measurement, name, "unknown"))


def noise_law(name: str, measurement: Any, original: Callable, args: tuple, kwargs: dict) -> dict | None:
    """The noise law of a measurement made by OpenDP's constructor ``name`` (its documented arguments): ``law``,
    ``scale`` and the constructor's name; None where it is not read here.  OpenDP samples every one of them exactly
    on a grid of 2^k (its docs: "Internally, all sampling is done using the discrete Laplace distribution"; k
    "defaults to the smallest granularity", where every double is on the grid): Laplace and geometric noise is
    the discrete Laplace law of scale ``scale``, Gaussian the discrete Gaussian of σ = ``scale``.  Read only at the
    default k, with no ``bounds`` (the geometric's truncated sampler), for an absolute, L1 (Laplace) or L2
    (Gaussian) input metric, and for the Gaussian over floats only (its grid then fine beside σ; an integer
    Gaussian's grid is not)."""
    try:
        bound = inspect.signature(original).bind(*args, **kwargs)
    except TypeError:
        return None
    given = bound.arguments
    if given.get("k") is not None or given.get("bounds") is not None:
        return None
    try:
        scale = float(given["scale"])
        metric, carrier = str(measurement.input_metric), str(measurement.input_domain.carrier_type)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    law = LAWS[name]
    floating = "f64" in carrier or "f32" in carrier
    metrics = ("AbsoluteDistance", "L1Distance") if law == "laplace" else ("AbsoluteDistance", "L2Distance")
    if not (scale > 0 and math.isfinite(scale)) or not metric.startswith(metrics):
        return None
    if law == "gaussian" and not floating:
        return None
    grid = (2.0**-1074 if "f64" in carrier else 2.0**-149) if floating else 1.0  # the smallest granularity
    return {"law": law, "scale": scale, "constructor": name, "grid": grid}


def _collected(output: Any) -> Any | None:
    """The frame a measurement's ``OnceFrame`` output collects (its one evaluation); None for another output."""
    once = _once_frame_class()
    if once is None or not isinstance(output, once):
        return None
    handle: Any = output  # OpenDP's OnceFrame (its class found at run time)
    return handle.collect()


def _handed(frame: Any) -> Any:
    """A ``OnceFrame`` whose ``collect()`` returns ``frame`` once and then refuses as OpenDP's does, and whose
    ``lazy()`` returns it as a ``LazyFrame`` (OpenDP's honest-but-curious escape): what the program is handed on the
    record and on every replay."""
    return _collected_class()(frame)


def _once_frame_class() -> type | None:
    module = sys.modules.get("opendp.extras.polars")
    found = getattr(module, "OnceFrame", None)
    return found if isinstance(found, type) else None


_COLLECTED: dict[type, type] = {}


def _collected_class() -> type:
    """OpenDP's ``OnceFrame`` subclassed over a frame already collected (made once per ``OnceFrame`` class)."""
    once = _once_frame_class()
    assert once is not None, "_handed() follows _collected(), which found OpenDP's OnceFrame"
    if once not in _COLLECTED:

        class CollectedOnceFrame(once):  # type: ignore[misc,valid-type]
            """A ``OnceFrame`` over a frame the audit collected when the measurement answered."""

            def __init__(self, frame: Any):
                self._frame, self._spent = frame, False

            def collect(self) -> Any:
                if self._spent:
                    from opendp.mod import OpenDPException

                    raise OpenDPException("FailedFunction", "OnceFrame has been exhausted")
                self._spent = True
                return self._frame.clone()

            def lazy(self) -> Any:
                return self._frame.lazy()

        _COLLECTED[once] = CollectedOnceFrame
    return _COLLECTED[once]


def _additive(arg: Any, output: Any) -> np.ndarray | None:
    """``output − arg`` where both are numbers of one shape (a measurement that adds noise), else None."""
    try:
        old, out = np.asarray(arg, dtype=float), np.asarray(output, dtype=float)
    except (TypeError, ValueError):
        return None
    return out - old if old.shape == out.shape else None


ADAPTER = Adapter("opendp", install, upper_step=opendp_steps.map_step, lower_step=opendp_steps.law_step)
