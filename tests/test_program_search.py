"""The program audit's neighbour search (``search = "named" | "random" | "optuna"``, ``candidates``): bugs that show
only on record values the named neighbours do not try are found by the search and refuted exactly, each with its
witness and how it was found, and confirmed by the black box on fresh draws; their fixed twins are not refuted.
Fixed seeds; the confirmations' false-alarm probability is α = 1e-6.

Seen failing: with the search's candidates left out of the analysis (the named list only), both bugs pass the
structural checks (the first tests' ``named`` runs show it); with every candidate drawn inside the declared domain
(no ``beyond`` region), the threshold bug is not found; with optuna's proposals taken from a fixed point (its
suggestions ignored), the middle band is not found.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import search
from pdp_audit.audits.program.analysis import analyse
from pdp_audit.audits.program.findings import criterion
from pdp_audit.verify.core.candidate_search import Parameter, maximise
from pdp_audit.verify.inputs.validation import InputError

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

ALPHA = 1e-6
TRIALS = 20_000


def codes_dropped(data, rng):
    """A sum of values declared in [0, 100]: codes above 500 are missing values and dropped -- but the values in
    (100, 500] pass unclipped, beside noise calibrated for 100."""
    x = np.nan_to_num(np.asarray(data, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    x = np.where(x > 500.0, 0.0, np.maximum(x, 0.0))
    return x.sum() + rng.laplace(0.0, 100.0)


def codes_dropped_fixed(data, rng):
    x = np.nan_to_num(np.asarray(data, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    x = np.clip(np.where(x > 500.0, 0.0, x), 0.0, 100.0)
    return x.sum() + rng.laplace(0.0, 100.0)


def band_rescaled(data, rng):
    """A sum of values in [0, 1] where a unit conversion is applied to the wrong band: values in (0.45, 0.55) count
    four times (the data given has none there)."""
    x = np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0)
    x = np.where((x > 0.45) & (x < 0.55), 4.0 * x, x)
    return x.sum() + rng.laplace(0.0, 1.0)


def band_rescaled_fixed(data, rng):
    x = np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0)
    return x.sum() + rng.laplace(0.0, 1.0)


SALARIES = np.random.default_rng(3).uniform(0.0, 100.0, 200)
OUTSIDE_BAND = np.r_[np.linspace(0.0, 0.4, 20), np.linspace(0.6, 1.0, 20)]


def _audit(program, data, bounds, **options):
    options = {"trials": TRIALS, "seed": 0, "alpha": ALPHA, "law": "ideal", **options}
    return pdp_audit.audit_program(program, data, 1.0, 0.0, neighbours="replace-one", bounds=bounds, **options)


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


#: Releases a world of the threshold bug's runs: its searched witness (a record in (100, 500] against noise for 100)
#: is confirmed at p = 1e-60, the floor, on seed 0 at 5,000 as at 20,000 (half the test's time went to the
#: confirmation's releases); a smaller budget only makes a refutation harder, never a false alarm likelier (every
#: check keeps α = 1e-6, and the twin is certified by composition).  The middle band keeps 20,000.
THRESHOLD_TRIALS = 5000


@pytest.mark.tier2(representatives=("threshold above the bound, random",))
@pytest.mark.parametrize(
    ("bug", "fixed", "data", "bounds", "strategy", "trials"),
    [
        (codes_dropped, codes_dropped_fixed, SALARIES, (0, 100), "random", THRESHOLD_TRIALS),
        (band_rescaled, band_rescaled_fixed, OUTSIDE_BAND, (0, 1), "optuna", TRIALS),
    ],
    ids=["threshold above the bound, random", "middle band, optuna"],
)
def test_the_search_finds_what_the_named_neighbours_miss(bug, fixed, data, bounds, strategy, trials):
    if strategy == "optuna":
        pytest.importorskip("optuna")  # an optional extra: `pip install -e ".[test]"` has no optuna
    named = _audit(bug, data, bounds, search="named", trials=trials)
    assert named.verdict != "fail", [(c.id, c.verdict, c.note[:200]) for c in named.checks]
    run = _audit(bug, data, bounds, search=strategy, candidates=48, trials=trials)
    composition = _check(run, "program-composition")
    assert run.verdict == "fail" and composition.verdict == "fail", [(c.id, c.note[:200]) for c in run.checks]
    found_by = composition.details["witness_found_by"]
    assert found_by.startswith(search.HOW[strategy]) and "searched record" in composition.details["witness"]
    confirm = _check(run, "program-confirm")
    assert confirm.verdict == "fail" and confirm.adjusted_pvalue <= ALPHA
    assert confirm.details["witness_found_by"] == found_by
    assert run.parameters["pairs_proposed"] == 48 and run.parameters["worst_proposed"]["found_by"] == found_by
    assert run.review is not None and any(found_by in s.text for s in run.review.sections)
    twin = _audit(fixed, data, bounds, search=strategy, candidates=48, trials=trials)
    assert twin.verdict == "pass", [(c.id, c.verdict, c.note[:200]) for c in twin.checks]
    assert twin.parameters["pairs_searched"] == named.parameters["pairs_searched"] + 48


def test_the_search_adds_add_remove_candidates_and_is_reproducible():
    runs = [
        analyse(codes_dropped, SALARIES, "add-remove", (0.0, 100.0), (1.0, 0.0), 7, budget=search.Budget("random", 24))
        for _ in range(2)
    ]
    names = [[p.neighbour.name for p in a.pairs] for a in runs]
    assert names[0] == names[1]
    proposed = [p for p in runs[0].pairs if p.neighbour.found_by]
    assert len(proposed) == len({p.neighbour.name for p in proposed}) > 12
    assert any(p.neighbour.name.startswith("add a searched record") for p in proposed)
    assert any(p.neighbour.name.startswith("remove record") for p in proposed)
    assert runs[0].worst().refuted and runs[0].worst().neighbour.found_by


def test_a_frame_with_text_and_integer_fields_is_searched():
    import pandas as pd

    frame = pd.DataFrame({"age": np.arange(20, 40), "group": list("ab") * 10, "ok": [True, False] * 10})

    def count(data, rng):
        return float(len(data)) + rng.laplace(0.0, 1.0)

    analysis = analyse(count, frame, "replace-one", None, (1.0, 0.0), 0, budget=search.Budget("random", 16))
    proposed = [p.neighbour for p in analysis.pairs if p.neighbour.found_by]
    assert proposed and all(len(n.data) == 20 and list(n.data.columns) == ["age", "group", "ok"] for n in proposed)
    assert all(n.data["age"].dtype.kind == "i" for n in proposed)
    assert {n.data["group"].iloc[n.position] for n in proposed} <= {"a", "b", search.NEW_CLASS}
    assert all(not p.findings for p in analysis.pairs)


def test_optuna_climbs_and_random_is_seeded():
    pytest.importorskip("optuna")  # an optional extra
    space = [
        Parameter("u", "float", 0.0, 1.0),
        Parameter("k", "int", 0, 3),
        Parameter("c", "choice", choices=("a", "b")),
    ]

    def criterion(batch, first):
        return [-((p["u"] - 0.7) ** 2) - (p["k"] != 2) - (p["c"] != "b") for p in batch]

    tried = maximise(space, criterion, "optuna", 60, 1)
    best = max(tried, key=lambda t: t[1])[0]
    assert abs(best["u"] - 0.7) < 0.05 and best["k"] == 2 and best["c"] == "b"
    assert maximise(space, criterion, "random", 10, 5) == maximise(space, criterion, "random", 10, 5)
    assert maximise(space, criterion, "random", 10, 5) != maximise(space, criterion, "random", 10, 6)


@pytest.mark.parametrize("strategy", ["optuna", "random"])
def test_enqueued_candidates_are_scored_first(strategy):
    """The shared driver's fixed candidates (the black box's patterns): scored first, in order, in the first batch; a
    parameter a point leaves out is the strategy's; no more than ``count``; under optuna they are TPE's history."""
    if strategy == "optuna":
        pytest.importorskip("optuna")
    space = [Parameter("u", "float", 0.0, 1.0), Parameter("k", "int", 0, 3)]
    batches = []

    def score(p):
        return -((p["u"] - 0.7) ** 2) - (p["k"] != 2)

    def criterion(batch, first):
        batches.append((first, [dict(p) for p in batch]))
        return [score(p) for p in batch]

    enqueued = [{"u": 0.1, "k": 0}, {"u": 0.69, "k": 2}, {"u": 0.9}]
    tried = maximise(space, criterion, strategy, 12, 3, batch=2, enqueued=enqueued)
    assert [p for p, _ in tried[:2]] == enqueued[:2] and batches[0][0] == 0 and batches[0][1][:2] == enqueued[:2]
    assert tried[2][0]["u"] == 0.9 and tried[2][0]["k"] in range(4)
    assert [s for _, s in tried[:3]] == [score(p) for p, _ in tried[:3]] and len(tried) == 12
    assert [p for p, _ in maximise(space, criterion, strategy, 1, 3, enqueued=enqueued)] == enqueued[:1]
    plain = maximise(space, criterion, strategy, 12, 3, batch=2)
    assert [p for p, _ in plain[:3]] != [p for p, _ in tried[:3]]


OUTLIERS = {f"an outlier {where} the domain (10 × its largest magnitude)" for where in ("above", "below")}


def _put_in(name: str) -> str:
    """What a named neighbour puts in: ``a record at the domain's lower end``."""
    return name.split(" by ", 1)[1] if " by " in name else name.removeprefix("add ")


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_named_neighbours_in_the_box_are_located_exactly(relation):
    """A named neighbour is a point of the search's box only where the box's map gives back its D′ exactly: the
    domain's ends (not the upper end of [−3, −0.9], where −3 + 1·2.1 is not −0.9), the 10× outliers, a new class, a
    removal; never the 1e6× outliers, NaN, ±inf, a duplicate or a copy, nor a record whose kept field (a date) is
    record 0's where the box keeps the replaced record's."""
    import pandas as pd

    from pdp_audit.audits.program.neighbours import neighbours

    values = np.linspace(-2.9, -1.0, 12)
    frame = pd.DataFrame({"age": np.arange(20, 32), "group": list("ab") * 6})
    frame["day"] = pd.date_range("2026-01-01", periods=12)
    ends = {f"a record at the domain's {end} end" for end in ("lower", "upper")}
    classes = {f"a record of a class the data lacks in field {f!r}" for f in ("age", "group")}
    expected = {"values": {"a record at the domain's lower end", *OUTLIERS}, "frame": ends | OUTLIERS | classes}
    for what, data, bounds in (("values", values, (-3.0, -0.9)), ("frame", frame, {"age": (18, 99)})):
        columns = search.fields(data, bounds)
        named = neighbours(data, relation, bounds, 0)
        points = {n.name: search.located(data, relation, columns, n) for n in named}
        inside = [n for n in named if points[n.name] is not None]
        for n in inside:
            made = search.proposed(data, relation, columns, points[n.name], "").data
            assert made.equals(n.data) if what == "frame" else np.array_equal(made, n.data), n.name
        assert {_put_in(n.name) for n in inside if not n.name.startswith("remove")} == expected[what]
        removals = [n for n in named if n.name.startswith("remove")]
        assert set(removals) <= set(inside) and bool(removals) == (relation == "add-remove")
        if what == "frame" and relation == "replace-one":
            assert {n.position for n in inside} == {0}  # elsewhere the box keeps that record's own date


