"""``pdp-audit`` end to end: exit codes, JSON, PDF, bad input, reproducibility, a broken mechanism."""

import json
import subprocess
import sys

import numpy as np
import pytest

from pdp_audit.cli.main import main
from pdp_audit.mechanisms.gaussian import analytic_sigma

TRIALS = "200000"


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    out = tmp_path_factory.mktemp("calibrated")
    code = main(
        [
            "run",
            "gaussian",
            "--trials",
            TRIALS,
            "--seed",
            "3",
            "--report",
            "none",  # the run's PDF: the wheel smoke test writes it, test_layout reads every page
            "--json",
            str(out / "r.json"),
            "--quiet",
        ]
    )
    return code, json.loads((out / "r.json").read_text()), out


def test_calibrated_mechanism_passes(calibrated):
    code, doc, out = calibrated
    assert code == 0 and doc["verdict"] == "pass"


def test_json_fields(calibrated):
    _, doc, _ = calibrated
    assert {"verdict", "checks", "parameters", "seed", "version"} <= doc.keys()
    for check in doc["checks"]:
        assert {"id", "claim", "source", "verdict", "estimate", "ci"} <= check.keys()
    ids = {c["id"] for c in doc["checks"]}
    assert {"dp-forward", "dp-reverse", "lr-attack", "cor23-ex-post", "theorem22", "pdp-median-individual"} <= ids
    assert {c["role"] for c in doc["checks"]} == {"guarantee"}
    assert doc["paper_findings"] is None  # example4, classical-*: only with --paper-claims
    assert doc["parameters"]["sigma"] == pytest.approx(analytic_sigma(1.0, 1e-5))


# slow: fast elsewhere (the wheel smoke test runs it with the installed command)
@pytest.mark.slow
def test_half_sigma_fails_through_the_cli(tmp_path):
    sigma = analytic_sigma(1.0, 1e-5) / 2  # true δ(1) = 0.010, a thousand times the claim: one block of samples
    result = run_cli(
        "run",
        "gaussian",
        "--sigma",
        repr(sigma),
        "--trials",
        "65536",  # refutes it in the tails and (from 5e4 on) by the attack
        "--json",
        "-",
        "--report",
        str(tmp_path / "b.pdf"),
    )
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"]}
    assert doc["verdict"] == "fail"
    assert verdicts["dp-forward"] == verdicts["dp-reverse"] == verdicts["lr-attack"] == "fail"


def test_tiny_budget_never_fails_a_correct_mechanism(tmp_path):
    # 2000 samples cannot resolve δ = 1e-5; a correct mechanism must come out pass or inconclusive.
    code = main(
        ["run", "gaussian", "--trials", "2000", "--report", "none", "--json", str(tmp_path / "x.json"), "--quiet"]
    )
    doc = json.loads((tmp_path / "x.json").read_text())
    assert code in (0, 3) and doc["verdict"] != "fail"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--claim-delta", "2"], "--claim-delta must be a finite number in [1e-300, 1), got 2"),
        (["--claim-epsilon", "-1"], "--claim-epsilon must be a finite number in [1e-6, 100], got -1"),
        (["--sigma", "0"], "--sigma must be a finite number > 0, got 0"),
        (["--sigma", "1e-320"], "--sigma must be in [1e-9, 1e9] times the sensitivity"),
        (["--trials", "10"], "--trials must be a whole number in [1000, 1e9], got 10"),
        (["--trials", "abc"], "--trials"),
        (["--data", "/no/such.csv"], "--data"),
        (["--query", "count", "--sensitivity", "3"], "--sensitivity"),
        (["--calibration", "classical", "--sigma", "2"], "--sigma and --calibration"),
        (["--calibration", "magic"], "--calibration"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "gaussian", *args, "--report", "none"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], lines


