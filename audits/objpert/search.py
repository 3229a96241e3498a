"""The adversarial neighbour of the objective-perturbation audit, found by a cheap search before the full audit.

Candidates are points on the unit sphere and training rows (removed, or added with a flipped label); they
are ranked by a high quantile of the ex-post pDP |L| ([RW] Corollary 7, an identity) over releases from D,
which every candidate shares because world D does not depend on z.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from pdp_audit.audits.objpert.context import DATA_SEED
from pdp_audit.mechanisms.base import World
from pdp_audit.mechanisms.losses import Loss
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.objpert.certificate import glm_log_ratio
from pdp_audit.verify.estimators.engine import run_blocks

#: The candidates are ranked by this quantile of |L| over the search's releases.
SEARCH_QUANTILE = 0.99


class ReleaseAndLoss:
    """Picklable block work: releases θ̂ᴾ on ``world`` and their exact privacy loss, as columns [θ, L]
    (the same random stream as :class:`pdp_audit.verify.estimators.engine.PrivacyLossSampler`)."""

    def __init__(self, pair: op.ObjPertPair, world: World):
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


@dataclass(frozen=True)
class Target:
    """A candidate neighbour z = (x, y), added to D or removed from it, with its label in the report."""

    x: np.ndarray
    y: float
    relation: op.Relation
    label: str


@dataclass(frozen=True)
class Problem:
    """The training problem ObjPert perturbs: data (X, y), the loss ℓ, the ridge λ of J and the non-private fit
    θ̂ = argmin J(θ; D) (the candidates' leverage and gradients are taken there)."""

    X: np.ndarray
    y: np.ndarray
    loss: Loss
    lam: float
    theta_np: np.ndarray

    def pair(self, target: Target, sigma: float) -> op.ObjPertPair:
        """ObjPert at noise scale ``sigma`` on D and its neighbour D ± ``target``."""
        mechanism = op.ObjPertMechanism(self.lam, sigma, self.loss)
        return op.ObjPertPair(self.X, self.y, target.x, target.y, relation=target.relation, mechanism=mechanism)


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
            f"unit-sphere point x = ({', '.join(f'{v:.3g}' for v in u[:3])}{', …' if d > 3 else ''}), "
            f"y = {lab:+g}, added",
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
    """The search's outcome: the winning target, its score, the ranking of all candidates and the releases used."""

    winner: Target
    score: float
    ranking: list[tuple[str, float]]
    candidates: int
    releases: int
    thetas: np.ndarray  # the releases from D (reused by the identity checks)


def search_worst_target(
    problem: Problem, sigma: float, trials: int, seed: int, stream: str, executor, progress
) -> Search:
    """Rank the candidates by the 99th percentile of |L| (Corollary 7) over ``trials`` releases from D (shared by
    every candidate: world D does not depend on z)."""
    X, y, loss = problem.X, problem.y, problem.loss
    targets = candidate_targets(X, y, loss, problem.lam, problem.theta_np)
    base = problem.pair(replace(targets[0], relation="add"), sigma)  # its world D is every candidate's
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
