"""The layering of the four packages, read from the import statements (function-level ones included).

    mechanisms  <-  audits  <-  verify  ->  reports

* ``mechanisms`` imports only ``mechanisms``; ``audits`` only ``mechanisms`` and ``audits``;
  ``reports`` only ``reports`` (it renders plain records and knows no mathematics or verdict rule).
* Inside ``verify`` a module imports only modules of its own level or below (:data:`VERIFY_LEVELS`).
* No cycle of imports between modules, at any depth.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mechanisms", "audits", "verify", "reports")
ALLOWED = {
    "mechanisms": {"mechanisms"},
    "audits": {"mechanisms", "audits"},
    "reports": {"reports"},
    "verify": set(PACKAGES),
}
# Lowest first: the records and verdict rules, evidence constructors, the audit plans, sweeps, the
# ledger, deployment files, and the entry points on top.
VERIFY_LEVELS = (
    ("verify.checks", "verify.options"),
    ("verify.evidence", "verify.contract"),
    ("verify.plans",),
    ("verify.sweeps",),
    ("verify.ledger", "verify.deployment", "verify.mutants"),
    ("verify.cli", "verify.pytest_plugin"),
)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


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
    return {m for m in found if m.split(".")[0] in PACKAGES and m != name}


def graph() -> dict[str, set[str]]:
    modules = our_modules()
    return {name: {m for m in imports_of(path, modules) if m in modules} for name, path in modules.items()}


def verify_level(module: str) -> int | None:
    for level, prefixes in enumerate(VERIFY_LEVELS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return level
    return None


def wrong_direction(edges: dict[str, set[str]]) -> list[str]:
    problems = []
    for source, targets in edges.items():
        top = source.split(".")[0]
        for target in sorted(targets):
            if target.split(".")[0] not in ALLOWED[top]:
                problems.append(f"{source} imports {target} ({top} may import only {sorted(ALLOWED[top])})")
            elif top == "verify" and target.startswith("verify"):
                here, there = verify_level(source), verify_level(target)
                if here is not None and there is not None and there > here:
                    problems.append(f"{source} (level {here}) imports {target} (level {there})")
    return problems


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


def test_every_module_is_in_a_verify_level():
    unplaced = [m for m in our_modules() if m.startswith("verify.") and verify_level(m) is None]
    assert not unplaced, f"place these modules in VERIFY_LEVELS: {unplaced}"


def test_imports_go_in_one_direction():
    problems = wrong_direction(graph())
    assert not problems, "\n".join(problems)


def test_no_import_cycles():
    found = cycles(graph())
    assert not found, "\n".join(" -> ".join(c) for c in found)


@pytest.mark.parametrize(
    "edges, expected",
    [
        ({"mechanisms.a": {"verify.checks"}}, "mechanisms.a imports verify.checks"),
        ({"reports.pdf": {"verify.checks"}}, "reports.pdf imports verify.checks"),
        ({"audits.x": {"reports.records"}}, "audits.x imports reports.records"),
        ({"verify.checks": {"verify.cli.main"}}, "verify.checks (level 0) imports verify.cli.main (level 5)"),
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
    source.write_text("def f():\n    from verify import checks\n    import audits.engine\n")
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    modules = {"verify.checks": Path("x"), "audits.engine": Path("y")}
    assert imports_of(source, modules) == {"verify.checks", "audits.engine"}
