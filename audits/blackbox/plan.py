"""The black-box audit: its descriptor (its options: :mod:`pdp_audit.audits.blackbox.config`; the API's function
:func:`pdp_audit.audits.blackbox.audit.audit_blackbox`)."""

from __future__ import annotations

from pdp_audit.audits.blackbox.audit import run_blackbox
from pdp_audit.audits.blackbox.config import KEYWORDS, BlackBoxAuditConfig
from pdp_audit.verify.core.plan import KindPlan

PLAN = KindPlan("blackbox", "a mechanism that can only be sampled", BlackBoxAuditConfig, run_blackbox, KEYWORDS)
