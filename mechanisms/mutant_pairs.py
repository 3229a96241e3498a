"""Mutants of users' own pairs (the classes that passed before ``sample()`` became the truth): a noise view that
omits a rare branch of the sampler, a view narrower than the sampler, a release of the input claimed at a large ε,
a heavy-tailed mechanism over its claim, a discrete count that now and then reveals its input, many geometric counts
over a small claimed δ, and a pure claim broken by a scale too small.

Each is a pair as a user writes it -- ``sample`` and the exact ``privacy_loss``, some with a noise view (Gaussian:
``noise_dim``, ``noise_sigma``, ``release_from_noise``; Laplace or geometric: ``noise_law``, ``noise_scale``) --
audited by
:func:`pdp_audit.verify.evidence.pair_checks.validated_dp_checks`.  Their true δ(ε) are computed exactly in
``tests/test_pair_claims.py`` (closed forms of the Gaussian and Laplace profiles, quadrature for Student's t,
enumeration of the geometric laws).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.stats import norm

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms.release_precision_pairs import GaussianF32, LaplaceF32


class GaussianWithView:
    """A sum of sensitivity 1 plus N(0, σ²) with a noise view whose σ is ``view_factor`` × the sampler's (1: a
    correct view)."""

    output_dim = 1
    noise_dim = 1

    def __init__(self, sigma: float, view_factor: float = 1.0):
        self.sigma = sigma
        self.noise_sigma = np.array([sigma * view_factor])

    @property
    def built_from_law(self) -> bool:
        """A correct view (factor 1) is its sampler's law by construction: a pair the suite wrote, whose view keeps its
        bound (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`); a narrower view is not."""
        return bool(np.all(self.noise_sigma == self.sigma))

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

    @property
    def built_from_law(self) -> bool:
        """Without the leak (p = 0) its ``sample`` is the view's law by construction; with it, it is not."""
        return self.p == 0

    def sample(self, world, size, rng):
        # the noise first, as the view's replay draws it (pdp_audit.verify.estimators.view_replay): at p = 0 the
        # view replays the sampler exactly; at p > 0 it departs on the leaking rows only
        noise = self.sigma * rng.standard_normal(size)
        leak = rng.random(size) < self.p
        o = np.where(leak, self.mean(world), self.mean(world) + noise)
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


class ViewedShiftedLaplace(ShiftedLaplace):
    """:class:`ShiftedLaplace` with its Laplace noise view, drawn as the view's replay draws it: a pure claim at
    ε ≥ shift/b rests on the bounded-loss proof."""

    noise_law = "laplace"
    noise_dim = 1
    #: its ``sample`` is the declared Laplace law by construction, at either scale: a pair the suite built, whose
    #: pure claim the bounded-loss proof decides where it applies
    #: (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`)
    built_from_law = True

    @property
    def noise_scale(self):
        return self.scale

    def release_from_noise(self, world, noise):
        return (0.0 if world == "D" else self.shift) + noise


class NoisyHistogram:
    """A histogram of ``bins`` counts plus Laplace or two-sided geometric noise of scale b = ``factor`` · 2/ε per bin
    (``law``), with its noise view (``noise_law``, ``noise_scale``): D' moves one record from bin 0 to bin 1
    (replace-one neighbours, L1 sensitivity 2), so the pair is exactly (2/b, 0)-DP -- (ε, 0) at ``factor`` 1, and
    (1.25ε, 0) at 0.8, where δ(ε) is large (``tests/test_pair_claims.py`` computes it)."""

    #: its ``sample`` is its declared law by construction, at every factor: a pair the suite wrote, whose view keeps
    #: its bound (:func:`pdp_audit.verify.estimators.view_replay.built_from_law`)
    built_from_law = True

    def __init__(self, epsilon: float, factor: float = 1.0, law: str = "laplace", bins: int = 8):
        self.noise_law, self.noise_dim, self.output_dim = law, bins, bins
        self.noise_scale = factor * 2.0 / epsilon
        self.base = np.arange(bins, dtype=float) + 5.0

    def counts(self, world):
        moved = np.zeros(self.noise_dim)
        moved[:2] = (-1.0, 1.0) if world == "D'" else (0.0, 0.0)
        return self.base + moved

    def sample(self, world, size, rng):
        shape = (size, self.noise_dim)
        if self.noise_law == "laplace":
            noise = rng.laplace(0.0, self.noise_scale, shape)
        else:  # the difference of two geometric counts is two-sided geometric
            p = -np.expm1(-1.0 / self.noise_scale)
            noise = (rng.geometric(p, shape) - rng.geometric(p, shape)).astype(float)
        return self.counts(world) + noise

    def release_from_noise(self, world, noise):
        return self.counts(world) + noise

    def privacy_loss(self, outputs):
        return (
            np.sum(np.abs(outputs - self.counts("D'")) - np.abs(outputs - self.counts("D")), axis=1) / self.noise_scale
        )


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


