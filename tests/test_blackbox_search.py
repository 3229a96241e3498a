"""The neighbour search, the witness and the black-box PDF (audits/blackbox/search.py, audits/blackbox/witness.py,
audits/blackbox/search_check.py, reports/blackbox_report.py, ``pdp-audit blackbox --search/--witness/--report``).

Statistical tests at α = 1e-6 with fixed seeds; the search's power is shown on a mechanism that is correct on the
obvious pair (one answer moved) and leaks only where every answer moves the same way."""

from __future__ import annotations

import json
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pdp_audit
from pdp_audit import blackbox_search_files
from pdp_audit.audits.blackbox import search as search_module
from pdp_audit.audits.blackbox.attack import AttackOptions
from pdp_audit.audits.blackbox.defaults import SEARCH_STATISTIC
from pdp_audit.audits.blackbox.search import (
    DatasetSampler,
    Neighbours,
    SearchBudget,
    pattern_candidates,
    random_candidates,
    search_pairs,
)
from pdp_audit.audits.blackbox.search_check import SearchOptions, read_witness
from pdp_audit.audits.blackbox.witness import recheck, statistic_to_data
from pdp_audit.cli.main import main
from pdp_audit.verify.core.candidate_search import maximise
from pdp_audit.verify.inputs.validation import InputError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import blackbox_search_peers as bsp  # noqa: E402

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

ALPHA = 1e-6
EPSILON = 0.5


class NoisySum:
    """The sum of n = 4 answers plus Lap(``scale``).  Under ``linf:1`` the sum moves by up to 4, so the pair's loss is
    |Σ(D − D')| / scale: with scale 1/ε = 2 it is ε on "one answer moved" (the obvious pair) and 4ε = 2 where every
    answer moves the same way -- a mechanism calibrated to the wrong sensitivity.  With scale 4/ε it is ε-DP."""

    dimension = 4

    def __init__(self, scale: float):
        self.scale = scale

    def release(self, answers, size, rng):
        return answers.sum() + rng.laplace(scale=self.scale, size=(size, 1))


def pair_loss(candidate, scale):
    return abs(sum(candidate.d) - sum(candidate.dprime)) / scale


#: The real-valued law: NoisySum is the textbook float Laplace, refuted as implemented whatever the pair.
IDEAL = AttackOptions(SEARCH_STATISTIC, law="ideal")
BUDGET = SearchBudget(candidates=16, pilot_trials=5_000, trials=50_000, options=IDEAL)


@pytest.mark.tier2
def test_search_finds_a_leak_that_the_obvious_pair_does_not_show():
    leaky = NoisySum(1 / EPSILON)
    first = pattern_candidates(4, Neighbours("linf", 1.0))[0]
    assert first.name == "one above" and math.isclose(pair_loss(first, leaky.scale), EPSILON)
    obvious = pdp_audit.audit_blackbox(
        (DatasetSampler(leaky, first.d, "D"), DatasetSampler(leaky, first.dprime, "D'")),
        EPSILON,
        0.0,
        trials=50_000,
        budget=pdp_audit.BlackBoxBudget(law="ideal"),
    )
    assert obvious.verdict == "inconclusive"
    result = search_pairs(leaky, Neighbours("linf", 1.0), "patterns", 0.0, 0, BUDGET)
    bound = result.final.epsilon_lower_bound_at(ALPHA)
    assert EPSILON < bound <= pair_loss(result.chosen, leaky.scale), (bound, result.chosen)
    assert pair_loss(result.chosen, leaky.scale) >= 3 * EPSILON  # a pair where most answers moved the same way


@pytest.mark.tier2
def test_search_never_refutes_a_correct_mechanism():
    correct = NoisySum(4 / EPSILON)
    for search in ("patterns", "random"):
        result = search_pairs(correct, Neighbours("linf", 1.0), search, 0.0, 1, BUDGET)
        assert result.final.epsilon_lower_bound_at(ALPHA) <= EPSILON
        assert len(result.ranking) == 16


@pytest.mark.parametrize("relation", ["linf:1", "l1:2", "replace-one", "add-remove"])
def test_every_candidate_is_a_pair_of_neighbours(relation):
    neighbours = Neighbours.parse(relation)
    for n in (1, 2, 5):
        candidates = pattern_candidates(n, neighbours, (0.0, 3.0)) + random_candidates(n, neighbours, (0, 3), 40, 0)
        assert len({(c.d, c.dprime) for c in candidates}) > 1
        for c in candidates:
            assert neighbours.holds(np.asarray(c.d), np.asarray(c.dprime)), (relation, c)
            assert c.d != c.dprime


