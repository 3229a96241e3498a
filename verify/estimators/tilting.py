"""Importance sampling for Laplace and two-sided geometric noise: exponential tilting through a generalised noise view.

**The generalised view.**  A pair declares ``noise_law = "laplace"`` or ``"geometric"`` (``"gaussian"``, or no
``noise_law`` at all, is the Gaussian view of :mod:`pdp_audit.verify.estimators.rare`, unchanged), ``noise_scale`` b (a
scalar
or a length-k vector), ``noise_dim`` k and ``release_from_noise(world, noise)``; the release on ``world`` is
``release_from_noise(world, n)`` with n drawn from the law, coordinatewise independent, of rate λ = 1/b:

    laplace:    density (λ/2) e^{−λ|n|}, n real;
    geometric:  P(n) = (1 − q)/(1 + q) q^{|n|}, q = e^{−λ}, n integer (the discrete Laplace law).

Both have log f(n) = const − λ|n|.  When the view is a translation, ``release_from_noise(world, n) = c_world + n``
(verified on every draw; the release may also carry columns constant in the noise, such as a flag or a version
tag, equal in both worlds: n's coordinates are then placed in their columns, found by one probe and verified on every
draw like the rest), the privacy loss of the view's law in the direction P‖Q (P the world drawn, Q the other)
is the **L1 form**

    ℓ(n) = Σ_j λ_j (|n_j + d_j| − |n_j|),     d = c_P − c_Q,                                          (1)

whose supremum is η = Σ_j λ_j|d_j| (pure (η, 0)-DP).  With s_j = sign(d_j), a_j = |d_j| and the doubly clipped
coordinate w_j = min(max(s_j n_j, −a_j), 0) ∈ [−a_j, 0] -- the only part of n_j the loss depends on -- each term is
λ_j a_j + 2λ_j w_j, so

    ℓ(n) = η + 2 Σ_j λ_j w_j,     ℓ > ε  ⟺  Σ_j λ_j w_j > −m,   m = (η − ε)/2.                              (2)

**The tilted proposal** (exponential tilting, Siegmund 1976; Bucklew 2004, ch. 5) is f tilted along w, where the
loss grows, θ_j = τλ_j with any τ ≥ 0 (w is bounded, so every τ is normalisable):

    g(n) = f(n) e^{Σ θ_j w_j} / Z(τ),     Z(τ) = Π_j E_f[e^{θ_j w_j}] ≤ 1,     r(n) = f/g = Z(τ) e^{−Σ θ_j w_j},   (3)

a product law drawn exactly piece by piece (y = s_j n_j ≥ 0 keeps f's law, −a_j ≤ y < 0 is f tilted by e^{θ_j y},
y < −a_j is f's tail, each an exponential or geometric piece), so the likelihood ratio r is exact.  Everything is
computed in logs (log Z is a sum of log-sum-exps of the pieces), so nothing overflows at any dimension.  Tilting
along the loss's own coordinate w, not along s_j n_j, matters: past w_j = 0 the loss saturates, and a tilt that
pushes n_j further (the earlier proposal, e^{θ max(s n, −a)} with τ < 1) spends its draws where the loss no longer
grows and leaves weights Z e^{−θ s n} of huge spread (a 20-count geometric histogram at δ(0.9) = 1.5e-7: estimates
1e11 too small, upper bound 2e10).  τ minimises the bound (4) below, log Z(τ) + τm: Chernoff's bound on
P_f[Σ λ_j w_j > −m], whose minimiser is the saddle point where the proposal's mean loss is ε (computed from the
closed form of log Z, no pilot draws); τ = 0 where ε ≥ η (the event is empty but for rounding).

**Is a weight bound needed?  Yes.**  The empirical Bernstein interval (:func:`pdp_audit.verify.estimators.rare.
empirical_bernstein_radius`) needs the summands X = (1 − e^{ε−ℓ})₊ r(n) in a known [0, B]: without one, a region the
proposal rarely visits could carry any share of δ and no finite sample can bound it.  Two bounds exist:

* a *global* one, whatever the loss: w_j ≥ −a_j gives r ≤ Z(τ) e^{τη}.  It may exceed 1, so it bounds δ no better
  than plain draws of the world's own law (about log(1/α)/n): it is used for nothing but the lower bound's clipping;
* a *structural* one on the event: under (1)–(2), on {ℓ > ε}, Σθ_j w_j > −τm, and (1 − e^{ε−ℓ})₊ ≤
  κ = (1 − e^{ε−η})₊, so

      X ≤ B = κ Z(τ) e^{τ max(m, 0)} ≤ κ.                                                              (4)

  B is never rounded below the smallest normal double (an underflow to 0 would certify δ = 0 by sampling).
  This is the same kind of assumption as the Gaussian view's: there the half-space bound holds because the loss is
  affine in the noise, which is verified at 8 random points and otherwise assumed.  Here the L1 form (1) of the
  *claimed* loss, and the translation, are verified on **every** proposal draw (at the releases' precision,
  relative tolerance ρ = :func:`pdp_audit.verify.estimators.rare.affine_rtol`), and κ, m include a slack t = 4ρ(1 + η)
  for the
  rounding of the loss.  A draw where the claimed loss or the release departs from (1), or whose summand exceeds B,
  is an *escape*: then the upper bound is +∞ (``certified`` False) and only the lower bound is used.

The lower bound is valid whatever the loss (summands are clipped at B, which only lowers the mean).  The upper
bound is valid for the view's law under the verified structure, so it is the sampler's only where the view *replays*
``sample()`` exactly (:mod:`pdp_audit.verify.estimators.view_replay`): :mod:`pdp_audit.verify.evidence.pair_checks`
tilts no other view, and the interval is only ever intersected with the plain estimates of ``sample()``'s own draws
(:mod:`pdp_audit.verify.evidence.pair_claims`).  For a correct pure-DP pair (ε ≥ η) κ is of order t, so the interval
is [0, about 1e-11]: sampling never certifies "δ = 0" (the bounded-loss proof of ``pair_checks`` does).

Sampling is seeded by the block engine (block j of stream ``s`` draws from ``block_rng(seed, s, j)``), so results
depend on the seed only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Protocol, TypeGuard

import numpy as np
from scipy import optimize

from pdp_audit.mechanisms.base import MalformedPair, World, release_epsilon
from pdp_audit.verify.estimators.engine import BLOCK_SIZE, block_rng, block_sizes
from pdp_audit.verify.estimators.rare import DIRECTIONS, BoundedMean, affine_rtol
from pdp_audit.verify.estimators.tails import hockey_integrand

#: The noise laws a view may declare (``noise_law``); a view without one is Gaussian.
LAWS = ("gaussian", "laplace", "geometric")
TILTED_LAWS = ("laplace", "geometric")
#: The range of log τ searched for the smallest bound (4).
LOG_TAU_RANGE = (-12.0, 60.0)
BOUND_SLACK = 1e-9


class TiltedView(Protocol):
    """A pair whose releases are a deterministic function of Laplace or two-sided geometric noise n of scale b
    (``noise_scale``, a scalar or one per coordinate), the law named by ``noise_law``: the view this module tilts."""

    noise_law: str
    noise_dim: int
    noise_scale: float | np.ndarray

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        """Releases on ``world`` for each row of ``noise`` (shape ``(rows, noise_dim)``)."""

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """Exact ``log p_D(o) − log p_D'(o)`` of each row."""