class Shift:
    """o = x_w + N(0, σ²I_d), x_D = (1, …, 1), x_D' = 0; the loss uses the first ``loss_coordinates`` coordinates
    and is written for ``loss_sigma`` (default σ), clipped at ±``clip``; ``view``: the Gaussian noise view."""

    # its sample() is always its declared view's law (the mutations are in the loss; subclasses that change the
    # sampler do not inherit this: view_replay.built_from_law reads the class's own body)
    built_from_law = True

    def __init__(self, sigma, d=1, loss_coordinates=None, loss_sigma=None, clip=None, view=False):
        self.sigma, self.output_dim = sigma, d
        self.k, self.loss_sigma, self.clip = loss_coordinates or d, loss_sigma or sigma, clip
        if view:
            self.noise_dim, self.noise_sigma = d, sigma

    def release_from_noise(self, world, noise):
        return (1.0 if world == "D" else 0.0) + noise

    def sample(self, world, size, rng):
        return self.release_from_noise(world, self.sigma * rng.standard_normal((size, self.output_dim)))

    def privacy_loss(self, outputs):
        loss = ((2 * outputs[:, : self.k] - 1) / (2 * self.loss_sigma**2)).sum(axis=1)
        return loss if self.clip is None else np.clip(loss, -self.clip, self.clip)


class RareBranch(Shift):
    """With probability p the mechanism releases its input x_w itself (a debug branch); the loss is the
    Gaussian one.  True δ(ε) = p + (1 − p)·δ_G(ε): the atom x_D has P_D' = 0, and the Gaussian parts add their
    own hockey-stick divergence."""

    def __init__(self, sigma, p):
        super().__init__(sigma)
        self.p = p

    def sample(self, world, size, rng):
        releases = super().sample(world, size, rng)
        releases[rng.random(size) < self.p, 0] = 1.0 if world == "D" else 0.0
        return releases


class Truncated(Shift):
    """Noise N(0, σ²) truncated to [−T, T] (inverse CDF); the loss is the untruncated Gaussian one.  On the
    overlap [1 − T, T] of the supports the normalisers cancel and the loss is exact; o ∈ (T, 1 + T] happens only
    under D (true L = +∞).  With (2T − 1)/(2σ²) < ε nothing else exceeds ε: true δ(ε) = P_D(o > T) =
    (Φ(T/σ) − Φ((T − 1)/σ)) / (2Φ(T/σ) − 1)."""

    def __init__(self, sigma, bound):
        super().__init__(sigma)
        self.bound = bound

    def sample(self, world, size, rng):
        lo, hi = norm.cdf(-self.bound / self.sigma), norm.cdf(self.bound / self.sigma)
        noise = self.sigma * norm.ppf(lo + (hi - lo) * rng.random((size, 1)))
        return (1.0 if world == "D" else 0.0) + noise

    def true_delta(self):
        s, t = self.sigma, self.bound
        return (norm.cdf(t / s) - norm.cdf((t - 1) / s)) / (2 * norm.cdf(t / s) - 1)


class DrawsGaussian:
    """Releases 1 + N(0, σ²) on D and N(0, σ²) on D' (sensitivity 1), drawn from the generator given."""

    output_dim = 1

    def __init__(self, sigma: float = 4.0):
        self.sigma = sigma

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + self.sigma * self.noise(size, rng)

    def noise(self, size, rng):
        return rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return (o**2 - (o - 1.0) ** 2) / (2 * self.sigma**2)


class GlobalNumpy(DrawsGaussian):
    """Draws from the global np.random state, ignoring its rng: another run, other numbers."""

    def noise(self, size, rng):
        return np.random.standard_normal((size, 1))


class OwnGenerator(DrawsGaussian):
    """Draws from a generator of its own, created once: its state moves on between calls, whatever rng is."""

    def __init__(self, sigma: float = 4.0):
        super().__init__(sigma)
        self.own = np.random.default_rng(123)

    def noise(self, size, rng):
        return self.own.standard_normal((size, 1))


