"""The neighbouring datasets a program is replayed on: the records most likely to expose a bug in the code around
the noise.

Under **add-remove** a neighbour is D with one record removed or one added; under **replace-one**, D with one record
replaced.  The records tried (the bug classes of Cebere et al., PETS 2026, §5; Casacuberta et al., CCS 2022;
Lebeda et al. 2024):

* the domain's extremes (every numeric field at the lower, then at the upper end of its own declared range --
  ``bounds``, :mod:`.domain` -- or, undeclared, of the data's finite range);
* outliers beyond them (a field at ±10 × the largest magnitude seen or declared, and at ±1e6 of it): a sum released
  with the clipped data's sensitivity but computed on the raw data moves by far more than the bound;
* NaN and ±inf where the field is a float (they pass through ``np.clip``);
* a duplicate of an existing record, and a record of a class the data lacks (a new integer or string value);
* where a field declares its categories: a record of each of them (those the data lacks first, at most
  :data:`CATEGORIES`), and one of a value outside the set, instead of the class the data lacks (a histogram whose
  bins are the categories seen moves where the declared domain says it must not);
* the removal of the record holding the minimum, the maximum, the only member of the rarest class, the first and
  the last, and of records drawn at random: a domain, a size-dependent quantity or bounds taken from the data move.

Each candidate is named (``remove record 3 (the maximum)``) so that a witness reads as what it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from pdp_audit.audits.program.domain import Categories, Interval, fields_of

#: At most this many records are removed or replaced by position (beyond the named ones), drawn at random.
RANDOM_POSITIONS = 4
#: At most this many of a field's declared categories are named neighbours (those the data lacks first); the search
#: draws from all of them.
CATEGORIES = 16
#: The class a text field's record takes where the data lacks one (or the declared categories do).
NEW_CLASS = "__pdp_audit_new_class__"


@dataclass(frozen=True)
class Neighbour:
    """A neighbouring dataset and how it was made: ``position`` the record of D removed or replaced (None: a record
    added, as the last of D′); ``made``: D′ itself, or a function of no argument that makes it (what
    :func:`neighbours` gives: a list of neighbours holds no copy of the dataset); ``found_by``: the search that
    proposed it (empty: the named list); ``record``: the field values of the record put in (None: a record removed,
    or copied from D)."""

    name: str
    made: Any
    position: int | None = None
    found_by: str = ""
    record: dict | None = field(default=None, compare=False)

    @property
    def data(self) -> Any:
        """D′ (made anew at each reading where :attr:`made` is a function: the same dataset each time)."""
        return self.made() if callable(self.made) else self.made


def identity(neighbour: Neighbour) -> tuple:
    """What makes D′ from D, whatever its name: a removal by its position, a record put in by the change, the
    position and the record's values -- two neighbours of one identity are one dataset (a removal or a record the
    search proposes that the named list made already); a copy or a duplicate by its name."""
    change = neighbour.name.split(" ", 1)[0]
    if change == "remove" and neighbour.record is None and neighbour.position is not None:
        return ("remove", neighbour.position)
    if neighbour.record is not None:
        values = tuple(sorted((str(k), _canonical(v)) for k, v in neighbour.record.items()))
        return (change, neighbour.position, values)
    return ("named", neighbour.name)


def _canonical(value: Any) -> str:
    """A field's value as one string however it is typed (1, 1.0 and numpy's 1.0 alike; NaN as "nan")."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return repr(float(value))
    return str(value)


def _is_frame(data: Any) -> bool:
    return hasattr(data, "iloc") and hasattr(data, "columns")


def _numeric(values: np.ndarray) -> bool:
    return values.dtype.kind in "biuf"


def _bounds_of(bounds: Any, name: Any, values: np.ndarray) -> tuple[float, float] | None:
    """The declared range of field ``name``: ``bounds`` is None, one (low, high) for every numeric field, or a
    mapping of fields to their :class:`~.domain.Interval`, :class:`~.domain.Categories` or (low, high)."""
    if bounds is None:
        return None
    if isinstance(bounds, dict):
        declared = bounds.get(name)
        if isinstance(declared, Interval):
            return declared.low, declared.high
        if isinstance(declared, (tuple, list)):
            return float(declared[0]), float(declared[1])
        return None
    low, high = bounds
    return float(low), float(high)


def categories_of(bounds: Any, name: Any) -> tuple | None:
    """Field ``name``'s declared categories (None: none declared)."""
    declared = bounds.get(name) if isinstance(bounds, dict) else None
    return declared.values if isinstance(declared, Categories) else None


