"""Certification of ``run gaussian`` and ``run goe-release``: roles, deployed printed forms, privacy profiles.

* A failing paper finding never changes the exit code or any guarantee (each role is its own family);
  a printed form that the configuration deploys (``--calibration classical``, ``--tau-reading unit-goe``) is
  a guarantee and does.
* Defaults pass; noise deflated below the calibration fails (``--sigma 3`` for the Gaussian mechanism,
  whose analytic σ at (1, 1e-5) is 3.73; ``--sigma3 2`` for Algorithm 6, whose exact σ₃ is 2.64).
* Every DP check carries the privacy profile of its pair: exact, plain and importance-sampled δ(ε).

Every statistical verdict comes from a run at family-wise false alarm 1e-6 with a fixed seed; expected
values come from the closed forms of :mod:`pdp_audit.mechanisms.gaussian`, never from a previous run.  Small budgets
decide because δ·trials < 30 sends every DP check to importance sampling, whose interval does not widen as δ
shrinks.
"""

import json
import math

import numpy as np
import pytest

from pdp_audit.audits.gaussian.checks import CHECKS as GAUSSIAN_CHECKS
from pdp_audit.audits.gaussian.evidence import GaussianAuditConfig, run_gaussian_audit
from pdp_audit.audits.goe.checks import CHECKS as GOE_CHECKS
from pdp_audit.audits.goe.evidence import GoeAuditConfig, run_goe_audit
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.reports.records import TailCurves
from pdp_audit.sweeps import audits as sweep_audits

GAUSSIAN_SMALL = ["--trials", "20000", "--seed", "4"]
GOE_SMALL = ["--trials", "20000", "--matrices", "1000", "--d", "10", "--seed", "4"]
GAUSSIAN_DP = ("dp-forward", "dp-reverse", "cor23-pdp", "pdp-median-individual")
GOE_DP = ("goe-dp-forward", "goe-dp-reverse", "ag-dp-forward", "ag-dp-reverse", "thm17-pdp")


def run(tmp_path, audit: str, *args: str) -> tuple[int, dict]:
    path = tmp_path / f"{audit}-{len(list(tmp_path.iterdir()))}.json"
    code = main(["run", audit, *args, "--quiet", "--report", "none", "--json", str(path)])
    return code, json.loads(path.read_text())


def verdicts(checks) -> dict[str, str]:
    return {c["id"]: c["verdict"] for c in checks or ()}


# --- roles ---------------------------------------------------------------------------------------------
def test_roles_are_declared():
    paper = {cid for cid, spec in GAUSSIAN_CHECKS.items() if spec.role == "paper"}
    assert paper == {"classical-epsilon", "classical-calibration", "example4"}
    paper = {cid for cid, spec in GOE_CHECKS.items() if spec.role == "paper"}
    assert paper == {"k16-as-printed", "k16-unit-goe", "k15-factor-two"}


def test_gaussian_failing_finding_leaves_the_exit_code_and_the_guarantees(tmp_path):
    # At ε = 10 the classical σ = √(2 log(1.25/δ))/ε misses the claim: exact δ(10) > 1e-5 (Dwork & Roth prove ε < 1).
    sigma_c = g.classical_sigma(10.0, 1e-5)
    assert g.analytic_delta(10.0, sigma_c) > 2e-5
    args = [*GAUSSIAN_SMALL, "--claim-epsilon", "10"]
    code, doc = run(tmp_path, "gaussian", *args)
    code_p, doc_p = run(tmp_path, "gaussian", *args, "--paper-claims")
    assert code == code_p == 0 and doc["verdict"] == doc_p["verdict"] == "pass"
    assert doc["paper_findings"] is None
    findings = verdicts(doc_p["paper_findings"])
    assert findings == {"classical-epsilon": "pass", "classical-calibration": "fail", "example4": "pass"}
    assert doc_p["checks"] == doc["checks"]  # the guarantees' family, verdicts and intervals are untouched


