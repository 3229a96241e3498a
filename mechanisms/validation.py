"""Parameter validation shared by every mechanism: one-line errors naming the parameter and its range."""
from __future__ import annotations

import math


def _number(name: str, value, valid: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {valid}, got {value!r}") from None


def positive(name: str, value: float, why: str = "") -> float:
    """``value`` as a float, or ValueError unless it is finite and > 0 (``why`` is appended to the message)."""
    value = _number(name, value, "a finite number > 0")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0{why}, got {value!r}")
    return value


def nonnegative(name: str, value: float) -> float:
    value = _number(name, value, "a finite number >= 0")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def probability(name: str, value: float) -> float:
    """``value`` in the open interval (0, 1) (a δ, ρ or α)."""
    value = _number(name, value, "in (0, 1)")
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return value
