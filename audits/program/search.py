"""The neighbour search of a program audit: beyond the named neighbours (:mod:`.neighbours`), further neighbouring
datasets proposed by the black box's strategies (:mod:`pdp_audit.verify.core.candidate_search`: random, or optuna's
TPE) and ranked by the deterministic replay's own criterion.

A candidate is a point of a box: under **replace-one** the position of the record replaced and the new record's
field values; under **add-remove** whether a record is added (its field values) or removed (its position).  A
numeric field's value is drawn either inside its declared domain (``bounds``; else the data's finite range) or
beyond it, in [−10·M, 10·M] with M the largest magnitude declared or seen (the scale of the named outliers), each
field in its own range (:mod:`.domain`: ``bounds`` per column): a bug that shows only on values the named list does
not try (a branch taken in a middle range of values) is found where a value lands in its range.  Integer fields take
the nearest whole number; boolean fields either value; a field that declares its categories one of them or a value
outside them (:func:`~.neighbours.outside`); other text and object fields one of the values the data holds (the 32
most frequent) or a class it lacks.

**The criterion** of a candidate is its pair's :func:`~pdp_audit.audits.program.findings.criterion`, so that TPE
climbs towards the largest sensitivity ratio before any finding shows.  TPE starts from the named neighbours that
are points of its box (:func:`located`), told their pairs' criterion: they are already judged, not replayed again.

**Validity.**  The search only selects.  Each pair's structural verdict is exact for that pair (the replay with D's
recorded draws and the exact composition of its steps), so searching more pairs adds no false alarm to the exact
checks; the worst pair found is confirmed by the black box on fresh draws (streams of the run's seed that neither
the recording nor the search drew from): given the search, the witness is fixed, and the confirmation is one
level-α test of one fixed pair -- the sample-splitting argument of the black box's own search (DP-Sniper, Bichsel
et al., S&P 2021; Ding et al., CCS 2018).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from pdp_audit.audits.program.domain import fields_of
from pdp_audit.audits.program.neighbours import (
    NEW_CLASS,
    Neighbour,
    _bounds_of,
    _cast,
    _finite,
    _with_record,
    _without,
    categories_of,
    outside,
)
from pdp_audit.verify.core.candidate_search import Parameter

#: How neighbours are searched: the named list only, or the named list then candidates proposed at random or by
#: optuna's TPE.
SEARCHES = ("named", "random", "optuna")
#: How each strategy reads in a report.
HOW = {"random": "the random search", "optuna": "optuna's TPE search"}
#: The values a text field's candidate takes at most (the most frequent), besides a class the data lacks.
CHOICES = 32
#: How many of optuna's candidates are proposed before their scores are told (the replays of a batch share a session).
BATCH = 8


@dataclass(frozen=True)
class Budget:
    """The search's budget: ``strategy`` in :data:`SEARCHES`, ``candidates`` proposed beyond the named list."""

    strategy: str = "named"
    candidates: int = 0

    @property
    def active(self) -> bool:
        return self.strategy != "named" and self.candidates > 0


@dataclass(frozen=True)
class Field:
    """One field of a record as the search sets it: ``kind`` ``"number"`` (inside ``domain`` or beyond, to ±
    ``reach``), ``"choice"`` (one of ``values``) or ``"kept"`` (another dtype: the replaced record's own value)."""

    name: Any
    kind: str
    dtype: Any = None
    domain: tuple[float, float] = (0.0, 1.0)
    reach: float = 10.0
    values: tuple = ()


def fields(data: Any, bounds: Any) -> list[Field]:
    """How the search sets each field of ``data`` (module notes)."""
    out = []
    for name, values in fields_of(data):
        kind = values.dtype.kind
        categories = categories_of(bounds, name)
        if categories is not None:
            beyond = outside(values, categories)
            out.append(Field(name, "choice", values.dtype, values=(*categories, *([] if beyond is None else [beyond]))))
        elif kind in "iuf":
            finite = _finite(values).astype(float)
            seen = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            low, high = _bounds_of(bounds, name, values) or seen
            if high <= low:
                low, high = low - max(1.0, abs(low)) / 2, high + max(1.0, abs(high)) / 2
            magnitude = max([abs(low), abs(high), 1.0] + ([float(np.abs(finite).max())] if finite.size else []))
            out.append(Field(name, "number", values.dtype, (low, high), 10.0 * magnitude))
        elif kind == "b":
            out.append(Field(name, "choice", values.dtype, values=(False, True)))
        elif kind in "OSU":
            common = [v for v, _ in Counter(values.tolist()).most_common(CHOICES)]
            out.append(Field(name, "choice", values.dtype, values=(*common, NEW_CLASS)))
        else:
            out.append(Field(name, "kept", values.dtype))
    return out


def space(data: Any, relation: str, columns: list[Field]) -> list[Parameter]:
    """The box the strategies search (module notes): ``op`` (add-remove), ``position``, ``region`` and one
    coordinate per field set."""
    n = len(data)
    out = []
    if relation == "add-remove":
        out.append(Parameter("op", "choice", choices=("add", "remove") if n else ("add",)))
    if n:
        out.append(Parameter("position", "int", 0, n - 1))
    if any(f.kind == "number" for f in columns):
        out.append(Parameter("region", "choice", choices=("domain", "beyond")))
    for j, f in enumerate(columns):
        if f.kind == "number":
            out.append(Parameter(f"u{j}", "float", 0.0, 1.0))
        elif f.kind == "choice":
            out.append(Parameter(f"c{j}", "int", 0, len(f.values) - 1))
    return out


