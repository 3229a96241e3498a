"""Every audit runs with --workers 2 and gives byte-identical JSON to --workers 1 (results depend on the seed only)."""

import pytest

from pdp_audit.catalogue.arguments import command_line
from pdp_audit.catalogue.plans import plans
from pdp_audit.cli.main import main

SMALL = ["--seed", "3", "--quiet", "--report", "none"]
#: Each audit at its smoke budget (the smallest that runs every code path), as its plan declares it.
OPTIONS = {plan.name: command_line(plan, dict(plan.smoke)) for plan in plans()}


#: the three longest of these runs (6-12 s each on a CI core) in the slow run; the engine is the same for all
SLOW_WORKER_AUDITS = {"privacy-report", "adaops", "goe-release"}


@pytest.mark.parametrize(
    "audit", [pytest.param(a, marks=pytest.mark.slow) if a in SLOW_WORKER_AUDITS else a for a in sorted(OPTIONS)]
)
def test_workers_do_not_change_the_results(audit, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.json"
        code = main(["run", audit, *OPTIONS[audit], *SMALL, "--workers", workers, "--json", str(path)])
        assert code in (0, 1, 3), f"{audit} --workers {workers}: exit {code}"
        outputs[workers] = path.read_bytes()
    assert outputs["1"] == outputs["2"]


def test_no_more_processes_than_cores_are_started():
    """``--workers 256`` on a small machine starts at most its cores (the numbers never depend on the count)."""
    import os

    from pdp_audit.sweeps.executors import ProcessExecutor
    from pdp_audit.verify.core.processes import executor_for, started_workers

    cores = os.cpu_count() or 1
    assert started_workers(256) == cores and started_workers(1) == 1
    assert ProcessExecutor(256).workers == cores
    with executor_for(256) as pool:
        assert pool is None if cores == 1 else pool._max_workers == cores
