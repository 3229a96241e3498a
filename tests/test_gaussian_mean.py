"""``pdp-audit run gaussian --query mean``: the joint release of a noisy sum and a noisy count.

The exact profile (the analytic Gaussian mechanism's at μ = sqrt(μ_sum² + μ_count²)) is checked against a
two-dimensional numerical integral of the hockey-stick divergence of the two product densities; the loss against
the multivariate normal log-densities; the equal-μ calibration against the claim; the audit end to end (defaults
pass, a deflated noise fails).
"""

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_mean as gm


def _normal_pdf(x: float, mean: float, sd: float) -> float:
    return math.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))


@pytest.mark.tier2(representatives=("1.0",))
@pytest.mark.parametrize("epsilon", [0.0, 1.0])
def test_joint_profile_is_the_two_dimensional_hockey_stick(epsilon):
    """δ(ε) = ∫∫ (p_D(o) − e^ε p_D'(o))₊ do for a one-column sum (σ_s) and a count (σ_c), by adaptive quadrature
    on a box of ±10 standard deviations (mass outside < 1e-22)."""
    sigma_sum, sigma_count, clip = 1.3, 2.1, 1.0
    factor = math.exp(epsilon)

    def integrand(y: float, x: float) -> float:
        p = _normal_pdf(x, 0.0, sigma_sum) * _normal_pdf(y, 5.0, sigma_count)
        q = _normal_pdf(x, clip, sigma_sum) * _normal_pdf(y, 6.0, sigma_count)
        return max(p - factor * q, 0.0)

    box = (-10 * sigma_sum, clip + 10 * sigma_sum, 5 - 10 * sigma_count, 6 + 10 * sigma_count)
    numeric, error = integrate.dblquad(integrand, *box, epsabs=1e-10, epsrel=1e-8)
    closed = g.analytic_delta(epsilon, 1.0, gm.joint_mu(clip, sigma_sum, sigma_count))
    # δ is 0.35 (ε = 0) or 0.095 (ε = 1); the quadrature's own error estimate is ~1e-9 (the kink along L = ε)
    assert error < 1e-7
    assert abs(numeric - closed) <= 1e-6
    # the sum of the parts' μ (a wrong composition) is far off: the test can tell
    wrong = g.analytic_delta(epsilon, 1.0, clip / sigma_sum + 1 / sigma_count)
    assert abs(numeric - wrong) > 1e-2


def test_joint_loss_is_the_log_density_ratio():
    """The pair's loss (sum of the parts' losses) equals log N(o; q_D, Σ) − log N(o; q_D', Σ), Σ block-diagonal."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(30, 2)) * 0.4
    mechanism = gm.GaussianMeanMechanism(1.0, 1.7, 0.9)
    pair = mechanism.pair(rows, np.array([1.0, 0.0]), "add")
    outputs = pair.sample("D", 500, rng)
    cov = np.diag([1.7**2, 1.7**2, 0.9**2])
    expected = stats.multivariate_normal(pair.q_d, cov).logpdf(outputs) - stats.multivariate_normal(
        pair.q_dprime, cov
    ).logpdf(outputs)
    scale = np.maximum(1.0, np.abs(expected))
    assert np.max(np.abs(pair.privacy_loss(outputs) - expected) / scale) < 1e-10
    assert pair.mu == pytest.approx(math.hypot(1.0 / 1.7, 1 / 0.9), rel=1e-12)


@pytest.mark.parametrize(("epsilon", "delta", "clip"), [(1.0, 1e-5, 1.0), (0.5, 1e-6, 3.0), (4.0, 1e-3, 0.2)])
def test_equal_mu_calibration_meets_the_claim_exactly(epsilon, delta, clip):
    """σ_s = √2 C u, σ_c = √2 u (u = the claim's σ per unit sensitivity): equal μ, and δ(ε) at the joint μ = δ."""
    sigma_sum, sigma_count = gm.equal_mu_sigmas(g.analytic_sigma(epsilon, delta, 1.0), clip)
    assert clip / sigma_sum == pytest.approx(1 / sigma_count, rel=1e-14)
    mu = gm.joint_mu(clip, sigma_sum, sigma_count)
    assert g.analytic_delta(epsilon, 1.0, mu) == pytest.approx(delta, rel=1e-9)


def test_per_instance_sensitivity_is_each_rows_own_pair():
    """μ_z of every row equals the whitened norm of the pair built by removing that row."""
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(12, 3)) * 0.6
    mechanism = gm.GaussianMeanMechanism(1.0, 2.0, 1.5)
    mus = mechanism.per_instance_sensitivities(rows)
    for row, mu in zip(rows, mus):
        assert mechanism.pair(rows, row, "remove").mu == pytest.approx(mu, rel=1e-12)
    assert np.all(mus <= mechanism.worst_mu * (1 + 1e-12)) and np.all(mus >= 1 / 1.5)


