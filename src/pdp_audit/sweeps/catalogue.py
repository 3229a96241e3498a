"""The mechanisms ``pdp-audit sweep`` can run, as an explicit tuple: every audit ``pdp-audit run`` offers, each
sweeping over its own options, and the user-facing audits of a user's code -- a white-box pair (``mechanism =
"pair"``) and a black box (``mechanism = "blackbox"``, with its ``trials``), the pair named by ``factory =
"MODULE:FACTORY"`` -- built through the same configs as ``pdp_audit.audit_pair`` and ``pdp_audit.audit_blackbox``
(:mod:`pdp_audit.sweeps.audits`)."""

from __future__ import annotations

from pdp_audit.catalogue.kinds import kinds_by_name
from pdp_audit.catalogue.plans import PLANS
from pdp_audit.sweeps import audits
from pdp_audit.sweeps.schema import SweepMechanism

SWEEPS: tuple[SweepMechanism, ...] = (
    *(audits.sweep_mechanism(plan) for plan in PLANS),
    audits.kind_sweep_mechanism(kinds_by_name()["pair"].plan, "factory"),
    audits.kind_sweep_mechanism(kinds_by_name()["blackbox"].plan, "factory", required=("trials",)),
)
