"""A budget this machine cannot hold is refused before any work, in one line naming ``trials`` (issue: accepted
budgets that died of MemoryError after minutes)."""

from __future__ import annotations

import pytest

import pdp_audit
from pdp_audit.catalogue.plans import plans
from pdp_audit.cli.main import main
from pdp_audit.verify.core import plan as plan_module
from pdp_audit.verify.core import processes


@pytest.fixture
def small_machine(monkeypatch):
    """A machine with 4 GB of memory."""
    monkeypatch.setattr(processes, "physical_memory", lambda: 4 * 10**9)


def test_a_budget_beyond_memory_is_one_line_before_work(small_machine, capsys, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the audit ran")

    monkeypatch.setattr(plan_module.AuditPlan, "run", never)
    assert main(["run", "gaussian", "--trials", "1e9", "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--trials 1e+09 needs about" in err and "at most" in err, err


def test_the_api_and_a_deployment_refuse_it_in_their_words(small_machine, tmp_path):
    with pytest.raises(pdp_audit.InputError, match=r"^trials 1e\+09 needs about"):
        pdp_audit.run_audit("laplace", trials=1e9)
    deployment = tmp_path / "d.toml"
    deployment.write_text(
        'mechanism = "laplace"\n[claim]\nepsilon = 1\ndelta = 0\n'
        '[parameters]\ndataset = "wine"\n[audit]\ntrials = 1e9\n'
    )
    with pytest.raises(pdp_audit.InputError, match=r"audit.trials 1e\+09 needs about"):
        pdp_audit.certify(str(deployment))


def test_a_budget_that_fits_is_accepted(small_machine):
    config = next(p for p in plans() if p.name == "gaussian").configure({"trials": 1e6})
    assert config.trials == 1_000_000


def test_the_black_box_refuses_releases_it_cannot_hold(small_machine):
    """The logistic attack keeps every release it learns from: 1e8 ten-dimensional releases per world."""

    def sample_d(size, rng):
        return rng.normal(0.0, 1.0, (size, 10))

    def sample_dprime(size, rng):
        return rng.normal(0.1, 1.0, (size, 10))

    with pytest.raises(pdp_audit.InputError, match=r"^trials 1e\+08 needs about .* 10-dimensional releases"):
        pdp_audit.audit_blackbox(
            (sample_d, sample_dprime), 1.0, 1e-5, trials=1e8, budget=pdp_audit.BlackBoxBudget(statistic="logistic")
        )


def test_the_processs_own_limits_lower_the_memory_a_budget_may_use(monkeypatch):
    """The budget was checked against the machine alone: under `ulimit -v 3000000` (3 GB) `run gaussian --trials 3e7`
    was accepted and died of MemoryError after 69 s.  ``ulimit -v`` and a control group's limit count."""
    import resource

    machine = processes._machine_memory()
    assert processes.physical_memory() <= machine
    real = resource.getrlimit

    def limited(kind):
        return (3 * 10**9, resource.RLIM_INFINITY) if kind == resource.RLIMIT_AS else real(kind)

    monkeypatch.setattr(resource, "getrlimit", limited)
    assert processes.physical_memory() == min(3 * 10**9, machine)
    monkeypatch.setattr(processes, "_cgroup_limit", lambda: 10**9)
    assert processes.physical_memory() == 10**9


def test_the_black_box_memory_counts_training_releases_and_fresh_scores(small_machine, monkeypatch):
    """Fresh releases are streamed (only their scores are kept): 1e7 of them per world fit where 1e7 ten-dimensional
    training releases do not."""
    from pdp_audit.audits.blackbox import attack as blackbox

    def sample_d(size, rng):
        return rng.normal(0.0, 1.0, (size, 10))

    def sample_dprime(size, rng):
        return rng.normal(0.1, 1.0, (size, 10))

    refusal = r"^train-trials 1e\+07 and trials 100000 need about .* bytes per training release"
    with pytest.raises(pdp_audit.InputError, match=refusal):
        pdp_audit.audit_blackbox(
            (sample_d, sample_dprime), 1.0, 1e-5, trials=1e5, budget=pdp_audit.BlackBoxBudget(train_trials=1e7)
        )

    def accepted(*args, **kwargs):
        raise RuntimeError("accepted")

    monkeypatch.setattr(blackbox, "blackbox_attack", accepted)
    with pytest.raises(RuntimeError, match="accepted"):
        pdp_audit.audit_blackbox(
            (sample_d, sample_dprime), 1.0, 1e-5, trials=1e7, budget=pdp_audit.BlackBoxBudget(train_trials=1e5)
        )
