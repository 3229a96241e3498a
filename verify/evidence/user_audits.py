"""What the audits of a user's code share (a white-box pair, a black box, a coverage claim): the protocol check of
the user's object, the defaults of the declared pair options, and the decision of their evidence (their claims and
budgets are checked by their configs, ``audits/<kind>/config.py``)."""

from __future__ import annotations

import pickle
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from pdp_audit.verify.core.checks import finalize, make_run
from pdp_audit.verify.core.config import PAIR_OPTIONS
from pdp_audit.verify.inputs.validation import InputError
from pdp_audit.verify.inputs.workers import available_cores  # read by name at call time: tests replace it here

if TYPE_CHECKING:
    from pdp_audit.reports.records import Run

#: Samples per world of a pair assertion when ``trials`` is not given (the pytest plugin's ``--audit-trials``).
DEFAULT_TRIALS = PAIR_OPTIONS["trials"].default
#: The family-wise false-alarm probability of a run when ``alpha`` is not given.
DEFAULT_ALPHA = PAIR_OPTIONS["alpha"].default
#: Releases per world a user's sampler is timed on before a run states its budget (fewer for a sampler so slow that
#: they would take over PROBE_SECONDS).
PROBE_RELEASES = 2_000
PROBE_SECONDS = 2.0
#: Cost a release from which a run that names no workers draws with the available cores (a black box's sampler; a
#: white-box pair's ``sample`` and ``privacy_loss``): below it the workers' start and the releases' transfer cost more
#: than the draws they share.  Measured by ``benchmarks/slow_sampler_workers.py`` (its result:
#: ``benchmarks/slow_sampler_workers.json``).
PARALLEL_FROM_S = 20e-6


def sampler_cost(samplers) -> float:
    """Seconds a release of the slower of ``samplers`` (one ``(size, rng)`` function per world, drawing from a fixed
    generator of their own), after a warm-up call: what a run's budget statement and its choice of workers rest on."""
    rng = np.random.default_rng(0)
    cost = 0.0
    for sample in samplers:
        start = time.perf_counter()
        sample(16, rng)  # warm-up: imports and caches of the first call are not the per-release cost
        guess = (time.perf_counter() - start) / 16
        probe = int(min(PROBE_RELEASES, max(16, PROBE_SECONDS / max(guess, 1e-9))))
        start = time.perf_counter()
        sample(probe, rng)
        cost = max(cost, (time.perf_counter() - start) / probe)
    return cost


def chosen_workers(shipped: Any, cost: float, what: str = "the sampler") -> tuple[int, str]:
    """The workers of a run that names none, and why (one sentence): the available cores where ``what`` costs at
    least :data:`PARALLEL_FROM_S` a release (``cost``, from :func:`sampler_cost`) and ``shipped`` -- what the worker
    processes receive -- pickles; one process otherwise.  The numbers never depend on the workers (the block engine
    seeds each block by its identity), so the choice changes only the wall time."""
    cores = available_cores()
    threshold = f"{PARALLEL_FROM_S * 1e6:.3g} µs a release"
    if cost < PARALLEL_FROM_S:
        return 1, f"Workers: one process -- {what} costs less than {threshold}: workers would cost more than they save."
    if cores < 2:
        return 1, "Workers: one process -- this process may run on one core only."
    try:
        pickle.dumps(shipped)
    except Exception as err:  # noqa: BLE001 - any pickling failure means the same thing here
        return 1, (
            f"Workers: one process -- {what} costs at least {threshold}, but it does not pickle "
            f"({type(err).__name__}), so it cannot be sent to worker processes (define it at module level to use the "
            "cores)."
        )
    return cores, (
        f"Workers: {cores} (the available cores): {what} costs at least {threshold}; the numbers do not depend on them."
    )


def per_release(seconds: float) -> str:
    """A release's cost as a person reads it: µs, or ms from a millisecond."""
    return f"{seconds * 1e3:.3g} ms a release" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs a release"


def duration(minutes: float) -> str:
    """``minutes`` as a person reads them: seconds below a minute."""
    return f"{minutes * 60:.0f} s" if minutes < 1 else f"{minutes:.1f} min"


def flag(name: str, value: Any) -> bool:
    """``value`` of a yes/no keyword (``per_instance``, ``progress``, ``paper_claims``) if it is a boolean; a string
    is none (``per_instance="no"`` ran the per-instance audit, as every non-empty string is true)."""
    if type(value).__name__ not in ("bool", "bool_"):  # Python's and numpy's booleans, nothing else
        raise InputError(f"{name} must be True or False, got {value!r}"[:200])
    return bool(value)


def check_protocol(pair: Any, needs_loss: bool = True) -> None:
    """InputError unless ``pair`` has ``sample`` (and ``privacy_loss``, with ``needs_loss``) to call."""
    # deferred: loads pdp_audit.mechanisms.base; list --help must not
    from pdp_audit.mechanisms.base import MalformedPair, pair_attribute

    wanted = ("sample", "privacy_loss") if needs_loss else ("sample",)
    try:  # a property of the user's that raises is their bug, in one line
        missing = [name for name in wanted if not callable(pair_attribute(pair, name))]
    except MalformedPair as err:
        raise InputError(str(err)) from None
    if missing:
        raise InputError(
            f"pair must have {' and '.join(f'{n}()' for n in wanted)} (the NeighbourPair protocol); "
            f"{type(pair).__name__} has no {missing[0]}()"
        )


def decided(mechanism: str, evidence: list, alpha: float, parameters: dict, seed: int) -> Run:
    """Decide ``evidence`` as one family (Holm at ``alpha``) into a run record (a user's pair has no paper
    statements: its findings are empty, not "not asked for")."""
    return make_run(mechanism, finalize(evidence, alpha), alpha, parameters, seed, paper_claims=True)
