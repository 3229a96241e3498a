"""The privately published privacy report for objective perturbation on GLMs ([RW] §3.3, App. C, E).

After ObjPert ([RW] Algorithm 1) releases θ̂ᴾ, every individual z = (x, y) wants her ex-post pDP
ε₁(θ̂ᴾ, D, D±z) (exact for GLMs: [RW] Corollary 7).  It depends on the data through the leverage
μ(x) = xᵀH⁻¹x (H = ∇²J(θ̂ᴾ; D)) and through ∇J(θ̂ᴾ; D) = −b, so it cannot be published as is
([RW] Example 4).  The report publishes a *function* ε̃(z) that anyone evaluates on her own data:

* **Algorithm 2, data-independent** (``mode="independent"``): μ̄ = ‖x‖²/λ ([RW] Thm 8) and
  ḡ = σ|f'|‖x‖Φ⁻¹(1 − ρ/2) ([RW] Thm 9, GLM form) -- no further privacy cost.
* **Algorithm 2, data-dependent** (``"dependent"``): releases J^P = ∇J(θ̂ᴾ; D) + N(0, σ₂²I)
  (Algorithm 5) and Ĥ = H + σ₃(Z + Zᵀ)/√2 (Algorithm 6); μ̄ = min{(3/2)xᵀĤ⁻¹x, ‖x‖²/λ} (Prop. 21, Q26) and
  ḡ = min{|f'(J^P)ᵀx| + σ₂|f'|‖x‖Φ⁻¹(1 − ρ/2), σ|f'|‖x‖Φ⁻¹(1 − ρ/2)}.
* **Algorithm 4, adaptive** (``"adaptive"``): also releases λ̂ = λ_min(H) + N(0, σ₄²) (Algorithm 3),
  shifts it to a lower confidence bound, and uses the standard or the regularised leverage estimate of
  Proposition 12; ḡ = |f'(J^P)ᵀx| + σ₂|f'|‖x‖Φ⁻¹(1 − ρ/2) (no minimum); any λ is allowed.

In all modes ε̄₁ᴾ(z) = |log(1 − f''μ̄(x))| + ‖f'x‖²/(2σ²) + |ḡ(z)|/σ², with f', f'' at xᵀθ̂ᴾ.
Proposition 15's *uniform* report (all n users simultaneously) replaces Φ⁻¹(1 − ρ/2) by the
union-bound quantile Φ⁻¹(1 − ρ/(4n)) (``uniform_users=n``).

Printed versus verified forms (ledger Q entries; each has a flag in :class:`Readings`, default verified):

* Q2  Theorem 10(1): σ₃³ printed, σ₃² verified (a Gaussian composition; ``dp_sigma3_power``).
* Q3  λ condition with σ₂ (Prop. 21, Thm 10) or σ₃ (Algorithm 2's Require; the noise of Ĥ has σ₃);
      ``lambda_condition``, default σ₃.
* Q4  τ: the (1 − ρ/2)-quantile of λ_max((Z + Zᵀ)/√2) (exact, :func:`pdp_audit.mechanisms.goe.tau`), or the
      printed reading "τ ≈ 12 at d = 50", i.e. the quantile of Chiani's unit GOE (Z + Zᵀ)/2, which is
      smaller by √2; ``tau``, default ``"algorithm6"``.
* Q25 ḡ: printed f'(J^P)ᵀx + σ₂|f'|‖x‖Φ⁻¹ (signed, not a bound on |∇Jᵀ∇ℓ|) versus the absolute
      value; ``gradient``, default ``"absolute"``.
* Q26 μ̄ of Algorithm 2: printed (3/2)xᵀĤ⁻¹x; the proof of Thm 10 uses a pointwise minimum with
      ‖x‖²/λ (both valid upper bounds; the minimum is what makes f''μ̄ ≤ β/λ); ``leverage_minimum``,
      default True.  Where Ĥ is not positive definite, xᵀĤ⁻¹x is no bound and counts as +∞.
* Q28 λ̂ in Prop 12's ratios: the shifted lower bound max{λ, λ̂ − σ₄Φ⁻¹} (the proof's) or the raw
      release; ``lambda_hat``, default ``"shifted"``.
* Q34 ε₂ with √(2 log(1/δ)) (Thm 14) or √(2 log(2/δ)) (Algorithm 5); ``epsilon2_log``.
* Q24 Thm 10(3)'s additive term: the statement's |f'|‖x‖√(2 log(2/ρ))/σ₂ or the proof's
      min{σ, σ₂}|f'|‖x‖√(2 log(2/ρ))/σ²; ``additive`` (default: statement).

The calibration (:mod:`pdp_audit.mechanisms.privacy_report.calibration`) and the closed forms of the report and its
statements (:mod:`pdp_audit.mechanisms.privacy_report.bounds`) live in their own modules; their public names stay
importable from here, the mechanism's entry point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdp_audit.mechanisms.analyze_gauss import vech
from pdp_audit.mechanisms.base import RegisteredMechanism, World, check_world
from pdp_audit.mechanisms.objpert import mechanism as op
from pdp_audit.mechanisms.privacy_report.bounds import (
    corollary16_epsilon,
    corollary16_sigma,
    exact_gaussian_epsilon,
    gbar_dependent,
    gbar_independent,
    lambda_hat_shifted,
    log_term,
    mu_bar_adaptive,
    mu_bar_dependent,
    objpert_epsilon,
    proposition15_additive,
    proposition15_l1_term,
    proposition15_quantile,
    report_epsilon1,
    theorem10_additive,
    theorem10_dp_epsilon,
    theorem10_pdp_epsilon,
    theorem11_epsilon,
    theorem13_constant,
    theorem14_epsilon,
    theorem14_ex_post_epsilon,
    theorem17_pdp_epsilon,
    validity_upper_bound,
)
from pdp_audit.mechanisms.privacy_report.calibration import (
    BUDGET_SIZES,
    MODES,
    CalibrationChoices,
    Mode,
    Readings,
    ReportCalibration,
    calibrate,
    classical_sigma,
    exact_tau,
    glm_loss,
    implied_theorem10_constant,
    normal_quantile,
    parse_budget,
    tau_for,
)
from pdp_audit.verify.inputs.validation import InputError, positive, probability

# The calibration's and the closed forms' public names stay importable from here (the mechanism's entry point).
__all__ = [
    "BUDGET_SIZES",
    "MODES",
    "CalibrationChoices",
    "Mode",
    "Readings",
    "ReportCalibration",
    "calibrate",
    "classical_sigma",
    "corollary16_epsilon",
    "corollary16_sigma",
    "exact_gaussian_epsilon",
    "exact_tau",
    "gbar_dependent",
    "gbar_independent",
    "glm_loss",
    "implied_theorem10_constant",
    "lambda_hat_shifted",
    "log_term",
    "mu_bar_adaptive",
    "mu_bar_dependent",
    "normal_quantile",
    "objpert_epsilon",
    "parse_budget",
    "proposition15_additive",
    "proposition15_l1_term",
    "proposition15_quantile",
    "report_epsilon1",
    "tau_for",
    "theorem10_additive",
    "theorem10_dp_epsilon",
    "theorem10_pdp_epsilon",
    "theorem11_epsilon",
    "theorem13_constant",
    "theorem14_epsilon",
    "theorem14_ex_post_epsilon",
    "theorem17_pdp_epsilon",
    "validity_upper_bound",
]


# --------------------------------------------------------------------------------------------
# the released report: a function anyone evaluates on her own data
# --------------------------------------------------------------------------------------------
@dataclass
class ReportValues:
    epsilon1: np.ndarray  # ε̄₁ᴾ(z): bound on ObjPert's ex-post pDP
    epsilon2: np.ndarray  # pDP of the gradient release (Theorem 14), 0 if not released
    epsilon3: np.ndarray  # pDP of the Hessian release (Theorem 17), 0 if not released
    epsilon4: np.ndarray  # pDP of the λ_min release (Theorem 11), 0 if not released
    joint23: np.ndarray  # Theorem 10(2): the joint pDP of the gradient and Hessian releases
    mu_bar: np.ndarray
    gbar: np.ndarray

    @property
    def overhead(self) -> np.ndarray:
        """ε₂ + ε₃ + ε₄: the report's own pDP cost by basic composition (Algorithm 4's second output)."""
        return self.epsilon2 + self.epsilon3 + self.epsilon4


@dataclass
class PrivacyReport:
    """The published report: θ̂ᴾ, the releases of the mode, and the calibration (all public).

    ``report(x, y)`` evaluates ε̃ for rows ``x`` (n, d) with labels ``y`` -- vectorised.
    ``uniform_users = n`` makes it Proposition 15's uniform report (valid for n users at once).
    """

    calibration: ReportCalibration
    theta: np.ndarray
    gradient_release: np.ndarray | None = None  # J^P (Algorithm 5)
    hessian_release: np.ndarray | None = None  # Ĥ (Algorithm 6)
    lambda_min_release: float | None = None  # raw λ̂ (Algorithm 3)
    uniform_users: int | None = None

    def __post_init__(self):
        self.loss = glm_loss(self.calibration.loss)
        if self.hessian_release is not None:
            self._mu_hat = _quadratic_inverse_operator(self.hessian_release)
            if self.calibration.mode == "adaptive":
                d = self.hessian_release.shape[0]
                self._mu_reg = _quadratic_inverse_operator(
                    self.hessian_release + self.calibration.tau_sigma3 * np.eye(d)
                )

    @property
    def quantile(self) -> float:
        rho = self.calibration.rho
        return normal_quantile(rho) if self.uniform_users is None else proposition15_quantile(rho, self.uniform_users)

    def lambda_hat(self) -> float:
        cal = self.calibration
        raw = self.lambda_min_release
        if raw is None:
            raise InputError("lambda_min_release: the adaptive report needs the released λ_min (Algorithm 3), got None")
        if cal.readings.lambda_hat == "raw":
            return float(raw)
        return float(lambda_hat_shifted(raw, cal.lam, cal.sigma4, cal.rho))

    def __call__(self, x, y, delta: float | None = None) -> ReportValues:
        cal = self.calibration
        x = np.atleast_2d(np.asarray(x, dtype=float))
        y = np.atleast_1d(np.asarray(y, dtype=float))
        if x.shape[1] != cal.d or y.shape != (x.shape[0],):
            raise InputError(f"x must be (rows, {cal.d}) and y (rows,), got {x.shape} and {y.shape}")
        self.loss.check_labels(y)
        delta = cal.delta if delta is None else probability("delta", delta)
        t = x @ self.theta
        f1, f2 = self.loss.f1(t, y), self.loss.f2(t, y)
        xnorm2 = np.einsum("ij,ij->i", x, x)
        xnorm = np.sqrt(xnorm2)
        q = self.quantile
        zero = np.zeros(x.shape[0])
        e2 = e3 = e4 = joint = zero
        if cal.mode == "independent":
            mu_bar = xnorm2 / cal.lam
            gbar = gbar_independent(f1, xnorm, cal.sigma, q)
        else:
            gbar = gbar_dependent(
                f1,
                x @ self.gradient_release,
                xnorm,
                cal.sigma,
                cal.sigma2,
                q,
                cal.readings.gradient,
                with_independent=cal.mode == "dependent",
            )
            mu_hat = self._mu_hat(x)
            if cal.mode == "dependent":
                mu_bar = mu_bar_dependent(mu_hat, xnorm2, cal.lam, cal.readings.leverage_minimum)
            else:
                mu_bar = mu_bar_adaptive(mu_hat, self._mu_reg(x), xnorm2, self.lambda_hat(), cal.tau_sigma3)
                e4 = theorem11_epsilon(f2, xnorm, cal.sigma4, delta)
            e2 = theorem14_epsilon(np.abs(f1) * xnorm, cal.sigma2, delta, cal.readings.epsilon2_log)
            e3 = theorem17_pdp_epsilon(f2, xnorm, cal.sigma3, delta)
            joint = theorem10_pdp_epsilon(f1, f2, xnorm, cal.sigma2, cal.sigma3, delta)
        eps1 = report_epsilon1(log_term(f2, mu_bar), f1, xnorm2, gbar, cal.sigma)
        return ReportValues(eps1, e2, e3, e4, joint, mu_bar, gbar)


def _quadratic_inverse_operator(A: np.ndarray):
    """x ↦ xᵀA⁻¹x for rows x, +∞ for every x if A is not positive definite (then it bounds nothing)."""
    A = (A + A.T) / 2
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return lambda x: np.full(np.atleast_2d(x).shape[0], np.inf)
    Linv = np.linalg.inv(L)
    return lambda x: np.sum((np.atleast_2d(x) @ Linv.T) ** 2, axis=1)


#: Matrices of a stacked draw of :func:`goe_noise` symmetrised together: Z and the result stay in the L2 cache.
_GOE_STEP = 8


def goe_noise(d: int, sigma3: float, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Algorithm 6's noise σ₃(Z + Zᵀ)/√2, all d² entries of Z drawn.  A stack is drawn :data:`_GOE_STEP` matrices at
    a time: the generator's stream, and so the matrices, are the same as in one draw of the whole stack."""
    if size is None:
        return _symmetrised(rng.standard_normal((d, d)), sigma3, np.empty((d, d)))
    noise = np.empty((size, d, d))
    for lo in range(0, size, _GOE_STEP):
        z = rng.standard_normal((min(_GOE_STEP, size - lo), d, d))
        _symmetrised(z, sigma3, noise[lo : lo + _GOE_STEP])
    return noise


