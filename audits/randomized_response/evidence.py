"""The audit of k-ary randomized response: the evidence for every check of
:mod:`pdp_audit.audits.randomized_response.checks`.

Each individual reports their category with probability p, else a uniform other one.  The DP claim is audited at
one individual's value changed (every change has the same loss law, so it is the worst), whose profile
δ(ε) = max(0, p − e^ε q) is known exactly (:mod:`pdp_audit.mechanisms.randomized_response`).  The checks are those of
a bounded-loss pair (:mod:`pdp_audit.verify.evidence.pure_dp`), and the pure pDP of an individual.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pdp_audit.audits.randomized_response.checks import CHECKS
from pdp_audit.audits.randomized_response.config import RandomizedResponseAuditConfig
from pdp_audit.mechanisms import randomized_response as rr
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.checks import Evidence, finalize, make_run
from pdp_audit.verify.evidence import pure_dp as pure
from pdp_audit.verify.evidence.dp_claim import DpClaim
from pdp_audit.verify.inputs.datasets import Dataset, column_index, load_csv, load_shipped
from pdp_audit.verify.inputs.validation import InputError


@dataclass(frozen=True)
class ResponseSetup:
    """The audited mechanism on its data: every individual's category, k, and the deployed randomization ε_r."""

    dataset: Dataset
    column: str
    values: np.ndarray
    categories: int
    keep: float
    randomization: float

    @property
    def mechanism(self) -> rr.RandomizedResponse:
        return rr.RandomizedResponse(self.categories, self.randomization)


def setup(config: RandomizedResponseAuditConfig) -> ResponseSetup:
    """The reported column (a shipped dataset's class label by default), checked to hold categories 0..k−1, and
    the deployed ε_r: ``--keep-probability``'s, or the claim's ε, divided by the noise multiplier."""
    if config.data is not None:
        dataset = load_csv(config.data)
    else:
        assert config.dataset is not None  # set by resolve() without --data
        dataset = load_shipped(config.dataset)
    if config.column is None:
        assert dataset.target is not None  # a shipped dataset's class label (check(): --data needs --column)
        values, column, categories = dataset.target, "class label", int(np.max(dataset.target)) + 1
    else:
        assert config.categories is not None  # check(): --column needs --categories
        values = dataset.features[:, column_index(dataset, config.column)]
        column, categories = config.column, config.categories
    categories = config.categories or categories
    bad = np.flatnonzero((values != np.rint(values)) | (values < 0) | (values >= categories))
    if bad.size:
        raise InputError(
            f"--column: {column} of {dataset.name} must hold categories 0..{categories - 1} (--categories "
            f"{categories}), got {values[bad[0]]:g} in row {bad[0]}"
        )
    if config.keep_probability is not None and not config.keep_probability > 1 / categories:
        raise InputError(f"--keep-probability must be above 1/k = {1 / categories:g}, got {config.keep_probability:g}")
    calibrated = config.epsilon
    if config.keep_probability is not None:
        calibrated = rr.randomization_epsilon(config.keep_probability, categories)
    randomization = calibrated / config.noise_multiplier
    keep = 1.0 / (1.0 + (categories - 1) * np.exp(-randomization))
    return ResponseSetup(dataset, column, values.astype(int), categories, float(keep), randomization)


def run_randomized_response_audit(
    config: RandomizedResponseAuditConfig, executor: Executor | None = None, progress: bool = False
) -> Run:
    """Every check of the randomized-response audit, decided together at family-wise error ``config.alpha``."""
    s = setup(config)
    checks = finalize(response_evidence(config, s, executor, progress), config.alpha)
    parameters = {
        **asdict(config),
        "categories": s.categories,
        "keep_probability": s.keep,
        "deployed_randomization": s.randomization,
        "reported_column": s.column,
        "dataset_description": s.dataset.description,
        "n_rows": int(len(s.values)),
        "worst_case_target": "row 0's value changed to the next category (every change has the same loss law)",
    }
    return make_run("randomized-response", checks, config.alpha, parameters, config.seed)


def exact_profile(pair: rr.RandomizedResponsePair) -> pure.Profile:
    """The pair's exact δ(ε) = max(0, p − e^ε q) and its inverse."""
    eps_r, k = pair.randomization, pair.k
    return pure.bounded_profile(
        lambda e: rr.rr_delta_upper(e, eps_r, k), lambda d: rr.rr_epsilon(d, eps_r, k), pair.exact_loss_bound
    )


def response_evidence(
    config: RandomizedResponseAuditConfig, s: ResponseSetup, executor: Executor | None = None, progress: bool = False
) -> list[Evidence]:
    """The evidence of every check, not yet decided (:func:`pdp_audit.verify.evidence.pure_dp.pure_dp_evidence`)."""
    pair = s.mechanism.pair(s.values, 0)
    audit = pure.PureAudit(CHECKS, pair, exact_profile(pair), lambda budget: _individual(s, budget), "individual")
    return pure.pure_dp_evidence(audit, config, executor, progress)


def _individual(s: ResponseSetup, budget: pure.Budget) -> tuple[DpClaim, Any, pure.Profile]:
    """The pure pDP claim of the middle row when its value changes to the next category: ε_z = ε_r, its pair and
    its profile."""
    index = len(s.values) // 2
    pair = s.mechanism.pair(s.values, index)
    spec = CHECKS["pdp-individual"].fill(
        index=index,
        value=pair.value,
        other=pair.other,
        eps_i=pair.loss_bound,
        delta=budget.delta,
    )
    return DpClaim(spec, "D||D'", pair.loss_bound, budget.delta), pair, exact_profile(pair)
