"""The options of the black-box audit, declared once: the claim and the budget of ``pdp_audit.audit_blackbox``
(its keywords and :class:`~pdp_audit.audits.blackbox.evidence.BlackBoxBudget`), the flags of ``pdp-audit
blackbox`` and a sweep cell's keys, with the ranges of the pair options and the defaults of
:mod:`pdp_audit.audits.blackbox.defaults`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pdp_audit.audits.blackbox.defaults import (
    DEFAULT_STATISTIC,
    DEFAULT_TRIALS,
    EARLY_STOP,
    EVENT_TRAIN_TRIALS,
    PILOT_STATISTIC,
    SEARCH_STATISTIC,
    SEARCH_TRIALS,
    STATISTICS,
)
from pdp_audit.verify.core.config import (
    LAW_OPTION,
    PAIR_OPTIONS,
    POSITIVE,
    AuditConfig,
    Option,
    OptionNames,
    option,
    options,
)
from pdp_audit.verify.core.dask_cluster import DASK_LOCAL, SCHEDULER

#: The claim and budget of ``blackbox``, in the order ``pdp-audit blackbox --help`` lists them.
_CLAIM_AND_BUDGET = (
    dataclasses.replace(PAIR_OPTIONS["epsilon"], key="claim_epsilon", help="the claimed ε >= 0", required=True),
    dataclasses.replace(
        PAIR_OPTIONS["refuted_delta"], key="claim_delta", help="the claimed δ in [0, 1)", required=True
    ),
    dataclasses.replace(
        PAIR_OPTIONS["blackbox_trials"],
        default=None,
        help=(
            f"fresh releases per world for the bound, up to 1e9 (default {DEFAULT_TRIALS:.0e}"
            + ("" if SEARCH_TRIALS == DEFAULT_TRIALS else f"; with --search {SEARCH_TRIALS:.0e}")
            + "; with --witness the witness's own)"
        ).replace("e+0", "e"),
    ),
    dataclasses.replace(
        PAIR_OPTIONS["train_trials"],
        help=f"releases per world to learn the test from (default: --trials, at most {EVENT_TRAIN_TRIALS:.0e} for "
        "the event test)".replace("e+0", "e"),
    ),
    dataclasses.replace(PAIR_OPTIONS["seed"], help="root seed (default 0)", required=True),
    dataclasses.replace(PAIR_OPTIONS["alpha"], help="false-alarm probability (default 1e-6)", required=True),
    Option(
        "statistic",
        "str",
        None,
        f"the test: {DEFAULT_STATISTIC} (default"
        + ("" if SEARCH_STATISTIC == DEFAULT_STATISTIC else f"; with --search {SEARCH_STATISTIC}")
        + f"; a search's pilots use {PILOT_STATISTIC}; --witness re-applies the witness's own test): events: the "
        "exact event test (an event chosen among "
        "logistic, trees, outcome and histogram scores fitted on the training releases, on a quarter of --trials "
        "further releases; an exact joint test of each event's two "
        "counts on about --trials fresh ones, only their counts kept), which also reads the structure of the "
        "releases' numbers where they are floats (with --law ideal, never); events-numbers: the same, the releases "
        "always augmented with the structure of their numbers "
        "(integrality, fractional part, low bits of the float64 significand); logistic: a logistic regression on "
        "the releases and their squares, bounded at pooled ranks; select: logistic or gradient-boosted trees, "
        "whichever bounds ε higher on a validation quarter of the training releases",
        choices=STATISTICS,
    ),
    dataclasses.replace(
        PAIR_OPTIONS["early_stop"],
        default=EARLY_STOP,
        help="draw the fresh releases in rounds and stop once decided: the claim refuted, or every event shown within "
        "it, at α (an anytime-valid bound: the exact test after each round, Bonferroni over the rounds; --trials the "
        "maximum; the event test of a plain run only; the default; --no-early-stop: the whole fresh budget in one "
        "pass, the bound Clopper–Pearson's)",
        table="audit",
    ),
    Option(
        "time_limit",
        "float",
        None,
        "seconds from the start after which the fresh releases stop, > 0: the run reports what the releases drawn "
        "by then support (drawn in rounds as with early stopping, whose anytime-valid bound keeps α; the result then "
        "depends on the machine's speed)",
        range=POSITIVE,
        table="audit",
    ),
)

#: Where the blocks of releases are drawn: worker processes, or Dask (the options of ``sweep``, declared once).
PLACE_OPTIONS = (
    dataclasses.replace(
        PAIR_OPTIONS["workers"],
        default=None,
        help="worker processes (default: the available cores for a sampler slower than 20 µs a release that "
        "pickles, else 1; a search or witness re-check: 1; results do not depend on it)",
    ),
    SCHEDULER,
    DASK_LOCAL,
)
_EPSILON, _DELTA, _TRIALS, _TRAIN, _SEED, _ALPHA, _STATISTIC, _EARLY_STOP, _TIME_LIMIT = _CLAIM_AND_BUDGET
#: What the verdict is about (declared once for every route: :data:`pdp_audit.verify.core.config.LAW_OPTION`): as
#: implemented, the event test reads the releases' structure as numbers where they are floats; ideal, never.
_LAW = LAW_OPTION
_WORKERS, _SCHEDULER, _DASK_LOCAL = PLACE_OPTIONS


@dataclass(frozen=True)
class BlackBoxAuditConfig(AuditConfig):
    """An (ε, δ)-DP claim of ``target`` -- an object with ``sample(world, size, rng)`` or a tuple of two samplers
    ``(size, rng) -> releases`` -- tried on ``trials`` fresh releases per world (None: the default budget, fitted
    to the sampler's speed, :mod:`pdp_audit.audits.blackbox.time_budget`) with a test learned on
    ``train_trials``; ``statistic`` None: :data:`~pdp_audit.audits.blackbox.defaults.DEFAULT_STATISTIC`; ``early_stop``:
    the event test's fresh pass stopped once decided (:mod:`pdp_audit.audits.blackbox.anytime`); ``law``: what the
    verdict is about (``as-implemented``: the event test also reads the releases' structure as numbers where they are
    floats; ``ideal``: the real-valued law, the float implementation not audited); the blocks
    drawn on ``workers`` processes, a Dask ``scheduler`` or a ``dask_local`` cluster (at most one of them)."""

    claim_epsilon: float = option(_EPSILON)
    claim_delta: float = option(_DELTA)
    trials: int | None = option(_TRIALS)
    train_trials: int | None = option(_TRAIN)
    seed: int = option(_SEED)
    alpha: float = option(_ALPHA)
    statistic: str | None = option(_STATISTIC)
    early_stop: bool = option(_EARLY_STOP)
    time_limit: float | None = option(_TIME_LIMIT)
    law: str = option(_LAW)
    workers: int = option(_WORKERS)
    scheduler: str | None = option(_SCHEDULER)
    dask_local: int | None = option(_DASK_LOCAL)
    factory: str | None = option(PAIR_OPTIONS["factory"])
    target: Any = field(default=None, compare=False, repr=False)

    def check(self, names: OptionNames) -> None:
        if self.target is not None and self.factory is not None:
            raise names.error(f"give the pair or {names.factory}, not both")
        if self.law == "ideal" and self.statistic == "events-numbers":
            raise names.error(
                f"{names.statistic} 'events-numbers' reads the float implementation, which {names.law} 'ideal' "
                "leaves unaudited: give one of them"
            )


#: The claim and budget of ``blackbox`` (without where the blocks are drawn: :data:`PLACE_OPTIONS`).
BLACKBOX_OPTIONS = tuple(o for o in options(BlackBoxAuditConfig).values() if o not in PLACE_OPTIONS)
#: How ``pdp_audit.audit_blackbox`` names the claim: its arguments ``epsilon`` and ``delta``.
KEYWORDS = {"claim_epsilon": "epsilon", "claim_delta": "delta"}


def command_defaults(
    trials: int | None, statistic: str | None, workers: int | None, search: bool, reported: bool, witness: bool
) -> tuple:
    """``trials``, ``statistic`` and ``workers`` of a black-box run where not given, by the one rule every way in
    follows: a plain attack, from the API, the command or a deployment file, keeps ``trials`` None -- the default
    budget fitted to the sampler's speed -- and ``workers`` None -- chosen from it
    (:mod:`pdp_audit.audits.blackbox.time_budget`); a search's final attack and a reported attack (which adds pages
    and a witness, never another verdict) run the fixed default of :mod:`pdp_audit.audits.blackbox.defaults` on one
    process; a witness's re-check its own budget, read with the witness, on one process."""
    if trials is None and not witness and (search or reported):
        trials = SEARCH_TRIALS if search else DEFAULT_TRIALS
    if statistic is None:
        statistic = SEARCH_STATISTIC if search else DEFAULT_STATISTIC
    if workers is None and (search or reported or witness):
        workers = 1
    return trials, statistic, workers
