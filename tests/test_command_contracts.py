"""What each command promises, kept (issue 27, items 10 and 11): privacy-report can be certified; `tau` prints JSON
or refuses in one line; at most one output on standard output, and never a PDF; no folder is made; a FIFO given as
data is named for what it is; a bad [fixed] value is named [fixed]; the sweep PDF and the certificate depend on the
seed and parameters only, not on the store's name, its creation time or how the deployment's path was typed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from pdp_audit.cli.main import main
from pdp_audit.deployment import deployment_config, load_deployment
from tests.sweep_toy import make_toy_store

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PRIVACY_REPORT = (
    'mechanism = "privacy-report"\n[claim]\nepsilon = {epsilon}\ndelta = 1e-5\n[parameters]\nn = 200\nd = 5\n{more}'
    "[audit]\ntrials = 2000\nrepetitions = 200\n"
)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- item 10: privacy-report is certifiable --------------------------------------------------------------------


def test_a_privacy_report_deployment_is_certified_with_its_claim(tmp_path, capsys):
    """main refused both ways: '[claim] epsilon does not apply' with it, '[claim] needs epsilon' without it."""
    path = tmp_path / "pr.toml"
    path.write_text(PRIVACY_REPORT.format(epsilon=1.0, more=""), encoding="utf-8")
    code = main(["certify", str(path), "--report", "none", "--json", str(tmp_path / "pr.json"), "--quiet"])
    assert code in (0, 1, 3), capsys.readouterr().err
    certified = json.loads((tmp_path / "pr.json").read_text())["certified"]
    assert certified["mechanism"] == "privacy-report" and certified["claim"] == {"epsilon": 1.0, "delta": 1e-5}
    assert certified["parameters"]["n"] == 200 and certified["audit"]["repetitions"] == 200


@pytest.mark.parametrize(
    "epsilon, more, ok",
    [
        (3.5, 'mode = "adaptive"\nbudget = "0.5,1,1,1"\n', True),
        (1.0, 'mode = "independent"\n', True),
        (2.0, "", False),
        (1.0, 'budget = "0.5,1,1"\n', False),
    ],
)
def test_a_privacy_report_claim_is_the_total_of_its_stages(epsilon, more, ok, tmp_path):
    path = tmp_path / "pr.toml"
    path.write_text(PRIVACY_REPORT.format(epsilon=epsilon, more=more), encoding="utf-8")
    if ok:
        deployment_config(load_deployment(str(path)))
        return
    with pytest.raises(
        ValueError, match="claim.epsilon = .* is not the total of the report's stages: parameters.budget"
    ):
        deployment_config(load_deployment(str(path)))


# --- item 10: the other contract breaches ----------------------------------------------------------------------


def test_tau_beyond_the_doubles_is_refused_and_otherwise_valid_json(capsys):
    """main printed {"tau": Infinity} (not JSON) and exited 0."""
    assert main(["tau", "--d", "50", "--rho", "1e-6", "--sigma", "1e308"]) == 2
    assert "beyond the largest double" in _one_line(capsys)
    assert main(["tau", "--d", "5", "--rho", "1e-6", "--sigma", "1e300"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))["tau"] > 1e300


@pytest.mark.parametrize(
    "argv, words",
    [
        (["report", "toy.sqlite", "-o", "none", "--json", "-", "--csv", "-"], "'-' is also the path of --json"),
        (["run", "gaussian", "--trials", "2000", "--report", "-"], "a PDF cannot go to standard output"),
        (["report", "toy.sqlite", "-o", "-"], "a PDF cannot go to standard output"),
        (["run", "gaussian", "--trials", "2000", "--report", "missing/dir/x.pdf"], "does not exist"),
        (["report", "toy.sqlite", "--csv", "missing/dir/x.csv"], "does not exist"),
    ],
)
def test_outputs_standard_output_once_never_a_pdf_and_no_folder_made(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    make_toy_store(tmp_path / "toy.sqlite")
    assert main(argv) == 2
    assert words in _one_line(capsys) and capsys.readouterr().out == ""
    assert not (tmp_path / "missing").exists()


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo.csv"
    os.mkfifo(path)
    return path


def test_a_fifo_given_as_data_is_named_for_what_it_is(fifo, capsys):
    """main said 'no such file'."""
    assert main(["run", "gaussian", "--data", str(fifo), "--trials", "2000", "--report", "none"]) == 2
    assert "is not a regular file (a FIFO, a socket or a device)" in _one_line(capsys)


def test_a_fifo_named_by_a_deployment_or_a_spec_is_refused_without_reading_it(fifo, tmp_path, capsys):
    """A deployment's data said 'no such file'; a sweep spec's data blocked on the FIFO for ever."""
    deploy = tmp_path / "d.toml"
    deploy.write_text('mechanism = "gaussian"\n[claim]\nepsilon = 1.0\ndelta = 1e-5\n[parameters]\ndata = "fifo.csv"\n')
    assert main(["certify", str(deploy), "--report", "none"]) == 2
    assert "parameters.data" in (err := _one_line(capsys)) and "is not a regular file" in err
    spec = tmp_path / "s.toml"
    spec.write_text(f'[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\ndata = "{fifo}"\n')
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "is not a regular file" in _one_line(capsys)
    for command in (["certify", str(fifo)], ["sweep", str(fifo)], ["report", str(fifo)]):
        assert main(command) == 2
        assert "is not a regular file" in _one_line(capsys)


def test_a_bad_fixed_value_is_named_fixed_not_the_first_grid_point(tmp_path, capsys):
    """main: 's.toml: grid claim_epsilon=0.5: give one of dataset and synthetic, not both'."""
    spec = tmp_path / "s.toml"
    spec.write_text(
        '[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\nsynthetic = "50,3"\ndataset = "diabetes"\n'
        "[grid]\nclaim_epsilon = [0.5, 1.0]\n"
    )
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert f"{spec}: [fixed]: give one of dataset and synthetic, not both" in _one_line(capsys)
    spec.write_text(  # a value wrong only with one grid point is still named by that point
        '[sweep]\nmechanism = "gaussian"\n[fixed]\ntrials = 2000\nsynthetic = "50,3"\n[grid]\ndataset = ["diabetes"]\n'
    )
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "grid dataset='diabetes': give one of dataset and synthetic" in _one_line(capsys)


# --- item 11: reproducible bytes -------------------------------------------------------------------------------


@pytest.mark.tier2
def test_the_sweep_pdf_depends_on_the_sweep_not_on_its_store(tmp_path, capsys):
    """main printed the store's path and creation time on the provenance page."""
    first = make_toy_store(tmp_path / "first.sqlite")
    second = make_toy_store(tmp_path / "elsewhere-second.sqlite")
    with sqlite3.connect(second) as db:  # made on another day
        db.execute("UPDATE meta SET value = ? WHERE key = 'created'", (json.dumps("1999-12-31T23:59:59+00:00"),))
    sqlite3.connect(second).close()
    for store, name in ((first, "a"), (second, "b")):
        assert (
            main(["report", str(store), "-o", str(tmp_path / f"{name}.pdf"), "--json", str(tmp_path / f"{name}.json")])
            == 0
        )
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


