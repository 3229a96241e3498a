"""Where a command writes: every output path checked before any work, against the command's own inputs too."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from pdp_audit.verify.inputs.validation import InputError


def check_output_path(path: str | None, option: str) -> None:
    """InputError naming ``option`` unless a report can be written at ``path``; checked before computing.

    ``None`` and ``-`` (stdout) pass.  A directory, a path under a file, or a folder where no file can be
    created (tried for real: permissions alone do not tell, e.g. ``/proc`` for root) is refused.  An
    existing FIFO or character device passes: the report is written through it.
    """
    if path == "-" and sys.stdout is None:  # `>&-`: refused before the work, not after it
        raise InputError(f"{option}: standard output ('-') is closed; give a file path")
    if path is None or path == "-":
        return
    try:
        _check_writable(path, option)
    except OSError as err:  # e.g. a name longer than the file system allows (stat raises on Python 3.11)
        raise InputError(f"{option}: cannot write {path!r}: {err.strerror or err}") from None


def _check_writable(path: str, option: str) -> None:
    try:
        os.stat(path)
    except OSError as err:  # a new file (or a link to one) is fine; a loop of links is found only by stat
        if err.errno == errno.ELOOP:
            raise InputError(f"{option}: {path!r} is a loop of symbolic links; give a file path") from None
        if err.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise  # a permission, a name too long: named by check_output_path
    target = Path(os.path.realpath(path))
    if target.is_dir():
        raise InputError(f"{option}: {path!r} is a directory; give a file path")
    if target.exists() and not target.is_file():
        return  # a FIFO or a device: written through, never replaced
    folder = target.parent
    if not folder.exists():  # folders are the user's to make: a typo must not create a tree of them
        raise InputError(f"{option}: cannot write {path!r}: the folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise InputError(f"{option}: cannot create {path!r}: {str(folder)!r} is not a directory")
    import tempfile  # where an output is checked: no command's parser needs it

    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        kind = _virtual_file_system(folder)
        if kind is not None:  # /proc says "No such file or directory" for a file it will not create
            raise InputError(
                f"{option}: cannot write {path!r}: {str(folder)!r} is on the kernel's {kind} file system, where no "
                "report can be created; give a path on a disk"
            ) from None
        raise InputError(f"{option}: cannot write {path!r}: {err.strerror or err}") from None


#: File systems of the kernel's own, where a report (a new file beside the target, renamed over it) cannot be made.
_VIRTUAL = frozenset({"proc", "sysfs", "cgroup", "cgroup2", "debugfs", "securityfs", "configfs", "tracefs"})


def _virtual_file_system(folder: Path) -> str | None:
    """The type of the kernel file system ``folder`` is on (``proc``, ``sysfs``, …), or None (a disk, or unknown):
    the mount whose point is the longest prefix of the folder, from ``/proc/self/mounts``."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            table = [line.split()[1:3] for line in mounts if len(line.split()) > 2]
    except OSError:
        return None
    folder_text = str(folder).rstrip("/") + "/"
    best = max(
        ((point, kind) for point, kind in table if folder_text.startswith(point.rstrip("/") + "/")),
        key=lambda entry: len(entry[0]),
        default=None,
    )
    return best[1] if best is not None and best[1] in _VIRTUAL else None


def file_identity(path: str | os.PathLike) -> tuple:
    """What makes two paths the same file: device and inode when it exists (hard links, symbolic links, any
    spelling), else the path with every symbolic link followed."""
    try:
        info = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    return ("inode", info.st_dev, info.st_ino)


#: The files SQLite and the sweep's lock keep beside a store (its write-ahead log, shared-memory index, rollback
#: journal, writer's lock): inputs of every command that reads or writes the store, never outputs.
STORE_COMPANIONS = {
    "-wal": "the write-ahead log of the store",
    "-shm": "the shared-memory index of the store",
    "-journal": "the rollback journal of the store",
    ".lock": "the lock file of the store",
}


def store_inputs(store: str | os.PathLike) -> dict[str, str]:
    """The store and the files beside it that hold or guard its content, as inputs for :func:`check_outputs`.

    Each companion is named after the path as given and after the file it resolves to (SQLite and the lock may use
    either), so a symbolic link to the store, ``./`` or an absolute path all name the same files; an existing
    companion is also found through a hard link (by device and inode, in :func:`file_identity`)."""
    inputs = {"the store itself": str(store)}
    resolved, spelled = os.path.realpath(store), os.path.abspath(store)
    for suffix, what in STORE_COMPANIONS.items():
        inputs[what] = resolved + suffix
        if spelled != resolved:
            inputs[f"{what} (named after the link {os.path.basename(spelled)!r})"] = spelled + suffix
    return inputs