def test_optuna_starts_from_the_named_pairs_in_its_box_without_replaying_them(monkeypatch):
    """TPE's first trials are the located named pairs, told their own criterion; the candidates come beyond them."""
    pytest.importorskip("optuna")
    from pdp_audit.audits.program import analysis

    calls = []

    def spy(space, criterion, strategy, count, seed, batch=8, enqueued=()):
        def told(proposals, first):
            scores = criterion(proposals, first)
            calls.append((first, scores))
            return scores

        calls.append((strategy, count, list(enqueued)))
        return maximise(space, told, strategy, count, seed, batch, enqueued)

    monkeypatch.setattr(analysis, "maximise", spy)
    budget = search.Budget("optuna", 8)
    run = analyse(band_rescaled, OUTSIDE_BAND, "replace-one", (0.0, 1.0), (1.0, 0.0), 0, budget=budget)
    named = [p for p in run.pairs if not p.neighbour.found_by]
    columns = search.fields(OUTSIDE_BAND, (0.0, 1.0))
    inside = [p for p in named if search.located(OUTSIDE_BAND, "replace-one", columns, p.neighbour) is not None]
    strategy, count, enqueued = calls[0]
    assert (strategy, count) == ("optuna", len(inside) + 8) and len(enqueued) == len(inside) == 24
    for point, p in zip(enqueued, inside):
        assert np.array_equal(search.proposed(OUTSIDE_BAND, "replace-one", columns, point, "").data, p.neighbour.data)
    scores = [score for _, scored in calls[1:] for score in scored]
    pure = [p.upper.pure if p.upper else None for p in inside]
    assert scores[: len(inside)] == [criterion(p.rank, e, 1.0) for p, e in zip(inside, pure)]
    assert len(run.pairs) == len(named) + 8  # the named ones told, not replayed again
    found = [search.found_by("optuna", i, 8) for i in range(8)]
    assert [p.neighbour.found_by for p in run.pairs[len(named) :]] == found


