"""How many fresh releases a black-box confirmation needs, from the exact law of the noise a release carries.

Where the witness pair's release carries one noise element additively (a release coordinate R = c + a·η with η
Laplace or Gaussian of scale b), the coordinate's law on D and on D′ is known in closed form: Laplace or Gaussian of
location m = R − a·η and scale |a|·b on D, and of m′ and |a′|·b′ on D′ (a scale taken from the data moves b).  An
event test (the black box's, DP-Sniper's: Bichsel et al. 2021) counts the releases of each world falling in an event
E; with N releases per world it can refute ε only where E's counts tell P(E) > e^ε Q(E).  Conditionally on the n
releases in E, those of D are binomial with share π = P(E)/(P(E) + Q(E)) against the largest share the claim allows,
π₀ = e^ε/(1 + e^ε); the p-value at the expected counts is about exp(−n·KL(π‖π₀)) (Chernoff's bound, tight to
polynomial factors), so a test at α needs about

    N ≈ log(1/α) / ((P(E) + Q(E)) · KL(π‖π₀))

releases per world, minimised over the likelihood-ratio events E = {x : log p(x)/q(x) ≥ t} of either direction (the
Neyman-Pearson events, the best of their size).  This counts only the fresh releases; the black box also learns its
statistic on releases of its own.  It is what the carried element alone needs: the release may reveal more, never
less, than this one coordinate.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pdp_audit.audits.program import probing

#: Points of the grid the two densities are read on, and its half-width in the larger scale.
GRID = 200_001
WIDTH = 60.0
#: Beyond this many releases the need is read as none: the grid's rounding, not a violation, would be all it found.
MOST = 1e15


def _log_density(law: str, x: np.ndarray, m: float, s: float) -> np.ndarray:
    if law == "laplace":
        return -np.abs(x - m) / s - math.log(2 * s)
    return -0.5 * ((x - m) / s) ** 2 - math.log(s * math.sqrt(2 * math.pi))


def _kl(pi: np.ndarray, pi0: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        a = np.where(pi > 0, pi * np.log(pi / pi0), 0.0)
        b = np.where(pi < 1, (1 - pi) * np.log((1 - pi) / (1 - pi0)), 0.0)
    return np.where(pi > pi0, a + b, 0.0)


def releases_needed(law: str, on_d: tuple[float, float], on_d_prime: tuple[float, float], epsilon: float,
                    alpha: float) -> float:  # fmt: skip
    """Fresh releases per world an event test at ``alpha`` needs to refute ``epsilon`` between one coordinate of
    law ``law`` (``laplace`` or ``gaussian``) of (location, scale) ``on_d`` on D and ``on_d_prime`` on D′ (module
    notes); ∞ where no event's likelihood ratio exceeds e^ε."""
    (m, s), (m2, s2) = on_d, on_d_prime
    if not (s > 0 and s2 > 0 and all(map(math.isfinite, (m, s, m2, s2)))):
        return math.nan
    wide = max(s, s2)
    x = np.linspace(min(m, m2) - WIDTH * wide, max(m, m2) + WIDTH * wide, GRID)
    dx = x[1] - x[0]
    lp, lq = _log_density(law, x, m, s), _log_density(law, x, m2, s2)
    best = math.inf
    pi0 = math.exp(epsilon) / (1 + math.exp(epsilon)) if epsilon < 700 else 1.0
    for first, second in ((lp, lq), (lq, lp)):
        order = np.argsort(second - first)  # the largest ratio first/second first
        mass_first = np.cumsum(np.exp(first[order]) * dx)
        mass_second = np.cumsum(np.exp(second[order]) * dx)
        total = mass_first + mass_second
        with np.errstate(all="ignore"):
            rate = total * _kl(mass_first / total, pi0)
        rate = rate[np.isfinite(rate) & (rate > 0)]
        if rate.size:
            best = min(best, math.log(1 / alpha) / float(rate.max()))
    return best if best <= MOST else math.inf


def carried_needs(witness: Any, epsilon: float, alpha: float) -> tuple[float, str] | None:
    """The fewest releases per world (:func:`releases_needed`) over the Laplace and Gaussian elements the witness
    pair's release carries, each read on its own coordinate -- its location and scale on D, and on D′ with D's draws
    (a call replayed at another scale rescales its noise; a coefficient that moves without one is not read) -- with
    the element named; None where none is read."""
    seen, recorded, c = witness.drawn.probe, witness.drawn.recorded, witness.comparison
    if c.replayed is None or c.structure_differs:
        return None
    before, after = recorded.numbers, c.replayed.numbers
    best: tuple[float, str] | None = None
    unread = set(c.unread)  # post-processed or rescaled on D′: its location there is not read
    for i in _differing(witness).tolist():
        j = int(seen.carrier[i])
        if i in unread:
            continue
        element = seen.elements[j]
        if element.law not in ("laplace", "gaussian") or i >= after.size or element.call >= len(c.replayed.calls):
            continue
        call, other = recorded.calls[element.call], c.replayed.calls[element.call]
        eta = probing.noise_value(call.noise, element.index)
        old = float(np.atleast_1d(np.asarray(call.scale, dtype=float)).ravel()[0])
        new = float(np.atleast_1d(np.asarray(other.scale, dtype=float)).ravel()[0]) if other.scale is not None else old
        if j in c.coefficient_changed and new == old:  # a weight from the data, not a rescaled call: not read
            continue
        a = float(seen.coefficient[i])
        on_d = (float(before[i]) - a * eta, abs(a) * old)
        on_d_prime = (float(after[i]) - a * eta * (new / old if old > 0 else 1.0), abs(a) * new)
        needed = releases_needed(element.law, on_d, on_d_prime, epsilon, alpha)
        if math.isfinite(needed) and (best is None or needed < best[0]):
            best = (needed, f"call {element.call} {call.name}[{element.index}]")
    return best


def _differing(witness: Any) -> np.ndarray:
    """The carried coordinates whose law on D′ may differ from D's: those whose value differs (NaN included), or
    whose element's call was replayed at another scale.  Every other coordinate has one law on both sides (the
    same location and scale, computed by the same operations), which no event tells apart (:func:`releases_needed`
    is ∞ there): skipped unread, so that a release of 10⁵ carried coordinates costs one comparison, not 10⁵ grids."""
    seen, c = witness.drawn.probe, witness.comparison
    before, after = witness.drawn.recorded.numbers, c.replayed.numbers
    at = np.flatnonzero(seen.carrier >= 0)
    at = at[at < after.size]
    with np.errstate(invalid="ignore"):
        differs = ~(before[at] == after[at])
    rescaled = {index for index, _, _ in c.replayed.rescaled}
    if rescaled:
        calls = seen.columns().call[seen.carrier[at]]
        differs |= np.isin(calls, list(rescaled))
    return at[differs]
