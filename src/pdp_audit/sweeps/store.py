"""The results store of a sweep: one SQLite file (WAL mode), one row per completed cell.

Each cell is committed in its own transaction, with its parameters, seed, code version, estimates,
checks and verdict (JSON text columns), so a sweep killed at any moment leaves a store that opens
and holds exactly the cells that finished.  Only the driver process writes; workers return results.
Nothing is ever pickled to disk.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import importlib
import json
import os
import sqlite3
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdp_audit.reports.json_report import code_version as version_and_commit
from pdp_audit.sweeps.rates import exponents
from pdp_audit.sweeps.spec import SpecError, SweepSpec, canonical_json
from pdp_audit.sweeps.stored import (
    check_cell,
    check_cells_in_spec,
    check_identity,
    check_spec,
    check_texts,
    decoded_row,
)
from pdp_audit.sweeps.writer_lock import lock_store
from pdp_audit.verify.core.checks import worst
from pdp_audit.verify.inputs.validation import not_a_regular_file, shown

if TYPE_CHECKING:
    from pdp_audit.reports.records import Verdict

STORE_SCHEMA = 1
_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    cell_id      TEXT PRIMARY KEY,
    position     INTEGER NOT NULL,
    parameters   TEXT NOT NULL,   -- JSON: the cell's canonical parameters (its identity)
    seed         INTEGER NOT NULL,
    alpha        REAL NOT NULL,   -- the cell's share of the sweep's family-wise alpha
    code_version TEXT NOT NULL,
    verdict      TEXT NOT NULL,
    estimates    TEXT NOT NULL,   -- JSON: {check id: {estimate, exact, ci, level, verdict}}
    checks       TEXT NOT NULL,   -- JSON: the full check records, as in the JSON report
    effective    TEXT NOT NULL,   -- JSON: effective parameters (calibrated sigma, dataset, ...)
    elapsed_s    REAL,
    worker       TEXT,
    completed_at TEXT
);
"""


@functools.lru_cache(maxsize=1)  # once per process: a worker reports it with every cell it runs
def code_version() -> str:
    """The version and commit, as every report says them, and a hash of the code that computes results (mechanisms,
    audits, verify): ``0.1.0 (git 1a2b3c4d5e6f), sources 0123456789ab``.  The hash tells two uncommitted trees (or two
    builds without git) apart, which the commit alone cannot."""
    digest = hashlib.sha256()
    for package in ("mechanisms", "audits", "verify"):
        # each package's own folder: in a checkout the three sit at its top, in a wheel under pdp_audit/
        folder = Path(str(importlib.import_module(f"pdp_audit.{package}").__file__)).resolve().parent
        for path in sorted(folder.rglob("*.py")):
            name = f"{package}/{path.relative_to(folder).as_posix()}"
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return f"{version_and_commit()}, sources {digest.hexdigest()[:12]}"


def _connect(path: str, read_only: bool = False) -> sqlite3.Connection:
    """A connection to the store; a reader's is read-only (``mode=ro``), so reading never changes the file.

    A store on read-only media (a read-only mount, a write-protected folder) opens too: a WAL store needs its
    ``-shm`` file, which cannot be created there, so when ``mode=ro`` cannot open it and no write-ahead log is
    left beside it (every committed cell is then in the file itself), it is opened as immutable."""
    if read_only:
        uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
        connection = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL index, if any
        except sqlite3.OperationalError:
            connection.close()
            if os.path.exists(path + "-wal"):
                raise
            return sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None, timeout=30)
        return connection
    connection = sqlite3.connect(path, isolation_level=None, timeout=30)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    return connection


#: SQLite's words for a condition of the storage (not of the file's content).
_STORAGE_CONDITIONS = (
    "unable to open",
    "disk i/o error",
    "readonly database",
    "read-only",
    "disk is full",
    "database is locked",
    "permission",
)


