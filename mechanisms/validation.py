"""Parameter validation shared by every mechanism: one-line errors naming the parameter and its range.

:class:`InputError` is the suite's one exception type for bad user input (an option, a parameter, a
data file, a spec): the command line prints its message as one line and exits with code 2.  Any other
exception is an internal error.  It lives here, in the lowest layer, so that every package can raise it.
"""

from __future__ import annotations

import math


class InputError(ValueError):
    """Bad user input: the message names the parameter (or file) and the valid range, in one line."""


def _number(name: str, value, valid: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {valid}, got {value!r}") from None


def positive(name: str, value: float, why: str = "") -> float:
    """``value`` as a float, or InputError unless it is finite and > 0 (``why`` is appended to the message)."""
    value = _number(name, value, "a finite number > 0")
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{name} must be a finite number > 0{why}, got {value!r}")
    return value


def nonnegative(name: str, value: float) -> float:
    """``value`` as a float, or InputError unless it is finite and >= 0."""
    value = _number(name, value, "a finite number >= 0")
    if not (math.isfinite(value) and value >= 0):
        raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def probability(name: str, value: float) -> float:
    """``value`` in the open interval (0, 1) (a δ, ρ or α)."""
    value = _number(name, value, "in (0, 1)")
    if not 0 < value < 1:
        raise InputError(f"{name} must be in (0, 1), got {value!r}")
    return value
