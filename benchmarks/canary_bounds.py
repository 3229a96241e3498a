"""ε lower bounds from canary scores, ours against jax-privacy's, on identical scores (``pdp-audit canaries``).

Two settings, one JSON line per setting, each the mean over seeds of bound / true ε (``null`` without jax-privacy):

* ``two_column`` (``pdp_audit.audit_canary_scores``): in- and out-canary scores are exact privacy losses of the
  Gaussian mechanism (Δ = 1, noise σ) drawn from D and D', n per side; ours is
  :func:`pdp_audit.verify.estimators.attack.pooled_rank_attack`, jax's ``CanaryScoreAuditor.epsilon_clopper_pearson``
  (Bonferroni thresholds, both inequalities: ``one_sided=False``); confidence 1 − 1e-6, δ = 1e-5.
* ``one_run`` (``pdp_audit.audit_one_run``): m canaries, each included with probability 1/2; an included canary's
  score is a loss drawn from D, an excluded one's from D' (or, ``rr``, randomised response at ε: the bit flipped
  with probability 1/(1 + e^ε), δ = 0); ours is :mod:`pdp_audit.audits.canaries.one_run` (guesses on a 16-pair grid,
  union
  bound), jax's ``epsilon_one_run`` (k₋ = 0, Bonferroni over thresholds) on the same scores split by the bits;
  confidence 0.95 as in Steinke et al., δ = 1e-5 (Gaussian) or 0 (rr).
* ``example`` (with ``--example``): the scores of ``examples/canaries/train.py`` (DP-SGD logistic regression),
  two-column and one-run, where no true ε is known: the bounds side by side.

Fields: "benchmark", "setting", "mechanism", "n" (per side, or m), "true_epsilon", "alpha", "delta", "ours", "jax"
(means of bound / true ε; raw bounds for ``example``), "ours_over_jax" (ratio of the means), "ours_over_jax_min"
(smallest per-seed ratio), "max_over_true" (every bound, ours and jax's: above 1 would be invalid), "seeds".
jax-privacy is installed in a separate environment, as for ``benchmarks/epsilon_lower_bounds.py`` (see there)::

    /tmp/benchenv/bin/python benchmarks/canary_bounds.py
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from epsilon_lower_bounds import jax_auditing

from pdp_audit.audits.canaries.one_run import one_run_attack
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.verify.estimators.attack import pooled_rank_attack
from pdp_audit.verify.estimators.engine import sample_privacy_loss


def gaussian_pair(sigma: float):
    return g.GaussianPair([0.0], [1.0], sigma)


def one_run_scores(mechanism: str, parameter: float, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    included = rng.random(m) < 0.5
    if mechanism == "rr":
        truthful = rng.random(m) < 1 / (1 + math.exp(-parameter))
        # a tiny distinct offset per canary: jax-privacy's thresholds need no ties to break
        return np.where(truthful, included, ~included) + rng.random(m) * 1e-9, included
    pair = gaussian_pair(parameter)
    d, dp = sample_privacy_loss(pair, "D", m, seed + 1), sample_privacy_loss(pair, "D'", m, seed + 2)
    return np.where(included, d, dp), included


def row(case: dict, ours: list[float], jax: list[float]) -> dict:
    """The JSON line of one ``case`` (setting, mechanism, n, true_epsilon, alpha, delta, seeds): means of bound / true
    ε, ours and jax-privacy's, and their ratios."""
    true = case["true_epsilon"]
    mean_ours = float(np.mean(ours)) / true
    mean_jax = float(np.mean(jax)) / true if jax else None
    return {
        "benchmark": "canary_bounds",
        **{k: case[k] for k in ("setting", "mechanism", "n")},
        "true_epsilon": round(true, 4),
        "alpha": case["alpha"],
        "delta": case["delta"],
        "ours": round(mean_ours, 4),
        "jax": None if mean_jax is None else round(mean_jax, 4),
        "ours_over_jax": None if not mean_jax else round(mean_ours / mean_jax, 3),
        "ours_over_jax_min": None
        if not jax
        else round(min(a / b if b > 0 else math.inf for a, b in zip(ours, jax)), 3),
        "max_over_true": round(max(list(ours) + list(jax)) / true, 4),
        "seeds": case["seeds"],
    }


