"""The audit of Gaussian output perturbation of ridge regression ([PDP] (3.2) with A = I).

Besides the shared DP checks: [PDP] Lemma 2.4 and eq. (3.3) as printed at every target (data points and
off-dataset targets, two readings of A and γ for the same noise σ²I), eq. (3.4) lines 1 and 2 against the
exact per-instance sensitivity, both stability identities of Lemma 3.1, and the reproductions of [PDP]
Figures 1 and 2 (left).
"""

from __future__ import annotations

import numpy as np

from pdp_audit.audits.linreg import builders, reproductions
from pdp_audit.audits.linreg.audit import SRC_PDP, GaussianAudit
from pdp_audit.audits.linreg.checks import EQ33, EQ34_LINE1, EQ34_LINE2, LEMMA24, LEMMA31
from pdp_audit.audits.linreg.context import offdata_targets
from pdp_audit.mechanisms import gaussian as G
from pdp_audit.mechanisms.gaussian import whitened_delta
from pdp_audit.mechanisms.linreg import bounds as B
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.verify.evidence import builders as generic


class OutputPerturbationAudit(GaussianAudit):
    """Gaussian output perturbation of ridge regression ([PDP] (3.2), A = I): audit and printed statements."""

    name = "output-perturbation"
    title = "Gaussian output perturbation of ridge regression"
    source = f"[PDP] {SRC_PDP}, eq. (3.2), Lemma 2.4"
    config_keys = ("lam", "sigma", "reproduce")

    def __init__(self, config, X, y):
        super().__init__(config, X, y)
        self.lam = config.lam if config.lam is not None else 1.0
        self.global_sensitivity = B.ridge_global_sensitivity(self.n, self.lam)
        self.sigma_calibrated = G.analytic_sigma(config.epsilon, config.delta, self.global_sensitivity)
        self.sigma_nominal = config.sigma if config.sigma is not None else self.sigma_calibrated
        self.sigma = self.sigma_nominal * self.M

    def typical_lambda(self):
        return self.lam

    def pair(self, nb):
        return L.OutputPerturbationPair(nb, 1.0 / self.sigma**2, np.eye(nb.X.shape[1]), lam=self.lam)

    def sensitivities(self, ctx, targets):
        return ctx.ridge(targets, self.lam)["shift"] / self.sigma

    def parameters(self):
        return {
            "lam": self.lam,
            "sigma": self.sigma,
            "sigma_calibrated": self.sigma_calibrated,
            "global_sensitivity_bound": self.global_sensitivity,
            "noise_multiplier": self.M,
        }

    def noise_description(self):
        src = (
            "user (--sigma)"
            if self.config.sigma is not None
            else "analytic Gaussian calibration to the global bound (1 + √n/(2√λ))/λ"
        )
        return f"θ̃ ~ N(θ̂_λ, σ²I), λ = {self.lam:g}; σ from {src}" + (
            f", times {self.M:g} (fault injection)" if self.M != 1 else ""
        )

    def extra_draws(self):
        return 2 * builders.tail_check_draws(self.config.trials)  # Lemma 2.4's and (3.3)'s every-target checks

    def extra_checks(self, ctx):
        c = self.config
        targets = ctx.data_targets() + offdata_targets(ctx.X, ctx.y, self.lam, c.seed)
        q = ctx.ridge(targets, self.lam)
        delta_a = q["shift"]  # Δ_A with A = I
        s = delta_a / self.sigma
        labels = [t.label for t in targets]
        checks = []
        readings = (
            ("A = I, γ = 1/σ²", np.eye(ctx.d), 1 / self.sigma**2, 1.0),
            ("A = I/σ², γ = 1", np.eye(ctx.d) / self.sigma**2, 1.0, 1 / self.sigma),
        )

        def exact_at(eps):
            dd = whitened_delta(eps, s)
            return np.column_stack([dd, dd])

        def make_pair(k, targets=targets):
            return self.pair(ctx.neighbours(targets[k]))

        settings24, settings33 = [], []
        for name, Amat, gamma, scale in readings:
            e24 = np.array([B.lemma24_epsilon(dA * scale, gamma, c.delta) for dA in delta_a])
            settings24.append(builders.Setting(name, labels, e24, exact_at(e24), make_pair))
            e33 = []
            for t, r, mu in zip(targets, q["r"], q["mu"]):
                nb = ctx.neighbours(t)
                r_p = r / (1 + mu)  # residual at θ̂' (fit with z)
                grad = -2 * r_p * t.x
                H = 2 * (nb.X.T @ nb.X + self.lam * np.eye(ctx.d))  # Lemma 3.1's Hessian without z (ridge: exact)
                e33.append(B.eq33_epsilon(grad, H, Amat, c.delta))
            e33 = np.array(e33)
            settings33.append(builders.Setting(name, labels, e33, exact_at(e33), make_pair))
        checks.append(builders.every_target_check(LEMMA24.fill(delta=c.delta), settings24, c.delta, ctx.draws()))
        checks.append(builders.every_target_check(EQ33.fill(delta=c.delta), settings33, c.delta, ctx.draws()))
        checks += self._identity_checks(ctx)
        return checks

    def _identity_checks(self, ctx):
        data = ctx.data_targets()
        exact = ctx.ridge(data, self.lam)["shift"]
        lines = {}
        for line in (1, 2):
            vals = np.array(
                [
                    B.eq34_sensitivity(
                        *(lambda nb: (nb.X, nb.y, nb.x, nb.yz))(ctx.neighbours(t)), np.eye(ctx.d), self.lam, line
                    )
                    for t in data
                ]
            )
            lines[line] = vals / np.where(exact > 0, exact, 1.0)
        checks = []
        for line in (1, 2):
            ratio = lines[line]
            err = float(np.max(np.abs(ratio - 1)))
            checks.append(
                generic.exact_check(
                    (EQ34_LINE1 if line == 1 else EQ34_LINE2).fill(),
                    holds=err <= 1e-8,
                    estimate=err,
                    note=f"Ratio (3.4) line {line} / exact over {len(data)} data points: min {ratio.min():.4f}, "
                    f"max {ratio.max():.4f} (tolerance 1e-8; ridge λ = {self.lam:g} added to both Gram matrices).",
                    ratio_min=float(ratio.min()),
                    ratio_max=float(ratio.max()),
                )
            )
        idx = np.argsort(-exact, kind="stable")[:5]
        errs = {1: 0.0, 2: 0.0, "2-flipped": 0.0}
        for i in idx:
            nb = ctx.neighbours(data[i])
            diff = L.ridge(nb.X, nb.y, self.lam) - L.ridge(*nb.with_target, self.lam)
            scale = np.linalg.norm(diff)
            one, two = L.lemma31_difference(nb, "ridge", self.lam, 1), L.lemma31_difference(nb, "ridge", self.lam, 2)
            errs[1] = max(errs[1], float(np.linalg.norm(one - diff) / scale))
            errs[2] = max(errs[2], float(np.linalg.norm(two - diff) / scale))
            errs["2-flipped"] = max(errs["2-flipped"], float(np.linalg.norm(two + diff) / scale))
        checks.append(
            generic.exact_check(
                LEMMA31.fill(),
                holds=max(errs[1], errs[2]) <= 1e-8,
                estimate=errs[2],
                note=(
                    f"At the 5 data points with the largest sensitivity: first identity error {errs[1]:.2e}; "
                    f"second identity error {errs[2]:.3g} as printed, {errs['2-flipped']:.2e} with its sign flipped "
                    "(+[…]^{-1}∇ℓ(θ̂', z))."
                ),
                first_identity_error=errs[1],
                second_identity_error=errs[2],
                second_identity_flipped_error=errs["2-flipped"],
            )
        )
        return checks

    def reproductions(self, ctx):
        return reproductions.pdp_figures_1_2_left(self.config)