class Reseeding(DrawsGaussian):
    """Reseeds itself on every call: every block of the engine is the same block."""

    def noise(self, size, rng):
        return np.random.default_rng(0).standard_normal((size, 1))


class InPlaceLoss(GaussianWithView):
    """:class:`GaussianWithView` whose ``privacy_loss`` writes into the array it is given (it centres it in place): a
    correct pair the suite must not fail for reusing that array."""

    def privacy_loss(self, outputs):
        outputs -= 0.5  # in place: o − 1/2
        return -outputs[:, 0] / self.sigma**2


class WideLaplace:
    """A histogram of ``bins`` counts with Laplace noise and its view, one count moved by one: exactly (1/b, 0)-DP;
    over a thousand coordinates the view's loss bound sums to 1/b plus rounding (issue: log Z ≈ 1700 overflowed)."""

    noise_law = "laplace"
    built_from_law = True  # its sample() is its declared Laplace law (a pair the suite wrote): the proof applies

    def __init__(self, scale: float, bins: int = 1000):
        self.noise_scale, self.noise_dim, self.output_dim = scale, bins, bins
        self.base = np.full(bins, 10.0)
        self.moved = self.base.copy()
        self.moved[0] += 1.0

    def centre(self, world):
        return self.base if world == "D" else self.moved

    def sample(self, world, size, rng):
        return self.release_from_noise(world, rng.laplace(0.0, self.noise_scale, (size, self.noise_dim)))

    def release_from_noise(self, world, noise):
        return self.centre(world) + noise

    def privacy_loss(self, outputs):
        o = np.atleast_2d(outputs)
        return np.sum(np.abs(o - self.moved) - np.abs(o - self.base), axis=1) / self.noise_scale


class MovedCounts:
    """``d`` counts each one larger on D than on D' (a record in every count), plus two-sided geometric noise of scale
    b per count, with its view: η = d/b, and the loss η − 2λK, K = #{counts whose noise is ≤ −1 on D} ~
    Binomial(d, q/(1 + q)), q = e^{−λ}.  At d = 20, b = 20: δ(0.9) = 1.5e-7, decided at 1e5 only by a tilt along the
    loss (issue: tilting along the noise gave estimates 1e11 too small); at b = 16, δ(0.9) = 3.5e-5."""

    noise_law = "geometric"
    built_from_law = True  # its sample() is its declared geometric law (a pair the suite wrote): the view's bound

    def __init__(self, d: int = 20, scale: float = 20.0):
        self.noise_dim = self.output_dim = d
        self.noise_scale = scale

    def centre(self, world):
        return np.full(self.noise_dim, 1.0 if world == "D" else 0.0)

    def sample(self, world, size, rng):
        p = -np.expm1(-1.0 / self.noise_scale)
        shape = (size, self.noise_dim)
        return self.release_from_noise(world, (rng.geometric(p, shape) - rng.geometric(p, shape)).astype(float))

    def release_from_noise(self, world, noise):
        return self.centre(world) + noise

    def privacy_loss(self, outputs):
        gaps = np.abs(outputs - self.centre("D'")) - np.abs(outputs - self.centre("D"))
        return np.sum(gaps, axis=1) / self.noise_scale


class RevealingCount:
    """A count (1 on D, 0 on D') plus two-sided geometric noise of scale b, with its geometric view: exactly
    (1/b, 0)-DP -- except that with probability ``p`` a debug path releases the exact count marked by a half
    (x + 1/2), a release the other world never makes (L = ±∞; the view omits that path).  True δ(ε) = p for
    ε ≥ 1/b: the draws impossible under D' decide it by their count alone
    (:func:`pdp_audit.verify.evidence.pair_claims.atom_estimate`)."""

    noise_law = "geometric"
    noise_dim = output_dim = 1

    def __init__(self, scale: float = 1.0, p: float = 0.0):
        self.noise_scale, self.p = scale, p

    @property
    def built_from_law(self) -> bool:
        """Without the debug path (p = 0) its ``sample`` is its declared geometric law by construction."""
        return self.p == 0

    @staticmethod
    def count(world: str) -> float:
        return 1.0 if world == "D" else 0.0

    def sample(self, world, size, rng):
        # the noise first, as the view's replay draws it: at p = 0 the view replays the sampler exactly
        q = -np.expm1(-1.0 / self.noise_scale)
        releases = self.release_from_noise(world, (rng.geometric(q, (size, 1)) - rng.geometric(q, (size, 1))) * 1.0)
        releases[rng.random(size) < self.p, 0] = self.count(world) + 0.5
        return releases

    def release_from_noise(self, world, noise):
        return self.count(world) + np.asarray(noise, dtype=float)

    def privacy_loss(self, outputs):
        o = np.asarray(outputs)[:, 0]
        revealed = o != np.round(o)  # a marked count: 1.5 only on D, 0.5 only on D'
        geometric = (np.abs(o) - np.abs(o - 1.0)) / self.noise_scale
        return np.where(revealed, np.where(o > 1.0, np.inf, -np.inf), geometric)


