"""An audit's options, declared once: the frozen config is the schema of every way in.

Each audit's configuration is a frozen dataclass whose fields carry an :class:`Option` (type, default, valid range
or choices, help, and where the option lives in a deployment file).  :func:`build` makes a config from a mapping
of option keys to values -- a command line (the parser is generated from the same fields:
:func:`pdp_audit.catalogue.arguments.add_config_options`), a deployment file's tables, a sweep cell, the pytest
plugin's keywords, the Python API's keywords, a ledger entry -- checking every value once, before any work, with
one-line errors that name the option in the caller's own words (:class:`Names`): ``--claim-epsilon`` on the command
line, ``claim.epsilon`` in a deployment file, ``claim_epsilon`` in a sweep spec or a keyword.  Rules between
options stay in the config's ``check(names)``.

The ranges every audit shares (ε, δ, α, ρ, trials, seed, scales) are declared here once, as :class:`Range`.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import numbers
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Literal, Mapping

from pdp_audit.verify.inputs.datasets import SHIPPED
from pdp_audit.verify.inputs.validation import InputError, quoted, shown
from pdp_audit.verify.inputs.workers import MAX_WORKERS

Kind = Literal["float", "int", "str", "bool", "size"]
Table = Literal["claim", "parameters", "audit", "none"]  # "none": not in a deployment file


@dataclass(frozen=True)
class Range:
    """A closed or half-open interval of valid numbers, spelled in messages as written here."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    low_text: str | None = None  # how to print ``low`` (``1/3``); default: ``:g``
    high_text: str | None = None

    def contains(self, value: float) -> bool:
        if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
            return False
        return not (self.high is not None and (value > self.high or (self.open_high and value == self.high)))

    def text(self) -> str:
        low = self.low_text or (number_text(self.low) if self.low is not None else None)
        high = self.high_text or (number_text(self.high) if self.high is not None else None)
        if low is not None and high is not None:
            return f"in {'(' if self.open_low else '['}{low}, {high}{')' if self.open_high else ']'}"
        if low is not None:
            return f"{'>' if self.open_low else '>='} {low}"
        if high is not None:
            return f"{'<' if self.open_high else '<='} {high}"
        return ""


def exact_text(value: float) -> str:
    """``value`` in the shortest form that reads back exactly, exponent unpadded: 20000, 5.4e-7, 0.05."""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + m.group(1).replace("+", "") + m.group(2), repr(float(value)))


def number_text(value: float) -> str:
    """A bound as a person writes it: 1e9, 1e-6, 0.5, 100."""
    return f"{value:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


#: The ranges every audit shares.  Beyond them the calibrations' root-finders, the quantiles of the intervals or
#: double precision fail (each was found by a probe of every float option at the extremes of the doubles).
EPSILON = Range(1e-6, 100)  # e^ε overflows the calibrations beyond 100; σ ∝ 1/ε below 1e-6
DELTA = Range(1e-300, 1, open_high=True)  # a subnormal δ makes √log(1/δ) lose its precision
ALPHA = Range(1e-50, 1, open_high=True)  # the Beta/binomial quantiles of the intervals at α split over checks
RHO = Range(1e-300, 1, open_high=True)
TRIALS = Range(1000, 1e9)
SEED = Range(0, 2**63 - 1, high_text="2^63-1")
#: Every noise scale, precision and ridge term: beyond it the privacy loss overflows or vanishes.
SCALE = Range(1e-12, 1e12)
POSITIVE = Range(0, open_low=True)
#: A worker count: each worker is a process with its own memory (:mod:`pdp_audit.verify.inputs.workers`).
WORKERS = Range(1, MAX_WORKERS)
#: What a user's own pair claims (``audit_pair``, the pytest plugin): any ε >= 0 (ε = 0 asks for δ(0), the total
#: variation), δ in [0, 1) (δ = 0, pure DP: a pass then certifies the δ upper bound it states, never δ = 0), and
#: budgets of 100 to 1e8 releases per world (losses are streamed, memory stays flat; 1e8 is about 20 s for a
#: Gaussian pair).
PAIR_EPSILON = Range(0)
PAIR_DELTA = Range(0, 1, open_high=True)
REFUTED_DELTA = PAIR_DELTA
PAIR_TRIALS = Range(100, 1e8)
#: The fresh releases per world of a black-box audit (``audit_blackbox``, ``pdp-audit blackbox --trials``): up to
#: 1e9, since the event test keeps only counts of them (its memory does not grow with the budget); the logistic test
#: keeps their scores and is refused before any draw where they do not fit (the memory check of
#: :mod:`pdp_audit.audits.blackbox.evidence`).
BLACKBOX_TRIALS = Range(100, 1e9)