def test_bad_input_through_the_command_is_one_line_exit_2(tmp_path):
    """The same as the console shows it: one line, no traceback, exit 2."""
    result = run_cli("run", "gaussian", "--claim-delta", "2", "--report", "none", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (
        "--claim-delta must be a finite number in [1e-300, 1), got 2" in result.stderr
        and "Traceback" not in result.stderr
    )


def test_bad_csv(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,nan\n")
    assert main(["run", "gaussian", "--data", str(bad), "--report", "none"]) == 2
    assert "non-finite" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content,needle",
    [
        (None, "is a directory"),
        (b"a,b\n\xff\xfe,1\n", "is not UTF-8 text"),
        (b"a,b\n1,2\n3\n", "line 3, column 'b' is empty"),
        (b"a,b\n1,2\n3,4,5\n", "Expected 2 fields in line 3, saw 3"),
        (b"a,b\n1,x\n", "line 2, column 'b': 'x' is not a number"),
        (b"a,b\n", "needs a header row and at least one data row"),
        (b"", "needs a header row and at least one data row"),
        (b"a,a\n1,2\n", "duplicate column names ['a']"),
    ],
)
def test_bad_data_files_are_one_line_exit_2(content, needle, tmp_path, capsys):
    path = tmp_path / "data.csv"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert main(["run", "gaussian", "--data", str(path), "--report", "none", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert needle in err and "--data" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("audit", ["gaussian", "laplace"])
def test_data_of_only_the_target_column_is_one_line_exit_2(audit, tmp_path, capsys):
    data = tmp_path / "labels.csv"
    data.write_text("y\n1\n2\n3\n")
    assert main(["run", audit, "--data", str(data), "--target-column", "y", "--report", "none", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "no column besides --target-column 'y'" in err and err.count("\n") == 1, err


def test_a_byte_order_mark_is_not_part_of_the_first_column_name(tmp_path):
    data = tmp_path / "bom.csv"
    data.write_bytes("\ufefflabel,x\n".encode() + "".join(f"{i % 2},{i % 7 / 10}\n" for i in range(40)).encode())
    args = ["run", "gaussian", "--data", str(data), "--target-column", "label", "--trials", "2000"]
    code = main([*args, "--report", "none", "--json", str(tmp_path / "b.json"), "--quiet"])
    assert code in (0, 3) and json.loads((tmp_path / "b.json").read_text())["parameters"]["dimension"] == 1


def test_user_csv_runs(tmp_path):
    data = tmp_path / "mine.csv"
    data.write_text("x,y,label\n" + "".join(f"{i % 7 / 10},{i % 3 / 5},{i % 2}\n" for i in range(60)))
    code = main(
        [
            "run",
            "gaussian",
            "--data",
            str(data),
            "--target-column",
            "label",
            "--trials",
            "20000",
            "--report",
            "none",
            "--json",
            str(tmp_path / "u.json"),
            "--quiet",
        ]
    )
    doc = json.loads((tmp_path / "u.json").read_text())
    assert code in (0, 3) and doc["parameters"]["n_rows"] == 60 and doc["parameters"]["dimension"] == 2


# slow: fast elsewhere (test_workers runs every audit with 1 and 2 workers)
@pytest.mark.slow
def test_same_seed_same_bytes_whatever_the_workers(tmp_path):
    common = ["run", "gaussian", "--trials", "70000", "--seed", "9", "--quiet"]  # two blocks of 2^16: one per worker
    main(common + ["--report", str(tmp_path / "a.pdf"), "--json", str(tmp_path / "a.json")])
    main(common + ["--workers", "2", "--report", str(tmp_path / "b.pdf"), "--json", str(tmp_path / "b.json")])
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_list_names_gaussian(capsys):
    assert main(["list"]) == 0 and "gaussian" in capsys.readouterr().out


def test_parquet_needs_pyarrow_or_reads_like_the_csv(tmp_path, capsys):
    """Parquet is read through pandas where pyarrow is installed (the same table as its CSV), else one line."""
    pytest.importorskip("pandas")
    import importlib.util

    import pandas as pd

    rows = {"x": [i % 7 / 10 for i in range(60)], "label": [i % 2 for i in range(60)]}
    path = tmp_path / "mine.parquet"
    if importlib.util.find_spec("pyarrow") is None:
        path.write_bytes(b"PAR1")
        assert main(["run", "gaussian", "--data", str(path), "--report", "none", "--quiet"]) == 2
        assert "needs pyarrow" in capsys.readouterr().err
        return
    pd.DataFrame(rows).to_parquet(path)
    csv_path = tmp_path / "mine.csv"
    pd.DataFrame(rows).to_csv(csv_path, index=False)
    from pdp_audit.verify.inputs.datasets import load_csv

    a, b = load_csv(path, "label"), load_csv(csv_path, "label")
    assert np.array_equal(a.features, b.features) and np.array_equal(a.target, b.target)
