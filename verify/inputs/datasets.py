"""Datasets: synthetic generators, real datasets shipped inside installed packages, and user CSVs.

No network is used at run time: the real datasets are the copies bundled with scikit-learn.
"""

from __future__ import annotations

import io
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from pdp_audit.verify.inputs import shipped_store
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file, quoted, shown


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
def pinned_file(path: str | Path) -> Iterator[PinnedFile]:
    """Pin the data file at ``path``: inside the block every parse of it is hashed and must match the first
    (:class:`PinnedFile`), so ``sha256`` names the bytes audited even if the file is replaced meanwhile.  A file
    pinned by a caller already yields that pin, still pinned after this block."""
    path = Path(path)
    key = os.path.realpath(path)
    if key in _PINNED:
        yield _PINNED[key]
        return
    _check_data_file(path)
    pin = _PINNED[key] = PinnedFile(path)
    try:
        yield pin
    finally:
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
    """The header and the cells of an all-numeric CSV, parsed by ``pandas.read_csv`` straight to floats; None where
    the parse is not certainly the file's table -- then :func:`_read_csv` reads every cell as text and
    :func:`_numeric` names the first that is no number, by line and column.

    Reading 1e6 × 30 cells as Python strings took 3 GB; parsed to floats they take 240 MB.  The parser is correctly
    rounded -- the same doubles as Python's ``float`` -- by default from pandas 3 on, with
    ``float_precision="round_trip"`` before (:func:`_rounding`).  One pass reads the file (:class:`_Scan`: a pinned
    file's bytes are hashed as pandas reads them, so the digest names the bytes parsed), typed by pandas' inference
    (``dtype=float`` throughout costs 60% more CPU).  The parse is then checked, not trusted:

    - every column float64: pandas' float parser took every cell, whose only letters are an exponent's or an
      infinity's (refused by :func:`_check_values`, as the text reader's floats are); no ``nan``, ``True`` or
      hexadecimal is read as a float64 column (``tests/test_large_data_paths.py`` tries every letter);
    - a column of integers (int64, uint64) holds digits and a sign only, but ``-0`` lost its sign: the file is parsed
      again with ``dtype=float``; any other type (text, booleans) is the text reader's;
    - a short row leaves an empty cell (``na_filter`` is off: read as text, not NaN), a frame whose index is not a
      range is a long row (pandas makes the first column the index), and the header line must have as many names:
      each goes to the text reader.

    The rows are in one C-ordered array (:func:`_rows`): reductions then sum in the same order whichever reader read
    the file.
    """
    parsed = _parse_numbers(path, typed=False)
    if parsed is _INTEGERS:
        parsed = _parse_numbers(path, typed=True)
    return parsed if isinstance(parsed, tuple) else None


#: The options of every parse of the float reader: no cell is NA, blank lines are skipped (as the text reader does).
_COMMON = {"keep_default_na": False, "na_filter": False, "encoding": "utf-8-sig", "skip_blank_lines": True}
#: :func:`_parse_numbers`' answer where a column was typed as integers: parse again as floats.
_INTEGERS = "integers"


