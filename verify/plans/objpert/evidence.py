"""The audit of objective perturbation ([RW] Algorithm 1, Theorems 5–9, Corollary 7, Figure 1): GitHub issue 3.

ObjPert releases θ̂ᴾ = argmin_θ J(θ; D) + bᵀθ, J = Σᵢ ℓ(θ; zᵢ) + (λ/2)‖θ‖², b ~ N(0, σ²I).  Checks:

(a) [RW] Theorem 6 and Corollary 7 against the exact log-density ratio (change of variables, computed by
    :func:`mechanisms.objpert.log_density`) on many random (θ, z): identities (Corollary 7 is printed "≤");
(b) [RW] Theorem 8 on the same instances (deterministic inequality) and Theorem 9 by Monte Carlo coverage of
    releases: the general ℓ₁ form simultaneously over z ∈ D, the GLM form as printed (signed f′, fails for
    a target with f′ < 0) and with |f′| (derived, per fixed z);
(c) DP of Theorem 5's calibration under both readings of its σ (THEORY.md Q1: printed σ = ξ²(8 log(2/δ) + 4ε)/ε²,
    or σ² = that), each at an adversarial neighbour found by a cheap search (below) and then audited with the
    full budget (tails both directions and the likelihood-ratio attack, :mod:`verify.evidence.dp_checks`);
(d) per instance: the ex-post pDP (Corollary 7) of every training point for one release, next to the DP ε
    (report pages, the audit's data and breast-cancer);
(e) [RW] Figure 1 (K17) as a report page, and its qualitative claims as exact checks; K19.

**Certified bound (derived here, not printed in [RW]).**  For a GLM loss, by Corollary 7 (an identity, check
(a)) the privacy loss of a neighbour z = (x, y) at a release θ̂ᴾ of world W is

    L = −log(1 ± f″μ) + f′²‖x‖²/(2σ²) ∓ f′ · b_Wᵀx/σ²        (∇J(θ̂ᴾ; W) = −b_W, the first-order condition)

with f′, f″ at xᵀθ̂ᴾ.  The log-det term is at most log(1 + f″‖x‖²/λ) in absolute value (Sherman–Morrison and
∇²J ⪰ λI for the smaller data set; checked on the instances of (a)), and W = b_Wᵀx/(σ‖x‖) ~ N(0, 1) exactly
under world W whatever θ̂ᴾ is.  Hence |L| ≤ G(|W|) with

    G(w) = sup_t [ log(1 + f″(t)‖x‖²/λ) + f′(t)²‖x‖²/(2σ²) + |f′(t)| ‖x‖ w/σ ],

an increasing convex function, and in both directions δ(ε) ≤ P_W[L > ε] ≤ P[|W| > w*] = 2Φ̄(w*), G(w*) = ε
([RW] Lemma 27's one-term bound).  The sup runs over a compact re-parametrisation of f′, f″ (logistic:
|f′| = s, f″ = s(1 − s), s ∈ [0, 1]; pseudo-Huber: f″ = v³, |f′| = κ√(1 − v²), v ∈ [0, 1]); the squared loss has
unbounded f′ and no certificate.  A DP check passes when this bound satisfies the claim *and* the Monte Carlo
interval is consistent with it (its lower end does not exceed the bound) — the suite's rule for closed forms.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from scipy import optimize, stats

from audits.coverage import coverage_of
from audits.engine import block_rng, run_blocks
from audits.tails import both_directions
from mechanisms import objpert as op
from mechanisms.datasets import load_csv
from mechanisms.glm_data import breast_cancer, margin_data
from mechanisms.losses import GLMLoss, LogisticLoss, PseudoHuberLoss, get_loss
from mechanisms.validation import InputError
from reports.records import Line, Lines, Page, Panel, Run, ScatterPanels
from verify.checks import CheckSpec, Evidence, finalize, make_run
from verify.evidence import builders
from verify.evidence.dp_checks import PairSamples, dp_checks
from verify.plans.validation import check_budget, check_claim

SOURCE_THM5 = "[RW] Theorem 5 (Kifer et al. 2012); THEORY.md Q1"
LOSSES = ("logistic", "squared", "huber")
READINGS = ("printed", "variance")
#: Default Monte Carlo budget (releases per world) of the full DP audits; --trials overrides it.
DEFAULT_TRIALS = 100_000
#: Releases from D used to rank the candidate neighbours before the full audit.
DEFAULT_SEARCH_TRIALS = 4000
DEFAULT_SYNTHETIC = (200, 2)
#: The synthetic data, the random instances of (a) and the Figure 1 data do not change with --seed.
DATA_SEED = 2021
IDENTITY_TOL = 1e-8
FIG1_N, FIG1_MARGIN, FIG1_LAMBDA = 1000, 0.4, 1.0
FIG1_OMEGAS = (0.0, math.pi / 12, math.pi / 4, math.pi / 2, 3 * math.pi / 4, math.pi)
FIG1_LABELS = ("0", "π/12", "π/4", "π/2", "3π/4", "π")
FIG1_COLOUR_FLOOR = 1e-4
SEARCH_QUANTILE = 0.99
UNIT_BALL_TOL = 1e-9


# ------------------------------------------------------------------------------------------------
# configuration and data
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ObjPertAuditConfig:
    loss: str = "logistic"
    huber_kappa: float = 1.0
    epsilon: float = 1.0
    delta: float = 1e-5
    lam: float | None = None
    sigma: float | None = None
    calibration: str = "variance"
    theta_radius: float | None = None
    data: str | None = None
    target_column: str | None = None
    synthetic: tuple[int, int] | None = None
    dataset: str | None = None
    normalize_rows: bool = False
    rho: float = 0.05
    trials: int = DEFAULT_TRIALS
    search_trials: int = DEFAULT_SEARCH_TRIALS
    seed: int = 0
    alpha: float = 1e-6
    printed_thm9: bool = True

    def validate(self) -> None:
        if self.loss not in LOSSES:
            raise InputError(f"--loss must be one of {', '.join(LOSSES)}, got {self.loss!r}")
        check_claim(self.epsilon, self.delta, self.alpha, self.rho)
        if not (math.isfinite(self.huber_kappa) and self.huber_kappa > 0):
            raise InputError(f"--huber-kappa must be a finite number > 0, got {self.huber_kappa}")
        if self.lam is not None and not (math.isfinite(self.lam) and self.lam > 0):
            raise InputError(
                f"--lam must be a finite number > 0 (no built-in loss is strongly convex in θ: the ridge term "
                f"λ‖θ‖²/2 makes θ ↦ b(θ) a bijection), got {self.lam}"
            )
        if self.sigma is not None and not (math.isfinite(self.sigma) and self.sigma > 0):
            raise InputError(f"--sigma must be a finite number > 0, got {self.sigma}")
        if self.calibration not in READINGS:
            raise InputError(f"--calibration must be 'printed' or 'variance', got {self.calibration!r}")
        if self.theta_radius is not None and not (math.isfinite(self.theta_radius) and self.theta_radius > 0):
            raise InputError(f"--theta-radius must be a finite number > 0, got {self.theta_radius}")
        if self.loss == "squared" and self.theta_radius is None and self.sigma is None:
            raise InputError(
                "--loss squared: Theorem 5 needs a gradient bound ξ, infinite for the squared loss on R^d; "
                "give --theta-radius R (ξ = 2(1 + R)) or --sigma"
            )
        sources = sum(x is not None for x in (self.data, self.synthetic, self.dataset))
        if sources > 1:
            raise InputError("give at most one of --data, --synthetic, --dataset")
        if self.dataset is not None and self.dataset != "breast-cancer":
            raise InputError(f"--dataset must be 'breast-cancer', got {self.dataset!r}")
        if self.synthetic is not None:
            n, d = self.synthetic
            if not (2 <= n <= 100_000 and 1 <= d <= 100):
                raise InputError(f"--synthetic n,d needs 2 <= n <= 100000 and 1 <= d <= 100, got {n},{d}")
        if self.target_column is not None and self.data is None:
            raise InputError("--target-column applies to --data only")
        if not 200 <= self.search_trials <= 10**6:
            raise InputError(f"--search-trials must be in [200, 1e6], got {self.search_trials}")
        check_budget(self.trials, self.seed, max_trials=10**8)

    def loss_object(self) -> GLMLoss:
        return PseudoHuberLoss(self.huber_kappa) if self.loss == "huber" else get_loss(self.loss)


def synthetic_data(n: int, d: int, loss: str, seed: int = DATA_SEED) -> tuple[np.ndarray, np.ndarray, str]:
    """[RW] Figure 1's generator (uniform in the unit ball, two classes m = 0.4 apart, K17); for the regression
    losses the label is wᵀx + N(0, 0.1²), clipped to [−1, 1]."""
    rng = np.random.default_rng(seed)
    X, y, w = margin_data(n, rng, margin=FIG1_MARGIN, d=d)
    if loss != "logistic":
        y = np.clip(X @ w + 0.1 * rng.standard_normal(n), -1.0, 1.0)
        return (
            X,
            y,
            f"synthetic: {n} rows uniform in the unit ball of R^{d} (margin 0.4), y = wᵀx + N(0, 0.01) clipped to [−1, 1]",
        )
    return (
        X,
        y,
        f"synthetic: {n} rows uniform in the unit ball of R^{d}, two classes ±1 separated by a margin 0.4 ([RW] Fig. 1 data)",
    )


def load_data(config: ObjPertAuditConfig) -> tuple[np.ndarray, np.ndarray, str]:
    """(X, y, description), validated against Theorem 5's assumptions ‖x‖ ≤ 1 and the loss's labels."""
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
        if dataset.target is None:  # the last column is the label
            if dataset.features.shape[1] < 2:
                raise InputError(f"--data: {config.data} needs at least one feature column and a label column")
            X, y = dataset.features[:, :-1], dataset.features[:, -1]
            description = dataset.description.replace("feature columns", "columns (label: the last)")
        else:
            X, y, description = dataset.features, dataset.target, dataset.description
            if X.shape[1] < 1:
                raise InputError(f"--data: {config.data} has no feature column besides --target-column")
        if len(X) < 2:
            raise InputError(f"--data: {config.data} needs at least 2 data rows")
    elif config.dataset == "breast-cancer":
        X, y = breast_cancer("unit")
        description = (
            "breast-cancer (Wisconsin, n = 569, d = 30): z-scored, rows scaled to unit norm ([LR] K27), benign = +1"
        )
    else:
        n, d = config.synthetic or DEFAULT_SYNTHETIC
        X, y, description = synthetic_data(n, d, config.loss)
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise InputError("--data: the data contain non-finite values (nan or inf)")
    norms = np.linalg.norm(X, axis=1)
    if config.normalize_rows:
        X = X / np.where(norms > 0, norms, 1.0)[:, None]
        description += "; every row scaled to unit L2 norm (--normalize-rows)"
    elif np.any(norms > 1 + UNIT_BALL_TOL):
        bad = int(np.sum(norms > 1 + UNIT_BALL_TOL))
        raise InputError(
            f"--data: {bad} of {len(X)} rows have L2 norm > 1 (largest {norms.max():.4g}); Theorem 5 assumes "
            f"‖x‖ ≤ 1: rescale the features or pass --normalize-rows"
        )
    if config.loss == "logistic" and not np.all((y == 1) | (y == -1)):
        values = ", ".join(f"{v:g}" for v in np.unique(y)[:5])
        raise InputError(f"--data: labels must be -1 or +1 for --loss logistic, found {values}")
    if config.loss != "logistic" and np.any(np.abs(y) > 1):
        raise InputError(
            f"--data: labels must satisfy |y| <= 1 for --loss {config.loss} (Theorem 5's assumption), "
            f"largest |y| = {np.abs(y).max():.4g}"
        )
    return X, y, description


@dataclass(frozen=True)
class Calibration:
    lam: float
    lam_theorem5: float
    xi: float  # inf for the squared loss without a radius
    beta: float
    sigmas: dict[str, float]  # Theorem 5's σ under each reading (empty when ξ = ∞)
    sigma: float  # the σ of the released mechanism (per-instance view, Theorem 9)
    sigma_source: str


def calibrate(config: ObjPertAuditConfig) -> Calibration:
    loss = config.loss_object()
    radius = config.theta_radius if config.theta_radius is not None else math.inf
    xi, beta = loss.gradient_bound(radius), loss.hessian_bound()
    lam5 = op.theorem5_lambda(config.epsilon, beta)
    lam = config.lam if config.lam is not None else lam5
    sigmas = {r: op.theorem5_sigma(config.epsilon, config.delta, xi, r) for r in READINGS} if math.isfinite(xi) else {}
    if config.sigma is not None:
        sigma, source = config.sigma, "user (--sigma)"
    else:
        sigma, source = sigmas[config.calibration], f"Theorem 5, {config.calibration} reading (ξ = {xi:g})"
    return Calibration(lam, lam5, xi, beta, sigmas, sigma, source)


def check_hessian(X: np.ndarray, y: np.ndarray, lam: float, loss) -> np.ndarray:
    """The non-private solution, after checking that ∇²J there is numerically non-singular (else ValueError)."""
    obj = op.Objective(X, y, lam, loss)
    try:
        theta, _ = op._reference(obj, 1e-10, 200)
    except op.ObjPertSolverError as err:
        raise InputError(f"the non-private problem could not be solved ({err}); check --lam and the data") from None
    ev = np.linalg.eigvalsh(obj.hessian(theta[None])[0])
    if not (ev[0] > 0 and ev[0] >= 1e-12 * ev[-1]):
        raise InputError(
            f"the Hessian of J at the non-private solution is numerically singular (eigenvalues "
            f"{ev[0]:.3g} .. {ev[-1]:.3g}); increase --lam"
        )
    return theta


# ------------------------------------------------------------------------------------------------
# the certified bound (module docstring)
# ------------------------------------------------------------------------------------------------
_PROFILE_GRID = np.linspace(0.0, 1.0, 20001)


def _profile(loss, p: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(f″, |f′|) over a compact parameter p ∈ [0, 1] that covers every value of xᵀθ (None: f′ unbounded)."""
    if isinstance(loss, LogisticLoss):
        return p * (1 - p), p
    if isinstance(loss, PseudoHuberLoss):
        return p**3, loss.kappa * np.sqrt(np.clip(1 - p**2, 0.0, None))
    return None


