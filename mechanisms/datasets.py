"""Datasets: synthetic generators, real datasets shipped inside installed packages, and user CSVs.

No network is used at run time: the real datasets are the copies bundled with scikit-learn.
"""

from __future__ import annotations

import io
import math
import os
import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

import numpy as np

from pdp_audit.mechanisms import shipped_store
from pdp_audit.mechanisms.csv_pieces import BLANK, NOT_WORD, WORD, ReadAhead, Unsplit, copy_rows, parse_in_pieces
from pdp_audit.mechanisms.validation import InputError, not_a_regular_file, quoted, shown


@dataclass(frozen=True)
class Dataset:
    """A data set: its name, the feature rows, the optional target column and a one-line description."""

    name: str
    features: np.ndarray  # (n, d)
    target: np.ndarray | None  # (n,) or None
    description: str
    columns: tuple[str, ...] = ()  # the features' names, where known (a CSV's header, a shipped set's names)


def _sklearn(loader_name: str, description: str) -> Dataset:
    """scikit-learn's ``loader_name`` data set, read from the store where it holds its arrays (importing scikit-learn
    costs more than the audit of a shipped data set at a small budget: :mod:`.shipped_store`)."""
    features, target, names = shipped_store.load(loader_name, lambda: _sklearn_arrays(loader_name))
    return Dataset(loader_name.removeprefix("load_").replace("_", "-"), features, target, description, names)


def _sklearn_arrays(loader_name: str) -> shipped_store.Arrays:
    from sklearn import datasets

    bunch = getattr(datasets, loader_name)()
    names = tuple(str(name) for name in bunch.feature_names)
    return np.asarray(bunch.data, float), np.asarray(bunch.target, float), names


SHIPPED = {
    "diabetes": lambda: _sklearn(
        "load_diabetes",
        "scikit-learn diabetes (Efron et al. 2004): 442 patients, 10 baseline variables, disease progression",
    ),
    "breast-cancer": lambda: _sklearn(
        "load_breast_cancer", "scikit-learn Wisconsin breast cancer: 569 tumours, 30 features, malignant/benign"
    ),
    "wine": lambda: _sklearn(
        "load_wine", "scikit-learn wine recognition: 178 wines, 13 chemical features, 3 cultivars"
    ),
}


def column_index(dataset: Dataset, column: str | None) -> int:
    """The feature column ``--column`` names (None: the first); one line listing the columns otherwise."""
    if column is None:
        return 0
    if column not in dataset.columns:
        listed = ", ".join(dataset.columns)
        raise InputError(f"--column {column!r} is not a feature column of {dataset.name} (columns: {listed})")
    return dataset.columns.index(column)


def synthetic_rows(n: int, d: int, rng: np.random.Generator) -> Dataset:
    """n rows of d independent standard normals (the default synthetic data)."""
    if n < 1 or d < 1:
        raise InputError(f"--synthetic needs n >= 1 and d >= 1, got n={n}, d={d}")
    return Dataset(
        f"synthetic-{n}x{d}", rng.standard_normal((n, d)), None, f"synthetic: {n} rows of {d} iid N(0, 1) features"
    )


def load_shipped(name: str) -> Dataset:
    """The shipped data set ``name`` (one of :data:`SHIPPED`); InputError naming ``--dataset`` otherwise."""
    if name not in SHIPPED:
        raise InputError(f"--dataset must be one of {sorted(SHIPPED)}, got {name!r}")
    return SHIPPED[name]()


# Values beyond this magnitude make squared norms and variances overflow double precision (1e100² · n stays far
# below 1.8e308 for any n that fits in memory), which would silently clip or zero rows.
MAX_ABS_VALUE = 1e100


