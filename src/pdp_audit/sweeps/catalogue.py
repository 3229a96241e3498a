"""The mechanisms ``pdp-audit sweep`` can run, as an explicit tuple: every audit ``pdp-audit run`` offers, each
sweeping over its own options, and the user-facing audits of a user's code -- a white-box pair (``mechanism =
"pair"``) and a black box (``mechanism = "blackbox"``, with its ``trials``), the pair named by ``factory =
"MODULE:FACTORY"`` -- built through the same configs as ``pdp_audit.audit_pair`` and ``pdp_audit.audit_blackbox``
(:mod:`pdp_audit.sweeps.audits`) -- and a DP program (``mechanism = "program"``, ``program =
"MODULE:FUNCTION"`` and ``data``, with the options of ``pdp-audit program``)."""

from __future__ import annotations

from typing import Any

from pdp_audit.audits.program.audit import load_data
from pdp_audit.catalogue.kinds import kinds_by_name
from pdp_audit.catalogue.plans import plans
from pdp_audit.sweeps import audits
from pdp_audit.sweeps.schema import SweepMechanism


def program_data(path: str) -> Any:
    """A program cell's dataset, read as ``pdp-audit program --data`` reads it (CSV of any columns, or ``.npy``)."""
    return load_data(path)


SWEEPS: tuple[SweepMechanism, ...] = (
    *(audits.sweep_mechanism(plan) for plan in plans()),
    audits.kind_sweep_mechanism(kinds_by_name()["pair"].plan, "factory"),
    audits.kind_sweep_mechanism(kinds_by_name()["blackbox"].plan, "factory", required=("trials",)),
    audits.kind_sweep_mechanism(
        kinds_by_name()["program"].plan, "program", ("data",), read_data=program_data, names="MODULE:FUNCTION"
    ),
)
