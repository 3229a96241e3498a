"""Numbers as a report states them, where the rounding direction matters: bounds rounded *up* (a certified δ̄ never
reads smaller than the evidence supports) and confidence levels as their distance from 1.  No plotting imports:
the terminal's text uses them too."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction


def round_up(value: float, digits: int = 2) -> float:
    """``value`` rounded up to ``digits`` significant digits (0 stays 0): never below ``value``."""
    if value <= 0:
        return 0.0
    exponent = math.floor(math.log10(value)) - digits + 1
    mantissa = math.ceil(value / 10.0**exponent)
    rounded = float(f"{mantissa}e{exponent}")
    return rounded if rounded >= value else float(f"{mantissa + 1}e{exponent}")


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
