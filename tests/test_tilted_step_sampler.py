"""The tilted step law of DP-SGD (:class:`pdp_audit.mechanisms.subsampled_gaussian.TiltedStep`) drawn by tangent
envelopes (:mod:`pdp_audit.mechanisms.tangent_envelope`): in bounded time for every accepted sample rate (the former
rejection sampler drew forever as q → 1: ``run dp-sgd --sample-rate 0.999999999`` never ended), and exactly -- a
Kolmogorov–Smirnov test against the law from its definition, g_θ ∝ p_world^{1+θ} p_other^{−θ}, at α = 1e-6 with a
fixed seed, which catches a sampler whose mixture weight or damping is a little off."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
from scipy import special, stats

from pdp_audit.mechanisms import subsampled_gaussian as sg
from pdp_audit.mechanisms.tangent_envelope import DampedGaussianMixture

ALPHA = 1e-6
DRAWS = 300_000
#: (σ, q, neighbours, direction, θ): q near 1 both ways, a mixture of comparable components, a large real tilt.
LAWS = {
    "q-near-1-addition": (1.0, 1 - 1e-9, "add-remove", "D'||D", 4.69),
    "q-1e-15-from-1-replace": (1.0, 1 - 1e-15, "replace-one", "D||D'", 1.0),
    "three-components": (1.0, 0.5, "replace-one", "D||D'", 1.0),
    "large-tilt": (1.1, 0.05, "add-remove", "D'||D", 60.0),
}


def _step(name: str) -> sg.TiltedStep:
    sigma, q, neighbours, direction, theta = LAWS[name]
    return sg.SubsampledGaussian(sigma, q, neighbours).step(direction, theta)


def _exact_cdf(step: sg.TiltedStep, draws: np.ndarray):
    """The CDF of g_θ ∝ p_world^{1+θ} p_other^{−θ} from the pair's densities (scipy's normal densities, not the
    mixture's weights), by the trapezoid rule on 400,001 points spanning the draws and 12σ beyond (relative error
    about h²/σ² ≈ 1e-8, far below the test's resolution of 1e-2)."""
    pair = step.pair
    world, other = ("D", "D'") if step.direction == "D||D'" else ("D'", "D")
    grid = np.linspace(draws.min() - 12 * pair.sigma, draws.max() + 12 * pair.sigma, 400_001)
    log_g = (1 + step.theta) * pair.log_density(world, grid) - step.theta * pair.log_density(other, grid)
    density = np.exp(log_g - log_g.max())
    cumulative = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]))])
    cumulative /= cumulative[-1]
    return lambda x: np.interp(x, grid, cumulative)


def _ks_pvalue(step: sg.TiltedStep, mixture: DampedGaussianMixture) -> float:
    draws = mixture.draw(DRAWS, np.random.default_rng(5))
    return float(stats.kstest(draws, _exact_cdf(step, draws)).pvalue)


@pytest.mark.parametrize("name", LAWS)
def test_draws_follow_the_exact_law(name):
    step = _step(name)
    assert step.b > 0 and step.t != 0  # a damped law: the tangent envelopes draw it
    assert _ks_pvalue(step, step.damped) >= ALPHA


def _a_little_off(mixture: DampedGaussianMixture) -> DampedGaussianMixture:
    """The first component's weight 10 % too large where there are several, else the damping b 2 % too large."""
    if mixture.means.size > 1:
        return replace(mixture, log_weights=mixture.log_weights + np.eye(mixture.means.size)[0] * math.log(1.1))
    return replace(mixture, b=mixture.b * 1.02)


@pytest.mark.parametrize("name", ["q-near-1-addition", "three-components"])
def test_a_sampler_a_little_off_is_caught(name):
    step = _step(name)
    assert _ks_pvalue(step, _a_little_off(step.damped)) < ALPHA


EXTREMES = [
    (sigma, q, neighbours, direction, theta)
    for sigma in (0.3, 1000.0)
    for q in (1e-12, 0.5, 1 - 1e-15)
    for neighbours, direction in (("add-remove", "D'||D"), ("replace-one", "D||D'"), ("replace-one", "D'||D"))
    for theta in (0.5, 40.0, 4096.0)
    if neighbours == "add-remove" or theta == round(theta)  # replace-one's a = 1 + θ must be an integer
]


@pytest.mark.parametrize("law", EXTREMES)
def test_the_envelope_accepts_at_least_1_minus_1_over_e(law):
    """The envelope lies above the law (acceptance ≤ 1) and its mass is at most e/(e − 1) times the law's, at the
    ranges' corners: the acceptance is Σ_k w_k ∫e^{h_k} (σ√(2π) E_mixture[((1 − q)/R_t)^b], from :meth:`log_mgf`)
    over the envelope's mass."""
    sigma, q, neighbours, direction, theta = law
    step = sg.SubsampledGaussian(sigma, q, neighbours).step(direction, theta)
    log_law = 0.5 * math.log(2 * math.pi) + math.log(sigma) + step.log_mgf() - step.log_normaliser()
    log_law += step.b * math.log1p(-q)
    start = time.perf_counter()
    acceptance = math.exp(log_law - special.logsumexp(step.damped.envelope.log_masses))
    step.draw(10_000, np.random.default_rng(1))
    assert 1 - 1 / math.e - 1e-9 <= acceptance <= 1 + 1e-9
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("q,neighbours", [("0.999999999", "add-remove"), ("0.999999999999999", "replace-one")])
def test_a_sample_rate_next_to_1_ends_within_seconds(q, neighbours, tmp_path):
    """The command of the report (it never ended): a verdict (0 or 1) within a minute, here in about 3 s."""
    argv = ["run", "dp-sgd", "--sample-rate", q, "--steps", "1", "--noise-multiplier", "1", "--claim-epsilon", "5",
            "--claim-delta", "1e-5", "--neighbours", neighbours, "--trials", "2000", "--report", "none"]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pdp_audit.cli", *argv], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode in (0, 1), done.stderr
