"""The options of the audit of a DP program, declared once: the claim, the neighbour relation, the declared domain
of a record and the confirmation's budget -- what ``pdp_audit.audit_program`` takes as keywords and
``pdp-audit program`` as flags."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pdp_audit.audits.program import domain
from pdp_audit.audits.program.domain import Categories, Interval
from pdp_audit.audits.program.search import SEARCHES, Budget
from pdp_audit.verify.core.candidate_search import require
from pdp_audit.verify.core.config import (
    LAW_OPTION,
    PAIR_OPTIONS,
    AuditConfig,
    Option,
    OptionNames,
    Range,
    option,
)
from pdp_audit.verify.inputs.validation import InputError, not_a_regular_file

#: The neighbour relations a claim can be about.
RELATIONS = ("add-remove", "replace-one")
#: Fresh releases per world of the black box's confirmation of a structural finding, when not given.
CONFIRM_TRIALS = 20_000
#: Sets of draws the program is recorded on when not given, and the most allowed: a path taken on half the draws is
#: missed by the 7 further sets with probability 2⁻⁷ < 1%.  Each further set costs a record on D and a replay on two
#: neighbours; only one taking a path not yet replayed is replayed on every neighbour (at most 4 paths in all).
DRAW_SETS, MOST_DRAW_SETS = 8, 16
#: The neighbour search's strategy and its candidates beyond the named list, when not given.
SEARCH, CANDIDATES = "random", 32
#: The most candidates a search may propose (each is one replay of the program, like a named neighbour).
MOST_CANDIDATES = 100_000


def program_problem(text: str) -> str | None:
    """Why ``text`` is not ``MODULE:FUNCTION`` (dotted identifiers either side of one colon), or None."""
    module, colon, function = text.partition(":")
    if colon and all(name.isidentifier() for name in module.split(".") + function.split(".")):
        return None
    return "must be MODULE:FUNCTION (e.g. program_sum:fixed, the function fixed of program_sum.py)"


_OPTIONS = (
    dataclasses.replace(
        PAIR_OPTIONS["epsilon"],
        key="claim_epsilon",
        table_key="epsilon",
        table="claim",
        help="the claimed ε >= 0",
        required=True,
    ),
    dataclasses.replace(
        PAIR_OPTIONS["delta"],
        key="claim_delta",
        table_key="delta",
        table="claim",
        help="the claimed δ in [0, 1)",
        required=True,
    ),
    Option(
        "neighbours",
        "str",
        "add-remove",
        "the neighbour relation the claim is about: add-remove (one record "
        "added or removed) or replace-one (one record replaced)",
        choices=RELATIONS,
        table="claim",
    ),
    Option(
        "search",
        "str",
        SEARCH,
        "how neighbours are searched beyond the named list (the domain's ends, outliers, NaN and ±inf, a new class, "
        "a duplicate, the removal of the extremes and the rarest class): named (that list only), random (then "
        f"--candidates records drawn inside the declared domain and beyond it), optuna (then --candidates proposed by "
        f"optuna's TPE toward the largest privacy loss; pip install optuna) (default {SEARCH})",
        choices=SEARCHES,
        table="audit",
    ),
    Option(
        "candidates",
        "int",
        CANDIDATES,
        f"neighbours the search proposes beyond the named list, 0 to {MOST_CANDIDATES:,} (default {CANDIDATES}; each "
        "is one replay of the program)",
        range=Range(0, MOST_CANDIDATES),
        table="audit",
    ),
    Option(
        "bounds",
        "str",
        None,
        "the declared domain of a record (the program's clipping bounds and categories): LOW,HIGH for every numeric "
        "field, or per field COLUMN=LOW,HIGH;COLUMN={A,B,...} (quoted: 'age=0,120;income=0,2e5;label={a,b,c}'; an "
        "array record's fields by index, 0=0,1;1=0,10); a field not named keeps the data's own range (numbers) or "
        "the values it holds (text); outliers beyond the domain and a value outside a category set are tried too",
        check=domain.problem,
        convert=domain.written,
        metavar="DOMAIN",
    ),
    dataclasses.replace(
        PAIR_OPTIONS["blackbox_trials"],
        default=CONFIRM_TRIALS,
        table="audit",
        help=f"the most fresh releases per world the black box draws to confirm a finding the exact checks leave "
        f"open, 100 to 1e9 (default {CONFIRM_TRIALS}): a cap, not a size -- it draws first the few thousand the "
        "exact law of the noise says suffice and stops once decided, and only corroborates (or skips) a refutation "
        "an exact check already proved; lower it to bound the time of an undecided run, raise it to reach a subtler "
        "violation",
        required=True,
    ),
    Option(
        "draw_sets",
        "int",
        DRAW_SETS,
        f"sets of noise draws the program is recorded on, 1 to {MOST_DRAW_SETS} (default {DRAW_SETS}): each is "
        "replayed on two neighbours, and on every neighbour where the program takes a path no earlier set took (at "
        "most 4 paths), so a branch on a noisy value that only some draws take is seen",
        range=Range(1, MOST_DRAW_SETS),
        table="audit",
        metavar="K",
    ),
    dataclasses.replace(PAIR_OPTIONS["seed"], table="audit", help="root seed (default 0)", required=True),
    dataclasses.replace(
        PAIR_OPTIONS["alpha"], table="audit", help="false-alarm probability (default 1e-6)", required=True
    ),
    Option(
        "data",
        "str",
        None,
        "the dataset: a CSV file with a header row (a pandas DataFrame), or .npy (a numpy array of records)",
        table="parameters",
        metavar="FILE",
    ),
    Option(
        "program",
        "str",
        None,
        "MODULE:FUNCTION, the program(data, rng) audited",
        check=program_problem,
        table="none",
        flag="target",  # the command's positional argument
        cli=False,
    ),
)
_EPSILON, _DELTA, _NEIGHBOURS, _SEARCH, _CANDIDATES, _BOUNDS, _TRIALS, _DRAW_SETS, _SEED, _ALPHA, _DATA, _PROGRAM = (
    _OPTIONS
)


@dataclass(frozen=True)
class ProgramAuditConfig(AuditConfig):
    """An (ε, δ)-DP claim of a program ``program(data, rng)`` under the relation ``neighbours``: ``target`` the
    pair (program, dataset) given by the API; else ``program`` (MODULE:FUNCTION) and ``data`` (a file) name them.
    Every other field is the option of its name (:data:`_OPTIONS`: its help says what it holds)."""

    claim_epsilon: float = option(_EPSILON)
    claim_delta: float = option(_DELTA)
    neighbours: str = option(_NEIGHBOURS)
    search: str = option(_SEARCH)
    candidates: int = option(_CANDIDATES)
    bounds: str | None = option(_BOUNDS)
    trials: int = option(_TRIALS)
    draw_sets: int = option(_DRAW_SETS)
    seed: int = option(_SEED)
    alpha: float = option(_ALPHA)
    law: str = option(
        LAW_OPTION,
        help="what is certified: the program as implemented in floating point (as-implemented, the default: a "
        "release carrying continuous float noise -- numpy's or diffprivlib's Laplace or Gaussian added to a value -- "
        "is porous and is not certified by composition) or the real-valued laws of its primitives (ideal: the float "
        "implementation is not audited, and the certificate says so)",
    )
    data: str | None = option(_DATA)
    program: str | None = option(_PROGRAM)
    target: Any = field(default=None, compare=False, repr=False)
    #: How the caller names ``bounds`` (``--bounds``, ``parameters.bounds``) and where its messages start (the file),
    #: kept for what is checked against the data once it is read (:meth:`domain_of`); a copy made by
    #: ``dataclasses.replace`` keeps the first caller's words.
    words: tuple[str, str] | None = field(default=None, compare=False, repr=False)

    def check(self, names: OptionNames) -> None:
        if self.words is None:
            object.__setattr__(self, "words", (names.bounds, names.where))
        if self.target is None and (self.program is None or self.data is None):
            raise names.error(f"give the program and its data ({names.data})")
        if self.search == "optuna":  # refused before any work, in one line
            try:
                require("optuna")
            except ValueError:
                raise names.error(f"{names.search} optuna needs optuna: pip install optuna") from None
        if self.data is not None:  # a FIFO or a device blocked the read forever
            why = not_a_regular_file(self.data, "dataset file (CSV or .npy)")
            if why is not None:
                raise names.error(f"{names.data}: {self.data!r} {why}")

    def budget(self) -> Budget:
        """The neighbour search's budget."""
        return Budget(self.search, self.candidates)

    def domain_of(self, data: Any) -> dict[Any, Interval | Categories] | None:
        """Each field's declared domain, keyed as :func:`.domain.fields_of` keys the fields of ``data`` (None: no
        ``bounds``); a one-line InputError in the caller's words where the declaration does not fit the data."""
        if self.bounds is None:
            return None
        try:
            return domain.resolved(domain.declaration(self.bounds), data)
        except ValueError as err:
            spelled, where = self.words or ("bounds", "")
            raise InputError(f"{where}{spelled} {err}: it must be {domain.FORM}") from None


#: How ``pdp_audit.audit_program`` names the claim: its arguments ``epsilon`` and ``delta``.
KEYWORDS = {"claim_epsilon": "epsilon", "claim_delta": "delta"}
