"""The audit of One-Posterior-Sample (OPS): θ̃ ~ N(θ̂_λ, (XᵀX + λI)^{-1}/γ) ([PDP] §4, [LR] App. F).

Its privacy loss depends on θ̃ only through the scalar y_z − xᵀθ̃, so δ(ε) and ε(δ) are exact at every
target (:mod:`pdp_audit.audits.linreg.profiles`).  Besides the shared DP checks: Theorem 4.1 ((4.3) and (4.4)),
Remark 4.2 and Proposition 4.3(1) (4.5) as printed at every target, at this mechanism's (γ, λ) and in the
[PDP] K4 regime; Proposition 4.3(1) (4.6) at every data point and adversarial candidate; Proposition
4.3(3) and (4) by Monte Carlo against derived exact values; and the reproduction of [PDP] Figure 2 (right).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from pdp_audit.audits.linreg import builders, reproductions
from pdp_audit.audits.linreg.audit import SRC_PDP, MechanismAudit
from pdp_audit.audits.linreg.checks import (
    PROP43_DP,
    PROP43_GAP,
    PROP43_MSE,
    PROP43_PDP,
    REMARK42,
    THM41_43,
    THM41_44,
)
from pdp_audit.audits.linreg.context import candidates, offdata_targets
from pdp_audit.audits.linreg.profiles import ops_delta, ops_epsilon, ops_tail_probability
from pdp_audit.mechanisms.linreg import bounds as B
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.mechanisms.linreg.calibration import ops_calibration
from pdp_audit.verify.estimators.engine import run_blocks

#: Draws of each of Prop. 4.3's Monte Carlo means (at most ``--trials``).
PROP43_DRAWS = 200_000


@dataclasses.dataclass(frozen=True)
class _MseWork:
    """Blocks of ‖θ̃ − θ0‖² for Proposition 4.3(3): y ~ N(Xθ0, σ²I), then OPS (module level: worker processes
    receive it by pickling)."""

    mean0: np.ndarray
    sigma: float
    proj: np.ndarray
    noise_map: np.ndarray
    theta0: np.ndarray

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        Y = self.mean0 + self.sigma * rng.standard_normal((size, self.mean0.size))
        theta = Y @ self.proj.T + rng.standard_normal((size, self.theta0.size)) @ self.noise_map
        return np.sum((theta - self.theta0) ** 2, axis=1)


@dataclasses.dataclass(frozen=True)
class _GapWork:
    """Blocks of the excess objective F(θ̃) − F(θ̂) for Proposition 4.3(4) (module level, as :class:`_MseWork`)."""

    X: np.ndarray
    y: np.ndarray
    lam: float
    centre: np.ndarray
    noise_map: np.ndarray
    f_hat: float

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        theta = self.centre + rng.standard_normal((size, self.centre.size)) @ self.noise_map
        return B.prop43_objective(self.X, self.y, theta, self.lam) - self.f_hat


class OPSAudit(MechanismAudit):
    """One-Posterior-Sample θ̃ ~ N(θ̂_λ, (XᵀX + λI)^{-1}/γ): exact profiles through the scalar y_z − xᵀθ."""

    name = "ops"
    title = "One-Posterior-Sample (OPS)"
    source = f"[PDP] {SRC_PDP}, Thm 4.1; [LR] App. F"
    exact_dp = True
    per_instance_how = "exact: the OPS privacy profile through the scalar y_z − xᵀθ"
    config_keys = ("calibration", "gamma", "lam", "reproduce")

    def __init__(self, config, X, y):
        super().__init__(config, X, y)
        lam, gamma = ops_calibration(config.calibration, config.epsilon, config.delta, self.n, self.d)
        self.lam_calibrated, self.gamma_calibrated = lam, gamma
        self.lam = config.lam if config.lam is not None else lam
        self.gamma_nominal = config.gamma if config.gamma is not None else gamma
        self.gamma = self.gamma_nominal / self.M**2

    def typical_lambda(self):
        return self.lam

    def pair(self, nb):
        return L.OPSPair(nb, self.gamma, self.lam)

    def _q(self, ctx, targets, lam):
        q = ctx.ridge(targets, lam)
        return q["mu"], q["r"], np.array([t.kind for t in targets])

    def _deltas(self, mu, r, kinds, gamma, eps):
        out = np.empty((len(mu), 2))
        for kind in ("add", "remove"):
            m = kinds == kind
            if m.any():
                f, b = ops_delta(np.asarray(eps, float)[m] if np.ndim(eps) else eps, mu[m], r[m], gamma, kind)
                out[m, 0], out[m, 1] = f, b
        return out

    def target_deltas(self, ctx, targets, eps):
        mu, r, kinds = self._q(ctx, targets, self.lam)
        return self._deltas(mu, r, kinds, self.gamma, eps)

    def target_epsilons(self, ctx, targets, delta):
        mu, r, _ = self._q(ctx, targets, self.lam)
        return ops_epsilon(delta, mu, r, self.gamma)

    def attack_exact(self, ctx, target):
        mu, r, _ = self._q(ctx, [target], self.lam)
        g, kind = self.gamma, target.kind
        points = builders.roc_points(
            lambda t: float(ops_tail_probability(t, mu[0], r[0], g, kind, "D")),
            lambda t: float(ops_tail_probability(t, mu[0], r[0], g, kind, "D'")),
        )
        return float(ops_epsilon(self.config.delta, mu, r, g)[0]), points

    def parameters(self):
        return {
            "lam": self.lam,
            "gamma": self.gamma,
            "calibration": self.config.calibration,
            "lam_calibrated": self.lam_calibrated,
            "gamma_calibrated": self.gamma_calibrated,
            "noise_multiplier": self.M,
        }

    def noise_description(self):
        src = (
            "user"
            if (self.config.gamma is not None or self.config.lam is not None)
            else f"[LR] App. F {self.config.calibration} calibration"
        )
        return f"θ̃ ~ N(θ̂_λ, (XᵀX + λI)^{{-1}}/γ), γ = {self.gamma:.4g}, λ = {self.lam:.4g} ({src})" + (
            f"; γ divided by {self.M**2:g} (fault injection)" if self.M != 1 else ""
        )

    def k4_setting(self, ctx) -> tuple[float, float]:
        """[PDP] §4.2 (K4): well-conditioned data, γ_n = √n, λ_n = 0 (λ = 1 if removing a row could make XᵀX
        singular)."""
        lam_min = float(np.linalg.eigvalsh(ctx.X.T @ ctx.X)[0])
        return math.sqrt(self.n), (0.0 if lam_min > 1.0 else 1.0)

    def extra_draws(self):
        trials = self.config.trials  # four printed forms and Prop. 4.3's DP bound, then its two means
        return 5 * builders.tail_check_draws(trials) + 2 * int(min(trials, PROP43_DRAWS))

    def extra_checks(self, ctx):
        c = self.config
        targets = ctx.data_targets() + offdata_targets(ctx.X, ctx.y, self.lam, c.seed)
        labels = [t.label for t in targets]
        nbs = [ctx.neighbours(t) for t in targets]
        k4_gamma, k4_lam = self.k4_setting(ctx)
        settings = (
            ("this mechanism", self.gamma, self.lam),
            (f"[PDP] K4 regime γ = √n = {k4_gamma:.4g}, λ = {k4_lam:g}", k4_gamma, k4_lam),
        )
        forms = (
            (THM41_43, lambda nb, g, lam: B.thm41_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta, "4.3")),
            (THM41_44, lambda nb, g, lam: B.thm41_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta, "4.4")),
            (REMARK42, lambda nb, g, lam: B.remark42_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta)),
            (PROP43_PDP, lambda nb, g, lam: B.prop43_pdp_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta)),
        )
        cache = {}
        for _, g, lam in settings:
            mu, r, kinds = self._q(ctx, targets, lam)
            cache[(g, lam)] = (mu, r, kinds)
        checks = []
        for spec, fn in forms:
            sets = []
            for sname, g, lam in settings:
                eps = np.array([fn(nb, g, lam) for nb in nbs])
                mu, r, kinds = cache[(g, lam)]
                sets.append(
                    builders.Setting(
                        sname,
                        labels,
                        eps,
                        self._deltas(mu, r, kinds, g, eps),
                        lambda k, g=g, lam=lam: L.OPSPair(nbs[k], g, lam),
                        {"gamma": g, "lam": lam},
                    )
                )
            checks.append(builders.every_target_check(spec.fill(delta=c.delta), sets, c.delta, ctx.draws()))
        checks.append(self._prop43_dp(ctx))
        checks += self._prop43_mc(ctx)
        return checks

    def _prop43_dp(self, ctx):
        c = self.config
        targets = ctx.data_targets() + candidates(ctx.bases, self.lam, 10_000)
        eps = B.prop43_dp_epsilon(self.n, self.gamma, self.lam, c.delta)
        exact = self.target_deltas(ctx, targets, eps)
        nbs = [ctx.neighbours(t) for t in targets]
        setting = builders.Setting(
            "this mechanism", [t.label for t in targets], np.full(len(targets), eps), exact, lambda k: self.pair(nbs[k])
        )
        check = builders.every_target_check(
            PROP43_DP.fill(epsilon=eps, delta=c.delta),
            [setting],
            c.delta,
            ctx.draws(),
        )
        return dataclasses.replace(
            check,
            note=f"Evaluated at every data point and at the {len(targets) - self.n} "
            "adversarial candidates. " + check.note,
        )

    def _prop43_mc(self, ctx):
        c = self.config
        X, y, n, d = ctx.X, ctx.y, self.n, self.d
        lam, gamma = self.lam, self.gamma
        draws = int(min(c.trials, PROP43_DRAWS))
        # Linear Gaussian model for (3): θ0 = least-squares fit of the data, σ² = residual variance (our choice).
        theta0 = np.linalg.lstsq(X, y, rcond=None)[0]
        sigma = float(np.sqrt(np.sum((y - X @ theta0) ** 2) / max(n - d, 1)))
        Gm = L.gram(X, lam)
        proj = np.linalg.solve(Gm, X.T)  # θ̂_λ(y) = proj @ y
        noise_map = np.linalg.inv(np.linalg.cholesky(gamma * Gm))  # θ̃ − θ̂_λ = ξ L^{-1}
        mean0 = X @ theta0

        mse_work = _MseWork(mean0, sigma, proj, noise_map, theta0)
        mse = run_blocks(mse_work, draws, c.seed, "prop43-mse", ctx.executor)
        printed = B.prop43_mse_printed(X, theta0, sigma, gamma, lam)
        exact = B.ops_mse_exact(X, theta0, sigma, gamma, lam)
        check3 = builders.mean_claim_check(
            PROP43_MSE.fill(),
            mse,
            printed,
            exact,
            note=f"Model: θ0 = least-squares fit of the data, σ = {sigma:.4g} (its residual standard deviation); "
            f"OPS γ = {gamma:.4g}, λ = {lam:.4g}.",
        )

        theta_hat = L.ridge(X, y, 2 * lam)  # argmin of F = ½‖y − Xθ‖² + λ‖θ‖²
        f_hat = float(B.prop43_objective(X, y, theta_hat, lam)[0])
        centre = L.ridge(X, y, lam)

        gap_work = _GapWork(X, y, lam, centre, noise_map, f_hat)
        gap = run_blocks(gap_work, draws, c.seed, "prop43-gap", ctx.executor)
        check4 = builders.mean_claim_check(
            PROP43_GAP.fill(),
            gap,
            B.prop43_gap_printed(d, gamma),
            B.ops_gap_exact(X, y, gamma, lam),
            note=f"Derived exact value ½tr(K G^{{-1}})/γ + ½‖θ̂_λ − θ̂‖²_K (= d/(2γ) at λ = 0); "
            f"γ = {gamma:.4g}, λ = {lam:.4g}.",
        )
        return [check3, check4]

    def reproductions(self, ctx):
        return reproductions.pdp_figure2_right(self.config)
