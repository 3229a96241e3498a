"""The options of the canary audits, declared once: the δ of the bound, a claimed ε to refute, α and the seed --
what ``pdp_audit.audit_canary_scores`` and ``audit_one_run`` take as keywords and ``pdp-audit canaries`` as flags."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pdp_audit.verify.core.config import PAIR_OPTIONS, AuditConfig, option, options


@dataclass(frozen=True)
class CanaryScores:
    """The scores of canaries included in training (``in_scores``) and held out (``out_scores``)."""

    in_scores: Any
    out_scores: Any


@dataclass(frozen=True)
class OneRunScores:
    """One score per canary of one training run, the inclusion coins (``included``) and, optionally, the guesses
    (k₊, k₋) of the one-run audit (Steinke, Nasr & Jagielski 2023)."""

    scores: Any
    included: Any
    guesses: Any = None


@dataclass(frozen=True)
class CanaryAuditConfig(AuditConfig):
    """The ε lower bound at ``delta`` that the scores of ``target`` (:class:`CanaryScores` or
    :class:`OneRunScores`) prove at false-alarm probability ``alpha``, tested against ``claim_epsilon`` where one
    is given (scores refute a claim, never certify it)."""

    delta: float = option(PAIR_OPTIONS["delta"], help="the δ of the bound (and of the claim), in [0, 1)", required=True)
    claim_epsilon: float | None = option(
        dataclasses.replace(
            PAIR_OPTIONS["epsilon"], key="claim_epsilon", help="a claimed ε >= 0 to refute (default: none tested)"
        )
    )
    alpha: float = option(PAIR_OPTIONS["alpha"], help="false-alarm probability (default 1e-6)", required=True)
    seed: int = option(
        PAIR_OPTIONS["seed"], help="seed of the subsample sizes and tie-breaking (default 0)", required=True
    )
    target: Any = field(default=None, compare=False, repr=False)


#: The flags of ``pdp-audit canaries`` declared by the config (the rest name its files and modes).
CANARY_OPTIONS = tuple(options(CanaryAuditConfig).values())
