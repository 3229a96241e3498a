"""Importance sampling for Laplace and two-sided geometric noise: exponential tilting through a generalised noise view.

**The generalised view.**  A pair declares ``noise_law = "laplace"`` or ``"geometric"`` (``"gaussian"``, or no
``noise_law`` at all, is the Gaussian view of :mod:`pdp_audit.verify.estimators.rare`, unchanged), ``noise_scale`` b (a
scalar
or a length-k vector), ``noise_dim`` k and ``release_from_noise(world, noise)``; the release on ``world`` is
``release_from_noise(world, n)`` with n drawn from the law, coordinatewise independent, of rate λ = 1/b:

    laplace:    density (λ/2) e^{−λ|n|}, n real;
    geometric:  P(n) = (1 − q)/(1 + q) q^{|n|}, q = e^{−λ}, n integer (the discrete Laplace law).

Both have log f(n) = const − λ|n|.  When the view is a translation, ``release_from_noise(world, n) = c_world + n``
(verified on every draw), the privacy loss of the view's law in the direction P‖Q (P the world drawn, Q the other)
is the **L1 form**

    ℓ(n) = Σ_j λ_j (|n_j + d_j| − |n_j|),     d = c_P − c_Q,                                          (1)

whose supremum is η = Σ_j λ_j|d_j| (pure (η, 0)-DP).  With s_j = sign(d_j), a_j = |d_j| and the clipped coordinate
v_j = max(s_j n_j, −a_j) ∈ [−a_j, ∞), each term is λ_j a_j + 2λ_j min(0, v_j), so

    ℓ(n) = η + 2 Σ_j λ_j min(0, v_j),     ℓ > ε  ⟺  Σ_j λ_j min(0, v_j) > −m,   m = (η − ε)/2.          (2)

**The tilted proposal** (exponential tilting, Siegmund 1976; Bucklew 2004, ch. 5) is f tilted along the clipped
coordinates, θ_j = τλ_j (0 ≤ τ < 1 keeps it normalisable):

    g(n) = f(n) e^{Σ θ_j v_j} / Z(τ),     Z(τ) = Π_j E_f[e^{θ_j v_j}],     r(n) = f/g = Z(τ) e^{−Σ θ_j v_j},   (3)

a product law drawn exactly piece by piece (y = s_j n_j ≥ 0, −a_j ≤ y < 0, y < −a_j are three exponential or
geometric pieces), so the likelihood ratio r is exact.  τ is chosen so that the proposal's mean loss is ε (the
saddle point, found by bisection on a fixed-seed pilot), or 0 where the event is empty under (1) (ε ≥ η).

**Is a weight bound needed?  Yes.**  The empirical Bernstein interval (:func:`pdp_audit.verify.estimators.rare.
empirical_bernstein_radius`) needs the summands X = (1 − e^{ε−ℓ})₊ r(n) in a known [0, B]: without one, a region the
proposal rarely visits could carry any share of δ and no finite sample can bound it.  Two bounds exist:

* a *global* one, whatever the loss: v_j ≥ −a_j gives r ≤ Z(τ) e^{τη} (the clipping is what makes it finite; the
  plain exponential tilt e^{−θᵀn} is unbounded as n_j → −∞).  It exceeds 1, so it bounds δ no better than plain
  draws of the world's own law (about log(1/α)/n): it is used for nothing but the lower bound's clipping;
* a *structural* one on the event: under (1)–(2), on {ℓ > ε}, Σθ_j v_j ≥ τ Σλ_j min(0, v_j) > −τm, and
  (1 − e^{ε−ℓ})₊ ≤ κ = (1 − e^{ε−η})₊, so

      X ≤ B = κ Z(τ) e^{τ max(m, 0)}.                                                                  (4)

  This is the same kind of assumption as the Gaussian view's: there the half-space bound holds because the loss is
  affine in the noise, which is verified at 8 random points and otherwise assumed.  Here the L1 form (1) of the
  *claimed* loss, and the translation, are verified on **every** proposal draw (at the releases' precision,
  relative tolerance ρ = :func:`pdp_audit.verify.estimators.rare.affine_rtol`), and κ, m include a slack t = 4ρ(1 + η)
  for the
  rounding of the loss.  A draw where the claimed loss or the release departs from (1), or whose summand exceeds B,
  is an *escape*: then the upper bound is +∞ (``certified`` False) and only the lower bound is used.

The lower bound is valid whatever the loss (summands are clipped at B, which only lowers the mean).  The upper
bound is valid for the view's law under the verified structure; the view's law is tested against ``sample()``
(``noise-view``: KS and Mood's scale test on losses drawn from the declared law) and the claimed loss against the
sampler (``loss-consistency``), and the importance-sampled interval is only ever intersected with the plain
estimates of ``sample()``'s own draws (:mod:`pdp_audit.verify.evidence.pair_claims`).  What no check at 1e5 draws
sees -- a branch of ``sample()`` rarer than about 1e-4 that the view and the loss both omit -- this interval cannot
see either.  For a correct pure-DP pair (ε ≥ η) κ is of order t, so the interval is [0, about 1e-11]: the δ it
certifies is that upper end, under the verified structure, never "δ = 0".

Sampling is seeded by the block engine (block j of stream ``s`` draws from ``block_rng(seed, s, j)``), so results
depend on the seed only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms.base import MalformedPair, release_epsilon
from pdp_audit.verify.estimators.engine import BLOCK_SIZE, block_rng, block_sizes
from pdp_audit.verify.estimators.rare import DIRECTIONS, BoundedMean, affine_rtol
from pdp_audit.verify.estimators.tails import hockey_integrand

#: The noise laws a view may declare (``noise_law``); a view without one is Gaussian.
LAWS = ("gaussian", "laplace", "geometric")
TILTED_LAWS = ("laplace", "geometric")
#: Largest tilt τ: the proposal's weights have variance Z(τ)Z(−τ)-like growth as τ → 1.
TAU_MAX = 0.9
PILOT_DRAWS = 4096
BOUND_SLACK = 1e-9


def declared_law(pair) -> str | None:
    """The noise law ``pair`` declares: ``noise_law`` if set, "gaussian" for the Gaussian view's attributes alone,
    None without a view.  MalformedPair for a law that is not one of :data:`LAWS`."""
    law = getattr(pair, "noise_law", None)
    if law is None:
        return "gaussian" if hasattr(pair, "noise_sigma") else None
    if law not in LAWS:
        raise MalformedPair(f"noise_law must be one of {', '.join(LAWS)}, got {law!r}")
    return str(law)


def has_tilted_view(pair) -> bool:
    """Whether ``pair`` declares a Laplace or geometric noise view (validated by :func:`rates`)."""
    return declared_law(pair) in TILTED_LAWS


def rates(pair) -> np.ndarray:
    """λ = 1/``noise_scale`` per noise coordinate; MalformedPair for a view whose attributes are out of range."""
    for name in ("noise_dim", "noise_scale", "release_from_noise", "privacy_loss"):
        if not hasattr(pair, name):
            raise MalformedPair(f"a {pair.noise_law} noise view needs {name}")
    k = int(pair.noise_dim)
    scale = np.broadcast_to(np.asarray(pair.noise_scale, dtype=float), (k,)) if k > 0 else np.zeros(0)
    if k < 1 or not np.all(np.isfinite(scale)) or not np.all(scale > 0):
        raise MalformedPair("noise_dim must be ≥ 1 and noise_scale finite and > 0 (a scalar or one per coordinate)")
    return 1.0 / scale


def draw_noise(law: str, lam: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of the untilted noise (rows of length λ.size): Laplace(0, 1/λ), or the two-sided geometric law
    as the difference of two geometric counts on {0, 1, …} of ratio e^{−λ}."""
    shape = (int(size), lam.size)
    if law == "laplace":
        return rng.laplace(0.0, 1.0 / lam, shape)
    p = -np.expm1(-lam)  # 1 − q
    return (rng.geometric(p, shape) - rng.geometric(p, shape)).astype(float)


