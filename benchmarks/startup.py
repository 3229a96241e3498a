"""Start-up of `import pdp_audit` and `pdp-audit --version` / `--help`, each against its floor in the same run.

One JSON line per command: the median wall time of fresh processes, the floor's median, and their ratio.  Runs
alternate between a command and its floor (A B A B …), so the machine's drift falls on both.  Targets (issue
"performance"): `--version`/`--help` at most 1.5x `python -c "import numpy"`, `import pdp_audit` at most 1.2x
`python -c "import numpy, scipy.stats"`.

    python benchmarks/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

NUMPY = [sys.executable, "-c", "import numpy"]
NUMPY_STATS = [sys.executable, "-c", "import numpy, scipy.stats"]


def cli() -> list[str]:
    """The installed console script, as a user runs it (``python -m`` where it is not on PATH)."""
    script = shutil.which("pdp-audit")
    return [script] if script else [sys.executable, "-m", "pdp_audit.verify.cli"]


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def paired(command: list[str], floor: list[str], runs: int) -> tuple[float, float]:
    """Medians of ``runs`` alternating runs of each (one warm-up of each first)."""
    wall(command), wall(floor)
    times, floors = [], []
    for _ in range(runs):
        times.append(wall(command))
        floors.append(wall(floor))
    return statistics.median(times), statistics.median(floors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    cases = [
        ("pdp-audit --version", [*cli(), "--version"], "import numpy", NUMPY, 1.5),
        ("pdp-audit --help", [*cli(), "--help"], "import numpy", NUMPY, 1.5),
        ("import pdp_audit", [sys.executable, "-c", "import pdp_audit"], "import numpy, scipy.stats", NUMPY_STATS, 1.2),
    ]
    load = os.getloadavg()[0]
    for name, command, floor_name, floor, target in cases:
        median, floor_median = paired(command, floor, runs)
        print(
            json.dumps(
                {
                    "benchmark": "startup",
                    "command": name,
                    "median_s": round(median, 4),
                    "floor": floor_name,
                    "floor_median_s": round(floor_median, 4),
                    "ratio": round(median / floor_median, 3),
                    "target_ratio": target,
                    "runs": runs,
                    "load_1min": round(load, 2),
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
