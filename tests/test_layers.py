"""The layering of the product, read from its folders and the import statements (function-level ones included).

    verify/inputs  <-  mechanisms  <-  verify  <-  audits  <-  the application (src/pdp_audit)    reports (beside)

* A module's level is the folder it is in (:data:`LEVELS`, lowest first; the deepest folder listed that holds it):
  ``verify/inputs/`` what reaches the mathematics from outside it (``InputError`` and the checks of a user's values,
  the data readers, the shipped data's store, BLAS's threads, interruptions), below the mathematics, which raises
  ``InputError``; ``mechanisms/`` the mathematics; ``verify/`` the floor audits stand on (its estimators, then
  records, options, plans and the sandbox in ``core/``, then the evidence that decides checks); ``audits/`` one folder
  per audit; the application in the namespace root ``src/pdp_audit/`` (the catalogue of plans, sweeps, the ledger, the
  use cases and public API in the root's own modules, and on top the entry points that ``pyproject.toml`` declares:
  the console script's package and the pytest plugin).  A module imports only modules of its own level or below, and
  ``reports``.
* ``reports`` imports only ``reports``: it renders plain records and knows no mathematics or verdict rule.
* The estimators (the lowest level of ``verify`` above the mathematics) import only ``verify/inputs``,
  ``mechanisms`` and themselves.
* An audit (``audits/<name>/``) imports no other audit: what two audits share lives in the floor.
  :data:`AUDITS_BUILT_ON` names the one exception with its reason.
* The entry points do not build configs, decide which files a command reads or where it may write, or pick an audit
  of the catalogue: those are the use cases' (:data:`USE_CASES`: ``pdp_audit.use_cases``,
  ``pdp_audit.certify_files``, ``pdp_audit.blackbox_search_files`` and the public ``pdp_audit.api``), and the
  modules that do them (:data:`THROUGH_THE_API`) are not imported by an entry point.  What a command line
  *declares* is the entry points' own: from the two modules of :data:`DECLARATION` they import the declaration
  vocabulary only -- from ``verify/core/config.py`` the option records (``Option``, ``Range`` and its ranges, the
  shared ``*_OPTION`` options, ``PAIR_OPTIONS``, ``Names`` and ``COMMAND_LINE``), a config type's declared
  ``options`` and ``pair_value`` (one flag's value checked against its declaration, as ``typed`` does for a parsed
  command line); from ``catalogue/arguments.py`` the argparse flags generated from those declarations
  (``add_option``, ``add_run_arguments``, ``typed``).  ``build``, ``parse`` and ``configure_from_args`` (a config
  from its values) are not in it (:func:`undeclared_imports`).
* The namespace's ``__init__`` (the lazy table of public names) may import anything; nothing imports it.
* Every import of ours names the installed module (``pdp_audit.verify.core.checks``): the folders' own names
  (``verify``, ``reports``, …) do not exist in an installed wheel.
* No cycle of imports between modules, at any depth.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
NAMESPACE = "pdp_audit"
APPLICATION = Path("src", NAMESPACE)
#: The checkout's folders installed under the namespace (pyproject.toml's package-dir).
FOLDERS = ("mechanisms", "verify", "audits", "reports")
#: The levels, lowest first: each a folder (a module belongs to the deepest folder listed that holds it).
LEVELS = (
    "verify/inputs",
    "mechanisms",
    "verify/estimators",
    "verify/core",
    "verify/evidence",
    "audits",
    "src/pdp_audit/catalogue",
    "src/pdp_audit/sweeps",
    "src/pdp_audit/ledger",
    "src/pdp_audit",
)
#: Beside the ladder: imported by every level, importing only itself.
BESIDE = "reports"
#: Audits built on another audit's mechanism, with the reason.  The privacy report of [RW] Algorithms 2-5 is published
#: by ObjPert ([RW] Algorithm 1): its evidence re-uses ObjPert's solved releases and exact loss.  What it re-uses is
#: ObjPert's own DP audit (``audits/objpert/dp.py`` with the adversarial-neighbour search, Theorem 8's certificate and
#: the importance-sampled profile it stands on: about 800 lines of one mechanism's audit), so it cannot move down:
#: ``verify/`` holds no mechanism's audit, and ``mechanisms/`` cannot draw through the estimators or decide checks.
AUDITS_BUILT_ON = {"pdp_audit.audits.privacy_report": {"pdp_audit.audits.objpert"}}
#: What the entry points reach only through the use cases: how a config is built, where a command may write and which
#: files it reads, and which audits there are.  The two modules of :data:`DECLARATION` are among them, except for
#: their declaration vocabulary.
THROUGH_THE_API = ("pdp_audit.verify.core.config", "pdp_audit.verify.core.outputs", "pdp_audit.catalogue")
#: The command-line declaration vocabulary an entry point imports from its home, by module: the option records and
#: the ranges they are checked against (any name ending in ``_OPTION`` too: the options several commands share), and
#: the argparse flags generated from them.  Nothing here builds a config or writes a file.
DECLARATION = {
    "pdp_audit.verify.core.config": frozenset(
        {"Option", "Range", "WORKERS", "PAIR_OPTIONS", "Names", "COMMAND_LINE", "options", "pair_value"}
    ),
    "pdp_audit.catalogue.arguments": frozenset({"add_option", "add_run_arguments", "typed"}),
}
#: The use cases, the application's modules the entry points call: one function a command or a plugin assertion
#: (``use_cases``; ``certify_files`` for ``pdp-audit certify``; ``blackbox_search_files`` for ``pdp-audit blackbox``'s
#: search, witness re-check and report) and the public API (``api``).
USE_CASES = ("pdp_audit.use_cases", "pdp_audit.certify_files", "pdp_audit.blackbox_search_files", "pdp_audit.api")


def entry_points(pyproject: Path = ROOT / "pyproject.toml") -> tuple[str, ...]:
    """The modules ``pyproject.toml`` declares as entry points, the top level: the console script's package
    (``pdp_audit.cli`` for ``pdp_audit.cli.main:main``) and the pytest plugin's module."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    scripts = [target.split(":")[0].rpartition(".")[0] for target in project["scripts"].values()]
    plugins = list(project["entry-points"]["pytest11"].values())
    return tuple(sorted({*scripts, *plugins}))


