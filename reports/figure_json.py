"""A check's figure as plain JSON data and back, exactly: what lets a record travel between processes (the pytest
plugin's xdist workers ship their assertions to the controller as JSON) and still be drawn by the renderer of
``pdp-audit run``.

Every figure record of :mod:`pdp_audit.reports.records` is a frozen dataclass of numbers, strings, arrays and
nested records.  A record becomes ``{"figure": ClassName, field: value, ...}``; arrays become lists; a non-finite
float (an interval's ∞, a curve's −∞) becomes ``{"float": "inf"}`` (JSON has no infinities and the session
documents are written with ``allow_nan=False``).  :func:`figure_from_dict` inverts it: the same classes, the same
numbers (floats round-trip exactly through Python's ``repr``), so the same pages.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from pdp_audit.reports import records

#: The figure records a check may carry, by class name.
FIGURE_TYPES = {
    cls.__name__: cls
    for cls in (
        records.TailCurve,
        records.TailCurves,
        records.Roc,
        records.EventPoint,
        records.EventRates,
        records.CoverageFigure,
        records.Series,
        records.Marker,
        records.Histograms,
        records.Panel,
        records.ScatterPanels,
        records.Line,
        records.Lines,
    )
}


def figure_to_dict(value: Any) -> Any:
    """``value`` (a figure record, or anything inside one) as JSON-ready data."""
    if dataclasses.is_dataclass(value):
        if FIGURE_TYPES.get(type(value).__name__) is not type(value):  # a new figure record must be listed above
            raise TypeError(f"{type(value).__name__} is not a figure record of pdp_audit.reports.records")
        fields = {f.name: figure_to_dict(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"figure": type(value).__name__, **fields}
    if isinstance(value, dict):
        return {"mapping": [[str(k), figure_to_dict(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [figure_to_dict(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else {"float": repr(value)}
    return value


def figure_from_dict(data: Any) -> Any:
    """The figure record (or value) that :func:`figure_to_dict` wrote as ``data``."""
    if isinstance(data, list):
        return [figure_from_dict(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "float" in data:
        return float(data["float"])
    if "mapping" in data:
        return {k: figure_from_dict(v) for k, v in data["mapping"]}
    cls = FIGURE_TYPES[data["figure"]]
    return cls(**{k: figure_from_dict(v) for k, v in data.items() if k != "figure"})
