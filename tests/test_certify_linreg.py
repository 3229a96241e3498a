"""The linear-regression audits as certificates: guarantees decide the exit code, paper statements are findings.

* role separation: every printed statement is a ``paper`` check (a failing one never changes the exit
  code, and it is computed only with ``--paper-claims``); a printed form the configuration deploys
  (``adaops --algorithm pdp --printed``) is a guarantee and fails the run;
* each audit passes with its calibrated noise and fails (a DP guarantee) with its noise deflated by
  ``--noise-multiplier``, at small budgets that still decide; the full defaults are ``slow``;
* the AdaOPS certificate (conditional Monte Carlo with the last stage exact, :func:`pdp_audit.audits.linreg.profiles.
  conditional_profile`) against an independent computation: numerical quadrature of the same conditional
  integral over the one released scalar of [PDP] Algorithm 1 (scipy), and plain sampling of the joint release
  where plain sampling resolves δ;
* every DP check carries the privacy profile δ(ε) of the worst neighbour against the claim.

Statistical assertions use the runs' own family-wise level α = 1e-6 and fixed seeds.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from scipy import integrate, stats

from pdp_audit.audits.linreg import checks as C
from pdp_audit.audits.linreg import profiles as P
from pdp_audit.audits.linreg.context import LinregAuditConfig
from pdp_audit.audits.linreg.evidence import run_linreg_audit
from pdp_audit.cli.main import main
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.reports.numbers import round_up
from pdp_audit.reports.records import TailCurves
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.estimators.tails import both_directions

SMALL = ["--synthetic", "60,3", "--search", "16", "--no-reproduce"]
GUARANTEE_IDS = {"dp-forward", "dp-reverse", "lr-attack", "dp-conditional-forward", "dp-conditional-reverse"}
#: (audit, extra options, trials, δ claim) of the small runs: δ · trials large enough to decide, AdaOPS at a δ
#: its conditional certificate resolves with 16 × trials scalar draws.
CASES = {
    "output-perturbation": ([], 4000, "1e-5"),
    "ops": ([], 4000, "1e-5"),
    "adaops": ([], 20000, "1e-2"),
    "adaops-pdp": (["--algorithm", "pdp"], 20000, "1e-2"),
    "adassp": ([], 4000, "1e-5"),
    "ssp": ([], 4000, "1e-5"),
}
#: The deflation per audit: every noise standard deviation times M (γ of OPS/AdaOPS divided by M²).
DEFLATION = {
    "output-perturbation": "0.05",
    "ops": "0.05",
    "adaops": "0.05",
    "adaops-pdp": "0.05",
    "adassp": "0.05",
    "ssp": "0.05",
}


def run_json(tmp_path, *args) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["run", *args, "--report", "none", "--json", str(out), "--quiet"])
    return code, json.loads(out.read_text())


def _args(case: str, *extra: str) -> list[str]:
    options, trials, delta = CASES[case]
    return [case.removesuffix("-pdp"), *options, *SMALL, "--trials", str(trials), "--claim-delta", delta, *extra]


# --- roles --------------------------------------------------------------------------------------------


def test_every_printed_statement_is_a_paper_check():
    guarantees = {spec.id for spec in C.CHECKS.values() if spec.role == "guarantee"}
    assert guarantees == GUARANTEE_IDS | {"dp-conditional"}
    assert C.ALG1_Q5.deployed("--algorithm pdp --printed").role == "guarantee"


@pytest.mark.tier2(representatives=("output-perturbation",))
@pytest.mark.parametrize("case", ["output-perturbation", "ops"])
def test_failing_findings_do_not_change_the_exit_code(case, tmp_path):
    """With --paper-claims the printed statements are checked (some fail: F1–F7) and the run still exits 0; without
    it they are not computed (findings null)."""
    code, doc = run_json(tmp_path, *_args(case, "--paper-claims"))
    assert code == 0 and doc["verdict"] == "pass"
    findings = {c["id"]: c for c in doc["paper_findings"]}
    assert any(c["verdict"] == "fail" for c in findings.values())
    assert {c["id"] for c in doc["checks"]} == {"dp-forward", "dp-reverse", "lr-attack", "loss-consistency"}
    code_without, plain = run_json(tmp_path, *_args(case))
    assert code_without == 0 and plain["paper_findings"] is None
    assert [c["verdict"] for c in plain["checks"]] == [c["verdict"] for c in doc["checks"]]


@pytest.mark.tier2
def test_deployed_printed_form_fails_the_run(tmp_path):
    """adaops --algorithm pdp --printed deploys the printed min (Q5): alg1-q5 is then a guarantee, and it fails."""
    code, doc = run_json(tmp_path, *_args("adaops-pdp", "--printed"))
    checks = {c["id"]: c for c in doc["checks"]}
    assert checks["alg1-q5"]["role"] == "guarantee" and checks["alg1-q5"]["verdict"] == "fail"
    assert "deployed: --algorithm pdp --printed" in checks["alg1-q5"]["source"]
    assert code == 1 and doc["verdict"] == "fail"


@pytest.mark.tier2
def test_paper_pages_only_with_paper_claims():
    config = LinregAuditConfig("output-perturbation", trials=2000, synthetic=(60, 3), search=8)
    quiet = run_linreg_audit(config)
    assert quiet.findings is None and all(p.role == "guarantee" for p in quiet.pages)
    with_findings = run_linreg_audit(LinregAuditConfig(**{**config.__dict__, "paper_claims": True}))
    assert {"fig1-order-of-magnitude", "lemma24", "eq33"} <= {c.id for c in with_findings.findings}
    assert any(p.role == "paper" for p in with_findings.pages)
    assert [c.verdict for c in quiet.checks] == [c.verdict for c in with_findings.checks]


# --- calibrated passes, deflated fails ------------------------------------------------------------------


# AdaOPS's two cases in the slow run (7 s each); the zoo breaks AdaOPS in process
@pytest.mark.tier2(representatives=("output-perturbation",))
@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=pytest.mark.slow) if c.startswith("adaops") else c for c in sorted(CASES)]
)
def test_calibrated_passes_and_deflated_fails(case, tmp_path):
    code, doc = run_json(tmp_path, *_args(case))
    assert (code, doc["verdict"]) == (0, "pass"), [(c["id"], c["verdict"], c["note"][-200:]) for c in doc["checks"]]
    code, doc = run_json(tmp_path, *_args(case, "--noise-multiplier", DEFLATION[case]))
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"]}
    assert code == 1 and doc["verdict"] == "fail"
    assert "fail" in {verdicts[cid] for cid in verdicts if cid.startswith("dp-")}


@pytest.mark.tier2(representatives=("lr",))
@pytest.mark.parametrize("algorithm", ["lr", "pdp"])
def test_adaops_claim_rests_on_its_tighter_conditional_bound(algorithm, tmp_path):
    """Issue 70: AdaOPS's plain checks cannot resolve δ (no exceedance in `trials` draws still bounds δ(1) above the
    claim) while its conditional checks, in the same Bonferroni family, bound the same δ(1) below it: the claim is
    certified (exit 0) and the headline names the conditional bound -- before, "not decided; the evidence supports" the
    plain bound (exit 3).  The same defect as `run adaops` at the defaults (plain 1.63e-5 > 1e-5 ≥ 4.92e-6
    conditional), at a δ = 1e-3 that 6,000 draws a world and 16 × as many scalar draws reach in seconds."""
    code, doc = run_json(
        tmp_path, "adaops", "--algorithm", algorithm, *SMALL, "--trials", "6000", "--claim-delta", "1e-3"
    )
    checks = {c["id"]: c for c in doc["checks"]}
    plain = max(checks[i]["ci"][1] for i in ("dp-forward", "dp-reverse"))
    conditional = max(checks[i]["ci"][1] for i in ("dp-conditional-forward", "dp-conditional-reverse"))
    assert conditional <= 1e-3 < plain  # the case: only the conditional bound decides
    claim = doc["certified_claim"]
    assert (code, doc["verdict"], claim["basis"], claim["covers_claim"]) == (0, "pass", "sampling", True)
    assert claim["delta"] == round_up(conditional) <= 1e-3
    assert claim["headline"] == (
        f"(1, {round_up(conditional):.2g})-DP certified by dp-conditional-forward and dp-conditional-reverse"
    )


@pytest.mark.slow  # about 25 s a variant
@pytest.mark.parametrize("algorithm", ["lr", "pdp"])
def test_adaops_certifies_its_claim_at_the_defaults(algorithm, tmp_path):
    """`pdp-audit run adaops` (both algorithms) at the defaults certifies (1, 1e-5): turn 4's release did (exit 0);
    from the one-verdict headline (bfef00e) to issue 70 it was not decided, "the evidence supports (1, 1.7e-05)"."""
    code, doc = run_json(tmp_path, "adaops", "--algorithm", algorithm)
    claim = doc["certified_claim"]
    assert (code, doc["verdict"], claim["claimed_delta"], claim["covers_claim"]) == (0, "pass", 1e-5, True)
    assert claim["delta"] <= 1e-5 and "certified by dp-conditional-forward" in claim["headline"]


# --- the AdaOPS certificate against independent computations -------------------------------------------


def _data(seed: int = 3):
    """60 unit rows in d = 3, y clipped to [−1, 1]; the target x = e₁, y = 1 added (its batch and neighbours)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2]) + 0.1 * rng.standard_normal(60), -1, 1)
    x = np.array([1.0, 0.0, 0.0])
    return L.Neighbours.add(X, y, x, 1.0), P.RidgeBatch(X, y, x[None, :], np.array([1.0]), "add")


