"""Valid ε lower bounds of the likelihood-ratio attack, on identical scores: ours against jax-privacy's.

Scores are exact privacy losses of the Gaussian mechanism (Δ = 1) at σ = 3.7306 (calibrated to (1, 1e-5)) and
σ = 1.87 (a mutant), 1e5 and 1e6 per world, five seeds; every bound at confidence 1 − 1e-6 and δ = 1e-5.
Prints one JSON line per setting: {"benchmark": "epsilon_lower_bounds", "sigma", "n", "true_epsilon",
"split_half", "order_statistic", "pooled_rank", "jax_bonferroni" (null without jax-privacy), each the mean over
seeds of the bound divided by the true ε, "order_over_jax", "pooled_over_jax" (ratios of those means),
"pooled_over_jax_min" (the smallest per-seed ratio), "max_over_true" (all bounds), "pooled_max_over_true",
"seeds"} -- a bound above the true ε would be invalid.

* ``split_half``: the threshold chosen on one half of the samples (the best of 256 candidates at geometric FPR
  levels), the bound evaluated on the other half (:func:`pdp_audit.verify.estimators.attack.epsilon_lower_bound`): what
  the audits
  used before, kept here as the baseline;
* ``order_statistic``: :func:`pdp_audit.verify.estimators.order_statistic_attack.order_statistic_attack` (all
  samples, thresholds at fixed ranks of the order statistics, exact Beta laws, union bound: what the audits used
  before ``pooled_rank``);
* ``pooled_rank``: :func:`pdp_audit.verify.estimators.attack.likelihood_ratio_attack`, i.e.
:func:`pdp_audit.verify.estimators.attack.pooled_rank_attack`
  (Poissonised samples, a joint exact test of both rates on ramps of pooled ranks, union bound: what the audits
  use);
* ``jax_bonferroni``: jax-privacy's ``CanaryScoreAuditor.epsilon_clopper_pearson`` with its default
  Bonferroni threshold strategy, both DP inequalities (``one_sided=False``).

jax-privacy is a peer library for comparison only: install it in a separate environment, never in the runtime
dependencies.  Its auditing module needs only numpy, scipy and dp-accounting, so the package itself (which
imports jax) is not imported; its ``auditing.py`` is loaded from the installed files::

    python -m venv /tmp/benchenv && /tmp/benchenv/bin/pip install -e . dp-accounting
    /tmp/benchenv/bin/pip install --no-deps jax-privacy
    /tmp/benchenv/bin/python benchmarks/epsilon_lower_bounds.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import sysconfig
from pathlib import Path

import numpy as np

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.verify.estimators.attack import epsilon_lower_bound, likelihood_ratio_attack
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.order_statistic_attack import order_statistic_attack

ALPHA, DELTA = 1e-6, 1e-5


def split_half(pos: np.ndarray, neg: np.ndarray) -> float:
    """The held-out-half baseline: threshold chosen on the first halves, ε bounded on the second."""
    sel_pos, eval_pos = np.sort(pos[: pos.size // 2]), pos[pos.size // 2 :]
    sel_neg, eval_neg = np.sort(neg[: neg.size // 2]), neg[neg.size // 2 :]
    levels = np.unique(np.geomspace(1.0 / sel_neg.size, 0.5, 256))
    candidates = np.unique(np.quantile(sel_neg, 1 - levels, method="higher"))
    tp = sel_pos.size - np.searchsorted(sel_pos, candidates, side="left")
    fp = sel_neg.size - np.searchsorted(sel_neg, candidates, side="left")
    bounds = [epsilon_lower_bound(a, sel_pos.size, b, sel_neg.size, DELTA, ALPHA) for a, b in zip(tp, fp)]
    best = candidates[int(np.argmax(bounds))]
    return epsilon_lower_bound(
        int(np.sum(eval_pos >= best)), eval_pos.size, int(np.sum(eval_neg >= best)), eval_neg.size, DELTA, ALPHA
    )


def jax_auditing():
    """jax-privacy's ``auditing`` module loaded from its installed file, or None when it is not installed."""
    path = Path(sysconfig.get_paths()["purelib"]) / "jax_privacy" / "auditing.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("jax_privacy_auditing", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except ImportError:  # dp-accounting missing
        return None
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    jax = jax_auditing()
    for sigma in (3.7306, 1.87):
        true = g.analytic_epsilon(DELTA, sigma)
        for n in (100_000, 1_000_000):
            rows = {"split_half": [], "order_statistic": [], "pooled_rank": [], "jax_bonferroni": []}
            for seed in range(args.seeds):
                pair = g.GaussianPair([0.0], [1.0], sigma)
                pos = sample_privacy_loss(pair, "D", n, seed)
                neg = sample_privacy_loss(pair, "D'", n, seed)
                rows["split_half"].append(split_half(pos, neg) / true)
                rows["order_statistic"].append(
                    order_statistic_attack(pos, neg, DELTA).epsilon_lower_bound_at(ALPHA) / true
                )
                rows["pooled_rank"].append(likelihood_ratio_attack(pos, neg, DELTA, ALPHA).epsilon_lower_bound / true)
                if jax is not None:
                    auditor = jax.CanaryScoreAuditor(pos, neg)
                    rows["jax_bonferroni"].append(auditor.epsilon_clopper_pearson(ALPHA, DELTA, one_sided=False) / true)
            means = {k: (round(float(np.mean(v)), 4) if v else None) for k, v in rows.items()}
            every = [x for v in rows.values() for x in v]
            print(
                json.dumps(
                    {
                        "benchmark": "epsilon_lower_bounds",
                        "sigma": sigma,
                        "n": n,
                        "true_epsilon": round(true, 4),
                        **means,
                        "order_over_jax": (
                            round(means["order_statistic"] / means["jax_bonferroni"], 3)
                            if means["jax_bonferroni"]
                            else None
                        ),
                        "pooled_over_jax": (
                            round(means["pooled_rank"] / means["jax_bonferroni"], 3)
                            if means["jax_bonferroni"]
                            else None
                        ),
                        "pooled_over_jax_min": (
                            round(min(a / b for a, b in zip(rows["pooled_rank"], rows["jax_bonferroni"])), 3)
                            if rows["jax_bonferroni"]
                            else None
                        ),
                        "max_over_true": round(max(every), 4),
                        "pooled_max_over_true": round(max(rows["pooled_rank"]), 4),
                        "seeds": args.seeds,
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
