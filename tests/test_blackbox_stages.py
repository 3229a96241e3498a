"""A stopped black-box attack in stages (pdp_audit.audits.blackbox.stages, issue 43): the schedule fixed by the budget,
its shares of the level summing to 1, the level of the run over every stage under the union bound, and the same run
with each stage read at the full level shown to fail that test."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.stats import binom

from pdp_audit.audits.blackbox.anytime import AnytimeEventAttack, Carried, round_means
from pdp_audit.audits.blackbox.events import Event
from pdp_audit.audits.blackbox.stages import (
    CARRIED_SHARE,
    PILOT_TRAIN,
    PILOT_TRIALS,
    STAGE_MAX,
    STAGED_FROM,
    Stage,
    run_stages,
    stage_schedule,
)

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

#: Simulated runs per level test, at a loose level; a run errs when some stage refutes a claim that holds.  400 runs
#: keep both tests far from ALLOWED (247): 118 wrong runs read at the shares, 302 at the full level (1000: 298 and 761).
RUNS, LOOSE = 400, 0.5
#: P(Binomial(RUNS, LOOSE) > ALLOWED) ≤ 1e-6: a valid run (error probability ≤ LOOSE) fails w.p. ≤ 1e-6.
ALLOWED = int(binom.isf(1e-6, RUNS, LOOSE))
#: Each simulated stage's event: its rate in D', the mechanism's true ε (the share of D in it exactly π(ε): the claim
#: holds with no slack), and the Poisson mean of the stage's fresh releases per world.
RATE, EPSILON, HORIZON = 0.02, 0.5, 300_000.0
#: A budget of five stages (shares 1/16, 1/16, 1/8, 1/4, 1/2), where reading each at the full level errs most.
TRIALS = 1_000_000_000


@pytest.mark.parametrize("trials", [STAGED_FROM, 4_000_000, 8_000_000, 16_000_000, TRIALS])
def test_the_shares_of_a_schedule_sum_to_the_level(trials):
    stages = stage_schedule(trials, 500_000)
    assert math.fsum(s.share for s in stages) == 1.0
    assert stages[-1] == Stage("blackbox", "full", trials, 500_000, 0.5)  # the unstaged attack's streams
    assert stages[0] == Stage("blackbox/pilot", "pilot", PILOT_TRIALS, PILOT_TRAIN, stages[0].share)
    assert all(a.trials < b.trials and a.train_trials <= b.train_trials for a, b in zip(stages, stages[1:]))
    assert len({s.prefix for s in stages}) == len(stages)  # each stage draws from streams of its own


def test_the_schedules_of_the_usual_budgets():
    """One stage below STAGED_FROM; from it a pilot and the full attack at half the level each; at 4e6 a stage of
    650,000 fresh releases between them, at 8e6 stages of 650,000 and 1,690,000 (STAGE_GROWTH); and no stage between
    the pilot and the full attack above STAGE_MAX, whatever the budget."""
    assert stage_schedule(STAGED_FROM - 1, 500_000) == (Stage("blackbox", "single", STAGED_FROM - 1, 500_000, 1.0),)
    assert [(s.name, s.trials, s.share) for s in stage_schedule(STAGED_FROM, 500_000)] == [
        ("pilot", PILOT_TRIALS, 0.5),
        ("full", STAGED_FROM, 0.5),
    ]
    assert [(s.name, s.trials, s.share) for s in stage_schedule(4_000_000, 500_000)] == [
        ("pilot", 250_000, 0.25),
        ("middle", 650_000, 0.25),
        ("full", 4_000_000, 0.5),
    ]
    assert [(s.name, s.trials, s.train_trials, s.share) for s in stage_schedule(8_000_000, 500_000)] == [
        ("pilot", 250_000, PILOT_TRAIN, 0.125),
        ("middle", 650_000, 81_250, 0.125),
        ("middle", 1_690_000, 211_250, 0.25),
        ("full", 8_000_000, 500_000, 0.5),
    ]
    assert max(s.trials for s in stage_schedule(TRIALS, 500_000)[:-1]) <= STAGE_MAX


@dataclass(frozen=True)
class _Result:
    """What :func:`run_stages` reads of a stage's attack."""

    attack: AnytimeEventAttack
    train_per_world: int = 0