ENTRY_POINTS = entry_points()


def module_name(path: Path) -> str:
    """The installed name of a source file (``pdp_audit.verify.core.checks``; ``pdp_audit``: the namespace)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    parts = parts[1:] if parts[0] == "src" else (NAMESPACE, *parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    sources = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    sources += sorted((ROOT / APPLICATION).rglob("*.py"))
    return {module_name(p): p for p in sources}


def level(module: str, path: Path) -> int | None:
    """The rung of a module: the entry points on top, else the deepest folder of :data:`LEVELS` that holds it
    (None for ``reports`` and the namespace's ``__init__``)."""
    if _within(module, ENTRY_POINTS):
        return len(LEVELS)
    if module == NAMESPACE:
        return None
    folder = path.relative_to(ROOT).parent.as_posix()
    holding = [rung for rung, f in enumerate(LEVELS) if folder == f or folder.startswith(f + "/")]
    return max(holding, key=lambda rung: len(LEVELS[rung])) if holding else None


def imported_names(path: Path) -> list[str]:
    """Every absolute module name ``path`` imports (relative imports are resolved by :func:`imports_of`)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module)
    return names


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """Our modules that ``path`` imports anywhere in its body (``from pkg import sub`` counts as pkg.sub)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in modules else base)
    return {m for m in found if m.split(".")[0] == NAMESPACE and m != name}


def graph(modules: dict[str, Path] | None = None) -> dict[str, set[str]]:
    modules = modules or our_modules()
    return {name: {m for m in imports_of(path, modules) if m in modules} for name, path in modules.items()}


def audit_of(module: str) -> str | None:
    """``pdp_audit.audits.gaussian`` for ``pdp_audit.audits.gaussian.evidence``; None outside an audit's folder."""
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[1:2] == ["audits"] and len(parts) > 2 else None


def wrong_direction(edges: dict[str, set[str]], paths: dict[str, Path]) -> list[str]:
    problems = []
    for source, targets in edges.items():
        for target in sorted(targets):
            problem = _rule_broken(source, target, paths)
            if problem:
                problems.append(f"{source} imports {target} ({problem})")
    return problems


def _rule_broken(source: str, target: str, paths: dict[str, Path]) -> str | None:
    if target == NAMESPACE:
        return f"nothing imports {NAMESPACE}'s lazy table of public names"
    if _within(source, (f"{NAMESPACE}.{BESIDE}",)) and not _within(target, (f"{NAMESPACE}.{BESIDE}",)):
        return f"{BESIDE} imports only {BESIDE}"
    here, there = level(source, paths[source]), level(target, paths[target])
    if here is not None and there is not None and there > here:
        return f"level {here} ({_level_name(here)}) imports level {there} ({_level_name(there)})"
    if here == LEVELS.index("verify/estimators") and there not in (*_BELOW_THE_ESTIMATORS, here):
        return "an estimator imports only the inputs, mechanisms and the estimators"
    mine, theirs = audit_of(source), audit_of(target)
    if mine and theirs and mine != theirs and theirs not in AUDITS_BUILT_ON.get(mine, ()):
        return "an audit imports no other audit"
    if _within(source, ENTRY_POINTS) and _within(target, THROUGH_THE_API) and target not in DECLARATION:
        return f"an entry point reaches it through the use cases ({', '.join(USE_CASES)})"
    return None


