"""What a *translation* noise view pins down, and the checks that use it: one law, one loss.

A noise view (:mod:`pdp_audit.verify.estimators.rare` for Gaussian noise, :mod:`pdp_audit.verify.estimators.tilting`
for Laplace and
two-sided geometric noise) is a translation when ``release_from_noise(world, n) = c_world + n`` for every noise row n
(tested on 16 draws of the declared law per world, relative tolerance
:func:`pdp_audit.verify.estimators.rare.affine_rtol` of the
releases' type).  Then the view's law is fully specified -- c_world plus coordinatewise independent noise of the
declared law and scale -- and so is its exact privacy loss:

    gaussian:            L(o) = Σ_j [(o_j − c'_j)² − (o_j − c_j)²] / (2σ_j²),
    laplace, geometric:  L(o) = Σ_j λ_j (|o_j − c'_j| − |o_j − c_j|),     λ_j = 1/b_j,              (1)

(c = c_D, c' = c_D').  Two checks follow, both joining ``noise-view``:

* **the loss is the view's** (deterministic): ``privacy_loss`` evaluated on the view's own releases must equal (1)
  to the releases' precision.  Otherwise the view and the loss cannot both be the sampler's -- the view's law has loss
  (1) -- and importance sampling, which draws from one and weighs by the other, would certify a mechanism that does
  not exist.  This is what catches a loss written for σ 3% too large when the pair has a (correct) translation view:
  no statistical test at 1e5 draws can (``tests/test_consistency_events.py``), but (1) differs from it by 6% in slope.
* **one-sample scale test of ``sample()``'s noise**: the residuals o − c_world of releases drawn by ``sample()`` must
  have the declared law.  The statistic is S = Σ_{i,j} x_ij with x = (n/σ_j)² (gaussian, χ²₁), λ_j|n| (laplace,
  Exp(1)), λ_j|n| (geometric, E e^{tx} = tanh(λ/2)/tanh(λ(1 − t)/2)); each tail of S is bounded by Chernoff's
  inequality, P(S ≥ s) ≤ exp(inf_{t>0} [N Σ_j log M_j(t) − ts]) (and the lower tail with t < 0), valid whatever the
  number of draws, so the two-sided p-value 2·min(upper, lower) is conservative.  A sampler 3% narrower than the view
  it declares (the view and the loss both written for the declared scale, so that every identity of the loss holds
  for the view and none of the two-sample tests of losses sees it) gives p below 1e-20 with 5e4 releases.  Residuals
  of a geometric law off the integer lattice are an exact contradiction (p = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from pdp_audit.mechanisms.base import release_epsilon
from pdp_audit.verify.estimators.rare import affine_rtol
from pdp_audit.verify.estimators.tilting import draw_noise

WORLDS = ("D", "D'")
PROBE_ROWS = 16


@dataclass(frozen=True)
class TranslationView:
    """A view verified to be a translation: its law, per-coordinate scale (σ or b), the worlds' centres and the
    tolerance the releases are compared at."""

    view: object
    law: str
    scale: np.ndarray
    centres: dict
    rtol: float

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Noise rows of the declared law (the view's own noise, not whitened)."""
        if self.law == "gaussian":
            return self.scale * rng.standard_normal((int(size), self.scale.size))
        return draw_noise(self.law, 1.0 / self.scale, size, rng)

    def exact_loss(self, releases: np.ndarray) -> np.ndarray:
        """L of (1) at each release (row)."""
        o = np.asarray(releases, dtype=float)
        c, cp = self.centres["D"], self.centres["D'"]
        if self.law == "gaussian":
            return np.sum(((o - cp) ** 2 - (o - c) ** 2) / (2 * self.scale**2), axis=1)
        return np.sum((np.abs(o - cp) - np.abs(o - c)) / self.scale, axis=1)

    def loss_tolerance(self, releases: np.ndarray) -> np.ndarray:
        """How far a correctly computed loss may sit from (1): ρ times the size of the terms it is a sum of."""
        o = np.asarray(releases, dtype=float)
        c, cp = self.centres["D"], self.centres["D'"]
        if self.law == "gaussian":
            terms = ((o - cp) ** 2 + (o - c) ** 2) / (2 * self.scale**2)
        else:
            terms = (np.abs(o - cp) + np.abs(o - c)) / self.scale
        return self.rtol * (1 + np.sum(terms, axis=1))


def translation_view(view, law: str) -> TranslationView | None:
    """``view`` as a :class:`TranslationView` if its releases are its noise plus a centre per world, else None."""
    if law == "gaussian":
        scale = np.broadcast_to(np.asarray(view.noise_sigma, dtype=float), (int(view.noise_dim),)).copy()
    else:
        scale = np.broadcast_to(np.asarray(view.noise_scale, dtype=float), (int(view.noise_dim),)).copy()
    k = scale.size
    if k == 0 or not np.all(np.isfinite(scale)) or not np.all(scale > 0):  # a noiseless coordinate: no density
        return None
    zero = np.zeros((1, k))
    centres = {w: np.asarray(view.release_from_noise(w, zero), dtype=float) for w in WORLDS}
    if any(c.shape != (1, k) or not np.all(np.isfinite(c)) for c in centres.values()):
        return None
    releases = np.asarray(view.release_from_noise("D", zero))
    rtol = affine_rtol(release_epsilon(releases, np.asarray(view.privacy_loss(releases))))
    found = TranslationView(view, law, scale, {w: c[0] for w, c in centres.items()}, rtol)
    rng = np.random.default_rng(20261124)
    for world in WORLDS:
        noise = found.draw(PROBE_ROWS, rng)
        moved = np.asarray(view.release_from_noise(world, noise), dtype=float) - found.centres[world]
        if moved.shape != noise.shape or np.any(np.abs(moved - noise) > rtol * (1 + np.abs(noise) + np.abs(moved))):
            return None
    return found