def _symmetrised(z: np.ndarray, sigma3: float, out: np.ndarray) -> np.ndarray:
    """σ₃(Z + Zᵀ)/√2 into ``out``, in place: the same products as the formula, without two more temporaries."""
    np.add(z, np.swapaxes(z, -1, -2), out=out)
    out *= sigma3
    out /= math.sqrt(2.0)
    return out


@dataclass
class Release:
    """One run of the whole pipeline on a dataset: the public report and the private internals."""

    report: PrivacyReport
    b: np.ndarray  # ObjPert noise (private)
    hessian: np.ndarray  # H = ∇²J(θ̂ᴾ; D) (private)
    noise: np.ndarray | None = None  # Ĥ − H
    gradient_noise: np.ndarray | None = None  # J^P − ∇J(θ̂ᴾ; D)

    def exact_epsilon1(self, x, y, member=True) -> np.ndarray:
        """The true ex-post pDP ε₁ of ObjPert (Corollary 7) for rows x (``member``: z ∈ D, a removal)."""
        cal = self.report.calibration
        x = np.atleast_2d(np.asarray(x, dtype=float))
        t = x @ self.report.theta
        f = self.report.loss
        f1, f2 = f.f1(t, np.asarray(y, float)), f.f2(t, np.asarray(y, float))
        mu = np.einsum("ij,ij->i", x, np.linalg.solve(self.hessian, x.T).T)
        return objpert_epsilon(f1, f2, np.einsum("ij,ij->i", x, x), x @ self.b, mu, cal.sigma, member)


