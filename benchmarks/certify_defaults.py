"""Every audit on its defaults (a correct mechanism: must exit 0) and with its noise deflated (must exit 1).

Runs ``pdp-audit run NAME [options] --quiet --report none --json FILE`` (as ``python -m pdp_audit.cli``)
for each setting of every audit (:func:`runs`), one after the other, and prints one JSON line per run: {"audit",
"case", "options", "verdict", "exit_code", "expected_exit_code", "seconds", "cpus", "guarantees", "failing"}.
With ``--markdown PATH`` it also writes the table docs/benchmarks.md includes (generated).  Seconds are
wall-clock on this machine with the default workers (every core; ``cpus`` in each line); they are reported,
never asserted.

    python benchmarks/certify_defaults.py --markdown benchmarks/certify_defaults.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def runs() -> list[tuple[str, str, tuple[str, ...]]]:
    """(audit, case, options) of every setting each audit's descriptor certifies: "correct" runs it, "deflated"
    shrinks the noise until the claim is false (:attr:`pdp_audit.verify.core.plan.AuditPlan.settings`)."""
    from pdp_audit.catalogue.plans import plans

    out = []
    for plan in plans():
        for setting in plan.settings:
            out.append((plan.name, "correct", flags(plan, setting.options)))
            if setting.deflated is not None:
                out.append((plan.name, "deflated", flags(plan, {**setting.options, **setting.deflated})))
    return out


def flags(plan, options: dict) -> tuple[str, ...]:
    """The command line of ``options`` (what a reader of the table types)."""
    known = plan.options()
    argv: list[str] = []
    for key, value in options.items():
        option = known[key]
        argv += (
            [option.cli_flag]
            if option.kind == "bool"
            else [option.cli_flag, f"{value:g}" if isinstance(value, float) else str(value)]
        )
    return tuple(argv)


EXPECTED = {"correct": 0, "deflated": 1}


def run_one(audit: str, options: tuple[str, ...], workdir: Path) -> dict:
    """Run one audit through the CLI (``python -m pdp_audit.cli`` of the interpreter running this script): its
    verdict, exit code, seconds and failing guarantees."""
    out = workdir / f"{audit}.json"
    command = [
        sys.executable,
        "-m",
        "pdp_audit.cli",
        "run",
        audit,
        *options,
        "--quiet",
        "--report",
        "none",
        "--json",
        str(out),
    ]
    start = time.perf_counter()
    rc = subprocess.run(command, capture_output=True, text=True).returncode
    seconds = time.perf_counter() - start
    doc = json.loads(out.read_text()) if out.exists() else {"verdict": "error", "checks": []}
    out.unlink(missing_ok=True)
    return {
        "verdict": doc["verdict"],
        "exit_code": rc,
        "seconds": round(seconds, 1),
        "cpus": os.cpu_count(),
        "guarantees": len(doc["checks"]),
        "failing": [c["id"] for c in doc["checks"] if c["verdict"] != "pass"],
    }


def markdown(rows: list[dict]) -> str:
    """The table of docs/benchmarks.md: one line per run."""
    lines = [
        "| audit | case | options | verdict | exit code | seconds | not passing |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        options = " ".join(r["options"]) or "(defaults)"
        failing = ", ".join(r["failing"]) or "—"
        cells = (r["audit"], r["case"], f"`{options}`", r["verdict"], r["exit_code"], r["seconds"], failing)
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", default=None, help="also write the table as Markdown to this path")
    parser.add_argument("--only", nargs="*", default=None, help="audits to run (default: all)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for audit, case, options in runs():
            if args.only and audit not in args.only:
                continue
            row = {"audit": audit, "case": case, "options": list(options), **run_one(audit, options, Path(tmp))}
            row["expected_exit_code"] = EXPECTED[case]
            print(json.dumps(row), flush=True)
            rows.append(row)
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows), encoding="utf-8")
    return 0 if all(r["exit_code"] == r["expected_exit_code"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
