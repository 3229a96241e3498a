"""The fingerprints of the code a certificate certifies: the factory's module (hashed from the bytes executed, in
:func:`pdp_audit.verify.evidence.user_code.load_factory`) and every other module the audit loaded from the deployment's
folder -- the helpers a user's mechanism is written across.  Without them, editing a helper the factory imports would
give a certificate with the same hashes for different code.

A helper is hashed when it is first seen loaded (after the factory's module ran, and again after the audit, for
modules imported lazily), so a file rewritten later in the run is recorded as it was when imported.  Modules under a
``site-packages`` or ``dist-packages`` folder (a virtual environment kept beside the deployment) are installed
libraries, not the user's mechanism, and are left out, as are compiled extension modules (no source to hash) and
pdp-audit's own modules.  A helper that cannot be read when it is first seen is refused: its code cannot be named.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Collection, Mapping
from importlib.machinery import PathFinder
from pathlib import Path

from pdp_audit.verify.inputs.validation import InputError

#: Folders whose modules are installed libraries, not part of the mechanism.
INSTALLED = frozenset({"site-packages", "dist-packages"})


class HelperModules:
    """The modules loaded from ``folder`` other than the factory's ``module_name``, each hashed at first sight."""

    def __init__(self, folder: Path, module_name: str):
        self.folder = folder.resolve()
        self.module_name = module_name
        self.seen: dict[str, str] = {}  # path relative to the folder -> sha256 of its bytes when first seen
        # a module's file resolved once per audit, not at every pass over sys.modules (thousands of entries in a
        # host such as pytest; each resolution is a system call per path component); compared as strings, since
        # a resolved path is absolute and normal (pathlib's parsing of thousands of paths cost more than the calls)
        self._resolved: dict[str, str | None] = {}
        self._folders: dict[str, str] = {}  # a folder of module files -> the folder resolved
        self._inside = os.path.join(str(self.folder), "")  # the prefix of a path inside the folder

    def _resolve(self, origin: str) -> str | None:
        """``Path(origin).resolve()`` as a string, or None where it cannot be resolved.  A file that is no symbolic
        link resolves to its folder resolved and its own name: each folder of module files (a package's, the
        standard library's) is resolved once, and each file costs one ``lstat``."""
        try:
            head, tail = os.path.split(origin)
            if not os.path.isabs(head) or tail in ("", ".", "..") or os.path.islink(origin):
                return str(Path(origin).resolve())
            if head not in self._folders:
                self._folders[head] = str(Path(head).resolve())
            return os.path.join(self._folders[head], tail)
        except OSError:
            return None

    def _relative(self, origin: str) -> tuple[Path, Path] | None:
        """``origin`` resolved and relative to the folder, or None when it lies elsewhere or cannot be resolved."""
        if origin not in self._resolved:
            self._resolved[origin] = self._resolve(origin)
        resolved = self._resolved[origin]
        if resolved is None or not (resolved.startswith(self._inside) or resolved == str(self.folder)):
            return None
        path = Path(resolved)
        return path, path.relative_to(self.folder)

    def update(self) -> None:
        """Hash every helper module loaded now that was not seen before."""
        for name, module in list(sys.modules.items()):
            origin = getattr(module, "__file__", None)
            ours = name == "pdp_audit" or name.startswith("pdp_audit.")  # an editable install beside the file
            if ours or name == self.module_name or not isinstance(origin, str) or not origin.endswith(".py"):
                continue
            found = self._relative(origin)
            if found is None:  # elsewhere (the standard library, installed packages, ours)
                continue
            path, relative = found
            if INSTALLED.intersection(relative.parts) or relative.as_posix() in self.seen:
                continue
            try:
                self.seen[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as err:  # removed since it was imported: code a certificate cannot name
                raise InputError(
                    f"the mechanism's helper module {relative.as_posix()!r} cannot be read to fingerprint it "
                    f"({err.strerror or type(err).__name__})"
                ) from None

    def modules(self) -> list:
        """The factory's module and every helper seen, as loaded now."""
        loaded = []
        for module in list(sys.modules.values()):
            origin = getattr(module, "__file__", None)
            if not isinstance(origin, str):
                continue
            found = self._relative(origin)
            if found is None:
                continue
            relative = found[1].as_posix()
            if relative in self.seen or getattr(module, "__name__", "") == self.module_name:
                loaded.append(module)
        return loaded

    def records(self) -> list[dict[str, str]]:
        """``[{"name": path relative to the folder, "sha256": ...}]``, sorted by name."""
        return [{"name": name, "sha256": digest} for name, digest in sorted(self.seen.items())]


def libraries(modules: list, objects: tuple = (), packages: Collection[str] = ()) -> list[dict[str, str]]:
    """The installed distributions the mechanism is written on: those providing the top-level packages that
    ``modules`` (the factory's module and its helpers) refer to -- a module imported by name, or any global whose
    ``__module__`` names one (``from diffprivlib.mechanisms import Laplace``) -- and the classes of ``objects`` (the
    pair, along its MRO).  The standard library, pdp-audit and the core dependencies already listed under
    ``versions`` are left out.  Each as ``{"name", "version", "record_sha256"}``: the SHA-256 of the distribution's
    RECORD, which lists every installed file with its own hash (so an upgrade, or a file changed in place and
    recorded, changes it; "" where the distribution has no RECORD).  A library upgrade that changes a sampler
    then changes the certificate.  ``packages``: top-level packages known used besides (a library a program imports
    in its body and whose primitives it called).  Sorted by name."""
    tops: set[str] = set(packages)
    for module in modules:
        for value in list(vars(module).values()):
            name = value.__name__ if isinstance(value, type(sys)) else getattr(value, "__module__", None)
            if isinstance(name, str) and name:
                tops.add(name.partition(".")[0])
    for obj in objects:
        tops.update(c.__module__.partition(".")[0] for c in type(obj).__mro__)
    found = {}
    providers = _providers()  # one scan of every installed distribution's files, not one per top-level name
    for dist_name in sorted({d for top in tops for d in providers.get(top, ())}):
        if dist_name.lower().replace("_", "-") in LISTED_ELSEWHERE:
            continue
        found[dist_name] = _record(dist_name)
    return [found[name] for name in sorted(found, key=str.lower)]


#: Distributions a certificate already names (pdp-audit's own version, and ``versions``).
LISTED_ELSEWHERE = frozenset({"pdp-audit", "numpy", "scipy", "statsmodels", "matplotlib", "mpmath"})


#: Each ``sys.path`` entry's last scan: the entry's modification time then, and its top-level names mapped to the
#: distributions the entry holds that provide them.
_SCANNED: dict[str, tuple[int | None, dict[str, set[str]]]] = {}


def _providers() -> Mapping[str, Collection[str]]:
    """Every top-level package name mapped to the installed distributions providing it, as
    ``importlib.metadata.packages_distributions`` maps them (tests/test_certify_own.py compares the two).

    Its scan of every distribution's files is made per ``sys.path`` entry and kept while the entry's modification
    time is unchanged: installing, upgrading or removing a distribution adds or removes its ``*.dist-info`` folder in
    an entry, which changes that time (the invalidation importlib's path finders use for imports).  A process that
    certifies many deployments (a notebook, a test suite), each adding its own folder to ``sys.path``, scans the
    site-packages once, not once a certificate.  Where distributions are found by other means than the path (a
    finder of its own on ``sys.meta_path``) or this Python names the rule otherwise, the whole scan is made."""
    from importlib import metadata

    rule = getattr(metadata, "_top_level_declared", None), getattr(metadata, "_top_level_inferred", None)
    others = [f for f in sys.meta_path if f is not PathFinder and hasattr(f, "find_distributions")]
    if others or None in rule:  # as sets, the same shape as the scan's (it maps to lists)
        return {top: set(names) for top, names in metadata.packages_distributions().items()}
    providers: dict[str, set[str]] = {}
    for entry in sys.path:
        for top, names in _entry_providers(entry, rule).items():
            providers.setdefault(top, set()).update(names)
    return providers


def _entry_providers(entry: str, rule: tuple) -> dict[str, set[str]]:
    """One ``sys.path`` entry's part of :func:`_providers`, scanned again where its modification time changed."""
    from importlib import metadata

    where = os.path.abspath(entry or os.curdir)
    try:
        stamp: int | None = os.stat(where).st_mtime_ns
    except OSError:  # an entry that does not exist (yet) holds no distribution
        stamp = None
    if where not in _SCANNED or _SCANNED[where][0] != stamp:
        declared, inferred = rule
        found: dict[str, set[str]] = {}
        for dist in metadata.distributions(path=[where]):
            for top in declared(dist) or inferred(dist):
                found.setdefault(top, set()).add(dist.metadata["Name"])
        _SCANNED[where] = (stamp, found)
    return _SCANNED[where][1]


def _record(name: str) -> dict[str, str]:
    from importlib import metadata

    dist = metadata.distribution(name)
    record = dist.read_text("RECORD") or ""
    digest = hashlib.sha256(record.encode("utf-8")).hexdigest() if record else ""
    return {"name": dist.metadata["Name"] or name, "version": dist.version, "record_sha256": digest}
