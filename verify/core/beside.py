"""A computation run on a second thread while the caller's thread does other work, its result read afterwards.

numpy's and scipy's array loops run without the interpreter lock, so an array computation (the Gaussian audit's
every individual's pDP ε of a 1e6-row file) takes no wall time on a second core while the first draws and decides the
audit's checks.  Nothing changes but the thread the same function runs on: the result (or the exception) is the
one the caller would have had, handed over when it asks for it, and the thread is joined before the block ends.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator


@contextmanager
def computed_beside(function: Callable[..., Any], *args: Any, thread: bool = True) -> Iterator[Callable[[], Any]]:
    """Yield a function returning ``function(*args)``: computed on a thread started now (``thread``), or else on the
    first call, here.  The thread is joined when the block ends, raising or not (never left running at a fork or at
    exit); its exception is raised where the result is asked for, as the call would have raised there."""
    if not thread:
        yield lambda: function(*args)
        return
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as error:  # noqa: BLE001 - raised on the caller's thread by result()
            outcome["error"] = error

    worker = threading.Thread(target=run, name="pdp-audit-beside", daemon=True)
    worker.start()

    def result() -> Any:
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    try:
        yield result
    finally:
        worker.join()