@dataclass(frozen=True)
class Certificate:
    """|L| ≤ G(|W|), W ~ N(0, 1), for a target of norm ``x_norm`` (see the module docstring)."""

    loss: Any
    x_norm: float
    lam: float
    sigma: float

    def _h(self, p, w: float):
        f2, f1 = _profile(self.loss, np.asarray(p, dtype=float))
        r2 = self.x_norm**2
        return np.log1p(f2 * r2 / self.lam) + f1**2 * r2 / (2 * self.sigma**2) + f1 * self.x_norm * w / self.sigma

    def G(self, w: float) -> float:
        values = self._h(_PROFILE_GRID, w)
        k = int(np.argmax(values))
        step = _PROFILE_GRID[1] - _PROFILE_GRID[0]
        lo, hi = max(0.0, _PROFILE_GRID[k] - step), min(1.0, _PROFILE_GRID[k] + step)
        res = optimize.minimize_scalar(
            lambda p: -float(self._h(p, w)), bounds=(lo, hi), method="bounded", options={"xatol": 1e-14}
        )
        best = max(float(values[k]), -float(res.fun))
        return best + 1e-9 * (1 + abs(best))  # safety margin against the numerical sup

    def w_star(self, epsilon: float) -> float:
        if self.G(0.0) >= epsilon:
            return 0.0
        hi = 1.0
        while self.G(hi) <= epsilon:
            hi *= 2
            if hi > 1e6:
                return math.inf
        return float(optimize.brentq(lambda w: self.G(w) - epsilon, 0.0, hi, xtol=1e-13, rtol=1e-13))

    def delta(self, epsilon: float) -> float:
        """Certified δ(ε) of the pair, both directions: 2Φ̄(w*)."""
        return float(min(1.0, 2 * stats.norm.sf(self.w_star(epsilon))))

    def epsilon(self, delta: float) -> float:
        """Certified ε at δ: G(Φ̄⁻¹(δ/2))."""
        return self.G(float(stats.norm.isf(delta / 2)))


def certificate(loss, x_norm: float, lam: float, sigma: float) -> Certificate | None:
    return Certificate(loss, float(x_norm), lam, sigma) if _profile(loss, np.zeros(1)) is not None else None


# ------------------------------------------------------------------------------------------------
# sampling
# ------------------------------------------------------------------------------------------------
class ReleaseAndLoss:
    """Picklable block work: releases θ̂ᴾ on ``world`` and their exact privacy loss, as columns [θ, L]
    (the same random stream as :class:`audits.engine.PrivacyLossSampler`)."""

    def __init__(self, pair: op.ObjPertPair, world: str):
        self.pair, self.world = pair, world

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        theta = self.pair.sample(self.world, size, rng)
        return np.column_stack([theta, self.pair.privacy_loss(theta)])


