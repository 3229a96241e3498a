"""The five linear-regression mechanisms as audit specifications (one class each, shared machinery).

A spec calibrates its mechanism to the run's claim, builds neighbouring pairs, scores candidate
neighbours (exact δ where the output law allows it), computes per-instance ε, and adds the checks of
the printed statements that concern it.  Everything else (search, DP checks, per-instance page,
reports) is shared in :mod:`verify.plans.linreg.run`.

``--noise-multiplier M`` is fault injection: every noise standard deviation is multiplied by M (γ of
OPS/AdaOPS divided by M²); M < 1 breaks the calibration, which the DP checks must catch.

Parameter choices (stated in the report):

* output perturbation: θ̃ ~ N(θ̂_λ, σ²I) ([PDP] (3.2) with A = I), λ = 1 as in [PDP] Fig. 1; σ calibrated
  by the analytic Gaussian mechanism to the global sensitivity bound Δ ≤ (1 + √n/(2√λ))/λ on the unit
  domain (θ̂ − θ̂' = (XᵀX + xxᵀ + λI)^{-1} x (y − xᵀθ̂), ‖(·)^{-1}x‖ ≤ 1/λ, |y − xᵀθ̂| ≤ 1 + ‖θ̂‖ ≤ 1 + √n/(2√λ));
* OPS: [LR] App. F calibration (balanced by default);
* AdaOPS: [LR] Algorithm 1 (default) or [PDP] Algorithm 1 (``--algorithm pdp``, κ at its largest allowed
  value, n public); ``--printed`` runs the printed forms (Q5 ``min`` for [PDP], eq. (8) product for [LR]);
* AdaSSP: [LR] Algorithm 2 with the private output (X̂ᵀX + λI)^{-1}X̂y; ``--printed`` releases the printed
  (X^TX + λI)^{-1}X̂y (Q51);
* SSP: [LR] App. C.1 noise scales.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats

from audits.engine import block_rng, run_blocks, sample_privacy_loss
from audits.linreg_profiles import (
    AdaOPSConditional,
    gaussian_delta,
    gaussian_epsilon,
    ops_delta,
    ops_epsilon,
    ops_tail_probability,
)
from audits.linreg_views import view_of
from mechanisms import gaussian as G
from mechanisms import linreg as L
from mechanisms import linreg_adaptive as A
from verify.checks import CheckSpec, Evidence
from verify.evidence import builders
from verify.plans.linreg import evidence as LC
from verify.plans.linreg.context import Context, LinregAuditConfig, Target, offdata_targets

SRC_PDP = "Wang, Per-instance differential privacy"
SRC_LR = "Wang 2018, Revisiting differentially private linear regression"
CONDITIONAL_DRAWS = 1000
SCORE_DRAWS = 4000


class Spec:
    """Base class: see the module notes."""

    name = ""
    title = ""
    source = ""
    exact_dp = False
    per_instance_how = ""
    config_keys: tuple[str, ...] = ()  # mechanism-specific options shown in the report

    def __init__(self, config: LinregAuditConfig, X: np.ndarray, y: np.ndarray):
        self.config, self.n, self.d = config, X.shape[0], X.shape[1]
        self.M = config.noise_multiplier

    # -- to override ------------------------------------------------------------------------------
    def pair(self, nb: L.Neighbours):
        raise NotImplementedError

    def typical_lambda(self) -> float:
        return 1.0

    def target_deltas(self, ctx: Context, targets: list[Target], eps: float) -> np.ndarray | None:
        """Exact (δ_{D‖D'}(ε), δ_{D'‖D}(ε)) per target, shape (k, 2); None if no closed form."""
        return None

    def target_epsilons(self, ctx: Context, targets: list[Target], delta: float) -> np.ndarray | None:
        """pDP ε at δ per target (exact, or an estimate named in :attr:`per_instance_how`)."""
        return None

    def attack_exact(self, ctx: Context, target: Target):
        return None

    def parameters(self) -> dict:
        return {}

    def noise_description(self) -> str:
        return ""

    def extra_checks(self, ctx: Context) -> list[Evidence]:
        return []

    def worst_target_checks(self, ctx: Context, target: Target) -> list[Evidence]:
        """Further evidence on the DP claim at the worst neighbour found (beyond dp-forward/reverse, lr-attack)."""
        return []

    def reproductions(self, ctx: Context) -> tuple[list[Evidence], list[Page]]:
        return [], []

    # -- shared -----------------------------------------------------------------------------------
    def score(self, ctx: Context, targets: list[Target], eps: float) -> tuple[np.ndarray, str]:
        exact = self.target_deltas(ctx, targets, eps)
        if exact is not None:
            return np.max(exact, axis=1), "exact δ(ε) of the pair (max of both directions)"
        return self.mc_kl_scores(ctx, targets), (
            f"symmetrised KL divergence E_D[L] + E_D'[−L] from {SCORE_DRAWS} draws per world (no closed form for δ)"
        )

    def mc_kl_scores(self, ctx: Context, targets: list[Target]) -> np.ndarray:
        scores = np.full(len(targets), -np.inf)
        for i, t in enumerate(targets):
            try:
                pair = self.pair(ctx.neighbours(t))
                a = sample_privacy_loss(pair, "D", SCORE_DRAWS, ctx.config.seed, f"search/{i}")
                b = sample_privacy_loss(pair, "D'", SCORE_DRAWS, ctx.config.seed, f"search/{i}")
                scores[i] = float(np.mean(a) - np.mean(b))
            except A.UnrunnableError:
                scores[i] = np.nan
        return scores

    def stage_checks(self, names: list[str], scale: dict[str, float] | None = None) -> list[Evidence]:
        """[LR]/[PDP] per-release budgets (finding F8): each Gaussian release at its assigned (ε_k, δ_k)."""
        c = self.config
        claims = A.stage_claims(c.epsilon, c.delta, self.d)
        out = []
        for name in names:
            s, ek, dk = claims[name]
            s = s / (scale or {}).get(name, 1.0)
            check = LC.gaussian_release_check(
                f"stage-{name.replace('/', '-')}",
                f"Per-release budget: {name}",
                f"The release {name} (whitened sensitivity Δ/σ = {s:.4g}) is ({ek:.4g}, {dk:.3g})-DP, its share of the budget",
                f"{self.source}; budget split of the DP proof (Q52)",
                s,
                ek,
                dk,
                c.trials,
                c.seed,
                c.alpha,
                note=f"Exact δ(ε_k)/δ_k = {float(gaussian_delta(ek, s)) / dk:.3g}; exact ε at δ_k = {float(gaussian_epsilon(dk, s)[0]):.4g} vs ε_k = {ek:.4g}.",
            )
            out.append(check)
        return out


# ----------------------------------------------------------------------------------------------
# Gaussian mechanisms with a shared covariance
# ----------------------------------------------------------------------------------------------
class GaussianSpec(Spec):
    exact_dp = True
    per_instance_how = "exact: analytic Gaussian ε at the data point's whitened sensitivity (Balle & Wang 2018)"

    def sensitivities(self, ctx: Context, targets: list[Target]) -> np.ndarray:
        return np.array([view_of(self.pair(ctx.neighbours(t))).whitened_sensitivity() for t in targets])

    def target_deltas(self, ctx, targets, eps):
        delta = gaussian_delta(eps, self.sensitivities(ctx, targets))
        return np.column_stack([delta, delta])

    def target_epsilons(self, ctx, targets, delta):
        return gaussian_epsilon(delta, self.sensitivities(ctx, targets))

    def attack_exact(self, ctx, target):
        return LC.gaussian_attack_exact(float(self.sensitivities(ctx, [target])[0]), self.config.delta)


class OutputPerturbationSpec(GaussianSpec):
    name = "output-perturbation"
    title = "Gaussian output perturbation of ridge regression"
    source = f"[PDP] {SRC_PDP}, eq. (3.2), Lemma 2.4"
    config_keys = ("lam", "sigma", "reproduce")

    def __init__(self, config, X, y):
        super().__init__(config, X, y)
        self.lam = config.lam if config.lam is not None else 1.0
        self.global_sensitivity = (1 + math.sqrt(self.n) / (2 * math.sqrt(self.lam))) / self.lam
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
            dd = gaussian_delta(eps, s)
            return np.column_stack([dd, dd])

        def make_pair(k, targets=targets):
            return self.pair(ctx.neighbours(targets[k]))

        settings24, settings33 = [], []
        for name, Amat, gamma, scale in readings:
            e24 = np.array([L.lemma24_epsilon(dA * scale, gamma, c.delta) for dA in delta_a])
            settings24.append(LC.Setting(name, labels, e24, exact_at(e24), make_pair))
            e33 = []
            for t, r, mu in zip(targets, q["r"], q["mu"]):
                nb = ctx.neighbours(t)
                r_p = r / (1 + mu)  # residual at θ̂' (fit with z)
                grad = -2 * r_p * t.x
                H = 2 * (nb.X.T @ nb.X + self.lam * np.eye(ctx.d))  # Lemma 3.1's Hessian without z (ridge: exact)
                e33.append(L.eq33_epsilon(grad, H, Amat, c.delta))
            e33 = np.array(e33)
            settings33.append(LC.Setting(name, labels, e33, exact_at(e33), make_pair))
        checks.append(
            LC.every_target_check(
                "lemma24",
                "Lemma 2.4 as printed, every target",
                f"Noise N(0, A^{{-1}}/γ) gives (γ Δ_A(Z, z) √log(1.25/δ), {c.delta:g})-pDP for every target z (two readings of A, γ for the same noise σ²I)",
                "δ_exact(ε_2.4(z)) ≤ δ with ε_2.4 = γ Δ_A √log(1.25/δ); exact: whitened sensitivity √γ Δ_A = Δ/σ",
                "[PDP] Lemma 2.4 (Q8); finding F5",
                settings24,
                c.delta,
                c.trials,
                c.seed,
                c.alpha,
                ctx.executor,
            )
        )
        checks.append(
            LC.every_target_check(
                "eq33",
                "Eq. (3.3) as printed, every target",
                f"Output perturbation is (√(∇ℓᵀH^{{-1}}AH^{{-1}}∇ℓ log(1.25/δ)), {c.delta:g})-pDP for every target (two readings of A)",
                "ε_3.3 = √(∇ℓ(θ̂', z)ᵀ H^{-1} A H^{-1} ∇ℓ(θ̂', z) log(1.25/δ)) (no γ)",
                "[PDP] eq. (3.3) with Lemma 3.1 (Q8); finding F5",
                settings33,
                c.delta,
                c.trials,
                c.seed,
                c.alpha,
                ctx.executor,
            )
        )
        checks += self._identity_checks(ctx)
        return checks

    def _identity_checks(self, ctx):
        data = ctx.data_targets()
        exact = ctx.ridge(data, self.lam)["shift"]
        lines = {}
        for line in (1, 2):
            vals = np.array(
                [
                    L.eq34_sensitivity(
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
                builders.exact_check(
                    CheckSpec(
                        f"eq34-line{line}",
                        f"Eq. (3.4) line {line} = Δ_A(Z, z)",
                        f"(3.4) line {line} equals the exact per-instance sensitivity ‖θ̂ − θ̂'‖_A (A = I) at every data point",
                        "line 1: |y − xᵀθ̂'| √(xᵀ(X'ᵀX')^{-1}A(X'ᵀX')^{-1}x); line 2: |y − xᵀθ̂'| √(xᵀ(XᵀX)^{-1}A(XᵀX)^{-1}x)",
                        "[PDP] eq. (3.4) (Q9); finding F2" if line == 1 else "[PDP] eq. (3.4)",
                    ),
                    holds=err <= 1e-8,
                    estimate=err,
                    note=f"Ratio (3.4) line {line} / exact over {len(data)} data points: min {ratio.min():.4f}, max {ratio.max():.4f} "
                    f"(tolerance 1e-8; ridge λ = {self.lam:g} added to both Gram matrices).",
                    ratio_min=float(ratio.min()),
                    ratio_max=float(ratio.max()),
                )
            )
        idx = np.argsort(-exact)[:5]
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
            builders.exact_check(
                CheckSpec(
                    "lemma31",
                    "Lemma 3.1: both stability identities",
                    "θ̂ − θ̂' = [∫(Σ∇²ℓ + ∇²ℓ(·,z) + ∇²r)]^{-1}∇ℓ(θ̂, z) = −[∫(Σ∇²ℓ + ∇²r)]^{-1}∇ℓ(θ̂', z)",
                    "relative error of each right-hand side against the exact ridge difference",
                    "[PDP] Lemma 3.1; finding F1",
                ),
                holds=max(errs[1], errs[2]) <= 1e-8,
                estimate=errs[2],
                note=(
                    f"At the 5 data points with the largest sensitivity: first identity error {errs[1]:.2e}; second identity error "
                    f"{errs[2]:.3g} as printed, {errs['2-flipped']:.2e} with its sign flipped (+[…]^{{-1}}∇ℓ(θ̂', z))."
                ),
                first_identity_error=errs[1],
                second_identity_error=errs[2],
                second_identity_flipped_error=errs["2-flipped"],
            )
        )
        return checks

    def reproductions(self, ctx):
        from verify.plans.linreg import pages as linreg_figures

        return linreg_figures.pdp_figures_1_2_left(self.config)


# ----------------------------------------------------------------------------------------------
class SSPSpec(GaussianSpec):
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

    def extra_checks(self, ctx):
        return self.stage_checks(["ssp/xtx", "ssp/xy"], {"ssp/xtx": self.M, "ssp/xy": self.M})


class AdaSSPSpec(GaussianSpec):
    name = "adassp"
    title = "AdaSSP"
    source = f"[LR] {SRC_LR}, Algorithm 2, Theorem 3"
    config_keys = ("rho", "printed", "reproduce")

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

    def extra_checks(self, ctx):
        return self.stage_checks(
            ["adassp/lambda_min", "adassp/xtx", "adassp/xy"],
            {"adassp/lambda_min": self.M, "adassp/xtx": self.M, "adassp/xy": self.M},
        )

    def reproductions(self, ctx):
        from verify.plans.linreg import pages as linreg_figures

        return [], linreg_figures.lr_figure3(self.config)


# ----------------------------------------------------------------------------------------------
# OPS
# ----------------------------------------------------------------------------------------------
class OPSSpec(Spec):
    name = "ops"
    title = "One-Posterior-Sample (OPS)"
    source = f"[PDP] {SRC_PDP}, Thm 4.1; [LR] App. F"
    exact_dp = True
    per_instance_how = "exact: OPS profile through the scalar y_z − xᵀθ (audits.linreg_profiles)"
    config_keys = ("calibration", "gamma", "lam", "reproduce")

    def __init__(self, config, X, y):
        super().__init__(config, X, y)
        lam, gamma = L.ops_calibration(config.calibration, config.epsilon, config.delta, self.n, self.d)
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
        points = LC.roc_points(
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
        """[PDP] §4.2 (K4): well-conditioned data, γ_n = √n, λ_n = 0 (λ = 1 if removing a row could make XᵀX singular)."""
        lam_min = float(np.linalg.eigvalsh(ctx.X.T @ ctx.X)[0])
        return math.sqrt(self.n), (0.0 if lam_min > 1.0 else 1.0)

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
        forms = {
            "thm41-4.3": (
                "Theorem 4.1 (4.3), every target",
                lambda nb, g, lam: L.thm41_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta, "4.3"),
                "½|−log(1+μ) + γμ r²/(1+μ)| + (μ/2)log(2/δ) + √(γμ log(2/δ))|r|",
                "[PDP] Theorem 4.1 (4.3) = [LR] (16) (Q12); finding F3",
            ),
            "thm41-4.4": (
                "Theorem 4.1 (4.4), every target",
                lambda nb, g, lam: L.thm41_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta, "4.4"),
                "½|−log(1−μ') − γμ' r'²/(1−μ')| + (μ'/2)log(2/δ) + √(γμ' log(2/δ))|r'|",
                "[PDP] Theorem 4.1 (4.4) = [LR] (17) (Q11, Q12); finding F3",
            ),
            "remark42": (
                "Remark 4.2, every target",
                lambda nb, g, lam: L.remark42_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta),
                "(μ/2)(1 + log(2/δ)) + ½γ min(μ, 1) r'² + √(γμ log(2/δ))|r'|",
                "[PDP] Remark 4.2 (Q19); finding F4",
            ),
            "prop43-pdp": (
                "Proposition 4.3(1) eq. (4.5), every target",
                lambda nb, g, lam: L.prop43_pdp_epsilon(nb.X, nb.y, nb.x, nb.yz, g, lam, c.delta),
                "√(γ log(2/δ)/(λ+λ_min))|r| + γr²/(2 max(λ+λ_min, 1)) + γ(1 + log(2/δ))/(2(λ+λ_min))",
                "[PDP] Prop. 4.3(1) (4.5) (Q13); finding F4",
            ),
        }
        cache = {}
        for _, g, lam in settings:
            mu, r, kinds = self._q(ctx, targets, lam)
            cache[(g, lam)] = (mu, r, kinds)
        checks = []
        for cid, (title, fn, formula, source) in forms.items():
            sets = []
            for sname, g, lam in settings:
                eps = np.array([fn(nb, g, lam) for nb in nbs])
                mu, r, kinds = cache[(g, lam)]
                sets.append(
                    LC.Setting(
                        sname,
                        labels,
                        eps,
                        self._deltas(mu, r, kinds, g, eps),
                        lambda k, g=g, lam=lam: L.OPSPair(nbs[k], g, lam),
                        {"gamma": g, "lam": lam},
                    )
                )
            checks.append(
                LC.every_target_check(
                    cid,
                    title,
                    f"OPS(γ, λ) is (ε(z), {c.delta:g})-pDP for every target z with ε(z) = the printed bound",
                    f"δ_exact(ε(z)) ≤ δ, ε(z) = {formula}",
                    source,
                    sets,
                    c.delta,
                    c.trials,
                    c.seed,
                    c.alpha,
                    ctx.executor,
                )
            )
        checks.append(self._prop43_dp(ctx))
        checks += self._prop43_mc(ctx)
        return checks

    def _prop43_dp(self, ctx):
        c = self.config
        from verify.plans.linreg.context import candidates

        targets = ctx.data_targets() + candidates(ctx.bases, self.lam, 10_000)
        eps = L.prop43_dp_epsilon(self.n, self.gamma, self.lam, c.delta)
        exact = self.target_deltas(ctx, targets, eps)
        nbs = [ctx.neighbours(t) for t in targets]
        setting = LC.Setting(
            "this mechanism", [t.label for t in targets], np.full(len(targets), eps), exact, lambda k: self.pair(nbs[k])
        )
        check = LC.every_target_check(
            "prop43-dp",
            "Proposition 4.3(1) eq. (4.6): DP bound",
            f"OPS(γ, λ) is ({eps:.4g}, {c.delta:g})-DP on ‖x‖ ≤ 1, |y| < 1 (ε from (4.6))",
            "ε = √(2(n+λ)γ log(2/δ)/λ²) + 2(n+λ)γ/(λ max(1, λ)) + γ(1 + log(2/δ))/(2λ)",
            "[PDP] Prop. 4.3(1) (4.6) (Q13)",
            [setting],
            c.delta,
            c.trials,
            c.seed,
            c.alpha,
            ctx.executor,
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
        draws = int(min(c.trials, 200_000))
        # Linear Gaussian model for (3): θ0 = least-squares fit of the data, σ² = residual variance (our choice).
        theta0 = np.linalg.lstsq(X, y, rcond=None)[0]
        sigma = float(np.sqrt(np.sum((y - X @ theta0) ** 2) / max(n - d, 1)))
        Gm = L.gram(X, lam)
        proj = np.linalg.solve(Gm, X.T)  # θ̂_λ(y) = proj @ y
        noise_map = np.linalg.inv(np.linalg.cholesky(gamma * Gm))  # θ̃ − θ̂_λ = ξ L^{-1}
        mean0 = X @ theta0

        def mse_work(size, rng):
            Y = mean0 + sigma * rng.standard_normal((size, n))
            theta = Y @ proj.T + rng.standard_normal((size, d)) @ noise_map
            return np.sum((theta - theta0) ** 2, axis=1)

        mse = run_blocks(mse_work, draws, c.seed, "prop43-mse", ctx.executor)
        printed = L.prop43_mse_printed(X, theta0, sigma, gamma, lam)
        exact = L.ops_mse_exact(X, theta0, sigma, gamma, lam)
        check3 = LC.mean_claim_check(
            "prop43-mse",
            "Proposition 4.3(3): MSE of OPS",
            "E_y[‖θ̃ − θ0‖² | X] = σ² tr[(XᵀX+λI)^{-1}](1 + 1/γ) + λ²‖(XᵀX+λI)^{-1}θ0‖² for y ~ N(Xθ0, σ²I)",
            "Monte Carlo over y and the OPS noise vs the printed value",
            "[PDP] Prop. 4.3(3) (Q15); finding F6",
            mse,
            printed,
            exact,
            note=f"Model: θ0 = least-squares fit of the data, σ = {sigma:.4g} (its residual standard deviation); OPS γ = {gamma:.4g}, λ = {lam:.4g}.",
        )

        theta_hat = L.ridge(X, y, 2 * lam)  # argmin of F = ½‖y − Xθ‖² + λ‖θ‖²
        f_hat = float(L.prop43_objective(X, y, theta_hat, lam)[0])
        centre = L.ridge(X, y, lam)

        def gap_work(size, rng):
            theta = centre + rng.standard_normal((size, d)) @ noise_map
            return L.prop43_objective(X, y, theta, lam) - f_hat

        gap = run_blocks(gap_work, draws, c.seed, "prop43-gap", ctx.executor)
        check4 = LC.mean_claim_check(
            "prop43-gap",
            "Proposition 4.3(4): optimisation error of OPS",
            "E F(θ̃) − F(θ̂) = d/γ with F(θ) = ½‖y − Xθ‖² + λ‖θ‖², θ̂ = argmin F",
            "Monte Carlo over the OPS noise vs d/γ",
            "[PDP] Prop. 4.3(4) (Q16); finding F7",
            gap,
            L.prop43_gap_printed(d, gamma),
            L.ops_gap_exact(X, y, gamma, lam),
            note=f"Derived exact value ½tr(K G^{{-1}})/γ + ½‖θ̂_λ − θ̂‖²_K (= d/(2γ) at λ = 0); γ = {gamma:.4g}, λ = {lam:.4g}.",
        )
        return [check3, check4]

    def reproductions(self, ctx):
        from verify.plans.linreg import pages as linreg_figures

        return linreg_figures.pdp_figure2_right(self.config)


# ----------------------------------------------------------------------------------------------
# AdaOPS
# ----------------------------------------------------------------------------------------------
class AdaOPSSpec(Spec):
    name = "adaops"
    title = "AdaOPS"
    exact_dp = False
    config_keys = ("algorithm", "kappa", "printed")
    per_instance_how = (
        f"conditional Monte Carlo: {CONDITIONAL_DRAWS} draws of the released scalars (λ̃_min, Δ), exact OPS "
        "profile of the last stage given them (audits.linreg_profiles.AdaOPSConditional)"
    )

    def __init__(self, config, X, y):
        super().__init__(config, X, y)
        self.variant = config.algorithm
        if self.variant == "pdp":
            self.kappa = (
                config.kappa
                if config.kappa is not None
                else A.prop44_kappa_max(self.n, self.d, config.epsilon, config.delta)
            )
            self.source = f"[PDP] {SRC_PDP}, Algorithm 1, Prop. 4.4"
        else:
            self.kappa = None
            self.source = f"[LR] {SRC_LR}, Algorithm 1, Theorem 2"
        self.title = "AdaOPS " + ("[PDP] Algorithm 1" if self.variant == "pdp" else "[LR] Algorithm 1")

    def typical_lambda(self):
        if self.variant == "pdp":
            c = np.log(4 / self.config.delta)
            return float(self.n / (self.d * self.kappa) + c / (self.config.epsilon / 2))
        k = A.lr_adaops_constants(self.config.epsilon, self.config.delta, self.d)
        return float(max(k.u_star, k.t_floor))

    def pair(self, nb):
        c = self.config
        if self.variant == "pdp":
            pair = A.PDPAdaOPSPair(nb, c.epsilon, c.delta, self.kappa, printed=c.printed, n_public=self.n)
            if self.M != 1:
                pair.sd1 *= self.M
                pair.gamma = {w: g / self.M**2 for w, g in pair.gamma.items()}
            return pair
        pair = A.LRAdaOPSPair(nb, c.epsilon, c.delta, eq8="product" if c.printed else "sum")
        if self.M != 1:
            pair.k = dataclasses.replace(
                pair.k, sd_lambda=pair.k.sd_lambda * self.M, eps_tilde=pair.k.eps_tilde / self.M
            )
        return pair

    def score(self, ctx, targets, eps):
        scores = np.full(len(targets), np.nan)
        for idx, cond in self._safe_conditional(ctx, targets, "search"):
            scores[idx] = np.maximum(*cond.delta(eps))
        return (
            scores,
            f"conditional Monte Carlo δ(ε) ({CONDITIONAL_DRAWS} draws of the released scalars, exact last stage)",
        )

    def _safe_conditional(self, ctx, targets, stream):
        """Like :meth:`conditional`, skipping groups where the (printed) algorithm cannot run."""
        template = self.pair(ctx.neighbours(targets[0]))
        for g, (idx, batch) in enumerate(ctx.groups(targets)):
            try:
                yield (
                    idx,
                    AdaOPSConditional(
                        template, batch, CONDITIONAL_DRAWS, block_rng(self.config.seed, f"{stream}/{g}", 0)
                    ),
                )
            except A.UnrunnableError:
                continue

    def target_epsilons(self, ctx, targets, delta):
        out = np.full(len(targets), np.nan)
        for idx, cond in self._safe_conditional(ctx, targets, "per-instance"):
            out[idx] = cond.epsilon(delta)
        return out

    def parameters(self):
        p = {"algorithm": self.variant, "printed": self.config.printed, "noise_multiplier": self.M}
        if self.variant == "pdp":
            p.update(
                kappa=self.kappa,
                kappa_max=A.prop44_kappa_max(self.n, self.d, self.config.epsilon, self.config.delta),
                n_public=self.n,
            )
        else:
            k = A.lr_adaops_constants(
                self.config.epsilon, self.config.delta, self.d, eq8="product" if self.config.printed else "sum"
            )
            p.update(
                sd_lambda=k.sd_lambda * self.M,
                eps_tilde=k.eps_tilde / self.M,
                C1=k.C1,
                C2=k.C2,
                t_floor=k.t_floor,
                u_star=k.u_star,
            )
        return p

    def noise_description(self):
        if self.variant == "pdp":
            form = "λ_n = min{0, ·} as printed (Q5)" if self.config.printed else "λ_n = max{0, ·} (intended, Q5)"
            return f"[PDP] Algorithm 1 (λ̃_min, θ̃), κ = {self.kappa:.4g}, n public; {form}" + (
                f"; noise times {self.M:g}" if self.M != 1 else ""
            )
        form = "eq. (8) with the printed product (Q42)" if self.config.printed else "eq. (8) with App. D.5's sum (Q42)"
        return f"[LR] Algorithm 1 (ν, Δ, θ̃), {form}" + (
            f"; λ̃ noise times {self.M:g}, γ divided by {self.M**2:g}" if self.M != 1 else ""
        )

    def worst_target_checks(self, ctx, target):
        """Conditional Monte Carlo at the worst neighbour: ``trials`` draws of the released scalars, the last stage exact."""
        c = self.config
        template = self.pair(ctx.neighbours(target))
        ((idx, batch),) = list(ctx.groups([target]))
        try:
            cond = AdaOPSConditional(template, batch, c.trials, block_rng(c.seed, "dp-conditional", 0))
        except A.UnrunnableError as err:
            return [
                builders.exact_check(
                    CheckSpec(
                        "dp-conditional",
                        "DP claim: conditional Monte Carlo",
                        "the algorithm can run at the worst neighbour",
                        "—",
                        self.source,
                    ),
                    holds=False,
                    estimate=float("nan"),
                    note=str(err),
                )
            ]
        checks = []
        for name, direction in (("forward", "D||D'"), ("reverse", "D'||D")):
            terms = cond.directions[direction].terms(c.epsilon)[0]
            checks.append(
                LC.bounded_mean_check(
                    f"dp-conditional-{name}",
                    f"DP claim, conditional Monte Carlo, δ_{{{direction.replace('||', '‖')}}}(ε)",
                    f"{self.title} is ({c.epsilon:g}, {c.delta:g})-DP at the worst neighbour found ({target.label})",
                    "δ(ε) = E_{released scalars}[δ_OPS(ε − L₁₂ | schedule)] ≤ δ (last stage exact given the earlier releases)",
                    "Definition D1; " + self.source,
                    terms,
                    c.delta,
                    note="Rao–Blackwellised estimator: the released scalars (λ̃_min, Δ) are sampled, the OPS stage is integrated exactly "
                    "(audits.linreg_profiles.AdaOPSConditional).",
                    direction=direction,
                    target=target.label,
                )
            )
        return checks

    def extra_checks(self, ctx):
        checks = [self._q5_check(ctx)]
        if self.variant == "pdp":
            checks += self.stage_checks(["pdp-adaops/lambda_min"], {"pdp-adaops/lambda_min": self.M})
        else:
            checks += self.stage_checks(
                ["lr-adaops/lambda_min", "lr-adaops/log-norm"], {"lr-adaops/lambda_min": self.M}
            )
        return checks

    def _q5_check(self, ctx):
        """[PDP] Algorithm 1 with the printed ``min``: λ_n ≤ 0 always (exact computation on this data)."""
        c = self.config
        kappa = self.kappa if self.kappa is not None else A.prop44_kappa_max(self.n, self.d, c.epsilon, c.delta)
        lc = np.log(4 / c.delta)
        sd1 = math.sqrt(lc) / (c.epsilon / 2)
        need = self.n / (self.d * kappa)  # the proof's λ_min(XᵀX + λ_n I) ≥ n/(dκ)
        inner0 = need + lc / (c.epsilon / 2)  # λ_n = min/max{0, inner0 − λ̃_min}
        lam_min = float(np.linalg.eigvalsh(ctx.X.T @ ctx.X)[0])
        # λ̃ − λ_min ~ N(0, sd1²).  Printed: λ_min(XᵀX + λ_nI) = λ_min + min(0, inner0 − λ̃) — below n/(dκ) surely if
        # λ_min < n/(dκ), else iff λ̃ − λ_min > inner0 − n/(dκ) = log(4/δ)/(ε/2); indefinite iff λ̃ − λ_min > inner0.
        p_undefined = float(stats.norm.sf(inner0 / sd1))
        p_tail = float(stats.norm.sf((inner0 - need) / sd1))  # = Φ̄(√log(4/δ))
        p_proof_fails = 1.0 if lam_min < need else p_tail
        p_intended_fails = 0.0 if lam_min >= need else p_tail
        return builders.exact_check(
            CheckSpec(
                "alg1-q5",
                "[PDP] Algorithm 1 as printed (λ_n = min{0, ·})",
                "Algorithm 1 as printed is well defined on every data set and regularises as its privacy proof requires, "
                "λ_min(XᵀX + λ_nI) ≥ n/(dκ)",
                "λ_n = min{0, n/(dκ) − λ̃_min + log(4/δ)/(ε/2)} ≤ 0 (printed) vs max{0, ·} (intended)",
                "[PDP] Algorithm 1, proof of Prop. 4.4 (Q5)",
            ),
            holds=False,
            estimate=p_proof_fails,
            note=(
                f"The printed min makes λ_n ≤ 0 for every input, so the algorithm never adds the ridge its proof needs. On this data "
                f"(λ_min(XᵀX) = {lam_min:.4g}, n/(dκ) = {need:.4g}, κ = {kappa:.4g}) the proof's condition fails with probability "
                f"{p_proof_fails:.3g}, and XᵀX + λ_nI is indefinite (θ̃ undefined) with probability {p_undefined:.2g} > 0. On data with "
                f"singular XᵀX (the 'singular' and 'aligned' bases of the search) the printed algorithm cannot run at all: "
                f"XᵀX + λ_nI is singular or indefinite for every draw. The audit runs the intended max unless --printed is given; "
                f"with max the condition fails with probability {p_intended_fails:.2g} on this data (the proof's event "
                f"|λ̃_min − λ_min| ≤ log(4/δ)/ε has probability 1 − {2 * float(stats.norm.sf(lc / c.epsilon / sd1)):.2g}, not "
                f"≥ 1 − δ/2, Q6)."
            ),
            lam_min=lam_min,
            required=need,
            kappa=kappa,
            p_proof_condition_fails=p_proof_fails,
            p_undefined=p_undefined,
        )


SPECS = {
    "output-perturbation": OutputPerturbationSpec,
    "ops": OPSSpec,
    "adaops": AdaOPSSpec,
    "adassp": AdaSSPSpec,
    "ssp": SSPSpec,
}
