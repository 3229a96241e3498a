"""Budget hints of the built-in audits, measured: does the budget an inconclusive check names decide it?

``benchmarks/budget_hints.py`` measures the hints of a user's pair (``pair_claims.budget_to_decide``); the built-in
audits (``pdp-audit run gaussian|laplace|geometric|randomized-response|objpert``) name theirs with
:func:`pdp_audit.verify.core.checks.samples_to_decide` (hockey-stick tails, importance-sampled tails, coverage rates).
Each case below is a built-in audit at a claim near its boundary and a budget ``n`` where some guarantee is
inconclusive.  For every inconclusive check that names a budget N, the same command is run (``--repeats`` seeds) at
N/3 and at 3N and that check's verdict is read: the hint is *right within a factor of 3* when every run at 3N decides
it (pass or fail) and not every run at N/3 does.  Runs above ``--max-trials`` are skipped (null).  An inconclusive
guarantee that names no budget at all, and does not say why none can decide it, is counted as ``no_hint``.  One JSON
line per (case, check): {"benchmark": "budget_hints_builtin", "case", "argv", "trials", "check", "verdict", "hint",
"verdicts_at": {"third", "triple"}, "within_3x", "seconds"}, then a line with the totals.

    nice -n 10 python benchmarks/budget_hints_builtin.py --repeats 1

Measured (2026-11-24, shared 2-core machine, --repeats 1, about 8 minutes): 19 inconclusive guarantees in the 8
cases; 13 name a budget and 12 of those are right within a factor of 3 (undecided at N/3, decided -- all fails, as
every case is a slight violation -- at 3N): gaussian importance-sampled 2.5e4 and 2.6e4, gaussian plain tails 3.6e5
and 8.5e4, laplace 2.8e5, 1.8e5, 6.0e5, 3.6e5, geometric 1.8e5 and 9.5e4, randomized response 2.4e5 and 1.7e5.  The
one miss errs on the safe side: objpert σ 3.4's dp-reverse (uncertified upper end, estimate 1.4e-5 above the claimed
1e-5 at seed 0) names 5.7e4 and already fails at 1.9e4 = N/3, because seed 0's estimate was low (seeds 1 and 2 at the
same n estimate 2.4e-5 and 2.3e-5, name 1.2e4 and 1.3e4, and fail at 1.9e4).  Before this benchmark that check
said "The estimate sits on the claimed value" (the infinite upper end was taken for a zero gap).  The other 6 say
why no budget decides: the likelihood-ratio attacks (can only refute) and objpert σ 4's DP checks (uncertified upper
end, estimate below the claim; still inconclusive at 3n = 3e4, as the hint says).  No inconclusive guarantee of
these audits names nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import tempfile
import time

from pdp_audit.cli.main import main as pdp_audit

HINT = re.compile(r"About ([0-9.]+e[+-]?[0-9]+) samples per world \(now ([0-9.]+e[+-]?[0-9]+)\)")
#: Hints that say no budget can decide (an attack or a score refutes, never certifies): not a missing hint.
NO_BUDGET_DECIDES = ("can only refute a claim", "never certify", "no sample size can decide", "no feasible budget")

#: (name, the ``run`` arguments without --trials, n): each has an inconclusive guarantee at n (seed 0).
CASES = [
    ("gaussian σ 3.715 (δ(1) 1.07e-5) claimed (1, 1e-5): importance sampling", "gaussian --sigma 3.715", 20_000),
    ("gaussian σ×0.9 claimed (1, 1e-2): plain tails", "gaussian --claim-delta 0.01 --noise-multiplier 0.9", 20_000),
    ("laplace b 0.97 (δ(1) 1.5e-2) claimed (1, 1e-3)", "laplace --scale 0.97 --claim-delta 0.001", 20_000),
    ("laplace b 0.98 (δ(1) 1.0e-2) claimed (1, 1e-3)", "laplace --scale 0.98 --claim-delta 0.001", 20_000),
    ("geometric count b 0.97 claimed (1, 1e-3)", "geometric --query count --scale 0.97 --claim-delta 0.001", 20_000),
    (
        "randomized response, 2 classes, p 0.735 (δ(1) 1.5e-2) claimed (1, 1e-3)",
        "randomized-response --dataset breast-cancer --keep-probability 0.735 --claim-delta 0.001",
        20_000,
    ),
    ("objpert σ 4 claimed (1, 1e-5): uncertified upper end, estimate below", "objpert --sigma 4", 10_000),
    ("objpert σ 3.4 claimed (1, 1e-5): uncertified upper end, estimate above", "objpert --sigma 3.4", 10_000),
]


def run_checks(argv: list[str], trials: int, seed: int) -> tuple[int, dict[str, dict]]:
    """The exit code and the checks (by id) of ``pdp-audit run ARGV --trials T --seed S``."""
    descriptor, out = tempfile.mkstemp(suffix=".json")
    os.close(descriptor)
    try:
        code = pdp_audit(
            ["run", *argv, "--trials", str(trials), "--seed", str(seed), "--report", "none", "--json", out, "--quiet"]
        )
        with open(out, encoding="utf-8") as source:
            checks = {c["id"]: c for c in json.load(source)["checks"]}
    finally:
        os.unlink(out)
    return code, checks


def hint_of(check: dict) -> float | None:
    found = HINT.search(check["note"])
    return float(found.group(1)) if found else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="seeds per budget (default 1)")
    parser.add_argument("--max-trials", type=float, default=3e6, help="skip runs above this budget (default 3e6)")
    parser.add_argument("--only", default=None, help="run only the cases whose name contains this")
    args = parser.parse_args(argv)
    total = {"checks": 0, "hinted": 0, "within_3x": 0, "too_small": 0, "too_large": 0, "skipped": 0, "no_hint": 0}
    for name, command, trials in CASES:
        if args.only and args.only not in name:
            continue
        start = time.perf_counter()
        command_argv = command.split()
        _, checks = run_checks(command_argv, trials, 0)
        seeds = range(1, args.repeats + 1)
        undecided = [c for c in checks.values() if c["verdict"] == "inconclusive" and c.get("role") == "guarantee"]
        for check in undecided:
            hint = hint_of(check)
            record = {
                "benchmark": "budget_hints_builtin",
                "case": name,
                "argv": command,
                "trials": trials,
                "check": check["id"],
                "verdict": check["verdict"],
                "hint": hint,
            }
            total["checks"] += 1
            if hint is None:
                refutes_only = any(text in check["note"].lower() for text in NO_BUDGET_DECIDES)
                record["no_budget_decides"] = refutes_only
                record["says"] = check["note"].rsplit(". ", 2)[-2:]  # the hint's sentences
                total["no_hint"] += int(not refutes_only)
                if (
                    refutes_only
                    and check["id"].endswith(("dp-forward", "dp-reverse"))
                    and 3 * trials <= args.max_trials
                ):
                    record["verdicts_at"] = {  # "no budget decides": still undecided at 3n?
                        "triple_n": [run_checks(command_argv, 3 * trials, s)[1][check["id"]]["verdict"] for s in seeds]
                    }
            else:
                total["hinted"] += 1
                at = {}
                for label, budget in (("third", hint / 3), ("triple", 3 * hint)):
                    budget = max(int(math.ceil(budget)), 100)
                    if budget > args.max_trials:
                        at[label] = None
                        continue
                    at[label] = [run_checks(command_argv, budget, s)[1][check["id"]]["verdict"] for s in seeds]
                record["verdicts_at"] = at
                if at["triple"] is None:
                    record["within_3x"] = None
                    total["skipped"] += 1
                else:
                    triple_ok = "inconclusive" not in at["triple"]
                    third_ok = at["third"] is None or "inconclusive" in at["third"]
                    record["within_3x"] = triple_ok and third_ok
                    total["within_3x"] += int(triple_ok and third_ok)
                    total["too_small"] += int(not triple_ok)
                    total["too_large"] += int(not third_ok)
            record["seconds"] = round(time.perf_counter() - start, 1)
            print(json.dumps(record), flush=True)
    print(json.dumps({"benchmark": "budget_hints_builtin", "case": "all", **total}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
