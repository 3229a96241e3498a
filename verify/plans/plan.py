"""An audit plan: what ``pdp-audit run NAME`` runs for one mechanism, behind a small interface.

Each family under ``verify/plans/<family>/`` defines its plan(s) in ``options.py`` and
:mod:`pdp_audit.verify.plans.catalogue` lists them in an explicit tuple; nothing registers itself on import.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable

from pdp_audit.reports.records import Run
from pdp_audit.verify.options import executor_for


@dataclass(frozen=True)
class AuditPlan:
    """One runnable audit.

    ``add_arguments`` adds the audit's own options to its ``run`` subparser; ``configure`` turns the parsed
    arguments (the shared options -- claim, budget, seed, alpha, workers, outputs -- included) into the audit's
    validated configuration, raising :class:`~pdp_audit.mechanisms.validation.InputError` naming the option before any
    computation; ``audit(config, executor=, progress=)`` runs it (``executor``: None for serial, or anything with
    ``map``) and returns the decided run; ``defaults`` overrides shared options' defaults (e.g. a smaller
    ``--trials`` for an expensive mechanism).  The split lets a sweep validate every cell before it runs one.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    configure: Callable[[argparse.Namespace], Any]
    audit: Callable[..., Run]
    defaults: dict[str, Any] = field(default_factory=dict)

    def execute(self, args: argparse.Namespace) -> Run:
        """Validate the parsed options, then run the audit on ``--workers`` processes."""
        config = self.configure(args)
        with executor_for(args.workers) as executor:
            return self.audit(config, executor=executor, progress=not args.quiet)
