"""A Gaussian DP mean: the noisy clipped sum and the noisy count released together (their ratio is the mean).

The release is the pair ``(S(D) + N(0, σ_s² I_d), n(D) + N(0, σ_c²))``: ``S`` the sum of the rows clipped to L2
norm ``C`` (sensitivity ``C``), ``n`` the count (sensitivity 1).  The mean ``S/n`` and anything else computed from
the pair is post-processing, so the pair's privacy is the mean's.  Both parts see the same individual, so the
audit is of the **joint** release: its privacy loss is the sum of the two Gaussian losses.

**Exact privacy profile** (proof).  Let ``Σ = diag(σ_s² I_d, σ_c²)`` and ``W = Σ^{-1/2}``.  The release is
``o ~ N(q_D, Σ)`` with ``q_D = (S(D), n(D))``.  The map ``o ↦ W o`` is invertible and deterministic, so it changes
no hockey-stick divergence (post-processing in both directions), and ``W o ~ N(W q_D, I_{d+1})``: an isotropic
Gaussian mechanism with unit noise whose per-instance sensitivity is

    μ_z = ‖W (q_{D±z} − q_D)‖ = sqrt( (‖clip_C(z)‖ / σ_s)² + (1 / σ_c)² ),

because removing or adding ``z`` moves the sum by ``clip_C(z)`` and the count by 1.  The privacy loss of an
isotropic Gaussian pair is ``L = (‖Wo − Wq_{D'}‖² − ‖Wo − Wq_D‖²)/2``, which is the sum of the two parts' losses
(the covariance is block-diagonal) and is N(μ_z²/2, μ_z²) under D ([RW] Theorem 22 applied to ``W o``).  Hence the
exact δ(ε) of the pair is Balle & Wang (2018, Theorem 8) at noise-to-sensitivity ratio ``1/μ_z``:

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),      μ = sqrt(μ_sum² + μ_count²),

the analytic Gaussian mechanism's profile at the combined μ (= :func:`gaussian.analytic_delta` (ε, 1, μ)).  The
worst neighbour has ``‖clip_C(z)‖ = C``: ``μ = sqrt((C/σ_s)² + (1/σ_c)²)``.  Equivalently, μ-GDP composes by
``μ² = Σ μ_i²`` (Dong, Roth & Su 2019/2022, Corollary 3.3); the whitening argument above proves it directly.

**Calibration (equal-μ rule).**  The claim (ε, δ) fixes the combined μ through the analytic calibration:
``μ = 1 / u`` with ``u = analytic_sigma(ε, δ, 1)`` (the noise per unit sensitivity).  The two parts get equal
shares, ``μ_sum = μ_count = μ/√2``: ``σ_s = √2 C u`` and ``σ_c = √2 u``.  Then ``μ_sum² + μ_count² = μ²`` exactly
(up to rounding), so the worst-case δ(ε) is the claim's.  Equal shares make neither part the weak one; a user
wanting another split passes ``--sigma`` (the sum's σ; the count's is then ``σ / C``, the same rule).

The closed forms downstream are all those of an isotropic Gaussian mechanism with σ = 1 and sensitivity μ_z
(:attr:`GaussianMeanMechanism.sigma` is 1: sensitivities are in these whitened units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms.base import RegisteredMechanism, World, check_world, neighbour_rows
from pdp_audit.mechanisms.gaussian import GaussianPair
from pdp_audit.mechanisms.gaussian_query import Query, Relation, clipped_row_norms
from pdp_audit.mechanisms.row_reductions import ScaledRows
from pdp_audit.verify.inputs.validation import positive

#: The equal-μ rule's share of the combined μ² given to each part.
EQUAL_SHARE = 0.5


def equal_mu_sigmas(unit_sigma: float, clip: float) -> tuple[float, float]:
    """(σ_sum, σ_count) of the equal-μ rule for noise ``unit_sigma`` per unit sensitivity of the joint release:
    each part's μ is ``1/(unit_sigma √2)``, so the combined μ is ``1/unit_sigma``."""
    split = unit_sigma / math.sqrt(EQUAL_SHARE)
    return split * clip, split


def joint_mu(sum_sensitivity: float, sigma_sum: float, sigma_count: float) -> float:
    """μ = sqrt((‖Δ_sum‖/σ_s)² + (1/σ_c)²): the whitened sensitivity of the joint release (module notes)."""
    return math.hypot(sum_sensitivity / sigma_sum, 1.0 / sigma_count)


