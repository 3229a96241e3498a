"""The declared domain of a record: what ``bounds`` says each field of a record may hold.

One spelling, read by one parser (:func:`declaration`) in every way in -- ``pdp-audit program --bounds``, a
deployment file's ``parameters.bounds``, a sweep cell's ``bounds``, the Python API's and the pytest plugin's
``bounds=``:

* ``LOW,HIGH``: every numeric field in [LOW, HIGH] (two finite numbers, LOW <= HIGH);
* ``COLUMN=LOW,HIGH;COLUMN={A,B,…}``: per field, a range (numeric fields) or a set of categories (a field of text,
  or of integer codes), entries separated by ``;``; a bare ``LOW,HIGH`` among them is the range of every numeric
  field not named.  A frame's field is named by its column, an array record's by its index (``0``, ``1``, …; a 1-D
  array's one field is ``0``).  A name or category is written bare, or as a JSON string (``"a;b"``) where it holds
  one of ``;=,{}"`` or begins or ends with a space.

A mapping ``{"age": (0, 120), "label": ["a", "b"]}`` (a TOML table in a file) or a list of one entry per field of an
array record ``[(0, 1), (0, 10)]`` is first written in that spelling (:func:`written`): a pair of numbers is a range,
any other list (or a set) of values is a category set -- so a category set of two numbers is a Python set ``{0, 1}``
or the text ``"{0,1}"``.

A field not named keeps what an undeclared field has: a numeric field the data's own range, a text field the
values the data holds and a class it lacks.  Which column a name means, and the categories as the column's type, are
read against the data (:func:`resolved`), before the program runs.
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from pdp_audit.verify.core.config import exact_text

#: The valid spellings, as every error about ``bounds`` ends.
FORM = "LOW,HIGH or COLUMN=LOW,HIGH;COLUMN={A,B,…} (e.g. age=0,120;label={a,b})"
#: The valid Python values, as every error about a ``bounds`` given as one ends.
VALUES = "(LOW, HIGH), {COLUMN: (LOW, HIGH) or [A, B, …]}, a list of one of them per field of an array record, or "
VALUES += FORM
#: The characters a bare name or category cannot hold (they are written as a JSON string).
SPECIAL = ';=,{}"'


@dataclass(frozen=True)
class Interval:
    """A numeric field's declared range [low, high] (finite, low <= high)."""

    low: float
    high: float


@dataclass(frozen=True)
class Categories:
    """A field's declared category set, in the order written: as text in a :class:`Declaration`, typed as the
    column's values once :func:`resolved` against the data."""

    values: tuple


@dataclass(frozen=True)
class Declaration:
    """What ``bounds`` declares: ``every``, the range of every numeric field not named (the bare ``LOW,HIGH``), and
    ``fields``, (name, domain) per field named, in the order written."""

    every: Interval | None
    fields: tuple[tuple[str, Interval | Categories], ...]


# ------------------------------------------------------------------------------------------------------------------
# The text
# ------------------------------------------------------------------------------------------------------------------
def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) of each token: ``word`` (bare, stripped; or a JSON string, decoded) or one of ``;=,{}``."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif char in ";=,{}":
            out.append((char, char))
            i += 1
        elif char == '"':
            try:
                word, i = json.JSONDecoder().raw_decode(text, i)
            except ValueError:
                raise ValueError("holds a quoted name or category that does not end") from None
            out.append(("word", word))
        else:
            end = i
            while end < len(text) and text[end] not in SPECIAL:
                end += 1
            out.append(("word", text[i:end].strip()))
            i = end
    return out


def declaration(text: str) -> Declaration:
    """``text`` read (module notes); ValueError saying what is wrong otherwise."""
    tokens = _tokens(text)
    entries: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for token in tokens:  # split on the ``;`` outside braces
        depth += {"{": 1, "}": -1}.get(token[0], 0)
        if token[0] == ";" and depth == 0:
            entries.append([])
        else:
            entries[-1].append(token)
    every: Interval | None = None
    named: dict[str, Interval | Categories] = {}
    for entry in entries:
        if len(entry) >= 2 and entry[0][0] == "word" and entry[1][0] == "=":
            name = entry[0][1]
            if name in named:
                raise ValueError(f"names column {name!r} twice")
            named[name] = _domain(entry[2:], name)
        elif every is None:
            domain = _domain(entry, None)
            if not isinstance(domain, Interval):
                raise ValueError("gives categories without naming their column")
            every = domain
        else:
            raise ValueError("gives two ranges without naming their columns")
    return Declaration(every, tuple(named.items()))


