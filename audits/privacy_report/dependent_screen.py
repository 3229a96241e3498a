"""The screen of Algorithm 2's data-dependent report ([RW] §3.3), in few passes over the (repetition, user) arrays.

:mod:`pdp_audit.audits.privacy_report.screening` decides every user's events from certified intervals; for the
data-dependent report every interval is μ₀(x) = xᵀH₀⁻¹x times a factor of the repetition: μ ∈ μ₀·[k₋, k₊] with
k₋ = (1 − SLACK)/(1 + r), k₊ = (1 + SLACK)/(1 − r) (:func:`~.screening.leverage_interval`), μ̂ ∈ μ·[h₋, h₊] with
h₋ = (1 − SLACK)/(1 + λ_max(P)), h₊ = (1 + SLACK)/(1 + λ_min(P)) (:func:`~.screening.relative_interval`).  ε₁'s
s(μ) = rest − log(1 − f''μ) and |log(1 − f''μ̄)| increase with μ, so the ends of each interval are the values at the
ends.  The terms are the report's, with the user's constant factors taken first (a reassociation: relative changes
~1e-16, far inside SLACK); the comparisons are :func:`~.screening.greater`'s, the same floating-point operations.

What is computed, and where (the same settled repetitions and pairs as computing every comparison everywhere):

* a repetition is settled for an event where some user *certainly* fails it, and its pairs are the users who
  *possibly* fail it in the repetitions not settled.  Events that settle nearly every repetition (Algorithm 2's
  per-user lower bound, Proposition 15's l1 report: with n users some user fails) have their "possibly" computed
  only in the repetitions they leave unsettled;
* events that nearly no user possibly fails (Proposition 15's uniform report) have their "certainly" computed only
  in the repetitions with a user who possibly fails them: certainly ⇒ possibly, as every interval has lo ≤ hi;
* the events that settle nearly every repetition look for a certain failure among the first :data:`HEAD` users
  first, and among the others only in the repetitions the head leaves unsettled; their bounds are formed only on the
  users compared.  An "any user fails" event: a repetition is settled where some user certainly fails, and the
  "certainly" of a (repetition, user) pair is an elementwise comparison of elementwise terms -- the same bits on
  any subset of the pairs -- so "some user of the head, or else some user of the rest" is "some user of all";
* the repetitions go :data:`TILE` at a time, so that the tile's arrays stay in the core's cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pdp_audit.audits.privacy_report import screening

#: Repetitions screened together: ~40 arrays of TILE × n doubles live at once (n = 1000: 256 kB each).
TILE = 32
#: Users searched first for a certain failure of the events that settle nearly every repetition (at n = 1000,
#: d = 50 a repetition has a median of 8 users who certainly fail Proposition 15's l1 report; the first 256 settle 88%).
HEAD = 256
#: The events of :func:`screen`, in the order of the general screen's result.
EVENTS = ("users_lower_fail", "prop15_uniform_lower_fail", "prop15_uniform_fail", "prop15_l1_fail")


@dataclass(frozen=True)
class Terms:
    """One chunk's per-(repetition, user) inputs of the screen, users of D only: f' (to its last places), f'', bᵀx,
    (J^P)ᵀx; the repetitions' factors of μ₀ (k₋, k₊; μ̄'s two ends, each 1.5·k·h), whether ḡ is the printed signed
    form, and the per-user constant factors (:meth:`PipelineTrials._user_scales`) with μ₀ itself (``"mu0"``) and
    μ̄'s cap ``"cap"`` (None: no minimum with ‖x‖²/λ)."""

    f1: np.ndarray
    f2: np.ndarray
    xb: np.ndarray
    xj: np.ndarray
    k: tuple[np.ndarray, np.ndarray]
    bar_factors: tuple[np.ndarray, np.ndarray]
    signed: bool
    scales: dict[str, np.ndarray | None]
    s2: float  # σ²


def screen(terms: Terms) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
    """Per event of :data:`EVENTS`: (settled repetitions, (repetition, user) pairs left), as
    :func:`~.screening.settle` of :func:`~.screening.greater`'s decisions; None where some μ̄ bound is void
    (f''μ̄ ≥ 1: the general screen decides)."""
    c, n = terms.f1.shape
    settled = {name: np.zeros(c, bool) for name in EVENTS}
    pairs = {name: np.zeros((c, n), bool) for name in EVENTS}
    for lo in range(0, c, TILE):
        rows = slice(lo, min(c, lo + TILE))
        if not _tile(terms, rows, settled, pairs):
            return None
    return {name: (settled[name], pairs[name]) for name in EVENTS}