def _record(data: Any, columns: list[Field], params: dict, position: int) -> dict:
    """The field values of the candidate ``params`` (a kept field: record ``position``'s own value)."""
    values = dict(fields_of(data))
    fill, numbers = {}, []
    for j, f in enumerate(columns):
        if f.kind == "number":
            u = float(params[f"u{j}"])
            low, high = f.domain if params.get("region") == "domain" else (-f.reach, f.reach)
            fill[f.name] = low + u * (high - low)
            numbers.append((f.name, values[f.name]))
        elif f.kind == "choice":
            fill[f.name] = f.values[int(params[f"c{j}"])]
        else:
            fill[f.name] = values[f.name][position] if len(data) else 0
    cast = _cast({k: fill[k] for k, _ in numbers}, numbers)
    return {**fill, **cast}


def _shown(record: dict) -> str:
    """The record's fields, the first four, as ``x = 412.3, g = 'b'``."""
    parts = []
    for name, value in list(record.items())[:4]:
        text = f"{value:.6g}" if isinstance(value, float) else repr(value.item() if hasattr(value, "item") else value)
        parts.append(text if name is None else f"{name} = {text}")
    more = ", …" if len(record) > 4 else ""
    return ", ".join(parts) + more


def proposed(data: Any, relation: str, columns: list[Field], params: dict, how: str) -> Neighbour:
    """The neighbour of the candidate ``params``, named by what it changes and ``how`` it was found."""
    position = int(params.get("position", 0))
    if relation == "add-remove" and params.get("op") == "remove":
        shown = _shown(_record(data, [Field(f.name, "kept") for f in columns], {}, position))
        return Neighbour(f"remove record {position} ({shown})", partial(_without, data, position), position, how)
    record = _record(data, columns, params, position)
    shown = _shown(record)
    if relation == "add-remove":
        return Neighbour(f"add a searched record ({shown})", partial(_with_record, data, record, None), None, how)
    made = partial(_with_record, data, record, position)
    return Neighbour(f"replace record {position} by a searched record ({shown})", made, position, how)


def located(data: Any, relation: str, columns: list[Field], neighbour: Neighbour) -> dict | None:
    """The point of the box whose :func:`proposed` neighbour is the named ``neighbour`` -- the same record removed, or
    the same field values put in at the same place -- or None where the box holds none: a value beyond ±``reach``
    (the 1e6 outliers), NaN or ±inf, a text value not among a field's choices, a copy of a record of D, or a value
    the box's map u ↦ low + u·(high − low) does not give back exactly (each point is checked by that map)."""
    if neighbour.record is None:  # a removal (add-remove) or a copy of a record (replace-one)
        removal = relation == "add-remove" and neighbour.position is not None
        return {"op": "remove", "position": neighbour.position} if removal else None
    record, position = neighbour.record, neighbour.position
    params: dict[str, Any] = {"op": "add"} if relation == "add-remove" else {}
    if len(data):
        params["position"] = 0 if position is None else position  # an added record's other fields: record 0's
    points = _number_points(columns, record)
    choices = _choice_points(columns, record)
    if points is None or choices is None:
        return None
    params.update(points)
    params.update(choices)
    made = _record(data, columns, params, int(params.get("position", 0)))
    same = made.keys() == record.keys() and all(_same(made[k], record[k]) for k in record)
    return params if same else None


def _number_points(columns: list[Field], record: dict) -> dict | None:
    """The region and each number field's point u in [0, 1] of the box that gives ``record``'s values back, or None
    where a value is beyond the region (NaN and ±inf are)."""
    numbers = [(j, f, float(record[f.name])) for j, f in enumerate(columns) if f.kind == "number"]
    if not numbers:
        return {}
    inside = all(f.domain[0] <= v <= f.domain[1] for _, f, v in numbers)
    params: dict[str, Any] = {"region": "domain" if inside else "beyond"}
    for j, f, v in numbers:
        low, high = f.domain if inside else (-f.reach, f.reach)
        if not low <= v <= high:  # NaN and ±inf fail too
            return None
        params[f"u{j}"] = (v - low) / (high - low)
    return params


def _choice_points(columns: list[Field], record: dict) -> dict | None:
    """Each text field's index among its choices, or None where a value is not among them."""
    params = {}
    for j, f in enumerate(columns):
        if f.kind == "choice":
            where = [i for i, value in enumerate(f.values) if _same(value, record[f.name])]
            if not where:
                return None
            params[f"c{j}"] = where[0]
    return params


def _same(a: Any, b: Any) -> bool:
    """The same value of the same kind (numpy's or Python's: 1, 1.0 and True are three records)."""
    return np.asarray(a).dtype.kind == np.asarray(b).dtype.kind and bool(np.asarray(a == b).all())


def found_by(strategy: str, index: int, count: int) -> str:
    """How a proposed candidate reads in a report: ``the random search (candidate 3 of 32)``."""
    word = "trial" if strategy == "optuna" else "candidate"
    return f"{HOW[strategy]} ({word} {index + 1} of {count})"