@dataclass(frozen=True)
class Option:
    """One option of an audit: the field of its config that holds it, and how every way in spells and checks it.

    ``key`` names it in mappings (sweep specs, keywords, deployment files without the table); the command line's
    flag is ``--`` + ``key`` with dashes, unless ``flag`` says otherwise (``--no-reproduce`` for a true default).
    ``kind``: ``float``, ``int``, ``str``, ``bool`` (a flag) or ``size`` (``"n,d"``: two whole numbers, held as a
    tuple; canonical form the string).  ``choices`` restricts strings; ``range`` numbers; ``check`` is a further
    test of one value returning the reason it is wrong (or None); ``convert`` writes a ``str`` option's value given
    as other Python values (a mapping, a list: the API's keywords, a TOML table) in the option's text, raising
    ValueError with the reason it cannot, so that every way in is read by the one ``check`` of that text.
    ``table``: where a deployment file sets it (``claim``, ``parameters`` or ``audit`` for the budgets).  ``group``:
    options of one group exclude each other.  ``cli``: shown on the command line (False for what only mappings set).
    ``required``: None is refused in the option's words (a user-facing audit's claim), where it would otherwise reach
    the audit's arithmetic.
    """

    key: str
    kind: Kind
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    range: Range | None = None
    check: Callable[[Any], str | None] | None = None
    convert: Callable[[Any], str] | None = None
    table: Table = "parameters"
    table_key: str | None = None  # the key inside the table, if not ``key`` (``epsilon`` in [claim])
    group: str | None = None
    flag: str | None = None
    metavar: str | None = None
    cli: bool = True
    negate: bool = False  # a "no_…" flag: the config's attribute holds the opposite (``no_figures`` -> figures)
    required: bool = False  # None refused (a claim's ε and δ: no default would be a claim the user made)

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.key.replace("_", "-")

    @property
    def in_table(self) -> str:
        """The option as a deployment file names it: ``claim.epsilon``, ``parameters.sigma``, ``audit.trials``."""
        return f"{self.table}.{self.table_key or self.key}"

    def with_default(self, default: Any) -> Option:
        return dataclasses.replace(self, default=default)

    def valid(self) -> str:
        """What a valid value is, in words (the end of every error message about this option)."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "size":
            return "n,d (two whole numbers, e.g. 500,5)"
        if self.kind == "str":
            return "one of " + ", ".join(repr(c) for c in self.choices) if self.choices else "a string"
        what = "a whole number" if self.kind == "int" else "a finite number"
        bounds = self.range.text() if self.range is not None else ""
        return f"{what} {bounds}".strip()


def option(spec: Option, **overrides: Any) -> Any:
    """A config field declared by ``spec`` (with ``overrides``, e.g. another default for this audit)."""
    spec = dataclasses.replace(spec, **overrides) if overrides else spec
    return field(default=_attribute_value(spec, spec.default), metadata={"option": spec})


def _attribute_value(spec: Option, value: Any) -> Any:
    """What the config's attribute holds for the option's ``value`` (the opposite, for a negated flag)."""
    return (not value) if spec.negate and value is not None else value


def options(config_type: type) -> dict[str, Option]:
    """The options of a config type by key, in declaration order (the order ``--help`` lists them)."""
    declared = [f.metadata["option"] for f in dataclasses.fields(config_type) if "option" in f.metadata]
    return {o.key: o for o in declared}


def attribute_of(config_type: type) -> dict[str, str]:
    """Option key -> the config's attribute holding it."""
    return {f.metadata["option"].key: f.name for f in dataclasses.fields(config_type) if "option" in f.metadata}


# --------------------------------------------------------------------------------------------------
# The caller's words
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Names:
    """How the caller names options: ``spell(option)``; ``where`` starts every message (a file, a cell);
    ``text``: values come as text (the command line) and are parsed, else they must have their type."""

    spell: Callable[[Option], str]
    where: str = ""
    text: bool = False

    def __call__(self, option: Option) -> str:
        return self.spell(option)

    def error(self, message: str) -> InputError:
        return InputError(f"{self.where}{message}")


