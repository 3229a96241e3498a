"""The audit of the GOE release ([RW] Algorithm 6) and of τ ([RW] Lemma 20): GitHub issue 4.

Algorithm 6 releases a symmetric matrix H(D) = Σ H_x plus N = (Z + Zᵀ)/√2, Zᵢⱼ ~ N(0, σ₃²) iid; the
classical "Analyze Gauss" releases the upper triangle of H plus iid N(0, s²).  Checks:

(a) DP of each release at its calibration, at the worst-case neighbour H_x = β e₁e₁ᵀ (see
    :data:`WORST_CASE`), with the exact δ(ε) of the (exactly Gaussian) privacy loss;
(b) [RW] Theorem 17: the pDP ε of a typical individual (H_x = x xᵀ) and its ex-post version, which must
    hold with probability ≥ 1 − 2δ (Q38), plus the ex-post identity checked at the full dimension d;
(c) [RW] Lemma 20: P[‖N‖₂ ≤ σ₃τ] ≥ 1 − ρ with τ from the exact CDF (Chiani 2014), by Monte Carlo of the
    noise itself, and the exact CDF against Monte Carlo;
(d) [RW] K16 / Q4: the printed τ = 12 at d = 50, ρ = 8.465e-6 used as printed for Algorithm 6's noise
    (fails), and 12 as the quantile of Chiani's unit GOE (Z + Zᵀ)/2 (holds);
(e) [RW] K15: the "factor 2" of the GOE release over Analyze Gauss, exactly and per instance.

The privacy-loss checks (a)–(b) sample releases of dimension ``min(d, 3)``: the loss of either release
depends on H_x only through ‖H_x‖_F (Algorithm 6) or ‖vech H_x‖ (Analyze Gauss), never on d, and a d = 50
release costs 2500 normals per draw.  Everything about τ and ‖N‖₂ (c)–(d) runs at the full d.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from functools import lru_cache

import numpy as np
from scipy import stats

from audits.attack import likelihood_ratio_attack
from audits.coverage import coverage_of
from audits.engine import block_rng, run_blocks
from audits.stats import clopper_pearson
from audits.tails import hockey_stick
from mechanisms import analyze_gauss as ag
from mechanisms import gaussian as g
from mechanisms import goe
from mechanisms.glm_data import breast_cancer, margin_data
from mechanisms.validation import InputError
from reports.records import Histograms, Line, Lines, Marker, Page, Run, Series
from verify.checks import CheckSpec, Evidence, finalize, make_run
from verify.evidence import builders
from verify.evidence.dp_checks import dp_checks, sample_pair
from verify.plans.validation import check_budget, check_claim

SOURCE_ALG6 = "[RW] Algorithm 6, Theorem 17"
SOURCE_AG = "Dwork et al. 2014b (Analyze Gauss); [RW] App. D"
K16_D, K16_RHO, K16_TAU = 50, 8.465e-6, 12.0
#: Releases of this dimension (or d, if smaller) carry the privacy-loss checks (see the module docstring).
LOSS_DIM = 3
#: Matrices per block of the Monte Carlo of ‖N‖₂ (part of the code version: results depend on it).
MATRIX_BLOCK = 1024
#: The data behind H(D) and the per-instance views are fixed (they do not change with --seed).
DATA_SEED = 2021
FIGURE_DIMS = (5, 20)
WORST_CASE = (
    "H_x = β e₁e₁ᵀ (a diagonal, rank-one term: x xᵀ with x = √β e₁), added to D. For Algorithm 6 the "
    "privacy loss is N(η²/2, η²) with η = ‖H_x‖_F/(√2 σ₃), so every H_x with ‖H_x‖_F = β is a worst case; "
    "for Analyze Gauss η = ‖vech H_x‖/s and ‖vech H_x‖² = Σᵢ H_ii² + Σ_{i<j} H_ij² ≤ ‖H_x‖_F², with "
    "equality iff H_x is diagonal. The one H_x is the worst case for both releases."
)


@dataclass(frozen=True)
class GoeAuditConfig:
    d: int = 50
    epsilon: float = 1.0
    delta: float = 1e-5
    beta: float = 1.0
    sigma3: float | None = None
    calibration: str = "paper"
    rho: float = 0.01
    trials: int = 1_000_000
    matrices: int = 50_000
    seed: int = 0
    alpha: float = 1e-6
    k16: bool = True

    def validate(self) -> None:
        if isinstance(self.d, bool) or not isinstance(self.d, int) or not 1 <= self.d <= goe.EXACT_MAX_D:
            raise InputError(
                f"--d must be an integer in [1, {goe.EXACT_MAX_D}] (τ and the CDF are exact), got {self.d}"
            )
        check_claim(self.epsilon, self.delta, self.alpha, self.rho)
        if self.delta >= 0.5:
            raise InputError(
                f"--claim-delta must be below 0.5 (Theorem 17's ex-post bound holds w.p. 1 − 2δ), got {self.delta}"
            )
        if not (math.isfinite(self.beta) and self.beta > 0):
            raise InputError(f"--beta must be a finite number > 0, got {self.beta}")
        if self.sigma3 is not None and not (math.isfinite(self.sigma3) and self.sigma3 > 0):
            raise InputError(f"--sigma3 must be a finite number > 0, got {self.sigma3}")
        if self.calibration not in ("paper", "analytic"):
            raise InputError(f"--calibration must be 'paper' or 'analytic', got {self.calibration!r}")
        if not 1000 <= self.matrices <= 10**7:
            raise InputError(f"--matrices must be in [1000, 1e7], got {self.matrices}")
        check_budget(self.trials, self.seed)


# ------------------------------------------------------------------------------------------------
# calibration
# ------------------------------------------------------------------------------------------------
def theorem17_sigma3(epsilon: float, delta: float, beta: float) -> float:
    """σ₃ at which Theorem 17's DP bound β²/(4σ₃²) + β√(2 log(1/δ))/(√2σ₃) equals ε (root of a quadratic in 1/σ₃).

    With L = log(1/δ): σ₃ = β / (2(√(L + ε) − √L)).  It is s/√2 for the classical Analyze-Gauss calibration s
    (:func:`classical_ag_sigma`): Theorem 17 at σ₃ = s/√2 is the classical bound at s (K15).
    """
    L = math.log(1 / delta)
    return beta / (2 * (math.sqrt(L + epsilon) - math.sqrt(L)))


def classical_ag_sigma(epsilon: float, delta: float, beta: float) -> float:
    """s at which the classical Analyze-Gauss bound β²/(2s²) + β√(2 log(1/δ))/s equals ε (M15)."""
    L = math.log(1 / delta)
    return beta / (math.sqrt(2) * (math.sqrt(L + epsilon) - math.sqrt(L)))


def calibrate(config: GoeAuditConfig) -> tuple[float, float, str]:
    """(σ₃, s, description): Algorithm 6's and Analyze Gauss's noise scales for the claim."""
    eps, delta, beta = config.epsilon, config.delta, config.beta
    if config.calibration == "paper":
        sigma3, s = theorem17_sigma3(eps, delta, beta), classical_ag_sigma(eps, delta, beta)
        how = "closed forms: σ₃ from Theorem 17's DP bound, s from the classical Analyze-Gauss bound"
    else:
        sigma3, s = g.analytic_sigma(eps, delta, beta / math.sqrt(2)), g.analytic_sigma(eps, delta, beta)
        how = "exact: analytic Gaussian calibration (Balle & Wang 2018, Thm 8) at each release's worst-case η"
    if config.sigma3 is not None:
        sigma3, how = config.sigma3, how + "; σ₃ given by the user (--sigma3)"
    return sigma3, s, how


@lru_cache(maxsize=64)
def exact_tau(d: int, rho: float) -> goe.Tau:
    """τ of Lemma 20 at σ₃ = 1 (exact for d ≤ 100), memoised: each solve costs ~0.2–3 s and the report asks
    for some values twice.  σ₃τ is the threshold at noise scale σ₃."""
    return goe.tau(int(d), float(rho))


# ------------------------------------------------------------------------------------------------
# Monte Carlo of the GOE noise itself
# ------------------------------------------------------------------------------------------------
@contextmanager
def one_blas_thread():
    """Small eigenproblems are many times slower with a multithreaded BLAS (measured on 2 cores: batched
    ``eigvalsh`` 20x slower at d = 100, the Tracy–Widom quantile 3x); one thread per process is also what
    the worker pool wants."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a scikit-learn dependency, normally present
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


