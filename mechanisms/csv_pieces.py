"""A numeric CSV's data rows parsed in pieces on two threads, into one C-ordered array: the float reader of
:mod:`pdp_audit.mechanisms.datasets` for a plain file.

pandas' tokenizer and float conversion run without the interpreter lock, so two pieces of a file parse at once on two
cores (pandas' own parallel reader takes a file path only, never the bytes a certificate hashes).  The bytes after the
header line are cut into pieces of about :data:`PIECE_BYTES` just after a newline, each parsed by ``pandas.read_csv``
with the options of the whole-file parse, and the pieces' rows are copied into the table in file order while the
reading thread hashes the bytes it read.

A cut just after ``\\n`` starts a new record in pandas' tokenizer whatever came before, unless it falls inside a quoted
field: a file with a quote in its header line or in a piece is not split (:class:`Unsplit`), nor one whose header line
is not its first (blank lines before it), nor one with a line longer than two pieces.  Each piece's columns
are typed by pandas' inference on that piece; a piece with a column inferred as anything but float64 (integers, whose
``-0`` would lose its sign, or text) is parsed again with ``dtype=float`` -- the doubles inference would have given a
float64 column, as the whole-file parse's fallback reads them.  A letter but an exponent's in such a piece (pandas
reads ``True`` as 1.0 where Python's ``float`` refuses it), a short or long row, or an error of pandas: no table
(``values`` None), and the text reader decides, naming the line.
"""

from __future__ import annotations

import io
import os
import queue
import re
import sys
import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # at run time imported where the pool is made
    from concurrent.futures import Future, ThreadPoolExecutor

#: A letter in a data row other than an exponent's: pandas would read ``True``/``false`` as 1/0, ``inf``, ``nan``...
WORD = re.compile(rb"[A-DF-Za-df-z]")
#: Every byte but those of :data:`WORD`: ``bytes.translate`` deletes them and leaves the letters, in a tenth of the
#: time the regular expression took to scan 200 MB (1.1 s), and without a copy of the data.
NOT_WORD = bytes(c for c in range(256) if WORD.match(bytes([c])) is None)
#: What may come before the header line (a BOM, blank lines): no letter is among them.
BLANK = b"\xef\xbb\xbf\r\n\t "
BOM = b"\xef\xbb\xbf"

#: Bytes a piece holds at least (up to the next newline): 24 pieces for 195 MB, each parsed in one call.
PIECE_BYTES = 8 << 20
#: Threads parsing pieces; pieces read ahead of the one the table waits for (each held as bytes, a frame and rows).
WORKERS = 2
AHEAD = WORKERS + 1
#: A byte that ends no line: a piece with one holds a row (the search stops at the first).
_ROW_BYTE = re.compile(rb"[^\r\n]")
#: Rows copied at a time by :func:`copy_rows` (a block of 30 columns is 480 KB: it stays in the cache).
ROWS_BLOCK = 2048
#: Linux's ``madvise`` advice that maps every page of a range, writable, in one call (5.14 on; EINVAL before) ...
MADV_POPULATE_WRITE = 23
#: ... and the advice that its pages be small ones (numpy advises huge pages for large arrays: see :func:`map_pages`).
MADV_NOHUGEPAGE = 15


#: Blocks a :class:`ReadAhead` holds at most before the parse takes them (128 MB of a large file).
READ_AHEAD_BLOCKS = 16


class Unsplit(Exception):
    """The file cannot be cut at newlines faithfully (a quote, a header line not first, a very long line)."""


@dataclass(frozen=True)
class Split:
    """The header line's names, the table (None: not pandas' reading of a plain numeric file: the text reader
    decides) and the SHA-256 (hex) of every byte read (None unless hashed)."""

    names: list[str] | None
    values: np.ndarray | None
    digest: str | None


