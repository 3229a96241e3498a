"""The main pass of a user's pair drawn in looks, every guarantee re-read after each, and the run stopped as soon as it
is decided (issue 43): the budget ``trials`` becomes a maximum.

**Looks.**  The draws per world are taken in a schedule fixed before the first draw (:func:`looks`): n_1 =
:data:`FIRST_LOOK`, each look :data:`GROWTH` times the last below the first look that may pass; from it the fractions
:data:`PASS_LOOKS` of ``trials`` (1/5, 1/4, 1/3, 1/2, 3/4, the budget) -- K looks in all (12 for the default 1e5: 2,048
… 15,552, then 20,000, 25,000, 33,333, 50,000, 75,000, 100,000).  Look r draws its n_r − n_{r−1} releases of each world
from the streams ``plugin/{world}/look/{r}`` (block-seeded by their identity, so any workers give the same numbers), and
after it every check of the run is built from the n_r draws of each world as the fixed pass builds it from ``trials``,
the consistency test's pilot sized from a fixed share of the budget (:func:`piloted_as`): each look's evidence is a
valid fixed-n test at n_r.

**Why stopping at a look keeps α.**  Each look r spends a share w_r of the level, Σ_r w_r = 1 (:func:`look_shares`: half
at the last look, so that an audit that runs to its budget loses little against the fixed pass, and the other half
spread evenly over the earlier ones).  A check read at look r reports the p-value p_r / w_r and the interval the fixed
pass would report at level a·w_r (:func:`at_look`).  For any stopping time τ taking values among the looks -- one chosen
by reading the verdicts, the clock, anything --

    P(p_τ / w_τ ≤ a) ≤ Σ_r P(p_r ≤ a·w_r) ≤ Σ_r a·w_r = a,

and likewise the interval at τ holds the true value with probability ≥ 1 − a: the union bound over the looks (Bonferroni
over a fixed finite schedule of interim analyses; Jennison & Turnbull 2000, *Group Sequential Methods*, §1.3 and ch. 3:
a level spent in fixed shares over the planned looks).  The reports of every look together form a confidence sequence
over the schedule, so the run's checks, decided as one family by Holm at α
(:func:`pdp_audit.verify.core.checks.finalize`), keep their family-wise false-alarm probability α whenever the run
stops.  The price: at a look other than the last the level is a/(2(K − 1)), at the last a/2.  The broken alternative --
the fixed-n report re-read after every look at the full α -- raises the false alarms several-fold
(``tests/test_pair_early_stop.py`` shows both).

**Sharper bounds where a look reads them.**  A look reads the loss-scale band and the bounded mean of δ(ε) with
Hoeffding's relative-entropy bound (:class:`pdp_audit.verify.estimators.loss_scale_band.ScaleBand`, ``entropy``; each
still a fixed-n bound at the look's level): plain draws of a small δ bound it by about log(1/a)/n at best, and Maurer &
Pontil's empirical Bernstein bound adds 7·log(2/a)/(3n) of variance estimation, in the band's radius and in the mean's
upper bound alike -- at 33,333 draws of a plain Gaussian at twice the σ (1, 1e-3) needs its upper bound was 1.6e-3, not
under 1e-3 before 52,488 draws.  The fixed pass keeps Maurer & Pontil's bounds (its numbers byte for byte).  Measured
(``benchmarks/pair_early_stop.py --part width``, 2026-11-26, on the same 1e5 draws a world): the DP check's interval at
the last look 0.90–1.02× the fixed pass's, at an earlier look 1.02–1.09×.

**Stopping.**  After each look the run is decided at α (:func:`stopped`; a pass whose checks its run decides in a larger
family -- a certificate's individuals, a closed form -- at the level that family judges each check at,
:meth:`Stopping.level`): ``failed`` -- some check fails (a refutation at α is final: later draws cannot undo it);
``passed`` -- every check passes, at one of the looks :data:`PASS_LOOKS` (from :data:`PASS_FLOOR` of the budget on), and
the checks that guard the pair show no sign of a discrepancy the rest of the budget would likely refute
(:func:`pass_gate`); ``time-limit`` -- the run's deadline passed (``--time-limit``), and the checks report what the
draws so far support; ``budget`` -- the last look.

**The pass gate.**  ``loss-consistency`` and ``noise-view`` decide only by refuting: they "pass" wherever they have not
refuted yet, so a pass stopped at n_r draws has their power at n_r, not at the budget N -- a loss clipped at 2 under a
claim its sampler breaks ten-fold passed at the fifth of the budget where the fixed pass refutes it
(``tests/test_pair_early_stop.py``).  A discrepancy the fixed pass would refute at N shows at n_r as a test statistic of
about z_N·√(n_r/N), z_N the normal quantile of the last look's level; so a pass stops early only where each guarding
check's fixed-n p-value at n_r is at least g_r = Φ̄(z_N·√(n_r/N) − :data:`GATE_MARGIN`): a discrepancy refuted at N with
probability one half is then still drawn on with probability Φ(GATE_MARGIN) ≈ 0.994.  A guard whose statistic takes at
most m draws a world whatever the budget -- the noise view compares at most
:data:`~pdp_audit.verify.evidence.pair_checks.VIEW_SAMPLES` releases -- is gated by its own draws, min(n_r, m) of min(N,
m) (``capped`` of :func:`stopped`): at 20,000 of 1e5 the view has 40% of the fixed pass's 50,000, not 20%, and from
50,000 on it is the fixed pass's check (gated as if it had the pass's share, a correct Gaussian's view held 2 of 8
seeds' passes from 23,328 draws to 52,488).  The gate is part of the stopping rule only -- it decides when to stop,
never a verdict -- so the level argument above holds unchanged; a correct pair's p-values are super-uniform, and it is
drawn on past a look with probability at most g_r per guarding check (at α = 1e-6 and a 1e5 budget: 0.58 at 20,000
draws, 0.32 at 33,333, 0.13 at 50,000, 0.03 at 75,000; the noise view's 0.22 at 20,000, 0.04 at 33,333, 0.004 from
50,000).  Measured (2026-11-26, seeds 0–7, 1e5, α = 1e-6; ``benchmarks/pair_early_stop.py --part gaussian``): the
clipped loss refuted on 8 of 8 seeds (at 50,000 or 75,000 draws; without the gate seed 0 passes at 25,000); a correct
Gaussian at twice its σ passing on 8 of 8 -- with a noise view at (1, 1e-5) at 20,000 (7) or 33,333 (1), a plain one at
(1, 1e-3) at 25,000 (3) or 33,333 (5).  Before the schedule's fractions, the view's own gate and the relative-entropy
bounds: 23,328 (6 of 8) or 52,488 (2), and 52,488 for the plain one."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from statistics import NormalDist

from pdp_audit.verify.core.checks import Evidence, finalize

#: The first look's draws per world (a gross violation is refuted there) ...
FIRST_LOOK = 2048
#: ... and the growth of the looks: a run stopped at look r drew at most GROWTH times what it needed.
GROWTH = 1.5
#: The share of the level kept for the last look (the budget's end).
FINAL_SHARE = 0.5
#: A pass stops early only from the first look of at least this share of the budget; a fail stops at any look.  The
#: checks that guard the pair (``loss-consistency``, ``noise-view``) decide only by refuting: they pass wherever they
#: have not refuted yet, so a pass read at the first looks would cut their power to that of a few thousand draws (three
#: loss bugs of the mutant zoo passed at 15,552 of 1e5 draws; a fixed pass of 2e4 draws, the zoo's quick budget, fails
#: them).  From this share on, they are as strong as a fixed pass of that size.
PASS_FLOOR = 0.2
#: The looks from which a pass may stop, as fractions of the budget (numerator, denominator: exact in integers), the
#: first :data:`PASS_FLOOR`: fixed fractions, so that a pass stopped at the third drew at most a third of the budget
#: whatever the budget (the ×1.5 schedule from :data:`FIRST_LOOK` put its looks at 23,328 and 34,992 of 1e5, and a
#: pass that missed the first drew 35%), at most ×1.5 apart.
PASS_LOOKS = ((1, 5), (1, 4), (1, 3), (1, 2), (3, 4), (1, 1))
#: The statistical checks of one pass of a user's pair at most: ``loss-consistency``, ``noise-view`` and the two DP
#: checks (:mod:`pdp_audit.verify.evidence.pair_checks`; a certificate reads each of its passes against the family of
#: all of them: :attr:`Stopping.others`).
PASS_CHECKS = 4
#: The checks that guard the pair and decide only by refuting (module notes, "The pass gate") ...
GUARDS = ("loss-consistency", "noise-view")
#: ... and the margin, in standard deviations of their statistic, by which a pass's look must clear the gate.
GATE_MARGIN = 2.5
#: Why a run stopped.
STOPPED = ("passed", "failed", "budget", "time-limit")


@dataclass(frozen=True)
class Stopping:
    """How a sequential main pass stops: ``alpha``, the run's family-wise false-alarm probability at which its
    checks are decided after each look; ``deadline``, a :func:`time.monotonic` time after which no further look is
    drawn (None: none); ``early_stop``: stop once decided (False: only the deadline stops the pass early);
    ``others``: at most how many statistical checks beyond the pass's own its run decides in the same Holm family (a
    certificate's other passes -- its individuals' --, a closed form), which the pass is read against
    (:meth:`level`)."""

    alpha: float
    deadline: float | None = None
    early_stop: bool = True
    others: int = 0

    def level(self, own: int) -> float:
        """The family-wise level at which a pass of ``own`` statistical checks is read after a look, so that what it
        stops on is what the run's family of at most ``own + others`` decides: α·own/(own + others).  Holm's
        first threshold and the Bonferroni level of the intervals (:func:`pdp_audit.verify.core.checks.finalize`)
        are then α/(own + others), at most those the run's family judges each check at: a pass stopped ``passed``
        has every interval inside the claim at the family's level too, and one stopped ``failed`` has a p-value at
        most α/(own + others), which Holm over the family rejects whatever the other checks' (its first step).
        Read at α alone, a pass of 4 checks in a certificate of 4 individuals could stop ``passed`` with intervals
        that the certificate's α/20 then widens past the claim: a pass turned inconclusive."""
        return self.alpha if own == 0 else self.alpha * own / (own + self.others)

    @classmethod
    def of(cls, alpha: float, early_stop: bool, time_limit: float | None) -> Stopping | None:
        """The stopping of a run with these options (the clock starts now); None: the fixed pass."""
        if not early_stop and time_limit is None:
            return None
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        return cls(float(alpha), deadline, bool(early_stop))


