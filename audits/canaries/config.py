"""The options of the canary audits as ``pdp-audit canaries`` takes them: the δ of the bound, a claimed ε to refute,
α and the seed, with the ranges of the pair options."""

from __future__ import annotations

import dataclasses

from pdp_audit.verify.core.config import PAIR_OPTIONS

CANARY_OPTIONS = (
    dataclasses.replace(PAIR_OPTIONS["delta"], help="the δ of the bound (and of the claim), in [0, 1)"),
    dataclasses.replace(
        PAIR_OPTIONS["epsilon"], key="claim_epsilon", help="a claimed ε >= 0 to refute (default: none tested)"
    ),
    dataclasses.replace(PAIR_OPTIONS["alpha"], help="false-alarm probability (default 1e-6)"),
    dataclasses.replace(PAIR_OPTIONS["seed"], help="seed of the subsample sizes and tie-breaking (default 0)"),
)
