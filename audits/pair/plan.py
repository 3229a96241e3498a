"""The audit of a user's white-box pair: its descriptor (its options: :mod:`pdp_audit.audits.pair.config`; the API's
function :func:`pdp_audit.audits.pair.audit.audit_pair`)."""

from __future__ import annotations

from pdp_audit.audits.pair.audit import run_pair
from pdp_audit.audits.pair.config import PairAuditConfig
from pdp_audit.verify.core.plan import KindPlan

PLAN = KindPlan("pair", "a user's white-box pair (or module:factory)", PairAuditConfig, run_pair)