def _domain(tokens: list[tuple[str, str]], name: str | None) -> Interval | Categories:
    """A range ``LOW,HIGH`` or a category set ``{A,B,…}`` from its tokens."""
    kinds = "".join("w" if kind == "word" else kind for kind, _ in tokens)
    whose = "" if name is None else f" for column {name!r}"
    if not tokens:
        raise ValueError(f"gives no domain{whose}")
    if kinds == "{}":
        raise ValueError(f"gives an empty category set{whose}")
    if kinds == "w,w":
        return _interval(tokens[0][1], tokens[2][1], whose)
    if kinds.startswith("{") and kinds.endswith("}") and kinds[1:-1] == ",".join("w" * ((len(kinds) - 1) // 2)):
        values = tuple(word for kind, word in tokens[1:-1] if kind == "word")
        if any(not v for v in values):
            raise ValueError(f'gives an empty category{whose} (write it as "" if it is one)')
        twice = [v for i, v in enumerate(values) if v in values[:i]]
        if twice:
            raise ValueError(f"gives the category {twice[0]!r}{whose} twice")
        return Categories(values)
    raise ValueError(f"gives {_shown(tokens)!r}{whose}, which is neither LOW,HIGH nor {{A,B,…}}")


def _interval(low_text: str, high_text: str, whose: str) -> Interval:
    try:
        low, high = float(low_text), float(high_text)
    except ValueError:
        raise ValueError(f"gives {low_text},{high_text}{whose}, which is not two numbers") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"gives {low_text},{high_text}{whose}, whose ends are not both finite")
    if low > high:
        raise ValueError(f"gives {low_text},{high_text}{whose}, whose LOW is above its HIGH")
    return Interval(low, high)


def _shown(tokens: list[tuple[str, str]]) -> str:
    return "".join(word if kind == "word" else kind for kind, word in tokens)


def problem(text: str) -> str | None:
    """Why ``text`` is no declaration, ending with the valid form (``Option.check``), or None."""
    try:
        declaration(text)
    except ValueError as err:
        return f"{err}: it must be {FORM}"
    return None


# ------------------------------------------------------------------------------------------------------------------
# A mapping or a list, written as the text
# ------------------------------------------------------------------------------------------------------------------
def written(value: Any) -> str:
    """A declaration given as Python values (module notes) in the text's spelling (``Option.convert``); ValueError
    saying what is wrong otherwise."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if _is_pair(value):
        return _written_domain(value, None)
    if isinstance(value, Mapping):
        entries = [(key, v) for key, v in value.items()]
    elif isinstance(value, (list, tuple)):
        entries = list(enumerate(value))
    else:
        raise ValueError(f"must be {VALUES}")
    for key, _ in entries:
        if isinstance(key, bool) or not isinstance(key, (str, numbers.Integral)):
            raise ValueError(f"names a column by {key!r}, not by its name or its index: it must be {VALUES}")
    parts = [f"{_word(str(key))}={_written_domain(v, key)}" for key, v in entries if v is not None]
    if not parts:
        raise ValueError(f"declares no field: it must be {VALUES}")
    return ";".join(parts)


def _is_pair(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_number(v) for v in value)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _written_domain(value: Any, key: Any) -> str:
    """One field's domain as text: a pair ``LOW,HIGH``, a list or set of categories ``{A,B}``, or text as is."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, str):
        return value
    if _is_pair(value):
        return ",".join(exact_text(v) for v in value)
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=lambda v: (type(v).__name__, str(v)))
    if isinstance(value, (list, tuple)) and all(_is_category(v) for v in value):
        return "{" + ",".join(_category(v) for v in value) + "}"
    whose = "" if key is None else f" for column {key!r}"
    given = str(value)[:60]
    raise ValueError(f"gives {given}{whose}, which is neither (LOW, HIGH) nor categories: it must be {VALUES}")


def _is_category(value: Any) -> bool:
    return isinstance(value, (str, numbers.Real, bool, np.bool_))


