"""The arrays scikit-learn's loaders return for the shipped data sets, kept in a file, so that a command reading one
does not import scikit-learn.

The real data sets are the copies bundled with scikit-learn (``load_diabetes``, …).  Importing scikit-learn to call
its loader costs 0.4-0.6 CPU seconds (it imports pandas too): most of what ``pdp-audit run laplace`` spends before
its audit, for 442 x 10 numbers.  The first load calls the loader and writes what it returned (features, target,
feature names) to ``<cache>/pdp-audit/<loader>-<key>.npy`` (``<cache>``: ``$XDG_CACHE_HOME``, else ``~/.cache``);
later loads read that file.  ``np.save`` keeps every bit of an array, so a command computes the same numbers either
way.  The file is keyed by the versions of scikit-learn and numpy (read from the installed packages' metadata,
without importing scikit-learn): a file of other versions, a missing, truncated or otherwise unreadable file is a
miss, and the loader runs again.  A file is written to a temporary file of the same folder and renamed over its
name, so another process reads a whole file or none; the last :data:`OTHERS_KEPT` files of other versions stay
(environments of other versions share the folder), older ones are removed.  A folder that cannot be written leaves
the loader's arrays unstored, silently (the command does not depend on the store).  Like any cache of the user's,
the file is trusted: whoever can write it can change the data a later command reads (the data's SHA-256 in a
certificate shows it)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Callable

import numpy as np

#: What a loader returns: features, target, feature names (as scikit-learn's ``Bunch`` holds them)
Arrays = tuple[np.ndarray, np.ndarray, tuple[str, ...]]
#: A stored file is four arrays saved one after another: its key, the features, the target, the names
STORED = 4


def load(loader_name: str, loader: Callable[[], Arrays]) -> Arrays:
    """``loader()``'s arrays (``loader_name``: scikit-learn's name of it, ``load_diabetes``), read from the store
    where it holds them for the installed versions, else from ``loader()`` and then stored."""
    key = _key(loader_name)
    path = _path(loader_name, key)
    stored = _read(path, key) if path is not None else None
    if stored is not None:
        return stored
    arrays = loader()
    if path is not None:
        _write(path, key, arrays)
    return arrays


def _key(loader_name: str) -> str:
    """The loader and the versions its arrays depend on, as one line (``?`` for a version the metadata lacks)."""
    return f"{loader_name} scikit-learn {_version('scikit-learn')} numpy {np.__version__}"


def _version(distribution: str) -> str:
    from importlib import metadata  # on use: it imports email and zipfile, which no parser of a command needs

    try:
        return metadata.version(distribution)
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return "?"


def _path(loader_name: str, key: str) -> Path | None:
    """The file of ``key``, or None where no home folder is known."""
    try:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except (KeyError, RuntimeError):  # Path.home() with neither HOME nor a password entry
        return None
    import hashlib  # on use, as tempfile: no command's parser needs either

    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return root / "pdp-audit" / f"{loader_name}-{digest}.npy"


def _read(path: Path, key: str) -> Arrays | None:
    """The arrays stored at ``path`` under ``key``; None for a missing, unreadable or foreign file."""
    try:
        with open(path, "rb") as file:
            arrays = [np.load(file, allow_pickle=False) for _ in range(STORED)]
    except (OSError, ValueError, EOFError):  # missing, truncated, not .npy, or an object array (pickle refused)
        return None
    stored_key, features, target, names = arrays
    if stored_key.shape != () or str(stored_key) != key or names.ndim != 1:
        return None
    return features, target, tuple(str(name) for name in names)


def _write(path: Path, key: str, arrays: Arrays) -> None:
    """``arrays`` stored at ``path`` in one rename, and the loader's files of other versions removed; any OSError
    leaves the store as it was (but for those removals).  Only C-ordered arrays are stored: a file gives back C-ordered
    arrays, and numpy may reduce an array of another layout in another order (other bits)."""
    features, target, names = arrays
    if not (features.flags.c_contiguous and target.flags.c_contiguous):
        return
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", suffix=".tmp", delete=False) as file:
            tmp = file.name
            for array in (np.array(key), features, target, np.array(names, dtype=str)):
                np.save(file, array, allow_pickle=False)
        os.replace(tmp, path)
        tmp = None
        _remove_others(path)
    except OSError:
        pass  # the store is an optimisation: the command has its arrays
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


#: Files of other versions kept for each data set: environments with other scikit-learn or numpy versions (a
#: project's virtual environment beside another) share the folder without evicting each other at every command
OTHERS_KEPT = 3


def _remove_others(path: Path) -> None:
    """The loader's files of other versions but the :data:`OTHERS_KEPT` last written (upgrades left them)."""
    loader_name = path.name.rsplit("-", 1)[0]
    others: list = []
    for other in path.parent.glob(f"{loader_name}-*.npy"):
        if other.name != path.name and other.name.rsplit("-", 1)[0] == loader_name:
            with contextlib.suppress(OSError):
                others.append((other.stat().st_mtime, other.name, other))
    for _, _, other in sorted(others, reverse=True)[OTHERS_KEPT:]:
        with contextlib.suppress(OSError):
            other.unlink()
