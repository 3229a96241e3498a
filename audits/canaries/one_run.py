"""The one-run audit: an ε lower bound from m canaries, each in the training set with probability 1/2, one run.

Setting (Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023,
arXiv:2305.08846, §2–3).  Each of m canaries is included independently with probability 1/2 (S ∈ {−1, +1}^m
uniform), the mechanism M (trained on the non-canary data and the included canaries) is (ε, δ)-DP with respect to
adding or removing one canary, and the auditor, from M's output alone (here: from the canaries' scores, computed
by a score function fixed in advance), makes r = k₊ + k₋ guesses T ∈ {−1, 0, +1}^m (‖T‖₁ = r): "in" for the k₊
highest scores, "out" for the k₋ lowest.  W = Σᵢ max(0, Tᵢ Sᵢ) is the number of correct guesses.

Theorem (their main result, Theorem 3.1, in its (ε, δ) form; the same expression is the p-value of the paper's
own code in its Appendix D, ``p_value_DP_audit(m, r, v, eps, delta)``, and jax-privacy's ``_one_run_p_value``).
With q = e^ε/(1 + e^ε) and f(v) = P[Binomial(r, q) ≥ v] (f(v) = 1 for v ≤ 0), for every integer v,

    P[W ≥ v]  ≤  f(v) + 2 m δ · max_{i = 1..v} (f(v − i) − f(v)) / i.

For δ = 0 this is the statement that W is stochastically dominated by Binomial(r, q): each guess is right with
probability at most e^ε/(1 + e^ε) given everything else, the generalisation form of DP the paper uses to avoid
group privacy.  (For i > v, f(v − i) = 1 and (1 − f(v))/i is below its value at i = v, so i ≤ v suffices.)

The bound here.  :func:`tail_bound` evaluates the right-hand side exactly from scipy's binomial tails (no normal
or other asymptotic approximation), with a relative margin of 1e-9 for their rounding.  For a number of guesses
fixed before the scores are seen, ε is rejected at level α when the bound at the observed W is ≤ α; the reported
lower bound is the largest rejected ε found by bisection (a rejected point, always).  Validity holds even where the
bound is not monotone in ε: an (ε₀, δ)-DP mechanism is (ε, δ)-DP for every ε ≥ ε₀, so the reported ε̂ exceeds ε₀
only if some ε ≥ ε₀ is rejected, i.e. W ≥ v*(ε) for the threshold v*(ε) of that ε; these events are nested (a
threshold count), so their union is one of them, of probability ≤ α under the (ε, δ) null that ε₀'s mechanism
also satisfies.

Choice of k.  ``guesses=(k₊, k₋)`` fixes the guesses (all of α).  Otherwise the guesses are chosen from a grid
fixed before the data, :func:`guess_grid`: k₊ over geometric values from 1 to m/2 with k₋ = 0 and with k₋ = k₊,
and the bound is the largest over the grid at α/|grid| each (union bound).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

#: Relative margin on the exact binomial tails (floating-point rounding of scipy's incomplete beta).
_RELATIVE_MARGIN = 1e-9
#: max_i of the δ term: every i up to this many correct guesses, else a window of ±_CHORD_WINDOW around the
#: maximiser (:func:`_chord_window`).
_FULL_CHORDS = 4096
_CHORD_WINDOW = 256
#: Geometric values of k₊ in the grid (each with k₋ = 0 and k₋ = k₊).
GRID_POINTS = 8
#: The key of the tie-breaking stream (``default_rng([seed, TIE_STREAM])``), distinct from ``default_rng(seed)``.
TIE_STREAM = 0x6F6E6572756E  # "onerun"
#: ε searched on [0, EPSILON_MAX] (the bound saturates long before: q = expit(40) is 1 to 17 digits).
EPSILON_MAX = 40.0


@functools.lru_cache(maxsize=4096)  # the bisections at each α and each grid pair revisit the same dyadic ε
def tail_bound(m: int, guesses: int, correct: int, epsilon: float, delta: float) -> float:
    """Steinke et al.'s bound on P[W ≥ ``correct``] for ``guesses`` guesses among ``m`` canaries under (ε, δ)-DP
    (module docstring), capped at 1."""
    if correct <= 0:
        return 1.0
    q = float(special.expit(epsilon))
    f_v = float(stats.binom.sf(correct - 1, guesses, q))
    value = f_v
    if delta > 0:
        i = _chord_window(guesses, correct, q)
        f_below = stats.binom.sf(correct - i - 1, guesses, q)  # P[Bin ≥ v − i]
        value += 2 * m * delta * float(np.max((f_below - f_v) / i))
    return min(1.0, value * (1 + _RELATIVE_MARGIN))


def _chord_window(guesses: int, correct: int, q: float) -> np.ndarray:
    """The i of max_{i=1..v} (f(v − i) − f(v))/i to evaluate: all of 1..v up to ``_FULL_CHORDS``, else a window
    of ±``_CHORD_WINDOW`` around the maximiser, found in O(log v) steps.

    Why the window holds the maximum: (f(v − i) − f(v))/i = (1/i) Σ_{j=1..i} b(v − j), the mean of the first i
    values of g(j) = b(v − j), b the Binomial(r, q) pmf, which is log-concave, so g rises up to j₀ = v − mode and
    falls after it.  The running mean S(i) of a sequence that rises then falls rises while the next value exceeds
    it, and once g(i + 1) ≤ S(i) at some i ≥ j₀ it falls for good (S(i + 1) lies between g(i + 1) and S(i), and
    g(i + 2) ≤ g(i + 1)).  So S is unimodal, its maximiser is the first i ≥ j₀ − 1 with S(i + 1) ≤ S(i), and a
    bisection on that predicate finds it; the window (computed with the same tails as the full maximum) absorbs
    the rounding of the predicate, which uses Cephes' ``bdtrc`` for speed."""
    v = correct
    if v <= _FULL_CHORDS:
        return np.arange(1, v + 1)

    def mean_below(i: int) -> float:  # S(i), up to rounding
        return (float(special.bdtrc(v - i - 1, guesses, q)) - float(special.bdtrc(v - 1, guesses, q))) / i

    mode = math.floor((guesses + 1) * q)
    lo, hi = max(1, min(v - 1, v - mode - 2)), v  # S rises on 1..lo; hi: "no fall found before v"
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if mean_below(mid + 1) <= mean_below(mid) else (mid + 1, hi)
    return np.arange(max(1, lo - _CHORD_WINDOW), min(v, lo + _CHORD_WINDOW) + 1)