def _pdp_adaops_pair():
    nb, batch = _data()
    eps, delta = 1.0, 1e-2
    kappa = A.prop44_kappa_max(60, 3, eps, delta)
    return A.PDPAdaOPSPair(nb, eps, delta, kappa, n_public=60), batch


def test_conditional_profile_matches_quadrature():
    """[PDP] Algorithm 1 releases one scalar before OPS: δ(ε) = ∫ φ(ξ) δ_OPS(ε − L₁(ξ) | λ_n(ξ)) dξ, computed here
    by adaptive quadrature from the exact OPS profile (pdp_audit.audits.linreg.profiles.ops_hockey), must lie in the
    certificate's interval at 1 − 1e-6, in both directions and at several ε."""
    pair, batch = _pdp_adaops_pair()
    epsilons = np.array([0.25, 0.5, 1.0])
    profile = P.conditional_profile(pair, batch, epsilons, 200_000, seed=11, stream="test")
    lmin_z, lmin_w = float(batch.lam_min_z[0]), float(batch.lam_min_w[0])
    n = next(iter(pair.n.values()))
    gamma = next(iter(pair.gamma.values()))

    def integrand(xi, eps, direction):
        p_is_z = direction == "D||D'"  # "add": D = Z
        lp, lq = (lmin_z, lmin_w) if p_is_z else (lmin_w, lmin_z)
        lam_tilde = lp + pair.sd1 * xi
        l1 = ((lam_tilde - lq) ** 2 - (lam_tilde - lp) ** 2) / (2 * pair.sd1**2)
        lam = A.pdp_adaops_lambda(np.array([lam_tilde]), n, pair.d, pair.eps, pair.delta, pair.kappa)
        q = batch.at(lam)
        z_w, w_z = P.ops_hockey(eps - l1, q["mu"], q["r"], gamma)
        return stats.norm.pdf(xi) * float((z_w if p_is_z else w_z)[0])

    for direction in ("D||D'", "D'||D"):
        for g, eps in enumerate(epsilons):
            value = integrate.quad(integrand, -12, 12, args=(eps, direction), epsabs=1e-12, limit=400)[0]
            lo, hi = profile[direction][g].interval(1e-6)
            assert lo <= value <= hi, (direction, eps, lo, value, hi)