class Releases:
    """Picklable block work: releases θ̂ᴾ of ObjPert on one data set."""

    def __init__(self, pair: op.ObjPertPair):
        self.pair = pair

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.pair.sample("D", size, rng)


def glm_log_ratio(loss, theta, grad, hinv, x, yz, sign: float, sigma: float) -> np.ndarray:
    """Corollary 7's expression (an identity, check cor7-identity), vectorised with ∇J(θ; D) and ∇²J(θ; D)⁻¹ shared
    by every target: −log(1 + s f″μ) + f′²‖x‖²/(2σ²) + s f′ ∇Jᵀx/σ², s = +1 (add) or −1 (remove)."""
    t = theta @ x
    f1, f2 = loss.f1(t, yz), loss.f2(t, yz)
    mu = np.einsum("i,tij,j->t", x, hinv, x)
    return -np.log1p(sign * f2 * mu) + f1**2 * (x @ x) / (2 * sigma**2) + sign * f1 * (grad @ x) / sigma**2


# ------------------------------------------------------------------------------------------------
# the adversarial neighbour
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    x: np.ndarray
    y: float
    relation: str
    label: str


def candidate_targets(X: np.ndarray, y: np.ndarray, loss, lam: float, theta_np: np.ndarray, k: int = 5) -> list[Target]:
    """Candidate worst neighbours: points on the unit sphere (many directions, both extreme labels: large
    leverage ‖x‖²/λ and the largest possible gradient), training rows of largest leverage and largest
    |f′|‖x‖ at the non-private fit (removed), and the same rows with their label flipped (added)."""
    n, d = X.shape
    rng = np.random.default_rng(DATA_SEED + 7)
    if d == 1:
        dirs = np.array([[1.0], [-1.0]])
    elif d == 2:
        angles = np.arange(16) * (2 * math.pi / 16)
        dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    else:
        eye = np.eye(d)[: min(d, 8)]
        _, vecs = np.linalg.eigh(X.T @ X)
        extremes = vecs[:, [0, 1, -1]].T
        g = rng.standard_normal((8, d))
        dirs = np.vstack([eye, -eye, extremes, -extremes, g / np.linalg.norm(g, axis=1, keepdims=True)])
    if np.linalg.norm(theta_np) > 0:
        u = theta_np / np.linalg.norm(theta_np)
        dirs = np.vstack([dirs, u, -u])
    labels = (-1.0, 1.0)
    out = [
        Target(
            u,
            lab,
            "add",
            f"unit-sphere point x = ({', '.join(f'{v:.3g}' for v in u[:3])}{', …' if d > 3 else ''}), y = {lab:+g}, added",
        )
        for u in dirs
        for lab in labels
    ]
    obj = op.Objective(X, y, lam, loss)
    hinv = np.linalg.inv(obj.hessian(theta_np[None])[0])
    leverage = np.einsum("ni,ij,nj->n", X, hinv, X)
    grad = np.abs(loss.f1(X @ theta_np, y)) * np.linalg.norm(X, axis=1)
    rows: list[tuple[int, str]] = []
    for order, why in (
        (np.argsort(-leverage, kind="stable"), "largest leverage"),
        (np.argsort(-grad, kind="stable"), "largest |f′|‖x‖"),
    ):
        rows += [(int(i), why) for i in order[:k] if int(i) not in {r for r, _ in rows}]
    for i, why in rows:
        out.append(Target(X[i].copy(), float(y[i]), "remove", f"training row {i} ({why}), removed"))
        flipped = -y[i] if loss.name == "logistic" else (-1.0 if y[i] >= 0 else 1.0)
        out.append(
            Target(
                X[i].copy(),
                float(flipped),
                "add",
                f"training row {i} with label {flipped:+g} ({why}, label flipped), added",
            )
        )
    return out


@dataclass
class Search:
    winner: Target
    score: float
    ranking: list[tuple[str, float]]
    candidates: int
    releases: int
    thetas: np.ndarray  # the releases from D (reused by the identity checks)


def search_worst_target(
    X, y, loss, lam, sigma, theta_np, trials: int, seed: int, stream: str, executor, progress
) -> Search:
    """Rank the candidates by the 99th percentile of |L| (Corollary 7) over ``trials`` releases from D (shared by
    every candidate: world D does not depend on z)."""
    targets = candidate_targets(X, y, loss, lam, theta_np)
    base = op.ObjPertPair(X, y, targets[0].x, targets[0].y, relation="add", lam=lam, sigma=sigma, loss=loss)
    thetas = run_blocks(Releases(base), trials, seed, f"{stream}/search", executor, progress)
    grad, hess = base.obj_d.grad_hess(thetas)
    hinv = np.linalg.inv(hess)
    scores = []
    for t in targets:
        L = glm_log_ratio(loss, thetas, grad, hinv, t.x, t.y, 1.0 if t.relation == "add" else -1.0, sigma)
        scores.append(float(np.quantile(np.abs(L), SEARCH_QUANTILE)))
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranking = [(targets[i].label, scores[i]) for i in order]
    return Search(targets[int(order[0])], scores[int(order[0])], ranking, len(targets), trials, thetas)


# ------------------------------------------------------------------------------------------------
# (a) Theorem 6 and Corollary 7 against the exact density ratio; (b) Theorem 8 on the same instances
# ------------------------------------------------------------------------------------------------
@dataclass
class Instances:
    thetas: np.ndarray
    targets: list[Target]
    exact: list[np.ndarray]  # log p_D(θ) − log p_D±z(θ) per target, from the change-of-variables density
    logdet: list[np.ndarray]  # log det ∇²J(θ; D) − log det ∇²J(θ; D±z) per target

    @property
    def count(self) -> int:
        return self.thetas.shape[0] * len(self.targets)


def _neighbour(X, y, t: Target) -> tuple[np.ndarray, np.ndarray]:
    if t.relation == "add":
        return np.vstack([X, t.x]), np.append(y, t.y)
    i = int(np.flatnonzero(np.all(X == t.x, axis=1) & (y == t.y))[0])
    return np.delete(X, i, axis=0), np.delete(y, i)


def random_instances(X, y, loss, lam, sigma, search: Search, per_kind: int = 25, targets: int = 24) -> Instances:
    """Random (θ, z): θ from releases θ̂ᴾ of the search and from N(0, s²I), s ∈ {0.3, 3, 30}; z from the candidates
    (sphere points, training rows removed, flipped labels added), a fixed random subset of them."""
    rng = np.random.default_rng(DATA_SEED + 11)
    d = X.shape[1]
    released = search.thetas[
        rng.choice(search.thetas.shape[0], size=min(per_kind, search.thetas.shape[0]), replace=False)
    ]
    gauss = [s * rng.standard_normal((per_kind, d)) for s in (0.3, 3.0, 30.0)]
    thetas = np.vstack([released, *gauss])
    cands = candidate_targets(X, y, loss, lam, op._reference(op.Objective(X, y, lam, loss), 1e-10, 200)[0])
    pick = sorted(rng.choice(len(cands), size=min(targets, len(cands)), replace=False))
    chosen = [cands[i] for i in pick]
    obj_d = op.Objective(X, y, lam, loss)
    base = op.log_density(thetas, X, y, lam, sigma, loss)
    hd = np.linalg.slogdet(obj_d.hessian(thetas))[1]
    exact, logdet = [], []
    for t in chosen:
        Xp, yp = _neighbour(X, y, t)
        exact.append(base - op.log_density(thetas, Xp, yp, lam, sigma, loss))
        logdet.append(hd - np.linalg.slogdet(op.Objective(Xp, yp, lam, loss).hessian(thetas))[1])
    return Instances(thetas, chosen, exact, logdet)


def _relative_error(formula: np.ndarray, exact: np.ndarray) -> float:
    return float(np.max(np.abs(formula - exact) / np.maximum(1.0, np.abs(exact))))


