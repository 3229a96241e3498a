"""The lock of a sweep's store: one writing sweep at a time on a store, whatever the path that names it.

``flock`` (an advisory lock of a whole open file, flock(2)) on the file the path resolves to + ``.lock``, and on the
store file's own inode once it exists, so neither a symbolic link, another
spelling of the path nor a hard link lets a second sweep write the store a first one is writing
(:class:`pdp_audit.sweeps.store.Store` takes it before it opens the store).
"""

from __future__ import annotations

import fcntl
import os

from pdp_audit.sweeps.spec import SpecError


class WriterLock:
    """The writing sweep's exclusive locks on a store: ``flock`` on the file the path resolves to + ``.lock`` (there
    before the store exists) and, once the store exists, ``flock`` on the store file itself, so a second sweep
    through a hard link (another name of the same inode, hence another ``.lock``) is refused too.

    ``flock`` locks are separate from the POSIX (``fcntl``) locks SQLite takes on the same file on Linux; the store
    file's descriptor is closed only after SQLite's connection is (closing it earlier would drop SQLite's locks).
    The ``.lock`` file is removed by :meth:`close` -- when the sweep ends (its lock still held while it goes, so no
    other sweep can hold it then), and when the sweep ``failed`` to open or create its store (a full disk, ``--store
    notes.txt``) if it made the file: a sweep leaves no file but its store behind.  Since a lock file can be removed,
    :func:`lock_store` checks after locking that the path still names the file it locked, and locks anew if not."""

    def __init__(self, path: str, lock_path: str, handle, made_lock_file: bool):
        self.path, self.lock_path, self.made_lock_file = path, lock_path, made_lock_file
        self.handles = [handle]

    def hold_store_file(self) -> None:
        """Lock the store file's own inode (SpecError if another sweep holds it, e.g. through a hard link)."""
        if not os.path.isfile(self.path):  # opening a FIFO would block; a directory cannot be opened
            return  # no store file to lock (yet): opening it as a store says what it is
        try:
            handle = open(self.path, "rb")
        except OSError:
            return  # SQLite says why it cannot open it
        self.handles.append(handle)
        _flock(handle, self.path, self.path)

    def close(self, failed: bool = False) -> None:
        if self.made_lock_file or not failed:  # a failed sweep removes only a lock file it made itself
            try:
                os.unlink(self.lock_path)
            except OSError:
                pass
        while self.handles:
            self.handles.pop().close()


def _flock(handle, path: str, lock_path: str) -> None:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SpecError(
            f"--store {path!r}: another pdp-audit sweep is writing it; wait for that one to finish, then rerun this "
            "command with --resume (it will run only the cells still missing)"
        ) from None
    except OSError as err:
        raise SpecError(f"--store {path!r}: cannot lock {lock_path!r}: {err.strerror or err}") from None


def lock_store(path: str) -> WriterLock:
    """The writer's lock (:func:`_lock_once`), taken again while a finishing sweep removed the lock file between our
    opening it and locking it (we would hold the lock of a file no longer at the path)."""
    for _ in range(8):
        lock = _lock_once(path)
        if _still_at_path(lock.handles[0], lock.lock_path):
            return lock
        lock.made_lock_file = False  # the file at the path now is another sweep's
        lock.close(failed=True)
    raise SpecError(
        f"--store {path!r}: its lock file {path + '.lock'!r} keeps being replaced; is another sweep "
        "starting and ending on this store?"
    )


def _still_at_path(handle, lock_path: str) -> bool:
    try:
        named, held = os.stat(lock_path), os.fstat(handle.fileno())
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _lock_once(path: str) -> WriterLock:
    """The writer's :class:`WriterLock` on the store at ``path``, or SpecError if another sweep holds it.  The
    ``.lock`` is named from the file the path resolves to, so a symbolic link (or another spelling) of the same store
    finds the same lock; an existing store file is locked itself too (a hard link).  A lock file that cannot be
    opened (a directory, read-only media) is SpecError too."""
    lock_path = os.path.realpath(path) + ".lock"
    made_lock_file = not os.path.lexists(lock_path)
    try:
        handle = open(lock_path, "a+")
    except OSError as err:
        raise SpecError(
            f"--store {path!r}: cannot open its lock file {lock_path!r}: {err.strerror or err} (a sweep writes a "
            "store only while it holds this lock)"
        ) from None
    lock = WriterLock(path, lock_path, handle, made_lock_file)
    try:
        _flock(handle, path, lock_path)
    except BaseException:
        lock.made_lock_file = False  # another sweep holds this lock file: not ours to remove
        lock.close(failed=True)
        raise
    try:
        lock.hold_store_file()  # an existing store: its inode too (another sweep may hold it through a hard link)
    except BaseException:
        lock.close(failed=True)
        raise
    return lock
