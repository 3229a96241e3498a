"""The audit of a DP program: its descriptor (its options: :mod:`pdp_audit.audits.program.config`; its run:
:func:`pdp_audit.audits.program.audit.run_program`, to which the catalogue hands the black box's confirmation)."""

from __future__ import annotations

from typing import Callable

from pdp_audit.audits.program.config import KEYWORDS, ProgramAuditConfig
from pdp_audit.verify.core.plan import KindPlan

HELP = "a DP program(data, rng): record and replay of its noise, neighbour search, exact composition"


def program_plan(run: Callable) -> KindPlan:
    """The kind's plan with its run (the catalogue passes a run that confirms findings with the black box)."""
    return KindPlan("program", HELP, ProgramAuditConfig, run, KEYWORDS)