def test_the_relations_reject_what_is_not_a_neighbour():
    assert not Neighbours.parse("linf:1").holds(np.zeros(3), np.r_[0, 0, 1.5])
    assert not Neighbours.parse("l1:1").holds(np.zeros(3), np.r_[0.6, 0.6, 0])
    assert not Neighbours("replace-one").holds(np.zeros(3), np.r_[1.0, 1.0, 0])
    assert not Neighbours("add-remove").holds(np.zeros(3), np.r_[1.0, 0.0])


@pytest.mark.parametrize("text", ["linf", "l1:0", "l1:-1", "linf:inf", "swap", "replace-one:2", "l2:1"])
def test_a_bad_relation_is_one_line(text):
    with pytest.raises(InputError, match="neighbours must be"):
        Neighbours.parse(text)


def test_optuna_missing_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna now raises ImportError
    with pytest.raises(InputError, match=r"pip install optuna"):
        search_pairs(NoisySum(2.0), Neighbours("linf", 1.0), "optuna", 0.0, 0, BUDGET)


def test_witness_round_trip_reproduces_the_bound_and_a_new_seed_rechecks_it():
    leaky = NoisySum(1 / EPSILON)
    result = search_pairs(leaky, Neighbours("linf", 1.0), "patterns", 0.0, 0, BUDGET)
    data = json.loads(json.dumps(statistic_to_data(result.final.learned)))  # through JSON text, as a file would
    worlds = (DatasetSampler(leaky, result.chosen.d, "D"), DatasetSampler(leaky, result.chosen.dprime, "D'"))
    same = recheck(worlds, data, BUDGET.trials, 0.0, result.final_seed)
    assert same.epsilon_lower_bound_at(ALPHA) == result.final.epsilon_lower_bound_at(ALPHA)
    fresh = recheck(worlds, data, BUDGET.trials, 0.0, 12345).epsilon_lower_bound_at(ALPHA)
    assert EPSILON < fresh <= pair_loss(result.chosen, leaky.scale)


MODULE = textwrap.dedent(
    """
    import numpy as np

    class NoisySum:
        dimension = 4
        def __init__(self, scale):
            self.scale = scale
        def release(self, answers, size, rng):
            return answers.sum() + rng.laplace(scale=self.scale, size=(size, 1))

    def leaky():
        return NoisySum(2.0)

    def correct():
        return NoisySum(8.0)
    """
)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "search_mech.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


COMMON = ["--claim-epsilon", "0.5", "--claim-delta", "0", "--trials", "2e4", "--pilot-trials", "2000"]


@pytest.mark.tier2
def test_cli_search_witness_and_refusal(user_module, capsys):
    out = user_module / "s.json"
    args = ["blackbox", "search_mech:leaky", "--search", "patterns", "--neighbours", "linf:1", *COMMON]
    assert main([*args, "--json", str(out)]) == 1
    doc = json.loads(out.read_text())
    witness = doc["witness"]
    assert witness["target"] == "search_mech:leaky" and witness["statistic"]["kind"] == "events"  # the default
    assert doc["search"]["ranking"][0]["pair"] == doc["search"]["chosen"] == witness["pair_name"]
    again = user_module / "w.json"
    recheck_args = ["blackbox", "search_mech:leaky", "--witness", str(out), *COMMON[:6]]
    assert main([*recheck_args, "--seed", str(witness["seed"]), "--json", str(again)]) == 1
    assert json.loads(again.read_text())["check"]["ci"] == doc["check"]["ci"]
    capsys.readouterr()
    assert main(["blackbox", "search_mech:correct", "--witness", str(out), *COMMON[:6]]) == 2
    err = capsys.readouterr().err
    assert "re-checks only its own target" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(InputError, match="not 'search_mech:correct'"):
        read_witness(str(out), "search_mech:correct")


def test_cli_bad_search_options_are_one_line(user_module, capsys):
    for flags, needle in (
        (["--search", "patterns", "--neighbours", "l3:1"], "neighbours must be"),
        (["--search", "patterns", "--candidates", "0"], "candidates must be"),
        (["--witness", "nowhere.json"], "cannot read"),
    ):
        assert main(["blackbox", "search_mech:leaky", *flags, *COMMON[:4]]) == 2
        err = capsys.readouterr().err
        assert needle in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("relation", ["linf:1e308", "l1:1e308"])