def test_conditional_profile_matches_plain_sampling_of_the_joint_release():
    """[LR] Algorithm 1 at a setting where plain sampling of the joint release resolves δ (δ ≈ 1e-2, 2e5 draws):
    the two estimators' intervals at 1 − 1e-6 overlap in both directions."""
    nb, batch = _data()
    pair = A.LRAdaOPSPair(nb, 1.0, 1e-2)
    pair.k = dataclasses.replace(pair.k, eps_tilde=pair.k.eps_tilde * 3)  # a weaker last stage: δ resolvable
    eps = np.array([0.5])
    profile = P.conditional_profile(pair, batch, eps, 100_000, seed=5, stream="test")
    loss_d = sample_privacy_loss(pair, "D", 200_000, 5, "joint")
    loss_dp = sample_privacy_loss(pair, "D'", 200_000, 5, "joint")
    tails = both_directions(loss_d, loss_dp, eps, 1e-6)
    for direction in ("D||D'", "D'||D"):
        lo, hi = profile[direction][0].interval(1e-6)
        plain_lo, plain_hi = tails[direction].interval(1e-6)
        assert hi > 1e-4  # the setting is not trivially private
        assert plain_lo[0] <= hi and lo <= plain_hi[0], (direction, lo, hi, plain_lo, plain_hi)


