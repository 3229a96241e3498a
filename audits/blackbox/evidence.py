"""The black-box attack's check (:mod:`pdp_audit.audits.blackbox.attack`) for ``pdp_audit.audit_blackbox``, ``pdp-audit
blackbox`` and a user's sampler-only pair: the budget, the refusals made before any draw (memory, samplers that
cannot reach worker processes) and the decided evidence."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.blackbox.anytime import AnytimeEventAttack
from pdp_audit.audits.blackbox.attack import attack_memory, checked_blackbox_releases
from pdp_audit.audits.blackbox.defaults import DEFAULT_STATISTIC, EARLY_STOP
from pdp_audit.audits.blackbox.events import EventAttack, event_readings, selection_size
from pdp_audit.audits.blackbox.stages import stage_schedule
from pdp_audit.audits.blackbox.witness import roc_points
from pdp_audit.mechanisms.base import MalformedPair, user_error
from pdp_audit.reports.records import EventPoint, EventRates, Roc
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.core.config import LAW_OPTION
from pdp_audit.verify.core.dask_cluster import block_executor
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.estimators.rng_discipline import SeededPerRelease, check_rng_discipline
from pdp_audit.verify.estimators.stats import pvalue_by_inversion
from pdp_audit.verify.evidence.pair_validation import malformed_check, not_reproducible
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError
from pdp_audit.verify.inputs.validation import check_picklable as picklable


class BlackBoxSamplers:
    """A sampler-only pair from two functions ``(size, rng) -> releases`` (D, then D')."""

    def __init__(self, sample_d: Callable, sample_dprime: Callable):
        self.sample_d, self.sample_dprime = sample_d, sample_dprime

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        return (self.sample_d if world == "D" else self.sample_dprime)(size, rng)


class UserSampler:
    """``pair.sample(world, size, rng)`` behind a boundary: whatever the user's sampler raises (or a ``sys.exit`` in
    it) is the pair's fault, :class:`~pdp_audit.mechanisms.base.MalformedPair` (the exact fail ``pair-protocol``,
    one line naming the call), never our internal error."""

    def __init__(self, pair: Any, world: str):
        self.pair, self.world = pair, world

    def __call__(self, size: int, rng: Any) -> Any:
        try:
            with user_state():  # what the sampler sets of the process's state is undone
                return self.pair.sample(self.world, size, rng)
        except BaseException as err:
            if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
                raise
            raise MalformedPair(f"sample({self.world!r}, {size}) raised {user_error(err)}") from None


BLACKBOX = CheckSpec(
    "blackbox-attack",
    "Black-box attack (learned test)",
    "",
    "ε ≥ max over fixed thresholds of log((TPR − δ)/FPR), log((TNR − δ)/FNR) of the learned score",
    "Kairouz et al. 2015 (DP trade-off); DP-Sniper (Bichsel et al. 2021)",
)


#: The event test's formula (:mod:`pdp_audit.audits.blackbox.events`).
EVENT_FORMULA = (
    "ε ≥ max over events S fixed before the fresh draws of logit(π_lo(S)) + log(μ/λ): π_lo the exact binomial lower "
    "bound on the share of D among the Poissonised releases in S (less δ's excess), Bonferroni over the events"
)


#: The event test's formula when its fresh pass stopped once decided (:mod:`pdp_audit.audits.blackbox.anytime`).
ANYTIME_FORMULA = (
    "ε ≥ max over events S fixed before the fresh draws of logit(π_lo(S)): π_lo the exact binomial lower bound on "
    "the share of D among the releases in S, drawn in Poisson rounds, after each round at the level split among the "
    "rounds the budget allows (Bonferroni, valid at every round at once; half the level kept for the last), less "
    "δ's excess, Bonferroni over the events"
)


@dataclass(frozen=True)
class BlackBoxBudget:
    """The black-box attack's budget beyond ``trials`` (``pdp_audit.audit_blackbox(..., budget=)``).

    Attributes:
      train_trials: releases per world to learn the test from, 100 to 1e8 (None: ``trials``, at most 5e5 for the
        event test).
      workers: processes drawing the releases, >= 1 (the numbers do not depend on them; the samplers must then be
        picklable), or None: the run chooses -- the available cores for a sampler slower than
        :data:`~pdp_audit.verify.evidence.user_audits.PARALLEL_FROM_S` a release that pickles, else 1, stated
        before the run (``pdp-audit blackbox`` without ``--workers``).
      statistic: ``events`` (the default: the exact event test on fresh releases), ``events-numbers``
        (the same with the structure of the numbers as features), ``logistic`` or ``select`` (logistic or
        gradient-boosted trees, chosen on a validation split).
      scheduler: the address of a running Dask scheduler whose workers draw the releases (``--scheduler``; the
        samplers' module must be importable there), or None.
      dask_local: draw the releases on a Dask LocalCluster of this many worker processes, started for the run and
        closed after it (``--dask-local``), or None.  At most one of ``workers`` > 1, ``scheduler`` and
        ``dask_local``; the numbers are the same on each (needs Dask: ``pip install 'dask[distributed]'``).
      early_stop: the event test's fresh releases drawn in rounds and the pass stopped as soon as the claim is refuted
        or every event is shown within it at α, ``trials`` the maximum (an anytime-valid bound:
        :mod:`pdp_audit.audits.blackbox.anytime`); False: the whole budget in one pass (``--no-early-stop``).
      time_limit: seconds from the start of the attack after which its fresh releases stop (drawn in rounds, as with
        ``early_stop``: the bound at the stopping time keeps its level), > 0, or None: no limit.
      law: what the verdict is about (:data:`pdp_audit.verify.core.config.LAW_OPTION`, ``audit_blackbox``'s ``law``):
        ``as-implemented`` (the default: the event test also reads the releases' structure as floating-point numbers
        where they are not all integers, Mironov, CCS 2012) or ``ideal`` (the real-valued law the sampler stands for:
        that structure is never read, and the check's note says the float implementation was not audited).
    """

    train_trials: int | None = None
    workers: int | None = 1
    statistic: str = DEFAULT_STATISTIC
    scheduler: str | None = None
    dask_local: int | None = None
    early_stop: bool = EARLY_STOP
    time_limit: float | None = None
    law: str = LAW_OPTION.default


def blackbox_checks(
    samplers: tuple,
    epsilon: float,
    delta: float,
    trials: int,
    seed: int,
    progress: bool = False,
    budget: BlackBoxBudget = BlackBoxBudget(),
    alpha: float | None = None,
) -> list[Evidence]:
    """The black-box attack's check (:mod:`pdp_audit.audits.blackbox.attack`): a fail when its ε lower bound exceeds the
    claimed ε, otherwise inconclusive -- sampling outputs can refute a claim, never certify it.  ``samplers``: (of D,
    of D'), each ``(size, rng) -> releases``.  A sampler that
    returns no (size, d) array of finite numbers, or does not draw from its rng alone
    (:func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`; not probed where ``samplers`` is a
    :class:`~pdp_audit.verify.estimators.rng_discipline.SeededPerRelease`), is the exact fail ``pair-protocol``;
    samplers
    that cannot be sent to worker processes with ``budget.workers`` > 1 are an InputError.  With
    ``budget.early_stop`` and the audit's ``alpha`` the event test's fresh pass stops once decided at ``alpha``
    (without ``alpha``: the whole budget)."""
    # deferred: read at call time (tests replace attack.blackbox_attack)
    from pdp_audit.audits.blackbox.attack import (
        AttackOptions,
        blackbox_attack,
        checked_blackbox_releases,
        default_train_trials,
    )

    sample_d, sample_dprime = samplers
    train_trials = (
        default_train_trials(trials, budget.statistic) if budget.train_trials is None else budget.train_trials
    )

    def sample(world: str, size: int, rng: np.random.Generator):
        return (sample_d if world == "D" else sample_dprime)(size, rng)

    stop_at = None
    if (budget.early_stop or budget.time_limit is not None) and alpha is not None:
        deadline = None if budget.time_limit is None else time.monotonic() + budget.time_limit
        stop_at = (float(epsilon), float(alpha), deadline)
    try:
        # before the probes' draws; a stopped run may be staged, holding its earlier stages' releases
        _check_attack_memory(sample_d, train_trials, trials, budget.statistic, staged=stop_at is not None)
        probed = not isinstance(samplers, SeededPerRelease)
        why = check_rng_discipline(sample, checked_blackbox_releases) if probed else ""
        workers = 1 if budget.workers is None else budget.workers  # None: the caller chose none (one process)
        if workers > 1:
            check_picklable(sample_d, sample_dprime)
        shipped = {sampler_name(s): s for s in (sample_d, sample_dprime)}
        with block_executor(workers, budget.scheduler, budget.dask_local, shipped) as executor:
            result = blackbox_attack(
                sample_d,
                sample_dprime,
                trials,
                delta,
                seed,
                progress,
                train_trials=train_trials,
                options=AttackOptions(budget.statistic, executor, stop_at, law=budget.law),
            )
    except MalformedPair as err:
        return [malformed_check(str(err))]
    return not_reproducible(
        [attack_evidence(result.attack, (epsilon, delta), _note(result), attack_details(result))], why
    )


def attack_details(result) -> dict:
    """The check's details of a :class:`~pdp_audit.audits.blackbox.attack.BlackBoxAttack`: the budgets, the statistic
    kept and its validation bounds (``select`` and the event test), the events and their fresh counts."""
    return {
        "train_per_world": result.train_per_world,
        "test_per_world": result.test_per_world,
        **({"statistic": result.statistic, "validation_bounds": dict(result.validation)} if result.validation else {}),
        **_event_details(result),
        **_stopping_details(result.attack),
        **({"reused_per_world": result.reused_per_world} if getattr(result, "reused_per_world", 0) else {}),
        **_float_details(result),
    }


def _reads_numbers(result) -> bool:
    """Whether the attack's frozen test read the releases' structure as numbers (``events-numbers``, or the event
    test of floating-point releases as implemented)."""
    return bool(getattr(result.learned, "numbers", False))


def _float_details(result) -> dict:
    """What the check records of the releases' float structure: nothing for integer releases (their runs' bytes
    unchanged) and for an attack that did not look; else whether the float implementation was audited."""
    if not getattr(result, "floats", False) and not _reads_numbers(result):
        return {}
    if _reads_numbers(result):
        return {"law": result.law, "float_implementation": "audited: the releases' number structure was read"}
    return {"law": result.law, "float_implementation": "not audited"}


def float_note(result) -> str:
    """What the note says of the releases' float structure (nothing for integer releases): read, so the
    floating-point program is what was audited (Mironov, CCS 2012; Haney et al. 2022), or not read -- the
    real-valued law (``law`` ideal) or an expert's statistic that does not read it -- so the float implementation
    was not audited."""
    if _reads_numbers(result):
        return (
            " The releases' structure as floating-point numbers (integrality, fractional part, low bits and trailing "
            "zeros of the float64 significand) was read beside their values: the program was audited as "
            "implemented, where a real-valued law's implementation can leak its input through the bits of its "
            "doubles (Mironov, CCS 2012)."
        )
    if not getattr(result, "floats", False):
        return ""
    if result.law == "ideal":
        return (
            " Audited for the real-valued law (law ideal): the releases' structure as floating-point numbers was not "
            "read, so the float implementation was not audited."
        )
    return (
        f" The releases are floating-point numbers and the {result.statistic} test does not read their structure as "
        "numbers: the float implementation was not audited (the default event test reads it)."
    )


def _stopping_details(attack) -> dict:
    """An early-stopped fresh pass's record (:mod:`pdp_audit.audits.blackbox.anytime`): the fresh releases drawn of
    each world, of at most ``max_per_world``, the rounds and why it stopped; nothing for a fixed pass."""
    if not isinstance(attack, AnytimeEventAttack):
        return {}
    return {
        "early_stop": {
            "fresh_drawn": {"D": attack.n, "D'": attack.m},
            "max_per_world": attack.trials,
            "rounds": attack.rounds,
            "stopped": attack.stopped,
            "stage": attack.stage,
            **({"pilot_per_world": attack.before} if attack.stage in ("middle", "full") else {}),
            **({"carried_per_world": attack.carried} if getattr(attack, "carried", 0) else {}),
        }
    }


def attack_evidence(attack, claim: tuple[float, float], note: str, details: dict) -> Evidence:
    """The ``blackbox-attack`` evidence of a bound's attack, re-evaluable at any α: a pooled-rank attack (the
    logistic or trees score; its figure the empirical ROC of the fresh scores against the claim's region) or an
    :class:`~pdp_audit.audits.blackbox.events.EventAttack` (its figure the events' rates against the region): a
    fail when the ε lower bound exceeds the claimed ε, otherwise inconclusive -- never a pass."""
    epsilon, delta = claim
    events = isinstance(attack, EventAttack)
    formula = ANYTIME_FORMULA if isinstance(attack, AnytimeEventAttack) else EVENT_FORMULA
    spec = CheckSpec(
        BLACKBOX.id,
        BLACKBOX.title,
        f"No test of D vs D' has (FPR, TPR) outside the ({epsilon:g}, {delta:g})-DP region",
        formula if events else BLACKBOX.formula,
        BLACKBOX.source,
    )
    return Evidence(
        spec=spec,
        estimate=attack.epsilon_lower_bound_at(0.5),
        pvalue=pvalue_by_inversion(attack.epsilon_lower_bound_at, float(epsilon)),
        interval=lambda alpha: (attack.epsilon_lower_bound_at(alpha), float("inf")),
        supports=lambda ci, alpha: False,
        budget_hint=lambda ci: (
            "A black-box audit can refute a claim but never certify it: no violation found at this budget."
        ),
        note=note,
        details=details,
        make_figure=(_event_figure if events else _roc_figure)(attack, float(epsilon), float(delta)),
    )


def _roc_figure(attack, epsilon: float, delta: float):
    """The empirical ROC of a pooled-rank attack's fresh scores against the claim's region (PDF only)."""
    fpr, tpr = roc_points(attack)

    def figure(alpha: float) -> Roc:
        label = "learned test on fresh releases (empirical ROC)"
        return Roc(fpr, tpr, epsilon, delta, attack.epsilon_lower_bound_at(alpha), 1 - alpha, curve_label=label)

    return figure


def event_label(favours_d: bool, threshold: float) -> str:
    """An event in words: the scores it holds and the world it favours."""
    return f"{{score {'≥' if favours_d else '≤'} {threshold:.6g}}}, favours {'D' if favours_d else chr(68) + chr(39)}"


def _event_figure(attack, epsilon: float, delta: float):
    """The event test's events at (Q(S), log P(S)/Q(S)) with their intervals at the bound's level, against the
    claim's region (PDF only; :func:`pdp_audit.audits.blackbox.events.event_readings`)."""
    def figure(alpha: float) -> EventRates:
        points = tuple(
            EventPoint(label, r.rate, r.rate_interval, r.log_ratio, r.log_ratio_interval, r.bound)
            for r in event_readings(attack, alpha)
            for label in (event_label(r.favours_d, r.threshold),)
        )
        return EventRates(points, epsilon, delta, attack.epsilon_lower_bound_at(alpha), 1 - alpha)

    return figure


def _note(result) -> str:
    """What was learned and how ε was bounded (the logistic run's words unchanged)."""
    if result.validation and not np.isfinite(result.train_accuracy):
        return _event_note(result)
    learned = {
        "logistic": f"Logistic regression on the outputs and their squares ({result.dim}-dimensional releases, "
        "standardised on the training split)",
        "trees": f"Gradient-boosted trees on the outputs ({result.dim}-dimensional releases)",
    }[result.statistic]
    if result.validation:
        shown = ", ".join(f"{name} {bound:.4g}" for name, bound in result.validation)
        learned += f", chosen on a validation quarter of the training releases (ε bounds at 0.9: {shown})"
    return (
        f"{learned}, trained on {result.train_per_world:,} releases per world (training accuracy "
        f"{result.train_accuracy:.4f}); ε bounded on {result.test_per_world:,} fresh releases per world (order "
        "statistics at fixed ranks, union bound). The estimate is the bound at confidence 1/2." + float_note(result)
    )


def _event_details(result) -> dict:
    return event_details(result.attack)


def event_details(attack) -> dict:
    """The events of an event test's ``attack`` as data (empty for the other tests): each event's side, threshold
    of the kept score, and fresh counts, so that a reviewer can re-count them."""
    events = getattr(attack, "events", None)
    if events is None:
        return {}
    return {
        "events": [
            {"favours": "D" if e.favours_d else "D'", "threshold": e.threshold, "hits_d": kd, "hits_dprime": kdp}
            for e, kd, kdp in zip(events, attack.hits_d, attack.hits_dp)
        ]
    }


def _event_note(result) -> str:
    """The event test's note: the statistic kept, the events and their fresh counts."""
    attack = result.attack
    shown = ", ".join(f"{name} {bound:.4g}" for name, bound in result.validation)
    events = "; ".join(
        f"{{score {'≥' if e.favours_d else '≤'} {e.threshold:.6g}}}: {kd:,} of D, {kdp:,} of D'"
        for e, kd, kdp in zip(attack.events, attack.hits_d, attack.hits_dp)
    )
    return (
        f"Exact event test: the {result.statistic} score ({result.dim}-dimensional releases), fitted on "
        f"{result.train_per_world:,} training releases per world, chosen with its events on "
        f"{selection_size(result.test_per_world):,} further releases per world (predicted ε bounds at 0.9: "
        f"{shown}); events {events or 'none'} in {attack.n:,} fresh releases of D and {attack.m:,} of D' "
        f"(Poisson numbers of mean {attack.mean_d:,.0f}); ε bounded by "
        "an exact test of each event's two counts jointly (the share of D among the releases in it, Poissonised "
        "sizes), Bonferroni over the events. The estimate is the bound at "
        "confidence 1/2." + _stopping_note(attack) + float_note(result)
    )


def _stopping_note(attack) -> str:
    """What an early-stopped fresh pass adds to the note (nothing for a fixed pass)."""
    if not isinstance(attack, AnytimeEventAttack):
        return ""
    why = {
        "refuted": "once the claim was refuted",
        "within-claim": "once every event was shown within the claim",
        "budget": "at the budget",
        "no-events": "before any round: no event was chosen",
        "time-limit": "at the time limit",
    }[attack.stopped]
    stage = _stage_note(attack)
    return stage + (
        f" The fresh releases were drawn in {attack.rounds} Poisson round{'s' if attack.rounds != 1 else ''} of at "
        f"most {attack.trials:,} per world in all, and the pass stopped {why}; each event's share is bounded by the "
        f"exact test after each round at the level split among the {attack.looks} rounds the budget allows "
        "(Bonferroni; half of it kept for the last round), an anytime-valid bound, valid at the stopping time."
    )


def _stage_note(attack) -> str:
    """What a staged attack's deciding stage (:mod:`pdp_audit.audits.blackbox.stages`) adds to the note: the words of
    two stages as before the middle stages came (a pilot and the full attack, half the level each)."""
    share = "half the level" if attack.share == 0.5 else f"1/{round(1 / attack.share)} of the level"
    if attack.stage == "single":
        return ""
    if attack.stage == "full":
        stages = len(stage_schedule(attack.trials, 0))
        earlier = "A pilot attack" if stages == 2 else f"{stages - 1} earlier stages"
        return (
            f" {earlier} ({attack.before:,} releases per world, half the level{'' if stages == 2 else ' in all'}) "
            "did not refute the claim; this attack (learning from their releases first, on fresh ones of its own), at "
            "the other half, decides."
        )
    done = "refuted the claim" if attack.stopped == "refuted" else "reached the time limit"
    if attack.stage == "pilot":
        return (
            f" A pilot attack (its own training, selection and fresh releases, at {share}) {done}; the full attack "
            "was not run."
        )
    carried = (
        f" The events that decided are the stage before's, read again at {share}: their counts include its "
        f"{attack.carried:,} fresh releases per world, drawn after they were chosen."
        if attack.carried
        else ""
    )
    return (
        f" Earlier stages ({attack.before:,} releases per world) did not refute the claim; a larger one (learning from "
        f"their releases first, on fresh ones of its own, at {share}) {done}; the full attack was not run.{carried}"
    )


def _check_attack_memory(
    sample_d, train_trials: int, trials: int, statistic: str = "logistic", staged: bool = False
) -> None:
    """Refuse, before the attack draws anything, a budget this machine cannot hold: the attack keeps the
    ``train_trials`` releases it learns from and the scores of the ``trials`` fresh ones, whose releases it streams
    (:func:`pdp_audit.audits.blackbox.attack.attack_memory`)."""
    # deferred: read at call time (tests replace processes.physical_memory)
    from pdp_audit.verify.core.processes import MEMORY_SHARE, physical_memory
    total = physical_memory()
    dim = checked_blackbox_releases("D", 2, sample_d(2, np.random.default_rng(0))).shape[1]
    need = attack_memory(train_trials, dim, trials, statistic, staged)
    if total and need > MEMORY_SHARE * total:
        if train_trials in (trials, 0):  # one budget (0: a witness's re-check learns nothing)
            budget = f"trials {trials:g} needs"
            per_trial = attack_memory(1 if train_trials else 0, dim, 1, statistic)
            most = f"at most {MEMORY_SHARE * total / per_trial:.2g} here"
        else:
            budget = f"train-trials {train_trials:g} and trials {trials:g} need"
            most = (
                f"{attack_memory(1, dim):.3g} bytes per training release, {attack_memory(0, dim, 1):.3g} per fresh one"
            )
        raise InputError(
            f"{budget} about {need / 1e9:.3g} GB of memory for the black-box attack on {dim}-dimensional releases; "
            f"this process may use {total / 1e9:.3g} GB: {most}"
        )


def sampler_name(sampler) -> str:
    """The user's code behind a sampler, as a message names it: ``Pair.sample`` (a pair's method), ``sample_d``."""
    pair = getattr(sampler, "pair", None)
    if pair is not None:
        inner = getattr(pair, "sample_d" if sampler.world == "D" else "sample_dprime", None)
        if isinstance(pair, BlackBoxSamplers) and inner is not None:
            return f"the sampler {getattr(inner, '__qualname__', type(inner).__name__)}"
        return f"the sampler {type(pair).__name__}.sample"
    return f"the sampler {getattr(sampler, '__qualname__', type(sampler).__name__)}"


def check_picklable(*samplers) -> None:
    """A lambda or a local function cannot be sent to worker processes (one line)."""
    picklable("sampler", "define it at module level", *samplers)
