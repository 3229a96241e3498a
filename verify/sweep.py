"""Parameter sweeps: a TOML spec names a mechanism, its fixed parameters and a grid; each grid point
(a *cell*) is one audit, run anywhere, stored once.

Spec format (see ``examples/*.toml``)::

    [sweep]
    name = "gaussian-small"        # optional, default: the file's stem
    mechanism = "gaussian"         # a name registered with register_sweep (verify/sweep_catalogue.py)
    seed = 0                       # root seed (default 0)
    alpha = 1e-6                   # family-wise false-alarm probability of the whole sweep (default 1e-6)
    checks = ["dp-forward", "dp-reverse", "lr-attack"]   # optional subset of the audit's checks

    [fixed]                        # parameters shared by every cell
    trials = 1e5

    [grid]                         # cartesian product, in the order written
    epsilon = [0.5, 1.0]
    sigma_scale = [0.7, 1.0, 1.5]

    [[cells]]                      # explicit extra cells (each overrides [fixed])
    epsilon = 2.0
    sigma = 2.5

**Seeding.**  A cell's identity is the SHA-256 of its canonical parameters (mechanism name plus every
parameter, defaults filled in, floats and ints normalised, keys sorted) -- not its position in the
grid.  Its seed is drawn from ``SeedSequence(root_seed, spawn_key=<the first 128 bits of that hash>)``,
and the audit engine keys every chunk (block) of the cell's samples by ``(cell seed, stream, block)``.
So a cell's numbers depend only on the root seed, its parameters and the code: not on the grid it
sits in, the executor, the number of workers or the order cells finish in.

**Scheduling.**  Cells are submitted largest first (by the mechanism's cost estimate).  A cell whose
cost exceeds a worker's fair share of the sweep is split: its seeded chunks (the engine's blocks) run
as separate tasks spread over all workers (see :func:`verify.executors.cells_to_split`), with the
same numbers as when the cell runs whole.

**Family-wise error.**  The sweep's α is split evenly over its cells (Bonferroni): each cell is
audited at ``α / cells`` (Holm over the cell's statistical checks), so the probability that *any*
check of *any* cell of a correct mechanism fails is at most α.
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

MAX_CELLS = 100_000


class SpecError(ValueError):
    """A bad spec: one line naming the file and the key."""


# --------------------------------------------------------------------------------------------------
# Parameter schemas


_REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a mechanism's sweep cells: its type, default and valid range.

    ``kind`` is ``"float"``, ``"int"`` or ``"str"``.  Numbers are checked against ``low``/``high``
    (``open_low``/``open_high`` exclude the end points); ``choices`` restricts strings; ``keywords``
    are strings also accepted by a numeric parameter (e.g. ``sigma = "calibrated"``).
    """

    kind: str
    default: Any = _REQUIRED
    help: str = ""
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    def range_text(self) -> str:
        if self.kind == "str":
            return "one of " + ", ".join(repr(c) for c in self.choices) if self.choices else "a string"
        what = "a whole number" if self.kind == "int" else "a finite number"
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.open_low else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.open_high else '<='} {self.high:g}")
        if self.low is not None and self.high is not None:
            lo, hi = ("(" if self.open_low else "["), (")" if self.open_high else "]")
            text = f"{what} in {lo}{self.low:g}, {self.high:g}{hi}"
        else:
            text = f"{what} " + " and ".join(parts) if parts else what
        if self.keywords:
            text += " or " + " or ".join(repr(k) for k in self.keywords)
        return text

    def coerce(self, where: str, value: Any) -> Any:
        """The canonical value, or SpecError naming ``where``."""
        def bad() -> SpecError:
            return SpecError(f"{where} must be {self.range_text()}, got {value!r}")

        if isinstance(value, str) and value in self.keywords:
            return value
        if self.kind == "str":
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise bad()
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad()
        number = float(value)
        if not math.isfinite(number):
            raise bad()
        if self.kind == "int":
            if number != int(number):
                raise bad()
            number = int(value) if isinstance(value, int) else int(number)
        if self.low is not None and (number < self.low or (self.open_low and number == self.low)):
            raise bad()
        if self.high is not None and (number > self.high or (self.open_high and number == self.high)):
            raise bad()
        return number


Schema = dict[str, Param]
CellFunction = Callable[[dict, int, float, "tuple[str, ...] | None"], dict]


