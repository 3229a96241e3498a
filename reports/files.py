"""File output that never leaves a half-written report and never replaces what is not ours.

* A regular file (or a new path) is written to a temporary file beside it and renamed over it only when
  the whole output is complete, so a reader sees the old file or the new one, never a mixture.
* A symbolic link is followed: its target is written (the link itself stays a link).
* A target that exists and is not a regular file (a FIFO, a character device such as ``/dev/stdout``)
  is never replaced: the complete output is written *through* it, after it is complete.
* Several outputs of one command (a report's PDF and JSON) are published together with
  :func:`atomic_paths`: every file is complete before the first one is renamed into place.
* A file that is replaced keeps its permissions (a new one gets the user's umask); folders are never created.
* Temporaries are named ``.<name>.pdp-<pid>.<random>``; they are removed on every path we control
  (exceptions, Ctrl-C, SIGTERM and SIGHUP through the command's handler), and those left by a killed process
  (whose pid is gone) are swept by the next write to the same target.  One for a FIFO or a device (written
  through, never renamed into place) lies in the temporary folder with mode 0600.
* An operating-system error while writing (a full disk, a read-only file system, a symbolic link loop, a quota)
  is an :class:`OutputError` naming the path as the caller gave it; the file that was at that path is left as it
  was (only complete temporaries are ever renamed into place).  Standard output goes through
  :func:`write_stdout`, whose errors name it the same way.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import stat
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator, TextIO

TEMP_MARK = ".pdp-"
#: How an error names standard output (the ``-`` of ``--json -``).
STDOUT = "standard output"


class OutputError(OSError):
    """An output could not be written (its ``filename`` is the path as the caller gave it, or ``standard output``);
    nothing was renamed over the file at that path."""


def resolve_target(path: str | Path) -> Path:
    """The file a write to ``path`` must change: ``path`` with every symbolic link followed."""
    return Path(os.path.realpath(path))


def is_special(path: Path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a directory (a FIFO, a device, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


def sweep_stale_temporaries(target: Path) -> None:
    """Remove temporaries of ``target`` left by processes that no longer exist (e.g. killed with -9)."""
    prefix = f".{target.name}{TEMP_MARK}"
    for leftover in target.parent.glob(prefix + "*"):
        pid_text = leftover.name[len(prefix) :].split(".", 1)[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _pid_alive(int(pid_text)):
            leftover.unlink(missing_ok=True)


@contextmanager
def _temporary_for(target: Path) -> Iterator[Path]:
    """A temporary file for ``target``'s content, removed unless the caller moved it away."""
    special = is_special(target)
    directory = Path(tempfile.gettempdir()) if special else target.parent
    if not special:
        sweep_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}{TEMP_MARK}{os.getpid()}.", dir=directory)
    os.close(fd)
    if not special:  # it becomes the published file; one written through a FIFO stays 0600 in the temporary folder
        os.chmod(tmp, _mode_for(target))
    try:
        yield Path(tmp)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _mode_for(target: Path) -> int:
    """The permissions of a published file: those of the file it replaces (a 0600 report derived from private data
    stays 0600), else the usual ones for a new file under the user's umask (mkstemp makes 0600)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _publish(tmp: Path, target: Path) -> None:
    """Move the complete ``tmp`` into place: rename over a regular file, write through anything else."""
    if is_special(target):
        with open(tmp, "rb") as source, open(target, "wb") as sink:
            shutil.copyfileobj(source, sink)
    else:
        os.replace(tmp, target)


def _publish_all(temporaries: list[Path], targets: list[Path]) -> None:
    """Publish every output or none: if a later rename fails, the outputs already moved into place get their
    earlier content back (kept as a hard link beside them until all are published) or are removed if new.
    Special files (a FIFO, standard output) are written last: what was written to them cannot be taken back."""
    order = sorted(range(len(targets)), key=lambda i: is_special(targets[i]))
    published: list[tuple[Path, Path | None]] = []  # (target, its earlier content; None: it did not exist)
    try:
        for index in order:
            tmp, target = temporaries[index], targets[index]
            special = is_special(target)
            earlier = None if special else _keep_earlier(target, tmp)
            _publish(tmp, target)
            if not special:
                published.append((target, earlier))
    except BaseException:
        for target, earlier in reversed(published):
            _restore(target, earlier)
        raise
    finally:
        for tmp in temporaries:
            tmp.with_name(tmp.name + EARLIER).unlink(missing_ok=True)


EARLIER = ".earlier"  # suffix of the link that keeps a replaced output's content until every output is published


def _keep_earlier(target: Path, tmp: Path) -> Path | None:
    """A link to (or, where links are not supported, a copy of) ``target``'s content beside its temporary."""
    if not target.exists():
        return None
    earlier = tmp.with_name(tmp.name + EARLIER)
    try:
        os.link(target, earlier)
    except OSError:
        shutil.copy2(target, earlier)
    return earlier


