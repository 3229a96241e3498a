"""The machine-readable audit: one JSON document per run, byte-identical for the same seed."""

from __future__ import annotations

import json
import math
import platform
from importlib import metadata, resources
from typing import Any

import numpy as np

from pdp_audit.reports.certified_claim import certified_claim
from pdp_audit.reports.code_commit import code_commit, code_version, package_version  # noqa: F401 (re-exported)
from pdp_audit.reports.files import atomic_path, json_text, write_stdout
from pdp_audit.reports.records import Check, ReviewPage, Run

SCHEMA_VERSION = 2  # 2: checks carry a role; paper findings apart; certificates add "certified" (optional)
SCHEMA_RESOURCE = "schema/run.schema.json"  # inside the reports package (package data)
_LIBRARIES = ("numpy", "scipy", "statsmodels", "matplotlib", "mpmath")


def library_versions() -> dict[str, str]:
    """Python's and the numerical libraries' versions, for the provenance of a report."""
    versions = {"python": platform.python_version()}
    for name in _LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def clean(value: Any) -> Any:
    """JSON-safe: numpy scalars to Python, non-finite floats to None, tuples to lists."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return clean(value.tolist())
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def check_from_dict(data: dict) -> Check:
    """A decided :class:`Check` back from its JSON form (:func:`check_to_dict`; JSON writes ±inf as null)."""
    ci = data.get("ci")
    return Check(
        id=data["id"],
        title=data["title"],
        claim=data["claim"],
        formula=data["formula"],
        source=data["source"],
        estimate=data["estimate"],
        exact=data["exact"],
        pvalue=data["pvalue"],
        verdict=data["verdict"],
        note=data["note"],
        details=data["details"],
        ci=None if ci is None else (-math.inf if ci[0] is None else ci[0], math.inf if ci[1] is None else ci[1]),
        level=data["level"],
        adjusted_pvalue=data["adjusted_pvalue"],
        delta_of=data.get("delta_of"),  # absent from documents written before it was added
        stage=data.get("stage"),  # likewise
    )


def check_to_dict(check: Check) -> dict[str, Any]:
    """The JSON form of a decided check (figures are left to the PDF)."""
    return clean(
        {
            "id": check.id,
            "title": check.title,
            "claim": check.claim,
            "formula": check.formula,
            "source": check.source,
            "role": check.role,
            "verdict": check.verdict,
            "estimate": check.estimate,
            "exact": check.exact,
            "ci": list(check.ci) if check.ci is not None else None,
            "level": check.level,
            "pvalue": check.pvalue,
            "adjusted_pvalue": check.adjusted_pvalue,
            "note": check.note,
            "details": check.details,
            "delta_of": check.delta_of,
            "stage": check.stage,
        }
    )


def review_to_dict(review: ReviewPage) -> dict[str, Any]:
    """The JSON form of the page a reviewer reads: its words, and each section's table as its columns, its rows of
    cells as shown and the indices of the rows highlighted (the witness's row, the diverging or over-sensitive call,
    a composition beyond the claim)."""
    return {
        "title": review.title,
        "claim": review.claim,
        "verdict": review.verdict,
        "headline": review.headline,
        "reading": review.reading,
        "sections": [
            {
                "heading": section.heading,
                "text": section.text,
                "table": None
                if section.table is None
                else {
                    "columns": list(section.table.columns),
                    "rows": [list(row) for row in section.table.rows],
                    "highlight": list(section.table.highlight),
                },
                "after": section.after,
            }
            for section in review.sections
        ],
    }


def run_to_dict(run: Run) -> dict[str, Any]:
    """The JSON document of a run: verdict, guarantees, paper findings, parameters, per-instance summary, pages,
    seed, versions.  ``paper_findings`` is null when they were not asked for (not run), a list otherwise.
    ``certified`` (what ``pdp-audit certify`` certified) is present in certificates only; ``clipping`` (the
    share of rows clipped) in the runs of clipping queries only; ``review`` (the page a reviewer reads, as data) in
    the runs of audits that draw one.  The document follows
    the published JSON Schema :func:`run_schema` (``pdp-audit schema``)."""
    per_instance = run.per_instance.summary() if run.per_instance is not None else None
    findings = None if run.findings is None else [check_to_dict(c) for c in run.findings]
    certified = {} if run.certified is None else {"certified": run.certified}
    claim = certified_claim(run.checks)
    certified_text = {} if claim is None else {"certified_claim": claim.to_dict()}
    clipping = {} if run.clipping is None else {"clipping": run.clipping.summary()}
    review = {} if run.review is None else {"review": review_to_dict(run.review)}
    return clean(
        {
            "schema": SCHEMA_VERSION,
            "mechanism": run.mechanism,
            "verdict": run.verdict,
            "exit_code": run.exit_code,
            **certified_text,
            **certified,
            "alpha": run.alpha,
            "checks": [check_to_dict(c) for c in run.checks],
            "paper_findings": findings,
            "parameters": run.parameters,
            "per_instance": per_instance,
            **clipping,
            **review,
            "pages": [{"title": page.title, "text": page.text, "role": page.role} for page in run.pages],
            "seed": run.seed,
            "version": package_version(),
            "code_version": code_version(),
            "versions": library_versions(),
        }
    )


def run_schema_text() -> str:
    """The published JSON Schema (draft 2020-12) of the run and certificate JSON, as shipped in the package."""
    return resources.files(__package__).joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


def run_schema() -> dict[str, Any]:
    """:func:`run_schema_text` parsed."""
    return json.loads(run_schema_text())


def dumps(run: Run) -> str:
    """The run's JSON text, byte-identical for the same run."""
    return json_text(run_to_dict(run))


def write_json(run: Run, path: str) -> None:
    """Write the run's JSON to ``path`` ("-" for stdout), atomically."""
    text = dumps(run)
    if path == "-":
        write_stdout(text)
        return
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