def piloted_as(trials: int) -> int:
    """The draws per world whose fixed pass's pilot the consistency test of a pass in looks takes: those of
    :data:`PASS_FLOOR` of ``trials`` (sized from the whole budget, the pilot left a pass that stops early few draws
    past it), so that at the first look that may pass the test is that of a fixed pass of the same size."""
    return max(1, int(trials * PASS_FLOOR))


def pass_from(trials: int) -> int:
    """The draws per world from which a look may stop a pass: the first of :data:`PASS_LOOKS` of ``trials``."""
    numerator, denominator = PASS_LOOKS[0]
    return max(1, int(trials) * numerator // denominator)


def looks(trials: int) -> tuple[int, ...]:
    """The draws per world after each look (module notes): :data:`FIRST_LOOK`, then ×:data:`GROWTH` (rounded up)
    below the first look that may pass; from it, the fractions :data:`PASS_LOOKS` of ``trials`` (those of at least
    :data:`FIRST_LOOK` draws), the last ``trials``."""
    trials = int(trials)
    sizes: list[int] = []
    size = float(FIRST_LOOK)
    while math.ceil(size) < min(pass_from(trials), trials):
        sizes.append(math.ceil(size))
        size *= GROWTH
    for numerator, denominator in PASS_LOOKS:
        late = trials * numerator // denominator
        if late >= FIRST_LOOK and late > (sizes[-1] if sizes else 0) and late < trials:
            sizes.append(late)
    return (*sizes, trials)


def look_shares(count: int) -> tuple[float, ...]:
    """The level's share w_r of each of ``count`` looks: :data:`FINAL_SHARE` at the last and the rest evenly over the
    others (1 for a single look); they sum to 1."""
    if count == 1:
        return (1.0,)
    early = (1 - FINAL_SHARE) / (count - 1)
    return (*([early] * (count - 1)), FINAL_SHARE)


def at_look(evidence: Evidence, share: float) -> Evidence:
    """``evidence`` read at a look of level share ``share``: p-value p/w (at most 1), intervals, the budget hint and
    the witness of a fail at level a·w.  Exact evidence (no p-value) is unchanged."""
    if evidence.pvalue is None:
        return evidence
    interval, hint, failed = evidence.interval, evidence.budget_hint, evidence.failed
    return replace(
        evidence,
        pvalue=min(1.0, evidence.pvalue / share),
        interval=None if interval is None else (lambda a: interval(a * share)),
        budget_hint=_hint_at(hint, share) if hint is not None and evidence.hint_alpha else hint,
        failed=None if failed is None else (lambda a: at_look(failed(a * share), share)),
    )


def _hint_at(hint, share: float):
    return lambda ci, a: hint(ci, a * share)


def pass_gate(stop: Stopping, drawn: int, trials: int) -> float:
    """g_r (module notes, "The pass gate"): the fixed-n p-value each guarding check must reach at ``drawn`` of
    ``trials`` draws per world for a pass to stop there, z_N the normal quantile of the last look's level of one of
    :data:`PASS_CHECKS` checks read at :meth:`Stopping.level`.  ``statistics.NormalDist``: the standard normal."""
    unit = NormalDist()
    final = stop.level(PASS_CHECKS) / PASS_CHECKS * FINAL_SHARE
    return 1.0 - unit.cdf(unit.inv_cdf(1.0 - final) * math.sqrt(drawn / trials) - GATE_MARGIN)


def _suspected(checks: list[Evidence], stop: Stopping, drawn: int, trials: int, capped: dict[str, int]) -> bool:
    """Whether a guarding check's fixed-n p-value is under its gate: a discrepancy the budget's rest may refute.  A
    guard whose statistic takes at most ``capped[id]`` draws per world (the noise view's) is gated by its own draws,
    now and at the budget: past its cap the budget's rest adds nothing to it (module notes, "The pass gate")."""
    for check in checks:
        if check.id not in GUARDS or check.pvalue is None:
            continue
        cap = capped.get(check.id)
        own = (drawn, trials) if cap is None else (min(drawn, cap), min(trials, cap))
        if check.pvalue < pass_gate(stop, *own):
            return True
    return False


def stopped(
    checks: list[Evidence], share: float, stop: Stopping, drawn: int, trials: int, capped: dict[str, int] | None = None
) -> str | None:
    """Why the pass stops after a look of ``drawn`` draws per world (of at most ``trials``) and level share ``share``
    whose checks, as a fixed pass of ``drawn`` builds them, are ``checks`` (read :func:`at_look`), or None to draw the
    next look (module notes; a pass only from :func:`pass_from` on, through :func:`pass_gate`; ``capped``: the guards
    whose statistic takes at most so many draws per world, by id)."""
    evidence = [at_look(c, share) for c in checks]
    if stop.early_stop:
        # verdicts only: no figure, no budget hint (the hint of an inconclusive check costs most of a look's reading)
        bare = [replace(e, make_figure=None, budget_hint=None) for e in evidence]
        # read at the level the run's whole family judges each check at (Stopping.level; the pass's checks are all
        # guarantees: one role, one family)
        verdicts = {c.verdict for c in finalize(bare, stop.level(sum(e.statistical for e in evidence)))}
        if "fail" in verdicts:
            return "failed"
        may_pass = drawn >= pass_from(trials)
        if verdicts == {"pass"} and may_pass and not _suspected(checks, stop, drawn, trials, capped or {}):
            return "passed"
    if drawn >= trials:
        return "budget"
    if stop.deadline is not None and time.monotonic() > stop.deadline:
        return "time-limit"
    return None


def record(drawn: int, trials: int, look: int, count: int, why: str, share: float | None = None) -> dict:
    """``details["early_stop"]`` of each check of a sequential pass: the draws per world used, of at most ``trials``,
    the looks drawn of the schedule's, why it stopped and the level share of the look it stopped at (``share``
    where the looks spend no level: a confidence sequence's 1)."""
    return {
        "drawn_per_world": int(drawn),
        "max_per_world": int(trials),
        "looks": int(look),
        "of_looks": int(count),
        "stopped": why,
        "level_share": look_shares(count)[look - 1] if share is None else share,
    }


def stated(early_stop: bool, time_limit: float | None) -> dict:
    """A run's parameters (and a certificate's ``audit``) of a pass drawn in looks: ``early_stop`` and ``time_limit``
    where set, nothing for the fixed pass (whose records stay as they were)."""
    said: dict = {"early_stop": True} if early_stop else {}
    return said | ({"time_limit": float(time_limit)} if time_limit is not None else {})
