"""Anytime-valid confidence sequences -- of a binomial rate (a mixture martingale) and of a bounded mean (betting):
intervals that hold at every sample size at once.

A fixed-n interval (Clopper–Pearson) covers the rate at the one sample size it was computed for; re-read after
every block of draws, and the run stopped the first time it excludes a value, it excludes the true rate far more
often than α (the law of the iterated logarithm makes every fixed-n interval miss eventually).  A confidence
sequence (Darling & Robbins 1967; Howard, Ramdas, McAuliffe & Sekhon 2021, *Ann. Statist.* 49(2), §2) is a family of
intervals C_1, C_2, … with P(p ∈ C_n for every n) ≥ 1 − α, so that a run may stop whenever its intervals decide,
and report the interval at the stopping time, at level α.

The mixture martingale (Robbins 1970, "Statistical methods related to the law of the iterated logarithm", §3).
For X_1, X_2, … i.i.d. Bernoulli(p), with s successes and f failures after n = s + f draws, and a prior
Beta(a, b) on an alternative rate q,

    M_n(p) = ∫ q^s (1 − q)^f dBeta(a, b)(q) / (p^s (1 − p)^f) = B(a + s, b + f) / (B(a, b) p^s (1 − p)^f)

is a nonnegative martingale of mean 1 under p (a mixture of the likelihood ratios of q against p, each a martingale),
so by Ville's inequality P(∃n: M_n(p) ≥ 1/α) ≤ α.  The confidence sequence is C_n = {p : M_n(p) < 1/α}.  log M_n(p)
is, up to a constant, −s log p − f log(1 − p): convex in p, so C_n is an interval (lo, hi) around the maximum
likelihood s/n, whose ends are the two roots of log M_n(p) = log(1/α), found by a root search in the logit of p (so
that rates near 0 or 1 keep their relative precision).  B is evaluated as exp(betaln) (scipy.special.betaln).

The prior is Jeffreys' Beta(1/2, 1/2) by default (the Krichevsky–Trofimov mixture): its regret against the best
fixed q is about ½ log n, so the interval at n is about √((log(1/α) + ½ log n) / (log(1/α))) times as wide as a fixed-n
interval at the same level: the price of being valid at every n (measured against Clopper–Pearson in
``benchmarks/confidence_sequences.py``).  A caller may pass any Beta(a, b) (``prior=(a, b)``; a number c is
Beta(c, c)): M_n stays a mixture of likelihood-ratio martingales, and at the MLE it is at most 1 (each ratio is),
which the root search's bracket needs.  A prior centred on the rate a caller decides about narrows the interval
near it (the coverage check's, :mod:`pdp_audit.verify.evidence.coverage_sequential`).

One-sided use.  A claim "p ≤ p0" is refuted at level α by lo > p0: for a = b ≤ 1 (or any a(1 − p0) ≥ (b − 1)p0, a
prior whose mean is at least p0 among them) and a fixed n, the event
{M_n(p0) ≥ 1/α and s > n p0} grows with s (the ratio M_n(p0; s + 1)/M_n(p0; s) = (a + s) / ((b + n − s − 1) ·
p0/(1 − p0)) exceeds 1 when s ≥ n p0), so coupling a Bernoulli(p) sequence below a Bernoulli(p0) one shows that its
probability under any p ≤ p0 is at most that under p0, at most α.  The lower end is non-decreasing in the successes
at fixed failures (tested), which lets a caller subtract an allowance from the successes (the δ excess of the event
test, :mod:`pdp_audit.audits.blackbox.events`) and keep the bound valid.

Bounded means (:func:`betting_interval`, :func:`log_hedged_capital`): the hedged betting capital of Waudby-Smith &
Ramdas (2023, JRSS-B, §4), described beside its code below.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special
from scipy.special import betaln

#: The prior Beta(a, a) of the mixture: Jeffreys' (the Krichevsky–Trofimov mixture).
JEFFREYS = 0.5
#: A prior: Beta(c, c) for a number c, Beta(a, b) for a pair.
Prior = float | tuple[float, float]
#: Widening of each end's logit, relative to max(1, |logit|): the root search finds the logit to ~1e-13 and betaln is
#: accurate to ~1e-14 relative of terms up to ~1e8 (n log n at n = 1e7), so the margin keeps each end on its
#: conservative side; near 0 or 1 it is a relative margin of the small side (p, or 1 − p).
ROUNDING = 1e-9
#: The root search's range of logits: rates within about 1e-300 of 0 or 1 (beyond it an end is reported as 0 or 1).
LARGEST_LOGIT = 690.0


def log_mixture(successes: float, failures: float, p: float, prior: Prior = JEFFREYS) -> float:
    """log M_n(p) = log B(a + s, b + f) − log B(a, b) − s log p − f log(1 − p), the log of the Beta(a, b)-mixture
    martingale of ``successes`` s and ``failures`` f against the rate ``p`` (module docstring; Robbins 1970, §3)."""
    if not 0 < p < 1:
        return _log_mixture_logit(successes, failures, math.copysign(math.inf, p - 0.5), prior)
    return _log_mixture_logit(successes, failures, math.log(p) - math.log1p(-p), prior)


def _beta_prior(prior: Prior) -> tuple[float, float]:
    return (float(prior), float(prior)) if isinstance(prior, (int, float)) else (float(prior[0]), float(prior[1]))


def _log_mixture_logit(successes: float, failures: float, logit: float, prior: Prior) -> float:
    """log M_n at the rate whose logit is ``logit``: log p = −log(1 + e^−x), log(1 − p) = −log(1 + e^x), accurate
    at either end (a rate of 1e-300 or one of 1 − 1e-300)."""
    s, f = float(successes), float(failures)
    a, b = _beta_prior(prior)
    value = float(betaln(a + s, b + f) - betaln(a, b))
    if s > 0:
        value += s * float(np.logaddexp(0.0, -logit))
    if f > 0:
        value += f * float(np.logaddexp(0.0, logit))
    return value


def _check(successes: float, trials: float, alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, trials], got {successes} of {trials}")


def _end_logit(successes: float, failures: float, alpha: float, prior: Prior, upper: bool) -> float:
    """The logit of one end of C_n (−inf or +inf where the interval reaches 0 or 1): the root of log M_n = log(1/α)
    between the maximum likelihood and the far end, widened outward by ROUNDING × max(1, |logit|)."""
    s, f = float(successes), float(failures)
    if (f if upper else s) <= 0:
        return math.inf if upper else -math.inf
    level = -math.log(alpha)
    far = LARGEST_LOGIT if upper else -LARGEST_LOGIT

    def gap(logit: float) -> float:
        return _log_mixture_logit(s, f, logit, prior) - level

    if gap(far) < 0:
        return math.copysign(math.inf, far)
    mle = math.log(s) - math.log(f) if s > 0 and f > 0 else -far  # the mixture is below 1/α there (module docs)
    root = optimize.brentq(gap, *sorted((mle, far)), xtol=1e-13, rtol=1e-15)
    return root + math.copysign(ROUNDING * max(1.0, abs(root)), far)


def _rate(logit: float) -> float:
    return float(special.expit(logit))


def binomial_lower(successes: float, trials: float, alpha: float, prior: Prior = JEFFREYS) -> float:
    """The lower end of the confidence sequence at level ``alpha`` after ``successes`` in ``trials``: the smallest
    p with M_n(p) < 1/α (0 when that holds at p → 0).  Real counts are allowed."""
    _check(successes, trials, alpha)
    return _rate(_end_logit(successes, float(trials) - float(successes), alpha, prior, upper=False))


def binomial_upper(successes: float, trials: float, alpha: float, prior: Prior = JEFFREYS) -> float:
    """The upper end of the confidence sequence at level ``alpha``: the largest p with M_n(p) < 1/α (1 when that
    holds at p → 1)."""
    _check(successes, trials, alpha)
    return _rate(_end_logit(successes, float(trials) - float(successes), alpha, prior, upper=True))


def binomial_sequence(successes: float, trials: float, alpha: float, prior: Prior = JEFFREYS) -> tuple[float, float]:
    """(lo, hi): the confidence sequence's interval at ``trials`` draws; over every ``trials`` of one run of draws at
    once, it holds the rate with probability ≥ 1 − ``alpha`` (Ville's inequality; module docstring)."""
    return binomial_lower(successes, trials, alpha, prior), binomial_upper(successes, trials, alpha, prior)


# --- Bounded means: the betting confidence sequence -------------------------------------------------------------
#
# Waudby-Smith & Ramdas (2023), "Estimating means of bounded random variables by betting", JRSS-B 86(1), §4: for
# X_1, X_2, … in [0, 1] with conditional mean m, the capital of a gambler betting a predictable fraction λ_i on X_i
# exceeding m, K⁺_t(m) = Π (1 + λ⁺_i(m)(X_i − m)), and of one betting on it falling short, K⁻_t(m) =
# Π (1 − λ⁻_i(m)(X_i − m)), are nonnegative martingales under m (each factor has conditional mean 1 and is
# ≥ 1 − c > 0 with λ⁺_i ≤ c/m, λ⁻_i ≤ c/(1 − m)); so is the hedged capital K_t(m) = ½K⁺_t(m) + ½K⁻_t(m) (their §4.2,
# θ = ½), and by Ville's inequality {m : K_t(m) < 1/α} holds the mean at every t at once with probability ≥ 1 − α.
# The bets are their predictable plug-in (their eq. (26)): λ_i = min(√(2 log(2/α) / (σ̂²_{i−1} i log(1 + i))), c),
# c = ½, with μ̂_i = (½ + Σ_{j≤i} X_j)/(i + 1) and σ̂²_i = (¼ + Σ_{j≤i} (X_j − μ̂_j)²)/(i + 1).

#: The largest bet a unit of capital may stake, as a fraction of what the mean allows (their c).
BET_CAP = 0.5


def predictable_bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bets λ_1 … λ_t of the draws ``x`` (in [0, 1]): λ_i reads X_1 … X_{i−1} only."""
    x = np.asarray(x, dtype=float)
    t = np.arange(1, x.size + 1)
    means = (0.5 + np.cumsum(x)) / (t + 1)  # μ̂_i
    variances = (0.25 + np.cumsum((x - means) ** 2)) / (t + 1)  # σ̂²_i
    previous = np.concatenate([[0.25], variances[:-1]])  # σ̂²_{i−1}
    return np.minimum(np.sqrt(2 * math.log(2 / alpha) / (previous * t * np.log1p(t))), BET_CAP)


def log_hedged_capital(x: np.ndarray, means: np.ndarray, alpha: float) -> np.ndarray:
    """log K_t(m) of the hedged capital process for every t (rows) and every candidate mean m of ``means``
    (columns); the draws ``x`` in [0, 1], the bets :func:`predictable_bets` at ``alpha``."""
    x = np.asarray(x, dtype=float)[:, None]
    m = np.asarray(means, dtype=float)[None, :]
    bets = predictable_bets(x[:, 0], alpha)[:, None]
    with np.errstate(divide="ignore"):
        up = np.cumsum(np.log1p(np.minimum(bets, BET_CAP / m) * (x - m)), axis=0)
        down = np.cumsum(np.log1p(-np.minimum(bets, BET_CAP / (1 - m)) * (x - m)), axis=0)
    return np.logaddexp(up, down) - math.log(2)


def betting_interval(x: np.ndarray, alpha: float, grid: int = 1024) -> tuple[float, float]:
    """The betting confidence sequence's interval after all the draws ``x`` (in [0, 1]) at level ``alpha``.

    In a cell [g, h] of candidate means K⁺ falls and K⁻ rises with m (each factor does), so K(m) ≥ ½K⁺(h) + ½K⁻(g)
    there: a cell where that bound reaches 1/α holds no point of the sequence's set.  The capital is evaluated at
    ``grid`` + 1 points of [0, 1], then again at ``grid`` + 1 points of the first and of the last cell left open, and
    the interval runs from the first open sub-cell to the end of the last (a resolution of 1/grid²)."""
    _check(0, 0, alpha)
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return 0.0, 1.0
    bets = predictable_bets(x, alpha)
    cells = _open_cells(x, bets, np.linspace(0.0, 1.0, grid + 1), -math.log(alpha))
    if not cells:  # every cell excluded: the sequence has failed here (probability ≤ α); report the mean
        mean = float(x.mean())
        return mean, mean
    first = _open_cells(x, bets, np.linspace(*cells[0], grid + 1), -math.log(alpha))
    last = _open_cells(x, bets, np.linspace(*cells[-1], grid + 1), -math.log(alpha))
    return (first or cells)[0][0], (last or cells)[-1][1]


def _open_cells(x: np.ndarray, bets: np.ndarray, points: np.ndarray, level: float) -> list[tuple[float, float]]:
    """The cells [points[k], points[k + 1]] whose lower bound on log K stays below ``level`` (in order)."""
    inner = np.clip(points, 1e-12, 1 - 1e-12)  # the caps c/m and c/(1 − m) at the ends
    up, down = np.empty(points.size), np.empty(points.size)
    for at in range(0, points.size, _CHUNK):  # (draws × points) at most _CHUNK points wide: bounded memory
        m = inner[None, at : at + _CHUNK]
        with np.errstate(divide="ignore"):
            up[at : at + _CHUNK] = np.log1p(np.minimum(bets[:, None], BET_CAP / m) * (x[:, None] - m)).sum(axis=0)
            down[at : at + _CHUNK] = np.log1p(-np.minimum(bets[:, None], BET_CAP / (1 - m)) * (x[:, None] - m)).sum(
                axis=0
            )
    floor = np.logaddexp(up[1:], down[:-1]) - math.log(2)
    return [(float(points[k]), float(points[k + 1])) for k in np.flatnonzero(floor < level)]


#: Candidate means evaluated at once (memory of draws × _CHUNK floats).
_CHUNK = 64