class JointGaussianPair:
    """The sum pair and the count pair of one neighbouring (D, D±z), released together: o = (o_sum, o_count).

    ``privacy_loss`` is the sum of the two parts' Gaussian losses (each from its own densities); the noise view
    (``noise_dim``, per-coordinate ``noise_sigma``, ``release_from_noise``) serves importance sampling.
    """

    built_from_law = True  # ``sample`` is its declared Gaussian law (pdp_audit.verify.estimators.view_replay)

    def __init__(self, sum_pair: GaussianPair, count_pair: GaussianPair):
        self.sum_pair, self.count_pair = sum_pair, count_pair
        self.split = sum_pair.output_dim
        self.output_dim = self.noise_dim = self.split + count_pair.output_dim
        self.noise_sigma = np.concatenate(
            [np.full(self.split, sum_pair.sigma), np.full(count_pair.output_dim, count_pair.sigma)]
        )
        self.q_d = np.concatenate([sum_pair.q_d, count_pair.q_d])
        self.q_dprime = np.concatenate([sum_pair.q_dprime, count_pair.q_dprime])

    @property
    def delta_z(self) -> np.ndarray:
        return self.q_dprime - self.q_d

    @property
    def mu(self) -> float:
        """The whitened sensitivity ‖W Δ_z‖ (module notes)."""
        return float(np.linalg.norm(self.delta_z / self.noise_sigma))

    def mean(self, world: World) -> np.ndarray:
        return self.q_d if check_world(world) == "D" else self.q_dprime

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        return self.mean(world) + noise

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        out = rng.standard_normal((size, self.output_dim))
        out *= self.noise_sigma
        out += self.mean(world)
        return out

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """log p_D(o) − log p_D'(o): the sum part's Gaussian loss plus the count part's (independent noises)."""
        outputs = np.atleast_2d(outputs)
        return self.sum_pair.privacy_loss(outputs[:, : self.split]) + self.count_pair.privacy_loss(
            outputs[:, self.split :]
        )

    def whitened(self, outputs: np.ndarray) -> tuple[np.ndarray, GaussianPair]:
        """(W o, the isotropic unit-noise pair of W q_D and W q_D'): the view Theorem 22 speaks of."""
        outputs = np.atleast_2d(outputs)
        pair = GaussianPair(self.q_d / self.noise_sigma, self.q_dprime / self.noise_sigma, 1.0)
        return outputs / self.noise_sigma, pair


@dataclass(frozen=True)
class GaussianMeanMechanism:
    """The noisy clipped sum (σ_s) and the noisy count (σ_c) of the rows, released together."""

    clip: float
    sigma_sum: float
    sigma_count: float

    #: Closed forms see the whitened release: unit noise, sensitivity μ_z (module notes).
    sigma = 1.0

    def __post_init__(self) -> None:
        positive("clip", self.clip)
        positive("sigma_sum", self.sigma_sum)
        positive("sigma_count", self.sigma_count)

    @property
    def worst_mu(self) -> float:
        """μ at the worst neighbour, ‖clip_C(z)‖ = C."""
        return joint_mu(self.clip, self.sigma_sum, self.sigma_count)

    def pair(
        self,
        data: np.ndarray,
        target: np.ndarray,
        relation: Relation = "add",
        clipped: np.ndarray | ScaledRows | None = None,
    ) -> JointGaussianPair:
        """The joint pair of (D, D±z): ``"add"`` appends ``target``, ``"remove"`` deletes it (a row of D).
        ``clipped``: the sum's clipped rows of ``data`` where the caller has them (clipped once, not again)."""
        total, count = Query("sum", self.clip), Query("count")
        if clipped is None:
            data, neighbour = neighbour_rows(data, target, relation)
            sums, counts = (total(data), total(neighbour)), (count(data), count(neighbour))
        else:  # D±z's count from D's: one row more or less (neighbour_sums checked that a removed row is one of D)
            sums = total.neighbour_sums(data, target, relation, clipped)
            size = float(len(clipped))
            counts = (np.array([size]), np.array([size + (1.0 if relation == "add" else -1.0)]))
        return JointGaussianPair(GaussianPair(*sums, self.sigma_sum), GaussianPair(*counts, self.sigma_count))

    def per_instance_sensitivities(
        self, data: np.ndarray, clipped: np.ndarray | ScaledRows | None = None, norms: np.ndarray | None = None
    ) -> np.ndarray:
        """μ_z of every row z: sqrt((‖clip_C(z)‖/σ_s)² + (1/σ_c)²); ``clipped`` as in :meth:`pair`, ``norms`` (the
        rows' own) as in :func:`~pdp_audit.mechanisms.gaussian_query.clip_rows`."""
        data = np.atleast_2d(np.asarray(data, dtype=float))
        clipped_norm = clipped_row_norms(data, self.clip, norms, clipped)
        return np.hypot(clipped_norm / self.sigma_sum, 1.0 / self.sigma_count)


def _example_pairs(rng: np.random.Generator) -> list[JointGaussianPair]:
    data = rng.normal(size=(40, 3)) * 0.5
    mechanism = GaussianMeanMechanism(1.0, sigma_sum=1.5, sigma_count=2.0)
    return [
        mechanism.pair(data, data[0], "remove"),
        mechanism.pair(data, np.array([3.0, 0.0, 0.0]), "add"),  # clipped: the sum moves by C
    ]


GAUSSIAN_MEAN = RegisteredMechanism(
    name="gaussian-mean",
    description="Gaussian DP mean: a clipped sum and a count released together (joint loss; Balle & Wang 2018 at "
    "the combined μ)",
    example_pairs=_example_pairs,
)