def parse_in_pieces(source: Any, size: int, hashed: bool, options: dict[str, Any]) -> Split:
    """The header and the rows of ``source`` (a binary file of ``size`` bytes read from its start), parsed by
    ``pandas.read_csv`` with ``options`` (``encoding`` is the header line's: the pieces are plain UTF-8); raises
    :class:`Unsplit` where the serial reader must parse the file."""
    import hashlib  # where a file is read: OpenSSL's loading is no command parser's business

    digest = hashlib.sha256() if hashed else None
    first = read_full(source, PIECE_BYTES)
    if digest is not None:
        digest.update(first)
    start = len(BOM) if first.startswith(BOM) else 0
    end = first.find(b"\n", start)
    line = first[start:end].removesuffix(b"\r")
    if end < 0 or b'"' in line or b"\r" in line or not line.strip(BLANK):  # pandas' header is another line
        raise Unsplit
    names = header_names(first[: end + 1], options)
    if names is None:
        return Split(None, None, None)
    piece_options = {**options, "encoding": "utf-8", "header": None, "names": range(len(names))}
    from concurrent.futures import ThreadPoolExecutor  # here: it imports logging, which no command's parser needs

    with ThreadPoolExecutor(WORKERS, thread_name_prefix="pdp-audit-parse") as pool:
        try:
            values = _gather(pool, source, first[end + 1 :], size, digest, piece_options)
        finally:  # nothing left queued (Unsplit, an error): the pool's threads are joined on leaving the block
            pool.shutdown(wait=True, cancel_futures=True)
    return Split(names, values, digest.hexdigest() if digest is not None else None)


def header_names(line: bytes, options: dict[str, Any]) -> list[str] | None:
    """The cells of the header line as pandas reads them (None if it cannot)."""
    import pandas as pd

    try:
        header = pd.read_csv(io.BytesIO(line), header=None, nrows=1, dtype=str, **options)
    except Exception:  # noqa: BLE001 - the text reader names what is wrong
        return None
    return [str(name) for name in header.iloc[0].tolist()]


def _gather(pool: ThreadPoolExecutor, source: Any, rest: bytes, size: int, digest, options: dict[str, Any]):
    """Read the pieces, hand each to ``pool`` and copy their rows into one array in file order (None: no table)."""
    table = _Table(size)
    try:
        return _fill(pool, table, source, rest, digest, options)
    finally:  # the table's pages mapped or not, no thread is left mapping them
        table.settle()


def _fill(pool: ThreadPoolExecutor, table: _Table, source: Any, rest: bytes, digest, options: dict[str, Any]):
    """:func:`_gather`'s loop: the pieces read, parsed on ``pool`` and added to ``table`` in file order."""
    pending: deque[tuple[Future, int]] = deque()
    while True:
        block = read_full(source, PIECE_BYTES)
        if digest is not None and block:
            digest.update(block)
        cut = block.rfind(b"\n") + 1 if block else len(block)
        if block and cut == 0:  # no line ends in this block: a line longer than a piece
            if len(rest) > PIECE_BYTES:
                raise Unsplit
            rest += block
            continue
        piece = b"".join((rest, memoryview(block)[:cut]))  # one copy: the piece's BytesIO shares it
        rest = block[cut:]
        if b'"' in piece:
            raise Unsplit
        if _ROW_BYTE.search(piece):  # some row (strip() would copy the piece; counting line ends read it twice)
            pending.append((pool.submit(parse_piece, piece, options), len(piece)))
        while len(pending) > (AHEAD if block else 0):
            future, length = pending.popleft()
            if not table.add(future.result(), length):
                return None
        if not block:
            return table.finished()


