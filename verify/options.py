"""Argument types and helpers shared by the CLI commands."""

from __future__ import annotations

import argparse
import math
import os
import tempfile
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
    """None (serial) for one worker, else a process pool; results are identical either way."""
    if not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be in [1, {MAX_WORKERS}], got {workers}")
    if workers == 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield pool


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
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{option}: cannot create {path!r}: {str(folder)!r} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise InputError(f"{option}: cannot write {path!r}: {err.strerror or err}") from None
