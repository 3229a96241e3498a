"""δ(ε) of a program's recorded primitives on one neighbouring pair, composed exactly.

Each primitive element whose noisy value moves by d between D and D′ (the replay's shift, :mod:`.trace`) is one
step of a composition whose privacy-loss law is known in closed form:

* **Laplace** of scale b: μ = |d|/b; the loss ω = |x − μ| − |x| (x ~ Lap(0, 1)) has atoms at +μ (mass 1/2) and −μ
  (mass e^{−μ}/2) and, between them, P[ω ≤ w] = e^{−(μ − w)/2}/2 (Dwork & Roth 2014, §3.3; the law used by Koskela,
  Jälkö & Honkela 2020, §4).  Pure ε of the step: μ.
* **Gaussian** of standard deviation σ: μ = |d|/σ; ω ~ N(μ²/2, μ²) (Balle & Wang 2018, Thm 8).  Gaussians compose
  into one Gaussian of μ = (Σμ_i²)^{1/2}, whose δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) is exact.
* **A discrete choice** (``rng.choice(k, p=…)``: an exponential mechanism, report-noisy-max by sampling) with
  probabilities p on D and p′ on D′: ω = log(p_j/p′_j) with probability p_j (each direction its own law).

The composition's δ(ε) is exact where every step is pure and Σε_i ≤ ε, decided in rationals on proven intervals
of the steps' readings with no margin (:func:`certified`; then δ(ε) = 0), or where every step is
Gaussian; one or two Laplace steps, and discrete choices alone or beside one Laplace step, have bounds a double
apart in closed form (:func:`_laplace`, :func:`_choices`); otherwise certified bounds from the suite's grid composition
(:func:`pdp_audit.mechanisms.pld_composition.composed_profile_of`: a lower and an upper bound, never an
approximation of unknown sign).  Both directions (D‖D′ and D′‖D) are composed; δ(ε) is the larger.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from pdp_audit.audits.program.step_laws import MU_CAP, Declared, Discrete, Gaussian, Laplace, Step
from pdp_audit.mechanisms.pld_composition import ETA, WINDOW_STDS, composed_profile_of

#: The grid composition's Hoeffding shift in ε (bounds are valid at every value; this sets their gap).
EPSILON_ERROR = 1e-3
#: Pure steps of at most this ε (a shift read to a bisection's width, ~1e-12 of a scale) are left out of the grid,
#: which costs as much for them as for any step: the lower bound without them is one (the release's law without their
#: part is a post-processing of it), and an ε_i-pure step moves δ(ε) of the rest to at most δ_rest(ε − ε_i) (Dwork &
#: Roth 2014, Thm 3.16, with δ_i = 0), so the upper is taken at ε − Σε_i.
TINY = 1e-9
#: The most grid points a composition's partial sum may span (:func:`_fitting`, an estimate): above it only the largest
#: steps that fit are composed, for a lower bound (:func:`_lower_only`).  The program snapshot's largest: ~7e5.
GRID_POINTS = 1e6


def gaussian_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of the Gaussian shift μ (Balle & Wang 2018, Thm 8)."""
    from scipy.stats import norm

    if mu == 0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    return max(0.0, float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)))


@dataclass(frozen=True)
class Composed:
    """δ(ε) of a pair's composition: ``low`` ≤ δ(ε) ≤ ``high``; ``pure``: Σ of the steps' pure ε (as read);
    ``how``: exact (pure, Gaussian) or the grid bounds; ``rounding``: the steps are pure and their exact Σε_i is
    neither shown to be at most ε nor above it -- within the rounding of their readings (:func:`certified`): read
    exactly, the pair may be certified."""

    low: float
    high: float
    pure: float
    how: str
    rounding: bool = False
    #: a Gaussian composition's δ(ε) at the steps' float μ (None elsewhere): a claim's δ in [read, high) is certified
    #: at the readings, not at their intervals' top -- read exactly, the pair may be (:func:`.judgement.read_exactly`)
    read: float | None = None


