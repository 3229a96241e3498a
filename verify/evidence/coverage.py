"""The evidence of a coverage claim -- "the event holds with probability at least 1 − ρ" -- from draws of the
event: an exact binomial test of the failure count (:func:`pdp_audit.audits.coverage.coverage_of`)."""

from __future__ import annotations

import inspect
from typing import Callable

import numpy as np

from pdp_audit.audits.coverage import coverage_of
from pdp_audit.audits.engine import run_blocks
from pdp_audit.verify.checks import CheckSpec, Evidence
from pdp_audit.verify.evidence import builders


class _PerTrial:
    """Block work from a per-trial ``rng -> bool`` function (a Python loop: keep trials modest)."""

    def __init__(self, fn: Callable[[np.random.Generator], bool]):
        self.fn = fn

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.fromiter((bool(self.fn(rng)) for _ in range(size)), dtype=bool, count=size)


class _Vectorised:
    """Block work from a vectorised ``(size, rng) -> bool array`` sampler (shape checked)."""

    def __init__(self, fn: Callable[[int, np.random.Generator], np.ndarray]):
        self.fn = fn

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        out = np.asarray(self.fn(size, rng), dtype=bool)
        if out.shape != (size,):
            raise ValueError(f"the coverage sampler must return a boolean array of shape ({size},), got {out.shape}")
        return out


def coverage_outcomes(holds, trials: int, seed: int) -> np.ndarray:
    """Outcomes of ``holds``: an array as is, else ``trials`` draws of a sampler through the block engine."""
    if not callable(holds):
        return np.asarray(holds, dtype=bool).ravel()
    required = [
        p
        for p in inspect.signature(holds).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    work = _Vectorised(holds) if len(required) >= 2 else _PerTrial(holds)
    return run_blocks(work, trials, seed, "plugin/coverage").astype(bool)


def coverage_checks(holds, rho: float, trials: int, seed: int, exact_failure: float | None) -> list[Evidence]:
    """The check that ``holds`` fails with probability at most ``rho`` (exact binomial test)."""
    cov = coverage_of(coverage_outcomes(holds, trials, seed), rho)
    spec = CheckSpec(
        "coverage",
        "High-probability bound",
        f"The event holds with probability ≥ 1 − ρ (ρ = {rho:g})",
        "P[event fails] ≤ ρ",
        "user claim",
    )
    return [builders.coverage_check(spec, cov, exact_failure=exact_failure)]
