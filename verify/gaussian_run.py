"""The audit of the Gaussian mechanism: every check of issue #2, from samples to verdicts.

The mechanism releases the clipped sum (or the count) of a real dataset plus N(0, σ²I).  The DP
claim is audited at a worst-case neighbour (a row on the clip sphere, ‖Δ_z‖ = C): the Gaussian
privacy loss depends on Δ_z only through ‖Δ_z‖, so this pair is the worst case for every dataset.
"""
from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from audits.attack import likelihood_ratio_attack
from audits.coverage import coverage_of
from audits.engine import block_rng, sample_privacy_loss
from audits.tails import both_directions, hockey_stick
from mechanisms import gaussian as g
from mechanisms.datasets import Dataset, load_csv, load_shipped, standardize
from verify import builders
from verify.checks import Run, finalize
from verify.claims_validation import check_budget, check_claim

SOURCE_RW = "Redberg & Wang 2021"
SOURCE_BW = "Balle & Wang 2018, Theorem 8"


@dataclass(frozen=True)
class GaussianAuditConfig:
    epsilon: float = 1.0
    delta: float = 1e-5
    sensitivity: float = 1.0
    query: str = "sum"
    sigma: float | None = None
    trials: int = 1_000_000
    seed: int = 0
    alpha: float = 1e-6
    rho: float = 0.01
    dataset: str = "diabetes"
    data: str | None = None
    target_column: str | None = None

    def validate(self) -> None:
        check_claim(self.epsilon, self.delta, self.alpha, self.rho)
        if not (math.isfinite(self.sensitivity) and self.sensitivity > 0):
            raise ValueError(f"--sensitivity must be a finite number > 0, got {self.sensitivity}")
        if self.query == "count" and self.sensitivity != 1.0:
            raise ValueError("--sensitivity applies to --query sum only (a count has sensitivity 1)")
        if self.sigma is not None and not (math.isfinite(self.sigma) and 1e-9 <= self.sigma / self.sensitivity <= 1e9):
            # beyond this range every privacy loss overflows or vanishes in double precision
            raise ValueError(f"--sigma must be in [1e-9, 1e9] times the sensitivity, got {self.sigma}")
        check_budget(self.trials, self.seed)


def load_rows(config: GaussianAuditConfig) -> tuple[Dataset, np.ndarray]:
    """The dataset and the rows the query sees.

    Shipped data are z-scored and scaled so that 90% of rows lie inside the clip ball (the rest are
    clipped): individuals then have visibly different sensitivities.  A user CSV is used as is.
    """
    if config.data is not None:
        dataset = load_csv(config.data, config.target_column)
        return dataset, dataset.features
    dataset = load_shipped(config.dataset)
    rows = standardize(dataset.features)
    scale = np.quantile(np.linalg.norm(rows, axis=1), 0.9)
    return dataset, rows * (config.sensitivity / scale)


def per_instance_epsilons(sensitivities: np.ndarray, delta: float, sigma: float) -> np.ndarray:
    """Exact pDP ε of every individual at δ: the analytic Gaussian ε at her own ‖Δ_z‖.

    One root-find per distinct sensitivity (rounded to 12 significant digits, far below any
    displayed precision).
    """
    keys = np.round(sensitivities, 12)
    unique, inverse = np.unique(keys, return_inverse=True)
    values = np.array([g.analytic_epsilon(delta, sigma, s) for s in unique])
    return values[inverse]


def epsilon_grid(sigma: float, sensitivity: float, delta: float, extra: list[float]) -> np.ndarray:
    top = max(g.analytic_epsilon(min(delta, 1e-3) / 100, sigma, sensitivity), max(extra) * 1.1)
    return np.unique(np.concatenate([np.linspace(0, top, 33), extra]))


