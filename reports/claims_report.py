"""The claims ledger run as a reviewer's PDF and its JSON (``pdp-audit claims --run``).

Pages: a cover with the counts and the summary table (id, paper and place, one-line statement, verdict,
agreement with the ledger, key number), continued as needed; a page per decided entry (the statement as
printed, the method -- the checks it cites and the command -- and every check's numbers with its interval,
with the first figure among its checks); the not-run entries with their reasons; an appendix with the seed,
the versions, the audit commands and how to rerun any single claim.  The document is plain data
(:func:`pdp_audit.ledger.runs.document`), with no timestamps or timings: the same seed gives byte-identical
files.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.check_reading import basis, evidence_lines, reading  # noqa: E402
from pdp_audit.reports.files import json_text
from pdp_audit.reports.page_text import (  # noqa: E402
    A4,
    COLOURS,
    draw_row,
    pdf_document,
    row_height,
    save_pages,
    text_block,
    text_height,
    verdict_banner,
    wrap_cells,
)
from pdp_audit.reports.plots import plot  # noqa: E402
from pdp_audit.reports.publish import write_together  # noqa: E402
from pdp_audit.reports.records import Check, TailCurves  # noqa: E402
from pdp_audit.reports.verdict_words import check_word, claim_word

GREY = "#555555"
AGREEMENT = {True: ("agrees", COLOURS["pass"]), False: ("DISAGREES", COLOURS["fail"]), None: ("undecided", GREY)}


def write_claims_report(
    doc: dict, checks: Mapping[str, Sequence[Check]], pdf: str | None, json_path: str | None
) -> None:
    """Write the PDF and the JSON (``-``: stdout) together (both or neither)."""
    text = json_text(doc)
    write_together(pdf, json_path, lambda tmp: _render(doc, checks, tmp), text)


def _render(doc: dict, checks: Mapping[str, Sequence[Check]], path) -> None:
    metadata = {"Title": "pdp-audit claims ledger run", "Creator": "pdp-audit", "Producer": "pdp-audit"}
    with pdf_document(path, {**metadata, "CreationDate": None}) as pdf:
        save_pages(pdf, _pages(doc, checks))  # one figure open at a time


def _pages(doc: dict, checks: Mapping[str, Sequence[Check]]):
    entries = doc["entries"]
    rows = [_row_cells(row) for row in entries]
    chunks, start = [], 0
    for room in _table_rooms(doc):
        count = _rows_fitting(rows[start:], room)
        chunks.append(entries[start : start + count])
        start += count
        if start >= len(entries):
            break
    for k, chunk in enumerate(chunks):
        yield _summary_page(doc, chunk, cover=k == 0)
    for entry in entries:
        if entry["status"] == "checked":
            yield from _entry_pages(entry, checks.get(entry["id"], ()))
    yield from _not_run_pages([e for e in entries if e["status"] != "checked"])
    yield _appendix_page(doc)


def _table_rooms(doc: dict):
    """The height each summary page has for its table: the cover's below its text and banner, then full pages."""
    yield _COVER_TABLE_TOP - text_height(_cover_lines(doc)) - 0.05
    while True:
        yield 0.95 - 0.03 - 0.05


def _rows_fitting(rows: list, room: float) -> int:
    """How many wrapped rows fit in ``room``; never all but one (no orphan row on a page of its own)."""
    used, count = 0.016, 0
    for row in rows:
        used += row_height(row[0], SIZE) + row_height(row[1], SIZE - 0.8) + 0.002
        if used > room:
            break
        count += 1
    if count == len(rows) - 1 and count >= 2:
        count -= 1
    return max(count, 1)


def _outcome(doc: dict) -> tuple[str, str]:
    """The banner: green when every computed verdict agrees with the ledger, red when one disagrees."""
    c = doc["counts"]
    text = f"{c['pass']} certified · {c['fail']} refuted · {c['inconclusive']} undecided"
    if doc["disagreements"]:
        return "fail", f"{len(doc['disagreements'])} DISAGREE with the ledger: {text}"
    return "pass", f"all agree with the ledger: {text}"


def _cover_lines(doc: dict) -> list[tuple[str, dict]]:
    c = doc["counts"]
    budget = "quick budgets (--quick)" if doc["quick"] else "each audit's default budget"
    return [
        ("pdp-audit — the claims ledger, run", {"size": 18, "weight": "bold", "gap": 0.01}),
        (
            f"Every checkable statement of {PAPERS}, decided by a run of today's code: {budget}, seed "
            f"{doc['seed']}, family-wise false-alarm probability α = {doc['alpha_per_audit']:g} per audit run. A "
            "verdict is computed from the checks the entry cites; 'expected' is the verdict the ledger recorded with "
            f"its finding, and 'agrees' compares the two. Not run: {c['not-simulable']} not simulable, "
            f"{c['planned']} planned (reasons at the end).",
            {"size": 9, "gap": 0.012},
        ),
    ]


