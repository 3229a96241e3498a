"""Certified intervals for every user's ε₁ and report bound, so that "does the report fail for some user" is
decided without the n leverages of each repetition.

The exact ex-post ε₁ of ObjPert ([RW] Corollary 7) and the report's ε̄₁ᴾ (Algorithms 2 and 4) depend on the
data's Hessian only through the leverages μ(x) = xᵀH⁻¹x, μ̂(x) = xᵀĤ⁻¹x and (Algorithm 4) xᵀ(Ĥ + τσ₃I)⁻¹x.
Computing them for all n rows costs a (n × d) · (d × d) product per repetition.  Bounds cost O(d²):

* H against the non-private fit's H₀ = ∇²J(θ̂; D) (computed once): with Δ = H − H₀ and r = ‖Δ‖_F / λ_min(H₀),
  (1 − r)H₀ ⪯ H ⪯ (1 + r)H₀ (Weyl: ‖Δ‖₂ ≤ ‖Δ‖_F), hence μ₀(x)/(1 + r) ≤ μ(x) ≤ μ₀(x)/(1 − r), μ₀ = xᵀH₀⁻¹x.
* Ĥ = H + N = L(I + P)Lᵀ with H = LLᵀ, P = L⁻¹NL⁻ᵀ; with z = L⁻¹x (‖z‖² = μ), μ̂ = zᵀ(I + P)⁻¹z lies in
  [μ/(1 + λ_max(P)), μ/(1 + λ_min(P))] when λ_min(P) > −1 (the eigenvalues the audit computes for
  Proposition 21 anyway); likewise with the regularised P + τσ₃L⁻¹L⁻ᵀ.

ε₁ = |s(μ)| with s monotone in μ (f'' ≥ 0, a convex loss), and ε̄₁ᴾ is monotone in μ̂ (and in the regularised
leverage), so each endpoint pair bounds them.  A comparison is *settled* where the intervals do not overlap by a
relative margin (:data:`SLACK`, far above the rounding of the exact computation); a repetition is settled for an
event when some user certainly fails it, or no user possibly does.  The rest -- a few (repetition, user) pairs --
are computed exactly by the caller with the same arithmetic as before, so every decision is the one the exact
computation for all users makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

#: Relative margin of every certified comparison and widening of every certified leverage interval: the exact
#: leverages of a well-conditioned H (here κ(H) ≤ 2) are accurate to ~1e-14, the endpoints' rounding is ~1e-16.
SLACK = 1e-9
#: Below this 1 + λ_min(P), μ̂'s upper bound is left open (an ill-conditioned Ĥ: its leverages are computed).
MIN_DEFINITE = 1e-3


@dataclass(frozen=True)
class Interval:
    """Elementwise lower and upper bounds of a nonnegative quantity (arrays broadcast)."""

    lo: np.ndarray
    hi: np.ndarray

    def scaled(self, factor: float, shift: np.ndarray) -> Interval:
        """factor · self + shift, factor > 0."""
        return Interval(factor * self.lo + shift, factor * self.hi + shift)

    def shifted(self, shift: np.ndarray) -> Interval:
        """self + shift: :meth:`scaled` by 1 without the product (the same bits: 1 · x = x)."""
        return Interval(self.lo + shift, self.hi + shift)

    @cached_property
    def hi_widened(self) -> np.ndarray:
        """hi · (1 + SLACK), the upper end :func:`greater` compares (once per interval, however often compared)."""
        return self.hi * (1 + SLACK)


@dataclass(frozen=True)
class Decision:
    """Per (repetition, user): whether an event certainly holds, and whether it possibly holds."""

    certain: np.ndarray
    possible: np.ndarray

    def __or__(self, other: Decision) -> Decision:
        return Decision(self.certain | other.certain, self.possible | other.possible)


def greater(a: Interval, b: Interval) -> Decision:
    """a > b for nonnegative a, b given by intervals (NaN: undecided)."""
    return Decision(a.lo > b.hi_widened, ~(a.hi_widened < b.lo))


def deviation(H: np.ndarray, H_ref: np.ndarray, lam_min_ref: float) -> np.ndarray:
    """r_t = ‖H_t − H₀‖_F / λ_min(H₀), widened by :data:`SLACK`: (1 − r)H₀ ⪯ H_t ⪯ (1 + r)H₀, so
    λ_min(H_t) ≥ (1 − r)λ_min(H₀)."""
    D = H - H_ref
    return np.sqrt(np.einsum("tij,tij->t", D, D)) / lam_min_ref * (1 + SLACK)


def leverage_interval(mu_ref: np.ndarray, r: np.ndarray) -> Interval:
    """μ(x) = xᵀH_t⁻¹x for each stacked H_t and row x, from μ₀(x) = xᵀH₀⁻¹x (k,) and H_t's :func:`deviation` r
    (T,): shape (T, k)."""
    r = r[:, None]
    below = r < 1  # r ≥ 1: no upper bound
    hi = np.where(below, mu_ref * (1 + SLACK) / np.where(below, 1 - r, 1.0), np.inf)
    return Interval(mu_ref * (1 - SLACK) / (1 + r), hi)


def relative_interval(mu: Interval, ev_min: np.ndarray, ev_max: np.ndarray) -> Interval:
    """zᵀ(I + P)⁻¹z for ‖z‖² ∈ ``mu`` and P's extreme eigenvalues (T,); +∞ where I + P is not definite (the
    audit's convention: no bound), open above where it is nearly singular."""
    pd = (ev_min > -1)[:, None]
    near = (1 + ev_min < MIN_DEFINITE)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(pd, mu.lo * (1 - SLACK) / (1 + ev_max[:, None]), np.inf)
        hi = np.where(pd & ~near, mu.hi * (1 + SLACK) / (1 + ev_min[:, None]), np.inf)
    return Interval(lo, hi)


