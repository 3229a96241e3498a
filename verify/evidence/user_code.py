"""The user's code named ``MODULE:FACTORY``: found beside a deployment file (or installed), imported from the bytes
it hashes, and called behind the boundary -- what a deployment of a user's mechanism, a sweep cell's ``factory`` and
every audit of a user's code share.

The folder is first on ``sys.path`` while the audit runs (:func:`importable`), so a sampler may import a module
beside it lazily; the module's source bytes are read once, hashed (SHA-256) and executed: the code certified is the
code hashed.  A module that cannot be imported (or raises while imported), a missing factory, or a factory that
raises or calls ``sys.exit`` is one :class:`~pdp_audit.verify.inputs.validation.InputError` naming the user's function
(exit 2), before any long computation.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import importlib.util
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from pdp_audit.mechanisms.base import user_error
from pdp_audit.verify.core.libraries import in_library
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError, quoted


def is_own(mechanism: str) -> bool:
    """Whether a deployment's ``mechanism`` names a user's factory (``module:factory``) rather than an audit."""
    return ":" in mechanism


def check_target(where: str, mechanism: str) -> None:
    """``module:factory`` with a dotted module name and a (dotted) attribute; one-line InputError otherwise."""
    module, _, attr = mechanism.partition(":")
    names = module.split(".") + attr.split(".")
    if not all(name.isidentifier() for name in names):
        raise InputError(
            f"{where}: mechanism {quoted(mechanism)} must be an audit of `pdp-audit list` or MODULE:FACTORY "
            '(e.g. "histogram:make", the function make of histogram.py beside the deployment file)'
        )


@contextmanager
def importable(folder: Path) -> Iterator[str]:
    """``folder`` first on ``sys.path`` inside the block, removed afterwards."""
    entry = str(folder.resolve())
    sys.path.insert(0, entry)
    try:
        yield entry
    finally:
        if entry in sys.path:
            sys.path.remove(entry)


def find_module(folder: Path, module_name: str) -> Any:
    """The module's spec: a top-level module beside the deployment file first (never one of the same name imported
    earlier from elsewhere), else as ``import`` finds it (importing its parent packages).  Call inside
    :func:`importable`."""
    if "." not in module_name:
        spec = importlib.machinery.PathFinder.find_spec(module_name, [str(folder.resolve())])
        if spec is not None:
            return spec
    return importlib.util.find_spec(module_name)


def module_file(folder: Path, mechanism: str) -> str | None:
    """The source file of the mechanism's module as :func:`load_factory` finds it (None if none is found; a module
    already loaded from a file, such as Python's frozen ``os``, by that file)."""
    module_name = mechanism.partition(":")[0]
    with importable(folder):
        try:
            spec = find_module(folder, module_name)
        except BaseException as err:  # a parent package that fails to import: load_factory says why
            if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
                raise
            return None
    if spec is not None and spec.has_location:
        return spec.origin
    file = getattr(sys.modules.get(module_name), "__file__", None)
    return file if isinstance(file, str) else None


def loaded_library(folder: Path, module_name: str) -> str | None:
    """Where ``module_name`` comes from, in words, when this process has already loaded it from Python's library or an
    installed package (``os``, ``numpy``, ``math``) and ``folder`` has no module of that name: a module the user's
    deployment cannot name as its own code (:mod:`pdp_audit.verify.core.libraries`); None otherwise."""
    module = sys.modules.get(module_name)
    if module is None:
        return None
    with importable(folder):
        spec = find_module(folder, module_name)
    file = getattr(module, "__file__", None)
    if spec is not None and spec.has_location and spec.origin != file:  # the folder's own module of that name
        return None
    if not isinstance(file, str):
        return "built into Python"
    return f"loaded from {file}" if in_library(file) else None


def check_factory(where: str, folder: Path, mechanism: str) -> None:
    """``MODULE:FACTORY`` found without running the module (a sweep's cells, before its store is made): the module's
    file where :func:`load_factory` would find it, and FACTORY's first name bound at the top level of its source (a
    ``def``, a ``class``, an assignment, an import; inside an ``if`` or a ``try`` too).  A module that binds names
    in ways its source does not show (``from m import *``, a module ``__getattr__``, ``globals()``, an extension
    module) is left to the import.  One-line :class:`InputError` naming ``where`` otherwise."""
    module_name, _, attr = mechanism.partition(":")
    origin = module_file(folder, mechanism)
    if origin is None:
        raise InputError(
            f"{where}: no module {module_name!r} in the current folder or installed "
            f"(expected {module_name.replace('.', '/')}.py in {str(folder)!r})"
        )
    if not origin.endswith(".py"):  # an extension module: its names are known once it is loaded
        return
    try:
        tree = ast.parse(Path(origin).read_bytes(), origin)
    except (SyntaxError, ValueError, OSError):  # the import reports it, in its words
        return
    first = attr.split(".")[0]
    names = _top_level_names(tree.body)
    if first not in names and "*" not in names and "__getattr__" not in names and "globals" not in names:
        raise InputError(f"{where}: module {module_name!r} ({origin}) defines no {first!r} at its top level")


