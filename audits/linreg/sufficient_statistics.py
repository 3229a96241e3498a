"""The audits of sufficient statistics perturbation ([LR] §3.2, App. C.1) and AdaSSP ([LR] Algorithm 2).

Both release Gaussian noisy sufficient statistics; besides the shared DP checks each release is checked
at its share of the budget (finding F8), and AdaSSP reproduces [LR] Figure 3.
"""

from __future__ import annotations

import dataclasses

from pdp_audit.audits.linreg import builders, reproductions
from pdp_audit.audits.linreg.audit import SRC_LR, GaussianAudit
from pdp_audit.mechanisms.linreg import adaptive as A


class SSPAudit(GaussianAudit):
    """Sufficient statistics perturbation ([LR] §3.2, App. C.1): the noisy XᵀX and Xᵀy."""

    name = "ssp"
    title = "Sufficient statistics perturbation"
    source = f"[LR] {SRC_LR}, §3.2, App. C.1"

    def pair(self, nb):
        pair = A.SSPPair(nb, self.config.epsilon, self.config.delta)
        pair.release.sd_xtx *= self.M
        pair.release.sd_xy *= self.M
        return pair

    def parameters(self):
        sd_xtx, sd_xy = A.ssp_sds(self.config.epsilon, self.config.delta)
        return {"sd_xtx": sd_xtx * self.M, "sd_xy": sd_xy * self.M, "noise_multiplier": self.M}

    def noise_description(self):
        return "UpperTriangle(XᵀX) + N(0, 4 log(4/δ)/ε²), Xᵀy + N(0, 4 log(4/δ)/ε² I) ([LR] App. C.1)" + (
            f", std times {self.M:g} (fault injection)" if self.M != 1 else ""
        )

    def extra_draws(self):
        return 2 * builders.tail_check_draws(self.config.trials)

    def extra_checks(self, ctx):
        return self.stage_checks(["ssp/xtx", "ssp/xy"], {"ssp/xtx": self.M, "ssp/xy": self.M})


class AdaSSPAudit(GaussianAudit):
    """AdaSSP ([LR] Algorithm 2): the noisy λ_min, XᵀX and Xᵀy released jointly; exact profiles for the
    private output (X̂ᵀX + λI)^{-1}X̂y, sampling only for the printed (XᵀX + λI)^{-1}X̂y (Q51)."""

    name = "adassp"
    title = "AdaSSP"
    source = f"[LR] {SRC_LR}, Algorithm 2, Theorem 3"
    config_keys = ("rho", "printed", "reproduce", "figure_n")

    def __init__(self, config, X, y):
        super().__init__(config, X, y)
        self.output = "printed" if config.printed else "private"
        self.exact_dp = self.output == "private"
        self.k = A.lr_adassp_constants(config.epsilon, config.delta, self.d, rho=config.rho)

    def typical_lambda(self):
        return float(self.k.lam_threshold)

    def pair(self, nb):
        pair = A.AdaSSPPair(nb, self.config.epsilon, self.config.delta, rho=self.config.rho, output=self.output)
        if self.M != 1:
            pair.k = dataclasses.replace(
                pair.k, sd_lambda=pair.k.sd_lambda * self.M, sd_xtx=pair.k.sd_xtx * self.M, sd_xy=pair.k.sd_xy * self.M
            )
            pair.release.sd_xtx *= self.M
            pair.release.sd_xy *= self.M
        return pair

    def target_deltas(self, ctx, targets, eps):
        return super().target_deltas(ctx, targets, eps) if self.output == "private" else None

    def target_epsilons(self, ctx, targets, delta):
        return super().target_epsilons(ctx, targets, delta) if self.output == "private" else None

    def attack_exact(self, ctx, target):
        return super().attack_exact(ctx, target) if self.output == "private" else None

    def parameters(self):
        k = self.k
        return {
            "sd_lambda": k.sd_lambda * self.M,
            "sd_xtx": k.sd_xtx * self.M,
            "sd_xy": k.sd_xy * self.M,
            "lam_threshold": k.lam_threshold,
            "rho": self.config.rho,
            "output": self.output,
            "noise_multiplier": self.M,
        }

    def noise_description(self):
        out = (
            "(X̂ᵀX + λI)^{-1}X̂y (private reading, Q51)"
            if self.output == "private"
            else "(XᵀX + λI)^{-1}X̂y as printed (Q51)"
        )
        return f"[LR] Algorithm 2: λ̃_min, X̂ᵀX, X̂y at (ε/3, δ/3) each; output {out}" + (
            f"; std times {self.M:g} (fault injection)" if self.M != 1 else ""
        )

    def extra_draws(self):
        return 3 * builders.tail_check_draws(self.config.trials)

    def extra_checks(self, ctx):
        return self.stage_checks(
            ["adassp/lambda_min", "adassp/xtx", "adassp/xy"],
            {"adassp/lambda_min": self.M, "adassp/xtx": self.M, "adassp/xy": self.M},
        )

    def reproductions(self, ctx):
        return reproductions.lr_figure3(self.config)
