"""Argument types and helpers shared by the CLI commands."""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from pdp_audit.mechanisms.validation import InputError


def count(text: str) -> int:
    """A positive integer, also written like 1e6."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value != int(value):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(value)


def probability(text: str) -> float:
    """A number in the open interval (0, 1)."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text}")
    return value


#: The most worker processes a run may ask for (each is a process with its own memory).
MAX_WORKERS = 256


@contextmanager
def executor_for(workers: int):
    """None (serial) for one worker, else a process pool whose workers die with this process; results are
    identical either way.  On an error or Ctrl-C the blocks not yet started are cancelled."""
    if not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be in [1, {MAX_WORKERS}], got {workers}")
    if workers == 1:
        yield None
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_block_worker_init)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def exit_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone (killed with -9, SIGTERM or SIGHUP,
    so that nothing would collect the work): a thread checks the parent twice a second."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="pdp-audit-parent-watch", daemon=True).start()


def _block_worker_init() -> None:
    """A worker of ``--workers N``: one BLAS thread (one worker per core already), and gone with its parent."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    exit_with_parent()


def check_output_path(path: str | None, option: str) -> None:
    """InputError naming ``option`` unless a report can be written at ``path``; checked before computing.

    ``None`` and ``-`` (stdout) pass.  A directory, a path under a file, or a folder where no file can be
    created (tried for real: permissions alone do not tell, e.g. ``/proc`` for root) is refused.  An
    existing FIFO or character device passes: the report is written through it.
    """
    if path is None or path == "-":
        return
    try:
        _check_writable(path, option)
    except OSError as err:  # e.g. a name longer than the file system allows (stat raises on Python 3.11)
        raise InputError(f"{option}: cannot write {path!r}: {err.strerror or err}") from None


def _check_writable(path: str, option: str) -> None:
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
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise InputError(f"{option}: cannot write {path!r}: {err.strerror or err}") from None


def file_identity(path: str | os.PathLike) -> tuple:
    """What makes two paths the same file: device and inode when it exists (hard links, symbolic links, any
    spelling), else the path with every symbolic link followed."""
    try:
        info = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    return ("inode", info.st_dev, info.st_ino)


def check_outputs(
    outputs: dict[str, str | None],
    inputs: dict[str, str | os.PathLike | None] | None = None,
    pdfs: tuple[str, ...] = ("--report",),
) -> None:
    """Every output a command will write, checked before any work: writable (:func:`check_output_path`), no two
    the same file (or both standard output, ``-``), none the same file as one of the command's inputs.

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
    for what, path in (inputs or {}).items():
        if path is None:
            continue
        identity = file_identity(path)
        if identity in seen:
            option = seen[identity]
            given = outputs[option]
            raise InputError(f"{option}: {given!r} is {what} this command reads; it would be overwritten")
