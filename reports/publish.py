"""Publishing a run's reports: its PDF and JSON together, both or neither."""

from __future__ import annotations

import sys

from reports.files import atomic_paths
from reports.json_report import dumps
from reports.pdf import render_pdf
from reports.records import Run


def write_run_reports(run: Run, pdf: str | None, json_path: str | None) -> None:
    """Write the run's PDF and JSON (either may be None; JSON ``-`` goes to stdout).

    Both files are complete before either is renamed into place, so an interruption leaves both or neither.
    """
    text = dumps(run) if json_path else ""
    targets = [p for p in (pdf, json_path) if p is not None and p != "-"]
    with atomic_paths(*targets) as temporaries:
        for target, tmp in zip(targets, temporaries):
            if target is pdf:
                render_pdf(run, tmp)
            else:
                tmp.write_text(text, encoding="utf-8")
    if json_path == "-":
        sys.stdout.write(text)
