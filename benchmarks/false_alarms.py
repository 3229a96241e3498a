"""False alarms, measured: correct mechanisms audited under many independent seeds.

Each correct mechanism -- the twins of the mutant zoo (:mod:`pdp_audit.mutants`): the analytic, the classical and
the sensitivity-correct Gaussian, the Gaussian with a noise view, One-Posterior-Sample, the Laplace mechanism with
1.5× the noise its claim needs (an atom of the loss below ε: without a noise view the draws pin a loss's scale only to a
band, :mod:`pdp_audit.verify.estimators.loss_scale_band`), Corollary 23's ex-post bound, Student-t noise (heavy tails),
the Laplace
mechanism claimed pure (δ = 0) and at ε = 20, two randomized-response reports (discrete), float32 releases of
the Gaussian and Laplace mechanisms, Laplace and geometric histograms with their noise views (decided at (1, 1e-6)
by exponential tilting), and a geometric count with its view claimed (1, 1e-6) (the twin of a count that reveals
its input) -- is audited ``--seeds`` times (default
200) at the plugin's default budget (1e5 releases per world, family-wise α = 1e-6 per run), each run with its own
root seed.  Prints one JSON line per mechanism:
{"benchmark": "false_alarms", "mechanism", "runs", "fail", "inconclusive", "fail_rate", "fail_rate_upper"
(Clopper–Pearson, 95%), "nominal_alpha", "inconclusive_rate", "seconds"} and a final line with the totals.
The target: observed fail rate ≤ nominal (no run may fail: at this many runs a single fail would already be far
above 1e-6), inconclusive rare enough that the default budget decides.

Each pair's pass is drawn in looks and stopped once decided, as every audit's is by default (``--trials`` the
maximum: :mod:`pdp_audit.verify.evidence.pair_sequential`); each line adds the median draws per world the runs used.
``--no-early-stop`` draws the whole budget in one pass.

``--as-implemented`` audits the twins that are DP as implemented in floating point (integer releases, Mironov's
snapping, OpenDP's ``make_laplace`` on its power-of-two grid -- skipped with a note where opendp is not installed:
:data:`AS_IMPLEMENTED`) at the user's pair's default law, which reads the releases' float structure too (the zoo's
twins above are the papers' real-valued mechanisms and are audited at the ideal law);
``benchmarks/false_alarms_as_implemented.jsonl`` holds its runs, one line per twin and seed range.

``--first-seed N`` runs the seeds N .. N + ``--seeds`` − 1 (each mechanism's run seeds derive from them), so that a
seed range can be split over processes and their lines added up.

``--blackbox`` audits the same correct pairs (a coverage twin has no pair: skipped) through the black box instead
(``pdp_audit.audit_blackbox``, the exact event test stopped once decided) at ``--blackbox-trials`` fresh releases per
world (default 1e6, the smallest budget the black box stages: a pilot attack, then the full one,
:mod:`pdp_audit.audits.blackbox.stages`) learning from ``--blackbox-train`` releases per world, and counts the
refutations: the black box never certifies, so ``inconclusive`` is a correct pair's right answer and every ``fail``
of ``blackbox-attack`` a false alarm (a ``pair-protocol`` fail -- a sampler that does not draw from its rng alone --
is counted apart).  One JSON line per mechanism: {"benchmark": "false_alarms_blackbox", "mechanism", "runs",
"refuted", "protocol", "stages" (the stage each run stopped at, counted), "median_fresh_per_world", "seconds"}, and
the totals.

    python benchmarks/false_alarms.py --seeds 200
    python benchmarks/false_alarms.py --seeds 200 --no-early-stop
    python benchmarks/false_alarms.py --blackbox --seeds 5 --wide-seeds 0
    python benchmarks/false_alarms.py --as-implemented --seeds 1000
    python benchmarks/false_alarms.py --seeds 100 --shard 0/2 &
    python benchmarks/false_alarms.py --seeds 100 --shard 1/2
    python benchmarks/false_alarms.py --as-implemented --only opendp --seeds 50 --first-seed 0 &
    python benchmarks/false_alarms.py --as-implemented --only opendp --seeds 50 --first-seed 50
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Callable

from pdp_audit import mutant_runs as zoo_runs
from pdp_audit import mutants as zoo
from pdp_audit.mechanisms import float_twins
from pdp_audit.mechanisms import mutant_pairs as mp
from pdp_audit.mechanisms import release_precision_pairs as rp
from pdp_audit.verify.core.checks import worst
from pdp_audit.verify.estimators.stats import clopper_pearson

#: The correct mechanisms: the twin of each named mutant (distinct mechanisms only).
TWINS_OF = (
    "noise-halved",  # analytic Gaussian, σ for (1, 1e-6), claim (1, 1e-5)
    "classical-missing-2",  # classical Gaussian
    "one-sided-sensitivity",  # the mean with the removal sensitivity
    "inconsistent-noise-view",  # a user's pair with a consistent noise view
    "ops-transposed-cholesky",  # One-Posterior-Sample, claim (1, 1e-2)
    "laplace-scale-times-epsilon",  # Laplace, (1/3, 0)-DP: an atom of the loss below ε, claim (0.5, 1e-2)
    "ex-post-wrong-sign",  # Corollary 23's ex-post bound, coverage at ρ = 0.05
    "student-t-scale-too-small",  # heavy tails: Student-t(3) noise, δ(1) = 0, claim (1, 1e-3)
    "pure-claim-scale-too-small",  # Laplace claimed pure: (1, 0)
    "releases-input-at-large-epsilon",  # Laplace (4, 0)-DP, claim (20, 1e-3)
    "two-reports-loss-of-one",  # discrete: two randomized-response reports, (2/3, 0)-DP, claim (1, 1e-3)
    "float32-noise-halved",  # a float32 Gaussian release with its noise view
    "float32-laplace-scale-halved",  # a float32 Laplace release, (2/3, 0)-DP: its atom spread by rounding
    "laplace-histogram-scale-0.8",  # a Laplace histogram with its Laplace view, exactly (1, 0)-DP, claim (1, 1e-6)
    "geometric-histogram-scale-0.8",  # the same with two-sided geometric noise and view (discrete, tilted)
    "geometric-count-reveals-input",  # a geometric count with its view, (1, 0)-DP by its proof, claim (1, 1e-6)
)


#: Correct mechanisms of the soundness issue's classes, beside the zoo's twins: (pair, ε, δ) by name.  A release in
#: float16 (the exact loss of its rounding cells; a Laplace), a loss that writes into its input, a sampler of its own
#: source (numpy's global generator: audited, not reproducible), a Laplace histogram over 1000 bins with its view
#: claimed pure (the bounded-loss proof; about 100 s a run, so fewer seeds: ``--wide-seeds``), 20 geometric counts
#: each moved by one at δ(0.9) = 1.5e-7 claimed (0.9, 1e-6) (decided by the tilt along the loss).
EXTRA = {
    "float16-gaussian-cells": (lambda: rp.GaussianF16Cells(4.0), 1.0, 1e-2),
    "float16-laplace": (lambda: rp.LaplaceF16(), 1.2, 1e-3),
    "in-place-loss": (lambda: mp.InPlaceLoss(mp.SIGMA_TWIN), 1.0, 1e-5),
    "global-generator": (lambda: mp.GlobalNumpy(), 1.0, 1e-3),
    "laplace-1000-bins-pure": (lambda: mp.WideLaplace(1.0, 1000), 1.0, 0.0),
    "geometric-20-counts-small-delta": (lambda: mp.MovedCounts(), 0.9, 1e-6),  # δ(0.9) = 1.5e-7: the tilt decides
}


def cases(seeds: int, wide_seeds: int) -> list[tuple[str, Callable[[], object], int]]:
    """(name, case factory, runs) of every correct mechanism: the zoo's twins, then :data:`EXTRA`."""
    by_id = {m.id: m for m in zoo.MUTANTS}
    found = [(f"twin of {i}", by_id[i].twin, seeds) for i in TWINS_OF]
    for name, (pair, epsilon, delta) in EXTRA.items():
        runs = wide_seeds if name.startswith("laplace-1000") else seeds
        found.append((name, lambda pair=pair, e=epsilon, d=delta: zoo.PairCase(pair(), e, d), runs))
    return found


