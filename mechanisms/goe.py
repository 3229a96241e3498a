"""The largest eigenvalue of the GOE noise of [RW] Algorithm 6, and the threshold tau of [RW] Lemma 20.

Normalisation (the one thing to get right, [RW] Q4)
---------------------------------------------------
Algorithm 6 adds ``N = sigma * G`` with ``G = (Z + Z^T)/sqrt(2)``, ``Z_ij ~ N(0, 1)`` iid: off-diagonal
entries ``N(0, 1)``, diagonal entries ``N(0, 2)``.  Chiani (2014, Theorem 2) is stated for
the *unit* GOE ``A = (Z + Z^T)/2`` (diagonal ``N(0, 1)``, off-diagonal ``N(0, 1/2)``).  Since ``G = sqrt(2) A``
entrywise in law,

    P[lambda_max(G) <= x] = F_unit(x / sqrt(2)),     P[lambda_max(N) <= t] = F_unit(t / (sigma sqrt(2))).

Everything public in this module speaks about ``G`` (or ``N = sigma G``); ``F_unit`` is internal.

Three ways to compute the CDF
-----------------------------
* exact (Chiani 2014, Theorem 2): ``F_unit(u) = 2^(-n/2) / prod Gamma(i/2) * Pf(A(u))`` with the skew
  matrix of Chiani (2014), evaluated in exact big-integer fixed point at a precision that grows with ``d``;
* Tracy-Widom beta = 1 (``lambda_max(A) ~ sqrt(2n) + TW1 / (sqrt(2) n^(1/6))``), with ``F_1`` computed by
  Bornemann's (2010) Gauss-Legendre discretisation of the Fredholm determinant ``det(I - K)``,
  ``K(x, y) = Ai((x + y)/2)/2`` on ``L^2(s, inf)``;
* Monte Carlo of ``G`` itself (batched ``eigvalsh``) with a Clopper-Pearson interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

import numpy as np

from pdp_audit.verify.inputs.validation import InputError, positive, probability

if TYPE_CHECKING:  # mpmath and scipy are imported where they are used: the GOE config imports this module for every
    import mpmath  # command's parser (run NAME --help), which needs EXACT_MAX_D alone

#: Largest d for which :func:`tau` uses the exact CDF by default.
EXACT_MAX_D = 100

Method = Literal["auto", "exact", "tracy-widom"]

#: [RW] K16 (Lemma 20 numerics): the printed τ = 12 at d = 50, ρ = 8.465e-6.  It is the quantile of Chiani's
#: unit GOE (Z + Zᵀ)/2; for Algorithm 6's (Z + Zᵀ)/√2 the exact τ is 12√2 (Q4).
K16_D, K16_RHO, K16_TAU = 50, 8.465e-6, 12.0


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
def _check_d(d: int) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise InputError(f"d must be an integer >= 1, got {d!r}")
    return int(d)


def _rho(rho: float) -> float:
    return probability("rho", rho)


def _sigma(sigma: float) -> float:
    return positive("sigma", sigma)


def _check_dps(dps: int) -> int:
    if isinstance(dps, bool) or not isinstance(dps, (int, np.integer)) or dps < 15:
        raise InputError(f"dps must be an integer >= 15, got {dps!r}")
    return int(dps)


def default_dps(d: int, u: float = 0.0) -> int:
    """Working precision (decimal digits) of the exact CDF at unit-GOE argument ``u``.

    The recursions for the Pfaffian entries cancel catastrophically (double precision is
    useless by d = 30; "about 2d + 80 digits sufficed to d = 100").  Measured with the entries
    rescaled by ``1/Gamma(i/2)`` (see :func:`_scales`), the digits lost are at most about
    ``d * max(1, log10|u|)`` (101 at d = 100 at the spectral edge, 141 at ``x = 2 sqrt(d) + 16``), so
    we take ``80 + 1.1 d max(1, log10|u|)`` rounded up to a multiple of 10 (rounding lets the
    per-precision cache serve all iterations of a root search).  ``tests/test_goe.py`` checks that 60
    more digits change nothing at the 1e-12 level.
    """
    d = _check_d(d)
    growth = max(1.0, math.log10(abs(u))) if math.isfinite(u) and u != 0 else 1.0
    return int(math.ceil((80 + 1.1 * d * growth) / 10.0) * 10)


# ---------------------------------------------------------------------------------------------
# exact CDF (Chiani 2014, Theorem 2) in big-integer fixed point
# ---------------------------------------------------------------------------------------------
# Every real is held as a Python int ``v`` meaning ``v / 2**bits``: a multiplication is one big-int
# product and a shift, about 3x cheaper than an mpf product, and numpy object arrays vectorise it.
# Precision behaves like floating point with an absolute error of 2**-bits per operation, which is
# what the cancelling recursions need (the entries are rescaled to O(2^d) first, see below).


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 16


def _fixed(value: mpmath.mpf, bits: int) -> int:
    """``round(value * 2**bits)`` of an mpf (exact: only the binary exponent moves)."""
    import mpmath

    return int(mpmath.nint(mpmath.ldexp(value, bits)))


@lru_cache(maxsize=64)
def _scales(n: int, dps: int) -> tuple[int, ...]:
    """Fixed-point ``1/Gamma(i/2)``, i = 1..n, and 1 for the border column of odd n.

    Scaling row and column i of the skew matrix by ``s_i = 1/Gamma(i/2)`` multiplies its Pfaffian by
    ``prod s_i``, which is exactly the Gamma product in Chiani's constant ``K_n``; so
    ``F_unit = 2^(-n/2) Pf(S A S)`` and the scaled entries are O(2^n) instead of O(Gamma(n)).
    Independent of u, hence cached per (n, precision).
    """
    import mpmath

    bits = _bits(dps)
    with mpmath.workdps(dps + 20):
        scale = [_fixed(1 / mpmath.gamma(mpmath.mpf(i) / 2), bits) for i in range(1, n + 1)]
    return tuple(scale + [1 << bits] * (n % 2))


def _mul(a, b, bits: int):
    """Fixed-point product (ints or object arrays of ints)."""
    return (a * b) >> bits


def _skew_matrix(u: mpmath.mpf, n: int, dps: int) -> np.ndarray:
    """The scaled skew-symmetric matrix ``S A(u) S`` of Chiani (2014) as an object array of fixed-point ints.

    Recursions (Chiani 2014, Theorem 2), with ``E = e^(-u^2/2)``:
        b_1 = sqrt(2 pi) Phi(u),  b_2 = -E,  b_i = (i-2) b_(i-2) - u^(i-2) E
        c_0 = sqrt(pi)/2 erfc(-u), c_1 = -E^2/2, c_m = (m-1)/2 c_(m-2) - u^(m-1) E^2 / 2
        a_i2 = -E b_i + 2 c_(i-1),  a_ij = (j-2) a_(i,j-2) - u^(j-2) E b_i + 2 c_(i+j-3)
    row 1 from a_11 = 0 and column 1 by skew-symmetry; for odd n a border column b_i.
    ``u = +inf`` is handled as the limit (E = 0, Phi = 1, erfc = 2), so F(+inf) = 1 is a real check
    of the normalising constant rather than a special case.
    """
    import mpmath

    bits = _bits(dps)
    one = 1 << bits
    with mpmath.workdps(dps + 20):
        if mpmath.isinf(u):
            e1 = e2 = 0
            phi, erfc = one, 2 * one
            u_fix = 0  # multiplies E = 0 only
        else:
            e1 = _fixed(mpmath.exp(-u * u / 2), bits)
            e2 = _fixed(mpmath.exp(-u * u), bits)
            phi = _fixed(mpmath.ncdf(u), bits)
            erfc = _fixed(mpmath.erfc(-u), bits)
            u_fix = _fixed(u, bits)
        sqrt_2pi = _fixed(mpmath.sqrt(2 * mpmath.pi), bits)
        half_sqrt_pi = _fixed(mpmath.sqrt(mpmath.pi) / 2, bits)

    # u^k E and u^k E^2 / 2 for k = 0 .. 2n
    pe1, pe2 = [e1], [e2 >> 1]
    for _ in range(2 * n):
        pe1.append(_mul(pe1[-1], u_fix, bits))
        pe2.append(_mul(pe2[-1], u_fix, bits))

    b = [0] * (n + 1)  # 1-based
    b[1] = _mul(sqrt_2pi, phi, bits)
    if n >= 2:
        b[2] = -e1
    for i in range(3, n + 1):
        b[i] = (i - 2) * b[i - 2] - pe1[i - 2]

    m_max = max(2 * n - 3, 1)
    c = [0] * (m_max + 1)
    c[0] = _mul(half_sqrt_pi, erfc, bits)
    c[1] = -pe2[0]
    for m in range(2, m_max + 1):
        # (m-1)/2 c_(m-2): exact in fixed point up to the final halving's rounding
        c[m] = ((m - 1) * c[m - 2] >> 1) - pe2[m - 1]

    size = n + (n % 2)
    a = np.zeros((size, size), dtype=object)
    bvec = np.array(b[1:], dtype=object)
    cvec = np.array(c + [0] * 2, dtype=object)  # padding: c_(i+j-3) index stays in range
    if n >= 2:
        # column 2 for every row i: a_i2 = -E b_i + 2 c_(i-1)
        a[:n, 1] = -_mul(bvec, e1, bits) + 2 * cvec[0:n]
        # row 1 (i = 1): a_1j = (j-2) a_(1,j-2) - u^(j-2) E b_1 + 2 c_(j-2)
        for j in range(3, n + 1):
            a[0, j - 1] = (j - 2) * a[0, j - 3] - _mul(pe1[j - 2], b[1], bits) + 2 * c[j - 2]
        a[1:n, 0] = -a[0, 1:n]
        for j in range(3, n + 1):  # vectorised over rows i = 2..n
            rows = slice(1, n)
            a[rows, j - 1] = (
                (j - 2) * a[rows, j - 3] - _mul(bvec[1:], pe1[j - 2], bits) + 2 * cvec[j - 1 : j - 1 + n - 1]
            )
    if n % 2:
        a[:n, n] = bvec
        a[n, :n] = -bvec
    scale = np.array(_scales(n, dps), dtype=object)
    return _mul(_mul(a, scale[:, None], bits), scale[None, :], bits)


def _pfaffian(a: np.ndarray, bits: int) -> mpmath.mpf:
    """Pfaffian of a skew-symmetric fixed-point matrix (Parlett-Reid, skew LTL^T, partial pivoting).

    With ``a = A[k, k+1]``, ``b = A[k, k+2:]``, ``c = A[k+1, k+2:]``:
        Pf(A) = a * Pf(C + (c b^T - b c^T) / a),
    and swapping index k+1 with j (rows and columns) flips the sign.  Pivoting on the largest
    ``|A[k, j]|`` keeps the multipliers bounded.  Cost ~ n^3/6 fixed-point products.
    """
    import mpmath

    a = a.copy()
    n = a.shape[0]
    sign = 1
    pivots: list[int] = []
    for k in range(0, n - 1, 2):
        row = a[k, k + 1 :]
        j = k + 1 + int(np.argmax(np.abs(row)))
        if j != k + 1:
            a[[k + 1, j], :] = a[[j, k + 1], :]
            a[:, [k + 1, j]] = a[:, [j, k + 1]]
            sign = -sign
        pivot = a[k, k + 1]
        if pivot == 0:
            return mpmath.mpf(0)
        pivots.append(pivot)
        if k + 2 < n:
            b = a[k, k + 2 :]
            c = a[k + 1, k + 2 :]
            b_over = (b << bits) // pivot  # b / a in fixed point
            outer = np.outer(c, b_over)  # b c^T / a is its transpose: one product per entry
            outer >>= bits  # shift first: the subtraction then works on half-length integers
            a[k + 2 :, k + 2 :] += outer - outer.T
    value = mpmath.mpf(sign)
    for p in pivots:
        value *= mpmath.ldexp(mpmath.mpf(p), -bits)
    return value


def unit_goe_cdf_mp(u: float | mpmath.mpf, n: int, dps: int | None = None) -> mpmath.mpf:
    """Exact ``P[lambda_max(A) <= u]`` for the *unit* GOE ``A = (Z + Z^T)/2`` (Chiani 2014, Theorem 2).

    ``F_n(u) = 2^(-n/2) / prod_{i<=n} Gamma(i/2) * Pf(A(u))`` (Chiani 2014).  Returned as an mpf at working
    precision ``dps`` (default :func:`default_dps`), so that ``1 - F`` keeps its relative accuracy in
    the far upper tail.
    """
    import mpmath

    n = _check_d(n)
    if mpmath.isnan(u):
        raise InputError("x must not be NaN")
    dps = default_dps(n, float(u)) if dps is None else _check_dps(dps)
    with mpmath.workdps(dps + 20):
        u = mpmath.mpf(u)
        if u == -mpmath.inf:
            return mpmath.mpf(0)
        pf = _pfaffian(_skew_matrix(u, n, dps), _bits(dps))
        return pf / mpmath.sqrt(2) ** n


def _apply_elementwise(func, x):
    """Scalar in, float out; array in, float array of the same shape out."""
    if np.ndim(x) == 0:
        return float(func(x))
    arr = np.asarray(x, dtype=float)
    return np.array([func(v) for v in arr.ravel()], dtype=float).reshape(arr.shape)


def largest_eigenvalue_cdf(x: float | np.ndarray, d: int, *, dps: int | None = None) -> float | np.ndarray:
    """Exact ``P[lambda_max(G) <= x]`` for ``G = (Z + Z^T)/sqrt(2)``, ``Z_ij ~ N(0, 1)`` iid, d x d.

    This is the noise of [RW] Algorithm 6 at ``sigma_3 = 1`` (diagonal variance 2, off-diagonal 1), the
    "standard GOE" of [RW] Lemma 20.  ``G = sqrt(2) A`` with ``A`` Chiani's unit GOE, so
    ``F_G(x) = F_unit(x / sqrt(2))`` (Chiani 2014, Theorem 2).  d = 1: ``Phi(x/sqrt(2))``.
    ``x`` may be a scalar (float returned) or an array (elementwise).
    """
    import mpmath

    d = _check_d(d)
    if dps is not None:
        _check_dps(dps)

    def one(v: float) -> float:
        if math.isnan(float(v)):
            raise InputError("x must not be NaN")
        work = default_dps(d, float(v) / math.sqrt(2)) if dps is None else dps
        with mpmath.workdps(work + 20):
            return unit_goe_cdf_mp(mpmath.mpf(float(v)) / mpmath.sqrt(2), d, work)

    return _apply_elementwise(one, x)


# ---------------------------------------------------------------------------------------------
# Tracy-Widom beta = 1 (Bornemann 2010: Fredholm determinant by Gauss-Legendre quadrature)
# ---------------------------------------------------------------------------------------------
_TW_NODES = 80


@lru_cache(maxsize=1)
def _gauss_legendre_unit() -> tuple[np.ndarray, np.ndarray]:
    t, w = np.polynomial.legendre.leggauss(_TW_NODES)
    return (t + 1.0) / 2.0, w / 2.0  # on [0, 1]


def _tw1_log_cdf_and_sf(s: float) -> tuple[float, float]:
    """``(log F_1(s), 1 - F_1(s))`` with ``F_1(s) = det(I - K_s)``, ``K(x, y) = Ai((x + y)/2) / 2`` on (s, inf).

    Bornemann (2010, Math. Comp. 79): Nystrom discretisation with Gauss-Legendre
    on ``(s, s + L)``, ``L = max(8, 2(16 - s))`` so that the truncated kernel is below ``Ai(16) ~ 1e-19``;
    80 nodes resolve the Airy oscillations for s >= -12.  The determinant is taken from the
    eigenvalues ``mu`` of the symmetrised matrix, ``log F = sum log1p(-mu)``, and
    ``1 - F = -expm1(log F)``: no cancellation in the upper tail, where ``mu`` are tiny.
    """
    from scipy import special  # imported here: every command's parser imports this module (through the GOE config)

    length = max(8.0, 2.0 * (16.0 - s))
    t, w = _gauss_legendre_unit()
    x = s + length * t
    sw = np.sqrt(length * w)
    kernel = 0.5 * special.airy(0.5 * (x[:, None] + x[None, :]))[0]
    mu = np.linalg.eigvalsh(sw[:, None] * kernel * sw[None, :])
    if np.max(mu) >= 1.0:  # far lower tail (s < -9): 1 - mu underflows, F_1 is 0 to double precision
        return -math.inf, 1.0
    log_cdf = float(np.sum(np.log1p(-mu)))
    return log_cdf, float(-np.expm1(log_cdf))


def tracy_widom1_cdf(s: float) -> float:
    """``F_1(s)``, the Tracy-Widom beta = 1 CDF (Bornemann's quadrature, absolute error ~1e-15)."""
    return math.exp(_tw1_log_cdf_and_sf(float(s))[0])


def tracy_widom1_sf(s: float) -> float:
    """``1 - F_1(s)``, accurate in relative terms far into the upper tail."""
    return _tw1_log_cdf_and_sf(float(s))[1]


def tracy_widom1_quantile(p: float) -> float:
    """``F_1^{-1}(p)`` for ``p`` in [1e-10, 1); solved on ``log`` of the smaller tail for accuracy."""
    if not 1e-10 <= p < 1.0:
        raise InputError(f"p must be in [1e-10, 1), got {p!r}")
    if p < 0.5:

        def g(s: float) -> float:
            return _tw1_log_cdf_and_sf(s)[0] - math.log(p)

        from scipy import optimize

        return float(optimize.brentq(g, -8.0, 60.0, xtol=1e-13, rtol=1e-13))
    return tracy_widom1_upper_quantile(1.0 - p)


# The smallest tail probability the Tracy-Widom tail resolves in double precision (1 − F_1(s) underflows near s = 105).
MIN_TAIL = 1e-300


@lru_cache(maxsize=256)
def tracy_widom1_upper_quantile(q: float) -> float:
    """The ``s`` with ``1 - F_1(s) = q`` for ``q`` in (0, 1/2], solved on ``log q`` so that tiny ``q`` (a
    ρ/2 far below machine epsilon, where ``1 - q`` rounds to 1) keeps its full relative accuracy.  Memoised (about
    0.1 s a solve): τ at every d of a figure needs the same quantile of ρ/2."""
    if not MIN_TAIL <= q <= 0.5:
        raise InputError(f"q must be in [{MIN_TAIL:g}, 0.5], got {q!r}")
    tail = math.log(q)

    def g(s: float) -> float:
        return math.log(_tw1_log_cdf_and_sf(s)[1]) - tail

    # log(1 - F_1(s)) ≈ −(2/3)s^{3/2} far in the tail: this upper end lies just beyond the root for every q > 0
    upper = min(max(60.0, (1.5 * -tail) ** (2 / 3) + 5.0), 103.0)  # 1 − F_1(103) ≈ 5e-306 > 0 in double precision
    from scipy import optimize

    return float(optimize.brentq(g, -8.0, upper, xtol=1e-13, rtol=1e-13))


def _tw_argument(u: float, d: int) -> float:
    """Unit-GOE edge scaling: ``lambda_max(A) ~ sqrt(2n) + TW1 / (sqrt(2) n^(1/6))`` (Tracy & Widom 1996)."""
    return (u - math.sqrt(2 * d)) * math.sqrt(2) * d ** (1.0 / 6.0)


def largest_eigenvalue_cdf_tw(x: float, d: int) -> float:
    """Tracy-Widom approximation of :func:`largest_eigenvalue_cdf` (same ``G`` normalisation).

    ``F_G(x) ~ F_1((x/sqrt(2) - sqrt(2d)) sqrt(2) d^(1/6)) = F_1((x - 2 sqrt(d)) d^(1/6))``; error O(d^(-2/3))
    in the TW variable (about 0.02 in x at d = 100, see tests).
    """
    d = _check_d(d)
    return tracy_widom1_cdf(_tw_argument(float(x) / math.sqrt(2), d))


# ---------------------------------------------------------------------------------------------
# Monte Carlo of the noise itself
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BinomialEstimate:
    """A Monte Carlo probability with its two-sided Clopper-Pearson interval at ``level``."""

    successes: int
    trials: int
    estimate: float
    lower: float
    upper: float
    level: float


def _binomial_estimate(successes: int, trials: int, level: float) -> BinomialEstimate:
    if not 0.0 < level < 1.0:
        raise InputError(f"level must be in (0, 1), got {level!r}")
    from scipy import stats

    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(confidence_level=level, method="exact")
    return BinomialEstimate(int(successes), int(trials), successes / trials, float(ci.low), float(ci.high), level)


def sample_goe_extreme_eigenvalues(
    d: int, size: int, rng: np.random.Generator, sigma: float = 1.0, batch: int | None = None
) -> np.ndarray:
    """``(size, 2)`` array of ``(lambda_min, lambda_max)`` of ``N = (Z + Z^T)/sqrt(2)``, ``Z_ij ~ N(0, sigma^2)``.

    Exactly the noise of [RW] Algorithm 6 (all d^2 entries of Z drawn), batched ``eigvalsh`` in chunks
    of about 2^21 matrix entries to bound memory.
    """
    d = _check_d(d)
    sigma = _sigma(sigma)
    if size < 0:
        raise InputError(f"size must be >= 0, got {size}")
    batch = max(1, (1 << 21) // (d * d)) if batch is None else batch
    out = np.empty((size, 2))
    for start in range(0, size, batch):
        m = min(batch, size - start)
        z = rng.standard_normal((m, d, d)) * sigma
        eig = np.linalg.eigvalsh((z + np.swapaxes(z, 1, 2)) / math.sqrt(2))
        out[start : start + m, 0] = eig[:, 0]
        out[start : start + m, 1] = eig[:, -1]
    return out


def monte_carlo_cdf(x: float, d: int, trials: int, rng: np.random.Generator, level: float = 0.99) -> BinomialEstimate:
    """Monte Carlo ``P[lambda_max(G) <= x]`` with a Clopper-Pearson interval (independent check of the exact CDF)."""
    lam_max = sample_goe_extreme_eigenvalues(d, trials, rng)[:, 1]
    return _binomial_estimate(int(np.sum(lam_max <= x)), trials, level)


def spectral_norm_coverage(
    d: int, threshold: float, trials: int, rng: np.random.Generator, sigma: float = 1.0, level: float = 0.99
) -> BinomialEstimate:
    """Monte Carlo ``P[||N||_2 <= threshold]`` for Algorithm 6's noise ``N`` at ``sigma_3 = sigma`` ([RW] Lemma 20)."""
    ext = sample_goe_extreme_eigenvalues(d, trials, rng, sigma)
    norm = np.maximum(-ext[:, 0], ext[:, 1])
    return _binomial_estimate(int(np.sum(norm <= threshold)), trials, level)


# ---------------------------------------------------------------------------------------------
# tau of [RW] Lemma 20
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tau:
    """``tau`` with ``P[lambda_max(N) <= tau] = 1 - rho/2`` for Algorithm 6's noise at ``sigma_3 = sigma``."""

    d: int
    rho: float
    sigma: float
    tau: float
    method: str

    def as_dict(self) -> dict[str, float | int | str]:
        return {"d": self.d, "rho": self.rho, "sigma": self.sigma, "tau": self.tau, "method": self.method}


def _tau_unit_tw(d: int, rho: float) -> float:
    """Tracy-Widom root in the unit-GOE variable u."""
    s = tracy_widom1_upper_quantile(rho / 2.0)
    return math.sqrt(2 * d) + s / (math.sqrt(2) * d ** (1.0 / 6.0))


def _tau_unit_exact(d: int, rho: float, dps: int | None) -> float:
    """Exact root of ``log(1 - F_unit(u)) = log(rho/2)`` by Brent's method.

    Working on the log of the upper tail makes the function nearly linear in u (Brent converges in
    a handful of evaluations) and keeps the relative accuracy of tiny ``rho``.  Extra digits
    ``-log10(rho)`` keep ``1 - F`` relatively accurate.  Bracket grown from the Tracy-Widom guess.
    """
    import mpmath

    target = math.log(rho / 2.0)
    extra = int(math.ceil(-math.log10(rho)))

    def g(u: float) -> float:
        work = default_dps(d, u) + extra if dps is None else dps
        with mpmath.workdps(work + 20):
            sf = 1 - unit_goe_cdf_mp(mpmath.mpf(u), d, work)
            if sf <= 0:
                return -math.inf
            return float(mpmath.log(sf)) - target

    guess = _tau_unit_tw(d, rho)
    lo, hi, step = guess - 0.25, guess + 0.25, 0.5
    g_lo, g_hi = g(lo), g(hi)
    while g_lo < 0:
        lo, step = lo - step, 2 * step
        g_lo = g(lo)
    while g_hi > 0:
        hi, step = hi + step, 2 * step
        g_hi = g(hi)
    from scipy import optimize

    return float(optimize.brentq(g, lo, hi, xtol=1e-13, rtol=1e-13))


def tau(
    d: int,
    rho: float,
    sigma: float = 1.0,
    method: Method = "auto",
    exact_max_d: int = EXACT_MAX_D,
    dps: int | None = None,
) -> Tau:
    """``tau = F^{-1}(1 - rho/2)``, F the CDF of ``lambda_max(N)``, ``N = (Z + Z^T)/sqrt(2)``, ``Z_ij ~ N(0, sigma^2)``.

    [RW] Lemma 20: ``||N||_2 <= tau`` with probability at least ``1 - rho`` (union of the two tails,
    lambda_1 and -lambda_d being identically distributed).  Since ``N = sigma sqrt(2) A`` (A the unit
    GOE), ``tau = sigma sqrt(2) u*`` with ``F_unit(u*) = 1 - rho/2``; solved to ~1e-13 relative.
    ``method``: "exact" (Chiani 2014, Theorem 2), "tracy-widom" (Bornemann's F_1 with edge scaling),
    or "auto" (exact for ``d <= exact_max_d``).
    """
    d, rho, sigma = _check_d(d), _rho(rho), _sigma(sigma)
    if method not in ("auto", "exact", "tracy-widom"):
        raise InputError(f"method must be one of 'auto', 'exact', 'tracy-widom', got {method!r}")
    if method == "auto":
        method = "exact" if d <= exact_max_d else "tracy-widom"
    u = _tau_unit_exact(d, rho, dps) if method == "exact" else _tau_unit_tw(d, rho)
    threshold = sigma * math.sqrt(2) * u
    if method == "exact":
        threshold = _held(d, rho, sigma, threshold)
    return Tau(d=d, rho=rho, sigma=sigma, tau=threshold, method=method)


#: Relative room below the exact τ at which the union bound is proven (2⁻⁵⁰: eight units of roundoff), so that a τ
#: scaled by another σ and divided by it again in a check (two roundings) still lies where the bound holds.
TAU_ROOM = 2.0**-50


def _held(d: int, rho: float, sigma: float, threshold: float) -> float:
    """The root's ``threshold`` raised, in doubling numbers of ulps, until the union bound 2(1 − F) at
    threshold·(1 − :data:`TAU_ROOM`) is proven at most ρ (:func:`failure_probability_bounds`): the root is solved to
    ~1e-13 and may lie on either side of the exact quantile, where Lemma 20's bound would exceed ρ by that much.
    P[‖N‖₂ > t] and its bound fall with t, so the bound holds at every threshold above the one checked."""
    raised, step = threshold, 1.0
    while failure_probability_bounds(d, raised * (1 - TAU_ROOM), sigma)[1] > rho:
        raised, step = threshold + step * math.ulp(threshold), 2 * step
    return raised


@lru_cache(maxsize=64)
def unit_tau(d: int, rho: float) -> Tau:
    """:func:`tau` at σ₃ = 1 with the default method, memoised: each exact solve costs ~0.2–3 s.

    σ₃τ is the threshold at noise scale σ₃ (τ scales linearly with σ₃).
    """
    return tau(int(d), float(rho))


def spectral_norm_probability_bounds(d: int, threshold: float, sigma: float = 1.0) -> tuple[float, float]:
    """Exact bounds on ``P[||N||_2 <= threshold]`` from the CDF of lambda_max ([RW] Lemma 20's proof).

    ``{||N|| <= t} = {lambda_max <= t} minus {lambda_min < -t}`` and ``-lambda_min ~ lambda_max``, so
    ``2 F(t/sigma) - 1 <= P[||N||_2 <= t] <= F(t/sigma)``.  At ``t = tau``: ``1 - rho <= P <= 1 - rho/2``.
    """
    sigma = _sigma(sigma)
    f = float(largest_eigenvalue_cdf(threshold / sigma, d))
    return max(0.0, 2.0 * f - 1.0), f


def failure_probability_bounds(d: int, threshold: float, sigma: float = 1.0) -> tuple[float, float]:
    """Doubles (lower, upper) around ``P[||N||_2 > threshold]``: ``1 - F <= P <= 2(1 - F)`` (the union bound of
    [RW] Lemma 20's proof, :func:`spectral_norm_probability_bounds`), F = F_unit(t/(sigma sqrt 2)) (Chiani 2014,
    Theorem 2) with t/(sigma sqrt 2) formed from the doubles and F evaluated at the exact CDF's working precision
    (:func:`default_dps`, at least 80 digits beyond those its recursions lose), each end rounded outward to a double:
    no float subtraction near 1 moves them.  *Sound for* the real-valued noise of that sigma, to the accuracy of
    that evaluation (its digits far beyond a double's; ``tests/test_goe.py`` checks 60 more change nothing)."""
    import mpmath  # deferred: the GOE config imports this module for every command's parser (module notes)

    d, sigma = _check_d(d), _sigma(sigma)
    u = float(threshold) / (sigma * math.sqrt(2))
    work = default_dps(d, u)
    with mpmath.workdps(work + 20):
        tail = 1 - unit_goe_cdf_mp(mpmath.mpf(threshold) / (mpmath.mpf(sigma) * mpmath.sqrt(2)), d, work)
        low, high = tail, 2 * tail
        below = float(low) if mpmath.mpf(float(low)) <= low else math.nextafter(float(low), -math.inf)
        above = float(high) if mpmath.mpf(float(high)) >= high else math.nextafter(float(high), math.inf)
    return max(0.0, below), min(1.0, above)
