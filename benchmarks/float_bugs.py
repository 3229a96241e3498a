"""The real-bug series of issue 60: floating-point noise that is DP as a real-valued law and not as implemented, and
its twins, DP as implemented -- each audited by the black box at its defaults (``pdp_audit.audit_blackbox`` with no
``trials``, statistic or budget: what ``pdp-audit blackbox MODULE:FACTORY`` runs), seed 0, α = 1e-6.

The bugs (each refuted at the default command; Mironov, CCS 2012, "On significance of the least significant bits for
differential privacy"; Jin, McMurtry, Rubinstein & Ohrimenko, IEEE S&P 2022, "Are we there yet? Timing and
floating-point attacks on differential privacy systems"; Haney et al. 2022, "Precision-based attacks and interval
refining"):

* ``numpy-laplace``: the textbook v + ``rng.laplace(0, 1/ε)``;
* ``diffprivlib-0.4.1-laplace``: diffprivlib 0.4.1's ``Laplace.randomise``, reimplemented step by step on the audit's
  generator (u = random() − 1/2; v − b·sign(u)·ln(1 − 2|u|), b = Δ/(ε − ln(1 − δ)));
* ``diffprivlib-0.4.1-gaussian``: its ``Gaussian.randomise``, Box–Muller (√(−2 ln u₁)·cos(2πu₂)·σ + v,
  σ = Δ√(2 ln(1.25/δ))/ε);
* ``naive-gaussian``: v + σ·``rng.standard_normal()`` (the Opacus-style Gaussian: Opacus PR #260);
* ``diffprivlib-0.6.6-*``: the library's ``Laplace``, ``LaplaceTruncated``, ``Gaussian`` and ``GaussianAnalytic``
  (:class:`pdp_audit.mechanisms.adapters.diffprivlib.MechanismPair`, seeded).

The twins (none refuted): the two-sided geometric (integer releases), diffprivlib's ``Geometric``, OpenDP's
``make_laplace`` on floats (exact sampling on a power-of-two grid, its draws not seedable) and the snapping mechanism
(Mironov 2012, §5: clamp, Laplace, round to the power-of-two grid Λ ≥ λ, clamp).

    python benchmarks/float_bugs.py [--only NAME ...] [--law ideal] [--trials N]

Prints one JSON line a mechanism: its verdict, the ε lower bound at 1 − α, whether the releases' number structure
was read, the fresh releases drawn and the seconds (wall) of the audit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

#: The claims of the series: (ε, δ) of each mechanism as its library or textbook states it.
LAPLACE_EPSILON = 1.0
GAUSSIAN_EPSILON, GAUSSIAN_DELTA = 0.5, 1e-5
#: The snapping twin: sensitivity 1/4 (inputs 0 and 1/4), λ = Δ/ε = 1/4, grid Λ = 1/4 (the smallest power of two
#: ≥ λ), clamp bound B = 8: releases on a grid of quarters, not integers, so the float reading is exercised.
SNAP_VALUES, SNAP_LAMBDA, SNAP_GRID, SNAP_BOUND = (0.0, 0.25), 0.25, 0.25, 8.0


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The classical Gaussian mechanism's σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1)."""
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


@dataclass(frozen=True)
class ValuePair:
    """``draw(value, size, rng)`` on ``value`` (world D) and ``value_prime`` (D'), as (size, 1) releases."""

    draw: Callable
    value: float
    value_prime: float

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        value = self.value if world == "D" else self.value_prime
        return np.asarray(self.draw(value, size, rng), dtype=float).reshape(size, 1)


