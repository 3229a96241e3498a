"""The Gaussian mechanism on a real query, its exact privacy loss, and the closed forms about it.

Release ``o = Q(D) + N(0, sigma^2 I_d)`` ([RW] M1).  The queries are a count and a sum of rows
clipped to L2 norm ``C``; an individual ``z`` changes them by the per-instance sensitivity vector
``Delta_z = Q(D±z) - Q(D)``, whose norm is below the global sensitivity for rows well inside the
clip ball.  That gap is what per-instance DP measures.

The queries and their clipping: :mod:`pdp_audit.mechanisms.gaussian_query`; the per-instance closed forms ([RW]
Theorem 22, Corollary 23, the exact pDP ε of each individual): :mod:`pdp_audit.mechanisms.gaussian_pdp`.

Closed forms here (each cited where it is defined):

* the classical calibration ([RW] App. D, Dwork & Roth 2014 Thm A.1);
* the analytic Gaussian mechanism (Balle & Wang 2018, Theorem 8): exact ``δ(ε)`` and its inverses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pdp_audit.mechanisms import gaussian_exact
from pdp_audit.mechanisms.base import (
    RegisteredMechanism,
    World,
    check_world,
    neighbour_rows,
    scales_exactly,
)
from pdp_audit.mechanisms.gaussian_query import Query, Relation, clipped_row_norms
from pdp_audit.mechanisms.row_reductions import ScaledRows
from pdp_audit.verify.inputs.validation import InputError, nonnegative, positive, probability


# --------------------------------------------------------------------------------------------
# Analytic Gaussian mechanism (Balle & Wang 2018)
# --------------------------------------------------------------------------------------------
def log_analytic_delta(epsilon, s):
    """log δ(ε) for noise-to-sensitivity ratio s = σ/Δ, computed in log space (scalars or arrays).

    δ = Φ(a) − e^ε Φ(b) = Φ(a) (1 − exp(ε + log Φ(b) − log Φ(a))), a = 1/(2s) − εs, b = −1/(2s) − εs;
    the factored form avoids the cancellation of the difference when both terms are tiny.  Where the gap is
    ≥ 0 (only through rounding as ε → ∞) δ is 0: log δ = −∞.
    """
    return log_delta_parts(epsilon, s)[0]


def log_delta_parts(epsilon, s):
    """(log δ(ε), ε + log Φ(b)) of :func:`log_analytic_delta`: the second is log of e^ε Φ(b) = −dδ/dε, since
    φ(a) = e^ε φ(b) (a² − b² = −2ε) cancels the other terms of the derivative (Balle & Wang 2018, Theorem 8)."""
    from scipy import special  # scipy where it is used: every command's parser imports this module (the plans')

    a = 0.5 / s - epsilon * s
    b = -0.5 / s - epsilon * s
    log_phi_a = special.log_ndtr(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        # where Φ(a) underflows (log Φ(a) = −∞: εs or 1/(2s) beyond ~1e154) δ ≤ Φ(a) is 0 in float64; the gap there
        # is −∞ − (−∞) = NaN, which must not become δ = NaN
        log_slope = epsilon + special.log_ndtr(b)
        gap = log_slope - log_phi_a
        zero = (gap >= 0) | np.isneginf(log_phi_a)
        return np.where(zero, -np.inf, log_phi_a + np.log(-np.expm1(np.minimum(gap, 0.0)))), log_slope


def analytic_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact δ(ε) of the Gaussian mechanism N(Q(D), σ²I) with L2 sensitivity Δ.

    Balle & Wang (2018), "Improving the Gaussian mechanism for differential privacy", Theorem 8:

        δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ).

    This is the hockey-stick divergence of N(0, σ²) from N(Δ, σ²) at e^ε, i.e. the smallest δ for
    which the mechanism is (ε, δ)-DP.  ε ≥ 0, σ > 0, Δ ≥ 0 (Δ = 0 gives δ = 0).
    """
    epsilon = nonnegative("epsilon", epsilon)
    sigma = positive("sigma", sigma)
    sensitivity = nonnegative("sensitivity", sensitivity)
    if sensitivity == 0:
        return 0.0
    return math.exp(float(log_analytic_delta(epsilon, sigma / sensitivity)))


