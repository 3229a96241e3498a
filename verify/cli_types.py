"""Argument types and helpers shared by the CLI commands."""
from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


def count(text: str) -> int:
    """A positive integer, also written like 1e6."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value != int(value):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(value)


def probability(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text}")
    return value


@contextmanager
def executor_for(workers: int):
    """None (serial) for one worker, else a process pool; results are identical either way."""
    if workers <= 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield pool