def _rounding() -> dict:
    """Correctly rounded doubles (as Python's ``float``): pandas' default from 3 on, ``round_trip`` before."""
    import pandas as pd

    return {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _parse_numbers(path: Path, typed: bool) -> tuple[list[str], np.ndarray] | str | None:
    """:func:`_read_csv_numbers`' parse, by inference or with ``dtype=float`` (``typed``): the header and the rows,
    :data:`_INTEGERS` where inference typed a column as integers, or None (the text reader decides)."""
    import pandas as pd

    pin = _PINNED.get(os.path.realpath(path))
    held = pin.content if pin is not None else None
    try:
        source: io.RawIOBase | io.BufferedIOBase = io.BytesIO(held) if held is not None else open(path, "rb")
        size = len(held) if held is not None else os.fstat(source.fileno()).st_size
    except OSError:  # the text reader names what is wrong with the file
        return None
    with source:
        scan = _Scan(source, hashed=pin is not None and held is None)
        try:
            typing = {"dtype": float} if typed else {}
            whole = {"low_memory": False, "chunksize": _PARSE_ROWS}  # each chunk's columns typed whole
            with pd.read_csv(scan, header=0, **whole, **typing, **_COMMON, **_rounding()) as chunks:
                values = _table(chunks, size, scan)
            line = scan.header_line() if not scan.read(1) else None  # None: the parser stopped before the end
            header = pd.read_csv(io.BytesIO(line), header=None, nrows=1, dtype=str, **_COMMON) if line else None
        except Exception:  # noqa: BLE001 - whatever it is, the reader of text cells names it
            return None
    if not isinstance(values, np.ndarray):
        return values
    if header is None or values.shape[1] != header.shape[1]:
        return None
    if scan.digest is not None:  # a pinned file: these bytes are those its certificate names
        pin.settle(scan.digest.hexdigest())  # type: ignore[union-attr]
    return [str(name) for name in header.iloc[0].tolist()], values


#: Rows pandas parses at a time (:func:`_table`): the parser's arrays are a chunk's, and the table the only
#: full-size one (the whole file parsed at once made its columns beside the table: 240 MB more memory, first touched,
#: for a 1e6 x 30 file).
_PARSE_ROWS = 1 << 16


def _table(chunks, size: int, scan: _Scan) -> np.ndarray | str | None:
    """The parser's chunks of rows copied into one C-ordered array as they come (:func:`_rows`), sized from the
    bytes the first chunk took (``size``: the file's), grown if short and cut to the rows read; :data:`_INTEGERS`
    where a chunk has a column of integers, None where the parse is not the file's table (a column of anything but
    numbers, a long row, which makes pandas' index of the first column; no row at all)."""
    import pandas as pd

    values, rows, integers = None, 0, False
    for chunk in chunks:
        kinds = {kind.kind for kind in chunk.dtypes}
        if kinds - {"f", "i", "u"} or not isinstance(chunk.index, pd.RangeIndex):
            return None
        # integers: parsed again as floats once every chunk is known to hold numbers only (as floats, pandas would
        # read a later chunk's True as 1.0); never with dtype=float, where each cell is a float or pandas' error
        integers = integers or kinds != {"f"}
        if integers:
            continue
        if values is None:
            estimate = int(1.05 * size * len(chunk) / max(scan.size, 1)) + _PARSE_ROWS
            values = np.empty((max(estimate, len(chunk)), chunk.shape[1]))
        if chunk.shape[1] != values.shape[1]:
            return None
        if rows + len(chunk) > len(values):
            values.resize((max(rows + len(chunk), int(1.5 * len(values))), values.shape[1]), refcheck=False)
        _rows(chunk, values[rows : rows + len(chunk)])
        rows += len(chunk)
    if integers:
        return _INTEGERS
    if values is None or rows == 0:
        return None
    values.resize((rows, values.shape[1]), refcheck=False)
    return values


#: Rows copied at a time by :func:`_rows` (a block of 30 columns is 480 KB: it stays in the processor's cache).
_ROWS_BLOCK = 2048


def _rows(frame, values: np.ndarray) -> None:
    """Copy the float64 columns of ``frame`` into the C-ordered ``values`` (rows contiguous), a block of rows at a
    time: each column is pandas' own array (a view), and a block's rows stay in the cache while every column is
    written into them.  ``frame.to_numpy()`` then a C-ordered copy made two full-size arrays (0.9 s of the 1e6 x 30
    certification); a column at a time wrote every row's cache line once per column."""
    columns = [frame.iloc[:, j].to_numpy() for j in range(frame.shape[1])]
    for start in range(0, len(values), _ROWS_BLOCK):
        block = values[start : start + _ROWS_BLOCK]
        for j, column in enumerate(columns):
            block[:, j] = column[start : start + _ROWS_BLOCK]


class _Scan(io.RawIOBase):
    """A data file's bytes as pandas reads them: their SHA-256 (``hashed``: a pinned file's) and the head of the file
    up to the end of the header line (the first line after any BOM and blank lines), for the names as written
    (pandas renames a repeated name, which must be refused)."""

    def __init__(self, source: io.RawIOBase | io.BufferedIOBase, hashed: bool):
        import hashlib  # where a file is read: OpenSSL's loading is no command parser's business

        self.source = source
        self.size = 0  # bytes read
        self.digest = hashlib.sha256() if hashed else None
        self.head = bytearray()
        self.header_end: int | None = None  # past the header line's newline, once read
        self.ended = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        chunk = self.source.read(size)
        if not chunk:
            self.ended = True
            return b""
        self.size += len(chunk)
        if self.digest is not None:
            self.digest.update(chunk)
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


#: What may come before the header line (a BOM, blank lines).
_BLANK = b"\xef\xbb\xbf\r\n\t "


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
