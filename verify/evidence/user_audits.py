"""What the audits of a user's code share (a white-box pair, a black box, a coverage claim): their arguments'
checks, with the ranges and one-line errors of the declared pair options, and the decision of their evidence."""

from __future__ import annotations

from typing import Any

from pdp_audit.mechanisms.validation import InputError
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import PAIR_OPTIONS, pair_value

#: Samples per world of a pair assertion when ``trials`` is not given (the pytest plugin's ``--audit-trials``).
DEFAULT_TRIALS = PAIR_OPTIONS["trials"].default
#: The family-wise false-alarm probability of a run when ``alpha`` is not given.
DEFAULT_ALPHA = PAIR_OPTIONS["alpha"].default


def claim_values(
    epsilon: Any, delta: Any, trials: Any, seed: Any, alpha: Any, delta_range: str = "delta", budget: str = "trials"
) -> tuple[float, float, int, int, float]:
    """The claim and budget of a pair function, each checked against its declared range (one-line errors;
    ``budget``: the range of ``trials``, ``blackbox_trials`` for a black box)."""
    return (
        pair_value("epsilon", epsilon, required=True),
        pair_value(delta_range, delta, required=True),
        pair_value(budget, trials, required=budget == "trials"),  # a black box's None: its default budget
        pair_value("seed", seed, required=True),
        pair_value("alpha", alpha, required=True),
    )


def check_protocol(pair: Any, needs_loss: bool = True) -> None:
    """InputError unless ``pair`` has ``sample`` (and ``privacy_loss``, with ``needs_loss``) to call."""
    from pdp_audit.mechanisms.base import MalformedPair, pair_attribute

    wanted = ("sample", "privacy_loss") if needs_loss else ("sample",)
    try:  # a property of the user's that raises is their bug, in one line
        missing = [name for name in wanted if not callable(pair_attribute(pair, name))]
    except MalformedPair as err:
        raise InputError(str(err)) from None
    if missing:
        raise InputError(
            f"pair must have {' and '.join(f'{n}()' for n in wanted)} (the NeighbourPair protocol); "
            f"{type(pair).__name__} has no {missing[0]}()"
        )


def decided(mechanism: str, evidence: list, alpha: float, parameters: dict, seed: int) -> Run:
    """Decide ``evidence`` as one family (Holm at ``alpha``) into a run record (a user's pair has no paper
    statements: its findings are empty, not "not asked for")."""
    from pdp_audit.verify.core.checks import finalize, make_run

    return make_run(mechanism, finalize(evidence, alpha), alpha, parameters, seed, paper_claims=True)
