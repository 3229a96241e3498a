"""The primitives of one pair composed with the losses the black box estimated for those audited in isolation.

A primitive with no law the composition knows (:mod:`.isolated`: a location family with no exact law here, or float
noise porous as implemented) is audited alone by the black box on the pair where its value moves most.  Its event
test gives two numbers about that primitive's pure ε on the pair: a lower bound ε_lo at confidence 1 − α (the
bound an event's fresh counts support, :mod:`pdp_audit.audits.blackbox`) and an estimate ε̂ (the same bound at
confidence 1/2).  The primitives drawn on that pair compose (Dwork & Roth 2014, Thm 3.16 for pure ε):

* **A lower bound.**  For independent primitives the pure ε of their product is the sum of their pure ε in each
  direction: the supremum of a sum of losses over a product space is the sum of the suprema.  A sub-product's pure ε
  is at most the product's (it is a post-processing: the other coordinates dropped), so leaving steps out keeps a
  lower bound.  Each Laplace step's pure ε μ is symmetric (the same in both directions); its proven low end
  (:meth:`.step_laws.Step.rational`) counts.  A Gaussian step of μ > 0 has unbounded loss both ways.  Discrete
  choices (pure ε a logarithm, direction-dependent) and declared library budgets (claims, not evidence) are left
  out.  With k primitives isolated on the pair, each ε_lo is taken at α/k (Bonferroni), so that
  Σ_laplace μ_low + Σ ε_lo(α/k) is a lower bound on the pure ε of the primitives' composition at 1 − α.
* **An estimate.**  Σ of the known steps' pure ε as read plus Σ ε̂: an estimate, as dp-recorder's statistical mode
  gives (Cebere et al., PETS 2026), not a bound.

A call audited in isolation counts once, by its audit: its own steps (float noise porous as implemented has its
real-valued law's step beside its audit) are left out of the sum, whose rest is a sub-product: still a lower bound.

Both are about the composition of the primitives the program draws on that pair, as they run, not about its release:
the release is a post-processing of them and may lose less.  So neither decides a verdict, and the line says so
(:func:`.decision.decide`).  What the lower bound shows, where it exceeds a pure claim's ε, is that no argument by
composition of the primitives can certify the claim on that pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pdp_audit.audits.program import step_laws


@dataclass(frozen=True)
class Estimated:
    """The primitives of pair ``pair`` composed with the isolated ones' estimates (module notes): ``known_low``, the
    Laplace/Gaussian steps' proven pure ε lower end (∞ where a Gaussian moved); ``known_read``, every known step's
    pure ε as read; ``isolated_low``, Σ ε_lo at α/k (1 − α jointly); ``isolated_estimate``, Σ ε̂; ``calls``, the
    isolated calls as a report names them."""

    pair: str
    known_low: Fraction | None
    known_read: float
    isolated_low: float
    isolated_estimate: float
    calls: tuple[str, ...]

    @property
    def low(self) -> float:
        """The lower bound on the primitives' composed pure ε at 1 − α (∞ where a Gaussian step moved)."""
        return math.inf if self.known_low is None else float(self.known_low) + self.isolated_low

    @property
    def estimate(self) -> float:
        """The estimate of the primitives' composed pure ε."""
        return self.known_read + self.isolated_estimate

    def above(self, epsilon: float) -> bool:
        """Whether the lower bound exceeds ``epsilon``, decided in rationals on the doubles (no rounding decides)."""
        if self.known_low is None:
            return True
        return self.known_low + Fraction(self.isolated_low) > Fraction(epsilon)

    def row(self) -> dict:
        """As the JSON writes it."""
        return {
            "pair": self.pair,
            "calls": list(self.calls),
            "epsilon_lower": self.low,
            "epsilon_estimate": self.estimate,
            "exact_steps_epsilon": self.known_read,
        }

    def line(self, claim: tuple[float, float]) -> str:
        """The estimate in words: what it is, and what it shows against a pure claim."""
        low = "∞" if math.isinf(self.low) else f"{self.low:.4g}"
        steps = f" with the exact steps (pure ε {self.known_read:.4g})" if self.known_read else ""
        said = (
            f"Estimated, neither a guarantee nor a refutation: on {self.pair}, the loss of the primitives as they run "
            f"-- {', '.join(self.calls)} as the black box estimates {'them' if len(self.calls) > 1 else 'it'}{steps} "
            f"-- is a pure ε of about {self.estimate:.4g}, at least {low} at 1 − α"
        )
        epsilon, delta = claim
        if delta == 0 and self.above(epsilon):
            return said + (
                f" > ε = {epsilon:g}: no composition of the primitives certifies the claim on that pair (the release "
                "may still lose less)."
            )
        return said + "."


def estimated(pairs: list[Any], audits: list[Any], alpha: float) -> Estimated | None:
    """The estimate (:class:`Estimated`) on the pair most isolated audits were read on (the first of equals), from
    the analysis' ``pairs`` (:class:`.results.PairResult`) and the isolated ``audits`` (:class:`.isolated.Isolated`,
    their black box's ``bound(level)``); None where no audit gave a bound or its pair is not among ``pairs``."""
    read = [a for a in audits if a.bound is not None]
    if not read:
        return None
    names = [a.primitive.pair for a in read]
    name = max(dict.fromkeys(names), key=names.count)
    pair = next((p for p in pairs if p.neighbour.name == name), None)
    if pair is None:
        return None
    on = [a for a in read if a.primitive.pair == name]
    lows = [max(0.0, a.bound(alpha / len(on))) for a in on]
    estimates = [max(0.0, a.bound(0.5)) for a in on]
    audited = {a.primitive.call for a in on}  # counted once, by its audit (module notes)
    steps = [s for s in pair.steps if not isinstance(s, step_laws.Declared) and s.call not in audited]
    read_sum = sum(s.pure_epsilon() for s in steps)
    return Estimated(name, _known_low(steps), read_sum, sum(lows), sum(estimates), tuple(a.named for a in on))


def _known_low(steps: list[step_laws.Step]) -> Fraction | None:
    """Σ of the Laplace steps' proven low ends, in rationals; None where a Gaussian step moved (its loss is
    unbounded: the composition has no pure ε) or a Laplace step's μ is infinite."""
    total = Fraction(0)
    for step in steps:
        if isinstance(step, step_laws.Gaussian):
            if step.rational() is None:  # a shift read as non-zero is non-zero: equal inputs give equal bits
                return None
        elif isinstance(step, step_laws.Laplace):
            interval = step.rational()
            if interval is None:
                return None  # an infinite μ: noise of scale 0 moved
            total += interval[0]
    return total
