"""What a run decided about the user's DP claim, in the words of every line that states its verdict.

A claim (ε, δ) about a pair is decided by its two hockey-stick checks, δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ
(``dp-forward``/``dp-reverse``, or ``pdp-*`` per instance), each with an interval whose upper end holds at the run's
confidence.  The headline and the exit code are both about that claim -- certified (0), refuted (1) or not decided
(3) -- and the headline says on what it rests (:class:`CertifiedClaim`, ``basis``):

* ``exact``: both checks passed by the suite's closed-form rule -- the exact δ(ε) of the mechanism the suite built
  from its declared law satisfies the claim, and the sampled interval contains it
  (:func:`pdp_audit.verify.evidence.builders.tail_claim_check`): "the claim (1, 1e-05)-DP holds by the exact
  δ(1) = 1.0000e-05; sampling confirms [9.28e-06, 1.07e-05]";
* ``proof``: the pure claim (δ = 0) rests on the bounded-loss proof of a pair the suite built from the declared law
  (:func:`pdp_audit.verify.evidence.pair_claims.proof_estimate`): "(1, 0)-DP certified by the bounded-loss proof";
* ``sampling``: the intervals alone lie below the claim: "(1, 7.8e-06)-DP certified" names δ̄, the larger of the two
  directions' tightest upper bounds (below), rounded *up* to two significant digits, so a certificate never states more
  than the evidence supports;
* ``composition``: the release is the adaptive composition of stages, each audited against its own (ε_i, δ_i)
  (:attr:`Check.stage`: ObjPert's θ̂ᴾ and the privacy report of it); every stage's claim holds, so the release is
  (Σε_i, Σδ_i)-DP by the basic composition theorem (:func:`composed_claim`): "(1.17, 2e-05)-DP certified by
  composing its stages: θ̂ᴾ (ObjPert): (0.2, 3.7e-23)-DP; the report (Algorithm 2): (0.961057, 3.9e-08)-DP";
* none: nothing decides the claim.  The run is then not decided (3), and its headline names what the evidence does
  support and the budget the checks predict would decide: "the claim (2, 0.0001)-DP is not decided; the evidence
  supports (2, 0.0012)-DP; about 3.6e+05 samples per world would decide it".

**The tightest valid bound at the run's level decides.**  A direction's δ_{P‖Q}(ε) may be bounded by more than its
claim check: a guarantee of the same run that estimates the same quantity by another estimator -- the same pair, the
same direction, the same ε -- names the claim check in its details (:data:`BOUNDS`; AdaOPS's conditional Monte Carlo
``dp-conditional-forward`` bounds ``dp-forward``'s δ_{D‖D'}(1): :mod:`pdp_audit.audits.linreg.adaops`).  The
direction's bound is the smallest of their upper ends, and it decides the headline and the verdict.  Why the minimum
is valid: every statistical guarantee of a run is one family, and each interval is reported at the Bonferroni level
1 − α/m, m the family's statistical checks (:func:`pdp_audit.verify.core.checks.finalize`), so by the union bound
all of them cover their quantities *simultaneously* with probability ≥ 1 − α.  On that event every upper end is at
least the true δ_{P‖Q}(ε), hence so is their minimum: the minimum is an upper bound at level 1 − α, the run's.  It
needs that simultaneous coverage -- the minimum of bounds each valid only at its own level 1 − a would hold with
probability 1 − k·a for k of them, not 1 − a -- so only a guarantee of the same family, at the claim check's level,
is taken (a paper finding is decided as a family of its own, with an α of its own: its intervals are not covered).
The stated interval of the ``exact`` basis stays the claim checks' own (the closed form is checked against the
sampling it is confirmed by).

A failed run refutes the claim and certifies nothing: "REFUTED: the claim (1, 0.001)-DP is refuted (loss-consistency
fails)".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from pdp_audit.reports.numbers import round_down, round_up, sum_up

if TYPE_CHECKING:  # annotations only: `pdp-audit certify --help` imports this module, and no record
    from pdp_audit.reports.records import Check

#: The checks that decide a pair's claim, by kind of claim.
CLAIM_CHECKS = {"DP": ("dp-forward", "dp-reverse"), "pDP": ("pdp-forward", "pdp-reverse")}
#: The two directions of a claim: a claim is decided where both are bounded.
DIRECTIONS = ("D||D'", "D'||D")
#: Claim checks built without :attr:`Check.delta_of` (a document written before it was typed; a user's pair), each
#: recognised by its exact id: (kind, direction).
_UNTYPED = {ids[i]: (kind, DIRECTIONS[i]) for kind, ids in CLAIM_CHECKS.items() for i in range(2)}
#: The key of a claim check's details holding a proven upper bound on its δ_{P‖Q}(ε) -- a certificate derived from
#: the mechanism's analysis, or an exact closed form of the pair (ObjPert: :mod:`pdp_audit.audits.objpert.profile`);
#: basis ``bound`` (module notes).
BOUND_DELTA = "bound_delta"
#: The key of a check's details naming the claim check (``dp-forward``, …) whose δ_{P‖Q}(ε) its interval also bounds:
#: the same pair, direction and ε, estimated otherwise (module notes).  Its details carry ``epsilon`` too.
BOUNDS = "bounds"
#: What an undecided check's note says of the budget that would decide it
#: (:func:`pdp_audit.verify.core.checks.samples_to_decide`, :func:`pdp_audit.verify.evidence.pair_claims._hint`).
_BUDGET = re.compile(r"About ([0-9.]+e[+-]?[0-9]+) samples per world")
_NO_BUDGET = ("No budget", "No sample size")


@dataclass(frozen=True)
class CertifiedClaim:
    """What a run decided about the claim (``epsilon``, ``claimed_delta``)-``kind``: ``delta`` the δ̄ its intervals
    support (rounded up); ``basis`` what makes the claim hold (``exact``, ``proof``, ``sampling``; None: nothing
    does); ``exact_delta`` the closed form's δ(ε) where the claim rests on it, ``interval`` the sampled interval
    (both directions' together, as the claim checks sampled it); ``budget`` what the undecided checks predict would
    decide them; ``undecided`` the ids of the guarantees not decided; ``bounded_by`` the checks whose upper ends gave
    δ̄, where one is not a claim check (module notes: the tightest valid bound decides)."""

    epsilon: float
    delta: float
    kind: str
    claimed_delta: float
    basis: str | None = "sampling"
    exact_delta: float | None = None
    interval: tuple[float, float] | None = None
    budget: str = ""
    undecided: tuple[str, ...] = ()
    bounded_by: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()

    @property
    def covers_claim(self) -> bool:
        """Whether the evidence makes the claim hold (by its exact closed form, a proof or the intervals)."""
        return self.basis is not None

    def claim(self) -> str:
        return f"({self.epsilon:g}, {self.claimed_delta:g})-{self.kind}"

    def supported(self) -> str:
        return f"({self.epsilon:g}, {self.delta:.2g})-{self.kind}"

    def text(self) -> str:
        """The headline's words after the verdict (module notes)."""
        if self.undecided or not self.covers_claim:
            said = f"{'the stages’ composed claim' if self.stages else 'the claim'} {self.claim()} is not decided"
            if self.delta < 1:
                said += f"; the evidence supports {self.supported()}{self._by()}"
            others = [i for i in self.undecided if i not in _UNTYPED]
            if others:
                said += f"; undecided: {', '.join(others)}"
            return said + (f"; {self.budget}" if self.budget else "")
        low, high = self.interval or (0.0, 0.0)
        if self.basis == "exact":
            said = f"the claim {self.claim()} holds by the exact δ({self.epsilon:g}) = {_exact(self.exact_delta)}; "
            if math.isfinite(high):
                return said + f"sampling confirms [{round_down(low):.3g}, {round_up(high, 3):.3g}]"
            return said + f"sampling is consistent with it (≥ {round_down(low):.3g}; its upper end is not certified)"
        if self.basis == "bound":
            return (
                f"{self.supported()} certified by the closed-form bound on δ({self.epsilon:g}); sampling is "
                f"consistent with it (≥ {round_down(low):.3g})"
            )
        if self.basis == "proof":
            return f"{self.supported()} certified by the bounded-loss proof"
        if self.basis == "composition":
            return f"{self.supported()} certified by composing its stages: {'; '.join(self.stages)}"
        return f"{self.supported()} certified{self._by()}"

    def _by(self) -> str:
        if self.stages:
            return f" by composing its stages ({'; '.join(self.stages)})"
        return f" by {' and '.join(self.bounded_by)}" if self.bounded_by else ""

    def to_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "kind": self.kind,
            "claimed_delta": self.claimed_delta,
            "covers_claim": self.covers_claim and not self.undecided,
            "basis": self.basis if not self.undecided else None,
            "exact_delta": self.exact_delta,
            "headline": self.text(),
        }


