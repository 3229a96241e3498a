"""The getting-started page's tour, run as written, line by line, in an empty folder (issue: "the README's and
getting-started's commands run verbatim").

Every line runs as the page writes it, with one change the test needs to finish: a `pdp-audit run` line gets
`--trials 2e4` (and `--report none` unless it names a report), a `certify` line runs on a copy of its deployment
file with `trials = 2e4`.  A line whose comment says "exit N" must exit N; every other line 0, 1 or 3 (a verdict),
never 2 (the page's command is wrong) or 4 (an internal error).  The README's quickstarts run verbatim in the wheel
smoke test (.ci/wheel-smoke); this test covers the tour, which is too long for CI (minutes): it is slow.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--trials", "2e4"]


def tour_lines() -> list[str]:
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    block = re.findall(r"```bash\n(.*?)```", page[page.index("## A tour") :], re.S)[0]
    return [line for line in block.splitlines() if line.strip()]


def at_tiny_budget(words: list[str], folder: Path) -> list[str]:
    if words[:2] == ["pdp-audit", "run"]:
        return [*words, *TINY, *([] if "--report" in words else ["--report", "none"])]
    if words[:2] == ["pdp-audit", "certify"]:
        original = folder / words[2]
        small = original.with_name(f"tiny-{original.name}")
        small.write_text(re.sub(r"(?m)^trials = .*$", "trials = 2e4", original.read_text(encoding="utf-8")))
        return [*words[:2], small.name, *words[3:]]
    return words


def cli(words: list[str]) -> list[str]:
    """``pdp-audit …`` as this interpreter's module (the console script may not be on PATH in a checkout), and
    ``python …`` as this interpreter."""
    if words[0] == "pdp-audit":
        return [sys.executable, "-m", "pdp_audit.cli", *words[1:]]
    return [sys.executable, *words[1:]] if words[0] == "python" else words


def test_the_tour_is_a_list_of_commands_each_with_its_comment():
    lines = tour_lines()
    assert lines[0].startswith("pdp-audit examples tour && cd tour")
    assert all(line.startswith(("pdp-audit ", "python -m pdp_audit.")) for line in lines)


@pytest.mark.slow  # the whole tour at 2e4 trials: minutes (about 9 at load 9)
def test_the_tour_runs_as_written(tmp_path):
    folder, wrong = tmp_path, []
    for line in tour_lines():
        command, _, comment = line.partition("#")
        if "&&" in command:  # pdp-audit examples tour && cd tour
            first, second = (shlex.split(part) for part in command.split("&&"))
            assert subprocess.run(cli(first), cwd=folder, capture_output=True).returncode == 0, line
            assert second[0] == "cd"
            folder = folder / second[1]
            continue
        words = at_tiny_budget(shlex.split(command), folder)
        done = subprocess.run(cli(words), cwd=folder, capture_output=True, text=True)
        stated = re.search(r"exit (\d)", comment)
        if done.returncode != (int(stated.group(1)) if stated else done.returncode) or done.returncode in (2, 4):
            wrong.append(f"{command.strip()}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    assert not wrong, wrong
