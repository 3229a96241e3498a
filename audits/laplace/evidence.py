"""The audit of the Laplace mechanism: the evidence for every check of :mod:`pdp_audit.audits.laplace.checks`.

The mechanism releases the L1-clipped sum (or the count) of a real dataset plus b·Lap(0, 1) on each coordinate.  The
DP claim is audited at a worst-case neighbour: a row on the L1 clip sphere with all its mass on one coordinate
(‖Δ_z‖_1 = C), whose privacy profile δ(ε) = max(0, 1 − e^{(ε−η)/2}) is known exactly
(:mod:`pdp_audit.mechanisms.laplace`).  Each DP or pDP check is decided by
:func:`pdp_audit.verify.evidence.profile_checks.dp_check_with_profile` from plain hockey-stick tails (Laplace noise
has no Gaussian noise view to importance-sample); a pass of a pure claim (δ = 0) rests on the exact δ(ε) = 0 of the
bounded loss together with an interval consistent with it (the suite's closed-form rule), and ``loss-bound`` checks
the bound itself on every draw.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from pdp_audit.audits.laplace.checks import CHECKS
from pdp_audit.audits.laplace.config import HISTOGRAM_KEYS, LaplaceAuditConfig
from pdp_audit.mechanisms import laplace as lap
from pdp_audit.mechanisms import laplace_queries as lq
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import Evidence, finalize, make_run
from pdp_audit.verify.evidence import pure_dp as pure
from pdp_audit.verify.evidence.clipping import clipping_record
from pdp_audit.verify.evidence.dp_claim import DpClaim
from pdp_audit.verify.inputs.datasets import Dataset, column_index, load_csv, load_shipped, standardize

#: The options of one query only (None under the others).
QUERY_KEYS = ("mean_split", *HISTOGRAM_KEYS)

#: The worst neighbour each query is audited at (added to D).
WORST_CASE = {
    "sum": "a row on the L1 clip sphere on one coordinate (‖Δ_z‖_1 = C), added",
    "count": "a row on the L1 clip sphere on one coordinate (‖Δ_z‖_1 = C), added",
    "mean": "a row on the L1 clip sphere on one coordinate, added: the sum moves by C, the count by 1",
    "histogram": "a row in the first bin, added: one count moves by 1",
}


@dataclass(frozen=True)
class LaplaceSetup:
    """The audited mechanism on its data: the rows the query sees and the deployed scale b."""

    dataset: Dataset
    rows: np.ndarray
    query: lap.L1Query | lq.MeanQuery | lq.HistogramQuery
    calibrated: float | np.ndarray
    scale: float | np.ndarray  # per coordinate for the mean's (sum, count)

    @property
    def mechanism(self) -> lap.LaplaceMechanism:
        scale = float(self.scale) if np.ndim(self.scale) == 0 else tuple(float(b) for b in np.asarray(self.scale))
        return lap.LaplaceMechanism(self.query, scale)


def setup(config: LaplaceAuditConfig) -> LaplaceSetup:
    """Load ``config``'s data (shipped data z-scored, and for the sum and the mean scaled so that 90% of rows lie
    inside the L1 clip ball; a user CSV as is) and set the scale: ``--scale``, or Δ/ε, times the noise multiplier
    (the mean: its two calibrated scales, :func:`pdp_audit.mechanisms.laplace_queries.mean_scales`)."""
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
        rows = dataset.features
    else:
        assert config.dataset is not None  # set by resolve() without --data
        dataset = load_shipped(config.dataset)
        rows = standardize(dataset.features)
        if config.query != "histogram":  # a histogram bins the z-scores themselves
            rows = rows * (config.sensitivity / np.quantile(np.abs(rows).sum(axis=1), 0.9))
    if config.query == "mean":
        assert config.mean_split is not None  # set by resolve()
        scales = lq.mean_scales(config.epsilon, config.sensitivity, config.mean_split, rows.shape[1])
        return LaplaceSetup(dataset, rows, lq.MeanQuery(config.sensitivity), scales, scales * config.noise_multiplier)
    query: lap.L1Query | lq.HistogramQuery
    if config.query == "histogram":
        # set by resolve(), or required with --data by check()
        assert config.bins is not None and config.bin_low is not None and config.bin_high is not None
        edges = np.linspace(config.bin_low, config.bin_high, config.bins + 1)
        query = lq.HistogramQuery(column_index(dataset, config.column), tuple(float(e) for e in edges))
    else:
        query = lap.L1Query(config.query, config.sensitivity if config.query == "sum" else 1.0)
    calibrated = lap.laplace_scale(config.epsilon, query.sensitivity)
    scale = (config.scale if config.scale is not None else calibrated) * config.noise_multiplier
    return LaplaceSetup(dataset, rows, query, calibrated, scale)


def run_laplace_audit(config: LaplaceAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Every check of the Laplace audit, decided together at family-wise error ``config.alpha``."""
    s = setup(config)
    checks = finalize(laplace_evidence(config, s, executor, progress), config.alpha)
    # the options of another query stay off the record (unset: None)
    options = {key: value for key, value in asdict(config).items() if key not in QUERY_KEYS or value is not None}
    parameters = {
        **options,
        **_scale_parameters(s),
        "dataset_description": s.dataset.description,
        "n_rows": int(len(s.rows)),
        "dimension": int(s.rows.shape[1]),
        "worst_case_target": WORST_CASE[config.query],
    }
    if isinstance(s.query, lq.HistogramQuery):
        parameters["histogram_column"] = s.dataset.columns[s.query.column] if s.dataset.columns else s.query.column
    run = make_run("laplace", checks, config.alpha, parameters, config.seed)
    # only the sum and the mean clip rows
    clip = None if config.query == "count" or isinstance(s.query, lq.HistogramQuery) else s.query.clip
    return replace(run, clipping=clipping_record(s.rows, clip, order=1))


