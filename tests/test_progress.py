"""One progress helper for every pass (verify/estimators/progress.py): a bar on a terminal's stderr, nothing on a file
or a pipe, and the items passed through unchanged either way."""

from __future__ import annotations

import io
import sys

from pdp_audit.verify.estimators.progress import progress_bar, with_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_shows_on_a_terminal_only(monkeypatch):
    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        assert list(with_progress(iter(range(7)), 7, "blocks of draws", "block", True)) == list(range(7))
        assert ("blocks of draws" in stream.getvalue()) is shown


def test_no_bar_when_not_asked(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(with_progress(range(3), 3, "quiet", "block", False)) == [0, 1, 2]
    with progress_bar(3, "quiet", "cell", False) as bar:
        assert bar is None
    assert terminal.getvalue() == ""


def test_a_bar_counts_from_its_initial_value(monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    with progress_bar(10, "sweep", "cell", True, initial=4) as bar:
        bar.update(6)
        assert (bar.n, bar.total) == (10, 10)
