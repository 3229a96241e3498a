"""The coverage audit: :func:`audit_coverage` (``pdp_audit.audit_coverage``, the pytest plugin's
``assert_coverage``) -- "the event holds with probability at least 1 − ρ", its arguments checked before any draw."""

from __future__ import annotations

from typing import Any

from pdp_audit.audits.coverage.config import CoverageAuditConfig
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import build
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.evidence.user_audits import DEFAULT_ALPHA, DEFAULT_TRIALS, decided


@with_own_float_rules
def audit_coverage(
    holds: Any,
    rho: float,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    exact_failure: float | None = None,
) -> Run:
    """Audit a claim "the event holds with probability at least 1 − ρ": an exact binomial test of the failures.

    Args:
      holds: a vectorised sampler ``(size, rng) -> bool array``, a per-trial ``rng -> bool`` function, or an
        array of outcomes already drawn.
      rho: the claimed failure probability ρ, in (0, 1).
      trials: draws of a sampler, 100 to 1e8 (ignored for an array).
      seed: root seed, >= 0.
      alpha: false-alarm probability, in [1e-50, 1).
      exact_failure: the exact failure probability, if known (shown beside the estimate; never evidence).

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run` with one check, ``coverage``.

      A sampler that raises (``sys.exit`` included), or returns anything but a boolean array of shape (size,) (a
      per-trial function: anything but a bool), is the exact fail ``pair-protocol`` naming the call: casting NaN,
      0.5 or 2 to bool would make every trial hold.

    Raises:
      InputError: an argument out of its range, or an array of outcomes that is not boolean.

    Example::

        import numpy as np
        import pdp_audit

        # |N(0, 1)| <= 2.576 holds with probability 0.99
        run = pdp_audit.audit_coverage(lambda size, rng: np.abs(rng.standard_normal(size)) <= 2.576, rho=0.01)
        run.verdict  # 'inconclusive': the claim is exactly tight, no sample size can confirm it
    """
    values = {"rho": rho, "trials": trials, "seed": seed, "alpha": alpha}
    return run_coverage(build(CoverageAuditConfig, values, extra={"target": holds, "exact_failure": exact_failure}))


def run_coverage(config: CoverageAuditConfig, progress: bool = False) -> Run:
    """The coverage audit of ``config.target`` (what :func:`audit_coverage` runs; the plan:
    :mod:`pdp_audit.audits.coverage.plan`)."""
    from pdp_audit.audits.coverage.evidence import coverage_checks

    holds, trials = config.target, config.trials
    evidence = coverage_checks(holds, config.rho, trials, config.seed, config.exact_failure)
    drawn = evidence[0].details.get("trials", trials)  # a malformed sampler: the trials asked for
    parameters = {"claim": "coverage", "rho": config.rho, "trials": int(drawn)}
    name = getattr(holds, "__name__", type(holds).__name__)
    return decided(name, evidence, config.alpha, parameters, config.seed)