def epsilon1_interval(mu: Interval, f2: np.ndarray, rest: np.ndarray) -> Interval:
    """ε₁ = |−log(1 − f''μ) + rest| of a member of D (Corollary 7; ``rest`` = f'²‖x‖²/(2σ²) + f'bᵀx/σ²) for μ in
    ``mu``: s(μ) is monotone, so |s| lies between its endpoints' values, or down to 0 where s changes sign."""
    with np.errstate(invalid="ignore", divide="ignore"):
        s_lo = rest - np.log1p(-f2 * mu.lo)
        s_hi = rest - np.log1p(-f2 * mu.hi)
    a, b = np.abs(s_lo), np.abs(s_hi)
    return Interval(np.where(s_lo * s_hi > 0, np.minimum(a, b), 0.0), np.maximum(a, b))


def settle(decision: Decision) -> tuple[np.ndarray, np.ndarray]:
    """(repetitions that certainly have a failing user, (repetition, user) pairs still to compute exactly)."""
    settled = np.asarray(decision.certain.any(axis=1))
    return settled, decision.possible & ~settled[:, None]


# --------------------------------------------------------------------------------------------
# the spectral events: ‖N‖₂ against a threshold (Lemma 20), P's extremes against ±½ (Proposition 21)
# --------------------------------------------------------------------------------------------
def norm_lower_bound(N: np.ndarray, steps: int = 4) -> np.ndarray:
    """A lower bound on ‖N_t‖₂ for stacked symmetric N (T, d, d): √(‖Nv‖²/‖v‖²) after ``steps`` power iterations
    with N² from a fixed start (any v bounds ‖N‖₂ from below; the iterations make it close)."""
    v = np.broadcast_to(np.linspace(1.0, 2.0, N.shape[-1]), N.shape[:-1]).copy()
    for _ in range(steps):
        v = np.matmul(N, np.matmul(N, v[..., None]))[..., 0]
        v /= np.linalg.norm(v, axis=1, keepdims=True)
    w = np.matmul(N, v[..., None])[..., 0]
    return np.linalg.norm(w, axis=1) * (1 - SLACK)  # ‖v‖ = 1


def pencil_inside(N: np.ndarray, B: np.ndarray | None, t: float) -> np.ndarray:
    """Whether certainly −tB ≺ N ≺ tB (B = I where None), per stacked matrix: both (1 − SLACK)tB ∓ N have a
    Cholesky factor (for B = H ≻ 0 this is −t < λ_i(L⁻¹NL⁻ᵀ) < t, the generalized eigenvalues).  Where a
    factorisation fails the event is left to the eigenvalues (it may still hold within the margin)."""
    from scipy.linalg.lapack import dpotrf  # per matrix: numpy's stacked Cholesky raises for the whole stack

    s = (1 - SLACK) * t
    base = s * (np.eye(N.shape[-1]) if B is None else B)
    out = np.zeros(N.shape[0], bool)
    for i in range(N.shape[0]):
        b = base if B is None else base[i]
        # symmetric: the transposes are the Fortran-ordered matrices (no copy), factorised in place
        out[i] = (
            dpotrf((b - N[i]).T, lower=1, clean=0, overwrite_a=1)[1] == 0
            and dpotrf((b + N[i]).T, lower=1, clean=0, overwrite_a=1)[1] == 0
        )
    return out
