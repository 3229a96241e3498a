"""What a run of a DP claim certified: the (ε, δ̄) its evidence supports, stated on every verdict line.

A claim (ε, δ) about a pair is decided by its two hockey-stick checks, δ_{D‖D'}(ε) ≤ δ and δ_{D'‖D}(ε) ≤ δ
(``dp-forward``/``dp-reverse``, or ``pdp-*`` per instance), each with an interval whose upper end holds at the run's
confidence.  Where no check of the run failed, the pair is (ε, δ̄)-DP at that confidence with

    δ̄ = max(upper end of dp-forward's interval, upper end of dp-reverse's),

rounded *up* to two significant digits, so the text never states less than the evidence supports.  A PASS is the
case δ̄ ≤ δ; an inconclusive run still certifies (ε, δ̄) -- a pure claim (δ = 0) without a bounded-loss proof does,
say, (1, 0.032) -- and says that the claim itself is not.  A failed run certifies nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from pdp_audit.reports.numbers import round_up

if TYPE_CHECKING:  # annotations only: `pdp-audit certify --help` imports this module, and no record
    from pdp_audit.reports.records import Check

#: The checks that decide a pair's claim, by kind of claim.
CLAIM_CHECKS = {"DP": ("dp-forward", "dp-reverse"), "pDP": ("pdp-forward", "pdp-reverse")}


@dataclass(frozen=True)
class CertifiedClaim:
    """(``epsilon``, ``delta``)-``kind`` certified (δ̄ rounded up), against the ``claimed_delta`` of the run."""

    epsilon: float
    delta: float
    kind: str
    claimed_delta: float

    @property
    def covers_claim(self) -> bool:
        return self.delta <= self.claimed_delta

    def text(self) -> str:
        """``(1, 3.3e-11)-DP certified``, and ``; the claim (1, 0) is not`` where δ̄ exceeds the claim."""
        said = f"({self.epsilon:g}, {self.delta:.2g})-{self.kind} certified"
        if not self.covers_claim:
            said += f"; the claim ({self.epsilon:g}, {self.claimed_delta:g}) is not"
        return said

    def to_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "kind": self.kind,
            "claimed_delta": self.claimed_delta,
            "covers_claim": self.covers_claim,
        }


def certified_claim(checks: Sequence[Check]) -> CertifiedClaim | None:
    """The (ε, δ̄) that ``checks`` certify (module notes); None where a check failed or the run decides no pair's
    claim."""
    if any(c.verdict == "fail" for c in checks):
        return None
    for kind, ids in CLAIM_CHECKS.items():
        found = [c for c in checks if c.id in ids]
        if len(found) != len(ids) or any(not _decidable(c) for c in found):
            continue
        upper = max(float(c.ci[1]) for c in found)  # type: ignore[index]
        if not upper < 1:
            return None
        first = found[0].details
        return CertifiedClaim(float(first["epsilon"]), round_up(upper), kind, float(first["delta_claim"]))
    return None


def reproducible(checks: Sequence[Check]) -> bool:
    """False where the sampler drew from a source of its own (a check's ``details["reproducible"]`` is False:
    :func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`)."""
    return not any((c.details or {}).get("reproducible") is False for c in checks)


def verdict_suffix(checks: Sequence[Check], with_reproducibility: bool = True) -> str:
    """What follows a verdict's word on every line that states it: the (ε, δ̄) certified, and "not reproducible"
    where the sampler draws from its own source (``: (1, 0)-DP certified (not reproducible: …)``; a PDF's banner
    leaves the latter to a line of its own)."""
    claim = certified_claim(checks)
    said = "" if claim is None else f": {claim.text()}"
    if with_reproducibility and not reproducible(checks):
        said += " (not reproducible: the sampler draws from its own source)"
    return said


def proven_pure(checks: Sequence[Check]) -> bool:
    """Whether a pair's pure claim rests on the bounded-loss proof in both directions (each DP check lists it among
    its estimates: :func:`pdp_audit.verify.evidence.pair_claims.proof_estimate`)."""
    for ids in CLAIM_CHECKS.values():
        found = [c for c in checks if c.id in ids]
        if len(found) == len(ids):
            return all(
                any(name.startswith("bounded-loss proof") for name in (c.details or {}).get("estimates", {}))
                for c in found
            )
    return False


def _decidable(check: Check) -> bool:
    details = check.details or {}
    return check.ci is not None and "epsilon" in details and "delta_claim" in details