def declares(module: str, name: str) -> bool:
    """Whether ``name`` of ``module`` is command-line declaration vocabulary (:data:`DECLARATION`)."""
    vocabulary = DECLARATION.get(module, frozenset())
    return name in vocabulary or (module == "pdp_audit.verify.core.config" and name.endswith("_OPTION"))


def undeclared_imports(name: str, path: Path) -> list[str]:
    """What the entry point ``name`` (its source ``path``) imports of a :data:`DECLARATION` module beyond its
    declaration vocabulary: a name outside it, or the module itself (``import``, ``from … import config``), whose
    every name would then be reachable."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"{name} imports {a.name}" for a in node.names if a.name in DECLARATION]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in DECLARATION:
                    found.append(f"{name} imports {node.module}.{alias.name}")
                elif node.module in DECLARATION and not declares(node.module, alias.name):
                    found.append(f"{name} imports {alias.name} from {node.module} (not declaration vocabulary)")
    return found


#: The levels an estimator may import besides its own: the inputs and the mathematics.
_BELOW_THE_ESTIMATORS = (LEVELS.index("verify/inputs"), LEVELS.index("mechanisms"))


def _level_name(rung: int) -> str:
    return LEVELS[rung] if rung < len(LEVELS) else "the entry points"


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_in_a_level():
    modules = our_modules()
    unplaced = [
        m
        for m, p in modules.items()
        if level(m, p) is None and m != NAMESPACE and not _within(m, (f"{NAMESPACE}.{BESIDE}",))
        and not (p.name == "__init__.py" and not imports_of(p, modules))
    ]
    assert not unplaced, f"put these modules in a folder of LEVELS: {unplaced}"


def lazy_tables(modules: dict[str, Path]) -> list[str]:
    """The modules that look names up on first use: a module-level ``__getattr__`` (PEP 562)."""
    return sorted(
        name
        for name, path in modules.items()
        if any(
            isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    )


@pytest.mark.tier2
def test_one_lazy_table_of_public_names():
    """``pdp_audit/__init__.py`` is the one table of names imported on first use: a second one under it (``api.py``
    re-exported the audits' functions so) hands out internal names as if they were public."""
    assert lazy_tables(our_modules()) == [NAMESPACE]


def test_a_second_lazy_table_is_found(tmp_path):
    (tmp_path / "a.py").write_text("def __getattr__(name):\n    raise AttributeError(name)\n")
    (tmp_path / "b.py").write_text("class C:\n    def __getattr__(self, name):\n        return 0\n")
    assert lazy_tables({"pdp_audit.a": tmp_path / "a.py", "pdp_audit.b": tmp_path / "b.py"}) == ["pdp_audit.a"]


def test_the_use_cases_are_modules_of_the_application():
    modules = our_modules()
    missing = [m for m in USE_CASES if m not in modules or level(m, modules[m]) != LEVELS.index(str(APPLICATION))]
    assert not missing, f"USE_CASES names no module of {APPLICATION}: {missing}"


def test_every_level_is_a_folder():
    missing = [f for f in LEVELS if not (ROOT / f).is_dir()]
    assert not missing, f"LEVELS names folders that do not exist: {missing}"


def test_the_entry_points_are_the_declared_ones():
    assert ENTRY_POINTS == (f"{NAMESPACE}.cli", f"{NAMESPACE}.pytest_plugin")


def test_every_audit_is_a_folder():
    loose = [p for p in (ROOT / "audits").glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"an audit is a folder under audits/: {loose}"


def bare_imports(modules: dict[str, Path]) -> list[str]:
    """Imports of a folder's own name (``verify.core.checks``): they work in a checkout, whose root is on sys.path,
    and fail from a wheel, where only ``pdp_audit`` is installed."""
    return [
        f"{name}: imports {imported}"
        for name, path in modules.items()
        for imported in imported_names(path)
        if imported.split(".")[0] in FOLDERS
    ]


@pytest.mark.tier2
def test_every_import_names_the_installed_module():
    bare = bare_imports(our_modules())
    assert not bare, "import these as pdp_audit.<package>...:\n" + "\n".join(bare)


def test_a_bare_import_is_caught(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from verify import checks\n    import pdp_audit.verify.estimators.engine\n")
    assert bare_imports({"pdp_audit.mechanisms.m": source}) == ["pdp_audit.mechanisms.m: imports verify"]


@pytest.mark.tier2
def test_imports_go_in_one_direction():
    modules = our_modules()
    problems = wrong_direction(graph(modules), modules)
    assert not problems, "\n".join(problems)


def test_the_entry_points_import_only_the_declaration_vocabulary():
    modules = our_modules()
    found = [p for m, path in modules.items() if _within(m, ENTRY_POINTS) for p in undeclared_imports(m, path)]
    assert not found, "reach these through the use cases:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from pdp_audit.verify.core.config import Option, Range, SEED_OPTION, options\n", []),
        ("from pdp_audit.catalogue.arguments import add_option, typed\n", []),
        ("from pdp_audit.verify.core.config import Option, build\n", ["build from pdp_audit.verify.core.config"]),
        ("def f():\n    from pdp_audit.catalogue.arguments import configure_from_args\n", ["configure_from_args"]),
        ("import pdp_audit.verify.core.config\n", ["imports pdp_audit.verify.core.config"]),
        ("from pdp_audit.verify.core import config\n", ["imports pdp_audit.verify.core.config"]),
    ],
)
def test_an_import_beyond_the_declaration_vocabulary_is_caught(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source)
    found = undeclared_imports("pdp_audit.cli.m", path)
    assert len(found) == len(expected) and all(e in f for e, f in zip(expected, found)), found


