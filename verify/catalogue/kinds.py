"""The user-facing audit kinds, as an explicit tuple beside the built-in audits' plans (:mod:`.plans`): a user's
white-box pair, a black box, canary scores, a coverage claim and a joint release.

Each kind lives in its folder of ``audits/`` and is one :class:`AuditKind` here: its entry function (what the
public API exports), the options it declares (``audits/<kind>/config.py``: what its command and deployment tables
take, with their ranges), and, for a kind a deployment file can describe, how such a file is recognised and
certified.  The API, the command line and :mod:`pdp_audit.verify.deployment` dispatch on :data:`KINDS`; a new kind
is its folder and one line here.  What one kind needs of another (the black-box evidence of a user's sampler-only
pair, the claim and budget a joint release states as a user's mechanism does) is passed to it here: an audit
imports no other audit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pdp_audit.audits.blackbox.audit import audit_blackbox
from pdp_audit.audits.blackbox.config import BLACKBOX_OPTIONS
from pdp_audit.audits.canaries.config import CANARY_OPTIONS
from pdp_audit.audits.canaries.evidence import audit_canary_scores
from pdp_audit.audits.coverage.audit import audit_coverage
from pdp_audit.audits.pair.audit import audit_pair
from pdp_audit.audits.pair.config import OWN_OPTIONS
from pdp_audit.audits.pair.deployed import is_own, module_file
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import Option


@dataclass(frozen=True)
class AuditKind:
    """One user-facing audit kind.  ``audit``: its entry function (``pdp_audit.audit_pair``, …); ``options``: the
    options it declares (its config); ``deployed(deployment)``: whether a deployment file describes an audit of this
    kind, ``certify(deployment, progress)`` its certificate (both None for a kind no deployment file describes);
    ``user_code(deployment)``: for a kind whose certificate runs the user's code, the source file of that code (None
    where none is found), which ``pdp-audit certify`` never writes over and runs behind a process boundary."""

    name: str
    help: str
    audit: Callable[..., Any]
    options: tuple[Option, ...] = ()
    deployed: Callable[[Any], bool] | None = None
    certify: Callable[[Any, bool], Run] | None = None
    user_code: Callable[[Any], str | None] | None = None


def _certify_own(deployment: Any, progress: bool = False) -> Run:
    """A user's ``module:factory``: its pair decided by ``audit_pair``'s checks, a sampler-only pair by the
    black-box audit's (``progress``: the budget stated and a bar on stderr)."""
    from pdp_audit.audits.blackbox.evidence import blackbox_checks
    from pdp_audit.audits.pair.deployed import certify_own
    from pdp_audit.reports.json_report import code_version

    return certify_own(deployment, code_version(), blackbox_checks, progress)


def _certify_joint(deployment: Any, progress: bool = False) -> Run:
    """``[[release]]`` tables: the product of the releases' worst-case pairs, at the [claim] and [audit] a user's
    mechanism states."""
    from pdp_audit.audits.joint.certificate import certify_joint
    from pdp_audit.audits.pair.config import own_budget
    from pdp_audit.verify.catalogue.plans import plans_by_name

    return certify_joint(deployment, own_budget(deployment), plans_by_name())


def _is_joint(deployment: Any) -> bool:
    return bool(deployment.releases)


def _is_own(deployment: Any) -> bool:
    return is_own(deployment.mechanism)


def _own_module(deployment: Any) -> str | None:
    return module_file(deployment.folder, deployment.mechanism)


KINDS: tuple[AuditKind, ...] = (
    AuditKind(
        "joint",
        "several releases certified as one",
        _certify_joint,
        tuple(OWN_OPTIONS.values()),
        _is_joint,
        _certify_joint,
    ),
    AuditKind(
        "pair",
        "a user's white-box pair (or module:factory)",
        audit_pair,
        tuple(OWN_OPTIONS.values()),
        _is_own,
        _certify_own,
        _own_module,
    ),
    AuditKind("blackbox", "a mechanism that can only be sampled", audit_blackbox, BLACKBOX_OPTIONS),
    AuditKind("canaries", "a training run's canary scores", audit_canary_scores, CANARY_OPTIONS),
    AuditKind("coverage", "an event that holds with probability at least 1 − ρ", audit_coverage),
)


def kinds_by_name() -> dict[str, AuditKind]:
    """Every kind of :data:`KINDS` by its name."""
    return {kind.name: kind for kind in KINDS}


def deployed_kind(deployment: Any) -> AuditKind | None:
    """The kind a deployment file describes (the first of :data:`KINDS` that recognises it), None for a built-in
    audit's deployment."""
    return next((kind for kind in KINDS if kind.deployed is not None and kind.deployed(deployment)), None)
