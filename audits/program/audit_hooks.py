"""The process's one audit hook (PEP 578), which acts only inside :func:`watching` blocks.

CPython raises an *audit event* where code opens a file (``open``, with the path, the mode and the flags), makes a
temporary file or folder (``tempfile.mkstemp``, ``tempfile.mkdtemp``), and at many other places (the ``sys`` module's
events table).  ``sys.addaudithook`` cannot be undone: a hook added stays for the life of the process (the user's
own, where the API or the pytest plugin runs an audit).  So one hook is added, at the first :func:`watching` block,
and it acts only through the handlers of the blocks open at the time:
outside every block each event costs one look-up in an empty dictionary, beside the cost of calling a Python hook
at all (about 0.3 µs an event: an ``id()``, which raises ``builtins.id``, takes several times as long).

API
---
``with watching({"open": handler, ...}) as armed:``
    ``handler(args)`` is called for each event of that name raised in the block, by any thread, with the event's
    arguments; blocks nest (an event's handlers are called in the order their blocks were entered).  ``armed`` is
    False where the process refused the hook (an audit hook added before ours may veto new ones, and Python then
    drops ours silently): the handlers are never called, and a caller that relies on them must say so.
    What a handler raises reaches the code that raised the event -- an ``open`` refused raises at the ``open`` --
    so a handler that only watches must raise nothing.  Events raised while a handler runs (its own ``os.stat``, the
    ``sys._getframe`` of a traceback walk) reach no handler.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Any, Callable, Iterator, Mapping

#: The handlers of the open blocks, by event name (absent: none).
_HANDLERS: dict[str, tuple[Callable[[tuple], Any], ...]] = {}
#: Whether the hook was added, and whether the process accepted it (None: not yet asked).
_ARMED: list[bool] = []
#: Per thread, whether a handler is running (its own events reach no handler).
_INSIDE = threading.local()
#: The event the hook's first block raises to see whether the process accepted it.
_PROBE = "pdp_audit.audit_hooks.probe"


def _hook(event: str, args: tuple) -> None:
    table = _HANDLERS
    if not table:  # none asked for; or the interpreter is ending, its modules' globals cleared to None
        return
    handlers = table.get(event)
    if handlers is None or getattr(_INSIDE, "on", False):
        return
    _INSIDE.on = True
    try:
        for handler in handlers:
            handler(args)
    finally:
        _INSIDE.on = False


def _added() -> bool:
    """The hook added once a process; whether the process accepted it (an event of our own reached it)."""
    if not _ARMED:
        seen: list[tuple] = []
        _HANDLERS[_PROBE] = (seen.append,)
        try:
            sys.addaudithook(_hook)
            sys.audit(_PROBE)
        finally:
            del _HANDLERS[_PROBE]
        _ARMED.append(bool(seen))
    return _ARMED[0]


@contextlib.contextmanager
def watching(handlers: Mapping[str, Callable[[tuple], Any]]) -> Iterator[bool]:
    """``handlers`` called for their events while the block runs (module notes); whether the hook is armed."""
    armed = _added()
    for event, handler in handlers.items():
        _HANDLERS[event] = _HANDLERS.get(event, ()) + (handler,)
    try:
        yield armed
    finally:
        for event, handler in handlers.items():
            left = tuple(h for h in _HANDLERS.get(event, ()) if h is not handler)
            if left:
                _HANDLERS[event] = left
            else:
                _HANDLERS.pop(event, None)
