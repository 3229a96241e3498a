"""The DP claim of a user's pair, decided from every estimate of δ(ε) at once: the sampler is the truth.

A claim δ_{P‖Q}(ε) ≤ δ about a pair the user wrote is decided from up to three estimates of the same number, each
with one-sided confidence bounds valid on its own:

* **plain tails** of ``sample()``'s draws: δ̂ = P̂_P[L > ε] − e^ε P̂_Q[L > ε], Clopper–Pearson on each term
  (:mod:`pdp_audit.verify.estimators.tails`).  Its lower bound is valid for *any* function L (every event S gives
  P(S) − e^ε Q(S) ≤ δ), so no error in the loss can hide a violation it sees;
* **one bounded mean** of ``sample()``'s draws of the world P alone:

      δ_{P‖Q}(ε) = ∫ (p − e^ε q)₊ = E_P[(1 − e^{ε − L})₊],   each summand in [0, 1]

  (L = +∞, a release impossible under Q, counts 1), with the empirical Bernstein interval of Maurer & Pontil (2009,
  Thm 4).  A total leak is δ ≈ 1 at any ε, and a moderate violation is seen without the subtraction of two
  intervals that makes plain tails blind once e^ε is large.  It rests on L being the pair's privacy loss, which
  ``loss-consistency`` tests in the same family;
* **the atom at L = +∞** (releases impossible in the other world), where ``sample()`` drew any: δ ≥ P_P[L = +∞],
  decided by that count alone -- a one-sided Clopper–Pearson bound on c of n draws, with no e^ε·Q term to subtract
  and no variance to estimate, at α/(2k) of the check's α (below): a release revealing the world with probability
  1e-3 refutes δ = 1e-6 at p ≈ 1e-60 from 1e5 draws (zoo: ``geometric-count-reveals-input``);
* **importance sampling** through the pair's noise view, where δ is too small for plain draws
  (:mod:`pdp_audit.verify.estimators.rare` for Gaussian noise, :mod:`pdp_audit.verify.estimators.tilting` for Laplace
  and two-sided
  geometric noise): a proposal, never a replacement -- it tightens the interval only where it agrees with the two
  estimates of ``sample()``.

**Decision.**  With k estimates, the lower bound at level 1 − α is the largest of their lower bounds at 1 − α/k and
the upper bound the smallest of their upper bounds (Bonferroni: all k hold together with probability ≥ 1 − α).  The
claim fails when that lower bound exceeds δ (p-value ``p_claim`` by inversion); it also fails when the estimates
contradict each other -- the intersection of their intervals empty (``p_disagree``): then the noise view or the loss
is not the sampler's, and no estimate can be trusted.  The check's p-value is 2·min(p_claim, p_disagree) (valid for
both nulls together).  It passes when the upper bound is at most δ -- for a pure claim (δ = 0) too: sampling
alone never gives an upper bound of 0, so a pure claim passes only with a **bounded-loss proof**
(:func:`proof_estimate`: a Laplace or geometric translation view whose loss is verified to be the view's L1 loss on
every draw and bounded by ε, of a pair the suite built from that law), and is otherwise inconclusive at best, with
the (ε, δ̄) the draws do certify stated.  A user's pair whose view replays ``sample()`` gets the view's δ = 0 plus the
replay's rate (:func:`replayed_bound_estimate`): replay is evidence with a rate, not a proof.

**Budget hint.**  An inconclusive check names the budget its own estimates predict (:func:`budget_to_decide`):
each estimate recomputed at N draws with its point estimate held, the smallest N = n·1.25^j that decides.  Measured
by ``benchmarks/budget_hints.py``: right within a factor of 3 on every inconclusive case there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from pdp_audit.verify.core.checks import CheckSpec, Evidence
from pdp_audit.verify.estimators import rare
from pdp_audit.verify.estimators.loss_scale_band import ScaleBand
from pdp_audit.verify.estimators.stats import binomial_pvalue_exceeds, clopper_pearson, pvalue_by_inversion
from pdp_audit.verify.estimators.tails import TailEstimate, hockey_integrand

#: The largest budget a hint names: beyond it, "no feasible budget".
HINT_CAP = 1e12
#: Budgets a hint tries: the current one times 1.25^j.
HINT_STEP = 1.25
#: The name of the estimate from the draws impossible in the other world (:func:`atom_estimate`).
ATOM = "atom at L = +∞"
#: How a hint names a predicted fail by contradiction: the estimates' intervals would no longer meet.
CONTRADICTION = "the estimates' intervals would then no longer meet, a contradiction that fails the check"

Bound = Callable[[float], float]


class StreamedHockeyMean:
    """The bounded mean E_P[(1 − e^{ε − L})₊] of losses added block by block (memory of one block): blocks' counts,
    means and sums of squared deviations merged in order (Chan, Golub & LeVeque 1983)."""

    def __init__(self, epsilon: float):
        self.epsilon = float(epsilon)
        self.n, self.mean, self.m2 = 0, 0.0, 0.0
        self.infinite = 0  # draws with L = +∞: releases impossible in the other world

    def add(self, losses: np.ndarray) -> None:
        self.infinite += int(np.count_nonzero(np.asarray(losses) == np.inf))
        values = hockey_integrand(losses, self.epsilon)
        if values.size == 0:
            return
        nb, mb = values.size, float(values.mean())
        m2b = float(np.sum((values - mb) ** 2))
        total = self.n + nb
        gap = mb - self.mean
        self.mean += gap * nb / total
        self.m2 += m2b + gap * gap * self.n * nb / total
        self.n = total

    def result(self) -> rare.BoundedMean:
        return rare.BoundedMean(self.n, self.mean, self.m2 / max(self.n - 1, 1), 1.0)

    def estimates(self) -> list[DeltaEstimate]:
        """The bounded mean, and the atom at +∞ where there is one."""
        atom = atom_estimate(self.infinite, self.n)
        return [mean_estimate(self.result())] + ([atom] if atom is not None else [])


@dataclass(frozen=True)
class DeltaEstimate:
    """One estimate of δ(ε): its name, value, draws, and one-sided bounds ``lower(α)``/``upper(α)``, each valid at
    confidence 1 − α on its own."""

    name: str
    value: float
    n: int
    lower: Bound
    upper: Bound
    at_budget: Callable[[int], DeltaEstimate] | None = None  # the same estimate from N draws, if it stayed put


def plain_estimate(tails: TailEstimate, index: int = 0) -> DeltaEstimate:
    """The plain hockey-stick tails at grid point ``index``."""

    def at_budget(n: int) -> DeltaEstimate:
        scaled = replace(
            tails,
            count_p=np.round(tails.count_p * n / tails.n_p),
            count_q=np.round(tails.count_q * n / tails.n_q),
            n_p=int(n),
            n_q=int(n),
        )
        return plain_estimate(scaled, index)

    return DeltaEstimate(
        "plain tails",
        float(tails.estimate[index]),
        int(min(tails.n_p, tails.n_q)),
        lambda a: tails.lower_bound(index, a),
        lambda a: tails.upper_bound(index, a),
        at_budget,
    )


def atom_estimate(infinite: int, n: int) -> DeltaEstimate | None:
    """δ_{P‖Q}(ε) ≥ P_P[L = +∞] at every ε (the event has Q-probability 0): a Clopper–Pearson lower bound from the
    ``infinite`` of ``n`` draws, with no e^ε·Q term to subtract, so a rare branch that reveals the world fails the
    claim whatever else is sampled.  None without such draws: its lower bound would be 0, which can never be wrong,
    so it needs no share of α."""
    return None if infinite == 0 else _atom(infinite, n)


def _atom(infinite: int, n: int) -> DeltaEstimate:
    """:func:`atom_estimate` of ``infinite`` ≥ 1 draws."""

    def lower(a: float) -> float:
        return float(clopper_pearson(infinite, n, a, side="lower")[0])

    def at_budget(size: int) -> DeltaEstimate:
        return _atom(max(1, round(infinite * size / n)), int(size))

    return DeltaEstimate(ATOM, infinite / n, n, lower, lambda a: 1.0, at_budget)


def mean_estimate(mean: rare.BoundedMean) -> DeltaEstimate:
    """The bounded mean E_P[(1 − e^{ε − L})₊] with its empirical Bernstein bounds."""
    return DeltaEstimate(
        "bounded mean",
        mean.estimate,
        mean.n,
        mean.lower_bound,
        mean.upper_bound,
        lambda n: mean_estimate(replace(mean, n=int(n))),
    )


def importance_estimate(tail, revealing: tuple[int, int] = (0, 0), unseen: Bound | None = None) -> DeltaEstimate:
    """The importance-sampled δ through the noise view (:class:`pdp_audit.verify.estimators.rare.RareTail`, or
    :class:`pdp_audit.verify.estimators.tilting.TiltedTail`; upper bound +∞ unless its weight bound is certified).

    ``revealing``: (k, n), the draws of ``sample()`` with L = +∞ (releases impossible in the other world) among n.
    A view is a proposal for the finite part of the loss; where ``sample()`` drew such releases the view may not
    produce them, so its upper bound does not speak for them: δ = P[L = +∞] + E_P[(1 − e^{ε − L})₊ 1{L < ∞}], and the
    upper bound is the view's plus the Clopper–Pearson upper bound on P[L = +∞] (each at half the level).  Without
    such draws nothing is added: a branch rarer than about 1/n that both the view and the loss omit is unseen.

    ``unseen``: where the pair is not its view's law by construction, how much the view's law may miss the
    sampler's δ at confidence 1 − a (the replay's rate,
    :meth:`pdp_audit.verify.estimators.view_replay.Replay.unseen_delta`), added to the upper bound at half the
    level: replay is evidence with a rate, and its rate joins δ̄."""
    return _importance(tail.delta, tail.certified, revealing, unseen)


def _importance(
    mean: rare.BoundedMean, certified: bool, revealing: tuple[int, int] = (0, 0), unseen: Bound | None = None
) -> DeltaEstimate:
    upper = mean.upper_bound if certified else (lambda a: math.inf)
    count, draws = revealing
    if certified and count > 0:

        def upper(a: float) -> float:
            atom = float(clopper_pearson(count, draws, a / 2, side="upper")[1])
            return min(1.0, mean.upper_bound(a / 2) + atom)

    if certified and unseen is not None:
        viewed = upper

        def upper(a: float) -> float:
            return min(1.0, viewed(a / 2) + unseen(a / 2))

    def at_budget(n: int) -> DeltaEstimate:
        scaled = (max(1, round(count * n / draws)), int(n)) if count > 0 else (0, 0)
        return _importance(replace(mean, n=int(n)), certified, scaled, unseen)

    return DeltaEstimate("importance sampling", mean.estimate, mean.n, mean.lower_bound, upper, at_budget)


def proof_estimate(eta: float, n: int) -> DeltaEstimate:
    """δ(ε) = 0 by proof: the replayed view's law is (η, 0)-DP with η ≤ ε (its loss is bounded by η everywhere), so
    both bounds are 0; ``n``: the draws the structure was verified on.  Estimates of ``sample()`` that see δ > 0
    contradict it, and the check fails."""
    return DeltaEstimate(
        f"bounded-loss proof (sup L = {eta:.6g})",
        0.0,
        int(n),
        lambda a: 0.0,
        lambda a: 0.0,
        lambda size: proof_estimate(eta, size),
    )


#: How :func:`replayed_bound_estimate` is named (its name says the rows it rests on).
REPLAYED = "replayed bounded loss"


def replayed_bound_estimate(eta: float, epsilon: float, replayed) -> DeltaEstimate:
    """δ(ε) ≤ 0 + u_D + e^ε u_D' for a pair that replays a view whose law is (η, 0)-DP (η ≤ ε) without being that law
    by construction: the view's δ is 0, and the sampler may differ from it on a branch the replay's ``rows`` per
    world never saw, of probability at most the replay count's Clopper–Pearson upper bound in each world
    (:meth:`pdp_audit.verify.estimators.view_replay.Replay.unseen_delta`).  Replay is evidence with a rate: a pure
    claim about code the suite did not build is never proven by it, and the bound names the δ̄ it does certify."""
    rows = int(replayed.rows)
    return DeltaEstimate(
        f"{REPLAYED} (sup L = {eta:.6g}; a branch unseen in {rows:,} replayed rows per world)",
        0.0,
        rows,
        lambda a: 0.0,
        lambda a: replayed.unseen_delta(epsilon, a),
        lambda size: replayed_bound_estimate(eta, epsilon, replayed),  # the replay's rows do not grow with the budget
    )


def band_estimates(band: ScaleBand, direction: str) -> list[DeltaEstimate]:
    """The plain tails and the bounded mean of ``sample()``'s draws with their upper bounds taken over the band of
    loss scales the draws cannot refute (:mod:`pdp_audit.verify.estimators.loss_scale_band`): a loss of the wrong scale
    cannot
    lower them.  The tails' lower bound holds for any loss; the mean's is the claimed loss's own (module notes)."""
    return [_band_tails(band, direction), _band_mean(band, direction)]


