"""The black-box audits of a user's mechanism: :func:`audit_blackbox` (``pdp_audit.audit_blackbox``, the pytest
plugin's ``assert_dp_blackbox``, ``pdp-audit blackbox``) and :func:`audit_blackbox_search` (a search over
neighbouring inputs), their arguments checked before any release is drawn."""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Any

from pdp_audit.audits.blackbox.config import KEYWORDS, BlackBoxAuditConfig
from pdp_audit.audits.blackbox.defaults import DEFAULT_STATISTIC
from pdp_audit.mechanisms.base import MalformedPair
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import Names, build
from pdp_audit.verify.core.dask_cluster import checked_place
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.evidence.user_audits import DEFAULT_ALPHA, check_protocol, decided, flag
from pdp_audit.verify.evidence.user_code import made_pair
from pdp_audit.verify.inputs.validation import InputError

if TYPE_CHECKING:  # the audit's own modules, imported when it runs
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget
    from pdp_audit.audits.blackbox.outcome import SearchOutcome
    from pdp_audit.audits.blackbox.search import SearchMechanism
    from pdp_audit.audits.blackbox.search_check import SearchOptions

#: The run's ``law`` parameter under the real-valued law (the default, as implemented, adds none: runs keep bytes).
IDEAL_LAW_PARAMETER = "ideal (the real-valued law; the float implementation not audited)"


@with_own_float_rules
def audit_blackbox(
    pair: Any,
    epsilon: float,
    delta: float,
    *,
    trials: int | None = None,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    progress: bool = False,
    budget: BlackBoxBudget | None = None,
) -> Run:
    """Try to refute an (ε, δ)-DP claim of a mechanism that can only be sampled.

    By default (``statistic="events"``, ``law="as-implemented"``), the exact event test of the program as
    implemented: where the releases are floating-point numbers (a training release is not an integer), every
    candidate also reads their structure as numbers -- integrality, fractional part, the low bits and trailing zeros
    of the float64 significand (:func:`pdp_audit.verify.estimators.float_structure.number_structure`) -- so that a
    real-valued law whose doubles differ between the worlds is refuted (the textbook ``x + rng.laplace(0, b)``:
    Mironov, CCS 2012; Haney et al. 2022); integer releases are read as they are.  ``law="ideal"``: the real-valued
    law the sampler stands for, that structure never read (the check's note says the float implementation was not
    audited): ``budget=BlackBoxBudget(law="ideal")``.  The event test: candidate statistics (a logistic regression on
    the releases and their squares in the spirit of DP-Sniper, gradient-boosted trees, the likelihood ratio of repeated
    outcomes, per-column histograms) are learned on ``train_trials`` releases per world, a statistic and at most two
    threshold events are chosen on a quarter of ``trials`` further releases, and each event's two counts on about
    ``trials`` fresh releases (a Poisson number), of which only counts are kept, are tested jointly: the exact
    binomial bound on the share of D among the releases in the event.  ``statistic="logistic"``: the
    logistic test alone, its scores on the fresh releases bounded as the white-box attack does (a joint exact test
    of both rates at pooled ranks fixed in advance).  The bound is valid whatever was learned.
    A black-box audit can refute a claim (verdict ``fail``, exit code 1) or find no violation at this budget
    (``inconclusive``, 3); it never certifies.

    Args:
      pair: an object with ``sample(world, size, rng)`` (``world`` ``"D"`` or ``"D'"``; releases as a
        (size, d) array), or a tuple ``(sample_D, sample_D_prime)`` of functions ``(size, rng) -> releases``.
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).
      trials: fresh releases per world for the bound, 100 to 1e9 (the event test's memory does not grow with it).
        Default: 8e6, lowered for a slow sampler to what fits about 8 minutes on the run's workers (timed before
        the run; the check's note and the ``trials`` parameter say so: :mod:`pdp_audit.audits.blackbox.time_budget`).
      seed: root seed, >= 0.
      alpha: false-alarm probability, in [1e-50, 1).
      progress: show a bar of the releases drawn on stderr (where it is a terminal).
      budget: a :class:`BlackBoxBudget` (default ``BlackBoxBudget()``): ``statistic`` -- ``events`` (default),
        ``events-numbers``, ``logistic`` or ``select`` (``pdp-audit blackbox --statistic``); ``train_trials`` --
        releases per world to learn the test from, 100 to 1e8 (default: ``trials``, at most 5e5 for the event
        test); ``workers`` -- processes drawing the releases, or ``scheduler`` (a Dask scheduler's address) or
        ``dask_local`` (a Dask LocalCluster of N processes started for the run): where the blocks of releases are
        drawn (the numbers do not depend on it; the samplers must then be picklable); ``early_stop`` -- the event
        test's fresh releases drawn in rounds and the pass stopped once the claim is refuted or every event is shown
        within it at ``alpha``, ``trials`` the maximum (the check's details record the releases drawn and why it
        stopped; False: the whole budget, ``--no-early-stop``); ``time_limit`` -- seconds after which the fresh
        releases stop and the run reports what they support (``--time-limit``; the result then depends on the
        machine's speed); ``law`` -- what the verdict is about: ``"as-implemented"`` (the default) or ``"ideal"``
        (``pdp-audit blackbox --law``, a deployment's ``[audit] law``, a sweep cell's ``law``).

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run` with one check, ``blackbox-attack``; or the exact fail
      ``pair-protocol`` for a sampler that returns no (size, d) array of finite numbers or does not draw from its
      ``rng`` alone.

    Raises:
      InputError: an argument out of its range, or a pair without ``sample``.

    Example::

        import numpy as np
        import pdp_audit

        def sample_d(size, rng):
            return rng.normal(1.0, 0.5, size=(size, 1))

        def sample_d_prime(size, rng):
            return rng.normal(0.0, 0.5, size=(size, 1))

        run = pdp_audit.audit_blackbox((sample_d, sample_d_prime), epsilon=1.0, delta=1e-5, trials=20_000)
        run.verdict  # 'fail': a mean shift of 2σ is far from (1, 1e-5)-DP
    """
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget

    if budget is None:
        budget = BlackBoxBudget()
    elif not isinstance(budget, BlackBoxBudget):
        raise InputError(f"budget must be a pdp_audit.BlackBoxBudget, got {type(budget).__name__}")
    values = {"claim_epsilon": epsilon, "claim_delta": delta, "trials": trials, "seed": seed, "alpha": alpha}
    values.update(dataclasses.asdict(budget))
    config = build(BlackBoxAuditConfig, values, Names(lambda o: KEYWORDS.get(o.key, o.key)), extra={"target": pair})
    return run_blackbox(config, flag("progress", progress))


