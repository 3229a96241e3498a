"""A coverage count drawn in looks and decided by a confidence sequence, so that a coverage check stops as soon as
its count decides (issue 43): the budget ``trials`` becomes a maximum.

**The claim.**  A bound published to hold with probability ≥ 1 − ρ fails on a draw with probability p; the claim is
p ≤ ρ.  The fixed pass counts the failures of ``trials`` draws and decides with Clopper–Pearson
(:mod:`pdp_audit.verify.estimators.coverage`), an interval valid at that one n only: re-read after every look and the
run stopped at the first refutation, it refutes a true claim far more often than α
(``tests/test_coverage_sequential.py`` shows it).

**The confidence sequence.**  After n draws with f failures, the Beta(a, b)-mixture (beta-binomial) martingale
against the rate p,

    M_n(p) = B(a + f, b + n − f) / (B(a, b) p^f (1 − p)^(n−f))       (Robbins 1970, §3; Howard, Ramdas, McAuliffe &
                                                                         Sekhon 2021, Ann. Statist. 49(2), §3),

has mean 1 under p at every n, so by Ville's inequality P_p(∃n: M_n(p) ≥ 1/α) ≤ α, and C_n = {p : M_n(p) < 1/α}
holds p at every n at once with probability ≥ 1 − α
(:func:`pdp_audit.verify.estimators.confidence_sequences.binomial_sequence`, its mathematics there).  The prior is
centred on the claim: Beta(κρ, κ(1 − ρ)) with κ = :data:`PRIOR_WEIGHT` (the weight of that many draws), chosen before
any draw, which puts the mixture's mass near the rates the check decides between and narrows the interval there
against Jeffreys' Beta(½, ½) (at 1e5 draws, α = 1e-6, the upper end 1.27 times Clopper–Pearson's one-sided bound
instead of 1.33: ``benchmarks/confidence_sequences.py``, its ``coverage`` rows).

**Deciding at a look.**  Fail (refute p ≤ ρ): the anytime p-value

    P_n = min(1, 1 / M_n(ρ))  where f > nρ,   1 otherwise,

is at most a exactly where C_n at level a lies above ρ.  It is valid at any stopping time τ: for the true p = ρ,
P(P_τ ≤ a) ≤ P(∃n: M_n(ρ) ≥ 1/a) ≤ a by Ville.  For p < ρ, M_n(ρ) grows with f where f ≥ nρ: the ratio
M_n(ρ; f + 1)/M_n(ρ; f) = (a + f)(1 − ρ) / ((b + n − f − 1)ρ) exceeds 1 when a(1 − ρ) − (b − 1)ρ + f − nρ > 0, and
with the prior above a(1 − ρ) − (b − 1)ρ = ρ; so coupling the Bernoulli(p) draws below Bernoulli(ρ) ones makes every
crossing of the smaller count a crossing of the larger, of probability ≤ a.  Pass: the upper end of C_n at the
check's level is at most ρ (a wrong pass is a miss of C_n, probability ≤ α too).  A check's family is decided by Holm
at α (:func:`pdp_audit.verify.core.checks.finalize`), which needs of each p-value only that it be valid at the time
read.

**Looks.**  The draws are taken at the schedule of the pair's pass in looks
(:func:`pdp_audit.verify.evidence.pair_sequential.looks`): n_1 = 2048, ×1.5 each look, then fixed fractions of
``trials``, the last ``trials``;
look r draws its n_r − n_{r−1} outcomes from the stream ``{stream}/look/{r}`` (block-seeded by identity: any workers
give the same numbers).  Unlike the pair's pass no level is split over the looks -- the sequence is valid at every
n -- and a pass may stop at any look (there is no guard check that decides only by refuting).  The price: the
interval at the budget against Clopper–Pearson's (``benchmarks/confidence_sequences.py``, its ``coverage`` rows).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Callable

import numpy as np

from pdp_audit.reports.records import CoverageFigure
from pdp_audit.verify.core.checks import CheckSpec, Evidence, finalize, samples_to_decide
from pdp_audit.verify.estimators.confidence_sequences import binomial_sequence, log_mixture
from pdp_audit.verify.estimators.coverage import Coverage
from pdp_audit.verify.estimators.engine import run_blocks
from pdp_audit.verify.evidence.pair_sequential import Stopping, looks, record

#: The weight κ of the mixture's prior Beta(κρ, κ(1 − ρ)), in draws (module notes).
PRIOR_WEIGHT = 20.0
#: What the check's details call its interval.
INTERVAL = "beta-binomial mixture confidence sequence, Beta(20 rho, 20 (1 - rho)) prior (Robbins 1970)"


def coverage_prior(rho: float) -> tuple[float, float]:
    """The mixture's prior Beta(κρ, κ(1 − ρ)): centred on the claimed ρ, of the weight of κ draws."""
    return PRIOR_WEIGHT * rho, PRIOR_WEIGHT * (1 - rho)


