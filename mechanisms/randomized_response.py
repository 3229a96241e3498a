"""k-ary randomized response on a categorical column, its exact privacy loss and privacy profile.

Each individual i holds a value a_i ∈ {0, …, k − 1} and reports o_i: their true value with probability
p = e^{ε_r}/(e^{ε_r} + k − 1), otherwise one of the k − 1 other values uniformly, each with probability
q = 1/(e^{ε_r} + k − 1) (Warner 1965; k-ary form: Kairouz, Oh & Viswanath 2014/2016).  The reports are independent
across individuals.

**Neighbouring relation**: D and D' differ in one individual's value (a_i → a_i' ≠ a_i, same individuals): the
relation under which randomized response is private (a report exists for every individual, so add/remove is not
the relation it protects).

**Privacy loss and pure DP, with its proof.**  The reports of the other individuals have the same law under D and
D' and are independent of report i, so their probabilities cancel in the likelihood ratio: the loss of the whole
release is the loss of report i, and the audited pair releases report i alone.  With the normalising constant
e^{ε_r} + k − 1 cancelling, log P(o | a) = ε_r·1[o = a] − log(e^{ε_r} + k − 1) gives

    L(o) = log P(o | a_i) − log P(o | a_i') = ε_r (1[o = a_i] − 1[o = a_i']) ∈ {ε_r, 0, −ε_r}.

So |L(o)| ≤ ε_r for every release and P_D(S) ≤ e^{ε_r} P_D'(S) for every event S, both ways: the mechanism is
(ε_r, 0)-DP; the calibration to a claim ε is ε_r = ε, i.e. p = e^ε/(e^ε + k − 1) (Kairouz et al. 2016).  Every
individual's pDP is ε_r, whatever their value: randomized response treats every value alike.

**Exact profile** (ε ≥ 0; the same in both directions by the symmetry a_i ↔ a_i'):

    δ(ε) = Σ_o (P_D(o) − e^ε P_D'(o))₊ = max(0, p − e^ε q)

(only o = a_i has P_D(o) > P_D'(o); at o = a_i', q − e^ε p < 0; elsewhere P_D = P_D').  At ε = 0 it is the total
variation p − q; it vanishes from ε = ε_r on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from pdp_audit.mechanisms.base import RegisteredMechanism, check_world
from pdp_audit.verify.inputs.validation import InputError, nonnegative, positive


def keep_probability(epsilon: float, categories: int) -> float:
    """p = e^ε/(e^ε + k − 1): the probability of reporting the true value that makes k-ary RR (ε, 0)-DP."""
    epsilon, k = positive("epsilon", epsilon), _categories(categories)
    return 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))


def randomization_epsilon(keep: float, categories: int) -> float:
    """ε_r = log((k − 1)p/(1 − p)) of a keep probability p ∈ (1/k, 1): the inverse of :func:`keep_probability`."""
    k = _categories(categories)
    if not 1.0 / k < keep < 1.0:
        raise InputError(f"keep probability must be in (1/k, 1) = ({1 / k:g}, 1), got {keep}")
    return math.log((k - 1) * keep) - math.log1p(-keep)


def rr_delta_upper(epsilon: float, randomization: float, categories: int) -> float:
    """:func:`rr_delta` rounded up to a double: (e^{ε_r} − e^ε)/(e^{ε_r} + k − 1) at 256 bits from the exact doubles,
    a 2⁻⁶⁰ relative margin added (far above the evaluation's error) before rounding up.  *Sound for* ε, ε_r taken as
    exact, to mpmath's accuracy of exp at 256 bits."""
    if epsilon >= randomization:
        return 0.0
    with mpmath.workprec(256):
        eps, eps_r = mpmath.mpf(epsilon), mpmath.mpf(randomization)
        value = (
            -mpmath.expm1(eps - eps_r) / (1 + (int(categories) - 1) * mpmath.exp(-eps_r)) * (1 + mpmath.mpf(2) ** -60)
        )
        near = float(value)
        return near if mpmath.mpf(near) >= value else math.nextafter(near, math.inf)


def rr_delta(epsilon: float, randomization: float, categories: int) -> float:
    """Exact δ(ε) = max(0, p − e^ε q) of changing one value under k-ary RR with ε_r = ``randomization``."""
    epsilon, eps_r, k = (
        nonnegative("epsilon", epsilon),
        positive("randomization", randomization),
        _categories(categories),
    )
    if epsilon >= eps_r:
        return 0.0
    # p − e^ε q = (e^{ε_r} − e^ε)/(e^{ε_r} + k − 1), written to keep its precision for large ε_r
    return -math.expm1(epsilon - eps_r) / (1.0 + (k - 1) * math.exp(-eps_r))


def rr_epsilon(delta: float, randomization: float, categories: int) -> float:
    """Smallest ε ≥ 0 with ``rr_delta(ε, ε_r, k) ≤ δ``: log(e^{ε_r} − δ(e^{ε_r} + k − 1)), 0 past the total
    variation; δ = 0 gives ε_r."""
    eps_r, k = positive("randomization", randomization), _categories(categories)
    if delta <= 0:
        return eps_r
    inside = 1.0 - delta * (1.0 + (k - 1) * math.exp(-eps_r))  # e^{ε − ε_r}
    return max(0.0, eps_r + math.log(inside)) if inside > 0 else 0.0


def _categories(k) -> int:
    if int(k) != k or k < 2:
        raise InputError(f"categories must be a whole number >= 2, got {k}")
    return int(k)


class RandomizedResponsePair:
    """Report i under D (true value ``value``) versus D' (true value ``other``); releases are the category index as
    a float, shape (size, 1)."""

    output_dim = 1

    def __init__(self, value: int, other: int, categories: int, randomization: float):
        self.k = _categories(categories)
        self.value, self.other = int(value), int(other)
        if not (0 <= self.value < self.k and 0 <= self.other < self.k) or self.value == self.other:
            raise InputError(f"value and other must be different categories in [0, {self.k})")
        self.randomization = positive("randomization", randomization)

    @property
    def loss_bound(self) -> float:
        """ε_r: |L(o)| ≤ ε_r for every report (module notes), the pair's pure-DP ε."""
        return self.randomization

    @property
    def exact_loss_bound(self) -> Fraction:
        """:attr:`loss_bound` in rationals (a double, so exactly)."""
        return Fraction(self.randomization)

    def truth(self, world) -> int:
        return self.value if check_world(world) == "D" else self.other

    def sample(self, world, size: int, rng: np.random.Generator) -> np.ndarray:
        """Keep the truth with probability p, else a uniform one of the k − 1 other values."""
        truth = self.truth(world)
        keep = rng.random(size) < 1.0 / (1.0 + (self.k - 1) * math.exp(-self.randomization))
        others = rng.integers(0, self.k - 1, size=size)
        others = others + (others >= truth)  # skip the true value: uniform over the k − 1 others
        return np.where(keep, truth, others).astype(float).reshape(size, 1)

    def log_likelihood_ratio_terms(self, outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ε_r·1[o = a] for a = a_i and a = a_i': each world's log-probability up to the shared normaliser."""
        reports = np.atleast_2d(outputs)[:, 0]
        return self.randomization * (reports == self.value), self.randomization * (reports == self.other)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """log P_D(o) − log P_D'(o): the normaliser log(e^{ε_r} + k − 1) cancels (module notes)."""
        near, far = self.log_likelihood_ratio_terms(outputs)
        return near - far


@dataclass(frozen=True)
class RandomizedResponse:
    """k-ary randomized response with randomization ε_r on a column of values in {0, …, k − 1}."""

    categories: int
    randomization: float

    def pair(self, values: np.ndarray, index: int, new_value: int | None = None) -> RandomizedResponsePair:
        """Individual ``index``'s value changed to ``new_value`` (default: the next category, cyclically)."""
        value = int(np.asarray(values)[index])
        other = (value + 1) % self.categories if new_value is None else int(new_value)
        return RandomizedResponsePair(value, other, self.categories, self.randomization)


def _example_pairs(rng: np.random.Generator) -> list[RandomizedResponsePair]:
    values = rng.integers(0, 4, size=20)
    return [
        RandomizedResponse(4, 1.0).pair(values, 0),
        RandomizedResponse(4, 0.3).pair(values, 1, (int(values[1]) + 2) % 4),
        RandomizedResponse(2, 2.0).pair(values % 2, 2),
    ]


RANDOMIZED_RESPONSE = RegisteredMechanism(
    name="randomized-response",
    description="k-ary randomized response on a categorical column, pure (ε, 0)-DP (Warner 1965)",
    example_pairs=_example_pairs,
)
