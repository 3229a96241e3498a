"""The mechanisms known to the suite, as an explicit tuple (the contract suite runs over every one).

A new mechanism: one module in ``mechanisms/`` defining a :class:`~pdp_audit.mechanisms.base.RegisteredMechanism`,
and one line here.
"""

from __future__ import annotations

from pdp_audit.mechanisms import (
    analyze_gauss,
    gaussian,
    gaussian_mean,
    geometric,
    laplace,
    laplace_queries,
    randomized_response,
)
from pdp_audit.mechanisms.base import RegisteredMechanism
from pdp_audit.mechanisms.linreg import adaptive as linreg_adaptive
from pdp_audit.mechanisms.linreg import mechanism as linreg
from pdp_audit.mechanisms.objpert import mechanism as objpert
from pdp_audit.mechanisms.privacy_report import mechanism as privacy_report

MECHANISMS: tuple[RegisteredMechanism, ...] = (
    gaussian.GAUSSIAN,
    gaussian_mean.GAUSSIAN_MEAN,
    analyze_gauss.ANALYZE_GAUSS,
    analyze_gauss.GOE_ANALYZE_GAUSS,
    objpert.OBJPERT,
    linreg.OUTPUT_PERTURBATION,
    linreg.OPS,
    linreg_adaptive.ADAOPS,
    linreg_adaptive.ADASSP,
    linreg_adaptive.SSP,
    privacy_report.PRIVACY_REPORT,
    laplace.LAPLACE,
    laplace_queries.LAPLACE_QUERIES,
    geometric.GEOMETRIC,
    randomized_response.RANDOMIZED_RESPONSE,
)


def registered() -> dict[str, RegisteredMechanism]:
    """Every mechanism of :data:`MECHANISMS` by name, sorted by name."""
    return dict(sorted((m.name, m) for m in MECHANISMS))
