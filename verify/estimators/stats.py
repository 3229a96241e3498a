"""Statistics behind every verdict: exact binomial intervals and p-values, Holm's correction.

Clopper–Pearson intervals are the beta quantiles of Clopper & Pearson (1934), computed as statsmodels'
``proportion_confint(method="beta")`` computes them (the same scipy calls, so the same bits; tested against it); they
are exact, i.e. their coverage is at least the nominal level for every true proportion.  Holm's step-down procedure
(Holm 1979) is statsmodels' ``multipletests(method="holm")`` in a few lines of numpy, likewise tested against it:
importing statsmodels took a third of a second of every command's start.  For the same reason scipy.stats (most of a
second of a process's start) is imported only where a function here needs it: the beta quantiles are scipy.special's
inverses of the regularised incomplete beta function (``betaincinv``, ``betainccinv``), the numbers ``stats.beta.ppf``
and ``isf`` give (tests/test_stats_reference.py compares the bits), so the pure-DP audits, which use nothing else of
scipy.stats, never import it.
"""

from __future__ import annotations

import math
from typing import Callable, Literal

import numpy as np
from scipy import optimize, special

Side = Literal["two-sided", "lower", "upper"]

# Smallest p-value reported by interval inversion: beyond it the beta quantiles lose accuracy,
# and nothing is decided differently at 1e-60 than at 1e-300.
PVALUE_FLOOR = 1e-60


def clopper_pearson(count, nobs, alpha: float, side: Side = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson bounds for ``count`` successes in ``nobs`` trials at confidence 1 − alpha.

    ``side="upper"`` gives the one-sided interval [0, hi]; ``"lower"`` gives [lo, 1].  Vectorised.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    count = np.asarray(count, dtype=float)
    nobs = np.broadcast_to(np.asarray(nobs, dtype=float), count.shape)
    two_sided_alpha = alpha if side == "two-sided" else 2 * alpha
    # a one-sided bound computes its own end only: the other is fixed, and the tail-curve and pair checks invert
    # one-sided bounds thousands of times per audit (each beta quantile is most of a call's cost)
    with np.errstate(divide="ignore", invalid="ignore"):  # the degenerate ends (count 0 or nobs) are set below
        if side == "upper":
            lo = np.zeros(count.shape)
        else:
            lo = _beta_quantile(_ppf, two_sided_alpha / 2, count, nobs - count + 1)
            lo = _finite(np.where((count == 0) | np.isnan(lo), 0.0, lo))
        if side == "lower":
            hi = np.ones(count.shape)
        else:
            hi = _beta_quantile(_isf, two_sided_alpha / 2, count + 1, nobs - count)
            hi = _finite(np.where((count == nobs) | np.isnan(hi), 1.0, hi))
    return lo, hi


def _finite(x: np.ndarray) -> np.ndarray:
    """``x`` with ±inf as ±(largest float), as ``np.nan_to_num`` maps them (``x`` has no NaN left).  A beta quantile
    lies in [0, 1], so this is a guard kept for the same bits, not a case seen; the NaN (invalid parameters) are filled
    by the caller's ``np.where``: ``np.nan_to_num`` cost several times that on the tail-curve check's small arrays,
    thousands of calls per audit."""
    if np.isinf(x).any():
        x = np.where(np.isinf(x), np.copysign(np.finfo(float).max, x), x)
    return x


def _ppf(q, a, b):
    """The Beta(a, b) quantile at q: x with I_x(a, b) = q, I the regularised incomplete beta function."""
    return _or_stats(special.betaincinv(a, b, q), "ppf", q, a, b)


def _isf(q, a, b):
    """The Beta(a, b) quantile at 1 − q: x with 1 − I_x(a, b) = q (without the rounding of 1 − q)."""
    return _or_stats(special.betainccinv(a, b, q), "isf", q, a, b)


def _or_stats(x, method: str, q, a, b):
    """``x`` (valid a, b > 0), with ``stats.beta``'s own ``method`` where scipy.special gave up (NaN: its root
    finding did not converge, at levels below 1e-130 with a ≤ 10 and b ≥ 1e3, where scipy.stats' policy returns its
    last iterate)."""
    failed = np.isnan(x)
    if not failed.any():
        return x
    from scipy import stats

    if np.ndim(x) == 0:
        return getattr(stats.beta, method)(q, a, b)
    x = np.array(x)
    x[failed] = getattr(stats.beta, method)(np.broadcast_to(q, x.shape)[failed], a[failed], b[failed])
    return x


def _beta_quantile(quantile: Callable, q: float | np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``stats.beta.ppf(q, a, b)`` (``quantile`` = :func:`_ppf`) or ``isf`` (:func:`_isf`), for 0 < q < 1, in the
    same bits without the generic wrapper: the wrapper computes the same quantile on the valid parameters (a, b > 0)
    and NaN elsewhere, but its argument checks and broadcasting cost several times
    the quantile's own computation, and every tail-curve check inverts thousands of these bounds (a sweep cell's
    largest cost).  ``q``: a number, or an array of the shape of ``a`` and ``b`` (one level per element)."""
    valid = (a > 0) & (b > 0)
    out = np.full(a.shape, np.nan)
    if valid.all():
        return quantile(q, a, b) + 0.0  # + 0.0 as the wrapper's ``* scale + loc``: a −0.0 becomes 0.0
    at = q[valid] if isinstance(q, np.ndarray) and q.ndim else q
    out[valid] = quantile(at, a[valid], b[valid]) + 0.0
    return out


def beta_ppf(q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``stats.beta.ppf(q, a, b)`` bit for bit, elementwise over arrays of one shape with 0 < q < 1 (NaN where a or b
    is not positive), without scipy's generic wrapper (:func:`_beta_quantile`)."""
    q, a, b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q, a, b)))
    return _beta_quantile(_ppf, q, a, b)


