"""The options of the coverage audit, declared once: the claimed failure probability ρ and the budget -- what
``pdp_audit.audit_coverage`` and the pytest plugin's ``assert_coverage`` take as keywords."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pdp_audit.verify.core.config import PAIR_OPTIONS, AuditConfig, option


@dataclass(frozen=True)
class CoverageAuditConfig(AuditConfig):
    """The claim "the event holds with probability at least 1 − ``rho``" of ``target`` (a vectorised sampler
    ``(size, rng) -> bool array``, a per-trial ``rng -> bool`` function, or outcomes already drawn), decided by an
    exact binomial test of the failures among ``trials`` draws at false-alarm probability ``alpha``, or with
    ``early_stop`` (a sampler's) drawn in looks and stopped once a confidence sequence decides it, ``trials`` the
    maximum (:mod:`pdp_audit.verify.evidence.coverage_sequential`), or drawn in looks until ``time_limit`` seconds have
    passed (what the draws by then support); ``exact_failure``: the exact failure probability
    where known (shown, never evidence)."""

    rho: float = option(PAIR_OPTIONS["rho"], required=True)
    trials: int = option(PAIR_OPTIONS["trials"], required=True)
    seed: int = option(PAIR_OPTIONS["seed"], required=True)
    alpha: float = option(PAIR_OPTIONS["alpha"], required=True)
    early_stop: bool = option(PAIR_OPTIONS["early_stop"])
    time_limit: float | None = option(PAIR_OPTIONS["time_limit"])
    target: Any = field(default=None, compare=False, repr=False)
    exact_failure: Any = field(default=None, compare=False)