def run_gaussian_audit(config: GaussianAuditConfig, executor: Executor | None = None, progress: bool = False) -> Run:
    config.validate()
    dataset, rows = load_rows(config)
    query = g.Query(config.query, config.sensitivity if config.query == "sum" else 1.0)
    S = query.sensitivity
    calibrated = g.analytic_sigma(config.epsilon, config.delta, S)
    sigma = config.sigma if config.sigma is not None else calibrated
    mechanism = g.GaussianMechanism(query, sigma)
    eps, delta, n, seed = config.epsilon, config.delta, config.trials, config.seed

    # The worst-case neighbour: add a row on the clip sphere, so ‖Δ_z‖ = S.
    target = np.zeros(rows.shape[1])
    target[0] = S
    pair = mechanism.pair(rows, target, "add")

    def losses(p, stream):
        return (sample_privacy_loss(p, "D", n, seed, stream, executor, progress),
                sample_privacy_loss(p, "D'", n, seed, stream, executor, progress))

    loss_d, loss_dp = losses(pair, "dp-pair")
    eps_cor23 = g.corollary23_pdp_epsilon(delta, sigma, S)
    eps_app_d = g.classical_epsilon(delta, sigma, S)
    grid = epsilon_grid(sigma, S, delta, [eps, eps_cor23, eps_app_d])
    tails = both_directions(loss_d, loss_dp, grid, config.alpha)
    exact_curve = np.array([g.analytic_delta(e, sigma, S) for e in grid])

    checks = [
        # Plain tails where δ·n ≥ 30 resolves the claim, importance sampling (audits.rare) below that.
        builders.dp_claim_check(
            "dp-forward", "DP claim, δ_{D‖D'}(ε)", f"The mechanism is ({eps:g}, {delta:g})-DP: P_D(S) ≤ e^ε P_D'(S) + δ for all S",
            "δ_{D‖D'}(ε) = P_D[L > ε] − e^ε P_D'[L > ε] ≤ δ", "Definition D1; " + SOURCE_BW,
            tails["D||D'"], pair, "D||D'", eps, delta, n, seed, exact=g.analytic_delta(eps, sigma, S), executor=executor),
        builders.dp_claim_check(
            "dp-reverse", "DP claim, δ_{D'‖D}(ε)", f"The mechanism is ({eps:g}, {delta:g})-DP: P_D'(S) ≤ e^ε P_D(S) + δ for all S",
            "δ_{D'‖D}(ε) = P_D'[−L > ε] − e^ε P_D[−L > ε] ≤ δ", "Definition D1; " + SOURCE_BW,
            tails["D'||D"], pair, "D'||D", eps, delta, n, seed, exact=g.analytic_delta(eps, sigma, S), executor=executor),
        builders.tail_curve_check("tail-curve", "Exact δ(ε) curve vs Monte Carlo", SOURCE_BW, tails,
                                  {"D||D'": exact_curve, "D'||D": exact_curve}, eps, delta),
        _loss_law_check(loss_d, S, sigma),
        _attack_check(loss_d, loss_dp, S, sigma, eps, delta, config.alpha),
        _cor23_coverage_check(loss_d, S, sigma, config.rho),
        builders.dp_claim_check(
            "cor23-pdp", "Corollary 23 pDP bound", f"The pair is (ε, {delta:g})-pDP with ε = ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1−δ)/σ = {eps_cor23:.4g}",
            "δ(ε_Cor23) ≤ δ", "[RW] Corollary 23", tails["D||D'"], pair, "D||D'", eps_cor23, delta, n, seed,
            exact=g.analytic_delta(eps_cor23, sigma, S), executor=executor),
        builders.dp_claim_check(
            "classical-epsilon", "Classical ε of the standard Gaussian mechanism",
            f"The mechanism is (ε, {delta:g})-DP with ε = Δ²/(2σ²) + Δ√(2 log(1/δ))/σ = {eps_app_d:.4g}",
            "δ(ε_classical) ≤ δ", "[RW] Appendix D", tails["D||D'"], pair, "D||D'", eps_app_d, delta, n, seed,
            exact=g.analytic_delta(eps_app_d, sigma, S), executor=executor),
        _classical_calibration_check(query, rows, target, config, executor),
        _theorem22_check(pair, seed),
        _example4_check(config),
        _per_instance_check(mechanism, rows, config, executor),
    ]
    finalize(checks, config.alpha)
    sensitivities = mechanism.per_instance_sensitivities(rows)
    parameters = {**asdict(config), "sigma": sigma, "calibrated_sigma": calibrated, "sigma_source":
                  "user (--sigma)" if config.sigma is not None else "analytic Gaussian calibration to the claim",
                  "query_sensitivity": S, "dataset_description": dataset.description, "n_rows": int(len(rows)),
                  "dimension": int(rows.shape[1]), "worst_case_target": "a row on the clip sphere (‖Δ_z‖ = C), added"}
    return Run(
        mechanism="gaussian",
        checks=checks,
        alpha=config.alpha,
        parameters=parameters,
        seed=seed,
        per_instance=_per_instance_summary(sensitivities, delta, sigma, S, eps),
    )


