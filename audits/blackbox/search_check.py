"""The neighbour search's check, the witness it writes and the witness's re-check (``pdp_audit.audit_blackbox_search``,
``pdp-audit blackbox --search`` / ``--witness``).

The check is the black-box attack's (``blackbox-attack``: a fail when the ε lower bound on fresh releases of the chosen
pair exceeds the claim, otherwise inconclusive); :mod:`pdp_audit.audits.blackbox.search` says why the search needs no
correction of the final level.  The witness (:func:`witness_document`) is the chosen pair, the frozen test as data
(:mod:`pdp_audit.audits.blackbox.witness`: the logistic or trees score and the threshold of its best ramp, or the
event test's score and events), the budget and the seed of the fresh releases, and the target it was found on;
:func:`recheck_checks` re-applies it to fresh releases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pdp_audit.audits.blackbox.attack import AttackOptions, checked_blackbox_releases, default_train_trials
from pdp_audit.audits.blackbox.defaults import PILOT_STATISTIC, SEARCH_STATISTIC, SEARCH_TRIALS, STATISTICS
from pdp_audit.audits.blackbox.events import EventAttack
from pdp_audit.audits.blackbox.evidence import (
    UserSampler,
    _check_attack_memory,
    _note,
    attack_details,
    attack_evidence,
    event_details,
    sampler_name,
)
from pdp_audit.audits.blackbox.outcome import SearchOutcome
from pdp_audit.audits.blackbox.search import (
    SEARCHES,
    DatasetSampler,
    Neighbours,
    SearchBudget,
    SearchResult,
    _domain,
    pattern_candidates,
    search_pairs,
)
from pdp_audit.audits.blackbox.witness import recheck, statistic_to_data
from pdp_audit.audits.blackbox.witness_file import WITNESS_SCHEMA, read_witness  # noqa: F401 (read_witness: re-exported)
from pdp_audit.mechanisms.base import MalformedPair
from pdp_audit.verify.core.checks import finalize, make_run
from pdp_audit.verify.core.config import LAWS, PAIR_TRIALS, pair_value
from pdp_audit.verify.core.dask_cluster import block_executor, checked_place
from pdp_audit.verify.core.processes import executor_for
from pdp_audit.verify.estimators.rng_discipline import check_rng_discipline
from pdp_audit.verify.evidence.pair_validation import malformed_check
from pdp_audit.verify.inputs.validation import InputError, check_picklable


@dataclass(frozen=True)
class SearchOptions:
    """How :func:`pdp_audit.audit_blackbox_search` searches: the generator (``patterns``, ``random``, ``optuna``),
    the neighbour relation (``replace-one``, ``add-remove``, ``l1:R``, ``linf:R``), at most ``candidates`` pairs each
    attacked on ``pilot_trials`` releases per world, then the chosen pair on ``trials`` fresh releases per world
    (learning on ``train_trials``, default: the attack's for its statistic), over ``workers`` processes, or on Dask
    (``scheduler``, a scheduler's address, or ``dask_local``, a LocalCluster of N processes: as
    :class:`pdp_audit.BlackBoxBudget`), with the ``statistic`` (:data:`~pdp_audit.audits.blackbox.defaults.STATISTICS`;
    default the plain run's, the event test at 8e6) and the pilots' ``pilot_statistic`` (default logistic:
    :mod:`pdp_audit.audits.blackbox.defaults` says why)."""

    search: str = "patterns"
    neighbours: str = "linf:1"
    candidates: int = 16
    pilot_trials: int = 20_000
    trials: int = SEARCH_TRIALS
    train_trials: int | None = None
    workers: int = 1
    statistic: str = SEARCH_STATISTIC
    rounds: int = 1
    pilot_statistic: str = PILOT_STATISTIC
    scheduler: str | None = None
    dask_local: int | None = None
    #: what the verdict is about (:data:`pdp_audit.verify.core.config.LAW_OPTION`): the final event test reads the
    #: releases' structure as numbers where they are floats (``as-implemented``), or never (``ideal``)
    law: str = "as-implemented"

    def checked(self) -> SearchOptions:
        """The options with each value checked against its range (one-line InputErrors, before any draw)."""
        if self.search not in SEARCHES:
            raise InputError(f"search must be one of {', '.join(SEARCHES)}, got {self.search!r}")
        Neighbours.parse(self.neighbours)

        if self.law not in LAWS:
            raise InputError(f"law must be one of {', '.join(LAWS)}, got {self.law!r}")
        for name, value in (("statistic", self.statistic), ("pilot statistic", self.pilot_statistic)):
            if value not in STATISTICS:
                raise InputError(f"{name} must be one of {', '.join(STATISTICS)}, got {value!r}")
        if not isinstance(self.candidates, (int, np.integer)) or not 1 <= self.candidates <= 10_000:
            raise InputError(f"candidates must be an integer in [1, 10000], got {self.candidates!r}")
        if not isinstance(self.rounds, (int, np.integer)) or not 1 <= self.rounds <= 10:
            raise InputError(f"rounds must be an integer in [1, 10], got {self.rounds!r}")
        last = pair_value("trials", self.pilot_trials) * 2 ** (int(self.rounds) - 1)
        if last > PAIR_TRIALS.high:  # each round doubles the pilot: its last must be a budget a run accepts
            raise InputError(
                f"pilot-trials × 2^(rounds − 1) (the last round's pilot) must be at most {PAIR_TRIALS.high:g}, got "
                f"{last:g} ({self.pilot_trials:g} and {int(self.rounds)} rounds)"
            )

        workers = pair_value("workers", self.workers)
        scheduler, dask_local = checked_place(workers, self.scheduler, self.dask_local)
        return SearchOptions(
            self.search,
            self.neighbours,
            int(self.candidates),
            pair_value("trials", self.pilot_trials),
            pair_value("blackbox_trials", self.trials),
            None if self.train_trials is None else pair_value("train_trials", self.train_trials),
            workers,
            self.statistic,
            int(self.rounds),
            self.pilot_statistic,
            scheduler,
            dask_local,
            law=self.law,
        )


def search_checks(mechanism: Any, epsilon: float, delta: float, seed: int, options: SearchOptions, progress=False):
    """Run the search (:func:`pdp_audit.audits.blackbox.search.search_pairs`); returns (evidence, result or None):
    the ``blackbox-attack`` check of the chosen pair, or the exact fail ``pair-protocol`` when the mechanism's
    ``release`` raises or returns no (size, d) array of finite numbers."""
    neighbours = Neighbours.parse(options.neighbours)
    if options.workers > 1:
        _check_picklable(mechanism)
    try:
        _check_first_pair(mechanism, neighbours, options)
        shipped = {f"the mechanism {type(mechanism).__name__}": mechanism}
        with block_executor(options.workers, options.scheduler, options.dask_local, shipped) as executor:
            budget = SearchBudget(
                options.candidates,
                options.pilot_trials,
                options.trials,
                options.train_trials,
                AttackOptions(options.statistic, executor, law=options.law),
                options.rounds,
                options.pilot_statistic,
                progress,
            )
            result = search_pairs(mechanism, neighbours, options.search, delta, seed, budget)
    except MalformedPair as err:
        return [malformed_check(str(err))], None
    final = result.final
    assert result.chosen is not None  # a search chose its pair
    halving = (
        f", the better half attacked again on twice as many fresh pilot releases, {options.rounds - 1} times"
        if options.rounds > 1
        else ""
    )
    note = (
        f"Search over neighbouring inputs ({options.search}, {neighbours}): {len(result.ranking)} candidate pairs "
        f"ranked by the ε bound of a pilot attack ({options.pilot_statistic}) on {options.pilot_trials:,} releases "
        f"per world{halving}; the chosen pair ({result.chosen.name}) attacked on fresh releases. The pilots only "
        "select the pair; the final bound is one test on fresh draws, valid at the run's level. "
        f"{_note(final)}"
    )
    details = {
        "search": options.search,
        "neighbours": str(neighbours),
        "candidates": len(result.ranking),
        "pilot_trials": options.pilot_trials,
        "pilot_statistic": options.pilot_statistic,
        "chosen": result.chosen.name,
        **attack_details(final),
    }
    return [attack_evidence(final.attack, (epsilon, delta), note, details)], result


def witness_document(target: str, claim: tuple, result, neighbours: str | None) -> dict:
    """The witness of a search ``result`` (or of one attack: ``result`` with ``chosen`` None) on ``target``: what
    :func:`recheck_checks` needs, and the threshold of the best ramp at the claim's α."""
    epsilon, delta, alpha = claim
    final = result.final
    pair = None if result.chosen is None else {"D": list(result.chosen.d), "D'": list(result.chosen.dprime)}
    return {
        "schema": WITNESS_SCHEMA,
        "target": target,
        "neighbours": neighbours,
        "pair": pair,
        "pair_name": None if result.chosen is None else result.chosen.name,
        "statistic": statistic_to_data(final.learned),
        **_threshold(final.attack, alpha, epsilon),
        "claim": {"epsilon": epsilon, "delta": delta},
        "alpha": alpha,
        "trials": final.test_per_world,
        "train_trials": final.train_per_world,
        "seed": result.final_seed,
        "epsilon_lower_bound": final.epsilon_lower_bound_at(alpha),
    }


def _threshold(attack, alpha: float, epsilon: float) -> dict:
    """The threshold of the test's best side at the claim's α, and which world it calls: the pooled-rank attack's
    best ramp, or the event test's witness event (:meth:`~pdp_audit.audits.blackbox.events.EventAttack.witness_event`:
    one that the world it disfavours never reached, where such an event refutes ``epsilon``) with its two counts
    (all its events are in the statistic)."""
    if isinstance(attack, EventAttack):
        index = attack.witness_event(alpha, epsilon)
        if index is None:
            return {"threshold": None, "threshold_calls": "no event"}
        event = attack.events[index]
        calls = "the event scores >= threshold, favouring D" if event.favours_d else "the event scores <= threshold, "
        calls += "" if event.favours_d else "favouring D'"
        counts = {"event": index + 1, "hits_d": attack.hits_d[index], "hits_dprime": attack.hits_dp[index]}
        counts.update(released_d=attack.n, released_dprime=attack.m)
        return {"threshold": _finite(event.threshold), "threshold_calls": calls, "witness_event": counts}
    direction = attack._best(alpha)[1]  # 0: the highest scores called D; 1: the lowest called D'
    calls = "scores >= threshold called D" if direction == 0 else "scores <= threshold called D'"
    return {"threshold": _finite(attack.best_threshold(alpha)), "threshold_calls": calls}


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def recheck_checks(worlds: tuple, witness: dict, claim: tuple, trials: int, seed: int, executor=None):
    """The witness's test on ``trials`` fresh releases per world of ``worlds`` drawn with ``seed`` (in blocks on
    ``executor``: the same numbers); returns (evidence, the attack or None)."""
    epsilon, delta, _ = claim
    try:
        kind = "events" if witness["statistic"].get("kind") == "events" else "logistic"
        _check_attack_memory(worlds[0], 0, trials, kind)  # a logistic re-check keeps the fresh scores
        attack = recheck(worlds, witness["statistic"], trials, delta, seed, executor)
    except MalformedPair as err:
        return [malformed_check(str(err))], None
    stat = witness["statistic"]
    if stat["kind"] == "events":
        test = (
            f"the event test it stores (the {stat['chosen']} score and its {len(stat['events'])} events, each "
            "event's fresh counts tested jointly with Poissonised sizes, Bonferroni over the events)"
        )
    else:
        test = f"the {stat['kind']} test it stores (ε bounded at fixed pooled ranks of the fresh scores, union bound)"
    same = " (the witness's own seed: this reproduces its bound, it is not a fresh re-check)"
    note = (
        f"Re-check of a witness: {test}, applied to {trials:,} fresh releases per world of "
        f"{'its pair' if witness.get('pair') else 'the target pair'} drawn with seed {seed}"
        f"{same if seed == witness.get('seed') else ''}. The witness's own bound was "
        f"{witness.get('epsilon_lower_bound')!r}."
    )
    details = {"witness_seed": witness.get("seed"), **event_details(attack)}
    return [attack_evidence(attack, (epsilon, delta), note, details)], attack


def _check_picklable(mechanism: Any) -> None:
    check_picklable("mechanism", "define it at module level", mechanism)


def _decided(name: str, evidence: list, alpha: float, parameters: dict, seed: int):
    return make_run(name, finalize(evidence, alpha), alpha, parameters, seed, paper_claims=True)


def _check_first_pair(mechanism: Any, neighbours: Any, options: SearchOptions) -> None:
    """Before any pilot, what a plain run checks of its pair, on the search's first pattern: that ``release`` draws
    from the generator it is given (:func:`pdp_audit.verify.estimators.rng_discipline.check_rng_discipline`; a mechanism
    that ignores it would be bounded on one block counted many times) and that the largest pilot (``pilot_trials``
    doubled each further round) and the final attack fit in memory at the releases' dimension (a release too wide
    is refused before the first pilot, as a plain run refuses it)."""
    first = pattern_candidates(int(mechanism.dimension), neighbours, _domain(mechanism))[0]
    worlds = {"D": DatasetSampler(mechanism, first.d, "D"), "D'": DatasetSampler(mechanism, first.dprime, "D'")}
    pilot = options.pilot_trials * 2 ** (options.rounds - 1)  # memory first: it draws 2 releases, the probe 18,000
    pilot_train = default_train_trials(pilot, options.pilot_statistic)
    _check_attack_memory(worlds["D"], pilot_train, pilot, options.pilot_statistic)
    train = options.train_trials
    if train is None:
        train = default_train_trials(options.trials, options.statistic)
    _check_attack_memory(worlds["D"], train, options.trials, options.statistic)
    check_rng_discipline(lambda world, size, rng: worlds[world](size, rng), checked_blackbox_releases)


def search_outcome(
    mechanism: Any, claim: tuple, seed: int, options: SearchOptions, target: str, progress: bool = False
) -> SearchOutcome:
    """The search on ``mechanism`` (``target``: its name, stored in the witness), decided at the claim's α
    (``progress``: bars of the pilots and of the final attack's releases on a terminal)."""
    epsilon, delta, alpha = claim
    evidence, result = search_checks(mechanism, epsilon, delta, seed, options, progress)
    parameters = {
        "pair": f"chosen by a search ({options.search}, {options.neighbours})",
        "claim": "DP (black box)",
        "epsilon": epsilon,
        "delta": delta,
        "trials": options.trials,
        "candidates": options.candidates,
        "pilot_trials": options.pilot_trials,
        **({"rounds": options.rounds} if options.rounds > 1 else {}),
    }
    run = _decided(type(mechanism).__name__, evidence, alpha, parameters, seed)
    if result is None:
        return SearchOutcome(run)
    return SearchOutcome(run, result, witness_document(target, claim, result, options.neighbours), result.final.attack)


def pair_outcome(
    pair: Any, claim: tuple, seed: int, options: SearchOptions, target: str, progress: bool = False
) -> SearchOutcome:
    """The plain attack on the pair ``pair.sample`` draws (the same draws and bound as ``audit_blackbox`` at the
    same seed and budget), with its witness."""
    # deferred: read at call time (tests replace attack.blackbox_attack)
    from pdp_audit.audits.blackbox.attack import (
        AttackOptions,
        blackbox_attack,
        checked_blackbox_releases,
        default_train_trials,
    )

    epsilon, delta, alpha = claim
    worlds = (UserSampler(pair, "D"), UserSampler(pair, "D'"))
    train = options.train_trials
    train = default_train_trials(options.trials, options.statistic) if train is None else train
    parameters = {
        "pair": f"{type(pair).__name__}, as given",
        "claim": "DP (black box)",
        "epsilon": epsilon,
        "delta": delta,
        "trials": options.trials,
        **({} if options.train_trials is None else {"train_trials": options.train_trials}),
    }
    try:
        _check_attack_memory(worlds[0], train, options.trials, options.statistic)
        check_rng_discipline(pair.sample, checked_blackbox_releases)
        if options.workers > 1:
            _check_picklable(pair)
        shipped = {sampler_name(worlds[0]): pair}
        with block_executor(options.workers, options.scheduler, options.dask_local, shipped) as executor:
            attack = blackbox_attack(
                *worlds,
                options.trials,
                delta,
                seed,
                progress,
                train_trials=train,
                options=AttackOptions(options.statistic, executor, law=options.law),
            )
    except MalformedPair as err:
        return SearchOutcome(_decided(type(pair).__name__, [malformed_check(str(err))], alpha, parameters, seed))
    # the words, details and evidence of a plain run: the same attack, the same check
    evidence = attack_evidence(attack.attack, (epsilon, delta), _note(attack), attack_details(attack))
    run = _decided(type(pair).__name__, [evidence], alpha, parameters, seed)
    result = SearchResult((), None, attack, seed)
    return SearchOutcome(run, result, witness_document(target, claim, result, None), attack.attack)


def recheck_outcome(target_object: Any, witness: dict, claim: tuple, budget: tuple[int, int, int]) -> SearchOutcome:
    """The witness re-checked on ``budget`` = (trials, seed, workers): ``trials`` fresh releases per world of its
    pair (a searched witness: the mechanism's ``release`` on the stored datasets) or of the target's pair, drawn
    with ``seed`` over ``workers`` processes (the same numbers)."""
    pair = witness.get("pair")
    if pair:
        _check_mechanism(target_object, 0)
        if max(len(pair["D"]), len(pair["D'"])) != int(target_object.dimension):
            raise InputError(
                f"witness: its pair holds datasets of {len(pair['D'])} and {len(pair[chr(68) + chr(39)])} answers; the "
                f"mechanism's dimension is {int(target_object.dimension)}"
            )
        worlds: tuple[DatasetSampler | UserSampler, DatasetSampler | UserSampler] = (
            DatasetSampler(target_object, tuple(pair["D"]), "D"),
            DatasetSampler(target_object, tuple(pair["D'"]), "D'"),
        )
    else:
        worlds = (UserSampler(target_object, "D"), UserSampler(target_object, "D'"))
    trials, seed, workers = budget
    if workers > 1:
        _check_picklable(target_object)
    with executor_for(workers) as executor:
        evidence, attack = recheck_checks(worlds, witness, claim, trials, seed, executor)
    parameters = {
        "pair": f"{witness['target']}, the witness's pair",
        "claim": "DP (black box)",
        "epsilon": claim[0],
        "delta": claim[1],
        "trials": trials,
    }
    run = _decided(type(target_object).__name__, evidence, claim[2], parameters, seed)
    return SearchOutcome(run, attack=attack, rechecked=witness)


def _checked_claim(claim: tuple, seed: Any) -> tuple[tuple[float, float, float], int]:
    epsilon, delta, alpha = claim
    checked = (pair_value("epsilon", epsilon), pair_value("refuted_delta", delta), pair_value("alpha", alpha))
    return checked, pair_value("seed", seed)


def audit_blackbox_search_with(
    target: Any, claim: tuple, seed: Any, options: Any, name: str, search: bool = True, progress: bool = False
):
    """:func:`pdp_audit.audit_blackbox_search` with the claim as (ε, δ, α) (``search`` False: the plain attack on
    ``target.sample``'s pair at the budget of ``options``, with its witness); ``name``: the target's name stored in
    the witness; ``progress``: bars on a terminal.  What ``pdp-audit blackbox --search / --report`` runs."""
    claim, seed = _checked_claim(claim, seed)
    options = (options or SearchOptions()).checked()
    if not search:
        if not callable(getattr(target, "sample", None)):
            raise InputError("pair must have sample(world, size, rng)")
        return pair_outcome(target, claim, seed, options, name, progress)
    _check_mechanism(target, options.candidates)
    return search_outcome(target, claim, seed, options, name, progress)


#: Bytes a candidate pair holds per answer of the mechanism's dataset: two tuples of Python floats (a pointer and a
#: float object each, 32 bytes), the arrays ``release`` receives and the witness's JSON text of the chosen pair.
PAIR_BYTES_PER_ANSWER = 2 * (32 + 8 + 25)
#: Candidates the pattern search holds at most, whatever ``candidates`` asks (pattern_candidates makes 16 or fewer).
PATTERNS_HELD = 16


def _check_mechanism(target: Any, candidates: int) -> None:
    """Refuse, before any release, a mechanism the search cannot use: no ``release``, a ``dimension`` that is not an
    integer >= 1 (a bool is not: ``True`` would be read as 1), an attribute that raises when read (the user's
    property: their fault, one line), or datasets too long for the candidate pairs the search holds to fit in three
    quarters of this process's memory (each pair holds two datasets of ``dimension`` answers:
    :data:`PAIR_BYTES_PER_ANSWER` bytes per answer)."""
    # deferred: read at call time (tests replace processes.physical_memory)
    from pdp_audit.verify.core.processes import MEMORY_SHARE, physical_memory

    usage = "mechanism: needs an integer dimension >= 1 and release(dataset, size, rng)"
    try:
        dimension, release = getattr(target, "dimension", None), getattr(target, "release", None)
    except Exception as err:  # noqa: BLE001 - the user's property raised: theirs, named in one line
        raise InputError(f"{usage}; reading them raised {type(err).__name__}: {str(err)!r}") from None
    if not callable(release) or isinstance(dimension, bool) or not isinstance(dimension, (int, np.integer)):
        raise InputError(usage)
    if dimension < 1:
        raise InputError(f"{usage}, got dimension {int(dimension)}")
    total = physical_memory()
    need = int(dimension) * PAIR_BYTES_PER_ANSWER * (candidates + PATTERNS_HELD)
    if total and need > MEMORY_SHARE * total:
        most = int(MEMORY_SHARE * total / (PAIR_BYTES_PER_ANSWER * (candidates + PATTERNS_HELD)))
        raise InputError(
            f"mechanism: dimension {int(dimension):,} needs about {need / 1e9:.3g} GB for the search's candidate pairs "
            f"({candidates} candidates); this process may use {total / 1e9:.3g} GB: at most {most:,} answers here"
        )


def recheck_witness_with(
    target: Any, witness: dict, claim: tuple, trials: Any, seed: Any, workers: Any = 1
) -> SearchOutcome:
    """Re-apply ``witness``'s test to ``trials`` fresh releases per world drawn with ``seed``: what ``pdp-audit
    blackbox --witness`` runs (the witness was read and matched to its target by :func:`read_witness`)."""
    claim, seed = _checked_claim(claim, seed)
    return recheck_outcome(
        target, witness, claim, (pair_value("blackbox_trials", trials), seed, pair_value("workers", workers))
    )