def test_a_radius_whose_candidates_overflow_is_refused_naming_the_flag(user_module, capsys, monkeypatch, relation):
    """The search's candidates reach 3R (answers up to 2R, moved by up to R): beyond 1e307 they are infinite, the
    search's own doing.  Seen failing before: ``linf:1e308`` ran the search and ended "FAIL pair-protocol:
    sample('D', 2) returned … infinite values" (exit 1), blaming the user's mechanism for the search's candidates."""
    with pytest.raises(InputError, match=r"0 < R ≤ 1e\+307"):
        Neighbours.parse(relation)
    # the command's own path in this process (its sandbox's start-up is tested elsewhere, and costs seconds)
    monkeypatch.setattr(blackbox_search_files, "run_isolated", lambda run, args, target: run(args))
    small = ["--trials", "2e3", "--pilot-trials", "500", "--candidates", "2"]  # before: a short run, not a refusal
    args = ["blackbox", "search_mech:leaky", "--search", "patterns", "--neighbours", relation, *COMMON[:4], *small]
    assert main([*args, "--report", "none"]) == 2
    err = capsys.readouterr().err
    assert "--neighbours must be" in err and "1e+307" in err and len(err.strip().splitlines()) == 1, err


# slow: fast elsewhere (the search's JSON determinism; every report's bytes are seeded the same way)
@pytest.mark.slow
def test_pdf_is_byte_identical_for_the_same_seed(user_module):
    args = ["blackbox", "search_mech:leaky", "--search", "patterns", *COMMON, "--candidates", "6"]
    assert main([*args, "--report", "a.pdf"]) == 1
    assert main([*args, "--report", "b.pdf"]) == 1
    first, second = (user_module / "a.pdf").read_bytes(), (user_module / "b.pdf").read_bytes()
    assert first[:5] == b"%PDF-" and first == second


@pytest.mark.tier2
def test_workers_give_the_same_numbers():
    mechanism = bsp.mechanism("ReportNoisyMax3")
    options = SearchOptions(candidates=6, pilot_trials=3_000, trials=20_000)
    runs = [
        pdp_audit.audit_blackbox_search(
            mechanism, 0.1, 0.0, seed=3, options=SearchOptions(**{**vars(options), "workers": w})
        )
        for w in (1, 2)
    ]
    ranking = [[(r.candidate.name, r.pilot_bound) for r in run.result.ranking] for run in runs]
    assert ranking[0] == ranking[1]
    assert runs[0].run.checks[0].ci == runs[1].run.checks[0].ci
    assert runs[0].witness == runs[1].witness


@pytest.mark.tier2
def test_optuna_search_is_seeded_and_refutes(monkeypatch):
    """Through the shared driver (candidate_search.maximise), the 16 patterns enqueued first, then TPE's trials."""
    pytest.importorskip("optuna")
    calls = []

    def spy(space, criterion, strategy, count, seed, batch=8, enqueued=()):
        calls.append((strategy, count, list(enqueued)))
        return maximise(space, criterion, strategy, count, seed, batch, enqueued)

    monkeypatch.setattr(search_module, "maximise", spy)
    leaky = NoisySum(1 / EPSILON)
    budget = SearchBudget(candidates=18, pilot_trials=3_000, trials=30_000, options=IDEAL)
    runs = [search_pairs(leaky, Neighbours("l1", 4.0), "optuna", 0.0, 5, budget) for _ in range(2)]
    assert [r.pilot_bound for r in runs[0].ranking] == [r.pilot_bound for r in runs[1].ranking]
    patterns = pattern_candidates(4, Neighbours("l1", 4.0))
    assert [call[:2] for call in calls] == [("optuna", 18)] * 2 and len(calls[0][2]) == len(patterns) == 16
    names = sorted(r.candidate.name for r in runs[0].ranking)
    assert names == sorted([p.name for p in patterns] + ["optuna 16", "optuna 17"])
    assert all(r.candidate == p for p in patterns for r in runs[0].ranking if r.candidate.name == p.name)
    bound = runs[0].final.epsilon_lower_bound_at(ALPHA)
    assert EPSILON < bound <= pair_loss(runs[0].chosen, leaky.scale)