def anytime_pvalue(failures: int, trials: int, rho: float) -> float:
    """P_n = min(1, 1/M_n(ρ)) where the failure rate exceeds ρ, else 1 (module notes): valid at any stopping time."""
    if failures <= trials * rho or trials == 0:
        return 1.0
    return math.exp(-max(0.0, log_mixture(failures, trials - failures, rho, coverage_prior(rho))))


def anytime_coverage_check(spec: CheckSpec, coverage: Coverage, exact_failure: float | None = None) -> Evidence:
    """The claim "the bound fails with probability at most ρ" from ``coverage`` read at any look: the p-value
    :func:`anytime_pvalue`, the interval the confidence sequence's (module notes)."""
    rho, n, f = coverage.rho, coverage.trials, coverage.failures

    def interval(alpha: float) -> tuple[float, float]:
        return binomial_sequence(f, n, alpha, coverage_prior(rho))

    def figure(alpha: float) -> CoverageFigure:
        lo, hi = interval(alpha)
        rate = coverage.failure_rate
        return CoverageFigure(failure_rate=rate, lo=lo, hi=hi, rho=rho, exact=exact_failure, trials=n, level=1 - alpha)

    return Evidence(
        spec=spec,
        estimate=coverage.failure_rate,
        exact=exact_failure,
        pvalue=anytime_pvalue(f, n, rho),
        interval=interval,
        supports=lambda ci, alpha: ci is not None and ci[1] <= rho,
        budget_hint=lambda ci: samples_to_decide(n, ci, coverage.failure_rate, rho),
        make_figure=figure,
        note=f"Estimate = observed failure rate ({f} of {n:.1e}); the claim is failure rate ≤ ρ = {rho:g}; the "
        "interval is a confidence sequence, valid at whichever look the run stopped.",
        details={"failures": f, "trials": n, "rho": rho, "interval": INTERVAL},
    )


def stopped(evidence: Evidence, stop: Stopping, drawn: int, trials: int) -> str | None:
    """Why the pass stops after a look of ``drawn`` draws (of at most ``trials``), or None to draw the next: the
    check decided alone at ``stop.alpha`` (fail or pass), the budget, or the deadline."""
    if stop.early_stop:
        verdict = finalize([replace(evidence, make_figure=None, budget_hint=None)], stop.alpha)[0].verdict
        if verdict in ("fail", "pass"):
            return "failed" if verdict == "fail" else "passed"
    if drawn >= trials:
        return "budget"
    if stop.deadline is not None and time.monotonic() > stop.deadline:
        return "time-limit"
    return None


def sequential_coverage_check(
    spec: CheckSpec,
    holds: Callable[[int, np.random.Generator], np.ndarray],
    rho: float,
    budget: tuple[int, int, str],
    stop: Stopping,
    exact_failure: float | None = None,
) -> Evidence:
    """The coverage check of ``holds`` (``(size, rng) -> bool array``, True where the bound held) drawn in looks of
    at most ``trials`` draws (``budget``: ``(trials, seed, stream)``) and stopped by ``stop`` (module notes); its
    details record the draws used and why it stopped (``early_stop``, as the pair's pass records them)."""
    trials, seed, stream = budget
    schedule = looks(trials)
    failures, drawn = 0, 0
    for look, size in enumerate(schedule, 1):
        outcomes = np.asarray(run_blocks(holds, size - drawn, seed, f"{stream}/look/{look}"), dtype=bool)
        failures, drawn = failures + int(outcomes.size - np.count_nonzero(outcomes)), size
        evidence = anytime_coverage_check(spec, Coverage(failures, drawn, rho), exact_failure)
        why = stopped(evidence, stop, drawn, trials)
        if why is not None:
            return evidence.with_details(early_stop=record(drawn, trials, look, len(schedule), why, share=1.0))
    raise AssertionError("the last look is the budget")  # pragma: no cover - looks() ends at trials