def identity_checks(X, y, loss, lam, sigma, inst: Instances) -> list[Evidence]:
    err6, err7 = 0.0, 0.0
    largest = 0.0
    for t, exact in zip(inst.targets, inst.exact):
        t6 = op.theorem6_log_ratio(inst.thetas, X, y, t.x, t.y, lam, sigma, loss)
        t7 = op.corollary7_log_ratio(inst.thetas, X, y, t.x, t.y, lam, sigma, loss)
        err6, err7 = max(err6, _relative_error(t6, exact)), max(err7, _relative_error(t7, exact))
        largest = max(largest, float(np.max(np.abs(exact))))
    what = (
        f"{inst.count} instances: {inst.thetas.shape[0]} parameter vectors θ (releases θ̂ᴾ at σ = {sigma:.4g} and draws "
        f"from N(0, s²I), s = 0.3, 3, 30) × {len(inst.targets)} targets z (points on the unit sphere and flipped-label rows, "
        f"added; training rows, removed); exact = log p_D(θ) − log p_D±z(θ) from the change-of-variables density "
        f"(log N(−∇J(θ); 0, σ²I) + log det ∇²J(θ)); largest |exact| {largest:.3g}. Error = |formula − exact| / max(1, |exact|), "
        f"tolerance {IDENTITY_TOL:g}."
    )
    thm6 = builders.exact_check(
        CheckSpec(
            "thm6-identity",
            "Theorem 6: ex-post pDP of ObjPert",
            "For a convex loss, ε₁(θ̂ᴾ, D, D±z) = |−log Πⱼ(1 ∓ μⱼ) + ‖∇ℓ‖²/(2σ²) ± ∇J(θ̂ᴾ; D)ᵀ∇ℓ/σ²| "
            "is the ex-post privacy loss |log p_D(θ̂ᴾ) − log p_D±z(θ̂ᴾ)| exactly",
            "−log Πⱼ(1 ∓ μⱼ) + ‖∇ℓ(θ; z)‖²/(2σ²) ± ∇J(θ; D)ᵀ∇ℓ(θ; z)/σ²  =  log p_D(θ) − log p_D±z(θ)",
            "[RW] Theorem 6 (THEORY.md Q37: eigendecomposition of ∇²ℓ at the released θ)",
        ),
        holds=err6 <= IDENTITY_TOL,
        estimate=err6,
        note=f"Largest error {err6:.2e}. " + what,
        instances=inst.count,
        tolerance=IDENTITY_TOL,
    )
    cor7 = builders.exact_check(
        CheckSpec(
            "cor7-identity",
            "Corollary 7: ex-post pDP for GLMs (identity, printed as ≤)",
            "For ℓ = f(xᵀθ; y), ε(θ̂ᴾ, D, D±z) ≤ |−log(1 ± f″μ(x)) + ‖∇ℓ‖²/(2σ²) ± ∇J(θ̂ᴾ; D)ᵀ∇ℓ/σ²| with μ(x) = xᵀ∇²J(θ̂ᴾ; D)⁻¹x; "
            "printed as '≤', it holds with equality",
            "−log(1 ± f″μ) + f′²‖x‖²/(2σ²) ± f′ ∇J(θ; D)ᵀx/σ²  =  log p_D(θ) − log p_D±z(θ)",
            "[RW] Corollary 7 (THEORY.md Q37)",
        ),
        holds=err7 <= IDENTITY_TOL,
        estimate=err7,
        note=(
            f"Identity, printed as ≤: largest error {err7:.2e}, so the printed inequality holds with equality. "
            + what
            + " The report's ex-post pDP values (per-instance pages, Figure 1, the neighbour search) are this expression."
        ),
        instances=inst.count,
        tolerance=IDENTITY_TOL,
    )
    return [thm6, cor7]


def theorem8_check(loss, lam, inst: Instances) -> tuple[Evidence, bool]:
    """Theorem 8 (general and GLM forms) and, as an ingredient of the certified bound, |log-det term| ≤ log(1 + f″‖x‖²/λ).

    The left side is a difference of Cholesky log-determinants, exact up to rounding ~1e-15·|log det ∇²J|; an instance
    counts as violating only beyond that (absolute slack ``rounding`` below).  Strictness and the ratio |left| / bound are
    assessed where the bound is at least 1e-4: for a small bound a the ratio tends to 1 (log(1 + a) against −log(1 − a))
    and the gap (~a²) drowns in rounding.
    """
    rounding = 1e-11
    total = void = compared = 0
    worst = {"general": 0.0, "glm": 0.0, "cert": 0.0}
    ok = {"general": True, "glm": True, "cert": True}
    tightest = math.inf
    for t, ld in zip(inst.targets, inst.logdet):
        lhs = np.abs(ld)
        bounds = {
            "general": op.theorem8_bound(inst.thetas, t.x, t.y, lam, loss),
            "glm": op.theorem8_bound_glm(inst.thetas, t.x, t.y, lam, loss),
            "cert": np.log1p(loss.f2(inst.thetas @ t.x, t.y) * (t.x @ t.x) / lam),
        }
        total += lhs.size
        void += int(np.sum(~np.isfinite(bounds["general"])))
        for key, bound in bounds.items():
            finite = np.isfinite(bound)
            ok[key] &= bool(np.all(lhs[finite] <= bound[finite] + rounding))
            meaningful = finite & (bound >= 1e-4)
            if np.any(meaningful):
                worst[key] = max(worst[key], float(np.max(lhs[meaningful] / bound[meaningful])))
                if key == "general":
                    compared += int(meaningful.sum())
                    tightest = min(tightest, float(np.min(bound[meaningful] - lhs[meaningful])))
    strict = worst["general"] < 1 and worst["glm"] < 1
    check = builders.exact_check(
        CheckSpec(
            "thm8-bound",
            "Theorem 8: data-independent bound on the log-det term",
            "|−log Πⱼ(1 ∓ μⱼ)| ≤ −Σⱼ log(1 − λⱼ/λ), λⱼ the eigenvalues of ∇²ℓ(θ̂ᴾ; z) (GLM: −log(1 − f″‖x‖²/λ))",
            "|log det ∇²J(θ; D) − log det ∇²J(θ; D±z)| ≤ −Σⱼ log(1 − λⱼ/λ)",
            "[RW] Theorem 8 (THEORY.md Q37)",
        ),
        holds=ok["general"] and ok["glm"],
        estimate=worst["general"],
        note=(
            f"Holds on all {total} instances of thm6-identity ({void} void: some λⱼ ≥ λ), {'strictly' if strict else 'NOT strictly'}: "
            f"on the {compared} instances where the bound is at least 1e-4 the largest ratio |log-det term| / bound is "
            f"{worst['general']:.4g} (general form) and {worst['glm']:.4g} (GLM form), the smallest gap {tightest:.3g}. The left "
            f"side is a difference of Cholesky log-determinants of ∇²J (rounding slack {rounding:g}). The sharper bound "
            f"log(1 + f″‖x‖²/λ) used by this audit's certified DP bound {'holds' if ok['cert'] else 'FAILS'} on every instance "
            f"(largest ratio {worst['cert']:.4g})."
        ),
        instances=total,
        void=void,
        largest_ratio_general=worst["general"],
        largest_ratio_glm=worst["glm"],
        certificate_logdet_bound_holds=ok["cert"],
        largest_ratio_certificate=worst["cert"],
    )
    return check, ok["cert"]


