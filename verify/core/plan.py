"""What one audit is, in one place: its descriptor.

Each family under ``audits/<family>/`` declares its config (``config.py``: a frozen dataclass whose fields are
the audit's options, :mod:`pdp_audit.verify.core.config`) and its :class:`AuditPlan` (``plan.py``);
:mod:`pdp_audit.catalogue.plans` names the plan modules in one table, one line an audit, and every way in --
``pdp-audit run``, ``certify``, ``sweep``, the pytest plugin, the Python API, the claims ledger -- builds the config
from a mapping with :func:`pdp_audit.verify.core.config.build` and runs it with :meth:`AuditPlan.execute`.
Nothing registers itself on import.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from pdp_audit.verify.core import processes
from pdp_audit.verify.core.checks import CheckSpec, id_matches, without_findings
from pdp_audit.verify.core.config import BUILT_IN_SCOPE, KEYWORDS, Names, Option, build, options
from pdp_audit.verify.core.processes import MEMORY_SHARE, executor_for
from pdp_audit.verify.estimators.progress import asking, audit_bar
from pdp_audit.verify.inputs.datasets import pinned_file
from pdp_audit.verify.inputs.validation import InputError

if TYPE_CHECKING:  # annotations only: a plan's module is imported by every command's parser
    from concurrent.futures import Executor

    from pdp_audit.reports.records import Run


@dataclass(frozen=True)
class Setting:
    """A setting the audit certifies (``options``, on top of the defaults) and, where one exists, options that
    deflate its noise until the claim is false (``deflated``): the rows of the certification table."""

    options: Mapping[str, Any] = field(default_factory=dict)
    deflated: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class WorstCase:
    """How an audit's config gives the worst-case neighbouring pair its run decides (``pair(config)``), and the
    option that holds the noise it ships (``noise``): what a joint release of several audits' releases takes as this
    release's part (:mod:`pdp_audit.audits.joint`)."""

    pair: Callable[[Any], Any]
    noise: str


@dataclass(frozen=True)
class AuditPlan:
    """One runnable audit.

    ``config``: the frozen config type (its fields are the options).  ``audit(config, executor, progress)`` runs it
    and returns the decided :class:`~pdp_audit.reports.records.Run` (``executor``: None for serial, or anything with
    ``map``, over which the audit spreads its seeded blocks).  ``checks``: the family's declared checks, by id;
    ``run_checks``: the ids a run builds beyond them (the checks at a pair under a prefix, a claim checked both ways);
    a ``{…}`` part of an id stands for a value the run fills in (``stage-{slug}``), and one run produces some of them
    only.  ``fixed``: config attributes this audit sets
    (``mechanism`` of a linear-regression audit); ``hidden``: options of a shared config this audit does not have.
    ``cost``: run time at the defaults relative to the Gaussian audit's (schedules the longest first).  ``quick``:
    the budget ``pdp-audit claims --run --quick`` gives it; ``smoke``: the smallest budget that still runs every code
    path (tests, fuzzing); ``settings``: the settings it certifies, each with the options that make its DP claim
    false (the certification table, :mod:`benchmarks.certify_defaults`).  ``chunked``: a sweep may split one cell's
    blocks over its workers.  ``bytes_per_trial``: the growth of its peak memory per unit of ``trials`` at the
    other defaults (measured by ``benchmarks/memory.py``, rounded up): a budget this machine cannot hold is refused
    before any work (:func:`check_memory`).  ``data_check(path, dataset)``: given ``--data`` and its table as
    ``load_csv(data, target_column)`` reads it, the InputError a run raises for the table's shape (its width cap),
    so that a sweep refuses the file when its spec is read, not when the cell runs.  ``worst_case``: where the audit
    can be one release of a joint release, its :class:`WorstCase`.
    """

    name: str
    help: str
    config: type
    audit: Callable[..., Run]
    checks: Mapping[str, CheckSpec]
    run_checks: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()
    cost: float = 1.0
    quick: Mapping[str, Any] = field(default_factory=dict)
    smoke: Mapping[str, Any] = field(default_factory=dict)
    settings: tuple[Setting, ...] = ()
    chunked: bool = True
    bytes_per_trial: float = 0.0
    data_check: Callable[[str, Any], None] | None = None
    worst_case: WorstCase | None = None

    def options(self) -> dict[str, Option]:
        """This audit's options by key, in the order ``pdp-audit run NAME --help`` lists them."""
        return {key: o for key, o in options(self.config).items() if key not in self.hidden}

    def configure(self, values: Mapping[str, Any], names: Names = KEYWORDS) -> Any:
        """The audit's config from option values (defaults for the rest), checked before any work -- its memory
        included (:func:`check_memory`)."""
        config = build(self.config, values, names, known=self.options(), extra=self.fixed)
        check_memory(self, config, names)
        return config

    def paper_option(self, paper_claims: bool) -> dict[str, bool]:
        """``paper_claims`` as an option value for :meth:`configure`, where the audit has paper statements to check
        (an audit without them has no such option: there is nothing to ask for)."""
        return {"paper_claims": bool(paper_claims)} if "paper_claims" in self.options() else {}

    def execute(self, config: Any, workers: int = 1, progress: bool = False) -> Run:
        """Run the audit on ``workers`` processes (the numbers do not depend on it), its paper findings left out
        unless the config asks for them: what ``pdp-audit run``, ``pdp_audit.run_audit`` and ``certify`` return."""
        with executor_for(workers) as executor:
            run = self.run(config, executor, progress)
        return run if config.paper_claims else without_findings(run)

    def run(self, config: Any, executor: Executor | None = None, progress: bool = False) -> Run:
        """Run the audit on ``executor`` (None: in this process).

        ``progress``: the bars of its passes and one of the whole audit, with the rate and the time left
        (:func:`pdp_audit.verify.estimators.progress.audit_bar`), on stderr.  A data file is pinned
        (:func:`~pdp_audit.verify.inputs.datasets.pinned_file`) and recorded by what was
        audited, not by how its path was typed: its file name and the SHA-256 of the bytes parsed, so ``--data
        d.csv``, ``./d.csv`` and an absolute path give the same report bytes.
        """
        # a papers' mechanism, drawn by its reference sampler: the mathematical mechanism is what is certified
        scope = {"scope": BUILT_IN_SCOPE}
        data = getattr(config, "data", None)
        if data is None:
            with asking(progress, self.name), audit_bar():
                run = self.audit(config, executor=executor, progress=progress)
            return replace(run, parameters={**run.parameters, **scope})
        with pinned_file(data) as pinned, asking(progress, self.name), audit_bar():
            run = self.audit(config, executor=executor, progress=progress)
            recorded = {"data": Path(data).name, "data_sha256": pinned.sha256}
        return replace(run, parameters={**run.parameters, **recorded, **scope})

    def check_ids(self) -> tuple[str, ...]:
        """Every id a run of this audit may produce, as declared (``{…}``: a value the run fills in)."""
        return (*self.checks, *self.run_checks)

    def has_check(self, check_id: str) -> bool:
        """Whether a run of this audit may produce ``check_id`` (:func:`pdp_audit.verify.core.checks.id_matches`)."""
        return any(id_matches(declared, check_id) for declared in self.check_ids())

    def paper_checks(self) -> set[str]:
        """The ids of the paper statements (findings) the family declares."""
        return {check_id for check_id, spec in self.checks.items() if spec.role == "paper"}


