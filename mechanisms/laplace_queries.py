"""The Laplace mechanism's mean and histogram queries, and the exact privacy profile of a two-coordinate release.

Neighbouring relation: add/remove one individual (one row), as for the sum and the count of
:mod:`pdp_audit.mechanisms.laplace`.

**Mean, released jointly as (noisy L1-clipped sum, noisy count).**  With rows clipped to L1 norm C and a share
w ∈ (0, 1) of the budget ε spent on the sum, the release is

    o = (S(D) + b_s·Lap(0, 1)^d,  n(D) + b_c·Lap(0, 1)),   b_s = C/(w ε),  b_c = 1/((1 − w) ε),

and the mean is their ratio o_S/o_n, computed from the release alone (post-processing: Dwork & Roth 2014,
Proposition 2.1), so it is as private as the release.  *Proof of (ε, 0)-DP.*  Adding or removing a row z changes the
sum by Δ_S = ±clip(z), ‖Δ_S‖_1 ≤ C, and the count by ±1.  The coordinates are independent, so the privacy loss is
the sum of the coordinates' losses, L(o) = Σ_i (|o_i − Q(D')_i| − |o_i − Q(D)_i|)/b_i, and by the triangle
inequality

    |L(o)| ≤ ‖Δ_S‖_1/b_s + 1/b_c ≤ C/b_s + 1/b_c = w ε + (1 − w) ε = ε

for every release: the pure-DP argument of :mod:`pdp_audit.mechanisms.laplace` (P_D(S) ≤ e^ε P_D'(S) for every
event S, both ways).  An individual z has the pure pDP ε_z = ‖clip(z)‖_1/b_s + 1/b_c ≤ ε.

**Histogram.**  The counts of one column's values over K public bins [e_0, e_1), …, [e_{K−1}, e_K] (values below
e_0 counted in the first bin, values at or above e_K in the last: the edges never depend on the data), plus
b·Lap(0, 1) on each of the K counts.  Adding or removing a row changes exactly one count by 1: the L1 sensitivity
is 1, so b = 1/ε gives |L(o)| ≤ 1/b = ε for every release (same proof) and every individual's pDP is ε_z = ε.

**Exact profile of two coordinates** (the mean's worst pair: all of C on one sum coordinate, and the count).  With
η_1 = |Δ_1|/b_1, η_2 = |Δ_2|/b_2 and scale-free losses L = L_1 + L_2, independent, δ(ε) = E_D[(1 − e^{ε−L})₊]
= E_{L_2}[g_{η_1}(ε − L_2)], where g_η(t) = E_D[(1 − e^{t−L_1})₊] is the one-coordinate profile extended to every
real t:

    g_η(t) = 1 − e^t (t ≤ −η),   1 − e^{(t−η)/2} (|t| < η),   0 (t ≥ η)

(t ≤ −η: L_1 ≥ −η ≥ t always, and E_D[e^{−L_1}] = 1; |t| < η: the derivation of
:mod:`pdp_audit.mechanisms.laplace` holds unchanged for negative t).  Under D, L_2 has atoms at η_2 (probability 1/2)
and −η_2 (e^{−η_2}/2) and density e^{−(η_2 − l)/2}/4 on (−η_2, η_2) (L_2 = η_2 − 2o for o ∈ (0, η_2)), so

    δ(ε) = g_{η_1}(ε − η_2)/2 + e^{−η_2} g_{η_1}(ε + η_2)/2 + ∫_{−η_2}^{η_2} g_{η_1}(ε − l) e^{−(η_2 − l)/2}/4 dl,

the integral in closed form: split at the kinks l = ε ∓ η_1, each piece of its integrand is a sum of exponentials
in l (:func:`two_coordinate_delta`, in interval arithmetic and rounded up; scipy's quadrature of it,
:func:`quadrature_delta`, is the cross-check).  The reverse direction has the same profile (each coordinate's pair
is its own mirror image).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from pdp_audit.mechanisms.base import RegisteredMechanism
from pdp_audit.mechanisms.laplace import L1Query, LaplaceMechanism, clip_rows_l1, scale_within
from pdp_audit.verify.inputs.validation import InputError, nonnegative, positive


def mean_scales(epsilon: float, clip: float, split: float, dimension: int) -> np.ndarray:
    """The per-coordinate scales (b_s on the d sum coordinates, b_c on the count) of the mean's joint release:
    b_s = C/(w ε), b_c = 1/((1 − w) ε) (module notes: |L| ≤ w ε + (1 − w) ε = ε)."""
    epsilon, clip = positive("epsilon", epsilon), positive("clip", clip)
    if not 0 < split < 1:
        raise InputError(f"split must be in (0, 1), got {split}")
    shares = Fraction(split) * Fraction(epsilon), (1 - Fraction(split)) * Fraction(epsilon)  # exact: Σ = ε
    return np.array([scale_within(clip, shares[0])] * int(dimension) + [scale_within(1.0, shares[1])])


@dataclass(frozen=True)
class MeanQuery:
    """The mean's joint release before noise: (sum of rows clipped to L1 norm ``clip``, count of rows)."""

    clip: float = 1.0

    def __call__(self, data: np.ndarray) -> np.ndarray:
        data = np.atleast_2d(np.asarray(data, dtype=float))
        total = clip_rows_l1(data, self.clip).sum(axis=0) if len(data) else np.zeros(data.shape[1])
        return np.concatenate([total, [float(len(data))]])

    def per_instance_bounds(self, data: np.ndarray, scales: np.ndarray) -> np.ndarray:
        """ε_z = ‖clip(z)‖_1/b_s + 1/b_c for every row z of ``data`` (removing z, or adding a copy of it)."""
        sums = L1Query("sum", self.clip).per_instance_sensitivities(data)
        return sums / scales[0] + 1.0 / scales[-1]


