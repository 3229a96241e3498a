"""The mutant zoo's detection table as JSON and a one-table PDF (``pdp-audit mutants``).

The document is plain data: ``{"mutants": [{"id", "description", "expected", "caught_by", "trials", "verdict",
"twin_verdict", "twin_not_passing", "mutant_evidence", "twin_evidence"}], "caught", "total", "seed", "alpha",
"version"}``; each ``*_evidence`` is the deciding check's numbers
(:func:`pdp_audit.mutant_runs.deciding_numbers`).  No timestamps or timings, so the same seed and budget give
byte-identical files.
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.files import json_text
from pdp_audit.reports.json_report import code_version, package_version  # noqa: E402
from pdp_audit.reports.page_text import (  # noqa: E402
    A4,
    COLOURS,
    pdf_document,
    save_pages,
    text_block,
    text_height,
    verdict_banner,
    wrap_to_width,
)
from pdp_audit.reports.publish import write_together  # noqa: E402
from pdp_audit.reports.verdict_words import check_word


def mutants_document(rows: list[dict], seed: int, alpha: float) -> dict:
    """The JSON document of a zoo run (``rows`` as :meth:`pdp_audit.mutant_runs.Outcome.to_dict` gives them)."""
    caught = sum(r["verdict"] == "fail" and r["twin_verdict"] == "pass" for r in rows)
    return {
        "tool": "pdp-audit mutants",
        "caught": caught,
        "total": len(rows),
        "seed": seed,
        "alpha": alpha,
        "mutants": rows,
        "version": package_version(),
        "code_version": code_version(),
    }


def _heading(doc: dict, first: bool) -> list[tuple[str, dict]]:
    rows = doc["mutants"]
    lines = [
        ("pdp-audit — mutant zoo" + ("" if first else " (continued)"), {"size": 18, "weight": "bold", "gap": 0.01})
    ]
    if first:
        lines.append(
            (
                f"{doc['total']} plausible bugs, each a mechanism still claiming its guarantee, audited as the suite "
                f"audits a user's pair; each twin is the correct mechanism. Caught: a mutant fails and its twin "
                f"passes. Seed {doc['seed']}, family-wise false-alarm probability α = {doc['alpha']:g} per run, "
                f"{rows[0]['trials'] if rows else 0:,} releases per world.",
                {"size": 9.5, "gap": 0.01},
            )
        )
    return lines


def _evidence_lines(r: dict) -> list[str]:
    """The mutant's and its twin's deciding numbers, wrapped to the page."""
    room = 0.84 * A4[0] * 72
    lines = []
    for role in ("mutant", "twin"):
        numbers = _numbers(r.get(f"{role}_evidence"))
        if numbers:
            lines += wrap_to_width(f"{role + ' evidence:':<17}{numbers}", room, 7, "DejaVu Sans Mono")
    return lines


def _row_height(r: dict) -> float:
    """The height a row takes (figure fraction), as :func:`_page` draws it."""
    return 0.018 + 0.014 * (len(textwrap.wrap(r["description"], 110)) + len(_evidence_lines(r))) + 0.028


def _chunks(doc: dict) -> list[list[dict]]:
    """The rows of each page, as many as fit above the page's foot (readings that wrap make rows taller: a fixed
    count per page ran off the bottom)."""
    top = {first: 0.95 - text_height(_heading(doc, first)) - (0.08 if first else 0.0) for first in (True, False)}
    chunks: list[list[dict]] = [[]]
    y = top[True]
    for r in doc["mutants"]:
        height = _row_height(r)
        if chunks[-1] and y - height < 0.03:
            chunks.append([])
            y = top[False]
        chunks[-1].append(r)
        y -= height
    return chunks


def _page(doc: dict, rows: list[dict], first: bool) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    y = text_block(fig, _heading(doc, first))
    if first:
        ok = doc["caught"] == doc["total"]
        verdict_banner(fig, y, "pass" if ok else "fail", f"{doc['caught']} of {doc['total']} mutants caught")
        y -= 0.08
    for r in rows:
        caught = r["verdict"] == "fail" and r["twin_verdict"] == "pass"
        fig.text(0.07, y, r["id"], fontsize=9, weight="bold", va="top")
        fig.text(
            0.93,
            y,
            "CAUGHT" if caught else "MISSED",
            fontsize=9,
            weight="bold",
            va="top",
            ha="right",
            color=COLOURS["pass" if caught else "fail"],
        )
        y -= 0.018
        for line in textwrap.wrap(r["description"], 110):
            fig.text(0.09, y, line, fontsize=7.5, va="top")
            y -= 0.014
        found = ", ".join(r["caught_by"]) or "nothing"
        twin = check_word(r["twin_verdict"])
        twin += f" ({', '.join(r['twin_not_passing'])})" if r["twin_not_passing"] else ""
        fig.text(
            0.09,
            y,
            f"mutant: {check_word(r['verdict'])}, refuted by {found};  correct twin: {twin}",
            fontsize=7.5,
            va="top",
            family="DejaVu Sans Mono",
        )
        for line in _evidence_lines(r):
            fig.text(0.09, y - 0.014, line, fontsize=7, va="top", family="DejaVu Sans Mono")
            y -= 0.014
        y -= 0.028
    return fig


def _numbers(evidence: dict | None) -> str:
    """A deciding check's numbers on one line: what it shows, its estimate and its simultaneous interval."""
    if not evidence:
        return ""
    interval = evidence.get("interval")
    shown = "" if interval is None else " [" + ", ".join("∞" if v is None else f"{v:.3g}" for v in interval) + "]"
    estimate = "" if evidence.get("estimate") is None else f"; estimate {evidence['estimate']:.3g}{shown}"
    return f"{evidence['check']} {check_word(evidence['verdict'])}: {evidence['reading']}{estimate}"


def write_mutants_report(doc: dict, pdf: str | None, json_path: str | None) -> None:
    """Write the PDF and the JSON (``-``: stdout) together (:func:`pdp_audit.reports.publish.write_together`)."""
    text = json_text(doc)
    write_together(pdf, json_path, lambda tmp: _render(doc, tmp), text)


def _render(doc: dict, path) -> None:
    chunks = _chunks(doc)
    with pdf_document(path, {"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}) as pdf:
        save_pages(pdf, (_page(doc, chunk, first=i == 0) for i, chunk in enumerate(chunks)))
