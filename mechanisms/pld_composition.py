"""δ(ε) of a T-fold composition from the per-step privacy-loss law, by FFT convolution on a grid, with certified
bounds on the discretisation and truncation errors.

The composed profile is δ_T(ε) = E[(1 − e^{ε − L_T})₊], L_T = ω₁ + … + ω_T the sum of T i.i.d. per-step losses ω
drawn in the direction's world (the privacy loss distribution, PLD; Koskela, Jälkö & Honkela 2020; Gopi, Lee &
Wutschitz 2021).  The integrand is increasing in every ω_i and in every partial sum, which makes each step below an
upper or a lower bound, never an approximation of unknown sign:

* **Grid and tails.**  ω is kept on [lo, hi] (grid points; outside, mass ≤ 1e-30 per side for an unbounded loss).
  For the *upper* bound, mass below lo is moved up to lo and mass above hi to +∞ (integrand 1); for the *lower*
  bound, mass below lo to −∞ (integrand 0) and mass above hi down to hi.
* **Mean-preserving rounding** (Gopi, Lee & Wutschitz 2021, §5).  Inside [lo, hi] each ω is rounded at random to
  one of its two neighbouring grid points ω_j, ω_j + h with conditional mean ω: the grid law puts
  m_j(1 − f_j) on ω_j and m_j f_j on ω_j + h, m_j the mass of (ω_j, ω_j + h] and
  f_j h m_j = E[(ω − ω_j)1{bin}] = ∫ (F(ω_j + h) − F(w)) dw over the bin (three-point Gauss–Legendre).  The
  rounding errors d_i ∈ [ω_j − ω, ω_j + h − ω] have conditional mean 0 and range h, so by Hoeffding's inequality
  P[Σd_i ≤ −t] ≤ η and P[Σd_i ≥ t] ≤ η for t = h√(T log(1/η)/2).  Hence, with δ̃ the grid profiles,

      δ̃_low(ε + t) − η ≤ δ_T(ε) ≤ δ̃_up(ε − t) + η.

* **Composition** by binary powering with real FFTs (:func:`full_convolution`); after each convolution the partial
  sum is cut where the mass beyond either end falls to 1e-14 (above the FFT round-off summed over a window), that mass
  moved as at the tails above (partial sums are monotone arguments of the integrand too): the window changes only
  how tight the bounds are, never their validity.  The +∞ mass of the upper bound grows with T (about T·1e-14).

* **Round-off of the composition.**  Each grid law carries ``roundoff``, a bound on the ℓ1 distance between its
  floating-point pmf and the law its operations stand for, and every bound on δ moves by it (the integrand lies in
  [0, 1], so an ℓ1 error r moves δ by at most r): up for the upper bound, down for the lower.  A convolution of two
  laws with errors r_a, r_b adds r_a + r_b + r_a·r_b (their masses are at most 1) and the error of the FFT itself
  (:func:`fft_roundoff`); a cut adds the round-off of the masses it sums; the final sum of δ adds γ_k of its k terms
  (Higham 2002, §3.1: |fl(Σx_i) − Σx_i| ≤ γ_{k−1} Σ|x_i|, any order; expm1 within 2 units in the last place).
  Clipping the convolution's negative entries at 0 only brings them nearer the true values, which are ≥ 0.  A
  step's grid law starts with the round-off of its own arithmetic (:func:`_step_roundoff`).

Not certified: the step law's CDF values, taken to be within :data:`CDF_ULPS` units in the last place; the
quadrature of f_j (relative ~1e-10 of h per step: a bias of the rounding's mean, far inside the Hoeffding shift t);
and that the FFT library's mixed-radix transforms keep the error bound of a radix-2 one, four times over, with
twiddle factors within two units in the last place (:func:`fft_roundoff`). The tests compare the bounds with an
mpmath quadrature at T = 1 and T = 2 and with dp-accounting in ``benchmarks/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Hashable

import numpy as np

from pdp_audit.mechanisms.rounding import UNIT_ROUNDOFF, gamma

#: Probability of the Hoeffding event each bound gives up (added to the upper bound, taken from the lower).
ETA = 1e-15
#: Mass per side left outside the per-step grid of an unbounded loss.
TAIL_MASS = 1e-30
#: Mass per side a partial sum's window leaves out (moved to ±∞ or to the window's ends, as the bound allows).
CUT_MASS = 1e-14
#: The error taken for a step law's CDF values, in units of their last place: scipy's special functions and numpy's
#: exp are accurate to a few (an assumption, not a proof: module notes).
CDF_ULPS = 16
#: Gauss–Legendre nodes and weights on [0, 1].
_GL_NODES = (1 - np.sqrt(3 / 5)) / 2, 0.5, (1 + np.sqrt(3 / 5)) / 2
_GL_WEIGHTS = 5 / 18, 8 / 18, 5 / 18


@dataclass(frozen=True)
class GridLaw:
    """A law on the grid ω = (start + j)h, j = 0..len(pmf) − 1, with mass ``infinity`` at +∞ (upper bounds) and
    1 − Σpmf − infinity at −∞ (lower bounds)."""

    h: float
    start: int
    pmf: np.ndarray
    infinity: float = 0.0
    #: A bound on the ℓ1 distance between ``pmf`` (and ``infinity``) as computed and the law its operations define.
    roundoff: float = 0.0

    @property
    def values(self) -> np.ndarray:
        return (self.start + np.arange(self.pmf.size)) * self.h

    def moments(self) -> tuple[float, float]:
        """Mean and standard deviation of the finite part."""
        total = float(self.pmf.sum())
        mean = float(self.pmf @ self.values) / total
        return mean, math.sqrt(max(float(self.pmf @ (self.values - mean) ** 2) / total, 0.0))

    def first_kept(self, epsilon: float) -> int:
        """The index of the first grid point ω_j ≥ ⌊ε/h⌋h (points below it have (1 − e^{ε − ω})₊ = 0), in
        [0, len(pmf)] for every double ε: ε/h is clamped to the grid's index range *before* it becomes an integer, so
        an ε beyond the grid (±∞ included, or one whose quotient by h overflows) is the grid's end; NaN (no ε) is 0."""
        position = epsilon / self.h
        if not position > self.start:  # below the grid's first point, −∞, or NaN: every point is kept
            return 0
        if position >= self.start + self.pmf.size:  # beyond the grid's last point (+∞ included): none is
            return self.pmf.size
        return int(math.floor(position)) - self.start

    def delta(self, epsilon: float) -> float:
        """Σ pmf (1 − e^{ε − ω})₊ + infinity, as computed in floating point (:meth:`delta_error` bounds its error),
        for any ε but NaN: ε = +∞ gives the +∞ mass alone, ε = −∞ the whole mass (the integrand's limits)."""
        first = self.first_kept(epsilon)
        # −(pmf·x) is pmf·(−x) to the bit (rounding to nearest is symmetric): one pass fewer, as is the grid kept
        return float(-(self.pmf[first:] @ np.expm1(np.minimum(epsilon - self._values[first:], 0.0)))) + self.infinity

    def delta_error(self, epsilon: float) -> float:
        """A bound on |:meth:`delta` − δ of the law the operations define|: ``roundoff`` plus the sum's round-off.

        The sum has k = terms + 2 roundings (the dot product of k − 1 terms in any order, then + infinity), each term
        pmf_j·(1 − e^{ε − ω_j}) ∈ [0, pmf_j] computed with relative error ≤ 4u (expm1 within 2 ulp, the product, the
        argument ε − ω_j rounded once, where the integrand's slope is at most 1): so |error| ≤ γ_k·Σpmf + 4u·Σpmf +
        ``roundoff`` (Higham 2002, Lemma 3.1 and §3.1), Σpmf ≤ 1 + ``roundoff``."""
        k = self.pmf.size - self.first_kept(epsilon) + 2
        mass = 1.0 + self.roundoff
        return self.roundoff + (gamma(k) + 4 * UNIT_ROUNDOFF) * mass * (1 + 4 * UNIT_ROUNDOFF)

    @cached_property
    def _values(self) -> np.ndarray:
        """:attr:`values`, kept: a profile's δ is asked at many ε (a crossing's bisection, a figure's curve)."""
        return self.values


