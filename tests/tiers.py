"""The suite's tiers, and how many tests each holds.

* **Tier 1** (the README's test command, ``python -m pytest -n auto``): every module, exit code, command and audit
  kind at smoke budgets, the exact oracles, the decision logic on recorded evidence, and one representative of each
  long series.
* **Tier 2** (``--tier 2``; ``--tier all`` runs both): the long statistical series (the program series, the false
  alarms, the libraries' cases) and the end-to-end runs a tier-1 test stands for, marked ``@pytest.mark.tier2``.
  CI runs it beside tier 1.
* **Slow** (``--run-slow -m slow``, outside CI): the hour-long audits, marked ``slow`` (tests/conftest.py).

A test moves tier by its mark, never by deletion.  The counts of :func:`counted` are what
``benchmarks/durations.py`` records beside each tier's measured duration (``PDP_AUDIT_TIER_COUNTS``: the file the
collection writes them to), and what tests/test_measured_durations.py compares a figure's count with.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

#: the mark of a tier-2 test
TIER2 = "tier2"
#: ``--tier``'s choices: "1" (the default), "2", or "all"
CHOICES = ("1", "2", "all")
#: the collected tests of each tier, where the whole suite was collected (None otherwise)
COUNTS = pytest.StashKey[dict]()
#: where a run writes :func:`counted` (benchmarks/durations.py sets it for the runs it measures)
COUNTS_FILE = "PDP_AUDIT_TIER_COUNTS"


def in_tier2(item: pytest.Item) -> bool:
    """Whether ``item`` is a tier-2 test: marked ``tier2``, unless the mark keeps its case in tier 1.

    ``@pytest.mark.tier2`` moves every case of the test; ``tier2(representatives=(ID, ...))`` every case but
    those (each series keeps its representatives in tier 1); ``tier2(cases=(ID, ...))`` only those cases (IDs as
    pytest names the parameters: ``test_x[ID]``)."""
    mark = item.get_closest_marker(TIER2)
    if mark is None:
        return False
    case = _case(item)
    if "representatives" in mark.kwargs:
        return case not in mark.kwargs["representatives"]
    if "cases" in mark.kwargs:
        return case in mark.kwargs["cases"]
    return True


def _case(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.id if callspec is not None else None


def unknown_cases(items: list[pytest.Item]) -> list[str]:
    """The IDs a ``tier2`` mark names (representatives or cases) that no collected case of its test has: a renamed
    parameter would otherwise move its case silently.  Read on a whole collection only."""
    named: dict[str, set[str]] = {}
    seen: dict[str, set[str]] = {}
    for item in items:
        mark = item.get_closest_marker(TIER2)
        if mark is None:
            continue
        test = item.nodeid.split("[", 1)[0]
        named.setdefault(test, set()).update(mark.kwargs.get("representatives", ()), mark.kwargs.get("cases", ()))
        seen.setdefault(test, set()).add(_case(item) or "")
    return sorted(f"{test}[{case}]" for test, cases in named.items() for case in cases - seen[test])


def is_slow(item: pytest.Item) -> bool:
    return item.get_closest_marker("slow") is not None


def counted(items: list[pytest.Item]) -> dict[str, int]:
    """The tests each selection runs: "1" and "2" the tiers (a ``slow`` test of tier 1 counts there: it is collected
    and skipped), "slow" what ``--run-slow -m slow`` runs."""
    second = sum(map(in_tier2, items))
    return {"1": len(items) - second, "2": second, "slow": sum(is_slow(i) and not in_tier2(i) for i in items)}


def whole_suite(config: pytest.Config) -> bool:
    """Whether the session collects every test module: no argument but the tests' folder or the checkout."""
    here = config.invocation_params.dir
    whole = {config.rootpath, config.rootpath / "tests"}
    return all((here / arg.split("::")[0]).resolve() in whole for arg in config.args)


def select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of ``--tier``'s tier (the others deselected, as ``-k`` does), after recording the counts of
    every tier where the whole suite was collected."""
    counts = counted(items) if whole_suite(config) else None
    config.stash[COUNTS] = counts
    if counts is not None and (unknown := unknown_cases(items)):
        raise pytest.UsageError(f"tier2 marks name cases no test has (renamed?): {', '.join(unknown)}")
    path = os.environ.get(COUNTS_FILE)
    if path and counts is not None:
        written = Path(f"{path}.{os.getpid()}")  # each xdist worker collects: one whole file each, then renamed
        written.write_text(json.dumps(counts), encoding="utf-8")
        written.replace(path)
    tier = config.getoption("--tier")
    if tier == "all":
        return
    kept = [item for item in items if in_tier2(item) == (tier == "2")]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if in_tier2(item) != (tier == "2")])
        items[:] = kept
