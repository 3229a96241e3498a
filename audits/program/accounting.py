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

The composition's δ(ε) is exact where every step is pure and Σε_i ≤ ε (then δ(ε) = 0), or where every step is
Gaussian; otherwise certified bounds from the suite's grid composition
(:func:`pdp_audit.mechanisms.pld_composition.composed_profile_of`: a lower and an upper bound, never an
approximation of unknown sign).  Both directions (D‖D′ and D′‖D) are composed; δ(ε) is the larger.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from pdp_audit.mechanisms.pld_composition import LossLaw, composed_profile_of

#: The grid composition's Hoeffding shift in ε (bounds are valid at every value; this sets their gap).
EPSILON_ERROR = 1e-3
#: Pure steps of at most this ε (a shift read to a bisection's width, ~1e-12 of a scale) are left out of the grid,
#: which costs as much for them as for any step: the lower bound without them is one (the release's law without their
#: part is a post-processing of it), and an ε_i-pure step moves δ(ε) of the rest to at most δ_rest(ε − ε_i) (Dwork &
#: Roth 2014, Thm 3.16, with δ_i = 0), so the upper is taken at ε − Σε_i.
TINY = 1e-9
#: Relative rounding allowed a realised shift before it counts against a pure budget (a mean's (hi − lo)/n computed
#: in floating point differs from the exact quotient in its last bits).  Two uses:
#:
#: * refuting (:func:`exceeds`): a lower bound on δ(ε) refutes only above δ·(1 + ROUNDING); inside the margin the
#:   pair's upper bound is above δ as well, so the pair is undecided -- the slack can only withhold a verdict.
#: * certifying a pure composition (:func:`_composed`: Σμ_i ≤ ε·(1 + ROUNDING) is read as δ(ε) = 0).  This one is
#:   NOT a proven rounding bound: a shift read off the release is R(D′; z) − R(D; z), which carries the rounding of
#:   the program's own arithmetic (a histogram's count moved by 1 reads as 1.00000000000055 in the rehearsal series),
#:   and no bound on that arithmetic is known here.  Exact reading needs the value the noise is added to, replayed
#:   with the noise set to 0 (as :func:`pdp_audit.audits.program.isolated.landed_values` does); until then a pure
#:   composition within this margin above ε is certified (issue 70, item 3, open; docs/how-to/programs.md says so).
#: * accounting a diffprivlib mechanism by its declared budget
#:   (:func:`pdp_audit.audits.program.library_steps.declared_step`): an input moved by at most its declared
#:   sensitivity × (1 + ROUNDING) is accounted at the declared ε -- the same unproven margin, for the same reason (a
#:   mean's (hi − lo)/n computed by the program and by diffprivlib in floating point).
ROUNDING = 1e-9


@dataclass(frozen=True, kw_only=True)
class Step:
    """One step of a pair's composition: the noise of recorded call ``call`` (``label``: its kind and element, as a
    report names it) whose input moved between D and D′.  ``slack``: how far the δ(ε) of the primitive's own sampler
    may fall below its law's, at any ε (a lower composition is lowered by the steps' slacks: :func:`composed_delta`);
    ``porous``: continuous float noise added to a value, whose doubles can carry the value (Mironov, CCS 2012), so
    that its real-valued law certifies the program's real-valued law only."""

    #: the law's name, as a report shows it
    law: ClassVar[str] = ""
    call: int
    label: str
    slack: float = 0.0
    porous: bool = False

    @property
    def what(self) -> str:
        """The step as a report names it: ``call 2 laplace[0]``."""
        return f"call {self.call} {self.label}"

    def pure_epsilon(self) -> float:
        """The step's own pure ε: the supremum of its privacy loss (∞ where it has none)."""
        raise NotImplementedError

    @property
    def size(self) -> float:
        """The step's loss in one number: its μ, or its pure ε (0: nothing moved; ∞: noise of scale 0 moved)."""
        return self.pure_epsilon()

    @property
    def trivial(self) -> bool:
        """Whether the step loses nothing (D and D′ give the same law)."""
        return self.pure_epsilon() == 0.0

    def loss_law(self, reverse: bool) -> LossLaw:
        """The law of the privacy loss ω = log p(X)/q(X), X ~ p (``reverse``: D′‖D), for the grid composition."""
        raise NotImplementedError

    def capped(self) -> Step:
        """The step with its shift capped at :data:`MU_CAP` (itself where it has no shift or is below the cap)."""
        return self


