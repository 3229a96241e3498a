"""The evidence of a coverage claim -- "the event holds with probability at least 1 − ρ" -- from draws of the
event: an exact binomial test of the failure count (:func:`pdp_audit.verify.estimators.coverage.coverage_of`), or,
for a sampler drawn in looks and stopped once decided, the anytime-valid beta-binomial mixture confidence sequence of
:mod:`pdp_audit.verify.evidence.coverage_sequential` (Robbins 1970, §3; Howard et al. 2021, §3)."""

from __future__ import annotations

import inspect
from typing import Callable

import numpy as np

from pdp_audit.mechanisms.base import MalformedPair, returned_array, user_error
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.estimators.coverage import coverage_of
from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.coverage_sequential import sequential_coverage_check
from pdp_audit.verify.evidence.pair_sequential import Stopping
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError


def _name(fn) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__)


def _called(fn, call: str, *args):
    """``fn(*args)``, whatever it raises (``sys.exit`` included) being the user's fault: :class:`MalformedPair`
    naming the call, the exact fail ``pair-protocol`` -- never our internal error."""
    try:
        with user_state():  # what the user's function sets of the process's state is undone
            return fn(*args)
    except BaseException as err:
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise MalformedPair(f"{call} raised {user_error(err)}") from None


class _PerTrial:
    """Block work from a per-trial ``rng -> bool`` function (a Python loop: keep trials modest).  Anything but a
    bool (``np.bool_`` included) is :class:`MalformedPair`: ``bool(0.5)`` and ``bool(nan)`` are True, a silent pass."""

    def __init__(self, fn: Callable[[np.random.Generator], bool]):
        self.fn = fn

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.fromiter((self._one(rng) for _ in range(size)), dtype=bool, count=size)

    def _one(self, rng: np.random.Generator) -> bool:
        call = f"{_name(self.fn)}(rng)"
        outcome = _called(self.fn, call, rng)
        if not isinstance(outcome, (bool, np.bool_)):
            raise MalformedPair(f"{call} returned {type(outcome).__name__} {outcome!r:.40}; expected a bool")
        return bool(outcome)


class _Vectorised:
    """Block work from a vectorised ``(size, rng) -> bool array`` sampler: shape ``(size,)`` and a boolean dtype, else
    :class:`MalformedPair` (casting NaN, 0.5 or 2 to bool gives True: every trial would hold, a silent pass)."""

    def __init__(self, fn: Callable[[int, np.random.Generator], np.ndarray]):
        self.fn = fn

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        call = f"{_name(self.fn)}({size}, rng)"
        out = returned_array(call, _called(self.fn, call, size, rng))
        if out.shape != (size,):
            raise MalformedPair(f"{call} returned shape {out.shape}; expected a boolean array of shape ({size},)")
        if out.dtype != np.bool_:
            raise MalformedPair(f"{call} returned {out.dtype} values; expected booleans (True where the event holds)")
        return out


#: The seeded stream of a sampler's draws (a pass in looks draws look r from ``{STREAM}/look/{r}``).
STREAM = "plugin/coverage"


def sampler_work(holds) -> _Vectorised | _PerTrial:
    """The block work of a sampler: vectorised where it takes two required arguments ``(size, rng)``, else per
    trial ``rng -> bool``."""
    required = [
        p
        for p in inspect.signature(holds).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return _Vectorised(holds) if len(required) >= 2 else _PerTrial(holds)


def coverage_outcomes(holds, trials: int, seed: int) -> np.ndarray:
    """Outcomes of ``holds``: a boolean array as is (else InputError), else ``trials`` draws of a sampler through
    the block engine (:class:`MalformedPair` for a sampler that raises or returns no booleans)."""
    if not callable(holds):
        outcomes = np.asarray(holds)
        if outcomes.dtype != np.bool_:
            raise InputError(
                f"holds: an array of outcomes must be boolean (True where the event held), got {outcomes.dtype}"
            )
        return outcomes.ravel()
    return run_blocks(sampler_work(holds), trials, seed, STREAM).astype(bool)


#: The exact fail of a coverage sampler that broke its protocol.
SAMPLER_PROTOCOL = CheckSpec(
    "pair-protocol",
    "The coverage sampler keeps its protocol",
    "holds(size, rng) returns a (size,) boolean array (a per-trial holds(rng) a bool), and raises nothing",
    "dtype and shape of what holds() returns",
    "pdp_audit.audit_coverage",
)


def in_looks(holds, stop: Stopping | None) -> bool:
    """Whether the check of ``holds`` is drawn in looks and stopped by ``stop``: a sampler's, where ``stop`` is
    given (an array of outcomes is already drawn: its exact binomial test, as before)."""
    return stop is not None and callable(holds)


def coverage_checks(
    holds, rho: float, budget: tuple[int, int], exact_failure: float | None, stop: Stopping | None = None
) -> list[Evidence]:
    """The check that ``holds`` fails with probability at most ``rho``, on at most ``budget`` = ``(trials, seed)``
    draws: the exact binomial test of them all, or (:func:`in_looks`) the confidence sequence read after each look,
    the pass stopped once decided at ``stop.alpha`` (its details' ``early_stop``: the draws used and why it
    stopped); or the exact fail ``pair-protocol`` of a sampler that raises or returns no booleans."""
    trials, seed = budget
    spec = CheckSpec(
        "coverage",
        "High-probability bound",
        f"The event holds with probability ≥ 1 − ρ (ρ = {rho:g})",
        "P[event fails] ≤ ρ",
        "user claim",
    )
    try:
        if in_looks(holds, stop):
            assert stop is not None
            work = sampler_work(holds)
            return [sequential_coverage_check(spec, work, rho, (trials, seed, STREAM), stop, exact_failure)]
        outcomes = coverage_outcomes(holds, trials, seed)
    except MalformedPair as err:
        return [
            builders.exact_check(
                SAMPLER_PROTOCOL, holds=False, estimate=float("nan"), note=f"Malformed sampler: {err}."
            )
        ]
    return [builders.coverage_check(spec, coverage_of(outcomes, rho), exact_failure=exact_failure)]