@dataclass
class PinnedFile:
    """A data file pinned by :func:`pinned_file`: every parse of it inside the block hashes the bytes it parses.

    The first read fixes :attr:`sha256` (a parse, or the digest asked for before any parse); a later read whose bytes
    differ (the file was replaced meanwhile) is refused in one line, so the digest a certificate records names exactly
    the bytes audited -- without holding them: the bytes are hashed as the parser reads them and then dropped (they
    were held for the whole certification: 195 MB beside the table of a 1e6 x 30 CSV).  ``content``: the bytes
    themselves while a caller of :func:`pinned_bytes` holds them (every parse then reads those)."""

    path: Path
    content: bytes | None = None
    digest: str | None = None
    ahead: ReadAhead | None = None

    @property
    def sha256(self) -> str:
        """The SHA-256 (hex) of the bytes parsed, or of the file's bytes now if nothing parsed it yet."""
        if self.digest is None:
            self.settle(_content_sha256(self.content) if self.content is not None else _file_sha256(self.path))
        assert self.digest is not None
        return self.digest

    def settle(self, digest: str) -> None:
        """Record the digest of bytes just read: the first fixes :attr:`sha256`; a different one is refused."""
        if self.digest is None:
            self.digest = digest
        elif digest != self.digest:
            raise InputError(
                f"--data: {shown(self.path)} changed while it was being read (SHA-256 {self.digest[:12]}… first, "
                f"{digest[:12]}… then); run again once the file stays unchanged"
            )


#: Data files pinned by :func:`pinned_file`, by resolved path.
_PINNED: dict[str, PinnedFile] = {}
#: Tables parsed from pinned files by :func:`table_shape` (header, values), by resolved path: handed over to the
#: next :func:`load_csv` of the file (and forgotten then, or when the file is unpinned).
_PARSED: dict[str, tuple[list[str], np.ndarray]] = {}


@contextmanager
def pinned_file(path: str | Path, read_ahead: bool = False) -> Iterator[PinnedFile]:
    """Pin the data file at ``path``: inside the block every parse of it is hashed and must match the first
    (:class:`PinnedFile`), so ``sha256`` names the bytes audited even if the file is replaced meanwhile.  A file
    pinned by a caller already yields that pin, still pinned after this block.

    ``read_ahead``: a CSV's bytes are read and hashed on a thread from now on, for the first parse of it to take
    (:class:`~pdp_audit.mechanisms.csv_pieces.ReadAhead`; a file that cannot be opened is left to that parse)."""
    path = Path(path)
    key = os.path.realpath(path)
    if key in _PINNED:
        yield _PINNED[key]
        return
    _check_data_file(path)
    pin = _PINNED[key] = PinnedFile(path)
    try:
        if read_ahead and path.suffix.lower() not in PARQUET_SUFFIXES:
            try:
                pin.ahead = ReadAhead(path)
            except OSError:  # the parse opens it again and names what is wrong
                pass
        yield pin
    finally:
        if pin.ahead is not None:
            pin.ahead.close()
        _PINNED.pop(key, None)
        _PARSED.pop(key, None)


@contextmanager
def pinned_bytes(path: str | Path) -> Iterator[bytes]:
    """Read the data file at ``path`` once and pin it (:func:`pinned_file`); inside the block :func:`load_csv`
    parses these bytes, never the file: for a caller that needs the bytes themselves (a private copy of them, their
    digest against a record)."""
    outer = _PINNED.get(os.path.realpath(path))
    if outer is not None and outer.content is not None:  # held by a caller already
        yield outer.content
        return
    with pinned_file(path) as pin:
        content = _read_bytes(Path(path))
        if outer is not None:  # inside a caller's pin: these bytes must be those it parsed (or fix its digest)
            pin.settle(_content_sha256(content))
        pin.content = content
        try:
            yield content
        finally:
            pin.content = None


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"--data: no such file {str(path)!r}") from None
    except OSError as err:
        raise InputError(f"--data: cannot read {str(path)!r}: {err.strerror or err}") from None


def _content_sha256(content: bytes) -> str:
    import hashlib  # where a file is hashed: OpenSSL's loading is no command parser's business

    return hashlib.sha256(content).hexdigest()


def _file_sha256(path: Path) -> str:
    """The SHA-256 of the file's bytes, read a megabyte at a time."""
    import hashlib

    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(2**20):
                digest.update(chunk)
    except OSError as err:
        raise InputError(f"--data: cannot read {str(path)!r}: {err.strerror or err}") from None
    return digest.hexdigest()


#: The largest data file read, checked from its size before any read: the file is held in memory with its parsed
#: values (about twice its size at the peak), and every accepted input must run in bounded memory.
DATA_FILE_CAP = 4 * 2**30