def test_conditional_profile_is_deterministic():
    """Same seed, same summary (blocks are seeded by identity; --workers independence: tests/test_workers.py)."""
    pair, batch = _pdp_adaops_pair()
    a = P.conditional_profile(pair, batch, [1.0], 3000, 1, "s")
    b = P.conditional_profile(pair, batch, [1.0], 3000, 1, "s")
    assert a["D||D'"][0] == b["D||D'"][0]


# --- figures ---------------------------------------------------------------------------------------------


@pytest.mark.tier2(representatives=("ops",))
@pytest.mark.parametrize("mechanism", ["ops", "adaops"])
def test_every_dp_check_carries_its_privacy_profile(mechanism):
    trials = 20000 if mechanism == "adaops" else 4000
    delta = 1e-2 if mechanism == "adaops" else 1e-5
    run = run_linreg_audit(LinregAuditConfig(mechanism, delta=delta, trials=trials, synthetic=(60, 3), search=8))
    dp = [c for c in run.checks if c.id.startswith("dp-")]
    assert len(dp) == (4 if mechanism == "adaops" else 2)
    for check in dp:
        figure = check.figure
        assert isinstance(figure, TailCurves) and figure.delta_claim == delta and figure.epsilon_claim == 1.0
        assert float(np.asarray(figure.epsilons)[4]) == 1.0
        for curve in figure.curves.values():
            assert len(curve.estimate) == len(figure.epsilons)
    if mechanism == "ops":  # the exact curve is drawn
        curves = next(iter(dp[0].figure.curves.values()))
        assert np.all(np.isfinite(np.asarray(curves.exact)))


# --- full defaults (slow) ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["output-perturbation"],
        ["ops"],
        ["adaops"],
        ["adaops", "--algorithm", "pdp"],
        ["adassp"],
        ["ssp"],
    ],
)
def test_defaults_pass_and_deflated_fail(args, tmp_path):
    code, doc = run_json(tmp_path, *args)
    assert (code, doc["verdict"]) == (0, "pass"), [(c["id"], c["verdict"]) for c in doc["checks"]]
    code, doc = run_json(tmp_path, *args, "--noise-multiplier", "0.05", "--trials", "100000")
    assert code == 1 and doc["verdict"] == "fail"
