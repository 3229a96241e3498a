"""The guide "Audit a library's pipeline" (docs/how-to/library-pipelines.md) run as written, from an install.

Its Python block is saved as ``pipelines.py``, its shell blocks run line by line in a fresh folder with the
``pdp-audit`` of the environment running the tests (an install: the libraries lane installs the package with its
``libraries`` extra), and each command's exit code is the one the guide's table states for that program.  Skipped
where diffprivlib or OpenDP is not installed (the README's test command installs neither: ``.ci/libraries`` runs
it).  Fixed seed (the guide's commands use the default, 0), α = 1e-6.  Seen failing: with the table's exit for
``mean_bounds --law ideal`` written 3, and with the guide's ``counts_add_remove`` calibrated as ``_counts(2.0)``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("diffprivlib")
pytest.importorskip("opendp")

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "library-pipelines.md"


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def _stated_exits(text: str) -> dict[str, int]:
    """The table's exit code for each command: its program name and its options after it, as the table names them
    (``mean_bounds --law ideal``)."""
    rows = re.findall(r"^\| `([^`]+)` \| [^|]+ \| (\d) \|$", text, re.M)
    return {name: int(code) for name, code in rows}


def _key(command: str) -> str:
    """A command as the table names it: its program, then ``--law ideal`` where it is given."""
    program = re.search(r"pipelines:(\w+)", command)
    assert program is not None, command
    return program.group(1) + (" --law ideal" if "--law ideal" in command else "")


def test_the_guide_runs_as_written_and_each_exit_is_the_one_it_states(tmp_path):
    text = GUIDE.read_text(encoding="utf-8").split("\n## Known bugs")[0]  # after it: a checkout's benchmark
    (tmp_path / "pipelines.py").write_text(_blocks(text, "python")[0], encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    stated = _stated_exits(text)
    commands = [line for block in _blocks(text, "bash") for line in block.splitlines() if line.strip()]
    ran = {}
    for command in commands:
        done = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        if command.startswith("pdp-audit program"):
            ran[_key(command)] = done.returncode
            assert done.returncode == stated[_key(command)], (command, done.stdout[-2000:], done.stderr[-2000:])
        else:
            assert done.returncode == 0, (command, done.stderr)
    assert set(ran) == set(stated), (sorted(ran), sorted(stated))  # every row run, every command in the table