def _top_level_names(body: list[ast.stmt]) -> set[str]:
    """The names the statements of a module's top level may bind (``*`` for a star import; ``globals`` where the
    module calls ``globals`` or ``setattr``: it may bind any name).  Inside an ``if``, a ``try`` or a loop every
    binding counts, a function's own names too: the check may let a missing name through (the import then says
    so), never refuse one that is there."""
    binders = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    names: set[str] = set()
    for node in body:
        for inner in [node] if isinstance(node, binders) else ast.walk(node):
            if isinstance(inner, binders):
                names.add(inner.name)
            elif isinstance(inner, (ast.Import, ast.ImportFrom)):
                names.update((alias.asname or alias.name).split(".")[0] for alias in inner.names)
            elif isinstance(inner, ast.Name):
                if isinstance(inner.ctx, ast.Store):
                    names.add(inner.id)
                elif inner.id in ("globals", "setattr"):
                    names.add("globals")
    return names


@dataclass(frozen=True)
class Factory:
    """The user's factory, its qualified name (``module.function``) and its module's file name and SHA-256."""

    function: Any
    qualname: str
    file_name: str
    sha256: str


def load_factory(where: str, folder: Path, mechanism: str, key: str = "mechanism") -> Factory:
    """Import the module of ``module:factory`` from ``folder`` (or the installed ones) and find the factory; errors
    name ``key``, the deployment file's key that names it (``program`` for a DP program)."""
    module_name, _, attr = mechanism.partition(":")
    library = loaded_library(folder, module_name)
    if library is not None:  # executed again from its bytes over the loaded one, numpy recursed (exit 4)
        raise InputError(f"{where}: {key}: {not_the_users(module_name, library)}")
    with importable(folder):
        try:
            spec = find_module(folder, module_name)
        except BaseException as err:
            if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
                raise
            raise InputError(f"{where}: {key}: importing {module_name!r} raised {user_error(err)}") from None
        if spec is None or not spec.has_location or spec.origin is None:
            raise InputError(
                f"{where}: {key}: no module {module_name!r} beside the deployment file or installed "
                f"(expected {module_name.replace('.', '/')}.py in {str(folder)!r})"
            )
        source = Path(spec.origin).read_bytes()
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # as an import does (dataclasses and pickling look modules up there)
        try:
            with user_state(modules=False):  # its import registers it: sys.modules as it leaves it
                if spec.origin.endswith(".py"):  # the bytes hashed are the bytes executed
                    exec(compile(source, spec.origin, "exec"), module.__dict__)
                else:  # pragma: no cover - an extension module: executed by its loader
                    spec.loader.exec_module(module)
        except BaseException as err:  # SyntaxError, ImportError, anything the module raises
            if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
                raise
            sys.modules.pop(module_name, None)
            raise InputError(f"{where}: {key}: importing module {module_name!r} raised {user_error(err)}") from None
    function: Any = module
    for name in attr.split("."):
        function = getattr(function, name, None)
    if not callable(function):
        raise InputError(f"{where}: {key}: module {module_name!r} ({spec.origin}) has no callable {attr!r}")
    qualname = f"{module_name}.{getattr(function, '__qualname__', attr)}"
    return Factory(function, qualname, Path(spec.origin).name, hashlib.sha256(source).hexdigest())


def not_the_users(module_name: str, library: str) -> str:
    """Why a library module already loaded (:func:`loaded_library`) is refused, in words."""
    return (
        f"module {module_name!r} is Python's or an installed library's ({library}), not code of yours to certify: "
        "name your own module, a file beside the deployment file"
    )


def call_factory(where: str, factory: Factory, parameters: dict[str, Any]) -> Any:
    """``factory(**parameters)`` behind the boundary: what it raises (``sys.exit`` too) is one InputError."""
    try:
        with user_state():  # an np.seterr in the factory stays there
            return factory.function(**parameters)
    except BaseException as err:
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        raise InputError(f"{where}: {factory.qualname}(**parameters) raised {user_error(err)}") from None


def made_pair(factory: str) -> Any:
    """The pair ``MODULE:FACTORY()`` returns, the module found in the current folder first (a sweep cell's
    ``factory``); what the import or the call raises is one InputError naming ``factory``."""
    return call_factory("factory", load_factory("factory", Path.cwd(), factory), {})