def _run(tmp_path, *extra):
    out = tmp_path / "mean.json"
    code = main(
        ["run", "gaussian", "--query", "mean", "--trials", "20000", "--json", str(out), "--report", "none", "--quiet"]
        + list(extra)
    )
    return code, json.loads(out.read_text())


def test_mean_defaults_pass_with_the_joint_parameters(tmp_path):
    code, doc = _run(tmp_path)
    assert code == 0 and doc["verdict"] == "pass"
    p = doc["parameters"]
    assert p["query"] == "mean" and p["mu_sum"] == pytest.approx(p["mu_count"], rel=1e-12)
    assert g.analytic_delta(1.0, 1.0, p["mu_joint"]) == pytest.approx(1e-5, rel=1e-9)
    assert p["sigma_count"] == pytest.approx(p["sigma"] / p["sensitivity"], rel=1e-12)
    assert doc["per_instance"]["dp_epsilon"] == pytest.approx(1.0, rel=1e-9)
    assert doc["clipping"]["norm"] == "L2"


def test_mean_with_deflated_noise_fails(tmp_path):
    """σ × 0.8 on both parts: δ(1) = 7e-5 against the claimed 1e-5, refuted at α = 1e-6."""
    code, doc = _run(tmp_path, "--noise-multiplier", "0.8")
    verdicts = {c["id"]: c["verdict"] for c in doc["checks"]}
    assert code == 1 and verdicts["dp-forward"] == "fail" and verdicts["dp-reverse"] == "fail"


def test_mean_sigma_sets_the_sum_and_the_count_by_the_same_rule(tmp_path):
    """--sigma 14 with C = 2: σ_count = 7, μ = 0.202, δ(1) = 2e-8 (passes); σ = 10 would give μ = 0.283 and
    δ(1) = 2.3e-5 > 1e-5 -- the sum alone at σ = 10 (μ = 0.2) passes: the count's share matters."""
    code, doc = _run(tmp_path, "--sigma", "14", "--sensitivity", "2")
    p = doc["parameters"]
    assert p["sigma"] == 14 and p["sigma_count"] == pytest.approx(7.0)
    assert p["mu_joint"] == pytest.approx(math.hypot(2 / 14, 1 / 7), rel=1e-12)
    assert code == 0


@pytest.mark.tier2(representatives=("4.2-1",))
@pytest.mark.parametrize(("sigma", "expected"), [("5.3", 0), ("4.2", 1)])
def test_the_mean_deployment_example_is_certified_and_its_deflated_variant_refused(tmp_path, sigma, expected):
    """examples/deploy-gaussian-mean.toml at 2e4 trials: σ = 5.3 (above the calibrated 5.28) is certified; σ = 4.2
    (δ(1) = 2.3e-4 at the joint μ) is refused."""
    examples = Path(__file__).resolve().parent.parent / "examples"
    text = (examples / "deploy-gaussian-mean.toml").read_text(encoding="utf-8")
    assert "sigma = 5.3" in text and "trials = 1e6" in text
    text = text.replace("trials = 1e6", "trials = 2e4").replace("sigma = 5.3", f"sigma = {sigma}")
    (tmp_path / "deploy.toml").write_text(text, encoding="utf-8")
    shutil.copy(examples / "deploy-data.csv", tmp_path / "deploy-data.csv")
    out = tmp_path / "c.json"
    code = main(["certify", str(tmp_path / "deploy.toml"), "--report", "none", "--json", str(out), "--quiet"])
    doc = json.loads(out.read_text())
    assert code == expected and doc["parameters"]["query"] == "mean"
