"""The evidence of a pure (ε, 0)-DP claim on a pair whose privacy loss is bounded: the one driver of the Laplace,
geometric and randomized-response audits (:func:`pure_dp_evidence`), each of which brings only its mechanism, its
worst pair with its exact profile, its pDP claim and its claim table
(:func:`pdp_audit.verify.evidence.pure_dp_specs.pure_dp_specs`).

A pair here has ``loss_bound`` η, with |L(o)| ≤ η for every release o (each mechanism's module proves it): then
δ(ε) = 0 for every ε ≥ η, both ways (P_D(S) = ∫_S p_D ≤ e^η ∫_S p_D' for every event S).  The checks:

* ``dp-forward``, ``dp-reverse`` -- δ(ε) ≤ δ at the audited pair from plain hockey-stick tails of the exact losses
  (:func:`pdp_audit.verify.evidence.profile_checks.dp_check_with_profile`), with the pair's exact profile where
  known; a pass of δ = 0 rests on the exact δ(ε) = 0 together with an interval consistent with it (the suite's
  closed-form rule);
* ``loss-bound`` -- |L| ≤ ε on every draw of both worlds: the bound pure DP rests on;
* ``loss-consistency`` -- the privacy loss is the sampler's (likelihood-ratio identities), on the same draws;
* ``tail-curve`` -- the Monte Carlo δ̂(ε) agrees with the exact profile on a grid.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from pdp_audit.mechanisms.base import LOSS_RESOLUTION
from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.progress import planned, planning
from pdp_audit.verify.estimators.tails import both_directions
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws
from pdp_audit.verify.evidence.pair_validation import loss_consistency_check
from pdp_audit.verify.evidence.privacy_profile import bound_supported
from pdp_audit.verify.evidence.profile_checks import dp_check_with_profile, profile_draws, profile_grid

#: Relative allowance of ``loss-bound``'s draws over the claim: the loss is a sum of d differences of |·|, each
#: rounded to a few ulp.  Not a proven bound, and it cannot certify: a pass needs the pair's exact bound η ≤ ε in
#: rationals (:func:`loss_bound_check`); the allowance only decides when a draw contradicts that bound (a fail).
LOSS_BOUND_RTOL = 1e-9


@dataclass(frozen=True)
class Profile:
    """A pair's exact privacy profile δ(ε) and its inverse ε(δ), where known (None: only δ = 0 from the bound on);
    ``bound``: the proven bound η on the pair's |L| in rationals (None: none known), on which δ(ε) = 0 for ε ≥ η and
    ``loss-bound`` are decided exactly."""

    delta: Callable[[float], float] | None = None
    epsilon: Callable[[float], float] | None = None
    bound: Fraction | None = None


def bounded_profile(delta: Callable[[float], float], epsilon: Callable[[float], float], eta: Fraction) -> Profile:
    """``delta`` made exactly 0 from the exact loss bound ``eta`` on (ε ≥ η decided in rationals: |L| ≤ η gives
    δ(ε) = 0), and below it never 0: where the float formula gives 0 at an ε < η (η rounds to ε or below), the
    proven upper bound :func:`gap_bound` instead."""

    def exact(e: float) -> float:
        if Fraction(e) >= eta:
            return 0.0
        value = delta(e)
        return value if value > 0 else gap_bound(eta - Fraction(e))

    return Profile(exact, epsilon, eta)


def gap_bound(gap: Fraction) -> float:
    """An upper bound on δ(ε) of a pair whose loss is at most η, from the exact gap η − ε > 0: the loss is at most η
    under D, so δ(ε) = E_D[(1 − e^{ε − L})₊] ≤ 1 − e^{ε − η} ≤ η − ε, rounded up to a double."""
    return rounded_up(gap)


def rounded_up(value: Fraction) -> float:
    """The smallest double at least ``value``: a bound taken to a double on its safe side (an individual's pure ε
    stated from its exact η, so that the claim holds)."""
    near = float(value)
    return near if Fraction(near) >= value else math.nextafter(near, math.inf)


@dataclass(frozen=True)
class Budget:
    """What every check draws with: ``trials`` per world, the root ``seed``, the family-wise ``alpha``, the claimed
    ``delta`` and the executor the seeded blocks run on."""

    trials: int
    seed: int
    alpha: float
    delta: float
    executor: Executor | None = None

    @classmethod
    def of(cls, config, executor=None) -> Budget:
        return cls(config.trials, config.seed, config.alpha, config.delta, executor)


def sampled_losses(pair, budget: Budget, stream: str, progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The exact privacy losses of ``budget.trials`` releases of ``pair`` under D and under D' (seeded ``stream``)."""
    loss_d, loss_dp = (
        sample_privacy_loss(pair, world, budget.trials, budget.seed, stream, budget.executor, progress)
        for world in ("D", "D'")
    )
    return loss_d, loss_dp