def check_outputs(
    outputs: Mapping[str, str | None],
    inputs: Mapping[str, str | os.PathLike | None] | None = None,
    pdfs: tuple[str, ...] = ("--report",),
) -> None:
    """Every output a command will write, checked before any work: writable (:func:`check_output_path`), no two
    the same file (or both standard output, ``-``), none the same file as one of the command's inputs, none the file
    of a module this process has imported (:func:`loaded_module_files`: the user's module, a helper it imported, a
    package's ``__init__.py``).  A command that imports the user's code calls it again after the import, before the
    audit: a module the import loaded is known only then.

    ``outputs`` and ``inputs`` map the option (or the input's description, such as ``"the deployment file"``) to
    the path given; None is not given.  ``pdfs``: options that write a PDF, which standard output cannot take.
    One-line InputError naming the option and what it would overwrite.
    """
    seen: dict[tuple, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        if path == "-" and option in pdfs:
            raise InputError(f"{option}: a PDF cannot go to standard output ('-'); give a file path, or none")
        check_output_path(path, option)
        identity = ("stdout",) if path == "-" else file_identity(path)
        if identity in seen:
            raise InputError(f"{option}: {path!r} is also the path of {seen[identity]}; give each output its own path")
        seen[identity] = option
    for what, input_path in (inputs or {}).items():
        if input_path is None:
            continue
        identity = file_identity(input_path)
        if identity in seen:
            option = seen[identity]
            given = outputs[option]
            raise InputError(f"{option}: {given!r} is {what} this command reads; it would be overwritten")
    modules = loaded_module_files() if seen.keys() - {("stdout",)} else {}
    read = files_read() if seen.keys() - {("stdout",)} else {}
    for identity, option in seen.items():
        given = outputs[option]
        if identity in modules:
            raise InputError(
                f"{option}: {given!r} is the file of the module {modules[identity]!r}, which this command imported; "
                "it would be overwritten"
            )
        if identity in read:
            raise InputError(
                f"{option}: {given!r} is a file this command read (the user's code, a test or a parameter opened "
                "it); it would be overwritten"
            )


def loaded_module_files() -> dict[tuple, str]:
    """The :func:`file_identity` of the source file of every module imported so far, mapped to the module's name."""
    files: dict[tuple, str] = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            files.setdefault(file_identity(path), name)
    return files


# --- the files a command read --------------------------------------------------------------------------------------
#: Absolute paths of the files opened for reading since :func:`record_reads`, as the audit hook saw them opened.
_READS: set[str] = set()
_RECORDING = {"on": False, "hooked": False}


def record_reads() -> None:
    """Start (again, forgetting earlier ones) recording every file this process opens for reading.

    A command's inputs are more than the paths it names: the user's factory may read a CSV named by any parameter
    (``source = "people.csv"``), a test may read a fixture file; an output written over one of them destroys it.
    Python raises an ``open`` audit event (PEP 578) for every ``open()``, ``os.open``, ``Path.read_bytes``,
    ``numpy.loadtxt``/``genfromtxt``/``load`` and ``pandas.read_csv``; the hook notes the read-only ones.  Files
    opened by C code without Python's ``open`` (SQLite's own files) are not seen; those are named inputs already."""
    if not _RECORDING["hooked"]:
        sys.addaudithook(_on_audit_event)
        _RECORDING["hooked"] = True
    _READS.clear()
    _RECORDING["on"] = True


def _on_audit_event(event: str, args: tuple) -> None:
    if event != "open" or not _RECORDING["on"]:
        return
    try:  # never let the hook break the code that opens a file
        path, mode, flags = args
        if isinstance(path, int):
            return
        if isinstance(mode, str):  # open() / io.open: the mode string ("r", "rb", "r+": the content is read)
            reading = "r" in mode
        else:  # os.open: read-only, or read-write of a file neither made (mkstemp, a lock) nor emptied here
            access = flags & os.O_ACCMODE if isinstance(flags, int) else -1
            reading = access == os.O_RDONLY or (access == os.O_RDWR and not flags & (os.O_TRUNC | os.O_CREAT))
        if reading:
            _READS.add(os.path.abspath(os.fsdecode(path)))
    except Exception:  # noqa: BLE001 - a path that cannot be decoded is no file a report could be written over
        pass


def add_reads(paths) -> None:
    """Add files read elsewhere (the xdist workers of a pytest session) to :func:`files_read`."""
    _READS.update(str(path) for path in paths)


def read_paths() -> list[str]:
    """The absolute paths recorded since :func:`record_reads`, sorted."""
    return sorted(list(_READS))


def files_read() -> dict[tuple, str]:
    """The :func:`file_identity` of every regular file opened for reading since :func:`record_reads`, mapped to its
    path (a device or FIFO read, such as ``/dev/urandom``, is no file a report replaces)."""
    found: dict[tuple, str] = {}
    for path in read_paths():
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.setdefault(("inode", info.st_dev, info.st_ino), path)
    return found
