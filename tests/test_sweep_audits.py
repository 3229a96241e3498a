"""Every audit sweeps: a spec's keys are the audit's declared options, checked by the same config as `run`."""

import json

import numpy as np
import pytest

from pdp_audit.catalogue.arguments import command_line
from pdp_audit.catalogue.plans import plans, plans_by_name
from pdp_audit.cli.main import main
from pdp_audit.sweeps import audits
from pdp_audit.sweeps.catalogue import SWEEPS
from pdp_audit.sweeps.rates import fit_exponent
from pdp_audit.sweeps.spec import SpecError, parse_spec
from pdp_audit.verify.core.config import values_of

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

OPS = """
[sweep]
mechanism = "ops"
seed = 1
[fixed]
trials = 2000
search = 8
[grid]
claim_epsilon = [0.5, 1.0]
noise_multiplier = [0.3, 1.0]
"""


def test_every_run_audit_can_be_swept():
    """Every audit of `pdp-audit run`, a user's pair and a user's sampler (tests/test_sweep_kinds.py), a DP program
    (tests/test_program_kinds.py)."""
    assert sorted(m.name for m in SWEEPS) == sorted([*(p.name for p in plans()), "pair", "blackbox", "program"])


@pytest.mark.parametrize("plan", plans(), ids=lambda p: p.name)
def test_a_cell_of_defaults_is_the_run_command_of_defaults(plan):
    """A cell with nothing set is the config of `pdp-audit run NAME` with only the sweep's options."""
    cell = parse_spec(f"[sweep]\nmechanism = '{plan.name}'\n").cells[0]
    assert audits.configure(plan, cell.parameters, seed=5, alpha=1e-7) == plan.configure({"seed": 5, "alpha": 1e-7})
    assert not set(cell.parameters) & audits.SET_BY_THE_SWEEP


def test_spec_values_become_the_audits_options_flags_included():
    spec = parse_spec(
        "[sweep]\nmechanism = 'privacy-report'\nchecks = ['k21-worst-case']\n"
        "[fixed]\nno_figures = true\nlambda_inflation = 3\nbudget = '0.2,0.7,0.1'\n[grid]\nn = [100, 200]\n"
    )
    config = audits.configure(plans_by_name()["privacy-report"], spec.cells[0].parameters, paper=True)
    assert values_of(config, ["no_figures", "lambda_inflation", "budget", "n", "paper_claims"]) == {
        "no_figures": True,
        "lambda_inflation": 3.0,
        "budget": "0.2,0.7,0.1",
        "n": 100,
        "paper_claims": True,
    }


@pytest.mark.parametrize(
    "text,needle",
    [
        # checked by the audit's config, in the spec's words, naming the cell
        (
            "[sweep]\nmechanism = 'ops'\n[grid]\nclaim_epsilon = [1.0, 1000.0]\n",
            "grid.claim_epsilon[1] must be a finite number in [1e-6, 100], got 1000.0",
        ),
        ("[sweep]\nmechanism = 'objpert'\n[fixed]\nsynthetic = '200'\n", "fixed.synthetic must be n,d"),
        (
            "[sweep]\nmechanism = 'privacy-report'\n[fixed]\nclaim_epsilon = 2.0\n",
            "[fixed]: claim_epsilon = 2 is not the total of the report's stages: budget is 0.2 + 0.7 + 0.1 = 1",
        ),
        ("[sweep]\nmechanism = 'ops'\n[fixed]\nseed = 3\n", "unknown parameter 'fixed.seed'"),
        ("[sweep]\nmechanism = 'ops'\n[fixed]\nno_reproduce = 'yes'\n", "fixed.no_reproduce must be true or false"),
        ("[sweep]\nmechanism = 'ops'\n[fixed]\ncalibration = 'loose'\n", "fixed.calibration must be one of"),
        ("[sweep]\nmechanism = 'ops'\n[fixed]\ntrials = -5\n", "fixed.trials must be a whole number"),
        # the Gaussian sweep's names are `run gaussian`'s (the old `epsilon`, `delta`, … are gone)
        ("[sweep]\nmechanism = 'gaussian'\n[fixed]\nepsilon = 2\n", "unknown parameter 'fixed.epsilon'"),
    ],
)
def test_bad_cells_are_one_line_errors_naming_the_spec(text, needle):
    with pytest.raises(SpecError) as info:
        parse_spec(text, where="s.toml")
    message = str(info.value)
    assert needle in message and message.startswith("s.toml") and "\n" not in message, message