def composed_delta(steps: list[Step], epsilon: float, ceiling: bool = True) -> Composed:
    """Bounds on δ(ε) of the composition of ``steps`` (module notes).  A pure composition is decided first, exactly
    (:func:`certified`): Σε_i ≤ ε in rationals is δ(ε) = 0 (Dwork & Roth 2014, Thm 3.16, with every δ_i = 0).
    Steps of a library mechanism known only by its declared (ε_i, δ_i) (``declared``) are composed by the basic
    composition theorem around the others (Dwork & Roth 2014, Thm 3.16): δ(ε) ≤ δ_rest(ε − Σε_i) + Σδ_i, an upper
    bound only.  The lower bound is lowered by the steps' slacks: δ(ε) of a product of independent steps is the
    expectation, over one factor's privacy loss ω, of the others' δ(ε − ω), so putting each step's own sampler in
    place of its law, one at a time, moves δ(ε) by at most that step's slack.  ``ceiling`` False: pure steps within
    the rounding of their readings are bounded by δ(ε) ≤ 1, their ceiling 1 − e^(ε − Σε_i) (:func:`_pure_ceiling`,
    rationals) not made -- for a pair whose shifts are then read exactly and judged anew
    (:func:`.judgement.read_exactly`)."""
    return _composed_within(steps, epsilon, Fraction(epsilon), ceiling)


def _composed_within(steps: list[Step], epsilon: float, budget: Fraction, ceiling: bool = True) -> Composed:
    """:func:`composed_delta` at ``epsilon``, whose exact value is ``budget`` (ε less the exact Σε_i of steps
    composed around, where this is a part of a composition)."""
    sums = _pure_sums(steps)  # once: the decision's and the ceiling's
    decided = _decided(sums, budget)
    pure = sum(s.pure_epsilon() for s in steps if not s.trivial)
    if decided:
        if not any(not s.trivial for s in steps):
            return Composed(0.0, 0.0, 0.0, "no primitive's value moves")
        return Composed(0.0, 0.0, pure, "exact: the steps' pure ε add up to at most ε (in rationals)")
    rounding = decided is None
    top = _pure_ceiling(sums, budget, ceiling) if rounding else None
    if top is not None:
        how = "pure: the steps' Σε_i is within the rounding of their readings of ε, so δ(ε) ≤ 1 − e^(ε − Σε_i)"
        return Composed(0.0, top, pure, how, rounding)
    steps, tiny = _moving(steps)
    slack = sum(s.slack for s in steps)
    if tiny:  # composed around (:data:`TINY`): the lower without them, the upper at ε − Σε_i
        around = set(tiny)  # a set: 10⁵ tiny steps are no 10¹⁰ comparisons
        rest = [s for s in steps if s not in around]
        spent = _rational_high(tiny)
        low = _composed(rest, epsilon, budget)
        if spent is None or spent > budget:
            high = Composed(0.0, 1.0, math.inf, "")
        else:
            high = _composed(rest, _down(budget - spent), budget - spent)
        how = f"{low.how}; {len(tiny)} step(s) of pure ε ≤ {TINY:g} composed around"
        spent_pure = low.pure + sum(s.pure_epsilon() for s in tiny)
        composed = Composed(low.low, high.high, spent_pure, how, rounding)
    else:
        composed = dataclasses.replace(_composed(steps, epsilon, budget), rounding=rounding)
    excess = _excess(steps, budget)
    if excess is not None:  # a float sum's rounding may do that: said, as the shown Σε_i may round to ε
        composed = dataclasses.replace(composed, how=f"{composed.how}; exact Σε_i − ε ≥ {float(excess):.3g}")
    if slack and composed.low > 0:
        return dataclasses.replace(composed, low=_less(composed.low, slack))
    return composed


def _less(low: float, slack: float) -> float:
    """max(0, ``low`` − ``slack``) rounded down: a lower bound lowered stays one as a double."""
    value = low - slack
    if Fraction(value) > Fraction(low) - Fraction(slack):
        value = math.nextafter(value, -math.inf)
    return max(0.0, value)


