"""Closed forms of the privacy report ([RW] §3.3, App. C, E): the report's pieces, its accuracy statements
and the privacy accounting of its releases.

Vectorised: arrays broadcast.  Each function names the theorem or algorithm it transcribes; where the paper's
printed form differs from the verified one, the reading is an argument (see
:class:`pdp_audit.mechanisms.privacy_report.calibration.Readings`).
"""

from __future__ import annotations

import math

import numpy as np

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import goe
from pdp_audit.mechanisms.privacy_report.calibration import ReportCalibration, normal_quantile
from pdp_audit.verify.inputs.validation import InputError, probability


# --------------------------------------------------------------------------------------------
# closed forms: the report's pieces (vectorised; arrays broadcast)
# --------------------------------------------------------------------------------------------
def objpert_epsilon(f1, f2, xnorm2, xb, mu, sigma, member) -> np.ndarray:
    """Exact ex-post pDP of ObjPert for a GLM ([RW] Corollary 7, an equality; Theorem 6):

        ε₁ = |−log(1 ± f''μ(x)) + f'²‖x‖²/(2σ²) ± f'∇J(θ̂ᴾ; D)ᵀx/σ²|,   ∇J(θ̂ᴾ; D) = −b,

    "±" = "+" iff z ∉ D (``member`` False: an added individual), μ with H = ∇²J(θ̂ᴾ; D).  ``xb`` = bᵀx.
    """
    pm = np.where(member, -1.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(-np.log1p(pm * f2 * mu) + f1**2 * xnorm2 / (2 * sigma**2) - pm * f1 * xb / sigma**2)


def log_term(f2, mu_bar) -> np.ndarray:
    """|−log(1 − f''μ̄)|, +∞ where f''μ̄ ≥ 1 (no bound)."""
    a = np.asarray(f2 * mu_bar, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(a < 1, np.abs(np.log1p(-np.minimum(a, 1.0))), np.inf)


def gbar_independent(f1, xnorm, sigma, q) -> np.ndarray:
    """Data-independent ḡ = σ|f'|‖x‖·q (Algorithm 2 DATA-INDEP; q = Φ⁻¹(1 − ρ/2))."""
    return sigma * np.abs(f1) * xnorm * q


def gbar_dependent(
    f1, xj, xnorm, sigma, sigma2, q, reading: str = "absolute", with_independent: bool = True
) -> np.ndarray:
    """Data-dependent ḡ = min{|f'(J^P)ᵀx| + σ₂|f'|‖x‖q, σ|f'|‖x‖q} (Algorithm 2; ``reading="printed"``: f'(J^P)ᵀx,
    signed, Q25).  Algorithm 4 has no minimum with the data-independent bound (``with_independent=False``), which
    keeps its failure probability at 3ρ.  ``xj`` = (J^P)ᵀx, J^P the release of Algorithm 5.
    """
    dep = (f1 * xj if reading == "printed" else np.abs(f1 * xj)) + sigma2 * np.abs(f1) * xnorm * q
    return np.minimum(dep, gbar_independent(f1, xnorm, sigma, q)) if with_independent else dep


def report_epsilon1(log_bound, f1, xnorm2, gbar, sigma) -> np.ndarray:
    """ε̄₁ᴾ(z) = |log(1 − f''μ̄)| + ‖f'x‖²/(2σ²) + |ḡ(z)|/σ² (Algorithms 2 and 4)."""
    return log_bound + f1**2 * xnorm2 / (2 * sigma**2) + np.abs(gbar) / sigma**2


def mu_bar_dependent(mu_hat, xnorm2, lam, minimum: bool = True) -> np.ndarray:
    """Algorithm 2 DATA-DEP: (3/2)xᵀĤ⁻¹x, with the proof's pointwise minimum with ‖x‖²/λ (Q26)."""
    m = 1.5 * np.asarray(mu_hat, dtype=float)
    return np.minimum(m, xnorm2 / lam) if minimum else m


def lambda_hat_shifted(raw, lam, sigma4, rho) -> np.ndarray:
    """Algorithm 4: λ̂ := max{λ, λ̂ᴾ − σ₄Φ⁻¹(1 − ρ/2)} (a lower confidence bound on λ_min(H))."""
    return np.maximum(lam, raw - sigma4 * normal_quantile(rho))


def mu_bar_adaptive(mu_hat_std, mu_hat_reg, xnorm2, lam_hat, tau_sigma3) -> np.ndarray:
    """Algorithm 4: standard estimator (λ̂ + τσ₃)/λ̂ · xᵀĤ⁻¹x if λ̂ ≥ 2τσ₃, else the regularised
    (λ̂ + 2τσ₃)/λ̂ · xᵀ(Ĥ + τσ₃I)⁻¹x; each capped by ‖x‖²/λ̂."""
    lam_hat = np.asarray(lam_hat, dtype=float)
    standard = (lam_hat + tau_sigma3) / lam_hat * mu_hat_std
    regular = (lam_hat + 2 * tau_sigma3) / lam_hat * mu_hat_reg
    return np.minimum(np.where(lam_hat >= 2 * tau_sigma3, standard, regular), xnorm2 / lam_hat)


# --------------------------------------------------------------------------------------------
# closed forms: accuracy statements
# --------------------------------------------------------------------------------------------
def theorem10_additive(f1, xnorm, sigma, sigma2, rho, form: str = "statement") -> np.ndarray:
    """Theorem 10(3)'s additive term (Q24): statement |f'|‖x‖√(2 log(2/ρ))/σ₂, or the proof's
    min{σ, σ₂}|f'|‖x‖√(2 log(2/ρ))/σ² (read with the 1/σ² of the third term)."""
    root = math.sqrt(2 * math.log(2 / rho))
    if form == "statement":
        return np.abs(f1) * xnorm * root / sigma2
    if form == "proof":
        return min(sigma, sigma2) * np.abs(f1) * xnorm * root / sigma**2
    raise InputError(f"additive form must be 'statement' or 'proof', got {form!r}")


def theorem13_constant(tau_sigma3: float, beta: float) -> float:
    """Theorem 13: C = 4τσ₃ + 2β (the upper end of the printed 0 < C ≤ 4τσ₃ + 2β)."""
    return 4 * tau_sigma3 + 2 * beta


def proposition15_quantile(rho: float, n: int) -> float:
    """Φ⁻¹(1 − ρ/(4n)): with it both third-term bounds of the report hold for all n users at once w.p. ≥ 1 − ρ."""
    from scipy import stats  # scipy where it is used: the privacy report's config imports this module

    return float(stats.norm.isf(probability("rho", rho) / (4 * n)))


def proposition15_additive(f1, xnorm, sigma2, n, rho) -> np.ndarray:
    """Proposition 15: |f'|‖x‖√(2 log(n/ρ))/σ₂."""
    return np.abs(f1) * xnorm * math.sqrt(2 * math.log(n / rho)) / sigma2


def proposition15_l1_term(f1, xnorm1, sigma, d, rho) -> np.ndarray:
    """Proposition 15's data-independent, uniform third term |f'|‖x‖₁√(2 log(2d/ρ))/σ (Hölder + max of Gaussians)."""
    return np.abs(f1) * xnorm1 * math.sqrt(2 * math.log(2 * d / rho)) / sigma


# --------------------------------------------------------------------------------------------
# closed forms: privacy accounting
# --------------------------------------------------------------------------------------------
def _classical(eta2, eta, delta_log) -> np.ndarray:
    return eta2 / 2 + eta * np.sqrt(2 * delta_log)


def theorem10_dp_epsilon(
    xi: float, beta: float, sigma2: float, sigma3: float, delta: float, sigma3_power: int = 2
) -> float:
    """Theorem 10(1): ξ²/(2σ₂²) + β²/(4σ₃²) + √(ξ²/σ₂² + β²/(2σ₃^p))√(2 log(1/δ)).

    p = 2 (verified) or 3 (printed, Q2).
    """
    return float(
        xi**2 / (2 * sigma2**2)
        + beta**2 / (4 * sigma3**2)
        + math.sqrt(xi**2 / sigma2**2 + beta**2 / (2 * sigma3**sigma3_power)) * math.sqrt(2 * math.log(1 / delta))
    )


def theorem10_pdp_epsilon(f1, f2, xnorm, sigma2, sigma3, delta) -> np.ndarray:
    """Theorem 10(2): the joint pDP of (J^P, Ĥ) for z: η² = f'²‖x‖²/σ₂² + f''²‖x‖⁴/(2σ₃²), ε = η²/2 + η√(2 log(1/δ))."""
    eta2 = f1**2 * xnorm**2 / sigma2**2 + f2**2 * xnorm**4 / (2 * sigma3**2)
    return _classical(eta2, np.sqrt(eta2), math.log(1 / delta))


def theorem11_epsilon(f2, xnorm, sigma4, delta) -> np.ndarray:
    """Theorem 11 (Algorithm 3): f''²‖x‖⁴/(2σ₄²) + f''‖x‖²√(2 log(1/δ))/σ₄ (β in place of f''‖x‖²: the DP bound)."""
    s = f2 * xnorm**2 / sigma4
    return _classical(s**2, s, math.log(1 / delta))


def theorem14_epsilon(grad_norm, sigma2, delta, log_form: str = "1/delta") -> np.ndarray:
    """Theorem 14(1): ‖∇ℓ‖²/(2σ₂²) + ‖∇ℓ‖√(2 log(1/δ))/σ₂ (Algorithm 5 prints log(2/δ), Q34)."""
    L = math.log(1 / delta) if log_form == "1/delta" else math.log(2 / delta)
    s = grad_norm / sigma2
    return _classical(s**2, s, L)


def theorem14_ex_post_epsilon(grad_norm, sigma2, rho) -> np.ndarray:
    """Theorem 14(2): ex-post pDP ‖∇ℓ‖²/(2σ₂²) + ‖∇ℓ‖√(2 log(2/ρ))/σ₂, w.p. ≥ 1 − ρ."""
    s = grad_norm / sigma2
    return _classical(s**2, s, math.log(2 / rho))


def theorem17_pdp_epsilon(f2, xnorm, sigma3, delta) -> np.ndarray:
    """Theorem 17 for H_x = f''xxᵀ: ‖H_x‖_F²/(4σ₃²) + ‖H_x‖_F√(2 log(1/δ))/(√2σ₃), ‖H_x‖_F = f''‖x‖²."""
    s = f2 * xnorm**2 / (math.sqrt(2) * sigma3)
    return _classical(s**2, s, math.log(1 / delta))


def corollary16_sigma(epsilon: float, delta: float, rho_max: float) -> float:
    """Corollary 16: σ = (ρ_max/ε)√(2 log(1.25/δ)) (the classical calibration; ρ_max = sup‖H_x‖_F, Q30)."""
    return rho_max / epsilon * math.sqrt(2 * math.log(1.25 / delta))


def corollary16_epsilon(f2, xnorm, epsilon, delta, rho_max) -> np.ndarray:
    """Corollary 16: ε²f''²‖x‖⁴/(8ρ_max² log(1.25/δ)) + εf''‖x‖²/(ρ_max√2)."""
    F = f2 * xnorm**2
    return epsilon**2 * F**2 / (8 * rho_max**2 * math.log(1.25 / delta)) + epsilon * F / (rho_max * math.sqrt(2))


def exact_gaussian_epsilon(eta, delta: float) -> np.ndarray:
    """Exact (analytic, Balle & Wang 2018) ε at δ of a Gaussian mechanism whose whitened shift has norm η."""
    eta = np.atleast_1d(np.asarray(eta, dtype=float))
    keys = np.round(eta, 12)
    unique, inverse = np.unique(keys, return_inverse=True)
    values = np.array([g.analytic_epsilon(delta, 1.0, float(e)) if e > 0 else 0.0 for e in unique])
    return values[inverse.reshape(-1)].reshape(eta.shape)


def validity_upper_bound(cal: ReportCalibration) -> float | None:
    """A closed-form upper bound on P[ε₁ > ε̄₁ᴾ] for a fixed z, from the events each proof conditions on.

    ε₁ = |A + B + C| ≤ |A| + B + |C| and ε̄₁ᴾ bounds the three terms separately, so the report fails only if one
    of its confidence statements fails: |bᵀx| > σ‖x‖q (probability exactly ρ, bᵀx ~ N(0, σ²‖x‖²)), |eᵀx| > σ₂‖x‖q
    (exactly ρ), or the leverage bound (Prop. 21: P[‖N‖₂ > λ/2]; Prop. 12: ρ + P[‖N‖₂ > τσ₃]).  ``None`` where no
    such bound holds (a printed reading, λ below its requirement, or more gradient noise than the report assumes).
    """
    s3 = cal.sigma3 * cal.noise_scale3
    if cal.noise_scale2 > 1:  # more gradient noise than the report assumes: |eᵀx| > σ₂‖x‖q is no longer a ρ-event
        return None
    if cal.mode == "independent":
        return cal.rho
    if cal.mode == "dependent":
        if cal.lam < cal.lambda_requirement or cal.readings.tau != "algorithm6":
            return None
        return 2 * cal.rho + 1 - goe.spectral_norm_probability_bounds(cal.d, cal.lam / 2, s3)[0]
    if cal.readings.lambda_hat != "shifted" or cal.readings.tau != "algorithm6":
        return None
    return 2 * cal.rho + 1 - goe.spectral_norm_probability_bounds(cal.d, cal.tau_sigma3, s3)[0]