def outside(values: np.ndarray, categories: tuple) -> Any:
    """A value of the field's type outside its declared ``categories`` and the data's values (None where its type
    has none: a boolean field declaring both): the class it lacks for text, one above the largest for numbers."""
    kind = values.dtype.kind
    if kind == "b":
        return next((v for v in (False, True) if v not in categories), None)
    if kind in "iuf":
        finite = [float(v) for v in (*categories, *_finite(values).tolist()) if math.isfinite(float(v))]
        above = max(finite, default=0.0) + 1.0
        if kind == "f":
            return above
        info = np.iinfo(values.dtype)
        below = min(finite, default=0.0) - 1.0
        return int(above) if above <= info.max else int(below) if below >= info.min else None
    held = {v.decode() if isinstance(v, bytes) else str(v) for v in (*categories, *values.tolist())}
    new = NEW_CLASS
    while new in held:
        new += "_"
    return new.encode() if kind == "S" else new


#: The non-finite values a float field is given in a record added or put in place of one, and their names.
SPECIALS = ((math.nan, "NaN"), (math.inf, "+inf"), (-math.inf, "-inf"))


def non_finite(name: str) -> bool:
    """Whether the neighbour named ``name`` puts a record of NaN or ±inf in (:data:`SPECIALS`)."""
    return any(f"a record of {label}" in name for _, label in SPECIALS)


def changed(base: str, neighbour: str) -> str:
    """A neighbour's name as what it does to ``base``: ``D₁ with record 0 (the first) removed``."""
    for verb, done in (("remove ", "removed"), ("add ", "added")):
        if neighbour.startswith(verb):
            return f"{base} with {neighbour[len(verb) :]} {done}"
    if neighbour.startswith("replace ") and " by " in neighbour:
        where, what = neighbour[len("replace ") :].split(" by ", 1)
        return f"{base} with {where} replaced by {what}"
    return f"{base}′ = {neighbour}"


def candidate_records(data: Any, bounds: Any) -> list[tuple[str, dict]]:
    """Records to add or to put in place of one: (name, field values) -- the domain's ends, outliers beyond it, NaN
    and ±inf in float fields, a class the data lacks, a duplicate."""
    columns = fields_of(data)

    def record(fill: dict) -> dict:
        base = {name: values[0] if values.size else 0 for name, values in columns}
        base.update(fill)
        return base

    declared = {name for name, _ in columns if categories_of(bounds, name) is not None}
    numeric = [(name, values) for name, values in columns if _numeric(values) and name not in declared]
    out: list[tuple[str, dict]] = []
    if numeric:
        extremes = {name: _extremes(values) for name, values in numeric}
        out += [(what, record(_cast(fill, numeric))) for what, fill in _domain_ends(numeric, bounds, extremes)]
        out += [(what, record(_cast(fill, numeric))) for what, fill in _outliers(numeric, bounds, extremes)]
        floats = [name for name, values in numeric if values.dtype.kind == "f"]
        if floats:
            out += [(f"a record of {label}", record(dict.fromkeys(floats, special))) for special, label in SPECIALS]
    out += [(what, record(fill)) for what, fill in _new_classes([c for c in columns if c[0] not in declared])]
    out += [(what, record(fill)) for what, fill in _declared_classes(columns, bounds)]
    if len(data):
        out.append(("a duplicate of record 0", record({})))
    return out


def _finite(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values.astype(float))] if values.size else values


def _extremes(values: np.ndarray) -> tuple[float, float, float, float] | None:
    """A numeric field's finite values read once for the records tried: their minimum, maximum, first and largest
    magnitude (None where it has none)."""
    finite = _finite(values)
    if not finite.size:
        return None
    return float(finite.min()), float(finite.max()), abs(float(finite[0])), float(np.abs(finite).max())


def _domain_ends(numeric: list, bounds: Any, extremes: dict) -> list[tuple[str, dict]]:
    """Each numeric field at its declared bound (else the data's finite extreme; 0 and 1 where it has none)."""
    out = []
    for label, pick in (("lower", 0), ("upper", 1)):
        fill = {}
        for name, values in numeric:
            seen = extremes[name][:2] if extremes[name] is not None else (0.0, 1.0)
            fill[name] = (_bounds_of(bounds, name, values) or seen)[pick]
        out.append((f"a record at the domain's {label} end", fill))
    return out