def test_gaussian_deployed_classical_calibration_is_a_guarantee(tmp_path):
    code, doc = run(tmp_path, "gaussian", *GAUSSIAN_SMALL, "--claim-epsilon", "10", "--calibration", "classical")
    assert code == 1 and doc["verdict"] == "fail"
    checks = {c["id"]: c for c in doc["checks"]}
    assert checks["classical-calibration"]["verdict"] == "fail"
    assert "deployed: --calibration classical" in checks["classical-calibration"]["source"]
    assert checks["dp-forward"]["verdict"] == checks["dp-reverse"]["verdict"] == "fail"
    assert doc["parameters"]["sigma"] == pytest.approx(g.classical_sigma(10.0, 1e-5), rel=1e-12)


def test_goe_failing_finding_leaves_the_exit_code(tmp_path):
    code, doc = run(tmp_path, "goe-release", *GOE_SMALL, "--paper-claims")
    assert code == 0 and doc["verdict"] == "pass"
    findings = verdicts(doc["paper_findings"])
    assert findings == {"k16-as-printed": "fail", "k16-unit-goe": "pass", "k15-factor-two": "pass"}
    assert not set(findings) & set(verdicts(doc["checks"]))
    assert [p["role"] for p in doc["pages"]] == ["guarantee", "guarantee", "paper"]


def test_goe_deployed_unit_goe_tau_is_a_guarantee(tmp_path):
    code, doc = run(tmp_path, "goe-release", *GOE_SMALL, "--tau-reading", "unit-goe")
    assert code == 1 and doc["verdict"] == "fail"
    checks = {c["id"]: c for c in doc["checks"]}
    assert checks["k16-as-printed"]["verdict"] == checks["lemma20-coverage"]["verdict"] == "fail"
    assert "deployed: --tau-reading unit-goe" in checks["k16-as-printed"]["source"]
    assert doc["paper_findings"] is None
    assert doc["parameters"]["tau"] == pytest.approx(
        run_tau_unit(doc["parameters"]["d"], doc["parameters"]["rho"]), rel=1e-12
    )


def run_tau_unit(d: int, rho: float) -> float:
    from pdp_audit.mechanisms import goe

    return goe.unit_tau(d, rho).tau / math.sqrt(2)


# --- pass at the calibration, fail below it ------------------------------------------------------------
def test_gaussian_default_passes_and_deflated_sigma_fails(tmp_path):
    code, doc = run(tmp_path, "gaussian", *GAUSSIAN_SMALL)
    assert code == 0 and doc["verdict"] == "pass"
    assert g.analytic_delta(1.0, 3.0) > 10 * 1e-5  # σ = 3 < 3.73: the claim is false
    code, doc = run(tmp_path, "gaussian", *GAUSSIAN_SMALL, "--sigma", "3")
    assert code == 1 and doc["verdict"] == "fail"
    assert verdicts(doc["checks"])["dp-forward"] == verdicts(doc["checks"])["dp-reverse"] == "fail"


@pytest.mark.tier2
def test_goe_default_passes_and_deflated_sigma3_fails(tmp_path):
    code, doc = run(tmp_path, "goe-release", *GOE_SMALL)
    assert code == 0 and doc["verdict"] == "pass"
    eta = 1 / (math.sqrt(2) * 2.0)  # ‖H_x‖_F = β = 1 at σ₃ = 2
    assert g.analytic_delta(1.0, 1.0, eta) > 10 * 1e-5
    code, doc = run(tmp_path, "goe-release", *GOE_SMALL, "--sigma3", "2")
    assert code == 1 and doc["verdict"] == "fail"
    v = verdicts(doc["checks"])
    assert v["goe-dp-forward"] == v["goe-dp-reverse"] == "fail"
    assert "fail" not in {v["ag-dp-forward"], v["ag-dp-reverse"], v["thm17-pdp"]}


