"""The claims ledger: every checkable claim of the three papers and what the suite has found about it.

One :class:`Entry` per checkable claim (K1–K36), per printed ambiguity or suspected typo (Q1–Q53) and per
numbered result of the three papers that makes a checkable quantitative statement.  The entries are package
data, one TOML file per paper (``entries/pdp.toml``, ``rw.toml``, ``lr.toml``: an array of ``[[entry]]``
tables under the file's ``paper``); ``entries/shared.toml`` holds the runs the findings come from, the issues,
the items left out and the passages several findings share.  This module reads, types, validates and filters
them.

Status of an entry, and the fields it needs:

* ``checked`` -- ``checks`` names check ids that decide it, computed by one of
  - an audit of ``pdp-audit run``: ``audit`` (its name), ``options`` (its run options, underscores for hyphens,
    typed values: ``{ mode = "adaptive" }``) and ``paper_claims`` (whether a cited check is a paper statement,
    computed only with ``--paper-claims``);
  - ``audit = "lemmas"``: the ledger's own exact checks (:mod:`pdp_audit.ledger.lemmas`);
  - ``audit = "sweep"``: rate checks read off the cells of the shipped sweep ``specs``
    (:mod:`pdp_audit.ledger.rates`);

  and ``expected`` is the verdict (the worst of its checks') the full-budget run gave;
* ``planned`` -- ``issue`` is the issue that will check it (:data:`ISSUES`);
* ``not simulable`` -- ``reason`` says why.

``finding`` is empty unless a run of the suite established something (see :data:`FINDINGS_RUN`); it is
rendered from a template whose numbers and verdicts are the entry's ``values`` and ``quoted``
(:mod:`pdp_audit.ledger.findings`).  The command an entry shows is generated from its data
(:attr:`Entry.command`).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field, fields
from importlib import resources
from typing import Any, Mapping

from pdp_audit.catalogue.arguments import command_line
from pdp_audit.ledger.findings import Template, render

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PAPERS = ("PDP", "RW", "LR")
STATUSES = ("checked", "planned", "not simulable")
KINDS = (
    "closed-form identity",
    "inequality/bound",
    "high-probability bound",
    "calibration/DP claim",
    "numeric value",
    "experiment setting",
    "typo/ambiguity",
    "citation-not-simulable",
)
LEMMAS = "lemmas"  # the ``audit`` of an entry decided by the ledger's own exact checks
SWEEP = "sweep"  # the ``audit`` of an entry decided by rate checks of sweeps

#: The verdicts a run may give an entry of each status (``expected`` is the one the full-budget run gave).
EXPECTED = {
    "checked": ("pass", "fail", "inconclusive"),
    "planned": ("planned",),
    "not simulable": ("not-simulable",),
}

_ID = re.compile(r"^(K\d+|Q\d+|(PDP|RW|LR)-(Thm|Lem|Prop|Cor|Rem|Ex|Fact)[0-9A-Z][0-9.]*)$")
_OPTION = re.compile(r"^[a-z][a-z0-9_]*$")


def option_arguments(audit: str, options: Mapping[str, Any]) -> list[str]:
    """Run options as ``pdp-audit run AUDIT`` spells them, from its declared options:
    ``{"claim_delta": 1e-6, "no_reproduce": True}`` -> ``--claim-delta 1e-6 --no-reproduce``."""
    # deferred: read at call time (tests replace plans.plans_by_name)
    from pdp_audit.catalogue.plans import plans_by_name

    return command_line(plans_by_name()[audit], dict(options))


@dataclass(frozen=True)
class Entry:
    """One claim of a paper: where it is printed, what it states, its kind and status, and how it is checked."""

    id: str
    paper: str
    where: str
    statement: str
    kind: str
    status: str
    audit: str | None = None
    checks: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    paper_claims: bool = False
    specs: tuple[str, ...] = ()
    issue: int | None = None
    reason: str | None = None
    finding: str = ""
    quoted: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, float] = field(default_factory=dict)
    note: str = ""
    expected: str = ""

    @property
    def section(self) -> str:
        """Which kind of item this is: a checkable claim (K), a printed ambiguity (Q) or a numbered result."""
        if self.id[1:].isdigit():
            return {"K": "checkable claim", "Q": "printed ambiguity"}[self.id[0]]
        return "numbered result"

    @property
    def command(self) -> str | None:
        """The command that computes the entry's checks, as a reader would type it (None unless checked)."""
        if self.status != "checked":
            return None
        assert self.audit is not None  # a checked entry names its audit (_run_problems)
        if self.audit == LEMMAS:
            return "pdp-audit claims --run"
        if self.audit == SWEEP:
            return " && ".join(f"pdp-audit sweep {spec}" for spec in self.specs)
        words = ["pdp-audit", "run", self.audit, *option_arguments(self.audit, self.options)]
        return shlex.join(words + (["--paper-claims"] if self.paper_claims else []))

    @property
    def evidence(self) -> str:
        """One line: the checks and their command, the planned issue, or why it cannot be simulated."""
        if self.status == "checked":
            return f"{', '.join(self.checks)}  [{self.command}]"
        if self.status == "planned":
            return f"#{self.issue} {'' if self.issue is None else ISSUES.get(self.issue, '')}".rstrip()
        return self.reason or ""

    def to_dict(self) -> dict:
        """The entry as ``pdp-audit claims --json`` lists it (its command generated, its finding rendered)."""
        names = ("id", "paper", "where", "statement", "kind", "status", "audit", "checks", "command", "issue")
        d = {name: getattr(self, name) for name in names}
        d["checks"] = list(self.checks)
        d.update(reason=self.reason, finding=self.finding, note=self.note, expected=self.expected)
        d["section"] = self.section
        return d


