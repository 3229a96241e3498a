"""The most powerful events of DP-Sniper's SVT3 pair by quadrature: what the black box's stage after the pilot can
refute with at best (issue 43).

SVT3 (Lyu, Su & Li 2017, Alg. 3; :mod:`peer_mechanisms`) with c = 1 releases the first noisy answer at or above the
noisy threshold, so its output is the position k of that answer (or none) and its value v.  With ρ ~ Lap(b_ρ) and
ν_i ~ Lap(b_ν) (F, f: their CDF and density), the law of (k, v) on the input q is

    p(k, v) = f_ν(v − q_k) · G_k(v − t),    G_k(x) = ∫_{−∞}^{x} f_ρ(r) Π_{i<k} F_ν(t + r − q_i) dr,

a running integral (trapezoids on a grid of step ``--step`` over ±``--span``), and the mass of "none" is G_11(∞).
Checked two ways (the last line): on D, whose answers all equal the threshold t and whose noises share one scale,
the threshold and the answers are exchangeable, so the first positive answer is the k-th with probability
1/(k(k + 1)) (the k-th the largest of the first k and the threshold the second: 1/(k + 1) · 1/k) and none with 1/11
(``closed_form_max_error``: the largest error of these 11 masses); and both worlds' positions against the sampler
(``--check`` releases per world; ``check_max_z``: the largest |z| of the 22 rates).  One JSON line per family of
events -- the sets of (k, v) a statistic of the black box can tell:

* ``position``: outcomes by position alone (the outcome score's events: values are not atoms);
* ``position-value-B``: positions by B quantile bins of the value (pooled over both worlds, as a training fit);
* ``ideal``: positions by values on the whole grid (the Neyman–Pearson sets of the pair).

For each family: the best event (a prefix of its cells ranked by likelihood ratio, either direction) for the stage
after the pilot at the default budget (650,000 fresh releases per world, its own events read at α/64: a share of
1/16 of α = 1e-6, two events, the end of the pass at half), its rates P, Q and log ratio, the power of the exact test
there and at 686,043 fresh releases read at α/32 (that stage filling a tenth of the fixed pass's 10,485,434 releases
per world, reading one event on its whole share), and the fresh releases per world each needs for 50% and 90% power
in one look at α and at α/64.  Power by the normal law of the log ratio of the counts (A ~ Poisson(λP),
B ~ Poisson(λQ)): Φ((log(P/Q) − ε)/√(1/(λP) + 1/(λQ)) − z_a), ε the claim; ``power_stage_exact``: the share of
20,000 draws of those counts that the exact test itself (Clopper–Pearson on A of A + B,
:func:`pdp_audit.audits.blackbox.events.lower_rate`, at α/64) refutes, for the family's best event.

    python benchmarks/blackbox_event_ceiling.py
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_mechanisms import PEERS  # noqa: E402

ALPHA = 1e-6
#: (fresh releases per world, level) of the stage after the pilot: as scheduled, and filling the tenth
STAGE = (650_000, ALPHA / 64)
TENTH = (686_043, ALPHA / 32)
BINS = (2, 3, 4, 8)


def laplace_cdf(x: np.ndarray, b: float) -> np.ndarray:
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))


def laplace_pdf(x: np.ndarray, b: float) -> np.ndarray:
    return np.exp(-np.abs(x) / b) / (2 * b)


def law(q: np.ndarray, scales: tuple[float, float], t: float, grid: np.ndarray) -> tuple[np.ndarray, float]:
    """p(k, v)·h on ``grid`` (rows k = 1..len(q)) and the mass of no positive answer."""
    b_rho, b_nu = scales
    h = grid[1] - grid[0]
    weight = laplace_pdf(grid, b_rho)
    cells = np.empty((len(q), grid.size))
    for k in range(len(q)):
        running = np.concatenate([[0.0], np.cumsum((weight[1:] + weight[:-1]) * h / 2)])  # G_k on the grid
        cells[k] = laplace_pdf(grid - q[k], b_nu) * np.interp(grid - t, grid, running) * h
        weight = weight * laplace_cdf(t + grid - q[k], b_nu)
    return cells, float(np.sum((weight[1:] + weight[:-1]) * h / 2))


def power(p: np.ndarray, q: np.ndarray, fresh: float, level: float, epsilon: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = (np.log(p / q) - epsilon) / np.sqrt(1 / (fresh * p) + 1 / (fresh * q))
    return np.where((p > 0) & (q > 0), norm.cdf(shift - norm.isf(level)), 0.0)


def needed(p: np.ndarray, q: np.ndarray, level: float, target: float, epsilon: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        margin = np.log(p / q) - epsilon
        fresh = (1 / p + 1 / q) * ((norm.isf(level) + norm.ppf(target)) / margin) ** 2
    return np.where((p > 0) & (q > 0) & (margin > 0), fresh, np.inf)


def prefixes(cells_d: np.ndarray, cells_dp: np.ndarray):
    """(P, Q) of every prefix of the cells ranked by likelihood ratio, for events favouring D and favouring D'."""
    for a, b in ((cells_d, cells_dp), (cells_dp, cells_d)):
        with np.errstate(divide="ignore", invalid="ignore"):
            order = np.argsort(-np.log(a / b), kind="stable")
        yield np.cumsum(a[order]), np.cumsum(b[order])