def _loss_law_check(loss_d: np.ndarray, S: float, sigma: float):
    mean, sd = g.privacy_loss_law(S, sigma)
    return builders.loss_law_check("loss-law", "Law of the privacy loss", "[RW] Theorem 22 (derived law)",
                                   loss_d, stats.norm(mean, sd).cdf, f"N(η²/2, η²), η = ‖Δ‖/σ = {sd:.4g}")


def _attack_check(loss_d, loss_dp, S, sigma, eps, delta, alpha):
    attack = likelihood_ratio_attack(loss_d, loss_dp, delta, alpha)
    eta = S / sigma
    points = []
    for fpr in (1e-3, 1e-2, 1e-1, 0.5):
        threshold = -eta**2 / 2 + eta * stats.norm.isf(fpr)  # L under D' is N(−η²/2, η²)
        points.append((float(threshold), float(g.optimal_test_tpr(fpr, S, sigma)), fpr))
    return builders.attack_check("lr-attack", "[RW] §1 (membership attacks); Kairouz et al. 2015", attack, eps, delta,
                                 exact_epsilon=g.analytic_epsilon(delta, sigma, S), exact_points=points, scores=(loss_d, loss_dp))


def _cor23_coverage_check(loss_d, S, sigma, rho):
    bound = g.corollary23_ex_post_bound(rho, sigma, S)
    # Ex-post pDP (Definition D3) is |log p_D(o) − log p_D'(o)|, computed here from the densities.
    cov = coverage_of(np.abs(loss_d) <= bound, rho)
    return builders.coverage_check(
        "cor23-ex-post", "Corollary 23 high-probability ex-post bound",
        f"With probability ≥ 1 − ρ (ρ = {rho:g}) over o ~ A(D), ex-post ε(o) ≤ ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1−ρ/2)/σ = {bound:.4g}",
        "P[ε(o) > bound] ≤ ρ", "[RW] Corollary 23, eq. (5)", cov,
        exact_failure=g.corollary23_exact_failure_probability(rho, sigma, S))


def _plain_tails(pair, epsilon: float, config: GaussianAuditConfig, stream: str, executor):
    """Plain hockey-stick tails at one ε, computed only when the claim is resolvable by plain sampling."""
    def compute():
        loss_d = sample_privacy_loss(pair, "D", config.trials, config.seed, stream, executor)
        loss_dp = sample_privacy_loss(pair, "D'", config.trials, config.seed, stream, executor)
        return hockey_stick(loss_d, loss_dp, np.array([epsilon]), config.alpha)
    return compute


def _classical_calibration_check(query, rows, target, config, executor):
    sigma_c = g.classical_sigma(config.epsilon, config.delta, query.sensitivity)
    pair = g.GaussianMechanism(query, sigma_c).pair(rows, target, "add")
    return builders.dp_claim_check(
        "classical-calibration", "Classical calibration σ = Δ√(2 log(1.25/δ))/ε",
        f"σ = {sigma_c:.4g} gives ({config.epsilon:g}, {config.delta:g})-DP (proved for ε < 1)",
        "δ(ε) at σ_classical ≤ δ", "Dwork & Roth 2014 Thm A.1; [RW] Corollary 16",
        _plain_tails(pair, config.epsilon, config, "classical", executor), pair, "D||D'", config.epsilon, config.delta,
        config.trials, config.seed, exact=g.analytic_delta(config.epsilon, sigma_c, query.sensitivity), executor=executor)


def _theorem22_check(pair: g.GaussianPair, seed: int, size: int = 100_000):
    outputs = pair.sample("D", size, block_rng(seed, "theorem22", 0))
    formula = g.ex_post_pdp(outputs, pair.q_d, pair.delta_z, pair.sigma)
    exact = np.abs(pair.privacy_loss(outputs))
    error = float(np.max(np.abs(formula - exact) / np.maximum(1.0, exact)))
    return builders.exact_check(
        "theorem22", "Theorem 22 ex-post pDP identity",
        "The ex-post pDP of the Gaussian mechanism is exactly |‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ²|",
        "ε(o) = |log p_D(o) − log p_D±z(o)|", "[RW] Theorem 22",
        holds=error <= 1e-9, estimate=error,
        note=f"Largest relative difference between the formula and the density ratio over {size:.0e} releases: {error:.2e} (tolerance 1e-9).",
        releases=size)