def claim_checks(checks: Sequence[Check]) -> list[Check]:
    """The checks of the user's claim among ``checks``: those bounding the run's δ_{P‖Q}(ε) in a direction
    (:attr:`Check.delta_of`, typed on the check's spec), of the first kind that has both directions; a run may
    audit several releases against one claim (GOE and Analyze Gauss), each with its pair.  Empty where none is."""
    for kind in CLAIM_CHECKS:
        found = [c for c in checks if c.stage is None and _claim_of(c) == kind]
        if {_direction(c) for c in found} == set(DIRECTIONS):
            return found
    return []


def _direction(check: Check) -> str | None:
    return check.delta_of or _UNTYPED.get(check.id, (None, None))[1]


def _claim_of(check: Check) -> str | None:
    """The kind of claim ``check`` bounds a direction of: ``DP`` where its spec says so (``delta_of``), else by its
    exact id where it is a claim check built without the typed field (a document written before it)."""
    return "DP" if check.delta_of is not None else _UNTYPED.get(check.id, (None, None))[0]


def certified_claim(checks: Sequence[Check]) -> CertifiedClaim | None:
    """What ``checks`` (a run's guarantees) decide about the pair's claim (module notes); None where a check failed
    or the run decides no pair's claim.  A release audited as the composition of its stages (each check's
    :attr:`Check.stage`) is decided by :func:`composed_claim`."""
    if any(c.verdict == "fail" for c in checks):
        return None
    found = claim_checks(checks)
    if not found:
        return composed_claim(checks)
    return _decided(found, checks)