def _band_tails(band: ScaleBand, direction: str) -> DeltaEstimate:
    tails = band.tails(direction)
    return DeltaEstimate(
        "plain tails",
        float(tails.estimate[0]),
        int(min(tails.n_p, tails.n_q)),
        lambda a: tails.lower_bound(0, a),
        lambda a: band.tails_upper(direction, a),
        lambda n: _band_tails(band.at_budget(n), direction),
    )


def _band_mean(band: ScaleBand, direction: str) -> DeltaEstimate:
    mean = band.mean(direction)
    return DeltaEstimate(
        "bounded mean",
        mean.estimate,
        mean.n,
        mean.lower_bound,
        lambda a: band.mean_upper(direction, a),
        lambda n: _band_mean(band.at_budget(n), direction),
    )


def _combined(estimates: list[DeltaEstimate]) -> tuple[Bound, Bound]:
    k = len(estimates)

    def lower(a: float) -> float:
        return max(e.lower(a / k) for e in estimates)

    def upper(a: float) -> float:
        return min(e.upper(a / k) for e in estimates)

    return lower, upper


def pair_claim_check(spec: CheckSpec, estimates: list[DeltaEstimate], epsilon: float, delta_claim: float) -> Evidence:
    """δ(ε) ≤ ``delta_claim`` at ``epsilon`` from ``estimates`` together (module notes)."""
    lower, upper = _combined(estimates)
    p_claim = pvalue_by_inversion(lower, float(delta_claim))
    p_disagree = pvalue_by_inversion(lambda a: lower(a / 2) - upper(a / 2), 0.0)
    # (no estimates at all failed already: the bounds above are a max and a min over them)
    best = next((e for e in estimates if e.name == "importance sampling"), estimates[-1])
    proven = any(e.name.startswith("bounded-loss proof") for e in estimates)

    def interval(alpha: float) -> tuple[float, float]:
        return lower(alpha / 2), upper(alpha / 2)

    def supports(ci, alpha) -> bool:
        return ci is not None and ci[1] <= delta_claim

    names = ", ".join(e.name for e in estimates)
    note = (
        f"Decided by {names} together ({len(estimates)} estimates of δ(ε), each at level 1 − α/{len(estimates)}; "
        "the interval is their intersection, and estimates that contradict each other fail the check)."
    )
    if delta_claim == 0 and proven:
        note += (
            " The pure claim rests on the bounded-loss proof: the view replays sample() exactly and its loss, "
            "verified on every draw, never exceeds ε (in real arithmetic; floating-point effects on the release, "
            "Mironov 2012, are outside it)."
        )
    elif delta_claim == 0 and any(e.name.startswith(REPLAYED) for e in estimates):
        note += (
            " The view replays sample() and its loss, verified on every draw, never exceeds ε, but the pair is not a "
            "mechanism the suite built from the declared law: the replay bounds a branch of sample() it never saw "
            "only by its count's upper confidence bound (u_D + e^ε u_D' joins δ̄), so a pure claim (δ = 0) is not "
            "decided by any budget of draws; the interval's upper end is the δ the draws certify."
        )
    elif delta_claim == 0:
        note += (
            " A pure claim (δ = 0) cannot be shown by sampling: it needs a Laplace or geometric noise view that "
            "replays sample() exactly with sup L ≤ ε; the draws certify only δ(ε) ≤ the interval's upper end."
        )
    atom = _atom_alone(estimates, delta_claim)
    if atom:
        note += (
            f" The atom at L = +∞ alone: {atom['count']:,} of {atom['draws']:,} draws are impossible in the other "
            f"world, so δ(ε) ≥ P[L = +∞]; its Clopper–Pearson lower bound tests the claim with α/{atom['split']} "
            f"of the check's α (half to the claim, half to the estimates' agreement, then {len(estimates)} "
            f"estimates): P[Bin(n, δ) ≥ {atom['count']:,}] = {atom['pvalue']:.3g} at the claimed δ."
        )
    return Evidence(
        spec=spec,
        estimate=best.value,
        pvalue=min(1.0, 2 * min(p_claim, p_disagree)),
        interval=interval,
        supports=supports,
        budget_hint=lambda ci, alpha: _hint(estimates, delta_claim, alpha, proven),
        hint_alpha=True,
        sampling="importance" if best.name == "importance sampling" else "plain",
        note=note,
        details={
            "epsilon": float(epsilon),
            "delta_claim": float(delta_claim),
            "estimates": {e.name: e.value for e in estimates},
            "draws": {e.name: e.n for e in estimates},
            "pvalue_claim": p_claim,
            "pvalue_disagreement": p_disagree,
            **({"atom": atom} if atom else {}),
        },
    )


