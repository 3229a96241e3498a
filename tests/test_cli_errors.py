"""How the command line ends: bad input is one line and exit 2 before any computation; our bugs are exit 4."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pdp_audit.audits.gaussian.plan import PLAN as GAUSSIAN
from pdp_audit.catalogue import plans as catalogue
from pdp_audit.cli import main as cli
from pdp_audit.verify.core.plan import AuditPlan

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process


def _plan(execute) -> AuditPlan:
    """The Gaussian audit's plan whose whole work is ``execute(config)``."""
    return dataclasses.replace(GAUSSIAN, audit=lambda config, executor, progress: execute(config))


@pytest.fixture
def audit_must_not_run(monkeypatch):
    def execute(args):
        raise AssertionError("the audit ran although its output path is unusable")

    monkeypatch.setattr(catalogue, "plans_by_name", lambda: {"gaussian": _plan(execute)})


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--report", "/proc/x.pdf"], "--report: cannot write '/proc/x.pdf'"),
        (["--report", "DIR"], "--report: 'DIR' is a directory"),
        (["--json", "DIR"], "--json: 'DIR' is a directory"),
        (["--json", "FILE/x.json"], "--json: cannot create"),
    ],
)
def test_unusable_output_paths_are_refused_before_the_audit(
    args, needle, tmp_path, monkeypatch, capsys, audit_must_not_run
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "DIR").mkdir()
    (tmp_path / "FILE").write_text("")
    assert cli.main(["run", "gaussian", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1, err


def test_claims_json_directory_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["claims", "--json", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--json" in err and "is a directory" in err and err.count("\n") == 1


def test_an_internal_error_is_exit_4_with_its_traceback(monkeypatch, tmp_path, capsys):
    def execute(args):
        raise ZeroDivisionError("a bug of ours")

    monkeypatch.setattr(catalogue, "plans_by_name", lambda: {"gaussian": _plan(execute)})
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "gaussian"]) == cli.EXIT_INTERNAL_ERROR == 4
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: a bug of ours" in err and "internal error" in err


def test_a_value_error_inside_the_audit_is_not_reported_as_bad_usage(monkeypatch, tmp_path, capsys):
    def execute(args):
        raise ValueError("matrix is singular")  # an internal failure, not the user's input

    monkeypatch.setattr(catalogue, "plans_by_name", lambda: {"gaussian": _plan(execute)})
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "gaussian"]) == 4


@pytest.mark.parametrize(
    "args, needle",
    [
        (
            ["run", "gaussian", "--claim-epsilon", "1000"],
            "--claim-epsilon must be a finite number in [1e-6, 100], got 1000",
        ),
        (["run", "gaussian", "--claim-delta", "2"], "--claim-delta must be a finite number in [1e-300, 1), got 2"),
        (["run", "nonexistent"], "invalid choice"),
    ],
)
def test_bad_options_are_one_line(args, needle, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1, err


@pytest.mark.parametrize("workers", ["0", "-1", "1e12"])
def test_workers_outside_their_range_are_refused(workers, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "gaussian", "--workers", workers, "--trials", "1000", "--report", "none"]) == 2
    assert "--workers must be a whole number in [1, 256], got" in capsys.readouterr().err


