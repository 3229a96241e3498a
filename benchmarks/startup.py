"""Start-up of `import pdp_audit`, `pdp-audit --version` / `--help` and the subcommands' `--help`, each against its
floor in the same run.

One JSON line per command: the median wall time of fresh processes, the floor's median, and their ratio.  Runs
alternate between a command and its floor (A B A B …), so the machine's drift falls on both.  Targets (issue 44):
`--version`/`--help` at most 1.5x `python -c "import numpy"`, `import pdp_audit` at most 1.2x
`python -c "import numpy, scipy.stats"`; a subcommand's `--help` (its parser is generated from the audits' configs,
which import numpy; no scipy.stats or scipy.optimize since issue 44, which took a second) at most 2x
`python -c "import numpy"`.  The package's modules are byte-compiled first, as pip does on install:
under PYTHONDONTWRITEBYTECODE a checkout would otherwise compile them in every process (a tenth of a second).

    python benchmarks/startup.py [--runs 9]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

NUMPY = [sys.executable, "-c", "import numpy"]
NUMPY_STATS = [sys.executable, "-c", "import numpy, scipy.stats"]


def cli() -> list[str]:
    """This interpreter's own console script, as a user runs it (the one beside ``sys.executable``, never another
    environment's first on PATH; ``python -m`` where there is none)."""
    script = Path(sys.executable).parent / "pdp-audit"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pdp_audit.cli"]


def compile_package() -> None:
    """Byte-compile pdp_audit's folders (the package-dir mapping puts them beside each other in a checkout)."""
    for name in ("pdp_audit", "pdp_audit.mechanisms", "pdp_audit.audits", "pdp_audit.verify", "pdp_audit.reports"):
        spec = importlib.util.find_spec(name)
        for folder in spec.submodule_search_locations or ():
            compileall.compile_dir(folder, quiet=1)


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
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    compile_package()
    cases = [
        ("pdp-audit --version", [*cli(), "--version"], "import numpy", NUMPY, 1.5),
        ("pdp-audit --help", [*cli(), "--help"], "import numpy", NUMPY, 1.5),
        ("import pdp_audit", [sys.executable, "-c", "import pdp_audit"], "import numpy, scipy.stats", NUMPY_STATS, 1.2),
    ]
    for words in (["run"], ["run", "gaussian"], ["certify"]):
        cases.append((f"pdp-audit {' '.join(words)} --help", [*cli(), *words, "--help"], "import numpy", NUMPY, 2.0))
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
