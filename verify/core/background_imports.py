"""Modules imported on a second thread while the first reads a data file: an audit's start-up beside its parse.

``certify`` of a large CSV parses it before the audit runs, and the audit's first act is to import its evidence
modules (the Gaussian audit's bring scipy.stats: half a second of a 4-second certification of 1e6 x 30 rows).
pandas' tokenizer and float conversion run without the interpreter lock, so on a second core the imports cost no
wall time while the file is read; on one core they take what they took.  Nothing changes but when the modules are
imported: Python's import machinery makes a module importable from any thread, the run then finds them imported.
Its locks are per module, and two threads importing modules in common may meet in a cycle of them (Python then raises
a deadlock error in one): the caller imports what the body imports first (certify: pandas, before the thread starts),
so the thread and the body import no module in common.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from typing import Iterator, Sequence

from pdp_audit.verify.core.beside import computed_beside


@contextmanager
def imported_beside(modules: Sequence[str]) -> Iterator[None]:
    """Import ``modules`` on a thread while the body runs; the thread is joined when the body ends (raising or not),
    so nothing is left importing when the run starts its worker processes or the interpreter exits."""
    if not modules:
        yield
        return
    with computed_beside(_import_quietly, tuple(modules)):
        yield


def _import_quietly(modules: tuple[str, ...]) -> None:
    """Import each module; the first that fails ends the thread silently: the run's own import of it raises there,
    on the main thread, where every error of a run is reported."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - reported by the run's own import, not here
            return
