"""Certification of ``objpert`` and ``privacy-report``: roles, deployed printed forms, deflated noise, profiles.

* Roles: paper statements (Theorem 9's printed GLM form, Figure 1, Theorem 5's undeployed reading, Q25, Q28, τ = 12,
  Proposition 15's second statement, ...) are findings: computed only with ``--paper-claims`` and never in the exit
  code; a printed form the options deploy (``--calibration printed``, ``--gradient-bound printed``) is a guarantee.
* Each audit passes with correct noise and fails (exit 1, a DP guarantee) with its noise deflated.
* Every DP check carries its privacy profile δ(ε) (a :class:`pdp_audit.reports.records.Lines` figure).
* The squared loss has an exact δ(ε) (the release is Gaussian given the data), checked against Monte Carlo.

Statistical verdicts come from fixed seeds at family-wise false alarm 1e-6; budgets are small but decide.
"""

import json

import numpy as np
import pytest

from pdp_audit.audits.objpert.context import ObjPertAuditConfig, synthetic_data
from pdp_audit.audits.objpert.evidence import run_objpert_audit
from pdp_audit.audits.privacy_report.evidence import PrivacyReportAuditConfig, run_privacy_report_audit
from pdp_audit.cli.main import main
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.objpert.certificate import squared_loss_profile
from pdp_audit.reports.records import Lines

OBJ_SMALL = ["--trials", "2000", "--search-trials", "400", "--report", "none", "--quiet"]
PR_SMALL = ["--n", "200", "--d", "5", "--repetitions", "2000", "--trials", "20000", "--report", "none", "--quiet"]
SIGMA_VARIANCE = op.theorem5_sigma(1.0, 1e-5, 1.0, "variance")


def cli(tmp_path, audit, *args, name="out.json"):
    path = tmp_path / name
    code = main(["run", audit, *args, "--json", str(path)])
    return code, json.loads(path.read_text())


def ids(entries) -> dict:
    return {c["id"]: c for c in entries or ()}


# ------------------------------------------------------------------------------------------------
# objpert
# ------------------------------------------------------------------------------------------------
@pytest.mark.slow  # the same rule for every family: tests/test_certify_gaussian.py; objpert's run: test_objpert_audit
def test_objpert_default_passes_and_paper_findings_do_not_change_the_exit_code(tmp_path):
    code, doc = cli(tmp_path, "objpert", *OBJ_SMALL)
    assert code == 0 and doc["verdict"] == "pass", [(c["id"], c["verdict"]) for c in doc["checks"]]
    assert doc["paper_findings"] is None
    guarantees = ids(doc["checks"])
    assert {"thm5-variance-dp-forward", "thm5-variance-dp-reverse", "thm9-glm-derived", "k19-lambda"} <= set(guarantees)
    assert not any(k.startswith(("thm5-printed", "k17", "thm9-glm-printed")) for k in guarantees)
    code_p, doc_p = cli(tmp_path, "objpert", *OBJ_SMALL, "--paper-claims", name="paper.json")
    findings = ids(doc_p["paper_findings"])
    assert findings["thm9-glm-printed"]["verdict"] == "fail" and findings["thm9-glm-printed"]["role"] == "paper"
    assert {"k17-boundary", "thm5-printed-dp-forward"} <= set(findings)
    assert code_p == 0 and doc_p["verdict"] == "pass"
    assert any(p["title"].startswith("[RW] Figure 1") for p in doc_p["pages"])
    assert not any(p["title"].startswith("[RW] Figure 1") for p in doc["pages"])


@pytest.mark.slow  # the deployed-form rule of every family: tests/test_certify_gaussian.py (--calibration classical)
def test_objpert_deployed_printed_calibration_is_a_guarantee(tmp_path):
    """Pseudo-Huber κ = 0.01: the printed σ (ξ² scaling) is 10x too small; deployed, its DP failure is the verdict."""
    args = [*OBJ_SMALL, "--loss", "huber", "--huber-kappa", "0.01"]
    code, doc = cli(tmp_path, "objpert", *args, "--calibration", "printed")
    checks = ids(doc["checks"])
    assert code == 1 and checks["thm5-printed-dp-forward"]["verdict"] == "fail"
    assert "deployed: --calibration printed" in checks["thm5-printed-dp-forward"]["source"]
    code, doc = cli(tmp_path, "objpert", *args, "--paper-claims", name="variance.json")
    assert code == 0 and ids(doc["paper_findings"])["thm5-printed-dp-forward"]["verdict"] == "fail"


def test_objpert_deflated_sigma_fails(tmp_path):
    """σ/20 of Theorem 5's variance reading (which has more than 2x slack): at 2000 releases per world the tails at
    the worst neighbour refute (1, 1e-5)-DP."""
    code, doc = cli(tmp_path, "objpert", *OBJ_SMALL, "--sigma", f"{SIGMA_VARIANCE / 20:.6g}")
    checks = ids(doc["checks"])
    assert code == 1 and checks["dp-forward"]["verdict"] == "fail", checks["dp-forward"]["note"]


@pytest.mark.tier2
def test_objpert_dp_checks_carry_privacy_profiles():
    run = run_objpert_audit(ObjPertAuditConfig(trials=2000, search_trials=400))
    for check in run.checks:
        if "dp-" in check.id:
            fig = check.figure
            assert isinstance(fig, Lines) and fig.logy
            labels = " ".join(line.label for line in fig.series)
            assert "plain Monte Carlo" in labels and "claim" in labels and "certified bound" in labels


