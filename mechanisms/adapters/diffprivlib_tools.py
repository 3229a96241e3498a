"""Black-box factories for diffprivlib's tools, each on a dataset and its neighbour (diffprivlib 0.6).

``pdp-audit blackbox pdp_audit.mechanisms.adapters.diffprivlib_tools:histogram --claim-epsilon 1 --claim-delta
1e-5`` audits ``diffprivlib.tools.histogram`` as deployed with its defaults; in Python, call the factory with other
parameters and hand the pair to ``pdp_audit.audit_blackbox``.  Each returns a
:class:`~pdp_audit.mechanisms.adapters.diffprivlib.ToolPair`: a release is the tool's output (a histogram's counts,
a count), drawn with a ``RandomState`` seeded from the audit's generator, so runs are reproducible.

**The neighbours.**  diffprivlib's tools are calibrated for *add/remove* neighbours (unbounded DP): one record more
or less changes a histogram's counts by 1 in L1 (its ``GeometricTruncated`` noise has sensitivity 1) and a count of
non-zeros by 1.  So D' is D with one record added -- where a histogram's bins are sparsest, where its counts are
least masked by the truncation at zero.  (Under substitution, a record moved between two bins changes two counts:
2ε, not the ε claimed -- audit such a pair with ``ToolPair`` yourself if that is your deployment's neighbour.)

**Cost** (diffprivlib 0.6.6, measured on the 2-core machine under load; see benchmarks/library_samplers.py):
``histogram`` about 0.2 ms a release (10 bins), ``count_nonzero`` about 0.1 ms, so the black box fits its default
budget to a few minutes per world.
"""

from __future__ import annotations

import numpy as np

from pdp_audit.mechanisms.adapters.diffprivlib import ToolPair

#: The dataset the factories start from: ``ROWS`` values of a seeded uniform draw on [0, 1) (fixed: the pair is the
#: same in every run and on every worker).
ROWS = 100
DATA_SEED = 20261125


def dataset(rows: int = ROWS) -> np.ndarray:
    """The factories' dataset: ``rows`` uniform values on [0, 1) from a fixed seed."""
    return np.random.default_rng(DATA_SEED).random(int(rows))


def histogram(epsilon: float = 1.0, bins: int = 10, rows: int = ROWS, substitution: bool = False) -> ToolPair:
    """``diffprivlib.tools.histogram(data, epsilon, bins, range=(0, 1))`` on the dataset and the dataset with one
    record added in its sparsest bin (add/remove neighbours, as the tool is calibrated for); with ``substitution``,
    one record of the fullest bin moved to the sparsest instead (two counts change: the pair is 2ε-DP, a claim of ε
    is refuted)."""
    from diffprivlib import tools

    data = dataset(rows)
    counts, edges = np.histogram(data, bins=int(bins), range=(0.0, 1.0))
    sparsest = int(np.argmin(counts))
    record = (edges[sparsest] + edges[sparsest + 1]) / 2
    if substitution:
        neighbour = data.copy()
        neighbour[int(np.argmin(np.abs(data - (edges[np.argmax(counts)] + edges[np.argmax(counts) + 1]) / 2)))] = record
    else:
        neighbour = np.append(data, record)
    return ToolPair(tools.histogram, data, neighbour, epsilon=float(epsilon), bins=int(bins), range=(0.0, 1.0))


def count_nonzero(epsilon: float = 1.0, rows: int = ROWS) -> ToolPair:
    """``diffprivlib.tools.count_nonzero(data, epsilon)`` on a dataset with half its values zero and the same with one
    non-zero record added."""
    from diffprivlib import tools

    data = np.where(dataset(rows) < 0.5, 0.0, 1.0)
    return ToolPair(tools.count_nonzero, data, np.append(data, 1.0), epsilon=float(epsilon))
