"""The linear-regression audits end to end: ``pdp-audit run {output-perturbation, ops, adaops, adassp,
ssp}`` and ``pdp-audit benchmark linreg``, plus the exact profiles they rest on.

Fast tests use small synthetic data and small budgets; the default-size audits that reproduce the findings
on the bundled diabetes data are marked ``slow``.  Statistical assertions have false-alarm probability
≤ 1e-6 (stated where they appear).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from pdp_audit.audits.linreg import profiles as P
from pdp_audit.audits.linreg.views import view_of
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as G
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import bounds as B
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.verify.estimators import rare

SMALL = ["--synthetic", "80,3", "--trials", "5000", "--search", "32", "--no-reproduce"]
MECHANISMS = ("output-perturbation", "ops", "adaops", "adassp", "ssp")
DP_IDS = ("dp-forward", "dp-reverse", "lr-attack")


def run_json(tmp_path, *args) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["run", *args, "--report", "none", "--json", str(out), "--quiet"])
    return code, json.loads(out.read_text())


# --- CLI end to end -----------------------------------------------------------------------------


# slow but the first: each mechanism's audit runs in process in test_linreg.py and the zoo; the CLI path is one
@pytest.mark.parametrize(
    "mechanism", [MECHANISMS[0], *(pytest.param(m, marks=pytest.mark.slow) for m in MECHANISMS[1:])]
)
def test_cli_each_mechanism(mechanism, tmp_path):
    """Exit code matches the verdict; JSON fields; a correctly calibrated mechanism never fails its DP checks."""
    pdf = tmp_path / "r.pdf"
    out = tmp_path / "r.json"
    code = main(["run", mechanism, *SMALL, "--report", str(pdf), "--json", str(out), "--quiet"])
    doc = json.loads(out.read_text())
    assert code == {"pass": 0, "fail": 1, "inconclusive": 3}[doc["verdict"]] == doc["exit_code"]
    assert {"verdict", "checks", "parameters", "seed", "version", "pages"} <= doc.keys()
    ids = {c["id"]: c for c in doc["checks"]}
    assert set(DP_IDS) <= ids.keys()
    for check in doc["checks"]:
        assert {"id", "claim", "source", "verdict", "estimate", "ci", "note"} <= check.keys()
    for cid in DP_IDS:
        assert ids[cid]["verdict"] != "fail", (cid, ids[cid]["note"])
    assert "candidate neighbours" in ids["dp-forward"]["note"]
    assert ids["dp-forward"]["details"]["search"]["candidates"] == 32
    assert doc["parameters"]["mechanism"] == mechanism and doc["parameters"]["n_rows"] == 80
    assert doc["pages"][0]["title"].startswith("Per-instance privacy")
    assert pdf.read_bytes().startswith(b"%PDF")


def test_broken_adassp_fails_through_the_cli(capsys):
    """AdaSSP with every noise standard deviation halved: the DP claim fails (exit 1), its JSON on standard output.
    The command's own function, in this process: an installed command's exit code on a failed claim is the wheel
    smoke test's (.ci/wheel-smoke)."""
    code = main(
        [
            "run",
            "adassp",
            "--noise-multiplier",
            "0.5",
            "--synthetic",
            "80,3",
            "--trials",
            "20000",
            "--search",
            "32",
            "--no-reproduce",
            "--json",
            "-",
            "--report",
            "none",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1, captured.err
    doc = json.loads(captured.out)
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"]}
    assert verdicts["dp-forward"] == verdicts["dp-reverse"] == "fail"


def test_broken_ops_fails(tmp_path):
    """OPS with γ 100 times its calibration (noise std / 10): the DP claim and the attack fail."""
    code, doc = run_json(
        tmp_path,
        "ops",
        "--noise-multiplier",
        "0.1",
        "--synthetic",
        "80,3",
        "--trials",
        "20000",
        "--search",
        "32",
        "--no-reproduce",
    )
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"]}
    assert code == 1 and verdicts["dp-forward"] == verdicts["lr-attack"] == "fail"


def test_printed_claims_fail_with_monte_carlo_evidence(tmp_path):
    """OPS: Theorem 4.1 (4.3)/(4.4) and Remark 4.2 fail (finding F3/F4), each with a sampled interval above δ;
    Prop. 4.3(3)/(4) fail by Monte Carlo (F6, F7)."""
    code, doc = run_json(tmp_path, "ops", *SMALL, "--paper-claims")
    checks = {c["id"]: c for c in doc["paper_findings"]}
    assert code == 0 and all(c["role"] == "paper" for c in doc["paper_findings"])  # findings never fail the run
    for cid in ("thm41-4.3", "thm41-4.4", "remark42", "prop43-mse", "prop43-gap"):
        assert checks[cid]["verdict"] == "fail", cid
    for cid in ("thm41-4.3", "thm41-4.4", "remark42"):
        assert checks[cid]["ci"][0] > doc["parameters"]["delta"]
        assert checks[cid]["details"]["violations"] > 0 and checks[cid]["pvalue"] is not None
    assert checks["prop43-dp"]["verdict"] == "pass"


def test_output_perturbation_identities(tmp_path):
    """Lemma 2.4 fails (F5), (3.4) line 1 fails and line 2 holds (F2), Lemma 3.1's second identity fails (F1)."""
    _, doc = run_json(tmp_path, "output-perturbation", *SMALL, "--paper-claims")
    verdicts = {c["id"]: c["verdict"] for c in doc["paper_findings"]}
    assert verdicts["lemma24"] == "fail"
    assert verdicts["eq34-line1"] == "fail" and verdicts["eq34-line2"] == "pass"
    assert verdicts["lemma31"] == "fail"


def test_adaops_q5_and_printed_flag(tmp_path):
    """[PDP] Algorithm 1's printed min is reported as unrunnable/unregularised; --printed deploys it, so Q5 is a
    guarantee and fails the run."""
    code, doc = run_json(tmp_path, "adaops", "--algorithm", "pdp", "--printed", *SMALL)
    checks = {c["id"]: c for c in doc["checks"]}
    assert code == 1 and checks["alg1-q5"]["role"] == "guarantee"
    assert checks["alg1-q5"]["verdict"] == "fail" and "cannot run" in checks["alg1-q5"]["note"]
    assert doc["parameters"]["printed"] is True
    assert {"dp-conditional-forward", "dp-conditional-reverse"} <= checks.keys()


def test_same_seed_same_json(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    for path in (a, b):
        main(["run", "ssp", *SMALL, "--report", "none", "--json", str(path), "--quiet"])
    assert a.read_bytes() == b.read_bytes()


# --- bad inputs: exit 2, one line ---------------------------------------------------------------


def _csv(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "make_args,needle",
    [
        (
            lambda p: [
                "--data",
                _csv(p / "nan.csv", "a,b,y\n1,2,3\n4,nan,6\n7,8,9\n1,1,1\n2,2,2\n"),
                "--target-column",
                "y",
            ],
            "non-finite",
        ),
        (
            lambda p: [
                "--data",
                _csv(p / "ok.csv", "a,b,y\n1,2,3\n4,5,6\n7,8,9\n1,1,1\n2,2,2\n"),
                "--target-column",
                "nope",
            ],
            "--target-column",
        ),
        (lambda p: ["--synthetic", "80x3"], "--synthetic"),
        (lambda p: ["--synthetic", "80"], "--synthetic"),
        (lambda p: ["--synthetic", "3,5"], "--synthetic"),
        (lambda p: ["--claim-epsilon", "0"], "--claim-epsilon"),
        (lambda p: ["--claim-epsilon", "-1"], "--claim-epsilon"),
        (lambda p: ["--data", _csv(p / "ok2.csv", "a,y\n1,2\n3,4\n5,6\n")], "--target-column"),
        (lambda p: ["--dataset", "longley", "--synthetic", "80,3"], "give one of --dataset and --synthetic, not both"),
        (lambda p: ["--noise-multiplier", "0"], "--noise-multiplier"),
    ],
)
def test_bad_inputs_exit_2_with_one_line(make_args, needle, tmp_path, capsys):
    for mechanism in ("ops", "adassp"):
        code = main(["run", mechanism, *make_args(tmp_path), "--trials", "2000", "--report", "none", "--quiet"])
        err = capsys.readouterr().err.strip()
        assert code == 2
        assert len(err.splitlines()) == 1 and needle in err, err


# --- the benchmark subcommand --------------------------------------------------------------------


def test_benchmark_on_a_tiny_user_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + 0.1 * rng.standard_normal(40)
    rows = "\n".join(",".join(f"{v:.6f}" for v in (*x, t)) for x, t in zip(X, y))
    csv = _csv(tmp_path / "tiny.csv", "a,b,c,y\n" + rows + "\n")
    pdf, out = tmp_path / "bench.pdf", tmp_path / "bench.json"
    code = main(
        [
            "benchmark",
            "linreg",
            "--datasets",
            "none",
            "--data",
            csv,
            "--target-column",
            "y",
            "--folds",
            "3",
            "--draws",
            "2",
            "--report",
            str(pdf),
            "--json",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "linreg" and len(doc["datasets"]) == 1
    ds = doc["datasets"][0]
    assert ds["n"] == 40 and ds["d"] == 3 and ds["folds"] == 3
    for eps in ("0.1", "1"):
        assert set(ds["results"][eps]) == {"Trivial", "non-private", "OPS", "SSP", "AdaOPS", "AdaSSP"}
        for entry in ds["results"][eps].values():
            assert np.isfinite(entry["mean"]) and len(entry["folds"]) == 3
    np_mse = ds["results"]["1"]["non-private"]["mean"]
    assert np_mse < ds["results"]["1"]["Trivial"]["mean"]  # the signal is real
    assert pdf.read_bytes().startswith(b"%PDF")


def test_benchmark_bad_input(capsys):
    assert main(["benchmark", "linreg", "--datasets", "nope", "--report", "none"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# --- the exact profiles the audits rest on --------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return L.example_data(np.random.default_rng(7), 50, 3)


def test_ops_profile_matches_mechanisms(data):
    """Vectorised OPS δ and ε equal mechanisms.linreg.bounds.ops_exact_delta/ops_exact_epsilon (add and remove)."""
    X, y = data
    gamma, lam = 5.0, 0.5
    q = P.loo_batch(X, y).at(np.full(len(y), lam))
    xs = np.vstack([np.eye(3), np.ones((1, 3)) / np.sqrt(3)])
    qa = P.RidgeBatch(X, y, xs, np.array([1.0, -1.0, 1.0, -1.0]), "add").at(np.full(4, lam))
    for eps in (0.0, 0.5, 2.0):
        fwd, rev = P.ops_delta(eps, q["mu"], q["r"], gamma, "remove")
        for i in (0, 11, 42):
            nb = L.Neighbours.remove(X, y, i)
            z_w, w_z = B.ops_exact_delta(nb.X, nb.y, nb.x, nb.yz, gamma, lam, eps)
            np.testing.assert_allclose([fwd[i], rev[i]], [w_z, z_w], atol=1e-13)
        fa, ra = P.ops_delta(eps, qa["mu"], qa["r"], gamma, "add")
        for j, yz in enumerate((1.0, -1.0, 1.0, -1.0)):
            np.testing.assert_allclose([fa[j], ra[j]], B.ops_exact_delta(X, y, xs[j], yz, gamma, lam, eps), atol=1e-13)
    eps = P.ops_epsilon(1e-5, qa["mu"], qa["r"], gamma)
    want = [B.ops_exact_epsilon(X, y, xs[j], yz, gamma, lam, 1e-5) for j, yz in enumerate((1.0, -1.0, 1.0, -1.0))]
    np.testing.assert_allclose(eps, want, rtol=1e-9)
    np.testing.assert_allclose(
        G.whitened_epsilon(1e-5, [0.1, 1.0, 3.0]),
        [G.analytic_epsilon(1e-5, 1.0, s) for s in (0.1, 1.0, 3.0)],
        rtol=1e-10,
    )


def test_ridge_batch_shift_and_norms(data):
    X, y = data
    lam = 1.5
    q = P.loo_batch(X, y).at(np.full(len(y), lam))
    for i in (3, 30):
        nb = L.Neighbours.remove(X, y, i)
        pair = L.OutputPerturbationPair(nb, 1.0, np.eye(3), lam=lam)
        assert q["shift"][i] == pytest.approx(pair.sensitivity_A(), rel=1e-10)
        assert q["norm_z"][i] == pytest.approx(np.linalg.norm(L.ridge(nb.X, nb.y, lam)), rel=1e-10)
        assert q["norm_w"][i] == pytest.approx(np.linalg.norm(L.ridge(X, y, lam)), rel=1e-10)


@pytest.mark.parametrize("variant", ["lr", "pdp"])
def test_adaops_conditional_estimator_matches_sampling(data, variant):
    """Conditional δ(ε) vs plain Monte Carlo of the pair, both means of [0, 1] variables: Hoeffding radius
    √(log(4/1e-6)/(2N)) each, N = 100000 (false alarm ≤ 1e-6 per comparison)."""
    X, y = data
    for nb, batch in (
        (
            L.Neighbours.add(X, y, np.array([1.0, 0, 0]), -1.0),
            P.RidgeBatch(X, y, np.array([[1.0, 0, 0]]), np.array([-1.0]), "add"),
        ),
        (L.Neighbours.remove(X, y, 7), P.RidgeBatch(X, y, X[7:8], y[7:8], "remove")),
    ):
        pair = (
            A.LRAdaOPSPair(nb, 4.0, 1e-3)
            if variant == "lr"
            else A.PDPAdaOPSPair(nb, 4.0, 1e-3, A.prop44_kappa_max(49, 3, 4.0, 1e-3), n_public=50)
        )
        N = 100_000
        cond = P.AdaOPSConditional(pair, batch, N, np.random.default_rng(1))
        radius = 2 * np.sqrt(np.log(4 / 1e-6) / (2 * N))
        ld = pair.privacy_loss(pair.sample("D", N, np.random.default_rng(2)))
        lp = -pair.privacy_loss(pair.sample("D'", N, np.random.default_rng(3)))
        for eps in (0.0, 0.3):
            fwd, rev = cond.delta(eps)
            assert abs(fwd[0] - np.mean(np.maximum(0, 1 - np.exp(eps - ld)))) < radius
            assert abs(rev[0] - np.mean(np.maximum(0, 1 - np.exp(eps - lp)))) < radius


def test_noise_views_reproduce_the_exact_profile(data):
    """Importance sampling through the views brackets the exact δ (OPS: lower bound; SSP: certified interval)."""
    X, y = data
    nb = L.Neighbours.add(X, y, np.array([1.0, 0, 0]), -1.0)
    ops = L.OPSPair(nb, 30.0, 0.5)
    mu, r = B.leverages(X, nb.x, 0.5)[0], B.ops_residuals(X, y, nb.x, -1.0, 0.5)[0]
    exact = float(P.ops_delta(1.0, np.array([mu]), np.array([r]), 30.0, "add")[0][0])
    tail = rare.rare_tail(view_of(ops), 1.0, "D||D'", 100_000, 0)
    assert tail.lower_bound(1e-6) <= exact <= tail.estimate * 1.2
    ssp = A.SSPPair(nb, 1.0, 1e-5)
    view = view_of(ssp)
    s = view.whitened_sensitivity()
    tail = rare.rare_tail(view, 1.0, "D||D'", 100_000, 0)
    lo, hi = tail.interval(1e-6)
    assert tail.certified and lo <= float(G.whitened_delta(1.0, s)) <= hi


# --- default-size audits on the bundled data (slow) ------------------------------------------------


@pytest.mark.slow
def test_default_ops_audit_reproduces_the_findings(tmp_path):
    code, doc = run_json(tmp_path, "ops", "--no-reproduce", "--paper-claims")
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"] + doc["paper_findings"]}
    assert code == 0  # the printed statements are findings: they never fail the run
    assert verdicts["dp-forward"] == verdicts["dp-reverse"] == "pass"
    for cid in ("thm41-4.3", "thm41-4.4", "remark42", "prop43-pdp", "prop43-mse", "prop43-gap"):
        assert verdicts[cid] == "fail", cid


@pytest.mark.slow
@pytest.mark.parametrize("epsilon,expect", [("1", "fail"), ("0.1", "pass")])
def test_stage_budgets_finding_f8(epsilon, expect, tmp_path):
    """Per-release budgets of SSP at δ = 1e-6: exceeded at ε = 1, respected at ε = 0.1 (finding F8)."""
    _, doc = run_json(
        tmp_path, "ssp", "--claim-epsilon", epsilon, "--claim-delta", "1e-6", "--search", "32", "--paper-claims"
    )
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"] + doc["paper_findings"]}
    assert verdicts["stage-ssp-xtx"] == verdicts["stage-ssp-xy"] == expect
    assert verdicts["dp-forward"] == "pass"


@pytest.mark.slow
def test_workers_do_not_change_results(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, workers in ((a, "1"), (b, "2")):
        main(
            [
                "run",
                "adassp",
                "--trials",
                "200000",
                "--search",
                "32",
                "--no-reproduce",
                "--workers",
                workers,
                "--report",
                "none",
                "--json",
                str(path),
                "--quiet",
            ]
        )
    assert a.read_bytes() == b.read_bytes()


def test_search_candidates_name_their_base_data_set_in_words():
    """A session report's note read "worst: add x = v_min + θ̂ direction, y = -1 to aligned": "aligned" is one of the
    search's base data sets, named in the note as "n rows aligned with e₁"."""
    from pdp_audit.audits.linreg.context import candidates, make_bases

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = [t.label for t in candidates(make_bases(X, np.clip(X[:, 0], -1, 1), 10.0), 1.0, 200)]
    assert any(label.endswith(" to the aligned copy") for label in labels)
    assert any(label.endswith(" to the singular copy") for label in labels)
    assert not any(label.endswith((" to aligned", " to singular", " to data")) for label in labels)