class _Table:
    """Rows added in file order into one C-ordered array, sized from the bytes the first piece took (the file's
    ``size`` bytes at that rate, and 5% more), grown if short and cut to the rows added: neither copies rows twice.

    The array's pages are mapped by the kernel in one call on a thread (:func:`map_pages`) as the first rows are
    copied: page by page, on first touch, the copies of a 1e6 x 30 table faulted in 240 MB (the most expensive pass
    of the parse on the main thread: 0.4 s of a 2-core virtual machine's time, against 0.1 s in one call)."""

    def __init__(self, size: int):
        self.size, self.rows = size, 0
        self.values: np.ndarray | None = None
        self.mapping: threading.Thread | None = None

    def add(self, rows: np.ndarray | None, length: int) -> bool:
        """Append a piece's rows (None: that piece is not plain numbers); whether the table goes on."""
        if rows is None:
            return False
        values = self.values
        if values is None:
            estimate = int(1.05 * self.size * len(rows) / max(length, 1))
            values = self.values = np.empty((max(estimate, len(rows)) + 1024, rows.shape[1]))
            self.mapping = threading.Thread(target=map_pages, args=(values,), name="pdp-audit-map", daemon=True)
            self.mapping.start()
        if self.rows + len(rows) > len(values):
            self.settle()  # no page mapped while the array moves
            values.resize((max(self.rows + len(rows), int(1.5 * len(values))), values.shape[1]), refcheck=False)
        values[self.rows : self.rows + len(rows)] = rows
        self.rows += len(rows)
        return True

    def settle(self) -> None:
        """Wait for the thread mapping the array's pages, if one runs."""
        if self.mapping is not None:
            self.mapping.join()
            self.mapping = None

    def finished(self) -> np.ndarray | None:
        self.settle()
        if self.values is None or self.rows == 0:
            return None
        self.values.resize((self.rows, self.values.shape[1]), refcheck=False)
        return self.values


