"""The canary audits against jax-privacy's, on identical scores: each library's ε bound and its seconds.

jax-privacy (``jax_privacy.auditing.CanaryScoreAuditor``, version 2.0) is a peer used for comparison only: it is
installed in a separate environment, never in the package's dependencies or tests.  Its auditing module needs
numpy, scipy and dp-accounting and no jax (nothing is jit-compiled), so it is loaded from its installed file
(:func:`epsilon_lower_bounds.jax_auditing`) without importing jax; the first call of each library (imports and
first-use caches, on small scores) is timed apart as ``warmup_*_s``, never in the best-of times, and our
memoised bounds are emptied before each timed call (:func:`forget`: a user's first call on new scores).  Without
jax-privacy the script prints one line saying so and exits 0::

    python3 -m venv /work/venv-jax && /work/venv-jax/bin/pip install jax-privacy && \\
        /work/venv-jax/bin/pip install -e .
    /work/venv-jax/bin/python benchmarks/canary_peers.py [--cases canary,one_run] [--repeats 3] [--limit 150]
        [--sizes 10000 1000000] [--m 10000 100000 1000000]

One JSON line per case, with the machine, its cores and the 1-minute load average (when the case ended):

* ``canary`` at n Gaussian scores a side (in-canaries N(1, 1), out-canaries N(0, 1), seeds 0, 1, …; n = 1e4 and
  1e6): ours is ``pdp_audit.audit_canary_scores`` (δ = 1e-5, α = 1e-6: the pooled-rank joint test, both DP
  inequalities), jax's ``CanaryScoreAuditor(in, out).epsilon_clopper_pearson(1e-6, 1e-5, one_sided=False)``
  (Clopper–Pearson at every threshold, Bonferroni over them, both inequalities); jax's time includes building the
  auditor (its sort).
* ``one_run`` at m canaries (each in with probability 1/2, score bit + N(0, 1): a 1-GDP game; seeds 1, 2, …;
  m = 1e4, 1e5, 1e6), δ = 1e-5, α = 0.05 (Steinke et al.'s level): ours is ``pdp_audit.audit_one_run`` (the
  (ε, δ) bound of Steinke, Nasr & Jagielski 2023 on a grid of 16 guess sets, k₋ = 0 or k₊, union bound; and, as a
  finding, the f-DP bound of Mahloujifar, Melis & Chaudhuri 2025 for a μ-GDP run on the same guesses), timed
  whole (``ours_audit_s``) and its two bounds alone (``ours_bound_s``: the attack and its (ε, δ) bound at α;
  ``ours_fdp_s``: the f-DP bound at α on that attack); jax's ``epsilon_one_run(0.05, 1e-5)`` and
  ``epsilon_one_run_fdp(0.05, 1e-5)`` (k₋ = 0, every threshold, Bonferroni over them; the same μ-GDP family, ε at
  δ of the largest μ rejected) on the same scores split by the bits.  ``true_epsilon`` is ε of 1-GDP at δ.

Fields: "benchmark", "case", "n" (a side) or "m", "delta", "alpha", "epsilon_ours"/"epsilon_jax" (and
"fdp_epsilon_ours"/"fdp_epsilon_jax"; the bounds on the first seed's scores), "ours_over_jax" (ε ratio: above 1,
ours is tighter), "*_s" (best of ``--repeats`` seeds, each library on the same scores), "time_ratio*" (ours ÷
jax: below 1, ours is faster), "warmup_*_s", "repeats", "machine", "cores", "load_1min".  A jax call past
``--limit`` seconds is stopped (SIGALRM) and reported as null with ``"jax_stopped_after_s"``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import signal
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from epsilon_lower_bounds import jax_auditing  # noqa: E402

import pdp_audit  # noqa: E402

DELTA = 1e-5
CANARY_ALPHA, ONE_RUN_ALPHA = 1e-6, 0.05


class Stopped(Exception):
    """A peer's call ran past the limit."""


def _alarm(signum, frame):
    raise Stopped