@dataclass(frozen=True, kw_only=True)
class Laplace(Step):
    """Laplace noise of scale b whose input moved by d: μ = |d|/b.  The loss ω = |x − μ| − |x| (x ~ Lap(0, 1)) has
    atoms at +μ (mass 1/2) and −μ (mass e^{−μ}/2) and, between them, P[ω ≤ w] = e^{−(μ − w)/2}/2 (Dwork & Roth
    2014, §3.3; Koskela, Jälkö & Honkela 2020, §4); symmetric, so one direction suffices.  Pure ε: μ."""

    law: ClassVar[str] = "laplace"
    mu: float
    porous: bool = True

    def pure_epsilon(self) -> float:
        return self.mu

    def loss_law(self, reverse: bool) -> LossLaw:
        mu = self.mu

        def laplace_cdf(w, upper=False):
            w = np.asarray(w, dtype=float)
            inner = np.exp(-(mu - np.clip(w, -mu, mu)) / 2) / 2
            below = np.where(w < -mu, 0.0, np.where(w >= mu, 1.0, inner))
            return 1.0 - below if upper else below

        return LossLaw(laplace_cdf, (-mu, mu))

    def capped(self) -> Step:
        return self if self.mu <= MU_CAP["laplace"] else dataclasses.replace(self, mu=MU_CAP["laplace"])


@dataclass(frozen=True, kw_only=True)
class Gaussian(Step):
    """Gaussian noise of standard deviation σ whose input moved by d: μ = |d|/σ; ω ~ N(μ²/2, μ²) (Balle & Wang
    2018, Thm 8).  No pure ε where μ > 0."""

    law: ClassVar[str] = "gaussian"
    mu: float
    porous: bool = True

    def pure_epsilon(self) -> float:
        return math.inf if self.mu > 0 else 0.0

    @property
    def size(self) -> float:
        return self.mu

    def loss_law(self, reverse: bool) -> LossLaw:
        from scipy.stats import norm

        mu = self.mu

        def gaussian_cdf(w, upper=False):
            z = (np.asarray(w, dtype=float) - mu * mu / 2) / mu
            return norm.sf(z) if upper else norm.cdf(z)

        return LossLaw(gaussian_cdf, (-math.inf, math.inf))

    def capped(self) -> Step:
        return self if self.mu <= MU_CAP["gaussian"] else dataclasses.replace(self, mu=MU_CAP["gaussian"])


@dataclass(frozen=True, kw_only=True)
class Discrete(Step):
    """A discrete choice (``rng.choice(k, p=…)``: an exponential mechanism, report-noisy-max by sampling) with
    probabilities ``p`` on D and ``q`` on D′: ω = log(p_j/q_j) with probability p_j (each direction its own law).
    Pure ε: max_j |log p_j/q_j| (∞ where the supports differ)."""

    law: ClassVar[str] = "discrete"
    p: tuple
    q: tuple

    def pure_epsilon(self) -> float:
        p, q = np.asarray(self.p), np.asarray(self.q)
        support = (p > 0) | (q > 0)
        if np.any(support & ((p == 0) | (q == 0))):
            return math.inf
        with np.errstate(divide="ignore"):
            return float(np.max(np.abs(np.log(p[support]) - np.log(q[support])))) if support.any() else 0.0

    def loss_law(self, reverse: bool) -> LossLaw:
        p, q = (np.asarray(self.q), np.asarray(self.p)) if reverse else (np.asarray(self.p), np.asarray(self.q))
        keep = p > 0
        omega, mass = np.log(p[keep]) - np.log(q[keep]), p[keep] / p[keep].sum()
        order = np.argsort(omega, kind="stable")
        # P[ω ≤ w] by one search in the sorted losses (a grid of ~10⁴ points against a law of many atoms)
        sorted_omega, cumulative = omega[order], np.concatenate(([0.0], np.cumsum(mass[order])))

        def cdf(w, upper=False):
            w = np.asarray(w, dtype=float)
            below = cumulative[np.searchsorted(sorted_omega, w, side="right")]
            return 1.0 - below if upper else below

        return LossLaw(cdf, (float(omega.min()), float(omega.max())))