def test_the_run_stops_at_the_first_stage_that_refutes_and_counts_the_earlier_ones():
    stages = stage_schedule(TRIALS, 500_000)
    bare = AnytimeEventAttack((), (), (), 0, 0, 0.0, 1.0, 1.0)
    outcomes = {"blackbox/pilot": "budget", "blackbox/stage2": "within-claim", "blackbox/stage3": "refuted"}
    ran = []

    def attack(stage):
        ran.append(stage.prefix)
        return _Result(dataclasses.replace(bare, stopped=outcomes.get(stage.prefix, "budget")), stage.train_trials)

    result = run_stages(stages, attack, lambda r: r.train_per_world)
    assert ran == ["blackbox/pilot", "blackbox/stage2", "blackbox/stage3"]
    assert result.attack.stage == "middle" and result.attack.before == stages[0].train_trials + stages[1].train_trials
    ran.clear()
    outcomes.clear()
    assert run_stages(stages, attack, lambda r: 1).attack.stage == "full" and len(ran) == len(stages)


def _paths(seed: int) -> np.ndarray:
    """RUNS simulated fresh passes' counts at the boundary of the claim (the event's share of D exactly π(ε), Poisson
    counts in the rounds of :func:`round_means`), summed after each round: shape (RUNS, rounds, 2)."""
    rng = np.random.default_rng(seed)
    means = np.array(round_means(HORIZON))
    for_d = rng.poisson(means * RATE * math.exp(EPSILON), (RUNS, means.size))
    against = rng.poisson(means * RATE, (RUNS, means.size))
    return np.cumsum(np.stack([for_d, against], axis=-1), axis=1)


def _refutes(share: float, path: np.ndarray, start: np.ndarray | None = None) -> bool:
    """Whether one simulated pass ``path`` (a row of :func:`_paths`), its stopped pass read at ``share`` of LOOSE after
    every round (the exact test at the level split among the rounds; at half the level too after the last), refutes
    ε; ``start``: the counts (2,) of an earlier stage's pass of the same event, added to each round's (a carried
    event: :class:`~pdp_audit.audits.blackbox.anytime.Carried`)."""
    event, looks = (Event(0.0, True),), path.shape[0]
    for r, (hits_d, hits_dp) in enumerate(path + (0 if start is None else start)):
        attack = AnytimeEventAttack(
            event, (int(hits_d),), (int(hits_dp),), 0, 0, 0.0, 1.0, 1.0, horizon=HORIZON,
            complete=r == looks - 1, share=share, looks=looks,
        )  # fmt: skip
        if attack.epsilon_lower_bound_at(LOOSE) > EPSILON:
            return True
    return False


def _wrong_runs(read_share) -> int:
    """Simulated runs of the TRIALS schedule (each stage's pass independent, as each stage's fresh draws are) in which
    :func:`run_stages` ends refuting a claim that holds, each stage read at ``read_share(stage)`` of LOOSE: its own
    event at that share less ``stage.carried`` and, where it carries, the stage before's event (counted on both
    stages' passes, the same event being at the boundary too) at ``stage.carried`` of that share's whole.  A stage's
    pass is read only when :func:`run_stages` reaches it (the stages after a refuting one decide nothing)."""
    stages = stage_schedule(TRIALS, 500_000)
    paths = {s.prefix: _paths(seed) for seed, s in enumerate(stages)}
    carried = {s.prefix: _paths(len(stages) + k) for k, s in enumerate(stages) if s.carried}  # the earlier event's
    earlier = {s.prefix: stages[k - 1].prefix for k, s in enumerate(stages) if s.carried}  # counts in these releases

    def refutes(stage, run):
        whole = read_share(stage)
        if _refutes(whole * (1 - stage.carried / stage.share), paths[stage.prefix][run]):
            return True
        before = paths[earlier[stage.prefix]][run, -1] if stage.carried else None
        return bool(stage.carried) and _refutes(whole * stage.carried / stage.share, carried[stage.prefix][run], before)

    bare = AnytimeEventAttack((), (), (), 0, 0, 0.0, 1.0, 1.0)
    wrong = 0
    for run in range(RUNS):

        def attack(stage, run=run):
            return _Result(dataclasses.replace(bare, stopped="refuted" if refutes(stage, run) else "budget"))

        wrong += run_stages(stages, attack, lambda r: 0).attack.stopped == "refuted"
    return wrong


@pytest.mark.tier2
def test_the_staged_run_keeps_its_level_over_every_stage():
    """At the boundary of the claim, the run that stops at the first stage refuting at its share refutes in at most
    LOOSE of the runs (false alarm ≤ 1e-6): the union bound of the module docstring."""
    assert _wrong_runs(lambda stage: stage.share) <= ALLOWED


