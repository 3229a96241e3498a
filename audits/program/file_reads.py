"""The audited data file read by the program itself, from disk: refused.

The audit runs ``program(data, rng)`` on D and replays it on neighbouring datasets D′, each handed to the program as
``data``.  A program that reads the audited file from disk itself (``pd.read_csv("data.csv")``, ``np.loadtxt``,
``open``, ``os.open``, ``Path.read_text``) reads D on every replay: its release is the same on D and on each D′, and
an exact sum of D would be certified.  So the program must read its data through ``data`` only, and an open of the
audited file while a call into the user's code is under way (``USER_CALLS.depth``: the program's runs, the import of
its module) is refused: one line naming the file and the program's line (exit 2), never a verdict.

**How it is seen.**  Python raises an ``open`` audit event (PEP 578, ``sys.addaudithook``) for every ``open()``,
``io.open``, ``os.open``, ``pathlib``'s reads and the numpy and pandas readers built on them.  The file opened is
compared with the audited one by identity -- device and inode of what the path names, symbolic links followed -- so
another spelling (``./d.csv``, an absolute path, ``..`` in it), a symbolic link and a hard link are the same file.
Not seen: a file opened by C code without Python's ``open`` (an extension's own reader, ``subprocess.run(["cat",
path])``), a process started afresh (``spawn``, ``forkserver``), a descriptor opened before the audit began, and a
copy of the file's bytes made elsewhere (a second file of the same content is another file).

**Its reach.**  The hook (:mod:`.audit_hooks`) acts only inside :func:`refused`, where the audited file is named (a
command's ``--data``, a deployment's ``data``, a sweep cell's); the Python API and the pytest plugin name no file,
and refuse nothing.  The hook raises nothing into the program (which could swallow it, or die of it in a pool's
worker): it notes the read -- in a copy the program forked, through a shared page (:class:`~.forked_notes.ForkedNote`)
-- and the audit raises :class:`DataFileRead` once the program's run that made it returns (:func:`noted`), or where
the block ends, and reads nothing of that run.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from dataclasses import dataclass
from typing import Iterator

from pdp_audit.audits.program import audit_hooks
from pdp_audit.audits.program.faults import stack_place
from pdp_audit.audits.program.forked_notes import ForkedNote
from pdp_audit.verify.core.processes import USER_CALLS
from pdp_audit.verify.inputs.validation import shown


class DataFileRead(BaseException):
    """The program opened the audited data file while it ran: ``path`` as it was opened, ``place`` the program's
    line (module notes)."""

    def __init__(self, path: str, place: str):
        super().__init__(path, place)
        self.path, self.place = path, place

    def __str__(self) -> str:
        at = f" ({self.place})" if self.place else ""
        return (
            f"opened the audited data file {shown(self.path)} itself{at}; a program reads its data through its "
            "argument data only (the audit replays it on neighbouring datasets, which a read from disk does not see)"
        )

    def words(self, program: str) -> str:
        """The refusal in one line, naming ``program``, the file and the line."""
        return f"program {shown(program)} {self}"


@dataclass(frozen=True)
class _Watched:
    """The audited files (device, inode) watched in the process ``pid``, and the refusals noted there."""

    files: frozenset[tuple[int, int]]
    pid: int
    refusals: list[DataFileRead]


#: The watches under way, the innermost last (:func:`refused`); the hook acts on the innermost.
_WATCHES: list[_Watched] = []
#: Where a forked copy notes a read of the audited file (``path`` and place, tab-separated).
READ_ELSEWHERE = ForkedNote()


@contextlib.contextmanager
def refused(paths: list[str]) -> Iterator[None]:
    """Inside the block, an open of any of ``paths`` (the audited data files; those that are not there are left out)
    during a call into the user's code is noted, and refused as :class:`DataFileRead` after the program's run that
    made it (:func:`noted`), or where the block ends (module notes)."""
    files = frozenset(found for found in map(_identity, paths) if found is not None)
    if not files:
        yield
        return
    watched = _Watched(files, os.getpid(), [])
    READ_ELSEWHERE.take()  # a note left by an earlier block's copy is not this one's
    _WATCHES.append(watched)
    try:
        with audit_hooks.watching({"open": _on_open}):
            yield
        noted()
    finally:
        _WATCHES.remove(watched)


def noted() -> None:
    """Raise the refusal of a read of the audited file the program made, if a watch under way noted one (in this
    process, or in a copy the program forked): after each run of the program (:meth:`.recorder.Tape.running`) and
    where the watch ends."""
    if not _WATCHES:
        return
    elsewhere = READ_ELSEWHERE.take()
    if elsewhere is not None:
        path, _, place = elsewhere.partition("\t")
        raise DataFileRead(path, f"{place}, in a process the program forked" if place else place)
    for watched in _WATCHES:  # the outermost first: a deployment's module read at its import, before its audit
        if watched.refusals:
            raise watched.refusals[0]


def _identity(path: str | bytes | os.PathLike) -> tuple[int, int] | None:
    """(device, inode) of the file ``path`` names, symbolic links followed (None where it names none)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError, TypeError):
        return None
    return (info.st_dev, info.st_ino)


def _on_open(args: tuple) -> None:
    """The ``open`` event's handler (:mod:`.audit_hooks`; module notes): quick but inside a watch during a user's
    call."""
    if not _WATCHES or not USER_CALLS.depth:
        return
    path = args[0] if args else None
    if path is None or isinstance(path, int):  # a descriptor: its file was opened (and seen) before
        return
    watched = _WATCHES[-1]
    if _identity(path) not in watched.files:
        return
    opened, place = _path_text(path), stack_place(traceback.walk_stack(sys._getframe())) or ""
    if os.getpid() != watched.pid:  # a copy the program forked: noted to the audit's process (module notes)
        READ_ELSEWHERE.post(f"{opened}\t{place}")
    else:
        watched.refusals.append(DataFileRead(opened, place))


def _path_text(path: str | bytes | os.PathLike) -> str:
    try:
        return os.fsdecode(path)
    except (TypeError, ValueError):
        return repr(path)
