"""The user-facing audit kinds, as an explicit tuple beside the built-in audits' plans (:mod:`.plans`): a joint
release, a user's white-box pair, a black box, canary scores and a coverage claim.

Each kind lives in its folder of ``audits/`` -- its frozen config (``config.py``: the claim and the budget as
options built by :func:`pdp_audit.verify.core.config.build`, and the target audited) and its descriptor
(``plan.py``: a :class:`~pdp_audit.verify.core.plan.KindPlan`) -- and is one :class:`AuditKind` line here, which
adds, for a kind a deployment file can describe, how such a file is recognised and certified.  The API's functions,
the commands, deployment files and the pytest plugin build a kind's config through its one declaration and run it
through its plan; a new kind is its folder and one line here.  What one kind needs of another (the black-box evidence
of a user's sampler-only pair, the built-in plans a joint release is made of) is passed to it here: an audit imports
no other audit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from pdp_audit.audits.blackbox import plan as blackbox
from pdp_audit.audits.blackbox.defaults import DEFAULT_STATISTIC
from pdp_audit.audits.canaries import plan as canaries
from pdp_audit.audits.coverage import plan as coverage
from pdp_audit.audits.pair import plan as pair
from pdp_audit.audits.pair.config import PairAuditConfig, own_budget
from pdp_audit.audits.pair.deployed import SamplerAudit, certify_own
from pdp_audit.audits.program.plan import program_plan
from pdp_audit.reports.records import Run
from pdp_audit.verify.core.config import Option
from pdp_audit.verify.core.plan import KindPlan
from pdp_audit.verify.evidence.user_code import is_own, module_file


@dataclass(frozen=True)
class AuditKind:
    """One user-facing audit kind.  ``plan``: its descriptor (:class:`~pdp_audit.verify.core.plan.KindPlan`: its
    config, whose fields are its options, and its run); ``deployed(deployment)``: whether a deployment file
    describes an audit of this kind, ``certify(deployment, progress)`` its
    certificate (both None for a kind no deployment
    file describes); ``user_code(deployment)``: for a kind whose certificate runs the user's code, the source file
    of that code (None where none is found), which ``pdp-audit certify`` never writes over and runs behind a process
    boundary."""

    plan: KindPlan
    deployed: Callable[[Any], bool] | None = None
    certify: Callable[[Any, bool], Run] | None = None
    user_code: Callable[[Any], str | None] | None = None

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def help(self) -> str:
        return self.plan.help

    @property
    def options(self) -> tuple[Option, ...]:
        """The options it declares: its config's fields."""
        return tuple(self.plan.options().values())


def _certify_own(deployment: Any, progress: bool = False) -> Run:
    """A user's ``module:factory``: its pair decided by ``audit_pair``'s checks, a sampler-only pair by the
    black-box audit's (``progress``: the budget stated and a bar on stderr)."""
    # deferred: loads importlib.metadata; program --help must not
    from pdp_audit.reports.json_report import code_version

    return certify_own(deployment, code_version(), SamplerAudit(_blackbox_evidence, _blackbox_default_trials), progress)


def _blackbox_evidence(samplers: tuple, epsilon, delta, trials, seed, progress: bool, **running: Any) -> list:
    """The black-box audit's evidence of a sampler-only pair, its releases drawn by ``running["workers"]`` processes
    (default 1; the numbers do not depend on them), of the program as implemented or the real-valued law
    (``running["law"]``: the deployment's [audit] law, default as implemented: float releases are read with their
    structure as numbers); ``running["stop"]``: the deployment's [audit] early_stop and time_limit
    (:class:`~pdp_audit.verify.evidence.pair_sequential.Stopping`: its α, deadline and early stop), which the event
    test's fresh pass keeps (:mod:`pdp_audit.audits.blackbox.anytime`), or None."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.blackbox.evidence import BlackBoxBudget, blackbox_checks

    workers, stop = running.get("workers", 1), running.get("stop")
    law = running.get("law") or BlackBoxBudget.law
    if stop is None:
        budget = BlackBoxBudget(workers=workers, law=law)
        return blackbox_checks(samplers, epsilon, delta, trials, seed, progress, budget)
    left = None if stop.deadline is None else max(stop.deadline - time.monotonic(), 1e-3)
    budget = BlackBoxBudget(workers=workers, early_stop=stop.early_stop, time_limit=left, law=law)
    # one check a pass, read against the certificate's family of every pass's (Stopping.level)
    return blackbox_checks(samplers, epsilon, delta, trials, seed, progress, budget, stop.level(1))


def _blackbox_default_trials(samplers: tuple, workers: int, runs: int) -> int:
    """The black box's default fresh releases per world for ``runs`` audits of ``samplers`` on ``workers``
    processes: its default budget, lowered to fit its time target as ``pdp-audit blackbox`` lowers it (the runs'
    draws together)."""
    # deferred: read at call time (tests replace time_budget.sampler_cost)
    from pdp_audit.audits.blackbox.time_budget import fitted_budget, sampler_cost

    cost = sampler_cost(samplers) * runs
    return fitted_budget(samplers, DEFAULT_STATISTIC, workers, None, cost=cost).trials


def _run_joint(config: PairAuditConfig, progress: bool = False) -> Run:
    """``[[release]]`` tables (``config.target``: the deployment): the product of the releases' worst-case pairs,
    at the [claim] and [audit] a user's mechanism states (``config``)."""
    # deferred: loads scipy; program --help must not
    from pdp_audit.audits.joint.certificate import certify_joint
    from pdp_audit.catalogue.plans import plans_by_name

    return certify_joint(config.target, config, plans_by_name())