def _scale_parameters(s: LaplaceSetup) -> dict:
    """The deployed and calibrated scales (the mean: one pair per released part) and the query's sensitivity."""
    if not isinstance(s.query, lq.MeanQuery):  # one scale
        return {"scale": s.scale, "calibrated_scale": s.calibrated, "query_sensitivity": s.query.sensitivity}
    scale, calibrated = np.asarray(s.scale), np.asarray(s.calibrated)  # the mean's: (sum, count)
    return {
        "scale": None,
        "sum_scale": float(scale[0]),
        "count_scale": float(scale[-1]),
        "calibrated_sum_scale": float(calibrated[0]),
        "calibrated_count_scale": float(calibrated[-1]),
        "query_sensitivity": s.query.clip,
    }


def exact_profile(pair: lap.LaplacePair, bound: Fraction | None = None) -> pure.Profile:
    """The pair's exact δ(ε) and its inverse, where Δ_z lies on at most two coordinates (one: the closed form of
    :mod:`pdp_audit.mechanisms.laplace`; two: :func:`pdp_audit.mechanisms.laplace_queries.two_coordinate_delta`),
    else unknown.  δ(ε) = 0 from the bound on, decided in rationals
    (:func:`~pdp_audit.verify.evidence.pure_dp.bounded_profile`): ``bound``, the mechanism's proven one
    (:func:`proven_bound`), or the pair's own η_z = ‖Δ_z‖_1/b in rationals on its doubles."""
    bound = pair.exact_loss_bound if bound is None else bound
    bounds = pair.coordinate_bounds[pair.delta_z != 0]
    eta = pair.loss_bound
    if bounds.size <= 1:
        return pure.bounded_profile(  # δ at the exact bound, rounded up: a proven upper bound (below η only)
            lambda e: lap.laplace_delta_upper(bound - Fraction(e)),
            lambda d: lap.laplace_epsilon(d, 1.0, eta),
            bound,
        )
    if bounds.size == 2:
        eta_1, eta_2 = (float(b) for b in bounds)
        exact_1, exact_2 = _exact_coordinate_bounds(pair)  # δ rises with η: the float quotients may round down
        return pure.bounded_profile(
            lambda e: lq.two_coordinate_delta(e, exact_1, exact_2),
            lambda d: lq.two_coordinate_epsilon(d, eta_1, eta_2),
            bound,
        )
    return pure.Profile(bound=bound)


def _exact_coordinate_bounds(pair: lap.LaplacePair) -> list[Fraction]:
    """|q'_i − q_i|/b_i in rationals on the pair's doubles, for each coordinate where the pair differs."""
    scales = np.broadcast_to(pair.scale, pair.q_d.shape)
    exact = (abs(Fraction(a) - Fraction(b)) / Fraction(c) for a, b, c in zip(pair.q_dprime, pair.q_d, scales))
    return [bound for bound in exact if bound != 0]


