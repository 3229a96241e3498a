"""The white-box pair audit's pass drawn in looks and stopped once decided (:mod:`pdp_audit.verify.evidence.
pair_sequential`) against the fixed pass of the whole budget (issue 43).  One JSON line each:

* ``gaussian``: a correct Gaussian mechanism at twice the σ its claim needs (the closed form of δ(ε), Balle & Wang
  2018, Theorem 8) for each of :data:`CLAIMS`, with the package's noise view (``GaussianPair``) and as a plain pair
  without one (``--pair``): the fixed pass (seed 0) and the stopped pass on seeds 0 … N−1 (``--seeds``), same budget:
  verdicts, draws per world used, the share of the budget, seconds; and the draws ``pdp_audit.audit_pair`` uses on
  its defaults (``default_drawn_per_world``, seed 0: early stopping is the default, so they are the stopped pass's).
  Plain draws pass no δ below about log(1/a)/trials (a the level of one bound: about 2e-4 at 1e5, α = 1e-6): the
  plain pair's claims of δ ≤ 1e-5 are inconclusive in both passes, at any budget under a few million.
* ``mutants``: every pair mutant of the zoo (:mod:`pdp_audit.mutants`; its coverage mutants have no pair
  pass) with early stopping, at the zoo's default budget: caught or not, the draws per world it used; then a summary
  line (all caught, the median draws per mutant and its ratio to the budget).  ``--twins`` audits the correct twins
  too (each must pass); ``--baseline`` times the fixed pass of the whole budget too, on the same seed.
* ``width``: the interval of the DP checks at the full budget, read at the last look's share of α, and at an
  earlier look's, against the fixed pass's interval on the same draws (the price of stopping, goal ≤ 1.3×).

    python benchmarks/pair_early_stop.py --part gaussian [--pair view plain] [--seeds N]
    python benchmarks/pair_early_stop.py --part mutants [--only ID ...] [--twins] [--baseline]
    python benchmarks/pair_early_stop.py --part width
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np
from scipy import optimize, stats

ALPHA = 1e-6
TRIALS = 100_000


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def gaussian_delta(sigma: float, epsilon: float) -> float:
    """δ(ε) of N(1, σ²) against N(0, σ²) (Balle & Wang 2018, Theorem 8)."""
    a = 1 / (2 * sigma)
    return float(stats.norm.cdf(a - epsilon * sigma) - np.exp(epsilon) * stats.norm.cdf(-a - epsilon * sigma))


def needed_sigma(epsilon: float, delta: float) -> float:
    return float(optimize.brentq(lambda s: gaussian_delta(s, epsilon) - delta, 0.05, 100.0))


class PlainGaussian:
    """The Gaussian mechanism without a noise view (as a user writes it: ``audit_pair``'s docstring)."""

    output_dim = 1

    def __init__(self, sigma: float):
        self.sigma = sigma

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + self.sigma * rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return (o**2 - (o - 1.0) ** 2) / (2 * self.sigma**2)


def _audit(pair, claim: tuple, early: bool, trials: int = TRIALS, seed: int = 0) -> tuple[list, float]:
    from pdp_audit.verify.core.checks import finalize
    from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks
    from pdp_audit.verify.evidence.pair_sequential import Stopping

    start = time.perf_counter()
    drawing = MainPass(stop=Stopping.of(ALPHA, early, None))
    checks = finalize(validated_dp_checks(pair, *claim, trials, seed, False, drawing=drawing), ALPHA)
    return checks, time.perf_counter() - start


def _drawn(checks: list, trials: int) -> int:
    """The draws per world the pass used; for a pair that broke the protocol (no pass was read), the first look's,
    an upper bound (it fails in the rng probe before any, or in the first look's blocks)."""
    from pdp_audit.verify.evidence.pair_sequential import FIRST_LOOK

    found = [c.details["early_stop"]["drawn_per_world"] for c in checks if "early_stop" in c.details]
    if found:
        return found[0]
    return min(FIRST_LOOK, trials) if any(c.id == "pair-protocol" for c in checks) else trials


def _default_drawn(pair, claim: tuple) -> int:
    """The draws per world ``pdp_audit.audit_pair`` uses on its defaults (early stopping, issue 43) at this budget:
    the budget itself where a default draws it all."""
    import pdp_audit

    run = pdp_audit.audit_pair(pair, *claim, trials=TRIALS, alpha=ALPHA)
    return _drawn(list(run.checks), TRIALS)


def _verdict(checks: list) -> str:
    from pdp_audit.verify.core.checks import worst

    return worst(c.verdict for c in checks)


#: The claims the docs use, and two more: the pair at twice the σ each needs.
CLAIMS = ((1.0, 1e-3), (1.0, 1e-5), (0.5, 1e-6), (2.0, 1e-5))


def part_gaussian(pairs: list[str], seeds: int) -> None:
    from pdp_audit.mutants import gaussian

    makers = {"view": gaussian, "plain": PlainGaussian}
    for kind in pairs:
        for claim in CLAIMS:
            sigma = 2 * needed_sigma(*claim)
            fixed, fixed_s = _audit(makers[kind](sigma), claim, False)
            runs = [_audit(makers[kind](sigma), claim, True, seed=seed) for seed in range(seeds)]
            drawn = [_drawn(early, TRIALS) for early, _ in runs]
            print(
                json.dumps(
                    {
                        "benchmark": "pair_early_stop/gaussian",
                        "pair": kind,
                        "claim": list(claim),
                        "sigma": round(sigma, 4),
                        "needed_sigma": round(sigma / 2, 4),
                        "budget_per_world": TRIALS,
                        "fixed_verdict": _verdict(fixed),
                        "seeds": seeds,
                        "early_verdicts": [_verdict(early) for early, _ in runs],
                        "stopped": [early[-1].details["early_stop"]["stopped"] for early, _ in runs],
                        "early_drawn_per_world": drawn,
                        "share_of_budget": [round(d / TRIALS, 4) for d in drawn],
                        "max_share_of_budget": round(max(drawn) / TRIALS, 4),
                        "default_drawn_per_world": _default_drawn(makers[kind](sigma), claim),
                        "fixed_s": round(fixed_s, 2),
                        "early_s": round(statistics.median(s for _, s in runs), 2),
                        "load": load(),
                    }
                ),
                flush=True,
            )


def part_mutants(only: list[str] | None, twins: bool, trials: int, baseline: bool = False) -> None:
    from pdp_audit.mutant_runs import audit_case, case_seed
    from pdp_audit.mutants import MUTANTS, PairCase

    drawn_all, caught_all = [], True
    for mutant in MUTANTS:
        if only and mutant.id not in only:
            continue
        case = mutant.broken()
        if not isinstance(case, PairCase):
            continue
        start = time.perf_counter()
        checks = audit_case(case, trials, case_seed(0, mutant.id, "mutant"), ALPHA, early_stop=True)
        seconds = time.perf_counter() - start
        caught, drawn = _verdict(checks) == "fail", _drawn(checks, trials)
        drawn_all.append(drawn)
        caught_all &= caught
        line = {
            "benchmark": "pair_early_stop/mutant",
            "id": mutant.id,
            "caught": caught,
            "caught_by": [c.id for c in checks if c.verdict == "fail"],
            "drawn_per_world": drawn,
            "seconds": round(seconds, 2),
        }
        if twins:
            twin = audit_case(mutant.twin(), trials, case_seed(0, mutant.id, "twin"), ALPHA, early_stop=True)
            line |= {"twin_verdict": _verdict(twin), "twin_drawn_per_world": _drawn(twin, trials)}
        if baseline:  # the fixed pass of the whole budget, same seed, in this process after the stopped one
            start = time.perf_counter()
            fixed = audit_case(case, trials, case_seed(0, mutant.id, "mutant"), ALPHA)
            line |= {"fixed_caught": _verdict(fixed) == "fail", "fixed_seconds": round(time.perf_counter() - start, 2)}
            line["speedup"] = round(line["fixed_seconds"] / max(seconds, 1e-3), 1)
        print(json.dumps(line | {"load": load()}), flush=True)
    median = statistics.median(drawn_all) if drawn_all else None
    summary = {
        "benchmark": "pair_early_stop/mutants",
        "mutants": len(drawn_all),
        "all_caught": caught_all,
        "budget_per_world": trials,
        "median_drawn_per_world": median,
        "median_share_of_budget": None if median is None else round(median / trials, 4),
        "load": load(),
    }
    print(json.dumps(summary), flush=True)


def part_width() -> None:
    """The DP checks' intervals on the same draws of a fixed pass of the whole budget: the fixed pass's, read at α,
    against the pass in looks' -- its estimates as a look builds them (the relative-entropy bounds of
    :class:`pdp_audit.verify.estimators.loss_scale_band.ScaleBand`, ``entropy``) read at the last look's share and at
    an earlier look's (:func:`pdp_audit.verify.evidence.pair_sequential.at_look`): the width ratios."""
    from pdp_audit.mutants import gaussian
    from pdp_audit.verify.core.checks import finalize
    from pdp_audit.verify.evidence import pair_checks, pair_stream, pair_validation
    from pdp_audit.verify.evidence import pair_sequential as sequential

    shares = sequential.look_shares(len(sequential.looks(TRIALS)))
    for kind, pair, claim in (
        ("plain", PlainGaussian(needed_sigma(1.0, 1e-3)), (1.0, 1e-3)),
        ("plain", PlainGaussian(2 * needed_sigma(1.0, 1e-3)), (1.0, 1e-3)),
        ("plain", PlainGaussian(1.0), (1.0, 0.2)),
        ("view", gaussian(needed_sigma(1.0, 1e-5)), (1.0, 1e-5)),
    ):
        streamed = pair_stream.stream_losses(pair, claim[0], TRIALS, 0)
        replayed = pair_validation.replay_view(pair, 0, TRIALS)
        views = (replayed, pair_validation.noise_view_check(pair, streamed.heads, 0, streamed.resolution, replayed))
        fixed = pair_checks._checks_of(pair, streamed, claim, (TRIALS, 0), False, views)
        looked = pair_checks._checks_of(pair, streamed, claim, (TRIALS, 0, (TRIALS, {})), False, views)
        widths = {}
        for name, evidence, share in (
            ("fixed", fixed, 1.0),
            ("last_look", looked, shares[-1]),
            ("earlier_look", looked, shares[0]),
        ):
            checks = finalize([sequential.at_look(e, share) for e in evidence], ALPHA)
            ci = next(c.ci for c in checks if c.id == "dp-forward")
            widths[name] = ci[1] - ci[0]
        print(
            json.dumps(
                {
                    "benchmark": "pair_early_stop/width",
                    "pair": kind,
                    "claim": list(claim),
                    "sigma": round(pair.sigma, 4),
                    "trials": TRIALS,
                    "fixed_width": widths["fixed"],
                    "last_look_ratio": round(widths["last_look"] / widths["fixed"], 4),
                    "earlier_look_ratio": round(widths["earlier_look"] / widths["fixed"], 4),
                    "load": load(),
                }
            ),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("gaussian", "mutants", "width"), required=True)
    parser.add_argument("--only", nargs="+", default=None, help="mutant ids")
    parser.add_argument("--twins", action="store_true", help="audit the mutants' correct twins too")
    parser.add_argument("--baseline", action="store_true", help="time each mutant's fixed pass too (same seed)")
    parser.add_argument("--trials", type=int, default=TRIALS, help="the mutants' budget per world")
    parser.add_argument("--pair", nargs="+", default=["view", "plain"], choices=("view", "plain"), help="gaussian's")
    parser.add_argument("--seeds", type=int, default=1, help="gaussian's stopped passes: seeds 0 … N−1")
    args = parser.parse_args()
    if args.part == "gaussian":
        part_gaussian(args.pair, args.seeds)
    elif args.part == "mutants":
        part_mutants(args.only, args.twins, args.trials, args.baseline)
    else:
        part_width()


if __name__ == "__main__":
    main()
