"""The price of fitting the black box's trees here (issue 61: scikit-learn's fitted trees were read from its private
``_predictors``): :func:`pdp_audit.audits.blackbox.boosting.fit_trees` against ``HistGradientBoostingClassifier``
(its public ``fit``, one OpenMP thread, as the black box ran it), and end to end.

* ``fit``: seconds to fit on n releases a world of a shifted Laplace (d columns), best of ``--repeats``,
  alternating, with the held-out accuracy of each;
* ``command`` (with ``--baseline DIR``, a folder holding an older ``pdp_audit`` package to import instead, e.g. one
  made from ``git archive`` of the commit before): ``pdp-audit blackbox`` on a 1-D Laplace sampler at the default
  statistic (the event test, whose scores are the trees'), this code against that one, CPU seconds of the process
  and its children (user + system) and wall seconds.

One JSON line a case.

    python benchmarks/blackbox_trees.py [--repeats 3] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = ((20_000, 1), (100_000, 1), (25_000, 3))

SAMPLER = """import numpy as np

class Laplace:
    def sample(self, world, size, rng):
        return (0.0 if world == "D" else 1.0) + rng.laplace(0.0, 1.0, (size, 1))


def make():
    return Laplace()
"""


def emit(case: str, **fields) -> None:
    line = {"benchmark": "blackbox_trees", "case": case, **fields}
    line.update({"load_1min": round(os.getloadavg()[0], 2), "cores": os.cpu_count()})
    print(json.dumps(line), flush=True)


def data(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.vstack([rng.laplace(0.0, 1.0, (n, d)), rng.laplace(0.5, 1.0, (n, d))])
    return x, np.r_[np.ones(n), np.zeros(n)]


def fit(repeats: int) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_limits

    from pdp_audit.audits.blackbox.boosting import fit_trees

    for n, d in SIZES:
        x, y = data(n, d, 0)
        fresh, labels = data(n, d, 1)
        ours, theirs = [], []
        for i in range(repeats):
            start = time.perf_counter()
            ensemble = fit_trees(x, y, i)
            ours.append(time.perf_counter() - start)
            with threadpool_limits(limits=1, user_api="openmp"):
                start = time.perf_counter()
                model = HistGradientBoostingClassifier(random_state=i).fit(x, y)
                theirs.append(time.perf_counter() - start)
        emit(
            "fit",
            n_a_world=n,
            columns=d,
            ours_s=round(min(ours), 3),
            sklearn_s=round(min(theirs), 3),
            ratio_ours_to_sklearn=round(min(ours) / min(theirs), 2),
            ours_accuracy=round(float(np.mean((ensemble(fresh) > 0) == (labels == 1))), 4),
            sklearn_accuracy=round(float(model.score(fresh, labels)), 4),
        )


def command_seconds(folder: Path, pythonpath: str | None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``pdp-audit blackbox`` run in a fresh process."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    argv = [
        "blackbox",
        "laplace_sampler:make",
        "--claim-epsilon",
        "1",
        "--claim-delta",
        "0",
        "--trials",
        "200000",
        "--seed",
        "1",
        "--json",
        "out.json",
    ]
    code = "import sys; from pdp_audit.cli.main import main; sys.exit(main(sys.argv[1:]))"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=folder,
        env=env,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def command(repeats: int, baseline: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "laplace_sampler.py").write_text(SAMPLER)
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(command_seconds(folder, None))
            theirs.append(command_seconds(folder, baseline))
    cpu, old_cpu = min(c for c, _ in ours), min(c for c, _ in theirs)
    emit(
        "command",
        statistic="events (default)",
        trials=200_000,
        ours_cpu_s=round(cpu, 2),
        baseline_cpu_s=round(old_cpu, 2),
        ratio_cpu=round(cpu / old_cpu, 2),
        ours_wall_s=round(min(w for _, w in ours), 2),
        baseline_wall_s=round(min(w for _, w in theirs), 2),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help="a folder holding an older pdp_audit package (for the command case)")
    args = parser.parse_args()
    fit(args.repeats)
    if args.baseline:
        command(args.repeats, args.baseline)


if __name__ == "__main__":
    main()
