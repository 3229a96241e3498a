"""The options of ``pdp-audit run objpert``, declared once: the loss, the claim, the data source, the calibration
and the budgets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    PAPER_CLAIMS,
    POSITIVE,
    RHO,
    SCALE,
    SEED_OPTION,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)
from pdp_audit.verify.inputs.datasets import check_width

if TYPE_CHECKING:
    from pdp_audit.mechanisms.losses import GLMLoss

LOSSES = ("logistic", "squared", "huber")
Reading = Literal["printed", "variance"]  # of Theorem 5's σ (ledger Q1)
READINGS: tuple[Reading, ...] = ("printed", "variance")
#: Default Monte Carlo budget (releases per world) of the full DP audits; --trials overrides it.
DEFAULT_TRIALS = 100_000
#: Releases from D used to rank the candidate neighbours before the full audit.
DEFAULT_SEARCH_TRIALS = 4000
DEFAULT_SYNTHETIC = (200, 2)


#: The most features of ``--synthetic`` (d), and of ``--data``.
MAX_SYNTHETIC_D = 100


def data_features(dataset):
    """The feature columns X of ``--data``'s table: all but the last (the label) without ``--target-column``."""
    return dataset.features[:, :-1] if dataset.target is None else dataset.features


def check_data_width(path: str, dataset) -> None:
    """``--data``'s feature columns (θ's coordinates) at most :data:`MAX_SYNTHETIC_D` (InputError)."""
    check_width(path, data_features(dataset), MAX_SYNTHETIC_D)


def _synthetic_size(size: tuple[int, int]) -> str | None:
    n, d = size
    if 2 <= n <= 100_000 and 1 <= d <= MAX_SYNTHETIC_D:
        return None
    return f"needs 2 <= n <= 100000 and 1 <= d <= {MAX_SYNTHETIC_D}"


@dataclass(frozen=True)
class ObjPertAuditConfig(AuditConfig):
    """The options of one ``pdp-audit run objpert`` (claim, loss, data source, calibration and budgets)."""

    loss: str = option(
        Option(
            "loss",
            "str",
            "logistic",
            "loss ℓ(θ; (x, y)): logistic (y = ±1), squared (y − xᵀθ)² or huber (pseudo-Huber of width "
            "--huber-kappa) (default: logistic)",
            choices=LOSSES,
        )
    )
    huber_kappa: float = option(
        Option(
            "huber_kappa",
            "float",
            1.0,
            "width κ of the pseudo-Huber loss; its gradient bound ξ = κ (default: 1)",
            range=POSITIVE,
        )
    )
    epsilon: float = option(CLAIM_EPSILON)
    delta: float = option(CLAIM_DELTA)
    lam: float | None = option(
        Option(
            "lam",
            "float",
            None,
            "ridge parameter λ > 0 (default: Theorem 5's 2β/ε, = 1/(2ε) for logistic); no built-in loss is strongly "
            "convex in θ: the ridge term λ‖θ‖²/2 makes θ ↦ b(θ) a bijection",
            range=SCALE,
        )
    )
    sigma: float | None = option(
        Option(
            "sigma",
            "float",
            None,
            "noise scale σ of the released mechanism (its DP: the dp-* checks; Theorem 5's readings become paper "
            "findings)",
            range=SCALE,
        )
    )
    calibration: Reading = option(
        Option(
            "calibration",
            "str",
            "variance",
            "which reading of Theorem 5's σ (ledger Q1) the released mechanism uses; its DP is a guarantee, the other "
            "reading's a paper finding (--paper-claims) (default: variance)",
            choices=READINGS,
        )
    )
    theta_radius: float | None = option(
        Option(
            "theta_radius",
            "float",
            None,
            "radius R with ‖θ‖ ≤ R behind ξ = 2(1 + R) of the squared loss",
            range=POSITIVE,
        )
    )
    data: str | None = option(
        Option(
            "data",
            "str",
            None,
            "your own numeric CSV with a header row; rows must lie in the unit ball (or --normalize-rows)",
            group="data",
        )
    )
    target_column: str | None = option(
        Option("target_column", "str", None, "CSV label column (default: the last column)")
    )
    synthetic: tuple[int, int] | None = option(
        Option(
            "synthetic",
            "size",
            None,
            "synthetic data: N rows uniform in the unit ball of R^D, [RW] Fig. 1's generator "
            f"(default: {DEFAULT_SYNTHETIC[0]},{DEFAULT_SYNTHETIC[1]})",
            check=_synthetic_size,
            group="data",
            metavar="N,D",
        )
    )
    dataset: str | None = option(
        Option(
            "dataset",
            "str",
            None,
            "shipped data set (z-scored, rows scaled to unit norm)",
            choices=("breast-cancer",),
            group="data",
        )
    )
    normalize_rows: bool = option(
        Option(
            "normalize_rows",
            "bool",
            False,
            "scale every data row to unit L2 norm (else rows outside the unit ball are an error)",
        )
    )
    rho: float = option(
        Option("rho", "float", 0.05, "failure probability ρ of Theorem 9's bounds (default: 0.05)", range=RHO)
    )
    trials: int = option(TRIALS_OPTION, default=DEFAULT_TRIALS, range=Range(1000, 1e8))
    search_trials: int = option(
        Option(
            "search_trials",
            "int",
            DEFAULT_SEARCH_TRIALS,
            f"releases from D that rank the candidate worst neighbours (default: {DEFAULT_SEARCH_TRIALS})",
            range=Range(200, 1e6),
            table="audit",
        )
    )
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    paper_claims: bool = option(PAPER_CLAIMS)

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.sigma is not None and self.calibration != "variance":
            raise names.error(f"give one of {names.sigma} and {names.calibration}, not both")
        if self.loss == "squared" and self.theta_radius is None and self.sigma is None:
            raise names.error(
                f"{names.loss} squared: Theorem 5 needs a gradient bound ξ, infinite for the squared loss on R^d; "
                f"give {names.theta_radius} R (ξ = 2(1 + R)) or {names.sigma}"
            )
        if self.target_column is not None and self.data is None:
            raise names.error(f"{names.target_column} applies to {names.data} only")

    def loss_object(self) -> GLMLoss:
        """The loss object named by ``loss`` (pseudo-Huber of width ``huber_kappa`` for ``huber``)."""
        # deferred: loads pdp_audit.mechanisms.losses; run --help must not
        from pdp_audit.mechanisms.losses import GLMLoss, PseudoHuberLoss, get_loss  # scipy: not for every parser

        loss = PseudoHuberLoss(self.huber_kappa) if self.loss == "huber" else get_loss(self.loss)
        assert isinstance(loss, GLMLoss)  # every name of LOSSES is a GLM loss
        return loss
