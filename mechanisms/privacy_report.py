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

Printed versus verified forms (THEORY.md §5; each has a flag in :class:`Readings`, default verified):

* Q2  Theorem 10(1): σ₃³ printed, σ₃² verified (a Gaussian composition; ``dp_sigma3_power``).
* Q3  λ condition with σ₂ (Prop. 21, Thm 10) or σ₃ (Algorithm 2's Require; the noise of Ĥ has σ₃);
      ``lambda_condition``, default σ₃.
* Q4  τ: the (1 − ρ/2)-quantile of λ_max((Z + Zᵀ)/√2) (exact, :func:`mechanisms.goe.tau`), or the
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

Theorem 10's universal constant C: we use the sufficient condition of its proof, λ ≥ 2σ₃τ with the exact
τ (Algorithm 2's Require) together with λ > 2β; :func:`implied_theorem10_constant` gives the C this
corresponds to in the printed form λ > Cσ₂√d(1 + log(1/ρ)^{2/3}).

Calibration ([RW] §4.2): σ, λ by Theorem 5 (σ read as a standard deviation, Q1); σ₂, σ₃, σ₄ by the
analytic Gaussian mechanism (Balle & Wang 2018) at the sensitivities ξ (gradient), β/√2 (Algorithm 6 in
whitened coordinates, Thm 17's proof) and β (λ_min, Weyl), or by inverting the papers' classical bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats

from mechanisms import gaussian as g
from mechanisms import goe
from mechanisms import objpert as op
from mechanisms.analyze_gauss import vech
from mechanisms.base import RegisteredMechanism, World, check_world
from mechanisms.losses import GLMLoss, get_loss
from mechanisms.validation import InputError, positive, probability

Mode = Literal["independent", "dependent", "adaptive"]
MODES: tuple[str, ...] = ("independent", "dependent", "adaptive")
BUDGET_SIZES = {"independent": 1, "dependent": 3, "adaptive": 4}


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def _glm(loss) -> GLMLoss:
    loss = get_loss(loss)
    if not isinstance(loss, GLMLoss):
        raise InputError(f"the privacy report is for GLM losses (ℓ = f(xᵀθ; y)), got {loss!r}")
    return loss


def normal_quantile(rho: float) -> float:
    """Φ⁻¹(1 − ρ/2): the two-sided Gaussian quantile used throughout Algorithms 2, 4 and 5."""
    return float(stats.norm.isf(probability("rho", rho) / 2))


# --------------------------------------------------------------------------------------------
# printed versus verified readings
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Readings:
    """Which form of each ambiguous printed formula to use (defaults: the verified forms)."""

    dp_sigma3_power: int = 2  # Q2: 3 as printed in Theorem 10(1)
    lambda_condition: str = "sigma3"  # Q3: "sigma2" as printed in Prop 21 / Theorem 10
    tau: str = "algorithm6"  # Q4: "unit-goe" = the quantile of (Z + Zᵀ)/2, the printed "12 at d = 50"
    gradient: str = "absolute"  # Q25: "printed" = signed f'(J^P)ᵀx + ...
    leverage_minimum: bool = True  # Q26: False = Algorithm 2's μ̄ = (3/2)xᵀĤ⁻¹x without the minimum
    lambda_hat: str = "shifted"  # Q28: "raw" = the released λ̂ itself in Prop 12's ratios
    epsilon2_log: str = "1/delta"  # Q34: "2/delta" as in Algorithm 5
    additive: str = "statement"  # Q24: "proof" = min{σ, σ₂}|f'|‖x‖√(2 log(2/ρ))/σ²

    def validate(self) -> None:
        allowed = {
            "dp_sigma3_power": (2, 3),
            "lambda_condition": ("sigma3", "sigma2"),
            "tau": ("algorithm6", "unit-goe"),
            "gradient": ("absolute", "printed"),
            "leverage_minimum": (True, False),
            "lambda_hat": ("shifted", "raw"),
            "epsilon2_log": ("1/delta", "2/delta"),
            "additive": ("statement", "proof"),
        }
        for name, options in allowed.items():
            if getattr(self, name) not in options:
                raise InputError(f"reading {name} must be one of {options}, got {getattr(self, name)!r}")

    def deviations(self) -> dict[str, object]:
        """The readings that differ from the verified defaults."""
        default = Readings()
        return {k: v for k, v in self.__dict__.items() if getattr(default, k) != v}


# --------------------------------------------------------------------------------------------
# τ (Lemma 20) and calibration
# --------------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def exact_tau(d: int, rho: float) -> float:
    """τ with P[λ_max((Z + Zᵀ)/√2) ≤ τ] = 1 − ρ/2 (unit σ₃; exact for d ≤ 100, Tracy–Widom above)."""
    return goe.tau(int(d), float(rho)).tau


def tau_for(d: int, rho: float, reading: str = "algorithm6") -> float:
    """τ at σ₃ = 1 under the chosen reading of Q4 (``"unit-goe"``: the exact value / √2)."""
    t = exact_tau(d, rho)
    if reading == "algorithm6":
        return t
    if reading == "unit-goe":
        return t / math.sqrt(2.0)
    raise InputError(f"tau reading must be 'algorithm6' or 'unit-goe', got {reading!r}")


def classical_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """s solving Δ²/(2s²) + Δ√(2 log(1/δ))/s = ε: the inverse of the papers' classical Gaussian bound
    (Theorems 11, 14, 17 all have this form in whitened units)."""
    L = math.log(1 / delta)
    return sensitivity / (math.sqrt(2 * L + 2 * epsilon) - math.sqrt(2 * L))


def parse_budget(text: str | tuple | list, mode: str) -> tuple[float, ...]:
    """``"0.2,0.7,0.1"`` → (0.2, 0.7, 0.1); one number per release of the mode, each finite and > 0."""
    if mode not in MODES:
        raise InputError(f"--mode must be one of {MODES}, got {mode!r}")
    parts = [p.strip() for p in text.split(",")] if isinstance(text, str) else list(text)
    want = BUDGET_SIZES[mode]
    if len(parts) != want:
        names = ", ".join(f"ε{i + 1}" for i in range(want))
        raise InputError(
            f"--budget must have {want} comma-separated value(s) ({names}) for --mode {mode}, got {text!r}"
        )
    out = []
    for i, p in enumerate(parts):
        try:
            v = float(p)
        except (TypeError, ValueError):
            raise InputError(f"--budget entry ε{i + 1} must be a number, got {p!r}") from None
        if not (math.isfinite(v) and v > 0):
            raise InputError(f"--budget entry ε{i + 1} must be a finite number > 0, got {p!r}")
        out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class ReportCalibration:
    """Every constant of one privacy-report pipeline (ObjPert + report), fixed before seeing data."""

    mode: str
    d: int
    budget: tuple[float, ...]
    delta: float
    rho: float
    sigma: float  # ObjPert noise (Theorem 5, σ read as a standard deviation)
    lam: float  # ridge λ actually used
    lam_objpert: float  # Theorem 5's 2β/ε₁
    sigma2: float  # Algorithm 5 (∞ if not released)
    sigma3: float  # Algorithm 6 (∞ if not released)
    sigma4: float  # Algorithm 3 (∞ if not released)
    tau: float  # τ at σ₃ = 1 under readings.tau
    xi: float
    beta: float
    loss: str = "logistic"
    rule: str = "analytic"
    readings: Readings = field(default_factory=Readings)
    # noise actually added, as a multiple of the calibrated scale (1 = correct; < 1 = a broken release)
    noise_scale2: float = 1.0
    noise_scale3: float = 1.0

    @property
    def epsilon1(self) -> float:
        return self.budget[0]

    @property
    def tau_sigma3(self) -> float:
        return self.tau * self.sigma3

    @property
    def exact_tau(self) -> float:
        return exact_tau(self.d, self.rho)

    @property
    def lambda_requirement(self) -> float:
        """Algorithm 2's Require λ ≥ 2σ₃τ (σ₂ under the printed reading of Q3); 0 where nothing is required."""
        if self.mode != "dependent":
            return 0.0
        s = self.sigma3 if self.readings.lambda_condition == "sigma3" else self.sigma2
        return 2.0 * s * self.tau

    @property
    def theorem13_requirement(self) -> float:
        """Theorem 13's λ_min(H) ≥ max{2β, 2τσ₃}."""
        return max(2 * self.beta, 2 * self.tau_sigma3)

    def as_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "readings"}
        out["readings"] = dict(self.readings.__dict__)
        out["tau_sigma3"] = self.tau_sigma3
        out["lambda_requirement"] = self.lambda_requirement
        return out


def calibrate(
    mode: str,
    budget: tuple[float, ...] | str,
    d: int,
    delta: float,
    rho: float,
    loss: str = "logistic",
    lam: float | None = None,
    lambda_inflation: float | None = None,
    rule: str = "analytic",
    readings: Readings = Readings(),
    noise_scale2: float = 1.0,
    noise_scale3: float = 1.0,
) -> ReportCalibration:
    """Noise scales and λ of ObjPert and of the report for a budget (ε₁[, ε₂, ε₃[, ε₄]]).

    λ: ``lam`` if given; else ``lambda_inflation`` × Theorem 5's 2β/ε₁; else Theorem 5's value, raised to
    Algorithm 2's requirement 2σ₃τ in the data-dependent mode ("the λ-inflation enforced by Algorithm 2",
    [RW] Fig. 2).  ``rule``: ``"analytic"`` (Balle & Wang; the paper's experiments) or ``"classical"``
    (the theorems' own bounds inverted).
    """
    budget = parse_budget(budget, mode)
    readings.validate()
    if isinstance(d, bool) or int(d) != d or d < 1:
        raise InputError(f"d must be an integer >= 1, got {d!r}")
    d = int(d)
    delta, rho = probability("--claim-delta", delta), probability("--rho", rho)
    if rule not in ("analytic", "classical"):
        raise InputError(f"calibration rule must be 'analytic' or 'classical', got {rule!r}")
    f = _glm(loss)
    sigma, lam_objpert = op.theorem5_calibration(budget[0], delta, f, "variance")
    xi, beta = f.gradient_bound(), f.hessian_bound()

    def scale(eps: float, sens: float) -> float:
        return g.analytic_sigma(eps, delta, sens) if rule == "analytic" else classical_sigma(eps, delta, sens)

    sigma2 = scale(budget[1], xi) if mode != "independent" else math.inf
    sigma3 = scale(budget[2], beta / math.sqrt(2)) if mode != "independent" else math.inf
    sigma4 = scale(budget[3], beta) if mode == "adaptive" else math.inf
    tau = tau_for(d, rho, readings.tau)
    cal = ReportCalibration(
        mode=mode,
        d=d,
        budget=budget,
        delta=delta,
        rho=rho,
        sigma=sigma,
        lam=lam_objpert,
        lam_objpert=lam_objpert,
        sigma2=sigma2,
        sigma3=sigma3,
        sigma4=sigma4,
        tau=tau,
        xi=xi,
        beta=beta,
        loss=f.name,
        rule=rule,
        readings=readings,
        noise_scale2=positive("noise_scale2", noise_scale2),
        noise_scale3=positive("noise_scale3", noise_scale3),
    )
    if lam is not None:
        chosen = positive("--lambda", lam)
    elif lambda_inflation is not None:
        chosen = positive("--lambda-inflation", lambda_inflation) * lam_objpert
    else:
        chosen = max(lam_objpert, cal.lambda_requirement)
    return replace(cal, lam=chosen)


def implied_theorem10_constant(cal: ReportCalibration) -> float:
    """The C of Theorem 10's printed condition λ > Cσ₂√d(1 + log(1/ρ)^{2/3}) that our sufficient condition
    λ ≥ 2σ₃τ corresponds to: C = 2σ₃τ / (σ₂√d(1 + log(1/ρ)^{2/3}))."""
    return 2 * cal.tau_sigma3 / (cal.sigma2 * math.sqrt(cal.d) * (1 + math.log(1 / cal.rho) ** (2 / 3)))


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
    """Theorem 10(1): ξ²/(2σ₂²) + β²/(4σ₃²) + √(ξ²/σ₂² + β²/(2σ₃^p))√(2 log(1/δ)), p = 2 (verified) or 3 (printed, Q2)."""
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
        self.loss = _glm(self.calibration.loss)
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
        if cal.readings.lambda_hat == "raw":
            return float(self.lambda_min_release)
        return float(lambda_hat_shifted(self.lambda_min_release, cal.lam, cal.sigma4, cal.rho))

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


def goe_noise(d: int, sigma3: float, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Algorithm 6's noise σ₃(Z + Zᵀ)/√2, all d² entries of Z drawn."""
    shape = (d, d) if size is None else (size, d, d)
    z = rng.standard_normal(shape)
    return sigma3 * (z + np.swapaxes(z, -1, -2)) / math.sqrt(2.0)


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
    pair = op.ObjPertPair(X, y, X[0], y[0], relation="remove", lam=cal.lam, sigma=cal.sigma, loss=cal.loss, rtol=rtol)
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
class ReportReleasePair:
    """The report's releases given θ̂ᴾ, on (D, D±z): [J^P | vech Ĥ | λ̂] (any subset of the three).

    * J^P = g + N(0, σ₂²I)                 (Algorithm 5; g = ∇J(θ̂ᴾ; D), g' = g ± ∇ℓ(θ̂ᴾ; z))
    * Ĥ   = h + σ₃(Z + Zᵀ)/√2, as vech     (Algorithm 6; h' = h ± ∇²ℓ(θ̂ᴾ; z)); Z drawn literally (all d²)
    * λ̂   = λ_min + N(0, σ₄²)             (Algorithm 3; ``lambda_min = (λ_min(H(D)), λ_min(H(D')))``)

    ``privacy_loss`` is computed from the two output densities (independent Gaussian coordinates:
    σ₂; √2σ₃ on the diagonal and σ₃ off it; σ₄).  Noise-level view for rare-event tails.
    """

    def __init__(
        self,
        *,
        g: np.ndarray | None = None,
        g_z: np.ndarray | None = None,
        h: np.ndarray | None = None,
        h_z: np.ndarray | None = None,
        lambda_min: tuple[float, float] | None = None,
        relation: str = "add",
        sigma2: float | None = None,
        sigma3: float | None = None,
        sigma4: float | None = None,
    ):
        if relation not in ("add", "remove"):
            raise InputError(f"relation must be 'add' or 'remove', got {relation!r}")
        sign = 1.0 if relation == "add" else -1.0
        self.relation = relation
        means: dict[str, list] = {"D": [], "D'": []}
        sds = []
        self.parts: list[tuple[str, int]] = []
        if g is not None:
            g, g_z = np.asarray(g, float).reshape(-1), np.asarray(g_z, float).reshape(-1)
            self.sigma2 = positive("sigma2", sigma2)
            means["D"].append(g)
            means["D'"].append(g + sign * g_z)
            sds.append(np.full(g.size, self.sigma2))
            self.parts.append(("gradient", g.size))
        if h is not None:
            h, h_z = np.asarray(h, float), np.asarray(h_z, float)
            self.k = h.shape[0]
            self.sigma3 = positive("sigma3", sigma3)
            means["D"].append(vech(h))
            means["D'"].append(vech(h + sign * h_z))
            rows, cols = np.triu_indices(self.k)
            sds.append(np.where(rows == cols, math.sqrt(2.0), 1.0) * self.sigma3)
            self.parts.append(("hessian", self.k * (self.k + 1) // 2))
        if lambda_min is not None:
            self.sigma4 = positive("sigma4", sigma4)
            means["D"].append(np.array([float(lambda_min[0])]))
            means["D'"].append(np.array([float(lambda_min[1])]))
            sds.append(np.array([self.sigma4]))
            self.parts.append(("lambda_min", 1))
        if not self.parts:
            raise InputError("ReportReleasePair needs at least one release (g, h or lambda_min)")
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
        g=np.zeros(k) if sigma2 is not None else None,
        g_z=gz,
        h=h if sigma3 is not None else None,
        h_z=hz,
        lambda_min=lambda_min,
        relation=relation,
        sigma2=sigma2,
        sigma3=sigma3,
        sigma4=sigma4,
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
    return [
        ReportReleasePair(g=rng.standard_normal(3), g_z=gz, h=h, h_z=hz, relation="add", sigma2=0.8, sigma3=0.5),
        ReportReleasePair(
            g=rng.standard_normal(3),
            g_z=gz,
            h=h,
            h_z=hz,
            relation="remove",
            sigma2=0.8,
            sigma3=0.5,
            sigma4=0.3,
            lambda_min=(float(np.linalg.eigvalsh(h)[0]), float(np.linalg.eigvalsh(h - hz)[0])),
        ),
        ReportReleasePair(g=rng.standard_normal(2), g_z=np.array([0.5, -0.2]), relation="remove", sigma2=0.6),
    ]


PRIVACY_REPORT = RegisteredMechanism(
    name="privacy-report",
    description="[RW] Algorithms 2-5: the privacy report's releases given θ̂ᴾ (J^P, GOE Ĥ, λ̂_min), exact Gaussian density",
    example_pairs=_example_pairs,
    tags=("continuous", "pdp", "report"),
)