def view_losses(view, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """Privacy losses of ``size`` releases drawn through the declared law's view on ``world``."""
    noise = draw_noise(view.noise_law, rates(view), size, rng)
    return np.asarray(view.privacy_loss(view.release_from_noise(world, noise)), dtype=float)


# ------------------------------------------------------------------------------------------------------------------
# The clipped tilt of one coordinate: three pieces of y = s·n
# ------------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Pieces:
    """Unnormalised masses of y ≥ 0, −a ≤ y < 0 (integer law: −a ≤ y ≤ −1) and y < −a under f e^{θv}, and
    log Z = log E_f[e^{θ v}] (θ = τλ)."""

    masses: np.ndarray  # (3, k)
    log_z: np.ndarray  # (k,)


def _pieces(law: str, lam: np.ndarray, a: np.ndarray, tau: np.ndarray) -> _Pieces:
    up, down = lam * (1 - tau), lam * (1 + tau)
    if law == "laplace":  # ∫ of (λ/2) e^{−λ|y|} e^{θ max(y, −a)} over each piece
        masses = np.array([1 / up, -np.expm1(-down * a) / down, np.exp(-down * a) / lam]) * (lam / 2)
    else:  # Σ of (1−q)/(1+q) q^{|y|} e^{θ max(y, −a)} over each piece, q = e^{−λ}
        norm = np.tanh(lam / 2)  # (1 − q)/(1 + q)
        r2 = np.exp(-down)
        masses = np.array(
            [
                1 / -np.expm1(-up),
                r2 * -np.expm1(-down * a) / -np.expm1(-down),
                np.exp(-down * a - lam) / -np.expm1(-lam),
            ]
        )
        masses = masses * norm
    return _Pieces(masses, np.log(masses.sum(axis=0)))


def _draw_tilted(law: str, lam: np.ndarray, a: np.ndarray, tau: np.ndarray, size: int, rng) -> np.ndarray:
    """``size`` draws of y = s·n under the clipped tilt of each coordinate (exact inversion within each piece)."""
    k = lam.size
    masses = _pieces(law, lam, a, tau).masses
    cut = np.cumsum(masses / masses.sum(axis=0), axis=0)
    u = rng.random((size, k))
    piece = (u > cut[0]).astype(int) + (u > cut[1])
    e1, e2 = rng.random((size, k)), rng.random((size, k))
    up, down = lam * (1 - tau), lam * (1 + tau)
    if law == "laplace":
        pos = -np.log1p(-e1) / up
        mid = -(-np.log1p(-e2 * -np.expm1(-down * a)) / down)
        low = -a - (-np.log1p(-e1) / lam)
    else:
        pos = np.floor(np.log1p(-e1) / -up)  # geometric on {0, 1, …} of ratio e^{−up}
        mid = -(1 + np.floor(np.log1p(-e2 * -np.expm1(-down * a)) / -down))  # {−a, …, −1}, ratio e^{−down}
        mid = np.maximum(mid, -a)  # rounding at the last unit of the inversion
        low = -a - 1 - np.floor(np.log1p(-e1) / -lam)
    return np.where(piece == 0, pos, np.where(piece == 1, mid, low))


# ------------------------------------------------------------------------------------------------------------------
# The structure of the view and the tilt
# ------------------------------------------------------------------------------------------------------------------
class NoTilt(ArithmeticError):
    """The view is not a translation of the declared noise (or its offsets are not on the law's lattice): no tilt."""


@dataclass(frozen=True)
class Tilt:
    """Everything one direction's proposal needs: law, rates λ, offsets d = c_P − c_Q, tilt τ, the bound (4)."""

    law: str
    world: str
    sign: float
    lam: np.ndarray
    offsets: np.ndarray
    centre: np.ndarray
    epsilon: float
    tau: float
    rtol: float

    @property
    def eta(self) -> float:
        """sup ℓ of the L1 form (1): η = Σ λ_j |d_j|."""
        return float(np.sum(self.lam * np.abs(self.offsets)))

    @property
    def taus(self) -> np.ndarray:
        """τ on the coordinates the worlds differ in, 0 elsewhere (there v_j = 0: the proposal is f)."""
        return np.where(self.offsets != 0, self.tau, 0.0)

    @property
    def log_z(self) -> float:
        return float(_pieces(self.law, self.lam, np.abs(self.offsets), self.taus).log_z.sum())

    @property
    def log_bound(self) -> float:
        """log B of (4), with the rounding slack t = 4ρ(1 + η) in κ = 1 − e^{min(ε − η, 0) − t} and m (so B > 0: a
        pure pair's bound is of order t, never 0)."""
        slack = 4 * self.rtol * (1 + self.eta)
        kappa = -math.expm1(min(self.epsilon - self.eta, 0.0) - slack)
        return math.log(kappa) + self.log_z + self.tau * max((self.eta + slack - self.epsilon) / 2, 0.0)

    def form(self, noise: np.ndarray) -> np.ndarray:
        """ℓ of (1) at each row of ``noise``."""
        return np.sum(self.lam * (np.abs(noise + self.offsets) - np.abs(noise)), axis=1)

    def draw(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Noise rows from the proposal g of (3) and their log weights log r."""
        s, a = np.sign(self.offsets), np.abs(self.offsets)
        y = _draw_tilted(self.law, self.lam, a, self.taus, size, rng)
        noise = np.where(s == 0, y, s * y)  # y has the untilted law where d_j = 0 (a_j = 0, τ_j = 0 ⇒ f)
        return noise, self.log_z - (np.maximum(y, -a) * self.taus * self.lam).sum(axis=1)


def _translation_offsets(view, law: str, lam: np.ndarray, world: str, other: str) -> tuple[np.ndarray, np.ndarray]:
    zero = np.zeros((1, lam.size))
    centres = {w: np.asarray(view.release_from_noise(w, zero), dtype=float) for w in (world, other)}
    if any(c.shape != (1, lam.size) or not np.all(np.isfinite(c)) for c in centres.values()):
        raise NoTilt("the view's releases are not its noise coordinates plus a centre")
    offsets = (centres[world] - centres[other])[0]
    if law == "geometric" and not np.allclose(offsets, np.round(offsets), rtol=0, atol=1e-9):
        raise NoTilt("the worlds' centres differ off the integer lattice: the geometric supports differ")
    return (np.round(offsets) if law == "geometric" else offsets), centres[world][0]


def tilt_for(view, epsilon: float, direction: str) -> Tilt:
    """The proposal of one direction: offsets from the view at zero noise, τ by bisection so that the proposal's mean
    L1-form loss is ε (0 where ε ≥ η, :data:`TAU_MAX` where even that mean is below ε)."""
    law, lam = declared_law(view), rates(view)
    world, sign = DIRECTIONS[direction]
    other = "D'" if world == "D" else "D"
    offsets, centre = _translation_offsets(view, law, lam, world, other)
    releases = view.release_from_noise(world, np.zeros((1, lam.size)))
    rtol = affine_rtol(release_epsilon(np.asarray(releases), np.asarray(view.privacy_loss(releases))))
    tilt = Tilt(law, world, sign, lam, offsets, centre, float(epsilon), 0.0, rtol)
    if not np.any(offsets) or epsilon >= tilt.eta:
        return tilt

    def mean_loss(tau: float) -> float:
        trial = Tilt(law, world, sign, lam, offsets, centre, float(epsilon), tau, rtol)
        return float(trial.form(trial.draw(PILOT_DRAWS, np.random.default_rng(20261124))[0]).mean())

    lo, hi = 0.0, TAU_MAX
    if mean_loss(lo) >= epsilon:
        return tilt
    if mean_loss(hi) < epsilon:
        lo = hi
    for _ in range(30 if lo < hi else 0):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_loss(mid) < epsilon else (lo, mid)
    return Tilt(law, world, sign, lam, offsets, centre, float(epsilon), lo, rtol)


class TiltedSampler:
    """Picklable block work: proposal draws, the claimed loss, the summands of δ divided by B (clipped to [0, 1]), and
    the escapes (draws where the release or the claimed loss departs from the L1 structure, or the summand from B)."""

    def __init__(self, view, tilt: Tilt):
        self.view, self.tilt = view, tilt

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        t = self.tilt
        noise, log_r = t.draw(size, rng)
        releases = np.asarray(self.view.release_from_noise(t.world, noise), dtype=float)
        loss = t.sign * np.asarray(self.view.privacy_loss(releases), dtype=float)
        form = t.form(noise)
        scale = 1 + np.abs(form) + np.sum(t.lam * (np.abs(noise) + np.abs(t.offsets)), axis=1)
        moved = np.abs(releases - t.centre - noise) > t.rtol * (1 + np.abs(t.centre) + np.abs(noise))
        structure = ~moved.any(axis=1) & (np.abs(loss - form) <= t.rtol * scale)  # NaN compares False: an escape
        h = hockey_integrand(np.nan_to_num(loss, nan=np.inf), t.epsilon)
        with np.errstate(over="ignore", invalid="ignore"):
            scaled = np.where(h > 0, h * np.exp(np.minimum(log_r - t.log_bound, 700.0)), 0.0)
        escapes = int(np.sum(~structure | (scaled > 1 + BOUND_SLACK)))
        values = np.minimum(scaled, 1.0)
        mean = float(values.mean())
        return np.array([[float(size), mean, float(np.sum((values - mean) ** 2)), float(escapes)]])


@dataclass(frozen=True)
class TiltedTail:
    """Importance-sampled δ_{P‖Q}(ε) through a Laplace or geometric view (the interface of
    :class:`pdp_audit.verify.estimators.rare.RareTail` that :mod:`pdp_audit.verify.evidence.pair_claims` uses)."""

    epsilon: float
    direction: str
    tilt: Tilt
    delta: BoundedMean
    escapes: int

    @property
    def n(self) -> int:
        return self.delta.n

    @property
    def certified(self) -> bool:
        """The upper bound (4) holds: no draw escaped the verified structure."""
        return self.escapes == 0

    @property
    def estimate(self) -> float:
        return self.delta.estimate

    def lower_bound(self, alpha: float) -> float:
        return self.delta.lower_bound(alpha)

    def upper_bound(self, alpha: float) -> float:
        return self.delta.upper_bound(alpha) if self.certified else math.inf


#: log B beyond which the tilted bound is useless (δ ≤ B·(mean + radius) cannot fall below 1 for any budget of at
#: most 1e9 draws once B > 1e9/log(2/α) ≈ e^17) and e^B no longer a double (e^709.8): only plain draws decide then.
#: Reached by a Laplace view over a thousand coordinates whose loss bound rounds a hair above ε (log Z ≈ 1700).
MAX_LOG_BOUND = 700.0


def tilted_tail(view, epsilon: float, direction: str, n: int, seed: int, stream: str = "tilted") -> TiltedTail:
    """δ(ε) in one direction from ``n`` proposal draws (module notes); block j draws from
    ``block_rng(seed, f"{stream}/{direction}", j)``."""
    tilt = tilt_for(view, epsilon, direction)
    if tilt.log_bound > MAX_LOG_BOUND:
        raise NoTilt(f"the weights' bound B = e^{tilt.log_bound:.4g} leaves δ unbounded below 1 at any budget")
    work = TiltedSampler(view, tilt)
    name = f"{stream}/{direction}"
    rows = np.concatenate([work(size, block_rng(seed, name, b)) for b, size in enumerate(block_sizes(n, BLOCK_SIZE))])
    count, mean, m2 = 0, 0.0, 0.0
    for nb, mb, m2b, _ in rows:  # merged in block order (Chan, Golub & LeVeque 1983)
        total = count + nb
        gap = mb - mean
        mean += gap * nb / total
        m2 += m2b + gap * gap * count * nb / total
        count = total
    delta = BoundedMean(int(count), float(mean), float(m2 / max(count - 1, 1)), math.exp(tilt.log_bound))
    return TiltedTail(float(epsilon), direction, tilt, delta, int(rows[:, 3].sum()))


def try_tilted_tail(
    view, epsilon: float, direction: str, n: int, seed: int, stream: str
) -> tuple[TiltedTail | None, str]:
    """:func:`tilted_tail` and "", or None and why no tilt applies (the view is not a translation of its noise, or
    its weights cannot bound δ below 1): only plain draws decide then."""
    try:
        return tilted_tail(view, epsilon, direction, n, seed, stream), ""
    except NoTilt as reason:
        return None, str(reason)