def _check_data_file(path: Path) -> None:
    """InputError naming ``--data`` unless ``path`` is a regular file (a FIFO would block, a directory is none) of at
    most :data:`DATA_FILE_CAP` bytes."""
    why = not_a_regular_file(path, "CSV file", cap=DATA_FILE_CAP)
    if why == "does not exist":
        raise InputError(f"--data: no such file {str(path)!r}")
    if why is not None:
        raise InputError(f"--data: {str(path)!r} {why}")


def _source(path: Path):
    """What the text and Parquet readers parse for ``path``: the file, or where it is pinned the bytes held, or else
    its bytes read now and hashed into the pin (:meth:`PinnedFile.settle`)."""
    pin = _PINNED.get(os.path.realpath(path))
    if pin is None:
        return path
    if pin.content is not None:
        return io.BytesIO(pin.content)
    content = _read_bytes(path)
    pin.settle(_content_sha256(content))
    return io.BytesIO(content)


def load_csv(path: str | Path, target_column: str | None = None) -> Dataset:
    """A numeric table with a header row -- CSV (pandas' reader; UTF-8 with or without a BOM), or Parquet
    (``.parquet``/``.pq``, where pyarrow is installed); ``target_column`` (if given) is split off as the target.
    Anything that cannot be read faithfully is one :class:`InputError` naming ``--data``, the line and the column.
    """
    path = Path(path)
    key = os.path.realpath(path)
    if key not in _PINNED:
        _check_data_file(path)
    parsed = _PARSED.pop(key, None) if key in _PINNED else None
    if parsed is not None:  # checked by the load that parsed it (table_shape's), and handed over unchanged
        header, values = parsed
    else:
        header, values = _read_table(path)
        _check_values(path, header, values)
    target, columns = None, list(header)
    if target_column is not None:
        if target_column not in header:
            raise InputError(
                f"--target-column {target_column!r} is not a column of {shown(path)} "
                f"(columns: {', '.join(quoted(name) for name in header)})"
            )
        j = header.index(target_column)
        target, values = values[:, j].copy(), np.delete(values, j, axis=1)  # not a view keeping the table
        del columns[j]
        if values.shape[1] == 0:
            raise InputError(
                f"--data: {path} has no column besides --target-column {target_column!r}: nothing is left to release"
            )
    description = f"user CSV {path.name}: {len(values)} rows, {values.shape[1]} feature columns"
    return Dataset(path.stem, values, target, description, tuple(columns))


def _check_values(path: Path, header: list[str], values: np.ndarray) -> None:
    """InputError naming the first cell that is not finite or beyond ±:data:`MAX_ABS_VALUE`."""
    # the extremes in two passes without a temporary (NaN and ±∞ show in them): the cells are found only to name one
    lowest, highest = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    if not (math.isfinite(lowest) and math.isfinite(highest)):
        row, column = (int(i) for i in np.argwhere(~np.isfinite(values))[0])
        raise InputError(
            f"--data: {shown(path)} line {row + 2}, column {header[column]!r}: non-finite value (nan or inf)"
        )
    if max(-lowest, highest) > MAX_ABS_VALUE:
        too_large = np.abs(values) > MAX_ABS_VALUE
        row, column = (int(i) for i in np.argwhere(too_large)[0])
        raise InputError(
            f"--data: {shown(path)} line {row + 2}, column {header[column]!r}: {values[row, column]:g} is beyond "
            f"±{MAX_ABS_VALUE:g}; norms and variances of such values overflow, so the data cannot be processed "
            "faithfully"
        )


def table_shape(path: str | Path) -> list[int]:
    """[rows, columns] of the numeric table of ``path``, every column counted, as :func:`load_csv` reads it (its
    errors too).  While the file is pinned the parsed table is kept for the next :func:`load_csv` of it, which
    then parses nothing: a certificate's fingerprint and its audit read a large file once.  That reader owns the
    array (it is handed over, not shared): nothing another reader does can change it."""
    dataset = load_csv(path)
    key = os.path.realpath(path)
    if key in _PINNED:
        _PARSED[key] = (list(dataset.columns), dataset.features)
    return list(dataset.features.shape)