def numpy_laplace(value: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """The textbook Laplace mechanism: v + Lap(1/ε) in float64."""
    return value + rng.laplace(0.0, 1.0 / LAPLACE_EPSILON, size)


def diffprivlib_041_laplace(value: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """diffprivlib 0.4.1's ``Laplace.randomise`` (δ = 0, Δ = 1), its float operations in its order, numpy's global
    ``random()`` replaced by the audit's generator."""
    scale = 1.0 / (LAPLACE_EPSILON - np.log(1 - 0.0))
    unif_rv = rng.random(size) - 0.5
    return value - scale * np.sign(unif_rv) * np.log(1 - 2 * np.abs(unif_rv))


def diffprivlib_041_gaussian(value: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """diffprivlib 0.4.1's ``Gaussian.randomise``: Box–Muller on two uniforms, σ the classical calibration."""
    scale = gaussian_sigma(GAUSSIAN_EPSILON, GAUSSIAN_DELTA)
    unif_rv1, unif_rv2 = rng.random(size), rng.random(size)
    return np.sqrt(-2 * np.log(unif_rv1)) * np.cos(2 * np.pi * unif_rv2) * scale + value


def naive_gaussian(value: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """v + σ·N(0, 1) in float64 (the Opacus-style Gaussian)."""
    return value + gaussian_sigma(GAUSSIAN_EPSILON, GAUSSIAN_DELTA) * rng.standard_normal(size)


def two_sided_geometric(value: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """v + G − G', G, G' geometric with p = 1 − e^{−ε}: the two-sided geometric, ε-DP for integer v at Δ = 1 (Ghosh,
    Roughgarden & Sundararajan 2009); integer releases."""
    p = 1 - math.exp(-LAPLACE_EPSILON)
    return value + (rng.geometric(p, size) - rng.geometric(p, size)).astype(float)


def snapping(value: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Mironov's snapping mechanism (CCS 2012, §5.2): clamp(Λ·round((clamp(v) ± λ·ln U)/Λ)) with U uniform on (0, 1]
    and Λ the smallest power of two ≥ λ; (1/λ + 2^-49·B/λ)-DP at sensitivity 1 as implemented (Thm 1), here at
    sensitivity 1/4 with λ = 1/4: ε = 1 up to 2^-44.  Division and multiplication by a power of two are exact."""
    clamped = min(max(value, -SNAP_BOUND), SNAP_BOUND)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    noisy = clamped + sign * SNAP_LAMBDA * np.log(1.0 - rng.random(size))
    return np.clip(SNAP_GRID * np.round(noisy / SNAP_GRID), -SNAP_BOUND, SNAP_BOUND)


def _diffprivlib(name: str):
    from diffprivlib import mechanisms

    from pdp_audit.mechanisms.adapters.diffprivlib import MechanismPair

    made = {
        "Laplace": lambda: mechanisms.Laplace(epsilon=LAPLACE_EPSILON, sensitivity=1.0),
        "LaplaceTruncated": lambda: mechanisms.LaplaceTruncated(
            epsilon=LAPLACE_EPSILON, sensitivity=1.0, lower=-10.0, upper=10.0
        ),
        "Gaussian": lambda: mechanisms.Gaussian(epsilon=GAUSSIAN_EPSILON, delta=GAUSSIAN_DELTA, sensitivity=1.0),
        "GaussianAnalytic": lambda: mechanisms.GaussianAnalytic(
            epsilon=GAUSSIAN_EPSILON, delta=GAUSSIAN_DELTA, sensitivity=1.0
        ),
        "Geometric": lambda: mechanisms.Geometric(epsilon=LAPLACE_EPSILON, sensitivity=1),
    }[name]()
    values = (0, 1) if name == "Geometric" else (0.0, 1.0)
    return MechanismPair(made, *values)


def _opendp_laplace():
    import opendp.prelude as dp

    from pdp_audit.mechanisms.adapters.opendp import MeasurementPair

    dp.enable_features("contrib")
    scalar = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    vector = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.0)
    return MeasurementPair(scalar, 0.0, 1.0, batched=vector)


@dataclass(frozen=True)
class Case:
    """One mechanism of the series: its name, whether it is a bug (refuted as implemented) or a twin (DP as
    implemented), its claim (ε, δ) and a function making its pair."""

    name: str
    bug: bool
    epsilon: float
    delta: float
    make: Callable


SERIES = (
    Case("numpy-laplace", True, LAPLACE_EPSILON, 0.0, lambda: ValuePair(numpy_laplace, 0.0, 1.0)),
    Case("diffprivlib-0.4.1-laplace", True, LAPLACE_EPSILON, 0.0, lambda: ValuePair(diffprivlib_041_laplace, 0.0, 1.0)),
    Case(
        "diffprivlib-0.4.1-gaussian",
        True,
        GAUSSIAN_EPSILON,
        GAUSSIAN_DELTA,
        lambda: ValuePair(diffprivlib_041_gaussian, 0.0, 1.0),
    ),
    Case("naive-gaussian", True, GAUSSIAN_EPSILON, GAUSSIAN_DELTA, lambda: ValuePair(naive_gaussian, 0.0, 1.0)),
    Case("diffprivlib-0.6.6-Laplace", True, LAPLACE_EPSILON, 0.0, lambda: _diffprivlib("Laplace")),
    Case("diffprivlib-0.6.6-LaplaceTruncated", True, LAPLACE_EPSILON, 0.0, lambda: _diffprivlib("LaplaceTruncated")),
    Case("diffprivlib-0.6.6-Gaussian", True, GAUSSIAN_EPSILON, GAUSSIAN_DELTA, lambda: _diffprivlib("Gaussian")),
    Case(
        "diffprivlib-0.6.6-GaussianAnalytic",
        True,
        GAUSSIAN_EPSILON,
        GAUSSIAN_DELTA,
        lambda: _diffprivlib("GaussianAnalytic"),
    ),
    Case("two-sided-geometric", False, LAPLACE_EPSILON, 0.0, lambda: ValuePair(two_sided_geometric, 0.0, 1.0)),
    Case("diffprivlib-0.6.6-Geometric", False, LAPLACE_EPSILON, 0.0, lambda: _diffprivlib("Geometric")),
    Case("opendp-0.16-make_laplace", False, LAPLACE_EPSILON, 0.0, _opendp_laplace),
    Case("snapping", False, LAPLACE_EPSILON, 0.0, lambda: ValuePair(snapping, *SNAP_VALUES)),
)
BY_NAME = {case.name: case for case in SERIES}


def audit(case: Case, law: str = "as-implemented", trials: int | None = None, seed: int = 0) -> dict:
    """The default black-box audit of ``case`` (``law``; ``trials`` None: the default budget), as one record."""
    import pdp_audit

    pair = case.make()
    start = time.perf_counter()
    budget = pdp_audit.BlackBoxBudget(law=law)
    run = pdp_audit.audit_blackbox(pair, case.epsilon, case.delta, trials=trials, seed=seed, alpha=1e-6, budget=budget)
    seconds = time.perf_counter() - start
    (check,) = run.checks
    stopped = check.details.get("early_stop", {})
    return {
        "benchmark": "float_bugs",
        "mechanism": case.name,
        "kind": "bug" if case.bug else "twin",
        "claim": [case.epsilon, case.delta],
        "law": law,
        "verdict": run.verdict,
        "epsilon_lower_bound": check.ci[0] if check.ci else None,
        "float_implementation": check.details.get("float_implementation", "integer releases"),
        "trials": run.parameters.get("trials"),
        "fresh_drawn": stopped.get("fresh_drawn"),
        "seconds": round(seconds, 1),
        "expected": "fail" if case.bug and law == "as-implemented" else "not fail",
        "as_expected": (run.verdict == "fail") == (case.bug and law == "as-implemented"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=list(BY_NAME), help="these mechanisms only")
    parser.add_argument("--law", default="as-implemented", choices=("as-implemented", "ideal"))
    parser.add_argument("--trials", type=int, default=None, help="fresh releases per world (default: the audit's)")
    args = parser.parse_args()
    for case in SERIES:
        if args.only and case.name not in args.only:
            continue
        record = audit(case, args.law, args.trials)
        record.update({"cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 2)})
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
