"""How many rows a query's clip bound changes: the share of rows clipped, and when it is large enough to warn.

A sum of rows clipped to norm ``C`` has global sensitivity ``C`` whatever the data's units: data in raw units (a
CSV in dollars against the default ``C = 1``) are clipped almost entirely, silently.  The released sum is then the
sum of ``C``-long vectors -- biased towards ``n C`` -- and every clipped row changes the query by exactly ``C``, so
it has the worst-case ε: per-instance DP gives it nothing.  :func:`clipped_rows` counts them (in the norm the query
clips in: L2 for the Gaussian audit, L1 for the Laplace one) so that a report can say so.

**Threshold.**  The share is *large* above :data:`LARGE_CLIPPED_SHARE` = 20%.  The audits scale their shipped and
synthetic data so that the 90% quantile of the row norms is ``C``: about one row in ten is clipped (45 of the 442
diabetes rows, 10.2%, as the quantile interpolates between rows), the suite's own deliberate amount, enough to show
rows of different sensitivities.  Twice that -- one row in five -- means the bound is below the data's scale: the
clip then decides the release rather than guards it.

**Rounding.**  A row is counted as clipped when its norm exceeds ``C`` by more than :data:`ROUNDING` relative:
data scaled to put a row exactly on the sphere land within a few ulps of ``C`` either way, and a factor
``1 − 1e-16`` changes no released digit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms.row_reductions import row_norms

#: Share of clipped rows above which a report warns (see the module notes for why 20%).
LARGE_CLIPPED_SHARE = 0.20
#: Relative excess of a row's norm over the bound below which the row counts as on the bound, not clipped.
ROUNDING = 1e-12


@dataclass(frozen=True)
class ClippedRows:
    """``clipped`` of ``rows`` rows have ``norm`` norm above the clip ``bound`` (the query scales them onto it)."""

    clipped: int
    rows: int
    bound: float
    norm: str

    @property
    def share(self) -> float:
        """The fraction of rows clipped (0 for no rows)."""
        return self.clipped / self.rows if self.rows else 0.0

    @property
    def large(self) -> bool:
        """Whether more than :data:`LARGE_CLIPPED_SHARE` of the rows are clipped."""
        return self.share > LARGE_CLIPPED_SHARE

    @property
    def warning(self) -> str | None:
        """One sentence for the report and the terminal when the share is large; None otherwise."""
        if not self.large:
            return None
        every = "every row changes" if self.clipped == self.rows else "they change"
        return (
            f"{self.clipped} of {self.rows} rows ({self.share:.1%}) have {self.norm} norm above the clip bound "
            f"C = {self.bound:g} and are scaled onto it: {every} the query by the worst-case amount (no smaller "
            f"per-instance ε) and the released sum is biased. Rescale the data or raise C (warned above "
            f"{LARGE_CLIPPED_SHARE:.0%} clipped)."
        )


def clipped_rows(rows: np.ndarray, bound: float, order: int = 2, norms: np.ndarray | None = None) -> ClippedRows:
    """Count the rows of ``rows`` whose L``order`` norm exceeds ``bound`` (by more than :data:`ROUNDING` relative):
    the rows a query clipping to ``bound`` in that norm changes.  ``norms``: those norms, where the caller has
    them."""
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    if norms is None:
        norms = row_norms(rows, order) if rows.shape[1] else np.zeros(len(rows))
    clipped = int(np.count_nonzero(norms > bound * (1 + ROUNDING)))
    return ClippedRows(clipped, int(len(rows)), float(bound), f"L{order}")