COMMAND_LINE = Names(lambda o: o.cli_flag, text=True)
KEYWORDS = Names(lambda o: o.key)


def in_file(where: str) -> Names:
    """A deployment file's names: ``claim.epsilon`` and ``parameters.sigma``, after the file's path."""
    return Names(lambda o: o.in_table, where=f"{shown(where)}: ")


def in_spec(where: str) -> Names:
    """A sweep spec's names (its keys), after the cell's place in the spec."""
    return Names(lambda o: o.key, where=f"{where}: ")


# --------------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------------
def parse(option: Option, value: Any, names: Names) -> Any:
    """``value`` as the option's type and canonical form (ints as int, "n,d" as a tuple), range checked; a
    one-line InputError naming the option in ``names``' words otherwise."""

    def bad() -> InputError:
        given = shown(value) if names.text else repr(value)  # text as typed on a command line (quoted if it holds a
        # line break or another unprintable character); else the value itself
        return names.error(f"{names(option)} must be {option.valid()}, got {given}")

    if value is None:
        if option.required:
            raise bad()
        return None
    if option.kind == "bool":
        if not isinstance(value, bool):
            raise bad()
        return value
    if option.kind == "str":
        if option.convert is not None and not isinstance(value, str):
            try:
                value = option.convert(value)
            except ValueError as err:
                raise names.error(f"{names(option)} {err}, got {value!r}"[:300]) from None
        if not isinstance(value, str) or (option.choices and value not in option.choices):
            raise bad()
        return _checked(option, value, names)
    if option.kind == "size":
        return _checked(option, _size(value, bad), names)
    if option.kind == "int" and names.text and isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value)  # exactly: a 63-bit seed does not survive a round trip through a double
    number = _number(value, names.text, bad)
    if option.kind == "int":
        if number != int(number):
            raise bad()
        number = int(value) if isinstance(value, numbers.Integral) else int(number)
    if option.range is not None and not option.range.contains(number):
        raise bad()
    return _checked(option, number, names)


