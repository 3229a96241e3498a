"""``pdp-audit certify DEPLOY.toml`` and ``pdp-audit schema``: certificates, fingerprints, input errors, schema.

Budgets are small (1e5 trials for the passing Gaussian deployment, 2e4 elsewhere); every JSON is validated
against the published schema (in-process by the conftest fixture, and explicitly here).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from pdp_audit.cli.main import main
from pdp_audit.deployment import deployment_config, load_deployment
from pdp_audit.reports.json_report import run_schema
from pdp_audit.verify.core.data_fingerprint import canonical_table_sha256

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SMALL_BUDGET = "trials = 1e5"  # enough for every Gaussian guarantee to pass at the example's σ


def validate(document: dict) -> None:
    jsonschema.Draft202012Validator(run_schema()).validate(document)


def gaussian_example(folder: Path, budget: str = SMALL_BUDGET, **replacements: str) -> Path:
    """examples/deploy-gaussian.toml (and its CSV) copied into ``folder`` with a small budget."""
    shutil.copy(EXAMPLES / "deploy-data.csv", folder / "deploy-data.csv")
    text = (EXAMPLES / "deploy-gaussian.toml").read_text(encoding="utf-8").replace("trials = 1e6", budget)
    for old, new in replacements.items():
        assert old in text
        text = text.replace(old, new)
    path = folder / "deploy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def certify(toml: Path, folder: Path, *extra: str, report: bool = True) -> tuple[int, Path, Path]:
    """``certify`` in this process: its exit code, the PDF's path (``report=False``: none written, where the test
    reads only the JSON) and the JSON's."""
    pdf, out = folder / "certificate.pdf", folder / "certificate.json"
    outputs = ["--report", str(pdf) if report else "none", "--json", str(out)]
    code = main(["certify", str(toml), *outputs, "--quiet", *extra])
    return code, pdf, out