def beta_isf(q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``stats.beta.isf(q, a, b)`` bit for bit, as :func:`beta_ppf`."""
    q, a, b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (q, a, b)))
    return _beta_quantile(_isf, q, a, b)


def binomial_pvalue_exceeds(count: int, nobs: int, p0: float) -> float:
    """Exact p-value of H0: p ≤ p0 against p > p0, from ``count`` successes: P[Bin(nobs, p0) ≥ count]."""
    if count <= 0:
        return 1.0
    from scipy import stats  # here only: most commands never ask for a binomial tail (see the module's docstring)

    return float(stats.binom.sf(count - 1, nobs, p0))


def bernoulli_relative_entropy(x, q):
    """kl(x ‖ q) = x log(x/q) + (1 − x) log((1 − x)/(1 − q)), the relative entropy of Bernoulli(x) to Bernoulli(q)
    (0 log 0 = 0), for 0 ≤ x ≤ 1 and 0 < q < 1, elementwise; log1p keeps its precision where x and q are near 0."""
    x, q = np.asarray(x, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        right = np.where(x < 1, (1 - x) * (np.log1p(-x) - np.log1p(-q)), 0.0)
        left = np.where(x > 0, x * (np.log(np.where(x > 0, x, 1.0)) - np.log(q)), 0.0)
    return left + right


#: Halvings of the relative-entropy bound's search interval [mean, 1]: 2^-80 of it, below a rounding's worth of any
#: bound of at least 1e-12.
HALVINGS = 80
#: Halvings between the array bisection's looks for its fixed point (:func:`relative_entropy_upper`).
CHECK_EVERY = 8


def relative_entropy_upper(mean, n, alpha: float):
    """One-sided (1 − ``alpha``) upper confidence bound on E X from ``n`` independent X ∈ [0, 1] of sample mean
    ``mean`` (elementwise over arrays): the largest q ≥ mean with n·kl(mean ‖ q) ≤ log(1/alpha).  Hoeffding (1963),
    Theorem 1 (his bound (2.1), applied to 1 − X): P(X̄ ≤ μ − t) ≤ exp(−n·kl(μ − t ‖ μ)) for any law on [0, 1] of
    mean μ (the Bernoulli law is the worst, by convexity of e^{λx}), and kl(x ‖ μ) falls as x rises to μ, so μ > q
    implies X̄ below the point where n·kl(· ‖ μ) = log(1/alpha): probability at most alpha.  Near a mean of 0 it is
    about log(1/alpha)/n, against 7·log(2/alpha)/(3(n − 1)) for the empirical Bernstein bound (Maurer & Pontil 2009,
    Theorem 4), which pays to estimate a variance.  Found by bisection on q (:data:`HALVINGS`), the upper end kept:
    the conservative side."""
    if np.ndim(mean) == 0 and np.ndim(n) == 0:
        return _relative_entropy_upper_scalar(float(mean), float(n), alpha)
    x = np.clip(np.asarray(mean, dtype=float), 0.0, 1.0)
    level = math.log(1 / alpha) / np.maximum(np.asarray(n, dtype=float), 1.0)
    low, high = x.copy(), np.ones_like(x)
    # kl(x ‖ middle) as bernoulli_relative_entropy computes it, bit for bit, with what depends on x alone taken once:
    # the band of a look reads hundreds of these bisections, each of 80 halvings of small arrays
    positive, below_one = x > 0, x < 1
    with np.errstate(divide="ignore", invalid="ignore"):
        complement, log1p_neg_x, log_x = 1 - x, np.log1p(-x), np.log(np.where(positive, x, 1.0))
        seen = (low, high)
        for halving in range(1, HALVINGS + 1):
            middle = (low + high) / 2
            right = np.where(below_one, complement * (log1p_neg_x - np.log1p(-middle)), 0.0)
            left = np.where(positive, x * (log_x - np.log(middle)), 0.0)
            inside = left + right <= level
            low, high = np.where(inside, middle, low), np.where(inside, high, middle)
            # low only rises and high only falls, so ends unchanged over CHECK_EVERY halvings are unchanged at each
            # of them: a fixed point, which the remaining halvings would keep (about 64 of the 80 reach it)
            if halving % CHECK_EVERY == 0:
                if np.array_equal(low, seen[0]) and np.array_equal(high, seen[1]):
                    break
                seen = (low, high)
    bound = np.where((x >= 1) | (np.asarray(n) < 1), 1.0, high)
    return float(bound) if bound.ndim == 0 else bound


def _relative_entropy_upper_scalar(mean: float, n: float, alpha: float) -> float:
    """:func:`relative_entropy_upper` of one mean, bit for bit: the same bisection and the same IEEE operations
    (numpy's log and log1p, kl's terms in :func:`bernoulli_relative_entropy`'s order), with log x and log1p(−x)
    taken once instead of at every halving and no array per step -- the pass in looks reads thousands of these
    bounds, and 80 halvings of a dozen 0-d array operations each cost more than the audit's draws."""
    x = min(max(mean, 0.0), 1.0) if mean == mean else mean  # np.clip's result; NaN stays NaN
    level = math.log(1 / alpha) / np.maximum(n, 1.0)
    low, high = x, 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x, log1p_neg_x = np.log(x if x > 0 else 1.0), np.log1p(-x)
        for _ in range(HALVINGS):
            middle = (low + high) / 2
            left = x * (log_x - np.log(middle)) if x > 0 else 0.0
            right = (1 - x) * (log1p_neg_x - np.log1p(-middle)) if x < 1 else 0.0
            # an end unchanged is a fixed point: every later halving takes the same middle to the same side
            if left + right <= level:
                if middle == low:
                    break
                low = middle
            else:
                if middle == high:
                    break
                high = middle
    return 1.0 if (x >= 1 or n < 1) else float(high)


#: The tolerance in log α of :func:`pvalue_by_inversion`'s search: its p-value is at most e^1e-6 times the smallest
#: α that refutes (never below it).
PVALUE_XTOL = 1e-6


def pvalue_by_inversion(lower_bound: Callable[[float], float], threshold: float) -> float:
    """Smallest α at which a family of (1 − α) lower confidence bounds excludes ``threshold``.

    ``lower_bound(alpha)`` must be non-decreasing in α (a bigger α gives a shorter interval).  The
    result is a valid p-value for H0: parameter ≤ threshold whenever every bound in the family is a
    valid one-sided bound.  Found by Brent's method in log α on the gap ``lower_bound(α) − threshold``.
    Where the bound *reaches* the threshold without crossing it (a bound floored at 0 tested against a claim of 0:
    ε = 0, δ = 0), the gap is 0 on a whole range of α, where Brent's method stops at once: the edge of
    ``lower_bound(α) > threshold`` is then found by bisection on that predicate.  Brent's root is within its
    tolerance of the crossing on either side, and on the lower side the interval at that α does not exclude the
    threshold (the p-value is then smaller than the smallest α that refutes: a refutation at α just above it would
    not be one); so the returned α is always one whose interval excludes the threshold, ``lower_bound(p) >
    threshold`` as computed, and a claim is refuted only at such an α.
    """
    top, floor = math.log(1 - 1e-12), math.log(PVALUE_FLOOR)
    if lower_bound(1 - 1e-12) <= threshold:
        return 1.0
    if lower_bound(PVALUE_FLOOR) > threshold:
        return PVALUE_FLOOR

    def gap(log_alpha: float) -> float:
        return lower_bound(math.exp(log_alpha)) - threshold

    low = floor  # the bound sits on the threshold at the floor: bisect on "the interval excludes it"
    if gap(floor) < 0:
        low = optimize.brentq(gap, floor, top, xtol=PVALUE_XTOL)
        if gap(low) > 0:
            return math.exp(low)
    high = min(low + 4 * PVALUE_XTOL, top)  # past Brent's tolerance of the crossing, unless the gap is flat there
    high = high if gap(high) > 0 else top
    while high - low > PVALUE_XTOL:  # gap(low) ≤ 0 < gap(high)
        middle = (low + high) / 2
        low, high = (low, middle) if gap(middle) > 0 else (middle, high)
    return math.exp(high)


def holm(pvalues: list[float], alpha: float) -> tuple[list[bool], list[float]]:
    """Holm's step-down procedure: which nulls are rejected, and the adjusted p-values.

    With the p-values sorted, p_(1) ≤ … ≤ p_(m), the nulls (1) … (k−1) are rejected where k is the first index with
    p_(k) > α/(m − k + 1); the adjusted p-value of (i) is min(1, max_{j≤i} (m − j + 1) p_(j)) (Holm 1979).
    """
    if not pvalues:
        return [], []
    values = np.asarray(pvalues)
    order = np.argsort(values)
    ordered = values[order]
    factors = np.arange(len(ordered), 0, -1)
    kept = np.nonzero(ordered > alpha / factors)[0]
    first_kept = kept[0] if kept.size else len(ordered)
    reject, adjusted = np.empty(len(ordered), dtype=bool), np.empty(len(ordered))
    reject[order] = np.arange(len(ordered)) < first_kept
    adjusted[order] = np.minimum(np.maximum.accumulate(ordered * factors), 1.0)
    return [bool(r) for r in reject], [float(p) for p in adjusted]