@pytest.mark.slow  # 21-23 s of the suite on 2 cores: --run-slow (CI's time limit)
def test_the_certificate_does_not_depend_on_how_its_path_was_typed(tmp_path, monkeypatch):
    """main recorded the path as typed (deployment_file.path, and the data path joined to it in the run's
    parameters): `certify x.toml`, `certify ./x.toml` and an absolute path gave three different certificates."""
    (tmp_path / "dep").mkdir()
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path / "dep" / "deploy-data.csv")
    text = (EXAMPLES / "deploy-gaussian.toml").read_text(encoding="utf-8").replace("trials = 1e6", "trials = 2e3")
    (tmp_path / "dep" / "x.toml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "dep")
    spellings = {"plain": "x.toml", "dotted": "./x.toml", "absolute": str(tmp_path / "dep" / "x.toml")}
    for name, path in spellings.items():
        code = main(
            [
                "certify",
                path,
                "--report",
                str(tmp_path / f"{name}.pdf"),
                "--json",
                str(tmp_path / f"{name}.json"),
                "--quiet",
            ]
        )
        assert code in (0, 1, 3)
    monkeypatch.chdir(tmp_path)  # and from the folder above
    code = main(["certify", "dep/x.toml", "--report", "above.pdf", "--json", "above.json", "--quiet"])
    assert code in (0, 1, 3)
    documents = {name: (tmp_path / f"{name}.json").read_bytes() for name in [*spellings, "above"]}
    assert len(set(documents.values())) == 1
    assert len({(tmp_path / f"{name}.pdf").read_bytes() for name in documents}) == 1
    document = json.loads(documents["plain"])
    assert document["certified"]["deployment_file"]["path"] == "x.toml"
    assert document["parameters"]["data"] == "deploy-data.csv"


@pytest.mark.tier2
def test_a_run_does_not_depend_on_how_its_data_path_was_typed(tmp_path, monkeypatch):
    """main recorded ``--data`` as typed: ``d.csv``, ``./d.csv`` and an absolute path gave three different JSON and
    PDF reports of the same audit of the same bytes.  The run records the file's name and the SHA-256 of the bytes
    it audited."""
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path / "d.csv")
    monkeypatch.chdir(tmp_path)
    spellings = {"plain": "d.csv", "dotted": "./d.csv", "absolute": str(tmp_path / "d.csv")}
    for name, path in spellings.items():
        arguments = ["run", "laplace", "--data", path, "--trials", "2000", "--quiet"]
        assert main([*arguments, "--report", f"{name}.pdf", "--json", f"{name}.json"]) in (0, 1, 3)
    assert len({(tmp_path / f"{name}.json").read_bytes() for name in spellings}) == 1
    assert len({(tmp_path / f"{name}.pdf").read_bytes() for name in spellings}) == 1
    parameters = json.loads((tmp_path / "plain.json").read_bytes())["parameters"]
    assert parameters["data"] == "d.csv"
    assert parameters["data_sha256"] == hashlib.sha256((tmp_path / "d.csv").read_bytes()).hexdigest()


