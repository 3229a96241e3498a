"""The default budget of a black-box run, fitted to the sampler's speed and stated before it starts.

The default (:data:`~pdp_audit.audits.blackbox.defaults.DEFAULT_TRIALS`, 8e6 fresh releases per world, with 5e5 to
learn from and 2e6 to choose events: 1.05e7 per world) takes about a minute for a vectorised numpy sampler.  A
library tool called once per release is another matter: diffprivlib's ``tools.mean`` costs 120–175 µs a call, and
the default was 45–60 minutes of CPU.  So a run that names no ``trials`` first times the sampler (after a warm-up
call, two calls of :data:`PROBE_RELEASES` per world) and, where the default would take longer than
:data:`TIME_BUDGET_S` on the workers it has, lowers ``trials`` to what fits -- never below :data:`MIN_TRIALS`.  The
run says so (the check's note, its ``trials`` parameter, and a line on stderr before it starts): a black box can
only refute, so a smaller budget costs power, never validity.  ``trials`` given explicitly is always kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pdp_audit.audits.blackbox.defaults import DEFAULT_TRIALS

#: Wall-clock time a default run may plan for (on its workers), in seconds.
TIME_BUDGET_S = 480.0
#: The smallest default a slow sampler is lowered to (fresh releases per world).
MIN_TRIALS = 20_000
#: Releases per world of each timed call.
PROBE_RELEASES = 2_000


@dataclass(frozen=True)
class FittedBudget:
    """``trials`` fresh releases per world, the sampler's measured cost a release, and the planned minutes."""

    trials: int
    seconds_per_release: float
    minutes: float
    lowered: bool

    def describe(self) -> str:
        cost = f"{self.seconds_per_release * 1e6:.3g} µs a release"
        if not self.lowered:
            return f"Budget: {self.trials:,} fresh releases per world, about {self.minutes:.1f} min at {cost}."
        return (
            f"Budget lowered to fit about {TIME_BUDGET_S / 60:.0f} min: {self.trials:,} fresh releases per world "
            f"(default {DEFAULT_TRIALS:,}) at {cost}, measured before the run; a smaller budget can miss a violation "
            "the default would see (give trials to insist)."
        )


def releases_per_world(trials: int, statistic: str) -> float:
    """What a run draws per world: its training releases, the event test's selection quarter, and the fresh ones."""
    from pdp_audit.audits.blackbox.attack import default_train_trials

    selection = trials / 4 if statistic.startswith("events") else 0
    return default_train_trials(trials, statistic) + selection + trials


def fitted_budget(samplers, statistic: str, workers: int) -> FittedBudget:
    """Time ``samplers`` (one ``(size, rng)`` function per world) and fit the default budget (module notes)."""
    rng = np.random.default_rng(0)
    cost = 0.0
    for sample in samplers:
        sample(16, rng)  # warm-up: imports and caches of the first call are not the per-release cost
        start = time.perf_counter()
        sample(PROBE_RELEASES, rng)
        cost = max(cost, (time.perf_counter() - start) / PROBE_RELEASES)
    seconds = lambda trials: 2 * releases_per_world(trials, statistic) * cost / max(1, workers)  # noqa: E731
    trials = DEFAULT_TRIALS
    while trials > MIN_TRIALS and seconds(trials) > TIME_BUDGET_S:
        trials = max(MIN_TRIALS, int(trials * 0.8) // 1000 * 1000)
    return FittedBudget(trials, cost, seconds(trials) / 60, trials < DEFAULT_TRIALS)
