"""The exact laws of numpy's discrete samplers as implemented: what ``numpy.random.Generator`` draws, computed from the
doubles its C code compares its uniform with, not from the ideal law it approximates.

Every law below is exact for an ideal bit generator (its 64-bit words independent and uniform: the assumption every
audit of a numpy program makes) and for IEEE-754 binary64 arithmetic rounded to nearest with no fused multiply-add
(x86-64's SSE2, numpy's wheels; an FMA-contracting build could round one partial sum differently).  Its masses are
exact rationals: counts of the uniform's outcomes over 2^53 (or products of them).  Read in numpy's source
(``numpy/random/src/distributions/distributions.c``, ``numpy/random/_generator.pyx``, ``_common.pxd``, numpy
2.x, checked against the installed version draw for draw by ``tests/test_numpy_samplers.py``):

* **The uniform.**  ``next_double`` is ``(next_uint64 >> 11) * (1.0 / 9007199254740992.0)`` (``_common.pxd``,
  ``uint64_to_double``): U = m/2^53 with m uniform on {0, …, 2^53 − 1}, exactly.  So P[U ≤ s] = (⌊s·2^53⌋ + 1)/2^53
  and P[U < s] = ⌈s·2^53⌉/2^53 for a double s in [0, 1), both computed exactly in rationals.
* **``geometric(p)``, p ≥ 1/3** (``random_geometric``: ``if (p >= 0.333333333333333333333333)`` the search):
  ``random_geometric_search``: X = 1, sum = prod = p, q = 1.0 − p, U = next_double; ``while (U > sum) {prod *= q;
  sum += prod; X++;}``.  With s_k the double partial sums (Python's floats round as C's doubles do), X = k exactly
  where s_{k−1} < U ≤ s_k (s_0 = −∞): P[X = k] = P[U ≤ s_k] − P[U ≤ s_{k−1}].  The support is finite: it ends at the
  first K with s_K ≥ 1 − 2^−53, the largest U.  For about a quarter of the p in [1/3, 1) the sums stall below it
  (s + prod rounds back to s, e.g. p = 1/3 + 10^−16 stalls at 1 − 3·2^−53): numpy then never returns for the U
  above the last sum, whatever the data -- an outcome "no release" whose mass (:attr:`LatticeLaw.never`) is the same
  on D and D′, so it adds nothing to any δ(ε) between them.
* **``geometric(p)``, p < 1/3** (``random_geometric_inversion``: ⌈−E/log1p(−p)⌉, E drawn by the exponential
  ziggurat, ``random_standard_exponential``, whose rejection and tail steps call libm's ``exp`` and ``log1p``): no
  exact law is computed here -- a bound over the ziggurat's 256 layers would rest on libm's rounding, which numpy
  does not fix -- so :func:`geometric_law` gives none and an audit leaves such noise undecided (never certified on
  the ideal geometric law).
* **``integers(low, high)``** (``random_bounded_uint64`` and its 32-bit twin: Lemire's multiply-and-reject,
  ``bounded_lemire_uint64``, arXiv:1805.10941, or the masked rejection): each rejects the words that would bias the
  result, so the output is exactly uniform on {low, …, high − 1} (``endpoint=True``: … high).
* **``choice(k, p=w)``, with replacement** (``_generator.pyx``: ``cdf = p.cumsum(); cdf /= cdf[-1]; uniform_samples
  = self.random(shape); idx = cdf.searchsorted(uniform_samples, side='right')``): index i exactly where
  c_{i−1} ≤ U < c_i for the cdf's doubles c (c_{−1} = 0, c_{k−1} = 1 exactly: x/x is 1), so P[i] = P[U < c_i] −
  P[U < c_{i−1}].  The cdf is computed by numpy itself, the same calls on the same doubles, so its doubles are the
  sampler's.

**Privacy of a shift** (:func:`shift_delta`).  A release Q + Z with Z of a lattice law P and an integer shift d
between D and D′ is a pair of laws P and P(· − d); its hockey-stick divergence is δ(ε) = max over the two
directions of Σ_k (P(k) − e^ε P(k − d))₊ (Dwork & Roth 2014, §3.5), evaluated here exactly where e^ε is rational
(``ratio``) and enclosed otherwise by exact bounds on e^ε.  A finite support makes it positive at every ε: the
outcomes one world reaches and the other cannot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

#: The outcomes of ``next_double``: m/2^53 for m in {0, …, 2^53 − 1}.
GRID = 2**53
#: numpy's threshold between the geometric search and inversion (the double the C literal rounds to).
SEARCH_FROM = 0.333333333333333333333333
#: The most terms of a geometric search's support computed (p ≥ 1/3: the sums reach 1 − 2^−53 within ~100).
MOST_TERMS = 10_000


@dataclass(frozen=True)
class LatticeLaw:
    """A law on the integers start, start + 1, …, with P[X = start + i] = counts[i]/denominator exactly; ``never``:
    the mass, over the same denominator, of the draws numpy never returns from (the counts and it sum to the
    denominator)."""

    start: int
    counts: tuple[int, ...]
    denominator: int
    never: int = 0

    @property
    def stop(self) -> int:
        """One past the largest value of the support."""
        return self.start + len(self.counts)

    def mass(self, k: int) -> Fraction:
        """P[X = k], exactly."""
        i = k - self.start
        return Fraction(self.counts[i], self.denominator) if 0 <= i < len(self.counts) else Fraction(0)

    def difference(self, other: LatticeLaw) -> LatticeLaw:
        """The law of X − Y, X of this law and Y of ``other``, independent: the exact convolution of the counts."""
        reversed_counts = np.array(other.counts[::-1], dtype=object)
        counts = tuple(int(c) for c in np.convolve(np.array(self.counts, dtype=object), reversed_counts))
        denominator = self.denominator * other.denominator
        return LatticeLaw(self.start - (other.stop - 1), counts, denominator, denominator - sum(counts))


def below_or_at(s: float) -> int:
    """#{m ∈ [0, 2^53): m/2^53 ≤ s}, exactly (module notes: the uniform)."""
    if s < 0:
        return 0
    return min(GRID, math.floor(Fraction(s) * GRID) + 1)