def check_memory(plan: AuditPlan, config: Any, names: Names = KEYWORDS) -> None:
    """Refuse, in one line naming ``trials``, a budget whose draws would not fit in :data:`MEMORY_SHARE` of this
    machine's memory (the audits keep every privacy loss they sample: the tails, the consistency bins and the
    figures are computed from them), rather than let it die of MemoryError after minutes of work."""
    total, trials = processes.physical_memory(), getattr(config, "trials", None)
    if not total or not plan.bytes_per_trial or trials is None:
        return
    largest = MEMORY_SHARE * total / plan.bytes_per_trial
    if trials > largest:
        option = plan.options()["trials"]
        raise names.error(
            f"{names(option)} {trials:g} needs about {trials * plan.bytes_per_trial / 1e9:.3g} GB of memory for the "
            f"{plan.name} audit; this process may use {total / 1e9:.3g} GB: at most {largest:.2g} trials here"
        )


@contextmanager
def named_keys(plan: Any, names: Any) -> Iterator[None]:
    """Inside the block, an InputError that names a command-line option of ``plan`` (the CSV reader's ``--data:
    cannot read …``, ``--target-column 'x' is not a column …``) names the deployment file's key instead, after the
    file: the user edits the key the message names."""
    try:
        yield
    except InputError as err:
        text = str(err)
        for option in plan.options().values():
            flag = option.cli_flag
            if text.startswith((f"{flag}:", f"{flag} ")):
                raise InputError(f"{names.where}{names(option)}{text[len(flag) :]}") from None
        raise


@dataclass(frozen=True)
class KindPlan:
    """One user-facing audit: the audit of what the user hands us -- a white-box pair, a sampler, canary scores, an
    event -- entered by a function of the API (``pdp_audit.audit_pair`` …), a command of its own, a deployment file,
    the pytest plugin or a sweep cell rather than by ``pdp-audit run NAME``.

    ``config``: its frozen config type (:class:`~pdp_audit.verify.core.config.AuditConfig`): the claim and the
    budget as options, and ``target`` -- what is audited, not an option (an object of the user's, set by the way
    in).  ``audit(config, progress)`` runs it and returns the decided :class:`~pdp_audit.reports.records.Run`.
    ``keywords``: the API's names of options whose keyword is not their key (``epsilon`` for ``claim_epsilon``), so
    that an error names the argument the caller typed.  Every way in builds the config with :meth:`configure`
    (:func:`pdp_audit.verify.core.config.build`) and runs it with :meth:`execute`.
    """

    name: str
    help: str
    config: type
    audit: Callable[..., Run]
    keywords: Mapping[str, str] = field(default_factory=dict)

    def options(self) -> dict[str, Option]:
        """The audit's options by key, in declaration order."""
        return options(self.config)

    def keyword_names(self) -> Names:
        """The API's words for the options (its keywords)."""
        return Names(lambda o: self.keywords.get(o.key, o.key))

    def configure(self, values: Mapping[str, Any], names: Names | None = None, target: Any = None) -> Any:
        """The config from option values (defaults for the rest; ``names``: the caller's words, the API's keywords
        by default) with ``target``, checked before any work."""
        names = self.keyword_names() if names is None else names
        ordered = {key: values[key] for key in self.options() if key in values}  # errors in declaration order
        ordered.update({key: value for key, value in values.items() if key not in ordered})  # unknown: refused
        return build(self.config, ordered, names, extra={"target": target})

    def execute(self, config: Any, progress: bool = False) -> Run:
        """Run the audit of ``config`` (``progress``: bars of its passes on stderr, as for :meth:`AuditPlan.run`)."""
        with asking(progress):
            return self.audit(config, progress=progress)