def test_every_stage_read_at_the_full_level_fails_the_same_test():
    """The broken version: each of the five stages read at the whole level, as if it were the only one, refutes a
    claim that holds far more often than LOOSE."""
    assert _wrong_runs(lambda stage: 1.0) > ALLOWED


def test_a_middle_stage_splits_its_share_with_the_events_it_carries():
    """The schedule fixes each middle stage's carried part (module docstring, Carried events): CARRIED_SHARE of its
    share, none for the pilot or the full attack, whose readings are those of an unstaged attack."""
    stages = stage_schedule(8_000_000, 500_000)
    assert [s.carried for s in stages] == [0.0, 0.125 * CARRIED_SHARE, 0.25 * CARRIED_SHARE, 0.0]


def test_carried_events_read_an_earlier_pass_and_this_one_at_their_share():
    """:meth:`Carried.read`: the earlier pass's counts and Poisson mean plus this pass's, at this pass's rounds, at the
    carried share; the releases it drew are this pass's (what the run counts), the earlier ones named apart."""
    event = (Event(0.0, True),)
    before = AnytimeEventAttack(
        event, (7_000,), (5_000,), 90_000, 90_100, 0.0, 90_000.0, 90_000.0, horizon=90_000.0, complete=True,
        share=0.125, looks=9,
    )  # fmt: skip
    hits = {"D": np.array([3_000, 40_000]), "D'": np.array([2_000, 40_100])}
    read = Carried(None, before, 0.0625).read(hits, 40_000.0, 200_000.0, (5, "budget", 250_000), (False, 11))
    assert (read.hits_d, read.hits_dp, read.n, read.m, read.carried) == ((10_000,), (7_000,), 40_000, 40_100, 90_100)
    assert (read.mean_d, read.horizon, read.share, read.looks, read.rounds) == (130_000.0, 290_000.0, 0.0625, 11, 5)
    from pdp_audit.audits.blackbox.evidence import _stopping_details, _stopping_note

    said = dataclasses.replace(read, stopped="refuted", stage="middle", before=362_500, trials=650_000)
    assert "their counts include its 90,100 fresh releases per world" in _stopping_note(said)
    assert _stopping_details(said)["early_stop"]["carried_per_world"] == 90_100
    alone = AnytimeEventAttack(
        event, (3_000,), (2_000,), 40_000, 40_100, 0.0, 40_000.0, 40_000.0, share=0.0625, looks=11
    )  # fmt: skip
    assert read.epsilon_lower_bound_at(1e-6) > alone.epsilon_lower_bound_at(1e-6) > 0  # more counts, same ratio


@pytest.mark.parametrize(
    "stage, trials, share, says",
    [
        ("pilot", STAGED_FROM, 0.5, "A pilot attack (its own training, selection and fresh releases, at half the"),
        ("pilot", 8_000_000, 0.125, "A pilot attack (its own training, selection and fresh releases, at 1/8 of"),
        ("middle", 8_000_000, 0.125, "Earlier stages (362,500 releases per world) did not refute the claim; a larger"),
        ("full", STAGED_FROM, 0.5, "A pilot attack (362,500 releases per world, half the level) did not refute"),
        ("full", 4_000_000, 0.5, "2 earlier stages (362,500 releases per world, half the level in all) did not"),
        ("full", 8_000_000, 0.5, "3 earlier stages (362,500 releases per world, half the level in all) did not"),
    ],
)
def test_the_note_names_the_stage_that_decided_and_its_share(stage, trials, share, says):
    from pdp_audit.audits.blackbox.evidence import _stopping_details, _stopping_note

    attack = AnytimeEventAttack(
        (Event(0.0, True),), (10,), (5,), 1000, 1000, 0.0, 1000.0, 1000.0, stopped="refuted", trials=trials,
        share=share, before=362_500 if stage != "pilot" else 0, stage=stage,
    )  # fmt: skip
    assert says in _stopping_note(attack)
    record = _stopping_details(attack)["early_stop"]
    assert record["stage"] == stage and record.get("pilot_per_world", 0) == attack.before


