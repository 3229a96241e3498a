"""The shape of the package's code, read from its source (issue 25: small modules, short parameter lists).

* A module holds one concept; one longer than :data:`MAX_MODULE_LINES` lines is named in a warning (a prompt to look
  for a second concept inside it, not a rule to split files by length).
* No function takes more than :data:`MAX_PARAMETERS` parameters (``self``/``cls`` not counted; positional-only,
  keyword-only, ``*args`` and ``**kwargs`` each count): parameters that travel together are a frozen record whose
  docstring says what it holds.  The ``__init__`` that ``@dataclass`` generates for such a record is not in the source,
  so records of any size are allowed.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The folders installed under ``pdp_audit`` (pyproject.toml), and the benchmarks that drive them.
FOLDERS = ("mechanisms", "audits", "verify", "reports", "src/pdp_audit", "examples", "benchmarks")
MAX_MODULE_LINES = 600
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


def test_long_modules_are_named_in_a_warning():
    """The package's modules and the tests' alike (a test module is one concept too)."""
    long = long_modules([*sources(), *sorted((ROOT / "tests").rglob("*.py"))])
    if long:
        warnings.warn(f"modules over {MAX_MODULE_LINES} lines (one concept each?): {long}", UserWarning, stacklevel=1)


def test_a_long_module_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "m.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (tmp_path / "s.py").write_text("x = 1\n")
    assert long_modules([tmp_path / "m.py", tmp_path / "s.py"]) == {"m.py": MAX_MODULE_LINES + 1}
