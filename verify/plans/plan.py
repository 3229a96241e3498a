"""An audit plan: what ``pdp-audit run NAME`` runs for one mechanism, behind a small interface.

Each family under ``verify/plans/<family>/`` defines its plan(s) in ``options.py`` and
:mod:`verify.plans.catalogue` lists them in an explicit tuple; nothing registers itself on import.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable

from reports.records import Run


@dataclass(frozen=True)
class AuditPlan:
    """One runnable audit.

    ``add_arguments`` adds the audit's own options to its ``run`` subparser; ``execute`` runs it on the
    parsed arguments (the shared options -- claim, budget, seed, alpha, workers, outputs -- included)
    and returns the decided run; ``defaults`` overrides shared options' defaults (e.g. a smaller
    ``--trials`` for an expensive mechanism).
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    execute: Callable[[argparse.Namespace], Run]
    defaults: dict[str, Any] = field(default_factory=dict)