def storage_problem(err: sqlite3.Error) -> str | None:
    """SQLite's words when ``err`` is a condition of the storage (a full disk, read-only media, an I/O error, a file
    that cannot be opened), else None (the file is not a store, or is damaged)."""
    text = str(err)
    return text if any(words in text.lower() for words in _STORAGE_CONDITIONS) else None


class StoreWriteError(SpecError):
    """The store could not be written (a full disk, read-only media): one line; the committed cells are kept."""


class Store:
    """A sweep's SQLite store, opened by the driver."""

    def __init__(self, path: str, connection: sqlite3.Connection, lock=None):
        self.path = path
        self.db = connection
        self.code_version = code_version()
        self._lock = lock

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def for_sweep(cls, path: str | Path, spec: SweepSpec, resume: bool) -> "Store":
        """Create the store for ``spec``, or (``resume``) reopen one made by the same spec."""
        path = str(path)
        folder = Path(os.path.realpath(path)).parent
        if not folder.is_dir():  # folders are the user's to make: a typo must not create a tree of them
            raise SpecError(f"--store {path!r}: the folder {str(folder)!r} does not exist")
        lock = lock_store(path)  # one writer at a time: a second sweep never duplicates the work
        try:
            return cls._for_sweep(path, spec, resume, lock)
        except sqlite3.Error as err:
            lock.close(failed=True)
            if storage_problem(err) is None:
                raise
            raise StoreWriteError(f"--store {path!r}: cannot write the store: {storage_problem(err)}") from None
        except BaseException:
            lock.close(failed=True)
            raise

    @classmethod
    def _for_sweep(cls, path: str, spec: SweepSpec, resume: bool, lock) -> "Store":
        exists = Path(path).exists() and Path(path).stat().st_size > 0
        if exists and not resume:
            store = cls.open(path, lock=lock)
            done = len(store.completed_ids())
            if done == 0 and store.meta("identity") == spec.identity():
                return store  # an empty store of this very spec (e.g. a run stopped before its first cell)
            store.db.close()
            raise SpecError(
                f"--store {path!r} already exists ({done} cells); pass --resume to finish it, or choose another --store"
            )
        if not exists and resume:
            raise SpecError(f"--resume: no store at {path!r}")
        if exists:
            store = cls.open(path, lock=lock)
            try:
                store.check_content()  # a damaged store is refused before its cells are counted as done
                store._check_same_spec(spec)
            except BaseException:
                store.db.close()
                raise
            return store
        # the store and the files SQLite keeps beside it that this creation makes (a full disk stops SQLite from
        # removing its -wal and -shm on close: they were left behind, the store itself removed)
        made = [Path(path + suffix) for suffix in ("", "-wal", "-shm", "-journal") if not Path(path + suffix).exists()]
        store = cls(path, _connect(path), lock)
        try:
            lock.hold_store_file()  # the file exists now (WAL mode is written in its header)
            store._create(spec)
        except BaseException:  # a failed creation (disk full) leaves no empty or partial store file behind
            store.db.close()
            for file in made:
                file.unlink(missing_ok=True)
            raise
        return store

    def _create(self, spec: SweepSpec) -> None:
        """The tables and the spec's metadata, in one transaction."""
        with self.transaction():
            for statement in _TABLES.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            meta = {
                "store_schema": STORE_SCHEMA,
                "spec": spec.to_dict(),
                "identity": spec.identity(),
                "spec_source": spec.source,
                "spec_path": spec.path,
                "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "code_version": self.code_version,
            }
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])

    @classmethod
    def open(cls, path: str | Path, lock=None, read_only: bool = False) -> "Store":
        """The store at ``path`` (SpecError if it is not one); ``read_only`` for readers, who never write to it."""
        path = str(path)
        why = not_a_regular_file(path, "sweep store")
        if why == "does not exist":
            raise SpecError(f"no such store {path!r}")
        if why is not None:
            raise SpecError(f"{path!r} {why}")
        if Path(path).stat().st_size == 0:
            raise SpecError(f"{shown(path)} is not a pdp-audit sweep store (it is empty)")
        store = None
        try:
            store = cls(path, _connect(path, read_only), lock)
            schema = store.meta("store_schema")
            if schema != STORE_SCHEMA:
                raise SpecError(
                    f"{shown(path)}: store schema {schema!r} is not supported (this pdp-audit reads {STORE_SCHEMA})"
                )
        except BaseException as err:
            if store is not None:  # a refused file is not left open (on removable media it could not be unmounted)
                store.db.close()
            if isinstance(err, sqlite3.DatabaseError) and storage_problem(err) is not None:
                raise SpecError(f"{path!r}: cannot read the store: {storage_problem(err)}") from None
            if isinstance(err, (sqlite3.DatabaseError, KeyError, ValueError)) and not isinstance(err, SpecError):
                raise SpecError(f"{shown(path)} is not a pdp-audit sweep store") from None
            raise
        return store

    def _check_same_spec(self, spec: SweepSpec) -> None:
        stored, here = self.meta("identity"), spec.identity()
        if stored == here:
            return
        if here.get("data") and "data" not in stored and {**stored, "data": here["data"]} == here:
            raise SpecError(
                f"--resume: {shown(self.path)} records no fingerprint of its data files (an older pdp-audit made "
                "it), so its cells cannot be shown to be about today's bytes: run into a new store"
            )
        for path in sorted(set(stored.get("data", {})) | set(here.get("data", {}))):
            then, now = stored.get("data", {}).get(path), here.get("data", {}).get(path)
            if then is not None and now is not None and then != now:
                raise SpecError(
                    f"--resume: the data file {path!r} changed since {self.path} was made (SHA-256 {then[:12]}… "
                    f"there, {now[:12]}… now); its cells would mix two data sets: run into a new store"
                )
        for key in ("mechanism", "seed", "alpha", "checks"):
            if stored[key] != here[key]:
                raise SpecError(
                    f"--resume: {shown(self.path)} was made by a different spec "
                    f"({key} = {stored[key]!r} there, {here[key]!r} here)"
                )
        if stored["mechanism"] == "gaussian" and any(
            "sigma_scale" in c.get("parameters", {}) for c in self.meta_spec_cells()
        ):
            raise SpecError(
                f"--resume: {shown(self.path)} holds Gaussian cells under the sweep keys of pdp-audit 0.1 (epsilon, "
                "delta, sigma_scale, …), now run gaussian's (claim_epsilon, claim_delta, noise_multiplier, …), so its "
                "cells cannot be resumed: run into a new store (pdp-audit report still reads this one)"
            )
        only_store = len(set(stored["cells"]) - set(here["cells"]))
        only_spec = len(set(here["cells"]) - set(stored["cells"]))
        raise SpecError(
            f"--resume: {shown(self.path)} was made by a different spec "
            f"(its grid differs: {only_store} cells only in the store, {only_spec} only in the spec)"
        )

    def close(self) -> None:
        """Close the connection and release the writer's lock.  A writer leaves the store as one file: its
        journal mode back to DELETE, so SQLite folds the write-ahead log into the file and removes ``-wal`` and
        ``-shm`` (a reader's ``mode=ro`` connection to a WAL store would create both and could not remove them);
        the next writer (``--resume``) sets WAL again.  Where a reader holds the store open, it stays in WAL."""
        if self._lock is not None:
            try:
                self.db.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.Error:
                pass
        self.db.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def transaction(self):
        store = self

        class _Tx:
            def __enter__(self):
                store.db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind, value, tb):
                if kind is None:
                    store.db.execute("COMMIT")
                    return False
                try:
                    store.db.execute("ROLLBACK")
                except sqlite3.Error:  # SQLite rolled back itself (a full disk): the first error is the one to tell
                    pass
                return False

        return _Tx()

    # -- reading -------------------------------------------------------------------------------
    def meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        try:
            return json.loads(row[0])
        except RecursionError:  # arrays nested thousands deep: damaged, like any text that is not JSON
            raise ValueError(f"the meta value {key!r} is nested too deeply to be JSON a store holds") from None

    def completed_ids(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT cell_id FROM cells")}

    def verdicts(self) -> dict[str, Verdict]:
        return dict(self.db.execute("SELECT cell_id, verdict FROM cells"))

    def rows(self) -> list[dict]:
        columns = (
            "cell_id",
            "position",
            "parameters",
            "seed",
            "alpha",
            "code_version",
            "verdict",
            "estimates",
            "checks",
            "effective",
            "elapsed_s",
            "worker",
            "completed_at",
        )
        out = []
        for row in self.db.execute(f"SELECT {', '.join(columns)} FROM cells ORDER BY position, cell_id"):
            out.append(decoded_row(self.path, dict(zip(columns, row))))
        return out

    def check_content(self) -> list[dict]:
        """Every value a reader uses -- the spec, its identity, each stored cell -- checked (one line naming the cell
        and what is wrong if the store is damaged); returns the cells' rows."""
        try:
            spec, identity = self.meta("spec"), self.meta("identity")
            check_texts(self.path, {"spec source": self.meta("spec_source"), "creation time": self.meta("created")})
            rows = self.rows()
        except (sqlite3.DatabaseError, KeyError, ValueError) as err:  # a missing table, column or meta key
            if isinstance(err, sqlite3.DatabaseError) and storage_problem(err) is not None:
                raise SpecError(f"{self.path!r}: cannot read the store: {storage_problem(err)}") from None
            problem = f"{type(err).__name__}: {err}"
            raise SpecError(f"{shown(self.path)}: the store is damaged and cannot be read ({problem})") from None
        check_spec(self.path, spec)
        check_identity(self.path, identity)
        for record in rows:
            check_cell(self.path, record, spec["swept"])
        check_cells_in_spec(self.path, spec, identity, rows)
        return rows

    # -- writing -------------------------------------------------------------------------------
    def add(self, task, outcome: dict) -> bool:
        """Commit one completed cell atomically; False if it was already there (never duplicated).

        A cell computed by other code (a Dask worker with another pdp-audit installed) is refused: its numbers
        would not be this version's, and the store records one code version per cell."""
        worker_code = outcome.get("code_version")
        if worker_code is not None and worker_code != self.code_version:
            raise SpecError(
                f"worker {outcome.get('worker')} runs pdp-audit {worker_code}, this driver {self.code_version}: "
                "install the same pdp-audit on every worker (the cells already stored are kept)"
            )
        result = outcome["result"]
        estimates = {
            c["id"]: {k: c.get(k) for k in ("estimate", "exact", "ci", "level", "verdict")} for c in result["checks"]
        }
        try:
            return self._insert(task, result, estimates, self.spec_positions(), outcome)
        except sqlite3.Error as err:
            if storage_problem(err) is None:
                raise
            done = len(self.completed_ids())
            raise StoreWriteError(
                f"--store {self.path!r}: cannot write the store: {storage_problem(err)}; the {done} cells committed "
                "before are kept: make room (or move the store), then run the same command with --resume"
            ) from None

    def _insert(self, task, result: dict, estimates: dict, positions: dict, outcome: dict) -> bool:
        with self.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    task.cell_id,
                    positions.get(task.cell_id, -1),
                    canonical_json(task.parameters),
                    task.seed,
                    task.alpha,
                    self.code_version,
                    result["verdict"],
                    canonical_json(estimates),
                    canonical_json(result["checks"]),
                    canonical_json(result.get("parameters", {})),
                    outcome.get("elapsed"),
                    outcome.get("worker"),
                    _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                ),
            )
        return cursor.rowcount == 1

    def meta_spec_cells(self) -> list[dict]:
        if not hasattr(self, "_spec_cells"):
            self._spec_cells = self.meta("spec")["cells"]
        return self._spec_cells

    def spec_positions(self) -> dict[str, int]:
        """Each spec cell's position by id, built once (not per commit: 23 ms a commit at 100k cells)."""
        if not hasattr(self, "_positions"):
            self._positions = {c["id"]: c["position"] for c in self.meta_spec_cells()}
        return self._positions


