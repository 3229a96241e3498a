"""The options of ``pdp-audit run dp-sgd``, declared once: the claim, the training configuration and the budget."""

from __future__ import annotations

from dataclasses import dataclass

from pdp_audit.mechanisms import accountants
from pdp_audit.mechanisms import subsampled_gaussian as sg
from pdp_audit.mechanisms.subsampled_gaussian import NEIGHBOURS
from pdp_audit.verify.core.config import (
    ALPHA_OPTION,
    CLAIM_DELTA,
    CLAIM_EPSILON,
    PAPER_CLAIMS,
    SEED_OPTION,
    TRIALS,
    TRIALS_OPTION,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)

#: Noise multipliers σ whose T-step losses stay inside double precision (e^{1/(2σ²)} per hit); sample rates q < 1
#: (q = 1 is the Gaussian mechanism, composed: `run gaussian`).
NOISE_MULTIPLIER = Range(0.3, 1e3)
SAMPLE_RATE = Range(0, 1, open_low=True, open_high=True)
STEPS = Range(1, 1e6)
#: The claim's default ε (the default run's exact ε is 1.515).
CLAIM_EPSILON_DEFAULT = 1.6
#: T × trials: the per-step draws of one direction (about 3e6 a second on one core).
MAX_DRAWS = 2e10
#: The exact reference's Hoeffding shift t per unit of max(1, ε): its ε bracket is 2t wide.
REFERENCE_ERROR = 2e-3
#: The most grid points the exact reference's largest array may hold by :meth:`pdp_audit.mechanisms.
#: pld_composition.GridWidth.points` (8 bytes each; σ = 0.3, q = 0.5, T = 100, estimated 2.0e7: 9.1e6 held, 0.9 GB
#: at the peak, 23 s; the default σ and q at T = 1e5, estimated 6.4e7, held 3 GB for 111 s).
MAX_REFERENCE_POINTS = 2e7


@dataclass(frozen=True)
class DpSgdAuditConfig(AuditConfig):
    """The options of ``pdp-audit run dp-sgd``: a DP-SGD run's (σ, q, T), its neighbouring relation, the accountant's
    claim (ε, δ) and the budget.

    Each of T steps samples every record with probability q (Poisson sampling), clips each sampled gradient to L2
    norm C and adds N(0, σ²C²I) to their sum; the audit decides δ(ε) ≤ δ of the T-fold composition of the
    dominating pair (:mod:`pdp_audit.mechanisms.subsampled_gaussian`), both directions.
    """

    epsilon: float = option(
        CLAIM_EPSILON,
        default=CLAIM_EPSILON_DEFAULT,
        help="claimed ε of the whole training run, e.g. an accountant's (default: 1.6; the default run's exact ε is "
        "1.515)",
    )
    delta: float = option(CLAIM_DELTA)
    noise_multiplier: float = option(
        Option(
            "noise_multiplier",
            "float",
            1.1,
            "noise multiplier σ: the noise's standard deviation over the clip norm C (default: 1.1)",
            range=NOISE_MULTIPLIER,
        )
    )
    sample_rate: float = option(
        Option(
            "sample_rate",
            "float",
            0.01,
            "Poisson sample rate q: each record's probability of being in a batch (default: 0.01)",
            range=SAMPLE_RATE,
        )
    )
    steps: int = option(Option("steps", "int", 1000, "number of noisy steps T (default: 1000)", range=STEPS))
    neighbours: str = option(
        Option(
            "neighbours",
            "str",
            "add-remove",
            "neighbouring datasets: one record added or removed, or one record replaced (default: add-remove)",
            choices=NEIGHBOURS,
        )
    )
    accountant: str | None = option(
        Option(
            "accountant",
            "str",
            None,
            "take the claimed ε from this accountant library at --claim-delta (installed separately; instead of "
            "--claim-epsilon; Opacus' accountants: add-remove neighbours only)",
            choices=tuple(accountants.ACCOUNTANTS),
            table="claim",
        )
    )
    trials: int = option(
        TRIALS_OPTION,
        default=20_000,
        help="T-step privacy losses sampled per direction (default: 2e4)",
        range=TRIALS,
    )
    seed: int = option(SEED_OPTION)
    alpha: float = option(ALPHA_OPTION)
    paper_claims: bool = option(
        PAPER_CLAIMS, help="also report the exact-reference finding: the FFT composition's bracket on the exact ε"
    )

    def check(self, names: OptionNames) -> None:
        """The rules between options (each option's own range is checked where it is declared)."""
        if self.accountant is not None:
            if self.epsilon != CLAIM_EPSILON_DEFAULT:
                raise names.error(f"give one of {names.epsilon} and {names.accountant}, not both")
            reason = accountants.unaccounted(self.accountant, self.neighbours)
            if reason is not None:
                raise names.error(
                    f"{names.accountant} {self.accountant} {reason}: give {names.epsilon} or dp-accounting-pld instead"
                )
            if not accountants.available(self.accountant):
                raise names.error(f"{names.accountant} {self.accountant} {accountants.missing(self.accountant)}")
        if self.steps * self.trials > MAX_DRAWS:
            raise names.error(
                f"{names.steps} × {names.trials} must be at most {MAX_DRAWS:.0e} per-step draws (hours of sampling), "
                f"got {self.steps * self.trials:.3g}"
            )
        self._check_reference_size(names)

    def _check_reference_size(self, names: OptionNames) -> None:
        """The exact reference's grid (:func:`pdp_audit.mechanisms.pld_composition.composed_profile`) holds at most
        :data:`MAX_REFERENCE_POINTS` points: its size grows with T and with the step's spread (small σ, large q),
        and beyond memory it died with a MemoryError after minutes.  Estimated before any work (milliseconds)."""
        # deferred: loads scipy; run --help must not
        from pdp_audit.mechanisms import pld_composition as pld
        pair = sg.SubsampledGaussian(self.noise_multiplier, self.sample_rate, self.neighbours)
        # an accountant's ε is known only when the run asks it: the finest grid (ε ≤ 1) is the largest
        error = REFERENCE_ERROR * (1.0 if self.accountant is not None else max(1.0, self.epsilon))
        laws = [sg.StepLossLaw(pair, direction) for direction in sg.DIRECTIONS]
        widths = [pld.grid_width(pld.LossLaw(law.cdf, law.support)) for law in laws]
        points = max(width.points(self.steps, error) for width in widths)
        if points <= MAX_REFERENCE_POINTS:
            return
        largest = min(width.max_steps(error, MAX_REFERENCE_POINTS) for width in widths)  # ≥ 1 over the ranges
        where = (
            f"for {names.noise_multiplier} {self.noise_multiplier:g}, {names.sample_rate} {self.sample_rate:g} and "
            f"{names.neighbours} {self.neighbours}"
        )
        why = (
            f"the exact reference's grid would hold about {points:.2g} points (at most {MAX_REFERENCE_POINTS:.0e}, "
            "about 1 GB)"
        )
        raise names.error(f"{names.steps} must be at most {largest:,} {where}: {why}, got {self.steps:,}")
