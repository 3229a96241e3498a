"""The audit of AdaOPS, the joint release of every stage: [LR] Algorithm 1 (default) or [PDP] Algorithm 1.

No closed form: candidate neighbours are scored, and the pDP ε of the data points estimated, by
conditional Monte Carlo (the released scalars sampled, the last OPS stage exact given them,
:class:`pdp_audit.audits.linreg.profiles.AdaOPSConditional`).

**How δ(ε) is decided at the worst neighbour.**  The last stage is OPS given the released scalars
(ν, Δ) of [LR] Algorithm 1 (λ̃_min of [PDP] Algorithm 1), so with L₁₂ the exact privacy loss of the
scalar stages (Gaussian log-density ratios),

    δ_{P‖Q}(ε) = E_{scalars ~ P}[δ_OPS(ε − L₁₂ | schedule)],

the inner hockey-stick being exact (:func:`pdp_audit.audits.linreg.profiles.ops_hockey`).  Its summands lie in
[0, 1], so the empirical Bernstein interval (Maurer & Pontil 2009, Thm 4) is valid at every sample size
(``dp-conditional-forward``/``-reverse``, :func:`pdp_audit.audits.linreg.profiles.conditional_profile`).  That
interval's range term 7 log(2/a)/(3(n − 1)) does not shrink with δ, so the scalars are drawn
n = ⌈14 log(32/α)/(3δ)⌉ + 1 times (range term ≤ δ/2 at a = α/16; at least ``--trials``, at most
:data:`CONDITIONAL_FACTOR` × ``--trials``): a scalar draw costs far less than a joint release.  This is a
statistical certificate at the run's family-wise level, not an analytic bound.  ``dp-forward``/``-reverse``
(plain sampling of the joint release: an independent estimator) then pass when the conditional upper
bound of their direction is at most δ and their own interval is consistent with it (their plain intervals
alone cannot resolve δ · trials < 30), and ``lr-attack`` passes when both directions are so certified.
Each conditional check names the plain check of its direction (``bounds`` in its details): both bound the same
δ_{P‖Q}(ε) at the same pair and ε, in the run's one Bonferroni family, so the headline and the verdict rest on the
tighter of the two (:mod:`pdp_audit.reports.certified_claim`).
Every DP check carries the profile δ(ε) on the grid 0, ε/4, …, 2ε: the plain estimate with its band and
the conditional estimate with its band (first ``--trials`` draws; the decisive one at the claimed ε).

Paper findings (``--paper-claims``): the per-release budgets (finding F8) and [PDP] Algorithm 1 as
printed with ``λ_n = min{0, ·}`` (Q5), a guarantee when ``--algorithm pdp --printed`` deploys it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace

import numpy as np
from scipy import stats

from pdp_audit.audits.linreg import builders
from pdp_audit.audits.linreg.audit import CONDITIONAL_DRAWS, SRC_LR, SRC_PDP, MechanismAudit
from pdp_audit.audits.linreg.checks import (
    ALG1_Q5,
    DP_CONDITIONAL_FORWARD,
    DP_CONDITIONAL_REVERSE,
    DP_CONDITIONAL_UNRUNNABLE,
)
from pdp_audit.audits.linreg.context import offdata_targets
from pdp_audit.audits.linreg.profiles import (
    EPSILON_WEIGHT,
    AdaOPSConditional,
    conditional_profile,
    conditional_weight,
)
from pdp_audit.mechanisms.linreg import adaptive as A
from pdp_audit.reports.certified_claim import BOUNDS
from pdp_audit.reports.records import TailCurve
from pdp_audit.verify.estimators.engine import block_rng
from pdp_audit.verify.estimators.progress import weighted, with_progress
from pdp_audit.verify.evidence import builders as generic

CONDITIONAL_FACTOR = 16


class AdaOPSAudit(MechanismAudit):
    """AdaOPS, the joint release of every stage ([LR] Algorithm 1 or [PDP] Algorithm 1): no closed form;
    neighbours are scored and per-instance ε estimated by conditional Monte Carlo."""

    name = "adaops"
    title = "AdaOPS"
    exact_dp = False
    config_keys = ("algorithm", "kappa", "printed")
    per_instance_how = (
        f"conditional Monte Carlo: {CONDITIONAL_DRAWS} draws of the released scalars (λ̃_min, Δ), exact OPS "
        "profile of the last stage given them"
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
        """Like :meth:`conditional`, skipping groups where the (printed) algorithm cannot run.  Each group advances the
        whole audit's bar by its draws at each of its targets, run or skipped (so the bar's plan is exact)."""
        template = self.pair(ctx.neighbours(targets[0]))
        groups = list(ctx.groups(targets))
        units = [CONDITIONAL_DRAWS * len(idx) for idx, _ in groups]
        for g, (idx, batch) in enumerate(with_progress(groups, len(groups), stream, "group", None, units)):
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
        with weighted(EPSILON_WEIGHT):  # a bisection on the draws: the bar weighs each target's draws by its cost
            for idx, cond in self._safe_conditional(ctx, targets, "per-instance"):
                out[idx] = cond.epsilon(delta)
        return out

    def search_draws(self, ctx, cands):
        return CONDITIONAL_DRAWS * len(cands)  # every group of candidates, run or not (_safe_conditional)

    def per_instance_draws(self, ctx):
        targets = ctx.n + len(offdata_targets(ctx.X, ctx.y, self.typical_lambda(), self.config.seed)) + 1  # + worst
        return EPSILON_WEIGHT * CONDITIONAL_DRAWS * targets

    def worst_target_draws(self):
        draws, grid = self.conditional_draws(), len(builders.profile_grid(self.config.epsilon))
        return conditional_weight(1) * draws + conditional_weight(grid) * min(draws, self.config.trials)

    def extra_draws(self):
        return builders.tail_check_draws(self.config.trials) * (1 if self.variant == "pdp" else 2)  # stage_checks

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

    def conditional_draws(self) -> int:
        """Draws of the released scalars for the DP checks at the worst neighbour (module notes): enough for the
        empirical Bernstein range term 7 log(2/a)/(3(n − 1)) to be at most δ/2 at a = α/16, at least ``trials``
        and at most ``CONDITIONAL_FACTOR · trials``."""
        c = self.config
        needed = math.ceil(14 * math.log(32 / c.alpha) / (3 * c.delta)) + 1
        return int(max(c.trials, min(needed, CONDITIONAL_FACTOR * c.trials)))

    def worst_target_checks(self, ctx, target):
        """Conditional Monte Carlo at the worst neighbour (``dp-conditional-*``, module notes), with the privacy
        profile on the figures' ε grid."""
        c = self.config
        template = self.pair(ctx.neighbours(target))
        ((idx, batch),) = list(ctx.groups([target]))
        draws = self.conditional_draws()
        grid = builders.profile_grid(c.epsilon)
        self._conditional = None
        try:
            main = conditional_profile(template, batch, [c.epsilon], draws, c.seed, "dp-conditional", ctx.executor)
            curve = conditional_profile(
                template, batch, grid, min(draws, c.trials), c.seed, "dp-conditional/grid", ctx.executor
            )
        except A.UnrunnableError as err:
            return [
                generic.exact_check(
                    DP_CONDITIONAL_UNRUNNABLE.fill(source=self.source),
                    holds=False,
                    estimate=float("nan"),
                    note=str(err),
                )
            ]
        self._conditional = {name: main[name][0] for name in main}
        self._curve = curve
        checks = []
        for spec, direction, plain_id in (
            (DP_CONDITIONAL_FORWARD, "D||D'", "dp-forward"),
            (DP_CONDITIONAL_REVERSE, "D'||D", "dp-reverse"),
        ):
            check = builders.bounded_mean_check(
                spec.fill(name=self.title, epsilon=c.epsilon, delta=c.delta, target=target.label, source=self.source),
                main[direction][0],
                c.delta,
                note="Rao–Blackwellised (conditional) Monte Carlo: the released scalars "
                + ("(ν, Δ)" if self.variant == "lr" else "λ̃_min")
                + " are sampled from the exact law of the direction's first world and the last (OPS) stage is "
                "integrated exactly given them; the summands "
                "δ_OPS(ε − L₁₂ | schedule) lie in [0, 1], so the interval is valid at every sample size. Draws: "
                f"{draws:.2e} (enough for the interval's range term to fall below δ/2, at most "
                f"{CONDITIONAL_FACTOR} × --trials).",
                direction=direction,
                target=target.label,
                sampling="conditional Monte Carlo (exact last stage)",
                epsilon=c.epsilon,
                **{BOUNDS: plain_id},  # the same δ(ε) as the plain check at this pair: the headline takes the tighter
            )
            checks.append(replace(check, make_figure=self._profile_figure(direction, None, grid)))
        return checks

    def _conditional_panel(self, direction: str, grid, alpha: float):
        """The conditional estimate on the grid (its first ``trials`` draws), the decisive one at the claimed ε."""
        means = list(self._curve[direction])
        means[builders.PROFILE_CLAIM_INDEX] = self._conditional[direction]
        lo, hi = zip(*(m.interval(alpha) for m in means))
        nan = np.full(len(grid), np.nan)
        return TailCurve(estimate=np.array([m.estimate for m in means]), lo=np.array(lo), hi=np.array(hi), exact=nan)

    def _profile_figure(self, direction: str, plain, grid):
        def panels(alpha):
            out = {}
            if plain is not None:
                out.update(plain(alpha))
            out[builders._panel_name(direction, "conditional Monte Carlo (exact last stage)")] = (
                self._conditional_panel(direction, grid, alpha)
            )
            return out

        return builders.profile_figure(grid, panels, self.config.epsilon, self.config.delta)

    def _certified(self, alpha: float) -> bool:
        """Both directions' conditional upper bounds (as in their checks' intervals) are at most δ."""
        return all(m.interval(alpha)[1] <= self.config.delta for m in self._conditional.values())

    def support_dp_checks(self, checks):
        """The joint plain-sampling checks pass when the conditional upper bound certifies the claim and their own
        interval is consistent with it; the attack passes when both directions are so certified (then no test can
        beat the (ε, δ) region)."""
        if getattr(self, "_conditional", None) is None:
            return checks
        delta, grid = self.config.delta, builders.profile_grid(self.config.epsilon)
        out = []
        for check in checks:
            if check.id in ("dp-forward", "dp-reverse"):
                direction = "D||D'" if check.id == "dp-forward" else "D'||D"
                bound = self._conditional[direction]

                def supports(ci, alpha, bound=bound):
                    upper = bound.interval(alpha)[1]
                    return ci[1] <= delta or (upper <= delta and ci[0] <= upper)

                plain = check.make_figure

                def plain_panels(alpha, plain=plain):
                    return dict(plain(alpha).curves) if plain is not None else {}

                check = replace(
                    check, supports=supports, make_figure=self._profile_figure(direction, plain_panels, grid)
                ).noted(
                    "Support: the conditional Monte Carlo upper bound of the same direction (dp-conditional-"
                    + ("forward" if direction == "D||D'" else "reverse")
                    + ") at this check's level; a pass needs it at most δ and this interval consistent with it."
                )
            elif check.id == "lr-attack":
                check = replace(check, supports=lambda ci, alpha: self._certified(alpha)).noted(
                    "Support: the conditional Monte Carlo upper bounds of both directions at this check's level "
                    "(a pass needs both at most δ: then no test of D vs D' can leave the (ε, δ) region)."
                )
            out.append(check)
        return out

    def deployed_checks(self, ctx):
        """``--algorithm pdp --printed`` deploys [PDP] Algorithm 1 with its printed ``min``: Q5 is then a guarantee."""
        if self.variant == "pdp" and self.config.printed:
            check = self._q5_check(ctx)
            return [replace(check, spec=check.spec.deployed("--algorithm pdp --printed"))]
        return []

    def extra_checks(self, ctx):
        checks = [] if (self.variant == "pdp" and self.config.printed) else [self._q5_check(ctx)]
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
        return generic.exact_check(
            ALG1_Q5.fill(),
            holds=False,
            estimate=p_proof_fails,
            note=(
                "The printed min makes λ_n ≤ 0 for every input, so the algorithm never adds the ridge its proof "
                f"needs. On this data (λ_min(XᵀX) = {lam_min:.4g}, n/(dκ) = {need:.4g}, κ = {kappa:.4g}) the proof's "
                f"condition fails with probability {p_proof_fails:.3g}, and XᵀX + λ_nI is indefinite (θ̃ undefined) "
                f"with probability {p_undefined:.2g} > 0. On data with singular XᵀX (the 'singular' and 'aligned' "
                "bases of the search) the printed algorithm cannot run at all: XᵀX + λ_nI is singular or indefinite "
                "for every draw. The audit runs the intended max unless --printed is given; with max the condition "
                f"fails with probability {p_intended_fails:.2g} on this data (the proof's event "
                f"|λ̃_min − λ_min| ≤ log(4/δ)/ε has probability "
                f"1 − {2 * float(stats.norm.sf(lc / c.epsilon / sd1)):.2g}, not ≥ 1 − δ/2, Q6)."
            ),
            lam_min=lam_min,
            required=need,
            kappa=kappa,
            p_proof_condition_fails=p_proof_fails,
            p_undefined=p_undefined,
        )