def _example4_check(config: GaussianAuditConfig, size: int = 100_000):
    """[RW] Example 4: publishing the exact ex-post pDP of a count reveals the count."""
    sigma = g.analytic_sigma(config.epsilon, config.delta, 1.0)
    count = 1000
    pair = g.GaussianPair(np.array([count]), np.array([count + 1]), sigma)  # D, D+z
    outputs = pair.sample("D", size, block_rng(config.seed, "example4", 0))
    published = np.abs(pair.privacy_loss(outputs))  # the exact ex-post pDP, from the densities
    high, low = g.example4_candidates(outputs[:, 0], published, sigma)
    # Exact arithmetic makes the second candidate an integer with probability 0; at tolerance 1e-9
    # (floating error here is ~1e-12) that happens with probability ~4e-9 per release.
    integral = [np.abs(c - np.round(c)) <= 1e-9 for c in (high, low)]
    ambiguous = int(np.sum(integral[0] & integral[1]))
    unique = integral[0] ^ integral[1]
    recovered = np.where(integral[0], np.round(high), np.round(low))
    correct = int(np.sum(unique & (recovered == count)))
    wrong = size - correct - ambiguous
    footnote = g.example4_candidates(0.1, abs(g.GaussianPair(np.zeros(1), np.ones(1), 1.0).privacy_loss(np.array([[0.1]]))[0]), 1.0)
    footnote_ok = bool(np.allclose(sorted(footnote), [-0.8, 0.0], atol=1e-12))
    return builders.exact_check(
        "example4", "Example 4: exposing ex-post pDP leaks the data",
        "An attacker z ∉ D who sees o and ε(o, D, D+z) of a count recovers Q(D) = o − 0.5 ± σ²ε (exactly one candidate is an integer)",
        "Q(D) = o − 0.5 ± σ² ε(o, D, D+z)", "[RW] Example 4 and footnote (K14)",
        holds=wrong == 0 and footnote_ok, estimate=correct / size,
        note=(f"Recovered the true count in {correct} of {size} releases (σ = {sigma:.4g}; both candidates integral within 1e-9: {ambiguous}; wrong or none: {wrong}); "
              f"footnote Q(D)=0, o=0.1 gives candidates {[round(float(c), 12) for c in sorted(footnote)]} (printed: 0 and −0.8)."),
        recovered=correct, releases=size, ambiguous=ambiguous, wrong=wrong, footnote_candidates=[float(c) for c in sorted(footnote)])


def _per_instance_check(mechanism: g.GaussianMechanism, rows: np.ndarray, config: GaussianAuditConfig, executor):
    """The pDP claim of a typical individual (median sensitivity, removed from D), audited like DP."""
    sens = mechanism.per_instance_sensitivities(rows)
    index = int(np.argsort(sens)[len(sens) // 2])
    eps_i = g.analytic_epsilon(config.delta, mechanism.sigma, sens[index])
    pair = mechanism.pair(rows, rows[index], "remove")
    return builders.dp_claim_check(
        "pdp-median-individual", "pDP of the median individual",
        f"Row {index} (‖Δ_z‖ = {sens[index]:.4g}) has ({eps_i:.4g}, {config.delta:g})-pDP, the analytic ε at her own sensitivity",
        "δ_{D‖D−z}(ε_z) ≤ δ", "Definition D2; " + SOURCE_BW, _plain_tails(pair, eps_i, config, "median-individual", executor),
        pair, "D||D'", eps_i, config.delta, config.trials, config.seed,
        exact=g.analytic_delta(eps_i, mechanism.sigma, sens[index]), executor=executor)


def _per_instance_summary(sensitivities, delta, sigma, S, eps_claim) -> dict:
    epsilons = per_instance_epsilons(sensitivities, delta, sigma)
    cor23 = np.array([g.corollary23_pdp_epsilon(delta, sigma, s) for s in sensitivities])
    return {
        "delta": delta,
        "pdp_epsilon": epsilons.tolist(),
        "cor23_epsilon": cor23.tolist(),
        "dp_epsilon": g.analytic_epsilon(delta, sigma, S),
        "claim_epsilon": eps_claim,
        "median": float(np.median(epsilons)),
        "max": float(np.max(epsilons)),
        "fraction_below_half_dp": float(np.mean(epsilons < 0.5 * g.analytic_epsilon(delta, sigma, S))),
    }
