"""The report's rounding is conservative over every double (:func:`pdp_audit.reports.numbers.round_up`,
:func:`~pdp_audit.reports.numbers.round_down`): a bound rounded up is never below the value, a lower end rounded
down never above it, and so are their texts at the digits stated (read back as doubles: the double 1.2e-5 is
stated "1.2e-05") -- from denormals to the largest double.  Before, both raised on denormals (10.0**e was 0), on +∞
and on NaN with an arithmetic error, the lower end of a negative value rounded *up* to 0, and 0.3 rounded down to
0.299; a claim check whose upper end was NaN ended the run in that error."""

from __future__ import annotations

import math
import sys
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdp_audit.reports.certified_claim import certified_claim
from pdp_audit.reports.numbers import round_down, round_up
from pdp_audit.reports.records import Check
from pdp_audit.verify.core.checks import make_run

FINITE = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)
DIGITS = st.sampled_from([2, 3])
TINY = sys.float_info.min  # the smallest normal double


def _text(value: float, digits: int) -> float:
    """``value`` as a report prints it (``:.{digits}g``), read back."""
    return float(f"{value:.{digits}g}")


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(value=FINITE.filter(lambda v: v > 0), digits=DIGITS)
def test_round_up_is_never_below_the_value_nor_is_its_text(value, digits):
    rounded = round_up(value, digits)
    assert rounded >= value and _text(rounded, digits) >= value
    if math.isfinite(rounded) and value >= TINY:  # and it is the next decimal of that many digits, not any above
        assert Decimal(rounded) <= Decimal(value) * (1 + Decimal(10) ** (1 - digits)) * (1 + Decimal(2) ** -52)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(value=FINITE, digits=DIGITS)
def test_round_down_is_never_above_the_value_nor_is_its_text(value, digits):
    rounded = round_down(value, digits)
    assert rounded <= value and _text(rounded, digits) <= value
    if abs(value) >= TINY and math.isfinite(rounded):
        assert abs(Decimal(rounded) - Decimal(value)) <= abs(Decimal(value)) * Decimal(10) ** (1 - digits)


@pytest.mark.parametrize("digits", [2, 3])
def test_the_ends_of_the_range(digits):
    smallest = 5e-324  # the smallest denormal
    assert round_up(smallest, digits) == smallest == round_down(smallest, digits)
    assert round_up(1.234e-310, digits) == (1.3e-310 if digits == 2 else 1.24e-310)  # a denormal
    assert round_up(TINY, digits) == (2.3e-308 if digits == 2 else 2.23e-308)
    assert round_up(1.2e-5) == 1.2e-5 and round_down(0.3) == 0.3 and round_up(0.9, 3) == 0.9
    assert round_up(math.inf, digits) == math.inf and round_up(sys.float_info.max, digits) == math.inf
    assert round_up(0.0, digits) == 0.0 and round_up(-math.inf, digits) == 0.0 and round_up(-1.0, digits) == 0.0
    assert round_down(-smallest, digits) == -smallest and round_down(-TINY, digits) == -round_up(TINY, digits)
    assert round_down(math.inf, digits) == math.inf and round_down(-math.inf, digits) == -math.inf
    assert round_down(-1.2345, digits) == (-1.24 if digits == 3 else -1.3)
    assert round_down(sys.float_info.max, digits) <= sys.float_info.max


@pytest.mark.parametrize("rounding", [round_up, round_down])
def test_nan_is_refused_by_name(rounding):
    """A NaN is no bound: a ValueError that names the function and the NaN, not an arithmetic error inside it."""
    with pytest.raises(ValueError, match=f"^{rounding.__name__} got NaN"):
        rounding(math.nan)


def _claim_checks(upper: float) -> list[Check]:
    return [
        Check(
            id,
            "t",
            "c",
            "f",
            "s",
            "inconclusive",
            estimate=1e-6,
            pvalue=1.0,
            ci=(0.0, upper if id == "dp-forward" else 2e-6),
            level=1 - 1e-6,
            details={"epsilon": 1.0, "delta_claim": 1e-5},
        )
        for id in ("dp-forward", "dp-reverse")
    ]


def test_a_nan_upper_end_bounds_nothing():
    """A claim check whose upper end is NaN: the claim is not decided (exit 3) and no δ is said to be supported --
    neither the run's end in round_up's error nor the other direction's 2e-6 taken for both."""
    run = make_run("toy", _claim_checks(math.nan), 1e-6, {"epsilon": 1.0, "delta": 1e-5}, 0)
    claim = certified_claim(run.checks)
    assert run.exit_code == 3 and claim is not None and not claim.covers_claim and claim.delta == 1.0
    assert "supports" not in claim.text()
