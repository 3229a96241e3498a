"""The coverage audit: its descriptor (its options: :mod:`pdp_audit.audits.coverage.config`; the API's function
:func:`pdp_audit.audits.coverage.audit.audit_coverage`)."""

from __future__ import annotations

from pdp_audit.audits.coverage.audit import run_coverage
from pdp_audit.audits.coverage.config import CoverageAuditConfig
from pdp_audit.verify.core.plan import KindPlan

PLAN = KindPlan("coverage", "an event that holds with probability at least 1 − ρ", CoverageAuditConfig, run_coverage)
