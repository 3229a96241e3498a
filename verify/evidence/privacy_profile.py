"""A DP check at one neighbouring pair that carries the pair's privacy profile δ(ε) around the claim.

A claim δ_{P‖Q}(ε) ≤ δ (P the world of the check's direction) is decided from the exact privacy losses
L = log p_D/p_D' of ``trials`` draws per world, by

* **plain Monte Carlo** where δ·n ≥ 30 expected exceedances resolve it, where the pair has no Gaussian noise-level
  view, or where its family does without importance sampling: the hockey-stick tails
  δ̂(ε) = P̂_P[L > ε] − e^ε P̂_Q[L > ε] with Clopper–Pearson intervals (:mod:`pdp_audit.verify.estimators.tails`);
* else **importance sampling** at the dominating point of {L > ε} in the whitened noise
  (:mod:`pdp_audit.verify.estimators.rare`): δ = E_μ[r(w)(1 − e^{ε−L})₊] with exact likelihood-ratio weights r and the
  empirical Bernstein interval of Maurer & Pontil 2009 (both ends certified where the loss is affine in the noise,
  the lower end only otherwise), ``trials`` draws on the stream ``rare/<check id>``.  A loss flat in the noise
  offers no shift: plain Monte Carlo then decides.

A closed form of the pair supports a pass only together with a consistent interval (the suite's rule): an **exact**
δ at the claimed ε must satisfy the claim and lie inside the interval
(:func:`pdp_audit.verify.evidence.builders.tail_claim_check`); an upper **bound** on δ must satisfy the claim and
not lie below the interval's lower end (:func:`bound_supported`).

The check's **privacy profile** (:class:`PrivacyProfile`) is δ(ε) of the pair on a grid of ε around the claim, the
claimed ε one of its points: the plain Monte Carlo δ̂(ε) of the same draws, importance-sampled points
(``figure_draws`` draws each, own seeded streams ``profile/<check id>/<i>``; at the claimed ε the verdict's own
draws when importance sampling decided) and the pair's known curve, exact or a bound, where there is one.  The
extra points never enter the verdict.  Every stream is seeded by the block engine, so the profile, like the
verdict, depends on the seed only, never on the number of workers.  :mod:`pdp_audit.verify.evidence.profile_figures`
draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from pdp_audit.verify.core.checks import FIGURES, Evidence
from pdp_audit.verify.estimators import rare
from pdp_audit.verify.estimators.tails import TailEstimate, hockey_stick
from pdp_audit.verify.evidence import builders
from pdp_audit.verify.evidence.dp_claim import DpClaim, Draws


@dataclass(frozen=True)
class ProfilePlan:
    """What a family knows of its pair and how much of the profile it wants sampled.

    ``grid``: the ε of the profile, the claimed ε among them.  ``curve``: the pair's known δ(ε) on the grid (exact
    or an upper bound; None: unknown).  ``exact`` / ``bound``: the exact δ, or an upper bound on it, at the claimed
    ε, on which a pass may rest (at most one of them).  ``figure_draws``: importance-sampled draws per grid point
    other than the claim's own (at most ``trials``; 0: none).  ``importance``: whether importance sampling may decide
    and draw at all (False: plain Monte Carlo only).  ``explain_fallback``: whether the note says so when the loss
    offered importance sampling no shift and plain tails decided instead.
    """

    grid: np.ndarray
    curve: np.ndarray | None = None
    exact: float | None = None
    bound: float | None = None
    figure_draws: int = 0
    importance: bool = True
    explain_fallback: bool = True


@dataclass(frozen=True)
class PrivacyProfile:
    """δ(ε) of one direction of a pair on the grid: plain Monte Carlo ``tails``, importance-sampled ``points``
    (grid index → :class:`pdp_audit.verify.estimators.rare.RareTail`, in grid order) and the known ``curve`` (None:
    unknown)."""

    claim: DpClaim
    grid: np.ndarray
    tails: TailEstimate
    curve: np.ndarray | None
    points: Mapping[int, rare.RareTail | None]  # None: a point no figure draws, so none was sampled
    importance_draws: int = 0  # draws of each point other than the verdict's own (0: no points were sought)

    @property
    def claim_index(self) -> int:
        """The claimed ε's place on the grid."""
        return claim_index(self.grid, self.claim.epsilon)

    @property
    def importance_epsilons(self) -> list[float]:
        """The ε of the importance-sampled points, in grid order."""
        return [float(self.grid[i]) for i in self.points]


def claim_index(grid: np.ndarray, epsilon: float) -> int:
    """The place of the claimed ``epsilon`` on ``grid`` (it must be a grid point)."""
    return int(np.flatnonzero(grid == float(epsilon))[0])


def direction_tails(
    losses: tuple[np.ndarray, np.ndarray], direction: str, grid: np.ndarray, alpha: float
) -> TailEstimate:
    """δ̂_{direction}(ε) on ``grid`` from the losses L sampled under D and under D': δ_{D‖D'} from L, δ_{D'‖D} from −L
    with the worlds' roles swapped."""
    loss_d, loss_dp = (np.asarray(v, float) for v in losses)
    if direction == "D||D'":
        return hockey_stick(loss_d, loss_dp, grid, alpha)
    if direction == "D'||D":
        return hockey_stick(-loss_dp, -loss_d, grid, alpha)
    raise ValueError(f"direction must be D||D' or D'||D, got {direction!r}")


