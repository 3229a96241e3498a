"""Anytime-valid confidence sequences for a binomial rate: intervals that hold at every sample size at once.

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

The prior is Jeffreys' Beta(1/2, 1/2) (the Krichevsky–Trofimov mixture): its regret against the best fixed q is
about ½ log n, so the interval at n is about √((log(1/α) + ½ log n) / (log(1/α))) times as wide as a fixed-n interval
at the same level: the price of being valid at every n (measured against Clopper–Pearson in
``benchmarks/confidence_sequences.py``).

One-sided use.  A claim "p ≤ p0" is refuted at level α by lo > p0: for a = b ≤ 1 and a fixed n, the event
{M_n(p0) ≥ 1/α and s > n p0} grows with s (the ratio M_n(p0; s + 1)/M_n(p0; s) = (a + s) / ((b + n − s − 1) ·
p0/(1 − p0)) exceeds 1 when s ≥ n p0), so coupling a Bernoulli(p) sequence below a Bernoulli(p0) one shows that its
probability under any p ≤ p0 is at most that under p0, at most α.  The lower end is non-decreasing in the successes
at fixed failures (tested), which lets a caller subtract an allowance from the successes (the δ excess of the event
test, :mod:`pdp_audit.audits.blackbox.events`) and keep the bound valid.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special
from scipy.special import betaln

#: The prior Beta(a, a) of the mixture: Jeffreys' (the Krichevsky–Trofimov mixture).
JEFFREYS = 0.5
#: Widening of each end's logit, relative to max(1, |logit|): the root search finds the logit to ~1e-13 and betaln is
#: accurate to ~1e-14 relative of terms up to ~1e8 (n log n at n = 1e7), so the margin keeps each end on its
#: conservative side; near 0 or 1 it is a relative margin of the small side (p, or 1 − p).
ROUNDING = 1e-9
#: The root search's range of logits: rates within about 1e-300 of 0 or 1 (beyond it an end is reported as 0 or 1).
LARGEST_LOGIT = 690.0


def log_mixture(successes: float, failures: float, p: float, prior: float = JEFFREYS) -> float:
    """log M_n(p) = log B(a + s, a + f) − log B(a, a) − s log p − f log(1 − p), the log of the Beta(a, a)-mixture
    martingale of ``successes`` s and ``failures`` f against the rate ``p`` (module docstring; Robbins 1970, §3)."""
    if not 0 < p < 1:
        return _log_mixture_logit(successes, failures, math.copysign(math.inf, p - 0.5), prior)
    return _log_mixture_logit(successes, failures, math.log(p) - math.log1p(-p), prior)


def _log_mixture_logit(successes: float, failures: float, logit: float, prior: float) -> float:
    """log M_n at the rate whose logit is ``logit``: log p = −log(1 + e^−x), log(1 − p) = −log(1 + e^x), accurate
    at either end (a rate of 1e-300 or one of 1 − 1e-300)."""
    s, f = float(successes), float(failures)
    value = float(betaln(prior + s, prior + f) - betaln(prior, prior))
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


def _end_logit(successes: float, failures: float, alpha: float, prior: float, upper: bool) -> float:
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


def binomial_lower(successes: float, trials: float, alpha: float, prior: float = JEFFREYS) -> float:
    """The lower end of the confidence sequence at level ``alpha`` after ``successes`` in ``trials``: the smallest
    p with M_n(p) < 1/α (0 when that holds at p → 0).  Real counts are allowed."""
    _check(successes, trials, alpha)
    return _rate(_end_logit(successes, float(trials) - float(successes), alpha, prior, upper=False))


def binomial_upper(successes: float, trials: float, alpha: float, prior: float = JEFFREYS) -> float:
    """The upper end of the confidence sequence at level ``alpha``: the largest p with M_n(p) < 1/α (1 when that
    holds at p → 1)."""
    _check(successes, trials, alpha)
    return _rate(_end_logit(successes, float(trials) - float(successes), alpha, prior, upper=True))


def binomial_sequence(successes: float, trials: float, alpha: float, prior: float = JEFFREYS) -> tuple[float, float]:
    """(lo, hi): the confidence sequence's interval at ``trials`` draws; over every ``trials`` of one run of draws at
    once, it holds the rate with probability ≥ 1 − ``alpha`` (Ville's inequality; module docstring)."""
    return binomial_lower(successes, trials, alpha, prior), binomial_upper(successes, trials, alpha, prior)
