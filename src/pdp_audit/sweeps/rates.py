"""Fitted exponents of a sweep: how a check's estimate scales with a swept parameter (rate statements).

For a swept parameter ``x`` with positive numeric values spanning at least a factor :data:`MIN_SPAN`, and each
group of cells sharing the other swept parameters, the estimates ``y`` of a check are fitted as a power law by
ordinary least squares on the logarithms (statsmodels OLS), ``log y = a + b log x + e``: ``b`` is the exponent
with its Student-t interval at level :data:`LEVEL` (1 − 1e-6, as every statistical test of the suite: reading a
rate off the interval is a test).  A paper's rate such as ε_n = n^(−1/4) or "depends on neither
n nor d" (exponent 0) is then read off against the interval.  The interval treats the cells' residuals as
independent noise around a power law; a curve that is not a power law shows as a low R² and a wide interval.
Estimates that are not positive are left out of the fit (the count used is reported).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

LEVEL = 1 - 1e-6  # the suite's false-alarm probability per statistical test: an exponent's interval is a test
MIN_SPAN = 5.0  # largest / smallest value of the swept parameter
MIN_POINTS = 3


@dataclass(frozen=True)
class Exponent:
    """The fitted power law of one check's estimates against one swept parameter, in one group of cells."""

    check: str
    parameter: str
    group: dict  # the other swept parameters' values shared by the group
    exponent: float
    ci: tuple[float, float]
    level: float
    r_squared: float
    points: int

    def to_dict(self) -> dict:
        return {**asdict(self), "ci": list(self.ci)}


def fit_exponent(x, y, level: float = LEVEL) -> tuple[float, tuple[float, float], float] | None:
    """Exponent b of y ≈ c·x^b (OLS on logs), its two-sided ``level`` interval and R²; None if it cannot be fitted
    (fewer than three positive points, or a single x value)."""
    import statsmodels.api as sm

    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size < MIN_POINTS or np.unique(x).size < 2:
        return None
    fit = sm.OLS(np.log(y), sm.add_constant(np.log(x))).fit()
    lo, hi = fit.conf_int(alpha=1 - level)[1]
    r2 = float(fit.rsquared) if math.isfinite(fit.rsquared) else 1.0
    return float(fit.params[1]), (float(lo), float(hi)), r2


def exponents(cells: list[dict], swept: list[str], checks: list[str]) -> list[Exponent]:
    """Every fit of :func:`fit_exponent` a sweep's cells allow (see the module docstring)."""
    out = []
    for key in swept:
        values = [c["parameters"].get(key) for c in cells]
        if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in values):
            continue
        if max(values) / min(values) < MIN_SPAN:
            continue
        others = [k for k in swept if k != key]
        groups: dict[str, list[dict]] = {}
        for cell in cells:
            label = {k: cell["parameters"].get(k) for k in others}
            groups.setdefault(repr(sorted(label.items(), key=lambda kv: kv[0])), []).append(cell)
        for check in checks:
            for members in groups.values():
                estimates = [(c["parameters"][key], _estimate(c, check)) for c in members]
                points = [(x, y) for x, y in estimates if y is not None]
                fit = fit_exponent([p[0] for p in points], [p[1] for p in points])
                if fit is None:
                    continue
                b, ci, r2 = fit
                used = sum(1 for _, y in points if y > 0)
                group = {k: members[0]["parameters"].get(k) for k in others}
                out.append(Exponent(check, key, group, b, ci, LEVEL, r2, used))
    return out


def _estimate(cell: dict, check_id: str) -> float | None:
    for check in cell["checks"]:
        if check["id"] == check_id:
            return check.get("estimate")
    return None