def plan(budget: Budget, claims: Sequence[tuple[DpClaim, Any, Profile]]) -> None:
    """Tell the whole audit's progress bar (:func:`pdp_audit.verify.estimators.progress.planned`), before any draw,
    the draws of the DP checks ``claims`` -- (the claim, its pair, the pair's profile) of each: ``trials`` per world
    for each pair, whose losses every check at it shares, and what each check's profile adds
    (:func:`~pdp_audit.verify.evidence.profile_checks.profile_draws`).  Nothing where no bar is shown."""
    if not planning():
        return
    pairs = {id(pair) for _, pair, _ in claims}
    extra = sum(profile_draws(claim, pair, budget.trials, profile.epsilon) for claim, pair, profile in claims)
    planned(2 * budget.trials * len(pairs) + extra)


def claims_at(specs: PureSpecs, pair, epsilon: float, budget: Budget, profile: Profile) -> list:
    """The DP claims :func:`pure_dp_checks` checks at ``pair``, as :func:`plan` takes them."""
    return [
        (DpClaim(specs.forward, "D||D'", epsilon, budget.delta), pair, profile),
        (DpClaim(specs.reverse, "D'||D", epsilon, budget.delta), pair, profile),
    ]


def dp_check(spec: CheckSpec, pair, losses, direction: str, epsilon: float, budget: Budget, profile: Profile):
    """δ_{direction}(ε) ≤ δ at ``pair`` from its plain tails, with its privacy profile (module notes)."""
    check = dp_check_with_profile(
        DpClaim(spec, direction, epsilon, budget.delta),
        pair,
        losses,
        Draws(budget.trials, budget.seed, budget.alpha, budget.executor),
        exact_delta=profile.delta,
        exact_epsilon=profile.epsilon,
    )
    eta = profile.bound
    if profile.delta is None and eta is not None and Fraction(epsilon) >= eta:  # δ(ε) = 0 from the bound, in rationals
        check = with_exact_zero(check, budget.delta)
    return check


def with_exact_zero(check: Evidence, delta: float) -> Evidence:
    """``check`` resting, like a pair with a known profile, on the exact δ(ε) = 0 of a bounded loss (ε ≥ η): a pass
    needs the interval consistent with it (:func:`pdp_audit.verify.evidence.privacy_profile.bound_supported`)."""
    return replace(check, exact=0.0, supports=lambda ci, alpha: bound_supported(ci, delta, 0.0))


def loss_bound_check(spec: CheckSpec, loss_d: np.ndarray, loss_dp: np.ndarray, epsilon: float, pair, eta):
    """|L(o)| ≤ ε for every release: the bound pure DP rests on (attained where the loss has atoms at ±η).

    Decided exactly on the pair's proven bound: every release has |L| ≤ η (each mechanism's module proves it), so
    the claim holds where η ≤ ε in rationals (``eta``, :attr:`Profile.bound`) and fails where η > ε (the atoms at η have
    positive mass).  The draws test that proof against the sampler: their losses arrive rounded to the resolution
    R = 2^-32 (:func:`pdp_audit.mechanisms.base.at_loss_resolution`), and one above ε(1 + :data:`LOSS_BOUND_RTOL`)
    + R/2 contradicts it (a fail); within that they are consistent, and the verdict is η's.  *Sound for*: a pair
    whose ``eta`` is the bound its module proves; a pair without one is decided by its draws alone."""
    largest = float(max(np.max(np.abs(loss_d)), np.max(np.abs(loss_dp))))
    relative = epsilon * (1 + LOSS_BOUND_RTOL)
    drawn = largest <= relative + LOSS_RESOLUTION / 2
    proven = eta is None or eta <= Fraction(epsilon)
    rounding = " and half the loss resolution 2^-32" if relative < largest <= relative + LOSS_RESOLUTION / 2 else ""
    exact = (
        ""
        if eta is None
        else f"; exact η {'≤' if proven else '>'} ε in rationals (η − ε = {float(eta - Fraction(epsilon)):.3g})"
    )
    return builders.exact_check(
        spec,
        holds=drawn and proven,
        estimate=largest,
        note=f"Largest |L| over {loss_d.size + loss_dp.size:,} releases of both worlds: {largest:.6g} "
        f"(claimed ε = {epsilon:g}, draws allowed relative {LOSS_BOUND_RTOL:g}{rounding}){exact}.",
        largest_loss=largest,
        loss_bound=pair.loss_bound,
    )


