"""The options the pure-DP audits share (the Laplace, geometric and randomized-response audits), declared once.

Each of these audits certifies a pure (ε, 0)-DP claim by default (Dwork & Roth 2014, Definition 2.4 with δ = 0),
and breaks its own calibration on purpose with a noise multiplier M (fault injection: the claim is kept).  An audit
whose noise has a scale b (Laplace, geometric) deploys b·M, which double precision can audit only within
[1e-9, 1e9] times the query's sensitivity (:func:`check_deployed_scale`).
"""

from __future__ import annotations

import dataclasses

from pdp_audit.verify.core.config import CLAIM_DELTA, Option, OptionNames, Range

#: The claimed δ of a pure-DP audit: 0 by default (pure DP); any δ in [0, 1) may be claimed.
PURE_CLAIM_DELTA = dataclasses.replace(
    CLAIM_DELTA, default=0.0, help="claimed δ (default: 0, pure DP)", range=Range(0, 1, open_high=True)
)
#: The noise multiplier of an audit whose noise has a scale: fault injection (M < 1 deflates the noise).
SCALE_MULTIPLIER = Option(
    "noise_multiplier",
    "float",
    1.0,
    "fault injection: the noise's scale times M, the claim kept (M < 1 breaks the calibration; default: 1)",
    range=Range(1e-3, 1e3),
)


def check_deployed_scale(names: OptionNames, scale: float, multiplier: float, sensitivity: float) -> None:
    """The deployed scale b·M (``scale`` × ``multiplier``) within [1e-9, 1e9] times ``sensitivity``."""
    if not 1e-9 <= scale * multiplier / sensitivity <= 1e9:
        # beyond this range every privacy loss overflows or vanishes in double precision
        raise names.error(
            f"{names.scale} × {names.noise_multiplier} (the deployed scale) must be in [1e-9, 1e9] times the "
            f"sensitivity, got {scale * multiplier:g}"
        )
