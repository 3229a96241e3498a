"""Which memory two objects of one release share (the release codec's record of buffers, by address).

A reader of a release sees not only each array's and tensor's values but which of them share memory: writing into
one changes the other (``a`` and ``a.view(2, 2)``, ``n`` and ``torch.from_numpy(n)``, ``t`` and ``t.numpy()``), and
pickle keeps the sharing.  A numpy view reaches what it shares through its ``base`` (:mod:`release_arrays`); an
array that owns its buffer and a tensor that owns its storage do not, so each registers its memory here, as the
half-open byte interval [start, start + size) of its first and one past its last byte (``__array_interface__``'s
address, a tensor's ``data_ptr()``: public), and is encoded with the ordinal of the buffer it shares, or None.
Intervals of non-empty buffers either are equal (the same memory: a back-reference encodes it exactly), disjoint
(nothing shared), or overlap partly; a partial overlap is refused in one line, so that equal encodings mean the same
sharing.  The registered intervals are disjoint, so a new one overlaps one of them iff it overlaps its neighbour by
start on either side (a sorted list of starts, bisected).  The objects are kept alive by the walk's memo while it
runs, so no address is reused within one encoding.  An empty buffer shares nothing a reader can write.
"""

from __future__ import annotations

import bisect


class SharedPart(ValueError):
    """Two buffers of one release overlap without being the same memory."""


class Buffers:
    """The non-empty buffers met in one encoding: their starts (sorted), ends and ordinals."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: dict[int, int] = {}
        self.ordinals: dict[int, int] = {}

    def share(self, start: int, size: int) -> int | None:
        """The ordinal of the buffer that is exactly [start, start + size), else None (the buffer is registered);
        :class:`SharedPart` where it overlaps one partly."""
        if size <= 0:
            return None
        end = start + size
        at = bisect.bisect_right(self.starts, start)
        if at and self.starts[at - 1] == start and self.ends[start] == end:
            return self.ordinals[start]
        before = at and self.ends[self.starts[at - 1]] > start
        after = at < len(self.starts) and self.starts[at] < end
        if before or after:
            raise SharedPart("shares part of its memory with another array or tensor of the release")
        self.starts.insert(at, start)
        self.ends[start] = end
        self.ordinals[start] = len(self.ordinals)
        return None