# --- privacy profiles ----------------------------------------------------------------------------------
def assert_profile(check, epsilon_claim: float):
    figure = check.figure
    assert isinstance(figure, TailCurves), check.id
    assert figure.epsilon_claim == epsilon_claim and figure.delta_claim == check.details["delta_claim"]
    eps = np.asarray(figure.epsilons)
    at = int(np.flatnonzero(eps == epsilon_claim)[0])
    plain, sampled = figure.curves.values()
    names = list(figure.curves)
    assert "plain" in names[0] and "importance sampling" in names[1], names
    for curve in (plain, sampled):
        assert np.all(np.isfinite(curve.exact)) and curve.exact[at] == pytest.approx(check.exact, rel=1e-12)
    # the importance-sampled points cover every ε > 0 and bracket the exact curve (simultaneous at 1 − α)
    positive = eps > 0
    est, lo, hi = (np.asarray(v) for v in (sampled.estimate, sampled.lo, sampled.hi))
    assert np.all(np.isfinite(est[positive])) and np.all(np.isnan(est[~positive]))
    assert np.all(lo[positive] <= sampled.exact[positive]) and np.all(sampled.exact[positive] <= hi[positive])
    # at the claimed ε the panel shows the estimate and interval the verdict rests on
    assert check.details["sampling"] == "importance"
    assert est[at] == check.estimate and (lo[at], hi[at]) == tuple(check.ci)


@pytest.fixture(scope="module")
def gaussian_run():
    return run_gaussian_audit(GaussianAuditConfig(trials=20000, seed=5))


def test_gaussian_dp_checks_carry_their_privacy_profile(gaussian_run):
    checks = {c.id: c for c in gaussian_run.checks}
    assert gaussian_run.findings is None and not {"example4", "classical-epsilon"} & set(checks)
    for cid in GAUSSIAN_DP:
        assert_profile(checks[cid], checks[cid].details["epsilon"])


@pytest.mark.tier2
def test_goe_dp_checks_carry_their_privacy_profile():
    goe_run = run_goe_audit(GoeAuditConfig(trials=20000, matrices=1000, d=10, seed=5))
    checks = {c.id: c for c in goe_run.checks}
    assert goe_run.findings is None and goe_run.verdict == "pass"
    for cid in GOE_DP:
        assert_profile(checks[cid], checks[cid].details["epsilon"])


# --- sweeps select paper checks by id -------------------------------------------------------------------
def test_a_sweep_cell_computes_the_paper_checks_it_selects():
    parameters = {"trials": 5000}
    result = sweep_audits.cell("gaussian", parameters, seed=1, alpha=1e-6, checks=("theorem22", "example4"))
    roles = {c["id"]: c["role"] for c in result["checks"]}
    assert roles == {"theorem22": "guarantee", "example4": "paper"}
    assert result["verdict"] == "pass"


# --- the full defaults ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("audit,deflation", [("gaussian", ["--sigma", "3"]), ("goe-release", ["--sigma3", "2"])])
def test_full_defaults_pass_and_deflated_noise_fails(audit, deflation, tmp_path):
    code, doc = run(tmp_path, audit)
    assert code == 0 and doc["verdict"] == "pass", [c["id"] for c in doc["checks"] if c["verdict"] != "pass"]
    code, doc = run(tmp_path, audit, *deflation)
    assert code == 1 and doc["verdict"] == "fail"


@pytest.mark.slow
def test_goe_same_seed_same_bytes_whatever_the_workers(tmp_path):
    common = ["run", "goe-release", "--trials", "5000", "--matrices", "1000", "--d", "5", "--paper-claims", "--quiet"]
    for workers in ("1", "2"):
        main(
            [
                *common,
                "--workers",
                workers,
                "--report",
                str(tmp_path / f"{workers}.pdf"),
                "--json",
                str(tmp_path / f"{workers}.json"),
            ]
        )
    assert (tmp_path / "1.json").read_bytes() == (tmp_path / "2.json").read_bytes()
    assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