def check_width(path: str | Path, features: np.ndarray, most: int) -> None:
    """InputError naming ``--data`` and the cap, before any sampling, where ``features`` (the columns an audit
    releases or fits one coordinate per column of) are wider than ``most`` -- the cap of the audit's ``--synthetic``
    d.  The draws, their losses and the consistency pilot grow with the release's dimension (the Gaussian audit at
    2000 trials on 3 rows: 1,000 columns took 29 s and 1.8 GB, 4,000 took 119 s and 6.4 GB, 20,000 ran out of memory
    uncapped), so a wide file is refused in one line rather than left to exhaust the machine."""
    width = int(features.shape[1])
    if width > most:
        raise InputError(
            f"--data: {shown(path)} has {width:,} feature columns; this audit takes at most {most} (as --synthetic's "
            "d): its memory and time grow with the dimension of the release"
        )


PARQUET_SUFFIXES = (".parquet", ".pq")


def _read_table(path: Path) -> tuple[list[str], np.ndarray]:
    """The header and the numbers of a CSV or Parquet file; InputError naming the first cell that is no number."""
    parquet = path.suffix.lower() in PARQUET_SUFFIXES
    fast = None if parquet else _read_csv_numbers(path)
    if fast is not None:
        header, values = fast
    else:
        header, cells = _read_parquet(path) if parquet else _read_csv(path)
        if not cells.shape[0]:
            raise InputError(f"--data: {shown(path)} needs a header row and at least one data row")
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise InputError(
            f"--data: {shown(path)} has duplicate column names {duplicates}; every column needs its own name"
        )
    return header, values if fast is not None else _numeric(path, header, cells)


def _read_csv_numbers(path: Path) -> tuple[list[str], np.ndarray] | None:
    """The header and the cells of an all-numeric CSV, parsed straight to floats; None if anything is unusual
    (then :func:`_read_csv` reads every cell as text and :func:`_numeric` names the first that is no number).

    Reading 1e6 × 30 cells as Python strings took 3 GB; parsed to floats they take 240 MB.  The parser is
    correctly rounded -- the same doubles as Python's ``float`` -- by default from pandas 3 on, with
    ``float_precision="round_trip"`` before.  A plain file is parsed in pieces on two threads
    (:mod:`pdp_audit.mechanisms.csv_pieces`: pandas' parse holds no lock, so it takes half the wall time on two cores;
    pandas' own parallel reader takes a path, never the bytes hashed); a file it cannot cut at newlines faithfully (a
    quote, blank lines before the header) is parsed whole through :class:`_Scan` -- one pass hashes a pinned file's
    bytes and finds any letter below the header (then the parse is not used), on a thread beside the parse -- and
    the header is parsed from the header line the scan kept.

    The columns' types are pandas' own inference first: ``dtype=float`` gave the same doubles for 60% more CPU (1e6 ×
    30 cells).  A column inferred as anything but float64 -- integers (whose ``-0`` has lost its sign), or text --
    parses the file again with ``dtype=float``, as it always was.
    """
    try:
        return _parse_split(path)
    except Unsplit:
        pass  # a quote, a header line not first, a very long line: parsed whole, as one stream
    try:
        return _parse_numbers(path, typed=False)
    except _NotFloats:
        pass  # parsed again once the exception is gone (its frames hold the rows copied so far)
    return _parse_numbers(path, typed=True)


#: The options of every parse of the float reader: no cell is NA, blank lines are skipped (as the text reader does).
_COMMON = {"keep_default_na": False, "na_filter": False, "encoding": "utf-8-sig", "skip_blank_lines": True}