def _problems(entry: Entry) -> list[str]:
    p = []
    if not _ID.match(entry.id):
        p.append("malformed id")
    if entry.paper not in PAPERS:
        p.append(f"paper {entry.paper!r} not in {PAPERS}")
    if entry.kind not in KINDS:
        p.append(f"kind {entry.kind!r} not in {KINDS}")
    if entry.status not in STATUSES:
        p.append(f"status {entry.status!r} not in {STATUSES}")
    if not entry.where.strip() or not entry.statement.strip():
        p.append("empty where/statement")
    if entry.id.startswith("Q") and entry.kind != "typo/ambiguity":
        p.append("a Q item must be of kind typo/ambiguity")
    if entry.status == "checked":
        p += _run_problems(entry)
    elif entry.audit or entry.checks or entry.options or entry.paper_claims or entry.specs:
        p.append(f"a {entry.status} entry names no audit, checks, options or specs")
    if entry.status == "planned" and entry.issue not in ISSUES:
        p.append(f"planned needs an issue in {sorted(ISSUES)}")
    if entry.status == "not simulable" and not (entry.reason or "").strip():
        p.append("not simulable needs a reason")
    if entry.status in EXPECTED and entry.expected not in EXPECTED[entry.status]:
        p.append(f"expected verdict {entry.expected!r} not in {EXPECTED[entry.status]} for status {entry.status!r}")
    return p


def _run_problems(entry: Entry) -> list[str]:
    """What a checked entry's run data lacks or has too much of."""
    if not (entry.audit and entry.checks):
        return ["checked needs audit and checks"]
    p = []
    if (entry.audit == SWEEP) != bool(entry.specs):
        p.append("specs belong to (and are needed by) an entry decided by a sweep")
    if entry.audit in (LEMMAS, SWEEP) and (entry.options or entry.paper_claims):
        p.append(f"options and paper_claims belong to an audit of `pdp-audit run`, not to {entry.audit!r}")
    bad = [k for k, v in entry.options.items() if not _OPTION.match(k) or v is False or isinstance(v, (list, dict))]
    if bad:
        p.append(f"malformed options {bad} (names with underscores; a flag is true or left out)")
    return p


def _order(row: dict) -> tuple[int, int]:
    """Checkable claims by number, then printed ambiguities by number, then numbered results by paper (each paper's
    in file order: the sort is stable) -- the listing's order."""
    prefix, number = row["id"][0], row["id"][1:]
    if number.isdigit():
        return ("KQ".index(prefix), int(number))
    return (2, PAPERS.index(row["paper"]) if row["paper"] in PAPERS else len(PAPERS))


def _build(rows: list[dict], passages: Mapping[str, dict] | None = None) -> tuple[Entry, ...]:
    """Typed and validated entries from their data rows, findings rendered (ValueError listing every problem)."""
    rows = sorted(rows, key=_order)
    sources = {name: _template(p, "text") for name, p in (passages or {}).items()}
    sources.update({row["id"]: _template(row, "finding") for row in rows if row.get("finding")})
    entries, problems = [], []
    for row in rows:
        entry, found = _entry(row, sources)
        entries.append(entry)
        problems += [f"{entry.id}: {msg}" for msg in found + _problems(entry)]
    seen = Counter(e.id for e in entries)
    problems += [f"{i}: appears {n} times" for i, n in seen.items() if n > 1]
    if problems:
        raise ValueError("invalid claims ledger: " + "; ".join(problems))
    return tuple(entries)


