"""The steps a pair's composition is made of (:mod:`.accounting`), by law: each the noise of one recorded call whose
input moved between D and D′, with its pure ε, its proven interval of it, and its privacy-loss law for the grid."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from pdp_audit.mechanisms.pld_composition import LossLaw

#: Largest μ composed on the grid, by law (beyond it a step is capped for a lower bound: its δ(ε) is already near 1
#: at any ε a claim states, and the grid would need ~μ/h points).
MU_CAP = {"laplace": 30.0, "gaussian": 8.0}


@dataclass(frozen=True, kw_only=True)
class Step:
    """One step of a pair's composition: the noise of recorded call ``call`` (``label``: its kind and element, as a
    report names it) whose input moved between D and D′.  ``slack``: how far the δ(ε) of the primitive's own sampler
    may fall below its law's, at any ε (a lower composition is lowered by the steps' slacks:
    :func:`.accounting.composed_delta`); ``porous``: continuous float noise added to a value, whose doubles can carry
    the value (Mironov, CCS 2012), so that its real-valued law certifies the program's real-valued law only;
    ``within``: where the step's pure ε is a reading (a shift read off the release, with the rounding of the
    program's arithmetic), a proven interval of its exact value in rationals, its upper end None where no bound is
    proven (None: the float is the step's exact value -- a step *of* that μ)."""

    #: the law's name, as a report shows it
    law: ClassVar[str] = ""
    call: int
    label: str
    slack: float = 0.0
    porous: bool = False
    within: tuple[Fraction, Fraction | None] | None = None

    @functools.cached_property  # made once: a step is shared by a draw set's pairs (:func:`.pair_steps.shifted_step`)
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

    @functools.cached_property  # read on every composition of a step a draw set's pairs share
    def trivial(self) -> bool:
        """Whether the step's loss, as read, is nothing (D and D′ give the same law, to the reading's rounding: a
        step read as 0 whose :attr:`within` is wider still counts in the exact test of a pure composition)."""
        return self.pure_epsilon() == 0.0

    def rational(self) -> tuple[Fraction, Fraction | None] | None:
        """A proven interval [low, high] of the step's exact pure ε, in rationals (:func:`.accounting.certified`; high
        None: no upper end proven); None where it is infinite."""
        if self.within is not None:
            return self.within
        epsilon = self.pure_epsilon()
        return (Fraction(epsilon), Fraction(epsilon)) if math.isfinite(epsilon) else None

    @functools.cached_property
    def integer_ends(self) -> tuple[int, int, int | None, int] | None:
        """:meth:`rational` as integers, for :func:`.accounting._pure_sums`: the low end's numerator and denominator,
        the high end's (numerator None where unbounded, denominator 1); None where it is None.  Made once a step (a
        step is shared by a draw set's pairs: :func:`.pair_steps.shifted_step`)."""
        interval = self.rational()
        if interval is None:
            return None
        low, high = interval
        if high is None:
            return low.numerator, low.denominator, None, 1
        return low.numerator, low.denominator, high.numerator, high.denominator

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

        return LossLaw(laplace_cdf, (-mu, mu), key=("laplace", mu))

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

    def rational(self) -> tuple[Fraction, Fraction | None] | None:
        """0 where the shift is exactly 0; [0, unbounded) where it is read as 0 within a rounding (0 or no pure ε:
        read exactly, it may be 0); else no pure ε."""
        if self.mu == 0 and (self.within is None or self.within[1] == 0):
            return (Fraction(0), Fraction(0))
        return (Fraction(0), None) if self.mu == 0 else None

    def loss_law(self, reverse: bool) -> LossLaw:
        from scipy.stats import norm

        mu = self.mu

        def gaussian_cdf(w, upper=False):
            z = (np.asarray(w, dtype=float) - mu * mu / 2) / mu
            return norm.sf(z) if upper else norm.cdf(z)

        return LossLaw(gaussian_cdf, (-math.inf, math.inf), key=("gaussian", mu))

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
    #: the weights as the program gave them (D's, D′'s), where ``p`` and ``q`` were normalised in floating point:
    #: the exact law is each weight over their exact sum (:meth:`ratio`)
    weights: tuple[tuple, tuple] | None = None
    #: the masses as exact rationals (D's, D′'s), where ``p`` and ``q`` round them (numpy's integer samplers as
    #: implemented: :mod:`.lattice_noise`)
    exact: tuple[tuple[Fraction, ...], tuple[Fraction, ...]] | None = None

    def ratio(self) -> Fraction | None:
        """e to the step's exact pure ε: max_j max(p_j/q_j, q_j/p_j) over the support, in rationals (p and q each
        normalised exactly); None where the supports differ (ε = ∞)."""
        p, q = self.weights if self.weights is not None else (self.p, self.q)
        exact_p, exact_q = [Fraction(float(v)) for v in p], [Fraction(float(v)) for v in q]
        if self.exact is not None:
            exact_p, exact_q = list(self.exact[0]), list(self.exact[1])
        total_p, total_q = sum(exact_p), sum(exact_q)
        if total_p <= 0 or total_q <= 0:
            return None
        worst = Fraction(1)
        for a, b in zip(exact_p, exact_q):
            if (a > 0) != (b > 0):
                return None
            if a > 0:
                r = (a * total_q) / (b * total_p)
                worst = max(worst, r, 1 / r)
        return worst

    def masses(self) -> tuple[list[Fraction], list[Fraction]] | None:
        """The law's masses on D and on D′ as exact rationals: the program's weights each over their exact sum
        where it gave weights, its :attr:`exact` masses where it has them, else ``p`` and ``q`` as the doubles they
        are; None where a side has no mass."""
        if self.exact is not None:
            return list(self.exact[0]), list(self.exact[1])
        if self.weights is None:
            return [Fraction(float(v)) for v in self.p], [Fraction(float(v)) for v in self.q]
        sides = []
        for side in self.weights:
            exact = [Fraction(float(v)) for v in side]
            total = sum(exact)
            if total <= 0:
                return None
            sides.append([v / total for v in exact])
        return sides[0], sides[1]

    def rational(self) -> tuple[Fraction, Fraction | None] | None:
        raise TypeError("a choice's pure ε is a logarithm: it is composed by its ratio (certified)")

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

        return LossLaw(cdf, (float(omega.min()), float(omega.max())), key=("discrete", self.p, self.q, reverse))


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

    def rational(self) -> tuple[Fraction, Fraction | None] | None:
        return None if self.delta else super().rational()

    @property
    def size(self) -> float:
        return self.epsilon

    @functools.cached_property
    def trivial(self) -> bool:
        return self.epsilon == 0 and self.delta == 0

    def loss_law(self, reverse: bool) -> LossLaw:
        raise TypeError("a declared budget has no loss law: it is composed around the others")
