"""Parameter sweeps: a TOML spec names a mechanism, its fixed parameters and a grid; each grid point
(a *cell*) is one audit, run anywhere, stored once.

Spec format (see ``examples/*.toml``)::

    [sweep]
    name = "gaussian-small"        # optional, default: the file's stem
    mechanism = "gaussian"         # an audit of `pdp-audit list`
    seed = 0                       # root seed (default 0)
    alpha = 1e-6                   # family-wise false-alarm probability of the whole sweep (default 1e-6)
    checks = ["dp-forward", "dp-reverse", "lr-attack"]   # optional subset of the audit's checks

    [fixed]                        # parameters shared by every cell
    trials = 1e5

    [grid]                         # cartesian product, in the order written (keys: the audit's options)
    claim_epsilon = [0.5, 1.0]
    noise_multiplier = [0.7, 1.0, 1.5]

    [[cells]]                      # explicit extra cells (each overrides [fixed])
    claim_epsilon = 2.0
    sigma = 2.5

**Seeding.**  A cell's identity is the SHA-256 of its canonical parameters (mechanism name plus every
parameter, defaults filled in, floats and ints normalised, keys sorted) -- not its position in the
grid.  Its seed is drawn from ``SeedSequence(root_seed, spawn_key=<the first 128 bits of that hash>)``,
and the audit engine keys every chunk (block) of the cell's samples by ``(cell seed, stream, block)``.
So a cell's numbers depend only on the root seed, its parameters and the code: not on the grid it
sits in, the executor, the number of workers or the order cells finish in.

**Scheduling.**  Cells are submitted largest first (by the mechanism's cost estimate).  A cell whose
cost exceeds a worker's fair share of the sweep is split: its seeded chunks (the engine's blocks) run
as separate tasks spread over all workers (see :func:`pdp_audit.sweeps.executors.cells_to_split`), with the
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
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from pdp_audit.sweeps.catalogue import SWEEPS
from pdp_audit.sweeps.schema import SpecError, SweepMechanism
from pdp_audit.verify.core.checks import EXIT_CODES, worst
from pdp_audit.verify.core.config import ALPHA, SEED, Names, Option, canonical, in_spec, number_text, parse
from pdp_audit.verify.estimators.progress import progress_bar
from pdp_audit.verify.inputs.datasets import column_index, load_csv
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown

if TYPE_CHECKING:
    from pdp_audit.reports.records import Run, Verdict

MAX_CELLS = 100_000


# --------------------------------------------------------------------------------------------------
# Cells, identities and seeds


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, floats as Python's shortest round-trip repr."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def cell_digest(mechanism: str, parameters: dict) -> bytes:
    """A cell's identity: SHA-256 of the canonical JSON of its mechanism's name and its parameters."""
    return hashlib.sha256(canonical_json({"mechanism": mechanism, "parameters": parameters}).encode()).digest()


def cell_seed(root_seed: int, digest: bytes) -> int:
    """A 63-bit seed from ``SeedSequence(root_seed, spawn_key=digest[:16] as four 32-bit words)``."""
    key = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
    state = np.random.SeedSequence(int(root_seed), spawn_key=key).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1])) & ((1 << 63) - 1)


@dataclass(frozen=True)
class Cell:
    """One grid point of a sweep: its identity, its place in the spec, its canonical parameters and seed."""

    cell_id: str  # the first 16 hex digits of the identity hash
    position: int  # order in the spec (display only)
    parameters: dict
    seed: int


@dataclass
class SweepSpec:
    """A parsed sweep spec: the mechanism, root seed, family-wise α, checks subset and cells."""

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
    kind: SweepMechanism | None = None  # what ``mechanism`` names (None only for a spec read back from a store)
    data: dict[str, str] = field(default_factory=dict)  # data file -> SHA-256 of its bytes when the spec was read

    @property
    def alpha_per_cell(self) -> float:
        return self.alpha / len(self.cells)

    def identity(self) -> dict:
        """What a resumed store must share with the spec (order and name do not matter), and the bytes of its
        data files."""
        identity = {
            "mechanism": self.mechanism,
            "seed": self.seed,
            "alpha": self.alpha,
            "checks": list(self.checks) if self.checks is not None else None,
            "cells": sorted(c.cell_id for c in self.cells),
        }
        return {**identity, "data": dict(self.data)} if self.data else identity

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "mechanism": self.mechanism,
            "seed": self.seed,
            "alpha": self.alpha,
            "alpha_per_cell": self.alpha_per_cell,
            "checks": list(self.checks) if self.checks is not None else None,
            "swept": self.swept,
            "description": self.description,
            "cells": [
                {"id": c.cell_id, "position": c.position, "parameters": c.parameters, "seed": c.seed}
                for c in self.cells
            ],
        }


def value(option: Option, given: Any, names: Names) -> Any:
    """A spec's value as its cell holds it: parsed and checked (SpecError in the spec's words), canonical form."""
    try:
        return canonical(option, parse(option, given, names))
    except InputError as err:
        raise SpecError(str(err)) from None


def make_cell(mechanism: SweepMechanism, root_seed: int, position: int, raw: dict, where: str) -> Cell:
    """The cell of ``raw`` parameters: checked by the schema, defaults filled in, normalized, seeded by identity."""
    names = in_spec(where)
    parameters = {
        key: value(option, raw[key], names) if key in raw else canonical(option, option.default)
        for key, option in mechanism.schema.items()
    }
    if mechanism.normalize is not None:
        parameters = mechanism.normalize(parameters, set(raw), where)
    digest = cell_digest(mechanism.name, parameters)
    return Cell(digest.hex()[:16], position, parameters, cell_seed(root_seed, digest))


def cell_from_options(mechanism: SweepMechanism, root_seed: int, options: dict, where: str) -> Cell:
    """The cell a spec with these ``[fixed]`` options (and no grid) would hold: unknown keys refused, values checked,
    seeded by identity -- the same cell, hence the same seed and numbers, as in ``pdp-audit sweep`` (for the pytest
    plugin's ``privacy_audit.run``)."""

    def fail(message: str) -> SpecError:
        return SpecError(f"{where}: {message}")

    unknown = [k for k in options if k not in mechanism.schema]
    if unknown:
        raise fail(f"unknown option {unknown[0]!r} for {mechanism.name!r} (valid: {', '.join(mechanism.schema)})")
    return make_cell(mechanism, root_seed, 0, options, where)


# --------------------------------------------------------------------------------------------------
# Reading a spec


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


SWEEP_KEYS = {"name", "mechanism", "seed", "alpha", "checks", "description"}
NAME_CHARACTERS = 200
DESCRIPTION_CHARACTERS = 2000
TOP_KEYS = {"sweep", "fixed", "grid", "cells"}


def load_spec(path: str | Path, mechanisms: Sequence[SweepMechanism] = SWEEPS) -> SweepSpec:
    """The spec in the TOML file ``path`` (see :func:`parse_spec`); SpecError if there is none."""
    path = Path(path)
    why = not_a_regular_file(path, "sweep spec (TOML)")
    if why == "does not exist":
        raise SpecError(f"spec: no such file {str(path)!r}")
    if why is not None:
        raise SpecError(f"spec: {str(path)!r} {why}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise SpecError(f"{shown(path)}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise SpecError(f"spec: cannot read {str(path)!r}: {err.strerror or err}") from None
    return parse_spec(text, name=path.stem, where=shown(path), path=str(path), mechanisms=mechanisms)


def parse_spec(
    text: str, name: str = "sweep", where: str = "spec", path: str = "", mechanisms: Sequence[SweepMechanism] = SWEEPS
) -> SweepSpec:
    """The spec in TOML ``text``; ``mechanism`` must name one of ``mechanisms`` (default: the built-in ones).

    Read in the order its errors are reported: the top-level keys, the ``[sweep]`` table (:func:`_sweep_table`), the
    parameter tables ``[fixed]``, ``[grid]`` and ``[[cells]]`` against the mechanism's schema
    (:func:`_parameter_tables`), then the cells they make (:func:`_cells`), each checked and seeded by identity."""
    try:
        doc = _toml().loads(text)
    except ValueError as err:  # TOMLDecodeError
        raise SpecError(f"{where}: not valid TOML: {err}") from None
    for key in doc:
        if key not in TOP_KEYS:
            raise SpecError(f"{where}: unknown key {key!r} (valid: [sweep], [fixed], [grid], [[cells]])")
    head = _sweep_table(doc, name, where, mechanisms)
    fixed, grid, explicit = _parameter_tables(doc, head.mechanism, where)
    cells = _cells(head, fixed, grid, explicit, where)
    smallest = ALPHA.low
    assert smallest is not None  # ALPHA is a closed range above 0
    if head.alpha / len(cells) < smallest:  # every cell is audited at α / cells
        raise SpecError(
            f"{where}: sweep.alpha / cells = {head.alpha:g} / {len(cells)} is below {number_text(smallest)}, the "
            "smallest α a cell's intervals resolve; raise sweep.alpha or split the sweep"
        )
    ordered = list(grid) + [k for t in explicit for k in t] + list(head.mechanism.schema)
    swept = [
        k
        for k in dict.fromkeys(ordered)
        if len({canonical_json(c.parameters[k]) for c in cells if k in c.parameters}) > 1
    ]
    spec = SweepSpec(
        head.name,
        head.mechanism.name,
        head.seed,
        head.alpha,
        head.checks,
        cells,
        swept,
        text,
        path,
        head.description,
        head.mechanism,
    )
    spec.data = data_fingerprints(cells, where, head.mechanism.check_data, head.mechanism.read_data)
    return spec


@dataclass(frozen=True)
class _SweepTable:
    """What a spec's ``[sweep]`` table declares, checked."""

    mechanism: SweepMechanism
    name: str
    description: str
    seed: int
    alpha: float
    checks: tuple[str, ...] | None


def _sweep_table(doc: dict, name: str, where: str, mechanisms: Sequence[SweepMechanism]) -> _SweepTable:
    """The ``[sweep]`` table: its keys known, the mechanism one of ``mechanisms``, the printed texts short enough,
    seed and α in their declared ranges, the checks the mechanism's."""
    sweep = doc.get("sweep")
    if not isinstance(sweep, dict):
        raise SpecError(f'{where}: missing [sweep] table (with at least mechanism = "NAME")')
    for key in sweep:
        if key not in SWEEP_KEYS:
            raise SpecError(f"{where}: unknown key {quoted('sweep.' + key)} (valid: {', '.join(sorted(SWEEP_KEYS))})")
    sweeps = {m.name: m for m in sorted(mechanisms, key=lambda m: m.name)}  # the error lists them sorted
    mech_name = sweep.get("mechanism")
    if mech_name not in sweeps:
        raise SpecError(
            f"{where}: sweep.mechanism must be one of {', '.join(repr(n) for n in sweeps)}, got {mech_name!r}"
        )
    sweep_name = sweep.get("name", name)
    if not isinstance(sweep_name, str) or not sweep_name:
        raise SpecError(f"{where}: sweep.name must be a non-empty string, got {sweep_name!r}")
    description = sweep.get("description", "")
    if not isinstance(description, str):
        raise SpecError(f"{where}: sweep.description must be a string, got {description!r}")
    # both are printed on the report's cover page (a 1 MB description took 83 s to lay out, off the page)
    for key, printed, most in (  # not `text`: that is the spec's TOML, stored with every sweep
        ("name", sweep_name, NAME_CHARACTERS),
        ("description", description, DESCRIPTION_CHARACTERS),
    ):
        if len(printed) > most:
            raise SpecError(
                f"{where}: sweep.{key} must be at most {most} characters (it is printed on the cover page), "
                f"got {len(printed)}"
            )
    spec_names = Names(lambda o: f"sweep.{o.key}", where=f"{where}: ")
    seed = value(Option("seed", "int", 0, "", range=SEED), sweep.get("seed", 0), spec_names)
    alpha = value(Option("alpha", "float", 1e-6, "", range=ALPHA), sweep.get("alpha", 1e-6), spec_names)
    mechanism = sweeps[mech_name]
    return _SweepTable(mechanism, sweep_name, description, seed, alpha, _checks(sweep.get("checks"), mechanism, where))


def _checks(checks: Any, mechanism: SweepMechanism, where: str) -> tuple[str, ...] | None:
    """``sweep.checks``: None (every check), or a non-empty list of the mechanism's check ids, none twice."""
    if checks is None:
        return None
    if not isinstance(checks, list) or not checks or not all(isinstance(c, str) for c in checks):
        raise SpecError(f"{where}: sweep.checks must be a non-empty list of check ids, got {checks!r}")
    unknown = [c for c in checks if not mechanism.has_check(c)]
    if unknown:
        raise SpecError(
            f"{where}: sweep.checks: unknown check {unknown[0]!r} for mechanism {mechanism.name!r} "
            f"(valid: {mechanism.valid_checks()})"
        )
    if len(set(checks)) != len(checks):
        raise SpecError(f"{where}: sweep.checks lists a check twice")
    return tuple(checks)


def _parameter_tables(doc: dict, mechanism: SweepMechanism, where: str) -> tuple[dict, dict, list[dict]]:
    """``[fixed]``, ``[grid]`` and ``[[cells]]``: every key a parameter of the mechanism's schema, every value (each
    grid element apart) in its declared range, no key both fixed and swept."""
    schema = mechanism.schema

    def known(table: str, key: str) -> None:
        if key not in schema:
            extra = " (alpha is the sweep's family-wise α: set it in [sweep])" if key == "alpha" else ""
            raise SpecError(
                f"{where}: unknown parameter {quoted(table + '.' + key)} for mechanism {mechanism.name!r}{extra} "
                f"(valid: {', '.join(schema)})"
            )

    fixed = doc.get("fixed", {})
    if not isinstance(fixed, dict):
        raise SpecError(f"{where}: [fixed] must be a table")
    for key in fixed:
        known("fixed", key)
        value(schema[key], fixed[key], Names(lambda o: f"fixed.{o.key}", where=f"{where}: "))
    grid = doc.get("grid", {})
    if not isinstance(grid, dict):
        raise SpecError(f"{where}: [grid] must be a table")
    for key, values in grid.items():
        known("grid", key)
        if key in fixed:
            raise SpecError(f"{where}: grid.{key} is also set in [fixed]")
        if not isinstance(values, list) or not values:
            raise SpecError(f"{where}: grid.{key} must be a non-empty list of values, got {values!r}")
        for i, element in enumerate(values):  # range errors name the element
            if isinstance(element, (list, dict)):
                raise SpecError(f"{where}: grid.{key}[{i}] must be a single value, got {element!r}")
            value(schema[key], element, _element_names(i, where))
    explicit = doc.get("cells", [])
    if not isinstance(explicit, list) or not all(isinstance(c, dict) for c in explicit):
        raise SpecError(f"{where}: cells must be an array of tables ([[cells]])")
    for i, table in enumerate(explicit):
        for key in table:
            known(f"cells[{i}]", key)
    return fixed, grid, explicit


def _cells(head: _SweepTable, fixed: dict, grid: dict, explicit: list[dict], where: str) -> list[Cell]:
    """The grid's points (every combination, ``[fixed]`` under each; ``[fixed]`` alone without a grid or cells),
    then the explicit cells, each made by :func:`make_cell`; two cells with the same parameters are refused."""
    raw_cells: list[tuple[dict, str]] = []
    if grid or not explicit:
        total = math.prod(len(v) for v in grid.values())
        if total + len(explicit) > MAX_CELLS:
            raise SpecError(f"{where}: the grid has {total + len(explicit)} cells; at most {MAX_CELLS} are allowed")
        keys = list(grid)
        for combo in itertools.product(*(grid[k] for k in keys)):
            point = dict(zip(keys, combo))
            raw_cells.append(({**fixed, **point}, f"{where}: " + _grid_label(point)))
    for i, table in enumerate(explicit):
        raw_cells.append(({**fixed, **table}, f"{where}: cells[{i}]"))
    cells: list[Cell] = []
    seen: dict[str, str] = {}
    for position, (raw, label) in enumerate(raw_cells):
        try:
            cell = make_cell(head.mechanism, head.seed, position, raw, label)
        except SpecError as err:
            raise _named_by_fixed(err, head.mechanism, head.seed, fixed, label, where) from None
        if cell.cell_id in seen:
            raise SpecError(
                f"{where}: two cells have the same parameters ({seen[cell.cell_id]} and "
                f"{label.removeprefix(where + ': ')})"
            )
        seen[cell.cell_id] = label.removeprefix(where + ": ")
        cells.append(cell)
    return cells


def _named_by_fixed(
    error: SpecError, mechanism: SweepMechanism, seed: int, fixed: dict, label: str, where: str
) -> SpecError:
    """A grid cell's error, or the same error named ``[fixed]`` when the ``[fixed]`` table alone fails the same way
    (its value is what is wrong, not the first grid point it was combined with)."""
    if not fixed or label == f"{where}: [fixed]" or not label.startswith(f"{where}: grid "):
        return error
    alone = f"{where}: [fixed]"
    try:
        make_cell(mechanism, seed, 0, dict(fixed), alone)
    except SpecError as fixed_error:
        if str(fixed_error).removeprefix(alone) == str(error).removeprefix(label):
            return fixed_error
    return error


def _element_names(i: int, where: str) -> Names:
    """How messages name element ``i`` of a grid list: ``grid.KEY[i]``."""
    return Names(lambda o: f"grid.{o.key}[{i}]", where=f"{where}: ")


def _grid_label(point: dict) -> str:
    """Where a grid point is in the spec: ``grid claim_epsilon=1.0, trials=2000``, or ``[fixed]`` without a grid."""
    return "grid " + ", ".join(f"{k}={v!r}" for k, v in point.items()) if point else "[fixed]"


def data_fingerprints(cells: Sequence[Cell], where: str, check_data=None, read_data=None) -> dict[str, str]:
    """The SHA-256 of every data file the cells name (``data``), read now: a resumed sweep whose data changed is
    refused, and each cell audits exactly these bytes (:func:`pdp_audit.sweeps.executors.execute_task`)."""
    fingerprints = {}
    for path in sorted({c.parameters["data"] for c in cells if isinstance(c.parameters.get("data"), str)}):
        why = not_a_regular_file(path, "CSV file")
        if why is not None and why != "does not exist":  # a FIFO would block here
            raise SpecError(f"{where}: data: {path!r} {why}")
        try:
            fingerprints[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError as err:
            raise SpecError(f"{where}: data: cannot read {path!r}: {err.strerror or err}") from None
    check_cells_data(cells, where, check_data, read_data)
    return fingerprints


def check_cells_data(cells: Sequence[Cell], where: str, check_data=None, read_data=None) -> None:
    """Each distinct use of a data file by the cells -- the file, its ``target_column`` and ``column`` -- read as a
    cell will read it (:func:`pdp_audit.verify.inputs.datasets.load_csv`): a file that does not parse, or a column it
    does not have, is one SpecError now, before any cell runs and before the store is made (it was found only when
    the cell ran, and the store left behind refused the corrected spec).  ``check_data(path, dataset)``: the audit's
    own refusal of the table's shape (:attr:`pdp_audit.verify.core.plan.AuditPlan.data_check`: the width cap of
    ``--data``, 100 or 200 feature columns), applied now too.  ``read_data(path)``: the reader of a mechanism whose
    cells do not read a numeric table (:attr:`~pdp_audit.sweeps.schema.SweepMechanism.read_data`), used
    instead."""
    if read_data is not None:
        for path in sorted({c.parameters["data"] for c in cells if isinstance(c.parameters.get("data"), str)}):
            try:
                read_data(path)
            except InputError as err:
                raise SpecError(
                    f"{where}: the cells with data = {path!r}: {str(err).removeprefix('--data: ')}"
                ) from None
        return

    uses = {
        (c.parameters["data"], c.parameters.get("target_column"), c.parameters.get("column")): None
        for c in cells
        if isinstance(c.parameters.get("data"), str)
    }
    loaded: dict[tuple, Any] = {}
    for path, target_column, column in uses:
        named = f"data = {path!r}" + (f", target_column = {target_column!r}" if target_column is not None else "")
        try:
            if (path, target_column) not in loaded:
                loaded[path, target_column] = load_csv(path, target_column)
                if check_data is not None:
                    check_data(path, loaded[path, target_column])
            if column is not None:
                column_index(loaded[path, target_column], column)
        except InputError as err:
            raise SpecError(f"{where}: the cells with {named}: {err}") from None


# --------------------------------------------------------------------------------------------------
# Running a sweep


@dataclass(frozen=True)
class CellTask:
    """Everything a worker needs to run one cell (small, picklable)."""

    cell_id: str
    mechanism: str
    function: Callable[[dict, int, float, tuple[str, ...] | None], dict | Run]  # a sweep's cell, a ledger's audit
    parameters: dict
    seed: int
    alpha: float
    checks: tuple[str, ...] | None
    cost: float
    chunked: bool = False
    data_sha256: str | None = None  # of the cell's data file when the spec was read: the bytes it must audit


@dataclass
class SweepOutcome:
    """What a :func:`run_sweep` did: cells run now and reused, time, executor, and every stored cell's verdict."""

    spec: SweepSpec
    store_path: str
    ran: int  # cells run now
    reused: int  # cells already in the store
    elapsed: float
    executor: str
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # cell id -> verdict, all stored cells

    @property
    def counts(self) -> dict[str, int]:
        counts = {"pass": 0, "fail": 0, "inconclusive": 0}
        for verdict in self.verdicts.values():
            counts[verdict] += 1
        return counts

    @property
    def verdict(self) -> str:
        return worst(self.verdicts.values())

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


def tasks_for(spec: SweepSpec, cells: Sequence[Cell]) -> list[CellTask]:
    """Tasks for ``cells``, largest estimated cost first (then by id: a deterministic order)."""
    mechanism = spec.kind
    assert mechanism is not None  # a spec parsed, not read back from a store
    cost = mechanism.cost or (lambda p: 1.0)
    tasks = [
        CellTask(
            c.cell_id,
            spec.mechanism,
            mechanism.cell,
            c.parameters,
            c.seed,
            spec.alpha_per_cell,
            spec.checks,
            float(cost(c.parameters)),
            mechanism.chunked,
            spec.data.get(data) if isinstance(data := c.parameters.get("data"), str) else None,
        )
        for c in cells
    ]
    return sorted(tasks, key=lambda t: (-t.cost, t.cell_id))


def run_sweep(
    spec: SweepSpec, store, executor, progress: bool = False, on_cell: Callable | None = None
) -> SweepOutcome:
    """Run every cell of ``spec`` missing from ``store`` on ``executor``; commit each as it completes."""
    start = time.perf_counter()
    if getattr(executor, "forks", False):
        import importlib

        assert spec.kind is not None  # a spec parsed, not read back from a store
        for module in spec.kind.preload:
            importlib.import_module(module)
    done = store.completed_ids()
    pending = [c for c in spec.cells if c.cell_id not in done]
    ran = 0
    cells = len(spec.cells)
    shown = progress and bool(pending)
    with progress_bar(cells, spec.name, "cell", shown, initial=cells - len(pending)) as bar:
        # closing(): a stop (Ctrl-C, an error) shuts the executor's workers down at once
        with contextlib.closing(executor.run(tasks_for(spec, pending))) as results:
            for task, outcome in results:
                if store.add(task, outcome):
                    ran += 1
                if bar is not None:
                    bar.update(1)
                if on_cell is not None:
                    on_cell(task, outcome)
    return SweepOutcome(
        spec,
        store.path,
        ran,
        len(spec.cells) - len(pending),
        time.perf_counter() - start,
        executor.description,
        store.verdicts(),
    )
