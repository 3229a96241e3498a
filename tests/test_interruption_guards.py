"""Every guard of the user's code lets an interruption through, read from the package's source.

A guard is an ``except BaseException`` (or bare ``except``) handler that makes what the user's code raised the user's
fault: it raises ``MalformedPair`` or ``InputError``, or forms the message with ``user_error``.  Such a handler must
let ``INTERRUPTIONS`` (``pdp_audit.verify.inputs.interruptions``: Ctrl-C's KeyboardInterrupt and SIGTERM's Terminated)
through -- by an earlier handler of the same ``try`` that re-raises them, or by ``if isinstance(err, ...): raise``
before it blames the user.  Fourteen guards once re-raised KeyboardInterrupt only (fixed in 0b99065): a SIGTERM
arriving while the user's sampler ran was read as the pair's fault, and the audit's child sampled on until killed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The folders installed under ``pdp_audit`` (pyproject.toml): the product, where the guards are.
FOLDERS = ("mechanisms", "audits", "verify", "reports", "src/pdp_audit", "examples")
#: What a guard raises, or calls to word the message, when it makes the user's code's exception the user's fault.
USER_FAULTS = frozenset({"MalformedPair", "InputError"})
FAULT_WORDING = frozenset({"user_error"})
#: What must get through; ``INTERRUPTIONS`` names both.
LET_THROUGH = frozenset({"KeyboardInterrupt", "Terminated"})
TRY_NODES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))


def named(node: ast.AST | None) -> set[str]:
    """The names an ``except`` clause or ``isinstance`` argument spells (tuples and ``*INTERRUPTIONS`` included),
    ``INTERRUPTIONS`` read as the exceptions it holds."""
    found = set()
    for part in ast.walk(node) if node is not None else ():
        name = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else None
        if name is not None:
            found |= LET_THROUGH if name == "INTERRUPTIONS" else {name}
    return found


def blames_the_user(statement: ast.AST) -> bool:
    """Whether ``statement`` raises a user fault or words one (anywhere inside it)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and named(node.exc.func) & USER_FAULTS:
            return True
        if isinstance(node, ast.Call) and named(node.func) & FAULT_WORDING:
            return True
    return False


def re_raised(statement: ast.stmt, caught: str | None) -> set[str]:
    """What ``if isinstance(caught, T): raise`` re-raises (nothing for any other statement)."""
    if not (isinstance(statement, ast.If) and len(statement.body) == 1 and isinstance(statement.body[0], ast.Raise)):
        return set()
    test = statement.test
    if not (isinstance(test, ast.Call) and named(test.func) == {"isinstance"} and len(test.args) == 2):
        return set()
    subject, kinds = test.args
    return named(kinds) if isinstance(subject, ast.Name) and subject.id == caught else set()


def lets_through(handler: ast.ExceptHandler, earlier: list[ast.ExceptHandler]) -> set[str]:
    """What ``handler`` lets through before it blames the user: re-raised by an earlier handler of its ``try`` (one
    whose body is a bare ``raise``) or by its own ``isinstance`` test ahead of the first statement that blames."""
    through = {name for h in earlier if [type(s) for s in h.body] == [ast.Raise] for name in named(h.type)}
    for statement in handler.body:
        if blames_the_user(statement):
            break
        through |= re_raised(statement, handler.name)
    return through


def guards_without_the_interruptions(source: str, where: str) -> list[str]:
    """``where:line`` for each handler of ``source`` that catches everything, blames the user, and does not let
    :data:`LET_THROUGH` through first."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, TRY_NODES):
            continue
        for i, handler in enumerate(node.handlers):
            everything = handler.type is None or "BaseException" in named(handler.type)
            if everything and blames_the_user(handler) and not LET_THROUGH <= lets_through(handler, node.handlers[:i]):
                found.append(f"{where}:{handler.lineno}")
    return found


def product_sources() -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]


@pytest.mark.tier2
def test_every_guard_of_the_users_code_lets_the_interruptions_through():
    found = [
        line
        for path in product_sources()
        for line in guards_without_the_interruptions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "guards that turn Ctrl-C or SIGTERM into the user's fault:\n" + "\n".join(found)


@pytest.mark.tier2
def test_the_guards_are_found():
    """The rule reads today's guards: 12 blame the user (the other two of 0b99065's 14 return None or a placeholder)."""
    count = 0
    for path in product_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and "BaseException" in named(node.type) and blames_the_user(node):
                count += 1
    assert count >= 12


GUARD = """
try:
    pair.sample()
except BaseException as err:
{first}    raise MalformedPair(f"sample() raised {{user_error(err)}}") from None
"""


def test_a_guard_that_lets_only_ctrl_c_through_is_named():
    """The shape fixed in 0b99065 fails; each way of letting both through passes."""
    only_ctrl_c = "    if isinstance(err, KeyboardInterrupt):\n        raise\n"
    assert guards_without_the_interruptions(GUARD.format(first=""), "x") == ["x:4"]
    assert guards_without_the_interruptions(GUARD.format(first=only_ctrl_c), "x") == ["x:4"]
    both = "    if isinstance(err, INTERRUPTIONS):\n        raise\n"
    assert guards_without_the_interruptions(GUARD.format(first=both), "x") == []
    earlier = "except (*INTERRUPTIONS, SystemExit):\n    raise\nexcept BaseException"
    assert guards_without_the_interruptions(GUARD.format(first="").replace("except BaseException", earlier), "x") == []
    late = GUARD.format(first="") + "    if isinstance(err, INTERRUPTIONS):\n        raise\n"  # after the blame
    assert guards_without_the_interruptions(late, "x") == ["x:4"]


def test_a_real_guard_without_its_clause_is_named():
    """call_factory's guard with its ``isinstance(err, INTERRUPTIONS)`` clause removed is named."""
    source = (ROOT / "verify" / "evidence" / "user_code.py").read_text(encoding="utf-8")
    head, define, body = source.partition("\ndef call_factory(")
    clause = re.compile(r"\n +if isinstance\(err, INTERRUPTIONS\):[^\n]*\n +raise\n")
    broken = head + define + clause.sub("\n", body, count=1)
    assert define and broken != source, "call_factory's guard changed: update this test"
    assert guards_without_the_interruptions(source, "u") == []
    line = broken.count("\n", 0, broken.index("except BaseException", len(head))) + 1
    assert guards_without_the_interruptions(broken, "u") == [f"u:{line}"]
