"""Python's library and installed packages: code that is not the user's own.

Two questions ask it.  Where a user's program raised, the line named is the deepest frame of *their* code, not
pandas' (:mod:`pdp_audit.audits.program.faults`).  And a deployment names *its* code: ``program = "numpy:sum"``
or ``"os:getcwd"`` names a module this process has already loaded from the library, which a certificate cannot
execute again from the bytes it hashes (numpy's ``__init__`` run a second time over the loaded numpy recursed
until Python stopped it: exit 4), so it is refused (:func:`pdp_audit.verify.evidence.user_code.load_factory`).
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig

#: The folders of Python's library and of installed packages: the interpreter's, the user's site folder, and any
#: folder on the path named as pip installs into.
LIBRARIES = tuple(
    os.path.normcase(os.path.realpath(path))
    for path in {
        *(sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")),
        site.getusersitepackages(),
        *(entry for entry in sys.path if os.path.basename(entry) in ("site-packages", "dist-packages")),
    }
)


def in_library(filename: str) -> bool:
    """Whether ``filename`` is a file of Python's library or of an installed package (``<frozen …>``, ``<string>``:
    not a file of the user's either)."""
    if filename.startswith("<"):
        return True
    path = os.path.normcase(os.path.realpath(filename))
    return any(path == root or path.startswith(root + os.sep) for root in LIBRARIES)
