"""The canary audits: their descriptor (the options: :mod:`pdp_audit.audits.canaries.config`; the API's functions
:func:`~pdp_audit.audits.canaries.evidence.audit_canary_scores` and
:func:`~pdp_audit.audits.canaries.evidence.audit_one_run`)."""

from __future__ import annotations

from pdp_audit.audits.canaries.config import CanaryAuditConfig
from pdp_audit.audits.canaries.evidence import run_canaries
from pdp_audit.verify.core.plan import KindPlan

PLAN = KindPlan("canaries", "a training run's canary scores", CanaryAuditConfig, run_canaries)
