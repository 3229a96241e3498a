"""The neighbour relations of the black box's search (:mod:`pdp_audit.audits.blackbox.search`) and of the pair a
searched witness stores: parsed from ``--neighbours`` and checked on a pair, with no attack imported (a witness
file is read and refused before the audit's process starts: :mod:`pdp_audit.audits.blackbox.witness_file`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.inputs.validation import InputError

#: The neighbour relations: replace-one, add-remove (rows); l1:R, linf:R (a vector of query answers).
RELATIONS = ("replace-one", "add-remove", "l1", "linf")
#: The largest radius R of ``l1:R`` and ``linf:R``: the search's candidates reach 3R (answers up to 2R moved by up to
#: R: :func:`~pdp_audit.audits.blackbox.search.random_pair`,
#: :func:`~pdp_audit.audits.blackbox.search.optuna_candidates`), which must stay a finite double (below 1.8e308), or
#: the search would hand the mechanism infinite answers of its own making.
LARGEST_RADIUS = 1e307


@dataclass(frozen=True)
class Neighbours:
    """A neighbour relation: ``kind`` in :data:`RELATIONS`, ``radius`` R for the ℓ1 / ℓ∞ balls (each answer moves by
    at most R under ``linf``, the answers by at most R in total under ``l1``)."""

    kind: str
    radius: float = 1.0

    @classmethod
    def parse(cls, text: str) -> Neighbours:
        """``replace-one``, ``add-remove``, ``l1:R`` or ``linf:R`` (0 < R ≤ :data:`LARGEST_RADIUS`); InputError
        otherwise, before any candidate is made."""
        kind, _, radius = str(text).partition(":")
        if kind in ("replace-one", "add-remove") and not radius:
            return cls(kind)
        valid = f"replace-one, add-remove, l1:R or linf:R with 0 < R ≤ {LARGEST_RADIUS:g}"
        if kind in ("l1", "linf"):
            try:
                value = float(radius)
            except ValueError:
                value = math.nan
            if LARGEST_RADIUS < value < math.inf:
                raise InputError(
                    f"neighbours must be {valid} (the search's candidates reach 3R, which must stay a finite "
                    f"double), got {text!r}"
                )
            if math.isfinite(value) and value > 0:
                return cls(kind, value)
        raise InputError(f"neighbours must be {valid}, got {text!r}")

    def __str__(self) -> str:
        return self.kind if self.kind in ("replace-one", "add-remove") else f"{self.kind}:{self.radius:g}"

    def holds(self, d: np.ndarray, dprime: np.ndarray) -> bool:
        """Whether (d, d') are neighbours (a tolerance of 1e-9·R for the balls' floating-point edges)."""
        if self.kind == "add-remove":
            return abs(d.size - dprime.size) == 1 and _is_sub(d, dprime)
        if d.size != dprime.size:
            return False
        with np.errstate(over="ignore", invalid="ignore"):  # 1e308 - (-1e308) is inf: no neighbour, no warning
            diff = np.abs(d - dprime)
        if self.kind == "replace-one":
            return int(np.count_nonzero(diff)) <= 1
        size = diff.max(initial=0.0) if self.kind == "linf" else diff.sum()
        return bool(size <= self.radius * (1 + 1e-9))


def _is_sub(a: np.ndarray, b: np.ndarray) -> bool:
    """The smaller multiset of rows is the larger with one row removed: sorted, they agree up to the first place
    they differ, and past it the larger runs one ahead (O(n log n); trying every removal was O(n²))."""
    small, large = sorted((np.sort(a), np.sort(b)), key=len)
    if large.size != small.size + 1:
        return False
    differ = np.flatnonzero(large[:-1] != small)
    i = int(differ[0]) if differ.size else small.size
    return bool(np.array_equal(large[:i], small[:i]) and np.array_equal(large[i + 1 :], small[i:]))
