"""What a sweepable mechanism declares: its parameter schema, its cell function and options.

A :class:`SweepMechanism` is plain data; :mod:`pdp_audit.verify.sweeps.catalogue` lists the built-in ones in an
explicit tuple, and a caller may pass its own to :func:`pdp_audit.verify.sweeps.spec.parse_spec`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from pdp_audit.mechanisms.validation import InputError


class SpecError(InputError):
    """A bad spec: one line naming the file and the key."""


# --------------------------------------------------------------------------------------------------
# Parameter schemas


REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a mechanism's sweep cells: its type, default and valid range.

    ``kind`` is ``"float"``, ``"int"``, ``"str"`` or ``"bool"`` (a flag of the command line).  Numbers are
    checked against ``low``/``high`` (``open_low``/``open_high`` exclude the end points); ``choices`` restricts
    strings; ``keywords`` are strings also accepted by a numeric parameter (e.g. ``sigma = "calibrated"``).
    """

    kind: str
    default: Any = REQUIRED
    help: str = ""
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    def range_text(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "str":
            return "one of " + ", ".join(repr(c) for c in self.choices) if self.choices else "a string"
        what = "a whole number" if self.kind == "int" else "a finite number"
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.open_low else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.open_high else '<='} {self.high:g}")
        if self.low is not None and self.high is not None:
            lo, hi = ("(" if self.open_low else "["), (")" if self.open_high else "]")
            text = f"{what} in {lo}{self.low:g}, {self.high:g}{hi}"
        else:
            text = f"{what} " + " and ".join(parts) if parts else what
        if self.keywords:
            text += " or " + " or ".join(repr(k) for k in self.keywords)
        return text

    def coerce(self, where: str, value: Any) -> Any:
        """The canonical value, or SpecError naming ``where``."""

        def bad() -> SpecError:
            return SpecError(f"{where} must be {self.range_text()}, got {value!r}")

        if isinstance(value, str) and value in self.keywords:
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise bad()
            return value
        if self.kind == "str":
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise bad()
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad()
        number = float(value)
        if not math.isfinite(number):
            raise bad()
        if self.kind == "int":
            if number != int(number):
                raise bad()
            number = int(value) if isinstance(value, int) else int(number)
        if self.low is not None and (number < self.low or (self.open_low and number == self.low)):
            raise bad()
        if self.high is not None and (number > self.high or (self.open_high and number == self.high)):
            raise bad()
        return number


Schema = dict[str, Param]
CellFunction = Callable[[dict, int, float, "tuple[str, ...] | None"], dict]


@dataclass(frozen=True)
class SweepMechanism:
    """A mechanism that can be swept.

    ``cell(parameters, seed, alpha, checks)`` runs one audit and returns a JSON-able dict with
    ``verdict``, ``checks`` (a list of check dicts, as in the JSON report) and ``parameters`` (the
    effective parameters, e.g. a calibrated σ).  It must be a module-level function (it travels to
    worker processes by reference).  ``normalize(parameters, given, where)`` may cross-check parameters
    (raising SpecError that starts with ``where``; ``given`` is the set of keys the spec set) and drop
    those that do not apply; ``cost(parameters)`` estimates a cell's run time in
    arbitrary units (largest cells are scheduled first); ``checks`` lists the audit's check ids.
    """

    name: str
    cell: CellFunction
    schema: Schema
    normalize: Callable[[dict, set, str], dict] | None = None
    cost: Callable[[dict], float] | None = None
    checks: tuple[str, ...] = ()
    description: str = ""
    preload: tuple[str, ...] = ()  # modules a forked worker should inherit already imported
    chunked: bool = False  # cell(..., executor=E) runs its sample chunks through E.map (see executors)
    aliases: tuple[tuple[str, str], ...] = ()  # (alias, key): another name a spec may use for a parameter