@dataclass(frozen=True)
class PureSpecs:
    """The filled specs of the claim's checks at the worst pair."""

    forward: CheckSpec
    reverse: CheckSpec
    loss_bound: CheckSpec
    tail_curve: CheckSpec


def pure_dp_checks(
    specs: PureSpecs, pair, epsilon: float, budget: Budget, profile: Profile, progress: bool = False
) -> list[Evidence]:
    """``dp-forward``, ``dp-reverse``, ``loss-bound``, ``loss-consistency`` and ``tail-curve`` at the worst ``pair``
    (its exact ``profile`` is the same in both directions), from one set of draws (stream ``dp-pair``)."""
    loss_d, loss_dp = sampled_losses(pair, budget, "dp-pair", progress)
    grid = profile_grid(epsilon, max(budget.delta, 1e-12), profile.epsilon)
    exact = profile.delta
    assert exact is not None  # the worst pair of a pure-DP audit has its Δ_z on one or two coordinates: known
    curve = np.array([exact(e) for e in grid])
    losses = (loss_d, loss_dp)
    return [
        dp_check(specs.forward, pair, losses, "D||D'", epsilon, budget, profile),
        dp_check(specs.reverse, pair, losses, "D'||D", epsilon, budget, profile),
        loss_bound_check(specs.loss_bound, loss_d, loss_dp, epsilon, pair, profile.bound),
        loss_consistency_check(loss_d, loss_dp, guards=specs.forward),
        builders.tail_curve_check(
            specs.tail_curve,
            both_directions(loss_d, loss_dp, grid, budget.alpha),
            {"D||D'": curve, "D'||D": curve},
            epsilon,
            budget.delta,
        ),
    ]


def with_individual(
    specs: PureSpecs,
    pair,
    epsilon: float,
    budget: Budget,
    profile: Profile,
    individual: tuple,
    stream: str,
    progress: bool = False,
) -> list[Evidence]:
    """:func:`pure_dp_checks` at the worst ``pair`` and the pure pDP claim of one individual (``individual``: its
    claim, pair and profile; audited like DP from its own draws, stream ``stream``), their draws planned first on the
    whole audit's bar (:func:`plan`)."""
    plan(budget, [*claims_at(specs, pair, epsilon, budget, profile), individual])
    claim, own_pair, own_profile = individual
    checks = pure_dp_checks(specs, pair, epsilon, budget, profile, progress)
    own_losses = sampled_losses(own_pair, budget, stream)
    return [*checks, dp_check(claim.spec, own_pair, own_losses, "D||D'", claim.epsilon, budget, own_profile)]


@dataclass(frozen=True)
class PureAudit:
    """What one pure-DP audit brings to :func:`pure_dp_evidence`: its claim table ``checks``
    (:func:`pdp_audit.verify.evidence.pure_dp_specs.pure_dp_specs` and its pDP check), its worst ``pair`` with that
    pair's exact ``profile``, ``individual`` (the pDP claim of one individual, its pair and profile, for the audit's
    budget) and the seed stream of that individual's draws; ``loss_bound``: its own filled ``loss-bound`` where its
    words differ from the table's."""

    checks: Mapping[str, CheckSpec]
    pair: Any
    profile: Profile
    individual: Callable[[Budget], tuple[DpClaim, Any, Profile]]
    stream: str
    loss_bound: CheckSpec | None = None


def pure_dp_evidence(
    audit: PureAudit, config: Any, executor: Executor | None = None, progress: bool = False
) -> list[Evidence]:
    """The evidence of ``audit``'s checks, not yet decided: its claim table filled with ``config``'s claim (ε, δ)
    and its worst pair's bound η, decided at that pair (:func:`pure_dp_checks`) and at its individual's pair
    (:func:`with_individual`), all with ``config``'s trials, seed and α."""
    eps, delta, pair = config.epsilon, config.delta, audit.pair
    specs = PureSpecs(
        audit.checks["dp-forward"].fill(eps=eps, delta=delta),
        audit.checks["dp-reverse"].fill(eps=eps, delta=delta),
        audit.loss_bound or audit.checks["loss-bound"].fill(eps=eps, eta=pair.loss_bound),
        audit.checks["tail-curve"].fill(),
    )
    budget = Budget.of(config, executor)
    individual = audit.individual(budget)
    return with_individual(specs, pair, eps, budget, audit.profile, individual, audit.stream, progress)