@pytest.mark.tier2
def test_no_import_cycles():
    found = cycles(graph())
    assert not found, "\n".join(" -> ".join(c) for c in found)


def _path(module: str) -> Path:
    """A plausible source path of a module name (for the rule tests: the level is read from the folder)."""
    parts = module.split(".")[1:]
    if parts[0] in FOLDERS:
        return ROOT.joinpath(*parts[:-1], parts[-1] + ".py")
    return ROOT.joinpath(APPLICATION, *parts[:-1], parts[-1] + ".py")


@pytest.mark.parametrize(
    "source, target, expected",
    [
        ("verify.inputs.datasets", "mechanisms.base", "level 0 (verify/inputs) imports level 1 (mechanisms)"),
        ("verify.inputs.validation", "verify.estimators.rare", "level 0 (verify/inputs) imports level 2"),
        ("mechanisms.a", "verify.inputs.validation", None),
        ("mechanisms.a", "verify.core.checks", "level 1 (mechanisms) imports level 3"),
        ("reports.pdf", "verify.core.checks", "reports imports only reports"),
        ("reports.pdf", "verify.inputs.validation", "reports imports only reports"),
        ("verify.estimators.rare", "reports.records", "an estimator imports only"),
        ("verify.estimators.rare", "verify.inputs.blas_threads", None),
        ("verify.estimators.rare", "mechanisms.base", None),
        ("verify.estimators.rare", "verify.core.checks", "level 2 (verify/estimators) imports level 3"),
        ("verify.core.checks", "cli.main", "level 3 (verify/core) imports level 10 (the entry points)"),
        ("verify.evidence.builders", "audits.gaussian.plan", "level 4 (verify/evidence) imports level 5"),
        ("audits.laplace.config", "audits.gaussian.config", "an audit imports no other audit"),
        ("audits.privacy_report.evidence", "audits.objpert.dp", None),
        ("audits.gaussian.plan", "catalogue.plans", "level 5 (audits) imports level 6"),
        ("sweeps.spec", "api", "level 7 (src/pdp_audit/sweeps) imports level 9 (src/pdp_audit)"),
        ("api", "pytest_plugin", "level 9 (src/pdp_audit) imports level 10"),
        ("api", "", "nothing imports pdp_audit"),
        ("cli.main", "catalogue.plans", "an entry point reaches it through the use cases"),
        ("pytest_plugin", "verify.core.outputs", "an entry point reaches it through the use cases"),
        ("cli.main", "catalogue.kinds", "an entry point reaches it through the use cases"),
        ("pytest_plugin", "verify.core.config", None),
        ("cli.tau", "catalogue.arguments", None),
        ("cli.main", "api", None),
        ("cli.main", "use_cases", None),
        ("pytest_plugin", "use_cases", None),
    ],
)
def test_the_layer_rules_catch_a_wrong_import(source, target, expected):
    source, target = f"{NAMESPACE}.{source}", f"{NAMESPACE}.{target}".rstrip(".")
    paths = {m: _path(m) for m in (source, target) if m != NAMESPACE}
    paths.setdefault(NAMESPACE, ROOT / APPLICATION / "__init__.py")
    problems = wrong_direction({source: {target}}, paths)
    if expected is None:
        assert problems == []
    else:
        assert len(problems) == 1 and expected in problems[0], problems


def test_the_cycle_finder_catches_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_function_level_imports_are_read(tmp_path, monkeypatch):
    source = tmp_path / "mechanisms" / "m.py"
    source.parent.mkdir()
    source.write_text("def f():\n    from pdp_audit.verify.core import checks\n    import pdp_audit.verify.estimators.rare\n")  # noqa: E501
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    modules = {"pdp_audit.verify.core.checks": Path("x"), "pdp_audit.verify.estimators.rare": Path("y")}
    assert imports_of(source, modules) == {"pdp_audit.verify.core.checks", "pdp_audit.verify.estimators.rare"}
