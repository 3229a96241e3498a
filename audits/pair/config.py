"""The claim and budget of a user's mechanism in a deployment file -- its [claim] and [audit] tables, the options of
``pdp_audit.audit_pair`` (δ = 0 allowed) -- and of a joint release, which states them the same way."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pdp_audit.mechanisms.validation import InputError, quoted, shown
from pdp_audit.verify.core.config import PAIR_OPTIONS, in_file, parse

#: [claim] and [audit] of a user's mechanism: the options of ``pdp_audit.audit_pair`` (δ = 0 allowed).
OWN_OPTIONS = {
    "epsilon": replace(PAIR_OPTIONS["epsilon"], table="claim"),
    "delta": replace(PAIR_OPTIONS["delta"], table="claim"),
    "trials": replace(PAIR_OPTIONS["trials"], table="audit"),
    "seed": replace(PAIR_OPTIONS["seed"], table="audit"),
    "alpha": replace(PAIR_OPTIONS["alpha"], table="audit"),
    "workers": replace(PAIR_OPTIONS["workers"], table="audit"),
}


@dataclass(frozen=True)
class OwnBudget:
    """The claim and the certification's budget of a user's mechanism."""

    epsilon: float
    delta: float
    trials: int
    seed: int
    alpha: float


def own_budget(deployment) -> OwnBudget:
    """[claim] and [audit] checked against the ranges of ``pdp_audit.audit_pair`` (errors name the file and key)."""
    names = in_file(deployment.path)
    for key in deployment.audit:
        if key not in OWN_OPTIONS or OWN_OPTIONS[key].table != "audit":
            raise InputError(
                f"{shown(deployment.path)}: unknown key {quoted('audit.' + key)}; [audit] of a user's mechanism has "
                "trials, seed, alpha, workers"
            )
    values = {**deployment.claim, **deployment.audit}
    parsed = {k: parse(o, values.get(k, o.default), names) for k, o in OWN_OPTIONS.items() if k != "workers"}
    parse(OWN_OPTIONS["workers"], deployment.audit.get("workers"), names)  # checked; a user's pair runs in-process
    return OwnBudget(**parsed)