@dataclass(frozen=True)
class SweepMechanism:
    """A mechanism that can be swept.

    ``cell(parameters, seed, alpha, checks)`` runs one audit and returns a JSON-able dict with
    ``verdict``, ``checks`` (a list of check dicts, as in the JSON report) and ``parameters`` (the
    effective parameters, e.g. a calibrated σ).  It must be a module-level function (it travels to
    worker processes by reference).  ``normalize(parameters, given, where)`` may cross-check parameters
    (raising SpecError that starts with ``where``; ``given`` is the set of keys the spec set) and drop
    those that do not apply; ``cost(parameters)`` estimates a cell's run time in
    arbitrary units (largest cells are scheduled first); ``checks`` lists the audit's check ids.
    """

    name: str
    cell: CellFunction
    schema: Schema
    normalize: Callable[[dict, set, str], dict] | None = None
    cost: Callable[[dict], float] | None = None
    checks: tuple[str, ...] = ()
    description: str = ""
    preload: tuple[str, ...] = ()  # modules a forked worker should inherit already imported
    chunked: bool = False  # cell(..., executor=E) runs its sample chunks through E.map (see executors)


_SWEEPS: dict[str, SweepMechanism] = {}


def register_sweep(name: str, cell: CellFunction, schema: Schema, **options) -> SweepMechanism:
    """Let ``pdp-audit sweep`` run ``mechanism = name`` (one line per mechanism in verify/sweep_catalogue.py)."""
    mechanism = SweepMechanism(name, cell, dict(schema), **options)
    _SWEEPS[name] = mechanism
    return mechanism


def registered_sweeps() -> dict[str, SweepMechanism]:
    from verify import sweep_catalogue  # noqa: F401  (imports register the built-ins)

    return dict(sorted(_SWEEPS.items()))


# --------------------------------------------------------------------------------------------------
# Cells, identities and seeds


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, floats as Python's shortest round-trip repr."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def cell_digest(mechanism: str, parameters: dict) -> bytes:
    return hashlib.sha256(canonical_json({"mechanism": mechanism, "parameters": parameters}).encode()).digest()


def cell_seed(root_seed: int, digest: bytes) -> int:
    """A 63-bit seed from ``SeedSequence(root_seed, spawn_key=digest[:16] as four 32-bit words)``."""
    key = tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))
    state = np.random.SeedSequence(int(root_seed), spawn_key=key).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1])) & ((1 << 63) - 1)


@dataclass(frozen=True)
class Cell:
    cell_id: str  # the first 16 hex digits of the identity hash
    position: int  # order in the spec (display only)
    parameters: dict
    seed: int


@dataclass
class SweepSpec:
    name: str
    mechanism: str
    seed: int
    alpha: float
    checks: tuple[str, ...] | None
    cells: list[Cell]
    swept: list[str]  # parameters whose value differs between cells, in spec order
    source: str = ""  # the TOML text
    path: str = ""
    description: str = ""

    @property
    def alpha_per_cell(self) -> float:
        return self.alpha / len(self.cells)

    def identity(self) -> dict:
        """What a resumed store must share with the spec (order and name do not matter)."""
        return {"mechanism": self.mechanism, "seed": self.seed, "alpha": self.alpha,
                "checks": list(self.checks) if self.checks is not None else None,
                "cells": sorted(c.cell_id for c in self.cells)}

    def to_dict(self) -> dict:
        return {"name": self.name, "mechanism": self.mechanism, "seed": self.seed, "alpha": self.alpha,
                "alpha_per_cell": self.alpha_per_cell, "checks": list(self.checks) if self.checks is not None else None,
                "swept": self.swept, "description": self.description,
                "cells": [{"id": c.cell_id, "position": c.position, "parameters": c.parameters, "seed": c.seed} for c in self.cells]}


def make_cell(mechanism: SweepMechanism, root_seed: int, position: int, raw: dict, where: str) -> Cell:
    parameters = {}
    for key, param in mechanism.schema.items():
        if key in raw:
            parameters[key] = param.coerce(f"{where}.{key}", raw[key])
        elif param.default is _REQUIRED:
            raise SpecError(f"{where}: parameter {key!r} is required")
        else:
            parameters[key] = param.default
    if mechanism.normalize is not None:
        parameters = mechanism.normalize(parameters, set(raw), where)
    digest = cell_digest(mechanism.name, parameters)
    return Cell(digest.hex()[:16], position, parameters, cell_seed(root_seed, digest))


# --------------------------------------------------------------------------------------------------
# Reading a spec


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


