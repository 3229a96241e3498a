"""The commands' work in the test's process (tests/in_process.py) is the work their child does: a ``program`` command
runs here only where this process started with the hash seed its audit is given, and gives the child's bytes; the
suite's xdist workers start so (tests/conftest.py), and what they start gets a random seed as before.

Seen failing before the change: ``program`` always crossed into its child (1.6 CPU s of imports a command), and the
workers' hashes were randomized."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pdp_audit.audits.program.fresh_process import audit_environment
from pdp_audit.cli.main import main
from pdp_audit.verify.core import sandbox
from tests import in_process

PROGRAM = """
import numpy as np

def total(data, rng):
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return float(values.sum()) + rng.laplace(0.0, 1.0)
"""


def test_a_program_command_gives_its_childs_bytes_here_and_starts_no_child(tmp_path, monkeypatch):
    (tmp_path / "team_total.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    forget = in_process.commands_here(monkeypatch)
    children = []
    crossing = sandbox.run_isolated
    monkeypatch.setattr(sandbox, "run_isolated", lambda *a, **kw: children.append(a[0]) or crossing(*a, **kw))
    args = ["program", "team_total:total", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    args += ["--bounds", "0,1", "--law", "ideal", "--report", "none", "--quiet"]
    try:
        monkeypatch.setattr(in_process, "started_with", lambda environment: False)
        assert main([*args, "--json", "child.json"]) == 0
        assert len(children) == 1  # the audit's child
        path = list(sys.path)
        monkeypatch.setattr(in_process, "started_with", lambda environment: True)
        assert main([*args, "--json", "here.json"]) == 0
        assert len(children) == 1 and sys.path == path  # no child; the current folder put first is taken back
    finally:
        forget()
    assert (tmp_path / "child.json").read_bytes() == (tmp_path / "here.json").read_bytes()


def test_only_a_hash_seed_this_process_started_with_runs_here():
    assert in_process.started_with({"PYTHONHASHSEED": "0"}) == (sys.flags.hash_randomization == 0)
    assert not in_process.started_with({"PYTHONHASHSEED": "1"})
    assert not in_process.started_with({"PYTHONHASHSEED": "0", "OTHER": "1"})


@pytest.mark.skipif("PYTEST_XDIST_WORKER" not in os.environ, reason="an xdist worker's start (tests/conftest.py)")
@pytest.mark.skipif(os.environ.get("PYTHONHASHSEED", "0") != "0", reason="the caller's own hash seed is kept")
def test_the_workers_run_program_commands_here_and_their_children_get_random_seeds(monkeypatch):
    # the worker unset the seed at its start; a library may have set one since (dask's multiprocessing scheduler
    # writes PYTHONHASHSEED=6640 into its process's environment)
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    assert sys.flags.hash_randomization == 0  # this worker's hashes: seeded 0
    assert in_process.started_with(audit_environment())
    probe = "import sys; print(sys.flags.hash_randomization)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == ("0" if "PYTHONHASHSEED" in os.environ else "1")