def _category(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return exact_text(float(value))
    return _word(value)


def _word(text: str) -> str:
    """``text`` bare where it reads back so, else as a JSON string."""
    bare = text and text == text.strip() and not any(c in SPECIAL for c in text)
    return text if bare else json.dumps(text, ensure_ascii=False)


# ------------------------------------------------------------------------------------------------------------------
# Against the data
# ------------------------------------------------------------------------------------------------------------------
def fields_of(data: Any) -> list[tuple[Any, np.ndarray]]:
    """(key, values) of each field: the columns of a frame, of a 2-D array, or the one field (key None) of a 1-D
    array."""
    if hasattr(data, "iloc") and hasattr(data, "columns"):
        return [(c, data[c].to_numpy()) for c in data.columns]
    array = np.asarray(data)
    if array.ndim == 1:
        return [(None, array)]
    return [(j, array[:, j]) for j in range(array.shape[1])]


def resolved(declared: Declaration, data: Any) -> dict[Any, Interval | Categories]:
    """Each field's declared domain keyed as :func:`fields_of` keys it -- the named fields', the bare range of every
    other numeric field -- with categories typed as the column's values; ValueError naming what does not fit the data
    (a column it lacks, a range for text, a category its type cannot hold)."""
    columns = fields_of(data)
    out: dict[Any, Interval | Categories] = {}
    for name, domain in declared.fields:
        key, values = _column(name, columns, data)
        if key in out:
            raise ValueError(f"names field {name!r} twice (as {name!r} and by another spelling)")
        out[key] = _fitted(name, domain, values)
    if declared.every is not None:
        for key, values in columns:
            if key not in out and values.dtype.kind in "biuf":
                out[key] = declared.every
    return out


def _column(name: str, columns: list[tuple[Any, np.ndarray]], data: Any) -> tuple[Any, np.ndarray]:
    """The field ``name`` means: a frame's column whose name reads so, an array's field by its index."""
    if hasattr(data, "iloc") and hasattr(data, "columns"):
        found = [(key, values) for key, values in columns if str(key) == name]
        if len(found) == 1:
            return found[0]
        if found:
            raise ValueError(f"names column {name!r}, which the data has {len(found)} times")
        listed = ", ".join(repr(str(key)) for key, _ in columns[:20]) + (", …" if len(columns) > 20 else "")
        raise ValueError(f"names column {name!r}, which the data lacks (its columns: {listed})")
    count = len(columns)
    if name.isdigit() and int(name) < count:
        return columns[int(name)]
    valid = "0 (its one field)" if count == 1 and columns[0][0] is None else f"0 to {count - 1}"
    raise ValueError(f"names field {name!r}; an array record's fields are named by their index, {valid}")


def _fitted(name: str, domain: Interval | Categories, values: np.ndarray) -> Interval | Categories:
    kind = values.dtype.kind
    if isinstance(domain, Interval):
        if kind not in "biuf":
            raise ValueError(f"gives a range for column {name!r}, which holds {_held(values)} (declare its categories)")
        return domain
    if kind not in "biufOSU":
        raise ValueError(f"gives categories for column {name!r}, which holds {values.dtype}")
    held: dict[str, Any] = {}
    if kind == "O":  # a value the data holds that reads as the category (an object column of numbers)
        for value in values:
            held.setdefault(str(value), value)
    typed = tuple(held.get(text, text) if kind == "O" else _typed(text, values, name) for text in domain.values)
    twice = [v for i, v in enumerate(typed) if v in typed[:i]]
    if twice:
        raise ValueError(f"gives the category {twice[0]!r} of column {name!r} twice")
    return Categories(typed)


def _held(values: np.ndarray) -> str:
    return "text" if values.dtype.kind in "OSU" else str(values.dtype)


def _typed(text: str, values: np.ndarray, name: str) -> Any:
    """A category written ``text`` as a value of the column ``values``."""
    kind = values.dtype.kind
    if kind == "b":
        truth = {"true": True, "1": True, "false": False, "0": False}.get(text.lower())
        if truth is None:
            raise ValueError(f"gives the category {text!r} for column {name!r}, which holds booleans (true, false)")
        return truth
    if kind in "iuf":
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if kind == "f" and math.isfinite(number):
            return number
        if kind in "iu" and number.is_integer():
            info = np.iinfo(values.dtype)
            if info.min <= number <= info.max:
                return int(text) if text.lstrip("+-").isdigit() else int(number)
        what = "finite numbers" if kind == "f" else f"whole numbers ({values.dtype})"
        raise ValueError(f"gives the category {text!r} for column {name!r}, which holds {what}")
    if kind == "S":
        return text.encode()
    return text