def _number(value: Any, from_text: bool, bad: Callable[[], InputError]) -> float:
    if isinstance(value, bool):
        raise bad()
    if isinstance(value, str) and from_text:
        try:
            value = float(value)
        except ValueError:
            raise bad() from None
    if not isinstance(value, numbers.Real):  # int, float and numpy's scalars
        raise bad()
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the doubles (TOML's 10**400)
        raise bad() from None
    if not math.isfinite(number):
        raise bad()
    return number + 0.0  # -0.0 is 0.0: a claim δ typed "-0" was echoed as "δ = -0.0"


def _size(value: Any, bad: Callable[[], InputError]) -> tuple[int, int]:
    if isinstance(value, (tuple, list)) and len(value) == 2:
        parts = list(value)
    elif isinstance(value, str) and value.count(",") == 1:
        parts = [p.strip() for p in value.split(",")]
    else:
        raise bad()
    try:
        numbers = [float(p) for p in parts]
    except (TypeError, ValueError):
        raise bad() from None
    if not all(math.isfinite(x) and x == int(x) and x >= 0 for x in numbers):
        raise bad()
    return int(numbers[0]), int(numbers[1])


def _checked(option: Option, value: Any, names: Names) -> Any:
    why = option.check(value) if option.check is not None else None
    if why:
        raise names.error(f"{names(option)} {why}, got {canonical(option, value)!r}")
    return value


def canonical(option: Option, value: Any) -> Any:
    """The value as mappings and stores hold it (a size as ``"n,d"``), JSON-able."""
    if option.kind == "size" and value is not None:
        return f"{value[0]},{value[1]}"
    return value


def table_values(
    where: str,
    tables: Mapping[str, Mapping[str, Any]],
    declared: Mapping[str, Option],
    unknown: Callable[[str, str], str] | None = None,
    whose: str = "",
) -> dict[str, Any]:
    """The values a deployment file's tables (``[claim]``, ``[parameters]``, ``[audit]``) give, by option key: each
    ``table.key`` must be where an option of ``declared`` lives (its ``table`` and ``table_key``), so an audit
    declares its options once and every file reaches them by this one path.  Otherwise one InputError after
    ``where`` (the file): ``unknown(table, key)``, the audit's reason, else :func:`unknown_key` (``whose`` tables)."""
    by_table: dict[tuple[str, str], Option] = {(o.table, o.table_key or o.key): o for o in declared.values()}
    values: dict[str, Any] = {}
    for table, entries in tables.items():
        for key, value in entries.items():
            option = by_table.get((table, key))
            if option is None:
                why = unknown(table, key) if unknown else unknown_key(declared, table, key, whose)
                raise InputError(f"{where}: {why}")
            values[option.key] = value
    return values


def unknown_key(declared: Mapping[str, Option], table: str, key: str, whose: str = "", also: tuple = ()) -> str:
    """Why ``table.key`` is no option: unknown, the nearest key of the table as a hint, and the table's keys
    (``whose``: " of a program"; ``also``: keys the table has beside the options)."""
    allowed = [o.table_key or o.key for o in declared.values() if o.table == table] + list(also)
    hint = difflib.get_close_matches(key, allowed, n=1)
    suggestion = f"did you mean {hint[0]!r}? " if hint else ""
    return f"unknown key {quoted(table + '.' + key)}; {suggestion}[{table}]{whose} has {', '.join(allowed)}"


# --------------------------------------------------------------------------------------------------
# Building a config
# --------------------------------------------------------------------------------------------------
def build(
    config_type: type,
    values: Mapping[str, Any],
    names: Names = KEYWORDS,
    known: Mapping[str, Option] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Any:
    """The config of ``config_type`` from option keys and values (defaults for the rest), checked before any work.

    ``known``: the options a caller may set (default: all of the config's); ``extra``: config attributes that are
    not options (set by the audit's descriptor).  Unknown keys, wrong types, values out of range, two options of one
    group and the config's own rules (``check(names)``) are one-line InputErrors in the caller's words.
    """
    known = options(config_type) if known is None else known
    for key in values:
        if key not in known:
            raise names.error(unknown_option(key, known, names))
    for key, value in values.items():  # None is "not given" only where the option's default is None
        if value is None and known[key].default is not None and not known[key].required:  # (required: in order)
            raise names.error(f"{names(known[key])} must be {known[key].valid()}, got None")
    parsed = {key: parse(known[key], value, names) for key, value in values.items()}
    _one_per_group(known, {k: v for k, v in parsed.items() if v is not None and v is not False}, names)
    attributes = attribute_of(config_type)
    token = _NAMES.set(names)  # the config checks itself on construction, in the caller's words
    try:
        given = {attributes[key]: _attribute_value(known[key], value) for key, value in parsed.items()}
        return config_type(**given, **(extra or {}))
    finally:
        _NAMES.reset(token)


_NAMES: ContextVar[Names] = ContextVar("pdp_audit_option_names", default=KEYWORDS)


class AuditConfig:
    """Base of every audit's frozen config: it checks itself on construction -- every option's type and range,
    one option per group, then the audit's own rules (:meth:`check`) -- so that no config exists that is not
    valid, however it was made (:func:`build`, or the constructor with keywords)."""

    #: Every subclass is a dataclass: its fields are the options (read by ``dataclasses.fields``).
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    #: Whether the run also checks the papers' statements as printed: an audit with paper statements declares it as
    #: an option (:data:`PAPER_CLAIMS`); one without them has none to check.
    paper_claims: bool = False

    def __post_init__(self) -> None:
        self.resolve()
        names = _NAMES.get()
        known = {f.name: f.metadata["option"] for f in dataclasses.fields(self) if "option" in f.metadata}
        for attribute, option_ in known.items():  # typed as declared (an int option given 2e4 holds 20000)
            object.__setattr__(self, attribute, parse(option_, canonical(option_, getattr(self, attribute)), names))
        changed = {o.key: getattr(self, a) for a, o in known.items() if getattr(self, a) != option_default(o)}
        _one_per_group({o.key: o for o in known.values()}, changed, names)
        self.check(OptionNames(type(self), names))

    def resolve(self) -> None:
        """Fill in defaults that depend on other options (``object.__setattr__``: the config is frozen)."""

    def check(self, names: OptionNames) -> None:
        """The audit's rules between options, with one-line errors naming them as the caller does."""


def unknown_option(key: str, known: Mapping[str, Option], names: Names) -> str:
    """``unknown option 'x'; did you mean 'y'?`` with the valid ones, in the caller's words."""
    spelled = {names(o): o for o in known.values() if o.cli or not names.text}
    given = names(Option(key, "str", None, "")) if names.text else key
    close = difflib.get_close_matches(given, list(spelled), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown option {given!r}{hint} (valid: {', '.join(spelled)})"


def _one_per_group(known: Mapping[str, Option], parsed: Mapping[str, Any], names: Names) -> None:
    groups: dict[str, list[Option]] = {}
    for key, value in parsed.items():
        option_ = known[key]
        if option_.group is not None and value is not None and value is not False:
            groups.setdefault(option_.group, []).append(option_)
    for members in groups.values():
        if len(members) > 1:
            raise names.error(f"give one of {names(members[0])} and {names(members[1])}, not both")


class OptionNames:
    """The names of a config's options in the caller's words, by attribute: ``names.sigma`` is ``--sigma`` on
    the command line, ``parameters.sigma`` in a deployment file; ``names.error(...)`` starts with the place."""

    def __init__(self, config_type: type, names: Names):
        by_attribute = {f.name: f.metadata["option"] for f in dataclasses.fields(config_type) if "option" in f.metadata}
        self._spelled = {attr: names(o) for attr, o in by_attribute.items()}
        self._names = names

    def __getattr__(self, attribute: str) -> str:
        try:
            return self._spelled[attribute]
        except KeyError:
            raise AttributeError(attribute) from None

    def error(self, message: str) -> InputError:
        return self._names.error(message)

    @property
    def where(self) -> str:
        """What every message starts with (a file, a cell; empty on the command line and for keywords)."""
        return self._names.where


def option_default(spec: Option) -> Any:
    """The config attribute's default for ``spec``."""
    return _attribute_value(spec, spec.default)


def values_of(config: Any, keys: Any = None) -> dict[str, Any]:
    """The config's options as a mapping of keys to values as a caller gives them (a negated flag inverted back;
    every option, or those of ``keys``)."""
    known = options(type(config))
    attributes = attribute_of(type(config))
    chosen = known if keys is None else {k: known[k] for k in keys}
    return {key: _attribute_value(o, getattr(config, attributes[key])) for key, o in chosen.items()}


# --------------------------------------------------------------------------------------------------
# The options every audit shares (an audit may give one another default: ``option(TRIALS_OPTION, default=...)``)
# --------------------------------------------------------------------------------------------------
CLAIM_EPSILON = Option(
    "claim_epsilon", "float", 1.0, "claimed ε (default: 1)", range=EPSILON, table="claim", table_key="epsilon"
)
CLAIM_DELTA = Option(
    "claim_delta", "float", 1e-5, "claimed δ (default: 1e-5)", range=DELTA, table="claim", table_key="delta"
)
TRIALS_OPTION = Option(
    "trials",
    "int",
    1_000_000,
    "Monte Carlo samples per world (default: 1e6 unless the audit says otherwise)",
    range=TRIALS,
    table="audit",
)
SEED_OPTION = Option("seed", "int", 0, "root seed (default: 0)", range=SEED, table="audit")
ALPHA_OPTION = Option(
    "alpha", "float", 1e-6, "family-wise false-alarm probability of the run (default: 1e-6)", range=ALPHA, table="audit"
)
WORKERS_OPTION = Option(
    "workers", "int", 1, "worker processes (default: 1; results do not depend on it)", range=WORKERS, table="audit"
)
PAPER_CLAIMS = Option(
    "paper_claims",
    "bool",
    False,
    "also check the papers' statements as printed (an appendix of findings; never changes the exit code)",
    table="none",
)

#: What a verdict on the user's code is about.  ``as-implemented`` (the default): the floating-point program the user
#: ships -- every privacy check also reads the releases' structure as numbers
#: (:mod:`pdp_audit.verify.estimators.float_structure`), so a sampler whose doubles differ between the worlds fails
#: whatever its real-valued law (Mironov, CCS 2012; Haney et al. 2022).  ``ideal``: the real-valued law the sampler
#: stands for; the float implementation is not audited, and every certificate says so.
LAWS = ("as-implemented", "ideal")
LAW_OPTION = Option(
    "law",
    "str",
    "as-implemented",
    "what is certified: the floating-point program as implemented (as-implemented, the default: the releases' bit "
    "structure is read too) or the real-valued law its sampler stands for (ideal: the float implementation is not "
    "audited, and the certificate says so)",
    choices=LAWS,
    table="audit",
)
#: The one line every certificate states its scope in, by law.
LAW_SCOPES = {
    "as-implemented": "the floating-point program as implemented, its releases' bits included",
    "ideal": "the real-valued law; the float implementation was not audited",
}
#: The scope line of the built-in audits of the papers' mechanisms (their reference samplers stand for the law).
BUILT_IN_SCOPE = "the mathematical mechanism; audit shipped code with audit_pair or pdp-audit blackbox"

#: The data of a query on the rows of a dataset (the Gaussian, Laplace, geometric and randomized-response audits):
#: a shipped dataset or the user's CSV, and the column the query leaves out.
DATASET_OPTION = Option(
    "dataset",
    "str",
    None,
    "shipped dataset (default: diabetes, unless --data or --synthetic)",
    choices=tuple(sorted(SHIPPED)),
    group="data",
)
DATA_OPTION = Option(
    "data", "str", None, "your own numeric CSV with a header row (used as is; the query clips rows)", group="data"
)
TARGET_COLUMN_OPTION = Option("target_column", "str", None, "CSV column to leave out of the query (e.g. a label)")


# --------------------------------------------------------------------------------------------------
# A user's own pair (``pdp_audit.audit_pair`` and the other pair functions, the pytest plugin)
# --------------------------------------------------------------------------------------------------
PAIR_OPTIONS = {
    "epsilon": Option("epsilon", "float", None, "the claimed ε", range=PAIR_EPSILON),
    "delta": Option("delta", "float", None, "the claimed δ", range=PAIR_DELTA),
    "refuted_delta": Option("delta", "float", None, "the claimed δ", range=REFUTED_DELTA),
    "exact_delta": Option("exact_delta", "float", None, "a closed form of δ(ε)", range=REFUTED_DELTA),
    "rho": Option("rho", "float", None, "the claimed failure probability", range=Range(0, 1, True, True)),
    "trials": Option("trials", "int", 100_000, "samples per world", range=PAIR_TRIALS),
    "blackbox_trials": Option("trials", "int", None, "fresh releases per world", range=BLACKBOX_TRIALS),
    "train_trials": Option("train_trials", "int", None, "samples per world to learn from", range=PAIR_TRIALS),
    "seed": Option("seed", "int", 0, "root seed", range=SEED),
    "alpha": Option("alpha", "float", 1e-6, "false-alarm probability", range=ALPHA),
    "workers": Option("workers", "int", 1, "worker processes", range=WORKERS),
    # the default of every audit that can stop once decided (a user's pair, a joint release, the mutant zoo, the
    # plugin, the black box's fresh pass; issue 43): the budget a maximum; --no-early-stop (early_stop = false,
    # early_stop=False) the whole budget in one pass, the numbers of the versions before
    "early_stop": Option("early_stop", "bool", True, "stop once decided", table="audit", flag="--no-early-stop"),
    # a deadline for the looks of an audit that can stop once decided (a pair's pass, a coverage sampler's)
    "time_limit": Option(
        "time_limit",
        "float",
        None,
        "seconds from the start after which no further look of the pass is drawn, > 0: the run reports what the draws "
        "by then support at α (drawn in looks as with early stopping; the result then depends on the machine's speed)",
        range=POSITIVE,
        table="audit",
    ),
    "factory": Option(
        "factory",
        "str",
        None,
        "MODULE:FACTORY (a module of the current folder or an installed one) whose call returns the pair: what a "
        "sweep cell audits",
        check=lambda text: None if _is_target(text) else "must be MODULE:FACTORY (e.g. mymod:make)",
        table="none",
        cli=False,
    ),
}


def _is_target(text: str) -> bool:
    """``module:factory`` with a dotted module name and a (dotted) attribute."""
    module, colon, attr = text.partition(":")
    return bool(colon) and all(name.isidentifier() for name in (*module.split("."), *attr.split(".")))


def pair_value(name: str, value: Any, names: Names = KEYWORDS, required: bool = False) -> Any:
    """``value`` of the pair option ``name`` (:data:`PAIR_OPTIONS`) checked, as :func:`parse` does; ``required``:
    None refused too (where None would otherwise reach the audit's arithmetic, a TypeError after the first draws)."""
    option = PAIR_OPTIONS[name]
    return parse(dataclasses.replace(option, required=True) if required else option, value, names)