@dataclass(frozen=True, kw_only=True)
class Declared(Step):
    """A library mechanism known only by its declared (ε, δ) -- diffprivlib's, or an OpenDP measurement's privacy
    map: composed by the basic composition theorem around the others (Dwork & Roth 2014, Thm 3.16), an upper bound
    only.  Pure ε: ``epsilon`` where ``delta`` is 0."""

    law: ClassVar[str] = "declared"
    epsilon: float
    delta: float = 0.0

    def pure_epsilon(self) -> float:
        return self.epsilon if self.delta == 0 else math.inf

    @property
    def size(self) -> float:
        return self.epsilon

    @property
    def trivial(self) -> bool:
        return self.epsilon == 0 and self.delta == 0

    def loss_law(self, reverse: bool) -> LossLaw:
        raise TypeError("a declared budget has no loss law: it is composed around the others")


def gaussian_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of the Gaussian shift μ (Balle & Wang 2018, Thm 8)."""
    from scipy.stats import norm

    if mu == 0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    return max(0.0, float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)))


#: Largest μ composed on the grid, by law (beyond it a step is capped for a lower bound: its δ(ε) is already near 1
#: at any ε a claim states, and the grid would need ~μ/h points).
MU_CAP = {"laplace": 30.0, "gaussian": 8.0}


@dataclass(frozen=True)
class Composed:
    """δ(ε) of a pair's composition: ``low`` ≤ δ(ε) ≤ ``high``; ``pure``: Σ of the steps' pure ε; ``how``: exact
    (pure, Gaussian) or the grid bounds."""

    low: float
    high: float
    pure: float
    how: str


def composed_delta(steps: list[Step], epsilon: float) -> Composed:
    """Bounds on δ(ε) of the composition of ``steps`` (module notes).  Steps of a library mechanism known only by its
    declared (ε_i, δ_i) (``declared``) are composed by the basic composition theorem around the others (Dwork & Roth
    2014, Thm 3.16): δ(ε) ≤ δ_rest(ε − Σε_i) + Σδ_i, an upper bound only.  The lower bound is lowered by the steps'
    slacks: δ(ε) of a product of independent steps is the expectation, over one factor's privacy loss ω, of the
    others' δ(ε − ω), so putting each step's own sampler in place of its law, one at a time, moves δ(ε) by at most
    that step's slack."""
    steps = [s for s in steps if not s.trivial]
    slack = sum(s.slack for s in steps)
    tiny = [s for s in steps if isinstance(s, (Laplace, Discrete)) and s.pure_epsilon() <= TINY]
    if tiny:  # composed around (:data:`TINY`): the lower without them, the upper at ε − Σε_i
        rest = [s for s in steps if s not in tiny]
        spent = sum(s.pure_epsilon() for s in tiny)
        low, high = _composed(rest, epsilon), _composed(rest, max(0.0, epsilon - spent))
        how = f"{low.how}; {len(tiny)} step(s) of pure ε ≤ {TINY:g} composed around"
        composed = Composed(low.low, high.high, low.pure + spent, how)
    else:
        composed = _composed(steps, epsilon)
    if slack and composed.low > 0:
        return Composed(max(0.0, composed.low - slack), composed.high, composed.pure, composed.how)
    return composed