def map_pages(values: np.ndarray) -> bool:
    """Ask the kernel to map every whole page of ``values``' memory now, writable (``MADV_POPULATE_WRITE``): the
    contents are unchanged, only the page faults its first writes would take are taken at once.  Whether it was
    done (Linux 5.14 on; elsewhere nothing happens and the writes fault the pages in as before).  ctypes lets go of
    the interpreter lock for the call.

    The pages are small ones (``MADV_NOHUGEPAGE`` first): numpy advises huge pages for a large array, and where the
    kernel compacts memory to find them (its default for advised memory) mapping the 240 MB table took 0.10-0.55 s of
    CPU in a certification on a busy machine, against 0.08-0.12 s in small pages."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import mmap

    try:
        madvise = ctypes.CDLL(None).madvise
    except (OSError, AttributeError):
        return False
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    start = -(-values.ctypes.data // mmap.PAGESIZE) * mmap.PAGESIZE
    end = (values.ctypes.data + values.nbytes) // mmap.PAGESIZE * mmap.PAGESIZE
    if end <= start:
        return False
    madvise(start, end - start, MADV_NOHUGEPAGE)  # advice only: where it is refused the pages are mapped all the same
    return madvise(start, end - start, MADV_POPULATE_WRITE) == 0


def parse_piece(piece: bytes, options: dict[str, Any]) -> np.ndarray | None:
    """A piece's rows as a C-ordered float array, or None: a letter but an exponent's where a column is not inferred
    as float64, a row shorter or longer than the header, or a cell pandas cannot read as a float (the text reader
    then names it).

    The letters are looked for only where a column is not float64 already: a column pandas infers as float64 holds
    cells its float parser took, whose only letters are an exponent's and those of ``inf``/``infinity`` (no ``nan``,
    no ``True``, no hexadecimal: ``tests/test_large_data_paths.py`` tries them) -- and an infinity is refused by the
    reader's finiteness check as by the text reader's, at the same cell.  The scan of every byte (a tenth of a second
    for 195 MB, holding the interpreter lock) is then spared for a plain file."""
    import pandas as pd

    width = len(options["names"])
    try:
        frame = pd.read_csv(io.BytesIO(piece), low_memory=False, **options)
        if not all(kind == np.float64 for kind in frame.dtypes):  # integers ("-0" lost its sign) or text
            if piece.translate(None, NOT_WORD):  # as floats, pandas would read True as 1.0
                return None
            frame = pd.read_csv(io.BytesIO(piece), low_memory=False, dtype=float, **options)
    except Exception:  # noqa: BLE001 - whatever it is, the text reader names it
        return None
    if not isinstance(frame.index, pd.RangeIndex) or frame.shape[1] != width:  # a long row made an index
        return None
    rows = np.empty(frame.shape)
    return None if copy_rows(frame, rows) else rows


def copy_rows(table, rows: np.ndarray) -> bool:
    """Copy a parsed frame into ``rows`` (C order); whether it holds a NaN (pandas' mark of a short row).

    Each column is pandas' own array (a view), copied a cache-sized block of rows at a time: a column at a time
    wrote every row's cache line once per column (0.8 s for 1e6 x 30)."""
    columns = [table.iloc[:, j].to_numpy(dtype=float) for j in range(table.shape[1])]
    nan = False
    for start in range(0, len(rows), ROWS_BLOCK):
        block = rows[start : start + ROWS_BLOCK]
        for j, column in enumerate(columns):
            block[:, j] = column[start : start + ROWS_BLOCK]
        nan = nan or bool(np.isnan(block).any())
    return nan


def read_full(source: Any, size: int) -> bytes:
    """Up to ``size`` bytes of ``source``, fewer only at its end (an unbuffered read may return less)."""
    chunk = source.read(size)
    if not chunk or len(chunk) == size:
        return chunk
    parts = [chunk]
    got = len(chunk)
    while got < size and (more := source.read(size - got)):
        parts.append(more)
        got += len(more)
    return b"".join(parts)


class ReadAhead:
    """A file's bytes read and hashed on a thread from the moment it is opened, a block of :data:`PIECE_BYTES` at a
    time, up to :data:`READ_AHEAD_BLOCKS` blocks ahead of the parse that takes them (:meth:`read`).  ``certify`` opens
    its data file so before it imports pandas: the reads and the SHA-256 of a 195 MB file (a quarter of a second) are
    then done on the second core while the first imports pandas, not beside the parse, where both cores are busy.

    The parse reads it as a file (:func:`read_full`: one block per call, then ``b""`` for good); an OSError of a read
    is raised there, where the reads stopped.  :attr:`digest` is of every byte handed on so far: of the whole file once
    :meth:`read` returned ``b""``.  :meth:`close` stops the thread and closes the file, however much was read; the
    thread imports nothing (a thread importing beside the main one may meet it in a cycle of import locks)."""

    def __init__(self, path: Any):
        self.source = open(path, "rb", 0)
        try:
            self.size = os.fstat(self.source.fileno()).st_size
        except OSError:
            self.source.close()
            raise
        import hashlib

        self.digest = hashlib.sha256()
        self._blocks: queue.Queue[bytes | OSError] = queue.Queue(READ_AHEAD_BLOCKS)
        self._stop = threading.Event()
        self._ended = False
        self._thread = threading.Thread(target=self._read_all, name="pdp-audit-read", daemon=True)
        self._thread.start()

    def _read_all(self) -> None:
        try:
            while True:
                block = read_full(self.source, PIECE_BYTES)
                self.digest.update(block)
                if not self._put(block) or not block:
                    return
        except OSError as err:
            self._put(err)

    def _put(self, item: bytes | OSError) -> bool:
        """Queue ``item`` once there is room; False if :meth:`close` came first."""
        while not self._stop.is_set():
            try:
                self._blocks.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    def read(self, size: int = -1) -> bytes:
        """The next block (``size`` is the parse's :data:`PIECE_BYTES`, as the blocks are), ``b""`` at the end."""
        if self._ended:
            return b""
        item = self._blocks.get()
        if isinstance(item, OSError):
            self._ended = True
            raise item
        self._ended = not item
        return item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.source.close()

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
