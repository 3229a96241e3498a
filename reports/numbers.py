"""Numbers as a report states them, where the rounding direction matters: bounds rounded *up* (a certified δ̄ never
reads smaller than the evidence supports) or *down* (an interval's lower end), and confidence levels as their
distance from 1.  No plotting imports: the terminal's text uses them too."""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction


def round_up(value: float, digits: int = 2) -> float:
    """``value`` rounded up to ``digits`` (≤ 15) significant digits: the double nearest the smallest decimal D of
    that many digits whose double is ≥ ``value`` (a double stands for the decimals that read back as it: 1.2e-5 stays
    1.2e-5 although the double is 3e-22 above the decimal), so the result is never below ``value``, and neither is
    its text at ``digits`` significant digits (``:.2g``), which reads back as it.  D is computed exactly from the
    double's binary expansion (:func:`_rounded`), denormals included; rounding to nearest is monotone, so a decimal
    above ``value`` gives a double at or above it.

    The range (its callers state bounds on δ or ε, which are ≥ 0): 0 and negatives give 0 (0 stays 0); +∞ stays
    +∞, and so does a value whose D lies beyond the largest double; NaN bounds nothing and raises ValueError (the
    callers never pass one: :func:`pdp_audit.reports.certified_claim.tightest` reads a NaN upper end as +∞)."""
    if math.isnan(value):
        raise ValueError("round_up got NaN: a bound that is not a number cannot be stated")
    if value <= 0:
        return 0.0
    return math.inf if math.isinf(value) else _rounded(value, digits, ROUND_CEILING)


def round_down(value: float, digits: int = 3) -> float:
    """``value`` rounded down to ``digits`` (≤ 15) significant digits, never above it, nor is its text at ``digits``
    significant digits: a stated interval is never narrower than the sampled.  The mirror of :func:`round_up`, over
    every sign: a negative value gives −round_up(−value); 0 and ±∞ stay themselves; NaN raises ValueError."""
    if math.isnan(value):
        raise ValueError("round_down got NaN: a bound that is not a number cannot be stated")
    if value < 0:
        return -round_up(-value, digits)
    return value + 0.0 if value == 0 or math.isinf(value) else _rounded(value, digits, ROUND_FLOOR)


def _rounded(value: float, digits: int, rounding: str) -> float:
    """``value`` > 0 rounded (``ROUND_CEILING``, ``ROUND_FLOOR``) to ``digits`` significant decimal digits: the
    double's exact decimal expansion (``Decimal(value)``) rounded exactly by ``quantize`` -- no 10.0**e, which is 0
    below 1e-323 and inexact everywhere -- or the decimal one step nearer where that one reads back as ``value``."""
    exact = Decimal(value)
    step = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    bound = exact.quantize(step, rounding=rounding)
    nearer = bound - step if rounding == ROUND_CEILING else bound + step
    return value if float(nearer) == value else float(bound)


def sum_up(values: Iterable[float]) -> float:
    """The smallest double at or above the exact (rational) sum of ``values``: ``math.fsum`` rounds to nearest,
    which may lie below it (0.1 + 0.4 gives 0.5, under the sum of those doubles), and a bound must not."""
    values = list(values)
    total = math.fsum(values)
    below = Fraction(total) < sum(map(Fraction, values), Fraction(0))
    return math.nextafter(total, math.inf) if below else total


def fmt_level(level: float) -> str:
    """A confidence level as ``1 − 2.5e-7`` (its distance from 1, which a reader compares with α, rounded up so the
    level never reads higher than it is), not ``0.99999975``; a level below 0.99 as it is."""
    level = float(level)
    if not 0.99 <= level < 1:
        return f"{level:.8g}"
    gap = float(f"{1 - level:.6g}")  # 1 − 0.99999975 is 2.5000000002e-7 in binary: not a reason to say 2.6e-7
    mantissa, _, exponent = f"{round_up(gap):.2g}".partition("e")
    return f"1 − {mantissa}e{int(exponent)}" if exponent else f"1 − {mantissa}"
