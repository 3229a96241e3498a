"""Report of ``pdp-audit benchmark linreg``: JSON and a PDF with one [LR] Table 3/4-style table per ε.

Byte-identical for identical results (no timestamps; fixed fonts and sizes); written atomically.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from pdp_audit.reports.files import atomic_path, json_text, write_stdout  # noqa: E402
from pdp_audit.reports.json_report import clean, code_version, library_versions, package_version  # noqa: E402
from pdp_audit.reports.page_text import A4, pdf_document, save_pages, text_block  # noqa: E402

DP = ("OPS", "SSP", "AdaOPS", "AdaSSP")


def document(result: dict) -> dict:
    """The JSON document: the benchmark's result with the package and library versions."""
    return clean(
        {**result, "version": package_version(), "code_version": code_version(), "versions": library_versions()}
    )


def write_json(result: dict, path: str) -> None:
    """Write :func:`document` as JSON to ``path`` (atomically), or to stdout for ``-``."""
    text = json_text(document(result))
    if path == "-":
        write_stdout(text)
        return
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _cell(entry: dict) -> str:
    mean, half = entry["mean"], entry["half_width"]
    return f"{mean:.3g} ± {half:.2g}" if np.isfinite(half) else f"{mean:.3g}"


def _table_page(result: dict, eps: str) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    methods = result["methods"]
    y = text_block(
        fig,
        [
            (
                f"Test MSE at ε = {eps} ({'Table 3' if eps == '0.1' else 'Table 4'}-style)",
                {"size": 15, "weight": "bold"},
            ),
            (
                "Cross-validated test MSE, mean over folds ± 95% t-interval half-width; δ = min(1e-6, 1/n²). "
                "Bold: the best DP method of the row and every DP method whose interval covers it (the paper's "
                f"rule, roughly). {result['protocol']}.",
                {"size": 9},
            ),
        ],
    )
    ax = fig.add_axes((0.04, 0.05, 0.92, y - 0.08))
    ax.axis("off")
    rows, bold = [], []
    for ds in result["datasets"]:
        res = ds["results"][eps]
        best = min(DP, key=lambda m: res[m]["mean"])
        lo = res[best]["mean"]
        rows.append([f"{ds['name']} ({ds['n']}×{ds['d']})"] + [_cell(res[m]) for m in methods])
        bold.append([m in DP and res[m]["mean"] - res[m]["half_width"] <= lo for m in methods])
    table = ax.table(cellText=rows, colLabels=["data set (n×d)"] + list(methods), loc="upper center", cellLoc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(6.5)
    table.scale(1.0, 1.35)
    for (r, c), cell in table.get_celld().items():
        if r == 0:
            cell.set_text_props(weight="bold")
        elif c >= 1 and bold[r - 1][c - 1]:
            cell.set_text_props(weight="bold")
    return fig


def _chart_page(result: dict) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    y = text_block(
        fig,
        [
            ("Relative test MSE (method / non-private)", {"size": 15, "weight": "bold"}),
            (
                "Each point: one data set; lower is better; log scale. Values above 1 cost utility relative to the "
                "non-private least-squares fit.",
                {"size": 9},
            ),
        ],
    )
    names = [ds["name"] for ds in result["datasets"]]
    height = (y - 0.1) / 2
    for i, eps in enumerate(("0.1", "1")):
        ax = fig.add_axes((0.12, 0.06 + (1 - i) * height, 0.82, height - 0.06))
        for j, m in enumerate(result["methods"]):
            if m == "non-private":
                continue
            values = [
                ds["results"][eps][m]["mean"] / max(ds["results"][eps]["non-private"]["mean"], 1e-300)
                for ds in result["datasets"]
            ]
            ax.plot(np.arange(len(names)) + (j - 2.5) * 0.08, values, "o", ms=4, label=m)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
        ax.set_title(f"ε = {eps}", fontsize=9)
        ax.legend(fontsize=7, ncol=3)
    return fig


def _provenance_page(result: dict) -> plt.Figure:
    fig = plt.figure(figsize=A4)
    lines = [
        ("Protocol, data and versions", {"size": 15, "weight": "bold", "gap": 0.01}),
        (
            f"folds: {result['folds']}   releases per fold: {result['draws']}   seed: {result['seed']}   "
            f"pdp-audit {code_version()}",
            {"size": 9, "family": "DejaVu Sans Mono"},
        ),
    ]
    for ds in result["datasets"]:
        lines.append(
            (
                f"{ds['name']}: n = {ds['n']}, d = {ds['d']}, folds = {ds['folds']}, δ = {ds['delta']:.3g} "
                f"({ds['source']})",
                {"size": 9, "family": "DejaVu Sans Mono"},
            )
        )
    lines.append(
        (
            "versions: " + ", ".join(f"{k} {v}" for k, v in library_versions().items()),
            {"size": 9, "family": "DejaVu Sans Mono"},
        )
    )
    lines.append(
        (
            "Not included: ObjPert, and the paper's 36 UCI data sets (not available offline). "
            "The same seed gives the same numbers.",
            {"size": 9},
        )
    )
    text_block(fig, lines)
    return fig


def write_pdf(result: dict, path: str) -> None:
    """Write the PDF (two tables, a chart, the provenance page) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        with pdf_document(tmp, {"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}) as pdf:
            pages = (
                lambda: _table_page(result, "0.1"),
                lambda: _table_page(result, "1"),
                lambda: _chart_page(result),
                lambda: _provenance_page(result),
            )
            save_pages(pdf, (page() for page in pages))
