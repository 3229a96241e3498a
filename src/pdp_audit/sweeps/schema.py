"""What a sweepable mechanism declares: its parameters, its cell function and options.

A :class:`SweepMechanism` is plain data; :mod:`pdp_audit.sweeps.catalogue` makes one per audit from its
descriptor, and a caller may pass its own to :func:`pdp_audit.sweeps.spec.parse_spec` (the tests' toys).
Its parameters are :class:`~pdp_audit.verify.core.config.Option` records: the declaration an audit's config fields
carry, so a sweep cell is checked by the same code, with the same words, as every other way in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pdp_audit.verify.core.checks import id_matches
from pdp_audit.verify.core.config import Option
from pdp_audit.verify.inputs.validation import InputError


class SpecError(InputError):
    """A bad spec: one line naming the file and the key."""


Schema = dict[str, Option]
CellFunction = Callable[[dict, int, float, "tuple[str, ...] | None"], dict]


@dataclass(frozen=True)
class SweepMechanism:
    """A mechanism that can be swept.

    ``cell(parameters, seed, alpha, checks)`` runs one audit and returns a JSON-able dict with
    ``verdict``, ``checks`` (a list of check dicts, as in the JSON report) and ``parameters`` (the
    effective parameters, e.g. a calibrated σ).  It must be a module-level function (it travels to
    worker processes by reference).  ``normalize(parameters, given, where)`` may cross-check parameters
    (raising SpecError that starts with ``where``; ``given`` is the set of keys the spec set) and drop
    those that do not apply; ``cost(parameters)`` estimates a cell's run time in
    arbitrary units (largest cells are scheduled first); ``checks`` lists the ids ``[sweep] checks`` may select (a
    ``{…}`` part of one stands for a value a run fills in; empty: any id, checked when a cell runs).
    ``read_data(path)``: how a cell reads its ``data`` file, where not as a numeric table
    (:func:`pdp_audit.verify.inputs.datasets.load_csv`): a program's records, CSV of any columns or ``.npy``; the spec
    reads each file with it before the store is made.
    """

    name: str
    cell: CellFunction
    schema: Schema
    normalize: Callable[[dict, set, str], dict] | None = None
    cost: Callable[[dict], float] | None = None
    checks: tuple[str, ...] = ()
    description: str = ""
    preload: tuple[str, ...] = ()  # modules a forked worker should inherit already imported
    chunked: bool = False  # cell(..., executor=E) runs its sample chunks through E.map (see executors)
    check_data: Callable[[str, Any], None] | None = None  # the audit's refusal of a data table's shape (its width)
    read_data: Callable[[str], Any] | None = None  # how a cell reads ``data`` where not as a numeric CSV (a program's)

    def has_check(self, check_id: str) -> bool:
        """Whether ``check_id`` is one of :attr:`checks` (:func:`pdp_audit.verify.core.checks.id_matches`); any id is,
        where
        the mechanism declares none."""
        return not self.checks or any(id_matches(declared, check_id) for declared in self.checks)

    def valid_checks(self) -> str:
        """The ids ``[sweep] checks`` may select, for a one-line error."""
        listed = ", ".join(self.checks)
        return listed + ("; {…} stands for a value a run fills in" if "{" in listed else "")