#: A joint release: the claim and budget of a user's pair, its target the deployment file's releases.
JOINT = KindPlan("joint", "several releases certified as one", PairAuditConfig, _run_joint)


def _certify_joint(deployment: Any, progress: bool = False) -> Run:
    return JOINT.execute(replace(own_budget(deployment), target=deployment), progress)


def _is_joint(deployment: Any) -> bool:
    return bool(deployment.releases)


def _is_own(deployment: Any) -> bool:
    return is_own(deployment.mechanism)


def _own_module(deployment: Any) -> str | None:
    return module_file(deployment.folder, deployment.mechanism)


def _run_program(config: Any, progress: bool = False) -> Run:
    """A DP program's audit, its structural findings confirmed by the black box's attack on the witness pair; where
    progress is asked for, a line on standard error as the exact stages start and as each black-box run starts
    (:func:`~pdp_audit.verify.estimators.progress.stage`: the exact stages draw no bar)."""
    # deferred: loads pdp_audit.audits.program.audit; program --help must not
    from pdp_audit.audits.program.audit import run_program
    from pdp_audit.verify.estimators.progress import stage
    from pdp_audit.verify.evidence.pair_sequential import Stopping

    started = time.monotonic()
    stage("pdp-audit program: recording the program on D, replaying it on neighbouring datasets, composing the exact "
          "laws of its noise", started)  # fmt: skip

    def confirm(samplers: tuple, epsilon, delta, trials: int, seed: int, law: str = "ideal", level=None) -> list:
        # the law run_program names: as implemented where the finding rests on float noise the release carries, else
        # the release's real-valued law (read as numbers, a release of zero noise hid its deterministic difference);
        # ``level``: the fresh pass stopped once decided at it (the confirmation's look: :mod:`.confirmation_looks`)
        stage(f"pdp-audit program: the black box, up to {trials:,} fresh releases per world "
              f"({time.monotonic() - started:.1f} s so far)", started)  # fmt: skip
        stop = None if level is None else Stopping(float(level))
        return _blackbox_evidence(samplers, epsilon, delta, trials, seed, progress, law=law, stop=stop)

    return run_program(config, progress, confirm)


#: A DP program's audit (``pdp-audit program``, ``program = "module:function"`` in a deployment file, a sweep cell).
PROGRAM = program_plan(_run_program)


def _is_program(deployment: Any) -> bool:
    return deployment.program is not None


def _certify_program(deployment: Any, progress: bool = False) -> Run:
    """A DP program's deployment: the program kind's config from its tables, run by its plan."""
    # deferred: loads pdp_audit.audits.program.deployed; program --help must not
    from pdp_audit.audits.program.deployed import certify_program
    from pdp_audit.reports.json_report import code_version

    return certify_program(deployment, code_version(), PROGRAM, progress)


def _program_module(deployment: Any) -> str | None:
    """The source file of the deployment's program module (None where none is found): found without importing the
    program audit, which ``certify`` runs in its child process only."""
    return module_file(deployment.folder, deployment.program)


KINDS: tuple[AuditKind, ...] = (
    AuditKind(JOINT, _is_joint, _certify_joint),
    AuditKind(pair.PLAN, _is_own, _certify_own, _own_module),
    AuditKind(blackbox.PLAN),
    AuditKind(canaries.PLAN),
    AuditKind(coverage.PLAN),
    AuditKind(PROGRAM, _is_program, _certify_program, _program_module),
)


def kinds_by_name() -> dict[str, AuditKind]:
    """Every kind of :data:`KINDS` by its name."""
    return {kind.name: kind for kind in KINDS}


def deployed_kind(deployment: Any) -> AuditKind | None:
    """The kind a deployment file describes (the first of :data:`KINDS` that recognises it), None for a built-in
    audit's deployment."""
    return next((kind for kind in KINDS if kind.deployed is not None and kind.deployed(deployment)), None)
