"""How many worker processes a run may use: a ``workers`` value as a user gives it (a whole number, or None /
``"auto"`` for one per usable core) checked against its range, and the cores this process may run on.  Every pool,
the sweeps' executors and BLAS's chunk threads ask here, so they agree on a machine or container that lets the
process use only some of its cores (``taskset``, a cpuset): there ``os.cpu_count()`` counts the machine's cores (16
where the process may use 2), and a pool of that size only makes the processes queue for the 2."""

from __future__ import annotations

import numbers
import os
from typing import Any

from pdp_audit.verify.inputs.validation import InputError

#: The most worker processes a run may ask for (each is a process with its own memory).
MAX_WORKERS = 256


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system has one (Linux), else the machine's
    count; at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:  # a system that declares the call but refuses it: fall back to the machine's count
            pass
    return max(1, os.cpu_count() or 1)


def checked_workers(workers: Any, name: str = "workers") -> int:
    """``workers`` as a count of processes: a whole number in [1, :data:`MAX_WORKERS`], or None / ``"auto"`` for the
    available cores (at most :data:`MAX_WORKERS`).  Anything else is an :class:`InputError` of one line naming
    ``name`` (``--workers`` on the command line) and the range."""
    if workers is None or (isinstance(workers, str) and workers == "auto"):
        return min(available_cores(), MAX_WORKERS)
    whole = isinstance(workers, numbers.Integral) or (isinstance(workers, float) and workers.is_integer())
    if isinstance(workers, bool) or not whole or not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"{name} must be a whole number in [1, {MAX_WORKERS}], got {workers!r}"[:200])
    return int(workers)
