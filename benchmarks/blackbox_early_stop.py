"""The black box's fresh pass stopped once decided (:mod:`pdp_audit.audits.blackbox.anytime`) against the whole budget.

For each mechanism -- some of DP-Sniper's incorrect variants (:mod:`peer_mechanisms`) and a Laplace mechanism whose
noise is a quarter of what its claim needs (it leaks 4x) -- the event test runs twice in this process on the same
seed and budget: the fixed pass (the whole ``--trials``, Clopper–Pearson) and the pass in rounds stopped at
α = 1e-6.  One JSON line per mechanism: the releases drawn per world by each (training, selection and fresh, a
pilot's included), the fresh ones alone, their ratio, both bounds at α = 1e-6, both verdicts (refuted or not), why
the stopped pass stopped and which stage decided (from 1e6 fresh releases a pilot attack runs first:
:func:`pdp_audit.audits.blackbox.attack._staged_attack`; ``carried_per_world`` where a middle stage refuted with the
events of the stage before it, counted on that stage's fresh releases too), and the wall-clock seconds of each (the
load beside them: the machine may be shared; the stopped pass runs first and pays the process's warm-up); and the
fresh releases
``pdp_audit.audit_blackbox`` draws on its defaults at that budget (``default_fresh_per_world``: early stopping is
the default; not with ``--early-only``, which runs the stopped pass alone and nothing else).

    python benchmarks/blackbox_early_stop.py                       # 4 mechanisms at 1e6 fresh releases per world
    python benchmarks/blackbox_early_stop.py --trials 8000000 --mechanisms SVT3   # the default budget
    python benchmarks/blackbox_early_stop.py --trials 8000000 --early-only --mechanisms SVT5 SVT6   # no baseline
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_mechanisms import PEERS  # noqa: E402

ALPHA = 1e-6
MECHANISMS = ("LeakyLaplace", "NoisyHist2", "ReportNoisyMax3", "SVT4")


class LeakyLaplace:
    """Laplace noise of scale 1/4 on a sensitivity-1 query claimed 1-DP: ε = 4 in truth."""

    claimed_epsilon = 1.0

    def __call__(self, world: str):
        shift = 1.0 if world == "D" else 0.0
        return _Laplace(shift)


class _Laplace:
    def __init__(self, shift: float):
        self.shift = shift

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(self.shift, 0.25, size=(size, 1))


def _samplers(name: str):
    if name == "LeakyLaplace":
        leaky = LeakyLaplace()
        return leaky("D"), leaky("D'"), leaky.claimed_epsilon
    peer = {p.name: p for p in PEERS}[name]
    return peer.pair.sample_world("D"), peer.pair.sample_world("D'"), peer.claimed_epsilon


def run_one(name: str, trials: int, seed: int, early_only: bool = False) -> dict:
    from pdp_audit.audits.blackbox.attack import AttackOptions, blackbox_attack
    from pdp_audit.audits.blackbox.events import selection_size

    sample_d, sample_dp, claimed = _samplers(name)
    row: dict = {"benchmark": "blackbox_early_stop", "mechanism": name, "claimed_epsilon": claimed, "trials": trials}
    modes = (("early", (claimed, ALPHA)), ("fixed", None))[: 1 if early_only else 2]
    for mode, stop_at in modes:  # the first pays the warm-up
        start, cpu = time.perf_counter(), time.process_time()
        options = AttackOptions(stop_at=stop_at, law="ideal")  # the papers' real-valued laws
        result = blackbox_attack(sample_d, sample_dp, trials, 0.0, seed, options=options)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        attack = result.attack
        fresh = max(attack.n, attack.m)
        bound = result.epsilon_lower_bound_at(ALPHA)
        learned = result.train_per_world + selection_size(result.test_per_world)  # some reused from earlier stages
        before = getattr(attack, "before", 0)  # a staged attack's pilot, when the full attack ran after it
        row[mode] = {
            "fresh_per_world": fresh,
            "releases_per_world": before + learned - result.reused_per_world + fresh,
            "bound_alpha_1e-6": round(bound, 4),
            "refuted": bound > claimed,
            "seconds": round(seconds, 1),
            "cpu_seconds": round(cpu, 2),
            **({"stopped": attack.stopped, "rounds": attack.rounds, "stage": attack.stage} if stop_at else {}),
            **({"carried_per_world": attack.carried} if getattr(attack, "carried", 0) else {}),
        }
    if early_only:  # the stopped pass alone: no second audit on the defaults either
        row["load"] = round(os.getloadavg()[0], 2)
        return row
    row["default_fresh_per_world"] = _default_fresh(sample_d, sample_dp, claimed, trials, seed)
    row["fresh_ratio"] = round(row["early"]["fresh_per_world"] / row["fixed"]["fresh_per_world"], 4)
    row["releases_ratio"] = round(row["early"]["releases_per_world"] / row["fixed"]["releases_per_world"], 4)
    row["seconds_ratio"] = round(row["early"]["seconds"] / max(row["fixed"]["seconds"], 1e-9), 3)
    row["load"] = round(os.getloadavg()[0], 2)
    return row


def _default_fresh(sample_d, sample_dp, claimed: float, trials: int, seed: int) -> int:
    """The fresh releases per world ``pdp_audit.audit_blackbox`` draws on its defaults (early stopping, issue 43) at
    this budget, in one process: ``trials`` where a default draws them all."""
    import pdp_audit

    budget = pdp_audit.BlackBoxBudget(workers=1, law="ideal")  # the peers are real-valued laws (their papers')
    run = pdp_audit.audit_blackbox(
        (sample_d, sample_dp), claimed, 0.0, trials=trials, seed=seed, alpha=ALPHA, budget=budget
    )
    stopped = run.checks[0].details.get("early_stop")
    return trials if stopped is None else max(stopped["fresh_drawn"].values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS))
    parser.add_argument(
        "--early-only", action="store_true", help="the stopped pass alone (no fixed baseline, no run on the defaults)"
    )
    args = parser.parse_args()
    for name in args.mechanisms:
        print(json.dumps(run_one(name, args.trials, args.seed, args.early_only), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