@dataclass(frozen=True)
class LossLaw:
    """A per-step loss law: ``cdf(w, upper)`` = P[ω ≤ w] (or P[ω > w]), and ``support`` (inf, sup).  ``key``: a
    hashable name of the law (its family and parameters), equal for two laws only where they are the same law;
    :func:`composed_profile_of` discretises such laws once (None: every law its own)."""

    cdf: Callable[..., np.ndarray]
    support: tuple[float, float]
    key: Hashable | None = None


def _edge(law: LossLaw, upper: bool) -> float:
    """The grid's end: the support's, or where P[ω > w] (P[ω ≤ w]) falls to :data:`TAIL_MASS`."""
    low, high = law.support
    bound = high if upper else low
    if math.isfinite(bound):
        return bound
    if law.cdf(np.array([0.0]), upper=upper)[0] <= TAIL_MASS:
        # the tail beyond 0 is within TAIL_MASS already (a law on one side of 0): the grid ends at 0, the tail
        # beyond it moved as every tail is (discretise); the search below would bracket no root
        return 0.0
    sign = 1.0 if upper else -1.0
    step = 1.0
    while law.cdf(np.array([sign * step]), upper=upper)[0] > TAIL_MASS:
        step *= 2.0
    from scipy import optimize  # deferred: a fresh process replaying a record imports this module, never its solvers

    return float(optimize.brentq(lambda w: float(law.cdf(np.array([w]), upper=upper)[0]) - TAIL_MASS, 0.0, sign * step))