_COVER_TABLE_TOP = 0.965 - 0.08
#: The papers the ledger's entries cite, by key.
PAPERS = (
    "[PDP] Y.-X. Wang, Per-instance differential privacy, Journal of Privacy and Confidentiality 9(1), 2019; "
    "[RW] R. Redberg and Y.-X. Wang, Privately publishable per-instance privacy, NeurIPS 2021; "
    "[LR] Y.-X. Wang, Revisiting differentially private linear regression, UAI 2018"
)


def _summary_page(doc: dict, rows: list[dict], cover: bool) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    if cover:
        y = text_block(fig, _cover_lines(doc), top=0.965)
        verdict_banner(fig, y, *_outcome(doc))
        y -= 0.08
    else:
        y = text_block(fig, [("Summary (continued)", {"size": 13, "weight": "bold", "gap": 0.01})])
    _table(fig, rows, y)
    return fig


SIZE = 6.5  # points: the summary table
#: (left, width) of the summary's columns: id, paper and place (the statement below), verdict, expected, agreement.
COLUMNS = ((0.05, 0.09), (0.15, 0.46), (0.62, 0.10), (0.73, 0.10), (0.84, 0.11))
#: The second line of a row: the statement as printed, and the key number or the reason it was not run.
DETAIL_COLUMNS = ((0.15, 0.46), (0.62, 0.33))


def _row_cells(row: dict) -> tuple[list[list[str]], list[list[str]]]:
    """A summary row, wrapped: (the first line's cells, the detail line's cells)."""
    label = AGREEMENT[row["agrees"]][0] if row["status"] == "checked" else "not run"
    first = wrap_cells((row["id"], row["where"], row["verdict"], row["expected"], label), COLUMNS, SIZE, bold=(0, 2, 4))
    detail = wrap_cells((row["statement"], row["key_number"] or row["reason"] or ""), DETAIL_COLUMNS, SIZE - 0.8)
    return first, detail


def _table(fig, rows: list[dict], y: float) -> None:
    for (x, _), name in zip(COLUMNS, ("id", "paper, place / statement", "verdict", "expected", "")):
        fig.text(x, y, name, fontsize=7.5, weight="bold", va="top")
    y -= 0.016
    for row in rows:
        colour = COLOURS.get(row["verdict"], GREY)
        agree_colour = AGREEMENT[row["agrees"]][1] if row["status"] == "checked" else GREY
        first, detail = _row_cells(row)
        bold = {"weight": "bold"}
        y = draw_row(
            fig, y, first, COLUMNS, SIZE, [bold, {}, {**bold, "color": colour}, {}, {**bold, "color": agree_colour}]
        )
        y = draw_row(fig, y, detail, DETAIL_COLUMNS, SIZE - 0.8, [{"color": GREY}] * 2) - 0.002


def _entry_pages(entry: dict, checks: Sequence[Check]):
    """An entry's page -- its statement, method and finding, each check's summary, then the first figure among its
    checks -- continued on further pages while they do not fit."""
    agree, colour = AGREEMENT[entry["agrees"]]
    lines: list[tuple[str, dict]] = [
        (f"{entry['id']} — {entry['where']}", {"size": 13, "weight": "bold", "gap": 0.006}),
        (
            f"verdict: {claim_word(entry['verdict'])}    expected: {check_word(entry['expected'])}    {agree}",
            {"size": 10.5, "weight": "bold", "color": COLOURS.get(entry["verdict"], GREY), "gap": 0.01},
        ),
        ("As printed: " + entry["statement"], {"size": 8.5, "gap": 0.008}),
        (
            f"Method: checks {', '.join(c.id for c in checks)} of `{entry['command']}` "
            f"(rerun alone: `{entry['rerun']}`). The entry's verdict is the worst of its checks'.",
            {"size": 8, "gap": 0.008},
        ),
    ]
    if entry["finding"]:
        lines.append(("Ledger finding: " + entry["finding"], {"size": 7.5, "color": GREY, "gap": 0.01}))
    fig = plt.figure(figsize=A4)
    y = text_block(fig, lines, top=0.965)
    title: tuple[str, dict] = (f"{entry['id']} (continued)", {"size": 13, "weight": "bold", "gap": 0.01})
    for check in checks:
        summary = _check_summary(check)
        if y - text_height(summary) < 0.03:  # the rest on a page of its own
            yield fig
            fig = plt.figure(figsize=A4)
            y = text_block(fig, [title], top=0.965)
        y = text_block(fig, summary, top=y)
    figure = next((c.figure for c in checks if c.figure is not None), None)
    bottom = 0.05  # below the entry's text, the figure ends at the page's foot
    if figure is not None and y - 0.08 < _figure_height(figure):  # no room for it legible: a page of its own
        yield fig
        fig = plt.figure(figsize=A4)
        y = text_block(fig, [title], top=0.965)
        bottom = y - 0.04 - 0.45  # right below the title, not at the foot of an empty page
    if figure is not None:
        plot(fig, figure, (0.1, bottom, 0.82, min(y - 0.03, bottom + 0.45) - bottom))
    yield fig