def forget() -> None:
    """Empty our memoised bounds (the one-run tail bounds, keyed by counts; the pooled-rank test's Poisson laws,
    keyed by sizes), so that each timed call is what a user's first call on new scores costs, and the same scores
    can be timed twice."""
    from pdp_audit.audits.canaries.one_run import tail_bound
    from pdp_audit.verify.estimators.attack import _excess_law

    tail_bound.cache_clear()
    _excess_law.cache_clear()


def timed(fn: Callable[[int], float], repeats: int, limit: float) -> tuple[float | None, float | None]:
    """(best seconds of ``fn(i)`` over i = 0 … repeats − 1, ``fn(0)``'s value), our caches emptied before each
    call; (None, None) when a call runs past ``limit`` seconds (the signal interrupts pure-Python loops and returns
    between scipy's calls)."""
    times, value = [], None
    signal.signal(signal.SIGALRM, _alarm)
    for i in range(repeats):
        forget()
        signal.setitimer(signal.ITIMER_REAL, limit if math.isfinite(limit) else 0)
        try:
            start = time.perf_counter()
            result = fn(i)
            times.append(time.perf_counter() - start)
        except Stopped:
            return None, None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        value = result if i == 0 else value
    return min(times), value


def once(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 3)


def emit(line: dict) -> None:
    rounded = {k: float(f"{v:.5g}") if isinstance(v, float) else v for k, v in line.items()}
    rounded.update({"machine": platform.node(), "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)})
    print(json.dumps(rounded), flush=True)


def canary_scores(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)


def canary(jax, n: int, repeats: int, limit: float) -> None:
    sets = [canary_scores(n, seed) for seed in range(repeats)]

    def ours(i: int) -> float:
        return pdp_audit.audit_canary_scores(*sets[i], DELTA, alpha=CANARY_ALPHA).checks[0].ci[0]

    def theirs(i: int) -> float:
        auditor = jax.CanaryScoreAuditor(*sets[i])
        return float(auditor.epsilon_clopper_pearson(CANARY_ALPHA, DELTA, one_sided=False))

    small = canary_scores(100, 99)
    warm_ours = once(lambda: pdp_audit.audit_canary_scores(*small, DELTA, alpha=CANARY_ALPHA))
    warm_jax = once(lambda: jax.CanaryScoreAuditor(*small).epsilon_clopper_pearson(CANARY_ALPHA, DELTA, False))
    ours_s, ours_eps = timed(ours, repeats, float("inf"))
    jax_s, jax_eps = timed(theirs, repeats, limit)
    line = {"benchmark": "canary_peers", "case": "canary", "n": n, "delta": DELTA, "alpha": CANARY_ALPHA}
    line.update(epsilon_ours=ours_eps, epsilon_jax=jax_eps, ours_over_jax=ratio(ours_eps, jax_eps))
    line.update(ours_s=ours_s, jax_s=jax_s, time_ratio=ratio(ours_s, jax_s))
    line.update(warmup_ours_s=warm_ours, warmup_jax_s=warm_jax, repeats=repeats)
    if jax_s is None:
        line["jax_stopped_after_s"] = limit
    emit(line)


def one_run_game(m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + 1)
    included = rng.random(m) < 0.5
    return rng.normal(1.0 * included, 1.0), included


def one_run(jax, m: int, repeats: int, limit: float) -> None:
    from pdp_audit.audits.canaries.evidence import fdp_evidence
    from pdp_audit.audits.canaries.fdp_one_run import gdp_epsilon
    from pdp_audit.audits.canaries.one_run import one_run_attack

    games = [one_run_game(m, seed) for seed in range(repeats)]

    def audit(i: int) -> tuple[float, float]:
        run = pdp_audit.audit_one_run(*games[i], DELTA, alpha=ONE_RUN_ALPHA)
        return run.checks[0].ci[0], run.findings[0].ci[0]

    attacks: list = []

    def bound(i: int) -> float:
        attacks.append(one_run_attack(*games[i], DELTA))
        return attacks[-1].epsilon_lower_bound_at(ONE_RUN_ALPHA)

    def fdp(i: int) -> float:
        return fdp_evidence(attacks[i], DELTA, None, ONE_RUN_ALPHA).interval(ONE_RUN_ALPHA)[0]

    small = one_run_game(200, 99)
    warm_ours = once(lambda: pdp_audit.audit_one_run(*small, DELTA, alpha=ONE_RUN_ALPHA))
    warm_jax = once(lambda: auditor_of(jax, small).epsilon_one_run(ONE_RUN_ALPHA, DELTA))
    warm_jax_fdp = once(lambda: auditor_of(jax, small).epsilon_one_run_fdp(ONE_RUN_ALPHA, DELTA))
    audit_s, (ours_eps, ours_fdp) = timed(audit, repeats, float("inf"))
    bound_s, _ = timed(bound, repeats, float("inf"))
    fdp_s, _ = timed(fdp, repeats, float("inf"))
    jax_s, jax_eps = timed(
        lambda i: float(auditor_of(jax, games[i]).epsilon_one_run(ONE_RUN_ALPHA, DELTA)), repeats, limit
    )
    jax_fdp_s, jax_fdp = timed(
        lambda i: float(auditor_of(jax, games[i]).epsilon_one_run_fdp(ONE_RUN_ALPHA, DELTA)), repeats, limit
    )
    line = {"benchmark": "canary_peers", "case": "one_run", "m": m, "delta": DELTA, "alpha": ONE_RUN_ALPHA}
    line.update(true_epsilon=gdp_epsilon(1.0, DELTA))
    line.update(epsilon_ours=ours_eps, epsilon_jax=jax_eps, ours_over_jax=ratio(ours_eps, jax_eps))
    line.update(fdp_epsilon_ours=ours_fdp, fdp_epsilon_jax=jax_fdp, fdp_ours_over_jax=ratio(ours_fdp, jax_fdp))
    line.update(ours_audit_s=audit_s, ours_bound_s=bound_s, ours_fdp_s=fdp_s, jax_s=jax_s, jax_fdp_s=jax_fdp_s)
    line.update(
        time_ratio_audit=ratio(audit_s, jax_s),  # issue 44's measure: the whole audit against epsilon_one_run
        time_ratio_bound=ratio(bound_s, jax_s),
        time_ratio_fdp=ratio(fdp_s, jax_fdp_s),
    )
    line.update(warmup_ours_s=warm_ours, warmup_jax_s=warm_jax, warmup_jax_fdp_s=warm_jax_fdp, repeats=repeats)
    stopped = [name for name, s in (("epsilon_one_run", jax_s), ("epsilon_one_run_fdp", jax_fdp_s)) if s is None]
    if stopped:
        line.update(jax_stopped=stopped, jax_stopped_after_s=limit)
    emit(line)


def auditor_of(jax, game: tuple[np.ndarray, np.ndarray]):
    scores, bits = game
    return jax.CanaryScoreAuditor(scores[bits], scores[~bits])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="canary,one_run")
    parser.add_argument("--repeats", type=int, default=3, help="seeds timed at the sizes up to 1e5 (1e6: fewer)")
    parser.add_argument("--limit", type=float, default=150.0, help="seconds a jax call may run before it is stopped")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000], help="canary scores a side")
    parser.add_argument("--m", type=int, nargs="+", default=[10_000, 100_000, 1_000_000], help="one-run canaries")
    args = parser.parse_args(argv)
    jax = jax_auditing()
    if jax is None:
        print(json.dumps({"benchmark": "canary_peers", "skipped": "jax-privacy is not installed"}))
        return 0
    cases = set(args.cases.split(","))
    if "canary" in cases:
        for n in args.sizes:
            canary(jax, n, args.repeats if n <= 100_000 else max(1, args.repeats - 1), args.limit)
    if "one_run" in cases:
        for m in args.m:
            one_run(jax, m, args.repeats if m <= 100_000 else max(1, args.repeats - 1), args.limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