def opendp_laplace():
    """OpenDP's ``make_laplace`` at scale 1 on the inputs 0 and 1 as the user ships it (OpenDP 0.16 samples exactly
    on a power-of-two grid: the input rounded to it, discrete Laplace noise on it), through
    :class:`pdp_audit.mechanisms.adapters.opendp.MeasurementPair`, its releases drawn by the vector twin of the
    measurement (the adapter's ``batched``, about 4× cheaper a release).  ImportError without opendp (the
    ``libraries`` extra).  OpenDP draws from its own generator: a run's releases are not reproducible, its
    verdict's level is."""
    import opendp.prelude as dp

    from pdp_audit.mechanisms.adapters.opendp import MeasurementPair

    dp.enable_features("contrib")
    floats = dp.atom_domain(T=float, nan=False)
    scalar = dp.m.make_laplace(floats, dp.absolute_distance(T=float), scale=1.0)
    vector = dp.m.make_laplace(dp.vector_domain(floats), dp.l1_distance(T=float), scale=1.0)
    return MeasurementPair(scalar, 0.0, 1.0, batched=vector)


#: Pairs that are DP as implemented in floating point (:mod:`pdp_audit.mechanisms.float_twins`, and OpenDP's exact
#: sampler: :func:`opendp_laplace`), audited as the user's pair is by default (``law="as-implemented"``: the
#: float-structure events read too): (pair, ε, δ) by name.  Each is exactly (1, 0)-DP; the claim (1.1, 1e-3) leaves
#: the margin a sampled certificate needs.
AS_IMPLEMENTED = {
    "integer-two-sided-geometric": (lambda: float_twins.IntegerLaplace(), 1.1, 1e-3),
    "snapped-laplace": (lambda: float_twins.SnappedLaplace(), 1.1, 1e-3),
    "opendp-laplace": (opendp_laplace, 1.1, 1e-3),
}


