"""``pdp-audit run privacy-report``: the audit's descriptor (its options are
:mod:`pdp_audit.audits.privacy_report.config`; the audit itself is
:mod:`pdp_audit.audits.privacy_report.evidence`)."""

from __future__ import annotations

from pdp_audit.audits.privacy_report.checks import CHECKS, RUN_CHECKS
from pdp_audit.audits.privacy_report.config import PrivacyReportAuditConfig
from pdp_audit.verify.core.plan import AuditPlan, Setting


def audit(config: PrivacyReportAuditConfig, executor=None, progress: bool = False):
    """Run the privacy-report audit (imported here: the evidence modules are heavy)."""
    # deferred: loads scipy; run --help must not
    from pdp_audit.audits.privacy_report.evidence import run_privacy_report_audit

    return run_privacy_report_audit(config, executor=executor, progress=progress)


PLAN = AuditPlan(
    "privacy-report",
    "[RW] Algorithms 2–5: the privately published privacy report of ObjPert, coverage of its bounds",
    PrivacyReportAuditConfig,
    audit,
    CHECKS,
    RUN_CHECKS,
    cost=6.0,
    quick={"trials": 20_000, "repetitions": 2000},
    smoke={"trials": 2000, "repetitions": 200, "no_figures": True},
    settings=(
        Setting({}, {"noise_scale2": 0.5}),
        Setting({"mode": "independent"}, {"sigma": 0.5}),
        Setting({"mode": "adaptive"}, {"sigma4": 1.0}),
    ),
)