SWEEP_KEYS = {"name", "mechanism", "seed", "alpha", "checks", "description"}
TOP_KEYS = {"sweep", "fixed", "grid", "cells"}


def load_spec(path: str | Path) -> SweepSpec:
    path = Path(path)
    if not path.is_file():
        raise SpecError(f"spec: no such file {str(path)!r}")
    text = path.read_text(encoding="utf-8")
    return parse_spec(text, name=path.stem, where=str(path), path=str(path))


def parse_spec(text: str, name: str = "sweep", where: str = "spec", path: str = "") -> SweepSpec:
    try:
        doc = _toml().loads(text)
    except ValueError as err:  # TOMLDecodeError
        raise SpecError(f"{where}: not valid TOML: {err}") from None

    def fail(message: str) -> SpecError:
        return SpecError(f"{where}: {message}")

    for key in doc:
        if key not in TOP_KEYS:
            raise fail(f"unknown key {key!r} (valid: [sweep], [fixed], [grid], [[cells]])")
    sweep = doc.get("sweep")
    if not isinstance(sweep, dict):
        raise fail("missing [sweep] table (with at least mechanism = \"NAME\")")
    for key in sweep:
        if key not in SWEEP_KEYS:
            raise fail(f"unknown key sweep.{key} (valid: {', '.join(sorted(SWEEP_KEYS))})")
    sweeps = registered_sweeps()
    mech_name = sweep.get("mechanism")
    if mech_name not in sweeps:
        raise fail(f"sweep.mechanism must be one of {', '.join(repr(n) for n in sweeps)}, got {mech_name!r}")
    mechanism = sweeps[mech_name]
    sweep_name = sweep.get("name", name)
    if not isinstance(sweep_name, str) or not sweep_name:
        raise fail(f"sweep.name must be a non-empty string, got {sweep_name!r}")
    description = sweep.get("description", "")
    if not isinstance(description, str):
        raise fail(f"sweep.description must be a string, got {description!r}")
    seed = Param("int", low=0, high=2**63 - 1).coerce(f"{where}: sweep.seed", sweep.get("seed", 0))
    alpha = Param("float", low=0, high=1, open_low=True, open_high=True).coerce(f"{where}: sweep.alpha", sweep.get("alpha", 1e-6))
    checks = sweep.get("checks")
    if checks is not None:
        if not isinstance(checks, list) or not checks or not all(isinstance(c, str) for c in checks):
            raise fail(f"sweep.checks must be a non-empty list of check ids, got {checks!r}")
        unknown = [c for c in checks if mechanism.checks and c not in mechanism.checks]
        if unknown:
            raise fail(f"sweep.checks: unknown check {unknown[0]!r} (valid: {', '.join(mechanism.checks)})")
        if len(set(checks)) != len(checks):
            raise fail("sweep.checks lists a check twice")
        checks = tuple(checks)

    schema = mechanism.schema

    def known(table: str, key: str) -> None:
        if key not in schema:
            extra = " (alpha is the sweep's family-wise α: set it in [sweep])" if key == "alpha" else ""
            raise fail(f"unknown parameter {table}.{key} for mechanism {mech_name!r}{extra} (valid: {', '.join(schema)})")

    fixed = doc.get("fixed", {})
    if not isinstance(fixed, dict):
        raise fail("[fixed] must be a table")
    for key in fixed:
        known("fixed", key)
        schema[key].coerce(f"{where}: fixed.{key}", fixed[key])
    grid = doc.get("grid", {})
    if not isinstance(grid, dict):
        raise fail("[grid] must be a table")
    for key, values in grid.items():
        known("grid", key)
        if key in fixed:
            raise fail(f"grid.{key} is also set in [fixed]")
        if not isinstance(values, list) or not values:
            raise fail(f"grid.{key} must be a non-empty list of values, got {values!r}")
        for i, value in enumerate(values):  # range errors name the element
            if isinstance(value, (list, dict)):
                raise fail(f"grid.{key}[{i}] must be a single value, got {value!r}")
            schema[key].coerce(f"{where}: grid.{key}[{i}]", value)
    explicit = doc.get("cells", [])
    if not isinstance(explicit, list) or not all(isinstance(c, dict) for c in explicit):
        raise fail("cells must be an array of tables ([[cells]])")
    for i, table in enumerate(explicit):
        for key in table:
            known(f"cells[{i}]", key)

    raw_cells: list[tuple[dict, str]] = []
    if grid or not explicit:
        total = math.prod(len(v) for v in grid.values())
        if total + len(explicit) > MAX_CELLS:
            raise fail(f"the grid has {total + len(explicit)} cells; at most {MAX_CELLS} are allowed")
        keys = list(grid)
        for combo in itertools.product(*(grid[k] for k in keys)):
            point = dict(zip(keys, combo))
            raw_cells.append(({**fixed, **point}, f"{where}: grid " + ", ".join(f"{k}={v!r}" for k, v in point.items())))
    for i, table in enumerate(explicit):
        raw_cells.append(({**fixed, **table}, f"{where}: cells[{i}]"))

    cells: list[Cell] = []
    seen: dict[str, str] = {}
    for position, (raw, label) in enumerate(raw_cells):
        cell = make_cell(mechanism, seed, position, raw, label)
        if cell.cell_id in seen:
            raise fail(f"two cells have the same parameters ({seen[cell.cell_id]} and {label.removeprefix(where + ': ')})")
        seen[cell.cell_id] = label.removeprefix(where + ": ")
        cells.append(cell)

    ordered = list(grid) + [k for t in explicit for k in t] + list(schema)
    swept = [k for k in dict.fromkeys(ordered) if len({canonical_json(c.parameters[k]) for c in cells if k in c.parameters}) > 1]
    return SweepSpec(sweep_name, mech_name, seed, alpha, checks, cells, swept, text, path, description)