def _restore(target: Path, earlier: Path | None) -> None:
    """Undo one publication (best effort: the error that made us undo it is the one reported)."""
    try:
        if earlier is None:
            target.unlink(missing_ok=True)
        else:
            os.replace(earlier, target)
    except OSError:
        pass


@contextmanager
def atomic_paths(*paths: str | Path) -> Iterator[list[Path]]:
    """Yield one temporary path per output; publish them all only if the block succeeds.

    An OSError on the way (making the temporaries, in the block, publishing) is re-raised as an
    :class:`OutputError` naming the output it concerns as the caller spelled it."""
    targets = [resolve_target(p) for p in paths]
    temporaries: list[Path] = []
    try:
        with ExitStack() as stack:
            for target in targets:
                temporaries.append(stack.enter_context(_temporary_for(target)))
            yield temporaries
            _publish_all(temporaries, targets)
    except OutputError:
        raise
    except Exception as err:
        cause = _os_error_behind(err)
        if cause is None:
            raise
        named = _output_named(cause, paths, targets, temporaries)
        raise OutputError(cause.errno, cause.strerror or str(cause), named) from err


def _os_error_behind(err: BaseException) -> OSError | None:
    """``err`` if it is an OSError, else the OSError it was raised while handling, if any: a writer that fails on a
    full disk may fail again while closing (matplotlib's PDF backend then raises ``zlib.error``), hiding the
    system's condition behind an error of its own."""
    seen = 0
    current: BaseException | None = err
    while current is not None and seen < 8:
        if isinstance(current, OSError):
            return current
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def _output_named(err: OSError, paths, targets: list[Path], temporaries: list[Path]) -> str:
    """The output (as the caller gave it) that ``err`` concerns: the one whose temporary or target it names, the
    only one, or all of them."""
    named = {str(err.filename), str(err.filename2)}
    for index, path in enumerate(paths):
        mine = {str(targets[index])} | ({str(temporaries[index])} if index < len(temporaries) else set())
        if mine & named:
            return str(path)
    if len(paths) == 1:
        return str(paths[0])
    if len(temporaries) < len(paths):  # the temporary of the first output not made yet failed
        return str(paths[len(temporaries)])
    return " and ".join(str(p) for p in paths)


