"""The claims ledger run as a reviewer's PDF and its JSON (``pdp-audit claims --run``).

Pages: a cover with the counts and the summary table (id, paper and place, one-line statement, verdict,
agreement with the ledger, key number), continued as needed; a page per decided entry (the statement as
printed, the method -- the checks it cites and the command -- and every check's numbers with its interval,
with the first figure among its checks); the not-run entries with their reasons; an appendix with the seed,
the versions, the audit commands and how to rerun any single claim.  The document is plain data
(:func:`pdp_audit.verify.ledger.runs.document`), with no timestamps or timings: the same seed gives byte-identical
files.
"""

from __future__ import annotations

import json
import textwrap
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

from pdp_audit.reports.page_text import A4, COLOURS, RC, fmt, fmt_ci, save_pages, text_block, verdict_banner  # noqa: E402
from pdp_audit.reports.pdf import check_lines  # noqa: E402
from pdp_audit.reports.plots import plot  # noqa: E402
from pdp_audit.reports.publish import write_together  # noqa: E402
from pdp_audit.reports.records import Check  # noqa: E402

GREY = "#555555"
NOT_RUN_PER_PAGE = 11  # entries not run, with statement and reason, that fit one page
ROW = 0.0185  # height of a summary row (two lines of small text)
AGREEMENT = {True: ("agrees", COLOURS["pass"]), False: ("DISAGREES", COLOURS["fail"]), None: ("undecided", GREY)}


# Letters the report's font (DejaVu Sans) lacks, as the papers' plain equivalents (𝒳 is the data domain X, …).
_MISSING_GLYPHS = str.maketrans({"𝒳": "X", "𝒴": "Y", "𝒟": "D", "𝒵": "Z", "𝒩": "N"})


