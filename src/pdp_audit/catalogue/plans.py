"""The audits ``pdp-audit run`` offers, as an explicit tuple in the order ``pdp-audit list`` shows them.

A new mechanism's audit: one folder in ``audits/`` (its ``config.py`` declares the options, its ``plan.py`` the
:class:`~pdp_audit.verify.core.plan.AuditPlan`), and one line here.
"""

from __future__ import annotations

from pdp_audit.audits.dp_sgd import plan as dp_sgd
from pdp_audit.audits.gaussian import plan as gaussian
from pdp_audit.audits.geometric import plan as geometric
from pdp_audit.audits.goe import plan as goe
from pdp_audit.audits.laplace import plan as laplace
from pdp_audit.audits.linreg import plan as linreg
from pdp_audit.audits.objpert import plan as objpert
from pdp_audit.audits.privacy_report import plan as privacy_report
from pdp_audit.audits.randomized_response import plan as randomized_response
from pdp_audit.verify.core.plan import AuditPlan

PLANS: tuple[AuditPlan, ...] = (
    gaussian.PLAN,
    goe.PLAN,
    *linreg.PLANS,
    objpert.PLAN,
    privacy_report.PLAN,
    laplace.PLAN,
    geometric.PLAN,
    randomized_response.PLAN,
    dp_sgd.PLAN,
)


def plans_by_name() -> dict[str, AuditPlan]:
    """Every plan of :data:`PLANS` by its ``run`` name, in catalogue order."""
    return {plan.name: plan for plan in PLANS}
