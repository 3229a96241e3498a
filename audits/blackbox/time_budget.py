"""The default budget of a black-box run, fitted to the sampler's speed and stated before it starts.

The default (:data:`~pdp_audit.audits.blackbox.defaults.DEFAULT_TRIALS`, 8e6 fresh releases per world, with 5e5 to
learn from and 2e6 to choose events: 1.05e7 per world) takes about a minute for a vectorised numpy sampler.  A
library tool called once per release is another matter: diffprivlib's ``tools.mean`` costs 120–175 µs a call, and
the default was 45–60 minutes of CPU.  So a run that names no ``trials`` first times the sampler (after a warm-up
call, then a timed call of up to 2,000 releases per world: ``user_audits.sampler_cost``) and, where the default
would take longer than :data:`TIME_BUDGET_S` on the workers it has, lowers ``trials`` to what fits -- never below
:data:`MIN_TRIALS`.  The
run says so (the check's note, its ``trials`` parameter, and a line on stderr before it starts): a black box can
only refute, so a smaller budget costs power, never validity.  ``trials`` given explicitly is always kept.

**Workers.**  A run that names no workers (``pdp-audit blackbox`` without ``--workers``; ``BlackBoxBudget(workers=
None)``) draws with the available cores when the sampler costs at least
:data:`~pdp_audit.verify.evidence.user_audits.PARALLEL_FROM_S` a release and pickles (worker processes receive it by
pickling), else in one process -- and says which and why.  The rule and its threshold are shared with the audit of a
white-box pair (:func:`pdp_audit.verify.evidence.user_audits.chosen_workers`), measured by
``benchmarks/slow_sampler_workers.py`` (its result: ``benchmarks/slow_sampler_workers.json``): below it the workers'
start and the releases' transfer cost more than the draws they share.  The numbers never depend on the workers, so
choosing them changes no result, only the wall time.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.audits.blackbox.attack import default_train_trials
from pdp_audit.audits.blackbox.defaults import DEFAULT_TRIALS
from pdp_audit.verify.evidence import user_audits
from pdp_audit.verify.evidence.user_audits import duration, per_release, sampler_cost

#: Wall-clock time a default run may plan for (on its workers), in seconds.
TIME_BUDGET_S = 480.0
#: The smallest default a slow sampler is lowered to (fresh releases per world).
MIN_TRIALS = 20_000
#: The cost a release from which a run that names no workers uses the cores: the one threshold, shared with a
#: white-box pair's audit (named here too, as the docs' spans and the benchmark's record name it).
PARALLEL_FROM_S = user_audits.PARALLEL_FROM_S


@dataclass(frozen=True)
class FittedBudget:
    """``trials`` fresh releases per world, the sampler's measured cost a release, the planned minutes on
    ``workers`` processes (and ``why_workers``, where the run chose them), and whether the default was lowered."""

    trials: int
    seconds_per_release: float
    minutes: float
    lowered: bool
    workers: int = 1
    why_workers: str = ""

    def describe(self) -> str:
        cost = per_release(self.seconds_per_release)
        place = f" on {self.workers} worker processes" if self.workers > 1 else ""
        if not self.lowered:
            plan = f"about {duration(self.minutes)}{place} at {cost}"
            return f"Budget: {self.trials:,} fresh releases per world, {plan}."
        return (
            f"Budget lowered to fit about {TIME_BUDGET_S / 60:.0f} min{place}: {self.trials:,} fresh releases per "
            f"world (default {DEFAULT_TRIALS:,}) at {cost}, measured before the run; a smaller budget can miss a "
            "violation the default would see (give trials to insist)."
        )

    def statement(self, statistic: str) -> str:
        """What stderr says before the run: the budget, the releases drawn in all, and the workers chosen."""
        drawn = int(releases_per_world(self.trials, statistic))
        return " ".join(
            part for part in (self.describe(), f"{drawn:,} releases drawn per world in all.", self.why_workers) if part
        )


def releases_per_world(trials: int, statistic: str) -> float:
    """What a run draws per world: its training releases, the event test's selection quarter, and the fresh ones."""
    selection = trials / 4 if statistic.startswith("events") else 0
    return default_train_trials(trials, statistic) + selection + trials


def chosen_workers(samplers, cost: float) -> tuple[int, str]:
    """The workers of a run that names none, and why: the rule a white-box pair's audit follows too
    (:func:`pdp_audit.verify.evidence.user_audits.chosen_workers`)."""
    return user_audits.chosen_workers(tuple(samplers), cost)


def fitted_budget(
    samplers, statistic: str, workers: int | None, trials: int | None = None, cost: float | None = None
) -> FittedBudget:
    """Time ``samplers`` (one ``(size, rng)`` function per world; or take their measured ``cost``), choose the
    workers where ``workers`` is None, and fit the default budget where ``trials`` is None (module notes)."""
    cost = sampler_cost(samplers) if cost is None else cost
    why = ""
    if workers is None:
        workers, why = chosen_workers(samplers, cost)
    seconds = lambda n: 2 * releases_per_world(n, statistic) * cost / max(1, workers)  # noqa: E731
    if trials is not None:
        return FittedBudget(int(trials), cost, seconds(int(trials)) / 60, False, workers, why)
    fitted = DEFAULT_TRIALS
    while fitted > MIN_TRIALS and seconds(fitted) > TIME_BUDGET_S:
        fitted = max(MIN_TRIALS, int(fitted * 0.8) // 1000 * 1000)
    return FittedBudget(fitted, cost, seconds(fitted) / 60, fitted < DEFAULT_TRIALS, workers, why)