def _decided(found: list[Check], checks: Sequence[Check]) -> CertifiedClaim | None:
    """What the checks ``found`` of one claim (both directions), among the run's ``checks``, decide about it."""
    if any(not _decidable(c) for c in found):
        return None
    kind = _claim_of(found[0]) or "DP"
    bounds = [tightest(c, checks) for c in found]
    upper = max(bound for bound, _ in bounds)
    first = found[0].details
    claimed = float(first["delta_claim"])
    interval = (min(float(c.ci[0]) for c in found), max(float(c.ci[1]) for c in found))  # type: ignore[index]
    basis, closed_form = _basis(found, claimed, upper)
    undecided = tuple(c.id for c in checks if c.verdict != "pass")
    by = tuple(dict.fromkeys(check.id for _, check in bounds))
    # what the claim rests on names the δ it certifies: the closed-form bound where that is the basis, else δ̄
    # (an exact δ(ε) where the intervals are open above: they support no δ below 1, the closed form names it)
    rests_on_form = basis == "bound" or (basis == "exact" and not math.isfinite(upper))
    named = closed_form if rests_on_form and closed_form is not None else upper
    return CertifiedClaim(
        float(first["epsilon"]),
        round_up(min(named, 1.0)),
        kind,
        claimed,
        basis,
        closed_form if basis == "exact" else None,
        interval,
        _budget(c for c in checks if c.verdict != "pass"),
        undecided,
        by if set(by) - {c.id for c in found} else (),
    )