def release(
    X: np.ndarray,
    y: np.ndarray,
    cal: ReportCalibration,
    rng: np.random.Generator,
    *,
    uniform_users: int | None = None,
    rtol: float = 1e-10,
) -> Release:
    """Run ObjPert and the report's releases once (noise drawn in the order b, Z, e, λ-noise)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    if X.shape[1] != cal.d:
        raise InputError(f"X must have d = {cal.d} columns, got {X.shape[1]}")
    b = cal.sigma * rng.standard_normal((1, cal.d))
    pair = op.ObjPertPair(
        X, y, X[0], y[0], relation="remove", mechanism=op.ObjPertMechanism(cal.lam, cal.sigma, cal.loss), rtol=rtol
    )
    theta = pair.release_from_noise("D", b)
    H = pair.obj_d.hessian(theta)[0]
    report = PrivacyReport(cal, theta[0], uniform_users=uniform_users)
    out = Release(report, b[0], H)
    if cal.mode == "independent":
        return out
    N = goe_noise(cal.d, cal.sigma3 * cal.noise_scale3, rng)
    e = cal.sigma2 * cal.noise_scale2 * rng.standard_normal(cal.d)
    report.gradient_release = b[0] * -1.0 + e  # ∇J(θ̂ᴾ; D) = −b at the minimiser
    report.hessian_release = H + N
    if cal.mode == "adaptive":
        report.lambda_min_release = float(np.linalg.eigvalsh(H)[0] + cal.sigma4 * rng.standard_normal())
    report.__post_init__()
    out.noise, out.gradient_noise = N, e
    return out


# --------------------------------------------------------------------------------------------
# the report's own releases as a neighbouring pair (for the DP / pDP accounting checks)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReleasedStatistic:
    """One statistic the report releases with Gaussian noise, on the pair (D, D±z): its ``value`` on D (the gradient
    g, a vector, or the Hessian h, a matrix), the ``change`` z makes to it (g_z = ∇ℓ(θ̂ᴾ; z) or h_z = ∇²ℓ(θ̂ᴾ; z), added
    on D ∪ {z} and subtracted on D \\ {z}) and its noise scale ``sigma`` (σ₂ of J^P, σ₃ of Ĥ)."""

    value: np.ndarray
    change: np.ndarray
    sigma: float | None


@dataclass(frozen=True)
class ReleasedLambdaMin:
    """Algorithm 3's release λ̂ = λ_min + N(0, σ₄²) on the pair: ``values`` = (λ_min(H(D)), λ_min(H(D'))) and its
    noise scale ``sigma`` (σ₄)."""

    values: tuple[float, float]
    sigma: float | None


class ReportReleasePair:
    """The report's releases given θ̂ᴾ, on (D, D±z): [J^P | vech Ĥ | λ̂] (any subset of the three).

    * J^P = g + N(0, σ₂²I)                 (Algorithm 5; g = ∇J(θ̂ᴾ; D), g' = g ± ∇ℓ(θ̂ᴾ; z))
    * Ĥ   = h + σ₃(Z + Zᵀ)/√2, as vech     (Algorithm 6; h' = h ± ∇²ℓ(θ̂ᴾ; z)); Z drawn literally (all d²)
    * λ̂   = λ_min + N(0, σ₄²)             (Algorithm 3; ``lambda_min.values = (λ_min(H(D)), λ_min(H(D')))``)

    ``privacy_loss`` is computed from the two output densities (independent Gaussian coordinates:
    σ₂; √2σ₃ on the diagonal and σ₃ off it; σ₄).  Noise-level view for rare-event tails.
    """

    def __init__(
        self,
        *,
        gradient: ReleasedStatistic | None = None,
        hessian: ReleasedStatistic | None = None,
        lambda_min: ReleasedLambdaMin | None = None,
        relation: str = "add",
    ):
        if relation not in ("add", "remove"):
            raise InputError(f"relation must be 'add' or 'remove', got {relation!r}")
        sign = 1.0 if relation == "add" else -1.0
        self.relation = relation
        means: dict[str, list] = {"D": [], "D'": []}
        sds = []
        self.parts: list[tuple[str, int]] = []
        if gradient is not None:
            g, g_z = np.asarray(gradient.value, float).reshape(-1), np.asarray(gradient.change, float).reshape(-1)
            self.sigma2 = positive("sigma2", gradient.sigma)
            means["D"].append(g)
            means["D'"].append(g + sign * g_z)
            sds.append(np.full(g.size, self.sigma2))
            self.parts.append(("gradient", g.size))
        if hessian is not None:
            h, h_z = np.asarray(hessian.value, float), np.asarray(hessian.change, float)
            self.k = h.shape[0]
            self.sigma3 = positive("sigma3", hessian.sigma)
            means["D"].append(vech(h))
            means["D'"].append(vech(h + sign * h_z))
            rows, cols = np.triu_indices(self.k)
            sds.append(np.where(rows == cols, math.sqrt(2.0), 1.0) * self.sigma3)
            self.parts.append(("hessian", self.k * (self.k + 1) // 2))
        if lambda_min is not None:
            self.sigma4 = positive("sigma4", lambda_min.sigma)
            means["D"].append(np.array([float(lambda_min.values[0])]))
            means["D'"].append(np.array([float(lambda_min.values[1])]))
            sds.append(np.array([self.sigma4]))
            self.parts.append(("lambda_min", 1))
        if not self.parts:
            raise InputError("ReportReleasePair needs at least one release (gradient, hessian or lambda_min)")
        self._means = {w: np.concatenate(v) for w, v in means.items()}
        self.noise_sd = np.concatenate(sds)
        self.output_dim = self.noise_dim = int(self.noise_sd.size)
        self.noise_sigma = self.noise_sd

    @property
    def eta(self) -> float:
        """Whitened shift ‖(m_D − m_D')/sd‖: the privacy loss is N(η²/2, η²) under D."""
        return float(np.linalg.norm((self._means["D"] - self._means["D'"]) / self.noise_sd))

    def mean(self, world: World) -> np.ndarray:
        return self._means[check_world(world)]

    def _noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        out = []
        for name, dim in self.parts:
            if name == "gradient":
                out.append(self.sigma2 * rng.standard_normal((size, dim)))
            elif name == "hessian":
                out.append(vech(goe_noise(self.k, self.sigma3, rng, size)))
            else:
                out.append(self.sigma4 * rng.standard_normal((size, 1)))
        return np.concatenate(out, axis=1)

    def sample(self, world: World, size: int, rng: np.random.Generator) -> np.ndarray:
        if size < 0:
            raise InputError(f"size must be >= 0, got {size}")
        return self.mean(world) + self._noise(int(size), rng)

    def release_from_noise(self, world: World, noise: np.ndarray) -> np.ndarray:
        return self.mean(world) + np.asarray(noise, dtype=float)

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        """log p_D(o) − log p_D'(o) of the two diagonal Gaussians (factored: no large cancellations)."""
        o = np.atleast_2d(np.asarray(outputs, dtype=float))
        if o.shape[-1] != self.output_dim:
            raise InputError(f"outputs must have {self.output_dim} columns, got {o.shape[-1]}")
        m, mp = self._means["D"], self._means["D'"]
        return ((m - mp) * (2 * o - m - mp) / (2 * self.noise_sd**2)).sum(axis=-1)


def individual_pair(
    gradient_norm: float,
    hessian_norm: float,
    *,
    sigma2: float | None = None,
    sigma3: float | None = None,
    sigma4: float | None = None,
    lambda_min: tuple[float, float] | None = None,
    k: int = 2,
    relation: str = "remove",
) -> ReportReleasePair:
    """The report's releases for one individual in k dimensions: ∇ℓ = ‖∇ℓ‖e₁, ∇²ℓ = ‖∇²ℓ‖_F e₁e₁ᵀ.

    The privacy loss of J^P and Ĥ depends on z only through ‖∇ℓ‖ and ‖∇²ℓ‖_F (a rotation maps any GLM
    individual, ∇ℓ = f'x and ∇²ℓ = f''xxᵀ, to this one), so k ≪ d loses nothing; h = 10·I (+ her own term if
    she is in D) stands for H, whose value cancels.  ``sigma2``/``sigma3``/``lambda_min`` select the releases.
    """
    gz = np.zeros(k)
    gz[0] = gradient_norm
    hz = np.zeros((k, k))
    hz[0, 0] = hessian_norm
    h = 10.0 * np.eye(k) + (hz if relation == "remove" else 0.0)
    return ReportReleasePair(
        gradient=ReleasedStatistic(np.zeros(k), gz, sigma2) if sigma2 is not None else None,
        hessian=ReleasedStatistic(h, hz, sigma3) if sigma3 is not None else None,
        lambda_min=ReleasedLambdaMin(lambda_min, sigma4) if lambda_min is not None else None,
        relation=relation,
    )


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def synthetic_logistic(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """[RW] §4.1 (K18): xᵢ, θ₀ ~ N(0, I_d), rows scaled to ‖xᵢ‖ = 1; labels ±1 with P(y = 1) = s(xᵀθ₀)
    (the paper rescales real y = Xθ to [0, 1]; how it makes binary labels is not stated, Q39)."""
    if int(n) < 1 or int(d) < 1:
        raise InputError(f"need n >= 1 and d >= 1, got n={n!r}, d={d!r}")
    X = rng.standard_normal((int(n), int(d)))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    theta0 = rng.standard_normal(int(d))
    y = np.where(rng.random(int(n)) < 1 / (1 + np.exp(-X @ theta0)), 1.0, -1.0)
    return X, y


# --------------------------------------------------------------------------------------------
# registration (the releases given θ̂ᴾ form a Gaussian pair; the contract suite checks the density)
# --------------------------------------------------------------------------------------------
def _example_pairs(rng: np.random.Generator) -> list[ReportReleasePair]:
    x = rng.standard_normal(3)
    x /= np.linalg.norm(x)
    h = np.diag([2.0, 3.0, 4.0]) + np.outer(x, x)
    gz, hz = 0.4 * x, 0.2 * np.outer(x, x)
    hessian = ReleasedStatistic(h, hz, 0.5)
    lambda_min = ReleasedLambdaMin((float(np.linalg.eigvalsh(h)[0]), float(np.linalg.eigvalsh(h - hz)[0])), 0.3)
    return [
        ReportReleasePair(gradient=ReleasedStatistic(rng.standard_normal(3), gz, 0.8), hessian=hessian, relation="add"),
        ReportReleasePair(
            gradient=ReleasedStatistic(rng.standard_normal(3), gz, 0.8),
            hessian=hessian,
            lambda_min=lambda_min,
            relation="remove",
        ),
        ReportReleasePair(
            gradient=ReleasedStatistic(rng.standard_normal(2), np.array([0.5, -0.2]), 0.6), relation="remove"
        ),
    ]


PRIVACY_REPORT = RegisteredMechanism(
    name="privacy-report",
    description="[RW] Algorithms 2-5: the privacy report's releases given θ̂ᴾ (J^P, GOE Ĥ, λ̂_min), "
    "exact Gaussian density",
    example_pairs=_example_pairs,
)
