"""The pytest plugin's session report: every privacy assertion of a test session, as JSON and PDF.

Records (one per assertion, see :mod:`pdp_audit.pytest_plugin`) are sorted by (node id, index) and carry
no timings, worker names or timestamps, so the same session gives byte-identical files with or
without pytest-xdist.

The PDF is drawn by the renderer of ``pdp-audit run`` (:func:`pdp_audit.reports.pdf.run_pages`): each assertion is
rebuilt as the :class:`~pdp_audit.reports.records.Run` it was decided as -- its checks with their figures (a
record carries each check's figure as data, :mod:`pdp_audit.reports.figure_json`), its parameters, seed and α -- so
it gets the same cover (verdict banner, the pair's δ(ε) profile beside the attack's ROC where the checks have
them, one row per guarantee), the same check pages, with the test's node id stated once on its cover.  A first
page summarises the session (overall banner, one row per assertion); a last one gives the seeds and versions.
The JSON keeps every record but the figures (as ``pdp-audit run --json`` does).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.cover import VERDICT_TEXT  # noqa: E402
from pdp_audit.reports.figure_json import figure_from_dict  # noqa: E402
from pdp_audit.reports.files import json_text
from pdp_audit.reports.json_report import (  # noqa: E402
    check_from_dict,
    code_version,
    library_versions,
    package_version,
)
from pdp_audit.reports.page_text import A4, COLOURS, pdf_document, save_pages, text_block, verdict_banner, wrap_to_width  # noqa: E402
from pdp_audit.reports.pdf import run_pages  # noqa: E402
from pdp_audit.reports.publish import write_together  # noqa: E402
from pdp_audit.reports.records import Check, Run  # noqa: E402
from pdp_audit.reports.verdict_words import claim_word

SCHEMA_VERSION = 1


VERDICTS = ("pass", "inconclusive", "fail")
EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 3}


def session_document(records: list[dict], verdict: str) -> dict:
    """The merged JSON document: the overall ``verdict`` (decided by the plugin), counts and the records
    in (node id, index) order, without the checks' figures (they are the PDF's)."""
    records = sorted(records, key=lambda r: (r["nodeid"], r["index"]))
    return {
        "schema": SCHEMA_VERSION,
        "tool": "pdp-audit pytest plugin",
        "verdict": verdict,
        "counts": {v: sum(r["verdict"] == v for r in records) for v in VERDICTS},
        "assertions": [_without_figures(r) for r in records],
        "version": package_version(),
        "code_version": code_version(),
        "versions": library_versions(),
    }


def _without_figures(record: dict) -> dict:
    return {**record, "checks": [{k: v for k, v in c.items() if k != "figure"} for c in record["checks"]]}


def _check(data: dict) -> Check:
    """A decided check of a record, with its figure when the record carries one."""
    check = check_from_dict(data)
    figure = data.get("figure")
    return check if figure is None else replace(check, figure=figure_from_dict(figure))


def _named(record: dict, number: int | None = None) -> str:
    """An assertion as the pages name it: its number in the session (the cover's #), its test, and its place in the
    test where it is not the test's first (the JSON's ``index`` counts from 0)."""
    where = record["nodeid"] + (f", the test's assertion {record['index'] + 1}" if record["index"] else "")
    return f"Assertion {number}: {where}" if number is not None else f"Test {where}"


def assertion_run(record: dict, number: int | None = None) -> Run:
    """The :class:`Run` an assertion was decided as, rebuilt from its record (``subject``: its number in the
    session, its test and its place in the test)."""
    return Run(
        mechanism=record.get("mechanism") or record["kind"],
        checks=tuple(_check(c) for c in record["checks"]),
        verdict=record["verdict"],
        exit_code=EXIT_CODES[record["verdict"]],
        alpha=record["alpha"],
        parameters=record.get("parameters") or {},
        seed=record["seed"],
        findings=(),
        subject=f"{_named(record, number)}: {record['header']}",
    )


def _cover(doc: dict) -> list[plt.Figure]:
    """The session's first page: the overall verdict, then one row per assertion (its test named once); the rows
    that do not fit go on to pages headed "Assertions (continued)", never cut (the last row ends the table)."""
    fig = plt.figure(figsize=A4)
    pages = [fig]
    counts = doc["counts"]
    y = text_block(
        fig,
        [
            ("pdp-audit — privacy assertions of a test session", {"size": 18, "weight": "bold", "gap": 0.01}),
            (
                f"{len(doc['assertions'])} assertions: {counts['pass']} certified, {counts['inconclusive']} undecided, "
                f"{counts['fail']} refuted. Each has its own pages below, drawn as `pdp-audit run` draws an audit.",
                {"size": 10, "gap": 0.01},
            ),
        ],
    )
    verdict_banner(fig, y, doc["verdict"], VERDICT_TEXT[doc["verdict"]])
    y = _header(fig, y - 0.085)
    room = (0.84 - 0.16) * A4[0] * 72  # points, up to the verdict column
    for number, r in enumerate(doc["assertions"], 1):
        test = r["nodeid"] + (f", the test's assertion {r['index'] + 1}" if r["index"] else "")
        lines = wrap_to_width(test, room, 7.5) + wrap_to_width(r["header"], room, 7.5)
        if y - 0.015 * len(lines) - 0.006 < 0.05:  # the row does not fit: a continuation page
            fig = plt.figure(figsize=A4)
            pages.append(fig)
            y = _header(fig, text_block(fig, [("Assertions (continued)", {"size": 13, "weight": "bold"})]))
        fig.text(0.07, y, str(number), fontsize=7.5, va="top")
        fig.text(0.86, y, claim_word(r["verdict"]), fontsize=7.5, va="top", weight="bold", color=COLOURS[r["verdict"]])
        for line in lines:
            fig.text(0.16, y, line, fontsize=7.5, va="top")
            y -= 0.015
        y -= 0.006
    return pages


def _header(fig, y: float) -> float:
    for x, head in zip((0.07, 0.16, 0.86), ("#", "test and claim", "verdict")):
        fig.text(x, y, head, fontsize=8.5, weight="bold", va="top")
    return y - 0.02


def _provenance(doc: dict) -> plt.Figure:
    """The session's last page: every assertion's seed and α, the pdp-audit and library versions."""
    fig = plt.figure(figsize=A4)
    mono = {"size": 8, "family": "DejaVu Sans Mono"}
    lines = [("Seeds and versions", {"size": 15, "weight": "bold", "gap": 0.01})]
    for number, r in enumerate(doc["assertions"], 1):
        lines.append((f"{_named(r, number)}: seed {r['seed']}, α {r['alpha']:g}, trials {r['trials']:,}", mono))
    lines.append(("", {}))
    lines.append((f"pdp-audit {doc.get('code_version', doc['version'])}", mono))
    lines.append(("versions: " + ", ".join(f"{k} {v}" for k, v in doc["versions"].items()), mono))
    lines.append(
        (
            "Reproduce: an assertion's seed is derived from --audit-seed, its test's node id and its position in the "
            "test; the same session gives the same numbers and a byte-identical report, with or without xdist.",
            {"size": 9},
        )
    )
    text_block(fig, lines)
    return fig


def session_report_paths(path: str | Path) -> tuple[Path, Path]:
    """The (JSON, PDF) paths of ``--audit-report path``: ``audit.pdf`` gives audit.json and audit.pdf."""
    path = Path(path)
    base = path.with_suffix("") if path.suffix.lower() in (".pdf", ".json") else path
    return base.with_name(base.name + ".json"), base.with_name(base.name + ".pdf")


def _session_pages(doc: dict, records: list[dict]):
    """The session cover, every assertion's pages as ``pdp-audit run`` draws them, the seeds and versions."""
    yield from _cover(doc)
    ordered = sorted(records, key=lambda r: (r["nodeid"], r["index"]))  # the cover's order: its numbers
    for number, record in enumerate(ordered, 1):
        yield from run_pages(assertion_run(record, number), provenance=False)
    yield _provenance(doc)


def write_session_report(records: list[dict], verdict: str, path: Path) -> list[Path]:
    """Write the session's JSON and PDF at :func:`session_report_paths` of ``path``, together and atomically (an
    OS error is an OutputError and leaves both earlier files)."""
    doc = session_document(records, verdict)
    json_path, pdf_path = session_report_paths(path)

    def render(tmp: Path) -> None:
        with pdf_document(tmp, {"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}) as pdf:
            save_pages(pdf, _session_pages(doc, records))

    text = json_text(doc)
    write_together(str(pdf_path), str(json_path), render, text)
    return [pdf_path, json_path]