class ClippedRows:
    """The sum of 5 rows clipped to [0, 5] (the domain is [0, 10]) plus Lap(3)."""

    dimension = 5
    domain = (0.0, 10.0)

    def release(self, rows, size, rng):
        return np.clip(rows, 0.0, 5.0).sum() + rng.laplace(scale=3.0, size=(size, 1))


@pytest.mark.parametrize("kind", ["add-remove", "replace-one"])
def test_optuna_trials_named_after_a_pattern_are_that_pattern(kind):
    """Under add-remove a swapped pattern's D has n − 1 rows, no point of optuna's box (D of n rows): it is not
    enqueued, so no trial carries its name with another pair (TPE drew the missing row)."""
    pytest.importorskip("optuna")
    neighbours = Neighbours(kind)
    patterns = {p.name: p for p in pattern_candidates(5, neighbours, ClippedRows.domain)}
    budget = SearchBudget(candidates=12, pilot_trials=500, options=IDEAL)
    tried = search_module.optuna_candidates(ClippedRows(), neighbours, 0.0, 4, budget)
    named = [r.candidate for r in tried if not r.candidate.name.startswith("optuna")]
    assert named and all(c == patterns[c.name] for c in named)
    assert all(len(c.d) == 5 for c in named) and len(tried) == 12


def test_successive_halving_keeps_every_candidate_once_and_refutes():
    leaky = NoisySum(1 / EPSILON)
    budget = SearchBudget(candidates=16, pilot_trials=2_000, trials=50_000, rounds=3, options=IDEAL)
    result = search_pairs(leaky, Neighbours("linf", 1.0), "patterns", 0.0, 2, budget)
    names = [r.candidate.name for r in result.ranking]
    assert sorted(names) == sorted(c.name for c in pattern_candidates(4, Neighbours("linf", 1.0)))
    assert [r.pilot_trials for r in result.ranking[:4]] == [8_000] * 4  # 16 -> 8 -> 4 survivors, on 2x then 4x
    assert [r.pilot_trials for r in result.ranking[4:]] == [4_000] * 4 + [2_000] * 8  # dropped: latest round first
    assert result.chosen == result.ranking[0].candidate
    assert EPSILON < result.final.epsilon_lower_bound_at(ALPHA) <= pair_loss(result.chosen, leaky.scale)


PAIR_MODULE = textwrap.dedent(
    """
    import numpy as np
    from pdp_audit.mechanisms.gaussian import GaussianPair

    def deflated():
        return GaussianPair(np.zeros(2), np.array([1.0, 0.0]), 0.3)
    """
)


@pytest.mark.tier2
def test_a_plain_run_with_a_report_is_the_plain_run_plus_its_witness(user_module):
    (user_module / "pair_mech.py").write_text(PAIR_MODULE)
    # the logistic test named (the event test's report: tests/test_blackbox_event_witness.py)
    args = ["blackbox", "pair_mech:deflated", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "20000"]
    args += ["--statistic", "logistic"]
    assert main([*args, "--json", "plain.json"]) == 1
    assert main([*args, "--json", "rep.json", "--report", "rep.pdf"]) == 1
    plain, reported = (json.loads((user_module / f).read_text()) for f in ("plain.json", "rep.json"))
    witness = reported.pop("witness")
    assert reported == plain and witness["pair"] is None and witness["seed"] == 0
    assert main([*args[:2], "--witness", "rep.json", *args[2:], "--seed", "0", "--json", "again.json"]) == 1
    assert json.loads((user_module / "again.json").read_text())["check"]["ci"] == plain["check"]["ci"]


class Raises:
    dimension = 3

    def release(self, answers, size, rng):
        raise RuntimeError("my mechanism is broken")


def test_a_mechanism_that_raises_is_its_own_fault_in_one_line():
    outcome = pdp_audit.audit_blackbox_search(Raises(), 0.5, 0.0, options=SearchOptions(candidates=2, trials=1000))
    (check,) = outcome.run.checks
    assert check.id == "pair-protocol" and check.verdict == "fail" and outcome.witness is None
    assert "my mechanism is broken" in check.note and "\n" not in check.note
    with pytest.raises(InputError, match="dimension"):
        pdp_audit.audit_blackbox_search(object(), 0.5, 0.0)