@dataclass
class SweepResults:
    """Everything a report needs, read from a store."""

    path: str
    spec: dict
    spec_source: str
    created: str
    code_versions: list[str]
    cells: list[dict]  # completed, in spec order
    missing: list[dict] = field(default_factory=list)  # spec cells not in the store

    @property
    def counts(self) -> dict[str, int]:
        counts = {"pass": 0, "fail": 0, "inconclusive": 0}
        for cell in self.cells:
            counts[cell["verdict"]] += 1
        return counts

    @property
    def complete(self) -> bool:
        return not self.missing

    def to_frame(self):
        """One row per finished cell and check, as a pandas DataFrame: the cell's parameters (one column each, by
        name), its id, position, seed, α and verdict, then the check's id, role, verdict, estimate, interval
        (``ci_lo``, ``ci_hi``), level and exact value.  No timings or worker names, so the table of a store is
        the same whichever executor filled it."""
        import pandas as pd

        names = sorted({k for cell in self.cells for k in cell["parameters"]})
        rows = []
        for cell in self.cells:
            for check in cell["checks"]:
                ci = check.get("ci") or (None, None)
                rows.append(
                    {
                        **{name: cell["parameters"].get(name) for name in names},
                        "cell_id": cell["cell_id"],
                        "position": cell["position"],
                        "seed": cell["seed"],
                        "alpha": cell["alpha"],
                        "cell_verdict": cell["verdict"],
                        "check": check["id"],
                        "role": check.get("role", "guarantee"),
                        "verdict": check["verdict"],
                        "estimate": check.get("estimate"),
                        "ci_lo": ci[0],
                        "ci_hi": ci[1],
                        "level": check.get("level"),
                        "exact": check.get("exact"),
                    }
                )
        columns = [*names, "cell_id", "position", "seed", "alpha", "cell_verdict", "check", "role", "verdict"]
        columns += ["estimate", "ci_lo", "ci_hi", "level", "exact"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def exponents(self) -> list:
        """Fitted power laws of each check's estimates against each swept parameter
        (:mod:`pdp_audit.sweeps.rates`)."""
        ids = self.spec.get("checks") or list(dict.fromkeys(k["id"] for c in self.cells for k in c["checks"]))
        return exponents(self.cells, self.spec["swept"], ids)

    @property
    def verdict(self) -> str:
        """Worst verdict over the cells; a sweep with missing cells is at best inconclusive."""
        verdicts = [c["verdict"] for c in self.cells] + (["inconclusive"] if self.missing else [])
        return worst(verdicts)


def read_frame(path: str | Path):
    """A sweep store as a pandas DataFrame in one call (:meth:`SweepResults.to_frame`)."""
    return load_results(path).to_frame()


def load_results(path: str | Path) -> SweepResults:
    """Everything a report needs from the store at ``path`` (complete or not), every value checked
    (:mod:`pdp_audit.sweeps.stored`); SpecError if it is not a store or is damaged."""
    store = Store.open(path, read_only=True)
    try:
        cells = store.check_content()
        spec = store.meta("spec")
        done = {c["cell_id"] for c in cells}
        missing = [c for c in spec["cells"] if c["id"] not in done]
        versions = sorted({c["code_version"] for c in cells})
        source, created = store.meta("spec_source"), store.meta("created")
        return SweepResults(str(path), spec, source, created, versions, cells, missing)
    finally:
        store.close()
