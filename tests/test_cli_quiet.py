"""``--quiet`` on every command that runs an audit or writes files, the program audit's stage lines on standard error,
and its summary wrapped between words, never cut.

Every leaf command but ``list`` and ``schema`` (whose output is their answer) accepts ``--quiet``; ``pdp-audit
program`` printed its stages nothing before the black box's bars and took no ``--quiet``, and cut each check's note at
300 characters ("…holds for").  Seen failing on main: ``program``, ``blackbox``, ``canaries``, ``claims``, ``tau`` and
``examples`` without ``--quiet``; the long note cut; no stage line.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from pdp_audit.cli import program as program_cli
from pdp_audit.cli.main import build_parser

#: the commands whose standard output is their answer: nothing to quieten
ANSWERS = {"pdp-audit list", "pdp-audit schema"}


def leaf_parsers():
    """Each leaf command (``run NAME``, ``benchmark linreg``, ``certify``, …) and its parser (the project's
    :class:`~pdp_audit.verify.core.parser.Parser`: its ``commands`` and ``arguments``)."""
    out = []

    def walk(name: str, parser) -> None:
        if not parser.commands:
            out.append((name, parser))
        for child, child_parser in parser.commands.items():
            walk(f"{name} {child}", child_parser)

    walk("pdp-audit", build_parser())
    return out


def test_every_command_but_the_listings_accepts_quiet():
    options = {name: {s for a in p.arguments for s in a.option_strings} for name, p in leaf_parsers()}
    assert {"pdp-audit program", "pdp-audit blackbox", "pdp-audit canaries", "pdp-audit tau"} <= set(options)
    lacking = sorted(name for name, strings in options.items() if "--quiet" not in strings and name not in ANSWERS)
    assert not lacking, lacking


def test_examples_quiet_writes_the_files_and_prints_nothing(tmp_path, capsys):
    from pdp_audit.cli import main as cli

    assert cli.main(["examples", str(tmp_path / "ex"), "--quiet"]) == 0
    assert capsys.readouterr().out == "" and any((tmp_path / "ex").iterdir())


def test_a_long_note_is_wrapped_between_words_never_cut():
    words = [f"word{k:03d}" for k in range(120)] + ["the-last-word-of-the-note"]
    check = SimpleNamespace(
        id="program-composition", verdict="inconclusive", pvalue=None, note=" ".join(words), details={}
    )
    run = SimpleNamespace(
        parameters={"epsilon": 1.0, "delta": 0.0, "neighbours": "add-remove"}, verdict="inconclusive", checks=[check]
    )
    text = program_cli._summary(run, argparse.Namespace(target="m:f"))
    lines = text.splitlines()
    assert text.split()[-len(words) :] == words  # every word, whole, in order
    assert all(len(line) <= program_cli.SUMMARY_WIDTH for line in lines), lines
    assert len(lines) > 3 and all(line.startswith(program_cli.CONTINUED) for line in lines[2:])


PROGRAM = """
import numpy as np

def noisy_sum(data, rng):
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return values.sum() + rng.laplace(0.0, 1.0)
"""


def _program(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "stats.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "values.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    command = [sys.executable, "-m", "pdp_audit.cli", "program", "stats:noisy_sum", "--data", "values.csv"]
    command += ["--claim-epsilon", "1", "--claim-delta", "0", "--bounds", "0,1", "--law", "ideal", "--trials", "200"]
    command += ["--search", "named", "--report", "none", *extra]
    env = {**os.environ, "PDP_AUDIT_PROGRESS": "1"}  # the lines at once, as on a terminal
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.tier2
def test_program_says_its_stages_on_stderr_and_quiet_says_nothing(tmp_path):
    said = _program(tmp_path)
    assert said.returncode == 0, said.stderr
    assert "pdp-audit program: recording the program on D" in said.stderr, said.stderr
    assert said.stdout.startswith("pdp-audit program stats:noisy_sum: CERTIFIED")
    quiet = _program(tmp_path, "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "" and "pdp-audit program:" not in quiet.stderr, quiet