def loss_mismatch(found: TranslationView, releases: np.ndarray, claimed: np.ndarray) -> tuple[int, float]:
    """How many of the view's ``releases`` have a claimed loss off (1) beyond rounding, and the largest gap."""
    gap = np.abs(np.asarray(claimed, dtype=float) - found.exact_loss(releases))
    off = ~(gap <= found.loss_tolerance(releases))  # NaN and ±∞ are off
    return int(np.count_nonzero(off)), float(np.nanmax(np.where(np.isfinite(gap), gap, np.inf), initial=0.0))


def _log_mgf(law: str, scale: np.ndarray, t: float) -> float:
    """Σ_j log E e^{t x_j} of the per-coordinate statistic x (module notes); +inf outside its domain."""
    if law == "gaussian":
        return math.inf if t >= 0.5 else float(-0.5 * scale.size * math.log1p(-2 * t))
    if t >= 1:
        return math.inf
    if law == "laplace":
        return float(-scale.size * math.log1p(-t))
    lam = 1.0 / scale
    return float(np.sum(np.log(np.tanh(lam / 2)) - np.log(np.tanh(lam * (1 - t) / 2))))


def _statistic(law: str, scale: np.ndarray, residuals: np.ndarray) -> float:
    if law == "gaussian":
        return float(np.sum((residuals / scale) ** 2))
    return float(np.sum(np.abs(residuals) / scale))


def scale_pvalue(found: TranslationView, residuals: np.ndarray) -> float:
    """Two-sided Chernoff p-value of "``sample()``'s residuals have the declared law" (module notes)."""
    residuals = np.asarray(residuals, dtype=float)
    if residuals.size == 0:
        return 1.0
    if not np.all(np.isfinite(residuals)):
        return 0.0
    if found.law == "geometric" and np.any(np.abs(residuals - np.round(residuals)) > 1e-6):
        return 0.0
    n, s = residuals.shape[0], _statistic(found.law, found.scale, residuals)
    cap = 0.5 if found.law == "gaussian" else 1.0

    def exponent(t: float) -> float:
        return n * _log_mgf(found.law, found.scale, t) - t * s

    bounds = []
    for lo, hi in ((0.0, cap * (1 - 1e-12)), (-1e6, 0.0)):
        best = optimize.minimize_scalar(exponent, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
        bounds.append(math.exp(min(0.0, float(best.fun))))
    return min(1.0, 2 * min(bounds))


@dataclass(frozen=True)
class StructureResult:
    """The two checks of the module notes on one pair: mismatches of the claimed loss with (1) on the view's draws,
    and the scale test's p-value per world."""

    law: str
    mismatches: int
    largest_gap: float
    draws: int
    scale_pvalues: dict

    @property
    def pvalues(self) -> list[float]:
        return ([0.0] if self.mismatches else []) + list(self.scale_pvalues.values())

    def describe(self) -> str:
        text = f"The view is a translation of {self.law} noise: its exact loss and law are known."
        if self.mismatches:
            text += (
                f" privacy_loss differs from the view's exact loss on {self.mismatches:,} of {self.draws:,} of its "
                f"releases (largest gap {self.largest_gap:.3g}): the loss and the view cannot both be the sampler's."
            )
        worst = min(self.scale_pvalues.values(), default=1.0)
        return text + f" Scale of sample()'s noise against the declared law: smallest p = {worst:.3g}."


def structure_checks(pair, law: str, draws: int, sample_releases) -> StructureResult | None:
    """Both checks for a translation view (None otherwise).  ``sample_releases(world, size, stream)``: checked
    releases of ``sample()`` drawn from a seeded stream (the caller's engine)."""
    found = translation_view(pair, law)
    if found is None:
        return None
    rng = np.random.default_rng(20261125)
    mismatches, gap = 0, 0.0
    for world in WORLDS:
        releases = np.asarray(pair.release_from_noise(world, found.draw(draws, rng)), dtype=float)
        count, largest = loss_mismatch(found, releases, pair.privacy_loss(releases))
        mismatches, gap = mismatches + count, max(gap, largest)
    pvalues = {}
    for world in WORLDS:
        releases = np.asarray(sample_releases(world, draws, f"noise-scale/{world}"), dtype=float)
        pvalues[world] = scale_pvalue(found, releases - found.centres[world])
    return StructureResult(law, mismatches, gap, 2 * draws, pvalues)
