"""Configuration, data, targets and the adversarial-neighbour candidates of the linear-regression audits.

Data (``--dataset``, ``--data file.csv --target-column y``, ``--synthetic n,d``) are preprocessed as in
the papers (:func:`pdp_audit.mechanisms.linreg.data.preprocess`: z-score, rows scaled to ‖x‖ = 1, y mapped onto
[−1, 1]), so every row lies in the domain ‖x‖ ≤ 1, |y| ≤ 1 of the DP claims.

**Candidate neighbours** (the adversarial search).  DP must hold for *every* neighbouring pair in the
domain, so the search ranges over base data sets Z and targets z = (x, y_z) with ‖x‖ ≤ 1, |y_z| = 1:

* base data sets: ``data`` (the preprocessed data), ``singular`` (the data with feature 1 zeroed and rows
  re-normalised: XᵀX is singular along e₁), ``aligned`` (n identical rows √(c/n)·e₁ with y = 1: XᵀX = c e₁e₁ᵀ
  and ‖θ̂_λ‖ = √n/(2√λ) at c = λ, the worst case of [PDP] Prop. 4.3's proof, K5);
* added targets on each base: every coordinate axis e_j (≤ 12 of them), the smallest, second smallest and
  largest eigenvectors of ZᵀZ, the direction of θ̂_λ(Z) and its sums with the smallest eigenvector, each
  with y_z = +1 and −1 (near-singular directions, points aligned with θ̂, |y| = 1, large leverage);
* removed targets: the rows of the data with the largest leverage × |residual|, and one row of each
  adversarial base.

Every mechanism scores every candidate cheaply (its exact δ(ε) where known, else a conditional or small
Monte Carlo estimate) and the worst one is audited with the full budget.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from pdp_audit.audits.linreg.config import LinregAuditConfig, check_data_width
from pdp_audit.audits.linreg.profiles import RidgeBatch
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.mechanisms.linreg.data import load_regression, preprocess, synthetic_regression
from pdp_audit.verify.estimators.engine import block_rng
from pdp_audit.verify.evidence.dp_claim import Draws
from pdp_audit.verify.inputs.datasets import load_csv
from pdp_audit.verify.inputs.validation import InputError, shown

MAX_AXES = 12
REMOVED_ROWS = 16


def load_data(config: LinregAuditConfig) -> tuple[np.ndarray, np.ndarray, str, str]:
    """``(X, y, name, description)``, preprocessed into the unit domain."""
    if config.synthetic is not None:
        n, d = config.synthetic
        X, y, _ = synthetic_regression(n, d, block_rng(config.seed, "synthetic-data", 0))
        X, y = preprocess(X, y)
        return (
            X,
            y,
            f"synthetic-{n}x{d}",
            f"synthetic: X iid N(0,1), θ0 ~ U[0,1]^d, y ~ N(Xθ0, I); n = {n}, d = {d}; preprocessed",
        )
    if config.data is not None:
        ds = load_csv(config.data, config.target_column)
        if ds.features.shape[1] < 1:
            raise InputError(f"--data: {shown(config.data)} has no feature column besides --target-column")
        check_data_width(config.data, ds)
        if len(ds.features) < ds.features.shape[1] + 2:
            raise InputError(
                f"--data: {shown(config.data)} needs at least d + 2 = {ds.features.shape[1] + 2} rows, "
                f"got {len(ds.features)}"
            )
        assert ds.target is not None  # check(): --data needs --target-column
        X, y = preprocess(ds.features, ds.target)
        return X, y, ds.name, ds.description + "; z-scored, rows scaled to ‖x‖ = 1, y mapped onto [−1, 1]"
    X, y = load_regression(config.dataset)
    return (
        X,
        y,
        config.dataset,
        (
            f"{config.dataset} (bundled offline; {X.shape[0]} rows, {X.shape[1]} features); "
            "z-scored, rows scaled to ‖x‖ = 1, y mapped onto [−1, 1]"
        ),
    )


@dataclass(frozen=True)
class Target:
    """A neighbouring pair: target z = (x, y_z) added to base ``base`` (kind "add") or row ``row`` removed from it."""

    label: str
    base: str
    kind: Literal["add", "remove"]
    x: np.ndarray
    yz: float
    row: int = -1


@dataclass
class Context:
    """One run's configuration, preprocessed data, base data sets of the search, and how to compute.

    ``bases`` maps a base's name to ``(X, y, description)`` (:func:`make_bases`).
    """

    config: LinregAuditConfig
    X: np.ndarray
    y: np.ndarray
    name: str
    description: str
    bases: dict[str, tuple[np.ndarray, np.ndarray, str]] = field(default_factory=dict)
    executor: Executor | None = None
    progress: bool = False

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def draws(self) -> Draws:
        """How this run samples: the config's trials, seed and α, on the run's executor."""
        return Draws(self.config.trials, self.config.seed, self.config.alpha, self.executor)

    def neighbours(self, target: Target) -> L.Neighbours:
        X, y, _ = self.bases[target.base]
        if target.kind == "add":
            return L.Neighbours.add(X, y, target.x, target.yz)
        return L.Neighbours.remove(X, y, target.row)

    def data_targets(self) -> list[Target]:
        """Every data point, removed from the data (its pDP)."""
        return [Target(f"row {i} (removed)", "data", "remove", self.X[i], float(self.y[i]), i) for i in range(self.n)]

    def groups(self, targets: list[Target]):
        """``(indices, RidgeBatch)`` per (base, kind) group of ``targets``."""
        keys: dict[tuple[str, Literal["add", "remove"]], list[int]] = {}
        for i, t in enumerate(targets):
            keys.setdefault((t.base, t.kind), []).append(i)
        for (base, kind), idx in keys.items():
            X, y, _ = self.bases[base]
            if kind == "add":
                xs, ys = np.array([targets[i].x for i in idx]), np.array([targets[i].yz for i in idx])
            else:
                rows = np.array([targets[i].row for i in idx])
                xs, ys = X[rows], y[rows]
            yield np.array(idx), RidgeBatch(X, y, xs, ys, kind)

    def ridge(self, targets: list[Target], lam: float) -> dict[str, np.ndarray]:
        """OPS/ridge quantities (μ, r, ‖θ̂_Z‖, ‖θ̂_W‖, shift) of every target at one λ."""
        out: dict[str, np.ndarray] = {}
        for idx, batch in self.groups(targets):
            q = batch.at(np.full(len(idx), float(lam)))
            for key, value in q.items():
                out.setdefault(key, np.empty(len(targets)))[idx] = value
        return out


def make_bases(X: np.ndarray, y: np.ndarray, aligned_scale: float) -> dict[str, tuple[np.ndarray, np.ndarray, str]]:
    """The three base data sets of the search (module notes): ``data``, ``singular`` and ``aligned`` (at scale
    ``c = aligned_scale`` clipped to [1e-3, n])."""
    n, d = X.shape
    singular = X.copy()
    singular[:, 0] = 0.0
    norms = np.linalg.norm(singular, axis=1, keepdims=True)
    singular = np.where(norms > 0, singular / np.where(norms > 0, norms, 1.0), 0.0)
    c = float(min(max(aligned_scale, 1e-3), n))
    aligned = np.zeros((n, d))
    aligned[:, 0] = math.sqrt(c / n)
    return {
        "data": (X, y, "the preprocessed data"),
        "singular": (singular, y.copy(), "the data with feature 1 zeroed (XᵀX singular along e₁), rows re-normalised"),
        "aligned": (aligned, np.ones(n), f"n identical rows √(c/n)·e₁, y = 1 (XᵀX = c e₁e₁ᵀ, c = {c:.4g}; K5)"),
    }


#: The base data sets as a candidate's name says them ("add x = e_1, y = +1 to the aligned copy").
BASE_WORDS = {"data": "data", "singular": "singular copy", "aligned": "aligned copy"}


def _unit(v: np.ndarray) -> np.ndarray | None:
    norm = np.linalg.norm(v)
    return None if norm < 1e-12 else v / norm


def candidates(bases: dict, lam: float, limit: int) -> list[Target]:
    """The adversarial candidates of the module notes, interleaved across bases, at most ``limit``."""
    per_base: list[list[Target]] = []
    for name, (X, y, _) in bases.items():
        n, d = X.shape
        gram = X.T @ X
        evals, evecs = np.linalg.eigh(gram)
        theta = np.linalg.solve(gram + max(lam, 1e-6) * np.eye(d), X.T @ y)
        directions: list[tuple[str, np.ndarray]] = []
        th = _unit(theta)
        vmin = evecs[:, 0]
        if th is not None:
            directions.append(("θ̂ direction", th))
            for sign, word in ((1, "+"), (-1, "−")):
                v = _unit(vmin + sign * th)
                if v is not None:
                    directions.append((f"v_min {word} θ̂ direction", v))
        directions += [
            ("v_min (smallest eigenvector)", vmin),
            ("v_2 (second eigenvector)", evecs[:, min(1, d - 1)]),
            ("v_max (largest eigenvector)", evecs[:, -1]),
        ]
        axes = np.argsort(np.diag(gram), kind="stable")[:MAX_AXES]
        directions += [(f"e_{j + 1}", np.eye(d)[j]) for j in sorted(axes)]
        items: list[Target] = []
        for label, x in directions:
            for yz in (1.0, -1.0):
                items.append(Target(f"add x = {label}, y = {yz:+g} to the {BASE_WORDS[name]}", name, "add", x, yz))
        if name == "data":
            resid = y - X @ theta
            lev = np.einsum("ij,ij->i", X @ np.linalg.inv(gram + max(lam, 1e-6) * np.eye(d)), X)
            for i in np.argsort(-lev * np.abs(resid), kind="stable")[:REMOVED_ROWS]:
                items.append(Target(f"remove row {i} of the data", name, "remove", X[i], float(y[i]), int(i)))
        else:
            items.append(Target(f"remove row 0 of the {BASE_WORDS[name]}", name, "remove", X[0], float(y[0]), 0))
        per_base.append(items)
    out: list[Target] = []
    for k in range(max(len(items) for items in per_base)):
        for items in per_base:
            if k < len(items):
                out.append(items[k])
    return out[:limit]


def offdata_targets(X: np.ndarray, y: np.ndarray, lam: float, seed: int, random: int = 64) -> list[Target]:
    """Targets outside the data set ("pDP for all"): the structured candidates on the data plus
    ``random`` uniformly random unit vectors with y = ±1."""
    structured = [t for t in candidates({"data": (X, y, "")}, lam, 10_000) if t.kind == "add"]
    rng = block_rng(seed, "offdata-targets", 0)
    extra = []
    for k in range(random):
        v = rng.standard_normal(int(X.shape[1]))
        extra.append(
            Target(
                f"add random unit x #{k}, y = {1 if k % 2 == 0 else -1:+d} to data",
                "data",
                "add",
                v / np.linalg.norm(v),
                1.0 if k % 2 == 0 else -1.0,
            )
        )
    return structured + extra