@dataclass(frozen=True)
class HistogramQuery:
    """Counts of column ``column``'s values over the public bins of ``edges`` (K + 1 increasing edges; values
    outside the edges counted in the end bins).  L1 sensitivity 1 under add/remove."""

    column: int
    edges: tuple[float, ...]

    def __post_init__(self) -> None:
        edges = np.asarray(self.edges, dtype=float)
        if edges.ndim != 1 or edges.size < 2 or not np.all(np.diff(edges) > 0):
            raise InputError("histogram edges must be at least two increasing numbers")

    @property
    def sensitivity(self) -> float:
        return 1.0

    def bins_of(self, values: np.ndarray) -> np.ndarray:
        """The bin of each value: inner edges split the line, so the end bins take what lies beyond the edges."""
        return np.searchsorted(np.asarray(self.edges[1:-1]), np.asarray(values, dtype=float), side="right")

    def __call__(self, data: np.ndarray) -> np.ndarray:
        data = np.atleast_2d(np.asarray(data, dtype=float))
        bins = self.bins_of(data[:, self.column]) if len(data) else np.zeros(0, dtype=int)
        return np.bincount(bins, minlength=len(self.edges) - 1).astype(float)

    def per_instance_sensitivities(self, data: np.ndarray) -> np.ndarray:
        """‖Δ_z‖_1 = 1 for every row: a row moves exactly one count by one."""
        return np.ones(len(np.atleast_2d(data)))


def extended_delta(t: float, eta: float) -> float:
    """g_η(t) = E_D[(1 − e^{t−L})₊] of one Laplace coordinate with loss bound η, for every real t (module notes)."""
    if eta <= 0:
        return max(0.0, -math.expm1(t))
    if t >= eta:
        return 0.0
    if t <= -eta:
        return -math.expm1(t)
    return -math.expm1((t - eta) / 2)


