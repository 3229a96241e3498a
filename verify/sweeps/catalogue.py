"""The mechanisms ``pdp-audit sweep`` can run, as an explicit tuple: every audit ``pdp-audit run`` offers, each
sweeping over its own options, and the user-facing audit of a user's pair (``mechanism = "pair"``, the pair named
by ``factory = "MODULE:FACTORY"``), built through the same config as ``pdp_audit.audit_pair``
(:mod:`pdp_audit.verify.sweeps.audits`)."""

from __future__ import annotations

from pdp_audit.verify.catalogue.kinds import kinds_by_name
from pdp_audit.verify.catalogue.plans import PLANS
from pdp_audit.verify.sweeps import audits
from pdp_audit.verify.sweeps.schema import SweepMechanism

SWEEPS: tuple[SweepMechanism, ...] = (
    *(audits.sweep_mechanism(plan) for plan in PLANS),
    audits.kind_sweep_mechanism(kinds_by_name()["pair"].plan, "factory"),
)
