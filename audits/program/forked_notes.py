"""One line a copy of the audit's process, forked by the program, leaves for the audit's process to read.

A copy that ``os.fork`` makes -- a ``multiprocessing`` pool's worker under the fork start method, a
``ProcessPoolExecutor``'s on Linux, the program's own ``os.fork()`` -- shares no Python object with the process that
made it: what it changes (a tape it records a draw on, a list of files read) is its own, and is lost with it.  An
anonymous shared mapping (``mmap.mmap(-1, n)``: ``MAP_SHARED | MAP_ANONYMOUS``) made before the fork is the same
memory in both processes, so a :class:`ForkedNote` made when its module is imported is seen by every copy forked
after: a copy :meth:`~ForkedNote.post`\\ s one line (the first posted stands until it is taken), and the audit's
process :meth:`~ForkedNote.take`\\ s it after each run of the program.  Sound for copies made by ``fork`` of the
process that imported the module (the mapping is inherited); not for a process started afresh (``spawn``,
``forkserver``, ``subprocess``), which maps nothing of it.  Two copies posting at once may mix their lines' bytes:
the note is still posted (its first byte is set last), its words may be garbled.
"""

from __future__ import annotations

import mmap

#: Bytes of one note: a flag, the length (2 bytes), the line (UTF-8, cut to fit).
SIZE = 4096


class ForkedNote:
    """One line posted by a forked copy, read (and cleared) by the process that forked it (module notes)."""

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, SIZE)

    def post(self, line: str) -> None:
        """Leave ``line`` for the forking process (a line already posted and not yet taken stands)."""
        if self._page[0]:
            return
        data = line.encode("utf-8", "replace")[: SIZE - 3]
        self._page[1:3] = len(data).to_bytes(2, "little")
        self._page[3 : 3 + len(data)] = data
        self._page[0] = 1  # last: a note is whole once it is flagged

    def take(self) -> str | None:
        """The line posted since the last take (None: none), cleared."""
        if not self._page[0]:
            return None
        size = int.from_bytes(self._page[1:3], "little")
        line = self._page[3 : 3 + size].decode("utf-8", "replace")
        self._page[0] = 0
        return line
