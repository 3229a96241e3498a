"""The shape of the package's code, read from its source (issue 25: small modules, short parameter lists).

* A module holds one concept: no module the wheel ships (:data:`SHIPPED`) is longer than :data:`MAX_MODULE_LINES`
  lines (issue 84: past it, a second concept is inside); a longer test or benchmark module is named in a warning.
* No function takes more than :data:`MAX_PARAMETERS` parameters (``self``/``cls`` not counted; positional-only,
  keyword-only, ``*args`` and ``**kwargs`` each count): parameters that travel together are a frozen record whose
  docstring says what it holds.  The ``__init__`` that ``@dataclass`` generates for such a record is not in the source,
  so records of any size are allowed.
* mypy's reach only grows (issue 62): no module joins the list of those whose errors it ignores
  (:data:`UNCHECKED_MODULES`), no file silences it, and no public function gains a parameter or result typed with a
  bare ``Any`` (:data:`KNOWN_BARE_ANY`).
* Imports at the top (issue 62): a function-level import of our own modules says why it waits, in a ``# deferred:``
  comment (start-up would load more, or a test replaces the name where it is read); those without a reason only
  shrink (:data:`KNOWN_UNEXPLAINED_IMPORTS`).
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import typing
import warnings
from pathlib import Path
from typing import Callable

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
#: The folders installed under ``pdp_audit`` (pyproject.toml), and the benchmarks that drive them.
FOLDERS = ("mechanisms", "audits", "verify", "reports", "src/pdp_audit", "examples", "benchmarks")
MAX_MODULE_LINES = 600
#: The folders the wheel ships (pyproject.toml's package-dir): every module in them is held to :data:`MAX_MODULE_LINES`.
SHIPPED = ("mechanisms", "audits", "verify", "reports", "src/pdp_audit", "examples")
MAX_PARAMETERS = 8


def sources() -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]


def parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    """Every parameter of a function but ``self`` and ``cls``, ``*args`` and ``**kwargs`` included."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [f"*{a.arg}" for a in (args.vararg,) if a is not None]
    names += [f"**{a.arg}" for a in (args.kwarg,) if a is not None]
    return [name for name in names if name not in ("self", "cls")]


def long_parameter_lists(path: Path) -> list[str]:
    """``file:line name (count)`` for each function of ``path`` with more than :data:`MAX_PARAMETERS` parameters."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            count = len(parameter_names(node))
            if count > MAX_PARAMETERS:
                name = getattr(node, "name", "<lambda>")
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name} ({count})")
    return found


def test_the_folders_hold_the_package():
    assert len(sources()) > 100


@pytest.mark.tier2
def test_no_function_takes_more_than_eight_parameters():
    found = [line for path in sources() for line in long_parameter_lists(path)]
    assert not found, f"functions over {MAX_PARAMETERS} parameters (group them in a record):\n" + "\n".join(found)


def test_the_count_skips_self_and_counts_every_kind_of_parameter():
    tree = ast.parse("class A:\n    def f(self, a, /, b, *c, d, **e): pass\n")
    method = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert parameter_names(method) == ["a", "b", "d", "*c", "**e"]


def long_modules(paths: list[Path]) -> dict[str, int]:
    """``{path: lines}`` of the modules over :data:`MAX_MODULE_LINES` lines."""
    return {
        str(p.relative_to(ROOT)): n
        for p in paths
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }


def test_no_shipped_module_is_over_600_lines():
    long = long_modules([p for folder in SHIPPED for p in sorted((ROOT / folder).rglob("*.py"))])
    assert not long, f"shipped modules over {MAX_MODULE_LINES} lines (split them, one concept each): {long}"


def test_long_test_and_benchmark_modules_are_named_in_a_warning():
    """The tests' and the benchmarks' modules (a test module is one concept too): a warning, not a failure."""
    long = long_modules([p for folder in ("tests", "benchmarks") for p in sorted((ROOT / folder).rglob("*.py"))])
    if long:
        warnings.warn(f"modules over {MAX_MODULE_LINES} lines (one concept each?): {long}", UserWarning, stacklevel=1)


def test_a_long_module_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "m.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (tmp_path / "s.py").write_text("x = 1\n")
    assert long_modules([tmp_path / "m.py", tmp_path / "s.py"]) == {"m.py": MAX_MODULE_LINES + 1}


# --- the type checker's reach (issue 62): the exemptions only shrink, no bare Any in the public API -----------------

#: The modules that may skip mypy's errors (``ignore_errors`` in a [[tool.mypy.overrides]] of pyproject.toml): none
#: since 2026-11-27, when the last left the list.  No module joins it, and nothing else (a global ``ignore_errors``,
#: a file's ``# mypy: ignore-errors``) silences a module.
UNCHECKED_MODULES: frozenset[str] = frozenset()

#: Public functions' parameters (``return``: the result) annotated with a bare ``Any`` on 2026-11-27 (a user's own
#: objects and options among them): this list may only shrink; a new public function states its types.
KNOWN_BARE_ANY = frozenset(
    {
        "pdp_audit.api.audit_program bounds",
        "pdp_audit.api.audit_program budget",
        "pdp_audit.api.audit_program data",
        "pdp_audit.api.audit_program program",
        "pdp_audit.api.certify_loaded deployment",
        "pdp_audit.api.load_deployment return",
        "pdp_audit.api.run_audit options",
        "pdp_audit.api.user_code deployment",
        "pdp_audit.audit_blackbox pair",
        "pdp_audit.audit_coverage holds",
        "pdp_audit.audit_program bounds",
        "pdp_audit.audit_program budget",
        "pdp_audit.audit_program data",
        "pdp_audit.audit_program program",
        "pdp_audit.run_audit options",
    }
)


def mypy_exemptions(pyproject: dict) -> set[str]:
    """The modules pyproject.toml's mypy configuration exempts from its errors (``*``: a global ``ignore_errors``)."""
    mypy = pyproject.get("tool", {}).get("mypy", {})
    found = {"*"} if mypy.get("ignore_errors") else set()
    for override in mypy.get("overrides", []):
        if override.get("ignore_errors"):
            modules = override.get("module", [])
            found |= {modules} if isinstance(modules, str) else set(modules)
    return found


