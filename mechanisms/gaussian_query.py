"""The queries the Gaussian mechanism releases ([RW] M1): a count of rows, or the sum of rows clipped to L2 norm
``C`` (global sensitivity C; an individual's own change, her per-instance sensitivity, is the norm of her clipped
row), and the clipping of rows into the ball of radius C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from pdp_audit.mechanisms.base import (
    neighbour_of,
    removed_index,
)
from pdp_audit.mechanisms.row_reductions import ScaledRows, row_norms, sum_with, sum_without, sums_in_order
from pdp_audit.verify.inputs.validation import InputError, positive

QueryKind = Literal["sum", "count"]
Relation = Literal["add", "remove"]


def clip_rows(rows: np.ndarray, bound: float, norms: np.ndarray | None = None) -> np.ndarray:
    """Scale each row into the L2 ball of radius ``bound`` (rows inside are unchanged); ``norms``: the rows' L2 norms
    where the caller has them (:func:`~pdp_audit.mechanisms.row_reductions.row_norms`)."""
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    return rows * clip_scale(rows, bound, norms)[:, None]


def clip_scale(rows: np.ndarray, bound: float, norms: np.ndarray | None = None) -> np.ndarray:
    """The factor :func:`clip_rows` scales each row by: min(1, bound / ‖row‖)."""
    norms = row_norms(np.atleast_2d(rows)) if norms is None else norms
    return np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))


def clipped_row_norms(
    rows: np.ndarray, bound: float, norms: np.ndarray | None, clipped: np.ndarray | ScaledRows | None
) -> np.ndarray:
    """:func:`clipped_norms`, from the rows clipped already where the caller has them."""
    if clipped is None:
        return clipped_norms(rows, bound, norms)
    if isinstance(clipped, ScaledRows):
        return row_norms(clipped.rows, scale=clipped.scale)
    return row_norms(clipped)


def clipped_norms(rows: np.ndarray, bound: float, norms: np.ndarray | None = None) -> np.ndarray:
    """``np.linalg.norm(clip_rows(rows, bound), axis=1)`` without storing the clipped rows."""
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    return row_norms(rows, scale=clip_scale(rows, bound, norms))


@dataclass(frozen=True)
class Query:
    """A count of rows, or the sum of rows clipped to L2 norm ``clip`` (global sensitivity = clip)."""

    kind: QueryKind = "sum"
    clip: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in ("sum", "count"):
            raise InputError(f"query must be 'sum' or 'count', got {self.kind!r}")
        positive("clip", self.clip)

    def __call__(self, data: np.ndarray) -> np.ndarray:
        data = np.atleast_2d(np.asarray(data, dtype=float))
        if self.kind == "count":
            return np.array([float(len(data))])
        return self.of_clipped(self.clipped(data)) if len(data) else np.zeros(data.shape[1])

    def clipped(self, rows: np.ndarray, norms: np.ndarray | None = None) -> np.ndarray:
        """The rows as the sum sees them: scaled into the ball of radius ``clip`` (L2 here); ``norms`` as in
        :func:`clip_rows`."""
        return clip_rows(rows, self.clip, norms)

    def of_clipped(self, clipped: np.ndarray) -> np.ndarray:
        """The sum of rows clipped already (:meth:`clipped`)."""
        return clipped.sum(axis=0) if len(clipped) else np.zeros(clipped.shape[1])

    def neighbour_sums(
        self, data: np.ndarray, target: np.ndarray, relation: Relation, clipped: np.ndarray | ScaledRows
    ) -> tuple[np.ndarray, np.ndarray]:
        """The sums of D and D±z from D's rows ``clipped`` (:meth:`clipped` of ``data``): each row is clipped on its
        own, so D±z's clipped rows are D's and z's, and a large D is clipped once, not once a pair and world.  D±z's
        sum comes from D's without a copy of the rows where the order of the additions allows it
        (:mod:`pdp_audit.mechanisms.row_reductions`): the same doubles as the sum of D±z's rows."""
        data = np.atleast_2d(np.asarray(data, dtype=float))
        target = np.asarray(target, dtype=float).ravel()
        if relation not in ("add", "remove"):
            raise InputError(f"relation must be 'add' or 'remove', got {relation!r}")
        if isinstance(clipped, ScaledRows):  # D's rows clipped on the fly (never stored)
            total = clipped.total
        elif sums_in_order(clipped) and len(clipped):
            total = self.of_clipped(clipped)
        else:  # one column: numpy sums it pairwise, so D±z's rows are summed anew
            neighbour = neighbour_of(clipped, data, target, relation, self.clipped(target))
            return self.of_clipped(clipped), self.of_clipped(neighbour)
        if relation == "add":
            return total, sum_with(total, self.clipped(target)[0])
        index = removed_index(data, target)
        return total, clipped.without(index) if isinstance(clipped, ScaledRows) else sum_without(clipped, index)

    @property
    def sensitivity(self) -> float:
        """Global sensitivity under add/remove neighbours, in the norm the rows are clipped in."""
        return 1.0 if self.kind == "count" else self.clip


#: Elements of :meth:`GaussianPair._scalar_loss`'s scratch buffer (32 KiB: below the allocator's mmap threshold).