def _entry(row: dict, sources: Mapping[str, Template]) -> tuple[Entry, list[str]]:
    """One row as an entry, its finding rendered from ``sources``, and what is wrong with the row's data."""
    known = {f.name for f in fields(Entry)}
    problems = [f"unknown fields {sorted(set(row) - known)}"] if set(row) - known else []
    row = {k: v for k, v in row.items() if k in known}
    row.update(checks=tuple(row.get("checks") or ()), specs=tuple(row.get("specs") or ()))
    if row.get("status") in ("planned", "not simulable"):
        row.setdefault("expected", EXPECTED[row["status"]][0])
    if not row.get("finding") and (row.get("quoted") or row.get("values")):
        problems.append("quoted and values belong to a finding")
    elif row.get("finding"):
        try:
            finding = render(row["id"], sources)
            row.update(finding=finding.text, quoted=finding.quoted, values=finding.values)
        except ValueError as err:
            problems.append(str(err).removeprefix(f"{row['id']}: "))
    return Entry(**row), problems


def _template(data: dict, key: str) -> Template:
    return Template(data[key], dict(data.get("quoted") or {}), dict(data.get("values") or {}))


def _read(name: str) -> dict:
    """One TOML file of the ledger's package data (``entries/NAME``)."""
    path = resources.files("pdp_audit.ledger").joinpath("entries", name)
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _load() -> tuple[dict, list[dict]]:
    """The shared data and every entry's row (its file's ``paper`` added)."""
    rows = []
    for paper in PAPERS:
        data = _read(f"{paper.lower()}.toml")
        rows += [{"paper": data["paper"], **row} for row in data["entry"]]
    return _read("shared.toml"), rows


_SHARED, _ROWS = _load()
#: The runs the findings come from (a finding names its run when it is not the audit's default one).
FINDINGS_RUN: str = _SHARED["findings_run"]
ISSUES: dict[int, str] = {int(k): v for k, v in _SHARED["issues"].items()}
#: Items of the papers deliberately left out, with the reason (so that the omission is on record).
EXCLUDED: dict[str, str] = dict(_SHARED["excluded"])
ENTRIES: tuple[Entry, ...] = _build(_ROWS, _SHARED["passage"])
BY_ID: dict[str, Entry] = {e.id: e for e in ENTRIES}


def normalize_paper(text: str) -> str:
    """``RW``, ``rw`` or ``[RW]`` -> ``RW``; ValueError otherwise."""
    value = text.strip().strip("[]").upper()
    if value not in PAPERS:
        raise ValueError(f"invalid paper {text!r} (choose from {', '.join(PAPERS)})")
    return value


def normalize_status(text: str) -> str:
    """``checked``, ``planned``, ``not-simulable`` / ``not simulable`` -> the canonical status; ValueError otherwise."""
    value = " ".join(text.strip().lower().replace("-", " ").replace("_", " ").split())
    if value not in STATUSES:
        raise ValueError(f"invalid status {text!r} (choose from checked, planned, not-simulable)")
    return value


def select(paper: str | None = None, status: str | None = None, entries: tuple[Entry, ...] = ENTRIES) -> list[Entry]:
    """Entries of one paper and/or status (normalised by :func:`normalize_paper`, :func:`normalize_status`)."""
    paper = normalize_paper(paper) if paper is not None else None
    status = normalize_status(status) if status is not None else None
    return [e for e in entries if (paper is None or e.paper == paper) and (status is None or e.status == status)]


def counts(entries) -> dict[str, int]:
    """Number of entries by status (every status present, possibly 0)."""
    c = Counter(e.status for e in entries)
    return {s: c.get(s, 0) for s in STATUSES}


def checks_by_audit(entries=ENTRIES) -> dict[str, set[str]]:
    """Check ids each audit must produce for the ledger's ``checked`` entries."""
    out: dict[str, set[str]] = {}
    for e in entries:
        if e.status == "checked":
            out.setdefault(e.audit, set()).update(e.checks)
    return out
