"""Mutants of users' own pairs (the classes that passed before ``sample()`` became the truth): a noise view that
omits a rare branch of the sampler, a view narrower than the sampler, a release of the input claimed at a large ε,
a heavy-tailed mechanism over its claim, and a pure claim broken by a scale too small.

Each is a pair as a user writes it -- ``sample`` and the exact ``privacy_loss``, some with a Gaussian noise view
(``noise_dim``, ``noise_sigma``, ``release_from_noise``) -- audited by
:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`.  Their true δ(ε) are computed exactly in
``tests/test_pair_claims.py`` (closed forms of the Gaussian and Laplace profiles, quadrature for Student's t).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from pdp_audit.mechanisms import gaussian as g


class GaussianWithView:
    """A sum of sensitivity 1 plus N(0, σ²) with a noise view whose σ is ``view_factor`` × the sampler's (1: a
    correct view)."""

    output_dim = 1
    noise_dim = 1

    def __init__(self, sigma: float, view_factor: float = 1.0):
        self.sigma = sigma
        self.noise_sigma = np.array([sigma * view_factor])

    @staticmethod
    def mean(world: str) -> float:
        return 0.0 if world == "D" else 1.0

    def sample(self, world, size, rng):
        return self.mean(world) + self.sigma * rng.standard_normal((size, 1))

    def release_from_noise(self, world, noise):
        return self.mean(world) + noise

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return ((o - 1.0) ** 2 - o**2) / (2 * self.sigma**2)


class RareLeak(GaussianWithView):
    """With probability ``p`` the release is (Q(world), 1), which reveals the world (L = ±∞); otherwise
    (Q(world) + N(0, σ²), 0).  The noise view releases the Gaussian branch only.  True δ(ε) = p + (1 − p)·δ_σ(ε)."""

    output_dim = 2

    def __init__(self, sigma: float, p: float):
        super().__init__(sigma)
        self.p = p

    def sample(self, world, size, rng):
        leak = rng.random(size) < self.p
        o = np.where(leak, self.mean(world), self.mean(world) + self.sigma * rng.standard_normal(size))
        return np.column_stack([o, leak.astype(float)])

    def release_from_noise(self, world, noise):
        return np.column_stack([self.mean(world) + noise[:, 0], np.zeros(len(noise))])

    def privacy_loss(self, outputs):
        o, leaked = outputs[:, 0], outputs[:, 1] == 1
        gaussian = ((o - 1.0) ** 2 - o**2) / (2 * self.sigma**2)
        return np.where(leaked, np.where(o == 0.0, np.inf, -np.inf), gaussian)


class ShiftedLaplace:
    """A shift of ``shift`` plus Lap(0, b): exactly (shift/b, 0)-DP."""

    output_dim = 1

    def __init__(self, scale: float, shift: float = 1.0):
        self.scale, self.shift = scale, shift

    def sample(self, world, size, rng):
        return (0.0 if world == "D" else self.shift) + rng.laplace(0.0, self.scale, (size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return (np.abs(o - self.shift) - np.abs(o)) / self.scale


class StudentT:
    """A shift of 1 plus s·t(3) noise: heavy tails and a bounded loss that is not monotone in the release."""

    output_dim = 1

    def __init__(self, s: float):
        self.s = s

    def sample(self, world, size, rng):
        return (0.0 if world == "D" else 1.0) + self.s * rng.standard_t(3, (size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return stats.t.logpdf(o, 3, 0.0, self.s) - stats.t.logpdf(o, 3, 1.0, self.s)


#: The Gaussian σ of a claim (1, δ) at the worst case, for δ = 1e-5 (the claim) and 1e-6 (twins, with a margin).
SIGMA_CLAIM, SIGMA_TWIN = g.analytic_sigma(1.0, 1e-5), g.analytic_sigma(1.0, 1e-6)
#: σ whose true δ(1) is ≈ 1.3e-5 (1.3× the claim; tests/test_pair_claims.py computes it): the narrow view's sampler.
SIGMA_OVER = 3.67
#: Student's t scales: δ(1) ≈ 3.4e-3 at 1.1 (3.4× a claim of 1e-3), exactly 0 at 1.2 (the loss stays below 1).
T_BROKEN, T_TWIN = 1.1, 1.2


def mutants(mutant, case) -> tuple:
    """The users'-pair mutants, built with the zoo's ``Mutant`` and ``PairCase`` records."""
    return (
        mutant(
            "view-omits-revealing-branch",
            "With probability 1e-3 sample() releases the input itself (a debug path): its noise view releases the "
            "Gaussian branch only, so importance sampling sees a correct mechanism (true δ ≈ 1e-3, 100× the claim)",
            ("dp-forward", "dp-reverse"),
            lambda: case(RareLeak(SIGMA_CLAIM, 1e-3)),
            lambda: case(RareLeak(SIGMA_TWIN, 0.0)),
        ),
        mutant(
            "view-narrower-than-sampler",
            "The noise view's σ is 5% below the sampler's, whose noise gives δ(1) = 1.3e-5 (1.3× the claim): "
            "importance sampling through the view would certify the claim",
            ("noise-view",),
            lambda: case(GaussianWithView(SIGMA_OVER, 0.95)),
            lambda: case(GaussianWithView(SIGMA_TWIN)),
        ),
        mutant(
            "releases-input-at-large-epsilon",
            "Laplace noise of scale 1e-3 on a sensitivity-1 query (the input, to three decimals), claimed (20, 1e-5): "
            "δ(20) ≈ 1, where differences of plain intervals cannot refute once e^ε ≫ n",
            ("dp-forward", "dp-reverse"),
            lambda: case(ShiftedLaplace(1e-3), 20.0, 1e-5),
            lambda: case(ShiftedLaplace(1 / 20), 20.0, 1e-3),
        ),
        mutant(
            "student-t-scale-too-small",
            "Student-t(3) noise of scale 1.1 on a sensitivity-1 query claimed (1, 1e-3): heavy tails, true δ(1) ≈ "
            "3.4e-3; the twin's scale 1.2 keeps the loss below 1 (δ(1) = 0)",
            ("dp-forward", "dp-reverse"),
            lambda: case(StudentT(T_BROKEN), 1.0, 1e-3),
            lambda: case(StudentT(T_TWIN), 1.0, 1e-3),
        ),
        mutant(
            "pure-claim-scale-too-small",
            "The Laplace mechanism with scale 1/1.1 on a sensitivity-1 query claims pure (1, 0)-DP: its ε is 1.1, "
            "δ(1) = 1 − e^(−0.05); the twin's scale 1 is exactly (1, 0)-DP",
            ("dp-forward", "dp-reverse"),
            lambda: case(ShiftedLaplace(1 / 1.1), 1.0, 0.0),
            lambda: case(ShiftedLaplace(1.0), 1.0, 0.0),
        ),
    )