def two_coordinate_delta(epsilon: float, eta_1: float | Fraction, eta_2: float | Fraction) -> float:
    """δ(ε) of a Laplace release whose pair differs on two coordinates with loss bounds η_1, η_2 (module notes),
    rounded up to a double; δ = 0 for ε ≥ η_1 + η_2 (decided in rationals).

    The closed form: δ = atoms + ∫_{−η_2}^{η_2} g_{η_1}(ε − l) e^{(l − η_2)/2}/4 dl, where on each piece of g the
    integrand is a sum of exponentials in l (:func:`_piece`).  *Sound for* the inputs taken exactly (each double or
    Fraction as the rational it is): evaluated in mpmath's interval arithmetic at 256 bits, whose enclosure's upper
    end is rounded up -- not scipy's quadrature (epsrel 1e-13, neither proven nor rounded up)."""
    return two_coordinate_delta_bounds(epsilon, eta_1, eta_2)[1]


def two_coordinate_delta_bounds(
    epsilon: float | Fraction, eta_1: float | Fraction, eta_2: float | Fraction
) -> tuple[float, float]:
    """Doubles (low, high) with low ≤ δ(ε) ≤ high for :func:`two_coordinate_delta`'s δ(ε), both in [0, 1]: the
    ends of its 256-bit interval enclosure rounded outward.  η_2 = 0 is one coordinate: δ(ε) = g_{η_1}(ε).
    *Sound for* the inputs taken exactly, as :func:`two_coordinate_delta`."""
    e = epsilon if isinstance(epsilon, Fraction) else Fraction(float(epsilon))
    h1, h2 = _exact("eta_1", eta_1), _exact("eta_2", eta_2)
    if e >= h1 + h2:
        return 0.0, 0.0
    iv, before = mpmath.iv, mpmath.iv.prec
    iv.prec = 256  # the interval context has no workprec; restored below
    try:
        g = extended_delta_interval
        atoms = (g(e - h2, h1) + iv.exp(-_interval(h2)) * g(e + h2, h1)) / 2
        kinks = sorted(k for k in (e - h1, e + h1) if -h2 < k < h2)
        edges = [-h2, *kinks, h2]
        middle = sum((_piece(a, b, e, h1, h2) for a, b in zip(edges, edges[1:]) if a < b), _interval(Fraction(0)))
        enclosure = atoms + middle
        bottom, top = enclosure.a, enclosure.b
    finally:
        iv.prec = before
    low, high = float(bottom), float(top)
    low = low if mpmath.mpf(low) <= bottom else math.nextafter(low, -math.inf)
    high = high if mpmath.mpf(high) >= top else math.nextafter(high, math.inf)
    return min(1.0, max(0.0, low)), min(1.0, max(0.0, high))


def _exact(name: str, eta: float | Fraction) -> Fraction:
    return eta if isinstance(eta, Fraction) and eta >= 0 else Fraction(nonnegative(name, float(eta)))


def _interval(value: Fraction):
    """The rational ``value`` as a mpmath interval enclosing it (at the working precision)."""
    return mpmath.iv.mpf(value.numerator) / value.denominator


def extended_delta_interval(t: Fraction, eta: Fraction):
    """g_η(t) of :func:`extended_delta` as a mpmath interval enclosing it at the working precision (t and η ≥ 0
    rationals, taken exactly); the piece is chosen in rationals."""
    iv = mpmath.iv
    if t >= eta:
        return _interval(Fraction(0))
    if t <= -eta:
        return 1 - iv.exp(_interval(t))
    return 1 - iv.exp(_interval(t - eta) / 2)


