"""The mechanisms ``pdp-audit sweep`` can run, as an explicit tuple: every audit ``pdp-audit run`` offers, each
sweeping over its own options (:mod:`pdp_audit.verify.sweeps.audits`)."""

from __future__ import annotations

from pdp_audit.verify.catalogue.plans import PLANS
from pdp_audit.verify.sweeps import audits
from pdp_audit.verify.sweeps.schema import SweepMechanism

SWEEPS: tuple[SweepMechanism, ...] = tuple(audits.sweep_mechanism(plan) for plan in PLANS)