def as_implemented_main(args) -> int:
    """``--as-implemented``: the twins of :data:`AS_IMPLEMENTED` through ``pdp_audit.audit_pair`` at its default law,
    each run in this process (``workers=1``: a split of the seeds over processes, ``--first-seed``, is what spends
    the cores); every ``fail`` is a false alarm.  One JSON line per twin (a twin whose library is not installed: one
    line saying so) and the totals; exit 1 on any fail."""
    import pdp_audit

    total = {"runs": 0, "fail": 0, "inconclusive": 0}
    shard, shards = (int(x) for x in args.shard.split("/"))
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    for index, (name, (pair, epsilon, delta)) in enumerate(AS_IMPLEMENTED.items()):
        if args.only not in name or index % shards != shard:
            continue
        try:
            pair()
        except ImportError as err:
            missing = (err.name or str(err)).split(".")[0]
            skipped = f"skipped: {missing} is not installed (pip install 'pdp-audit[libraries]')"
            print(json.dumps({"benchmark": "false_alarms_as_implemented", "mechanism": name, "note": skipped}))
            continue
        start = time.perf_counter()
        budget = pdp_audit.PairBudget(args.trials, workers=1, early_stop=args.early_stop, law="as-implemented")
        verdicts = [
            pdp_audit.audit_pair(
                pair(),
                epsilon,
                delta,
                trials=budget,
                seed=zoo_runs.case_seed(seed, name, "false-alarm"),
                alpha=args.alpha,
            ).verdict
            for seed in seeds
        ]
        fails, inconclusive = verdicts.count("fail"), verdicts.count("inconclusive")
        line = {
            "benchmark": "false_alarms_as_implemented",
            "mechanism": name,
            "runs": len(verdicts),
            "fail": fails,
            "inconclusive": inconclusive,
            "fail_rate_upper": round(float(clopper_pearson(fails, len(verdicts), 0.05, side="upper")[1]), 5),
            "nominal_alpha": args.alpha,
            "seconds": round(time.perf_counter() - start, 1),
            "trials": args.trials,
            "seeds": f"{seeds.start}-{seeds.stop - 1}",
        }
        print(json.dumps(line), flush=True)
        for key in total:
            total[key] += line[key]
    print(json.dumps({"benchmark": "false_alarms_as_implemented", "mechanism": "all", **total}))
    return 0 if total["fail"] == 0 else 1