def _piece(a: Fraction, b: Fraction, e: Fraction, h1: Fraction, h2: Fraction):
    """∫_a^b g_{η_1}(ε − l) e^{(l − η_2)/2}/4 dl on [a, b] inside one piece of g (chosen at the midpoint, in
    rationals): 0 where ε − l ≥ η_1; [2(e^{(b−η_2)/2} − e^{(a−η_2)/2}) − (b − a) e^{(ε−η_1−η_2)/2}]/4 where
    |ε − l| < η_1; [2(e^{(b−η_2)/2} − e^{(a−η_2)/2}) + 2(e^{ε−η_2/2−b/2} − e^{ε−η_2/2−a/2})]/4 where ε − l ≤ −η_1."""
    iv = mpmath.iv
    t = e - (a + b) / 2
    if t >= h1:
        return _interval(Fraction(0))
    rise = 2 * (iv.exp(_interval(b - h2) / 2) - iv.exp(_interval(a - h2) / 2))
    if t > -h1:
        return (rise - _interval(b - a) * iv.exp(_interval(e - h1 - h2) / 2)) / 4
    fall = 2 * (iv.exp(_interval(e - h2 / 2 - b / 2)) - iv.exp(_interval(e - h2 / 2 - a / 2)))
    return (rise + fall) / 4


def quadrature_delta(epsilon: float, eta_1: float, eta_2: float) -> float:
    """δ(ε) of :func:`two_coordinate_delta` by scipy's quadrature of the same integral, in floats (epsrel 1e-13, not
    proven): the cross-check of the closed form."""
    from scipy import integrate

    epsilon = float(epsilon)
    atoms = extended_delta(epsilon - eta_2, eta_1) / 2 + math.exp(-eta_2) * extended_delta(epsilon + eta_2, eta_1) / 2
    if eta_2 == 0 or epsilon >= eta_1 + eta_2:
        return max(0.0, atoms) if epsilon < eta_1 + eta_2 else 0.0
    kinks = sorted(k for k in (epsilon - eta_1, epsilon + eta_1) if -eta_2 < k < eta_2)
    edges = [-eta_2, *kinks, eta_2]

    def integrand(loss: float) -> float:
        return extended_delta(epsilon - loss, eta_1) * math.exp(-(eta_2 - loss) / 2) / 4

    middle = sum(integrate.quad(integrand, a, b, epsabs=1e-15, epsrel=1e-13)[0] for a, b in zip(edges, edges[1:]))
    return max(0.0, atoms + middle)


def two_coordinate_epsilon(delta: float, eta_1: float, eta_2: float) -> float:
    """Smallest ε ≥ 0 with ``two_coordinate_delta(ε, η_1, η_2) ≤ δ`` (δ(ε) decreases continuously to 0 at
    ε = η_1 + η_2; found by bisection to 1e-12 relative)."""
    from scipy import optimize

    top = eta_1 + eta_2
    if delta <= 0 or top == 0:
        return top
    if two_coordinate_delta(0.0, eta_1, eta_2) <= delta:
        return 0.0
    return float(optimize.brentq(lambda e: two_coordinate_delta(e, eta_1, eta_2) - delta, 0.0, top, xtol=1e-14 * top))


def _example_pairs(rng: np.random.Generator) -> list:
    data = rng.normal(size=(30, 2)) * 0.4
    scales = mean_scales(1.0, 1.0, 0.5, 2)
    mean = LaplaceMechanism(MeanQuery(1.0), tuple(scales))
    histogram = LaplaceMechanism(HistogramQuery(1, (-1.0, -0.5, 0.0, 0.5, 1.0)), scale=1.0)
    return [
        mean.pair(data, np.array([2.0, 0.0]), "add"),  # clipped onto one coordinate: the worst pair
        mean.pair(data, data[3], "remove"),
        histogram.pair(data, data[0], "remove"),
        histogram.pair(data, np.array([0.0, 7.0]), "add"),  # beyond the last edge: counted in the last bin
    ]


LAPLACE_QUERIES = RegisteredMechanism(
    name="laplace-mean-histogram",
    description="Laplace mechanism on a mean (noisy sum and count) or a histogram, pure (ε, 0)-DP",
    example_pairs=_example_pairs,
)
