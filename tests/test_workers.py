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


@pytest.mark.tier2(cases=("dp-sgd",))
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
    from pdp_audit.sweeps.executors import ProcessExecutor
    from pdp_audit.verify.core.processes import executor_for, started_workers
    from pdp_audit.verify.inputs.workers import available_cores

    cores = available_cores()
    assert started_workers(256) == cores and started_workers(1) == 1
    assert ProcessExecutor(256).workers == cores
    with executor_for(256) as pool:
        assert pool is None if cores == 1 else pool._max_workers == cores


@pytest.fixture
def two_of_sixteen_cores(monkeypatch):
    """A process restricted to 2 of a machine's 16 cores (``taskset -c 0,1``, a container's cpuset)."""
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)


def test_every_path_counts_the_cores_this_process_may_use(two_of_sixteen_cores):
    """The pools, the sweeps' executors, the chosen workers of a pair and BLAS's chunk threads agree on the cores:
    before, the pools and sweeps counted the machine's 16 (``os.cpu_count()``) and the pair audits the affinity's 2."""
    from pdp_audit.sweeps.executors import ProcessExecutor, make_executor
    from pdp_audit.verify.core.processes import started_workers
    from pdp_audit.verify.evidence import user_audits
    from pdp_audit.verify.inputs import blas_threads
    from pdp_audit.verify.inputs.workers import available_cores, checked_workers

    assert available_cores() == 2 and checked_workers(None) == 2 and checked_workers("auto") == 2
    assert user_audits.available_cores() == 2
    assert started_workers(256) == 2
    assert ProcessExecutor(None).workers == 2 and ProcessExecutor(256).workers == 2
    executor = make_executor(None)
    assert isinstance(executor, ProcessExecutor) and executor.workers == 2
    assert blas_threads._cores() <= 2


@pytest.mark.parametrize("workers", [0, -1, 257, 2.5, "x", True])
def test_a_workers_value_outside_its_range_is_one_line_naming_it(workers):
    from pdp_audit.sweeps.executors import make_executor
    from pdp_audit.verify.core.processes import executor_for
    from pdp_audit.verify.inputs.validation import InputError
    from pdp_audit.verify.inputs.workers import checked_workers

    paths = [(checked_workers, "workers"), (lambda w: executor_for(w).__enter__(), "workers")]
    paths += [(make_executor, "--workers"), (lambda w: make_executor(dask_local=w), "--dask-local")]
    for resolve, name in paths:
        with pytest.raises(InputError, match=rf"^{name} must be a whole number in \[1, 256\], got "):
            resolve(workers)