def blackbox_run(case: zoo.PairCase, trials: int, train: int, seed: int, alpha: float) -> tuple[str, dict]:
    """One black-box audit of ``case``'s pair at its claim: ``refuted``, ``protocol`` (the sampler broke its
    protocol) or ``inconclusive``, and the stopped pass's record (its stage, the fresh releases drawn)."""
    import pdp_audit
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget

    # the zoo's twins are the papers' real-valued mechanisms, sampled in float64: their law is what is claimed (as
    # implemented, a float twin's doubles can carry its input: issue 60; integer twins read the same either way)
    budget = BlackBoxBudget(train_trials=train, workers=1, early_stop=True, law="ideal")
    run = pdp_audit.audit_blackbox(
        case.pair, case.epsilon, case.delta, trials=trials, seed=seed, alpha=alpha, budget=budget
    )
    check = run.checks[0]
    if run.verdict != "fail":
        return "inconclusive", dict(check.details.get("early_stop") or {})
    return ("refuted" if check.id == "blackbox-attack" else "protocol"), dict(check.details.get("early_stop") or {})


def blackbox_main(args) -> int:
    """``--blackbox``: every correct pair through the black box (module notes); exit 1 on any refutation."""
    total = {"runs": 0, "refuted": 0, "protocol": 0}
    shard, shards = (int(x) for x in args.shard.split("/"))
    for index, (name, twin, runs) in enumerate(cases(args.seeds, args.wide_seeds)):
        if args.only not in name or index % shards != shard or not runs or not isinstance(twin(), zoo.PairCase):
            continue
        start = time.perf_counter()
        outcomes, stages, fresh = [], {}, []
        for seed in range(args.first_seed, args.first_seed + runs):
            seed_of = zoo_runs.case_seed(seed, name, "blackbox-false-alarm")
            outcome, record = blackbox_run(twin(), args.blackbox_trials, args.blackbox_train, seed_of, args.alpha)
            outcomes.append(outcome)
            stages[record.get("stage", "-")] = stages.get(record.get("stage", "-"), 0) + 1
            fresh += [max(record["fresh_drawn"].values())] if "fresh_drawn" in record else []
        line = {
            "benchmark": "false_alarms_blackbox",
            "mechanism": name,
            "runs": len(outcomes),
            "refuted": outcomes.count("refuted"),
            "protocol": outcomes.count("protocol"),
            "stages": stages,
            "trials": args.blackbox_trials,
            "train_trials": args.blackbox_train,
            "nominal_alpha": args.alpha,
            "seconds": round(time.perf_counter() - start, 1),
            **({"median_fresh_per_world": statistics.median(fresh)} if fresh else {}),
        }
        print(json.dumps(line), flush=True)
        for key in total:
            total[key] += line[key]
    upper = float(clopper_pearson(total["refuted"], max(total["runs"], 1), 0.05, side="upper")[1])
    line = {"benchmark": "false_alarms_blackbox", "mechanism": "all", **total, "refuted_rate_upper": round(upper, 6)}
    print(json.dumps(line))
    return 0 if total["refuted"] == 0 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200, help="independent runs per mechanism (default 200)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="run the seeds first-seed .. first-seed + seeds − 1 (default 0): a seed range split over processes",
    )
    parser.add_argument("--trials", type=int, default=zoo_runs.TRIALS, help="releases per world (default 1e5)")
    parser.add_argument("--alpha", type=float, default=1e-6, help="family-wise α of each run (default 1e-6)")
    parser.add_argument("--wide-seeds", type=int, default=10, help="runs of the 1000-bin Laplace (default 10)")
    parser.add_argument("--only", default="", help="run the mechanisms whose name contains this text")
    parser.add_argument("--shard", default="0/1", help="i/n: every n-th mechanism from the i-th (parallel runs)")
    parser.add_argument(
        "--early-stop",
        action=argparse.BooleanOptionalAction,
        default=zoo_runs.EARLY_STOP,
        help="draw each pass in looks, stopped once decided (the default; --no-early-stop: the whole budget)",
    )
    parser.add_argument("--blackbox", action="store_true", help="the correct pairs through the black box (notes)")
    parser.add_argument(
        "--as-implemented", action="store_true", help="the float twins DP as implemented, at the pair's default law"
    )
    parser.add_argument("--blackbox-trials", type=float, default=1e6, help="fresh releases per world (default 1e6)")
    parser.add_argument("--blackbox-train", type=float, default=5e4, help="training releases per world (default 5e4)")
    args = parser.parse_args(argv)
    if args.as_implemented:
        return as_implemented_main(args)
    if args.blackbox:
        args.blackbox_trials, args.blackbox_train = int(args.blackbox_trials), int(args.blackbox_train)
        return blackbox_main(args)
    total = {"runs": 0, "fail": 0, "inconclusive": 0}
    shard, shards = (int(x) for x in args.shard.split("/"))
    for index, (name, twin, runs) in enumerate(cases(args.seeds, args.wide_seeds)):
        if args.only not in name or index % shards != shard:
            continue
        start = time.perf_counter()
        verdicts, drawn = [], []
        for seed in range(args.first_seed, args.first_seed + runs):
            seed_of = zoo_runs.case_seed(seed, name, "false-alarm")
            checks = zoo_runs.audit_case(twin(), args.trials, seed_of, args.alpha, early_stop=args.early_stop)
            verdicts.append(worst(c.verdict for c in checks))
            drawn += [c.details["early_stop"]["drawn_per_world"] for c in checks[:1] if "early_stop" in c.details]
        fails, inconclusive = verdicts.count("fail"), verdicts.count("inconclusive")
        upper = float(clopper_pearson(fails, len(verdicts), 0.05, side="upper")[1])
        print(
            json.dumps(
                {
                    "benchmark": "false_alarms",
                    "mechanism": name,
                    "runs": len(verdicts),
                    "fail": fails,
                    "inconclusive": inconclusive,
                    "fail_rate": fails / len(verdicts),
                    "fail_rate_upper": round(upper, 5),
                    "nominal_alpha": args.alpha,
                    "inconclusive_rate": inconclusive / len(verdicts),
                    "seconds": round(time.perf_counter() - start, 1),
                    **({"median_drawn_per_world": statistics.median(drawn)} if drawn else {}),
                }
            ),
            flush=True,
        )
        total["runs"] += len(verdicts)
        total["fail"] += fails
        total["inconclusive"] += inconclusive
    upper = float(clopper_pearson(total["fail"], total["runs"], 0.05, side="upper")[1])
    print(json.dumps({"benchmark": "false_alarms", "mechanism": "all", **total, "fail_rate_upper": round(upper, 6)}))
    return 0 if total["fail"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
