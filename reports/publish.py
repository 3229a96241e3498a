"""Publishing reports: a PDF and its JSON (and a CSV) together, all or none."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

from pdp_audit.reports.files import atomic_paths, write_stdout, writing_to
from pdp_audit.reports.json_report import dumps
from pdp_audit.reports.records import Run


def write_together(
    pdf: str | None,
    json_path: str | None,
    render: Callable[[Path], None],
    text: str,
    more_texts: Mapping[str, str] | None = None,
) -> None:
    """Write ``render``'s PDF at ``pdf``, ``text`` at ``json_path`` and each of ``more_texts`` (path -> text, e.g. a
    CSV) at its path (any may be absent; a text at ``-`` goes to stdout).  Every file is complete before the first
    is renamed into place, so an interruption or a full disk leaves all of them or none (each earlier file kept)."""
    texts = {**({json_path: text} if json_path is not None else {}), **(more_texts or {})}
    files = {path: body for path, body in texts.items() if path != "-"}
    targets = ([pdf] if pdf is not None else []) + list(files)
    with atomic_paths(*targets) as temporaries:
        if pdf is not None:
            with writing_to(pdf):
                render(temporaries[0])
        for tmp, (path, body) in zip(temporaries[pdf is not None :], files.items()):
            with writing_to(path):
                tmp.write_text(body, encoding="utf-8")
    for path, body in texts.items():
        if path == "-":
            write_stdout(body)


def write_run_reports(run: Run, pdf: str | None, json_path: str | None) -> None:
    """Write the run's PDF and JSON (:func:`write_together`); the PDF's renderer (matplotlib) is imported only for
    a PDF: a second of a ``--report none`` command went to importing it."""

    def render(tmp: Path) -> None:
        # deferred: read at call time (tests replace pdf.render_pdf)
        from pdp_audit.reports.pdf import render_pdf

        render_pdf(run, tmp)

    write_together(pdf, json_path, render, dumps(run) if json_path else "")
