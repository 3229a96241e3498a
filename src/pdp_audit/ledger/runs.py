"""The claims ledger, run: every entry decided by a run of today's code (``pdp-audit claims --run``).

An entry of status ``checked`` names the checks of one audit that decide it.  The run mode executes each
audit the selected entries cite **once** -- with ``--paper-claims`` when any of them cites a paper statement,
which adds the findings and leaves every guarantee's number unchanged (each role is its own family of tests,
:func:`pdp_audit.verify.core.checks.finalize`) -- on the sweep executors, in parallel over audits, and decides each
entry
from the checks it cites:

* ``fail`` when one of its checks fails, ``pass`` when all pass, ``inconclusive`` otherwise;
* ``not-simulable`` (with the ledger's reason) and ``planned`` entries are not run.

An entry decided by the ledger's own exact checks (``audit`` ``lemmas``, :mod:`pdp_audit.ledger.lemmas`)
runs just the checks the selected entries cite, each on random instances of its own stream, so its numbers do not
depend on which other checks run.

An entry decided by a sweep (``audit`` ``sweep``, :mod:`pdp_audit.ledger.rates`) cites rate checks: the cells of
each spec they read run once, as sweep cells on the same executor and in the same batch as the audits, and each rate
check is computed from the cells' results (a fitted exponent against the claimed one).  At ``--quick`` a spec runs
its declared sub-grid, or not at all (its rate checks inconclusive, its entries undecided).

The ledger's stored ``expected`` verdict is what the full-budget run gave when the finding was written;
``agrees`` compares the two: ``True`` when they are equal, ``False`` when they differ.  At ``--quick`` budgets
an inconclusive verdict where a decided one is expected is ``None`` (undecided at this budget, not a
contradiction); at the full budget it is ``False``.  Each audit runs at family-wise false-alarm probability
α = 1e-6, so a correct claim comes out ``fail`` in a whole run with probability at most (number of audits)·α.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shlex
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pdp_audit.ledger import rates
from pdp_audit.ledger.entries import LEMMAS, SWEEP, Entry, option_arguments
from pdp_audit.ledger.lemmas import run_lemmas
from pdp_audit.reports.check_reading import key_number as check_key_number
from pdp_audit.reports.json_report import check_to_dict, code_version, library_versions, package_version
from pdp_audit.reports.records import Check, Run
from pdp_audit.sweeps.spec import CellTask
from pdp_audit.verify.core.checks import VERDICT_ORDER, worst
from pdp_audit.verify.estimators.progress import progress_bar

ALPHA = 1e-6


def audit_argv(audit: str, options: Mapping[str, Any], paper_claims: bool, seed: int, quick: bool) -> list[str]:
    """The command line (after ``pdp-audit``) of an audit run as the ledger cites it: its options after the
    ``--quick`` budget, the seed, ``--paper-claims`` if asked, no report."""
    budget = _plan(audit).quick if quick else {}
    argv = ["run", audit, *option_arguments(audit, {**budget, **options}), "--seed", str(seed)]
    return argv + (["--paper-claims"] if paper_claims else []) + ["--report", "none", "--quiet"]


def run_cited_audit(audit: str, options: Mapping[str, Any], paper_claims: bool, seed: int, quick: bool) -> Run:
    """Run one audit of ``pdp-audit run`` in this process, as the entries citing it ask: the only place the ledger
    starts an audit.  Its config is built from the entries' options, the audit's ``--quick`` budget, the seed and
    ``paper_claims`` as every other way in builds it (:meth:`~pdp_audit.verify.core.plan.AuditPlan.configure`)."""
    plan = _plan(audit)
    budget = plan.quick if quick else {}
    config = plan.configure({**budget, **options, "seed": seed, **plan.paper_option(paper_claims)})
    return plan.run(config)


def _plan(audit: str):
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

    return plans_by_name()[audit]


@dataclass(frozen=True)
class AuditCommand:
    """One run serving every selected entry that cites it.

    ``key`` names the run the entries cite: ``run AUDIT [OPTIONS]`` for an audit of ``pdp-audit run``
    (``run gaussian``, ``run privacy-report --mode adaptive``), ``lemmas`` for the ledger's exact checks (``checks``:
    the ones the entries cite) and ``sweep SPEC`` for a sweep's cells (:func:`sweep_runs`).
    """

    key: str
    audit: str
    seed: int
    quick: bool
    options: Mapping[str, Any] = field(default_factory=dict)
    paper_claims: bool = False
    checks: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        """The run as a command line (what the report's appendix and the JSON show)."""
        if self.audit == LEMMAS:
            return f"pdp-audit claims --run --seed {self.seed}"
        if self.audit == SWEEP:
            return f"pdp-audit {self.key}"
        return "pdp-audit " + shlex.join(audit_argv(self.audit, self.options, self.paper_claims, self.seed, self.quick))


def run_key(entry: Entry) -> str:
    """The run an entry cites: ``run AUDIT [OPTIONS]`` (without ``--paper-claims``), ``lemmas``, or its sweeps."""
    if entry.audit == LEMMAS:
        return LEMMAS
    if entry.audit == SWEEP:
        return " && ".join(sweep_keys(entry))
    assert entry.audit is not None  # a checked entry names its audit
    return "run " + shlex.join([entry.audit, *option_arguments(entry.audit, entry.options)])


def sweep_keys(entry: Entry) -> list[str]:
    """The sweeps (``sweep SPEC``) an entry decided by rate checks reads."""
    return [f"{SWEEP} {spec}" for spec in entry.specs]


def audit_commands(entries: Sequence[Entry], seed: int, quick: bool) -> list[AuditCommand]:
    """The runs the ``checked`` entries cite, each once, with its budget, seed, paper findings if cited and, for
    the ledger's exact checks, just the checks cited (a sweep spec's cells run as tasks of their own,
    :func:`sweep_runs`)."""
    wanted: dict[str, AuditCommand] = {}
    for e in entries:
        if e.status != "checked":
            continue
        if e.audit == SWEEP:
            wanted.update({key: AuditCommand(key, SWEEP, seed, quick) for key in sweep_keys(e)})
            continue
        key = run_key(e)
        assert e.audit is not None  # a checked entry names its audit
        cited = wanted.get(key, AuditCommand(key, e.audit, seed, quick, dict(e.options)))
        checks = tuple(dict.fromkeys((*cited.checks, *e.checks))) if e.audit == LEMMAS else ()
        wanted[key] = dataclasses.replace(cited, paper_claims=cited.paper_claims or e.paper_claims, checks=checks)
    return [wanted[key] for key in sorted(wanted)]


def execute_audit(
    parameters: dict, seed: int, alpha: float, checks: tuple[str, ...] | None, executor: Executor | None = None
) -> Run:
    """Run one cited audit in this process (a sweep cell function; ``checks``: the lemma checks to compute)."""
    if parameters["audit"] == LEMMAS:
        return run_lemmas(seed, alpha, checks)
    return run_cited_audit(**parameters, seed=seed)


def tasks(commands: Sequence[AuditCommand]) -> list[CellTask]:
    """One sweep task per audit run (the cells of the sweeps are :func:`sweep_runs`'s)."""
    return [
        CellTask(c.key, c.audit, execute_audit, _parameters(c), c.seed, ALPHA, c.checks or None, _cost(c.audit))
        for c in commands
        if c.audit != SWEEP
    ]


def _parameters(command: AuditCommand) -> dict:
    """What :func:`execute_audit` needs besides the seed: the audit and how the entries cite it."""
    if command.audit == LEMMAS:
        return {"audit": LEMMAS}
    return {
        "audit": command.audit,
        "options": dict(command.options),
        "paper_claims": command.paper_claims,
        "quick": command.quick,
    }


def sweep_runs(commands: Sequence[AuditCommand]) -> dict[str, rates.SweepRun]:
    """The cells to run of every sweep among ``commands``, by key."""
    return {c.key: rates.sweep_run(c.key.split(" ", 1)[1], c.seed, c.quick) for c in commands if c.audit == SWEEP}


@dataclass(frozen=True)
class SweepChecks:
    """The rate checks computed from one sweep's cells (in :attr:`LedgerRun.runs` beside the audits' runs)."""

    checks: tuple[Check, ...]
    cells: int
    findings: tuple[Check, ...] = ()


def rate_checks(entries: Sequence[Entry], sweeps: dict[str, rates.SweepRun]) -> dict[str, SweepChecks]:
    """Every rate check the entries cite, computed from its sweep's cells, grouped by sweep."""
    cited = dict.fromkeys(c for e in entries if e.status == "checked" and e.audit == SWEEP for c in e.checks)
    out = {}
    for key, run in sweeps.items():
        checks = tuple(rates.rate_check(rates.RATES[c], run) for c in cited if f"{SWEEP} {rates.RATES[c].spec}" == key)
        out[key] = SweepChecks(checks, len(run.cells))
    return out


def _cost(audit: str) -> float:
    """The audit's run time relative to the Gaussian audit's (its plan's ``cost``): the longest start first."""
    return 1.0 if audit == LEMMAS else _plan(audit).cost


@dataclass(frozen=True)
class Decision:
    """An entry decided by a run: its verdict, the stored expectation, whether they agree, and the evidence."""

    entry: Entry
    verdict: str
    agrees: bool | None
    checks: tuple[Check, ...] = ()
    command: str = ""
    key_number: str = ""
    reason: str = ""

    @property
    def expected(self) -> str:
        return self.entry.expected


@dataclass
class LedgerRun:
    """Every selected entry decided, with the audit runs behind them."""

    decisions: list[Decision]
    runs: dict[str, Run | SweepChecks]
    commands: list[AuditCommand]
    seed: int
    quick: bool

    def disagreements(self) -> list[Decision]:
        return [d for d in self.decisions if d.agrees is False]

    def failures(self) -> list[Decision]:
        return [d for d in self.decisions if d.verdict == "fail"]

    def exit_code(self, strict: bool) -> int:
        """0 every computed verdict agrees; 1 one disagrees (or, with ``strict``, a claim fails)."""
        return 1 if self.disagreements() or (strict and self.failures()) else 0


def decide(
    entry: Entry, runs: Mapping[str, Run | SweepChecks], commands: dict[str, AuditCommand], quick: bool
) -> Decision:
    """Decide ``entry`` from the checks it cites in its audit's run."""
    if entry.status != "checked":
        verdict = "not-simulable" if entry.status == "not simulable" else "planned"
        agrees = verdict == entry.expected if entry.status == "not simulable" else None
        return Decision(entry, verdict, agrees, reason=entry.evidence)
    cited = sweep_keys(entry) if entry.audit == SWEEP else [run_key(entry)]
    found = {c.id: c for key in cited for c in (*runs[key].checks, *(runs[key].findings or ()))}
    missing = [c for c in entry.checks if c not in found]
    if missing:  # a ledger entry citing a check its audit no longer produces is a bug of ours, not a verdict
        raise RuntimeError(f"ledger entry {entry.id} cites checks {missing} that `{entry.command}` does not produce")
    checks = tuple(found[c] for c in entry.checks)
    verdict = worst(c.verdict for c in checks)
    if verdict == entry.expected:
        agrees = True
    elif verdict == "inconclusive" and quick:
        agrees = None
    else:
        agrees = False
    command = " && ".join(commands[key].command for key in cited)
    return Decision(entry, verdict, agrees, checks, command, key_number(checks))


def key_number(checks: Sequence[Check]) -> str:
    """The number a reader looks at first: the worst check's, read as its own page reads it
    (:func:`pdp_audit.reports.check_reading.key_number`)."""
    check = max(checks, key=lambda c: VERDICT_ORDER[c.verdict])
    return f"{check.id}: {check_key_number(check)}"


def run_ledger(
    entries: Sequence[Entry], seed: int, quick: bool, executor, on_audit=None, progress: bool = False
) -> LedgerRun:
    """Run every audit the entries cite on ``executor`` and decide every entry (``on_audit(label, outcome)`` after
    each audit or sweep cell; ``progress``: a bar of them, with the estimated time left, on a terminal's stderr)."""
    commands = audit_commands(entries, seed, quick)
    sweeps = sweep_runs(commands)
    cells = [t for run in sweeps.values() for t in run.tasks()]
    runs: dict[str, Run | SweepChecks] = {}
    done = dict.fromkeys(sweeps, 0)
    todo = [*tasks(commands), *cells]
    counted = progress_bar(len(todo), "pdp-audit claims --run", "audit", progress)
    with contextlib.closing(executor.run(todo)) as results, counted as bar:
        for task, outcome in results:
            key = task.cell_id.split("#", 1)[0]
            if key in sweeps:  # a sweep cell: the progress line names the sweep and how many of its cells are done
                sweeps[key].add(task.cell_id, outcome["result"])
                done[key] += 1
                label = f"{key} cell {done[key]}/{len(sweeps[key].cells)}"
            else:
                runs[task.cell_id] = outcome["result"]
                label = task.cell_id
            if on_audit is not None:
                on_audit(label, outcome)
            if bar is not None:
                bar.update(1)
    runs.update(rate_checks(entries, sweeps))
    by_key = {c.key: c for c in commands}
    decisions = [decide(e, runs, by_key, quick) for e in entries]
    return LedgerRun(decisions, runs, commands, seed, quick)


def rerun_command(entry: Entry, seed: int, quick: bool) -> str:
    """The command that reruns one entry alone (same seed and budget: the same numbers)."""
    return f"pdp-audit claims --run --only {entry.id} --seed {seed}" + (" --quick" if quick else "")


def document(result: LedgerRun) -> dict:
    """The JSON document other tools read (see the claims issue): entries with verdict, expectation, agreement and
    the full records of the checks that decided them; the audit commands; seed and version.  No timings, so the
    same seed gives byte-identical files."""
    entries = []
    for d in result.decisions:
        e = d.entry
        entries.append(
            {
                "id": e.id,
                "paper": e.paper,
                "where": e.where,
                "statement": e.statement,
                "kind": e.kind,
                "status": e.status,
                "verdict": d.verdict,
                "expected": d.expected,
                "agrees": d.agrees,
                "key_number": d.key_number,
                "checks": [check_to_dict(c) for c in d.checks],
                "command": d.command or None,
                "rerun": rerun_command(e, result.seed, result.quick),
                "finding": e.finding,
                "reason": d.reason or None,
            }
        )
    verdicts = [d.verdict for d in result.decisions]
    return {
        "schema": 1,
        "tool": "pdp-audit claims --run",
        "entries": entries,
        "counts": {v: verdicts.count(v) for v in ("pass", "fail", "inconclusive", "not-simulable", "planned")},
        "disagreements": [d.entry.id for d in result.disagreements()],
        "audits": {c.key: c.command for c in result.commands},
        "alpha_per_audit": ALPHA,
        "quick": result.quick,
        "seed": result.seed,
        "version": package_version(),
        "code_version": code_version(),
        "versions": library_versions(),
    }
