"""The claims ledger, run: every entry decided by a run of today's code (``pdp-audit claims --run``).

An entry of status ``checked`` names the checks of one audit that decide it.  The run mode executes each
audit the selected entries cite **once** -- with ``--paper-claims`` when any of them cites a paper statement,
which adds the findings and leaves every guarantee's number unchanged (each role is its own family of tests,
:func:`pdp_audit.verify.checks.finalize`) -- on the sweep executors, in parallel over audits, and decides each entry
from the checks it cites:

* ``fail`` when one of its checks fails, ``pass`` when all pass, ``inconclusive`` otherwise;
* ``not-simulable`` (with the ledger's reason) and ``planned`` entries are not run.

An entry decided by a sweep (``audit`` ``sweep``, :mod:`pdp_audit.verify.ledger.rates`) cites rate checks: the cells of
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

import shlex
from dataclasses import dataclass
from typing import Sequence

from pdp_audit.reports.records import Check, Run
from pdp_audit.verify.checks import VERDICT_ORDER, worst
from pdp_audit.verify.ledger import rates
from pdp_audit.verify.ledger.entries import Entry
from pdp_audit.verify.sweeps.spec import CellTask

ALPHA = 1e-6
LEMMAS = "lemmas"  # the pseudo-audit of the ledger's own exact checks

#: The budget options ``--quick`` adds to each audit's command (each audit's defaults otherwise).
QUICK_BUDGETS: dict[str, tuple[str, ...]] = {
    "gaussian": ("--trials", "20000"),
    "goe-release": ("--trials", "20000", "--matrices", "5000"),
    "output-perturbation": ("--trials", "20000", "--search", "32"),
    "ops": ("--trials", "20000", "--search", "32"),
    "adaops": ("--trials", "20000", "--search", "32"),
    "adassp": ("--trials", "20000", "--search", "32"),
    "ssp": ("--trials", "20000", "--search", "32"),
    "objpert": ("--trials", "20000", "--search-trials", "400"),
    "privacy-report": ("--trials", "20000", "--repetitions", "2000"),
}


@dataclass(frozen=True)
class AuditCommand:
    """One audit run serving every selected entry that cites it: the argument vector after ``pdp-audit``.

    ``key`` identifies the run the entries cite: their command without ``pdp-audit`` and ``--paper-claims``
    (``run gaussian``; ``run gaussian --claim-delta 1e-6`` for an entry whose command sets options).
    """

    key: str
    audit: str
    argv: tuple[str, ...]

    @property
    def command(self) -> str:
        return "pdp-audit " + shlex.join(self.argv)


def run_key(entry: Entry) -> str:
    """The run an entry cites: its command without ``pdp-audit`` and ``--paper-claims`` (``lemmas`` for the
    ledger's own checks)."""
    if entry.audit == LEMMAS:
        return LEMMAS
    if entry.audit == rates.SWEEP:  # the sweeps its rate checks read (see :func:`sweep_keys`)
        return " && ".join(sweep_keys(entry))
    return shlex.join(a for a in shlex.split(entry.command)[1:] if a != "--paper-claims")


def sweep_keys(entry: Entry) -> list[str]:
    """The sweeps (``sweep SPEC``) an entry decided by rate checks reads."""
    return [f"{rates.SWEEP} {spec}" for spec in rates.specs_of(entry.checks)]


def audit_commands(entries: Sequence[Entry], seed: int, quick: bool) -> list[AuditCommand]:
    """The runs the ``checked`` entries cite, each once, with its budget, seed and paper findings if cited (a
    sweep spec as ``pdp-audit sweep SPEC``: its cells run as tasks of their own, :func:`sweep_runs`)."""
    wanted: dict[str, tuple[str, bool]] = {}
    for e in entries:
        if e.status == "checked" and e.audit == rates.SWEEP:
            for key in sweep_keys(e):
                wanted[key] = (rates.SWEEP, False)
        elif e.status == "checked":
            key = run_key(e)
            paper = wanted.get(key, (e.audit, False))[1] or "--paper-claims" in e.command
            wanted[key] = (e.audit, paper)
    commands = []
    for key, (audit, paper) in sorted(wanted.items()):
        if audit == LEMMAS:  # the ledger's own exact checks (verify/ledger/lemmas.py): no budget to choose
            commands.append(AuditCommand(key, audit, ("claims", "--run", "--seed", str(seed))))
            continue
        if audit == rates.SWEEP:  # cells seeded from the ledger's seed, as `[sweep] seed = SEED` would
            commands.append(AuditCommand(key, audit, tuple(shlex.split(key))))
            continue
        run, name, *options = shlex.split(key)
        argv = [run, name, *(QUICK_BUDGETS[audit] if quick else ()), *options, "--seed", str(seed)]
        argv += ["--paper-claims"] if paper else []
        commands.append(AuditCommand(key, audit, tuple(argv + ["--report", "none", "--quiet"])))
    return commands


def execute_audit(parameters: dict, seed: int, alpha: float, checks, executor=None) -> Run:
    """Run one audit command in this process (a sweep cell function: ``parameters = {"argv": [...]}``)."""
    from pdp_audit.verify.plans.arguments import parse_run
    from pdp_audit.verify.plans.catalogue import plans_by_name

    if parameters["argv"][0] == "claims":
        from pdp_audit.verify.ledger.lemmas import run_lemmas

        return run_lemmas(seed, alpha)
    args = parse_run(list(parameters["argv"]))
    return plans_by_name()[args.mechanism].execute(args)


def tasks(commands: Sequence[AuditCommand], seed: int) -> list[CellTask]:
    """One sweep task per audit command (its seed is in the command; ``seed`` is recorded for the store); the
    cells of the sweeps are :func:`sweep_runs`'s."""
    return [
        CellTask(c.key, c.audit, execute_audit, {"argv": list(c.argv)}, seed, ALPHA, None, _COST.get(c.audit, 1.0))
        for c in commands
        if c.audit != rates.SWEEP
    ]


def sweep_runs(commands: Sequence[AuditCommand], seed: int, quick: bool) -> dict[str, rates.SweepRun]:
    """The cells to run of every sweep among ``commands``, by key."""
    return {c.key: rates.sweep_run(c.argv[1], seed, quick) for c in commands if c.audit == rates.SWEEP}


@dataclass(frozen=True)
class SweepChecks:
    """The rate checks computed from one sweep's cells (in :attr:`LedgerRun.runs` beside the audits' runs)."""

    checks: tuple[Check, ...]
    cells: int
    findings: tuple[Check, ...] = ()


def rate_checks(entries: Sequence[Entry], sweeps: dict[str, rates.SweepRun]) -> dict[str, SweepChecks]:
    """Every rate check the entries cite, computed from its sweep's cells, grouped by sweep."""
    cited = dict.fromkeys(c for e in entries if e.status == "checked" and e.audit == rates.SWEEP for c in e.checks)
    out = {}
    for key, run in sweeps.items():
        checks = tuple(
            rates.rate_check(rates.RATES[c], run) for c in cited if f"{rates.SWEEP} {rates.RATES[c].spec}" == key
        )
        out[key] = SweepChecks(checks, len(run.cells))
    return out


# Relative run times at the defaults (benchmarks/certify_defaults.py): the longest start first.
_COST = {"objpert": 6.0, "privacy-report": 6.0, "adaops": 3.0, "goe-release": 2.5, "adassp": 2.0, "ssp": 2.0}


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
    runs: dict[str, Run]
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


def decide(entry: Entry, runs: dict[str, Run], commands: dict[str, AuditCommand], quick: bool) -> Decision:
    """Decide ``entry`` from the checks it cites in its audit's run."""
    if entry.status != "checked":
        verdict = "not-simulable" if entry.status == "not simulable" else "planned"
        agrees = verdict == entry.expected if entry.status == "not simulable" else None
        return Decision(entry, verdict, agrees, reason=entry.evidence)
    cited = sweep_keys(entry) if entry.audit == rates.SWEEP else [run_key(entry)]
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
    """The number a reader looks at first: the worst check's estimate, its interval and the exact value."""
    check = max(checks, key=lambda c: VERDICT_ORDER[c.verdict])
    parts = [check.id]
    if check.estimate is not None:
        parts.append(f"estimate {check.estimate:.4g}")
    if check.ci is not None:
        parts.append(f"CI [{check.ci[0]:.4g}, {check.ci[1]:.4g}]")
    if check.exact is not None:
        parts.append(f"exact {check.exact:.4g}")
    return " ".join(parts)


def run_ledger(entries: Sequence[Entry], seed: int, quick: bool, executor, on_audit=None) -> LedgerRun:
    """Run every audit the entries cite on ``executor`` and decide every entry."""
    import contextlib

    commands = audit_commands(entries, seed, quick)
    sweeps = sweep_runs(commands, seed, quick)
    cells = [t for run in sweeps.values() for t in run.tasks()]
    runs: dict[str, Run | SweepChecks] = {}
    done = dict.fromkeys(sweeps, 0)
    with contextlib.closing(executor.run([*tasks(commands, seed), *cells])) as results:
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
    from pdp_audit.reports.json_report import check_to_dict, library_versions, package_version

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
        "versions": library_versions(),
    }