def run_blackbox(config: BlackBoxAuditConfig, progress: bool = False) -> Run:
    """The black-box audit of ``config.target`` (what :func:`audit_blackbox` and ``pdp-audit blackbox`` run, through
    the plan :mod:`pdp_audit.audits.blackbox.plan`).  ``trials`` None is the default budget fitted to the samplers'
    speed, whatever the way in."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.blackbox.evidence import (
        BlackBoxBudget,
        BlackBoxSamplers,
        UserSampler,
        blackbox_checks,
        check_picklable,
    )

    statistic = DEFAULT_STATISTIC if config.statistic is None else config.statistic
    auto = config.workers is None  # the run chooses: the cores for a slow sampler that pickles (time_budget)
    workers = 1 if auto else config.workers
    scheduler, dask_local = checked_place(workers, config.scheduler, config.dask_local)
    budget = BlackBoxBudget(
        config.train_trials,
        workers,
        statistic,
        scheduler,
        dask_local,
        early_stop=config.early_stop,
        time_limit=config.time_limit,
        law=config.law,
    )

    pair = config.target if config.factory is None else made_pair(config.factory)  # a sweep cell names its factory
    if isinstance(pair, tuple) and len(pair) == 2 and all(callable(f) for f in pair):
        name = getattr(pair[0], "__qualname__", type(pair[0]).__name__)
        pair = BlackBoxSamplers(*pair)
    else:
        check_protocol(pair, needs_loss=False)
        name = type(pair).__name__
    samplers = (UserSampler(pair, "D"), UserSampler(pair, "D'"))
    if not auto and workers > 1:  # named workers the samplers cannot reach: one line, before the budget is stated
        check_picklable(*samplers)
    auto = auto and budget.scheduler is None and budget.dask_local is None
    fitted = _fitted(samplers, config.trials, budget, bool(progress), auto)
    trials: Any = config.trials  # None, where timing failed: the checks name the sampler's fault
    if fitted is not None:
        trials, budget = fitted.trials, dataclasses.replace(budget, workers=fitted.workers)
    epsilon, delta = config.claim_epsilon, config.claim_delta
    evidence = blackbox_checks(samplers, epsilon, delta, trials, config.seed, bool(progress), budget, config.alpha)
    if fitted is not None and fitted.lowered:
        evidence = [e.noted(fitted.describe()).with_details(fitted_budget=fitted.describe()) for e in evidence]
    parameters = {
        "pair": f"{name}, as given",
        "claim": "DP (black box)",
        "epsilon": epsilon,
        "delta": delta,
        "trials": trials,
        **({} if budget.train_trials is None else {"train_trials": budget.train_trials}),
        **({"law": IDEAL_LAW_PARAMETER} if config.law == "ideal" else {}),
    }
    return decided(name, evidence, config.alpha, parameters, config.seed)


def _fitted(samplers: tuple, trials: Any, budget: Any, progress: bool, auto: bool):
    """The samplers timed where it matters (``trials`` not given, the workers to choose, or a budget to state):
    the default budget fitted to their speed, the workers chosen where ``auto``, and the plan stated on stderr
    before the run when ``progress`` (:mod:`pdp_audit.audits.blackbox.time_budget`).  None where nothing needs the
    timing, or where timing fails (the checks then name the sampler's fault)."""
    # deferred: loads pdp_audit.audits.blackbox.time_budget; program --help must not
    from pdp_audit.audits.blackbox.time_budget import fitted_budget
    if trials is not None and not auto and not progress:
        return None
    try:
        fitted = fitted_budget(samplers, budget.statistic, None if auto else budget.workers, trials)
    except MalformedPair:
        return None
    if progress:
        statement = fitted.statement(budget.statistic)
        if budget.early_stop or budget.time_limit is not None:  # the budget is then a maximum
            statement += " The fresh releases are at most these: the run stops once decided" + _staged(fitted, budget)
        print(f"pdp-audit blackbox: {statement}", file=sys.stderr, flush=True)
    return fitted


def _staged(fitted: Any, budget: Any) -> str:
    """The end of the stated plan of a stopped run: its earlier stages' releases, drawn before the full attack's when
    none of them decides (:mod:`pdp_audit.audits.blackbox.stages`; a later stage's training and selection read them
    first), counted in the most it may draw in all."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.blackbox.attack import default_train_trials
    from pdp_audit.audits.blackbox.events import selection_size
    from pdp_audit.audits.blackbox.stages import stage_schedule

    if not budget.statistic.startswith("events"):
        return "."
    train = budget.train_trials
    if train is None:
        train = default_train_trials(fitted.trials, budget.statistic)
    stages = stage_schedule(fitted.trials, train)
    if len(stages) == 1:
        return "."
    most = 0  # each stage learns and selects from the earlier stages' releases first, new ones for the rest
    for s in stages:
        most = max(most, s.train_trials + selection_size(s.trials)) + s.trials
    earlier = "a pilot attack" if len(stages) == 2 else f"{len(stages) - 1} smaller attacks"
    return f"; {earlier} first, so at most {most:,} releases per world in all."


@with_own_float_rules
def audit_blackbox_search(
    mechanism: SearchMechanism,
    epsilon: float,
    delta: float,
    *,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    options: SearchOptions | None = None,
) -> SearchOutcome:
    """Search neighbouring inputs of a sampled mechanism for a pair that refutes an (ε, δ)-DP claim.

    Candidate pairs (the StatDP / DP-Sniper input patterns, random pairs, or optuna's proposals) are ranked by the
    ε bound of a pilot attack on each; the chosen pair is attacked on fresh releases and that bound alone decides:
    the pilots only select, so no correction for the search is needed (:mod:`pdp_audit.audits.blackbox.search`).

    Args:
      mechanism: an object with ``dimension`` (the dataset's length) and ``release(dataset, size, rng)``
        (:class:`pdp_audit.audits.blackbox.search.SearchMechanism`).
      epsilon: the claimed ε, finite and >= 0.
      delta: the claimed δ, in [0, 1).
      seed: root seed, >= 0 (pilots and the final attack draw from independent streams of it).
      alpha: false-alarm probability, in [1e-50, 1).
      options: a :class:`SearchOptions` (default: patterns under ``linf:1``, 16 candidates, pilots of 2e4
        releases per world with the logistic test, the chosen pair attacked by the event test on 8e6 fresh
        releases per world; ``workers``, ``scheduler`` or ``dask_local``: where the blocks are drawn).

    Returns:
      A :class:`~pdp_audit.audits.blackbox.search_check.SearchOutcome`: ``run`` (verdict ``fail`` or
      ``inconclusive``, never certified), ``result`` (the ranking, the chosen pair, the final attack) and
      ``witness`` (the pair and the learned test as JSON-ready data).

    Raises:
      InputError: an argument or option out of its range, or a mechanism without ``dimension`` and ``release``.

    Example::

        import numpy as np
        import pdp_audit

        class NoisyMax:  # releases the noisy maximum: not 0.1-DP
            dimension = 5
            def release(self, answers, size, rng):
                return np.max(answers + rng.laplace(scale=20.0, size=(size, 5)), axis=1)

        outcome = pdp_audit.audit_blackbox_search(NoisyMax(), epsilon=0.1, delta=0.0)
        outcome.result.chosen.name, outcome.run.verdict
    """
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.blackbox.search_check import audit_blackbox_search_with

    name = type(mechanism).__qualname__
    return audit_blackbox_search_with(mechanism, (epsilon, delta, alpha), seed, options, name)