def _sweep(tmp_path, text: str, *options: str) -> tuple[int, dict]:
    spec = tmp_path / "s.toml"
    spec.write_text(text)
    store = tmp_path / f"s{len(list(tmp_path.glob('*.sqlite')))}.sqlite"
    out = tmp_path / "s.json"
    code = main(["sweep", str(spec), "--store", str(store), "--json", str(out), "--quiet", *options])
    return code, json.loads(out.read_text()) if out.exists() else None


def test_an_ops_sweep_fails_its_deflated_cells_and_matches_run(tmp_path):
    code, doc = _sweep(tmp_path, OPS, "--workers", "1")
    assert code == 1
    verdicts = {
        (c["parameters"]["claim_epsilon"], c["parameters"]["noise_multiplier"]): c["verdict"] for c in doc["cells"]
    }
    assert verdicts[(1.0, 0.3)] == "fail" and verdicts[(0.5, 0.3)] != "pass"
    assert verdicts[(1.0, 1.0)] != "fail" and verdicts[(0.5, 1.0)] != "fail"
    # a cell is exactly `pdp-audit run ops` with the cell's options, seed and α
    cell = doc["cells"][0]
    run_json = tmp_path / "run.json"
    plan = plans_by_name()["ops"]
    options = command_line(plan, audits.given(plan, cell["parameters"]))
    argv = ["run", "ops", *options, "--seed", str(cell["seed"]), "--alpha", repr(cell["alpha"])]
    assert main([*argv, "--json", str(run_json), "--report", "none", "--quiet"]) in (0, 1, 3)
    run = json.loads(run_json.read_text())
    assert [c["estimate"] for c in run["checks"]] == [c["estimate"] for c in cell["checks"]]


# slow: fast elsewhere (test_sweep_executors' two processes; test_workers)
@pytest.mark.slow
def test_serial_and_parallel_sweeps_of_an_audit_are_identical(tmp_path):
    one = _sweep(tmp_path, OPS, "--workers", "1")[1]
    two = _sweep(tmp_path, OPS, "--workers", "2")[1]
    strip = lambda d: [(c["id"], c["checks"]) for c in d["cells"]]  # noqa: E731
    assert strip(one) == strip(two)


def test_a_selected_check_the_audit_does_not_have_is_refused_when_the_spec_is_read(tmp_path, capsys):
    """One line naming the key, the id and the valid ids (exit 2), before a store is made or a cell runs."""
    code, _ = _sweep(tmp_path, OPS.replace("seed = 1", "seed = 1\nchecks = ['dp-forwards']"), "--workers", "1")
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "sweep.checks: unknown check 'dp-forwards' for mechanism 'ops' (valid: dp-forward, dp-reverse," in err
    assert "stage-{slug}" in err and "loss-consistency" in err
    assert not list(tmp_path.glob("*.sqlite"))


