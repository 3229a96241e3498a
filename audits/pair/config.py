"""The options of the audit of a user's white-box pair, declared once: the claim (ε, δ; δ = 0 allowed), the budget
and what the claim is about -- what ``pdp_audit.audit_pair`` takes as keywords, a deployment file of a user's
mechanism as its [claim] and [audit] tables (a joint release states them the same way), and a sweep cell as keys."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pdp_audit.verify.core.config import (
    LAW_OPTION,
    PAIR_OPTIONS,
    AuditConfig,
    Option,
    OptionNames,
    build,
    in_file,
    option,
    options,
    table_values,
)
from pdp_audit.verify.inputs.validation import shown

#: The budget of a pair's audit beyond its seed and level: the draws (with early stopping, their maximum), the
#: processes drawing them, and when the pass stops -- declared once, for :class:`PairAuditConfig` and
#: :class:`PairBudget` alike (and ``pdp-audit certify --no-early-stop --time-limit``, which set a deployment's [audit]).
_TRIALS = replace(PAIR_OPTIONS["trials"], table="audit", required=True)
_WORKERS = replace(
    PAIR_OPTIONS["workers"],
    default=None,
    help="worker processes drawing sample and privacy_loss (default: the available cores for a pair slow "
    "enough to gain from them, at the measured threshold, that pickles, else 1; results do not depend on it)",
    table="audit",
)
EARLY_STOP_OPTION = replace(
    PAIR_OPTIONS["early_stop"],
    help="draw the pass of sample and privacy_loss in looks and stop once every check is decided at α (a fail, or "
    "every check passing), the trials the maximum; each look spends a fixed share of α, so the verdicts keep their "
    "level (the default; --no-early-stop, early_stop = false: the whole budget in one pass)",
)
TIME_LIMIT_OPTION = PAIR_OPTIONS["time_limit"]


@dataclass(frozen=True)
class PairBudget(AuditConfig):
    """The budget of ``pdp_audit.audit_pair(..., trials=PairBudget(...))`` -- the options of a deployment's [audit]
    table beside its seed and level: checked on construction, one line naming the field and its range.

    Attributes:
      trials: samples per world, 100 to 1e8; with ``early_stop`` (the default) or ``time_limit`` the maximum.
      workers: processes drawing ``sample`` and ``privacy_loss``, >= 1 (the pair must then pickle), or None: the
        available cores for a pair slow enough to gain from them that pickles, else 1.  The numbers never depend on
        them.
      early_stop: draw in looks and stop as soon as every check is decided at α
        (:mod:`pdp_audit.verify.evidence.pair_sequential`; ``details["early_stop"]`` of each check records the draws
        used and why the pass stopped; the default); False: the whole budget in one pass (the numbers of the
        versions before early stopping was the default).
      time_limit: seconds from the start of the audit after which no further look is drawn, > 0 (drawn in looks as
        with ``early_stop``, so the verdicts keep their level), or None: no limit.
      law: what is certified (a deployment file's ``[audit] law``): ``"as-implemented"`` (the default), the
        floating-point program ``sample`` is, its releases' bits included; ``"ideal"``, the real-valued law it
        stands for -- the certificate then reads "the real-valued law; the float implementation was
        not audited".
    """

    trials: int = option(_TRIALS)
    workers: int | None = option(_WORKERS)
    early_stop: bool = option(EARLY_STOP_OPTION)
    time_limit: float | None = option(TIME_LIMIT_OPTION)
    law: str = option(LAW_OPTION)


@dataclass(frozen=True)
class PairAuditConfig(AuditConfig):
    """An (ε, δ)-DP claim of a neighbouring pair (``target``: the pair, a
    :class:`~pdp_audit.mechanisms.base.NeighbourPair`; None for a deployment, whose pairs its certificate makes),
    decided on ``trials`` draws per world at family-wise false-alarm probability ``alpha``; ``per_instance``: the
    claim is per-instance DP of the one (D, z) the pair was built from (Wang 2019, §2); ``exact_delta``: a closed
    form of δ(ε) to check, never evidence.  ``law`` (:data:`~pdp_audit.verify.core.config.LAW_OPTION`): what is
    certified -- the floating-point program as implemented (the default: ``loss-consistency`` reads the releases'
    bits) or the real-valued law its sampler stands for (``"ideal"``: the certificate says the float implementation
    was not audited).  ``workers``: the processes drawing the pass of ``sample`` and
    ``privacy_loss`` (None: chosen, :func:`pdp_audit.audits.pair.deployed.pair_workers`; the numbers never depend on
    them); ``early_stop``, ``time_limit``: the pass drawn in looks and stopped once decided or at the limit
    (:class:`PairBudget`)."""

    epsilon: float = option(PAIR_OPTIONS["epsilon"], table="claim", required=True)
    delta: float = option(PAIR_OPTIONS["delta"], table="claim", required=True)
    trials: int = option(_TRIALS)
    seed: int = option(PAIR_OPTIONS["seed"], table="audit", required=True)
    alpha: float = option(PAIR_OPTIONS["alpha"], table="audit", required=True)
    workers: int | None = option(_WORKERS)
    early_stop: bool = option(EARLY_STOP_OPTION)
    time_limit: float | None = option(TIME_LIMIT_OPTION)
    per_instance: bool = option(
        Option("per_instance", "bool", False, "per-instance DP of the pair's (D, z)", table="none", cli=False)
    )
    exact_delta: float | None = option(replace(PAIR_OPTIONS["exact_delta"], table="none", cli=False))
    law: str = option(LAW_OPTION)
    factory: str | None = option(PAIR_OPTIONS["factory"])
    target: Any = field(default=None, compare=False, repr=False)

    def check(self, names: OptionNames) -> None:
        if self.target is not None and self.factory is not None:
            raise names.error(f"give the pair or {names.factory}, not both")


#: [claim] and [audit] of a user's mechanism: the options a deployment file sets.
OWN_OPTIONS = {key: o for key, o in options(PairAuditConfig).items() if o.table != "none"}


def with_stopping(deployment, early_stop: bool | None, time_limit: float | None):
    """``deployment`` with ``[audit] early_stop`` (where ``early_stop`` is given: True or False) and ``time_limit``
    (where given) set: what ``pdp-audit certify --early-stop/--no-early-stop --time-limit`` mean, so that they reach
    the pass by the file's one path (a flag not given leaves the file's key, or the default)."""
    audit = dict(deployment.audit)
    audit.update({"early_stop": bool(early_stop)} if early_stop is not None else {})
    audit.update({"time_limit": time_limit} if time_limit is not None else {})
    return replace(deployment, audit=audit)


def own_budget(deployment) -> PairAuditConfig:
    """[claim] and [audit] as the pair audit's config, checked against its ranges (errors name the file and key)."""
    tables = {"claim": deployment.claim, "audit": deployment.audit}
    values = table_values(shown(deployment.path), tables, OWN_OPTIONS, whose=" of a user's mechanism")
    ordered = {key: values[key] for key in OWN_OPTIONS if key in values}  # errors in declaration order
    return build(PairAuditConfig, ordered, in_file(deployment.path), known=OWN_OPTIONS)
