"""How long ``pdp_audit.audit_program`` takes to its verdict on small programs a user writes (issue 86, item 1: each
decided in at most 10 s on 2 cores), at the default budget (``trials`` 20,000: the black box's cap) and law ideal.

Cases: two bugs the exact composition refutes -- dp-recorder's double spending (:mod:`dp_recorder_programs`, two
coordinates of ε = 1 each: no single coordinate's law says how many releases a black box needs, so none is drawn) and
its sum calibrated for add/remove audited under replace-one (one coordinate at ε = 2: a short corroboration) --; a
bug only the black box refutes (a noisy sum released beside its exact count: a coordinate free of noise differs); and
two correct programs certified (a noisy sum and a histogram of 20 bins, :mod:`bench_program`); a noisy CDF of 10⁵
coordinates, each moved by a record (its target 60 s); and, where diffprivlib is installed (else left out, named on
stderr), two of its models' pipelines on 20 records (their target 120 s): ``GaussianNB``, whose classes are read from
the labels (refuted), and ``LogisticRegression`` (the vector mechanism over its objective: a budget the audit cannot
check, its input a function; continuous float noise; joblib's ``uuid4``: undecided unless the black box refutes).

Each case runs in a process of its own, as a command would (the lazy imports of the confirmation -- scikit-learn --
counted): one JSON line each with the audit's wall seconds, the process's CPU seconds, the program's own run on D
(the least of 5), their ratio, the verdict, and the confirmation's looks or why it was not run.  Run it with main's
interpreter for the "before" column (the same script; its records say which code ran):

    python benchmarks/program_verdict_speed.py [--cases NAME ...]

Its last full run, one line a case, is kept in benchmarks/program_verdict_speed.jsonl (the commit and load in each
line's code and ``load_1min``; written by hand from its output: ``> benchmarks/program_verdict_speed.jsonl``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGET_SECONDS = 10.0


def noisy_sum_and_count(data, rng):
    """A noisy sum released beside the exact count: the count holds the records (refuted by the black box only)."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return float(values.sum() + rng.laplace(0.0, 1.0)), float(len(values))


def naive_bayes(data, rng):
    """diffprivlib's ``GaussianNB`` (ε = 1, ``x`` in [0, 1]): its means, variances and class counts."""
    from diffprivlib.models import GaussianNB

    x = np.clip(np.nan_to_num(data[["x"]].to_numpy(dtype=float)), 0.0, 1.0)
    labels = data["label"].astype(str).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = GaussianNB(epsilon=1.0, bounds=(0.0, 1.0)).fit(x, labels)
    return model.theta_.ravel().tolist() + model.var_.ravel().tolist() + model.class_count_.tolist()


def logistic(data, rng):
    """diffprivlib's ``LogisticRegression`` (ε = 1, ``data_norm`` 1: (x, y) in [-1, 1]² scaled by 1/√2) of whether
    ``label`` is ``a``: its coefficients and intercept."""
    from diffprivlib.models import LogisticRegression

    features = np.clip(np.nan_to_num(data[["x", "y"]].to_numpy(dtype=float)), -1.0, 1.0) / np.sqrt(2)
    labels = (data["label"].astype(str) == "a").astype(int).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(epsilon=1.0, data_norm=1.0).fit(features, labels)
    return model.coef_.ravel().tolist() + model.intercept_.ravel().tolist()


#: The libraries' cases: each needs its library (left out where it is not installed, named on stderr).
LIBRARY_CASES = {"diffprivlib-naive-bayes": "diffprivlib", "diffprivlib-logistic": "diffprivlib"}
#: Their frame's declared domain.
LIBRARY_BOUNDS = "x=0,1;y=-1,1;label={a,b,c}"


#: Coordinates of the noisy CDF (issue 86, item 1: a release whose 10⁵ coordinates each move with a record decided in
#: at most 60 s on 2 cores).
CDF_BINS = 100_000
TARGETS = {"noisy-cdf": 60.0, "diffprivlib-naive-bayes": 120.0, "diffprivlib-logistic": 120.0}


def noisy_cdf(data, rng):
    """A CDF over :data:`CDF_BINS` values, each coordinate with Laplace noise of scale CDF_BINS: a record moves every
    coordinate at or above its value by 1, an L1 sensitivity of at most CDF_BINS, so ε = 1 (correct, if useless)."""
    counts = np.bincount(np.clip(np.asarray(data, dtype=np.int64), 0, CDF_BINS - 1), minlength=CDF_BINS)
    return np.cumsum(counts).astype(float) + rng.laplace(0.0, float(CDF_BINS), size=CDF_BINS)


