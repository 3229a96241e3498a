"""The audits ``pdp-audit run`` offers: one line an audit in :data:`AUDITS`, in the order ``pdp-audit list`` shows
them.

A new mechanism's audit is one folder in ``audits/`` (its ``config.py`` declares the options, its ``plan.py`` the
:class:`~pdp_audit.verify.core.plan.AuditPlan` as ``PLAN``, or several related ones as ``PLANS``) and one line here;
the command line, deployment files, sweeps, the API and the claims ledger read the plans from here
(``tests/test_catalogue_shape.py`` registers a copied audit by that line alone).  The plan modules are imported on
first use, not with this module.
"""

from __future__ import annotations

import functools
import importlib

from pdp_audit.verify.core.plan import AuditPlan

#: The plan modules, one line an audit.
AUDITS = (
    "pdp_audit.audits.gaussian.plan",
    "pdp_audit.audits.goe.plan",
    "pdp_audit.audits.linreg.plan",
    "pdp_audit.audits.objpert.plan",
    "pdp_audit.audits.privacy_report.plan",
    "pdp_audit.audits.laplace.plan",
    "pdp_audit.audits.geometric.plan",
    "pdp_audit.audits.randomized_response.plan",
    "pdp_audit.audits.dp_sgd.plan",
)


@functools.cache
def plans() -> tuple[AuditPlan, ...]:
    """The plans of the modules of :data:`AUDITS`, in catalogue order."""
    found: list[AuditPlan] = []
    for name in AUDITS:
        module = importlib.import_module(name)
        found.extend(getattr(module, "PLANS", None) or (module.PLAN,))
    return tuple(found)


def plans_by_name() -> dict[str, AuditPlan]:
    """Every plan of :func:`plans` by its ``run`` name, in catalogue order."""
    return {plan.name: plan for plan in plans()}
