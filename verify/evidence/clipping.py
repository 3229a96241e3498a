"""The clipping record of an audit whose query clips rows (the Gaussian and Laplace sums and means): how many rows
the clip bound changed, for the report's warning and per-instance wording
(:mod:`pdp_audit.mechanisms.clipping` counts them and says when the share is large)."""

from __future__ import annotations

import numpy as np

from pdp_audit.mechanisms.clipping import clipped_rows
from pdp_audit.reports.records import Clipping


def clipping_record(
    rows: np.ndarray, bound: float | None, order: int, norms: np.ndarray | None = None
) -> Clipping | None:
    """The share of ``rows`` whose L``order`` norm the clip ``bound`` changes; None for a query that clips
    nothing (a count, a histogram: ``bound`` None).  ``norms``: the rows' L``order`` norms, where the caller has
    them."""
    if bound is None:
        return None
    counted = clipped_rows(rows, bound, order=order, norms=norms)
    return Clipping(counted.clipped, counted.rows, counted.bound, counted.norm, counted.share, counted.warning)
