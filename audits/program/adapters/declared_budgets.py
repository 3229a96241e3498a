"""The step of a library mechanism known by the budget it declares: diffprivlib's mechanisms without an exact law here
(:mod:`.diffprivlib_mechanisms`) and PyDP's (:mod:`.pydp_mechanisms`: pipeline-dp's noise and partition selection).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from pdp_audit.audits.program import step_laws
from pdp_audit.audits.program.adapters.base import Stepped
from pdp_audit.audits.program.events import Event, Mechanism, input_of
from pdp_audit.audits.program.findings import Unaccounted


def declared_step(k: int, call: Mechanism, other: Event, linear: bool = False, porous: bool = False) -> Stepped:
    """A mechanism known by its budget: its declared (ε, δ) where the input moved by at most the declared
    sensitivity (``linear``: a post-processing of Laplace or geometric noise, whose loss scales linearly with the
    input's shift -- a shift below the declared sensitivity spends that share of ε), else a problem to report
    (``porous``: it adds continuous float noise, porous as numpy's float samplers are, issue 60).  The move
    is the input's L1 distance, or for a selecting mechanism (``Exponential``, ``PermuteAndFlip``: its input the
    utility of each candidate) the largest move of one candidate's utility, as its sensitivity is defined (McSherry
    & Talwar 2007; a ``monotonic`` one's utilities all moving one way), its candidates and base measure unmoved."""
    epsilon, delta, sensitivity = (call.declared.get(key) for key in ("epsilon", "delta", "sensitivity"))
    selecting = call.selecting is not None
    try:
        before = np.asarray(call.input, dtype=float)
        after = np.asarray(input_of(other), dtype=float)
        difference = np.abs(after - before) if before.shape == after.shape else np.array([math.inf])
        shift = float(difference.max(initial=0.0) if selecting else difference.sum())
    except (TypeError, ValueError):
        return None, Unaccounted(k, call.name, "its input cannot be compared")
    problem = _selection_moved(k, call, other, before, after) if selecting else None
    if problem is not None:
        return None, problem
    if shift == 0 or np.isnan(shift) and np.array_equal(before, after, equal_nan=True):
        return None, None
    if not math.isfinite(shift):  # an input turned NaN or infinite: beyond any declared sensitivity
        return None, Unaccounted(k, call.name, f"its input moved to or from a non-finite value ({shift:.6g})", 1.0)
    if epsilon is None or sensitivity is None:
        return None, Unaccounted(k, call.name, f"its input moved ({shift:.6g}) and its budget is not declared")
    # the input's move in rationals (L1, or a selection's largest): compared with no margin
    moved = exact_largest(before, after) if selecting else exact_distance(before, after)
    if moved > Fraction(float(sensitivity)):
        excess = float(moved - Fraction(float(sensitivity)))
        shown, declared = f"{shift:.6g}", f"{float(sensitivity):.6g}"
        if shown == declared:  # above by less than the display shows (a float sum's rounding): the excess itself
            shown = f"{declared} + {excess:.3g}"
        why = f"its input moved by {shown} > its declared sensitivity {declared}"
        return None, Unaccounted(k, call.name, why, excess / (1.0 + excess))
    linear = linear and bool(sensitivity)
    share = moved / Fraction(float(sensitivity)) if linear else Fraction(1)
    spent = Fraction(float(epsilon)) * share
    step = step_laws.Declared(
        call=k, label=call.name, epsilon=float(spent), delta=float(delta or 0.0), porous=porous, within=(spent, spent)
    )
    return step, None


def _selection_moved(
    k: int, call: Mechanism, other: Event, before: np.ndarray, after: np.ndarray
) -> Unaccounted | None:
    """A selecting mechanism whose candidates or base measure moved, or whose monotonic utilities moved both ways:
    its declared budget does not cover the pair (a problem to report), else None."""
    was = call.selecting or {}
    now = (other.selecting if isinstance(other, Mechanism) else None) or {}
    for key in ("candidates", "measure"):
        if not _equal(was.get(key), now.get(key)):
            return Unaccounted(k, call.name, f"its {key} moved with the data")
    if was.get("monotonic") and before.shape == after.shape and (after > before).any() and (after < before).any():
        return Unaccounted(k, call.name, "its monotonic utilities moved both ways")
    return None


def _equal(a: Any, b: Any) -> bool:
    """Two candidate lists or base measures the same (None as None; numbers bitwise, NaN as NaN)."""
    if a is None or b is None:
        return a is b
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except TypeError:
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))


def exact_largest(before: np.ndarray, after: np.ndarray) -> Fraction:
    """max |after − before| of two float arrays of one shape, in rationals."""
    pairs = zip(after.ravel().tolist(), before.ravel().tolist())
    return max((abs(Fraction(a) - Fraction(b)) for a, b in pairs), default=Fraction(0))


def exact_distance(before: np.ndarray, after: np.ndarray) -> Fraction:
    """Σ|after − before| of two float arrays of one shape, in rationals (each double an exact rational)."""
    return sum(
        (abs(Fraction(a) - Fraction(b)) for a, b in zip(after.ravel().tolist(), before.ravel().tolist())), Fraction(0)
    )