@pytest.mark.parametrize(
    "audit,built,typo",
    [
        ("objpert", "thm5-variance-dp-forward", "thm5-variance-dp-forwrd"),
        ("objpert", "thm5-printed-loss-consistency", "thm5-printed-loss-consistence"),
        ("goe-release", "ag-lr-attack", "ag-lr-atack"),
        ("privacy-report", "thm10-dp-forward", "thm10-dp-forwards"),
        ("privacy-report", "objpert-dp-reverse", "objpert-dp-revers"),
        ("ops", "stage-ssp-xtx", "stages-ssp-xtx"),
        ("gaussian", "loss-consistency", "loss-consistancy"),
    ],
)
def test_ids_a_run_builds_are_checked_when_the_spec_is_read(audit, built, typo):
    """Ids built per run (a prefix, a direction, a ``{slug}``) are declared by the plan: a spec may select them, and a
    typo in one is refused when the spec is read, not when the first cell runs."""
    spec = "[sweep]\nmechanism = '" + audit + "'\nchecks = ['{}']\n"
    assert parse_spec(spec.format(built)).checks == (built,)
    with pytest.raises(SpecError) as info:
        parse_spec(spec.format(typo), where="s.toml")
    message = str(info.value)
    assert message.startswith(f"s.toml: sweep.checks: unknown check '{typo}' for mechanism '{audit}' (valid: ")
    assert "\n" not in message and all(i in message for i in plans_by_name()[audit].check_ids())


def test_fitted_exponents_recover_a_power_law_and_can_reject_exponent_zero():
    rng = np.random.default_rng(0)
    n = np.logspace(2, 4, 12)
    b, (lo, hi), r2 = fit_exponent(n, 3 * n**-0.25 * np.exp(rng.normal(0, 0.05, n.size)))
    assert lo < -0.25 < hi and hi < 0 and r2 > 0.9  # ε_n ∝ n^(−1/4) recovered at level 1 − 1e-6, "constant" rejected
    b, (lo, hi), _ = fit_exponent(n, 2 * np.exp(rng.normal(0, 0.05, n.size)))
    assert lo < 0 < hi
    assert fit_exponent([1, 1, 1], [1, 2, 3]) is None and fit_exponent([1, 2], [1, 2]) is None


GOE_SPLIT = """
[sweep]
mechanism = "goe-release"
[fixed]
matrices = 1000
[grid]
trials = [13000, 140000]
"""  # the larger cell costs more than a worker's fair share and has three blocks of samples: it is split


@pytest.mark.slow  # CI runs it in its fixed sample (.ci/run); chunking itself: tests/test_sweep_executors.py
def test_a_cell_split_into_chunks_gives_the_serial_numbers_and_the_pool_does_not_hang(tmp_path):
    """The larger cell is split over both workers (its chunks from a driver thread); the pool forks its workers
    before that thread starts (a fork during an import in the thread deadlocked the child: seen with goe-release)."""
    import subprocess
    import sys

    spec = tmp_path / "goe.toml"
    spec.write_text(GOE_SPLIT)
    docs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        command = [sys.executable, "-m", "pdp_audit.cli", "sweep", str(spec), "--workers", workers, "--quiet"]
        command += ["--store", str(tmp_path / f"w{workers}.sqlite"), "--json", str(out)]
        assert subprocess.run(command, timeout=300).returncode == 0
        docs.append(json.loads(out.read_text()))
    assert [c["checks"] for c in docs[0]["cells"]] == [c["checks"] for c in docs[1]["cells"]]


def test_a_cell_draws_no_figure_and_keeps_the_checks_of_a_run_with_figures():
    """A cell runs without figures (no figure, no importance-sampled point only a figure shows: a quarter of a small
    Gaussian cell's time): its result is the one a run with figures gives, byte for byte."""
    from pdp_audit.audits.gaussian import evidence
    from pdp_audit.verify.core import checks as core_checks

    plan = plans_by_name()["gaussian"]
    parameters = {"trials": 2000, "claim_epsilon": 1.0, "noise_multiplier": 0.75, "dataset": "wine"}
    drawn = []
    real = evidence.finalize

    def finalize(evidence, alpha):
        drawn.append(core_checks.FIGURES.get())
        return real(evidence, alpha)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evidence, "finalize", finalize)
        result = audits.cell("gaussian", parameters, 5, 1e-6, None)
    assert drawn == [False]
    run = plan.run(audits.configure(plan, parameters, 5, 1e-6))
    assert any(check.figure is not None for check in run.checks)  # the run draws its figures
    assert json.dumps(result, sort_keys=True) == json.dumps(audits._result("gaussian", run, None, ()), sort_keys=True)