def _outliers(numeric: list, bounds: Any, extremes: dict) -> list[tuple[str, dict]]:
    """Each numeric field at ±10 and ±1e6 times its largest magnitude (declared bounds, data, and at least 1)."""
    out = []
    for factor, label in ((10.0, "10 ×"), (1e6, "1e6 ×")):
        for sign in (1.0, -1.0):
            fill = {}
            for name, values in numeric:
                declared = _bounds_of(bounds, name, values)
                seen = extremes[name][2:] if extremes[name] is not None else (1.0,)  # first and largest, else 1
                largest = max([abs(float(v)) for v in declared or ()] + [*seen, 1.0])
                fill[name] = sign * factor * largest
            what = "above" if sign > 0 else "below"
            out.append((f"an outlier {what} the domain ({label} its largest magnitude)", fill))
    return out


def _new_classes(columns: list) -> list[tuple[str, dict]]:
    """For each integer or text field, a record of a class it lacks (booleans have none)."""
    out = []
    for name, values in columns:
        if not values.size or values.dtype.kind not in "iuOSU":
            continue
        new: Any = int(values.max()) + 1 if values.dtype.kind in "iu" else NEW_CLASS
        where = "" if name is None else f" in field {name!r}"
        out.append((f"a record of a class the data lacks{where}", {name: new}))
    return out


def _declared_classes(columns: list, bounds: Any) -> list[tuple[str, dict]]:
    """For each field that declares its categories, a record of each (those the data lacks first, at most
    :data:`CATEGORIES`) and one of a value outside them."""
    out = []
    for name, values in columns:
        categories = categories_of(bounds, name)
        if categories is None:
            continue
        held = {_canonical(v) for v in values.tolist()}
        lacking = [c for c in categories if _canonical(c) not in held]
        where = "" if name is None else f" in field {name!r}"
        for category in (lacking + [c for c in categories if _canonical(c) in held])[:CATEGORIES]:
            out.append((f"a record of category {_category_text(category)}{where}", {name: category}))
        beyond = outside(values, categories)
        if beyond is not None:
            out.append((f"a record of a value outside the declared categories{where}", {name: beyond}))
    return out


def _category_text(value: Any) -> str:
    return repr(value.decode() if isinstance(value, bytes) else value)


def _cast(fill: dict, numeric: list) -> dict:
    """Integer fields keep integers (an outlier of an integer field is its nearest integer); boolean fields booleans
    (a frame's boolean column refuses a number)."""
    kinds = {name: values.dtype for name, values in numeric}
    out: dict[Any, Any] = {}
    for name, value in fill.items():
        if kinds[name].kind == "b":
            out[name] = bool(value)
        elif kinds[name].kind in "iu" and math.isfinite(value):
            info = np.iinfo(kinds[name])
            out[name] = int(min(max(round(value), info.min), info.max))
        else:
            out[name] = value
    return out


def removable_positions(data: Any, seed: int) -> list[tuple[str, int]]:
    """Positions of records worth removing or replacing, named."""
    n = len(data)
    if n == 0:
        return []
    named: dict[int, str] = {0: "the first", n - 1: "the last"}
    for name, values in fields_of(data):
        where = "" if name is None else f" of field {name!r}"
        if _numeric(values) and values.size:
            as_float = values.astype(float)
            finite = np.where(np.isfinite(as_float), as_float, np.nan)
            if np.isfinite(finite).any():
                named.setdefault(int(np.nanargmin(finite)), f"the minimum{where}")
                named.setdefault(int(np.nanargmax(finite)), f"the maximum{where}")
        if values.dtype.kind in "iuOSUb" and values.size:
            kinds, first, counts = np.unique(values.astype(str), return_index=True, return_counts=True)
            rarest = int(np.argmin(counts))
            size = f"{counts[rarest]} record{'s' if counts[rarest] > 1 else ''}"
            named.setdefault(int(first[rarest]), f"the rarest class{where}, {size}")
    rng = np.random.default_rng(seed)
    for position in rng.permutation(n)[:RANDOM_POSITIONS]:
        named.setdefault(int(position), "drawn at random")
    return [(f"record {i} ({why})", i) for i, why in sorted(named.items())]


def _with_record(data: Any, fields: dict, position: int | None) -> Any:
    """``data`` with a record appended (``position`` None) or put in place of record ``position``."""
    if _is_frame(data):
        fast = _frame_set_in_place(data, fields, position)
        return fast if fast is not None else _frame_with_row(data, fields, position)
    return _array_with_record(np.asarray(data), fields, position)