def _atom_alone(estimates: list[DeltaEstimate], delta_claim: float) -> dict | None:
    """The atom at L = +∞ as a test of its own: its count c of n draws, the exact binomial p-value P[Bin(n, δ) ≥ c]
    of the claimed δ (the Clopper–Pearson lower bound at level 1 − a excludes δ exactly when that p-value is at most
    a), and its share of the check's α: 1/(2k) (the check's p-value is 2·min(p_claim, p_disagree), and the claim's
    side is Bonferroni over the k estimates).  None without such draws."""
    atom = next((e for e in estimates if e.name == ATOM), None)
    if atom is None:
        return None
    count = round(atom.value * atom.n)
    return {
        "count": count,
        "draws": atom.n,
        "pvalue": binomial_pvalue_exceeds(count, atom.n, float(delta_claim)),
        "split": 2 * len(estimates),
    }


def _hint(estimates: list[DeltaEstimate], delta_claim: float, alpha: float, proven: bool) -> str:
    """:func:`budget_to_decide`, except for a pure claim without its proof: no budget passes it, so none is named
    unless the estimates predict a fail."""
    hint = budget_to_decide(estimates, delta_claim, alpha)
    predicts_fail = "lie above" in hint or CONTRADICTION in hint
    # a pure claim: only sample()'s own draws seeing δ > 0 predict a fail (a view's bound of its law, ~1e-17 from
    # rounding, would "fail" it at 1e11 draws)
    seen = any(e.value > 0 for e in estimates if not e.name.startswith(("importance", "bounded-loss", REPLAYED)))
    if delta_claim == 0 and not proven and not (predicts_fail and seen):
        return (
            "No budget of draws can pass a pure claim (δ = 0) without a bounded-loss proof of a mechanism the suite "
            "built from its law; claim the (ε, δ) the draws certify."
        )
    return hint


