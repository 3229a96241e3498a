"""The pDP and DP statements of [PDP] §2–4 for ridge regression as printed, and the exact privacy profiles
they are audited against.

* [PDP] Lemma 2.4, eq. (3.3) and eq. (3.4) (output perturbation), Theorem 4.1, Remark 4.2 and
  Proposition 4.3 (OPS): the closed forms exactly as printed (the findings they lead to are in the
  claims ledger, :mod:`pdp_audit.ledger.entries`);
* derived exact values the printed ones are compared with (:func:`ops_mse_exact`, :func:`ops_gap_exact`);
* exact privacy profiles: the Gaussian mechanism (Balle & Wang 2018, Thm 8) and OPS through the scalar
  ``y_z - x^Tθ`` (:func:`ops_exact_delta`).

Conventions (base ``Z = (X, y)`` without the target ``z = (x, y_z)``) as in
:mod:`pdp_audit.mechanisms.linreg.mechanism`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg, optimize, special

from pdp_audit.mechanisms.linreg.mechanism import check_delta, gram, ridge
from pdp_audit.verify.inputs.validation import InputError
from pdp_audit.verify.inputs.validation import nonnegative as check_nonnegative
from pdp_audit.verify.inputs.validation import positive as check_positive

# --- closed forms: [PDP] §2–3 --------------------------------------------------------------------


def lemma24_epsilon(sensitivity_A: float, gamma: float, delta: float) -> float:
    """[PDP] Lemma 2.4 as printed: ``ε(Z, z) = γ Δ_A(Z, z) sqrt(log(1.25/δ))`` for noise ``N(0, A^{-1}/γ)`` (Q8)."""
    return (
        check_positive("gamma", gamma)
        * check_nonnegative("sensitivity_A", sensitivity_A)
        * np.sqrt(np.log(1.25 / check_delta(delta)))
    )


def eq33_epsilon(grad: np.ndarray, H: np.ndarray, A: np.ndarray, delta: float) -> float:
    """[PDP] eq. (3.3) as printed (no γ, Q8): ``sqrt(∇ℓ(θ̂', z)^T H^{-1} A H^{-1} ∇ℓ(θ̂', z) log(1.25/δ))``,
    ``H`` the integrated Hessian of Lemma 3.1."""
    v = linalg.solve(H, grad)
    return float(np.sqrt(v @ A @ v * np.log(1.25 / check_delta(delta))))


def eq34_sensitivity(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, A: np.ndarray, lam: float = 0.0, line: int = 2
) -> float:
    """[PDP] eq. (3.4) (ridge penalty ``λ`` added to both Gram matrices), with ``θ̂'`` fitted on ``[Z, z]``:

    ``line=1``: ``|y - x^Tθ̂'| sqrt(x^T (X'^T X')^{-1} A (X'^T X')^{-1} x)`` (``X' = [X; x^T]``; Q9);
    ``line=2``: ``|y - x^Tθ̂'| sqrt(x^T (X^T X)^{-1} A (X^T X)^{-1} x)``.
    """
    if line not in (1, 2):
        raise InputError(f"line must be 1 or 2, got {line}")
    Xp, yp = np.vstack([X, x]), np.append(y, yz)
    resid = abs(yz - x @ ridge(Xp, yp, lam))
    v = linalg.solve(gram(Xp if line == 1 else X, lam), x, assume_a="pos")
    return float(resid * np.sqrt(v @ A @ v))


# --- closed forms: [PDP] §4 (OPS) ----------------------------------------------------------------


def leverages(X: np.ndarray, x: np.ndarray, lam: float = 0.0) -> tuple[float, float]:
    """[PDP] Thm 4.1's ``μ = x^T(X^TX + λI)^{-1}x`` (without z) and ``μ' = x^T(X'^TX' + λI)^{-1}x`` (with z)."""
    mu = float(x @ linalg.solve(gram(X, lam), x, assume_a="pos"))
    return mu, mu / (1.0 + mu)  # Sherman–Morrison: μ' = μ/(1+μ)


def ops_residuals(X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, lam: float = 0.0) -> tuple[float, float]:
    """``(y_z - x^Tθ̂, y_z - x^Tθ̂')`` with ``θ̂`` the ridge fit on ``Z``, ``θ̂'`` on ``[Z, z]``."""
    return float(yz - x @ ridge(X, y, lam)), float(yz - x @ ridge(np.vstack([X, x]), np.append(y, yz), lam))


def thm41_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float, form: str = "4.3"
) -> float:
    """[PDP] Theorem 4.1 as printed ((4.3) = [LR] (16), (4.4) = [LR] (17)); ``(X, y)`` is ``Z`` without z.

    (4.3): ``½|-log(1+μ) + γμ/(1+μ) r^2| + (μ/2)log(2/δ) + sqrt(γμ log(2/δ)) |r|``, ``r = y_z - x^Tθ̂``;
    (4.4): ``½|-log(1-μ') - γμ'/(1-μ') r'^2| + (μ'/2)log(2/δ) + sqrt(γμ' log(2/δ)) |r'|``, ``r' = y_z - x^Tθ̂'``.
    """
    gamma, delta = check_positive("gamma", gamma), check_delta(delta)
    mu, mu_p = leverages(X, x, lam)
    r, r_p = ops_residuals(X, y, x, yz, lam)
    ld = np.log(2.0 / delta)
    if form == "4.3":
        return (
            0.5 * abs(-np.log1p(mu) + gamma * mu / (1 + mu) * r**2) + 0.5 * mu * ld + np.sqrt(gamma * mu * ld) * abs(r)
        )
    if form == "4.4":
        return (
            0.5 * abs(-np.log1p(-mu_p) - gamma * mu_p / (1 - mu_p) * r_p**2)
            + 0.5 * mu_p * ld
            + np.sqrt(gamma * mu_p * ld) * abs(r_p)
        )
    raise InputError(f"form must be '4.3' or '4.4', got {form!r}")


def remark42_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float
) -> float:
    """[PDP] Remark 4.2 as printed (Q19, residual at ``θ̂'`` with ``μ``):
    ``(μ/2)(1 + log(2/δ)) + ½γ min(μ, 1) r'^2 + sqrt(γμ log(2/δ)) |r'|``."""
    gamma, delta = check_positive("gamma", gamma), check_delta(delta)
    mu, _ = leverages(X, x, lam)
    _, r_p = ops_residuals(X, y, x, yz, lam)
    ld = np.log(2.0 / delta)
    return 0.5 * mu * (1 + ld) + 0.5 * gamma * min(mu, 1.0) * r_p**2 + np.sqrt(gamma * mu * ld) * abs(r_p)


def prop43_pdp_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float
) -> float:
    """[PDP] Proposition 4.3(1), eq. (4.5) as printed (third term carries ``γ_n``, Q13), ``λ_min = λ_min(X^TX)``:
    ``sqrt(γ log(2/δ)/(λ+λ_min)) |r| + γ r^2/(2 max(λ+λ_min, 1)) + γ(1 + log(2/δ))/(2(λ+λ_min))``."""
    gamma, delta = check_positive("gamma", gamma), check_delta(delta)
    s = check_nonnegative("lam", lam) + np.linalg.eigvalsh(X.T @ X)[0]
    r, _ = ops_residuals(X, y, x, yz, lam)
    ld = np.log(2.0 / delta)
    return np.sqrt(gamma * ld / s) * abs(r) + gamma * r**2 / (2 * max(s, 1.0)) + gamma * (1 + ld) / (2 * s)


def prop43_dp_epsilon(n: int, gamma: float, lam: float, delta: float) -> float:
    """[PDP] Proposition 4.3(1), eq. (4.6) as printed (domain ``||x|| <= 1, |y| < 1``):
    ``sqrt(2(n+λ)γ log(2/δ)/λ^2) + 2(n+λ)γ/(λ max(1, λ)) + γ(1 + log(2/δ))/(2λ)``."""
    gamma, lam, delta = check_positive("gamma", gamma), check_positive("lam", lam), check_delta(delta)
    ld = np.log(2.0 / delta)
    return (
        np.sqrt(2 * (n + lam) * gamma * ld / lam**2)
        + 2 * (n + lam) * gamma / (lam * max(1.0, lam))
        + gamma * (1 + ld) / (2 * lam)
    )


def prop43_sup_residual(n: int, lam: float, printed: bool = True) -> float:
    """[PDP] Prop. 4.3(1): ``sup |y - x^Tθ̂| = 1 + sqrt(n/λ)`` (statement) or ``1 + sqrt(n)/(2 sqrt(λ))``
    (proof) (Q13)."""
    lam = check_positive("lam", lam)
    return 1.0 + (np.sqrt(n / lam) if printed else np.sqrt(n) / (2.0 * np.sqrt(lam)))


def prop43_mse_printed(X: np.ndarray, theta0: np.ndarray, sigma: float, gamma: float, lam: float) -> float:
    """[PDP] Prop. 4.3(3) as printed:
    ``E||θ̃ - θ0||^2 = σ^2 tr[(X^TX+λI)^{-1}](1 + 1/γ) + λ^2 ||(X^TX+λI)^{-1}θ0||^2``."""
    G = gram(X, lam)
    return float(
        sigma**2 * np.trace(np.linalg.inv(G)) * (1 + 1 / gamma) + lam**2 * np.sum(linalg.solve(G, theta0) ** 2)
    )


def ops_mse_exact(X: np.ndarray, theta0: np.ndarray, sigma: float, gamma: float, lam: float) -> float:
    """Exact ``E||θ̃ - θ0||^2`` of OPS when ``y ~ N(Xθ0, σ^2 I)`` (derived: bias + ridge variance + OPS noise):
    ``σ^2 tr(G^{-1}X^TX G^{-1}) + tr(G^{-1})/γ + λ^2||G^{-1}θ0||^2``, ``G = X^TX + λI``."""
    G = gram(X, lam)
    Gi = np.linalg.inv(G)
    return float(sigma**2 * np.trace(Gi @ X.T @ X @ Gi) + np.trace(Gi) / gamma + lam**2 * np.sum((Gi @ theta0) ** 2))


def prop43_objective(X: np.ndarray, y: np.ndarray, theta: np.ndarray, lam: float) -> np.ndarray:
    """[PDP] Prop. 4.3(4)'s ``F(θ) = 0.5||y - Xθ||^2 + λ||θ||^2`` (row-wise for a batch of θ)."""
    theta = np.atleast_2d(theta)
    res = y[None, :] - theta @ X.T
    return 0.5 * np.sum(res**2, axis=1) + lam * np.sum(theta**2, axis=1)


def prop43_gap_printed(d: int, gamma: float) -> float:
    """[PDP] Prop. 4.3(4) as printed: ``E F(θ̃) - F(θ̂) = d/γ``."""
    return d / check_positive("gamma", gamma)


def ops_gap_exact(X: np.ndarray, y: np.ndarray, gamma: float, lam: float) -> float:
    """Exact ``E F(θ̃) - F(θ̂)`` for OPS(γ, λ) and Prop. 4.3(4)'s ``F`` (derived):
    ``½ tr(K G^{-1})/γ + ½||θ̂_λ - θ̂||_K^2``, ``K = X^TX + 2λI`` (Hessian of F), ``G = X^TX + λI``,
    ``θ̂ = K^{-1}X^Ty`` (argmin F).  Equals ``d/(2γ)`` when ``λ = 0`` (Q16)."""
    K, G = gram(X, 2 * lam), gram(X, lam)
    diff = ridge(X, y, lam) - ridge(X, y, 2 * lam)
    return float(0.5 * np.trace(linalg.solve(G, K)) / gamma + 0.5 * diff @ K @ diff)


# --- exact privacy profiles ----------------------------------------------------------------------


def _prob_outside(c: float, m: float, v: float) -> float:
    """``P(s^2 > c)`` for ``s ~ N(m, v)``."""
    if c <= 0:
        return 1.0
    r, sd = np.sqrt(c), np.sqrt(v)
    return float(special.ndtr((m - r) / sd) + special.ndtr((-r - m) / sd))


def ops_exact_delta(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, eps: float
) -> tuple[float, float]:
    """Exact hockey-stick divergences of OPS between ``P = OPS(Z)`` and ``Q = OPS([Z, z])``:
    ``(δ_{P||Q}(ε), δ_{Q||P}(ε))``; the pair is ``(ε, max)``-pDP in the sense of [PDP] Def. 2.2.

    Why exact: ``L = log p/q`` depends on ``θ`` only through ``s = y_z - x^Tθ`` (the two precisions
    differ by ``γ x x^T``): ``L = -½log(1+μ) + (γ/2)(s^2 - r^2/(1+μ))``, and ``s ~ N(r, μ/γ)`` under P,
    ``N(r', μ'/γ)`` under Q.  So ``{L > ε}`` and ``{-L > ε}`` are (complements of) intervals in ``s``
    and ``δ_{P||Q}(ε) = P(L > ε) - e^ε Q(L > ε)`` is a difference of normal probabilities.
    """
    gamma, eps = check_positive("gamma", gamma), check_nonnegative("eps", eps)
    mu, mu_p = leverages(X, x, lam)
    r, r_p = ops_residuals(X, y, x, yz, lam)
    base = r**2 / (1 + mu)
    c_up = 2 / gamma * (eps + 0.5 * np.log1p(mu)) + base
    fwd = _prob_outside(c_up, r, mu / gamma) - np.exp(eps) * _prob_outside(c_up, r_p, mu_p / gamma)
    c_lo = 2 / gamma * (-eps + 0.5 * np.log1p(mu)) + base
    bwd = 0.0
    if c_lo > 0:
        inside_q, inside_p = 1 - _prob_outside(c_lo, r_p, mu_p / gamma), 1 - _prob_outside(c_lo, r, mu / gamma)
        bwd = inside_q - np.exp(eps) * inside_p
    return max(float(fwd), 0.0), max(float(bwd), 0.0)


def ops_exact_epsilon(
    X: np.ndarray, y: np.ndarray, x: np.ndarray, yz: float, gamma: float, lam: float, delta: float
) -> float:
    """Smallest ``ε`` at which OPS is ``(ε, δ)``-pDP for ``(Z, z)`` (both directions), by bisection on the
    exact profile of :func:`ops_exact_delta`."""
    delta = check_delta(delta)

    def excess(e: float) -> float:
        return max(ops_exact_delta(X, y, x, yz, gamma, lam, e)) - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-12, rtol=1e-12))


def ridge_global_sensitivity(n: int, lam: float) -> float:
    """Global L2 sensitivity bound of the ridge estimate on the unit domain ``||x|| <= 1, |y| <= 1``:
    ``Δ <= (1 + sqrt(n)/(2 sqrt(λ)))/λ``, since ``θ̂ - θ̂' = (X^TX + xx^T + λI)^{-1} x (y - x^Tθ̂)`` with
    ``||(·)^{-1}x|| <= 1/λ`` and ``|y - x^Tθ̂| <= 1 + ||θ̂|| <= 1 + sqrt(n)/(2 sqrt(λ))`` (derived)."""
    return (1 + math.sqrt(n) / (2 * math.sqrt(lam))) / lam