def bound_supported(ci, delta_claim: float, bound: float | None) -> bool:
    """Pass rule with an upper bound on δ: the interval lies below the claim, or the bound satisfies the claim and the
    interval's lower end does not exceed the bound (the interval is consistent with it).  The bound satisfies the
    claim where it is at most δ_claim exactly, no tolerance: *sound for* a proven upper bound (rounded up where it
    was computed in floating point)."""
    if ci[1] <= delta_claim:
        return True
    return bound is not None and bound <= delta_claim and ci[0] <= bound


def dp_check_with_profile(
    claim: DpClaim, pair, losses: tuple[np.ndarray, np.ndarray], draws: Draws, plan: ProfilePlan
) -> tuple[Evidence, PrivacyProfile]:
    """The claim decided as in the module notes, and the pair's privacy profile around it.

    ``pair`` is what importance sampling draws from (the pair, or its noise-level view); ``losses`` are the exact
    privacy losses L = log p_D/p_D' of ``draws.trials`` draws of the pair under D and under D'.  The evidence's
    ``sampling`` says which estimate decided it; notes, details and figure are the family's.
    """
    tails = direction_tails(losses, claim.direction, plan.grid, draws.alpha)
    importance = plan.importance and rare.rare_capable(pair)
    tried = importance and not builders.plain_sampling_resolves(claim.delta, draws.trials)
    tail = _claim_tail(claim, pair, draws) if tried else None
    check = _decided(claim, tails, tail, plan)
    if tried and tail is None and plan.explain_fallback:
        check = check.noted(builders.no_shift_note(draws.trials))
    points = {} if tail is None else {claim_index(plan.grid, claim.epsilon): tail}  # the verdict's own draws
    profile = PrivacyProfile(claim, plan.grid, tails, plan.curve, points)
    if importance and plan.figure_draws > 0:
        profile = _with_figure_points(profile, pair, draws, min(int(draws.trials), plan.figure_draws))
    return check, profile


def planned_draws(claim: DpClaim, pair, trials: int, plan: ProfilePlan) -> int:
    """The draws :func:`dp_check_with_profile` takes beyond the ``trials`` losses per world it is given, decided as
    it decides them and before any draw: the claim's importance-sampled tail (``trials``) where plain sampling cannot
    resolve it and the loss has a dominating point, and ``figure_draws`` for every other grid point that has one where
    figures are drawn.  What a whole audit's progress bar plans
    (:func:`pdp_audit.verify.estimators.progress.planned`)."""
    if not (plan.importance and rare.rare_capable(pair)):
        return 0
    direction = claim.direction
    own = not builders.plain_sampling_resolves(claim.delta, trials)
    own = own and rare.has_dominating_point(pair, float(claim.epsilon), direction)
    drawn = int(trials) if own else 0
    if plan.figure_draws > 0 and FIGURES.get():
        skipped = claim_index(plan.grid, claim.epsilon) if own else None
        points = [int(i) for i in np.flatnonzero(plan.grid > 0) if i != skipped]
        shifted = sum(rare.has_dominating_point(pair, float(plan.grid[i]), direction) for i in points)
        drawn += min(int(trials), plan.figure_draws) * int(shifted)
    return drawn


def _claim_tail(claim: DpClaim, pair, draws: Draws) -> rare.RareTail | None:
    """Importance-sampled δ at the claimed ε (None where the loss offers no shift)."""
    return rare.try_rare_tail(
        pair, float(claim.epsilon), claim.direction, draws.trials, draws.seed, f"rare/{claim.spec.id}", draws.executor
    )


def _decided(claim: DpClaim, tails: TailEstimate, tail: rare.RareTail | None, plan: ProfilePlan) -> Evidence:
    """The claim's evidence: from the importance-sampled ``tail`` where there is one, else from the plain tails."""
    if tail is None:
        check = builders.tail_claim_check(claim.spec, tails, float(claim.epsilon), claim.delta, plan.exact)
    else:
        check = builders.rare_tail_claim_check(claim.spec, tail, claim.delta, plan.exact)
    if plan.bound is None:
        return check
    return replace(check, supports=lambda ci, alpha: bound_supported(ci, claim.delta, plan.bound))


def _with_figure_points(profile: PrivacyProfile, pair, draws: Draws, n: int) -> PrivacyProfile:
    """``profile`` with an importance-sampled point of ``n`` draws at every grid ε > 0 that has a dominating shift
    (the others are left out of the figure), the verdict's own point kept.  Where no figure is drawn
    (:func:`~pdp_audit.verify.core.checks.without_figures`) only whether each point exists is found (its ε goes into
    the check's details and note) and nothing is sampled: the point itself is None, read by no one."""
    points: dict[int, rare.RareTail | None] = dict(profile.points)
    drawn = FIGURES.get()
    for i in map(int, np.flatnonzero(profile.grid > 0)):
        if i not in points and not drawn:
            if rare.has_dominating_point(pair, float(profile.grid[i]), profile.claim.direction):
                points[i] = None
        elif i not in points:
            stream = f"profile/{profile.claim.spec.id}/{i}"
            point = rare.try_rare_tail(
                pair, float(profile.grid[i]), profile.claim.direction, n, draws.seed, stream, draws.executor
            )
            if point is not None:
                points[i] = point
    return replace(profile, points=dict(sorted(points.items())), importance_draws=n)
