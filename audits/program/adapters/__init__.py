"""The libraries a program draws its noise from, each read through one :class:`~.base.Adapter` (its own module here):
numpy, Python's ``random``, ``scipy.stats``, torch, diffprivlib, OpenDP and PyDP (:data:`ADAPTERS`).  The core installs
them (:mod:`..sources`) and asks them for their calls' steps (:func:`call_steps`, :func:`lower_step`), nothing else:
adding a library is one module here, its line in :data:`ADAPTERS`, and its tests."""

from __future__ import annotations

from typing import Sequence

from pdp_audit.audits.program import step_laws
from pdp_audit.audits.program.adapters import (
    diffprivlib_mechanisms,
    numpy_random,
    opendp_measurements,
    pydp_mechanisms,
    python_random,
    scipy_stats,
    torch_draws,
)
from pdp_audit.audits.program.adapters.base import Adapter
from pdp_audit.audits.program.events import Event, LibraryCall
from pdp_audit.audits.program.findings import Unaccounted

#: Every adapter, in the order they are installed (numpy's before ``scipy.stats``', whose draws are numpy's).
ADAPTERS: tuple[Adapter, ...] = (
    numpy_random.ADAPTER,
    python_random.ADAPTER,
    scipy_stats.ADAPTER,
    torch_draws.ADAPTER,
    diffprivlib_mechanisms.ADAPTER,
    opendp_measurements.ADAPTER,
    pydp_mechanisms.ADAPTER,
)
#: The adapters by package; a library call ``PACKAGE.…`` is its package's (:attr:`.events.LibraryCall.library`).
BY_PACKAGE = {adapter.package: adapter for adapter in ADAPTERS}
#: The packages whose primitives are recorded as calls (not draws of the generator).
LIBRARIES = frozenset(adapter.package for adapter in ADAPTERS if not adapter.draws)


def call_steps(recorded: Sequence[Event], replayed: Sequence[Event]) -> tuple[list[step_laws.Step], list[Unaccounted]]:
    """The upper steps of the library calls of ``recorded`` (on D) against ``replayed`` (on D′), each by its
    adapter's ``upper_step``; and what they leave unaccounted for."""
    budgets, problems = [], []
    for k, call in enumerate(recorded[: len(replayed)]):
        if isinstance(call, LibraryCall):
            budget, problem = BY_PACKAGE[call.library].upper_step(k, call, replayed[k])
            budgets += [budget] if budget is not None else []
            problems += [problem] if problem is not None else []
    return budgets, problems


def lower_step(k: int, index: int, call: Event, shift: float, error: float) -> step_laws.Step | None:
    """The lower step of element ``index`` of library call ``k`` whose noise the release carries, moved by ``shift``
    (read within ``error``), by its adapter's ``lower_step``; None for a call of no library."""
    adapter = BY_PACKAGE.get(call.library) if isinstance(call, LibraryCall) else None
    return None if adapter is None else adapter.lower_step(k, index, call, shift, error)
