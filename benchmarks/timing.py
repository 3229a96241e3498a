"""Timing shared by the benchmarks: best of several runs, the one least disturbed by other load."""

from __future__ import annotations

import time
from typing import Callable


def best_rate(fn: Callable[[], object], n: int, repeats: int = 3) -> float:
    """Items per second of ``fn`` (which processes ``n`` items), best of ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return n / best