def epsilon_lower_bound(m: int, guesses: int, correct: int, delta: float, alpha: float) -> float:
    """The largest ε rejected at level ``alpha`` by :func:`tail_bound` at ``correct`` of ``guesses`` (0 if ε = 0 is
    not rejected), by bisection on [0, EPSILON_MAX] to 1e-7 that keeps its lower end a rejected point: only an ε
    whose bound is ≤ α is ever returned (module docstring: any such ε is a valid lower bound)."""
    if guesses <= 0 or correct <= 0:
        return 0.0

    def rejected(eps: float) -> bool:
        return tail_bound(m, guesses, correct, eps, delta) <= alpha

    if not rejected(0.0):
        return 0.0
    lo, hi = 0.0, EPSILON_MAX
    if rejected(hi):
        return hi
    while hi - lo > 1e-7:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
    return lo


def guess_grid(m: int) -> list[tuple[int, int]]:
    """The (k₊, k₋) pairs tried when none is given: k₊ geometric from 1 to ⌊m/2⌋, each with k₋ = 0 and k₋ = k₊."""
    top = max(1, m // 2)
    ks = np.unique(np.round(np.geomspace(1, top, GRID_POINTS)).astype(int))
    return [(int(k), 0) for k in ks] + [(int(k), int(k)) for k in ks if 2 * k <= m]


def correct_guesses(scores: np.ndarray, included: np.ndarray, k_in: int, k_out: int, seed: int) -> int:
    """Correct guesses of "in" for the ``k_in`` highest scores and "out" for the ``k_out`` lowest (ties broken by
    independent uniforms drawn from ``seed``: a randomised guess is still a function of the scores alone).

    The uniforms come from a stream of their own, ``default_rng([seed, TIE_STREAM])``, never ``default_rng(seed)``:
    coins drawn as ``default_rng(0).random(m) < 0.5`` with the default seed 0 would otherwise be the very uniforms
    that break the ties, and the guesses would depend on the inclusion bits, which the theorem excludes."""
    return _count_correct(ranked_inclusion(scores, included, seed), k_in, k_out)


def ranked_inclusion(scores: np.ndarray, included: np.ndarray, seed: int) -> np.ndarray:
    """The inclusion bits in increasing order of (score, uniform) (:func:`correct_guesses`' ranking), sorted once
    for every guess set.  Where no two scores tie the uniforms decide nothing and a plain sort gives the same
    order; otherwise they are drawn and the pairs lexsorted."""
    order = np.argsort(scores)
    ranked = scores[order]
    if ranked.size and (np.isnan(ranked[-1]) or np.any(ranked[1:] == ranked[:-1])):
        rng = np.random.default_rng([seed, TIE_STREAM])
        order = np.lexsort((rng.random(scores.size), scores))  # increasing (score, uniform)
    return included[order]


def _count_correct(ranked: np.ndarray, k_in: int, k_out: int) -> int:
    top = ranked[ranked.size - k_in :] if k_in > 0 else ranked[:0]
    return int(np.sum(top)) + int(np.sum(~ranked[:k_out]))


@dataclass(frozen=True)
class OneRunAttack:
    """The guesses tried and their counts; the bound is re-evaluable at any α (:meth:`epsilon_lower_bound_at`)."""

    m: int
    delta: float
    pairs: tuple[tuple[int, int], ...]  # (k₊, k₋) of each guess set tried
    correct: tuple[int, ...]  # correct guesses of each
    fixed: bool  # True: one pair given by the user (all of α)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)  # α -> best(α): the report asks 3 times

    def epsilon_lower_bound_at(self, alpha: float) -> float:
        return self.best(alpha)[0]

    def best(self, alpha: float) -> tuple[float, int]:
        """(bound, index of the pair achieving it) at ``alpha``, split evenly over the pairs (union bound)."""
        if alpha not in self._cache:
            share = alpha / len(self.pairs)
            bounds = [
                epsilon_lower_bound(self.m, kp + km, c, self.delta, share)
                for (kp, km), c in zip(self.pairs, self.correct)
            ]
            j = int(np.argmax(bounds))
            self._cache[alpha] = (float(bounds[j]), j)
        return self._cache[alpha]


def one_run_attack(
    scores: np.ndarray, included: np.ndarray, delta: float, guesses: tuple[int, int] | None = None, seed: int = 0
) -> OneRunAttack:
    """Count the correct guesses of every (k₊, k₋) tried (``guesses``, or :func:`guess_grid`)."""
    scores, included = np.asarray(scores, float), np.asarray(included, bool)
    pairs = [(guesses[0], guesses[1])] if guesses is not None else guess_grid(scores.size)
    ranked = ranked_inclusion(scores, included, seed)
    correct = tuple(_count_correct(ranked, kp, km) for kp, km in pairs)
    return OneRunAttack(scores.size, float(delta), tuple(pairs), correct, guesses is not None)
