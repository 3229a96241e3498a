"""The coverage audit: :func:`audit_coverage` (``pdp_audit.audit_coverage``, the pytest plugin's
``assert_coverage``) -- "the event holds with probability at least 1 − ρ", its arguments checked before any draw."""

from __future__ import annotations

from typing import Any

from pdp_audit.audits.coverage.config import CoverageAuditConfig
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import PAIR_OPTIONS, build
from pdp_audit.verify.core.float_rules import with_own_float_rules
from pdp_audit.verify.evidence.pair_sequential import Stopping, stated
from pdp_audit.verify.evidence.user_audits import DEFAULT_ALPHA, DEFAULT_TRIALS, decided, flag

#: Whether a sampler's draws stop once decided unless told otherwise: the one declaration every audit that can shares.
DEFAULT_EARLY_STOP: bool = PAIR_OPTIONS["early_stop"].default


@with_own_float_rules
def audit_coverage(
    holds: Any,
    rho: float,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    alpha: float = DEFAULT_ALPHA,
    exact_failure: float | None = None,
    early_stop: bool = DEFAULT_EARLY_STOP,
    time_limit: float | None = None,
) -> Run:
    """Audit a claim "the event holds with probability at least 1 − ρ" from the failures of the event's draws.

    A sampler is drawn in looks (2,048 draws, then ×1.5 a look, the last at ``trials``) and stops at the first look
    where the claim is decided at ``alpha``: the failure count is read by an anytime-valid confidence sequence, the
    beta-binomial mixture martingale with a Beta prior centred on ρ (Robbins 1970, §3; Howard, Ramdas, McAuliffe &
    Sekhon 2021, §3), which holds at every look at once, so stopping at whichever look decided keeps the false-alarm
    probability at most ``alpha`` (:mod:`pdp_audit.verify.evidence.coverage_sequential`).  ``early_stop=False``
    draws all ``trials`` and decides with the exact binomial (Clopper–Pearson) test, the numbers of the versions
    before.  An array of outcomes already drawn is always read by the exact test.

    Args:
      holds: a vectorised sampler ``(size, rng) -> bool array``, a per-trial ``rng -> bool`` function, or an
        array of outcomes already drawn.
      rho: the claimed failure probability ρ, in (0, 1).
      trials: draws of a sampler, 100 to 1e8 (ignored for an array); with ``early_stop`` the most drawn.
      seed: root seed, >= 0.
      alpha: false-alarm probability, in [1e-50, 1).
      exact_failure: the exact failure probability, if known (shown beside the estimate; never evidence).
      early_stop: stop a sampler's draws once the claim is decided (the default); the check's
        ``details["early_stop"]`` records the draws used (``drawn_per_world``), the most (``max_per_world``) and why
        it stopped (``passed``, ``failed``, ``budget`` or ``time-limit``).  False: the whole budget in one pass.
      time_limit: seconds, > 0, after which a sampler's looks stop (drawn in looks even with ``early_stop=False``):
        the check reports what the draws by then support at ``alpha``, valid because the confidence sequence holds at
        every look (the result then depends on the machine's speed).  None: no limit.

    Returns:
      The decided :class:`~pdp_audit.reports.records.Run` with one check, ``coverage``; its ``parameters`` say
      ``early_stop`` where a sampler was drawn in looks, and ``trials`` is then the most it could draw.

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
        run.checks[0].details["early_stop"]["stopped"]  # 'budget': every look was drawn
    """
    values: dict[str, Any] = {"rho": rho, "trials": trials, "seed": seed, "alpha": alpha, "time_limit": time_limit}
    values["early_stop"] = flag("early_stop", early_stop)
    return run_coverage(build(CoverageAuditConfig, values, extra={"target": holds, "exact_failure": exact_failure}))


def run_coverage(config: CoverageAuditConfig, progress: bool = False) -> Run:
    """The coverage audit of ``config.target`` (what :func:`audit_coverage` runs; the plan:
    :mod:`pdp_audit.audits.coverage.plan`)."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.coverage.evidence import coverage_checks, in_looks
    holds, trials = config.target, config.trials
    stop = Stopping.of(config.alpha, config.early_stop, config.time_limit)  # None: the whole budget in one pass
    evidence = coverage_checks(holds, config.rho, (trials, config.seed), config.exact_failure, stop)
    if in_looks(holds, stop):  # the budget a maximum, as a pair's pass in looks states it
        parameters = {"claim": "coverage", "rho": config.rho, "trials": int(trials)}
        parameters.update(stated(config.early_stop, config.time_limit))
    else:
        drawn = evidence[0].details.get("trials", trials)  # a malformed sampler: the trials asked for
        parameters = {"claim": "coverage", "rho": config.rho, "trials": int(drawn)}
    name = getattr(holds, "__name__", type(holds).__name__)
    return decided(name, evidence, config.alpha, parameters, config.seed)