def silenced_files(paths: list[Path]) -> list[str]:
    """``file:line`` of each inline mypy configuration that turns its errors off (``# mypy: ignore-errors``) and of
    each ``# type: ignore`` that names no error code."""
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"#\s*mypy:.*ignore[-_]errors", line) or re.search(r"#\s*type:\s*ignore(?!\[)", line):
                found.append(f"{path.relative_to(ROOT)}:{number}")
    return found


def test_no_module_joins_the_type_checker_exemptions():
    exempt = mypy_exemptions(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8")))
    assert not exempt - UNCHECKED_MODULES, (
        f"new mypy ignore_errors (the list may only shrink): {exempt - UNCHECKED_MODULES}"
    )
    assert not silenced_files(sources()), f"mypy silenced inline: {silenced_files(sources())}"


def test_an_exemption_is_found(tmp_path):
    override = {"module": ["pdp_audit.verify.new", "pdp_audit.reports.pdf"], "ignore_errors": True}
    assert mypy_exemptions({"tool": {"mypy": {"overrides": [override]}}}) == set(override["module"])
    assert mypy_exemptions({"tool": {"mypy": {"overrides": [{"module": "pdp_audit.*", "ignore_errors": True}]}}}) == {
        "pdp_audit.*"
    }
    assert mypy_exemptions({"tool": {"mypy": {"ignore_errors": True}}}) == {"*"}
    assert mypy_exemptions({"tool": {"mypy": {"overrides": [{"module": "m", "ignore_errors": False}]}}}) == set()
    (tmp_path / "a.py").write_text("x = 1  # type: ignore\ny = 2  # type: ignore[assignment]\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("# mypy: ignore-errors\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys.modules[__name__], "ROOT", tmp_path)
        assert silenced_files([tmp_path / "a.py", tmp_path / "b.py"]) == ["a.py:1", "b.py:1"]


def public_functions() -> dict[str, Callable]:
    """The functions of ``pdp_audit.__all__`` and those ``pdp_audit.api`` defines, by dotted name."""
    import pdp_audit
    from pdp_audit import api

    found = {f"pdp_audit.{name}": getattr(pdp_audit, name) for name in pdp_audit.__all__}
    found.update({f"pdp_audit.api.{name}": value for name, value in vars(api).items() if not name.startswith("_")})
    return {
        name: value
        for name, value in found.items()
        if inspect.isfunction(value) and (name.count(".") == 1 or value.__module__ == "pdp_audit.api")
    }


def bare_any(function: Callable) -> list[str]:
    """The parameters of ``function`` (``return``: its result) annotated with a bare ``typing.Any`` or an alias of it:
    :func:`typing.get_type_hints`, or annotation by annotation where a name only the type checker imports (in an
    ``if TYPE_CHECKING:`` block) stops it (such a name is a class, not ``Any``)."""
    try:
        hints = typing.get_type_hints(function)
    except NameError:
        hints = {}
        for name, annotation in function.__annotations__.items():
            try:
                hints[name] = eval(annotation, function.__globals__) if isinstance(annotation, str) else annotation
            except NameError:
                continue
    return [name for name, hint in hints.items() if hint is typing.Any]


def test_public_functions_state_their_types():
    functions = public_functions()
    assert len(functions) > 20
    found = {f"{name} {parameter}" for name, function in functions.items() for parameter in bare_any(function)}
    assert not found - KNOWN_BARE_ANY, f"bare Any in a public signature: {sorted(found - KNOWN_BARE_ANY)}"


_ANY_ALIAS = typing.Any  # an alias of Any is as bare (records.ArrayLike is one)


def test_a_bare_any_is_found():
    def arbitrary(a: typing.Any, b: int, c: _ANY_ALIAS, *d: typing.Any, e: list[typing.Any]) -> typing.Any:
        return a

    def named_for_the_checker(a: NotImportedHere, b: typing.Any) -> int:  # noqa: F821
        return 0

    assert bare_any(arbitrary) == ["a", "c", "d", "return"]
    assert bare_any(named_for_the_checker) == ["b"]


# --- imports at the top (issue 62): a function-level import of ours says why it waits -------------------------------

#: The product's folders (the tests, examples and benchmarks are not the product).
PRODUCT = ("mechanisms", "verify", "audits", "reports", "src/pdp_audit")

#: Function-level imports of our own modules without a ``# deferred:`` reason (``module: imported``): none since
#: 2026-11-27, and none joins.  An import of ours goes at the top of its module; one that must wait (start-up would load
#: more: ``tests/test_light_imports.py``; a test replaces the name where it is read) says why in a comment beginning
#: ``# deferred:`` on its line or on the comment lines directly above it (or above the run of imports it ends).
KNOWN_UNEXPLAINED_IMPORTS: frozenset[str] = frozenset()


def _installed_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    parts = parts[1:] if parts[0] == "src" else ("pdp_audit", *parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def function_level_imports(path: Path) -> list[tuple[ast.Import | ast.ImportFrom, str]]:
    """The imports of our own modules inside a function's body in ``path``, each with the module it names
    (a relative import resolved)."""
    name = _installed_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, ast.Import):
                found.extend((child, a.name) for a in child.names if a.name.split(".")[0] == "pdp_audit")
            elif in_function and isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                if base.split(".")[0] == "pdp_audit":
                    found.append((child, base))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def unexplained_imports(paths: list[Path]) -> set[str]:
    """``module: imported`` of each function-level import of ours with no ``# deferred:`` comment on its lines, on
    the comment lines directly above it, or above the run of import lines it is part of."""
    found = set()
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        imports = function_level_imports(path)
        import_lines = {k for node, _ in imports for k in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
        for node, imported in imports:
            said = any("# deferred:" in lines[k - 1] for k in range(node.lineno, (node.end_lineno or node.lineno) + 1))
            k = node.lineno - 1
            while not said and k >= 1 and (lines[k - 1].lstrip().startswith("#") or k in import_lines):
                said = "# deferred:" in lines[k - 1]
                k -= 1
            if not said:
                found.add(f"{_installed_name(path)}: {imported}")
    return found


@pytest.mark.tier2
def test_function_level_imports_of_ours_say_why():
    paths = [p for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py"))]
    new = unexplained_imports(paths) - KNOWN_UNEXPLAINED_IMPORTS
    assert not new, (
        "import these at the top of the module, or say why they wait (`# deferred: loads scipy; run --help must not`):"
        + "".join(f"\n  {line}" for line in sorted(new))
    )


def test_an_unexplained_function_level_import_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    source = tmp_path / "verify" / "core" / "m.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "from pdp_audit.verify.core import checks\n\n\n"
        "def f():\n    from pdp_audit.reports.records import Run\n\n\n"
        "def g():\n    # deferred: loads scipy; run --help must not\n"
        "    from pdp_audit.verify.estimators import stats\n"
        "    from pdp_audit.verify.estimators import rare\n\n\n"
        "def h():\n    from . import plan  # deferred: a cycle through plan\n    import json\n"
    )
    assert unexplained_imports([source]) == {"pdp_audit.verify.core.m: pdp_audit.reports.records"}


# --- branching (issue 62): no function of the product above cyclomatic complexity 25 -------------------------------

#: McCabe's cyclomatic complexity (IEEE Trans. Software Eng. SE-2(4), 1976) above which a function is split into
#: named parts.
MAX_COMPLEXITY = 25


def _decisions(node: ast.AST) -> int:
    """The decision points ``node`` itself adds, as radon (``radon cc``) counts them."""
    if isinstance(node, (ast.If, ast.IfExp, ast.Assert)):
        return 1
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return 1 + bool(node.orelse)
    if isinstance(node, ast.comprehension):
        return 1 + len(node.ifs)
    if isinstance(node, ast.Try):
        return len(node.handlers) + bool(node.orelse)
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    if isinstance(node, ast.Match):
        catch_all = any(isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None for case in node.cases)
        return max(0, len(node.cases) - catch_all)
    return 0


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """1 + the decision points of ``function``'s own body: each ``if``, conditional expression and ``assert``; each
    loop, and its ``else``; each comprehension's ``for`` and its ``if``s; each ``except``, and a ``try``'s ``else``;
    each ``and``/``or`` operand after the first; each ``case`` but a catch-all.  A function or class defined inside it
    is a unit of its own (radon's count: its ``ComplexityVisitor``; radon is not a dependency of the project)."""
    count, stack = 1, list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        count += _decisions(node)
        if not isinstance(node, ast.Assert):  # radon counts an assert as one, whatever its condition
            stack.extend(ast.iter_child_nodes(node))
    return count


def complex_functions(paths: list[Path], most: int = MAX_COMPLEXITY) -> list[str]:
    """``file:line name (complexity)`` of each function (method and nested function included) of ``paths`` whose
    cyclomatic complexity exceeds ``most``."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and complexity(node) > most:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({complexity(node)})")
    return found


#: The program audit's bound (issue 84: its stages short enough to read at once).
MAX_PROGRAM_COMPLEXITY = 20


def test_no_program_audit_function_is_above_complexity_20():
    found = complex_functions(sorted((ROOT / "audits" / "program").rglob("*.py")), MAX_PROGRAM_COMPLEXITY)
    assert not found, (
        f"program audit functions above cyclomatic complexity {MAX_PROGRAM_COMPLEXITY} (split them into named parts):"
        + "".join(f"\n  {line}" for line in found)
    )


@pytest.mark.tier2
def test_no_product_function_is_above_complexity_25():
    paths = [p for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py"))]
    found = complex_functions(paths)
    assert not found, (
        f"functions above cyclomatic complexity {MAX_COMPLEXITY} (split them into named parts):"
        + "".join(f"\n  {line}" for line in found)
    )


def test_the_complexity_counts_each_kind_of_branch(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    source = tmp_path / "m.py"
    source.write_text(
        "def f(a, b):\n"  # 1
        "    if a and b or a:\n"  # + if, + 2 operands
        "        x = 1 if a else 2\n"  # + conditional
        "    for i in a:\n        pass\n    else:\n        pass\n"  # + loop, + else
        "    while b:\n        break\n"  # + loop
        "    try:\n        pass\n    except KeyError:\n        pass\n    except OSError:\n        pass\n"  # + 2
        "    else:\n        pass\n"  # + try's else
        "    assert a and b\n"  # + 1, its condition not counted
        "    y = [i for i in a if i if not i]\n"  # + for, + 2 ifs
        "    match a:\n        case 1:\n            pass\n        case [2]:\n            pass\n"  # + 2 cases
        "        case _:\n            pass\n"  # the catch-all not counted
        "    def g():\n        if a:\n            pass\n"  # its own unit
        "    return lambda: 1 if b else 0\n"  # + conditional in a lambda
    )
    f, g = (n for n in ast.walk(ast.parse(source.read_text())) if isinstance(n, ast.FunctionDef))
    assert (complexity(f), complexity(g)) == (18, 2)  # radon 6 gives the same
    source.write_text("def wide(a):\n" + "    if a:\n        pass\n" * MAX_COMPLEXITY)
    assert complex_functions([source]) == [f"m.py:1 wide ({MAX_COMPLEXITY + 1})"]


# --- one search driver (issue 63): optuna's studies are made in one module ------------------------------------------

#: The one module that drives optuna (the black box's and the program audit's searches call its ``maximise``): a
#: second driver would be a second seeding and telling of TPE for a maintainer to keep in step.
OPTUNA_DRIVER = "verify/core/candidate_search.py"
#: What only the driver calls: the study and the sampler it is seeded with.
OPTUNA_CALLS = frozenset({"create_study", "load_study", "TPESampler", "enqueue_trial"})


def optuna_drivers(paths: list[Path]) -> list[str]:
    """``file:line name`` of each call of :data:`OPTUNA_CALLS` outside :data:`OPTUNA_DRIVER`."""
    found = []
    for path in paths:
        if path.relative_to(ROOT).as_posix() == OPTUNA_DRIVER:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if name in OPTUNA_CALLS:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    return found


@pytest.mark.tier2
def test_optuna_is_driven_from_one_module():
    assert (ROOT / OPTUNA_DRIVER).is_file()
    found = optuna_drivers([p for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py"))])
    assert found == [], f"optuna driven outside {OPTUNA_DRIVER} (call its maximise; enqueued= for fixed ones): {found}"


def test_a_second_optuna_driver_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    driver, other = tmp_path / OPTUNA_DRIVER, tmp_path / "audits" / "m.py"
    for path in (driver, other):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("import optuna\n\nstudy = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))\n")
    assert optuna_drivers([driver, other]) == ["audits/m.py:3 create_study", "audits/m.py:3 TPESampler"]