def test_a_command_ends_as_python_ends(tmp_path):
    """The process's own ``pdp-audit`` ends as Python ends (issue 61): a handler registered before the command runs
    runs, then the interpreter's teardown finalises the objects of ``__main__``; the command's one-line error and its
    exit code are kept.  Before, the command ended by ``os._exit`` after its exit handlers: the object was never
    finalised (failed on 15e6652)."""
    import subprocess
    import sys

    code = (
        "import atexit, sys\n"
        "class Late:\n    def __del__(self):\n        print('torn down')\n"
        "late = Late()\n"
        "atexit.register(print, 'exit handler ran')\n"
        "from pdp_audit.cli.main import main\n"
        "sys.argv = ['pdp-audit', 'certify', 'missing.toml']\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "exit handler ran\ntorn down\n", (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "missing.toml" in done.stderr, done.stderr


def test_a_file_the_users_code_left_open_keeps_what_it_wrote(tmp_path):
    """A file the user's code wrote to and never closed is flushed by Python's teardown, as in plain Python: its
    bytes, text and binary, are on disk once the command ended."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "log = open('log.txt', 'w', encoding='utf-8')\nlog.write('kept')\n"
        "raw = open('raw.bin', 'wb')\nraw.write(b'bytes')\n"
        "from pdp_audit.cli.main import main\n"
        "sys.argv = ['pdp-audit', 'certify', 'missing.toml']\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert (tmp_path / "log.txt").read_text(encoding="utf-8") == "kept"
    assert (tmp_path / "raw.bin").read_bytes() == b"bytes"
