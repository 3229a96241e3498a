"""The CPU a command's PDF report costs: `pdp-audit run laplace` with its PDF against the same run with
`--report none` (the floor), in the same run.

One JSON line: the best (least disturbed) CPU seconds, user and system, of fresh processes of each, their ratio and
the PDF's part.  Runs alternate between the command and its floor (A B A B …), so the machine's drift falls on both;
CPU rather than wall time, since other load on a shared machine stretches the wall clock far more than the CPU.
Where the PDF's time goes (a profile of matplotlib 3.11, DejaVu fonts embedded as Type 42): importing matplotlib (a
seventh), fontTools subsetting each embedded font at the PDF's close (a sixth; a ligature such as fi, or a letter with
a combining accent, makes a second subset of its font), drawing the pages' text and axes (ticks, tick labels,
legends), mathtext parsing (pyparsing) of the lines with scripts -- once when a paragraph is wrapped and again on
the page that draws it --, building the pages, and Python's cyclic garbage collector (``run`` sets the objects alive
before the drawing aside from it).

    python benchmarks/pdf_report.py [--runs 3] [--trials 2000]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
from pathlib import Path


def cli() -> list[str]:
    """This interpreter's own console script, as a user runs it (the one beside ``sys.executable``, never another
    environment's first on PATH; ``python -m`` where there is none)."""
    script = Path(sys.executable).parent / "pdp-audit"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pdp_audit.cli"]


def compile_package() -> None:
    """Byte-compile pdp_audit's folders, as pip does on install: under PYTHONDONTWRITEBYTECODE a checkout would
    otherwise compile the report's modules in every process, a tenth of a second counted as the PDF's."""
    for name in ("pdp_audit", "pdp_audit.mechanisms", "pdp_audit.audits", "pdp_audit.verify", "pdp_audit.reports"):
        spec = importlib.util.find_spec(name)
        for folder in spec.submodule_search_locations or ():
            compileall.compile_dir(folder, quiet=1)


def cpu(command: list[str]) -> float:
    """User and system CPU seconds of the process ``command`` (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="processes of each (best of; default 3)")
    parser.add_argument("--trials", type=int, default=2000, help="the audit's --trials (default 2000)")
    args = parser.parse_args(argv)
    compile_package()
    with tempfile.TemporaryDirectory() as folder:
        run = [*cli(), "run", "laplace", "--trials", str(args.trials), "--quiet", "--json", str(Path(folder, "r.json"))]
        report, floor = [*run, "--report", str(Path(folder, "r.pdf"))], [*run, "--report", "none"]
        with_pdf, without = [], []
        for _ in range(args.runs):
            with_pdf.append(cpu(report))
            without.append(cpu(floor))
    best, best_floor = min(with_pdf), min(without)
    print(
        json.dumps(
            {
                "benchmark": "pdf_report",
                "command": " ".join(["pdp-audit", *report[len(cli()) :]]).replace(folder, "TMP"),
                "cpu_s": round(best, 3),
                "floor": "the same command with --report none",
                "floor_cpu_s": round(best_floor, 3),
                "ratio": round(best / best_floor, 3),
                "pdf_cpu_s": round(best - best_floor, 3),
                "runs": args.runs,
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
                "load_1min": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
