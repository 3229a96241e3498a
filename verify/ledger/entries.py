"""The claims ledger: every checkable claim of the three papers and what the suite has found about it.

One :class:`Entry` per checkable claim (K1–K36), per printed ambiguity or suspected typo (Q1–Q53) and per
numbered result of the three papers that makes a checkable quantitative statement.
The rows live in :mod:`pdp_audit.verify.ledger.table`; this module types, validates and filters them.

Status of an entry:

* ``checked`` -- ``checks`` names check ids of ``audit``'s output and ``command`` runs them;
* ``planned`` -- ``issue`` is the issue that will check it (:data:`ISSUES`);
* ``not simulable`` -- ``reason`` says why.

``finding`` is empty unless a run of the suite established something (see
:data:`pdp_audit.verify.ledger.table.FINDINGS_RUN`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass

from pdp_audit.verify.ledger import table

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
ISSUES: dict[int, str] = dict(table.ISSUES)
FINDINGS_RUN: str = table.FINDINGS_RUN
EXCLUDED: dict[str, str] = dict(table.EXCLUDED)

_ID = re.compile(r"^(K\d+|Q\d+|(PDP|RW|LR)-(Thm|Lem|Prop|Cor|Rem|Ex|Fact)[0-9A-Z][0-9.]*)$")


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
    command: str | None = None
    issue: int | None = None
    reason: str | None = None
    finding: str = ""
    note: str = ""
    expected: str = ""

    @property
    def section(self) -> str:
        """Which kind of item this is: a checkable claim (K), a printed ambiguity (Q) or a numbered result."""
        if self.id[1:].isdigit():
            return {"K": "checkable claim", "Q": "printed ambiguity"}[self.id[0]]
        return "numbered result"

    @property
    def evidence(self) -> str:
        """One line: the checks and their command, the planned issue, or why it cannot be simulated."""
        if self.status == "checked":
            return f"{', '.join(self.checks)}  [{self.command}]"
        if self.status == "planned":
            return f"#{self.issue} {ISSUES.get(self.issue, '')}".rstrip()
        return self.reason or ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["checks"] = list(self.checks)
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
    if entry.status == "checked" and not (entry.audit and entry.checks and entry.command):
        p.append("checked needs audit, checks and command")
    if entry.status == "planned" and entry.issue not in ISSUES:
        p.append(f"planned needs an issue in {sorted(ISSUES)}")
    if entry.status == "not simulable" and not (entry.reason or "").strip():
        p.append("not simulable needs a reason")
    if entry.status in EXPECTED and entry.expected not in EXPECTED[entry.status]:
        p.append(f"expected verdict {entry.expected!r} not in {EXPECTED[entry.status]} for status {entry.status!r}")
    return p


#: The verdicts a run may give an entry of each status (``expected`` is the one the full-budget run gave).
EXPECTED = {
    "checked": ("pass", "fail", "inconclusive"),
    "planned": ("planned",),
    "not simulable": ("not-simulable",),
}


def _build(rows: list[dict]) -> tuple[Entry, ...]:
    entries, problems, seen = [], [], Counter()
    for row in rows:
        row = dict(row)
        row["checks"] = tuple(row.get("checks") or ())
        if row.get("status") in ("planned", "not simulable"):
            row.setdefault("expected", EXPECTED[row["status"]][0])
        entry = Entry(**row)
        seen[entry.id] += 1
        problems += [f"{entry.id}: {msg}" for msg in _problems(entry)]
        entries.append(entry)
    problems += [f"{i}: appears {n} times" for i, n in seen.items() if n > 1]
    if problems:
        raise ValueError("invalid claims ledger: " + "; ".join(problems))
    return tuple(entries)


ENTRIES: tuple[Entry, ...] = _build(table.ENTRIES)
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
