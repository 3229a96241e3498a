"""Sweep cells of the Gaussian mechanism: one cell is one Gaussian audit (or a subset of its checks).

Parameters (all optional): ``epsilon``, ``delta`` (the claim), ``sigma`` (a number, or
``"calibrated"`` for the analytic calibration to the claim), ``sigma_scale`` (λ-inflation: the σ used
is ``sigma_scale`` × σ; below 1 the claim is false), ``sensitivity``, ``query``, ``trials``, ``rho``,
``dataset`` (a shipped dataset or ``"synthetic"``) and ``n``/``d`` (rows and columns of synthetic
data: iid N(0, 1) features, drawn from the cell's seed and scaled like the shipped data so that 90%
of rows lie in the clip ball).

A cell computes the audit's guarantees, and its paper findings (``classical-epsilon``,
``classical-calibration``, ``example4``; :mod:`pdp_audit.verify.plans.gaussian.checks`) only when the spec's ``checks``
select one of them.  The cell's verdict comes from its guarantees (from the findings only when the spec selects
no guarantee at all); its ``checks`` list the findings after the guarantees, each with its ``role``.
"""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np

from pdp_audit.verify.plans.gaussian.checks import CHECKS as GAUSSIAN_CHECKS
from pdp_audit.verify.sweeps.schema import Param, SpecError, SweepMechanism

CHECKS = tuple(GAUSSIAN_CHECKS)  # the ids a spec may select, in the audit's order

PRELOAD = ("pdp_audit.verify.plans.gaussian.evidence", "pdp_audit.reports.json_report", "sklearn.datasets")

SCHEMA = {
    "epsilon": Param("float", 1.0, "claimed ε", low=0, high=100, open_low=True),
    "delta": Param("float", 1e-5, "claimed δ", low=0, high=1, open_low=True, open_high=True),
    "sigma": Param(
        "float",
        "calibrated",
        'noise σ, or "calibrated" (analytic Gaussian calibration to the claim)',
        low=1e-9,
        high=1e9,
        keywords=("calibrated",),
    ),
    "sigma_scale": Param("float", 1.0, "λ-inflation: multiplies σ", low=1e-3, high=1e3),
    "sensitivity": Param("float", 1.0, "L2 clip bound C of the sum", low=1e-9, high=1e9),
    "query": Param("str", "sum", "sum (clipped) or count", choices=("sum", "count")),
    "trials": Param("int", 1_000_000, "Monte Carlo samples per world", low=1000, high=1e9),
    "rho": Param(
        "float",
        0.01,
        "failure probability of Corollary 23's ex-post bound",
        low=0,
        high=1,
        open_low=True,
        open_high=True,
    ),
    "dataset": Param(
        "str", "diabetes", "shipped dataset or synthetic", choices=("diabetes", "breast-cancer", "wine", "synthetic")
    ),
    "n": Param("int", 1000, "rows of synthetic data", low=2, high=100_000),
    "d": Param("int", 10, "columns of synthetic data", low=1, high=100),
}


def normalize(parameters: dict, given: set, where: str) -> dict:
    """Cross-check a cell's parameters and drop those that do not apply (SpecError naming ``where``)."""
    p = dict(parameters)
    if p["query"] == "count":
        if "sensitivity" in given and p["sensitivity"] != 1.0:
            raise SpecError(
                f'{where}: sensitivity applies to query = "sum" only (a count has sensitivity 1), '
                f"got {p['sensitivity']!r}"
            )
        p["sensitivity"] = 1.0
    if p["dataset"] != "synthetic":
        for key in ("n", "d"):
            if key in given:
                raise SpecError(f'{where}: {key} applies to dataset = "synthetic" only')
            del p[key]
    elif p["n"] * p["d"] > 1_000_000:
        raise SpecError(f"{where}: n × d must be at most 1e6 for synthetic data, got {p['n']} × {p['d']}")
    return p


def cost(parameters: dict) -> float:
    """Run time in units of one sample per world: ~2e5 of fixed work (exact checks, per-instance)."""
    return parameters["trials"] + 2e5 + (parameters.get("n", 0) * parameters.get("d", 0)) / 2