def discretise(law: LossLaw, h: float, pessimistic: bool) -> GridLaw:
    """The mean-preserving grid law of one step (module notes), tails moved up (``pessimistic``) or down."""
    lo_edge, hi_edge = _edge(law, upper=False), _edge(law, upper=True)
    start, stop = int(math.floor(lo_edge / h)), int(math.ceil(hi_edge / h))
    grid = (start + np.arange(stop - start + 1)) * h
    below, above = law.cdf(grid), law.cdf(grid, upper=True)
    # bin (ω_j, ω_j + h]: mass from whichever side is small (no cancellation near 1)
    mass = np.where(below[1:] < 0.5, below[1:] - below[:-1], above[:-1] - above[1:])
    mass = np.maximum(mass, 0.0)
    moment = np.zeros_like(mass)
    for node, weight in zip(_GL_NODES, _GL_WEIGHTS):
        w = grid[:-1] + node * h
        inner = np.where(below[1:] < 0.5, below[1:] - law.cdf(w), law.cdf(w, upper=True) - above[1:])
        moment += weight * np.maximum(inner, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.clip(np.where(mass > 0, moment / mass, 0.0), 0.0, 1.0)
    pmf = np.zeros(grid.size)
    pmf[:-1] += mass * (1 - frac)
    pmf[1:] += mass * frac
    low_tail, high_tail = float(below[0]), float(above[-1])
    roundoff = _step_roundoff(below, above, mass, low_tail + high_tail)
    if pessimistic:
        pmf[0] += low_tail
        return GridLaw(h, start, pmf, infinity=high_tail, roundoff=roundoff)
    pmf[-1] += high_tail
    return GridLaw(h, start, pmf, roundoff=roundoff)


def _step_roundoff(below: np.ndarray, above: np.ndarray, mass: np.ndarray, tails: float) -> float:
    """A bound on the ℓ1 error of :func:`discretise`'s arithmetic, given its CDF values within :data:`CDF_ULPS`
    units of their own in the last place: each bin's mass is a difference of two CDF values c₁ − c₀ (the side below
    1/2), in error by at most (CDF_ULPS·u)(c₁ + c₀) from the values and u|c₁ − c₀| from the subtraction; the split
    into two grid points and the two additions into ``pmf`` round three more times (≤ 3u of the bin's mass, and
    ``frac`` within 2u relative); the tails are CDF values (CDF_ULPS·u of them)."""
    u = UNIT_ROUNDOFF
    ends = np.where(below[1:] < 0.5, below[1:] + below[:-1], above[:-1] + above[1:])
    total = float(ends.sum()) * (1 + gamma(ends.size))  # the sum's own rounding
    spread = float(mass.sum()) * (1 + gamma(mass.size))
    return CDF_ULPS * u * total + 6 * u * spread + CDF_ULPS * u * tails * (1 + u)


def _cut(law: GridLaw, lo: float, hi: float, pessimistic: bool) -> GridLaw:
    """``law`` kept on [lo, hi]: outside mass to the window's ends or to ±∞, as the bound's direction allows."""
    first = max(0, int(math.floor(lo / law.h)) - law.start)
    last = min(law.pmf.size, int(math.ceil(hi / law.h)) - law.start + 1)
    if first == 0 and last == law.pmf.size:
        return law
    pmf = law.pmf[first:last].copy()
    low, high = float(law.pmf[:first].sum()), float(law.pmf[last:].sum())
    # the two sums (γ_n of the masses summed) and the additions that place them (each rounded to within u of the
    # result: the end's mass, or ``infinity``, plus the sum)
    u = UNIT_ROUNDOFF
    ends = float(pmf[0]) + float(pmf[-1]) + law.infinity
    roundoff = law.roundoff + (gamma(law.pmf.size) * (low + high) + u * (ends + low + high)) * (1 + 4 * u)
    if pessimistic:
        pmf[0] += low
        return GridLaw(law.h, law.start + first, pmf, law.infinity + high, roundoff)
    pmf[-1] += high
    return GridLaw(law.h, law.start + first, pmf, law.infinity, roundoff)


def full_convolution(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The full linear convolution of ``x`` and ``y`` (length len(x) + len(y) − 1) by real FFTs padded to the next
    fast length, or by a product where one has a single point: the operations of ``scipy.signal.fftconvolve``, in
    its order, so the same numbers to the bit, without importing ``scipy.signal`` (which imports ``scipy.stats``:
    most of the program audit's start-up)."""
    if x.size == 1 or y.size == 1:
        return x * y
    from scipy import fft  # deferred: a fresh process replaying a record imports this module, never its solvers

    size = x.size + y.size - 1
    padded = fft.next_fast_len(size, real=True)
    return fft.irfft(fft.rfft(x, padded) * fft.rfft(y, padded), padded)[:size]


def fft_roundoff(x: np.ndarray, y: np.ndarray) -> float:
    """A bound on the ℓ1 error of :func:`full_convolution` of ``x`` and ``y`` (non-negative, each summing to at most
    1 + r, r ≤ 1e-3) against their exact convolution c.

    A product (one vector of one point) rounds each entry once: ℓ1 error ≤ u(1 + r)².  By FFT, of n = padded
    points: the computed transform of a vector x is within τ‖Fx‖₂ of its exact DFT Fx, τ = tη/(1 − tη), t = ⌈log₂ n⌉
    stages, η = μ + γ₄(√2 + μ), μ the twiddle factors' error (Higham 2002, Thm 24.2, for the radix-2 transform).
    Taken here, as an assumption, to hold for the library's mixed-radix real transforms (scipy's pocketfft, lengths
    of factors 2, 3, 5) with η four times that at μ = 2u: a radix-r butterfly sums r terms a point, so its stage
    rounds up to r − 1 times more than a radix-2 one, in log₂r stages' worth of the length.  With X = Fx, Y = Fy,
    ‖X‖₂ = √n‖x‖₂, ‖X‖_∞ ≤ ‖x‖₁: the computed product differs from X⊙Y by at most
    τ√n(‖x‖₂‖y‖₁ + ‖x‖₁‖y‖₂) + τ²n‖x‖₂‖y‖₂ in ℓ2, and its rounding adds γ₄ of it (complex products); the inverse
    divides ℓ2 by √n and adds its own τ (and one rounding of 1/n).  So ‖ĉ − c‖₂ ≤ ((1 + γ₄)(1 + τ)(1 + u) − 1)·s +
    (1 + γ₄)(1 + τ)(1 + u)·(τ(‖x‖₂‖y‖₁ + ‖x‖₁‖y‖₂) + τ²√n‖x‖₂‖y‖₂), s = min(‖x‖₂‖y‖₁, ‖x‖₁‖y‖₂) ≥ ‖c‖₂,
    and the ℓ1 error of the m = len(x) + len(y) − 1 entries kept is at most √m times that (Cauchy–Schwarz).  The
    norms are computed in floats and raised by 2γ of their terms; a spread-out law's ‖x‖₂ is far below its ‖x‖₁."""
    u = UNIT_ROUNDOFF
    if x.size == 1 or y.size == 1:
        return u * (1 + 1e-3) ** 2
    from scipy import fft  # deferred: a fresh process replaying a record imports this module, never its solvers

    kept = x.size + y.size - 1
    n = fft.next_fast_len(kept, real=True)
    stages = math.ceil(math.log2(n))
    mu = 2 * u
    eta = 4 * (mu + gamma(4) * (math.sqrt(2) + mu))
    tau = stages * eta / (1 - stages * eta)
    # the squares summed by numpy, not ``v @ v``: BLAS splits a dot product over its threads, whose wake-ups cost
    # a hundred times the sum on a busy machine (9 of the 27 CPU s of a 30-call program's audit, load 8); the
    # bound holds for any order of the sum
    x2, y2 = (math.sqrt(float(np.einsum("i,i->", v, v))) * (1 + 2 * gamma(v.size + 1)) for v in (x, y))
    x1 = y1 = 1 + 1e-3
    carried = (1 + gamma(4)) * (1 + tau) * (1 + u)
    product = tau * (x2 * y1 + x1 * y2) + tau * tau * math.sqrt(n) * x2 * y2
    l2 = (carried - 1) * min(x2 * y1, x1 * y2) + carried * product
    return math.sqrt(kept) * l2 * (1 + 4 * u)


def _convolve(a: GridLaw, b: GridLaw) -> GridLaw:
    pmf = np.maximum(full_convolution(a.pmf, b.pmf), 0.0)
    infinity = a.infinity + b.infinity - a.infinity * b.infinity
    # (a + e_a) * (b + e_b) − a * b = e_a * b + a * e_b + e_a * e_b in ℓ1 (masses ≤ 1), the FFT's own, and the
    # three roundings of ``infinity`` (≤ 3u·2)
    carried = a.roundoff + b.roundoff + a.roundoff * b.roundoff
    roundoff = carried + fft_roundoff(a.pmf, b.pmf) + 6 * UNIT_ROUNDOFF
    return GridLaw(a.h, a.start + b.start, pmf, infinity, roundoff)


def _by_mass(law: GridLaw, pessimistic: bool) -> GridLaw:
    """``law`` cut where the mass beyond each end falls to :data:`CUT_MASS` (moved as :func:`_cut` moves it)."""
    low = np.cumsum(law.pmf)
    high = np.cumsum(law.pmf[::-1])[::-1]
    first = int(np.searchsorted(low, CUT_MASS, side="right"))
    last = law.pmf.size - 1 - int(np.searchsorted(high[::-1], CUT_MASS, side="right"))
    first, last = min(first, last), max(first, last)
    return _cut(law, (law.start + first) * law.h, (law.start + last) * law.h, pessimistic)


def compose(step: GridLaw, steps: int, pessimistic: bool) -> GridLaw:
    """The T-fold convolution of ``step`` by binary powering, each partial sum cut where the mass beyond either end
    falls to :data:`CUT_MASS` (module notes)."""
    result: GridLaw | None = None
    base = step
    remaining = int(steps)
    while remaining:
        if remaining & 1:
            result = base if result is None else _by_mass(_convolve(result, base), pessimistic)
        remaining >>= 1
        if remaining:
            base = _by_mass(_convolve(base, base), pessimistic)
    assert result is not None
    return result


@dataclass(frozen=True)
class ComposedProfile:
    """Certified bounds on δ_T(ε) of one direction (module notes): the grid profiles and the Hoeffding shift t."""

    upper: GridLaw
    lower: GridLaw
    shift: float
    eta: float = ETA
    #: epsilon_bounds by δ: a run asks for the same δ's bracket several times (its finding, its figures, its record)
    _epsilons: dict[float, tuple[float, float]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        """(lower, upper) bounds on δ_T(ε), each a double in [0, 1], lower ≤ δ_T(ε) ≤ upper, for every double ε.

        *Sound for* the grids' laws within their round-off (module notes): the lower bound is δ̃_low(ε + t) less its
        computed error and η, the upper δ̃_up(ε − t) plus them, each rounded outward.  Outside what they can say, the
        trivial bound, which is still true since δ_T(ε) ∈ [0, 1] for every ε: 0 below and 1 above where the grid's
        error bound is 1 or more (a round-off that exceeds the mass) or a term is not finite, and (0, 1) at ε = NaN
        (no ε).  An ε beyond the grid's support is no exception: above it the grid's δ is its +∞ mass (the upper
        bound) or 0 (the lower), below it the whole mass, each exact for the grid law (:meth:`GridLaw.delta`)."""
        if math.isnan(epsilon):
            return 0.0, 1.0
        return self._delta_low(epsilon), self._delta_high(epsilon)

    def _delta_low(self, epsilon: float) -> float:
        at = epsilon + self.shift
        value, error = self.lower.delta(at), self.lower.delta_error(at)
        if not (math.isfinite(value) and error < 1.0):  # no bound above the trivial one (NaN fails the test too)
            return 0.0
        # fsum rounds the exact sum once (to nearest): one step down makes it a lower bound
        bound = math.fsum((value, -error, -self.eta))
        return min(1.0, max(0.0, math.nextafter(bound, -math.inf)))

    def _delta_high(self, epsilon: float) -> float:
        at = epsilon - self.shift
        value, error = self.upper.delta(at), self.upper.delta_error(at)
        if not (math.isfinite(value) and error < 1.0):
            return 1.0
        bound = math.fsum((value, error, self.eta))
        return max(0.0, min(1.0, math.nextafter(bound, math.inf)))

    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """(lower, upper) bounds on ε_T(δ) = inf{ε ≥ 0 : δ_T(ε) ≤ δ}: each the crossing of its own bound on δ_T
        (:func:`_crossing`).  The upper one is +∞ where the upper bound on δ_T stays above δ up to
        :data:`CROSSING_LIMIT` (a δ below the grid's round-off, its +∞ mass or η: the grid cannot show any ε
        holds it), the lower one is then the largest ε shown to exceed δ; δ = NaN gives (0, +∞), true of any δ."""
        if math.isnan(delta):
            return 0.0, math.inf
        if delta not in self._epsilons:
            self._epsilons[delta] = (
                _crossing(self._delta_low, delta, upper=False),
                _crossing(self._delta_high, delta, upper=True),
            )
        return self._epsilons[delta]


#: The largest ε :func:`_crossing` evaluates a profile at: beyond it the crossing is stated as a bound only.
CROSSING_LIMIT = 2.0**14


def _crossing(profile: Callable[[float], float], delta: float, upper: bool) -> float:
    """inf{ε ≥ 0 : profile(ε) ≤ δ} of a non-increasing profile, by bisection to 1e-9, where it is at most
    :data:`CROSSING_LIMIT`.  Beyond it, a bound of the same side: +∞ for an ``upper`` bound on δ_T (whose crossing
    bounds ε_T(δ) from above), else the last ε where the profile, a lower bound on δ_T, was seen above δ -- δ_T
    exceeds δ there, so ε_T(δ) is at least it (+∞ would claim more than was shown)."""
    if profile(0.0) <= delta:
        return 0.0
    high = 1.0
    while profile(high) > delta:
        if high >= CROSSING_LIMIT:
            return math.inf if upper else high
        high *= 2.0
    from scipy import optimize  # deferred: a fresh process replaying a record imports this module, never its solvers

    return float(optimize.brentq(lambda e: profile(e) - delta, 0.0, high, xtol=1e-9))


def grid_step(steps: int, epsilon_error: float) -> float:
    """The grid step h = t/√(T log(1/η)/2) whose Hoeffding shift over T = ``steps`` is t = ``epsilon_error``."""
    return epsilon_error / math.sqrt(steps * math.log(1 / ETA) / 2)


#: Standard deviations of the T-fold sum on each side of its window in :func:`GridWidth.points`: a normal sum is
#: cut at 7.65 (P = :data:`CUT_MASS`); the subsampled Gaussian's heavier right tail made the windows measured up to
#: 1.2 times the normal's (σ = 0.3, q = 0.5, T = 100: 699 wide against 588), which 10 covers.
WINDOW_STDS = 10.0
#: Grid points of the coarse grid :func:`grid_width` reads the step's standard deviation from.
COARSE_POINTS = 20_000


@dataclass(frozen=True)
class GridWidth:
    """What sets the size of :func:`composed_profile`'s arrays, known before any of them is made: the step law's
    grid range (its support, or where its tails fall to :data:`TAIL_MASS`) and its standard deviation."""

    step_range: float
    step_std: float

    def points(self, steps: int, epsilon_error: float) -> float:
        """An upper estimate of the largest array :func:`composed_profile` holds: a convolution of two partial
        sums, each within the step's range plus :data:`WINDOW_STDS` standard deviations of the T-fold sum on
        either side, on the grid of :func:`grid_step` (measured largest arrays: 0.48e6, 31e6, 9.1e6 points where
        this says 1.1e6, 64e6, 20e6)."""
        window = self.step_range + 2 * WINDOW_STDS * math.sqrt(steps) * self.step_std
        return 2 * window / grid_step(steps, epsilon_error)

    def max_steps(self, epsilon_error: float, points: float) -> int:
        """The largest T whose :meth:`points` is at most ``points`` (0 if none): :meth:`points` is
        2c(range·u + 2·WINDOW_STDS·std·u²) in u = √T, c = √(log(1/η)/2)/t, whose positive root this solves."""
        c = math.sqrt(math.log(1 / ETA) / 2) / epsilon_error
        a, b, limit = 2 * WINDOW_STDS * self.step_std, self.step_range, points / (2 * c)
        u = limit / b if a == 0 else (-b + math.sqrt(b * b + 4 * a * limit)) / (2 * a)
        steps = int(u * u)
        while steps > 0 and self.points(steps, epsilon_error) > points:  # the root's rounding
            steps -= 1
        return steps


def grid_width(law: LossLaw) -> GridWidth:
    """The step law's :class:`GridWidth`: its grid's ends (:func:`_edge`) and its standard deviation on a grid of
    :data:`COARSE_POINTS` points (milliseconds; the rounding moves the standard deviation by at most h/2)."""
    low, high = _edge(law, upper=False), _edge(law, upper=True)
    coarse = discretise(law, (high - low) / COARSE_POINTS, True)
    return GridWidth(high - low, coarse.moments()[1])


def composed_profile(law: LossLaw, steps: int, epsilon_error: float = 2e-3) -> ComposedProfile:
    """Bounds on δ_T(ε) for T = ``steps`` at grid step h = t/√(T log(1/η)/2), so the Hoeffding shift is
    t = ``epsilon_error``."""
    h = grid_step(steps, epsilon_error)
    upper = compose(discretise(law, h, True), steps, True)
    lower = compose(discretise(law, h, False), steps, False)
    return ComposedProfile(upper, lower, epsilon_error)


def composed_profile_of(
    laws: list[LossLaw], epsilon_error: float = 2e-3, lower_laws: list[LossLaw] | None = None
) -> ComposedProfile:
    """Bounds on δ(ε) of the composition of different steps, one law each (T = len(laws) >= 1): each discretised on
    the one grid of step h = t/√(T log(1/η)/2) and convolved in turn; the Hoeffding shift t = ``epsilon_error``
    holds as for T i.i.d. steps (the rounding errors are independent, each of range h; module notes).

    ``lower_laws`` (at most T of them, at least one): the laws the lower bound is composed from, where ``laws`` are
    known only to dominate the true steps (each step's δ(ε) grows with a parameter known to an interval: the upper
    bound from its top, the lower from its bottom); the Hoeffding shift of fewer steps on the same grid is at most
    t, so the bounds hold as stated."""
    steps = len(laws)
    h = epsilon_error / math.sqrt(steps * math.log(1 / ETA) / 2)
    bounds = []
    for pessimistic in (True, False):
        result: GridLaw | None = None
        # laws of one key are one law: discretised once, the same grid law to the bit (k identical steps: one
        # discretisation, most of the cost, where k were made)
        made: dict[Hashable, GridLaw] = {}
        for law in laws if pessimistic or lower_laws is None else lower_laws:
            step = made.get(law.key) if law.key is not None else None
            if step is None:
                step = discretise(law, h, pessimistic)
                if law.key is not None:
                    made[law.key] = step
            result = step if result is None else _by_mass(_convolve(result, step), pessimistic)
        assert result is not None
        bounds.append(result)
    return ComposedProfile(bounds[0], bounds[1], epsilon_error)
