"""Every file a command reads of the user's -- data (CSV, .npy, Parquet), score files, deployment files, sweep specs
and stores, witness files -- is refused in one line naming its path (exit 2) when it is a FIFO, never read: reading
one with no writer blocks forever (``pdp-audit program --data fifo.csv`` hung)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pdp_audit.examples
from pdp_audit.cli.main import main

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

EXAMPLES = Path(pdp_audit.examples.__file__).parent
PROGRAM = "def f(data, rng):\n    return rng.laplace(len(data), 1.0)\n"
SWEEP = '[sweep]\nname = "s"\nmechanism = "gaussian"\n[fixed]\ndata = "fifo.csv"\ntrials = 1000\n'
SWEEP += "[grid]\nsigma = [3.0]\n"

#: (the command line, the FIFO it reads): each refused in one line naming the FIFO.
CASES = [
    (["run", "gaussian", "--data", "fifo.csv"], "fifo.csv"),
    (["run", "laplace", "--data", "fifo.parquet"], "fifo.parquet"),
    (["certify", "fifo.toml"], "fifo.toml"),
    (["certify", "data-fifo.toml"], "fifo.csv"),
    (["certify", "own-fifo.toml"], "fifo.csv"),
    (["sweep", "fifo.toml"], "fifo.toml"),
    (["sweep", "sweep-fifo.toml", "--store", "s.sqlite"], "fifo.csv"),
    (["report", "fifo.sqlite", "--output", "none"], "fifo.sqlite"),
    (["canaries", "--in-scores", "fifo.csv", "--out-scores", "deploy-data.csv", "--delta", "1e-5"], "fifo.csv"),
    (
        [
            "canaries",
            "--one-run",
            "--scores",
            "deploy-data.csv",
            "--column",
            "age",
            "--inclusion",
            "fifo.npy",
            "--delta",
            "1e-5",
        ],
        "fifo.npy",
    ),
    (["program", "prog:f", "--claim-epsilon", "1", "--claim-delta", "0", "--data", "fifo.csv"], "fifo.csv"),
    (["program", "prog:f", "--claim-epsilon", "1", "--claim-delta", "0", "--data", "fifo.npy"], "fifo.npy"),
    (["blackbox", "prog:f", "--claim-epsilon", "1", "--claim-delta", "0", "--witness", "fifo.json"], "fifo.json"),
    (
        [
            "canaries",
            "--in-scores",
            "deploy-data.csv",
            "--out-scores",
            "deploy-data.csv",
            "--column",
            "age",
            "--delta",
            "1e-5",
            "--dp-sgd",
            "fifo.toml",
        ],
        "--dp-sgd: fifo.toml",
    ),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    here = tmp_path_factory.mktemp("fifos")
    for name in ("fifo.csv", "fifo.npy", "fifo.parquet", "fifo.toml", "fifo.sqlite", "fifo.json"):
        os.mkfifo(here / name)
    for name in ("deploy-data.csv", "own_histogram.py"):
        shutil.copy(EXAMPLES / name, here / name)
    for source, target in (("deploy-gaussian.toml", "data-fifo.toml"), ("deploy-own.toml", "own-fifo.toml")):
        text = (EXAMPLES / source).read_text().replace('data = "deploy-data.csv"', 'data = "fifo.csv"')
        (here / target).write_text(text)
    (here / "prog.py").write_text(PROGRAM)
    (here / "sweep-fifo.toml").write_text(SWEEP)
    return here


def _with_report_none(argv: list[str]) -> list[str]:
    return [*argv, *(["--report", "none"] if argv[0] in {"run", "certify", "canaries", "program", "blackbox"} else [])]


@pytest.mark.tier2(cases=("report fifo.sqlite fifo.sqlite",))
@pytest.mark.commands_in_process
@pytest.mark.timeout(120)  # a command that opens the FIFO blocks for ever: pytest-timeout ends it, with its stack
@pytest.mark.parametrize(("argv", "fifo"), CASES, ids=[" ".join(c[0][:2]) + f" {c[1]}" for c in CASES])
def test_a_fifo_is_refused_in_one_line_naming_it(folder, argv, fifo, monkeypatch, capsys):
    """Each command in this process (tests/in_process.py: the refusal is not about the process boundary; a fresh
    Python a case cost 0.85 CPU s); :func:`test_a_fifo_is_refused_by_the_command_as_a_user_runs_it` is the case
    run as a user runs it."""
    monkeypatch.chdir(folder)
    assert main(_with_report_none(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fifo in err and "not a regular file" in err


def test_a_fifo_is_refused_by_the_command_as_a_user_runs_it(folder):
    """The case that hung (``pdp-audit program --data fifo.csv``) as a user runs it: a command in a fresh Python."""
    argv, fifo = next(case for case in CASES if case[0][0] == "program" and case[1] == "fifo.csv")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", *_with_report_none(argv)],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    err = done.stderr.strip()
    assert done.returncode == 2, err
    assert len(err.splitlines()) == 1 and fifo in err and "not a regular file" in err
