"""The audit of the Laplace mechanism: the evidence for every check of :mod:`pdp_audit.verify.plans.laplace.checks`.

The mechanism releases the L1-clipped sum (or the count) of a real dataset plus b·Lap(0, 1) on each coordinate.  The
DP claim is audited at a worst-case neighbour: a row on the L1 clip sphere with all its mass on one coordinate
(‖Δ_z‖_1 = C), whose privacy profile δ(ε) = max(0, 1 − e^{(ε−η)/2}) is known exactly
(:mod:`pdp_audit.mechanisms.laplace`).  Each DP or pDP check is decided by
:func:`pdp_audit.verify.plans.gaussian.profile.dp_check_with_profile` from plain hockey-stick tails (Laplace noise
has no Gaussian noise view to importance-sample); a pass of a pure claim (δ = 0) rests on the exact δ(ε) = 0 of the
bounded loss together with an interval consistent with it (the suite's closed-form rule), and ``loss-bound`` checks
the bound itself on every draw.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import asdict, dataclass, replace

import numpy as np

from pdp_audit.audits.engine import sample_privacy_loss
from pdp_audit.audits.tails import both_directions
from pdp_audit.mechanisms import laplace as lap
from pdp_audit.mechanisms.datasets import Dataset, load_csv, load_shipped, standardize
from pdp_audit.reports.records import Run
from pdp_audit.verify.checks import CheckSpec, Evidence, finalize, make_run
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.pair_checks import loss_consistency_check
from pdp_audit.verify.evidence.privacy_profile import bound_supported
from pdp_audit.verify.plans.gaussian.profile import dp_check_with_profile, profile_grid
from pdp_audit.verify.plans.laplace.checks import CHECKS
from pdp_audit.verify.plans.laplace.config import LaplaceAuditConfig

#: Relative slack of ``loss-bound``: the loss is a sum of d differences of |·|, each rounded to a few ulp.
LOSS_BOUND_RTOL = 1e-9


def _spec(check_id: str, **values) -> CheckSpec:
    return CHECKS[check_id].fill(**values)


@dataclass(frozen=True)
class LaplaceSetup:
    """The audited mechanism on its data: the rows the query sees and the deployed scale b."""

    dataset: Dataset
    rows: np.ndarray
    query: lap.L1Query
    calibrated: float
    scale: float

    @property
    def mechanism(self) -> lap.LaplaceMechanism:
        return lap.LaplaceMechanism(self.query, self.scale)


def setup(config: LaplaceAuditConfig) -> LaplaceSetup:
    """Load ``config``'s data (shipped data z-scored and scaled so that 90% of rows lie inside the L1 clip ball; a
    user CSV as is) and set the scale: ``--scale``, or Δ/ε, times the noise multiplier."""
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
        rows = dataset.features
    else:
        dataset = load_shipped(config.dataset)
        rows = standardize(dataset.features)
        rows = rows * (config.sensitivity / np.quantile(np.abs(rows).sum(axis=1), 0.9))
    query = lap.L1Query(config.query, config.sensitivity if config.query == "sum" else 1.0)
    calibrated = lap.laplace_scale(config.epsilon, query.sensitivity)
    scale = (config.scale if config.scale is not None else calibrated) * config.noise_multiplier
    return LaplaceSetup(dataset, rows, query, calibrated, scale)


def run_laplace_audit(config: LaplaceAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    """Every check of the Laplace audit, decided together at family-wise error ``config.alpha``."""
    s = setup(config)
    checks = finalize(laplace_evidence(config, s, executor, progress), config.alpha)
    parameters = {
        **asdict(config),
        "scale": s.scale,
        "calibrated_scale": s.calibrated,
        "query_sensitivity": s.query.sensitivity,
        "dataset_description": s.dataset.description,
        "n_rows": int(len(s.rows)),
        "dimension": int(s.rows.shape[1]),
        "worst_case_target": "a row on the L1 clip sphere on one coordinate (‖Δ_z‖_1 = C), added",
    }
    return make_run("laplace", checks, config.alpha, parameters, config.seed)


def _losses(pair, config: LaplaceAuditConfig, stream: str, executor, progress: bool = False):
    return tuple(
        sample_privacy_loss(pair, world, config.trials, config.seed, stream, executor, progress)
        for world in ("D", "D'")
    )


def _dp_check(spec: CheckSpec, pair: lap.LaplacePair, losses, direction: str, epsilon: float, config, executor):
    """δ_{direction}(ε) ≤ δ at ``pair`` from its plain tails, with its privacy profile; the exact curve is the
    one-coordinate profile where Δ_z lies on one coordinate (else only δ = 0 beyond the loss bound is known)."""
    eta = pair.loss_bound
    one_coordinate = np.count_nonzero(pair.delta_z) <= 1
    exact_delta = (lambda e: lap.laplace_delta(e, 1.0, eta)) if one_coordinate else None
    exact_epsilon = (lambda d: lap.laplace_epsilon(d, 1.0, eta)) if one_coordinate else None
    check = dp_check_with_profile(
        DpClaim(spec, direction, epsilon, config.delta),
        pair,
        losses,
        Draws(config.trials, config.seed, config.alpha, executor),
        exact_delta=exact_delta,
        exact_epsilon=exact_epsilon,
    )
    if exact_delta is None and epsilon >= eta:  # δ(ε) = 0 beyond the bound, proved for every pair
        check = _with_exact_zero(check, config.delta)
    return check


def _with_exact_zero(check: Evidence, delta: float) -> Evidence:
    """``check`` resting, like a one-coordinate pair's, on the exact δ(ε) = 0 of a bounded loss (ε ≥ ‖Δ_z‖_1/b):
    a pass needs the interval consistent with it (:func:`pdp_audit.verify.evidence.privacy_profile.bound_supported`)."""
    return replace(check, exact=0.0, supports=lambda ci, alpha: bound_supported(ci, delta, 0.0))


def laplace_evidence(
    config: LaplaceAuditConfig, s: LaplaceSetup, executor: Executor | None = None, progress: bool = False
) -> list[Evidence]:
    """The evidence of every check, not yet decided."""
    eps, delta, S = config.epsilon, config.delta, s.query.sensitivity
    target = np.zeros(s.rows.shape[1])
    target[0] = S
    pair = s.mechanism.pair(s.rows, target, "add")
    loss_d, loss_dp = _losses(pair, config, "dp-pair", executor, progress)
    forward = _spec("dp-forward", eps=eps, delta=delta)
    grid = profile_grid(eps, max(delta, 1e-12), lambda d: lap.laplace_epsilon(d, 1.0, pair.loss_bound))
    curve = np.array([lap.laplace_delta(e, 1.0, pair.loss_bound) for e in grid])
    return [
        _dp_check(forward, pair, (loss_d, loss_dp), "D||D'", eps, config, executor),
        _dp_check(_spec("dp-reverse", eps=eps, delta=delta), pair, (loss_d, loss_dp), "D'||D", eps, config, executor),
        _loss_bound_check(loss_d, loss_dp, eps, pair.loss_bound),
        loss_consistency_check(loss_d, loss_dp, guards=forward),
        builders.tail_curve_check(
            _spec("tail-curve"),
            both_directions(loss_d, loss_dp, grid, config.alpha),
            {"D||D'": curve, "D'||D": curve},
            eps,
            delta,
        ),
        _per_instance_check(s, config, executor),
    ]


def _loss_bound_check(loss_d: np.ndarray, loss_dp: np.ndarray, epsilon: float, eta: float) -> Evidence:
    """|L(o)| ≤ ε on every draw of both worlds: the bound pure DP rests on (attained: the loss has atoms at ±η)."""
    largest = float(max(np.max(np.abs(loss_d)), np.max(np.abs(loss_dp))))
    holds = largest <= epsilon * (1 + LOSS_BOUND_RTOL)
    return builders.exact_check(
        _spec("loss-bound", eps=epsilon, eta=eta),
        holds=holds,
        estimate=largest,
        note=f"Largest |L| over {loss_d.size + loss_dp.size:,} releases of both worlds: {largest:.6g} "
        f"(claimed ε = {epsilon:g}, relative tolerance {LOSS_BOUND_RTOL:g}).",
        largest_loss=largest,
        loss_bound=eta,
    )


def _per_instance_check(s: LaplaceSetup, config: LaplaceAuditConfig, executor) -> Evidence:
    """The pure pDP claim of a typical individual (median ‖Δ_z‖_1, removed from D): ε_z = ‖Δ_z‖_1/b."""
    sens = s.query.per_instance_sensitivities(s.rows)
    index = int(np.argsort(sens)[len(sens) // 2])
    pair = s.mechanism.pair(s.rows, s.rows[index], "remove")
    eps_i = pair.loss_bound  # ‖Δ_z‖_1/b of the released values themselves (the row's norm can differ in the last ulp)
    spec = _spec("pdp-median-individual", index=index, sensitivity=sens[index], eps_i=eps_i, delta=config.delta)
    losses = _losses(pair, config, "median-individual", executor)
    return _dp_check(spec, pair, losses, "D||D'", eps_i, config, executor)