def test_the_plan_stated_before_a_stopped_run_counts_the_earlier_stages():
    """The most a stopped run may draw: every stage's training, selection and fresh releases (at 8e6: the pilot's
    362,500, the middle stages' 650,000 and 1,690,000 fresh ones, each learning and selecting from earlier releases
    alone, and the full attack's 8,000,000 fresh ones, its 2,500,000 to learn and select from all the earlier stages'
    releases), not the full attack's alone."""
    import pdp_audit
    from pdp_audit.audits.blackbox.audit import _staged
    from pdp_audit.audits.blackbox.time_budget import FittedBudget

    budget = pdp_audit.BlackBoxBudget(early_stop=True)
    stated = _staged(FittedBudget(8_000_000, 1e-7, 1.0, False), budget)
    assert stated.endswith("at most 10,702,500 releases per world in all.")
    assert _staged(FittedBudget(STAGED_FROM - 1, 1e-7, 1.0, False), budget) == "."


def _fresh_passes(monkeypatch, replay: bool = False) -> tuple[list, list, object]:
    """A small staged run (a pilot of 5,000 fresh releases, then the full attack of 20,000) of a Laplace pair well
    within its claim, every release drawn logged: returns (per stage's fresh pass, the releases drawn before it
    started and the releases it counted; the releases drawn in all, per call; the run's result).  ``replay``: the
    broken version, whose fresh passes count the first releases drawn in the run again."""
    from pdp_audit.audits.blackbox import anytime, attack, stages

    monkeypatch.setattr(stages, "STAGED_FROM", 20_000)
    monkeypatch.setattr(attack, "STAGED_FROM", 20_000)
    monkeypatch.setattr(stages, "PILOT_TRIALS", 5_000)
    monkeypatch.setattr(stages, "PILOT_TRAIN", 1_000)
    drawn: list[np.ndarray] = []

    def laplace(shift: float):
        def sample(size, rng):
            out = rng.laplace(shift, 1.0, (size, 1))
            drawn.append(out[:, 0].copy())
            return out

        return sample

    passes, real = [], anytime.bound_events_anytime

    def spy(fresh, statistic, *args, **kwargs):
        before, counted = np.concatenate(drawn), []

        def score(block):
            if replay:
                block = before[: len(block), None]
            counted.append(block[:, 0].copy())
            return statistic.score(block)

        result = real(fresh, dataclasses.replace(statistic, score=score), *args, **kwargs)
        passes.append((set(before.tolist()), np.concatenate(counted)))
        return result

    monkeypatch.setattr(anytime, "bound_events_anytime", spy)
    options = attack.AttackOptions(stop_at=(3.0, 1e-6), law="ideal")
    result = attack.blackbox_attack(laplace(1.0), laplace(0.0), 20_000, 0.0, 0, train_trials=2_000, options=options)
    return passes, drawn, result


def test_a_later_stage_learns_from_earlier_releases_and_bounds_on_new_ones(monkeypatch):
    """Reuse (module docstring): the full attack learns and selects from the pilot's releases (training, selection
    and fresh) before drawing its own, so the run draws fewer than its stages' budgets; every release a fresh pass
    counts was drawn after that pass began, none before it (no earlier stage's, none of its own training or
    selection)."""
    passes, drawn, result = _fresh_passes(monkeypatch)
    assert result.attack.stage == "full" and len(passes) == 2
    assert result.reused_per_world >= 2_250  # the pilot's 1,000 training and 1,250 selection releases at least
    for before, counted in passes:
        assert counted.size > 0 and not before.intersection(counted.tolist())
    # the stages drawing anew: the pilot's 1,000 + 1,250 + 5,000, the full attack's 2,000 + 5,000 + 20,000 per world
    assert sum(map(len, drawn)) / 2 <= 34_250 - result.reused_per_world


def test_a_fresh_pass_that_counts_earlier_releases_fails_the_same_test(monkeypatch):
    """The broken version: fresh passes that count releases drawn before them (the run's first ones again)."""
    passes, _, _ = _fresh_passes(monkeypatch, replay=True)
    assert any(before.intersection(counted.tolist()) for before, counted in passes)


def test_the_memory_of_a_staged_run_counts_the_releases_held_for_later_stages():
    """A stopped event test from STAGED_FROM holds the earlier stages' releases for the full attack to learn and
    select from: at most its training and selection releases per world, 8 bytes a coordinate, both worlds."""
    from pdp_audit.audits.blackbox.attack import attack_memory
    from pdp_audit.audits.blackbox.events import selection_size

    budget = (500_000, 10, 8_000_000, "events")
    extra = attack_memory(*budget, staged=True) - attack_memory(*budget)
    assert extra == 2 * 8 * 10 * (500_000 + selection_size(8_000_000))
    below = STAGED_FROM - 1
    assert attack_memory(1000, 3, below, "events", staged=True) == attack_memory(1000, 3, below, "events")