def _tile(terms: Terms, rows: slice, settled: dict, pairs: dict) -> bool:
    """:func:`screen` of the repetitions ``rows`` into ``settled`` and ``pairs``; False where a μ̄ bound is void."""
    s2, c = terms.s2, terms.scales
    f1, f2, xb, xj = terms.f1[rows], terms.f2[rows], terms.xb[rows], terms.xj[rows]
    af1 = np.abs(f1)
    t2 = f1 * f1
    t2 *= c["t2"]
    a0 = f2 * c["mu0"]  # f''μ₀
    rest = f1 * xb
    rest /= s2
    rest += t2
    s_lo = rest - np.log1p(a0 * -terms.k[0][rows, None])
    s_hi = rest - np.log1p(a0 * -terms.k[1][rows, None])
    eps = screening.Interval(np.maximum(np.maximum(s_lo, -s_hi), 0.0), np.maximum(-s_lo, s_hi))
    # |log(1 − f''μ̄)| at μ̄ = (3/2)μ̂ (capped by ‖x‖²/λ): the logs of 1 − a at the ends a of f''μ̄
    ends = []
    cap = None if c["cap"] is None else f2 * c["cap"]
    for factor in terms.bar_factors:
        a = a0 * factor[rows, None]
        if cap is not None:
            np.minimum(a, cap, out=a)
        ends.append(a)
    if not np.all(ends[1] < 1):  # some bound is void (+∞)
        return False
    log_bar = screening.Interval(*(-np.log1p(-a) for a in ends))
    fx = f1 * xj
    base = fx if terms.signed else np.abs(fx)
    gbar_u = np.minimum(base + af1 * c["uniform"], af1 * c["uniform_independent"])
    if terms.signed:
        gbar_u = np.abs(gbar_u)
    bar_u = log_bar.shifted(t2 + gbar_u / s2)
    add15 = af1 * c["add15"]
    _mostly_open("prop15_uniform_lower_fail", [(eps, bar_u)], rows, settled, pairs)
    _mostly_open("prop15_uniform_fail", [(eps, bar_u), (bar_u, eps.scaled(12.0, add15))], rows, settled, pairs)

    def lower(at: _At) -> Comparisons:  # Algorithm 2's per-user report against ε₁, on the pairs ``at``
        f = at(af1)
        gbar = np.minimum(at(base) + f * at.user(c["dependent"]), f * at.user(c["independent"]))
        if terms.signed:
            gbar = np.abs(gbar)
        return [(at.interval(eps), at.interval(log_bar).shifted(at(t2) + gbar / s2))]

    def l1_report(at: _At) -> Comparisons:  # Proposition 15's l1 report: below ε₁, or above 12ε₁ + its third term
        l1 = at(af1) * at.user(c["l1"])
        e, bar_l1 = at.interval(eps), at.interval(log_bar).shifted(at(t2) + l1)
        return [(e, bar_l1), (bar_l1, e.scaled(12.0, l1))]

    _mostly_settled("users_lower_fail", lower, rows, settled, pairs)
    _mostly_settled("prop15_l1_fail", l1_report, rows, settled, pairs)
    return True


class _At:
    """The (repetition, user) pairs ``reps`` × ``users`` of a tile's arrays (``reps`` a slice or indices), copied
    contiguous: numpy's passes over a view of 256 of 1,000 columns cost ~3× per element those over a copy."""

    def __init__(self, reps, users: slice):
        self.reps, self.users = reps, users

    def __call__(self, a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a[self.reps, self.users])

    def user(self, a: Any) -> np.ndarray:
        """A per-user array (n,) at these users (a scale of :attr:`Terms.scales`)."""
        return a[self.users]

    def interval(self, i: screening.Interval) -> screening.Interval:
        return screening.Interval(self(i.lo), self(i.hi))


Comparisons = list[tuple[screening.Interval, screening.Interval]]


def _certain(comparisons: Comparisons, which) -> np.ndarray:
    """Whether a > b certainly for some (a, b) of ``comparisons`` (:func:`~.screening.greater`), at ``which``."""
    hits = [a.lo[which] > b.hi_widened[which] for a, b in comparisons]
    for hit in hits[1:]:
        hits[0] |= hit
    return hits[0]


def _possible(comparisons: Comparisons, which) -> np.ndarray:
    """Whether a > b possibly for some (a, b) of ``comparisons`` (:func:`~.screening.greater`), at ``which``."""
    hits = [~(a.hi_widened[which] < b.lo[which]) for a, b in comparisons]
    for hit in hits[1:]:
        hits[0] |= hit
    return hits[0]


def _mostly_settled(name: str, build, rows: slice, settled: dict, pairs: dict) -> None:
    """An event some user certainly fails in nearly every repetition, its comparisons ``build(at)`` on the pairs
    ``at``: "certainly" among the first :data:`HEAD` users, among the others only in the repetitions the head leaves
    unsettled (the same settled repetitions: see the module's docstring), "possibly" only where none certainly does."""
    done = np.asarray(_certain(build(_At(slice(None), slice(0, HEAD))), slice(None)).any(axis=1))
    rest = np.flatnonzero(~done)
    if rest.size:
        done[rest] = _certain(build(_At(rest, slice(HEAD, None))), slice(None)).any(axis=1)
    settled[name][rows] = done
    left = np.flatnonzero(~done)
    if left.size:
        pairs[name][rows][left] = _possible(build(_At(left, slice(None))), slice(None))


def _mostly_open(name: str, comparisons: Comparisons, rows: slice, settled: dict, pairs: dict) -> None:
    """An event nearly no user possibly fails: "certainly" only in the repetitions where some user possibly does."""
    possible = _possible(comparisons, slice(None))
    some = np.flatnonzero(possible.any(axis=1))
    if some.size:
        done = _certain(comparisons, some).any(axis=1)
        settled[name][rows][some] = done
        possible[some[done]] = False
    pairs[name][rows] = possible
