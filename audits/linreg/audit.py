"""What every linear-regression audit asks of its mechanism: the base class :class:`MechanismAudit`.

A mechanism audit calibrates its mechanism to the run's claim, builds neighbouring pairs, scores candidate
neighbours (exact δ where the output law allows it), computes per-instance ε, and adds the evidence on
the printed statements that concern it.  Everything else (search, DP checks, per-instance page,
reports) is shared in :mod:`pdp_audit.audits.linreg.evidence`.  One subclass per mechanism:

* output perturbation (:mod:`~pdp_audit.audits.linreg.output_perturbation`): θ̃ ~ N(θ̂_λ, σ²I) ([PDP] (3.2)
  with A = I), λ = 1 as in [PDP] Fig. 1; σ calibrated by the analytic Gaussian mechanism to the global
  sensitivity bound Δ ≤ (1 + √n/(2√λ))/λ on the unit domain (θ̂ − θ̂' = (XᵀX + xxᵀ + λI)^{-1} x (y − xᵀθ̂),
  ‖(·)^{-1}x‖ ≤ 1/λ, |y − xᵀθ̂| ≤ 1 + ‖θ̂‖ ≤ 1 + √n/(2√λ));
* OPS (:mod:`~pdp_audit.audits.linreg.ops`): [LR] App. F calibration (balanced by default);
* AdaOPS (:mod:`~pdp_audit.audits.linreg.adaops`): [LR] Algorithm 1 (default) or [PDP] Algorithm 1
  (``--algorithm pdp``, κ at its largest allowed value, n public); ``--printed`` runs the printed forms
  (Q5 ``min`` for [PDP], eq. (8) product for [LR]);
* AdaSSP and SSP (:mod:`~pdp_audit.audits.linreg.sufficient_statistics`): [LR] Algorithm 2 with the private
  output (X̂ᵀX + λI)^{-1}X̂y (``--printed`` releases the printed (XᵀX + λI)^{-1}X̂y, Q51); [LR] App. C.1
  noise scales.

``--noise-multiplier M`` is fault injection: every noise standard deviation is multiplied by M (γ of
OPS/AdaOPS divided by M²); M < 1 breaks the calibration, which the DP checks must catch.
"""

from __future__ import annotations

import numpy as np

from pdp_audit.audits.linreg import builders
from pdp_audit.audits.linreg.checks import STAGE_BUDGET
from pdp_audit.audits.linreg.context import Context, LinregAuditConfig, Target
from pdp_audit.audits.linreg.views import view_of
from pdp_audit.mechanisms.gaussian import whitened_delta, whitened_epsilon
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.mechanisms.linreg import mechanism as L
from pdp_audit.reports.records import Page
from pdp_audit.verify.core.checks import Evidence
from pdp_audit.verify.estimators.engine import sample_privacy_loss
from pdp_audit.verify.evidence.dp_claim import Draws

SRC_PDP = "Wang, Per-instance differential privacy"
SRC_LR = "Wang 2018, Revisiting differentially private linear regression"
CONDITIONAL_DRAWS = 1000
SCORE_DRAWS = 4000