def _rounding() -> dict:
    """Correctly rounded doubles (as Python's ``float``): pandas' default from 3 on, ``round_trip`` before."""
    import pandas as pd

    return {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _opened(path: Path) -> tuple[PinnedFile | None, bytes | None, io.RawIOBase | io.BufferedIOBase, int] | None:
    """(pin, held, source, size) of the float reader's parse of ``path``: the file's pin (or None), the bytes it holds
    (or None: read from disk), those bytes unbuffered and their count; None where the file cannot be opened (the text
    reader names what is wrong with it)."""
    pin = _PINNED.get(os.path.realpath(path))
    held = pin.content if pin is not None else None
    try:
        source: io.RawIOBase | io.BufferedIOBase = io.BytesIO(held) if held is not None else open(path, "rb", 0)
    except OSError:
        return None
    try:
        size = len(held) if held is not None else os.fstat(source.fileno()).st_size
    except OSError:
        source.close()
        return None
    return pin, held, source, size


def _parse_split(path: Path) -> tuple[list[str], np.ndarray] | None:
    """:func:`_read_csv_numbers`' parse in pieces on two threads (:mod:`pdp_audit.mechanisms.csv_pieces`), hashing a
    pinned file's bytes as it reads them; raises :class:`Unsplit` where the file must be parsed whole."""
    pin = _PINNED.get(os.path.realpath(path))
    ahead = pin.ahead if pin is not None and pin.content is None else None
    if ahead is not None:  # read and hashed since the pin (pinned_file's read_ahead): this parse takes those bytes
        pin.ahead = None  # type: ignore[union-attr]
        with ahead:
            try:
                split = parse_in_pieces(ahead, ahead.size, False, {**_COMMON, **_rounding()})
            except OSError:
                return None
        split = replace(split, digest=ahead.digest.hexdigest())  # a table was parsed: every byte was read
    else:
        opened = _opened(path)
        if opened is None:
            return None
        pin, held, source, size = opened
        with source:
            try:
                split = parse_in_pieces(source, size, pin is not None and held is None, {**_COMMON, **_rounding()})
            except OSError:  # a read failing midway: the text reader names it, as the whole-file parse left it to
                return None
    if split.values is None or split.names is None or split.values.shape[1] != len(split.names):
        return None
    if split.digest is not None:  # a pinned file: these bytes are those its certificate names
        pin.settle(split.digest)  # type: ignore[union-attr]
    return split.names, split.values


class _NotFloats(Exception):
    """A column pandas' inference did not read as float64 (:func:`_rows_in_order`)."""


def _parse_numbers(path: Path, typed: bool) -> tuple[list[str], np.ndarray] | None:
    """:func:`_read_csv_numbers`' parse, with ``dtype=float`` where ``typed`` (else :class:`_NotFloats` where a column
    is inferred as anything but float64)."""
    import pandas as pd

    opened = _opened(path)
    if opened is None:
        return None
    pin, held, source, size = opened
    common, rounding = _COMMON, _rounding()
    with source:
        scan = _Scan(source, hashed=pin is not None and held is None)
        try:
            typing = {"dtype": float} if typed else {}
            # low_memory=False: each chunk's columns typed whole.  In pieces, a piece of integers and one of decimals
            # were concatenated into float64 from int64 -- "-0" then read as 0.0, past the float64 check -- and the
            # concatenation copied every piece
            whole = {"low_memory": False, "chunksize": _PARSE_ROWS}
            with pd.read_csv(scan, header=0, **whole, **typing, **common, **rounding) as chunks:
                values = _rows_in_order(chunks, size, scan, typed)
            line = scan.header_line() if not scan.read(1) else None  # None: the parser stopped before the end
            header = pd.read_csv(io.BytesIO(line), header=None, nrows=1, dtype=str, **common) if line else None
        except _NotFloats:
            raise
        except Exception:  # whatever it is, the reader of text cells names it
            return None
        finally:
            scan.finish()  # the tally's thread joined, whatever happened: none is left running
    if values is None or header is None or not scan.plain_numbers():
        return None
    names = [str(name) for name in header.iloc[0].tolist()]
    if values.shape[1] != len(names):
        return None
    if scan.digest is not None:  # a pinned file: these bytes are those its certificate names
        pin.settle(scan.digest.hexdigest())  # type: ignore[union-attr]
    return names, values


#: Rows the float reader parses at a time (:func:`_rows_in_order`).
_PARSE_ROWS = 1 << 16


def _rows_in_order(chunks, size: int, scan: _Scan, typed: bool = True) -> np.ndarray | None:
    """The parser's chunks of rows copied into one C-ordered array as they come, or None where pandas' parse is not
    the file's table: a short row (NaN-filled), a longer data row than the header (pandas then makes the first
    column the index, shifting every cell), no row at all -- the text reader refuses these with the line and the
    column.

    The whole table parsed at once was concatenated from the parser's pieces into a frame, then copied into rows: two
    full-size arrays beside the result, more time than the parse on a shared 2-core machine.  The array is sized
    from the bytes the first chunk took (``size``: the file's), grown if short, and cut to the rows read (neither
    copies the rows read; the pages never written are never used)."""
    import pandas as pd

    values, rows = None, 0
    for chunk in chunks:
        if values is None:
            estimate = size * len(chunk) / max(scan.size, 1)
            values = np.empty((max(len(chunk), int(1.05 * estimate) + _PARSE_ROWS), chunk.shape[1]))
        if not isinstance(chunk.index, pd.RangeIndex) or chunk.shape[1] != values.shape[1]:
            return None
        if not typed and not all(kind == np.float64 for kind in chunk.dtypes):
            raise _NotFloats
        if rows + len(chunk) > len(values):
            values.resize((max(rows + len(chunk), int(1.5 * len(values))), values.shape[1]), refcheck=False)
        if copy_rows(chunk, values[rows : rows + len(chunk)]):
            return None
        rows += len(chunk)
    if values is None or rows == 0:
        return None
    values.resize((rows, values.shape[1]), refcheck=False)
    return values


_WORD, _NOT_WORD, _BLANK = WORD, NOT_WORD, BLANK  # the float reader's gate (see csv_pieces)


class _Scan(io.RawIOBase):
    """A data file's bytes as the parser reads them, scanned on the way (one pass): their SHA-256 (``hashed``: a
    pinned file's), their count of letters (:data:`_WORD`) and the head of the file up to the end of the header
    line (the first line after any BOM and blank lines).

    The letters decide whether the float reader's parse may be used (:meth:`plain_numbers`): pandas reads ``True``
    as 1.0 where Python's ``float`` refuses it, so no letter but an exponent's may appear below the header.

    The digest and the count are taken on a second thread (:class:`_Tally`), from the very ``bytes`` objects handed
    to the parser (``read``: immutable, so no copy is made): hashlib releases the interpreter lock on large buffers,
    and pandas' tokenizer runs without it, so on two cores the parse no longer waits for either.  The results are
    read only after :meth:`finish` (called by :meth:`plain_numbers` and :meth:`close`) has joined the thread.
    """

    def __init__(self, source: io.RawIOBase | io.BufferedIOBase, hashed: bool):
        self.source = source
        self.size = 0  # bytes read
        self.head = bytearray()
        self.header_end: int | None = None  # past the header line's newline, once read
        self.ended = False
        self._tally: _Tally | None = _Tally(hashed)

    @property
    def digest(self):
        """The SHA-256 object of the bytes read (None unless ``hashed``), once :meth:`finish` has run."""
        return self._finished().digest

    @property
    def letters(self) -> int:
        return self._finished().letters

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        chunk = self.source.read(size)
        if not chunk:
            self.ended = True
            return b""
        self.size += len(chunk)
        self._running().put(chunk)
        if self.header_end is None:
            self.head += chunk
            newline = self.head.find(b"\n", len(self.head) - len(self.head.lstrip(_BLANK)))
            self.header_end = newline + 1 if newline >= 0 else None
        return chunk

    def readinto(self, buffer) -> int:  # type: ignore[override]
        """For a reader that buffers (pandas itself calls :meth:`read`): a copy of what :meth:`read` returns."""
        chunk = self.read(len(buffer))
        memoryview(buffer)[: len(chunk)] = chunk
        return len(chunk)

    def header_line(self) -> bytes | None:
        """The bytes up to the end of the header line (the whole file if it has one line), or None if the line has
        not ended in what was read."""
        if self.header_end is not None:
            return bytes(self.head[: self.header_end])
        return bytes(self.head) if self.ended else None

    def plain_numbers(self) -> bool:
        """Whether every letter read is in the header line: no letter but an exponent's below it."""
        line = self.header_line()
        return line is not None and len(line.translate(None, _NOT_WORD)) == self.letters

    def finish(self) -> None:
        """Join the thread that tallies the bytes read (nothing more can be read then)."""
        if self._tally is not None and not self._tally.done:
            self._tally.join()

    def close(self) -> None:
        self.finish()
        super().close()

    def _running(self) -> _Tally:
        assert self._tally is not None and not self._tally.done, "read after finish()"
        return self._tally

    def _finished(self) -> _Tally:
        self.finish()
        assert self._tally is not None
        return self._tally


class _Tally:
    """The SHA-256 (``hashed``) and the count of letters (:data:`_WORD`) of the chunks :meth:`put` in, taken in order
    on a thread of its own; :meth:`join` waits for the last.  At most :data:`_TALLY_QUEUE` chunks wait (a slow
    thread holds the reader back rather than the file in memory); an error of the thread is raised by :meth:`join`."""

    def __init__(self, hashed: bool):
        import hashlib

        self.digest = hashlib.sha256() if hashed else None
        self.letters = 0
        self.done = False
        self._error: BaseException | None = None
        self._queue: queue.Queue[bytes | None] = queue.Queue(_TALLY_QUEUE)
        self._thread = threading.Thread(target=self._run, name="pdp-audit-scan", daemon=True)
        self._thread.start()

    def put(self, chunk: bytes) -> None:
        self._queue.put(chunk)

    def join(self) -> None:
        self.done = True
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (chunk := self._queue.get()) is not None:
            if self._error is not None:
                continue  # drained, so that no put() waits forever
            try:
                if self.digest is not None:
                    self.digest.update(chunk)
                self.letters += len(chunk.translate(None, _NOT_WORD))
            except BaseException as error:  # noqa: BLE001 - raised on the reader's thread by join()
                self._error = error


#: Chunks of the parser's reads (256 KB each in pandas) waiting for :class:`_Tally`'s thread at most.
_TALLY_QUEUE = 64


def _read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    """The header and the cells (as text) of a CSV, read by pandas without any conversion: every cell is kept
    as written so that numbers are parsed once, by :func:`_numeric`.  A row with too many fields is pandas'
    error (with its line number); a missing field is an empty cell, which :func:`_numeric` names."""
    import pandas as pd

    try:
        table = pd.read_csv(
            _source(path),
            header=None,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            encoding="utf-8-sig",
            skip_blank_lines=True,
        )
    except UnicodeDecodeError as err:
        raise InputError(f"--data: {shown(path)} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"--data: {shown(path)} needs a header row and at least one data row") from None
    except (pd.errors.ParserError, OSError) as err:
        raise InputError(f"--data: cannot read {shown(path)}: {str(err).strip()}") from None
    cells = table.to_numpy(dtype=object)
    return [str(name) for name in cells[0]], cells[1:]


def _read_parquet(path: Path) -> tuple[list[str], np.ndarray]:
    import pandas as pd

    try:
        import pyarrow  # noqa: F401  (pandas' Parquet engine)
    except ImportError:
        raise InputError(f"--data: reading Parquet ({shown(path.name)}) needs pyarrow: pip install pyarrow") from None
    try:
        table = pd.read_parquet(_source(path))
    except Exception as err:  # pyarrow's errors have no common base class
        raise InputError(f"--data: cannot read {shown(path)} as Parquet: {str(err).strip()}") from None
    return [str(name) for name in table.columns], table.to_numpy(dtype=object)


def _numeric(path: Path, header: list[str], cells: np.ndarray) -> np.ndarray:
    """The cells as floats (numpy's conversion: Python's correctly rounded parsing), or the first cell that is
    not a number, by line and column."""
    try:  # C order, as numpy builds arrays from rows: reductions then sum in the same order on every reader
        return np.ascontiguousarray(cells.astype(float))
    except (ValueError, TypeError):
        pass
    for (row, column), cell in np.ndenumerate(cells):
        try:
            float(cell)
        except (ValueError, TypeError):
            where = f"--data: {shown(path)} line {row + 2}, column {header[column]!r}"
            if str(cell).strip() == "":
                raise InputError(f"{where} is empty (a missing field or a short row)") from None
            raise InputError(f"{where}: {str(cell)!r} is not a number") from None
    raise AssertionError("unreachable: astype(float) failed but every cell converts")


def standardize(features: np.ndarray) -> np.ndarray:
    """z-score each column (constant columns become 0)."""
    sd = features.std(axis=0)
    return (features - features.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