@contextmanager
def writing_to(path: str | Path) -> Iterator[None]:
    """Name ``path`` (as the caller gave it) in the :class:`OutputError` of an OS error raised in the block, e.g.
    while one of several outputs of :func:`atomic_paths` is rendered into its temporary."""
    try:
        yield
    except OutputError:
        raise
    except Exception as err:
        cause = _os_error_behind(err)
        if cause is None:
            raise
        raise OutputError(cause.errno, cause.strerror or str(cause), str(path)) from err


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output, every byte accounted for; an OS error (a full disk behind a redirection) is
    an :class:`OutputError` naming standard output.  A reader that left (a broken pipe: ``pdp-audit ... --json - |
    head``) is no error: what it did not read goes nowhere (:func:`reader_left`) and the command goes on to its
    other outputs and its verdict's exit code (a refuted claim exits 1 whether or not its JSON was read).

    The bytes go to the file descriptor with ``os.write`` in a loop over short writes, not through Python's buffered
    ``sys.stdout``: its BufferedWriter, given a short write on a nearly full disk, kept the rest and lost the ENOSPC
    that followed, so a truncated JSON document exited 0.  A regular file behind the redirection is then fsync'ed:
    a file system that reports a full disk only when the data is flushed (NFS, quotas) reports it here.  Where
    standard output has no descriptor (captured by a test harness), the text goes through ``sys.stdout``."""
    if sys.stdout is None:  # started with standard output closed (`>&-`): Python then has no sys.stdout
        raise OutputError(errno.EBADF, "it is closed", STDOUT)
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is an OSError and a ValueError
        descriptor = None
    try:
        if descriptor is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        sys.stdout.flush()  # what was printed before comes first
        _write_all(descriptor, text.encode(sys.stdout.encoding or "utf-8", sys.stdout.errors or "strict"))
    except BrokenPipeError:
        reader_left()
    except OSError as err:
        raise OutputError(err.errno, err.strerror or str(err), STDOUT) from err


def print_out(text: str, file: TextIO | None = None) -> None:
    """``print(text, file=file)`` (standard output by default) where a reader that left is no error: the command's
    lines are read or not (``pdp-audit certify d.toml | head -1``, ``| true``), and its exit code stays its verdict's
    (:func:`reader_left`).  A line a command prints goes through here, so no print of it can end the command early."""
    out = sys.stdout if file is None else file
    try:
        print(text, file=out)
    except BrokenPipeError:
        reader_left(out)


def prints_to_standard_error() -> None:
    """What this process prints from now on -- the user's code's ``print``, a C library's writes -- goes to standard
    error: for the sandbox's child of a command whose JSON document goes to standard output (``--json -``), which
    its parent writes, alone (a program's print was mixed into the document).  Standard output's descriptor is made
    standard error's, after what it held was flushed; where either has no descriptor, nothing changes."""
    try:
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    except (AttributeError, ValueError, OSError):  # no stream, a closed one, or a harness's without a descriptor
        pass


def reader_left(stream: TextIO | None = None) -> None:
    """The reader of ``stream`` (standard output by default) has gone (a broken pipe): what is written to it from
    now on, and what its buffer still holds, goes to the null device, so neither a later write nor the flush at exit
    fails again."""
    try:
        descriptor = (sys.stdout if stream is None else stream).fileno()
    except (AttributeError, ValueError, OSError):  # no descriptor (a harness's stream): nothing flushes at exit
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


def _write_all(descriptor: int, data: bytes) -> None:
    """Every byte of ``data`` to ``descriptor`` (OSError if the system takes none), then fsync a regular file."""
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        if written <= 0:
            raise OSError(errno.EIO, "the system accepted no byte", STDOUT)
        view = view[written:]
    if stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.fsync(descriptor)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path for ``path``'s content; publish it only if the block succeeds."""
    with atomic_paths(path) as (tmp,):
        yield tmp


def json_text(document) -> str:
    """A JSON document as every report writes it: indented by 2, non-ASCII kept (ε, δ), NaN and infinities refused
    (a report never holds a number JSON cannot), one newline at the end."""
    import json

    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


class ReaderMayLeave(io.RawIOBase):
    """A standard stream's file descriptor where a reader that left is no error: a write that meets a broken pipe
    (``pdp-audit certify d.toml 2>&1 | head -1``, ``| true``) points the descriptor at the null device and counts
    as written, so the command goes on to its verdict's exit code instead of ending at whichever line met the pipe
    (a refuted claim exited 0 when its first line on standard error did).  Every other error is raised as it was."""

    def __init__(self, descriptor: int) -> None:
        super().__init__()
        self.descriptor = descriptor

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.descriptor

    def isatty(self) -> bool:
        return os.isatty(self.descriptor)

    def write(self, data) -> int:  # type: ignore[override]
        try:
            return os.write(self.descriptor, data)
        except BrokenPipeError:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self.descriptor)
            finally:
                os.close(null)
            return len(data)


def streams_whose_readers_may_leave() -> None:
    """Standard output and error rebuilt over :class:`ReaderMayLeave`, each as it was (encoding, errors, line
    buffering, write-through): what the command and the user's code print is written as before.  The command's
    process calls it first thing, and so does the sandbox's child, whose streams are its own."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            descriptor = stream.fileno()
            stream.flush()
        except (AttributeError, ValueError, OSError):  # no stream, a closed one, or a harness's without a descriptor
            continue
        buffered = io.BufferedWriter(ReaderMayLeave(descriptor))
        setattr(
            sys,
            name,
            io.TextIOWrapper(
                buffered,
                encoding=stream.encoding,
                errors=stream.errors,
                line_buffering=stream.line_buffering,
                write_through=stream.write_through,
            ),
        )