def proven_bound(s: LaplaceSetup) -> Fraction:
    """The bound on |L| the module proves for the mechanism's worst pair, in rationals on the deployed scales: Δ/b
    (the mean: C/b_s + 1/b_c).  The worst pair stands for it: its means are float sums, whose difference may exceed
    Δ by their rounding (Casacuberta et al. 2022) -- the float program's matter, outside the mathematical
    mechanism this audit certifies (its scope line)."""
    scale = np.atleast_1d(s.scale)
    if isinstance(s.query, lq.MeanQuery):
        return Fraction(s.query.clip) / Fraction(float(scale[0])) + 1 / Fraction(float(scale[-1]))
    return Fraction(float(s.query.sensitivity)) / Fraction(float(scale[0]))


def worst_case_pair(s: LaplaceSetup) -> lap.LaplacePair:
    """The worst-case neighbour's pair (:func:`_worst_target` added): the audit decides it; a joint release
    (:mod:`pdp_audit.audits.joint`) takes it as this release's part."""
    return s.mechanism.pair(s.rows, _worst_target(s), "add")


def laplace_evidence(
    config: LaplaceAuditConfig, s: LaplaceSetup, executor: Executor | None = None, progress: bool = False
) -> list[Evidence]:
    """The evidence of every check, not yet decided (:func:`pdp_audit.verify.evidence.pure_dp.pure_dp_evidence`)."""
    pair = worst_case_pair(s)
    loss_bound = None
    if isinstance(s.query, lq.MeanQuery):  # two scales: the bound is the sum over the released parts
        loss_bound = replace(
            CHECKS["loss-bound"].fill(eps=config.epsilon, eta=pair.loss_bound),
            claim=f"Every release o has |L(o)| ≤ ε = {config.epsilon:g} (the loss of the deployed scales is bounded "
            f"by C/b_s + 1/b_c = {pair.loss_bound:.4g})",
        )
    audit = pure.PureAudit(
        CHECKS,
        pair,
        exact_profile(pair, proven_bound(s)),
        lambda budget: _individual(s, budget),
        "median-individual",
        loss_bound,
    )
    return pure.pure_dp_evidence(audit, config, executor, progress)


def _worst_target(s: LaplaceSetup) -> np.ndarray:
    """The worst row to add: all of C on the first coordinate (sum, mean; any row for a count), or a value in the
    first bin (histogram)."""
    target = np.zeros(s.rows.shape[1])
    if isinstance(s.query, lq.HistogramQuery):
        target[s.query.column] = s.query.edges[0]
    else:
        target[0] = s.query.clip if isinstance(s.query, lq.MeanQuery) else s.query.sensitivity
    return target


def _individual(s: LaplaceSetup, budget: pure.Budget) -> tuple[DpClaim, Any, pure.Profile]:
    """The pure pDP claim of a typical individual (median ‖Δ_z‖_1, removed from D): ε_z = ‖Δ_z‖_1/b (the mean:
    ‖clip(z)‖_1/b_s + 1/b_c, ordered by the sum's part), its pair and its profile."""
    if isinstance(s.query, lq.MeanQuery):
        sens = lap.L1Query("sum", s.query.clip).per_instance_sensitivities(s.rows)
    else:
        sens = s.query.per_instance_sensitivities(s.rows)
    index = int(np.argsort(sens, kind="stable")[len(sens) // 2])  # ties in row order on every CPU
    pair = s.mechanism.pair(s.rows, s.rows[index], "remove")
    eps_i = pure.rounded_up(pair.exact_loss_bound)  # ‖Δ_z‖_1/b of the released values, rounded up: a claim it has
    spec = CHECKS["pdp-median-individual"].fill(index=index, sensitivity=sens[index], eps_i=eps_i, delta=budget.delta)
    if isinstance(s.query, lq.MeanQuery):  # the count moves too: ε_z adds 1/b_c
        spec = replace(
            spec,
            claim=f"Row {index} (‖clip(z)‖_1 = {sens[index]:.4g}) has ({eps_i:.4g}, {budget.delta:g})-pDP, "
            "ε_z = ‖clip(z)‖_1/b_s + 1/b_c",
        )
    return DpClaim(spec, "D||D'", eps_i, budget.delta), pair, exact_profile(pair)
