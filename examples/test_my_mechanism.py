"""Example: asserting privacy claims about your own mechanism with pdp-audit's pytest plugin.

Run (the plugin is registered when pdp-audit is installed)::

    pytest -n auto -m audit --audit-trials 1e6 --audit-report audit.pdf examples/test_my_mechanism.py

A mechanism is audited through a *neighbouring pair* (D, D±z): ``sample(world, size, rng)`` draws
releases on D (``world="D"``) or D' (``"D'"``), and ``privacy_loss(outputs)`` is the exact
log p_D(o) − log p_D'(o) computed from the output densities.  Pairs that also expose the Gaussian
noise-level view (``noise_dim``, ``noise_sigma``, ``release_from_noise``) get importance-sampled tails
when δ is too small for plain sampling (δ · trials < 30); so do pairs with Laplace or two-sided geometric noise that
declare it (``noise_law = "laplace"`` or ``"geometric"``, ``noise_scale``, ``noise_dim``, ``release_from_noise``).
Your own view is evidence with a rate: it is replayed against ``sample()`` on 65,536 rows per world at most, a branch
those rows never saw is bounded only by the replay's rate (about 1e-3 at ε = 1), and that rate joins δ̄.  The claims
below are therefore at δ = 1e-2, which the run above (1e6 draws per world) decides; a smaller δ about your own code
is UNDECIDED, and the message names the (ε, δ) the evidence supports.
"""

import math

import numpy as np
import pytest

import pdp_audit


class NoisyMean:
    """Release the mean of values clipped to [0, 1] plus N(0, σ²): my mechanism, on (D, D ∪ {z})."""

    def __init__(self, data: np.ndarray, z: float, sigma: float):
        clipped = np.clip(np.append(data, z), 0.0, 1.0)
        self.means = {"D": clipped[:-1].mean(), "D'": clipped.mean()}  # D' = D ∪ {z}
        self.sigma = sigma
        self.output_dim = self.noise_dim = 1
        self.noise_sigma = sigma

    # --- the NeighbourPair protocol -----------------------------------------------------------
    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.release_from_noise(world, self.sigma * rng.standard_normal((size, 1)))

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs)[:, 0]
        d, dp = self.means["D"], self.means["D'"]
        return ((o - dp) ** 2 - (o - d) ** 2) / (2 * self.sigma**2)

    # --- optional: the noise-level view (enables rare-event tails for tiny δ) ------------------
    def release_from_noise(self, world: str, noise: np.ndarray) -> np.ndarray:
        return self.means[world] + noise


DATA = np.random.default_rng(0).random(100)
SENSITIVITY = 1 / 101  # adding one value in [0, 1] to 100 moves the mean by at most 1/101


@pytest.mark.audit
def test_worst_case_neighbour_is_dp(privacy_audit):
    # Calibrated with a margin (δ = 1e-7, claimed 1e-2): a claim that is exactly tight can never be confirmed by
    # sampling, and through your own view δ̄ is at least the replay's rate (about 1e-3): a claim of δ = 1e-6 would
    # come out inconclusive and the test would be reported UNDECIDED.
    sigma = pdp_audit.gaussian_sigma(1.0, 1e-7, SENSITIVITY)
    pair = NoisyMean(DATA, z=1.0 if DATA.mean() < 0.5 else 0.0, sigma=sigma)
    privacy_audit.assert_dp(pair, epsilon=1.0, delta=1e-2)


@pytest.mark.audit
def test_typical_individual_pdp(privacy_audit):
    # The individual z = 0.5 moves the mean far less than the worst case: a much smaller ε holds for her.
    sigma = pdp_audit.gaussian_sigma(1.0, 1e-6, SENSITIVITY)
    pair = NoisyMean(DATA, z=0.5, sigma=sigma)
    shift = abs(pair.means["D'"] - pair.means["D"])
    # exact_delta is your closed form: the plugin checks it against the samples, it never makes the claim pass.
    privacy_audit.assert_pdp(pair, epsilon=0.2, delta=1e-2, exact_delta=pdp_audit.gaussian_delta(0.2, sigma, shift))


@pytest.mark.audit
def test_confidence_interval_coverage(privacy_audit):
    # A "with probability ≥ 1 − ρ" statement: the released mean is within σ·√(2 log(2/ρ)) of the truth.
    sigma, rho = 0.1, 0.05
    pair = NoisyMean(DATA, z=0.5, sigma=sigma)
    radius = sigma * math.sqrt(2 * math.log(2 / rho))

    def within_radius(size, rng):
        return np.abs(pair.sample("D", size, rng)[:, 0] - pair.means["D"]) <= radius

    privacy_audit.assert_coverage(within_radius, rho=rho)
