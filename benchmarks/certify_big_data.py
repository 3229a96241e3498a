"""`pdp-audit certify` of a Gaussian deployment on a large CSV against pandas `read_csv` of the same file.

One JSON line: the wall time and peak RSS of the certify command (`--report none --json FILE`, so no PDF is drawn)
and of `python -c "import pandas; pandas.read_csv(FILE)"`, each the best of ``--runs`` fresh processes run
alternately, and their ratios.  Targets (issue 44): at most 3x the wall time and 1.3x the peak RSS of read_csv --
the data are read, fingerprinted, clipped and summed, and the audit's Monte Carlo at ``--trials`` draws per world is
small beside that.  The CSV (``--rows`` x ``--columns`` numbers with three decimals, seed 0) is written once into
``--folder`` and reused.

    python benchmarks/certify_big_data.py [--rows 1000000] [--columns 30] [--trials 10000] [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

#: Runs ``argv`` as the only child of a fresh interpreter and prints its wall seconds and peak RSS (KiB).
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "wall = time.perf_counter() - start\n"
    "print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)"
)


def write_csv(path: Path, rows: int, columns: int) -> None:
    """``rows`` x ``columns`` N(0, 1/columns) numbers with three decimals (row norms near 1: some are clipped)."""
    rng = np.random.default_rng(0)
    header = ",".join(f"x{j}" for j in range(columns))
    with open(path, "w") as out:
        out.write(header + "\n")
        for start in range(0, rows, 100_000):
            chunk = rng.standard_normal((min(100_000, rows - start), columns)) / np.sqrt(columns)
            np.savetxt(out, chunk, fmt="%.3f", delimiter=",")


def write_deployment(folder: Path, data: Path, trials: int) -> Path:
    deployment = folder / "deploy-big.toml"
    deployment.write_text(
        'mechanism = "gaussian"\n\n[claim]\nepsilon = 1.0\ndelta = 1e-5\n\n'
        f'[parameters]\nquery = "sum"\nsensitivity = 1.0\nsigma = 3.8\ndata = "{data.name}"\n\n'
        f"[audit]\ntrials = {trials}\nseed = 0\nalpha = 1e-6\n"
    )
    return deployment


def measure(argv: list[str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in bytes, exit code) of ``argv`` run alone."""
    done = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True, check=True)
    wall, rss_kib, code = done.stdout.split()
    return float(wall), int(rss_kib) * 1024, int(code)


def cli() -> list[str]:
    """This interpreter's own ``pdp-audit`` (the console script beside it, as a user runs it), never another
    environment's first on PATH."""
    script = Path(sys.executable).parent / "pdp-audit"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pdp_audit.cli"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, default=30)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "pdp-audit-certify-big"))
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"rows-{args.rows}x{args.columns}.csv"
    if not data.exists():
        write_csv(data, args.rows, args.columns)
    deployment = write_deployment(folder, data, args.trials)
    certificate = folder / "certificate.json"
    certify = [*cli(), "certify", str(deployment), "--report", "none", "--json", str(certificate), "--quiet"]
    floor = [sys.executable, "-c", f"import pandas; pandas.read_csv({str(data)!r})"]
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(measure(certify))
        theirs.append(measure(floor))
    wall, rss, code = min(ours)
    floor_wall, floor_rss = min(t[0] for t in theirs), min(t[1] for t in theirs)
    print(
        json.dumps(
            {
                "benchmark": "certify_big_data",
                "rows": args.rows,
                "columns": args.columns,
                "csv_mb": round(data.stat().st_size / 1e6, 1),
                "trials": args.trials,
                "exit_code": code,
                "certify_s": round(wall, 2),
                "read_csv_s": round(floor_wall, 2),
                "wall_ratio": round(wall / floor_wall, 2),
                "target_wall_ratio": 3.0,
                "certify_peak_mb": round(min(t[1] for t in ours) / 1e6),
                "read_csv_peak_mb": round(floor_rss / 1e6),
                "rss_ratio": round(min(t[1] for t in ours) / floor_rss, 2),
                "target_rss_ratio": 1.3,
                "runs": args.runs,
                "load_1min": round(os.getloadavg()[0], 2),
                "cpus": os.cpu_count(),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