# --------------------------------------------------------------------------------------------------
# Running a sweep


@dataclass(frozen=True)
class CellTask:
    """Everything a worker needs to run one cell (small, picklable)."""

    cell_id: str
    mechanism: str
    function: CellFunction
    parameters: dict
    seed: int
    alpha: float
    checks: tuple[str, ...] | None
    cost: float
    chunked: bool = False


@dataclass
class SweepOutcome:
    spec: SweepSpec
    store_path: str
    ran: int  # cells run now
    reused: int  # cells already in the store
    elapsed: float
    executor: str
    verdicts: dict[str, str] = field(default_factory=dict)  # cell id -> verdict, all stored cells

    @property
    def counts(self) -> dict[str, int]:
        counts = {"pass": 0, "fail": 0, "inconclusive": 0}
        for verdict in self.verdicts.values():
            counts[verdict] += 1
        return counts

    @property
    def verdict(self) -> str:
        from verify.checks import worst

        return worst(self.verdicts.values())

    @property
    def exit_code(self) -> int:
        from verify.checks import EXIT_CODES

        return EXIT_CODES[self.verdict]


def tasks_for(spec: SweepSpec, cells: Sequence[Cell]) -> list[CellTask]:
    """Tasks for ``cells``, largest estimated cost first (then by id: a deterministic order)."""
    mechanism = registered_sweeps()[spec.mechanism]
    cost = mechanism.cost or (lambda p: 1.0)
    tasks = [CellTask(c.cell_id, spec.mechanism, mechanism.cell, c.parameters, c.seed, spec.alpha_per_cell,
                      spec.checks, float(cost(c.parameters)), mechanism.chunked) for c in cells]
    return sorted(tasks, key=lambda t: (-t.cost, t.cell_id))


def run_sweep(spec: SweepSpec, store, executor, progress: bool = False, on_cell: Callable | None = None) -> SweepOutcome:
    """Run every cell of ``spec`` missing from ``store`` on ``executor``; commit each as it completes."""
    import time

    start = time.perf_counter()
    if getattr(executor, "forks", False):
        import importlib

        for module in registered_sweeps()[spec.mechanism].preload:
            importlib.import_module(module)
    done = store.completed_ids()
    pending = [c for c in spec.cells if c.cell_id not in done]
    bar = None
    if progress and pending:
        from tqdm import tqdm

        bar = tqdm(total=len(spec.cells), initial=len(spec.cells) - len(pending), unit="cell", desc=spec.name,
                   file=sys.stderr, delay=2.0, dynamic_ncols=True, leave=False)
    ran = 0
    try:
        # closing(): a stop (Ctrl-C, an error) shuts the executor's workers down at once
        with contextlib.closing(executor.run(tasks_for(spec, pending))) as results:
            for task, outcome in results:
                if store.add(task, outcome):
                    ran += 1
                if bar is not None:
                    bar.update(1)
                if on_cell is not None:
                    on_cell(task, outcome)
    finally:
        if bar is not None:
            bar.close()
    return SweepOutcome(spec, store.path, ran, len(spec.cells) - len(pending), time.perf_counter() - start,
                        executor.description, store.verdicts())
