"""The audit of the geometric mechanism: the evidence for every check of
:mod:`pdp_audit.audits.geometric.checks`.

The mechanism releases the count, or the rounded and clamped sum of one column, of a real dataset plus two-sided
geometric noise.  The DP claim is audited at a worst-case neighbour: a row that moves the query by Δ (a count: any
row; a sum: a value of C or more), whose profile is known exactly (:func:`pdp_audit.mechanisms.geometric.
geometric_delta`).  The checks are those of a bounded-loss pair (:mod:`pdp_audit.verify.evidence.pure_dp`), and the
pure pDP of the median individual.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from pdp_audit.audits.geometric.checks import CHECKS
from pdp_audit.audits.geometric.config import GeometricAuditConfig
from pdp_audit.mechanisms import geometric as geo
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import Evidence, finalize, make_run
from pdp_audit.verify.evidence import pure_dp as pure
from pdp_audit.verify.evidence.clipping import clipping_record
from pdp_audit.verify.evidence.dp_claim import DpClaim
from pdp_audit.verify.inputs.datasets import Dataset, column_index, load_csv, load_shipped


@dataclass(frozen=True)
class GeometricSetup:
    """The audited mechanism on its data: the rows, the query and the deployed scale b."""

    dataset: Dataset
    rows: np.ndarray
    query: geo.IntegerQuery
    calibrated: float
    scale: float

    @property
    def mechanism(self) -> geo.GeometricMechanism:
        return geo.GeometricMechanism(self.query, self.scale)


def setup(config: GeometricAuditConfig) -> GeometricSetup:
    """Load ``config``'s data (a shipped dataset's raw values, or a user CSV, as is: the query rounds and clamps)
    and set the scale: ``--scale``, or Δ/ε, times the noise multiplier."""
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
    else:
        assert config.dataset is not None  # set by resolve() without --data
        dataset = load_shipped(config.dataset)
    if config.query == "count":
        query = geo.IntegerQuery("count")
    else:
        assert config.sensitivity is not None  # a sum's: set by resolve()
        query = geo.IntegerQuery("sum", config.sensitivity, column_index(dataset, config.column))
    calibrated = geo.geometric_scale(config.epsilon, query.sensitivity)
    scale = (config.scale if config.scale is not None else calibrated) * config.noise_multiplier
    return GeometricSetup(dataset, dataset.features, query, calibrated, scale)


def run_geometric_audit(config: GeometricAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Every check of the geometric audit, decided together at family-wise error ``config.alpha``."""
    s = setup(config)
    checks = finalize(geometric_evidence(config, s, executor, progress), config.alpha)
    parameters = {
        **asdict(config),
        "scale": s.scale,
        "calibrated_scale": s.calibrated,
        "query_sensitivity": s.query.sensitivity,
        "released_column": s.dataset.columns[s.query.column] if config.query == "sum" else None,
        "dataset_description": s.dataset.description,
        "n_rows": int(len(s.rows)),
        "worst_case_target": "a row that moves the query by Δ (a value of C or more; any row of a count), added",
    }
    run = make_run("geometric", checks, config.alpha, parameters, config.seed)
    if config.query == "count":  # a count clamps nothing
        return run
    rounded = np.rint(s.rows[:, [s.query.column]])  # the query rounds, then clamps |value| to C
    return replace(run, clipping=clipping_record(rounded, float(s.query.clip), order=1))


def exact_profile(pair: geo.GeometricPair) -> pure.Profile:
    """The pair's exact δ(ε) and its inverse (:func:`pdp_audit.mechanisms.geometric.geometric_delta`)."""
    shift, scale = int(round(float(pair.delta_z[0]))), float(pair.scale)
    return pure.bounded_profile(
        lambda e: geo.geometric_delta_upper(e, scale, shift),
        lambda d: geo.geometric_epsilon(d, scale, shift),
        pair.exact_loss_bound,
    )


def geometric_evidence(
    config: GeometricAuditConfig, s: GeometricSetup, executor: Executor | None = None, progress: bool = False
) -> list[Evidence]:
    """The evidence of every check, not yet decided (:func:`pdp_audit.verify.evidence.pure_dp.pure_dp_evidence`)."""
    target = np.zeros(s.rows.shape[1])
    target[s.query.column] = s.query.sensitivity  # rounds and clamps to C: m = Δ
    pair = s.mechanism.pair(s.rows, target, "add")
    audit = pure.PureAudit(
        CHECKS, pair, exact_profile(pair), lambda budget: _individual(s, budget), "median-individual"
    )
    return pure.pure_dp_evidence(audit, config, executor, progress)


def _individual(s: GeometricSetup, budget: pure.Budget) -> tuple[DpClaim, Any, pure.Profile]:
    """The pure pDP claim of a typical individual (median |m_z|, removed from D): ε_z = |m_z|/b, its pair and its
    profile."""
    sens = s.query.per_instance_sensitivities(s.rows)
    index = int(np.argsort(sens, kind="stable")[len(sens) // 2])
    pair = s.mechanism.pair(s.rows, s.rows[index], "remove")
    eps_i = pure.rounded_up(pair.exact_loss_bound)  # rounded up: a pure ε the row has in exact arithmetic
    spec = CHECKS["pdp-median-individual"].fill(index=index, sensitivity=sens[index], eps_i=eps_i, delta=budget.delta)
    return DpClaim(spec, "D||D'", eps_i, budget.delta), pair, exact_profile(pair)