def whitened_delta(epsilon, s) -> np.ndarray:
    """:func:`analytic_delta` for a whitened sensitivity ``s`` = Δ/σ, vectorised (broadcast over ε and s): δ(ε) =
    Φ(s/2 − ε/s) − e^ε Φ(−s/2 − ε/s) (Balle & Wang 2018, Theorem 8), in the log space of
    :func:`log_analytic_delta`; 0 where s = 0.  No validation: for arrays the audits computed themselves."""
    epsilon, s = np.broadcast_arrays(np.asarray(epsilon, float), np.asarray(s, float))
    safe = np.where(s > 0, s, 1.0)
    with np.errstate(over="ignore"):  # 1/s of a subnormal s: δ is 0 there, as the log form says
        return np.where(s > 0, np.exp(log_analytic_delta(epsilon, 1.0 / safe)), 0.0)


def whitened_epsilon(delta: float, s) -> np.ndarray:
    """Smallest ε ≥ 0 with :func:`whitened_delta` ≤ δ for each whitened sensitivity in ``s``, by vectorised bisection
    (relative 1e-12; :func:`analytic_epsilon` is the validated scalar form).

    The upper bracket s²/2 + s√(2 log(1/δ)) is valid because P[L > ε] ≤ δ there (Gaussian tail)."""
    s = np.atleast_1d(np.asarray(s, float))
    lo = np.zeros_like(s)
    hi = s**2 / 2 + s * np.sqrt(2 * np.log(1 / delta)) + 1e-12
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        bad = whitened_delta(mid, s) > delta
        lo, hi = np.where(bad, mid, lo), np.where(bad, hi, mid)
        if np.all(hi - lo <= 1e-12 * np.maximum(hi, 1e-300)):
            break
    return np.where(whitened_delta(0.0, s) <= delta, 0.0, hi)


def _expand_bracket(f, lo: float, hi: float, grow_hi: bool) -> tuple[float, float]:
    """Grow ``hi`` (or shrink ``lo``) geometrically until ``f`` changes sign on [lo, hi]."""
    for _ in range(200):
        if f(lo) * f(hi) <= 0:
            return lo, hi
        if grow_hi and hi > np.finfo(float).max / 2:  # doubling would reach inf (and f(inf) is NaN)
            break
        if grow_hi:
            lo, hi = hi, hi * 2
        else:
            lo, hi = lo / 2, lo
    raise ArithmeticError("could not bracket the root")