_FIGURE_HEIGHT = 0.3  # the least height (of the page) a check's figure is drawn in


def _figure_height(figure) -> float:
    """The least height a figure is legible in: :data:`_FIGURE_HEIGHT`, 0.2 per panel of stacked δ(ε) panels (two
    panels in 0.3 were strips a centimetre high: RW-Thm11)."""
    return max(_FIGURE_HEIGHT, 0.2 * len(figure.curves)) if isinstance(figure, TailCurves) else _FIGURE_HEIGHT


def _check_summary(check: Check) -> list[tuple[str, dict]]:
    """A check in a few lines: id, verdict and role; claim; method; what the verdict stands on and reads, then its
    numbers, the deciding one first -- as a run report's page 1 and check page read them
    (:mod:`pdp_audit.reports.check_reading`); note."""
    role = "guarantee" if check.role == "guarantee" else "paper statement"
    indented = {"size": 7.5, "indent": 0.02, "gap": 0.0}
    out: list[tuple[str, dict]] = [
        (
            f"[{check.id}] {check.title} — {check_word(check.verdict)} ({role})",
            {"size": 8.5, "weight": "bold", "color": COLOURS[check.verdict], "gap": 0.002},
        ),
        ("Claim: " + check.claim, indented),
        ("Method: " + check.formula, indented),
        (f"Basis of the verdict: {basis(check)}. The evidence shows: {reading(check)}.", indented),
        *((line, indented) for line in evidence_lines(check)),
    ]
    if check.note:
        out.append((check.note, {"size": 7, "indent": 0.02, "color": GREY, "gap": 0.0}))
    out[-1] = (out[-1][0], {**out[-1][1], "gap": 0.008})
    return out


def _not_run_pages(rows: list[dict]):
    """The entries not run, with statement and reason, on as many pages as they take."""
    fig, y = None, 0.0
    for row in rows:
        lines: list[tuple[str, dict]] = [
            (f"{row['id']} — {row['where']} — {row['verdict']}", {"size": 8.5, "weight": "bold"}),
            (row["statement"], {"size": 7.5, "indent": 0.02}),
            ("Why: " + (row["reason"] or ""), {"size": 7.5, "indent": 0.02, "color": GREY, "gap": 0.008}),
        ]
        if fig is None or y - text_height(lines) < 0.03:
            if fig is not None:
                yield fig
            fig = plt.figure(figsize=A4)
            title = "Entries not run" + ("" if y == 0.0 else " (continued)")
            y = text_block(fig, [(title, {"size": 13, "weight": "bold", "gap": 0.01})], top=0.965)
        y = text_block(fig, lines, top=y)
    if fig is not None:
        yield fig


def _appendix_page(doc: dict) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    mono = {"size": 7.5, "family": "DejaVu Sans Mono"}
    lines: list[tuple[str, dict]] = [
        ("Appendix: seeds, versions, commands", {"size": 13, "weight": "bold", "gap": 0.01}),
        (
            f"seed {doc['seed']}; {'quick budgets' if doc['quick'] else 'default budgets'}; α = "
            f"{doc['alpha_per_audit']:g} per audit run; pdp-audit {doc.get('code_version', doc['version'])}",
            {"size": 8.5},
        ),
        ("versions: " + ", ".join(f"{k} {v}" for k, v in doc["versions"].items()), {"size": 8, "gap": 0.012}),
        ("The audit runs behind the verdicts (each audit once; the entries cite their checks):", {"size": 8.5}),
    ]
    lines += [(command, mono) for command in doc["audits"].values()]
    lines += [
        ("", {}),
        (
            "Rerun any single claim with `pdp-audit claims --run --only ID --seed K` (add --quick for the quick "
            "budgets): the same seed gives the same numbers and byte-identical PDF and JSON, whatever the number "
            "of workers. Guarantees are identical with and without --paper-claims (each role is its own family of "
            "tests), so an entry whose command has no --paper-claims gets the same numbers here.",
            {"size": 8.5},
        ),
    ]
    text_block(fig, lines, top=0.965)
    return fig
