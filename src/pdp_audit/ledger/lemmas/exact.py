"""An exact check of the ledger: its declaration beside the function that computes it, and how it is decided.

A check is a function decorated with :func:`exact_check`, which declares its :class:`CheckSpec` right above it
and makes it a :class:`Lemma`.  The function returns an :class:`Outcome` -- whether the statement holds, the
worst value found against its threshold, and what produced it -- and, when it draws random instances
(``draws``), takes a numpy Generator: :meth:`Lemma.evidence` gives it the check's own stream,
``block_rng(seed, "lemma/<check id>", 0)``, so a check's instances depend on the seed and its id only (adding,
removing or running another check alone changes nothing).

The deciders shared by the subjects: identities at 50 digits (mpmath) are exact below a relative difference of
1e-30 and violated above 1e-3 (in between is a bug of ours, not a verdict); inequalities in float64 hold up to a
1e-9 relative allowance for rounding; tail bounds compare exact log-space probabilities on grids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import mpmath
import numpy as np

from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators.engine import block_rng

DIGITS = 50
IDENTITY_PASS = 1e-30  # relative difference at 50 digits: rounding is ~1e-48
INEQUALITY_SLACK = 1e-9  # float64 rounding allowance on a ratio
#: The smallest eigenvalue of a symmetric H that double precision resolves, relative to ‖H‖₂ (a few hundred ulp:
#: below it, eigvalsh returns rounding noise of either sign, and solving with H amplifies it without bound).
RESOLVED_EIGENVALUE = 1e-13


@dataclass(frozen=True)
class Outcome:
    """What an exact check found: whether the statement holds, the worst value against its threshold, the note
    saying what produced it, and details for the JSON."""

    holds: bool
    worst: float
    threshold: float
    note: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Lemma:
    """One exact check: its declaration and the function computing its :class:`Outcome` (given a Generator when
    it ``draws`` random instances)."""

    spec: CheckSpec
    compute: Callable[..., Outcome]
    draws: bool = False

    def evidence(self, seed: int) -> Evidence:
        """The check's evidence, its random instances drawn from its own stream (keyed by seed and check id)."""
        return self.decide(block_rng(seed, f"lemma/{self.spec.id}", 0) if self.draws else None)

    def decide(self, rng: np.random.Generator | None = None) -> Evidence:
        """The check's evidence on the instances of ``rng`` (ignored when it draws none): pass iff it holds."""
        outcome = self.compute(rng) if self.draws else self.compute()
        return Evidence(
            self.spec,
            estimate=outcome.worst,
            verdict="pass" if outcome.holds else "fail",
            note=outcome.note,
            details={"threshold": outcome.threshold, **outcome.details},
        )


def exact_check(spec: CheckSpec, draws: bool = False) -> Callable[[Callable[..., Outcome]], Lemma]:
    """Declare ``spec`` on the function below: ``@exact_check(CheckSpec(...), draws=True)`` makes it a
    :class:`Lemma` (registered nowhere: :data:`pdp_audit.ledger.lemmas.LEMMAS` lists every check)."""

    def declare(compute: Callable[..., Outcome]) -> Lemma:
        return Lemma(spec, compute, draws)

    return declare


def decided(ok: bool, worst: float, bound: float, note: str, **details) -> Outcome:
    """An outcome decided here: whether the statement holds, the worst ratio or difference and its threshold."""
    return Outcome(bool(ok), worst, bound, note, details)


def inequality(worst: float, where: str, note: str, bound: float = 1.0, **details) -> Outcome:
    """An inequality decided by its largest ratio (holds when ≤ ``bound`` up to float64 rounding)."""
    return decided(worst <= bound * (1 + INEQUALITY_SLACK), worst, bound, note, worst_instance=where, **details)


# --- identities at 50 digits ----------------------------------------------------------------------------------


def instances(rng: np.random.Generator, shapes: list[tuple[int, int]]):
    """Random matrices and, for each shape, an ill-conditioned one (singular values 1 … 1e-12)."""
    for n, k in shapes:
        yield "random", rng.standard_normal((n, k))
        u, _ = np.linalg.qr(rng.standard_normal((n, n)))
        v, _ = np.linalg.qr(rng.standard_normal((k, k)))
        s = np.logspace(0, -12, min(n, k))
        yield "ill-conditioned", (u[:, : len(s)] * s) @ v[: len(s)]


def mp(a) -> mpmath.matrix:
    """A float64 array as an mpmath matrix."""
    return mpmath.matrix(np.asarray(a, dtype=float).tolist())


def rel(a: mpmath.matrix, b: mpmath.matrix) -> float:
    """The relative difference ‖a − b‖₁/‖b‖₁ (‖b‖₁ floored at 10^−DIGITS)."""
    return float(mpmath.mnorm(a - b, 1) / max(mpmath.mnorm(b, 1), mpmath.mpf(10) ** (-DIGITS)))


def identity(trials: Sequence[tuple[str, Callable[[], tuple]]], note: str) -> Outcome:
    """An identity checked at 50 digits on named instances (``sides()`` gives both sides): exact below 1e-30."""
    worst, where = 0.0, ""
    with mpmath.workdps(DIGITS):
        for name, sides in trials:
            lhs, rhs = sides()
            difference = rel(lhs, rhs)
            if difference >= worst:
                worst, where = difference, name
    ok = worst < IDENTITY_PASS
    if not ok and worst < 1e-3:  # neither exact nor clearly wrong: a bug of ours, not a verdict
        raise ArithmeticError(f"relative difference {worst:.3g} ({where}) is neither exact nor a violation")
    return decided(
        ok,
        worst,
        IDENTITY_PASS,
        f"{len(trials)} instances; largest relative difference {worst:.3g} ({where}). {note}".strip(),
        instances=len(trials),
        worst_instance=where,
    )


# --- tail bounds on grids (exact, log space) --------------------------------------------------------------------


def max_log_ratio(log_prob: np.ndarray, log_bound: np.ndarray, grid: list[str]) -> tuple[float, str]:
    """The largest probability/bound on a grid, from their logarithms, and where."""
    excess = log_prob - log_bound
    i = int(np.argmax(excess))
    return float(math.exp(excess.flat[i])), grid[i]


def grid_bound(log_excess: np.ndarray, labels: list[str], describe: str) -> Outcome:
    """A tail bound on a grid: holds when log(probability/bound) ≤ 0 everywhere; the largest ratio and where."""
    worst, where = max_log_ratio(log_excess, np.zeros_like(log_excess), labels)
    return decided(worst <= 1, worst, 1.0, f"{describe}; largest ratio {worst:.6g} ({where}).")


def spot_check(exact_value: Callable, points: np.ndarray, log_values) -> None:
    """scipy's log-space tail against mpmath at a few points (a disagreement is a bug of ours)."""
    with mpmath.workdps(DIGITS):
        for point, value in zip(points, log_values):
            reference = float(mpmath.log(exact_value(mpmath.mpf(float(point)))))
            if abs(reference - value) > 1e-9 * max(1.0, abs(reference)):
                raise ArithmeticError(f"log tail at {point}: scipy {value} vs mpmath {reference}")