class ExtremeEigenvalues:
    """Picklable block work: (λ_min, λ_max) of ``size`` draws of N = σ (Z + Zᵀ)/√2 (Algorithm 6's noise)."""

    def __init__(self, d: int, sigma: float):
        self.d, self.sigma = d, sigma

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        with one_blas_thread():
            return goe.sample_goe_extreme_eigenvalues(self.d, size, rng, self.sigma)


def sample_extremes(
    d: int, sigma: float, n: int, seed: int, stream: str, executor: Executor | None, progress: bool
) -> np.ndarray:
    return run_blocks(ExtremeEigenvalues(d, sigma), n, seed, stream, executor, progress, block_size=MATRIX_BLOCK)


def spectral_norms(extremes: np.ndarray) -> np.ndarray:
    return np.maximum(-extremes[:, 0], extremes[:, 1])


# ------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------
def run_goe_audit(config: GoeAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    config.validate()
    with one_blas_thread():  # small eigenproblems (GOE draws, Tracy–Widom's 80×80 kernel): threads only cost
        return _run(config, executor, progress)


def _run(config: GoeAuditConfig, executor: Executor | None, progress: bool) -> Run:
    eps, delta, beta, d, n, seed, alpha = (
        config.epsilon,
        config.delta,
        config.beta,
        config.d,
        config.trials,
        config.seed,
        config.alpha,
    )
    sigma3, s, calibration = calibrate(config)
    k = min(d, LOSS_DIM)
    data_rng = np.random.default_rng(DATA_SEED)
    rows, _, _ = margin_data(200, data_rng, margin=0.0, d=k)
    h = rows.T @ rows + np.eye(k)
    worst = np.zeros((k, k))
    worst[0, 0] = beta

    checks: list[Evidence] = []
    # (a) DP of each release at its calibration, worst-case neighbour
    goe_pair = ag.GoeAnalyzeGaussPair(h, worst, sigma3, "add")
    ag_pair = ag.AnalyzeGaussPair(h, worst, s, "add")
    goe_samples = sample_pair(goe_pair, n, seed, "goe-dp", executor)
    checks += _dp(goe_samples, goe_pair.eta, eps, delta, alpha, f"Algorithm 6 (σ₃ = {sigma3:.4g})", SOURCE_ALG6, "goe-")
    ag_samples = sample_pair(ag_pair, n, seed, "ag-dp", executor)
    checks += _dp(ag_samples, ag_pair.eta, eps, delta, alpha, f"Analyze Gauss (s = {s:.4g})", SOURCE_AG, "ag-")
    eta = goe_pair.eta
    checks.append(
        builders.loss_law_check(
            CheckSpec(
                "goe-loss-law", "Law of Algorithm 6's privacy loss", "", "", "[RW] Theorem 17's proof (derived law)"
            ),
            goe_samples.loss_d,
            stats.norm(eta**2 / 2, eta).cdf,
            f"N(η²/2, η²), η = ‖H_x‖_F/(√2σ₃) = {eta:.4g} (noise drawn literally as (Z + Zᵀ)/√2)",
        )
    )

    # (b) Theorem 17: a typical individual's pDP and its ex-post version
    index = int(np.argsort(np.linalg.norm(rows, axis=1))[len(rows) // 2])
    h_x = np.outer(rows[index], rows[index])
    checks += _theorem17(h, h_x, index, sigma3, config, executor)
    checks.append(_theorem17_identity(d, sigma3, seed))

    # (c) Lemma 20 at the audit's d, and the exact CDF against Monte Carlo
    tau = replace(exact_tau(d, config.rho), sigma=sigma3, tau=sigma3 * exact_tau(d, config.rho).tau)
    extremes = sample_extremes(d, sigma3, config.matrices, seed, f"goe-noise/d={d}", executor, progress)
    norms = spectral_norms(extremes)
    checks.append(_lemma20_check(tau, norms))
    figure_dims = sorted(set(FIGURE_DIMS) | {d})
    lam_max = {d: extremes[:, 1] / sigma3}
    for dim in figure_dims:
        if dim not in lam_max:
            lam_max[dim] = sample_extremes(
                dim, 1.0, min(config.matrices, 20_000), seed, f"goe-noise/d={dim}", executor, progress
            )[:, 1]
    cdf_grid = {dim: _cdf_grid(dim) for dim in figure_dims}
    exact_cdf = {dim: np.asarray(goe.largest_eigenvalue_cdf(cdf_grid[dim], dim)) for dim in figure_dims}
    checks.append(_cdf_check(lam_max, cdf_grid, exact_cdf, tau))

    # (d) K16 / Q4 at d = 50
    if config.k16:
        norms50 = (
            norms
            if d == K16_D
            else spectral_norms(
                sample_extremes(K16_D, sigma3, min(config.matrices, 10_000), seed, "goe-noise/k16", executor, progress)
            )
        )
        checks += _k16_checks(norms50, sigma3)

    # (e) K15
    ratios = _per_instance_ratios(d)
    checks.append(_k15_check(config, sigma3, s, h, ratios))

    decided = finalize(checks, alpha)
    parameters = {
        **asdict(config),
        "sigma3": sigma3,
        "analyze_gauss_sigma": s,
        "calibration_rule": calibration,
        "theorem17_dp_epsilon": ag.theorem17_epsilon(beta, sigma3, delta),
        "classical_ag_epsilon": ag.analyze_gauss_epsilon(beta, s, delta),
        "exact_goe_epsilon": g.analytic_epsilon(delta, 1.0, eta),
        "tau": tau.tau / sigma3,
        "sigma3_tau": tau.tau,
        "tau_method": tau.method,
        "sigma": sigma3,
        "sigma_source": f"σ₃ of Algorithm 6; Analyze Gauss s = {s:.4g}; {calibration}",
        "dataset_description": (
            f"H(D) = XᵀX + I, 200 rows uniform in the unit ball of R^{k} (privacy-loss checks); noise and τ at d = {d}"
        ),
        "loss_release_dimension": k,
        "worst_case_neighbour": WORST_CASE,
        "typical_individual": f"row {index} of {len(rows)} uniform-ball rows in R^{k} (median norm), H_x = x xᵀ, removed",
    }
    pages = [
        _cdf_page(figure_dims, cdf_grid, exact_cdf, lam_max),
        _tau_page(d, config.rho),
        _per_instance_page(d, ratios),
    ]
    return make_run("goe-release", decided, alpha, parameters, seed, pages=pages)


# ------------------------------------------------------------------------------------------------
# (a) DP
# ------------------------------------------------------------------------------------------------
def _dp(
    samples, eta: float, eps: float, delta: float, alpha: float, claim: str, source: str, prefix: str
) -> list[Evidence]:
    """dp-forward / dp-reverse from :func:`verify.evidence.dp_checks.dp_checks` with the exact δ(ε) of N(η²/2, η²);
    the attack check is rebuilt with the exact Gaussian trade-off, so that it can pass and not only fail."""
    checks = dp_checks(
        samples, eps, delta, alpha, claim, source, prefix, exact_delta=lambda e: g.analytic_delta(e, 1.0, eta)
    )
    checks = [
        replace(check, note=(check.note + f" Worst-case neighbour (η = {eta:.4g}): " + WORST_CASE).strip())
        for check in checks[:2]
    ]
    points = []
    for fpr in (1e-3, 1e-2, 1e-1, 0.5):
        threshold = -(eta**2) / 2 + eta * stats.norm.isf(fpr)  # L under D' is N(−η²/2, η²)
        points.append((float(threshold), float(g.optimal_test_tpr(fpr, eta, 1.0)), fpr))
    attack = builders.attack_check(
        CheckSpec(f"{prefix}lr-attack", "", "", "", source),
        likelihood_ratio_attack(samples.loss_d, samples.loss_dprime, delta, alpha),
        eps,
        delta,
        exact_epsilon=g.analytic_epsilon(delta, 1.0, eta),
        exact_points=points,
        scores=(samples.loss_d, samples.loss_dprime),
    )
    attack = attack.retitled(f"{claim}: likelihood-ratio attack")
    return checks[:2] + [attack]


# ------------------------------------------------------------------------------------------------
# (b) Theorem 17
# ------------------------------------------------------------------------------------------------
def _with_exact_support(check: Evidence, rho: float, exact_lo: float, exact_hi: float) -> Evidence:
    """Pass a coverage check also when an exact computation brackets the failure probability inside
    [exact_lo, exact_hi] with exact_hi ≤ ρ and the Monte Carlo interval meets the bracket (the suite's rule:
    a closed form is evidence only with a consistent run)."""

    def supports(ci, a) -> bool:
        return ci[1] <= rho or (
            exact_hi <= rho * (1 + builders.CLOSED_FORM_RTOL) and ci[0] <= exact_hi and ci[1] >= exact_lo
        )

    check = replace(check, supports=supports)
    return check


def _theorem17(
    h: np.ndarray, h_x: np.ndarray, index: int, sigma3: float, config: GoeAuditConfig, executor
) -> list[Evidence]:
    delta, n, seed, alpha = config.delta, config.trials, config.seed, config.alpha
    frob = float(np.linalg.norm(h_x))
    eps17 = ag.theorem17_epsilon(frob, sigma3, delta)
    pair = ag.GoeAnalyzeGaussPair(h, h_x, sigma3, "remove")
    eta = pair.eta
    samples = sample_pair(pair, n, seed, "thm17-individual", executor)
    tails = hockey_stick(samples.loss_d, samples.loss_dprime, np.array([eps17]), alpha)
    pdp = builders.tail_claim_check(
        CheckSpec(
            "thm17-pdp",
            "Theorem 17 pDP of a typical individual",
            f"The individual with H_x = x xᵀ, ‖H_x‖_F = {frob:.4g} (median-norm row, removed) has (ε, {delta:g})-pDP with "
            f"ε = ‖H_x‖_F²/(4σ₃²) + ‖H_x‖_F√(2 log(1/δ))/(√2σ₃) = {eps17:.4g}",
            "δ_{D‖D−z}(ε_Thm17) ≤ δ",
            "[RW] Theorem 17",
        ),
        tails,
        eps17,
        delta,
        exact=g.analytic_delta(eps17, 1.0, eta),
    )
    pdp = replace(
        pdp,
        note=(
            pdp.note
            + f" Exact pDP ε of this individual at δ: {g.analytic_epsilon(delta, 1.0, eta):.4g} (η = {eta:.4g})."
        ).strip(),
    )
    # ex-post pDP (Definition D3) = |log p_D(o) − log p_D'(o)|, from the densities; exact law of |N(η²/2, η²)|
    exact_fail = float(stats.norm.sf(eps17, eta**2 / 2, eta) + stats.norm.cdf(-eps17, eta**2 / 2, eta))
    cov = coverage_of(np.abs(samples.loss_d) <= eps17, 2 * delta)
    ex_post = builders.coverage_check(
        CheckSpec(
            "thm17-ex-post",
            "Theorem 17 ex-post pDP bound",
            f"With probability ≥ 1 − 2δ (2δ = {2 * delta:g}) over the release, the ex-post pDP of the same individual is ≤ ε_Thm17 = {eps17:.4g}",
            "P_D[|L(Ĥ)| > ε_Thm17] ≤ 2δ",
            "[RW] Theorem 17 (Q38: 1 − 2δ)",
        ),
        cov,
        exact_failure=exact_fail,
    )
    ex_post = replace(
        ex_post,
        note=ex_post.note
        + (
            f" Exact failure probability from the loss law N(η²/2, η²): {exact_fail:.3g}, "
            f"{exact_fail / (2 * delta):.3g} of the allowed 2δ."
        ),
    )
    return [pdp, _with_exact_support(ex_post, 2 * delta, exact_fail, exact_fail)]


def _theorem17_identity(d: int, sigma3: float, seed: int, size: int = 2000) -> Evidence:
    """The ex-post formula of Theorem 17 equals |log-density ratio| at the full dimension d (dense x xᵀ)."""
    rows, _, _ = margin_data(50, np.random.default_rng(DATA_SEED + 1), margin=0.0, d=d)
    h = rows.T @ rows + np.eye(d)
    h_x = np.outer(rows[0], rows[0])
    pair = ag.GoeAnalyzeGaussPair(h, h_x, sigma3, "remove")
    out = pair.sample("D", size, block_rng(seed, "thm17-identity", 0))
    noise = ag.unvech(out, d) - h
    formula = ag.theorem17_ex_post_epsilon(-h_x, noise, sigma3)  # H_x = H(D') − H(D) = −x xᵀ (removal)
    exact = np.abs(pair.privacy_loss(out))
    error = float(np.max(np.abs(formula - exact) / np.maximum(1.0, exact)))
    return builders.exact_check(
        CheckSpec(
            "thm17-ex-post-identity",
            "Theorem 17 ex-post pDP formula",
            f"The ex-post pDP of Algorithm 6 is | ‖H_x‖_F²/(4σ₃²) − ⟨H_x, N⟩_F/(2σ₃²) | (d = {d})",
            "ε(Ĥ) = |log p_D(Ĥ) − log p_D'(Ĥ)|",
            "[RW] Theorem 17 with Theorem 22",
        ),
        holds=error <= 1e-9,
        estimate=error,
        note=f"Largest relative difference between the formula and the density ratio over {size} releases of a {d}×{d} "
        f"matrix (dense H_x = x xᵀ): {error:.2e} (tolerance 1e-9).",
        releases=size,
        d=d,
    )


# ------------------------------------------------------------------------------------------------
# (c) Lemma 20 and the exact CDF
# ------------------------------------------------------------------------------------------------
def _lemma20_check(tau: goe.Tau, norms: np.ndarray) -> Evidence:
    d, rho, sigma3 = tau.d, tau.rho, tau.sigma
    lower, upper = goe.spectral_norm_probability_bounds(d, tau.tau, sigma3)  # on P[‖N‖ ≤ τ]
    cov = coverage_of(norms <= tau.tau, rho)
    check = builders.coverage_check(
        CheckSpec(
            "lemma20-coverage",
            "Lemma 20: ‖N‖₂ ≤ σ₃τ with τ exact",
            f"With probability ≥ 1 − ρ (ρ = {rho:g}), ‖N‖₂ ≤ σ₃τ = {tau.tau:.6g} for Algorithm 6's noise at d = {d}, σ₃ = {sigma3:.4g} "
            f"(τ = {tau.tau / sigma3:.6g}: the exact (1 − ρ/2)-quantile of λ_max((Z + Zᵀ)/√2), Chiani 2014)",
            "P[‖N‖₂ > σ₃ F⁻¹(1 − ρ/2)] ≤ ρ",
            "[RW] Lemma 20; Chiani 2014, Theorem 2",
        ),
        cov,
        exact_failure=None,
    )
    fail_lo, fail_hi = 1 - upper, 1 - lower
    approx = rho - rho**2 / 4
    check = replace(
        check,
        note=check.note
        + (
            f" Coverage {cov.coverage:.6g} against the claimed 1 − ρ = {1 - rho:g}. Exactly (union bound, from the "
            f"exact CDF): P[fail] ∈ [ρ/2, ρ] = [{fail_lo:.4g}, {fail_hi:.4g}]; treating λ_max and −λ_min as independent, "
            f"P[fail] ≈ ρ − ρ²/4 = {approx:.6g}: the lemma is tight to second order in ρ."
        ),
    )
    check = check.with_details(
        **{
            "tau": tau.tau / sigma3,
            "sigma3_tau": tau.tau,
            "tau_method": tau.method,
            "exact_failure_bracket": [fail_lo, fail_hi],
            "independence_approximation": approx,
            "d": d,
            "sigma3": sigma3,
        }
    )
    return _with_exact_support(check, rho, fail_lo, fail_hi)


def _cdf_grid(d: int) -> np.ndarray:
    """x = 2√d + t d^(−1/6), t ∈ [−4, 4]: the edge window of λ_max((Z + Zᵀ)/√2) in its natural scale."""
    return 2 * math.sqrt(d) + np.linspace(-4.0, 4.0, 17) * d ** (-1 / 6)


def _cdf_check(lam_max: dict, grid: dict, exact: dict, tau: goe.Tau) -> Evidence:
    """Two-sided exact binomial test of the Monte Carlo CDF against the exact one at every grid point (and at τ)."""
    pvalues, worst, tested = [], 0.0, 0
    for dim, values in lam_max.items():
        xs, fs = list(grid[dim]), list(exact[dim])
        if dim == tau.d:
            xs.append(tau.tau / tau.sigma)
            fs.append(1 - tau.rho / 2)
        for x, f in zip(xs, fs):
            count = int(np.sum(values <= x))
            pvalues.append(stats.binomtest(count, values.size, min(max(f, 0.0), 1.0)).pvalue)
            worst = max(worst, abs(count / values.size - f))
            tested += 1
    dims = ", ".join(f"{dim} ({lam_max[dim].size:.0e} matrices)" for dim in lam_max)
    return Evidence(
        spec=CheckSpec(
            "goe-cdf",
            "Exact CDF of λ_max vs Monte Carlo of the noise",
            "Chiani's exact CDF, mapped to Algorithm 6's normalisation F_G(x) = F_unit(x/√2), is the law of λ_max((Z + Zᵀ)/√2)",
            "P[λ_max(G) ≤ x] = F_unit(x/√2), G = (Z + Zᵀ)/√2",
            "Chiani 2014, Theorem 2; [RW] Lemma 20 (Q4)",
        ),
        estimate=worst,
        pvalue=min(1.0, len(pvalues) * min(pvalues)),
        supports=lambda ci, a: True,
        note=(
            f"Estimate = largest |F̂ − F| over {tested} points (edge window 2√d ± 4d^(−1/6), and x = τ at the audit's d); "
            f"two-sided exact binomial tests, Bonferroni. Dimensions: {dims}."
        ),
        details={"points": tested, "dims": sorted(lam_max)},
    )


# ------------------------------------------------------------------------------------------------
# (d) K16 / Q4
# ------------------------------------------------------------------------------------------------
def _k16_checks(norms50: np.ndarray, sigma3: float) -> list[Evidence]:
    f12 = float(goe.largest_eigenvalue_cdf(K16_TAU, K16_D))  # P[λ_max(G) ≤ 12]
    lower, upper = goe.spectral_norm_probability_bounds(K16_D, K16_TAU * sigma3, sigma3)
    cov = coverage_of(norms50 <= K16_TAU * sigma3, K16_RHO)
    printed = builders.coverage_check(
        CheckSpec(
            "k16-as-printed",
            "K16: τ = 12 at d = 50 used as printed",
            f"With probability ≥ 1 − ρ (ρ = {K16_RHO:g}), ‖N‖₂ ≤ 12σ₃ for Algorithm 6's noise at d = 50",
            "P[‖N‖₂ > 12σ₃] ≤ 8.465e-6",
            "[RW] Lemma 20 numerics (K16, Q4)",
        ),
        cov,
    )
    printed = replace(
        printed,
        note=printed.note
        + (
            f" Observed coverage {cov.coverage:.4g}. Exactly: P[‖N‖₂ ≤ 12σ₃] ∈ [{lower:.3g}, {upper:.3g}] "
            f"(P[λ_max ≤ 12σ₃] = {f12:.4g}). For (Z + Zᵀ)/√2 the 1 − ρ/2 quantile is 12√2 = {12 * math.sqrt(2):.4f}."
        ),
    )
    printed = printed.with_details(**{"exact_coverage_bracket": [lower, upper], "cdf_at_12": f12})

    t = exact_tau(K16_D, K16_RHO)
    unit = t.tau / math.sqrt(2)  # quantile of λ_max of Chiani's unit GOE (Z + Zᵀ)/2
    unit_cdf = float(goe.unit_goe_cdf_mp(K16_TAU, K16_D))
    reading = builders.exact_check(
        CheckSpec(
            "k16-unit-goe",
            "K16: 12 is the quantile of Chiani's unit GOE",
            f"F⁻¹(1 − ρ/2) = 12 at d = 50, ρ = {K16_RHO:g}, for λ_max of Chiani's unit GOE (Z + Zᵀ)/2 (diagonal variance 1)",
            "F_unit⁻¹(1 − ρ/2) = 12, F_unit the CDF of λ_max((Z + Zᵀ)/2)",
            "[RW] Lemma 20 numerics (K16, Q4); Chiani 2014",
        ),
        holds=abs(unit - K16_TAU) <= 1e-4,
        estimate=unit,
        note=(
            f"Both readings of the printed value. (1) Chiani's unit GOE (Z + Zᵀ)/2: the exact quantile is {unit:.9g} "
            f"(1 − F_unit(12) = {1 - unit_cdf:.6g} vs ρ/2 = {K16_RHO / 2:.6g}), so 12 is right for that matrix. "
            f"(2) The (Z + Zᵀ)/√2 that Lemma 20 names and Algorithm 6 adds is √2 times it: τ = {t.tau:.6g} = 12√2, and with "
            f"τ = 12 the bound ‖N‖₂ ≤ 12σ₃ holds with probability at most {f12:.4g} (check k16-as-printed). "
            f"Use τ = {t.tau:.4g} for Algorithm 6 at d = 50 (pdp-audit tau --d 50 --rho {K16_RHO:g})."
        ),
        unit_goe_quantile=unit,
        algorithm6_tau=t.tau,
        unit_goe_tail_at_12=float(1 - unit_cdf),
        algorithm6_cdf_at_12=f12,
    )
    return [printed, reading]


# ------------------------------------------------------------------------------------------------
# (e) K15
# ------------------------------------------------------------------------------------------------
def _per_instance_ratios(d: int) -> dict[str, np.ndarray]:
    """σ₃²/s² giving both releases the same privacy-loss law for H_x = x xᵀ (GLM Hessians f''·x xᵀ have the same
    ratio: it is scale-free), over breast-cancer rows (d = 30) and rows uniform in the unit ball of R^d."""
    cancer, _ = breast_cancer("max")
    uniform, _, _ = margin_data(1000, np.random.default_rng(DATA_SEED + 2), margin=0.0, d=d)

    def ratios(x: np.ndarray) -> np.ndarray:
        sq = np.sum(x**2, axis=1) ** 2
        return sq / (sq + np.sum(x**4, axis=1))  # ‖x‖⁴ / (‖x‖⁴ + Σ xᵢ⁴), = per_instance_variance_ratio(x xᵀ)

    out = {"breast-cancer (d = 30)": ratios(cancer), f"uniform in the unit ball (d = {d})": ratios(uniform)}
    for x in (cancer[0], uniform[0]):  # the vectorised form is the module's function
        assert math.isclose(ratios(x[None])[0], ag.per_instance_variance_ratio(np.outer(x, x)), rel_tol=1e-12)
    return out


def _k15_check(config: GoeAuditConfig, sigma3: float, s: float, h: np.ndarray, ratios: dict) -> Evidence:
    eps, delta, beta, d = config.epsilon, config.delta, config.beta, config.d
    cmp = ag.k15_comparison(eps, delta, beta, d)
    k = h.shape[0]
    worst = np.zeros((k, k))
    worst[0, 0] = beta
    dense = np.full((k, k), beta / k)  # ‖dense‖_F = β, spread evenly: x xᵀ with x = √(β/k) 1
    eta_goe = ag.GoeAnalyzeGaussPair(h, worst, cmp.goe_sigma3).eta
    eta_ag = ag.AnalyzeGaussPair(h, worst, cmp.analyze_gauss_sigma).eta
    eta_ag_dense = ag.AnalyzeGaussPair(h, dense, cmp.analyze_gauss_sigma).eta
    eta_goe_dense = ag.GoeAnalyzeGaussPair(h, dense, cmp.goe_sigma3).eta
    exact_goe = g.analytic_delta(eps, 1.0, eta_goe)
    exact_ag = g.analytic_delta(eps, 1.0, eta_ag)
    thm17 = ag.theorem17_epsilon(beta, s / math.sqrt(2), delta)
    classical = ag.analyze_gauss_epsilon(beta, s, delta)
    holds = (
        math.isclose(cmp.off_diagonal_variance_ratio, 0.5, rel_tol=1e-9)
        and math.isclose(cmp.diagonal_variance_ratio, 1.0, rel_tol=1e-9)
        and math.isclose(eta_goe, eta_ag, rel_tol=1e-9)
        and (k == 1 or eta_ag_dense < eta_ag)
        and math.isclose(exact_goe, delta, rel_tol=1e-6)
        and math.isclose(exact_ag, delta, rel_tol=1e-6)
        and math.isclose(thm17, classical, rel_tol=1e-12)
    )
    medians = {name: float(np.median(r)) for name, r in ratios.items()}
    typical = "; ".join(f"{name}: median σ₃²/s² = {m:.3f} (factor {1 / m:.3f})" for name, m in medians.items())
    return builders.exact_check(
        CheckSpec(
            "k15-factor-two",
            "K15: GOE vs classical Analyze Gauss",
            f"At equal exact ({eps:g}, {delta:g})-DP over ‖H_x‖_F ≤ β, Algorithm 6 needs half the off-diagonal noise variance "
            'of Analyze Gauss and the same diagonal variance ("roughly a constant factor of 2")',
            "σ₃²/s² = 1/2 off the diagonal, 2σ₃²/s² = 1 on it",
            "[RW] App. D, §1 (K15); Theorem 17",
        ),
        holds=holds,
        estimate=cmp.off_diagonal_variance_ratio,
        note=(
            f"Exact calibrations (Balle & Wang 2018) at each release's worst case: s = {cmp.analyze_gauss_sigma:.5g}, "
            f"σ₃ = {cmp.goe_sigma3:.5g}; off-diagonal variance ratio {cmp.off_diagonal_variance_ratio:.6g}, diagonal "
            f"{cmp.diagonal_variance_ratio:.6g}, total E‖N‖_F² ratio (d+1)/(2d) = {cmp.frobenius_ratio:.4g} at d = {d}; "
            f"both reach δ(ε) = δ exactly ({exact_goe:.4g}, {exact_ag:.4g}). Theorem 17 at σ₃ = s/√2 gives the classical "
            f"bound's number ({thm17:.6g} = {classical:.6g}). Per instance the factor is not 2: with equal loss laws for "
            f"H_x = x xᵀ, σ₃²/s² = ‖x‖⁴/(‖x‖⁴ + Σxᵢ⁴) ∈ [1/2, d/(d+1)] — {typical}. At the DP-equal calibration a dense "
            f"H_x has η = {eta_goe_dense:.4g} under the GOE release vs {eta_ag_dense:.4g} under Analyze Gauss: typical "
            f"individuals pay for the smaller noise."
        ),
        off_diagonal_variance_ratio=cmp.off_diagonal_variance_ratio,
        diagonal_variance_ratio=cmp.diagonal_variance_ratio,
        frobenius_ratio=cmp.frobenius_ratio,
        goe_sigma3=cmp.goe_sigma3,
        analyze_gauss_sigma=cmp.analyze_gauss_sigma,
        theorem17_at_s_over_sqrt2=thm17,
        classical_at_s=classical,
        per_instance_median_ratio=medians,
    )


# ------------------------------------------------------------------------------------------------
# pages
# ------------------------------------------------------------------------------------------------
def _cdf_page(dims: list[int], grid: dict, exact: dict, lam_max: dict) -> Page:
    series = []
    for dim in dims:
        x = grid[dim]
        values = np.sort(lam_max[dim])
        counts = np.searchsorted(values, x, side="right")
        lo, hi = clopper_pearson(counts, values.size, 0.01)
        series.append(Line(label=f"d = {dim}: exact (Chiani)", x=x.tolist(), y=exact[dim].tolist(), marker=""))
        series.append(
            Line(
                label=f"d = {dim}: Monte Carlo, {values.size:,} matrices (99% band)",
                x=x.tolist(),
                y=(counts / values.size).tolist(),
                lo=np.asarray(lo).tolist(),
                hi=np.asarray(hi).tolist(),
                marker="o",
                style="none",
            )
        )
        series.append(
            Line(
                label=f"d = {dim}: Tracy–Widom β=1",
                x=x.tolist(),
                y=[goe.largest_eigenvalue_cdf_tw(v, dim) for v in x],
                marker="",
                style="--",
            )
        )
    return Page(
        title="λ_max of Algorithm 6's noise: exact, sampled, Tracy–Widom",
        text="P[λ_max(G) ≤ x] for G = (Z + Zᵀ)/√2 (off-diagonal variance 1, diagonal 2: Algorithm 6 at σ₃ = 1). Exact: "
        "Chiani (2014, Thm 2) for the unit GOE (Z + Zᵀ)/2, evaluated at x/√2. Monte Carlo: eigenvalues of the noise "
        "drawn literally. Tracy–Widom: F₁((x − 2√d) d^(1/6)), the edge limit; its error shrinks like d^(−2/3) and is "
        "visible at small d. The check goe-cdf tests the exact CDF against the Monte Carlo at every point shown.",
        figure=Lines(series=series, xlabel="x", ylabel="P[λ_max(G) ≤ x]"),
    )


def _tau_page(d: int, rho: float) -> Page:
    exact_dims = sorted({1, 5, 10, 20, 50, d})  # each exact τ costs ~0.4 s
    tw_dims = np.unique(np.round(np.geomspace(1, 1000, 24)).astype(int))
    series = []
    for r in sorted({rho, K16_RHO}, reverse=True):
        s_tw = goe.tracy_widom1_quantile(1 - r / 2)
        tw = 2 * np.sqrt(tw_dims) + s_tw * tw_dims ** (-1 / 6)  # goe.tau(..., "tracy-widom") in closed form
        assert math.isclose(tw[-1], goe.tau(int(tw_dims[-1]), r, method="tracy-widom").tau, rel_tol=1e-9)
        series.append(Line(label=f"exact τ, ρ = {r:g}", x=exact_dims, y=[exact_tau(k, r).tau for k in exact_dims]))
        series.append(Line(label=f"Tracy–Widom τ, ρ = {r:g}", x=tw_dims.tolist(), y=tw.tolist(), marker="", style="--"))
    series.append(
        Line(label="2√d (spectral edge)", x=tw_dims.tolist(), y=(2 * np.sqrt(tw_dims)).tolist(), marker="", style=":")
    )
    series.append(Line(label="K16 as printed: τ = 12 at d = 50", x=[K16_D], y=[K16_TAU], marker="*", style="none"))
    return Page(
        title="τ of Lemma 20 against the dimension",
        text=f"τ = F⁻¹(1 − ρ/2) for λ_max((Z + Zᵀ)/√2), so that P[‖N‖₂ ≤ σ₃τ] ≥ 1 − ρ (σ₃ = 1 here; τ scales with σ₃). "
        f"Exact for d ≤ 100 (pdp-audit tau), Tracy–Widom beyond. τ grows like 2√d plus an edge correction of "
        f"order d^(−1/6) log(1/ρ)^(2/3): the constants C, c of Lemmas 18–19 are not given, so those bounds cannot "
        f"be drawn. The printed K16 value 12 (star) lies on the unit-GOE curve, 1/√2 of the exact τ = 16.97 for "
        f"Algorithm 6's noise at ρ = {K16_RHO:g}.",
        figure=Lines(series=series, xlabel="d", ylabel="τ", logx=True),
    )


def _per_instance_page(d: int, ratios: dict) -> Page:
    lines = [
        Marker(label="1/2: diagonal H_x, the worst case that sets DP (K15's factor 2)", value=0.5),
        Marker(
            label=f"d/(d+1) = {d / (d + 1):.3f}: x spread evenly over d = {d} coordinates",
            value=d / (d + 1),
            style="--",
        ),
    ]
    if d != 30:
        lines.append(Marker(label="30/31: the same for d = 30", value=30 / 31, style=":"))
    return Page(
        title="K15 per instance: the factor 2 is a worst-case factor",
        text="For an individual with H_x = x xᵀ (also f''·x xᵀ, the Hessian term of a GLM: the ratio is scale-free), "
        "Algorithm 6 at σ₃ and Analyze Gauss at s have the same privacy-loss law when σ₃²/s² = ‖x‖⁴/(‖x‖⁴ + Σxᵢ⁴). "
        "It is 1/2 only for coordinate-aligned x (the worst case, where the GOE release is twice as economical); "
        "for typical rows it is close to 1, so at the DP-equal calibration σ₃ = s/√2 typical individuals get "
        "a larger privacy loss (η larger by up to √2) from the GOE release than from Analyze Gauss.",
        figure=Histograms(
            xlabel="σ₃²/s² at equal per-instance privacy",
            series=[Series(label=name, values=r.tolist()) for name, r in ratios.items()],
            markers=lines,
            xmin=0.45,
            bins=60,
        ),
    )
