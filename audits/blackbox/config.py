"""The options of the black-box audit as ``pdp-audit blackbox`` takes them: the claim and the budget of
``pdp_audit.audit_blackbox``, with the ranges of the pair options and the defaults of
:mod:`pdp_audit.audits.blackbox.defaults`."""

from __future__ import annotations

import dataclasses

from pdp_audit.audits.blackbox.defaults import (
    DEFAULT_STATISTIC,
    DEFAULT_TRIALS,
    EVENT_TRAIN_TRIALS,
    PILOT_STATISTIC,
    SEARCH_STATISTIC,
    SEARCH_TRIALS,
    STATISTICS,
)
from pdp_audit.verify.core.config import PAIR_OPTIONS, Option

#: The claim and budget of ``blackbox``: the options of ``pdp_audit.audit_blackbox``, with their ranges.
BLACKBOX_OPTIONS = (
    dataclasses.replace(PAIR_OPTIONS["epsilon"], key="claim_epsilon", help="the claimed ε >= 0"),
    dataclasses.replace(PAIR_OPTIONS["refuted_delta"], key="claim_delta", help="the claimed δ in [0, 1)"),
    dataclasses.replace(
        PAIR_OPTIONS["blackbox_trials"],
        default=None,
        help=(
            f"fresh releases per world for the bound, up to 1e9 (default {DEFAULT_TRIALS:.0e}"
            + ("" if SEARCH_TRIALS == DEFAULT_TRIALS else f"; with --search {SEARCH_TRIALS:.0e}")
            + "; with --witness the witness's own)"
        ).replace("e+0", "e"),
    ),
    dataclasses.replace(
        PAIR_OPTIONS["train_trials"],
        help=f"releases per world to learn the test from (default: --trials, at most {EVENT_TRAIN_TRIALS:.0e} for "
        "the event test)".replace("e+0", "e"),
    ),
    dataclasses.replace(PAIR_OPTIONS["seed"], help="root seed (default 0)"),
    dataclasses.replace(PAIR_OPTIONS["alpha"], help="false-alarm probability (default 1e-6)"),
    Option(
        "statistic",
        "str",
        None,
        f"the test: {DEFAULT_STATISTIC} (default"
        + ("" if SEARCH_STATISTIC == DEFAULT_STATISTIC else f"; with --search {SEARCH_STATISTIC}")
        + f"; a search's pilots use {PILOT_STATISTIC}; --witness re-applies the witness's own test): events: the "
        "exact event test (an event chosen among "
        "logistic, trees, outcome and histogram scores fitted on the training releases, on a quarter of --trials "
        "further releases; an exact joint test of each event's two "
        "counts on about --trials fresh ones, only their counts kept); events-numbers: the same, the releases "
        "augmented with the structure of their numbers "
        "(integrality, fractional part, low bits of the float64 significand); logistic: a logistic regression on "
        "the releases and their squares, bounded at pooled ranks; select: logistic or gradient-boosted trees, "
        "whichever bounds ε higher on a validation quarter of the training releases",
        choices=STATISTICS,
    ),
)