def stage_checks(checks: Sequence[Check]) -> dict[str, list[Check]]:
    """The checks of each stage of a release audited as a composition (:attr:`Check.stage`), by stage in the run's
    order; empty where the run has a claim check of its own or a stage lacks a direction."""
    stages: dict[str, list[Check]] = {}
    for check in checks:
        if check.stage is not None and check.delta_of is not None:
            stages.setdefault(check.stage, []).append(check)
    if claim_checks(checks) or any({c.delta_of for c in own} != set(DIRECTIONS) for own in stages.values()):
        return {}
    return stages


def composed_claim(checks: Sequence[Check]) -> CertifiedClaim | None:
    """The claim of a release that is the adaptive composition of stages, each with both directions of its own
    (ε_i, δ_i) claim checked: (Σε_i, Σδ_i)-DP, by the basic composition theorem (Dwork & Roth 2014, Theorem 3.16,
    which holds for adaptively chosen stages: their Appendix B).  It holds where every stage's claim holds
    (:func:`_decided`); it supports (Σε_i, Σδ̄_i), δ̄_i what stage i's evidence supports -- its claimed δ_i where
    it holds by its exact closed form.  All stages' intervals hold at once at the run's level (one Bonferroni
    family: module notes), so the sum is an upper bound at that level.  The sums stated are rounded *up* (3
    significant digits for ε, 2 for δ̄), so the headline never names less than the evidence needs.  None where the
    run is not a composition of stages, or a stage's claim cannot be decided."""
    stages = stage_checks(checks)
    parts = [_decided(own, checks) for own in stages.values()]
    if not parts or any(part is None for part in parts):
        return None
    decided = [part for part in parts if part is not None]
    holds = all(part.covers_claim for part in decided)
    supported = [part.claimed_delta if part.basis == "exact" else part.delta for part in decided]
    return CertifiedClaim(
        round_up(sum_up(part.epsilon for part in decided), 3),
        round_up(min(sum_up(supported), 1.0)),
        "DP",
        math.fsum(part.claimed_delta for part in decided),
        "composition" if holds else None,
        budget=decided[0].budget,
        undecided=decided[0].undecided,
        stages=tuple(f"{name}: {part.supported()}" for name, part in zip(stages, decided)),
    )


def tightest(claim: Check, checks: Sequence[Check]) -> tuple[float, Check]:
    """The smallest upper end of ``claim``'s interval and of every guarantee among ``checks`` that bounds the same
    δ_{P‖Q}(ε) (:data:`BOUNDS` names ``claim``, at its ε) at its level -- valid at the run's level because all of them
    hold at once with probability ≥ 1 − α (module notes) -- and the check it is of (``claim`` on a tie).  An upper
    end that is NaN bounds nothing: it reads as +∞ (a NaN compares false both ways, and ``max`` of bounds with one
    would depend on their order)."""
    best = (_upper_end(claim), claim)
    for other in checks:
        if _bounds(other, claim) and _upper_end(other) < best[0]:
            best = (_upper_end(other), other)
    return best


def _upper_end(check: Check) -> float:
    """``check``'s upper end, +∞ where it has no interval or a NaN end."""
    upper = math.inf if check.ci is None or check.ci[1] is None else float(check.ci[1])
    return math.inf if math.isnan(upper) else upper


def _bounds(other: Check, claim: Check) -> bool:
    """Whether ``other``'s interval is one more bound on ``claim``'s δ(ε) at the run's level: it says so
    (:data:`BOUNDS`, the same ε), and it is a guarantee at the claim check's level (the same Bonferroni family)."""
    details = other.details or {}
    return (
        details.get(BOUNDS) == claim.id
        and other.ci is not None
        and other.ci[1] is not None
        and other.role == "guarantee" == claim.role
        and other.level is not None
        and other.level == claim.level
        and float(details.get("epsilon", math.nan)) == float(claim.details["epsilon"])
    )


