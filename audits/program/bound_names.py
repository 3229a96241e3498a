"""Names a module bound at its import to a randomness source (``from numpy.random import RandomState``, ``from random
import gauss``, ``from torch import randn``), rebound for a session to the source's replacement.

:mod:`.sources` replaces numpy's, Python's and torch's public names in their own modules; a module that imported the
name itself holds the original object under its own name, and its draws would not be recorded (dpmm imports
``RandomState`` from ``numpy.random``).  :func:`rebind` finds, in every loaded module outside the standard library,
numpy, torch and pdp-audit, each global that *is* (by identity) one of the replaced originals, and replaces it by the
same replacement for the session (given back with the rest on leaving).  A module found with none is not read again
while its namespace keeps its size (a name bound later adds an entry; a module imported later is read when it is
first seen).  Not covered: an original reached otherwise (a class attribute, a closure, a default argument, a
container) -- its draws are not recorded, the replay on D differs and the claim stays undecided.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, Iterable

#: Top-level packages never rebound: the standard library (its own uses of ``random`` are not the program's noise),
#: the sources' own modules and ours.
SKIPPED = frozenset(sys.stdlib_module_names) | {"numpy", "torch", "pdp_audit"}
#: Modules read and found holding no original: (the module, its namespace's size then), by name.
_CLEAN: dict[str, tuple[Any, int]] = {}


def originals(replaced: Iterable[tuple[Any, str, Any]], current: Callable[[Any, str], Any]) -> dict[int, tuple]:
    """``{id(original): (original, replacement)}`` of the names replaced in a module (not a class's attribute)."""
    return {
        id(before): (before, current(owner, name))
        for owner, name, before in replaced
        if isinstance(owner, types.ModuleType) and callable(before)
    }


def rebind(table: dict[int, tuple], replace: Callable[[Any, str, Any], None], done: set[str]) -> bool:
    """Each global of a loaded module that is an original of ``table`` replaced by its replacement (``done``: the
    modules already rebound in this session, skipped); whether any was."""
    found = False
    for name, module in list(sys.modules.items()):
        if module is None or name in done or name.partition(".")[0] in SKIPPED:
            continue
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        clean = _CLEAN.get(name)
        if clean is not None and clean[0] is module and clean[1] == len(namespace):
            continue
        hits = [(key, value) for key, value in list(namespace.items()) if _is_original(table, value)]
        if not hits:
            _CLEAN[name] = (module, len(namespace))
            continue
        for key, value in hits:
            replace(module, key, table[id(value)][1])
        done.add(name)
        found = True
    return found


def _is_original(table: dict[int, tuple], value: Any) -> bool:
    entry = table.get(id(value))
    return entry is not None and entry[0] is value
