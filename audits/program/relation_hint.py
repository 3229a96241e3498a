"""A hint where a verdict follows from the neighbour relation: a program that treats the dataset's size as public.

Under add-remove, D′ has one record more or fewer than D.  A program that takes n = len(D) as public -- noise of
shape (n,), a scale Δ/(ε·n), a mean's sensitivity (U − L)/n -- makes other calls on D′ than on D: its replay diverges
or a call's scale moves, and the structure check says so (a verdict about add-remove, which stands: such a release
does reveal n).  Under replace-one D and D′ have the same size and those calls are the same, so the program may be
what its author meant for that relation.  The hint says so, in one sentence naming ``--neighbours replace-one``.

It is read off the findings alone, nothing rerun: on every pair with a structural finding, the finding is a
divergence or a moved scale (:class:`~.findings.Diverged`, :class:`~.findings.Rescaled`, with the moved coefficient
in the release that a moved scale makes, :class:`~.findings.CoefficientMoved`), the neighbour changes the
size (its name starts with "remove" or "add": n′ = n ∓ 1), and the recorded and replayed calls, as the recorder
writes them, are the same text except for numbers, each number that differs following n → n′ -- an integer moved by
n′ − n (a shape or a length), or numbers a, b with a·n = b·n′ (∝ 1/n) or a/n = b/n′ (∝ n), to the six significant
digits the recorder prints (relative 1e-5).  A hint, never a verdict: it changes no check, and where the text is not
read so, none is given.  The converse (a program refuted under replace-one that would hold under add-remove) is not
read from the findings, and not hinted.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pdp_audit.audits.program.findings import CoefficientMoved, Diverged, Rescaled

#: a number as the recorder prints one (``8``, ``0.142857``, ``1e-05``, ``-3``)
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
#: the recorder prints six significant digits: two readings of one n-proportional number agree to this
_PRINTED = 1e-5
#: what a neighbour's name says of its size: one record removed or added
_SIZE_CHANGE = {"remove": -1, "add": 1}

HINT = (
    "Hint: on every such pair the calls differ only in numbers that follow the dataset's size n ({example}), as a "
    "program that treats n as public does; under add-remove n is private, and if the claim is about replacing one "
    "record, rerun with --neighbours replace-one, where D and D′ have the same size."
)

#: The hint as page 1's reading says it, after the verdict's reading (the witness call is in the trace below it).
PAGE_HINT = (
    "Hint: the calls differ only in numbers that follow the dataset's size n, as a program that treats n as public "
    "does; if the claim is about replacing one record, rerun with --neighbours replace-one."
)


def replace_one_hint(pairs: list[Any], records: int) -> str | None:
    """The hint (module notes) for the analysis' ``pairs`` (:class:`.results.PairResult`) of a dataset of ``records``
    records; None where it is not read off their findings."""
    example = None
    for pair in pairs:
        if not pair.structural:
            continue
        change = _SIZE_CHANGE.get(pair.neighbour.name.split(" ", 1)[0])
        if change is None or records + change < 0:
            return None  # a replacement: the relation is replace-one already, or a name not read
        named = [f for f in pair.structural if _calls(f)]
        rescaled = any(isinstance(f, Rescaled) for f in named)
        # a moved coefficient beside a moved scale is that scale, seen in the release; alone, noise weighted by data
        if any(not _calls(f) and not (isinstance(f, CoefficientMoved) and rescaled) for f in pair.structural):
            return None
        for finding in named:
            calls = _calls(finding)
            if not all(_follows(a, b, records, records + change) for a, b in calls):
                return None
            example = example or f"call {_first_call(finding)}: {calls[0][0]} on D, {calls[0][1]} on D′"
    return None if example is None else HINT.format(example=example)


def _calls(finding: Any) -> list[tuple[str, str]]:
    """The recorded and replayed calls a finding names; empty for any other finding."""
    if isinstance(finding, Diverged):
        return [(finding.on_d, finding.on_d_prime)]
    if isinstance(finding, Rescaled):
        return [(r.on_d, r.on_d_prime) for r in finding.calls]
    return []


def _first_call(finding: Any) -> int:
    return finding.call if isinstance(finding, Diverged) else finding.calls[0].call


def _follows(on_d: str, on_d_prime: str, n: int, n_prime: int) -> bool:
    """Whether the two calls are the same text but for numbers that follow n → n′ (module notes), at least one."""
    if _NUMBER.split(on_d) != _NUMBER.split(on_d_prime):
        return False
    pairs = [(a, b) for a, b in zip(_NUMBER.findall(on_d), _NUMBER.findall(on_d_prime)) if a != b]
    return bool(pairs) and all(_moves_with_size(a, b, n, n_prime) for a, b in pairs)


def _moves_with_size(a: str, b: str, n: int, n_prime: int) -> bool:
    """An integer moved by n′ − n, or a number proportional to 1/n or to n (to the printed digits)."""
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit() and int(b) - int(a) == n_prime - n:
        return True
    x, y = float(a), float(b)
    if not (math.isfinite(x) and math.isfinite(y)) or x == 0 or y == 0 or n == 0 or n_prime == 0:
        return False
    return math.isclose(x * n, y * n_prime, rel_tol=_PRINTED) or math.isclose(x / n, y / n_prime, rel_tol=_PRINTED)
