"""The layering of the packages, read from the import statements (function-level ones included).

    mechanisms  <-  verify (lower levels)  <-  audits  <-  verify (upper levels)      reports (all under pdp_audit)

* ``mechanisms`` imports only ``mechanisms``; ``reports`` only ``reports`` (it renders plain records and knows no
  mathematics or verdict rule).
* ``verify`` and ``audits`` are one ladder of levels (:data:`LEVELS`, lowest first): a module imports only modules of
  its own level or below, and ``mechanisms`` and ``reports``.  The estimators, lowest, import only ``mechanisms``.
* An audit (``audits.<name>``) imports no other audit: what two audits share lives in the framework's lower levels.
  :data:`AUDITS_BUILT_ON` names the one exception with its reason.
* The interfaces stand on the API: the command line (``verify.cli``) and the pytest plugin reach the declared
  options, the outputs' checks and the catalogue of plans through ``verify.api`` (what ``pdp_audit`` re-exports),
  never from ``verify.core.config``, ``verify.core.outputs`` or ``verify.catalogue`` directly
  (:data:`THROUGH_THE_API`).
* ``pdp_audit`` (the public API, ``src/pdp_audit``) may import the four; none of them imports it.
* Every import of ours names the installed module (``pdp_audit.verify.core.checks``): the folders' own names
  (``verify``, ``reports``, …) do not exist in an installed wheel.
* No cycle of imports between modules, at any depth.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMESPACE = "pdp_audit"
PACKAGES = ("mechanisms", "audits", "verify", "reports")
ALLOWED = {
    "mechanisms": {"mechanisms"},
    "reports": {"reports"},
    "audits": set(PACKAGES),
    "verify": set(PACKAGES),
    NAMESPACE: set(PACKAGES),
}
#: The ladder, lowest first: the framework's lower levels (estimators; records, options and plans; evidence), the
#: audits, then the framework's upper levels (the catalogue of plans, sweeps, the ledger and deployments, the API, and
#: the entry points on top).  The folders are the levels: one subpackage (or entry module) per rung.
LEVELS = (
    ("verify.estimators",),
    ("verify.core",),
    ("verify.evidence",),
    ("audits",),
    ("verify.catalogue",),
    ("verify.sweeps",),
    ("verify.ledger", "verify.deployment", "verify.mutants", "verify.training_run"),
    ("verify.api", "verify.calibration"),
    ("verify.cli", "verify.pytest_plugin"),
)
#: The estimators import nothing of the framework: they estimate, the levels above decide.
ESTIMATORS_IMPORT = {"mechanisms", "verify.estimators"}
#: Audits built on another audit's mechanism, with the reason.  The privacy report of [RW] Algorithms 2-5 is published
#: by ObjPert ([RW] Algorithm 1): its evidence re-uses ObjPert's solved releases and exact loss.  What it re-uses is
#: ObjPert's own DP audit (``audits/objpert/dp.py`` with the adversarial-neighbour search, Theorem 8's certificate and
#: the importance-sampled profile it stands on: about 800 lines of one mechanism's audit), so it cannot move down:
#: ``verify/`` holds no mechanism's audit, and ``mechanisms/`` cannot draw through the estimators or decide checks.
AUDITS_BUILT_ON = {"audits.privacy_report": {"audits.objpert"}}
#: The interfaces (the ``pdp-audit`` command, the pytest plugin) and what they reach only through ``verify.api``: how a
#: config is built and its options named, where a command may write, and which audits there are.
INTERFACES = ("verify.cli", "verify.pytest_plugin")
THROUGH_THE_API = ("verify.core.config", "verify.core.outputs", "verify.catalogue")


def module_name(path: Path) -> str:
    """The installed name of a source file, without the namespace (``verify.core.checks``; ``pdp_audit``: the API)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[0] == "src":
        parts = parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    modules = {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}
    modules.update({module_name(p): p for p in sorted((ROOT / "src" / NAMESPACE).rglob("*.py"))})
    return modules


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
            found.update(_unqualified(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _unqualified(node.module or "")
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in modules else base)
    return {m for m in found if m.split(".")[0] in ALLOWED and m != name}


def _unqualified(module: str) -> str:
    """``pdp_audit.verify.core.checks`` -> ``verify.core.checks`` (the layer rules are about the four packages)."""
    return module.removeprefix(NAMESPACE + ".")


def graph() -> dict[str, set[str]]:
    modules = our_modules()
    return {name: {m for m in imports_of(path, modules) if m in modules} for name, path in modules.items()}


def level(module: str) -> int | None:
    """The rung of ``module`` in :data:`LEVELS` (None for ``mechanisms``, ``reports`` and the API)."""
    for rung, prefixes in enumerate(LEVELS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rung
    return None


def audit_of(module: str) -> str | None:
    """``audits.gaussian`` for ``audits.gaussian.evidence``; None outside an audit's folder."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "audits" and len(parts) > 1 else None


def wrong_direction(edges: dict[str, set[str]]) -> list[str]:
    problems = []
    for source, targets in edges.items():
        top = source.split(".")[0]
        for target in sorted(targets):
            if target == NAMESPACE:
                problems.append(f"{source} imports {NAMESPACE} (the public API imports the packages, not the reverse)")
                continue
            problem = _rule_broken(source, target, top)
            if problem:
                problems.append(f"{source} imports {target} ({problem})")
    return problems


def _rule_broken(source: str, target: str, top: str) -> str | None:
    if target.split(".")[0] not in ALLOWED[top]:
        return f"{top} may import only {sorted(ALLOWED[top])}"
    here, there = level(source), level(target)
    if here is not None and there is not None and there > here:
        return f"level {here} imports level {there}"
    if here == 0 and not any(target == p or target.startswith(p + ".") for p in ESTIMATORS_IMPORT):
        return f"an estimator imports only {sorted(ESTIMATORS_IMPORT)}"
    mine, theirs = audit_of(source), audit_of(target)
    if mine and theirs and mine != theirs and theirs not in AUDITS_BUILT_ON.get(mine, ()):
        return "an audit imports no other audit"
    if _within(source, INTERFACES) and _within(target, THROUGH_THE_API):
        return "an interface stands on verify.api"
    return None


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
    unplaced = [m for m in our_modules() if m.startswith(("verify.", "audits.")) and level(m) is None]
    assert not unplaced, f"place these modules in LEVELS: {unplaced}"


def test_every_audit_is_a_folder():
    loose = [
        m
        for m in our_modules()
        if m.startswith("audits.") and audit_of(m) == m and not (ROOT / "audits" / m.split(".")[1]).is_dir()
    ]
    assert not loose, f"an audit is a folder under audits/: {loose}"


def bare_imports(modules: dict[str, Path]) -> list[str]:
    """Imports of a folder's own name (``verify.core.checks``): they work in a checkout, whose root is on sys.path,
    and fail from a wheel, where only ``pdp_audit`` is installed."""
    return [
        f"{name}: imports {imported}"
        for name, path in modules.items()
        for imported in imported_names(path)
        if imported.split(".")[0] in PACKAGES
    ]


def test_every_import_names_the_installed_module():
    bare = bare_imports(our_modules())
    assert not bare, "import these as pdp_audit.<package>...:\n" + "\n".join(bare)


def test_a_bare_import_is_caught(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from verify import checks\n    import pdp_audit.verify.estimators.engine\n")
    assert bare_imports({"mechanisms.m": source}) == ["mechanisms.m: imports verify"]


def test_imports_go_in_one_direction():
    problems = wrong_direction(graph())
    assert not problems, "\n".join(problems)


def test_no_import_cycles():
    found = cycles(graph())
    assert not found, "\n".join(" -> ".join(c) for c in found)


@pytest.mark.parametrize(
    "edges, expected",
    [
        ({"mechanisms.a": {"verify.core.checks"}}, "mechanisms.a imports verify.core.checks"),
        ({"reports.pdf": {"verify.core.checks"}}, "reports.pdf imports verify.core.checks"),
        ({"verify.estimators.rare": {"reports.records"}}, "verify.estimators.rare imports reports.records (an"),
        ({"verify.core.checks": {"verify.cli.main"}}, "verify.core.checks imports verify.cli.main (level 1 imports"),
        ({"verify.evidence.builders": {"audits.gaussian.plan"}}, "verify.evidence.builders imports audits.gaussian"),
        ({"audits.laplace.config": {"audits.gaussian.config"}}, "audits.laplace.config imports audits.gaussian.con"),
        ({"verify.api": {"pdp_audit"}}, "verify.api imports pdp_audit"),
        ({"verify.cli.main": {"verify.catalogue.plans"}}, "verify.cli.main imports verify.catalogue.plans (an inter"),
        ({"verify.pytest_plugin": {"verify.core.config"}}, "verify.pytest_plugin imports verify.core.config (an int"),
    ],
)
def test_the_layer_rules_catch_a_wrong_import(edges, expected):
    assert any(p.startswith(expected) for p in wrong_direction(edges))


def test_the_cycle_finder_catches_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_function_level_imports_are_read(tmp_path, monkeypatch):
    source = tmp_path / "mechanisms" / "m.py"
    source.parent.mkdir()
    source.write_text(
        "def f():\n    from pdp_audit.verify.core import checks\n    import pdp_audit.verify.estimators.rare\n"
    )  # noqa: E501
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    modules = {"verify.core.checks": Path("x"), "verify.estimators.rare": Path("y")}
    assert imports_of(source, modules) == {"verify.core.checks", "verify.estimators.rare"}
