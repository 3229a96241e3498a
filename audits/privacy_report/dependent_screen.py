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
  *possibly* fail it in the repetitions not settled.  The "certainly" and "possibly" of a (repetition, user) pair are
  elementwise comparisons of elementwise terms -- the same bits on any subset of the pairs -- so they may be formed
  on any pairs that contain the deciding ones;
* events that settle nearly every repetition (Algorithm 2's per-user lower bound, Proposition 15's l1 report: with n
  users some user fails) are tried first on one user a repetition, the likeliest to fail certainly by a score without
  the logs (:func:`_candidates`), and on every user only in the repetitions that user leaves unsettled ("possibly"
  only there too);
* events that nearly no user possibly fails (Proposition 15's uniform report) have "possibly" decided on every pair
  with the logs bounded per repetition (:meth:`_Tile.cheap`: wider intervals, never more certain), and the exact
  intervals, "certainly" included (certainly ⇒ possibly: every interval has lo ≤ hi), only on the pairs these leave
  possible;
* the repetitions go :data:`TILE` at a time, so that the tile's arrays stay in the core's cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pdp_audit.audits.privacy_report import screening

#: Repetitions screened together: ~40 arrays of TILE × n doubles live at once (n = 1000: 256 kB each).
TILE = 32
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
    tile = _Tile(terms, rows)
    if tile.bounds is None:  # some bound is void (+∞)
        return False
    everyone = tile.cheap(_At(slice(None), slice(None)))
    _uniform_events(tile, everyone, settled, pairs)
    _mostly_settled(tile, everyone, settled, pairs)
    return True


#: Relative widening of the per-repetition bounds of the logs (:attr:`_Tile.bounds`): numpy's log1p is not correctly
#: rounded (a few units in the last place), so a larger argument may give a log smaller in its last place.
LOG_MARGIN = 1e-12
#: The lower end of the logs' bounds (:meth:`_Tile.cheap`), told apart by identity (:meth:`_Values.bar`).
_ZERO = np.zeros((1, 1))


class _Tile:
    """One tile's repetitions: its rows of the (repetition, user) inputs, and the values compared at a selection of
    its pairs, with the logs exact (:meth:`precise`: the intervals of the module's docstring) or bounded per
    repetition (:meth:`cheap`).

    The bounds: the logs increase with their arguments, so a repetition's largest f''μ₀·k₊ bounds ε₁'s
    ℓ = −log(1 − f''μ) ∈ [0, ℓ₊], and its largest f''μ̄ bounds |log(1 − f''μ̄)| ∈ [0, L₊] (:attr:`bounds`).  With
    rest = f'²‖x‖²/(2σ²) + f'bᵀx/σ² and u = rest + ℓ₊, ε₁'s interval [max(rest + ℓ₋, −(rest + ℓ₊), 0),
    max(−(rest + ℓ₋), rest + ℓ₊)] lies in [max(rest, −u), max(−rest, u)], and each report's [log₋ + shift,
    log₊ + shift] in [shift, L₊ + shift].  Every further step of a comparison (:func:`~.screening.greater`: sums, the
    products by 12 and by 1 + SLACK, the comparison) is monotone in its operands also in floating point (rounding is
    monotone), so where the wider intervals decide a comparison the exact ones decide it the same way: "certainly"
    with the bounds implies "certainly", and "possibly" implies "possibly" with the bounds."""

    def __init__(self, terms: Terms, rows: slice):
        self.terms, self.rows = terms, rows
        self.f1, self.f2, self.xb, self.xj = terms.f1[rows], terms.f2[rows], terms.xb[rows], terms.xj[rows]
        self.k = tuple(k[rows] for k in terms.k)
        self.bar_factors = tuple(f[rows] for f in terms.bar_factors)
        self.bounds = self._bounds()

    def _bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per repetition (ℓ₊, L₊) as columns; None where some f''μ̄ bound is ≥ 1 (then void: the same test as the
        exact intervals', which is on the largest of these arguments)."""
        c = self.terms.scales
        self.a0 = a0 = self.f2 * c["mu0"]  # f''μ₀
        top = a0.max(axis=1)
        bar_top = top * self.bar_factors[1]
        if not np.all(bar_top < 1):  # the cap (≤ ‖x‖²/λ) may lower the largest f''μ̄ below 1: take it per pair
            ends = a0 * self.bar_factors[1][:, None]
            if c["cap"] is not None:
                np.minimum(ends, self.f2 * c["cap"], out=ends)
            bar_top = ends.max(axis=1)
            if not np.all(bar_top < 1):
                return None
        widen = 1 + LOG_MARGIN
        ell = -np.log1p(-(top * self.k[1])) * widen
        return ell[:, None], (-np.log1p(-bar_top) * widen)[:, None]

    def _common(self, at: _At) -> _Values:
        c, s2 = self.terms.scales, self.terms.s2
        f1 = at(self.f1)
        af1 = np.abs(f1)
        t2 = f1 * f1
        t2 *= at.user(c["t2"])
        rest = f1 * at(self.xb)
        rest /= s2
        rest += t2
        fx = f1 * at(self.xj)
        base = fx if self.terms.signed else np.abs(fx)
        return _Values(at, af1, t2, rest, base, self.terms)

    def cheap(self, at: _At) -> _Values:
        """The values at the pairs ``at``, the logs bounded per repetition (see the class's docstring)."""
        v = self._common(at)
        assert self.bounds is not None  # checked by the caller
        ell, bar_top = self.bounds
        u = v.rest + at.rep(ell)
        # the lower end unclamped at 0: lower still, so wider (one pass fewer)
        v.eps = screening.Interval(np.maximum(v.rest, -u), np.maximum(-v.rest, u))
        v.log_bar = screening.Interval(_ZERO, at.rep(bar_top))
        return v

    def precise(self, at: _At) -> _Values:
        """The values at the pairs ``at`` with the intervals of the module's docstring (elementwise: the same bits at
        any selection of pairs)."""
        c = self.terms.scales
        v = self._common(at)
        f2 = at(self.f2)
        a0 = f2 * at.user(c["mu0"])  # f''μ₀
        s_lo = v.rest - np.log1p(a0 * -at.rep(self.k[0]))
        s_hi = v.rest - np.log1p(a0 * -at.rep(self.k[1]))
        v.eps = screening.Interval(np.maximum(np.maximum(s_lo, -s_hi), 0.0), np.maximum(-s_lo, s_hi))
        # |log(1 − f''μ̄)| at μ̄ = (3/2)μ̂ (capped by ‖x‖²/λ): the logs of 1 − a at the ends a of f''μ̄
        ends = []
        cap = None if c["cap"] is None else f2 * at.user(c["cap"])
        for factor in self.bar_factors:
            a = a0 * at.rep(factor)
            if cap is not None:
                np.minimum(a, cap, out=a)
            ends.append(a)
        v.log_bar = screening.Interval(*(-np.log1p(-a) for a in ends))
        return v


class _Values:
    """The terms of the comparisons at a selection of pairs: |f'|, f'²‖x‖²/(2σ²), rest, f'(J^P)ᵀx (or its size),
    and ε₁'s and |log(1 − f''μ̄)|'s intervals (set by :class:`_Tile`)."""

    eps: screening.Interval
    log_bar: screening.Interval

    def __init__(self, at: _At, af1, t2, rest, base, terms: Terms):
        self.at, self.af1, self.t2, self.rest, self.base, self.terms = at, af1, t2, rest, base, terms

    def bar(self, shift: np.ndarray) -> screening.Interval:
        """A report: |log(1 − f''μ̄)| + ``shift`` (a lower end 0 + shift is shift: the same bits, one pass fewer)."""
        if self.log_bar.lo is _ZERO:
            return screening.Interval(shift, self.log_bar.hi + shift)
        return self.log_bar.shifted(shift)

    def scale(self, name: str) -> np.ndarray:
        """A per-user scale of :attr:`Terms.scales` at these pairs."""
        return self.at.user(self.terms.scales[name])

    def gbar(self, dependent: str, independent: str) -> np.ndarray:
        """ḡ: the data-dependent bound beside the data-independent one (the printed reading: signed, then its size)."""
        g = np.minimum(self.base + self.af1 * self.scale(dependent), self.af1 * self.scale(independent))
        return np.abs(g) if self.terms.signed else g


def _lower(v: _Values) -> Comparisons:
    """Algorithm 2's per-user report against ε₁."""
    return [(v.eps, v.bar(v.t2 + v.gbar("dependent", "independent") / v.terms.s2))]


def _l1_report(v: _Values) -> Comparisons:
    """Proposition 15's l1 report: below ε₁, or above 12ε₁ + its third term."""
    l1 = v.af1 * v.scale("l1")
    bar_l1 = v.bar(v.t2 + l1)
    return [(v.eps, bar_l1), (bar_l1, v.eps.scaled(12.0, l1))]


def _uniform(v: _Values) -> tuple[Comparisons, Comparisons]:
    """Proposition 15's uniform report (union-bound quantile): its comparison below ε₁ (the event
    ``prop15_uniform_lower_fail``), and above 12ε₁ + its additive term (with the first, ``prop15_uniform_fail``)."""
    bar_u = v.bar(v.t2 + v.gbar("uniform", "uniform_independent") / v.terms.s2)
    return [(v.eps, bar_u)], [(bar_u, v.eps.scaled(12.0, v.af1 * v.scale("add15")))]


class _At:
    """The (repetition, user) pairs ``reps`` × ``users`` of a tile's arrays (``reps`` a slice or indices), copied
    contiguous: numpy's passes over a view of 256 of 1,000 columns cost ~3× per element those over a copy."""

    def __init__(self, reps, users: slice | np.ndarray):
        self.reps, self.users = reps, users
        self.whole = isinstance(reps, slice) and reps == slice(None) and users == slice(None)

    def __call__(self, a: np.ndarray) -> np.ndarray:
        return a if self.whole else np.ascontiguousarray(a[self.reps, self.users])

    def user(self, a: Any) -> np.ndarray:
        """A per-user array (n,) at these users."""
        return a[self.users]

    def rep(self, a: np.ndarray) -> np.ndarray:
        """A per-repetition array of the tile (T,) or (T, 1), as a column at these repetitions."""
        return a.reshape(-1, 1)[self.reps]


class _Pairs(_At):
    """The pairs (``reps[i]``, ``users[i]``) of a tile's arrays, one-dimensional."""

    def __call__(self, a: np.ndarray) -> np.ndarray:
        return a[self.reps, self.users]

    def rep(self, a: np.ndarray) -> np.ndarray:
        return a.reshape(-1)[self.reps]


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


#: The events some user certainly fails in nearly every repetition, and their comparisons.
SETTLED_EVENTS = {"users_lower_fail": _lower, "prop15_l1_fail": _l1_report}


def _candidates(tile: _Tile, everyone: _Values) -> dict[str, np.ndarray]:
    """Per event of :data:`SETTLED_EVENTS`, the user of each repetition likeliest to fail it certainly, by a score
    without the logs (any choice decides the same; this one settles ~97% and ~100% of the repetitions at n = 1000,
    d = 50): Algorithm 2's report fails where ε₁ exceeds it, so the largest rest − f'²‖x‖²/(2σ²) − ḡ/σ²; the l1 report
    where ε₁ is far below it -- ε₁ = |rest + ℓ| near 0 -- so the smallest |rest + f''μ₀k₋|."""
    lower = everyone.rest - everyone.t2 - everyone.gbar("dependent", "independent") / tile.terms.s2
    l1 = np.abs(everyone.rest + tile.a0 * tile.k[0][:, None])
    return {"users_lower_fail": lower.argmax(axis=1), "prop15_l1_fail": l1.argmin(axis=1)}


def _mostly_settled(tile: _Tile, everyone: _Values, settled: dict, pairs: dict) -> None:
    """The events of :data:`SETTLED_EVENTS`: "certainly" at each repetition's candidate (:func:`_candidates`), with the
    exact intervals; in the repetitions it leaves unsettled, "certainly" and "possibly" at every user."""
    candidates = _candidates(tile, everyone)
    T = tile.f1.shape[0]
    reps = np.tile(np.arange(T), len(candidates))
    tried = tile.precise(_Pairs(reps, np.concatenate(list(candidates.values()))))
    for i, (name, build) in enumerate(SETTLED_EVENTS.items()):
        done = _certain(build(tried), slice(None))[i * T : (i + 1) * T]
        left = np.flatnonzero(~done)
        if left.size:
            comparisons = build(tile.precise(_At(left, slice(None))))
            certain = _certain(comparisons, slice(None)).any(axis=1)
            done[left] = certain
            pairs[name][tile.rows][left[~certain]] = _possible(comparisons, slice(None))[~certain]
        settled[name][tile.rows] = done


def _uniform_events(tile: _Tile, everyone: _Values, settled: dict, pairs: dict) -> None:
    """Proposition 15's uniform report, whose events nearly no user possibly fails: "possibly" with the logs bounded
    on every pair (``everyone``), then with the exact intervals, and "certainly", on the pairs these leave possible (a
    superset of those the exact intervals do: :class:`_Tile`)."""
    below, above = _uniform(everyone)
    reps, users = np.nonzero(_possible(below + above, slice(None)))
    if not reps.size:
        return
    below, above = _uniform(tile.precise(_Pairs(reps, users)))
    T = tile.f1.shape[0]
    for name, comparisons in {"prop15_uniform_lower_fail": below, "prop15_uniform_fail": below + above}.items():
        certain = np.bincount(reps[_certain(comparisons, slice(None))], minlength=T) > 0
        left = _possible(comparisons, slice(None)) & ~certain[reps]
        settled[name][tile.rows] = certain
        pairs[name][tile.rows][reps[left], users[left]] = True