def write(folder: Path, text: str, name: str = "deploy.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the certificate -----------------------------------------------------------------------------------------


# slow: fast elsewhere (the wheel smoke test certifies it, reads page 1's fingerprint)
@pytest.mark.slow
def test_gaussian_example_is_certified_with_its_data_fingerprint(tmp_path):
    toml = gaussian_example(tmp_path)
    pdf, out = tmp_path / "certificate.pdf", tmp_path / "certificate.json"
    result = subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", "certify", str(toml), "--report", str(pdf), "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "CERTIFIED" in result.stdout
    assert pdf.read_bytes().startswith(b"%PDF")
    document = json.loads(out.read_text(encoding="utf-8"))
    validate(document)
    certified = document["certified"]
    csv = tmp_path / "deploy-data.csv"
    assert certified["data_sha256"] == hashlib.sha256(csv.read_bytes()).hexdigest()
    assert certified["data_shape"] == [300, 4]  # rows × columns, the label column included
    assert certified["data_source"] == "file" and certified["data"] == "deploy-data.csv"
    assert certified["deployment_file"] == {"path": toml.name, "sha256": hashlib.sha256(toml.read_bytes()).hexdigest()}
    assert certified["claim"] == {"epsilon": 1.0, "delta": 1e-5}
    assert certified["audit"] == {"trials": 100_000, "seed": 0, "alpha": 1e-6}
    parameters = certified["parameters"]
    assert parameters["sigma"] == 3.8 and parameters["target_column"] == "label"
    assert parameters["rho"] == 0.01  # a default, resolved
    assert document["paper_findings"] is None
    assert all(check["role"] == "guarantee" for check in document["checks"])


# slow: fast elsewhere (the wheel smoke test certifies the example twice, cmp)
@pytest.mark.slow
def test_same_seed_gives_byte_identical_certificates(tmp_path):
    toml = gaussian_example(tmp_path, budget="trials = 2e4")
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    code_a, pdf_a, json_a = certify(toml, first)
    code_b, pdf_b, json_b = certify(toml, second, "--workers", "2")
    assert code_a == code_b
    assert json_a.read_bytes() == json_b.read_bytes()
    assert pdf_a.read_bytes() == pdf_b.read_bytes()


@pytest.mark.tier2
def test_a_deflated_deployment_is_not_certified(tmp_path):
    toml = gaussian_example(tmp_path, budget="trials = 2e4", **{"sigma = 3.8": "sigma = 0.5"})
    code, pdf, out = certify(toml, tmp_path)
    assert code == 1
    document = json.loads(out.read_text(encoding="utf-8"))
    validate(document)
    assert document["verdict"] == "fail" and document["certified"]["parameters"]["sigma"] == 0.5
    assert pdf.exists()


def test_shipped_dataset_fingerprint_is_the_canonical_array(tmp_path):
    from sklearn.datasets import load_wine

    toml = write(
        tmp_path,
        'mechanism = "gaussian"\n[claim]\nepsilon = 1.0\ndelta = 1e-5\n'
        '[parameters]\ndataset = "wine"\n[audit]\ntrials = 2e4\n',
    )
    code, _, out = certify(toml, tmp_path, report=False)
    assert code in (0, 3)
    certified = json.loads(out.read_text(encoding="utf-8"))["certified"]
    wine = load_wine()
    table = np.column_stack([wine.data, wine.target]).astype("<f8")  # features, then the target
    expected = hashlib.sha256(b"178,14\n" + np.ascontiguousarray(table).tobytes()).hexdigest()
    assert certified["data_source"] == "shipped" and certified["data"] == "wine"
    assert certified["data_sha256"] == expected == canonical_table_sha256(table)
    assert certified["data_shape"] == [178, 14]


@pytest.mark.parametrize(
    "example",
    [
        "deploy-gaussian.toml",
        "deploy-objpert.toml",
        "deploy-laplace-mean.toml",
        "deploy-geometric.toml",
        "deploy-randomized-response.toml",
    ],
)
def test_examples_are_the_audits_configs(example):
    deployment = load_deployment(str(EXAMPLES / example))
    config, workers = deployment_config(deployment)
    assert config.epsilon == deployment.claim["epsilon"] and config.delta == deployment.claim["delta"]
    assert config.paper_claims is False and workers is None


# --- input errors: one line naming the file and the key, exit 2, before any computation -------------------------


CLAIM = "[claim]\nepsilon = 1.0\ndelta = 1e-5\n"
BAD_DEPLOYMENTS = {
    "invalid TOML": ('mechanism = "gaussian\n', "not valid TOML"),
    "unknown top-level key": (f'mechanism = "gaussian"\ncolour = 1\n{CLAIM}', "unknown key 'colour'"),
    "unknown mechanism": (f'mechanism = "exponential"\n{CLAIM}', "mechanism 'exponential' is not an audit"),
    "unknown parameter": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\nsigmaa = 2.0\ndataset = "wine"\n',
        "unknown key 'parameters.sigmaa'; did you mean 'sigma'?",
    ),
    "unknown audit key": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\ndataset = "wine"\n[audit]\nsearch_trials = 4\n',
        "unknown key 'audit.search_trials'",
    ),
    "wrong type": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\nsigma = "big"\ndataset = "wine"\n',
        "parameters.sigma must be a finite number > 0, got 'big'",
    ),
    "bad choice": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\nquery = "median"\ndataset = "wine"\n',
        "parameters.query must be one of 'sum', 'count', 'mean', got 'median'",
    ),
    "missing data file": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\ndata = "nowhere.csv"\n',
        "parameters.data: no such file",
    ),
    "data an empty string": (  # main: "'.' is a directory", the deployment's folder
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\ndata = ""\n',
        "parameters.data must name a CSV file, got an empty string",
    ),
    "data not named": (f'mechanism = "gaussian"\n{CLAIM}', "[parameters] must name the deployed data"),
    "claim missing delta": ('mechanism = "gaussian"\n[claim]\nepsilon = 1.0\n', "[claim] needs delta"),
    "budget in parameters": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\ntrials = 5\ndataset = "wine"\n',
        "parameters.trials is a budget of the certification; put it in [audit]",
    ),
    "out of range, caught by the audit's own validation": (
        f'mechanism = "gaussian"\n{CLAIM}[parameters]\nsensitivity = -1.0\ndataset = "wine"\n',
        "parameters.sensitivity",
    ),
    "two data sources": (
        f'mechanism = "objpert"\n{CLAIM}[parameters]\ndataset = "breast-cancer"\nsynthetic = "20,2"\n',
        "parameters.synthetic",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_DEPLOYMENTS))
def test_bad_deployments_are_one_line_with_exit_2(tmp_path, capsys, case):
    text, expected = BAD_DEPLOYMENTS[case]
    toml = write(tmp_path, text)
    code, pdf, out = certify(toml, tmp_path)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and expected in err, err
    if case != "unknown mechanism" and case != "invalid TOML":
        assert str(toml) in err
    assert not pdf.exists() and not out.exists()


@pytest.mark.parametrize("workers", [0, 300, "x", 2.5, True])
def test_the_api_checks_workers_before_the_file(workers):
    """``pdp_audit.certify(workers=...)`` is checked as ``run_audit``'s is: one line naming ``workers``, before the
    deployment is read (0 ran on one process, 300 was refused in the words of the command line's --workers, "x"
    raised TypeError from inside the run)."""
    import pdp_audit

    with pytest.raises(pdp_audit.InputError, match=r"^workers must be a whole number in \[1, 256\], got "):
        pdp_audit.certify("no-such-deployment.toml", workers=workers)


def test_missing_deployment_file_is_exit_2(tmp_path, capsys):
    assert main(["certify", str(tmp_path / "absent.toml"), "--quiet"]) == 2
    assert "no such deployment file" in capsys.readouterr().err


def test_output_paths_are_checked_first(tmp_path, capsys):
    toml = gaussian_example(tmp_path)
    assert main(["certify", str(toml), "--report", str(tmp_path), "--quiet"]) == 2
    assert "--report" in capsys.readouterr().err


