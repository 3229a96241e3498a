"""Reductions over the rows of a large table a cache-sized block of rows at a time, bit for bit numpy's reductions
of the whole table, without its full-size temporaries.

``np.linalg.norm(rows, axis=1)`` squares the whole table into a temporary first (240 MB for 1e6 x 30 rows, its
pages faulted in anew each time), and a neighbouring data set's clipped sum was a sum over ``np.vstack`` or
``np.delete`` of the clipped rows (another full copy each).  The functions here give the same doubles:

* A row's norm is a reduction over that row's own cells, whatever block the row is in (numpy reduces the contiguous
  last axis of each row on its own), so norms computed a block at a time are those of the whole table.
* ``rows.sum(axis=0)`` of a C-ordered table of two or more columns adds the rows one after another, in order
  (``((r0 + r1) + r2) + ...``): the sum without row ``i`` is the sum of the rows before it with the rows after it
  added on in order, and the sum with a row appended is the sum plus that row.  A single column is summed pairwise
  instead, so it takes the whole-table operations (it is one eighth of a row of 8 columns: small).
  ``tests/test_row_reductions.py`` checks both against the whole-table operations over many shapes.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

#: Rows reduced at a time: a block of 30 columns is 480 KB, which stays in the cache between its two passes.
BLOCK_ROWS = 2048


def _blocked(rows: np.ndarray) -> bool:
    """Whether ``rows`` is a table the block reductions reproduce (C order: each row contiguous)."""
    return rows.ndim == 2 and rows.flags.c_contiguous


def row_norms(rows: np.ndarray, order: int = 2, scale: np.ndarray | None = None) -> np.ndarray:
    """``np.linalg.norm(rows, ord=order, axis=1)``, or of ``rows * scale[:, None]`` (each row scaled: the clipped
    rows, never stored), a block of rows at a time."""
    if not _blocked(rows):
        return np.linalg.norm(rows if scale is None else rows * scale[:, None], ord=order, axis=1)
    norms = np.empty(len(rows))
    for start in range(0, len(rows), BLOCK_ROWS):
        block = rows[start : start + BLOCK_ROWS]
        if scale is not None:
            block = block * scale[start : start + BLOCK_ROWS, None]
        norms[start : start + BLOCK_ROWS] = np.linalg.norm(block, ord=order, axis=1)
    return norms


def sums_in_order(rows: np.ndarray) -> bool:
    """Whether ``rows.sum(axis=0)`` adds the rows one after another (the premise of :func:`sum_with` and
    :func:`sum_without`): a C-ordered table of two or more columns."""
    return _blocked(rows) and rows.shape[1] >= 2


def sum_with(total: np.ndarray, row: np.ndarray) -> np.ndarray:
    """``np.vstack([rows, row]).sum(axis=0)`` from ``total = rows.sum(axis=0)`` (:func:`sums_in_order` rows)."""
    return total + row


def sum_without(rows: np.ndarray, index: int) -> np.ndarray:
    """``np.delete(rows, index, axis=0).sum(axis=0)`` (zeros for no row left) without the copy, for
    :func:`sums_in_order` rows: the rows before ``index`` summed, then the rows after added onto that sum in order,
    a block at a time."""
    before, after = rows[:index], rows[index + 1 :]
    if not len(before):
        return after.sum(axis=0) if len(after) else np.zeros(rows.shape[1])
    total = before.sum(axis=0)
    for start in range(0, len(after), BLOCK_ROWS):
        total = np.vstack([total, after[start : start + BLOCK_ROWS]]).sum(axis=0)
    return total


def scaled_sum(
    rows: np.ndarray, scale: np.ndarray, skip: int | None = None, marks: list[np.ndarray] | None = None
) -> np.ndarray:
    """``(rows * scale[:, None]).sum(axis=0)`` -- without row ``skip`` where given, as ``np.delete`` of it -- a
    block of rows at a time, the scaled rows never stored (:func:`sums_in_order` rows): each block is scaled into a
    small buffer behind the sum so far and added on in order.

    ``marks``, a list, receives the sum so far before each block but the first (``marks[b - 1]`` before block ``b``);
    given ``marks`` of this table's full sum, the sum without ``skip`` starts from the mark before ``skip``'s block:
    the rows before that block are added in the same order either way, so the sum is the same doubles."""
    buffer = np.empty((BLOCK_ROWS + 1, rows.shape[1]))
    total: np.ndarray | None = None
    first_block = 0
    if skip is not None and marks and skip >= BLOCK_ROWS:
        first_block = min(skip // BLOCK_ROWS, len(marks))
        total = marks[first_block - 1]
    recording = marks if skip is None and marks is not None else None
    for start in range(first_block * BLOCK_ROWS, len(rows), BLOCK_ROWS):
        if recording is not None and total is not None:
            recording.append(total)
        stop = min(start + BLOCK_ROWS, len(rows))
        pieces = [(start, stop)] if skip is None or not start <= skip < stop else [(start, skip), (skip + 1, stop)]
        for first, end in pieces:
            if first == end:
                continue
            if total is None:  # the first rows: their own sum
                part = np.multiply(rows[first:end], scale[first:end, None], out=buffer[: end - first])
                total = part.sum(axis=0)
            else:
                buffer[0] = total
                np.multiply(rows[first:end], scale[first:end, None], out=buffer[1 : end - first + 1])
                total = buffer[: end - first + 1].sum(axis=0)
    return np.zeros(rows.shape[1]) if total is None else total


class ScaledRows:
    """Rows each scaled by its factor (a clipped data set), never stored: ``len``, ``shape``, the sum and the sums
    without one row -- bit for bit those of the array ``rows * scale[:, None]`` -- from :func:`scaled_sum`.  A 1e6
    x 30 table clipped into a new array took a fresh 240 MB, its pages faulted in, for three sums."""

    def __init__(self, rows: np.ndarray, scale: np.ndarray):
        if not sums_in_order(rows):
            raise ValueError("ScaledRows needs a C-ordered table of two or more columns")
        self.rows, self.scale = rows, scale

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.rows.shape

    @cached_property
    def total(self) -> np.ndarray:
        """The sum of the scaled rows; the sums so far at its blocks' starts are kept for :meth:`without`."""
        marks: list[np.ndarray] = []
        total = scaled_sum(self.rows, self.scale, marks=marks)
        self._marks = marks  # one assignment, after the pass: another thread sees all the marks or none
        return total

    def without(self, index: int) -> np.ndarray:
        """The sum of the scaled rows but row ``index``: from the sum so far before its block where :attr:`total` is
        known (half a pass over the rows on average, not a whole one)."""
        return scaled_sum(self.rows, self.scale, skip=index, marks=getattr(self, "_marks", None))