def _composed(steps: list[Step], epsilon: float) -> Composed:
    declared = [s for s in steps if isinstance(s, Declared)]
    if declared:
        return _around_declared(declared, [s for s in steps if not isinstance(s, Declared)], epsilon)
    pure = sum(s.pure_epsilon() for s in steps)
    if not steps:
        return Composed(0.0, 0.0, 0.0, "no primitive's value moves")
    if pure <= epsilon * (1 + ROUNDING):
        return Composed(0.0, 0.0, pure, "exact: the steps' pure ε add up to at most ε")
    if any(isinstance(s, (Laplace, Gaussian)) and math.isinf(s.mu) for s in steps):
        return Composed(
            1.0, 1.0, math.inf, "exact: a value moves by an infinite amount (NaN, inf) or under noise of scale 0"
        )
    gaussians = [s for s in steps if isinstance(s, Gaussian)]
    if len(gaussians) == len(steps):
        mu = math.sqrt(sum(s.mu**2 for s in gaussians))
        delta = gaussian_delta(mu, epsilon)
        return Composed(delta, delta, pure, f"exact: the Gaussians compose into one of μ = {mu:.6g}")
    return _on_the_grid(steps, pure, epsilon)


def _around_declared(declared: list[Declared], rest: list[Step], epsilon: float) -> Composed:
    """The basic composition of the declared budgets with the exact composition of the rest at ε − Σε_i (Dwork &
    Roth 2014, Thm 3.16)."""
    spent = sum(s.epsilon for s in declared)
    leak = sum(s.delta for s in declared)
    pure = spent + sum(s.pure_epsilon() for s in rest) if leak == 0 else math.inf
    if epsilon - spent < -ROUNDING * max(epsilon, 1.0):
        return Composed(0.0, 1.0, pure, "declared budgets beyond ε (basic composition: no bound)")
    inner = composed_delta(rest, max(epsilon - spent, 0.0))
    high = min(1.0, inner.high + leak)
    return Composed(0.0, high, pure, f"basic composition of {len(declared)} declared budget(s) with the rest")


def _on_the_grid(steps: list[Step], pure: float, epsilon: float) -> Composed:
    """The steps' privacy-loss distributions composed on the suite's grid: bounds on δ(ε) both ways (one way for
    symmetric laws); steps of very large shift capped, which bounds δ(ε) from below only."""
    capped = [s.capped() for s in steps]
    if capped != steps:  # δ(ε) grows with each step's μ: capped steps bound it from below; 1 bounds it from above
        profile = composed_profile_of([s.loss_law(False) for s in capped], EPSILON_ERROR)
        low = profile.delta_bounds(epsilon)[0]
        return Composed(low, 1.0, pure, f"grid composition of {len(steps)} steps, large shifts capped (a lower bound)")
    low = high = 0.0
    for reverse in (False, True):
        if reverse and all(isinstance(s, (Laplace, Gaussian)) for s in steps):
            break  # symmetric laws: the reverse direction has the same loss law
        profile = composed_profile_of([s.loss_law(reverse) for s in steps], EPSILON_ERROR)
        a, b = profile.delta_bounds(epsilon)
        low, high = max(low, a), max(high, b)
    return Composed(low, high, pure, f"grid composition of {len(steps)} steps (bounds, shift {EPSILON_ERROR:g} in ε)")


def exceeds(low: float, delta: float) -> bool:
    """Whether a lower bound ``low`` on a pair's δ(ε) refutes the claim's δ: the one definition of "δ exceeded" the
    audit decides by.  ``low`` is computed in floating point (a Gaussian's δ from two normal tails, a grid's sums);
    a refutation asks it to exceed δ by the relative :data:`ROUNDING` as well, so that a bound within rounding of the
    claim never refutes.  Such a bound never certifies either: the upper bound is at least ``low``, hence above δ,
    and the pair stays undecided (an upper composition above the claim)."""
    return low > delta * (1 + ROUNDING)
