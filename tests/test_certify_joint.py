"""Several releases in one deployment (``[[release]]`` tables), certified as one joint release.

A Gaussian sum (σ = 3.8 at C = 1: (1, 1e-5)-DP alone) and a Laplace count (scale 1: (1, 0)-DP alone) of the same
CSV.  Together they are not (1, 1e-3)-DP: the joint loss is the sum of the two, and the certificate must say so.
Budgets are small (2e4 draws per world).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.joint.pair import product_pair
from pdp_audit.cli.main import main
from pdp_audit.mechanisms.gaussian import GaussianPair
from pdp_audit.mechanisms.laplace import LaplacePair
from pdp_audit.verify.estimators.rare import has_noise_view

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAUSSIAN = """[[release]]
mechanism = "gaussian"
[release.parameters]
sigma = {sigma}
data = "data.csv"
target_column = "label"
"""
LAPLACE = """[[release]]
mechanism = "laplace"
[release.parameters]
query = "count"
scale = {scale}
data = "data.csv"
"""
CLAIM = "[claim]\nepsilon = {epsilon}\ndelta = {delta}\n[audit]\ntrials = 2e4\n"


def deployment(folder: Path, text: str) -> Path:
    shutil.copy(EXAMPLES / "deploy-data.csv", folder / "data.csv")
    path = folder / "deploy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def joint(folder: Path, epsilon=3.0, delta=1e-3, sigma=3.8, scale=1.0) -> Path:
    text = GAUSSIAN.format(sigma=sigma) + LAPLACE.format(scale=scale) + CLAIM.format(epsilon=epsilon, delta=delta)
    return deployment(folder, text)


def certify(toml: Path, *extra: str) -> tuple[int, dict]:
    out = toml.parent / "certificate.json"
    code = main(["certify", str(toml), "--report", "none", "--json", str(out), "--quiet", *extra])
    return code, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}


def test_a_gaussian_sum_and_a_laplace_count_are_certified_together(tmp_path):
    code, document = certify(joint(tmp_path))
    assert code == 0
    assert [c["id"] for c in document["checks"]] == ["loss-consistency", "dp-forward", "dp-reverse"]  # no noise view
    certified = document["certified"]
    assert certified["mechanism"] == "gaussian+laplace" and certified["evidence"] == "white-box"
    digest = hashlib.sha256((tmp_path / "data.csv").read_bytes()).hexdigest()
    assert [r["mechanism"] for r in certified["releases"]] == ["gaussian", "laplace"]
    assert all(r["data_sha256"] == digest and r["data"] == "data.csv" for r in certified["releases"])
    assert certified["data_sha256"] == digest and certified["data_shape"] == [300, 4]
    assert certified["parameters"]["release[1].sigma"] == 3.8 and certified["parameters"]["release[2].scale"] == 1.0
    assert certified["parameters"]["release[2].query"] == "count"
    (page,) = document["pages"]
    assert "beside the joint" in page["title"]


@pytest.mark.tier2
def test_each_release_alone_passes_but_together_they_do_not(tmp_path):
    """Composition: (1, 1e-5) and (2/3, 0) alone; the joint release is far from (1, 1e-3)."""
    alone = [
        pdp_audit.audit_pair(
            GaussianPair([1.0], [0.0], 3.8), 1.0, 1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
        ).verdict,
        pdp_audit.audit_pair(
            LaplacePair([1.0], [0.0], 1.5), 1.0, 1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
        ).verdict,
    ]
    assert alone == ["pass", "pass"]
    code, document = certify(joint(tmp_path, epsilon=1.0, delta=1e-3, scale=1.5))
    assert code == 1
    assert {c["id"]: c["verdict"] for c in document["checks"]}["dp-forward"] == "fail"


def test_a_deflated_release_is_refused(tmp_path):
    code, document = certify(joint(tmp_path, sigma=0.2))
    assert code == 1 and document["verdict"] == "fail"


def test_a_pure_joint_release_states_the_delta_it_certifies(tmp_path):
    text = LAPLACE.format(scale=1.0) + LAPLACE.format(scale=2.0) + CLAIM.format(epsilon=1.6, delta=0.0)
    code, document = certify(deployment(tmp_path, text))
    assert code == 0  # ε = 1 + 1/2 = 1.5 ≤ 1.6 exactly: proven (the joint Laplace view replays, sup L = 1.5)
    upper = max(c["ci"][1] for c in document["checks"] if c["id"].startswith("dp-"))
    assert document["parameters"]["delta_certified"] == upper == 0
    assert document["certified_claim"]["delta"] == 0 and document["certified_claim"]["covers_claim"]


def test_releases_of_different_data_keep_each_fingerprint(tmp_path):
    toml = deployment(tmp_path, LAPLACE.format(scale=1.0) + LAPLACE.format(scale=1.0).replace("data.csv", "more.csv"))
    toml.write_text(toml.read_text(encoding="utf-8") + CLAIM.format(epsilon=2.5, delta=0.0), encoding="utf-8")
    rows = (tmp_path / "data.csv").read_text(encoding="utf-8")
    (tmp_path / "more.csv").write_text(rows + rows.splitlines()[1] + "\n", encoding="utf-8")  # one row more
    code, document = certify(toml)
    assert code == 0
    certified = document["certified"]
    assert certified["data_source"] == "releases" and certified["data_sha256"] is None
    digests = [hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in ("data.csv", "more.csv")]
    assert [r["data_sha256"] for r in certified["releases"]] == digests
    assert [r["data_shape"] for r in certified["releases"]] == [[300, 4], [301, 4]]


def test_the_product_pair_is_the_joint_release():
    """Two Gaussian releases side by side are one Gaussian release of the concatenated means (the loss adds)."""
    first, second = GaussianPair([1.0, 0.0], [0.0, 0.0], 2.0), GaussianPair([0.5], [0.0], 2.0)
    product, whole = product_pair([first, second]), GaussianPair([1.0, 0.0, 0.5], [0.0, 0.0, 0.0], 2.0)
    outputs = product.sample("D", 1000, np.random.default_rng(1))
    np.testing.assert_allclose(product.privacy_loss(outputs), whole.privacy_loss(outputs), rtol=1e-12, atol=1e-12)
    assert has_noise_view(product) and not has_noise_view(product_pair([first, LaplacePair([1.0], [0.0], 1.0)]))
    noise = np.random.default_rng(2).standard_normal((5, 3)) * 2.0
    np.testing.assert_array_equal(product.release_from_noise("D'", noise), whole.release_from_noise("D'", noise))


def test_the_python_api_takes_the_releases_as_a_mapping(tmp_path, monkeypatch):
    joint(tmp_path)
    monkeypatch.chdir(tmp_path)
    releases = [
        {"mechanism": "gaussian", "parameters": {"sigma": 3.8, "data": "data.csv", "target_column": "label"}},
        {"mechanism": "laplace", "parameters": {"query": "count", "scale": 1.0, "data": "data.csv"}},
    ]
    run = pdp_audit.certify({"release": releases, "claim": {"epsilon": 3.0, "delta": 1e-3}, "audit": {"trials": 2e4}})
    assert run.exit_code == 0 and run.mechanism == "gaussian+laplace"


@pytest.mark.parametrize(
    "text, named",
    [
        (GAUSSIAN.format(sigma=3.8).replace("sigma = 3.8", "sigmaa = 3.8"), "release[1].parameters.sigmaa"),
        (GAUSSIAN.format(sigma=3.8).replace("sigma = 3.8", ""), "release[1].parameters.sigma is required"),
        (GAUSSIAN.format(sigma=-1), "release[1].parameters.sigma"),
        (
            LAPLACE.format(scale=1) + LAPLACE.format(scale=1).replace('"count"', '"median"'),
            "release[2].parameters.query",
        ),
        (LAPLACE.format(scale=1).replace('"laplace"', '"objpert"'), "release[1].mechanism 'objpert' cannot be part"),
        (
            LAPLACE.format(scale=1).replace("[release.parameters]", "sigma = 1\n[release.parameters]"),
            "release[1].sigma",
        ),
        ('mechanism = "gaussian"\n' + LAPLACE.format(scale=1), "no top-level mechanism"),
        (GAUSSIAN.format(sigma=3.8).replace('"data.csv"', '"missing.csv"'), "release[1].parameters.data"),
    ],
)
def test_a_bad_release_is_one_line_naming_it(tmp_path, capsys, text, named):
    code, _ = certify(deployment(tmp_path, text + CLAIM.format(epsilon=1.0, delta=1e-5)))
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and named in err, err


def test_the_shipped_example_is_a_valid_joint_deployment():
    from pdp_audit.audits.joint.certificate import release_configs
    from pdp_audit.catalogue.plans import plans_by_name
    from pdp_audit.cli.examples import shipped_examples
    from pdp_audit.deployment import load_deployment

    assert "deploy-joint.toml" in shipped_examples()
    deployment = load_deployment(str(EXAMPLES / "deploy-joint.toml"))
    gaussian, laplace = release_configs(deployment, plans_by_name())
    assert (gaussian.query, laplace.query) == ("mean", "histogram") and gaussian.sigma > 0 and laplace.scale > 0