def below(s: float) -> int:
    """#{m ∈ [0, 2^53): m/2^53 < s}, exactly."""
    if s <= 0:
        return 0
    return min(GRID, math.ceil(Fraction(s) * GRID))


def geometric_sums(p: float) -> list[float] | None:
    """The distinct partial sums s_1, s_2, … of ``random_geometric_search`` as its doubles hold them, up to the first
    at or above the largest uniform 1 − 2^−53, or the last before they stall (s + prod rounds to s: numpy loops
    forever for every U above it, module notes); None where they run past :data:`MOST_TERMS`."""
    top = 1.0 - 2.0**-53
    total = prod = float(p)
    q = 1.0 - total
    sums = [total]
    while total < top:
        if len(sums) >= MOST_TERMS:
            return None
        prod *= q
        after = total + prod
        if after == total:
            break
        total = after
        sums.append(total)
    return sums


def geometric_law(p: float) -> LatticeLaw | None:
    """The exact law of ``Generator.geometric(p)`` (module notes), on {1, …, K}; None for p < 1/3 (the inversion
    branch: no exact law here) and where the search runs past :data:`MOST_TERMS` terms.  ``p`` must be in (0, 1],
    as numpy asks."""
    p = float(p)
    if not 0.0 < p <= 1.0:
        raise ValueError(f"geometric's p must be in (0, 1], got {p!r}")
    if not p >= SEARCH_FROM:
        return None
    sums = geometric_sums(p)
    if sums is None:
        return None
    cumulative = [below_or_at(s) for s in sums]
    counts = [b - a for a, b in zip([0, *cumulative[:-1]], cumulative)]
    return LatticeLaw(1, tuple(counts), GRID, GRID - cumulative[-1])


def integers_law(low: int, high: int, endpoint: bool = False) -> LatticeLaw:
    """The exact law of ``Generator.integers(low, high, endpoint=…)``: uniform on its range (module notes)."""
    top = high + 1 if endpoint else high
    if top <= low:
        raise ValueError(f"integers needs low < high, got {low}, {high}")
    return LatticeLaw(int(low), (1,) * (top - low), top - low)


def choice_law(weights: Sequence[float] | np.ndarray) -> LatticeLaw:
    """The exact law of ``Generator.choice(k, p=weights)`` with replacement, on the indices {0, …, k − 1}, from the
    cdf numpy itself computes (module notes)."""
    p = np.asarray(weights, dtype=np.float64)
    cdf = p.cumsum()
    cdf /= cdf[-1]
    edges = [below(float(c)) for c in cdf]
    edges[-1] = GRID  # c_{k−1} is 1.0: every U < 1
    counts = [b - a for a, b in zip([0, *edges[:-1]], edges)]
    return LatticeLaw(0, tuple(counts), GRID)


def shift_delta(law: LatticeLaw, shift: int, ratio: Fraction) -> Fraction:
    """δ at e^ε = ``ratio`` of Z against Z + ``shift`` (Z of ``law``), the larger of the two directions, exactly:
    max(Σ_k (P(k) − r·P(k − d))₊, Σ_k (P(k − d) − r·P(k))₊)."""
    return max(_one_way(law, shift, ratio), _one_way(law, -shift, ratio))


def _one_way(law: LatticeLaw, shift: int, ratio: Fraction) -> Fraction:
    total = Fraction(0)
    for k in range(min(law.start, law.start + shift), max(law.stop, law.stop + shift)):
        excess = law.mass(k) - ratio * law.mass(k - shift)
        total += max(excess, Fraction(0))
    return total


def shift_ratio(law: LatticeLaw, shift: int) -> Fraction | None:
    """The largest likelihood ratio max_k max(P(k)/P(k − d), P(k − d)/P(k)) where both are positive, exactly; None
    where the supports differ (a pure ε of ∞)."""
    worst = Fraction(1)
    for k in range(min(law.start, law.start + shift), max(law.stop, law.stop + shift)):
        a, b = law.mass(k), law.mass(k - shift)
        if (a > 0) != (b > 0):
            return None
        if a > 0:
            worst = max(worst, a / b, b / a)
    return worst
