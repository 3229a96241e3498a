"""Proven rounding bounds of the replay's readings (:mod:`.trace`): how far a coordinate's computed response to a
shift of its noise, and a shift read off two computed releases, can fall from their exact values.

The model (what the bounds are proven for): a release coordinate is c + a·(loc + η) in exact arithmetic, where η is
one noise element, loc its call's location, a the coefficient and c the rest; the program computes it by at most
:data:`NOISE_OPERATIONS` rounded float64 operations after the noise, each on an intermediate whose share of the
coordinate is at most |a|·(|loc| + |η|) + |coordinate| (nothing cancels after the noise is added).  A program outside
the model (a constant added and taken away again around the noise) may show a rounding beyond the bound: the readings
then say that a coefficient moved -- a finding for the black box, never a certificate.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pdp_audit.mechanisms.rounding import UNIT_ROUNDOFF, gamma

#: Rounded operations from a noise element to a release coordinate in the model :func:`response_bound` is proven for:
#: the replay's shift η + s, the call's location, and the program's own (a coefficient, a sum, a constant, a mean's
#: division) -- a coordinate computed by more may read a rounding as a moved coefficient: a finding, never a pass.
NOISE_OPERATIONS = 16
#: Rounded operations of the comparison itself: the response's subtraction, the two responses' difference, and the
#: bound's own evaluation (a sum of at most four terms and two products).
COMPARISON_OPERATIONS = 8


#: γ_{K+8} of the bounds below (:data:`NOISE_OPERATIONS` + :data:`COMPARISON_OPERATIONS`): the same double each time.
_BOUND = gamma(NOISE_OPERATIONS + COMPARISON_OPERATIONS)


def response_bound(shifted: np.ndarray, base: np.ndarray, response: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """A proven bound on |Δ̂ − a·s|: the rounding error of a coordinate's computed response Δ̂ = fl(R̂(η + s) −
    R̂(η)) to a shift s of its noise element (``shifted`` R̂(η + s), ``base`` R̂(η), ``weight`` |a|·(|loc| + |η| +
    |s|)), in the model of the module notes.

    *Derivation.*  The coordinate is c + a·(loc + η + s) in exact arithmetic; the program forms it by at most
    K = :data:`NOISE_OPERATIONS` rounded operations after the noise, each on an intermediate whose contribution to
    the coordinate is at most T(s) = |a|·(|loc| + |η + s|) + |R̂(η + s)| (the terms before the coefficient, and the
    sums after it, which the computed coordinate bounds where nothing cancels).  By the standard model (Higham 2002,
    §2.2) and Lemma 3.1 there, R̂(η + s) = c + a·s + E(s), |E(s)| ≤ γ_K·T(s), γ_n = nu/(1 − nu).  The response's
    subtraction adds one rounding: Δ̂ = (a·s + E(s) − E(0))(1 + θ), |θ| ≤ u, so |Δ̂ − a·s| ≤ γ_K·(T(s) + T(0)) +
    γ_1·|Δ̂|.  Both T are at most ``weight`` + the computed |R̂| (|η + s| ≤ |η| + |s|); the bound's own evaluation
    in float64 (:data:`COMPARISON_OPERATIONS` more roundings) is covered by γ_{K+8} ≥ γ_K(1 + γ_8) (Lemma 3.3).
    Two responses of one coefficient, on D and on D′, so differ by at most the sum of their bounds."""
    with np.errstate(all="ignore"):
        return _BOUND * (2 * weight + np.abs(shifted) + np.abs(base) + np.abs(response))


def shift_bound(releases: Any, shift: Any, coefficient: Any, weight: Any, error: Any) -> Any:
    """A proven bound on the rounding error of a shift read from a carried coordinate, ŝ = fl(fl(R̂′ − R̂)/â)
    (``releases`` (R̂, R̂′), ``shift`` ŝ, the coordinate's ``coefficient`` â, its ``weight`` |a|·(|loc| + |η| + w)
    and its coefficient's relative ``error`` ρ, :func:`.trace.coefficient_error`).

    *Derivation* (the model of :func:`response_bound`).  R̂ = c + a·(loc + η) + E and R̂′ = c′ + a·(loc′ + η) + E′
    with |E| ≤ γ_K·T, |E′| ≤ γ_K·T′ (T, T′ at most ``weight`` + |R̂|, ``weight`` + |R̂′|), so the subtraction, with
    its own rounding, gives a·s to within γ_K·(T + T′) + γ_1·|R̂′ − R̂|.  Dividing by â = a(1 + ρ′), |ρ′| ≤ ρ, and
    rounding once more: |ŝ − s| ≤ (γ_K·(T + T′) + γ_1·|R̂′ − R̂|)/|â|·(1 + ρ)(1 + u) + |ŝ|·(ρ + u)/(1 − ρ), within
    γ_{K+8} of the evaluation (Higham 2002, Lemma 3.3).  Numbers or arrays alike."""
    before, after = releases
    with np.errstate(all="ignore"):
        difference = np.abs(np.subtract(after, before))
        read = _BOUND * (2 * np.asarray(weight) + np.abs(before) + np.abs(after) + difference) / np.abs(coefficient)
        relative = (np.asarray(error) + _BOUND) / (1 - np.minimum(error, 0.5))
        return read * (1 + np.asarray(error)) * (1 + _BOUND) + np.abs(shift) * relative


def shift_bound_of_floats(
    releases: tuple[float, float], shift: float, coefficient: float, weight: float, error: float
) -> float:
    """:func:`shift_bound` of one coordinate in Python floats (numpy's fixed cost per call is many times the
    formula's): the same double, by the same IEEE operations in the same order, a division by 0 read as numpy reads
    it (±∞, NaN for 0/0)."""
    before, after = releases
    numerator = _BOUND * (2 * weight + abs(before) + abs(after) + abs(after - before))
    magnitude = abs(coefficient)
    if magnitude:
        read = numerator / magnitude
    else:
        read = math.nan if numerator == 0 or math.isnan(numerator) else math.copysign(math.inf, numerator)
    relative = (error + _BOUND) / (1 - min(error, 0.5))
    return read * (1 + error) * (1 + _BOUND) + abs(shift) * relative


def offset_shift_bound(
    releases: Any, quotient: Any, read_noise: Any, shift: Any, coefficient: Any, weight: Any, error: Any
) -> Any:
    """A proven bound on |ŝ − Δ| for a shift read at an offset t of the noise (:mod:`.through`'s reading): R̂ =
    R(D; η) and R̂′ = R(D′; fl(η + t)) (``releases``) on one piece of slope a of one map, ``quotient``
    q = fl(fl(R̂′ − R̂)/â), ``read_noise`` fl(η + t) (what D′'s program read), ``shift`` ŝ = fl(q − t), the
    coordinate's ``coefficient`` â, ``weight`` |a|·(|loc| + |η| + |t|) and the coefficient's relative ``error`` ρ.

    *Derivation* (the model of :func:`response_bound`).  Exactly, R′ − R = a·(Δ + fl(η + t) − η), so
    Δ = (R′ − R)/a − t − r with |r| = |fl(η + t) − (η + t)| ≤ u·|fl(η + t)|.  q is (R′ − R)/a within
    :func:`shift_bound` (of the shift q), and ŝ = fl(q − t) adds u·|ŝ|: |ŝ − Δ| ≤ shift_bound + u·|fl(η + t)| +
    u·|ŝ|, the sum's own evaluation covered by the factor 1 + γ_8 (Higham 2002, Lemma 3.3).  Numbers or arrays."""
    read = shift_bound(releases, quotient, coefficient, weight, error)
    with np.errstate(all="ignore"):
        return (read + UNIT_ROUNDOFF * (np.abs(read_noise) + np.abs(shift))) * (1 + gamma(8))


def map_bound(values: tuple[Any, Any], slope: Any, sizes: Any, mismatch: Any) -> Any:
    """A proven bound on |R̂′ − R̂| where R̂ = R(D; u) and R̂′ = R(D′; u′) (``values``) are one coordinate of one map g
    (the same post-processing on D and D′) at noisy values within ``mismatch`` m of each other, on one piece of g of
    slope at most ``slope`` A in the noise, ``sizes`` the magnitudes |loc| + |u| + |loc′| + |u′| of the two noisy
    values' parts (:mod:`.same_map`).

    *Derivation* (the model of :func:`response_bound`).  On the piece, g's coordinate is c + a·(loc + η) exactly with
    |a| ≤ A, so the exact values differ by at most A·m; each computed one is within γ_K·T of its exact value, T at most
    A·(|loc| + |η|) + |R̂| (Higham 2002, §2.2, Lemma 3.1), and the subtraction rounds once more (u·|R̂′ − R̂|): |R̂′ −
    R̂| ≤ γ_K·(A·sizes + |R̂| + |R̂′|) + u·|R̂′ − R̂| + A·m, the bound's own evaluation (:data:`COMPARISON_OPERATIONS`)
    covered by γ_{K+8} and a factor 1 + γ_8 on A·m.  Numbers or arrays."""
    before, after = values
    g = _BOUND
    with np.errstate(all="ignore"):
        rounding = g * (np.asarray(slope) * sizes + np.abs(before) + np.abs(after) + np.abs(np.subtract(after, before)))
        return rounding + np.asarray(slope) * mismatch * (1 + gamma(8))


def difference_bound(releases: Any, differences: Any, weight: Any) -> Any:
    """A proven bound on |Δ̂_d − Δ̂_e|, where Δ̂_z = fl(R̂(D′; z) − R̂(D; z)) is a coordinate's difference between D
    and D′ at draw set z (``releases`` (R̂_d, R̂′_d, R̂_e, R̂′_e), ``differences`` (Δ̂_d, Δ̂_e), ``weight``
    |a|·(|loc| + |η| + w), the largest over the four runs), where the program takes one path at both draw sets.

    *Derivation* (the model of :func:`response_bound`).  On one path the coordinate is c + a·(loc + η) in exact
    arithmetic, c and loc set by the data, a and the path by neither: R(D′; z) − R(D; z) = (c′ − c) + a·(loc′ − loc)
    at every draw z.  Each computed release is its exact value within γ_K·T, T at most ``weight`` + |R̂|; each
    subtraction adds one rounding, u·|Δ̂|.  So |Δ̂_d − Δ̂_e| ≤ γ_K·(4·weight + Σ|R̂|) + u·(|Δ̂_d| + |Δ̂_e|), and the
    comparison's own evaluation (:data:`COMPARISON_OPERATIONS`) is covered by γ_{K+8} (Higham 2002, Lemma 3.3).
    Numbers or arrays alike."""
    with np.errstate(all="ignore"):
        magnitude = sum(np.abs(r) for r in releases) + np.abs(differences[0]) + np.abs(differences[1])
        return _BOUND * (4 * np.asarray(weight) + magnitude)
