"""The commit the running code was built from, for every report, certificate, ``--version`` and sweep store.

A release reviewer reads "pdp-audit 0.1.0 (git 1a2b3c4d5e6f)": the version alone does not say which code made a
certificate.  The commit is found, in order:

1. **a git checkout** (an editable install: the folder holding ``reports/`` is a work tree's top): asked of git
   each process, so it follows the checkout;
2. **the wheel's own record**, ``pdp_audit/reports/_build_commit.py``, written by the build (``setup.py``'s
   ``build_py``, which calls :func:`git_commit` on the tree it builds from) and never present in a source tree;
3. otherwise "commit unknown" (a wheel built from an sdist, or without git): never a guess.

``+dirty`` follows the commit when a file the wheel is built from (:data:`PACKAGED`) differs from it, untracked
files in the package folders included.  The version itself stays the project's (``0.1.0``): the commit is
provenance beside it, not a PEP 440 local version.  Standard library only: the build loads this file by its path.
"""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata
from pathlib import Path

#: What the wheel is built from, relative to the checkout: a change to any of these makes the build "+dirty".
PACKAGED = (
    "src",
    "mechanisms",
    "audits",
    "verify",
    "reports",
    "examples",
    "pyproject.toml",
    "setup.py",
    "README.md",
    "LICENSE",
)
UNKNOWN = "commit unknown"


def git_commit(root: str | Path) -> str | None:
    """``git <12 hex digits>`` of the checkout whose top is ``root`` (``+dirty`` after it when a packaged file
    differs from that commit); None when ``root`` is not a work tree's top (an sdist unpacked inside another
    repository is not that repository's commit) or git cannot be run."""
    root = Path(root).resolve()
    if not (root / ".git").exists():  # a folder (a clone) or a file (a worktree)
        return None

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    top, head = git("rev-parse", "--show-toplevel"), git("rev-parse", "--short=12", "HEAD")
    if top is None or head is None or Path(top.strip()).resolve() != root:
        return None
    status = git("status", "--porcelain", "--untracked-files=normal", "--", *PACKAGED)
    if status is None:
        return None
    return f"git {head.strip()}{'+dirty' if status.strip() else ''}"


@functools.lru_cache(maxsize=1)
def code_commit() -> str:
    """The running code's commit: ``git 1a2b3c4d5e6f``, ``git 1a2b3c4d5e6f+dirty`` or ``commit unknown``."""
    live = git_commit(Path(__file__).resolve().parent.parent)  # a checkout's top; site-packages/pdp_audit in a wheel
    if live is not None:
        return live
    try:
        from pdp_audit.reports._build_commit import COMMIT  # deferred: written by the build; absent in a source tree
    except ImportError:
        return UNKNOWN
    return COMMIT if isinstance(COMMIT, str) and COMMIT else UNKNOWN


def package_version() -> str:
    """The installed pdp-audit version (``0+unknown`` when run from a source tree without installing)."""
    try:
        return metadata.version("pdp-audit")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def code_version() -> str:
    """The version and the commit it was built from, as every report, certificate and ``--version`` says it:
    ``0.1.0 (git 1a2b3c4d5e6f)``, ``0.1.0 (git 1a2b3c4d5e6f+dirty)`` or ``0.1.0 (commit unknown)``
    (:mod:`pdp_audit.reports.code_commit`)."""
    return f"{package_version()} ({code_commit()})"