def analytic_epsilon(delta: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Smallest ε ≥ 0 with ``analytic_delta(ε, σ, Δ) ≤ δ`` (Balle & Wang 2018, Theorem 8, inverted in ε).

    δ(ε) is strictly decreasing in ε; the root of log δ(ε) = log δ is found by Brent's method to
    machine precision.  Returns 0 when δ(0) ≤ δ already.
    """
    delta = probability("delta", delta)
    sigma = positive("sigma", sigma)
    sensitivity = nonnegative("sensitivity", sensitivity)
    if sensitivity == 0:
        return 0.0
    s = sigma / sensitivity
    log_target = math.log(delta)

    def f(eps: float) -> float:
        return float(log_analytic_delta(eps, s)) - log_target

    if f(0.0) <= 0:
        return 0.0
    try:
        lo, hi = _expand_bracket(f, 0.0, max(1.0, 1.0 / s), grow_hi=True)
    except ArithmeticError:  # δ(ε) > δ at every float ε: the root, near 1/(2s²) + …, is beyond 1.8e308
        raise InputError(
            f"sigma: {sigma:g} with sensitivity {sensitivity:g} gives δ(ε) > {delta:g} at every finite ε "
            "(σ/Δ is too small for any ε a float can hold)"
        ) from None
    from scipy import optimize

    return optimize.brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ with ``analytic_delta(ε, σ, Δ) ≤ δ``: the analytic Gaussian mechanism's calibration.

    Balle & Wang (2018), Theorem 8 / Algorithm 1, solved by Brent's method on log δ(ε; σ), which is
    strictly decreasing in σ.  ε ≥ 0, δ ∈ (0, 1), Δ > 0.
    """
    epsilon = nonnegative("epsilon", epsilon)
    delta = probability("delta", delta)
    sensitivity = positive("sensitivity", sensitivity)
    log_target = math.log(delta)

    def f(s: float) -> float:
        return float(log_analytic_delta(epsilon, s)) - log_target

    try:
        lo, hi = _expand_bracket(f, 0.5, 1.0, grow_hi=f(1.0) > 0)
    except ArithmeticError:  # the root lies beyond the 200 doublings or halvings of the search
        raise InputError(
            f"epsilon {epsilon:g} and delta {delta:g}: the calibrated σ/Δ lies outside [2^-200, 2^200], the range "
            "searched (ε is far beyond what a Gaussian mechanism is calibrated for)"
        ) from None
    from scipy import optimize

    guess = sensitivity * optimize.brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    # the float root can sit an ulp below the calibration: the smallest σ with δ(ε) ≤ δ proven is returned
    return gaussian_exact.sigma_upper(epsilon, delta, guess, sensitivity)


# --------------------------------------------------------------------------------------------
# Classical calibration and the [RW] closed forms
# --------------------------------------------------------------------------------------------
def classical_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Classical calibration σ = Δ √(2 log(1.25/δ)) / ε.

    Dwork & Roth (2014), Theorem A.1 (proved for ε < 1); used by [RW] Corollary 16 and [PDP] Lemma 2.4.
    """
    epsilon = positive("epsilon", epsilon)
    delta = probability("delta", delta)
    sensitivity = positive("sensitivity", sensitivity)
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def classical_epsilon(delta: float, sigma: float, sensitivity: float = 1.0) -> float:
    """[RW] Appendix D (standard Gaussian mechanism): ε = Δ²/(2σ²) + Δ √(2 log(1/δ)) / σ."""
    delta = probability("delta", delta)
    sigma = positive("sigma", sigma)
    sensitivity = nonnegative("sensitivity", sensitivity)
    return sensitivity**2 / (2 * sigma**2) + sensitivity * math.sqrt(2 * math.log(1 / delta)) / sigma


_SCRATCH = 4096
#: Releases a chunk of :meth:`GaussianPair.rounded_losses_into` (256 KiB: a chunk and its scratch stay in a core's L2
#: cache through the chunk's passes, where a block's arrays went out to L3 and back once a pass).
_CHUNK = 1 << 15
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


def factored_loss(q_d: float, q_dprime: float, sigma: float) -> tuple[np.float64, np.float64] | None:
    """(m, k) for the 1-d Gaussian loss in factored form, L(o) = k·(m − o), where that form is exact to a few ulps
    of L itself; None where it is not (the difference of squares is then computed).

    The identity: (o − q_D')² − (o − q_D)² = (q_D' − q_D)(q_D + q_D' − 2o), so L(o) = (‖o − q_D'‖² − ‖o − q_D‖²)/(2σ²)
    = k·(m − o) with m = (q_D + q_D')/2 and k = (q_D' − q_D)/σ².  Where m is a float64 exactly (the sum q_D + q_D'
    is, and halving it loses no bit), m − o is rounded once, and k's three operations (q_D' − q_D, σ², the
    quotient) once each: the computed L is L(o)·(1 + θ) with |θ| ≤ 5·2^-53 + O(2^-106) (barring underflow, an
    error below 2^-1074·(1 + |k|)), a bound relative to L
    (the difference of squares is exact only relative to its terms, ‖o − q_D‖²/(2σ²), far larger than L where o
    lies far from both means).  k must be a nonzero normal number (q_D = q_D' leaves the loss 0 from the
    difference of squares, whose sign of zero this form would not keep) and finite.  Two passes over the releases
    where the difference of squares took six.  Float64 scalars, so that float32 releases give float64 losses as
    before."""
    total = float(q_d) + float(q_dprime)
    midpoint = total / 2
    if not (math.isfinite(total) and Fraction(total) == Fraction(float(q_d)) + Fraction(float(q_dprime))):
        return None
    if Fraction(midpoint) * 2 != Fraction(total):
        return None
    try:
        factor = (float(q_dprime) - float(q_d)) / (sigma * sigma)
    except (OverflowError, ZeroDivisionError):
        return None
    if not (math.isfinite(factor) and abs(factor) >= _SMALLEST_NORMAL):
        return None
    return np.float64(midpoint), np.float64(factor)


#: The σ a :class:`GaussianPair` accepts: those whose loss scale 1/(2σ²) is a finite, nonzero float64 (past ~9.5e153
#: 2σ² overflows to an error, below ~5.3e-155 its reciprocal does; below ~1e-162 σ² is 0).
SIGMA_RANGE = (1e-154, 9e153)


class GaussianPair:
    """The Gaussian mechanism on a neighbouring pair: o ~ N(q_D, σ²I) versus N(q_D', σ²I).

    Besides the ``NeighbourPair`` protocol it exposes the noise-level view used by rare-event
    importance sampling: the release is ``mean(world) + noise`` with ``noise ~ N(0, σ²I)``.
    """

    built_from_law = True  # ``sample`` is its declared Gaussian law (pdp_audit.verify.estimators.view_replay)

    def __init__(self, q_d: np.ndarray, q_dprime: np.ndarray, sigma: float):
        self.q_d = np.atleast_1d(np.asarray(q_d, dtype=float))
        self.q_dprime = np.atleast_1d(np.asarray(q_dprime, dtype=float))
        if self.q_d.shape != self.q_dprime.shape or self.q_d.ndim != 1:
            raise InputError("q_d and q_dprime must be vectors of the same length")
        self.sigma = positive("sigma", sigma)
        if not SIGMA_RANGE[0] <= self.sigma <= SIGMA_RANGE[1]:  # 1/(2σ²) must be a finite, nonzero float64
            raise InputError(f"sigma must be between {SIGMA_RANGE[0]:g} and {SIGMA_RANGE[1]:g}, got {self.sigma!r}")
        self.output_dim = self.noise_dim = self.q_d.size
        self.noise_sigma = self.sigma
        # Means as broadcast operands: a scalar for a 1-d release (numpy broadcasts a length-1 axis slowly).
        self._centres = {w: (m[0] if m.size == 1 else m) for w, m in (("D", self.q_d), ("D'", self.q_dprime))}
        self._factored = factored_loss(self.q_d[0], self.q_dprime[0], self.sigma) if self.output_dim == 1 else None

    @property
    def delta_z(self) -> np.ndarray:
        """Per-instance sensitivity vector Δ_z = Q(D') − Q(D)."""
        return self.q_dprime - self.q_d

    @property
    def delta_norm(self) -> float:
        return float(np.linalg.norm(self.delta_z))

    def mean(self, world: World) -> np.ndarray:
        return self.q_d if check_world(world) == "D" else self.q_dprime

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        return self.mean(world) + noise

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        out = rng.standard_normal((size, self.output_dim))
        out *= self.sigma
        out += self._centres[check_world(world)]
        return out

    #: :meth:`privacy_loss` writes into ``out`` where given (the block engine's result: no fresh block-sized array).
    writes_losses_into = True

    def privacy_loss(self, outputs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """log p_D(o) − log p_D'(o) from the two Gaussian log-densities (not from Theorem 22).

        Both densities have covariance σ²I, so their normalising constants cancel exactly and only the
        two quadratic forms remain: (‖o − q_D'‖² − ‖o − q_D‖²) / (2σ²) -- for a 1-d release, where it can,
        factored (:func:`factored_loss`).  ``out``: a float64 array of ``len(outputs)`` to write the losses into
        (the same numbers).
        """
        outputs = np.atleast_2d(outputs)
        if outputs.shape[1] == 1:  # a scalar release: without einsum's slow length-1 sums
            return self._scalar_loss(outputs[:, 0], out)
        offset = outputs - self._centres["D"]  # one buffer reused for both offsets: fewer fresh pages per block
        quad_d = np.einsum("ij,ij->i", offset, offset)
        np.subtract(outputs, self._centres["D'"], out=offset)
        loss = np.einsum("ij,ij->i", offset, offset, out=out)
        loss -= quad_d
        loss *= 1 / (2 * self.sigma**2)
        return loss

    def rounded_losses_into(
        self, world: World, size: int, rng: np.random.Generator, out: np.ndarray, scratch: np.ndarray, resolution: float
    ) -> np.ndarray | None:
        """The losses of ``size`` releases drawn on ``world``, rounded at ``resolution``, written into ``out``
        (None returned); or, where this way does not apply (a resolution that is not a power of two), the releases
        (:meth:`sample`'s, drawn from ``rng``) for the caller to take the general way:
        ``at_loss_resolution(privacy_loss(releases), resolution)``
        (:func:`pdp_audit.mechanisms.base.at_loss_resolution`).  ``scratch``: ``size`` float64s to work in.

        The same numbers bit for bit, with fewer trips to memory: the draws are made a chunk of releases at a
        time (a generator's normals come in the same order however many are asked for at once), and each chunk goes
        through :meth:`sample`'s, :meth:`privacy_loss`'s (:meth:`_scalar_loss`'s for a 1-d release) and the
        rounding's IEEE operations, in their order, while
        it is in a core's cache (a block's releases, offsets, losses and their rounding went out to L3 and back
        once a pass).  The loss's scaling by 1/(2σ²) and the rounding's by 1/R are one multiplication by their
        product (:meth:`_rounding_scale`): exact for R a power of two, since scaling by 2^k commutes with rounding
        to float64 -- barring underflow (a loss below 2^-1022 rounds to ±0 either way, its sign kept) and overflow,
        which is caught, with NaN and infinite losses: a block with a loss that is not finite rewinds the generator
        and is drawn again the general way (whose checks and rounding say and do what they did).  A vector's chunk
        is caught by its sum; a 1-d release's by the overflow flag (:meth:`_scalar_losses_into`,
        :meth:`_factored_losses_into`: the loss's factored form, six operations on a chunk after its draws where the
        difference of squares took ten)."""
        factored = self._factored
        world, scale = check_world(world), self._rounding_scale(resolution, None if factored is None else factored[1])
        if scale is None:
            return self.sample(world, size, rng)
        state = rng.bit_generator.state
        if factored is not None and self._factored_losses_into(world, rng, out[:size], factored[0], scale, resolution):
            return None
        if (
            factored is None
            and self.output_dim == 1
            and self._scalar_losses_into(world, rng, out[:size], scratch, scale, resolution)
        ):
            return None
        if self.output_dim > 1 and self._vector_losses_into(world, rng, out[:size], scale, resolution):
            return None
        rng.bit_generator.state = state
        return self.sample(world, size, rng)

    def _scalar_losses_into(
        self, world: World, rng: np.random.Generator, out: np.ndarray, scratch: np.ndarray, scale: float, grid: float
    ) -> bool:
        """:meth:`rounded_losses_into` of 1-d releases, a chunk at a time; False where a loss is not finite.

        Why the overflow flag tells it, with no pass over the losses (a sum was a tenth of the operations' time):
        every loss comes from a normal draw, which is finite, and finite constants (σ, the means, 1/(2σ²R), R) by
        +, −, × and rint.  On finite operands +, − and × give NaN never and ±∞ only by overflowing, which raises
        IEEE 754's overflow flag (rint of a finite number is finite); NaN and ±∞ then come only from a ±∞ operand.
        So a chunk with a loss that is not finite raised the flag in one of its ufuncs, which clear it before and
        read it after their loop: ``over="raise"`` turns it into FloatingPointError.  Conversely an overflow
        leaves a ±∞ that every later operation keeps ±∞ or makes NaN: the flag is raised exactly when a loss is
        not finite, where a sum also took finite losses whose total overflowed for infinite (then the general way
        gave the same numbers)."""
        c_d, c_dprime = self._centres["D"], self._centres["D'"]

        def difference_of_squares(o: np.ndarray) -> None:  # _scalar_loss's operations, in its order
            quad_dprime = np.subtract(o, c_dprime, out=scratch[: o.size])
            quad_dprime *= quad_dprime
            o -= c_d
            o *= o
            np.subtract(quad_dprime, o, out=o)

        return self._flagged_chunks_into(world, rng, out, difference_of_squares, scale, grid)

    def _factored_losses_into(
        self, world: World, rng: np.random.Generator, out: np.ndarray, midpoint: float, scale: float, grid: float
    ) -> bool:
        """:meth:`rounded_losses_into` of 1-d releases whose loss is factored (:func:`factored_loss`): k·(m − o)
        times 1/R, a chunk at a time; False where a loss is not finite (told by the overflow flag, as in
        :meth:`_scalar_losses_into`: the same operations on finite operands)."""

        def from_midpoint(o: np.ndarray) -> None:
            np.subtract(midpoint, o, out=o)

        return self._flagged_chunks_into(world, rng, out, from_midpoint, scale, grid)

    def _flagged_chunks_into(
        self,
        world: World,
        rng: np.random.Generator,
        out: np.ndarray,
        loss: Callable[[np.ndarray], None],
        scale: float,
        grid: float,
    ) -> bool:
        """Draw ``out.size`` 1-d releases on ``world`` a chunk at a time (:meth:`sample`'s operations), turn each
        chunk into its losses in place by ``loss`` (before their scaling), scale and round them at ``grid``; False
        where the overflow flag was raised, i.e. a loss is not finite (:meth:`_scalar_losses_into` says why)."""
        sigma, centre = self.sigma, self._centres[world]
        try:
            with np.errstate(over="raise", under="ignore", invalid="ignore", divide="ignore"):
                for start in range(0, out.size, _CHUNK):
                    o = out[start : start + _CHUNK]
                    rng.standard_normal(out=o)
                    o *= sigma
                    o += centre
                    loss(o)
                    o *= scale
                    np.rint(o, out=o)
                    o *= grid
        except FloatingPointError:
            return False
        return True

    def _vector_losses_into(
        self, world: World, rng: np.random.Generator, out: np.ndarray, scale: float, grid: float
    ) -> bool:
        """:meth:`rounded_losses_into` of d-dimensional releases, a chunk of rows at a time; False where a loss is not
        finite (a chunk's sum is not: einsum's sums do not read the overflow flag)."""
        bounds = self._chunk_bounds(out.size)
        longest = max((stop - start for start, stop in zip(bounds, bounds[1:])), default=0)
        buffers = tuple(np.empty((longest, self.output_dim)) for _ in range(2))
        with np.errstate(all="ignore"):  # overflow is caught below, and the general way then warns as before
            for start, stop in zip(bounds, bounds[1:]):
                losses = out[start:stop]
                self._vector_chunk(world, rng, losses, buffers, scale)
                np.rint(losses, out=losses)
                losses *= grid
                if not math.isfinite(np.add.reduce(losses)):
                    return False
        return True

    def _chunk_bounds(self, size: int) -> list[int]:
        """Where the chunks of a block of ``size`` d-dimensional releases start, and its end: _CHUNK float64s of
        releases a chunk, and at least two rows, the last one included where the block has two (einsum sums a lone
        row longer than numpy's buffer, 8192, otherwise than the same row among others)."""
        starts = list(range(0, size, max(2, _CHUNK // self.output_dim)))
        if len(starts) > 1 and size - starts[-1] == 1:  # a last chunk of one row joins the one before
            starts.pop()
        return [*starts, size]

    def _vector_chunk(self, world: World, rng: np.random.Generator, losses: np.ndarray, buffers, scale: float) -> None:
        """Draw ``len(losses)`` releases and write their losses times ``scale`` into ``losses``: :meth:`sample` then
        :meth:`privacy_loss`, operation for operation, on two (rows, d) buffers that stay in a core's cache (a block of
        2^16 releases of d = 10 is 5 MiB, and its four passes went out to L3 and back).  einsum's row sums do not
        depend on how many rows it is given (tests/test_block_kernels.py checks them bit for bit)."""
        o, offset = (buffer[: losses.size] for buffer in buffers)
        rng.standard_normal(out=o)
        o *= self.sigma
        o += self._centres[world]
        quad_d = np.einsum("ij,ij->i", np.subtract(o, self._centres["D"], out=offset), offset)
        np.subtract(o, self._centres["D'"], out=offset)
        np.einsum("ij,ij->i", offset, offset, out=losses)
        losses -= quad_d
        losses *= scale

    def _rounding_scale(self, resolution: float, factor: float | None = None) -> float | None:
        """``factor`` (by default 1/(2σ²); k of :func:`factored_loss`) · 1/R, where that one multiplication is
        exactly the loss's and the rounding's two (R a power of two, ``factor`` a normal number, the product finite);
        else None (σ² overflowing or underflowing included: the general way then fails as it did)."""
        if not scales_exactly(resolution):
            return None
        if factor is None:
            try:
                factor = 1 / (2 * self.sigma**2)
            except (OverflowError, ZeroDivisionError):
                return None
        scale = float(factor) * (1.0 / resolution)  # a Python float: an overflow here warns of nothing
        return scale if abs(factor) >= _SMALLEST_NORMAL and math.isfinite(scale) else None

    def _scalar_loss(self, o: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """:meth:`privacy_loss` of 1-d releases: k·(m − o) where :func:`factored_loss` gives (m, k); else the
        difference of squares, as einsum computes it for a vector, bit for bit (einsum's sum of one product is that
        product).

        ‖o − q_D‖² goes through a small scratch buffer a slice at a time: a second block-sized array made the
        allocator hand pages back to the system after every block and fault them in again for the next (368
        page faults a block of 2^16, as long as the draws themselves on a shared 2-core machine)."""
        if self._factored is not None:
            midpoint, factor = self._factored
            loss = np.subtract(midpoint, o, out=out)
            loss *= factor
            return loss
        loss = np.subtract(o, self._centres["D'"], out=out)
        loss *= loss
        scratch = np.empty(min(o.size, _SCRATCH))
        for start in range(0, o.size, _SCRATCH):
            quad_d = scratch[: min(_SCRATCH, o.size - start)]
            np.subtract(o[start : start + _SCRATCH], self._centres["D"], out=quad_d)
            quad_d *= quad_d
            loss[start : start + _SCRATCH] -= quad_d
        loss *= 1 / (2 * self.sigma**2)
        return loss


@dataclass(frozen=True)
class GaussianMechanism:
    """o = Q(D) + N(0, σ² I) for a :class:`Query`."""

    query: Query
    sigma: float

    def __post_init__(self) -> None:
        positive("sigma", self.sigma)

    def pair(
        self,
        data: np.ndarray,
        target: np.ndarray,
        relation: Relation = "add",
        clipped: np.ndarray | ScaledRows | None = None,
    ) -> GaussianPair:
        """The pair (D, D±z): ``relation="add"`` appends ``target``; ``"remove"`` deletes it (it must be a row of D).
        ``clipped``: the sum's clipped rows of ``data`` where the caller has them (:meth:`Query.neighbour_sums`)."""
        if clipped is not None and self.query.kind == "sum":
            return GaussianPair(*self.query.neighbour_sums(data, target, relation, clipped), self.sigma)
        data, neighbour = neighbour_rows(data, target, relation)
        return GaussianPair(self.query(data), self.query(neighbour), self.sigma)

    def per_instance_sensitivities(
        self, data: np.ndarray, clipped: np.ndarray | ScaledRows | None = None, norms: np.ndarray | None = None
    ) -> np.ndarray:
        """‖Δ_z‖ for every row z of ``data`` (removing z, or equally adding a copy of it); ``clipped`` as in
        :meth:`pair`, ``norms`` (the rows' own) as in :func:`clip_rows`."""
        data = np.atleast_2d(np.asarray(data, dtype=float))
        if self.query.kind == "count":
            return np.ones(len(data))
        return clipped_row_norms(data, self.query.clip, norms, clipped)


def _example_pairs(rng: np.random.Generator) -> list[GaussianPair]:
    data = rng.normal(size=(40, 3)) * 0.5
    sum_mech = GaussianMechanism(Query("sum", 1.0), sigma=1.5)
    count_mech = GaussianMechanism(Query("count"), sigma=2.0)
    return [
        sum_mech.pair(data, data[0], "remove"),
        sum_mech.pair(data, np.array([3.0, 0.0, 0.0]), "add"),  # clipped: ‖Δ‖ = C
        count_mech.pair(data, data[1], "add"),
    ]


GAUSSIAN = RegisteredMechanism(
    name="gaussian",
    description="Gaussian mechanism on a count or an L2-clipped sum ([RW] M1, Thm 22, Cor 23; Balle & Wang 2018)",
    example_pairs=_example_pairs,
)