# --- the schema ------------------------------------------------------------------------------------------------


def test_schema_command_prints_a_valid_json_schema(capsys):
    assert main(["schema"]) == 0
    printed = capsys.readouterr().out
    schema = json.loads(printed)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert printed == (ROOT / "reports" / "schema" / "run.schema.json").read_text(encoding="utf-8")
    assert schema["additionalProperties"] is False and "certified" in schema["properties"]


def test_schema_rejects_what_it_should():
    with pytest.raises(jsonschema.ValidationError):
        validate({"schema": 2})
    minimal = {
        "schema": 2,
        "mechanism": "m",
        "verdict": "pass",
        "exit_code": 0,
        "alpha": 1e-6,
        "checks": [],
        "paper_findings": None,
        "parameters": {},
        "per_instance": None,
        "pages": [],
        "seed": 0,
        "version": "0",
        "versions": {"python": "3"},
    }
    validate(minimal)
    for key, bad in {"verdict": "ok", "exit_code": 2, "unexpected": 1}.items():
        with pytest.raises(jsonschema.ValidationError):
            validate({**minimal, key: bad})
    # the review page as data (added within schema 2): its tables' cells are text, their highlights row indices
    table = {"columns": ["#", "call"], "rows": [["0", "laplace"]], "highlight": [0]}
    review = {"title": "t", "claim": "c", "verdict": "fail", "headline": "h", "reading": "r"}
    section = {"heading": "Call trace", "text": "", "table": table, "after": ""}
    validate({**minimal, "review": {**review, "sections": [section, {**section, "table": None}]}})
    for bad_section in (
        {**section, "table": {**table, "highlight": [-1]}},
        {**section, "table": {**table, "rows": [[0]]}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validate({**minimal, "review": {**review, "sections": [bad_section]}})
    with pytest.raises(jsonschema.ValidationError):
        validate({**minimal, "review": {**review, "verdict": "refuted", "sections": []}})


@pytest.mark.slow
def test_objpert_example_is_certified(tmp_path):
    code, _, out = certify(EXAMPLES / "deploy-objpert.toml", tmp_path, report=False)
    assert code == 0
    certified = json.loads(out.read_text(encoding="utf-8"))["certified"]
    assert certified["data_source"] == "shipped" and certified["data_shape"] == [569, 31]
    assert certified["parameters"]["loss"] == "logistic"


def test_a_deployment_certified_through_a_symbolic_link_records_the_file_it_resolves_to(tmp_path):
    """main: the certificate named the link (``current.toml``), whose target the SHA-256 is of and which is
    re-pointed at the next release; now the file itself, and the same bytes as certifying the file directly."""
    toml = gaussian_example(tmp_path, "trials = 2e4")
    (tmp_path / "current.toml").symlink_to(toml.name)
    documents = []
    for given in ("current.toml", "deploy.toml"):
        out = tmp_path / f"via-{given}.json"
        assert main(["certify", str(tmp_path / given), "--report", "none", "--json", str(out), "--quiet"]) in (0, 3)
        documents.append(out.read_bytes())
    assert documents[0] == documents[1]
    record = json.loads(documents[0])["certified"]["deployment_file"]
    assert record == {"path": "deploy.toml", "sha256": hashlib.sha256(toml.read_bytes()).hexdigest()}


def test_a_certificate_states_resolved_parameters_never_null():
    """`sigma: null`, `lam: null` (a default left open) become the values the run used; one that did not apply
    is omitted."""
    from pdp_audit.deployment import resolved_parameters

    written = {"sigma": None, "lam": None, "loss": "logistic", "unused": None}
    assert resolved_parameters(written, {"sigma": 0.504, "lam": 0.25}) == {
        "sigma": 0.504,
        "lam": 0.25,
        "loss": "logistic",
    }


def test_the_certificate_and_its_audit_parse_the_data_file_once(tmp_path, monkeypatch):
    """The fingerprint's parse of the pinned CSV is handed to the audit (one parse, not two), and the certificate
    is byte for byte the one of two parses."""
    from pdp_audit.verify.inputs import datasets

    class Forgetful(dict):  # the cache that keeps nothing: every reader parses, as before
        def __setitem__(self, key, value) -> None:
            pass

    toml = gaussian_example(tmp_path, budget="trials = 2e4")
    parses = []
    read_table = datasets._read_table
    monkeypatch.setattr(datasets, "_read_table", lambda path: parses.append(path) or read_table(path))
    outputs = []
    for name in ("once", "twice"):
        folder = tmp_path / name
        folder.mkdir()
        parses.clear()
        if name == "twice":
            monkeypatch.setattr(datasets, "_PARSED", Forgetful())
        out = folder / "certificate.json"
        assert main(["certify", str(toml), "--report", "none", "--json", str(out), "--quiet"]) == 0
        assert len(parses) == (1 if name == "once" else 2)
        assert not datasets._PARSED  # nothing kept once the file is unpinned
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