@pytest.mark.tier2
def test_a_later_stage_reuses_the_statistic_learned_from_the_same_releases(monkeypatch):
    """A learner that reads the same releases in two stages (here the pilot's and the full attack's, their learners
    reading the first 1,000 of each world's) is fitted once (``attack._remembered``), and the run is number for
    number the one that fits it again in each stage."""
    from pdp_audit.audits.blackbox import attack, events, stages

    monkeypatch.setattr(stages, "STAGED_FROM", 20_000)
    monkeypatch.setattr(attack, "STAGED_FROM", 20_000)
    monkeypatch.setattr(stages, "PILOT_TRIALS", 5_000)
    monkeypatch.setattr(stages, "PILOT_TRAIN", 1_000)
    monkeypatch.setattr(events, "LEARNER_TRIALS", 1_000)
    fits, learn_trees = [], attack.learn_trees

    def counted(*args, **kwargs):
        fits.append(args[0].shape)
        return learn_trees(*args, **kwargs)

    def run():
        options = attack.AttackOptions(stop_at=(3.0, 1e-6), law="ideal")
        sample = {shift: lambda size, rng, shift=shift: rng.laplace(shift, 1.0, (size, 1)) for shift in (0.0, 1.0)}
        return attack.blackbox_attack(sample[1.0], sample[0.0], 20_000, 0.0, 0, train_trials=2_000, options=options)

    monkeypatch.setattr(attack, "learn_trees", counted)
    reused = run()
    assert reused.attack.stage == "full" and fits == [(1_000, 1)]
    monkeypatch.setattr(attack, "_remembered", lambda learned, name, fit: fit)
    again = run()
    assert len(fits) == 3 and repr(again) == repr(reused)  # repr: the training accuracy is NaN


def test_a_middle_stage_refutes_with_the_pilots_events_read_again(monkeypatch):
    """Carried events end to end (a pilot of 5,000 fresh releases, a middle stage of 13,000, the full attack of 80,000;
    Laplace noise of scale 1 on a shift of 1, ε = 1, claimed 0.85): the pilot draws every round without refuting,
    the middle stage (its own events made useless: a constant score) reads the pilot's events on the pilot's counts
    and its own fresh releases and refutes the claim with them; the run's statistic is the pilot's frozen one, whose
    releases it names apart, and the stage reads no release drawn before it began."""
    from pdp_audit.audits.blackbox import anytime, attack, stages

    monkeypatch.setattr(stages, "STAGED_FROM", 20_000)
    monkeypatch.setattr(attack, "STAGED_FROM", 20_000)
    monkeypatch.setattr(stages, "PILOT_TRIALS", 5_000)
    monkeypatch.setattr(stages, "PILOT_TRAIN", 1_000)
    passes, real = [], anytime.bound_events_anytime

    def spy(fresh, statistic, budget, stop_at, running, stage, keep=None, carry=None):
        if stage[0] == "blackbox/stage2":
            statistic = dataclasses.replace(statistic, score=lambda block: np.zeros(len(block)))
        result = real(fresh, statistic, budget, stop_at, running, stage, keep, carry)
        passes.append((stage, statistic, carry, result))
        return result

    monkeypatch.setattr(anytime, "bound_events_anytime", spy)
    sample = {shift: lambda size, rng, shift=shift: rng.laplace(shift, 1.0, (size, 1)) for shift in (0.0, 1.0)}
    options = attack.AttackOptions(stop_at=(0.85, 1e-6), law="ideal")
    result = attack.blackbox_attack(sample[1.0], sample[0.0], 80_000, 0.0, 0, train_trials=2_000, options=options)
    (pilot_stage, pilot_statistic, none, pilot), (stage, _, carry, middle) = passes
    assert pilot_stage == ("blackbox/pilot", 0.25) and none is None and pilot.complete and pilot.stopped == "budget"
    assert stage == ("blackbox/stage2", 0.25 * (1 - CARRIED_SHARE)) and carry.share == 0.25 * CARRIED_SHARE
    assert carry.statistic is pilot_statistic and carry.attack is pilot
    assert middle.stopped == "refuted" and middle.carried == max(pilot.n, pilot.m) and middle.events == pilot.events
    assert all(a > b for a, b in zip(middle.hits_d + middle.hits_dp, pilot.hits_d + pilot.hits_dp))
    assert result.learned is pilot_statistic and result.attack.stage == "middle" and result.attack.carried
    assert result.epsilon_lower_bound_at(1e-6) > 0.85