@pytest.mark.parametrize("audit", [["gaussian"], ["ops", "--target-column", "b"]])
def test_values_near_overflow_are_refused_not_clipped(audit, tmp_path, monkeypatch, capsys):
    # Before: the 1e300 row was clipped to zero (its sensitivity and pDP became 0) and OPS z-scored every
    # row to zero, both still reporting verdicts.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "huge.csv").write_text("a,b\n1,2\n1e300,3\n4,5\n")
    assert cli.main(["run", *audit[:1], "--data", "huge.csv", *audit[1:], "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert "--data: huge.csv line 3, column 'a'" in err and err.count("\n") == 1


def test_duplicate_column_names_are_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dup.csv").write_text("a,a\n1,2\n3,4\n")
    assert cli.main(["run", "gaussian", "--data", "dup.csv", "--report", "none"]) == 2
    assert "duplicate column names ['a']" in capsys.readouterr().err


@pytest.mark.parametrize("q", [1e-3, 1e-17, 1e-100, 1e-300])
def test_tracy_widom_upper_quantile_keeps_tiny_tails(q):
    # Before: tau computed F_1^{-1}(1 − ρ/2), and 1 − 1e-17 rounds to 1 ("p must be in [1e-10, 1), got 1.0").
    from pdp_audit.mechanisms import goe

    s = goe.tracy_widom1_upper_quantile(q)
    assert goe.tracy_widom1_sf(s) == pytest.approx(q, rel=1e-8)


@pytest.mark.parametrize("rho, code", [("1e-16", 0), ("2e-300", 0), ("1e-301", 2), ("0", 2)])
def test_tau_accepts_every_documented_rho(rho, code, capsys):
    assert cli.main(["tau", "--d", "500", "--rho", rho]) == code
    if code == 2:
        err = capsys.readouterr().err
        assert f"--rho must be a finite number in [2e-300, 1), got {rho}" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", [["tau", "--d", "5", "--rho", "0.01"], ["sweep", "SPEC"]])
def test_json_directory_is_one_line_before_computing(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "SPEC").write_text('[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 1000\n')
    (tmp_path / "DIR").mkdir()
    assert cli.main([*command, "--json", "DIR"]) == 2
    err = capsys.readouterr().err
    assert "--json: 'DIR' is a directory" in err and err.count("\n") == 1
    assert not (tmp_path / "SPEC.sqlite").exists()  # the sweep made no store


def test_dataset_and_data_together_are_refused_and_data_is_named_in_the_json(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.csv").write_text("a,b\n0.1,0.2\n0.3,0.1\n0.2,0.2\n")
    assert cli.main(["run", "gaussian", "--data", "mine.csv", "--dataset", "wine", "--report", "none"]) == 2
    assert "give one of --data and --dataset, not both" in capsys.readouterr().err
    assert cli.main(
        [
            "run",
            "gaussian",
            "--data",
            "mine.csv",
            "--trials",
            "1000",
            "--report",
            "none",
            "--json",
            "out.json",
            "--quiet",
        ]
    ) in (0, 1, 3)
    parameters = json.loads((tmp_path / "out.json").read_text())["parameters"]
    assert parameters["dataset"] is None and parameters["data"] == "mine.csv"


@pytest.mark.parametrize(
    "args",
    [["ops", "--gamma", "1e-300"], ["output-perturbation", "--lam", "1e300"], ["ssp", "--noise-multiplier", "1e-20"]],
)
def test_absurd_linreg_scales_are_usage_errors_not_crashes(args, tmp_path, monkeypatch, capsys):
    # Before: an ArithmeticError (γ = 1e-300) and a ZeroDivisionError (λ = 1e300 makes σ = 0) inside the audit.
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", *args, "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert "must be a finite number in [1e-12, 1e12], got" in err and err.count("\n") == 1


@pytest.mark.tier2
def test_a_quiet_run_that_writes_a_pdf_prints_nothing(tmp_path):
    """--quiet means silence: no library log line (e.g. fontTools on font timestamps) reaches the terminal.

    A subprocess, because pytest's own log capture would swallow what a user's terminal shows.  Its matplotlib cache
    is a fresh folder holding the suite's font list (not scanned again).  Laplace: a report of seven
    pages, every kind of text and font a run report has (gaussian's twelve and its data set cost a third more)."""
    import os
    import shutil

    import matplotlib

    cache = tmp_path / "matplotlib"
    cache.mkdir()
    for fonts in Path(matplotlib.get_cachedir()).glob("fontlist-*.json"):  # (not scanned again)
        shutil.copy(fonts, cache)
    argv = ["run", "laplace", "--trials", "2000", "--quiet", "--report", "out.pdf", "--json", "out.json"]
    command = [sys.executable, "-m", "pdp_audit.cli", *argv]
    env = {**os.environ, "MPLCONFIGDIR": str(cache)}
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode in (0, 1, 3) and (tmp_path / "out.pdf").stat().st_size > 0
    assert done.stdout == "" and done.stderr == "", (done.stdout, done.stderr)


def test_sweep_workers_beyond_the_cap_are_one_line(tmp_path, monkeypatch, capsys):
    """Found by the fuzz run: a huge --workers reached the process pool (OverflowError, exit 4)."""
    monkeypatch.chdir(tmp_path)
    spec = Path(__file__).resolve().parents[1] / "examples" / "sweep-small.toml"
    assert cli.main(["sweep", str(spec), "--workers", "1e12", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "--workers must be a whole number in [1, 256], got" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["claims", "--json", "x" * 300],
        ["run", "gaussian", "--report", "none", "--data", "x" * 300],
        ["sweep", "x" * 300],
        ["certify", "x" * 300],
        ["mutants", "--quick", "--json", "x" * 300],
    ],
)
def test_file_names_too_long_are_one_line(args, tmp_path, monkeypatch, capsys):
    """Found by the fuzz run: a 300-character name made stat() raise (ENAMETOOLONG), an internal error."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("too long" in err or "cannot write" in err), err


@pytest.mark.parametrize("audit", ["adassp", "gaussian"])
def test_subnormal_rho_is_one_line(audit, tmp_path, monkeypatch, capsys):
    """Found by the fuzz run: ρ = 1e-320 (subnormal) broke AdaSSP's eigendecomposition (exit 4)."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", audit, "--rho", "1e-320", "--trials", "2000", "--report", "none"]) == 2
    assert "--rho must be a finite number in [1e-300, 1), got 1e-320" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["1e-320", "1e-101", "1e101"])
def test_a_sensitivity_whose_square_leaves_the_doubles_is_one_line(value, capsys):
    """Found by the fuzz run: --sensitivity 1e-320 made the calibrated σ² zero (ZeroDivisionError, exit 4)."""
    assert cli.main(["run", "gaussian", "--sensitivity", value, "--trials", "2000", "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--sensitivity must be a finite number in [1e-100, 1e100], got {value}" in err


@pytest.mark.parametrize("audit", ["ops", "adaops", "adassp", "ssp", "output-perturbation", "gaussian"])
@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--claim-delta", "1e-320", "--claim-delta must be a finite number in [1e-300, 1), got 1e-320"),
        ("--claim-epsilon", "1e-320", "--claim-epsilon must be a finite number in [1e-6, 100], got 1e-320"),
    ],
)
def test_subnormal_claims_are_one_line(audit, option, value, message, capsys):
    """Found by a probe of every float option at 1e-320: the linear-regression calibrations raised (exit 4)."""
    assert cli.main(["run", audit, option, value, "--trials", "2000", "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.mark.tier2
def test_a_claimed_delta_no_budget_can_reach_is_inconclusive_not_an_error(capsys):
    """Found by the same probe: δ = 1e-250 overflowed the budget hint of an undecided check (exit 4)."""
    code = cli.main(
        ["run", "adaops", "--claim-delta", "1e-250", "--trials", "2000", "--search", "8", "--report", "none"]
    )
    assert code in (1, 3)
    capsys.readouterr()


def test_output_perturbation_at_a_delta_of_1e_200_ends_in_a_verdict(capsys):
    """Found by the float-option sweep: at δ = 1e-200 output perturbation's noise is so large that the privacy loss
    is nearly flat in it, and the importance sampler's dominating-point search raised (exit 4).  Whether the loss is
    exactly flat in double precision depends on the last bits of BLAS; either way the run ends in a verdict whose
    note names its route (the exactly flat case: tests/test_api.py)."""
    assert cli.main(
        [
            "run",
            "output-perturbation",
            "--claim-delta",
            "1e-200",
            "--trials",
            "2000",
            "--search",
            "8",
            "--report",
            "none",
            "--json",
            "-",
        ]
    ) in (0, 3)
    doc = json.loads(capsys.readouterr().out)
    forward = next(c for c in doc["checks"] if c["id"] == "dp-forward")
    assert "no shift to use" in forward["note"] or "only the lower bound is certified" in forward["note"]


@pytest.mark.parametrize("option", ["--beta", "--sigma3"])
def test_goe_scales_whose_squares_leave_the_doubles_are_one_line(option, capsys):
    """Found by the 2000-line fuzz run: --beta 1e-320 gave NaN privacy losses (exit 4)."""
    assert cli.main(["run", "goe-release", option, "1e-320", "--trials", "2000", "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{option} must be a finite number in [1e-12, 1e12], got 1e-320" in err


@pytest.mark.tier2
def test_a_tiny_goe_sensitivity_leaves_the_importance_points_out_of_the_figure(capsys):
    """Found by the 2000-line fuzz run: --beta 1e-12 makes the loss flat in the noise; the profile figure's
    importance-sampling points raised (exit 4) instead of being left out."""
    argv = ["run", "goe-release", "--beta", "1e-12", "--trials", "2000", "--matrices", "1000", "--report", "none"]
    assert cli.main(argv) in (0, 1, 3)
    capsys.readouterr()


def test_a_value_given_without_its_option_is_named():
    """`pdp-audit tau 50` said only that --d and --rho were required: the 50 is the mistake."""
    from pdp_audit.cli.main import build_parser
    from pdp_audit.verify.inputs.validation import InputError

    said = r"required: --d, --rho \(got '50' on its own: every option is named, as in --d 50\)"
    with pytest.raises(InputError, match=said):
        build_parser().parse_args(["tau", "50"])
    with pytest.raises(InputError) as missing:  # a command's own positional is not a stray value
        build_parser().parse_args(["blackbox", "module:factory"])
    assert "on its own" not in str(missing.value)


def test_no_hint_installs_pdp_audit_from_an_index():
    """pdp-audit is on no package index: a hint `pip install "pdp-audit[dask]"` fails for every user who follows
    it.  Hints name the packages themselves (`pip install "dask[distributed]"`, `pip install optuna`)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    hints = [
        f"{path.relative_to(root)}:{number}"
        for folder, pattern in (
            *((f, "*.py") for f in ("verify", "audits", "mechanisms", "src", "reports")),
            ("docs", "*.md"),
        )
        for path in sorted((root / folder).rglob(pattern)) + ([root / "README.md"] if folder == "docs" else [])
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"pdp-audit\[\w+\]", line)
    ]
    assert not hints, hints