# ------------------------------------------------------------------------------------------------
# (b) Theorem 9 coverage
# ------------------------------------------------------------------------------------------------
def theorem9_checks(X, y, loss, lam, sigma, rho, thetas: np.ndarray, printed: bool) -> list[Evidence]:
    obj = op.Objective(X, y, lam, loss)
    grad = obj.evaluate(thetas).grad  # ∇J(θ̂ᴾ; D) = −b
    n_rel, d = thetas.shape
    c_glm = math.sqrt(2 * math.log(2 / rho))
    c_gen = math.sqrt(2 * math.log(2 * d / rho))
    # the fixed target: the training row with the most negative f′ at the non-private fit (logistic: y = +1, f′ < 0)
    theta_np = op._reference(obj, 1e-10, 200)[0]
    f1_np = loss.f1(X @ theta_np, y)
    i = int(np.argmin(f1_np * np.linalg.norm(X, axis=1)))
    x, yz = X[i], float(y[i])
    lhs = np.abs(loss.f1(thetas @ x, yz) * (grad @ x))
    derived = lhs <= op.theorem9_bound_glm(thetas, x, yz, sigma, rho, loss, form="derived")
    exact_derived = float(2 * stats.norm.sf(c_glm))  # P[|bᵀx| > σ‖x‖c] (f′ ≠ 0 almost surely)
    negative = float(np.mean(loss.f1(thetas @ x, yz) < 0))
    target = f"training row {i} (x = ({', '.join(f'{v:.3g}' for v in x[:3])}{', …' if d > 3 else ''}), ‖x‖ = {np.linalg.norm(x):.3g}, y = {yz:+g})"
    checks = []
    if printed:
        holds = lhs <= op.theorem9_bound_glm(thetas, x, yz, sigma, rho, loss, form="printed")
        cov = coverage_of(holds, rho)
        check = builders.coverage_check(
            CheckSpec(
                "thm9-glm-printed",
                "Theorem 9, GLM form as printed (signed f′)",
                f"For a fixed z, with probability ≥ 1 − ρ (ρ = {rho:g}), |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ f′(xᵀθ̂ᴾ; y) σ‖x‖√(2 log(2/ρ))",
                "P[|∇Jᵀ∇ℓ| > f′ σ‖x‖√(2 log(2/ρ))] ≤ ρ",
                "[RW] Theorem 9, main text (THEORY.md Q23)",
            ),
            cov,
        )
        check = replace(
            check,
            note=check.note
            + (
                f" Target: {target}; f′ < 0 in {100 * negative:.1f}% of the {n_rel} releases, where the printed right side "
                f"is negative and the bound fails whatever the data. With |f′| the bound holds (thm9-glm-derived)."
            ),
        )
        checks.append(check)
    cov = coverage_of(derived, rho)
    check = builders.coverage_check(
        CheckSpec(
            "thm9-glm-derived",
            "Theorem 9, GLM form with |f′| (per fixed z)",
            f"For a fixed z, with probability ≥ 1 − ρ (ρ = {rho:g}), |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ |f′(xᵀθ̂ᴾ; y)| σ‖x‖√(2 log(2/ρ))",
            "P[|f′|·|bᵀx| > |f′| σ‖x‖√(2 log(2/ρ))] ≤ ρ",
            "[RW] Theorem 9 (GLM case, derived: |∇Jᵀ∇ℓ| = |f′|·|bᵀx|, bᵀx ~ N(0, σ²‖x‖²))",
        ),
        cov,
        exact_failure=exact_derived,
    )
    # simultaneous over z ∈ D (not claimed for this form): informational
    sim_fail = np.zeros(n_rel, dtype=bool)
    for lo in range(0, n_rel, 4096):
        th, g = thetas[lo : lo + 4096], grad[lo : lo + 4096]
        f1 = loss.f1(th @ X.T, y)  # (rows, n)
        left = np.abs(f1 * (g @ X.T))
        sim_fail[lo : lo + 4096] = np.any(left > np.abs(f1) * sigma * np.linalg.norm(X, axis=1) * c_glm, axis=1)
    check = replace(
        check,
        note=check.note
        + (
            f" Target: {target}. Exact failure probability 2Φ̄(√(2 log(2/ρ))) = {exact_derived:.4g} (the bound is "
            f"conservative by {rho / exact_derived:.3g}x). Not uniform in z: some z ∈ D violates it in "
            f"{100 * sim_fail.mean():.2f}% of the releases (d = {d})."
        ),
    )
    checks.append(check)
    gen_fail = np.zeros(n_rel, dtype=bool)
    for lo in range(0, n_rel, 4096):
        th, g = thetas[lo : lo + 4096], grad[lo : lo + 4096]
        f1 = loss.f1(th @ X.T, y)
        left = np.abs(f1 * (g @ X.T))
        right = sigma * c_gen * np.abs(f1) * np.abs(X).sum(axis=1)
        gen_fail[lo : lo + 4096] = np.any(left > right, axis=1)
    cov = coverage_of(~gen_fail, rho)
    upper = 1 - (1 - 2 * stats.norm.sf(c_gen)) ** d  # P[‖b‖∞ > σ c]: the only way Hölder's bound can fail
    check = builders.coverage_check(
        CheckSpec(
            "thm9-general",
            "Theorem 9, general ℓ₁ form, simultaneously over z ∈ D",
            f"With probability ≥ 1 − ρ (ρ = {rho:g}), |∇J(θ̂ᴾ; D)ᵀ∇ℓ(θ̂ᴾ; z)| ≤ σ√(2 log(2d/ρ))‖∇ℓ(θ̂ᴾ; z)‖₁ for every z ∈ D at once",
            "P[∃z ∈ D: |∇Jᵀ∇ℓ| > σ√(2 log(2d/ρ))‖∇ℓ‖₁] ≤ ρ",
            "[RW] Theorem 9 (general ℓ)",
        ),
        cov,
    )
    check = replace(
        check,
        note=check.note
        + (
            f" Failure probability ≤ P[‖b‖∞ > σ√(2 log(2d/ρ))] = {upper:.4g} (Hölder with ∇J(θ̂ᴾ; D) = −b); "
            f"{X.shape[0]} training points, {n_rel} releases."
        ),
    )
    checks.append(check)
    return checks


# ------------------------------------------------------------------------------------------------
# (c) DP of Theorem 5's calibration
# ------------------------------------------------------------------------------------------------
@dataclass
class DpSetting:
    prefix: str
    name: str
    sigma: float
    search: Search
    samples: PairSamples
    thetas_d: np.ndarray
    cert: Certificate | None
    checks: list[Evidence] = field(default_factory=list)


def _sample_world(pair, world, trials, seed, stream, executor, progress) -> np.ndarray:
    return run_blocks(ReleaseAndLoss(pair, world), trials, seed, f"{stream}/{world}", executor, progress)


def dp_setting(
    prefix: str,
    name: str,
    short: str,
    sigma: float,
    X,
    y,
    loss,
    lam,
    theta_np,
    config: ObjPertAuditConfig,
    cert_ok: bool,
    executor,
    progress,
    claim_source: str,
) -> DpSetting:
    eps, delta, alpha = config.epsilon, config.delta, config.alpha
    stream = f"objpert-dp/{prefix or 'user'}"
    search = search_worst_target(
        X, y, loss, lam, sigma, theta_np, config.search_trials, config.seed, stream, executor, progress
    )
    t = search.winner
    pair = op.ObjPertPair(X, y, t.x, t.y, relation=t.relation, lam=lam, sigma=sigma, loss=loss)
    rows_d = _sample_world(pair, "D", config.trials, config.seed, stream, executor, progress)
    rows_dp = _sample_world(pair, "D'", config.trials, config.seed, stream, executor, progress)
    samples = PairSamples(rows_d[:, -1], rows_dp[:, -1])
    cert = certificate(loss, float(np.linalg.norm(t.x)), lam, sigma) if cert_ok else None
    claim = f"ObjPert, {name} (σ = {sigma:.4g}, λ = {lam:.4g})"
    checks = dp_checks(samples, eps, delta, alpha, claim, claim_source, prefix)
    checks = [
        check.retitled(f"{short}: {what}")
        for check, what in zip(checks, ("DP, δ_{D‖D'}(ε)", "DP, δ_{D'‖D}(ε)", "likelihood-ratio attack"))
    ]
    runner = search.ranking[1] if len(search.ranking) > 1 else ("—", float("nan"))
    search_note = (
        f"Adversarial neighbour: {t.label}. Search: {search.candidates} candidates (unit-sphere points in many "
        f"directions with both extreme labels; the training rows of largest leverage and of largest |f′|‖x‖ at the "
        f"non-private fit, removed, and the same rows with their label flipped, added), ranked by the "
        f"{100 * SEARCH_QUANTILE:g}th percentile of the ex-post pDP |L| (Corollary 7, an identity: cor7-identity) over "
        f"{search.releases} releases from D; winner {search.score:.4g}, runner-up {runner[1]:.4g} ({runner[0]}). "
        f"Full budget at the winner: {config.trials:,} releases per world."
    )
    if cert is not None:
        cert_delta, cert_eps = cert.delta(eps), cert.epsilon(delta)
        cert_note = (
            f" Certified bound (derived by this audit from Corollary 7, the log-det bound log(1 + f″‖x‖²/λ) and "
            f"bᵀx ~ N(0, σ²‖x‖²); see the module notes): δ({eps:g}) {_bound_text(cert_delta)} in both directions, i.e. "
            f"({cert_eps:.4g}, {delta:g}) at this neighbour; a pass needs this bound to satisfy the claim and the Monte "
            f"Carlo interval to be consistent with it."
        )
        checks = [
            replace(check, supports=_tail_support(delta, cert_delta)).with_details(
                certified_delta=cert_delta, certified_epsilon=cert_eps
            )
            for check in checks[:2]
        ] + [replace(checks[2], supports=_attack_support(eps, cert_eps)).with_details(certified_epsilon=cert_eps)]
    else:
        cert_note = " No certified bound: " + (
            "the loss's gradient is unbounded on R^d (θ is not constrained to the radius "
            "behind ξ), so the tails can refute the claim but not confirm it."
            if _profile(loss, np.zeros(1)) is None
            else "an ingredient failed on the instances of thm8-bound."
        )
    checks = [replace(checks[0], note=(checks[0].note + " " + search_note + cert_note).strip())] + [
        replace(check, note=(check.note + f" Neighbour: {t.label} (search in {prefix}dp-forward)." + cert_note).strip())
        for check in checks[1:]
    ]
    checks = [
        check.with_details(
            **{
                "target": t.label,
                "relation": t.relation,
                "sigma": sigma,
                "lam": lam,
                "search_candidates": search.candidates,
                "search_winner_score": search.score,
            }
        )
        for check in checks
    ]
    return DpSetting(prefix, name, sigma, search, samples, rows_d[:, :-1], cert, checks)