def _frame(values):
    import pandas as pd

    return pd.DataFrame({"value": values})


def cases() -> dict:
    """Each case: (program, data, neighbours, bounds, expected verdict)."""
    import bench_program
    import dp_recorder_programs as dp

    rng = np.random.default_rng(0)
    unit = rng.uniform(0.0, 1.0, 200)
    return {
        "spent-twice": (dp.spent_twice, _frame(unit), "add-remove", (0.0, 1.0), "fail"),
        "add-remove-scale": (
            dp.clipped_sum_add_remove_scale,
            _frame(10 * unit - 5),
            "replace-one",
            (-5.0, 5.0),
            "fail",
        ),
        "exact-count": (noisy_sum_and_count, _frame(unit), "add-remove", (0.0, 1.0), "fail"),
        "noisy-sum": (bench_program.noisy_sum, unit, "replace-one", (0.0, 1.0), "pass"),
        "histogram": (bench_program.histogram, unit, "replace-one", (0.0, 1.0), "pass"),
        "noisy-cdf": (noisy_cdf, np.floor(unit * CDF_BINS), "add-remove", (0.0, CDF_BINS - 1.0), "pass"),
        **_library_cases(),
    }


def _library_cases() -> dict:
    """The libraries' cases whose library is installed (module notes), on 20 records of ``x`` in [0, 1], ``y`` in
    [-1, 1] and ``label`` in {a, b, c}."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 20
    frame = pd.DataFrame({"x": rng.uniform(0, 1, n), "y": rng.uniform(-1, 1, n), "label": list("abc" * 7)[:n]})
    made = {
        "diffprivlib-naive-bayes": (naive_bayes, frame, "replace-one", LIBRARY_BOUNDS, "fail"),
        "diffprivlib-logistic": (logistic, frame, "replace-one", LIBRARY_BOUNDS, "inconclusive"),
    }
    return {name: case for name, case in made.items() if importlib.util.find_spec(LIBRARY_CASES[name]) is not None}


def one(name: str) -> dict:
    """One case, in this process: the audit's wall and CPU seconds, the program's own run on D (least of 5)."""
    import pdp_audit

    program, data, relation, bounds, expected = cases()[name]
    rng = np.random.default_rng(1)
    own = min(_timed(lambda: program(data, rng)) for _ in range(5))
    start, cpu = time.perf_counter(), time.process_time()
    run = pdp_audit.audit_program(program, data, 1.0, 0.0, neighbours=relation, bounds=bounds, law="ideal")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    confirm = next((c for c in run.checks if c.id == "program-confirm"), None)
    details = {} if confirm is None else confirm.details
    return {
        "benchmark": "program_verdict_speed",
        "case": name,
        "records": len(data),
        "relation": relation,
        "verdict": run.verdict,
        "expected": expected,
        "trials_cap": run.parameters.get("trials"),
        "confirmation": None if confirm is None else _confirmation(confirm, details),
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "program_seconds": round(own, 6),
        "over_program": round(seconds / own),
        "target_seconds": TARGETS.get(name, TARGET_SECONDS),
    }


def _confirmation(confirm, details: dict) -> dict:
    """What the confirmation drew: not run (why), a corroboration's releases, or its looks (planned, run, p-values)."""
    if details.get("not_run"):
        return {"not_run": details["not_run"]}
    out = {"pvalue": confirm.pvalue, "train_per_world": details.get("train_per_world")}
    stop = details.get("early_stop") or {}
    out["fresh_drawn"] = stop.get("fresh_drawn")
    if "corroboration" in details:
        out["corroboration"] = details["corroboration"]
    if "looks" in details:
        out["looks"] = details["looks"]
    return out


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="*", default=None)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a case in this process (the child's side)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one)), flush=True)
        return
    known = cases()
    for name in args.cases or list(known):
        if name in LIBRARY_CASES and name not in known:
            print(f"left out: {name} ({LIBRARY_CASES[name]} is not installed)", file=sys.stderr)
            continue
        load = os.getloadavg()[0]
        start = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True, check=False)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            print(json.dumps({"benchmark": "program_verdict_speed", "case": name, "error": done.stderr[-400:]}))
            continue
        row = json.loads(lines[-1])
        row.update(process_seconds=round(time.perf_counter() - start, 2), load_1min=[round(load, 2), _load()])
        print(json.dumps(row), flush=True)


def _load() -> float:
    return round(os.getloadavg()[0], 2)


if __name__ == "__main__":
    main()