def _moving(steps: list[Step]) -> tuple[list[Step], list[Step]]:
    """The steps composed (none read as moving nothing, bar those only proven to move little) and the tiny pure ones
    composed around (:data:`TINY`; a Laplace read as unmoved but only proven small; a Gaussian so read is composed at
    its top above and left out below, :func:`_at`)."""
    hairs = [s for s in steps if _unsettled(s)]
    moving = [s for s in steps if not s.trivial]
    tiny: list[Step] = [s for s in moving if isinstance(s, (Laplace, Discrete)) and s.pure_epsilon() <= TINY]
    return moving + [s for s in hairs if isinstance(s, Gaussian)], tiny + [s for s in hairs if isinstance(s, Laplace)]


def _unsettled(step: Step) -> bool:
    """Whether a step read as moving nothing (:attr:`Step.trivial`) is only proven to move little: a shift read as
    0 whose proven interval reaches above it (:func:`.exact_shifts.unmoved`)."""
    return step.trivial and isinstance(step, (Laplace, Gaussian)) and step.within is not None and step.within[1] != 0


def _at(step: Step, top: bool) -> Step | None:
    """The step at the top (``top``) or the bottom of its proven interval of μ, as a double rounded outward: δ(ε)
    of a composition grows with each Laplace or Gaussian step's μ (a smaller shift's pair is a post-processing of a
    larger's: :mod:`.gaussian_bounds` for the Gaussian; for the Laplace its trade-off function F(F⁻¹(1 − α) − μ)
    falls with μ, Dong, Roth & Su 2022, Prop. 2.2 and Lemma 3.2 for the composition's).  None where that end is 0
    at the bottom (the step is left out of a lower composition: the others' law is a post-processing of theirs
    with it) or unbounded at the top; other steps as they are.  *Sound for*: intervals that contain the exact μ."""
    if not isinstance(step, (Laplace, Gaussian)) or step.within is None or math.isinf(step.mu):
        return step
    low, high = step.within
    if top:
        return None if high is None else dataclasses.replace(step, mu=_up(high))
    return None if low == 0 else dataclasses.replace(step, mu=_down(low))


def certified(steps: list[Step], budget: Fraction) -> bool | None:
    """Whether the steps' exact pure ε add up to at most ``budget``, decided in rational arithmetic on the steps'
    proven intervals (:meth:`Step.rational`; a choice's e^ε as its exact ratio, :meth:`Discrete.ratio`): True where
    Σ high + log Π ratio ≤ budget, False where Σ low + log Π ratio > budget (or a step has no pure ε), None where
    neither is shown -- the sum lies within the rounding of the readings, and the pair is undecided, never
    certified.  e^x is bounded by :func:`exp_bounds`.

    *Sound for*: a step's interval containing its exact pure ε (its reading's proven rounding bound,
    :mod:`.replay_bounds`, or an exact reading, :mod:`.exact_shifts`); the floats the program gave (scales,
    probabilities, declared budgets) taken as the exact values of the real-valued laws they parametrise."""
    return _decided(_pure_sums(steps), budget)


def _decided(sums: tuple[Fraction, Fraction | None, Fraction] | None, budget: Fraction) -> bool | None:
    """:func:`certified` on the steps' :func:`_pure_sums`."""
    if sums is None:
        return False
    low, high, ratio = sums
    if high is None:
        return False if low > budget or ratio > exp_bounds(budget - low)[1] else None
    if ratio == 1:
        return True if high <= budget else (False if low > budget else None)
    if high <= budget and ratio <= exp_bounds(budget - high)[0]:
        return True
    if low > budget or ratio > exp_bounds(budget - low)[1]:
        return False
    return None


#: 0 and 1 in rationals, made once (immutable: every sum starts from them).
ZERO, ONE = Fraction(0), Fraction(1)