def declared_law(pair) -> str | None:
    """The noise law ``pair`` declares: ``noise_law`` if set, "gaussian" for the Gaussian view's attributes alone,
    None without a view.  MalformedPair for a law that is not one of :data:`LAWS`."""
    law = getattr(pair, "noise_law", None)
    if law is None:
        return "gaussian" if hasattr(pair, "noise_sigma") else None
    if law not in LAWS:
        raise MalformedPair(f"noise_law must be one of {', '.join(LAWS)}, got {law!r}")
    return str(law)


def has_tilted_view(pair: object) -> TypeGuard[TiltedView]:
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


def view_losses(view: TiltedView, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
    """Privacy losses of ``size`` releases drawn through the declared law's view on ``world``."""
    noise = draw_noise(view.noise_law, rates(view), size, rng)
    return np.asarray(view.privacy_loss(view.release_from_noise(world, noise)), dtype=float)


# ------------------------------------------------------------------------------------------------------------------
# The clipped tilt of one coordinate: three pieces of y = s·n, in log space
# ------------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Pieces:
    """Logs of the unnormalised masses of y ≥ 0, −a ≤ y < 0 (integer law: −a ≤ y ≤ −1) and y < −a under f e^{θw},
    w = min(max(y, −a), 0), and log Z = log E_f[e^{θ w}] ≤ 0 (θ = τλ)."""

    log_masses: np.ndarray  # (3, k)
    log_z: np.ndarray  # (k,)


def _pieces(law: str, lam: np.ndarray, a: np.ndarray, tau: np.ndarray) -> _Pieces:
    down = lam * (1 + tau)
    with np.errstate(divide="ignore"):  # a = 0: the middle piece is empty (log mass −∞)
        if law == "laplace":  # ∫ of (λ/2) e^{−λ|y|} e^{θ w} over each piece
            logs = [
                np.full(lam.shape, -math.log(2)),
                np.log(lam / 2) + np.log(-np.expm1(-down * a)) - np.log(down),
                -math.log(2) - down * a,
            ]
        else:  # Σ of (1−q)/(1+q) q^{|y|} e^{θ w} over each piece, q = e^{−λ}
            log_norm = np.log(np.tanh(lam / 2))  # (1 − q)/(1 + q)
            logs = [
                -np.log1p(np.exp(-lam)),
                log_norm - down + np.log(-np.expm1(-down * a)) - np.log(-np.expm1(-down)),
                log_norm - down * a - lam - np.log(-np.expm1(-lam)),
            ]
    log_masses = np.array(logs)
    return _Pieces(log_masses, np.logaddexp.reduce(log_masses, axis=0))


def _draw_tilted(law: str, lam: np.ndarray, a: np.ndarray, tau: np.ndarray, size: int, rng) -> np.ndarray:
    """``size`` draws of y = s·n under the clipped tilt of each coordinate (exact inversion within each piece): y ≥ 0
    keeps f's law, −a ≤ y < 0 is f tilted by e^{θy}, y < −a is f's tail shifted by −a."""
    k = lam.size
    pieces = _pieces(law, lam, a, tau)
    cut = np.cumsum(np.exp(pieces.log_masses - pieces.log_z), axis=0)
    u = rng.random((size, k))
    piece = (u > cut[0]).astype(int) + (u > cut[1])
    e1, e2 = rng.random((size, k)), rng.random((size, k))
    down = lam * (1 + tau)
    if law == "laplace":
        pos = -np.log1p(-e1) / lam
        mid = -(-np.log1p(-e2 * -np.expm1(-down * a)) / down)
        low = -a - (-np.log1p(-e1) / lam)
    else:
        pos = np.floor(np.log1p(-e1) / -lam)  # geometric on {0, 1, …} of ratio e^{−λ}
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
    #: The release column of each noise coordinate, None when the release is the noise plus a centre (k columns).
    columns: np.ndarray | None = None
    #: sup L in exact arithmetic (:func:`exact_bound`): what the bounded-loss proof compares with ε, no slack
    exact_eta: Fraction | None = None

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
        """log Z(τ) of (3), ≤ 0: a sum of logs, finite at any dimension."""
        return float(_pieces(self.law, self.lam, np.abs(self.offsets), self.taus).log_z.sum())

    @property
    def margin(self) -> float:
        """m of (2) with the rounding slack t = 4ρ(1 + η): (η + t − ε)/2, at least 0."""
        return max((self.eta + 4 * self.rtol * (1 + self.eta) - self.epsilon) / 2, 0.0)

    @property
    def log_bound(self) -> float:
        """log B of (4), with the rounding slack t in κ = 1 − e^{min(ε − η, 0) − t} and m (so B > 0: a pure pair's
        bound is of order t, never 0).  At most log κ ≤ 0: no overflow at any dimension."""
        slack = 4 * self.rtol * (1 + self.eta)
        kappa = -math.expm1(min(self.epsilon - self.eta, 0.0) - slack)
        return math.log(kappa) + self.log_z + self.tau * self.margin

    def form(self, noise: np.ndarray) -> np.ndarray:
        """ℓ of (1) at each row of ``noise``."""
        return np.sum(self.lam * (np.abs(noise + self.offsets) - np.abs(noise)), axis=1)

    def embed(self, noise: np.ndarray) -> np.ndarray:
        """``noise`` placed in the release's columns (0 in the columns constant in the noise)."""
        if self.columns is None:
            return noise
        placed = np.zeros((noise.shape[0], self.centre.size))
        placed[:, self.columns] = noise
        return placed

    def draw(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Noise rows from the proposal g of (3) and their log weights log r = log Z − Σθ_j w_j."""
        s, a = np.sign(self.offsets), np.abs(self.offsets)
        y = _draw_tilted(self.law, self.lam, a, self.taus, size, rng)
        noise = np.where(s == 0, y, s * y)  # y has the untilted law where d_j = 0 (a_j = 0, τ_j = 0 ⇒ f)
        w = np.clip(y, -a, 0.0)
        return noise, self.log_z - (w * self.taus * self.lam).sum(axis=1)


NOT_A_TRANSLATION = "the view's releases are not its noise coordinates plus a centre"
#: The relative tolerance of the probe that places the noise coordinates (a proposal only: every draw re-verifies).
PROBE_RTOL = 1e-6


def _translation_offsets(
    view, law: str, lam: np.ndarray, world: str, other: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, list[Fraction]]:
    """d = c_P − c_Q on the noise coordinates, the centre c_P of the whole release, the column of each noise
    coordinate (None: the release is the noise plus a centre), and d in rationals on the centres' doubles."""
    zero = np.zeros((1, lam.size))
    centres = {w: np.asarray(view.release_from_noise(w, zero), dtype=float) for w in (world, other)}
    shapes = {c.shape for c in centres.values()}
    usable = all(c.ndim == 2 and c.shape[1] >= lam.size and np.all(np.isfinite(c)) for c in centres.values())
    if len(shapes) != 1 or not usable:
        raise NoTilt(NOT_A_TRANSLATION)
    columns = None if centres[world].shape[1] == lam.size else _noise_columns(view, world, centres[world][0], lam.size)
    gap = (centres[world] - centres[other])[0]
    noise_columns = range(lam.size) if columns is None else columns
    exact = [Fraction(float(centres[world][0][j])) - Fraction(float(centres[other][0][j])) for j in noise_columns]
    if columns is not None:
        fixed = np.ones(gap.size, dtype=bool)
        fixed[columns] = False
        if np.any(gap[fixed] != 0):
            raise NoTilt("the worlds' releases differ in a column the noise does not move: no translation of one law")
        gap = gap[columns]
    if law == "geometric" and any(d.denominator != 1 or Fraction(float(d)) != d for d in exact):
        # Decided in rationals, no tolerance: centres a hair off the lattice put the worlds' supports apart (their
        # loss is unbounded), which the L1 form of an integer offset would hide.  Plain draws decide such a view.
        raise NoTilt("the worlds' centres differ off the integer lattice: the geometric supports differ")
    # An integer difference of two doubles that is itself a double is their float difference exactly (subtraction
    # is correctly rounded), so gap is d on the lattice without rounding.
    return gap, centres[world][0], columns, exact


def _noise_columns(view, world: str, centre: np.ndarray, k: int) -> np.ndarray:
    """The column of each noise coordinate in a release wider than the noise, from one probe: the noise 1, 2, …, k
    (distinct integers, on both laws' supports) released once; each coordinate must appear in exactly one column and
    every other column must not move.  NoTilt otherwise."""
    probe = np.arange(1.0, k + 1.0)
    moved = np.asarray(view.release_from_noise(world, probe[None, :]), dtype=float)
    if moved.shape != (1, centre.size) or not np.all(np.isfinite(moved)):
        raise NoTilt(NOT_A_TRANSLATION)
    shift = moved[0] - centre
    index = np.round(shift)
    tolerance = PROBE_RTOL * (1 + np.abs(centre) + np.abs(index))
    if np.any(np.abs(shift - index) > tolerance) or np.any((index < 0) | (index > k)):
        raise NoTilt(NOT_A_TRANSLATION)
    placed = np.flatnonzero(index > 0)
    if placed.size != k or np.unique(index[placed]).size != k:
        raise NoTilt(NOT_A_TRANSLATION)
    columns = np.empty(k, dtype=np.intp)
    columns[index[placed].astype(np.intp) - 1] = placed
    return columns


def exact_bound(law: str, gaps: list[Fraction], scales: np.ndarray) -> Fraction | None:
    """sup L of the view's law in exact arithmetic on its doubles: Σ|d_j|/b_j, d_j the centres' exact differences
    (Dwork & Roth 2014, Thm 3.6, term by term).  None for a geometric view whose centres differ off the integer
    lattice in rationals (the supports then differ: no bound)."""
    if law == "geometric" and any(g.denominator != 1 for g in gaps):
        return None
    return sum((abs(g) / Fraction(float(b)) for g, b in zip(gaps, scales)), Fraction(0))


def tilt_for(view, epsilon: float, direction: str) -> Tilt:
    """The proposal of one direction: offsets from the view at zero noise, and τ minimising the bound (4),
    log Z(τ) + τm -- Chernoff's bound on P_f[Σλ_j w_j > −m], whose minimiser is the saddle point where the proposal's
    mean loss is ε (Bucklew 2004, ch. 5); 0 where ε ≥ η (the event is empty but for rounding)."""
    law = declared_law(view)
    if law is None:  # the callers tilt only a declared view (has_tilted_view)
        raise MalformedPair("a tilted proposal needs the pair's noise view: it declares no noise_law")
    lam = rates(view)
    world, sign = DIRECTIONS[direction]
    other = "D'" if world == "D" else "D"
    offsets, centre, columns, exact = _translation_offsets(view, law, lam, world, other)
    releases = view.release_from_noise(world, np.zeros((1, lam.size)))
    rtol = affine_rtol(release_epsilon(np.asarray(releases), np.asarray(view.privacy_loss(releases))))
    bound = exact_bound(law, exact, np.broadcast_to(np.asarray(view.noise_scale, dtype=float), (lam.size,)))
    tilt = Tilt(law, world, sign, lam, offsets, centre, float(epsilon), 0.0, rtol, columns, bound)
    if not np.any(offsets) or epsilon >= tilt.eta:
        return tilt

    def log_bound(log_tau: float) -> float:
        return replace(tilt, tau=math.exp(log_tau)).log_bound

    # log B is convex in τ, hence unimodal in log τ; τ spans e^-12 (ε far below η) to e^60 (m of order 1e-16).
    found = optimize.minimize_scalar(log_bound, bounds=LOG_TAU_RANGE, method="bounded", options={"xatol": 1e-6})
    best = replace(tilt, tau=math.exp(float(found.x)))
    return best if best.log_bound < tilt.log_bound else tilt


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
        placed = t.embed(noise)
        moved = np.abs(releases - t.centre - placed) > t.rtol * (1 + np.abs(t.centre) + np.abs(placed))
        structure = ~moved.any(axis=1) & (np.abs(loss - form) <= t.rtol * scale)  # NaN compares False: an escape
        h = hockey_integrand(np.nan_to_num(loss, nan=np.inf), t.epsilon)
        log_bound = max(t.log_bound, math.log(MIN_BOUND))
        with np.errstate(over="ignore", invalid="ignore"):
            scaled = np.where(h > 0, h * np.exp(np.minimum(log_r - log_bound, 700.0)), 0.0)
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


#: The smallest B used (the smallest normal double): a bound that underflows is rounded up, never to 0, so sampling
#: never certifies δ = 0 (only the bounded-loss proof does).
MIN_BOUND = 2.2250738585072014e-308


def tilted_tail(view, epsilon: float, direction: str, n: int, seed: int, stream: str = "tilted") -> TiltedTail:
    """δ(ε) in one direction from ``n`` proposal draws (module notes); block j draws from
    ``block_rng(seed, f"{stream}/{direction}", j)``."""
    tilt = tilt_for(view, epsilon, direction)
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
    delta = BoundedMean(
        int(count), float(mean), float(m2 / max(count - 1, 1)), max(math.exp(tilt.log_bound), MIN_BOUND)
    )
    return TiltedTail(float(epsilon), direction, tilt, delta, int(rows[:, 3].sum()))


def try_tilted_tail(
    view, epsilon: float, direction: str, n: int, seed: int, stream: str
) -> tuple[TiltedTail | None, str]:
    """:func:`tilted_tail` and "", or None and why no tilt applies (the view is not a translation of its noise, or
    its offsets are off the geometric lattice): only plain draws decide then."""
    try:
        return tilted_tail(view, epsilon, direction, n, seed, stream), ""
    except NoTilt as reason:
        return None, str(reason)