def _frame_set_in_place(data: Any, fields: dict, position: int | None) -> Any:
    """Each field set in its column, whose dtype holds it: no frame built from a row (20 times faster); None where
    a column cannot hold its field (or an extension dtype refuses it: a category it lacks)."""
    import pandas as pd

    kinds = [np.empty(0, d if isinstance(d, np.dtype) else object) for d in data.dtypes]
    if not (len(data) and data.columns.is_unique and all(_fits(k, fields[c]) for k, c in zip(kinds, data.columns))):
        return None
    out = data.copy() if position is not None else pd.concat([data, data.iloc[:1]], ignore_index=True)
    at = len(data) if position is None else position
    try:
        for j, c in enumerate(data.columns):
            out.iat[at, j] = fields[c]
    except (TypeError, ValueError):
        return None
    return out


def _frame_with_row(data: Any, fields: dict, position: int | None) -> Any:
    """The frame with the record built as a row (appended), or put column by column (an object column where the
    column's dtype cannot hold its field)."""
    import pandas as pd

    row = pd.DataFrame([{c: fields[c] for c in data.columns}])
    if position is None:
        return pd.concat([data, row], ignore_index=True)
    out = data.copy()
    for c in data.columns:
        column = out[c].astype(object) if not _fits(out[c].to_numpy(), fields[c]) else out[c]
        column.iloc[position] = fields[c]
        out[c] = column
    return out


def _array_with_record(array: np.ndarray, fields: dict, position: int | None) -> np.ndarray:
    """The array with the record appended or put in place, in a dtype that holds both (floats where an integer
    array meets a float value)."""
    value: Any = fields[None] if array.ndim == 1 else [fields[j] for j in range(array.shape[1])]
    target: Any = np.result_type(array, np.asarray(value)) if array.dtype.kind != "O" else array.dtype
    if array.dtype.kind in "iu" and np.asarray(value).dtype.kind == "f":
        target = np.dtype(np.float64)
    row = np.asarray(value, dtype=target).reshape((1, *array.shape[1:]))
    if position is None:
        return np.concatenate([array.astype(target, copy=False), row])
    out = array.astype(target, order="C")  # a copy of its own (as ``astype(target).copy()``, without a second one)
    out[position] = row[0]
    return out


def _fits(values: np.ndarray, value: Any) -> bool:
    try:
        return np.asarray(value).astype(values.dtype) == value or (
            isinstance(value, float) and math.isnan(value) and values.dtype.kind == "f"
        )
    except (TypeError, ValueError, OverflowError):
        return False


def _without(data: Any, position: int) -> Any:
    if _is_frame(data):  # two slices joined: a fifth of ``drop`` and ``reset_index``'s time
        import pandas as pd

        return pd.concat([data.iloc[:position], data.iloc[position + 1 :]], ignore_index=True)
    return np.delete(np.asarray(data), position, axis=0)


def neighbours(data: Any, relation: str, bounds: Any, seed: int) -> list[Neighbour]:
    """Every neighbour tried (module notes), in a fixed order."""
    out: list[Neighbour] = []
    positions = removable_positions(data, seed)
    added = candidate_records(data, bounds)
    # each D′ is made when read, from a copy of D as it is now (the program's runs may change D in place)
    data = data.copy() if _is_frame(data) else np.array(data)
    if relation == "add-remove":
        out += [Neighbour(f"remove {name}", partial(_without, data, i), i) for name, i in positions]
        duplicate = None if _is_frame(data) else ("a duplicate of record 0", None)
        for name, fields in added:
            if name.startswith("a duplicate") and duplicate is not None:
                array = np.asarray(data)
                out.append(Neighbour("add " + name, partial(np.concatenate, [array, array[:1]])))
                continue
            if name.startswith("a duplicate"):
                import pandas as pd

                out.append(Neighbour("add " + name, partial(pd.concat, [data, data.iloc[:1]], ignore_index=True)))
                continue
            out.append(Neighbour(f"add {name}", partial(_with_record, data, fields, None), record=fields))
    else:
        for where, i in positions:
            for name, fields in added:
                if name.startswith("a duplicate"):
                    continue
                made = partial(_with_record, data, fields, i)
                out.append(Neighbour(f"replace {where} by {name}", made, i, record=fields))
            if len(data) > 1:
                other = 1 if i == 0 else 0
                replaced = partial(_copy_record, data, other, i)
                out.append(Neighbour(f"replace {where} by a copy of record {other}", replaced, i))
    return out


def _copy_record(data: Any, source: int, position: int) -> Any:
    if _is_frame(data):
        out = data.copy()
        # column by column: a whole row assigned at once fails on pandas' string columns (a row of mixed types)
        for column in range(data.shape[1]):
            out.iloc[position, column] = data.iloc[source, column]
        return out
    out = np.asarray(data).copy()
    out[position] = out[source]
    return out
