"""The pytest plugin's session report: every privacy assertion of a test session, as JSON and PDF.

Records (one per assertion, see :mod:`pdp_audit.verify.pytest_plugin`) are sorted by (node id, index) and carry
no timings, worker names or timestamps, so the same session gives byte-identical files with or
without pytest-xdist.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

from pdp_audit.reports.json_report import check_from_dict, library_versions, package_version  # noqa: E402
from pdp_audit.reports.page_text import COLOURS, RC, save_pages, text_block  # noqa: E402
from pdp_audit.reports.pdf import check_pages  # noqa: E402
from pdp_audit.reports.publish import write_together  # noqa: E402
from pdp_audit.reports.records import Check  # noqa: E402

SCHEMA_VERSION = 1


VERDICTS = ("pass", "inconclusive", "fail")


def session_document(records: list[dict], verdict: str) -> dict:
    """The merged JSON document: the overall ``verdict`` (decided by the plugin), counts and the records
    in (node id, index) order."""
    records = sorted(records, key=lambda r: (r["nodeid"], r["index"]))
    return {
        "schema": SCHEMA_VERSION,
        "tool": "pdp-audit pytest plugin",
        "verdict": verdict,
        "counts": {v: sum(r["verdict"] == v for r in records) for v in VERDICTS},
        "assertions": records,
        "version": package_version(),
        "versions": library_versions(),
    }


def _check_from_dict(record: dict, data: dict) -> Check:
    """A :class:`Check` for :func:`pdp_audit.reports.pdf.check_pages`, its claim prefixed with the test and
    assertion."""
    check = check_from_dict(data)
    return replace(check, claim=f"(test {record['nodeid']}, assertion {record['index']}) {check.claim}")


def _cover(doc: dict) -> plt.Figure:
    fig = plt.figure(figsize=(8.27, 11.69))
    counts = doc["counts"]
    y = text_block(
        fig,
        [
            ("pdp-audit — privacy assertions of a test session", {"size": 18, "weight": "bold", "gap": 0.01}),
            (
                f"{len(doc['assertions'])} assertions: {counts['pass']} pass, {counts['inconclusive']} inconclusive, "
                f"{counts['fail']} fail.  Overall: {doc['verdict'].upper()}.",
                {"size": 10, "gap": 0.02},
            ),
        ],
    )
    for r in doc["assertions"]:
        lines = textwrap.wrap(f"{r['nodeid']} [{r['index']}]  {r['header']}", 95) or [""]
        for i, line in enumerate(lines):
            fig.text(0.07, y, line, fontsize=7.5, va="top")
            if i == 0:
                fig.text(
                    0.86, y, r["verdict"].upper(), fontsize=7.5, va="top", weight="bold", color=COLOURS[r["verdict"]]
                )
            y -= 0.016
        if y < 0.08:
            fig.text(0.07, y, "… (continued on the check pages)", fontsize=7.5, va="top")
            break
    return fig


def session_report_paths(path: str | Path) -> tuple[Path, Path]:
    """The (JSON, PDF) paths of ``--audit-report path``: ``audit.pdf`` gives audit.json and audit.pdf."""
    path = Path(path)
    base = path.with_suffix("") if path.suffix.lower() in (".pdf", ".json") else path
    return base.with_name(base.name + ".json"), base.with_name(base.name + ".pdf")


def write_session_report(records: list[dict], verdict: str, path: Path) -> list[Path]:
    """Write the session's JSON and PDF at :func:`session_report_paths` of ``path``, together and atomically (an
    OS error is an OutputError and leaves both earlier files)."""
    doc = session_document(records, verdict)
    json_path, pdf_path = session_report_paths(path)

    def render(tmp: Path) -> None:
        with plt.rc_context(RC):
            with PdfPages(tmp, metadata={"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}) as pdf:
                checks = [_check_from_dict(r, c) for r in doc["assertions"] for c in r["checks"]]
                save_pages(pdf, (page() for page in [lambda: _cover(doc), *check_pages(checks)]))

    text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    write_together(str(pdf_path), str(json_path), render, text)
    return [pdf_path, json_path]
