"""The mutant zoo: plausible bugs, each a mechanism still claiming the original guarantee, that the suite must catch --
and their correct twins, which it must pass.

A mutant is audited as a user's pair is (:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`: the pair's
protocol, the consistency of its loss with its sampler and of its noise view, then δ_{D‖D'}(ε) ≤ δ and
δ_{D'‖D}(ε) ≤ δ), or, for a published "with probability ≥ 1 − ρ" bound, by the coverage check of that bound.
Every run is one family at false-alarm probability α (Holm), with its seed derived from the root seed and the
mutant's id (:mod:`pdp_audit.mutant_runs` runs the zoo).  The zoo is caught when every mutant **fails** and every
twin **passes**; ``pdp-audit mutants`` prints the table and ``tests/test_mutants.py`` fails the build if the suite
stops catching one.

The mutants are Gaussian-noise mechanisms on a scalar query (Δ = 1 unless said) with the claim (ε, δ) = (1, 1e-5),
the GOE release of a second-moment matrix ([RW] Algorithm 6, same claim), and One-Posterior-Sample and objective
perturbation (claim (1, 1e-2): OPS has no noise view, and ObjPert's loss is not affine in its noise, so importance
sampling cannot certify a pass for either); the twins are calibrated with a margin (δ = 1e-6; for ObjPert, an exact
δ(1) far below 1e-2, computed by quadrature in the tests) so that a pass is decidable by sampling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import linalg, stats

from pdp_audit.mechanisms import analyze_gauss as ag
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import mutant_pairs
from pdp_audit.mechanisms.linreg import mechanism as lr
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.objpert.solver import theta_rows
from pdp_audit.verify.estimators.view_replay import built_from_law

EPSILON, DELTA = 1.0, 1e-5
#: Twins are calibrated at this δ (a tenth of the claim): the claim then holds with a margin sampling resolves.
TWIN_DELTA = 1e-6


@dataclass(frozen=True)
class PairCase:
    """A (ε, δ)-DP claim about a neighbouring pair."""

    pair: object
    epsilon: float = EPSILON
    delta: float = DELTA


@dataclass(frozen=True)
class CoverageCase:
    """A bound published to hold with probability ≥ 1 − ρ: ``holds(size, rng)`` draws whether it held."""

    holds: Callable[[int, np.random.Generator], np.ndarray]
    rho: float
    claim: str


@dataclass(frozen=True)
class Mutant:
    """One bug: ``broken()`` is the buggy mechanism with its claim, ``twin()`` the correct one; ``expected``
    names the checks meant to catch it (any fail of the family counts as caught)."""

    id: str
    description: str
    expected: tuple[str, ...]
    broken: Callable[[], PairCase | CoverageCase]
    twin: Callable[[], PairCase | CoverageCase]


# ------------------------------------------------------------------------------------------------
# The buggy pairs
# ------------------------------------------------------------------------------------------------
def _shift(d: int = 1, size: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    q = np.zeros(d)
    q_prime = q.copy()
    q_prime[0] = size
    return q, q_prime


def gaussian(sigma: float, d: int = 1, shift: float = 1.0) -> g.GaussianPair:
    """The Gaussian mechanism at σ on a query that moves by ``shift`` along the first of ``d`` axes."""
    return g.GaussianPair(*_shift(d, shift), sigma)


class LossOf:
    """A pair whose sampler is ``sampler``'s and whose privacy loss is ``loss(sampler_pair, outputs)``; with
    ``view_sigma`` it exposes a noise view at that σ (over ``sampler``'s means)."""

    def __init__(self, sampler, loss: Callable, view_sigma: float | None = None):
        self.sampler, self.loss = sampler, loss
        self.output_dim = sampler.output_dim
        if view_sigma is not None:
            self.noise_dim, self.noise_sigma = sampler.output_dim, view_sigma

    @property
    def built_from_law(self) -> bool:
        """Whether this is ``sampler`` itself, a pair the suite built from its law: its own loss and its own view
        (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`); a loss or a view of another σ is not."""
        view = getattr(self, "noise_sigma", None)
        own_view = view is not None and bool(np.all(view == getattr(self.sampler, "noise_sigma", np.nan)))
        return own_view and self.loss == self.sampler.privacy_loss and built_from_law(self.sampler)

    def release_from_noise(self, world, noise):
        return self.sampler.release_from_noise(world, noise)

    def sample(self, world, size, rng):
        return self.sampler.sample(world, size, rng)

    def privacy_loss(self, outputs):
        return self.loss(outputs)


class TransposedCholeskyOPS(lr.OPSPair):
    """OPS sampled with the wrong triangular solve: θ̂ + L⁻¹ξ has covariance (LᵀL)⁻¹, not (LLᵀ)⁻¹ = P⁻¹
    (the (RRᵀ)⁻¹-for-(RᵀR)⁻¹ bug); the loss is still written for N(θ̂, P⁻¹)."""

    def sample(self, world, size, rng):
        law = self.laws[world]
        xi = rng.standard_normal((int(size), law.dim))
        return law.mean + linalg.solve_triangular(law.chol, xi.T, lower=True).T


def _ops(cls) -> lr.OPSPair:
    """OPS on 10 rows with nearly collinear columns (the precision is far from isotropic, so the two factors'
    covariances differ), the first row removed, γ = 10, λ = 0.01."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((10, 2))
    X[:, 1] = X[:, 0] + 0.2 * X[:, 1]
    X /= np.linalg.norm(X, axis=1).max()
    y = np.clip(X @ np.array([0.5, -0.3]) + 0.3 * rng.standard_normal(10), -1, 1)
    return cls(lr.Neighbours.remove(X, y, 0), gamma=10.0, lam=0.01)


def _mean_pair(sensitivity: float, delta: float) -> g.GaussianPair:
    """The mean of n = 3 values in [0, 1], D = {1, 0, 0}, its 1 removed: the mean moves from 1/3 to 0.  σ is
    calibrated to (ε, ``delta``) for ``sensitivity``: removing a record can move the mean by 1/(n − 1) = 1/2,
    adding one by 1/(n + 1) = 1/4."""
    return g.GaussianPair(np.array([1 / 3]), np.array([0.0]), g.analytic_sigma(EPSILON, delta, sensitivity))


def _ex_post_holds(bound: Callable[[float], float], sigma: float = 1.0, shift: float = 1.0):
    """Whether the published ex-post pDP bound holds at releases from D: |L(o)| ≤ bound(η)."""
    pair = gaussian(sigma, shift=shift)
    eta = shift / sigma

    def holds(size: int, rng: np.random.Generator) -> np.ndarray:
        return np.abs(pair.privacy_loss(pair.sample("D", size, rng))) <= bound(eta)

    return holds


class JacobianFreeObjPert(op.ObjPertPair):
    """ObjPert whose privacy loss keeps only the Gaussian terms of the change of variables:
    log N(b(θ; D); 0, σ²I) − log N(b(θ; D'); 0, σ²I), the log det ∇²J(θ; D) − log det ∇²J(θ; D') of its
    Jacobian dropped (the sampler is right)."""

    def privacy_loss(self, outputs):
        theta = theta_rows(outputs, self.output_dim)
        b_d, b_dp = (self.noise_from_release(world, theta) for world in ("D", "D'"))
        return (np.einsum("ti,ti->t", b_dp, b_dp) - np.einsum("ti,ti->t", b_d, b_d)) / (2 * self.sigma**2)


#: ObjPert's loss is not affine in its noise (importance sampling certifies no pass): its claim is one plain
#: sampling resolves, like OPS's.
OBJPERT_DELTA = 1e-2
#: Theorem 5 for the logistic loss (ξ = 1, β = 1/4) at the claim (1, 1e-2): σ ≈ 6.81, λ = 2β/ε = 0.5.
OBJPERT_SIGMA, OBJPERT_LAM = op.theorem5_calibration(EPSILON, OBJPERT_DELTA, "logistic")
#: The regulariser of the mutant: fifty times below Theorem 5's λ ≥ 2β/ε.
OBJPERT_SMALL_LAM = OBJPERT_LAM / 50
#: A smaller σ for the loss mutant, so that releases land where the Jacobian term matters more often (at
#: Theorem 5's σ ≈ 6.8 the release is mostly far out, where the logistic curvature and that term vanish):
#: with λ = 0.5 the pair is still (1, 2.1e-4)-DP (exact δ(1) by quadrature, tests/test_mutants.py).
OBJPERT_LOSS_SIGMA = 3.0


def _objpert(lam: float = OBJPERT_LAM, sigma: float = OBJPERT_SIGMA, cls=op.ObjPertPair) -> op.ObjPertPair:
    """Logistic ObjPert on the smallest instance where the Jacobian matters: d = 1, D = {(1, +1), (0.1, +1)},
    the first row removed (D' keeps only a row of little curvature); Theorem 5's σ and λ unless said."""
    X, y = np.array([[1.0], [0.1]]), np.array([1.0, 1.0])
    return cls(X, y, X[0], 1.0, relation="remove", mechanism=op.ObjPertMechanism(lam, sigma))


class UpperTriangleGoe(ag.GoeAnalyzeGaussPair):
    """The GOE release with its noise drawn as iid N(0, σ₃²) on the upper triangle (diagonal included) and
    copied to the lower one: symmetric, but the diagonal has sd σ₃ where [RW] Algorithm 6's (Z + Zᵀ)/√2 has
    √2σ₃.  ``privacy_loss`` is exact for that noise (sd σ₃ everywhere); the guarantee claimed is Algorithm 6's."""

    def __init__(self, h, delta, sigma3, neighbour="add"):
        super().__init__(h, delta, sigma3, neighbour)
        self.noise_sd = np.full(self.output_dim, self.sigma3)

    def _noise(self, size, rng):  # vech of the upper triangle: iid N(0, σ₃²), drawn as the view's replay draws it
        return self.noise_sd * rng.standard_normal((size, self.output_dim))


class ReplayedGoe(ag.GoeAnalyzeGaussPair):
    """Algorithm 6's release with its noise drawn in the coordinates of its noise view -- vech(Z + Zᵀ)/√2 has
    independent coordinates of sd √2σ₃ (diagonal) and σ₃: the same law as the literal draw of Z, but one the view's
    replay reproduces (:mod:`pdp_audit.verify.estimators.view_replay`), so importance sampling may rest on it."""

    #: its ``sample`` is its declared Gaussian law (pdp_audit.verify.estimators.view_replay)
    built_from_law = True

    def _noise(self, size, rng):
        return self.noise_sd * rng.standard_normal((size, self.output_dim))


#: Algorithm 6's σ₃ for (1, 1e-6)-DP over ‖H_x‖_F ≤ 1 (exact: whitened sensitivity 1/√2, Balle & Wang).
GOE_SIGMA3 = g.analytic_sigma(EPSILON, TWIN_DELTA, 1 / math.sqrt(2))


def _goe(cls=None) -> ag.GoeAnalyzeGaussPair:
    """The release of XᵀX (d = 2, four rows in the unit ball) at :data:`GOE_SIGMA3`, the neighbour adding the
    record x = (1, 0): ΔH = xxᵀ lies on the diagonal, the case the missing √2 hurts most."""
    X = np.array([[0.6, 0.3], [-0.2, 0.5], [0.4, -0.4], [0.1, 0.9]])
    x = np.array([1.0, 0.0])
    return (cls or ReplayedGoe)(X.T @ X, np.outer(x, x), GOE_SIGMA3, "add")


class LaplacePair:
    """The Laplace mechanism on a count (Δ = 1) at scale ``b``: o = q + Lap(b), q = 0 on D and 1 on D'.  Its
    loss L = (|o − 1| − |o|)/b has atoms at ±1/b: with b = Δ/ε the claim (ε, 0) is exactly tight, and the
    atom's floating-point rounding differs between the worlds (:func:`pdp_audit.mechanisms.base.at_loss_resolution`)."""

    output_dim = 1

    def __init__(self, b: float):
        self.b = b

    def sample(self, world, size, rng):
        return (0.0 if world == "D" else 1.0) + rng.laplace(0.0, self.b, (size, 1))

    def privacy_loss(self, outputs):
        o = np.asarray(outputs)[:, 0]
        return (np.abs(o - 1.0) - np.abs(o)) / self.b


#: The Laplace claim: ε = 1/2 (so Δ·ε and Δ/ε differ), δ one plain sampling resolves (no noise view).
LAPLACE_EPSILON, LAPLACE_DELTA = 0.5, 1e-2

RHO = 0.05
#: OPS has no noise view (no importance sampling): its claim is one plain sampling resolves.
OPS_DELTA = 1e-2
_Z = float(stats.norm.isf(RHO / 2))
S_TWIN = g.analytic_sigma(EPSILON, TWIN_DELTA)


def _twin() -> PairCase:
    return PairCase(gaussian(S_TWIN))


def _twin_with_view() -> PairCase:
    pair = gaussian(S_TWIN)  # its own loss and view: the suite's pair, whose view keeps its bound
    return PairCase(LossOf(pair, pair.privacy_loss, view_sigma=S_TWIN))


def _nan(fraction: str) -> Callable:
    def loss(outputs):
        out = gaussian(S_TWIN).privacy_loss(outputs)
        out[:: 1 if fraction == "all" else 2] = np.nan
        return out

    return loss


class RandomizedResponse:
    """``reports`` independent randomized-response reports of one bit (1 on D, 0 on D'), each kept with
    probability p = e^{ε₀}/(1 + e^{ε₀}); the privacy loss sums the first ``loss_reports`` reports' ±ε₀.  With
    every report in the loss it is exact; with fewer it is the exact loss of a post-processing (the reports
    it reads), which every identity on events of the loss accepts."""

    def __init__(self, eps0: float, reports: int = 2, loss_reports: int | None = None):
        self.eps0, self.output_dim = eps0, reports
        self.loss_reports = reports if loss_reports is None else loss_reports
        self.p = math.exp(eps0) / (1 + math.exp(eps0))

    def sample(self, world, size, rng):
        bit = 1.0 if world == "D" else 0.0
        return np.where(rng.random((size, self.output_dim)) < self.p, bit, 1.0 - bit)

    def privacy_loss(self, outputs):
        return self.eps0 * (2 * np.asarray(outputs)[:, : self.loss_reports] - 1).sum(axis=1)


def two_reports_delta(eps0: float, epsilon: float) -> float:
    """Exact δ(ε) of two reports at ε₀: L ∈ {2ε₀, 0, −2ε₀} with P_D = (p², 2p(1 − p), (1 − p)²), so
    δ(ε) = p² − e^ε(1 − p)² for 0 ≤ ε < 2ε₀ and 0 beyond."""
    p = math.exp(eps0) / (1 + math.exp(eps0))
    return 0.0 if epsilon >= 2 * eps0 else p**2 - math.exp(epsilon) * (1 - p) ** 2


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "noise-halved",
        "The Gaussian mechanism adds N(0, (σ/2)²): the noise scale halved, the (1, 1e-5) claim kept",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(gaussian(S_TWIN / 2)),
        _twin,
    ),
    Mutant(
        "variance-as-scale",
        "σ² computed by the calibration is passed where the noise's standard deviation is expected, so the "
        "noise has standard deviation √σ (σ > 1)",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(gaussian(math.sqrt(S_TWIN))),
        _twin,
    ),
    Mutant(
        "laplace-scale-times-epsilon",
        "The Laplace mechanism with scale Δ·ε where Δ/ε was meant (b = 0.5 instead of 2 at ε = 0.5: a true ε of 2), "
        "still claiming (0.5, 1e-2); the twin (b = 1.5/ε) is (0.5/1.5, 0)-DP, its loss an atom",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(LaplacePair(LAPLACE_EPSILON), LAPLACE_EPSILON, LAPLACE_DELTA),
        lambda: PairCase(LaplacePair(mutant_pairs.TWIN_MARGIN / LAPLACE_EPSILON), LAPLACE_EPSILON, LAPLACE_DELTA),
    ),
    Mutant(
        "loss-sigma-not-squared",
        "The privacy loss divides by 2σ where 2σ² was meant (the sampler is right)",
        ("loss-consistency",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), lambda o: gaussian(S_TWIN).privacy_loss(o) * S_TWIN)),
        _twin,
    ),
    Mutant(
        "classical-missing-2",
        "The classical calibration without its factor 2: σ = Δ√(log(1.25/δ))/ε instead of Δ√(2 log(1.25/δ))/ε",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(gaussian(math.sqrt(math.log(1.25 / DELTA)) / EPSILON)),
        lambda: PairCase(gaussian(g.classical_sigma(EPSILON, DELTA))),
    ),
    Mutant(
        "analytic-wrong-delta",
        "The analytic Gaussian calibrated at δ = 1e-4 while (1, 1e-5) is claimed",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(gaussian(g.analytic_sigma(EPSILON, 1e-4))),
        _twin,
    ),
    Mutant(
        "one-sided-sensitivity",
        "The mean of n = 3 values in [0, 1] with σ calibrated to the claim for the sensitivity of adding a "
        "record, 1/(n + 1), audited at a removal that moves the mean by 1/3 (removals move it by up to 1/(n − 1))",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(_mean_pair(1 / 4, DELTA)),
        lambda: PairCase(_mean_pair(1 / 2, TWIN_DELTA)),
    ),
    Mutant(
        "ex-post-wrong-sign",
        "Corollary 23's ex-post pDP bound with the sign of its first term flipped: −η²/2 + ηΦ⁻¹(1 − ρ/2) "
        "published as holding w.p. ≥ 1 − ρ",
        ("coverage",),
        lambda: CoverageCase(_ex_post_holds(lambda eta: -(eta**2) / 2 + eta * _Z), RHO, "ex-post pDP bound"),
        lambda: CoverageCase(_ex_post_holds(lambda eta: eta**2 / 2 + eta * _Z), RHO, "ex-post pDP bound"),
    ),
    Mutant(
        "report-without-correction",
        "A privacy report that publishes the ex-post pDP bound without its high-probability correction "
        "ηΦ⁻¹(1 − ρ/2) (only η²/2), as holding w.p. ≥ 1 − ρ",
        ("coverage",),
        lambda: CoverageCase(_ex_post_holds(lambda eta: eta**2 / 2), RHO, "ex-post pDP bound"),
        lambda: CoverageCase(_ex_post_holds(lambda eta: eta**2 / 2 + eta * _Z), RHO, "ex-post pDP bound"),
    ),
    Mutant(
        "ops-transposed-cholesky",
        "One-Posterior-Sample drawn with the transposed factor: covariance (LᵀL)⁻¹ instead of (LLᵀ)⁻¹ = P⁻¹ "
        "((RRᵀ)⁻¹ for (RᵀR)⁻¹); the loss is written for P⁻¹",
        ("loss-consistency",),
        lambda: PairCase(_ops(TransposedCholeskyOPS), delta=OPS_DELTA),
        lambda: PairCase(_ops(lr.OPSPair), delta=OPS_DELTA),
    ),
    Mutant(
        "swapped-worlds",
        "The privacy loss written as log p_D'(o) − log p_D(o) (worlds swapped)",
        ("loss-consistency",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), lambda o: -gaussian(S_TWIN).privacy_loss(o))),
        _twin,
    ),
    Mutant(
        "nan-loss",
        "A user's pair whose privacy_loss returns NaN for every release",
        ("pair-protocol",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), _nan("all"))),
        _twin,
    ),
    Mutant(
        "half-nan-loss",
        "A user's pair whose privacy_loss returns NaN for every other release",
        ("pair-protocol",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), _nan("half"))),
        _twin,
    ),
    Mutant(
        "misaligned-losses",
        "A user's pair whose privacy_loss returns one value fewer than the releases it was given",
        ("pair-protocol",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), lambda o: gaussian(S_TWIN).privacy_loss(o)[:-1])),
        _twin,
    ),
    Mutant(
        "loss-for-other-sigma",
        "A user's pair sampling at σ = 1 with its loss (and noise view) written for σ = 3",
        ("loss-consistency", "noise-view"),
        lambda: PairCase(LossOf(gaussian(1.0), gaussian(3.0).privacy_loss, view_sigma=3.0)),
        _twin_with_view,
    ),
    Mutant(
        "sampler-half-sigma",
        "A user's pair sampling at σ/2 with its loss written for σ (σ calibrated to the claim)",
        ("loss-consistency",),
        lambda: PairCase(LossOf(gaussian(S_TWIN / 2), gaussian(S_TWIN).privacy_loss)),
        _twin,
    ),
    Mutant(
        "loss-for-double-sigma",
        "A user's pair whose loss is written for 2σ",
        ("loss-consistency",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), gaussian(2 * S_TWIN).privacy_loss)),
        _twin,
    ),
    Mutant(
        "inconsistent-noise-view",
        "A user's pair whose noise view (used by importance sampling) has σ/2 while sample() uses σ",
        ("noise-view",),
        lambda: PairCase(LossOf(gaussian(S_TWIN), gaussian(S_TWIN).privacy_loss, view_sigma=S_TWIN / 2)),
        _twin_with_view,
    ),
    Mutant(
        "objpert-no-log-det",
        "Objective perturbation whose privacy loss drops the log-determinant (Jacobian) term "
        "log det ∇²J(θ; D) − log det ∇²J(θ; D') of its exact change-of-variables loss (the sampler is right)",
        ("loss-consistency",),
        lambda: PairCase(_objpert(sigma=OBJPERT_LOSS_SIGMA, cls=JacobianFreeObjPert), delta=OBJPERT_DELTA),
        lambda: PairCase(_objpert(sigma=OBJPERT_LOSS_SIGMA), delta=OBJPERT_DELTA),
    ),
    Mutant(
        "objpert-small-lambda",
        "Objective perturbation (logistic loss) with λ = 0.01, fifty times below Theorem 5's λ ≥ 2β/ε = 0.5, "
        "still claiming Theorem 5's (1, 1e-2) at its σ (its loss is exact)",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(_objpert(OBJPERT_SMALL_LAM), delta=OBJPERT_DELTA),
        lambda: PairCase(_objpert(), delta=OBJPERT_DELTA),
    ),
    Mutant(
        "two-reports-loss-of-one",
        "Two randomized-response reports at ε₀ = 1 whose privacy loss reads only the first (the exact loss of a "
        "post-processing): true δ(1) = e(e − 1)/(1 + e)² ≈ 0.34 against the claim (1, 1e-3); the twin, two reports "
        "at ε₀ = 1/3 with the loss of both, is (2/3, 0)-DP",
        ("loss-consistency",),
        lambda: PairCase(RandomizedResponse(1.0, loss_reports=1), delta=1e-3),
        lambda: PairCase(RandomizedResponse(0.5 / mutant_pairs.TWIN_MARGIN), delta=1e-3),
    ),
    Mutant(
        "goe-upper-triangle",
        "The GOE release of XᵀX with iid N(0, σ₃²) noise on the upper triangle copied to the lower one: the "
        "diagonal noise has sd σ₃, not Algorithm 6's √2σ₃, and Algorithm 6's (1, 1e-5) at σ₃ is still claimed",
        ("dp-forward", "dp-reverse"),
        lambda: PairCase(_goe(UpperTriangleGoe)),
        lambda: PairCase(_goe()),
    ),
    *mutant_pairs.mutants(Mutant, PairCase),
)
