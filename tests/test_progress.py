"""One progress helper for every pass and command (verify/estimators/progress.py): a bar with its total on a
terminal's stderr (or wherever PDP_AUDIT_PROGRESS=1 asks), nothing on a file or a pipe, the items passed through
unchanged either way, and never a byte of it on stdout or in the JSON."""

from __future__ import annotations

import io
import sys

import pytest

from pdp_audit.verify.estimators import progress
from pdp_audit.verify.estimators.progress import asking, progress_bar, say, with_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def at_once(monkeypatch):
    """Bars appear at once (a test's passes end before the delay that keeps short passes quiet)."""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.delenv(progress.ENV, raising=False)


def test_a_bar_shows_on_a_terminal_only(monkeypatch, at_once):
    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        assert list(with_progress(iter(range(7)), 7, "blocks of draws", "block", True)) == list(range(7))
        assert ("blocks of draws" in stream.getvalue()) is shown
        assert ("/7" in stream.getvalue()) is shown  # the total


def test_no_bar_when_not_asked(monkeypatch, at_once):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(with_progress(range(3), 3, "quiet", "block", False)) == [0, 1, 2]
    with progress_bar(3, "quiet", "cell", False) as bar:
        assert bar is None
    assert terminal.getvalue() == ""


def test_the_environment_forces_bars_on_or_off(monkeypatch, at_once):
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    monkeypatch.setenv(progress.ENV, "1")  # a log that wants the bars
    assert list(with_progress(range(3), 3, "forced", "block", True)) == [0, 1, 2]
    assert "forced" in piped.getvalue() and "/3 [" in piped.getvalue()
    assert list(with_progress(range(3), 3, "unasked", "block", False)) == [0, 1, 2]  # --quiet stays quiet
    assert "unasked" not in piped.getvalue()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv(progress.ENV, "0")
    assert list(with_progress(range(3), 3, "off", "block", True)) == [0, 1, 2]
    monkeypatch.setenv(progress.ENV, "maybe")  # not a yes/no word: the terminal decides
    assert list(with_progress(range(3), 3, "terminal", "block", True)) == [0, 1, 2]
    assert "off" not in terminal.getvalue() and "terminal" in terminal.getvalue()


def test_a_pass_given_no_progress_follows_its_audit(monkeypatch, at_once):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    list(with_progress(range(2), 2, "outside", "block"))
    with asking(True):
        list(with_progress(range(2), 2, "inside", "block"))
        list(with_progress(range(2), 2, "refused", "block", False))  # an explicit False still wins
        with asking(False):
            list(with_progress(range(2), 2, "nested-quiet", "block"))
    shown = terminal.getvalue()
    assert "inside" in shown
    assert not any(name in shown for name in ("outside", "refused", "nested-quiet"))


def test_a_short_pass_shows_nothing(monkeypatch):
    """The delay: a pass that ends before DELAY seconds never draws a bar (no flicker of a hundred tiny passes)."""
    monkeypatch.delenv(progress.ENV, raising=False)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert progress.DELAY >= 0.5
    assert list(with_progress(range(50), 50, "short", "block", True)) == list(range(50))
    assert terminal.getvalue() == ""


def test_a_bar_counts_from_its_initial_value(monkeypatch, at_once):
    monkeypatch.setattr(sys, "stderr", Terminal())
    with progress_bar(10, "sweep", "cell", True, initial=4) as bar:
        bar.update(6)
        assert (bar.n, bar.total) == (10, 10)


def test_a_line_said_is_the_bytes_print_writes(monkeypatch, at_once):
    for shown in (True, False):
        terminal, plain = Terminal(), io.StringIO()
        monkeypatch.setattr(sys, "stderr", terminal)
        with progress_bar(3, "around", "item", shown):
            say("  ran gaussian (1.0 s)", file=plain)
        assert plain.getvalue() == "  ran gaussian (1.0 s)\n"


def test_pdp_audit_run_shows_its_passes_and_writes_the_same_outputs(tmp_path, monkeypatch, capsys, at_once):
    """`pdp-audit run` (every built-in plan goes through AuditPlan.run): bars with their totals on stderr when forced,
    and stdout (its timing aside) and the JSON byte for byte those of a run without them."""
    from pdp_audit.verify.cli.main import main

    outputs = {}
    for forced in ("1", "0"):
        monkeypatch.setenv(progress.ENV, forced)
        out = tmp_path / f"run{forced}.json"
        args = ["run", "laplace", "--trials", "2000", "--report", "none", "--json", str(out)]
        assert main(args) == 0
        captured = capsys.readouterr()
        outputs[forced] = (out.read_bytes(), timeless(captured.out), captured.err)
    assert outputs["1"][:2] == outputs["0"][:2]
    assert "dp-pair/D: " in outputs["1"][2] and "/1 [" in outputs["1"][2], outputs["1"][2]
    assert "block" not in outputs["0"][2]


def timeless(text: str) -> str:
    """``text`` without the run's wall time ("(0.8 s)"), the one unseeded part of a summary."""
    import re

    return re.sub(r"\(\d+(\.\d+)? s\)", "(… s)", text)


def test_a_sequential_pass_shows_one_bar_to_its_cap_and_its_numbers_do_not_change(monkeypatch, at_once):
    """The white-box pass drawn in looks (pair_checks._sequential_checks): one bar of the releases per world, its
    total the budget (the pass may stop before it), counted block by block; the checks the same without it."""
    from pdp_audit.verify.evidence import pair_sequential as sequential
    from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks
    from pdp_audit.verify.mutants import gaussian

    def audit(shown: bool):
        drawing = MainPass(shown, stop=sequential.Stopping(1e-6))
        return validated_dp_checks(gaussian(1.0), 1.0, 1e-3, 100_000, 0, False, drawing=drawing)  # fails at once

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    shown = audit(True)
    assert "plugin, releases per world (at most)" in terminal.getvalue()
    assert "/100k [" in terminal.getvalue(), terminal.getvalue()
    quiet = audit(False)
    assert repr([(e.spec.id, e.estimate, e.details) for e in shown]) == repr(
        [(e.spec.id, e.estimate, e.details) for e in quiet]
    )  # repr: nan == nan
