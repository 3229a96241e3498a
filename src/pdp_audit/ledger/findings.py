"""A finding as data: its prose is rendered from a template whose checkable numbers and verdicts are fields.

A finding's template is prose with placeholders:

* ``{name}`` or ``{name:spec}`` -- the number ``values[name]`` (``spec`` as in Python's :func:`format`; without
  one the shortest form that reads back exactly, exponents unpadded: 5.4e-7);
* ``{check}`` or ``{check-a, check-b}`` -- checks of ``quoted`` and their common verdict, rendered
  ``check-a, check-b fail``.  A key ``check@label`` quotes the check in another run the prose names (``prop21``
  of the default run, ``prop21@sigma2-condition`` of the run with ``--lambda-condition sigma2``); it renders as
  the bare check id;
* ``{>name}`` -- a passage several findings share (``shared.toml``'s ``[passage.NAME]``) or another entry's
  finding (``{>PDP-Thm4.1}``), with its fields.

The fields of an included passage or finding join the including one's (the same name must carry the same
value), so a test reads every number and verdict a finding quotes from ``Entry.values`` and ``Entry.quoted``,
and the text cannot say otherwise: it is rendered from them.  Every field must be used by its own template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

from pdp_audit.verify.core.config import exact_text

VERDICTS = ("pass", "fail", "inconclusive")
_NAME = r"[A-Za-z][A-Za-z0-9_.@-]*"
PLACEHOLDER = re.compile(rf"\{{(>?)({_NAME}(?:, {_NAME})*)(?::([^{{}}]+))?\}}")
VALUE_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Template:
    """A finding or passage as written in the data: its prose with placeholders, and its own fields."""

    text: str
    quoted: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Rendered:
    """A finding rendered: its prose and every field it quotes, its includes' fields among them."""

    text: str
    quoted: dict[str, str]
    values: dict[str, float]


def shortest(value: float) -> str:
    """``value`` as the findings print numbers by default: ints as is, floats in their shortest exact form with
    an unpadded exponent (5.4e-7, not 5.4e-07)."""
    return exact_text(value)


def render(name: str, sources: Mapping[str, Template], _seen: tuple[str, ...] = ()) -> Rendered:
    """The finding or passage ``name`` of ``sources`` rendered (ValueError on an unknown or unused field)."""
    if name in _seen:
        raise ValueError(f"{name}: includes itself ({' -> '.join((*_seen, name))})")
    if name not in sources:
        raise ValueError(f"{_seen[-1] if _seen else name}: includes unknown passage or finding {name!r}")
    template = sources[name]
    _check_fields(name, template)
    quoted, values, used = dict(template.quoted), dict(template.values), set()

    def substitute(match: re.Match) -> str:
        include, names, spec = match.group(1), match.group(2).split(", "), match.group(3)
        if include:
            inner = render(names[0], sources, (*_seen, name))
            _merge(name, quoted, inner.quoted)
            _merge(name, values, inner.values)
            return inner.text
        used.update(names)
        if len(names) == 1 and names[0] in template.values:
            value = template.values[names[0]]
            return format(value, spec) if spec else shortest(value)
        return _verdicts(name, names, template.quoted)

    text = PLACEHOLDER.sub(substitute, template.text)
    unused = sorted((set(template.quoted) | set(template.values)) - used)
    if unused:
        raise ValueError(f"{name}: fields {unused} are not used by its text")
    return Rendered(text, quoted, values)


def _verdicts(name: str, checks: list[str], quoted: Mapping[str, str]) -> str:
    unknown = [c for c in checks if c not in quoted]
    if unknown:
        raise ValueError(f"{name}: placeholder names {unknown}, neither a value nor a quoted check")
    verdicts = {quoted[c] for c in checks}
    if len(verdicts) != 1:
        raise ValueError(f"{name}: checks {checks} quoted together with different verdicts")
    return f"{', '.join(c.split('@')[0] for c in checks)} {verdicts.pop()}"


def _check_fields(name: str, template: Template) -> None:
    bad = [f"{c} = {v!r}" for c, v in template.quoted.items() if v not in VERDICTS]
    bad += [v for v in template.values if not VALUE_NAME.fullmatch(v)]
    bad += [
        f"{v} = {x!r}" for v, x in template.values.items() if isinstance(x, bool) or not isinstance(x, (int, float))
    ]
    bad += [v for v in template.values if v in template.quoted]
    if bad:
        raise ValueError(f"{name}: malformed fields {bad}")


def _merge(name: str, into: dict, extra: Mapping) -> None:
    clash = [k for k, v in extra.items() if k in into and into[k] != v]
    if clash:
        raise ValueError(f"{name}: included fields {clash} differ from its own")
    into.update(extra)
