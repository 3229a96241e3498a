"""A reader that leaves (``pdp-audit ... | true``, ``| head``) changes no exit code: a refuted claim exits 1 whether
or not its lines or its JSON were read, with Python's standard output buffered or not (``PYTHONUNBUFFERED``)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pdp_audit.cli

LEAKY = textwrap.dedent(
    """
    class Leaky:  # Laplace(3) against Laplace(0), scale 1: 3-DP, refuted at a claimed 0.5 with any budget here
        def sample(self, world, size, rng):
            return rng.laplace(3.0 if world == "D" else 0.0, 1.0, size=(size, 1))

    def make():
        return Leaky()
    """
)

REFUTED = ["blackbox", "leaky:make", "--claim-epsilon", "0.5", "--claim-delta", "0", "--trials", "20000"]
REFUTED += ["--train-trials", "2000", "--workers", "1"]


def _exit_code_with_no_reader(argv: list[str], folder: Path, unbuffered: bool, both: bool = False) -> int:
    """The command's exit code when its standard output is a pipe whose reader left before anything was written."""
    env = {**os.environ, "PYTHONPATH": str(folder), "MPLBACKEND": "Agg"}
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    reader, writer = os.pipe()
    os.close(reader)  # `| true`: the reader is gone before the command starts
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pdp_audit.cli", *argv],
            cwd=folder,
            stdout=writer,
            stderr=writer if both else subprocess.PIPE,
            text=True,
            env=env,
            timeout=300,
        )
    finally:
        os.close(writer)
    assert both or "Traceback" not in done.stderr, done.stderr
    return done.returncode


@pytest.mark.tier2(representatives=("json0-False",))
@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize("json", [[], ["--json", "-"]])
def test_a_refuted_claim_exits_1_when_no_one_reads_its_output(json, unbuffered, tmp_path):
    (tmp_path / "leaky.py").write_text(LEAKY)
    assert _exit_code_with_no_reader(REFUTED + json, tmp_path, unbuffered) == 1


@pytest.mark.tier2(representatives=("json1",))
@pytest.mark.parametrize("json", [[], ["--json", "-"]])
def test_a_refuted_claim_exits_1_when_no_one_reads_its_output_nor_its_errors(json, tmp_path):
    """``2>&1 | true``: the first line on standard error (the budget, printed in the sandbox's child) met the broken
    pipe and ended the audit, exit 0."""
    (tmp_path / "leaky.py").write_text(LEAKY)
    assert _exit_code_with_no_reader(REFUTED + json, tmp_path, unbuffered=True, both=True) == 1


def test_a_command_without_a_verdict_exits_0_when_no_one_reads_it(tmp_path):
    assert _exit_code_with_no_reader(["list"], tmp_path, unbuffered=True) == 0


def test_every_line_a_command_prints_on_standard_output_goes_through_print_out():
    """A bare ``print`` to standard output in a command raised BrokenPipeError past its verdict (exit 0): the
    commands print through :func:`pdp_audit.reports.files.print_out` (standard error aside)."""
    paths = sorted(Path(pdp_audit.cli.__file__).parent.glob("*.py"))
    assert len(paths) > 10
    bare = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                stream = {k.arg: ast.unparse(k.value) for k in node.keywords}.get("file")
                if stream != "sys.stderr":
                    bare.append(f"{path.name}:{node.lineno}")
    assert bare == []