class MechanismAudit:
    """The audit of one linear-regression mechanism under one run's configuration (module notes).

    Subclasses set the class attributes and override the hooks below; the defaults mean "no closed
    form" (scores then come from a small Monte Carlo KL estimate) and "no further evidence".
    """

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
        """The mechanism's neighbouring pair (a :class:`~pdp_audit.mechanisms.base.NeighbourPair`) on ``nb``."""
        raise NotImplementedError

    def typical_lambda(self) -> float:
        """The ridge λ the mechanism typically uses: the scale of the ``aligned`` base and of the search."""
        return 1.0

    def target_deltas(self, ctx: Context, targets: list[Target], eps: float) -> np.ndarray | None:
        """Exact (δ_{D‖D'}(ε), δ_{D'‖D}(ε)) per target, shape (k, 2); None if no closed form."""
        return None

    def target_epsilons(self, ctx: Context, targets: list[Target], delta: float) -> np.ndarray | None:
        """pDP ε at δ per target (exact, or an estimate named in :attr:`per_instance_how`)."""
        return None

    def attack_exact(self, ctx: Context, target: Target):
        """``(exact ε at δ, optimal-test ROC points)`` at ``target`` for the attack check; None if unknown."""
        return None

    def parameters(self) -> dict:
        """The mechanism's calibrated parameters, written into the run's ``parameters``."""
        return {}

    def noise_description(self) -> str:
        """One line on the released noise and where its scale comes from (the report's ``sigma_source``)."""
        return ""

    def extra_checks(self, ctx: Context) -> list[Evidence]:
        """Evidence on the printed statements that concern this mechanism (beyond the DP claim): paper
        findings, computed only with ``--paper-claims``."""
        return []

    def worst_target_checks(self, ctx: Context, target: Target) -> list[Evidence]:
        """Further evidence on the DP claim at the worst neighbour found (beyond dp-forward/reverse, lr-attack)."""
        return []

    def deployed_checks(self, ctx: Context) -> list[Evidence]:
        """Printed statements that this configuration deploys, as guarantees (:meth:`CheckSpec.deployed`);
        computed on every run, unlike :meth:`extra_checks` (paper findings, only with ``--paper-claims``)."""
        return []

    def support_dp_checks(self, checks: list[Evidence]) -> list[Evidence]:
        """``dp-forward``, ``dp-reverse``, ``lr-attack`` with further support (called after
        :meth:`worst_target_checks`); unchanged by default."""
        return checks

    def exact_profile(self, ctx: Context, target: Target, grid: np.ndarray) -> np.ndarray | None:
        """Exact (δ_{D‖D'}(ε), δ_{D'‖D}(ε)) at ``target`` on ``grid``, shape (grid, 2); None if no closed form."""
        if self.target_deltas(ctx, [target], float(grid[0])) is None:
            return None
        rows = []
        for e in grid:
            deltas = self.target_deltas(ctx, [target], float(e))
            assert deltas is not None  # a closed form at one ε is one at every ε
            rows.append(deltas[0])
        return np.array(rows)

    def reproductions(self, ctx: Context) -> tuple[list[Evidence], list[Page]]:
        """The checks and report pages of the papers' figures this mechanism reproduces (``--no-reproduce`` skips)."""
        return [], []

    # -- the whole audit's progress bar (pdp_audit.verify.estimators.progress; draws weighed as the passes weigh them)
    def search_draws(self, ctx: Context, cands: list[Target]) -> int:
        """At most the draws :meth:`score` takes on ``cands``: none where δ(ε) is exact, else :data:`SCORE_DRAWS` per
        world and candidate (fewer where the algorithm cannot run)."""
        return 0 if self.exact_dp else 2 * SCORE_DRAWS * len(cands)

    def per_instance_draws(self, ctx: Context) -> int:
        """The draws of :meth:`target_epsilons` at the data, the off-data targets and the worst neighbour."""
        return 0

    def worst_target_draws(self) -> int:
        """At most the draws of :meth:`worst_target_checks`."""
        return 0

    def extra_draws(self) -> int:
        """At most the draws of :meth:`extra_checks` (``--paper-claims``)."""
        return 0

    # -- shared -----------------------------------------------------------------------------------
    def score(self, ctx: Context, targets: list[Target], eps: float) -> tuple[np.ndarray, str]:
        """Search score of every target (larger is worse for privacy) and how it was computed."""
        exact = self.target_deltas(ctx, targets, eps)
        if exact is not None:
            return np.max(exact, axis=1), "exact δ(ε) of the pair (max of both directions)"
        return self.mc_kl_scores(ctx, targets), (
            f"symmetrised KL divergence E_D[L] + E_D'[−L] from {SCORE_DRAWS} draws per world (no closed form for δ)"
        )

    def mc_kl_scores(self, ctx: Context, targets: list[Target]) -> np.ndarray:
        """E_D[L] − E_D'[L] from a small sample per target; NaN where the algorithm cannot run."""
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
            spec = STAGE_BUDGET.fill(
                slug=name.replace("/", "-"), release=name, s=s, epsilon_k=ek, delta_k=dk, source=self.source
            )
            exact_ratio = float(whitened_delta(ek, s)) / dk
            exact_epsilon = float(whitened_epsilon(dk, s)[0])
            check = builders.gaussian_release_check(
                spec,
                s,
                ek,
                dk,
                Draws(c.trials, c.seed, c.alpha),
                note=f"Exact δ(ε_k)/δ_k = {exact_ratio:.3g}; exact ε at δ_k = {exact_epsilon:.4g} vs ε_k = {ek:.4g}.",
            )
            out.append(check)
        return out


class GaussianAudit(MechanismAudit):
    """A mechanism whose release is Gaussian with the same covariance on both data sets: its privacy
    loss is that of a Gaussian mechanism with whitened sensitivity s, so δ(ε) and ε(δ) are exact."""

    exact_dp = True
    per_instance_how = "exact: analytic Gaussian ε at the data point's whitened sensitivity (Balle & Wang 2018)"

    def sensitivities(self, ctx: Context, targets: list[Target]) -> np.ndarray:
        """Whitened sensitivity s = ‖Σ^{-1/2}(mean_D − mean_D')‖ of every target's pair."""
        return np.array([view_of(self.pair(ctx.neighbours(t))).whitened_sensitivity() for t in targets])

    def target_deltas(self, ctx, targets, eps):
        delta = whitened_delta(eps, self.sensitivities(ctx, targets))
        return np.column_stack([delta, delta])

    def target_epsilons(self, ctx, targets, delta):
        return whitened_epsilon(delta, self.sensitivities(ctx, targets))

    def attack_exact(self, ctx, target):
        return builders.gaussian_attack_exact(float(self.sensitivities(ctx, [target])[0]), self.config.delta)
