"""What is read back from a sweep store, checked before anything uses it.

A store is a file: it can be damaged, edited by hand, or written by another program.  Every value a report, the
CSV or a resumed sweep reads -- the spec kept in the store's meta table and every cell's row -- is checked here
for the type and the range its readers rely on; a damaged store is one :class:`SpecError` naming the store, the
cell and what is wrong (exit 2), never an internal error and never a report of values that are not results.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeGuard

from pdp_audit.sweeps.schema import SpecError
from pdp_audit.sweeps.spec import cell_digest
from pdp_audit.verify.core.checks import worst
from pdp_audit.verify.inputs.validation import quoted, shown

VERDICTS = ("pass", "fail", "inconclusive")
#: The columns of a cell's row that hold JSON text (decoded by :func:`decoded_row`).
JSON_COLUMNS = ("parameters", "estimates", "checks", "effective")


class DamagedStore(SpecError):
    """A store whose content is not what pdp-audit writes (one line naming the store, the cell and the value)."""


def _damaged(path: str, where: str, what: str) -> DamagedStore:
    return DamagedStore(f"{shown(path)}: the store is damaged: {where}: {what}")


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _number_or_none(value: Any) -> bool:
    return value is None or _is_number(value)


def _cell_name(record: dict) -> str:
    cell_id = record.get("cell_id")
    return f"cell {quoted(cell_id)}" if isinstance(cell_id, str) else "a cell"


def decoded_row(path: str, record: dict) -> dict:
    """The row with its JSON columns decoded; DamagedStore naming the cell and the column otherwise."""
    for column in JSON_COLUMNS:
        try:
            record[column] = json.loads(record[column])
        except (TypeError, ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
            raise _damaged(path, _cell_name(record), f"its {column} is not JSON text") from None
    return record


def check_cell(path: str, record: dict, swept: list[str]) -> None:
    """A stored cell (a decoded row of ``cells``) as the readers use it, else DamagedStore naming it."""
    where = _cell_name(record)
    if not isinstance(record.get("cell_id"), str):
        raise _damaged(path, where, f"its id must be text, got {record.get('cell_id')!r}")
    for key in ("position", "seed"):
        if not isinstance(record.get(key), int) or isinstance(record.get(key), bool):
            raise _damaged(path, where, f"its {key} must be a whole number, got {record.get(key)!r}")
    if not _is_number(record.get("alpha")) or not 0 < record["alpha"] < 1:
        raise _damaged(path, where, f"its alpha must be a number in (0, 1), got {record.get('alpha')!r}")
    if not isinstance(record.get("code_version"), str):
        raise _damaged(path, where, f"its code_version must be text, got {record.get('code_version')!r}")
    if record.get("verdict") not in VERDICTS:
        raise _damaged(path, where, f"unknown verdict {record.get('verdict')!r} (one of {', '.join(VERDICTS)})")
    _check_parameters(path, where, record.get("parameters"), swept)
    for column in ("estimates", "effective"):
        if not isinstance(record.get(column), dict):
            raise _damaged(path, where, f"its {column} must be a table, got {type(record.get(column)).__name__}")
    checks = record.get("checks")
    if not isinstance(checks, list):
        raise _damaged(path, where, f"its checks must be a list, got {_json_type(checks)}")
    if not checks:  # every mechanism's cell decides at least one check: a verdict of none would be vacuous
        raise _damaged(path, where, "it has no checks, so its verdict rests on nothing")
    for index, check in enumerate(checks):
        _check_check(path, f"{where}, checks[{index}]", check)
    decided = decided_verdict(checks)
    if record["verdict"] != decided:  # a report states the verdict its checks decide, or refuses the store
        raise _damaged(path, where, f"its verdict is {record['verdict']!r}, but its checks decide {decided!r}")


def decided_verdict(checks: list[dict]) -> str:
    """The verdict a cell's checks decide, as the sweep decided it when it stored the cell: the worst verdict of the
    guarantees, or of the paper findings when the sweep asked for findings only."""
    guarantees = [c["verdict"] for c in checks if c.get("role", "guarantee") == "guarantee"]
    return worst(guarantees or [c["verdict"] for c in checks])


def _check_parameters(path: str, where: str, parameters: Any, swept: list[str]) -> None:
    if not isinstance(parameters, dict):
        raise _damaged(path, where, f"its parameters must be a table, got {_json_type(parameters)}")
    for key, value in parameters.items():
        if not _is_scalar(value):
            raise _damaged(path, where, f"parameter {quoted(key)} must be a single value, got {_json_type(value)}")
    missing = [key for key in swept if key not in parameters]
    if missing:
        raise _damaged(path, where, f"it has no value of the swept parameter {quoted(missing[0])}")


def _check_check(path: str, where: str, check: Any) -> None:
    """One check record of a cell: an id, a verdict, numbers where the report plots numbers."""
    if not isinstance(check, dict):
        raise _damaged(path, where, f"a check must be a table, got {_json_type(check)}")
    if not isinstance(check.get("id"), str) or not check["id"]:
        raise _damaged(path, where, f"a check needs an id (text), got {check.get('id')!r}")
    where = f"{where} ({quoted(check['id'])})"
    if check.get("verdict") not in VERDICTS:
        raise _damaged(path, where, f"unknown verdict {check.get('verdict')!r} (one of {', '.join(VERDICTS)})")
    for key in ("estimate", "exact", "level"):
        if not _number_or_none(check.get(key)):
            raise _damaged(path, where, f"its {key} must be a number or null, got {check.get(key)!r}")
    ci = check.get("ci")
    if ci is not None and not (isinstance(ci, list) and len(ci) == 2 and all(_number_or_none(x) for x in ci)):
        raise _damaged(path, where, f"its ci must be null or two numbers, got {ci!r}")
    for key in ("role", "title"):
        if key in check and not isinstance(check[key], str):
            raise _damaged(path, where, f"its {key} must be text, got {check[key]!r}")
    details = check.get("details")
    if details is None:
        return
    if not isinstance(details, dict):
        raise _damaged(path, where, f"its details must be a table, got {_json_type(details)}")
    if not _number_or_none(details.get("delta_claim")):
        raise _damaged(path, where, f"its details.delta_claim must be a number, got {details['delta_claim']!r}")
    curves = details.get("curves")
    if curves is not None and not (
        isinstance(curves, dict) and all(isinstance(k, str) and _number_or_none(v) for k, v in curves.items())
    ):
        raise _damaged(path, where, "its details.curves must be a table of numbers")


def check_spec(path: str, spec: Any) -> None:
    """The spec a store keeps (its meta table's ``spec``) as the readers use it, else DamagedStore."""
    where = "its spec"
    if not isinstance(spec, dict):
        raise _damaged(path, where, f"must be a table, got {_json_type(spec)}")
    for key in ("name", "mechanism"):
        if not isinstance(spec.get(key), str):
            raise _damaged(path, where, f"{key} must be text, got {spec.get(key)!r}")
    if "description" in spec and not isinstance(spec["description"], str):
        raise _damaged(path, where, f"description must be text, got {spec['description']!r}")
    if not isinstance(spec.get("seed"), int) or isinstance(spec.get("seed"), bool):
        raise _damaged(path, where, f"seed must be a whole number, got {spec.get('seed')!r}")
    for key in ("alpha", "alpha_per_cell"):
        value = spec.get(key)
        if not _is_number(value) or not math.isfinite(value) or not 0 < value < 1:
            raise _damaged(path, where, f"{key} must be a number in (0, 1), got {value!r}")
    for key, optional in (("checks", True), ("swept", False)):
        value = spec.get(key)
        if (value is not None or not optional) and not _texts(value):
            raise _damaged(path, where, f"{key} must be a list of names, got {value!r}")
    cells = spec.get("cells")
    if not isinstance(cells, list):
        raise _damaged(path, where, f"cells must be a list, got {_json_type(cells)}")
    for index, cell in enumerate(cells):
        _check_spec_cell(path, f"{where}, cells[{index}]", cell, spec["swept"])
    _check_spec_identities(path, spec["mechanism"], cells)


def _cell_id(mechanism: str, parameters: dict) -> str | None:
    """The id a cell of ``mechanism`` with ``parameters`` has (:func:`pdp_audit.sweeps.spec.cell_digest`, the
    first 16 hex digits), or None where the parameters have no canonical JSON (NaN)."""
    try:
        return cell_digest(mechanism, parameters).hex()[:16]
    except ValueError:
        return None


def _check_spec_identities(path: str, mechanism: str, cells: list[dict]) -> None:
    """Each spec cell's id is the hash of the spec's mechanism and the cell's parameters (so an edited mechanism,
    parameter or id shows), listed once, at a position of its own in 0 … len(cells) − 1."""
    ids: set[str] = set()
    positions: set[int] = set()
    for cell in cells:
        where = f"its spec, cell {quoted(cell['id'])}"
        if _cell_id(mechanism, cell["parameters"]) != cell["id"]:
            raise _damaged(
                path, where, f"its id is not the hash of the mechanism {quoted(mechanism)} and its parameters"
            )
        if cell["id"] in ids:
            raise _damaged(path, where, "it is listed twice")
        if not 0 <= cell["position"] < len(cells) or cell["position"] in positions:
            what = f"its position {cell['position']} is not a position of its own in 0 … {len(cells) - 1}"
            raise _damaged(path, where, what)
        ids.add(cell["id"])
        positions.add(cell["position"])


def check_cells_in_spec(path: str, spec: dict, identity: dict, rows: list[dict]) -> None:
    """Every stored cell is one of the spec's cells, once, with that cell's parameters (so its id is their hash),
    position and seed; the identity lists the spec's cells.  A cell inserted with a new id, a renamed id, edited
    parameters or a moved position is DamagedStore naming it (it would be reported as a result of the spec)."""
    by_id = {cell["id"]: cell for cell in spec["cells"]}
    if set(identity["cells"]) != set(by_id):
        raise _damaged(path, "its identity", "its cells are not the spec's cells")
    seen: set[str] = set()
    for record in rows:
        where = _cell_name(record)
        cell = by_id.get(record["cell_id"])
        if cell is None:
            raise _damaged(path, where, f"it is not one of the spec's {len(by_id)} cells")
        if record["cell_id"] in seen:
            raise _damaged(path, where, "it is stored twice")
        seen.add(record["cell_id"])
        if _cell_id(spec["mechanism"], record["parameters"]) != record["cell_id"]:
            raise _damaged(path, where, "its parameters do not match its id (the hash of the mechanism and parameters)")
        for key, spec_key in (("position", "position"), ("seed", "seed")):
            if spec_key in cell and record[key] != cell[spec_key]:
                raise _damaged(path, where, f"its {key} is {record[key]!r}, the spec's cell has {cell[spec_key]!r}")


def _check_spec_cell(path: str, where: str, cell: Any, swept: list[str]) -> None:
    if not isinstance(cell, dict):
        raise _damaged(path, where, f"must be a table, got {_json_type(cell)}")
    if not isinstance(cell.get("id"), str):
        raise _damaged(path, where, f"its id must be text, got {cell.get('id')!r}")
    if not isinstance(cell.get("position"), int) or isinstance(cell.get("position"), bool):
        raise _damaged(path, where, f"its position must be a whole number, got {cell.get('position')!r}")
    _check_parameters(path, where, cell.get("parameters"), [])


def check_texts(path: str, values: dict[str, Any]) -> None:
    """Meta values that must be text (the spec's TOML source, the creation time), else DamagedStore."""
    for key, value in values.items():
        if not isinstance(value, str):
            raise _damaged(path, f"its {key}", f"must be text, got {_json_type(value)}")


def check_identity(path: str, identity: Any) -> None:
    """What a resumed sweep compares with its spec (the meta table's ``identity``), else DamagedStore."""
    where = "its identity"
    if not isinstance(identity, dict):
        raise _damaged(path, where, f"must be a table, got {_json_type(identity)}")
    missing = [key for key in ("mechanism", "seed", "alpha", "checks", "cells") if key not in identity]
    if missing:
        raise _damaged(path, where, f"it has no {missing[0]}")
    if not _texts(identity["cells"]):
        raise _damaged(path, where, "its cells must be a list of cell ids")
    data = identity.get("data", {})
    if not (isinstance(data, dict) and all(isinstance(v, str) for v in data.values())):
        raise _damaged(path, where, "its data must be a table of SHA-256 digests")


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _json_type(value: Any) -> str:
    """How a JSON value's type reads in a message."""
    names = {dict: "a table", list: "a list", str: "text", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if _is_number(value) else type(value).__name__)