def _printable(doc):
    """``doc`` with every string's missing glyphs replaced (the JSON keeps the original text)."""
    if isinstance(doc, dict):
        return {k: _printable(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_printable(v) for v in doc]
    return doc.translate(_MISSING_GLYPHS) if isinstance(doc, str) else doc


def write_claims_report(
    doc: dict, checks: Mapping[str, Sequence[Check]], pdf: str | None, json_path: str | None
) -> None:
    """Write the PDF and the JSON (``-``: stdout) together (both or neither)."""
    text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    write_together(pdf, json_path, lambda tmp: _render(_printable(doc), checks, tmp), text)


def _render(doc: dict, checks: Mapping[str, Sequence[Check]], path) -> None:
    metadata = {"Title": "pdp-audit claims ledger run", "Creator": "pdp-audit", "Producer": "pdp-audit"}
    with plt.rc_context(RC), PdfPages(path, metadata={**metadata, "CreationDate": None}) as pdf:
        save_pages(pdf, _pages(doc, checks))  # one figure open at a time


def _pages(doc: dict, checks: Mapping[str, Sequence[Check]]):
    entries = doc["entries"]
    first = _cover_rows()
    yield _summary_page(doc, entries[:first], cover=True)
    for i in range(first, len(entries), _continued_rows()):
        yield _summary_page(doc, entries[i : i + _continued_rows()], cover=False)
    for entry in entries:
        if entry["status"] == "checked":
            yield _entry_page(entry, checks.get(entry["id"], ()), doc)
    not_run = [e for e in entries if e["status"] != "checked"]
    for i in range(0, len(not_run), NOT_RUN_PER_PAGE):
        yield _not_run_page(not_run[i : i + NOT_RUN_PER_PAGE], first=i == 0)
    yield _appendix_page(doc)


def _cover_rows() -> int:
    return int((0.74 - 0.05) / ROW)


def _continued_rows() -> int:
    return int((0.9 - 0.05) / ROW)


def _outcome(doc: dict) -> tuple[str, str]:
    """The banner: green when every computed verdict agrees with the ledger, red when one disagrees."""
    c = doc["counts"]
    text = f"{c['pass']} pass · {c['fail']} fail · {c['inconclusive']} inconclusive"
    if doc["disagreements"]:
        return "fail", f"{len(doc['disagreements'])} DISAGREE with the ledger: {text}"
    return "pass", f"all agree with the ledger: {text}"


def _summary_page(doc: dict, rows: list[dict], cover: bool) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    if cover:
        c = doc["counts"]
        budget = "quick budgets (--quick)" if doc["quick"] else "each audit's default budget"
        lines = [
            ("pdp-audit — the claims ledger, run", {"size": 18, "weight": "bold", "gap": 0.01}),
            (
                "Every checkable statement of [PDP] Wang 2017, [RW] Redberg & Wang 2021 and [LR] Wang 2018, decided "
                f"by a run of today's code: {budget}, seed {doc['seed']}, family-wise false-alarm probability "
                f"α = {doc['alpha_per_audit']:g} per audit run. A verdict is computed from the checks the entry "
                "cites; 'expected' is the verdict the ledger recorded with its finding, and 'agrees' compares "
                f"the two. Not run: {c['not-simulable']} not simulable, {c['planned']} planned (reasons at the end).",
                {"size": 9, "gap": 0.012},
            ),
        ]
        y = text_block(fig, lines, top=0.965)
        verdict_banner(fig, y, *_outcome(doc))
        y -= 0.08
    else:
        y = text_block(fig, [("Summary (continued)", {"size": 13, "weight": "bold", "gap": 0.01})])
    _table(fig, rows, y)
    return fig


def _table(fig, rows: list[dict], y: float) -> None:
    columns = ((0.05, "id"), (0.15, "paper, place / statement"), (0.62, "verdict"), (0.73, "expected"), (0.84, ""))
    for x, name in columns:
        fig.text(x, y, name, fontsize=7.5, weight="bold", va="top")
    y -= 0.014
    for row in rows:
        verdict = row["verdict"]
        colour = COLOURS.get(verdict, GREY)
        label, agree_colour = AGREEMENT[row["agrees"]] if row["status"] == "checked" else ("not run", GREY)
        fig.text(0.05, y, row["id"], fontsize=7, weight="bold", va="top")
        fig.text(0.15, y, textwrap.shorten(row["where"], 80), fontsize=6.5, va="top")
        fig.text(0.62, y, verdict, fontsize=7, va="top", color=colour, weight="bold")
        fig.text(0.73, y, row["expected"], fontsize=7, va="top")
        fig.text(0.84, y, label, fontsize=7, va="top", color=agree_colour, weight="bold")
        detail = row["key_number"] or row["reason"] or ""
        fig.text(0.15, y - 0.0085, textwrap.shorten(row["statement"], 95), fontsize=5.8, va="top", color=GREY)
        if detail:
            fig.text(0.62, y - 0.0085, textwrap.shorten(detail, 62), fontsize=5.6, va="top", color=GREY)
        y -= ROW


def _entry_page(entry: dict, checks: Sequence[Check], doc: dict) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    agree, colour = AGREEMENT[entry["agrees"]]
    lines = [
        (f"{entry['id']} — {entry['where']}", {"size": 13, "weight": "bold", "gap": 0.006}),
        (
            f"verdict: {entry['verdict'].upper()}    expected: {entry['expected']}    {agree}",
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
    y = text_block(fig, lines, top=0.965, width=120)
    figure = next((c.figure for c in checks if c.figure is not None), None)
    bottom = 0.36 if figure is not None else 0.03
    for check in checks:
        if y < bottom + 0.05:
            fig.text(0.07, y, "… (further checks: see the JSON)", fontsize=7.5, va="top", color=GREY)
            break
        y = text_block(fig, _check_summary(check), top=y, width=125)
    if figure is not None:
        plot(fig, figure, (0.1, 0.05, 0.82, min(y - 0.03, bottom - 0.02) - 0.05))
    return fig


def _check_summary(check: Check) -> list[tuple[str, dict]]:
    """A check in four lines: id, verdict and role; claim; numbers with the interval; note."""
    lines = check_lines(check)
    role = "guarantee" if check.role == "guarantee" else "paper statement"
    numbers = f"estimate {fmt(check.estimate, 6)}   exact {fmt(check.exact, 6)}   interval {fmt_ci(check.ci)}"
    if check.level:
        numbers += f" at confidence {check.level:.10g}"
    out = [
        (
            f"[{check.id}] {check.title} — {check.verdict.upper()} ({role})",
            {"size": 8.5, "weight": "bold", "color": COLOURS[check.verdict], "gap": 0.002},
        ),
        (lines[3][0], {"size": 7.5, "indent": 0.02, "gap": 0.0}),
        ("Method: " + check.formula, {"size": 7.5, "indent": 0.02, "gap": 0.0}),
        (numbers, {"size": 7.5, "indent": 0.02, "gap": 0.0, "family": "DejaVu Sans Mono"}),
    ]
    if check.note:
        out.append((textwrap.shorten(check.note, 600), {"size": 7, "indent": 0.02, "color": GREY, "gap": 0.0}))
    out[-1] = (out[-1][0], {**out[-1][1], "gap": 0.008})
    return out


def _not_run_page(rows: list[dict], first: bool) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    title = "Entries not run" + ("" if first else " (continued)")
    lines = [(title, {"size": 13, "weight": "bold", "gap": 0.01})]
    for row in rows:
        lines.append((f"{row['id']} — {row['where']} — {row['verdict']}", {"size": 8.5, "weight": "bold"}))
        lines.append((textwrap.shorten(row["statement"], 400), {"size": 7.5, "indent": 0.02}))
        lines.append(("Why: " + (row["reason"] or ""), {"size": 7.5, "indent": 0.02, "color": GREY, "gap": 0.008}))
    text_block(fig, lines, top=0.965, width=125)
    return fig


def _appendix_page(doc: dict) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    mono = {"size": 7.5, "family": "DejaVu Sans Mono"}
    lines = [
        ("Appendix: seeds, versions, commands", {"size": 13, "weight": "bold", "gap": 0.01}),
        (
            f"seed {doc['seed']}; {'quick budgets' if doc['quick'] else 'default budgets'}; α = "
            f"{doc['alpha_per_audit']:g} per audit run; pdp-audit {doc['version']}",
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
    text_block(fig, lines, top=0.965, width=120)
    return fig