def two_column(jax, seeds: int) -> None:
    alpha, delta = 1e-6, 1e-5
    for sigma in (3.7306, 1.87):
        true = g.analytic_epsilon(delta, sigma)
        for n in (10_000, 100_000):
            ours, theirs = [], []
            for seed in range(seeds):
                pos = sample_privacy_loss(gaussian_pair(sigma), "D", n, seed)
                neg = sample_privacy_loss(gaussian_pair(sigma), "D'", n, seed + 1000)
                ours.append(pooled_rank_attack(pos, neg, delta, seed).epsilon_lower_bound_at(alpha))
                if jax is not None:
                    auditor = jax.CanaryScoreAuditor(pos, neg)
                    theirs.append(auditor.epsilon_clopper_pearson(alpha, delta, one_sided=False))
            case = {"setting": "two_column", "mechanism": f"gaussian sigma={sigma}", "n": n, "true_epsilon": true}
            print(json.dumps(row({**case, "alpha": alpha, "delta": delta, "seeds": seeds}, ours, theirs)))


def one_run(jax, seeds: int) -> None:
    alpha = 0.05
    for mechanism, parameter, delta in (("gaussian", 1.0, 1e-5), ("gaussian", 0.5, 1e-5), ("rr", 2.0, 0.0)):
        true = parameter if mechanism == "rr" else g.analytic_epsilon(delta, parameter)
        for m in (1_000, 10_000):
            ours, theirs = [], []
            for seed in range(seeds):
                scores, included = one_run_scores(mechanism, parameter, m, seed)
                ours.append(one_run_attack(scores, included, delta, seed=seed).epsilon_lower_bound_at(alpha))
                if jax is not None:
                    auditor = jax.CanaryScoreAuditor(scores[included], scores[~included])
                    theirs.append(auditor.epsilon_one_run(alpha, max(delta, 1e-300)))
            name = f"{mechanism} {'epsilon' if mechanism == 'rr' else 'sigma'}={parameter}"
            case = {"setting": "one_run", "mechanism": name, "n": m, "true_epsilon": true}
            print(json.dumps(row({**case, "alpha": alpha, "delta": delta, "seeds": seeds}, ours, theirs)))


def example(jax, folder: Path) -> None:
    """The example's scores: two-column (in/out files) and one-run (scores with bits), bounds side by side."""
    import csv

    def column(path: Path, name: str) -> np.ndarray:
        with path.open() as handle:
            return np.array([float(r[name]) for r in csv.DictReader(handle)])

    pos, neg = column(folder / "in_scores.csv", "score"), column(folder / "out_scores.csv", "score")
    ours = pooled_rank_attack(pos, neg, 1e-5, 0).epsilon_lower_bound_at(1e-6)
    theirs = jax.CanaryScoreAuditor(pos, neg).epsilon_clopper_pearson(1e-6, 1e-5, one_sided=False) if jax else None
    print(json.dumps({"benchmark": "canary_bounds", "setting": "example_two_column", "ours": ours, "jax": theirs}))
    scores, bits = column(folder / "one_run.csv", "score"), column(folder / "one_run.csv", "included") > 0.5
    ours = one_run_attack(scores, bits, 1e-5).epsilon_lower_bound_at(0.05)
    theirs = jax.CanaryScoreAuditor(scores[bits], scores[~bits]).epsilon_one_run(0.05, 1e-5) if jax else None
    print(json.dumps({"benchmark": "canary_bounds", "setting": "example_one_run", "ours": ours, "jax": theirs}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--example", default=None, help="a folder of examples/canaries/train.py's CSVs")
    args = parser.parse_args(argv)
    jax = jax_auditing()
    if jax is None:
        print("jax-privacy not found: our bounds only", file=sys.stderr)
    two_column(jax, args.seeds)
    one_run(jax, args.seeds)
    if args.example:
        example(jax, Path(args.example))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
