"""The price of calling other libraries through their public API only (issue 61: no private API of another library).

Each case times a user-visible computation as the product now runs it (``public``) against the same computation with
the private entry point it used before put back for the run (``private``: the baseline, in this file only), in the
same process, alternating, best of ``--repeats``.  One JSON line a case with both times and their ratio.

* ``pooled_rank``: the rank attack of the black box and the white-box pair audits (``pooled_rank_attack`` on m
  scores a world, δ = 1e-6, its ε lower bound at α = 0.05), whose tail bound evaluates binomial pmfs, cdfs and sfs
  (``scipy.stats.binom`` now; scipy.special's private ``_binom_pmf``/``_cdf``/``_sf`` ufuncs before).
* ``clopper_pearson``: 2,000 Clopper–Pearson intervals a call, 20 calls (``scipy.special.betaincinv`` and
  ``betainccinv`` now; the private ``_beta_ppf`` ufunc before).
* ``diffprivlib``: a seeded diffprivlib pair's draws, 200 blocks of 500 releases (``Laplace``, and ``Exponential``
  on 50 candidates): each block's mechanism built by its constructor with ``random_state`` now; a copy whose private
  ``_rng`` was replaced before.

    python benchmarks/public_apis.py [--cases pooled_rank,clopper_pearson,diffprivlib] [--repeats 3] [--m 10000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
import types
from typing import Callable, Iterator

import numpy as np


def best(fn: Callable[[int], object], repeats: int) -> float:
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return min(times)


def emit(case: str, public: float, private: float, **extra) -> None:
    line = {
        "benchmark": "public_apis",
        "case": case,
        "public_s": round(public, 4),
        "private_s": round(private, 4),
        "ratio_public_to_private": round(public / private, 3),
        **extra,
        "load_1min": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
    }
    print(json.dumps(line), flush=True)


@contextlib.contextmanager
def private_binomial() -> Iterator[None]:
    """The tail bound's binomials through scipy.special's private ufuncs, as before (the baseline)."""
    from scipy import special, stats

    from pdp_audit.verify.estimators import attack

    ufuncs = vars(special)["_ufuncs"]
    pmf, cdf, sf = (getattr(ufuncs, name) for name in ("_binom_pmf", "_binom_cdf", "_binom_sf"))

    def binom_pmf(k, n, p):
        inside = (k >= 0) & (k <= n)
        if inside.all():
            return pmf(k, n, p)
        out = np.zeros(k.shape)
        out[inside] = pmf(k[inside], n, p)
        return out

    binom = types.SimpleNamespace(pmf=binom_pmf, cdf=cdf, sf=sf)
    shim = types.SimpleNamespace(**{name: getattr(stats, name) for name in ("poisson", "norm")}, binom=binom)
    saved = attack._stats
    attack._stats = lambda: shim
    try:
        yield
    finally:
        attack._stats = saved


@contextlib.contextmanager
def private_beta() -> Iterator[None]:
    """The beta quantiles through scipy.special's private ``_beta_ppf`` ufunc, as before (the baseline)."""
    from scipy import special

    from pdp_audit.verify.estimators import stats as ours

    ppf = getattr(vars(special)["_ufuncs"], "_beta_ppf")
    saved = ours._ppf, ours._isf
    ours._ppf, ours._isf = ppf, lambda q, a, b: special.betainccinv(a, b, q)
    try:
        yield
    finally:
        ours._ppf, ours._isf = saved


def ab(run: Callable[[int], object], baseline: Callable[[], contextlib.AbstractContextManager], repeats: int):
    """(public, private) best seconds of ``run``, the two alternating so that load drifts hit both."""
    public, private = [], []
    for i in range(repeats):
        public.append(best(lambda _: run(2 * i), 1))
        with baseline():
            private.append(best(lambda _: run(2 * i + 1), 1))
    return min(public), min(private)


def pooled_rank(m: int, repeats: int) -> None:
    from pdp_audit.verify.estimators import attack

    runs = [
        (rng.normal(0.3, 1.0, m), rng.normal(0.0, 1.0, m)) for rng in map(np.random.default_rng, range(2 * repeats))
    ]

    def run(i: int) -> None:
        attack.poisson_upper.cache_clear()
        attack._excess_law.cache_clear()
        attack.pooled_rank_attack(*runs[i], 1e-6, seed=i).epsilon_lower_bound_at(0.05)

    emit("pooled_rank", *ab(run, private_binomial, repeats), m=m, delta=1e-6)


def clopper_pearson(repeats: int) -> None:
    from pdp_audit.verify.estimators.stats import clopper_pearson as interval

    rng = np.random.default_rng(0)
    nobs = rng.integers(1000, 10**7, 2000).astype(float)
    count = np.floor(nobs * rng.uniform(0, 0.1, 2000))

    def run(i: int) -> None:
        for _ in range(20):
            interval(count, nobs, 1e-6)

    emit("clopper_pearson", *ab(run, private_beta, repeats), intervals=2000, calls=20)


@contextlib.contextmanager
def private_drawing() -> Iterator[None]:
    """A seeded draw from a copy of the world's mechanism whose private ``_rng`` is replaced, as before."""
    import copy

    from pdp_audit.mechanisms.adapters.diffprivlib import MechanismPair

    def drawing(self, world, rng):
        mechanism = copy.copy(self.worlds[world])
        mechanism.random_state = np.random.RandomState(int(rng.integers(2**32)))
        setattr(mechanism, "_rng", mechanism.random_state)
        return mechanism

    saved = MechanismPair._drawing
    MechanismPair._drawing = drawing
    try:
        yield
    finally:
        MechanismPair._drawing = saved


def diffprivlib(repeats: int) -> None:
    from diffprivlib import mechanisms

    from pdp_audit.mechanisms.adapters.diffprivlib import MechanismPair

    utility = [0.0] * 50
    pairs = {
        "Laplace": MechanismPair(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0), 0.0, 1.0),
        "Exponential": MechanismPair(
            mechanisms.Exponential(epsilon=1.0, sensitivity=1.0, utility=utility), utility, [1.0] + utility[1:]
        ),
    }
    for kind, pair in pairs.items():

        def run(i: int) -> None:
            rng = np.random.default_rng(i)
            for _ in range(200):
                pair.sample("D", 500, rng)

        emit("diffprivlib", *ab(run, private_drawing, repeats), mechanism=kind, blocks=200, block=500)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="pooled_rank,clopper_pearson,diffprivlib")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--m", type=int, default=10_000)
    args = parser.parse_args()
    cases = args.cases.split(",")
    if "pooled_rank" in cases:
        pooled_rank(args.m, args.repeats)
    if "clopper_pearson" in cases:
        clopper_pearson(args.repeats)
    if "diffprivlib" in cases:
        diffprivlib(args.repeats)


if __name__ == "__main__":
    main()
