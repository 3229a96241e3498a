"""The constants of one privacy-report pipeline: budgets, readings of the printed formulas, τ, noise scales, λ.

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
from typing import TYPE_CHECKING, Literal

from pdp_audit.mechanisms import goe
from pdp_audit.verify.inputs.validation import InputError, positive, probability

if TYPE_CHECKING:  # at run time imported where they are used: the privacy report's config imports this module
    from pdp_audit.mechanisms.losses import GLMLoss

Mode = Literal["independent", "dependent", "adaptive"]
MODES: tuple[str, ...] = ("independent", "dependent", "adaptive")
BUDGET_SIZES = {"independent": 1, "dependent": 3, "adaptive": 4}


def glm_loss(loss) -> GLMLoss:
    """The GLM loss named (or given) by ``loss``; InputError for a loss that is not ℓ = f(xᵀθ; y)."""
    # deferred: loads pdp_audit.mechanisms.losses; run --help must not
    from pdp_audit.mechanisms.losses import GLMLoss, get_loss

    loss = get_loss(loss)
    if not isinstance(loss, GLMLoss):
        raise InputError(f"the privacy report is for GLM losses (ℓ = f(xᵀθ; y)), got {loss!r}")
    return loss


def normal_quantile(rho: float) -> float:
    """Φ⁻¹(1 − ρ/2): the two-sided Gaussian quantile used throughout Algorithms 2, 4 and 5."""
    from scipy import stats  # scipy where it is used: the privacy report's config imports this module

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


@dataclass(frozen=True)
class CalibrationChoices:
    """How :func:`calibrate` sets what the budget leaves open (defaults: the paper's pipeline).

    ``lam``: the ridge λ, fixed; else ``lambda_inflation`` × Theorem 5's 2β/ε₁; else (both None) Theorem 5's value,
    raised to Algorithm 2's requirement 2σ₃τ in the data-dependent mode.  ``rule``: ``"analytic"`` noise scales
    (Balle & Wang; the paper's experiments) or ``"classical"`` (the theorems' own bounds inverted).  ``readings``: the
    forms of the ambiguous printed formulas.  ``noise_scale2`` / ``noise_scale3``: the noise the gradient and Hessian
    releases actually add, as a multiple of σ₂ and σ₃ (1: correct; below 1: a broken release).
    """

    lam: float | None = None
    lambda_inflation: float | None = None
    rule: str = "analytic"
    readings: Readings = field(default_factory=Readings)
    noise_scale2: float = 1.0
    noise_scale3: float = 1.0


def calibrate(
    mode: str,
    budget: tuple[float, ...] | str,
    d: int,
    delta: float,
    rho: float,
    loss: str = "logistic",
    choices: CalibrationChoices = CalibrationChoices(),
) -> ReportCalibration:
    """Noise scales and λ of ObjPert and of the report for a budget (ε₁[, ε₂, ε₃[, ε₄]]), set as ``choices`` says.

    λ: ``choices.lam`` if given; else ``choices.lambda_inflation`` × Theorem 5's 2β/ε₁; else Theorem 5's value, raised
    to Algorithm 2's requirement 2σ₃τ in the data-dependent mode ("the λ-inflation enforced by Algorithm 2",
    [RW] Fig. 2).  ``choices.rule``: ``"analytic"`` (Balle & Wang; the paper's experiments) or ``"classical"``
    (the theorems' own bounds inverted).
    """
    # deferred: loads pdp_audit.mechanisms.gaussian; run --help must not
    from pdp_audit.mechanisms import gaussian as g
    from pdp_audit.mechanisms.objpert import mechanism as op

    lam, lambda_inflation, rule, readings = choices.lam, choices.lambda_inflation, choices.rule, choices.readings
    noise_scale2, noise_scale3 = choices.noise_scale2, choices.noise_scale3
    budget = parse_budget(budget, mode)
    readings.validate()
    if isinstance(d, bool) or int(d) != d or d < 1:
        raise InputError(f"d must be an integer >= 1, got {d!r}")
    d = int(d)
    delta, rho = probability("--claim-delta", delta), probability("--rho", rho)
    if rule not in ("analytic", "classical"):
        raise InputError(f"calibration rule must be 'analytic' or 'classical', got {rule!r}")
    f = glm_loss(loss)
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
