"""Plain code (issue 61; docs/development.md, "Plain beats clever"), read from the product's source -- the folders
installed as ``pdp_audit`` -- so that what was removed cannot come back:

* no ``ctypes``, no process-exit trick (``os._exit``, a walk of ``gc.get_objects()``), no advice to the allocator
  (``madvise``, ``mallopt``), no patch of matplotlib's text metrics (``_get_text_metrics``);
* no private API of another library: no import of a private module or name of a third-party package
  (``from scipy.special import _ufuncs``), no private attribute of a third-party module or of what it exports
  (``special._ufuncs``, ``stats.beta._ppf``), none read or written by name (``getattr(x, "_rng")``), and none of the
  private attributes the product used to read from the objects those libraries make (a fitted estimator's
  ``_predictors``, a diffprivlib mechanism's ``_rng`` or ``_find_probabilities``, a process pool's ``_processes``),
  whatever the object's name;
* no write into another library's folders: matplotlib's cache and configuration folders are not asked for.

The code is read with :mod:`ast` (a docstring or a comment naming ``os._exit`` is not a use of it).  The checker is
shown to catch each kind on a snippet (:data:`REINTRODUCED`).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The folders installed under ``pdp_audit`` (pyproject.toml): the product.
PRODUCT = ("mechanisms", "audits", "verify", "reports", "src/pdp_audit")

#: Names whose use in code is forbidden anywhere in the product, as a name, an attribute or an import.
FORBIDDEN_NAMES = frozenset({"ctypes", "madvise", "mallopt", "_get_text_metrics", "get_cachedir", "get_configdir"})
#: Attributes forbidden on the object named (``os._exit``, ``gc.get_objects``).
FORBIDDEN_ATTRIBUTES = frozenset({("os", "_exit"), ("gc", "get_objects")})
#: Private attributes of the objects scikit-learn, scipy, diffprivlib and the standard library's
#: ``concurrent.futures`` make (their types are not known from the source): forbidden on any object but ``self`` and
#: ``cls``.
LIBRARY_PRIVATE = frozenset(
    {
        "_predictors",
        "_baseline_prediction",
        "_bin_mapper",
        "_raw_predict",
        "_ufuncs",
        "_ppf",
        "_isf",
        "_rng",
        "_scale",
        "_find_scale",
        "_probabilities",
        "_find_probabilities",
        "_check_utility_candidates_measure",
        "_time",
        # concurrent.futures' executors
        "_processes",
        "_pending_work_items",
        "_executor_manager_thread",
        "_call_queue",
        "_result_queue",
        "_work_ids",
        "_work_queue",
        "_threads",
        "_idle_semaphore",
        "_max_workers",
        "_mp_context",
        "_broken",
        "_shutdown_thread",
    }
)
#: Packages of the standard library, and ours: everything else imported is another library.
OWN = frozenset({"pdp_audit", "__future__"})


def product_sources() -> list[Path]:
    return [p for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py"))]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top not in OWN and top not in sys.stdlib_module_names


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts from (``stats`` of ``stats.beta._ppf``), None for anything else."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _imported_libraries(tree: ast.AST) -> set[str]:
    """The names a module binds to another library's modules or objects (``np``, ``special``, ``HistGradient…``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if _third_party(a.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _third_party(node.module or ""):
            names.update(a.asname or a.name for a in node.names)
    return names


def _import_findings(node: ast.Import | ast.ImportFrom) -> list[str]:
    found = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] in FORBIDDEN_NAMES or (_third_party(alias.name) and any(_private(p) for p in parts)):
                found.append(f"import {alias.name}")
    elif node.level == 0 and node.module:
        parts = node.module.split(".")
        if parts[0] in FORBIDDEN_NAMES:
            found.append(f"from {node.module} import")
        elif _third_party(node.module):
            private = [p for p in parts if _private(p)] + [a.name for a in node.names if _private(a.name)]
            found += [f"from {node.module} import {name}" for name in private]
        found += [f"from {node.module} import {a.name}" for a in node.names if a.name in FORBIDDEN_NAMES]
        found += ["from os import _exit" for a in node.names if node.module == "os" and a.name == "_exit"]
    return found


def _access_findings(node: ast.AST, libraries: set[str]) -> list[str]:
    found = []
    if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
        found.append(node.id)
    elif isinstance(node, ast.Attribute):
        root = _root(node.value)
        if node.attr in FORBIDDEN_NAMES or (root, node.attr) in FORBIDDEN_ATTRIBUTES:
            found.append(f"{root}.{node.attr}")
        elif _private(node.attr) and root in libraries:
            found.append(f"{ast.unparse(node)} (a private attribute of another library)")
        elif node.attr in LIBRARY_PRIVATE and root not in ("self", "cls"):
            found.append(f"{ast.unparse(node)} (a private attribute of another library's object)")
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr"):
        if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            name = node.args[1].value
            if name in LIBRARY_PRIVATE or (_private(name) and _root(node.args[0]) in libraries):
                found.append(f"{node.func.id}(…, {name!r})")
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        if node.slice.value in LIBRARY_PRIVATE and isinstance(node.value, ast.Call):  # vars(x)["_rng"]
            found.append(f"{ast.unparse(node)}")
    return found


