"""Publishing reports: a PDF and its JSON together, both or neither."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from pdp_audit.reports.files import atomic_paths
from pdp_audit.reports.json_report import dumps
from pdp_audit.reports.pdf import render_pdf
from pdp_audit.reports.records import Run


def write_together(pdf: str | None, json_path: str | None, render: Callable[[Path], None], text: str) -> None:
    """Write ``render``'s PDF at ``pdf`` and ``text`` at ``json_path`` (either may be None; JSON ``-`` goes to
    stdout).  Both files are complete before either is renamed into place, so an interruption leaves both or
    neither."""
    targets = [p for p in (pdf, json_path) if p is not None and p != "-"]
    with atomic_paths(*targets) as temporaries:
        for target, tmp in zip(targets, temporaries):
            if target is pdf:
                render(tmp)
            else:
                tmp.write_text(text, encoding="utf-8")
    if json_path == "-":
        sys.stdout.write(text)


def write_run_reports(run: Run, pdf: str | None, json_path: str | None) -> None:
    """Write the run's PDF and JSON (:func:`write_together`)."""
    write_together(pdf, json_path, lambda tmp: render_pdf(run, tmp), dumps(run) if json_path else "")