def test_squared_loss_exact_profile_matches_monte_carlo():
    """The exact δ(ε) of the squared loss against E_P[(1 − e^{ε−L})₊] from 2e5 releases: summands in [0, 1], so
    Hoeffding's interval at 1e-7 per comparison bounds the error."""
    X, y, _ = synthetic_data(40, 2, "squared")
    loss = op.get_loss("squared")
    n = 200_000
    radius = np.sqrt(np.log(2 / 1e-7) / (2 * n))
    for relation, x, yz in (("add", np.array([0.6, 0.8]), -1.0), ("remove", X[3], y[3])):
        prof = squared_loss_profile(X, y, x, yz, relation, 4.0, 3.0)
        pair = op.ObjPertPair(X, y, x, yz, relation=relation, mechanism=op.ObjPertMechanism(4.0, 3.0, loss))
        L_d = pair.privacy_loss(pair.sample("D", n, np.random.default_rng(1)))
        L_dp = pair.privacy_loss(pair.sample("D'", n, np.random.default_rng(2)))
        for eps in (0.0, 0.1, 0.3):
            fwd = np.mean(np.clip(1 - np.exp(eps - L_d), 0, None))
            rev = np.mean(np.clip(1 - np.exp(eps + L_dp), 0, None))
            assert abs(prof.delta(eps, "D||D'") - fwd) <= radius and abs(prof.delta(eps, "D'||D") - rev) <= radius


@pytest.mark.tier2
def test_squared_loss_dp_passes_on_its_exact_profile(tmp_path):
    code, doc = cli(tmp_path, "objpert", *OBJ_SMALL, "--loss", "squared", "--theta-radius", "1")
    checks = ids(doc["checks"])
    assert code == 0, [(c["id"], c["verdict"], c["note"][:200]) for c in doc["checks"] if c["verdict"] != "pass"]
    assert "Exact privacy profile" in checks["thm5-variance-dp-forward"]["note"]


# ------------------------------------------------------------------------------------------------
# privacy-report
# ------------------------------------------------------------------------------------------------
@pytest.mark.tier2
@pytest.mark.parametrize(
    "mode", ["independent", *(pytest.param(m, marks=pytest.mark.slow) for m in ("dependent", "adaptive"))]
)
def test_privacy_report_default_options_pass(tmp_path, mode):
    code, doc = cli(tmp_path, "privacy-report", *PR_SMALL, "--mode", mode)
    assert code == 0, [(c["id"], c["verdict"]) for c in doc["checks"] if c["verdict"] != "pass"]
    assert doc["paper_findings"] is None and all(c["role"] == "guarantee" for c in doc["checks"])


@pytest.mark.tier2
def test_privacy_report_paper_findings_and_deployed_gradient_bound():
    cfg = dict(mode="dependent", n=200, d=5, repetitions=2000, trials=20000, figures=False, seed=3)
    run = run_privacy_report_audit(PrivacyReportAuditConfig(**cfg, paper_claims=True))
    findings = {c.id: c for c in run.findings}
    assert findings["q25-printed-gradient"].verdict == "fail" and run.exit_code == 0
    assert {"lemma20-printed-tau", "prop15-l1", "prop15-algorithm2", "cor16", "q2-printed-dp"} <= set(findings)
    deployed = run_privacy_report_audit(PrivacyReportAuditConfig(**cfg, gradient_bound="printed"))
    q25 = next(c for c in deployed.checks if c.id == "q25-printed-gradient")
    assert q25.role == "guarantee" and q25.verdict == "fail" and deployed.exit_code == 1


@pytest.mark.tier2(representatives=("args2-objpert-dp-forward",))
@pytest.mark.parametrize(
    "args,failing",
    [
        (["--mode", "dependent", "--noise-scale2", "0.5"], "thm10-dp-forward"),
        pytest.param(["--mode", "dependent", "--noise-scale3", "0.05"], "thm10-dp-forward", marks=pytest.mark.slow),
        (["--mode", "independent", "--sigma", "0.5"], "objpert-dp-forward"),
        pytest.param(["--mode", "adaptive", "--noise-scale2", "0.5"], "thm10-dp-forward", marks=pytest.mark.slow),
        (["--mode", "adaptive", "--sigma4", "1"], "thm11-dp-forward"),
    ],
)
def test_privacy_report_deflated_noise_fails(tmp_path, args, failing):
    code, doc = cli(tmp_path, "privacy-report", *PR_SMALL, *args)
    assert code == 1 and ids(doc["checks"])[failing]["verdict"] == "fail"


@pytest.mark.tier2
def test_privacy_report_dp_checks_carry_privacy_profiles():
    run = run_privacy_report_audit(
        PrivacyReportAuditConfig(mode="dependent", n=200, d=5, repetitions=500, trials=20000, figures=False)
    )
    for check in run.checks:
        if check.id.startswith(("thm10-dp", "thm10-pdp", "thm14-pdp")):
            assert check.figure is not None and check.figure.epsilon_claim > 0


@pytest.mark.slow
@pytest.mark.parametrize("args", [["objpert"], ["privacy-report"], ["privacy-report", "--mode", "independent"]])
def test_full_default_runs_pass(tmp_path, args):
    code, doc = cli(tmp_path, args[0], *args[1:], "--report", "none", "--quiet")
    assert code == 0 and doc["verdict"] == "pass"
