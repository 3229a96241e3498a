"""The machine-readable sweep: one JSON document per store, identical whatever executor ran the cells.

Run times, worker names and timestamps stay in the store; they are left out here so that the same
spec and seed give byte-identical JSON run serially, on local processes or on Dask.
"""

from __future__ import annotations

from typing import Any

from pdp_audit.reports.files import atomic_path, json_text, write_stdout
from pdp_audit.reports.json_report import clean, code_version, library_versions, package_version

SWEEP_SCHEMA_VERSION = 1
FWER_STATEMENT = (
    "The sweep's family-wise α is split evenly over its cells (Bonferroni): each cell is audited at "
    "α / cells, with Holm's step-down over the cell's statistical checks, so the probability that any "
    "check of any cell of a correct mechanism fails is at most α."
)


def sweep_to_dict(results) -> dict[str, Any]:
    """The JSON document of a sweep read from its store (a ``SweepResults``): spec, cells, counts, versions."""
    spec = results.spec
    return clean(
        {
            "schema": SWEEP_SCHEMA_VERSION,
            "kind": "sweep",
            "name": spec["name"],
            "mechanism": spec["mechanism"],
            "description": spec.get("description", ""),
            "verdict": results.verdict,
            "complete": results.complete,
            "counts": results.counts,
            "cells_total": len(spec["cells"]),
            "cells_done": len(results.cells),
            "alpha": spec["alpha"],
            "alpha_per_cell": spec["alpha_per_cell"],
            "family_wise_error": FWER_STATEMENT,
            "seed": spec["seed"],
            "checks": spec["checks"],
            "swept": spec["swept"],
            "cells": [
                {
                    "id": c["cell_id"],
                    "position": c["position"],
                    "parameters": c["parameters"],
                    "seed": c["seed"],
                    "alpha": c["alpha"],
                    "verdict": c["verdict"],
                    "code_version": c["code_version"],
                    "effective_parameters": c["effective"],
                    "checks": c["checks"],
                }
                for c in results.cells
            ],
            "exponents": [e.to_dict() for e in results.exponents],
            "missing": [
                {"id": c["id"], "position": c["position"], "parameters": c["parameters"]} for c in results.missing
            ],
            "code_versions": results.code_versions,
            "version": package_version(),
            "code_version": code_version(),
            "versions": library_versions(),
        }
    )


def dumps(results) -> str:
    """The sweep's JSON document as text (indented, UTF-8, no NaN)."""
    return json_text(sweep_to_dict(results))


def write_sweep_json(results, path: str) -> None:
    """Write the sweep's JSON to ``path`` atomically, or to stdout for ``-``."""
    text = dumps(results)
    if path == "-":
        write_stdout(text)
        return
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
