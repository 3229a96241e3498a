"""The steps composed for a coordinate read through a rounding (:mod:`.landing`): its own law partitioned by the
verified levels (below), and its element's law (above); and where a rescaled call's tails are to be read.

**Lower (refutation).**  The release's coordinate partitioned by the verified levels is a post-processing of the
release, so its δ(ε) is at most the release's (the data-processing inequality; Dwork & Roth 2014, Prop. 2.1): its
law on D is P_g = F(e_g) − F(e_{g−1}), on D′ Q_g = F(e′_g) − F(e′_{g−1}) (F the element's law: Laplace or Gaussian
of its recorded scale; the edges in the recorded noise's units), one ``discrete`` step.  Each edge known to its
bracket, P and Q are each within total variation τ of the computed (τ = Σ_k F(H_k) − F(L_k), plus the CDF's float
error), so the true δ(ε) ≥ the computed − (1 + e^ε)·τ: the step's slack.  Any subset of the verified edges is a
coarser partition, as valid: :func:`lower_step` composes all of them and, where the reading holds edges put in a
rescaled call's tails, those alone too (their brackets lie where the law has almost no mass: a τ far below the
near edges'), and keeps the larger bound net of its slack.

**A rescaled call** (the scale read from the data: b on D, b′ on D′).  The replay on D′ stretches the recorded
draw to b′ (η′ = η·b′/b), so a level's edge on D′, in the recorded draw's units, is one of F = F_b too: the same
partition's law on D′ is read with D's F.  Lap(b) against Lap(b′ ≠ b) has a log-likelihood ratio unbounded in its
tails; of a rounded value, on the levels the rounding has there.  :func:`.tail_edges.tail_edges` puts one edge in each
tail where the tail group's δ(ε) = max(Q − e^ε P, P − e^ε Q) is largest by the laws' prediction; the reading
verifies it by replay like any other (else it is dropped): what is composed is the verified partition's law.

**Upper (certification).**  Where D′'s checked values are D's, bit for bit, and the call's scale is the same,
R_i(D′; η) = R_i(D; η + d): the release is the same post-processing of the noisy value on both sides, and the
element's own step (Laplace or Gaussian) of the largest |d| in its interval bounds it from above.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from pdp_audit.audits.program.accounting import composed_delta
from pdp_audit.audits.program.landing import Reading
from pdp_audit.audits.program.step_laws import Discrete, Gaussian, Laplace, Step


def lower_step(reading: Reading, epsilon: float, call: int, label: str) -> Step | None:
    """The :class:`~.step_laws.Discrete` step of the coordinate's law partitioned by the reading's levels (module
    notes), its slack (1 + e^ε)·τ -- of all its edges, or of its tail edges alone where that bound is larger; an
    infinite shift: the element's step of μ = ∞ (δ = 1); None where no partition moves (the shift's interval holds
    0 and the scale is D's: a lower composition may leave a step out, the others' law is a post-processing of theirs
    with it)."""
    L = reading.landing
    if math.isinf(reading.low):
        return SHIFTED[L.law](call=call, label=label, mu=math.inf)
    if reading.low <= 0 <= reading.high and reading.stretch == 1.0:
        return None
    steps = [_partitioned(reading, range(len(reading.edges)), epsilon, call, label)]
    if reading.tails:
        steps.append(_partitioned(reading, reading.tails, epsilon, call, label))
    kept = [s for s in steps if s is not None]
    if len(kept) < 2:
        return kept[0] if kept else None
    return max(kept, key=lambda s: composed_delta([s], epsilon).low)  # the first where they tie


def _partitioned(reading: Reading, chosen, epsilon: float, call: int, label: str) -> Discrete | None:
    """The Discrete step of the partition by the reading's edges ``chosen`` (indices), None where no group has mass
    on both sides."""
    L = reading.landing
    edges = tuple(reading.edges[g] for g in chosen)
    return partitioned(L.law, L.scale, (edges, tuple(reading.edges_after[g] for g in chosen)), epsilon, call, label)


def partitioned(
    law: str, scale: float, edges: tuple[Edges, Edges], epsilon: float, call: int, label: str
) -> Discrete | None:
    """The Discrete step of the partition of the element's noise (law ``law``, scale ``scale``) by ``edges`` -- each
    a bracket, in increasing order, on D and on D′ -- its slack (1 + e^ε)·τ (module notes); None where no group has
    mass on both sides."""
    p, tau_p = _masses(law, scale, edges[0])
    q, tau_q = _masses(law, scale, edges[1])
    keep = [g for g in range(len(p)) if p[g] > 0 and q[g] > 0]
    if not keep:  # no group of mass on both sides: merged whole, one group of mass 1 each, a step of no loss
        return None
    if len(keep) < len(p):  # a group of no mass under the float CDF on one side: merged into the next
        p, q = _merged(p, keep), _merged(q, keep)
    slack = min(1.0, (1.0 + math.exp(min(epsilon, 700.0))) * max(tau_p, tau_q))
    return Discrete(call=call, label=label, p=tuple(p), q=tuple(q), slack=slack)


def upper_step(reading: Reading, call: int, label: str) -> Step | None:
    """The element's own step of the largest |d| in the reading's interval, where D′'s release is D's at the noise
    shifted by d (module notes); None where that is not shown.  Porous (its real-valued law certifies the real-valued
    program only) as the noise added to the value is float noise."""
    L = reading.landing
    if math.isinf(reading.low):
        return SHIFTED[L.law](call=call, label=label, mu=math.inf)
    if not reading.same_grid:
        return None
    bound = float(np.nextafter(max(abs(reading.low), abs(reading.high)) / L.scale, math.inf))
    return SHIFTED[L.law](call=call, label=label, mu=bound)


#: A partition's edges on one side: each a bracket of the noise, in increasing order.
Edges = tuple[tuple[float, float], ...]

#: The element's step, by its law.
SHIFTED: dict[str, type[Laplace] | type[Gaussian]] = {"laplace": Laplace, "gaussian": Gaussian}


def _masses(law: str, scale: float, edges: tuple[tuple[float, float], ...]) -> tuple[list[float], float]:
    """The groups' probabilities under the element's law, each edge at its bracket's middle, and τ: the total
    variation the brackets allow (Σ F(H) − F(L)) plus 8 ulps of 1 per CDF evaluation (module notes)."""
    middles = [(a + b) / 2 for a, b in edges]
    bounds = [-math.inf, *middles, math.inf]
    masses = [between(law, scale, bounds[g], bounds[g + 1]) for g in range(len(bounds) - 1)]
    tau = sum(between(law, scale, a, b) for a, b in edges) + 8 * np.finfo(float).eps * (3 * len(edges) + 1)
    return masses, tau


def between(law: str, scale: float, a: float, b: float) -> float:
    """P[a < η ≤ b] under the element's law (its upper tail read from the survival function: no cancellation)."""
    if a >= 0:
        return max(0.0, tail(law, scale, a) - tail(law, scale, b))
    if b <= 0:
        return max(0.0, tail(law, scale, -b) - tail(law, scale, -a))
    return max(0.0, 1.0 - tail(law, scale, -a) - tail(law, scale, b))


def tail(law: str, scale: float, x: float) -> float:
    """P[η > x] for x ≥ 0 (symmetric laws: P[η < −x] too)."""
    if math.isinf(x):
        return 0.0
    if law == "laplace":
        return 0.5 * math.exp(-x / scale)
    return float(ndtr(-x / scale))


def _merged(masses: list[float], keep: list[int]) -> list[float]:
    """Each group outside ``keep`` added to the next kept one (the last to the one before): a coarser partition."""
    out = [0.0] * len(keep)
    position = 0
    for g, mass in enumerate(masses):
        while position < len(keep) - 1 and keep[position] < g:
            position += 1
        out[position] += mass
    return out