def budget_to_decide(estimates: list[DeltaEstimate], delta_claim: float, alpha: float) -> str:
    """The budget an inconclusive claim needs, predicted from the estimates themselves: each is recomputed as if its
    point estimate (frequencies, mean and variance) stayed put at N draws per world -- Clopper–Pearson bounds of
    scaled counts shrink like 1/N where nothing was seen and like 1/√N elsewhere, empirical Bernstein bounds with
    both terms -- and the smallest N = n·1.25^j whose intersected interval at level 1 − α lies on one side of the
    claim, or whose estimates' intervals no longer meet (a fail by contradiction), is named
    (``benchmarks/budget_hints.py`` measures how right this is).  A pass is never predicted while an estimate's value
    exceeds the claim or the estimates would contradict each other: the interval must lie below the claim."""
    n = min(e.n for e in estimates)
    budgets = [e.at_budget for e in estimates if e.at_budget is not None]
    if len(budgets) < len(estimates) or n < 1:
        return ""
    size = float(n)
    above = any(e.value > delta_claim for e in estimates)
    while size < HINT_CAP:
        size *= HINT_STEP
        scaled = [at_budget(int(size * e.n / n)) for e, at_budget in zip(estimates, budgets)]
        lower, upper = _combined(scaled)
        low, high = lower(alpha / 2), upper(alpha / 2)
        # a pass needs the whole interval below the claim and every estimate with it: an estimate whose value
        # exceeds the claim (an atom at L = +∞ beside a loss that omits it) fails it at a large enough budget, and
        # estimates whose intervals stop meeting fail it by their contradiction (p_disagree ≤ α/2, as
        # pair_claim_check decides it) -- never predict a pass then
        if low > delta_claim:
            outcome = "the interval would then lie above the claimed δ"
        elif lower(alpha / 4) > upper(alpha / 4):
            outcome = CONTRADICTION
        elif high <= delta_claim and not above:
            outcome = "the interval would then lie below the claimed δ"
        else:
            continue
        return (
            f"About {size:.1e} samples per world (now {n:.1e}) would decide it, if the estimates stay where "
            f"they are ({outcome})."
        )
    return f"No budget up to {HINT_CAP:.0e} samples per world would decide it at the present estimates."
