"""Whether a dict was changed since a moment, without reading its entries: CPython's dict version tag (PEP 509).

CPython 3.6 to 3.13 give every dict a 64-bit ``ma_version_tag`` that each change of the dict (an item set to
another object, added or removed, the dict cleared or updated) sets to a new value of one interpreter-wide
counter, never reused (PEP 509, "Add a private version to dict"; from 3.12 its low bits are kept for dict
watchers and the counter steps over them).  So an unchanged tag is an unchanged dict: the same keys in the same
order, each with the same object.  The field lies right after the object's header and the item count
(``PyDictObject``: header, ``ma_used``, ``ma_version_tag``), where ctypes reads it.  It is not a public API (the
PEP deprecates it from 3.12; later versions may drop it): it is read only where a probe shows that every kind of
change of a probe dict gives it a new value and a read without a change the same one (:func:`_behaves`), else
:func:`version_of` gives None and callers compare the entries.  A tag that changes without a change of the dict
(the counter advanced by a write of the same object) only costs the caller that comparison.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

#: The dict last read and its tag's ctypes view (the dict kept: its address is never another's while viewed).
_held: tuple[dict, Any] | None = None
#: Whether the tag behaves on this interpreter (None: not probed yet).
_usable: bool | None = None


def version_of(mapping: dict) -> int | None:
    """The version tag of ``mapping`` now (a built-in dict), or None where this interpreter has none to read."""
    global _held, _usable
    if _held is None or _held[0] is not mapping:
        if _usable is None:
            _usable = _behaves(_tag_view)
        if not _usable or type(mapping) is not dict:
            return None
        _held = (mapping, _tag_view(mapping))
    return _held[1].value


def _tag_view(mapping: dict) -> Any:
    """A ctypes view of the 64 bits after ``mapping``'s object header and its item count (a ``Py_ssize_t``)."""
    import ctypes

    return ctypes.c_uint64.from_address(id(mapping) + object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t))


def _behaves(view: Callable[[dict], Any]) -> bool:
    """Whether ``view`` of a probe dict reads a tag that each kind of change renews and nothing else does: the
    interpreter is CPython (a dict's layout is its own), and an item replaced by another object (the item count
    unchanged: what tells the tag from the count), added, removed, the dict updated and cleared each give a new
    value, two reads without a change the same one."""
    if sys.implementation.name != "cpython":
        return False
    try:
        return _renewed_by_every_change(view)
    except (ImportError, OSError, ValueError):  # no ctypes, or an address it refuses
        return False


def _renewed_by_every_change(view: Callable[[dict], Any]) -> bool:
    probe: dict[str, Any] = {"a": object()}
    tag = view(probe)
    seen = [tag.value]
    changes = (
        lambda: probe.__setitem__("a", object()),
        lambda: probe.__setitem__("b", object()),
        lambda: probe.pop("a"),
        lambda: probe.update(b=object()),
        probe.clear,
    )
    for change in changes:
        if tag.value != seen[-1]:  # changed with nothing done
            return False
        change()
        if tag.value in seen:
            return False
        seen.append(tag.value)
    return True