def _bound_text(value: float) -> str:
    return "< 1e-300" if value == 0 else f"≤ {value:.3g}"


def _tail_support(delta_claim: float, cert_delta: float):
    def supports(ci, alpha) -> bool:
        if ci[1] <= delta_claim:
            return True
        return cert_delta <= delta_claim * (1 + builders.CLOSED_FORM_RTOL) and ci[0] <= cert_delta

    return supports


def _attack_support(eps_claim: float, cert_eps: float):
    def supports(ci, alpha) -> bool:
        return cert_eps <= eps_claim * (1 + builders.CLOSED_FORM_RTOL) and ci[0] <= cert_eps

    return supports


# ------------------------------------------------------------------------------------------------
# (e) Figure 1 (K17) and K19
# ------------------------------------------------------------------------------------------------
def figure1_data() -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    X, y, _ = synthetic_data(FIG1_N, 2, "logistic")
    sigma = op.theorem5_sigma(1.0, 1e-5, 1.0, "variance")
    theta = op._reference(op.Objective(X, y, FIG1_LAMBDA, "logistic"), 1e-12, 200)[0]
    return X, y, sigma, theta


def ex_post_all_points(X, y, loss, lam, sigma, theta) -> dict[str, np.ndarray]:
    """Corollary 7 for every training point (removal neighbours) at one θ, split into its three terms."""
    obj = op.Objective(X, y, lam, loss)
    grad, hess = obj.grad_hess(theta[None])
    grad, hinv = grad[0], np.linalg.inv(hess[0])
    t = X @ theta
    f1, f2 = loss.f1(t, y), loss.f2(t, y)
    mu = np.einsum("ni,ij,nj->n", X, hinv, X)
    logdet = -np.log1p(-f2 * mu)
    square = f1**2 * np.sum(X**2, axis=1) / (2 * sigma**2)
    cross = -f1 * (X @ grad) / sigma**2
    total = logdet + square + cross
    for i in range(0, len(X), max(1, len(X) // 5)):  # the vectorised form is the module's closed form
        ref = op.corollary7_log_ratio(theta, X, y, X[i], y[i], lam, sigma, loss)
        assert abs(float(np.ravel(ref)[0]) - total[i]) <= 1e-9 * max(1.0, abs(total[i]))
    return {"epsilon": np.abs(total), "logdet": logdet, "gradient": square + cross, "margin": t, "loss": loss.f(t, y)}


def _rotation(omega: float) -> np.ndarray:
    return np.array([[math.cos(omega), -math.sin(omega)], [math.sin(omega), math.cos(omega)]])


def figure1(seed: int) -> tuple[dict, list[Evidence]]:
    X, y, sigma, theta = figure1_data()
    loss = LogisticLoss()
    panels, stats_by = [], {}
    for omega, label in zip(FIG1_OMEGAS, FIG1_LABELS):
        th = _rotation(omega) @ theta
        v = ex_post_all_points(X, y, loss, FIG1_LAMBDA, sigma, th)
        dist = np.abs(v["margin"]) / np.linalg.norm(th)
        top = np.argsort(-v["epsilon"], kind="stable")[: len(X) // 20]
        share = np.abs(v["logdet"][top]) / (np.abs(v["logdet"][top]) + np.abs(v["gradient"][top]))
        stats_by[label] = {
            "spearman_distance": float(stats.spearmanr(v["epsilon"], dist).statistic),
            "spearman_loss": float(stats.spearmanr(v["epsilon"], v["loss"]).statistic),
            "top_distance": float(np.median(dist[top])),
            "all_distance": float(np.median(dist)),
            "top_misclassified": float(np.mean(np.sign(v["margin"][top]) != y[top])),
            "all_misclassified": float(np.mean(np.sign(v["margin"]) != y)),
            "top_logdet_share": float(np.median(share)),
            "median": float(np.median(v["epsilon"])),
            "max": float(np.max(v["epsilon"])),
        }
        arrow = (th / np.linalg.norm(th) * 0.8).tolist()
        panels.append(
            Panel(
                title=f"ω = {label}: median {np.median(v['epsilon']):.2g}, max {np.max(v['epsilon']):.2g}",
                x=X[:, 0],
                y=X[:, 1],
                c=np.maximum(v["epsilon"], FIG1_COLOUR_FLOOR),
                arrow=arrow,
            )
        )
    # K17's "astronomically unlikely": the exact log density of θ_π against θ̂
    dens = op.log_density(np.vstack([theta, _rotation(math.pi) @ theta]), X, y, FIG1_LAMBDA, sigma, "logistic")
    log_ratio = float(dens[1] - dens[0])
    # σ above which the log-det term dominates at ω = π/12 (both gradient terms scale as 1/σ²)
    v12 = ex_post_all_points(X, y, loss, FIG1_LAMBDA, sigma, _rotation(math.pi / 12) @ theta)
    top12 = np.argsort(-v12["epsilon"], kind="stable")[: len(X) // 20]
    sigma_star = sigma * math.sqrt(float(np.median(np.abs(v12["gradient"][top12]) / np.abs(v12["logdet"][top12]))))
    page = Page(
        title="[RW] Figure 1: ex-post pDP under rotated θ̂",
        text=(
            f"n = {FIG1_N} points uniform in the unit disc, two classes separated by a margin of 0.4 (K17); logistic loss, λ = 1; "
            f"θ̂ = argmin J(θ; D) = ({theta[0]:.3g}, {theta[1]:.3g}) (‖θ̂‖ = {np.linalg.norm(theta):.3g}); each panel evaluates "
            f"Corollary 7 (an identity) at θ_ω = θ̂ rotated counter-clockwise by ω (red arrow: direction of θ_ω) for every "
            f"point z ∈ D (removal neighbour). The paper does not state σ; we use σ = {sigma:.4g}, Theorem 5's variance "
            f"reading at (ε, δ) = (1, 1e-5). Colour: ex-post pDP, logarithmic scale shared by all panels (values below "
            f"{FIG1_COLOUR_FLOOR:g} drawn at {FIG1_COLOUR_FLOOR:g}); panel titles give the median and largest value. At ω = 0 the "
            f"least protected points sit on the decision boundary (leverage); as ω grows the gradient terms take over and "
            f"the badly predicted points are the least protected. θ_π is astronomically unlikely: "
            f"log p_D(θ_π) − log p_D(θ̂) = {log_ratio:.4g}. Checks k17-*."
        ),
        figure=ScatterPanels(
            panels=panels, columns=2, log_colour=True, clabel="ex-post pDP ε(θ_ω, D, D − z) (Corollary 7)"
        ),
    )
    checks = _k17_checks(stats_by, log_ratio, sigma, sigma_star)
    return page, checks


def _k17_checks(s: dict, log_ratio: float, sigma: float, sigma_star: float) -> list[Evidence]:
    small, large = ("0", "π/12"), ("π/4", "π/2", "3π/4", "π")
    boundary = all(
        s[w]["spearman_distance"] <= -0.5 and s[w]["top_distance"] <= 0.5 * s[w]["all_distance"] for w in small
    )
    fmt = lambda keys, f: "; ".join(f"ω = {w}: {f(s[w])}" for w in keys)  # noqa: E731
    checks = [
        builders.exact_check(
            CheckSpec(
                "k17-boundary",
                "Figure 1: small ω, boundary points least protected",
                "For ω ∈ {0, π/12} the points with the highest ex-post pDP are near the decision boundary of θ_ω",
                "Spearman(ε, distance to boundary) ≤ −0.5 and median distance of the top 5% ≤ ½ the median over all points",
                "[RW] §3, Figure 1 (K17)",
            ),
            holds=boundary,
            estimate=max(s[w]["spearman_distance"] for w in small),
            note="Distance = |xᵀθ_ω|/‖θ_ω‖. "
            + fmt(
                small,
                lambda v: (
                    f"Spearman {v['spearman_distance']:.3f}, top-5% median distance "
                    f"{v['top_distance']:.3f} vs {v['all_distance']:.3f} over all"
                ),
            )
            + f". σ = {sigma:.4g}.",
            **{f"omega_{w}": s[w] for w in small},
        )
    ]
    lev0 = s["0"]["top_logdet_share"] > 0.5
    grad_large = all(s[w]["top_logdet_share"] < 0.5 for w in large)
    checks.append(
        builders.exact_check(
            CheckSpec(
                "k17-terms",
                "Figure 1: leverage vs gradient terms",
                "At ω = 0 the leverage (log-det) term dominates the ex-post pDP of the least protected points; for larger rotations the "
                "gradient terms dominate",
                "median share |log-det| / (|log-det| + |gradient terms|) over the top 5%: > ½ at ω = 0, < ½ at ω ≥ π/4",
                "[RW] §3, Figure 1 (K17)",
            ),
            holds=lev0 and grad_large,
            estimate=s["0"]["top_logdet_share"],
            note=(
                "Shares: "
                + fmt(FIG1_LABELS, lambda v: f"{v['top_logdet_share']:.3f}")
                + f". At ω = π/12 the paper says the leverage "
                f"term still dominates; that depends on the unstated σ: both gradient terms scale as 1/σ², and at π/12 the log-det "
                f"term dominates for the top 5% only when σ ≳ {sigma_star:.3g} (here σ = {sigma:.4g}), so π/12 is left out of the criterion."
            ),
            shares={w: s[w]["top_logdet_share"] for w in FIG1_LABELS},
            sigma_star_pi_12=sigma_star,
        )
    )
    misfit = all(s[w]["top_misclassified"] >= 0.9 and s[w]["spearman_loss"] >= 0.5 for w in large)
    checks.append(
        builders.exact_check(
            CheckSpec(
                "k17-misfit",
                "Figure 1: large ω, misfits least protected",
                "For ω ≥ π/4 the points with the highest ex-post pDP are those θ_ω predicts badly",
                "≥ 90% of the top 5% misclassified by θ_ω and Spearman(ε, ℓ(θ_ω; z)) ≥ 0.5",
                "[RW] §3, Figure 1 (K17)",
            ),
            holds=misfit,
            estimate=min(s[w]["spearman_loss"] for w in large),
            note=fmt(
                large,
                lambda v: (
                    f"top 5% misclassified {100 * v['top_misclassified']:.0f}% (all points "
                    f"{100 * v['all_misclassified']:.0f}%), Spearman(ε, loss) {v['spearman_loss']:.3f}"
                ),
            )
            + ".",
            **{f"omega_{w}": s[w] for w in large},
        )
    )
    checks.append(
        builders.exact_check(
            CheckSpec(
                "k17-unlikely",
                "Figure 1: θ_π is astronomically unlikely",
                "The release θ_π (θ̂ rotated by π) is 'astronomically' unlikely under ObjPert on D",
                "log p_D(θ_π) − log p_D(θ̂) < log(1e-100) = −230.3 (exact log density)",
                "[RW] §3, Figure 1 (K17)",
            ),
            holds=log_ratio < math.log(1e-100),
            estimate=log_ratio,
            note=(
                f"Exact log-density ratio {log_ratio:.5g} at σ = {sigma:.4g}, λ = 1 (density ratio e^{log_ratio:.0f}); the exact density "
                "is the change of variables of mechanisms.objpert.log_density."
            ),
            log_density_ratio=log_ratio,
        )
    )
    return checks


def k19_check(epsilon: float) -> Evidence:
    grid = np.linspace(-40, 40, 800001)
    beta = float(np.max(LogisticLoss().f2(grid, 1.0)))
    lam5 = op.theorem5_lambda(epsilon, 0.25)
    holds = math.isclose(beta, 0.25, rel_tol=1e-12) and math.isclose(lam5, 1 / (2 * epsilon), rel_tol=1e-15)
    return builders.exact_check(
        CheckSpec(
            "k19-lambda",
            "K19: Theorem 5's λ for logistic regression",
            "Theorem 5's λ ≥ 2β/ε equals the stated logistic requirement λ ≥ 1/(2ε), since β = sup f″ = 1/4",
            "2β/ε = 1/(2ε), β = max_t s(t)(1 − s(t))",
            "[RW] Theorem 5, §4 (K19)",
        ),
        holds=holds,
        estimate=beta,
        note=f"max f″ on a grid of 800001 points in [−40, 40]: {beta:.15g}; 2β/ε at ε = {epsilon:g}: {lam5:.6g} = 1/(2ε) = {1 / (2 * epsilon):.6g}.",
        beta=beta,
        lam=lam5,
    )


# ------------------------------------------------------------------------------------------------
# (d) per-instance pages and the Theorem 5 page
# ------------------------------------------------------------------------------------------------
def per_instance_values(name: str, X, y, loss, lam, sigma, config: ObjPertAuditConfig) -> tuple[np.ndarray, dict]:
    """The ex-post pDP (Corollary 7) of every training point (removal neighbour) for one release θ̂ᴾ, seeded by the run."""
    pair = op.ObjPertPair(X, y, X[0], y[0], relation="remove", lam=lam, sigma=sigma, loss=loss)
    theta = pair.sample("D", 1, block_rng(config.seed, f"per-instance/{name}", 0))[0]
    eps = ex_post_all_points(X, y, loss, lam, sigma, theta)["epsilon"]
    summary = {
        "dataset": name,
        "n": int(len(X)),
        "median": float(np.median(eps)),
        "p90": float(np.quantile(eps, 0.9)),
        "max": float(np.max(eps)),
        "fraction_below_tenth_of_dp": float(np.mean(eps < 0.1 * config.epsilon)),
    }
    return eps, summary


def per_instance_page(
    values: dict[str, np.ndarray],
    summaries: list[dict],
    descriptions: dict[str, str],
    loss,
    lam,
    sigma,
    config: ObjPertAuditConfig,
) -> Page:
    """Both data sets' distributions on one logarithmic axis (fraction of points per log-bin), next to the DP ε."""
    cert = certificate(loss, 1.0, lam, sigma)
    cert_eps = cert.epsilon(config.delta) if cert is not None else None
    everything = np.concatenate(list(values.values()))
    low = max(float(np.min(everything[everything > 0])), 1e-12)
    high = max(float(np.max(everything)), config.epsilon, cert_eps or 0.0) * 1.5
    edges = np.geomspace(low / 1.5, high, 41)
    centres = np.sqrt(edges[:-1] * edges[1:])
    series, peak = [], 0.0
    for name, eps in values.items():
        frac = np.histogram(np.maximum(eps, low), bins=edges)[0] / eps.size
        peak = max(peak, float(frac.max()))
        series.append(Line(label=f"{name} ({eps.size} training points)", x=centres, y=frac, marker="o"))
    top = peak * 1.1
    series.append(
        Line(
            label=f"claimed DP ε = {config.epsilon:g} (δ = {config.delta:g})",
            x=[config.epsilon] * 2,
            y=[0, top],
            marker="",
            style="-",
        )
    )
    if cert_eps is not None:
        series.append(
            Line(
                label=f"certified DP ε at δ = {config.delta:g}, any ‖x‖ ≤ 1: {cert_eps:.3g}",
                x=[cert_eps] * 2,
                y=[0, top],
                marker="",
                style="--",
            )
        )
    parts = [
        f"{d['dataset']}: median {d['median']:.3g}, 90th percentile {d['p90']:.3g}, largest {d['max']:.3g}, "
        f"{100 * d['fraction_below_tenth_of_dp']:.1f}% below a tenth of the DP ε"
        for d in summaries
    ]
    return Page(
        title="Per-instance privacy of one release",
        text=(
            f"For one release θ̂ᴾ of ObjPert ({loss.name} loss, λ = {lam:.4g}, σ = {sigma:.4g}; drawn with the run's seed) on each "
            f"data set, the ex-post pDP ε(θ̂ᴾ, D, D − z) of Corollary 7 (an identity, check cor7-identity) of every training "
            f"point z, as the fraction of points per logarithmic bin. Ex-post pDP is the realised |log-density ratio| at this "
            f"release, not a guarantee (publishing it leaks information, [RW] Example 4); under ({config.epsilon:g}, {config.delta:g})-DP "
            f"a release has ex-post pDP above 2ε with probability at most δ(1 + e^(−2ε))/(1 − e^(−ε)) for each z. "
            + "; ".join(parts)
            + ". "
            + "Data: "
            + "; ".join(descriptions.values())
            + "."
            + (
                f" The certified DP ε at δ = {config.delta:g} over every ‖x‖ ≤ 1 at this σ, λ is {cert_eps:.3g}."
                if cert_eps
                else ""
            )
        ),
        figure=Lines(
            series=series,
            xlabel="ex-post pDP ε(θ̂ᴾ, D, D − z) (Corollary 7)",
            ylabel="fraction of training points per bin",
            logx=True,
        ),
    )


def theorem5_page(settings: list[DpSetting], config: ObjPertAuditConfig, alpha: float) -> Page:
    eps_claim, delta_claim = config.epsilon, config.delta
    floor = min(delta_claim, 1e-6) / 1e4
    top = 2.0 * eps_claim
    for s in settings:
        if s.cert is not None:
            top = max(top, min(4 * eps_claim, 1.1 * s.cert.epsilon(floor)))
    grid = np.linspace(0.0, top, 49)
    series = []
    for s in settings:
        tails = both_directions(s.samples.loss_d, s.samples.loss_dprime, grid, alpha)
        est = np.maximum(tails["D||D'"].estimate, tails["D'||D"].estimate)
        series.append(
            Line(
                label=f"{s.name}, σ = {s.sigma:.4g}: Monte Carlo max of both directions",
                x=grid,
                y=np.where(est > 0, est, np.nan),
                marker="o",
                style="none",
            )
        )
        if s.cert is not None:
            bound = np.array([s.cert.delta(e) for e in grid])
            series.append(
                Line(
                    label=f"{s.name}: certified bound",
                    x=grid,
                    y=np.where(bound >= floor, bound, np.nan),
                    marker="",
                    style="--",
                )
            )
    series.append(Line(label=f"claimed δ = {delta_claim:g}", x=[0.0, top], y=[delta_claim] * 2, marker="", style=":"))
    series.append(Line(label=f"claimed ε = {eps_claim:g}", x=[eps_claim] * 2, y=[floor, 1.0], marker="", style=":"))
    lines = []
    for s in settings:
        cert = f"; certified ({s.cert.epsilon(delta_claim):.3g}, {delta_claim:g})" if s.cert is not None else ""
        lines.append(f"{s.name}: σ = {s.sigma:.4g}, worst neighbour {s.search.winner.label}{cert}")
    return Page(
        title="Theorem 5: δ(ε) under both readings of σ",
        text=(
            "THEORY.md Q1: Theorem 5 prints σ = ξ²(8 log(2/δ) + 4ε)/ε²; read as σ² = ξ²(8 log(2/δ) + 4ε)/ε² (b enters the objective "
            "like a gradient, so σ should scale like ξ) it is the square root. Each σ is audited at its own adversarial neighbour "
            f"(search in the dp-forward checks) with {config.trials:,} releases per world. Points: Monte Carlo δ̂(ε), the larger of "
            "the two directions (zero estimates omitted; plain sampling resolves δ down to ~10/trials). Dashed: this audit's "
            f"certified bound on δ(ε) at that neighbour (drawn down to {floor:g}); a claim passes where the bound meets it. "
            + " · ".join(lines)
            + "."
        ),
        figure=Lines(series=series, xlabel="ε", ylabel="δ(ε) at the adversarial neighbour", logy=True),
    )


# ------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------
def run_objpert_audit(config: ObjPertAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    config.validate()
    loss = config.loss_object()
    X, y, description = load_data(config)
    cal = calibrate(config)
    lam = cal.lam
    theta_np = check_hessian(X, y, lam, loss)
    eps = config.epsilon

    checks: list[Evidence] = []
    settings: list[DpSetting] = []
    lam_note = (
        ""
        if lam >= cal.lam_theorem5 * (1 - 1e-12)
        else f" λ = {lam:.4g} is below Theorem 5's 2β/ε = {cal.lam_theorem5:.4g}: the theorem does not apply."
    )
    # (a)/(b) need releases; take them from the search of the mechanism's σ (cheap), then the instances
    first = config.sigma if config.sigma is not None else cal.sigmas[config.calibration]
    probe = search_worst_target(
        X,
        y,
        loss,
        lam,
        first,
        theta_np,
        min(config.search_trials, 2000),
        config.seed,
        "objpert-instances",
        executor,
        progress,
    )
    inst = random_instances(X, y, loss, lam, first, probe)
    checks += identity_checks(X, y, loss, lam, first, inst)
    thm8, cert_ok = theorem8_check(loss, lam, inst)
    checks.append(thm8)

    # (c) DP of Theorem 5 under both readings, and of the user's σ
    for reading in READINGS if cal.sigmas else ():
        s = dp_setting(
            f"thm5-{reading}-",
            f"Theorem 5, {reading} reading",
            f"Thm 5 {reading} σ = {cal.sigmas[reading]:.4g}",
            cal.sigmas[reading],
            X,
            y,
            loss,
            lam,
            theta_np,
            config,
            cert_ok,
            executor,
            progress,
            SOURCE_THM5 + f" ({reading} reading)",
        )
        settings.append(replace(s, checks=[replace(check, note=check.note + lam_note) for check in s.checks]))
    if config.sigma is not None:
        settings.append(
            dp_setting(
                "",
                "the released mechanism (--sigma)",
                f"ObjPert at σ = {config.sigma:.4g}",
                config.sigma,
                X,
                y,
                loss,
                lam,
                theta_np,
                config,
                cert_ok,
                executor,
                progress,
                "Definition D1 at --sigma; " + SOURCE_THM5,
            )
        )
    for s in settings:
        checks += s.checks

    # (b) Theorem 9 on the releases from D of the mechanism's σ
    mech = next(
        s
        for s in settings
        if (config.sigma is not None and s.prefix == "")
        or (config.sigma is None and s.prefix == f"thm5-{config.calibration}-")
    )
    checks += theorem9_checks(X, y, loss, lam, mech.sigma, config.rho, mech.thetas_d, config.printed_thm9)

    # (e) Figure 1 and K19
    fig1_page, k17 = figure1(config.seed)
    checks += k17
    checks.append(k19_check(eps))
    decided = finalize(checks, config.alpha)

    # (d) per instance
    own = (
        "breast-cancer" if config.dataset == "breast-cancer" else ("synthetic" if config.data is None else "your data")
    )
    values, summaries, descriptions = {}, [], {own: description}
    values[own], summary = per_instance_values(own, X, y, loss, lam, cal.sigma, config)
    summaries.append(summary)
    if config.dataset != "breast-cancer":
        bc_cfg = ObjPertAuditConfig(
            **{**asdict(config), "data": None, "synthetic": None, "dataset": "breast-cancer", "normalize_rows": False}
        )
        Xb, yb, descriptions["breast-cancer"] = load_data(bc_cfg)
        values["breast-cancer"], summary = per_instance_values("breast-cancer", Xb, yb, loss, lam, cal.sigma, config)
        summaries.append(summary)
    pages = [
        fig1_page,
        per_instance_page(values, summaries, descriptions, loss, lam, cal.sigma, config),
        theorem5_page(settings, config, config.alpha),
    ]

    parameters = {
        **asdict(config),
        "sigma": cal.sigma,
        "sigma_source": cal.sigma_source,
        "lam_used": lam,
        "lam_theorem5": cal.lam_theorem5,
        "xi": cal.xi,
        "beta": cal.beta,
        **{f"sigma_{r}": v for r, v in cal.sigmas.items()},
        "dataset_description": description,
        "n_rows": int(X.shape[0]),
        "dimension": int(X.shape[1]),
        **{f"worst_neighbour_{s.prefix or 'dp-'}".rstrip("-"): s.search.winner.label for s in settings},
        "figure1": f"n = {FIG1_N}, d = 2, margin 0.4, λ = 1, σ = {op.theorem5_sigma(1.0, 1e-5, 1.0, 'variance'):.6g} (Theorem 5 variance reading at (1, 1e-5))",
        "per_instance": "; ".join(f"{s['dataset']}: median {s['median']:.4g}, max {s['max']:.4g}" for s in summaries),
    }
    parameters["synthetic"] = (
        list(config.synthetic or DEFAULT_SYNTHETIC) if config.data is None and config.dataset is None else None
    )
    return make_run("objpert", decided, config.alpha, parameters, config.seed, pages=pages)