def family(name: str, cells: tuple, epsilon: float) -> dict:
    best = {"family": name, "cells": int(cells[0].size)}
    ranked = list(prefixes(*cells))
    pw = [power(p, q, *STAGE, epsilon) for p, q in ranked]
    way, i = max(((w, int(np.argmax(x))) for w, x in enumerate(pw)), key=lambda wi: pw[wi[0]][wi[1]])
    p, q = ranked[way][0][i], ranked[way][1][i]
    best.update(
        favours="D" if way == 0 else "D'",
        P=round(float(p), 5),
        Q=round(float(q), 5),
        log_ratio=round(math.log(p / q), 4),
        power_stage=round(float(pw[way][i]), 3),
        power_tenth=round(float(max(np.max(power(p, q, *TENTH, epsilon)) for p, q in ranked)), 3),
        power_stage_exact=exact_power(p, q, epsilon) if way == 0 else exact_power(q, p, epsilon),
    )
    for level, tag in ((ALPHA, "alpha"), (STAGE[1], "alpha_64")):
        for target in (0.5, 0.9):
            fresh = min(float(np.min(needed(p, q, level, target, epsilon))) for p, q in ranked)
            best[f"fresh_{int(target * 100)}_{tag}"] = round(fresh, -3)
    return best


def exact_power(p: float, q: float, epsilon: float, draws: int = 20_000) -> float:
    """The share of ``draws`` Poisson counts (A, B) of means (λP, λQ) at the stage's fresh λ whose exact test at its
    level refutes ``epsilon`` (an event favouring D: P is D's rate)."""
    from pdp_audit.audits.blackbox.events import lower_rate

    rng = np.random.default_rng(0)
    hits = rng.poisson(STAGE[0] * p, draws), rng.poisson(STAGE[0] * q, draws)
    lo = lower_rate(hits[0], hits[0] + hits[1], STAGE[1])
    with np.errstate(divide="ignore"):
        return round(float(np.mean(np.log(lo) - np.log1p(-lo) > epsilon)), 3)


def binned(cells: np.ndarray, edges: np.ndarray, grid: np.ndarray) -> np.ndarray:
    which = np.searchsorted(edges, grid)
    return np.stack([np.bincount(which, weights=row, minlength=edges.size + 1) for row in cells]).ravel()


def checked(peer, cells: tuple, n: int, seed: int) -> float:
    """The largest |z| of the positions' sampled rates against the quadrature's (1 + len(q) rates per world)."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for world, (rows, none) in zip(("D", "D'"), cells):
        top = peer.pair.sample(world, n, rng) > -999
        k = np.where(top.any(1), top.argmax(1) + 1, 0)
        seen = np.bincount(k, minlength=rows.shape[0] + 1) / n
        exact = np.concatenate([[none], rows.sum(1)])
        worst = max(worst, float(np.max(np.abs(seen - exact) / np.sqrt(exact * (1 - exact) / n))))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", type=float, default=0.05, help="the grid's step in the value (default 0.05)")
    parser.add_argument("--span", type=float, default=500.0, help="the grid's half-width (default 500)")
    parser.add_argument("--check", type=int, default=1_000_000, help="sampled releases per world (0: no check)")
    args = parser.parse_args()
    start = time.perf_counter()
    peer = {p.name: p for p in PEERS}["SVT3"]
    svt = peer.pair.release
    grid = np.arange(-args.span, args.span + args.step / 2, args.step)
    laws = [law(np.asarray(x, float), svt.scales(), svt.t, grid) for x in (peer.pair.d, peer.pair.dprime)]
    total = [float(rows.sum() + none) for rows, none in laws]
    (rows_d, none_d), (rows_dp, none_dp) = laws
    rows = [
        family("position", (np.append(rows_d.sum(1), none_d), np.append(rows_dp.sum(1), none_dp)), peer.claimed_epsilon)
    ]
    values = (rows_d.sum(0) + rows_dp.sum(0)) / 2
    for b in BINS:
        edges = np.interp(np.arange(1, b) / b, np.cumsum(values) / values.sum(), grid)
        cells = (np.append(binned(rows_d, edges, grid), none_d), np.append(binned(rows_dp, edges, grid), none_dp))
        rows.append(family(f"position-value-{b}", cells, peer.claimed_epsilon))
    rows.append(family("ideal", (np.append(rows_d.ravel(), none_d), np.append(rows_dp.ravel(), none_dp)),
                       peer.claimed_epsilon))  # fmt: skip
    check = checked(peer, laws, args.check, 0) if args.check else None
    k = np.arange(1, rows_d.shape[0] + 1)
    closed = np.append(1 / (k * (k + 1)), 1 / (k[-1] + 1))  # D's positions (the docstring): exchangeable noises
    error = float(np.max(np.abs(np.append(rows_d.sum(1), none_d) - closed)))
    for row in rows:
        print(json.dumps({"benchmark": "blackbox_event_ceiling", "mechanism": "SVT3", **row}), flush=True)
    print(json.dumps({"benchmark": "blackbox_event_ceiling", "mass": [round(t, 9) for t in total],
                      "closed_form_max_error": float(f"{error:.2g}"),
                      "check_max_z": None if check is None else round(check, 2),
                      "seconds": round(time.perf_counter() - start, 1)}))  # fmt: skip


if __name__ == "__main__":
    main()