def _basis(found: list[Check], claimed: float, upper: float) -> tuple[str | None, float | None]:
    """What makes the claim hold where both checks passed (module notes); (None, None) where nothing does."""
    if any(c.verdict != "pass" for c in found):
        return None, None
    if all(_proven(c) for c in found) and claimed == 0:
        return "proof", None
    if upper <= claimed:
        return "sampling", None
    exact = [c.exact for c in found]
    if all(
        e is not None and e <= claimed and c.ci[0] <= e <= c.ci[1]  # type: ignore[index]
        for c, e in zip(found, exact)
    ):
        return "exact", max(float(e) for e in exact if e is not None)
    bounds = [(c.details or {}).get(BOUND_DELTA) for c in found]
    if all(b is not None and float(b) <= claimed and c.ci[0] <= float(b) for c, b in zip(found, bounds)):  # type: ignore[index]
        return "bound", max(float(b) for b in bounds if b is not None)
    return None, None


def _budget(undecided) -> str:
    """The largest budget the undecided checks' notes name, or that none decides."""
    sizes, never = [], False
    for check in undecided:
        note = check.note or ""
        sizes += [float(m) for m in _BUDGET.findall(note)]
        never = never or any(word in note for word in _NO_BUDGET)
    if sizes:
        return f"about {max(sizes):.1e} samples per world would decide it"
    return "no budget of draws decides it" if never else ""


def _exact(value: float | None) -> str:
    return "0" if not value else f"{value:.4e}"


def _proven(check: Check) -> bool:
    return any(name.startswith("bounded-loss proof") for name in (check.details or {}).get("estimates", {}))


def reproducible(checks: Sequence[Check]) -> bool:
    """False where the sampler drew from a source of its own (a check's ``details["reproducible"]`` is False:
    :func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`)."""
    return not any((c.details or {}).get("reproducible") is False for c in checks)


#: Said after a verdict wherever the sampler drew from a source of its own (:func:`reproducible`): the same seed
#: reruns another run, so every line that states the verdict says so.
NOT_REPRODUCIBLE = " (not reproducible: the sampler draws from its own source)"


def verdict_suffix(checks: Sequence[Check], with_reproducibility: bool = True) -> str:
    """What follows a verdict's word on every line that states it: what the run decided about the claim and on what
    it rests (module notes), and "not reproducible" where the sampler draws from its own source (``: (1, 0)-DP
    certified (not reproducible: …)``; a PDF's banner leaves the latter to a line of its own)."""
    claim = certified_claim(checks)
    said = f": {claim.text()}" if claim is not None else _refuted(checks)
    if with_reproducibility and not reproducible(checks):
        said += NOT_REPRODUCIBLE
    return said


def _refuted(checks: Sequence[Check]) -> str:
    """``: the claim (1, 1e-05)-DP is refuted (dp-forward fails)`` where a check failed and the run states a pair's
    claim (its DP checks' ``epsilon`` and ``delta_claim``) -- or, for a release audited as a composition, the claim
    of the stage whose check failed; empty otherwise."""
    failed = [c for c in checks if c.verdict == "fail"]
    if not failed:
        return ""
    for kind in CLAIM_CHECKS:
        found = [c for c in checks if c.stage is None and _claim_of(c) == kind and _states_claim(c)]
        if found:
            return f": the claim {_stated(found[0], kind)} is refuted ({_failing(failed)})"
    stages = [c for c in failed if c.stage is not None and _states_claim(c)]
    if stages:
        return f": stage {stages[0].stage}'s claim {_stated(stages[0], 'DP')} is refuted ({_failing(failed)})"
    return ""


def _states_claim(check: Check) -> bool:
    return "epsilon" in (check.details or {}) and "delta_claim" in check.details


def _stated(check: Check, kind: str) -> str:
    return f"({float(check.details['epsilon']):g}, {float(check.details['delta_claim']):g})-{kind}"


def _failing(failed: list[Check]) -> str:
    shown = ", ".join(c.id for c in failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
    return f"{shown} {'fails' if len(failed) == 1 else 'fail'}"


def proven_pure(checks: Sequence[Check]) -> bool:
    """Whether a pair's pure claim rests on the bounded-loss proof in both directions (each DP check lists it among
    its estimates: :func:`pdp_audit.verify.evidence.pair_claims.proof_estimate`)."""
    found = claim_checks(checks)
    return bool(found) and all(_proven(c) for c in found)


def _decidable(check: Check) -> bool:
    details = check.details or {}
    return check.ci is not None and "epsilon" in details and "delta_claim" in details
