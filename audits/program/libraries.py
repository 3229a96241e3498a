"""The libraries' own primitives recorded and replayed: diffprivlib's mechanisms, OpenDP's measurements and PyDP's
mechanisms (:mod:`.pydp_mechanisms`: pipeline-dp's noise).

While a program runs (:class:`~pdp_audit.audits.program.trace.Session`), the public ``randomise`` of diffprivlib's
mechanisms is wrapped, as are OpenDP's measurements' public ``__call__`` and the public constructors of its Laplace,
geometric and Gaussian measurements (restored afterwards; only their public API is touched).  Each call becomes a
:mod:`event <pdp_audit.audits.program.events>` on the run's tape, as a generator's draw does
(:mod:`~pdp_audit.audits.program.recorder`): a replay returns the value given plus the recorded noise for an
additive mechanism (``value′ + z``, the grey-box idea of Cebere, Erb, Desfontaines, Bellet & Fitzsimons, PETS
2026, §4), else the recorded output.  Only a library the program imports is wrapped (:class:`Libraries`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
from typing import Any, Callable, Iterator

import numpy as np

from pdp_audit.audits.program import opendp_chains, opendp_frames, pydp_mechanisms
from pdp_audit.audits.program.events import Compiled, Mechanism
from pdp_audit.audits.program.recorder import Tape, copied, program_line

# --- diffprivlib's mechanisms -----------------------------------------------------------------------------------
#: diffprivlib mechanisms that add noise to the value (``randomise(v) = v + noise``): the noise recorded is
#: ``output − value`` and a replay returns ``value′ + noise``; their exact law and scale, from public attributes.
_ADDITIVE = {"Laplace": "laplace", "Gaussian": "gaussian", "GaussianAnalytic": "gaussian"}


def _dpl_scale(mechanism: Any, name: str) -> float | None:
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


class Libraries:
    """The libraries whose primitives are wrapped in a block of runs: diffprivlib's mechanisms' public ``randomise``,
    OpenDP's measurements' public ``__call__``/``invoke`` and PyDP's mechanisms (:mod:`.pydp_mechanisms`), recording
    (or replaying) into the tape ``current()`` names at each call. Only a library the program has imported (its
    package in ``sys.modules``) is wrapped: our code never imports one the program does not use (diffprivlib costs
    about 2 s to import, and a library broken in the user's environment is then the program's import error, not
    ours). A library the program imports in its body is wrapped by :meth:`wrap_new` after the run that imported it
    (:class:`~.trace.Session` makes that run again)."""

    def __init__(self, current: Callable[[], Tape], stack: contextlib.ExitStack):
        self.current, self.stack = current, stack
        self.wrapped: set[str] = set()

    def wrap_new(self) -> bool:
        """Wrap each library imported since the last look (restored when the block's stack closes): whether any."""
        new = [name for name in WRAPPERS if name in sys.modules and name not in self.wrapped]
        for name in new:
            self.stack.enter_context(WRAPPERS[name](self.current))
            self.wrapped.add(name)
        return bool(new)


@contextlib.contextmanager
def libraries_wrapped(tape: Tape | Callable[[], Tape]) -> Iterator[Libraries]:
    """Inside the block, the libraries the program has imported record (or replay) into ``tape`` (or into the tape
    ``tape()`` names at each call: one wrapping for many runs); restored on leaving (:class:`Libraries`)."""
    current = tape if callable(tape) else (lambda: tape)
    with contextlib.ExitStack() as stack:
        libraries = Libraries(current, stack)
        libraries.wrap_new()
        yield libraries


#: OpenDP constructors whose noise law is read from their arguments (``opendp.measurements``; its ``then_*`` partial
#: forms call them by their module name, so a chain built inside the block goes through them too): the law of the
#: noise each adds to its argument, coordinate by coordinate.
OPENDP_LAWS = {"make_laplace": "laplace", "make_geometric": "laplace", "make_gaussian": "gaussian"}


@contextlib.contextmanager
def _opendp_wrapped(current: Callable[[], Tape]) -> Iterator[None]:
    """OpenDP's ``Measurement.__call__`` and ``invoke`` record the argument, the output and the measurement's
    metric, measure and privacy map; a replay returns ``arg′ + (output − arg)`` for a numeric output of the
    argument's shape (an additive measurement), else the recorded output.  A measurement made inside the block by a
    constructor of :data:`OPENDP_LAWS` also records its noise law (:func:`_opendp_law`; its scale is then a parameter
    compared on replay).

    An interactive measurement (a compositor: ``make_sequential_composition``, ``Context.compositor``) returns a
    queryable, which draws nothing itself: each measurement asked of it is recorded as that measurement applied to
    the compositor's argument, its answer the queryable's (which charges the budget), and on a replay the compositor
    is made again on the replay's argument (a queryable answers each query once: the recorded one would refuse).
    The compositor's own call is then no step of the composition (:func:`.library_steps.call_steps`): its queries
    are."""
    try:
        from opendp.mod import Measurement
    except ImportError:
        yield
        return
    originals = {name: vars(Measurement)[name] for name in ("__call__", "invoke") if name in vars(Measurement)}
    laws: dict[int, tuple[Any, dict]] = {}
    chains = opendp_chains.Chains()
    #: the queryables the block's compositors returned, by id: (a weak reference, the compositor's argument)
    asked: dict[int, tuple[Any, Any]] = {}

    def interactive(output: Any, whole: Any) -> Any:
        import weakref

        key = id(output)
        asked[key] = (weakref.ref(output, lambda _: asked.pop(key, None)), whole)
        return output

    def recorded(self: Any, whole: Any, answer: Callable[[], Any] | None = None) -> Any:
        tape = current()
        if tape.depth:
            return originals["__call__"](self, whole)
        measured, arg = self, whole
        parts = chains.parts(self)
        if parts is not None:  # a chain m ∘ t: recorded as m applied to t's output (:mod:`.opendp_chains`)
            with tape.inside():
                measured, arg = parts.measurement, parts.transformation(whole)
        parameters = {name: _opendp_named(measured, name) for name in ("input_metric", "output_measure")}
        entry = laws.get(id(measured))
        law = entry[1] if entry is not None and entry[0]() is measured else None
        if law is not None:
            parameters["scale"] = law["scale"]
        event = Compiled(OPENDP, parameters, (), None, input=copied(arg), measurement=measured)
        if tape.recording:
            with tape.inside():
                output = answer() if answer is not None else originals["__call__"](self, whole)
                frame = opendp_frames.collected(output)
            made = _compiled(event, arg, output, frame, law)
            tape.recorded.append(made)
            if made.once:  # a Polars release, collected once: the program gets a handle over the frame
                return opendp_frames.handed(frame)
            return interactive(output, whole) if made.interactive else output
        before = tape.next_call(event)
        if before.interactive:
            with tape.inside():
                return interactive(originals["__call__"](self, whole), whole)
        if before.once:
            return opendp_frames.handed(before.noise)
        if before.law != "library":
            return before.noise
        return _replayed_output(tape, before, arg)

    def query(original: Callable) -> Callable:
        def answered(queryable: Any, measurement: Any) -> Any:
            entry = asked.get(id(queryable))
            if entry is None or entry[0]() is not queryable or not isinstance(measurement, Measurement):
                return original(queryable, measurement)
            return recorded(measurement, entry[1], lambda: original(queryable, measurement))

        answered.__name__, answered.__doc__ = original.__name__, original.__doc__
        return answered

    queries = _queryable_methods()
    for name in originals:
        setattr(Measurement, name, recorded)
    for owner, name, original in queries:
        setattr(owner, name, query(original))
    try:
        with _opendp_constructors(laws), opendp_chains.noted(chains):
            yield
    finally:
        for name, original in originals.items():
            setattr(Measurement, name, original)
        for owner, name, original in queries:
            setattr(owner, name, original)


def _replayed_output(tape: Tape, before: Compiled, arg: Any) -> Any:
    """An additive measurement's output on a replay: the argument plus the recorded noise (shifted by a probe like a
    location family's), in the recorded output's type."""
    unshifted = np.asarray(before.noise, dtype=float)  # a new array where the noise is a numpy scalar
    noise = tape.noise(len(tape.replayed) - 1, unshifted)
    new = np.asarray(arg, dtype=float)
    moved = new + noise
    old = np.asarray(before.input, dtype=float)
    if noise is unshifted and _additive(arg, arg) is not None and old.shape == new.shape:
        # where the argument did not move, the recorded output itself, not a sum that rounds differently: a
        # coordinate of OpenDP's own (unseeded) noise would else move by an ulp, which the release then shows
        same = (new == old) | (np.isnan(new) & np.isnan(old))
        if same.all():
            return before.output
        moved = np.where(same, np.asarray(before.output, dtype=float), moved)
    return opendp_chains.like(before.output, moved)


#: The name an OpenDP measurement's call is recorded under.
OPENDP = "opendp.Measurement"


def _compiled(asked: Compiled, arg: Any, output: Any, frame: Any, law: Any) -> Compiled:
    """The event of an OpenDP measurement's call (``asked``) on the recording run: a Polars frame collected
    ``once``; an ``interactive`` measurement's queryable; an additive one's noise ``output − arg``, shifted by a probe
    like a location family's, with its constructor's law; else its output."""
    line = program_line()
    if frame is not None:
        return dataclasses.replace(asked, noise=frame, once=True, line=line)
    if _queryable(output):
        return dataclasses.replace(asked, noise=output, interactive=True, line=line)
    noise = _additive(arg, output)
    if noise is None:
        return dataclasses.replace(asked, noise=output, line=line)
    lattice, ones = opendp_chains.integers(output), np.ones(np.shape(noise))
    return dataclasses.replace(
        asked, noise=noise, scale=ones, law="library", lattice=lattice, line=line, output=output, noise_law=law
    )


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


@contextlib.contextmanager
def _opendp_constructors(laws: dict[int, tuple[Any, dict]]) -> Iterator[None]:
    """Inside the block, the public constructors of :data:`OPENDP_LAWS` in ``opendp.measurements`` note, in
    ``laws`` (by the measurement's id: a weak reference and its law), the law of each measurement they make;
    restored on leaving."""
    import weakref

    try:
        from opendp import measurements
    except ImportError:  # OpenDP before 0.6: ``opendp.meas``, whose constructors have other names and laws
        yield
        return

    originals = {name: getattr(measurements, name) for name in OPENDP_LAWS if hasattr(measurements, name)}

    def wrapped(name: str, original: Callable) -> Callable:
        def constructor(*args: Any, **kwargs: Any) -> Any:
            measurement = original(*args, **kwargs)
            law = _opendp_law(name, measurement, original, args, kwargs)
            if law is not None:
                key = id(measurement)
                laws[key] = (weakref.ref(measurement, lambda _: laws.pop(key, None)), law)
            return measurement

        constructor.__name__, constructor.__doc__ = original.__name__, original.__doc__
        return constructor

    for name, original in originals.items():
        setattr(measurements, name, wrapped(name, original))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(measurements, name, original)


def _opendp_named(measurement: Any, name: str) -> str:
    """OpenDP's name of ``measurement``'s ``input_metric`` or ``output_measure``; "unknown" where OpenDP (before
    0.7) gives a measurement neither -- its map is then not read, and its steps stay unaccounted."""
    return str(getattr(measurement, name, "unknown"))


def _opendp_law(name: str, measurement: Any, original: Callable, args: tuple, kwargs: dict) -> dict | None:
    """The noise law of a measurement made by OpenDP's constructor ``name`` (its documented arguments): ``law``,
    ``scale`` and the constructor's name; None where it is not read here.  OpenDP samples every one of them exactly
    on a grid of 2^k (its docs: "Internally, all sampling is done using the discrete Laplace distribution"; k
    "defaults to the smallest granularity", where every double is on the grid): Laplace and geometric noise is
    the discrete Laplace law of scale ``scale``, Gaussian the discrete Gaussian of σ = ``scale``.  Read only at the
    default k, with no ``bounds`` (the geometric's truncated sampler), for an absolute, L1 (Laplace) or L2
    (Gaussian) input metric, and for the Gaussian over floats only (its grid then fine beside σ; an integer
    Gaussian's grid is not)."""
    import inspect

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
    law = OPENDP_LAWS[name]
    floating = "f64" in carrier or "f32" in carrier
    metrics = ("AbsoluteDistance", "L1Distance") if law == "laplace" else ("AbsoluteDistance", "L2Distance")
    if not (scale > 0 and math.isfinite(scale)) or not metric.startswith(metrics):
        return None
    if law == "gaussian" and not floating:
        return None
    grid = (2.0**-1074 if "f64" in carrier else 2.0**-149) if floating else 1.0  # the smallest granularity
    return {"law": law, "scale": scale, "constructor": name, "grid": grid}


def _additive(arg: Any, output: Any) -> np.ndarray | None:
    """``output − arg`` where both are numbers of one shape (a measurement that adds noise), else None."""
    try:
        old, out = np.asarray(arg, dtype=float), np.asarray(output, dtype=float)
    except (TypeError, ValueError):
        return None
    return out - old if old.shape == out.shape else None


@contextlib.contextmanager
def _diffprivlib_wrapped(current: Callable[[], Tape]) -> Iterator[None]:
    try:
        import diffprivlib.mechanisms as dpl
    except ImportError:
        yield
        return
    originals: dict[type, Callable] = {}
    for name in getattr(dpl, "__all__", dir(dpl)):
        cls = getattr(dpl, name, None)
        if isinstance(cls, type) and "randomise" in vars(cls):
            originals[cls] = vars(cls)["randomise"]
    for cls, original in originals.items():
        cls.randomise = _wrapped_randomise(cls.__name__, original, current)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for cls, original in originals.items():
            cls.randomise = original  # type: ignore[attr-defined]


#: Each wrapped library by its package's name (:class:`Libraries`); a call of one is named ``PACKAGE.…``.
WRAPPERS: dict[str, Callable[[Callable[[], Tape]], contextlib.AbstractContextManager]] = {
    "opendp": _opendp_wrapped,
    "diffprivlib": _diffprivlib_wrapped,
    "pydp": pydp_mechanisms.wrapped,
}


def _same_value(value: Any, recorded: Any) -> bool:
    """Whether a diffprivlib mechanism's input is its recorded one (NaN as NaN)."""
    now, then = float(value), float(recorded)
    return now == then or (math.isnan(now) and math.isnan(then))


#: diffprivlib's mechanisms that select with no value given (``randomise()``): their input is the public utility
#: they were made with (the data's doing), compared on a replay with its largest move (:func:`.library_steps
#: .declared_step`); their ``candidates``, ``measure`` and ``monotonic`` are noted beside it.
SELECTING = ("Exponential", "PermuteAndFlip")


def _mechanism_input(mechanism: Any, name: str, value: Any) -> Any:
    """What the data moves in a call: the value given, or a selecting mechanism's utility where none is given."""
    if value is None and name in SELECTING:
        return copied(np.asarray(getattr(mechanism, "utility", None), dtype=float))
    return value


def _wrapped_randomise(name: str, original: Callable, current: Callable[[], Tape]) -> Callable:
    """diffprivlib's ``randomise``, recorded: called with the arguments the program gave (a selecting mechanism's
    ``randomise()`` takes none)."""

    def randomise(self: Any, *args: Any, **kwargs: Any) -> Any:
        tape = current()
        if tape.depth:
            return original(self, *args, **kwargs)
        value: Any = args[0] if args else kwargs.get("value")
        parameters = {k: getattr(self, k, None) for k in ("epsilon", "delta", "sensitivity")}
        parameters.update({k: getattr(self, k) for k in ("lower", "upper", "bounds") if hasattr(self, k)})
        additive = name in _ADDITIVE and np.ndim(value) == 0 and isinstance(value, (int, float, np.number))
        law = _ADDITIVE.get(name) if additive else None
        scale = _dpl_scale(self, name) if additive else None
        declared = {k: parameters[k] for k in ("epsilon", "delta", "sensitivity")}
        noted = ("candidates", "measure", "monotonic")
        selecting = {k: copied(getattr(self, k, None)) for k in noted} if name in SELECTING else None
        shown = value if additive else None
        asked = Mechanism(
            f"diffprivlib.{name}", parameters, (), None, shown, scale, law, declared=declared, selecting=selecting
        )
        if tape.recording:
            with tape.inside():
                output = original(self, *args, **kwargs)
            noise = float(output) - float(value) if additive else output
            given = None if additive else _mechanism_input(self, name, value)
            made = dataclasses.replace(asked, noise=noise, line=program_line(), input=given, output=output)
            tape.recorded.append(made)
            return output
        given = None if additive else _mechanism_input(self, name, value)
        recorded = tape.next_call(dataclasses.replace(asked, input=given) if given is not None else asked)
        if not additive:
            return recorded.noise
        unshifted = np.asarray(recorded.noise, dtype=float)
        noise = tape.noise(len(tape.replayed) - 1, unshifted)
        output = recorded.output
        if noise is unshifted and _same_value(value, recorded.value):
            # the value and its noise as recorded: the recorded output itself (its type, its bits), not a sum
            # value + (output − value) that may round otherwise -- releases are compared exactly
            return output
        moved = float(value) + float(noise)
        return type(output)(moved) if isinstance(output, np.floating) else moved

    return randomise
