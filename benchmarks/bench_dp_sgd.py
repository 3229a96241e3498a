"""DP-SGD's exact reference against dp-accounting's PLD accountant, and the time of each.

Run in a separate environment that has dp-accounting (never a core dependency):

    python -m venv /tmp/acct && /tmp/acct/bin/pip install dp-accounting -e .
    /tmp/acct/bin/python benchmarks/bench_dp_sgd.py

Prints one JSON line per case (σ, q, T) at δ = 1e-5: the bracket [ε_low, ε_high] of
:mod:`pdp_audit.mechanisms.pld_composition` (both directions, Hoeffding shift t = 2e-3·max(1, ε)), dp-accounting's ε
(``PLDAccountant``, Poisson sampling, add/remove, value discretisation 1e-4) and the two times in the same process.
Without dp-accounting it prints the reference alone, ``"dp_accounting": null``.
"""

from __future__ import annotations

import json
import time

from pdp_audit.audits.dp_sgd.evidence import reference
from pdp_audit.mechanisms.subsampled_gaussian import SubsampledGaussian

CASES = ((1.1, 0.01, 1000), (0.8, 0.004, 10_000), (2.0, 0.02, 500))
DELTA = 1e-5


def dp_accounting_epsilon(sigma: float, q: float, steps: int) -> float | None:
    try:
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant
    except ImportError:
        return None
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )
    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    return float(accountant.compose(event).get_epsilon(DELTA))


def main() -> None:
    for sigma, q, steps in CASES:
        start = time.perf_counter()
        low, high = reference(SubsampledGaussian(sigma, q), steps, 2.0).epsilon_bounds(DELTA)
        ours = time.perf_counter() - start
        start = time.perf_counter()
        theirs = dp_accounting_epsilon(sigma, q, steps)
        their_time = time.perf_counter() - start
        print(
            json.dumps(
                {
                    "benchmark": "dp_sgd_reference",
                    "sigma": sigma,
                    "q": q,
                    "steps": steps,
                    "delta": DELTA,
                    "epsilon_low": round(low, 6),
                    "epsilon_high": round(high, 6),
                    "reference_s": round(ours, 2),
                    "dp_accounting": None if theirs is None else round(theirs, 6),
                    "dp_accounting_s": None if theirs is None else round(their_time, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