def _synthetic_csv(n: int, d: int, sensitivity: float, seed: int, directory: str) -> str:
    from pdp_audit.audits.engine import block_rng
    from pdp_audit.mechanisms.datasets import synthetic_rows

    rows = synthetic_rows(n, d, block_rng(seed, "synthetic-data", 0)).features
    rows = rows * (sensitivity / np.quantile(np.linalg.norm(rows, axis=1), 0.9))
    path = os.path.join(directory, "synthetic.csv")
    with open(path, "w", encoding="ascii") as handle:  # repr round-trips every float exactly
        handle.write(",".join(f"x{j}" for j in range(d)) + "\n")
        handle.writelines(",".join(repr(float(v)) for v in row) + "\n" for row in rows)
    return path


def cell(parameters: dict, seed: int, alpha: float, checks: tuple[str, ...] | None = None, executor=None) -> dict:
    """One Gaussian audit; ``executor`` (anything with ``map``) runs the chunks of its sampled streams."""
    from pdp_audit.mechanisms import gaussian as g
    from pdp_audit.reports.json_report import check_to_dict, clean
    from pdp_audit.verify.checks import finalize, worst
    from pdp_audit.verify.plans.gaussian.evidence import GaussianAuditConfig, gaussian_evidence, gaussian_run, setup

    p = parameters
    S = p["sensitivity"] if p["query"] == "sum" else 1.0
    base = g.analytic_sigma(p["epsilon"], p["delta"], S) if p["sigma"] == "calibrated" else p["sigma"]
    sigma = None if (p["sigma"] == "calibrated" and p["sigma_scale"] == 1.0) else base * p["sigma_scale"]
    if sigma is not None and not (math.isfinite(sigma) and sigma > 0):
        raise SpecError(f"sigma × sigma_scale must be a finite number > 0, got {sigma}")
    with tempfile.TemporaryDirectory(prefix="pdp-audit-cell-") as tmp:
        data = _synthetic_csv(p["n"], p["d"], S, seed, tmp) if p["dataset"] == "synthetic" else None
        config = GaussianAuditConfig(
            epsilon=p["epsilon"],
            delta=p["delta"],
            sensitivity=S,
            query=p["query"],
            sigma=sigma,
            trials=p["trials"],
            seed=seed,
            alpha=alpha,
            rho=p["rho"],
            dataset=p["dataset"] if data is None else "diabetes",
            data=data,
            paper_claims=checks is not None and any(GAUSSIAN_CHECKS[c].role == "paper" for c in checks),
        )
        s = setup(config)
        evidence = gaussian_evidence(config, s, executor=executor)
        # A subset of the checks is decided as a family of its own, at the cell's α.
        selected = finalize([e for e in evidence if checks is None or e.id in checks], alpha)
        run = gaussian_run(config, s, selected)
    effective = dict(run.parameters)
    if data is not None:
        effective.update(
            dataset="synthetic",
            data=None,
            dataset_description=(
                f"synthetic: {p['n']} rows of {p['d']} iid N(0, 1) features from the cell's seed, scaled so 90% lie "
                "in the clip ball"
            ),
        )
    effective.update(sigma_scale=p["sigma_scale"], base_sigma=base)
    pi = run.per_instance
    return clean(
        {
            "verdict": run.verdict if run.checks or not run.findings else worst(c.verdict for c in run.findings),
            "checks": [check_to_dict(c) for c in (*run.checks, *(run.findings or ()))],
            "parameters": effective,
            "summary": {"sigma": effective["sigma"], "dp_epsilon": pi.dp_epsilon, "median_pdp_epsilon": pi.median},
        }
    )


SWEEP = SweepMechanism(
    "gaussian",
    cell,
    SCHEMA,
    normalize=normalize,
    cost=cost,
    checks=CHECKS,
    description="Gaussian mechanism (verify/plans/gaussian)",
    preload=PRELOAD,
    chunked=True,
    aliases=(("claim_epsilon", "epsilon"), ("claim_delta", "delta")),  # the names `pdp-audit run gaussian` uses
)