def findings(source: str, name: str = "<snippet>") -> list[str]:
    """``name:line what`` for each use the rules forbid in ``source``."""
    tree = ast.parse(source, name)
    libraries = _imported_libraries(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            hits = _import_findings(node)
        else:
            hits = _access_findings(node, libraries)
        found += [f"{name}:{node.lineno} {hit}" for hit in hits]
    return found


def test_the_product_is_read_whole():
    assert len(product_sources()) > 100


#: The one use of ``os._exit`` that is no trick: a copy of the process the *user's* code made with ``os.fork()``
#: ends there when it returns into ours, as Python's documentation says a forked child must end (``os._exit``
#: "should normally only be used in the child process after a fork()"); ``SystemExit`` there would run the parent's
#: cleanup and the rest of the audit a second time (docs/development.md, "One exception").  Exact: that file, that
#: line's text.
FORKED_CHILD_END = ("verify/core/float_rules.py", "os._exit(1 if raised else 0)")


def _allowed(hit: str) -> bool:
    where, text = FORKED_CHILD_END
    path, line = hit.split(" ", 1)[0].rsplit(":", 1)
    if not path.endswith(where) or not hit.endswith(" os._exit"):
        return False
    return (ROOT / where).read_text(encoding="utf-8").splitlines()[int(line) - 1].strip() == text


def test_the_product_uses_no_ctypes_exit_trick_or_private_api_of_another_library():
    found = [hit for path in product_sources() for hit in findings(path.read_text(encoding="utf-8"), str(path))]
    found = [hit for hit in found if not _allowed(hit)]
    assert not found, "plain code (docs/development.md): " + "\n".join(
        hit.replace(str(ROOT) + "/", "") for hit in found
    )


#: One snippet per kind of use the rules forbid: each must be found (the checker is not vacuous).
REINTRODUCED = {
    "import ctypes": "import ctypes\nctypes.CDLL(None)\n",
    "from ctypes": "from ctypes import CDLL\n",
    "os._exit": "import os\nos._exit(0)\n",
    "from os import _exit": "from os import _exit\n_exit(0)\n",
    "gc walk": "import gc\nfor o in gc.get_objects():\n    pass\n",
    "madvise": "import mmap\nm = mmap.mmap(-1, 10)\nm.madvise(mmap.MADV_DONTNEED)\n",
    "mallopt": "libc = None\nlibc.mallopt(-3, 0)\n",
    "text metrics": "from matplotlib import backend_agg\nbackend_agg.RendererAgg._get_text_metrics = None\n",
    "matplotlib cache": "import matplotlib\nopen(matplotlib.get_cachedir() + '/x', 'w')\n",
    "scipy private module": "from scipy.special._ufuncs import _binom_pmf\n",
    "scipy private name": "from scipy.special import _ufuncs\n",
    "scipy private attribute": "from scipy import special\nf = special._ufuncs._binom_pmf\n",
    "scipy hook": "from scipy import stats\nstats.beta._ppf(0.5, 1, 2)\n",
    "sklearn trees": "def read(model):\n    return model._predictors\n",
    "sklearn private module": "import sklearn.ensemble._hist_gradient_boosting.grower\n",
    "diffprivlib rng": "def seed(mechanism, rng):\n    mechanism._rng = rng\n",
    "diffprivlib probabilities": "def p(world):\n    return world._find_probabilities(1, 1, [0], False, None)\n",
    "getattr of a private name": "from scipy import special\ngetattr(special, '_ufuncs')\n",
    "getattr of a library's private": "def scale(m):\n    return getattr(m, '_scale', None)\n",
    "opendp private": "import opendp.prelude as dp\ndp._lib\n",
    "vars of a private": "def rng(m):\n    return vars(m)['_rng']\n",
    "a pool's processes": "def pids(pool):\n    return [p.pid for p in pool._processes.values()]\n",
    "getattr of a pool's processes": "def pids(pool):\n    return getattr(pool, '_processes', None)\n",
}


@pytest.mark.parametrize("kind", REINTRODUCED)
def test_each_forbidden_use_is_found_when_reintroduced(kind):
    assert findings(REINTRODUCED[kind]), kind


def test_our_own_private_names_and_words_in_docstrings_are_not_findings():
    source = (
        '"""Ends as os._exit would not; ctypes is not used."""\n'
        "from pdp_audit.verify.core import sandbox\n"
        "class A:\n"
        "    def f(self):\n"
        "        self._rng = self._scale = None\n"
        "        return sandbox._frame(1)\n"
    )
    assert findings(source) == []
