"""The (ε, δ)-DP calibrations of OPS in [LR]: Remark 11's bound, Appendix F's Lipschitz constant and its
four calibrations (diffuse, concentrated, balanced, conservative), and the constant C1 of [LR] (18)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize

from pdp_audit.mechanisms.linreg.mechanism import check_delta
from pdp_audit.verify.inputs.validation import InputError
from pdp_audit.verify.inputs.validation import positive as check_positive

# --- [LR] Remark 11 and Appendix F calibrations -------------------------------------------------


def remark11_epsilon(gamma: float, L: float, lam: float, lam_min: float, x_bound: float, delta: float) -> float:
    """[LR] Remark 11: OPS(λ, γ) is ``(ε, δ)``-pDP for all targets with
    ``ε = sqrt(γ L^2 log(2/δ)/(λ+λ_min)) + γL^2/(2(λ+λ_min+||X||^2)) + (1+log(2/δ))||X||^2/(2(λ+λ_min))``."""
    s = lam + lam_min
    if not s > 0:
        raise InputError(f"lam + lam_min must be > 0, got {s}")
    ld = np.log(2.0 / check_delta(delta))
    return float(
        np.sqrt(gamma * L**2 * ld / s) + gamma * L**2 / (2 * (s + x_bound**2)) + (1 + ld) * x_bound**2 / (2 * s)
    )


def appF_lipschitz(lam: float, n: int, x_bound: float = 1.0, y_bound: float = 1.0) -> float:
    """[LR] App. F: ``L(λ) = ||X|| ||Y|| (sqrt(n)||X||/sqrt(2λ) + 1)`` (from bound (23))."""
    return x_bound * y_bound * (np.sqrt(n) * x_bound / np.sqrt(2 * check_positive("lam", lam)) + 1.0)


def lr_C1(eps: float, delta: float, rho: float, d: int, log_arg: float = 2.0) -> float:
    """[LR] (18): ``C1 = [d/2 + sqrt(d log(1/ϱ)) + log(1/ϱ)] log(log_arg/δ)/ε^2`` (AdaOPS step 4 uses
    ``log_arg = 6``)."""
    lr = np.log(1.0 / check_delta(rho, "rho"))
    return (d / 2 + np.sqrt(d * lr) + lr) * np.log(log_arg / check_delta(delta)) / check_positive("eps", eps) ** 2


def _solve_gamma(eps: float, lam: float, n: int, x_bound: float, y_bound: float, delta: float) -> float:
    """The γ making the App. F condition an equality at ``λ`` (quadratic in ``sqrt(γ)``)."""
    L, ld = appF_lipschitz(lam, n, x_bound, y_bound), np.log(2.0 / delta)
    rem = eps - (1 + ld) * x_bound**2 / (2 * lam)
    if rem <= 0:
        raise InputError(f"lam = {lam} too small for eps = {eps}: need lam > (1+log(2/δ))||X||^2/(2ε)")
    a, b = np.sqrt(L**2 * ld / lam), L**2 / (2 * (lam + x_bound**2))
    u = 2 * rem / (a + np.sqrt(a * a + 4 * b * rem))  # positive root of b u^2 + a u - rem, cancellation-free
    return float(u * u)


OPSCalibration = Literal["diffuse", "concentrated", "balanced", "conservative"]


@dataclass(frozen=True)
class RowBounds:
    """What a calibration assumes of every row (x, y) of the data: ``‖x‖ ≤ x_bound`` and ``|y| ≤ y_bound``."""

    x_bound: float = 1.0
    y_bound: float = 1.0


def ops_calibration(
    method: OPSCalibration,
    eps: float,
    delta: float,
    n: int,
    d: int,
    bounds: RowBounds = RowBounds(),
    rho: float = 0.05,
    B: float = 1.0,
) -> tuple[float, float]:
    """``(λ, γ)`` of the four (ε, δ)-DP calibrations of OPS in [LR] Appendix F for ``n`` rows within ``bounds``
    (``||X||``, ``||Y||`` below), each making :func:`appF_epsilon` equal to ``ε`` (the printed "ε ≤ bound" is read as
    "bound ≤ ε", Q46).

    * diffuse: ``λ = (1 + log(2/δ))||X||^2/ε``, calibrate γ;
    * concentrated: ``γ = 1``, calibrate λ;
    * balanced: ``λ = argmin_{λ >= λ_diffuse} C1(min(ε, sqrt ε), δ, ϱ, d) L(λ)^2/λ + λB^2`` (24), γ as diffuse;
    * conservative (our reading of item 4): ``L(λ) <= ||X||(||X|| ||θ*|| + ||Y||)`` makes the bound
      ``(||θ*|| + ||Y||/||X||)^2 [C1 ||X||^4/λ + λ]``, minimised at ``λ = sqrt(C1)||X||^2`` (floored at λ_diffuse).
    """
    x_bound, y_bound = bounds.x_bound, bounds.y_bound
    eps, delta = check_positive("eps", eps), check_delta(delta)
    lam_diffuse = (1 + np.log(2 / delta)) * x_bound**2 / eps
    if method == "diffuse":
        lam = lam_diffuse
    elif method == "concentrated":
        f = lambda lg: appF_epsilon(1.0, float(np.exp(lg)), n, delta, x_bound, y_bound) - eps  # noqa: E731
        lo, hi = np.log(lam_diffuse / 2), np.log(lam_diffuse)
        while f(hi) > 0:
            hi += 1.0
        return float(np.exp(optimize.brentq(f, lo, hi, xtol=1e-13))), 1.0
    elif method in ("balanced", "conservative"):
        C1 = lr_C1(min(eps, np.sqrt(eps)), delta, rho, d)
        if method == "conservative":
            lam = max(np.sqrt(C1) * x_bound**2, lam_diffuse)
        else:
            obj = lambda lg: C1 * appF_lipschitz(np.exp(lg), n, x_bound, y_bound) ** 2 / np.exp(lg) + np.exp(lg) * B**2  # noqa: E731
            res = optimize.minimize_scalar(
                obj, bounds=(np.log(lam_diffuse), np.log(lam_diffuse) + 60), method="bounded", options={"xatol": 1e-10}
            )
            lam = max(float(np.exp(res.x)), lam_diffuse)
    else:
        raise InputError(f"method must be one of diffuse, concentrated, balanced, conservative; got {method!r}")
    return float(lam), _solve_gamma(eps, lam, n, x_bound, y_bound, delta)


def appF_epsilon(gamma: float, lam: float, n: int, delta: float, x_bound: float = 1.0, y_bound: float = 1.0) -> float:
    """[LR] App. F's DP bound: Remark 11 with ``L = L(λ)`` and ``λ_min = 0``."""
    return remark11_epsilon(gamma, appF_lipschitz(lam, n, x_bound, y_bound), lam, 0.0, x_bound, delta)