SIGMA_CLAIM, SIGMA_TWIN = g.analytic_sigma(1.0, 1e-5), g.analytic_sigma(1.0, 1e-6)
#: σ whose true δ(1) is ≈ 1.3e-5 (1.3× the claim; tests/test_pair_claims.py computes it): the narrow view's sampler.
SIGMA_OVER = 3.67
#: σ of the clipped-loss mutant: the Gaussian σ of (2.5, 5e-2), so that δ(2.5) = 5e-2 = 10× its claim.
S_CLIP = g.analytic_sigma(2.5, 5e-2)
#: Student's t scales: δ(1) ≈ 3.4e-3 at 1.1 (3.4× a claim of 1e-3), exactly 0 at 1.2 (the loss stays below 1).
T_BROKEN, T_TWIN = 1.1, 1.4
#: Twins whose loss has an atom at ε get this much more noise than the claim needs: without a noise view the draws
#: pin the loss's scale only to about ±8% at 1e5 and ±20% at the quick zoo's 2e4
#: (pdp_audit.verify.estimators.loss_scale_band),
#: so a mechanism exactly at its claimed ε with δ below that band's effect is certifiable only through its view.
TWIN_MARGIN = 1.5
#: The revealing path's probability: about 100 of 1e5 draws (20 of the quick zoo's 2e4) impossible in the other world.
REVEALING_P = 1e-3
#: MovedCounts' scales: 16 gives δ(0.9) = 3.5e-5 (35× a claim of 1e-6), 20 gives 1.5e-7 (tests/test_pair_claims.py).
MOVED_BROKEN, MOVED_TWIN = 16.0, 20.0


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
            "δ(20) ≈ 1, where differences of plain intervals cannot refute once e^ε ≫ n; the twin (scale 1/4) is (4, "
            "0)-DP (where e^{−L} < 1/n no draw bounds a loss's scale from above: a loss near 20 needs a noise view)",
            ("dp-forward", "dp-reverse"),
            lambda: case(ShiftedLaplace(1e-3), 20.0, 1e-5),
            lambda: case(ShiftedLaplace(1 / 4), 20.0, 1e-3),
        ),
        mutant(
            "student-t-scale-too-small",
            "Student-t(3) noise of scale 1.1 on a sensitivity-1 query claimed (1, 1e-3): heavy tails, true δ(1) ≈ "
            "3.4e-3; the twin's scale 1.4 keeps the loss below 0.82 (δ(1) = 0 with the margin a loss's scale needs)",
            ("dp-forward", "dp-reverse"),
            lambda: case(StudentT(T_BROKEN), 1.0, 1e-3),
            lambda: case(StudentT(T_TWIN), 1.0, 1e-3),
        ),
        mutant(
            "loss-clipped-at-2",
            "A user's loss clipped to [−2, 2] (a guard against overflow) for a Gaussian mechanism claimed (2.5, 5e-3): "
            "the tails the claim rests on vanish; true δ(2.5) = 5e-2",
            ("loss-consistency",),
            lambda: case(Shift(S_CLIP, clip=2.0), 2.5, 5e-3),
            lambda: case(Shift(g.analytic_sigma(2.5, 1e-6)), 2.5, 5e-3),
        ),
        mutant(
            "rare-branch-finite-loss",
            "With probability 0.1 the mechanism releases its input (a debug branch) and the loss treats that release "
            "as Gaussian noise: true δ(1) ≈ 0.1 against a claim of 1e-2",
            ("loss-consistency", "dp-forward"),
            lambda: case(RareBranch(SIGMA_CLAIM, 0.1), 1.0, 1e-2),
            lambda: case(Shift(SIGMA_CLAIM), 1.0, 1e-2),
        ),
        mutant(
            "truncated-noise-untruncated-loss",
            "Gaussian noise truncated at 8 = 2σ (a bounded-output requirement) audited with the untruncated loss: "
            "releases above 8 occur only under D (true δ(1) ≈ 1.8e-2 against a claim of 5e-3)",
            ("loss-consistency", "dp-forward"),
            lambda: case(Truncated(4.0, 8.0), 1.0, 5e-3),
            lambda: case(Shift(4.0), 1.0, 5e-3),
        ),
        mutant(
            "reseeds-every-call",
            "sample() reseeds a generator of its own on every call: every block of draws is the same block, 1e5 "
            "releases counted from a few thousand distinct ones",
            ("pair-protocol",),
            lambda: case(Reseeding(SIGMA_TWIN), 1.0, 1e-2),
            lambda: case(DrawsGaussian(SIGMA_TWIN), 1.0, 1e-2),
        ),
        mutant(
            "float32-noise-halved",
            "A float32 Gaussian release (with its noise view) whose σ is half the calibrated one, claim (1, 1e-5)",
            ("dp-forward", "dp-reverse"),
            lambda: case(GaussianF32(SIGMA_TWIN / 2)),
            lambda: case(GaussianF32(SIGMA_TWIN)),
        ),
        mutant(
            "float32-laplace-scale-halved",
            "A float32 Laplace release of a count with scale 1/(2ε) where 1/ε was meant, claim (1, 1e-3); the twin "
            "(scale 1.5/ε) is (1/1.5, 0)-DP, its loss an atom that float32 rounding spreads",
            ("dp-forward", "dp-reverse"),
            lambda: case(LaplaceF32(0.5), 1.0, 1e-3),
            lambda: case(LaplaceF32(TWIN_MARGIN), 1.0, 1e-3),
        ),
        mutant(
            "laplace-histogram-scale-0.8",
            "A Laplace histogram (8 bins, replace-one neighbours) with its Laplace noise view, noise scale 0.8 × 2/ε: "
            "its ε is 1.25, δ(1) ≈ 0.06 against a claim of 1e-6; the correct twin is decided at 1e5 by exponential "
            "tilting of its view",
            ("dp-forward", "dp-reverse"),
            lambda: case(NoisyHistogram(1.0, 0.8), 1.0, 1e-6),
            lambda: case(NoisyHistogram(1.0), 1.0, 1e-6),
        ),
        mutant(
            "geometric-histogram-scale-0.8",
            "The same histogram with two-sided geometric (discrete Laplace) noise and a geometric view: δ(1) ≈ 0.09 "
            "against a claim of 1e-6; the twin is decided by tilting of the geometric law",
            ("dp-forward", "dp-reverse"),
            lambda: case(NoisyHistogram(1.0, 0.8, "geometric"), 1.0, 1e-6),
            lambda: case(NoisyHistogram(1.0, 1.0, "geometric"), 1.0, 1e-6),
        ),
        mutant(
            "geometric-count-reveals-input",
            "A count with two-sided geometric noise of scale 1 (exactly (1, 0)-DP, with its view) whose debug path "
            "releases the exact count marked by a half with probability 1e-3, a release the other input never makes "
            "(L = ±∞) and the view omits: true δ(1) = 1e-3 against a claim of 1e-6, refuted by that count alone; the "
            "twin without the debug path passes through its replayed view",
            ("dp-forward", "dp-reverse"),
            lambda: case(RevealingCount(1.0, REVEALING_P), 1.0, 1e-6),
            lambda: case(RevealingCount(1.0), 1.0, 1e-6),
        ),
        mutant(
            "geometric-counts-scale-too-small",
            "20 counts each moved by one (a record in every count) with two-sided geometric noise of scale 16 where "
            "20 = d/η was needed, claimed (0.9, 1e-6) with its view: δ(0.9) = 3.5e-5; the twin (scale 20, δ(0.9) = "
            "1.5e-7) is decided by the tilt along the loss",
            ("dp-forward", "dp-reverse"),
            lambda: case(MovedCounts(20, MOVED_BROKEN), 0.9, 1e-6),
            lambda: case(MovedCounts(20, MOVED_TWIN), 0.9, 1e-6),
        ),
        mutant(
            "pure-claim-scale-too-small",
            "The Laplace mechanism with scale 1/1.1 on a sensitivity-1 query claims pure (1, 0)-DP: its ε is 1.1, "
            "δ(1) = 1 − e^(−0.05); the twin's scale 1 is exactly (1, 0)-DP",
            ("dp-forward", "dp-reverse"),
            lambda: case(ViewedShiftedLaplace(1 / 1.1), 1.0, 0.0),
            lambda: case(ViewedShiftedLaplace(1.0), 1.0, 0.0),
        ),
    )