def _pure_sums(steps: list[Step]) -> tuple[Fraction, Fraction | None, Fraction] | None:
    """Σ of the steps' proven low and high ends of pure ε (high None: one is unbounded above) and the product of the
    choices' exact ratios (:func:`certified`); None where a step has no pure ε."""
    bounded, ratio = True, ONE
    # numerators added per denominator, in integers, and each sum made a Fraction once: the same exact sums, without
    # normalising a Fraction at each of a wide release's 10⁵ steps (their denominators are a few: powers of two
    # over a call's scale)
    lows: dict[int, int] = {}
    highs: dict[int, int] = {}
    for s in steps:
        if isinstance(s, Discrete):
            r = s.ratio()
            if r is None:
                return None
            ratio *= r
            continue
        ends = s.integer_ends  # made once a step: a draw set's pairs share their steps
        if ends is None:
            return None
        low_num, low_den, high_num, high_den = ends
        lows[low_den] = lows.get(low_den, 0) + low_num
        if high_num is None:
            bounded = False
        else:
            highs[high_den] = highs.get(high_den, 0) + high_num
    low = sum((Fraction(n, d) for d, n in lows.items()), ZERO)
    high = sum((Fraction(n, d) for d, n in highs.items()), ZERO)
    return low, (high if bounded else None), ratio


def _excess(steps: list[Step], budget: Fraction) -> Fraction | None:
    """How far the steps' exact Σε_i is shown to exceed ``budget`` (Σ of the low ends; choices' ratios not
    counted), where it is and the steps are pure; None otherwise."""
    sums = _pure_sums(steps)
    return sums[0] - budget if sums is not None and sums[0] > budget else None


def _pure_ceiling(
    sums: tuple[Fraction, Fraction | None, Fraction] | None, budget: Fraction, made: bool = True
) -> float | None:
    """An upper bound on δ(ε) of pure steps (``sums``: their :func:`_pure_sums`) whose exact Σε_i = ε′ is at most
    Σ high + log Π ratio: 1 − e^{ε − ε′} (an ε′-DP release: P(S) − e^ε Q(S) ≤ P(S)(1 − e^{ε − ε′}), as
    Q(S) ≥ e^{−ε′} P(S)), in rationals and rounded up to a double (``made`` False: 1, a bound too); None where a step
    is unbounded or has no pure ε."""
    if sums is None:
        return None
    _, high, ratio = sums
    if high is None:
        return None
    if not made:
        return 1.0
    gap = budget - high
    if gap >= 0 and ratio == 1:
        return 0.0
    ceiling = 1 - exp_bounds(gap)[0] / ratio
    return min(1.0, _up(max(Fraction(0), ceiling)))


def _up(x: Fraction) -> float:
    """The smallest double at least ``x``."""
    value = float(x)
    return value if Fraction(value) >= x else math.nextafter(value, math.inf)