def test_optuna_missing_is_refused_in_one_line_before_the_program_runs(monkeypatch):
    ran = []

    def program(data, rng):
        ran.append(1)
        return float(np.sum(data)) + rng.laplace(0.0, 1.0)

    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(InputError, match=r"^search optuna needs optuna: pip install optuna$"):
        pdp_audit.audit_program(program, np.ones(4), 1.0, search="optuna")
    with pytest.raises(InputError, match="candidates must be a whole number in \\[0, 100000\\]"):
        pdp_audit.audit_program(program, np.ones(4), 1.0, candidates=-1)
    assert not ran


@pytest.mark.tier2
def test_the_command_line_takes_the_search_and_refuses_a_bad_one(tmp_path, monkeypatch, capsys):
    from pdp_audit.cli import main as cli

    (tmp_path / "salaries.py").write_text(
        "import numpy as np\n\n"
        "def codes_dropped(data, rng):\n"
        "    x = np.nan_to_num(data['salary'].to_numpy(dtype=float), nan=0.0, posinf=0.0, neginf=0.0)\n"
        "    x = np.where(x > 500.0, 0.0, np.maximum(x, 0.0))\n"
        "    return x.sum() + rng.laplace(0.0, 100.0)\n",
        encoding="utf-8",
    )
    (tmp_path / "people.csv").write_text(
        "salary\n" + "".join(f"{v!r}\n" for v in SALARIES[:40].tolist()), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    args = ["program", "salaries:codes_dropped", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    args += ["--bounds", "0,100", "--trials", "2000", "--law", "ideal", "--report", "none"]
    assert cli.main(args + ["--search", "named"]) == 0
    assert cli.main(args + ["--search", "random", "--candidates", "48"]) == 1
    capsys.readouterr()
    assert cli.main(args + ["--search", "grid"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--search" in err and "'named', 'random', 'optuna'" in err


def clipped_sum(data, rng):
    return float(np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0))


def test_the_search_lists_each_dataset_once():
    """On 12 records the random search proposes removals the named list made already (record 0, the first, is
    removed by both): each dataset is replayed and listed once, so at most 12 pairs remove a record (seen failing:
    14 removals of 12 records on the certificate)."""
    from pdp_audit.audits.program.neighbours import identity

    data = np.linspace(0.0, 1.0, 12)
    run = analyse(clipped_sum, data, "add-remove", (0.0, 1.0), (1.0, 0.0), 0, budget=search.Budget("random", 32))
    keys = [identity(p.neighbour) for p in run.pairs]
    assert len(keys) == len(set(keys))
    removed = [p for p in run.pairs if p.neighbour.name.startswith("remove")]
    assert len({p.neighbour.position for p in removed}) == len(removed) <= 12
    assert any(p.neighbour.found_by for p in removed)  # the search still removes records the named list did not