def exp_bounds(x: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals a ≤ e^x ≤ b.  For 0 ≤ f < 1 the Taylor sum S = Σ_{k≤40} f^k/k! has S ≤ e^f ≤ S + 2f^41/41!
    (every term positive; the remainder is at most the next term times Σ_m (f/42)^m ≤ 2), computed with outward
    roundings (:func:`_taylor`), and e^x = (e^1)^n·e^f with n = ⌊x⌋ bounds the rest; beyond |x| = 64 the cruder
    2^⌊x⌋ ≤ e^x ≤ 3^⌈x⌉ (2 < e < 3)."""
    if x > 64:
        return Fraction(2) ** math.floor(x), Fraction(3) ** math.ceil(x)
    if x < -64:
        return Fraction(1, 3) ** math.ceil(-x), Fraction(1, 2) ** math.floor(-x)
    n = math.floor(x)
    f_low, f_high = _taylor(x - n)
    e_low, e_high = E_BOUNDS
    if n >= 0:
        return e_low**n * f_low, e_high**n * f_high
    return f_low / e_high**-n, f_high / e_low**-n


#: Fixed-point bits of :func:`_taylor`'s sums: each of its 41 roundings moves a bound by at most 2⁻¹⁶⁰ (outward).
TAYLOR_BITS = 160


def _taylor(f: Fraction) -> tuple[Fraction, Fraction]:
    """Bounds on e^f for 0 ≤ f ≤ 1 (:func:`exp_bounds`): Σ_{k≤40} f^k/k! in integers scaled by 2^160, each term
    rounded down (the lower bound), and again rounded up, plus 2f^41/41! (the upper): outward roundings keep both
    bounds."""
    one = 1 << TAYLOR_BITS
    scaled = f * one
    below, above = math.floor(scaled), math.ceil(scaled)
    term_low = term_high = total_low = total_high = one
    for k in range(1, 41):
        term_low = term_low * below // (k * one)
        term_high = -(-term_high * above // (k * one))
        total_low += term_low
        total_high += term_high
    total_high += -(-2 * term_high * above // (41 * one))
    return Fraction(total_low, one), Fraction(total_high, one)


#: Rationals below and above e (:func:`_taylor` at 1).
E_BOUNDS = _taylor(Fraction(1))


def _rational_high(steps: list[Step]) -> Fraction | None:
    """The proven upper end of Σε_i of pure steps other than choices' (None: one has none); a choice's pure ε is
    bounded above by its ratio's logarithm, read with :func:`exp_bounds`."""
    total = Fraction(0)
    for s in steps:
        if isinstance(s, Discrete):
            r = s.ratio()
            if r is None:
                return None
            total += _log_high(r)
            continue
        interval = s.rational()
        if interval is None or interval[1] is None:
            return None
        total += interval[1]
    return total


def _log_high(r: Fraction) -> Fraction:
    """A rational at least log r (r ≥ 1): the first multiple m/2^40 of 2^−40 with e^{m/2^40} ≥ r, by bisection on
    :func:`exp_bounds` from the float logarithm's neighbourhood."""
    guess = Fraction(math.log(r)) if r < 2**1000 else Fraction(1000)
    step = Fraction(1, 2**40)
    high = (guess // step + 1) * step
    while exp_bounds(high)[0] < r:
        high = high * 2 + step
    return high


def _down(x: Fraction) -> float:
    """The largest double at most ``x``."""
    value = float(x)
    return value if Fraction(value) <= x else math.nextafter(value, -math.inf)


def _composed(steps: list[Step], epsilon: float, budget: Fraction) -> Composed:
    """δ(ε) of steps none of which is trivial and whose pure composition is not certified (:func:`certified`):
    by the declared budgets, in closed form, or on the grid."""
    declared = [s for s in steps if isinstance(s, Declared)]
    if declared:
        return _around_declared(declared, [s for s in steps if not isinstance(s, Declared)], epsilon, budget)
    pure = sum(s.pure_epsilon() for s in steps)
    if not steps:
        return Composed(0.0, 0.0, 0.0, "no primitive's value moves")
    if certified(steps, budget):
        return Composed(0.0, 0.0, pure, "exact: the steps' pure ε add up to at most ε (in rationals)")
    if any(isinstance(s, (Laplace, Gaussian)) and math.isinf(s.mu) for s in steps):
        return Composed(
            1.0, 1.0, math.inf, "exact: a value moves by an infinite amount (NaN, inf) or under noise of scale 0"
        )
    gaussians = [s for s in steps if isinstance(s, Gaussian)]
    if len(gaussians) == len(steps):
        return _gaussian(gaussians, pure, epsilon)
    laplaces = [s for s in steps if isinstance(s, Laplace)]
    if len(laplaces) == len(steps) <= 2:
        return _laplace(laplaces, pure, budget)
    closed = _choices(steps, pure, budget) or _one_sided(steps, pure, budget)
    return closed or _on_the_grid(steps, pure, epsilon, budget)


def _one_sided(steps: list[Step], pure: float, budget: Fraction) -> Composed | None:
    """Where a choice has an outcome one world never draws (its loss is infinite: the grid cannot hold its mass at
    ±∞), the lower bound of the choices alone in closed form -- the release of a part of a composition is a
    post-processing of the whole's, so its δ(ε) is at most the whole's -- and the trivial upper bound 1; None
    where no choice is one-sided.  *Sound for*: what :func:`_choices` is sound for, on the choices alone."""
    choices = [s for s in steps if isinstance(s, Discrete)]
    if not any(math.isinf(s.pure_epsilon()) for s in choices):
        return None
    alone = _choices(list[Step](choices), sum(s.pure_epsilon() for s in choices), budget)
    low = 0.0 if alone is None else alone.low
    return Composed(low, 1.0, pure, "a choice with an outcome one side never draws: its choices alone, a lower bound")


def _laplace(steps: list[Laplace], pure: float, budget: Fraction) -> Composed:
    """One or two Laplace steps: δ(ε) in closed form (:func:`.laplace_queries.two_coordinate_delta_bounds`, the
    joint law of two independent Laplace coordinates; η = 0 for a missing second), at the bottoms of the steps'
    proven intervals of μ (``low``, what refutes) and at their tops (``high``, what certifies), at the exact ε
    ``budget``.  Before, the grid: ~0.1 s a pair where μ is large (its grid spans ±μ), with a round-off not proven.
    *Sound for*: intervals that contain the exact μ (δ(ε) grows with each μ: :func:`_at`), to the accuracy of
    mpmath's interval exp at 256 bits, rounded outward; a top not proven (unbounded): ``high`` = 1."""
    from pdp_audit.mechanisms.laplace_queries import two_coordinate_delta_bounds  # deferred: loads mpmath

    ends = [step.rational() or (Fraction(0), None) for step in steps]
    padding = [Fraction(0)] * (2 - len(steps))
    low = two_coordinate_delta_bounds(budget, *[end[0] for end in ends], *padding)[0]
    tops = [end[1] for end in ends if end[1] is not None]
    high = 1.0 if len(tops) < len(ends) else two_coordinate_delta_bounds(budget, *tops, *padding)[1]
    return Composed(low, high, pure, f"exact: {len(steps)} Laplace step(s) in closed form (256-bit intervals)")


def _choices(steps: list[Step], pure: float, budget: Fraction) -> Composed | None:
    """Choices (:class:`Discrete`) with at most one Laplace step beside them: δ(ε) in closed form
    (:func:`.choice_delta.choices_delta_bounds`), at the exact ε ``budget`` and the Laplace step's proven interval
    of μ; None where other steps are in the composition or the choices' outcomes are too many (the grid's).  Before,
    the grid: 0.1-0.4 s a pair, with a round-off not proven.  *Sound for*: the choices' masses as they are held
    (:meth:`Discrete.masses`) and an interval that contains the exact μ, to the accuracy of mpmath's interval log and
    exp at 256 bits, rounded outward."""
    from pdp_audit.audits.program.choice_delta import choices_delta_bounds  # deferred: loads mpmath

    choices = [s for s in steps if isinstance(s, Discrete)]
    laplaces = [s for s in steps if isinstance(s, Laplace)]
    if not choices or len(laplaces) > 1 or len(choices) + len(laplaces) < len(steps):
        return None
    masses = [c.masses() for c in choices]
    if any(m is None for m in masses):
        return None
    mu = (laplaces[0].rational() or (Fraction(0), None)) if laplaces else (Fraction(0), Fraction(0))
    bounds = choices_delta_bounds([m for m in masses if m is not None], mu, budget)
    if bounds is None:
        return None
    beside = " and a Laplace step" if laplaces else ""
    # a Discrete step is a choice's law, or an integer noise's or a rounding's partition's: named for what it is
    kind = "choice(s)" if all(c.label == "choice" for c in choices) else "discrete law(s)"
    return Composed(*bounds, pure, f"exact: {len(choices)} {kind}{beside} in closed form (256-bit intervals)")


def _gaussian(steps: list[Gaussian], pure: float, epsilon: float) -> Composed:
    """The Gaussians composed into one (Dong, Roth & Su 2022, Cor. 3.3): δ(ε) at the bottom of the composed μ's
    proven interval rounded down (``low``, what refutes) and at its top rounded up (``high``, what certifies), each
    from a 256-bit evaluation with its error bound (:mod:`.gaussian_bounds`).  *Sound for*: steps whose
    :attr:`Step.within` (or float μ, where none) contains their exact μ, ``epsilon`` the exact ε of the bound
    (the upper holds at any ε at least it), to the accuracy of mpmath's exp and normal CDF at 256 bits."""
    from pdp_audit.audits.program import gaussian_bounds  # deferred: loads mpmath

    bottom, top = gaussian_bounds.composed_ends(s.within or (Fraction(s.mu), Fraction(s.mu)) for s in steps)
    low = gaussian_bounds.delta_bounds(bottom, epsilon)[0]
    high = gaussian_bounds.delta_bounds(top, epsilon)[1]
    read = gaussian_delta(math.sqrt(sum(s.mu**2 for s in steps)), epsilon)
    shown = f"μ = {top:.6g}" + ("" if bottom == top else f" (at most {top:.17g}, the readings' proven top)")
    return Composed(low, high, pure, f"exact: the Gaussians compose into one of {shown}", read=read)


def _around_declared(declared: list[Declared], rest: list[Step], epsilon: float, budget: Fraction) -> Composed:
    """The basic composition of the declared budgets with the exact composition of the rest at ε − Σε_i (Dwork &
    Roth 2014, Thm 3.16), Σε_i in rationals (the declared budgets' proven upper ends)."""
    ends = [s.rational() for s in declared]
    spent = sum(Fraction(s.epsilon) if e is None or e[1] is None else e[1] for s, e in zip(declared, ends))
    leak = sum(s.delta for s in declared)
    pure = sum(s.epsilon for s in declared) + sum(s.pure_epsilon() for s in rest) if leak == 0 else math.inf
    if spent > budget:
        return Composed(0.0, 1.0, pure, "declared budgets beyond ε (basic composition: no bound)")
    inner = _composed_within(rest, _down(budget - spent), budget - spent)
    high = min(1.0, inner.high + leak)
    return Composed(0.0, high, pure, f"basic composition of {len(declared)} declared budget(s) with the rest")


def _on_the_grid(steps: list[Step], pure: float, epsilon: float, budget: Fraction) -> Composed:
    """The steps' privacy-loss distributions composed on the suite's grid: bounds on δ(ε) both ways (one way for
    symmetric laws), the upper from each step at the top of its proven interval of μ, the lower from each at its
    bottom (:func:`_at`); steps of very large shift capped, which bounds δ(ε) from below only -- or, where a Laplace
    shift is beyond the cap, or the grid would be too wide (:data:`GRID_POINTS`), a part of the steps alone
    (:func:`_lower_only`): a part of a composition is its post-processing, so its δ(ε) is at most the whole's, and
    the upper bound is 1 (never certified).  *Sound for*: steps whose intervals contain their exact μ; the grid's
    bounds as :func:`.pld_composition.composed_profile_of` says."""
    below = [s for s in (_at(s, top=False) for s in steps) if s is not None]
    above = [_at(s, top=True) for s in steps]
    capped = [s.capped() for s in below]
    if capped != below or None in above or _fitting(above) < len(above):  # 1 bounds it from above
        return _lower_only(len(steps), below, capped != below, pure, epsilon, budget)
    tops = [s for s in above if s is not None]
    low = high = 0.0
    for reverse in (False, True):
        if reverse and all(isinstance(s, (Laplace, Gaussian)) for s in steps):
            break  # symmetric laws: the reverse direction has the same loss law
        lower_laws = [s.loss_law(reverse) for s in below] if below != tops and below else None
        a, b = composed_profile_of([s.loss_law(reverse) for s in tops], EPSILON_ERROR, lower_laws).delta_bounds(epsilon)
        low, high = max(low, a if below else 0.0), max(high, b)
    how = f"grid composition of {len(steps)} steps (bounds, shift {EPSILON_ERROR:g} in ε)"
    return Composed(low, high, pure, how)


def _lower_only(count: int, below: list[Step], capped: bool, pure: float, epsilon: float, budget: Fraction) -> Composed:
    """A lower bound on δ(ε) alone (``high`` 1) of ``count`` steps, ``below`` at the bottoms of their intervals, some
    beyond the grid's cap (``capped``) or unbounded above: where a Laplace shift is beyond the cap, the two largest
    Laplace steps alone in closed form (a part's release is a post-processing of the whole's, so its δ(ε) is at most
    the whole's: Dwork & Roth 2014, Prop. 2.1; a grid spanning ±μ took seconds a pair), and so where the grid of all
    the steps would be too wide (:func:`_fitting`: 10³ Laplace steps of μ = 1 spanned ~10⁹ points); else the grid
    of the capped steps, of only the widest it holds where it cannot hold all (a part again)."""
    largest = sorted((s for s in below if isinstance(s, Laplace)), key=lambda s: s.mu, reverse=True)[:2]
    wide = _fitting(below) < len(below) and all(isinstance(s, Laplace) for s in below)  # else the widest on the grid
    if largest and (largest[0].mu > MU_CAP["laplace"] or wide):
        how = f"the {len(largest)} largest Laplace shift(s) alone, exact (a lower bound)"
        return Composed(_laplace(largest, pure, budget).low, 1.0, pure, f"{count} steps: {how}")
    how = "large shifts capped" if capped else "a shift unbounded above"
    kept = sorted((s.capped() for s in below), key=_spread, reverse=True)
    kept = kept[: max(1, _fitting(kept))] if kept else kept
    if len(kept) < len(below):
        how = f"the {len(kept)} largest of {len(below)} steps alone (a grid of all too wide)"
    laws = [s.loss_law(False) for s in kept]
    low = composed_profile_of(laws, EPSILON_ERROR).delta_bounds(epsilon)[0] if laws else 0.0
    return Composed(low, 1.0, pure, f"grid composition of {count} steps, {how} (a lower bound)")


def _spread(step: Step | None) -> float:
    """The width of a step's loss law on the grid (∞: unbounded): 2μ for a Laplace step, ±12μ about μ²/2 (past the
    grid's tail mass) for a Gaussian's, its losses' range for a choice's."""
    if step is None:
        return math.inf
    if isinstance(step, (Laplace, Gaussian)):
        return 2 * step.mu * (1 if isinstance(step, Laplace) else 12)
    low, high = step.loss_law(False).support
    return high - low


def _fitting(steps: Sequence[Step | None]) -> int:
    """How many of ``steps``, the widest first, the grid holds within :data:`GRID_POINTS` (all of them: their
    number): an estimate of its partial sum's array, its width min(Σw_i, w_1 + WINDOW_STDS·(Σw_i²)^{1/2}) (the
    steps' widths w_i: a standard deviation is at most half a width) over the step h of k steps' grid.  *Sound*
    whatever it says: it only chooses the steps of a lower bound, or that a composition is not made."""
    widths = np.sort(np.array([_spread(s) for s in steps], dtype=float))[::-1]
    if not widths.size:
        return 0
    count = np.arange(1, widths.size + 1)
    width = np.minimum(np.cumsum(widths), widths[0] + WINDOW_STDS * np.sqrt(np.cumsum(widths**2)))
    points = width * np.sqrt(count * math.log(1 / ETA) / 2) / EPSILON_ERROR
    return int(np.searchsorted(points > GRID_POINTS, True))


def exceeds(composed: Composed, delta: float) -> bool:
    """Whether a composition's lower bound on a pair's δ(ε) refutes the claim's δ: the one definition of "δ
    exceeded" the audit decides by.  Every lower bound is proven as a double -- a Gaussian's and one or two Laplace
    steps', rounded outward from 256 bits; a pure composition's, in rationals; the grid's, lowered by its proven
    round-off (:mod:`pdp_audit.mechanisms.pld_composition`) -- so it is compared with δ exactly: above it, the claim
    is false."""
    return composed.low > delta
