"""Record and replay on more than one set of draws (``draw_sets``): a program whose branch on a noisy statistic
skips the clipping on some draws only is refuted -- by composition, on the draw set that takes the branch, with the
black box's confirmation -- where one draw set does not see it, at every root seed tried; its fixed twin is certified
for its real-valued laws on every draw set.  A program of two paths is replayed on every neighbour on two draw sets
however many are recorded, and one whose every draw takes a path of its own on at most ``MOST_PATHS``.  Fixed seeds;
α = 1e-6.  Seen failing: with :func:`analysis._other_path` returning None (no further draw set replayed) the bug is
not refuted; with it returning every record (no path recognised) or comparing with the first draw set only, the
two-path program is replayed on every neighbour 4 times (3 at one seed); with the probe not catching a path that
moves under its shifts, the program of a path per draw raised the replay's divergence out of the audit."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdp_audit
from pdp_audit.audits.program import analysis
from pdp_audit.audits.program.analysis import MOST_PATHS, analyse
from pdp_audit.audits.program.findings import Conditioned
from pdp_audit.cli import main as cli
from pdp_audit.verify.inputs.validation import InputError

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DATA = pd.read_csv(EXAMPLES / "program-values.csv")


@pytest.fixture(scope="module")
def branch():
    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module("program_branch")
    finally:
        sys.path.remove(str(EXAMPLES))


def test_one_draw_set_misses_the_branch_two_find_it(branch):
    """On the first draw set both datasets take the clipped branch; the second takes the shortcut on D, follows
    another path on the sentinels, and is replayed on every neighbour: a refutation on it."""
    one = analyse(branch.shortcut_when_large, DATA, "add-remove", (0, 1), (1.0, 0.0), 0, draw_sets=1)
    assert not any(p.refuted for p in one.pairs) and len(one.draw_sets) == 1
    two = analyse(branch.shortcut_when_large, DATA, "add-remove", (0, 1), (1.0, 0.0), 0, draw_sets=2)
    worst = two.worst()
    assert worst is not None and worst.refuted and worst.drawn.index == 1
    assert "outlier" in worst.neighbour.name and len(two.draw_sets) == 2


@pytest.mark.tier2
def test_the_bug_fails_with_its_draw_set_named_and_confirmed(branch):
    run = pdp_audit.audit_program(branch.shortcut_when_large, DATA, 1.0, 0.0, bounds=(0, 1), trials=2000)
    checks = {c.id: c for c in run.checks}
    assert run.verdict == "fail"
    assert checks["program-composition"].verdict == "fail"
    # the bug shows on some draws only: the witness is on a later draw set, and the note names the one it used
    drawn = checks["program-composition"].details["draw_set"]
    assert drawn >= 1 and f"(draw set {drawn + 1} of 8)" in checks["program-composition"].note
    confirm = checks["program-confirm"]
    assert confirm.verdict == "fail" and confirm.adjusted_pvalue <= 1e-6


@pytest.mark.tier2
def test_the_fixed_twin_is_certified_on_every_draw_set(branch):
    """The twin's path does not depend on the draws: no further draw set is replayed on every neighbour, and the
    real-valued laws compose within the claim (as implemented, float noise is not certified: never a failure)."""
    ideal = pdp_audit.audit_program(branch.fixed, DATA, 1.0, 0.0, bounds=(0, 1), trials=2000, law="ideal")
    assert ideal.verdict == "pass"
    shipped = pdp_audit.audit_program(branch.fixed, DATA, 1.0, 0.0, bounds=(0, 1), trials=2000, draw_sets=4)
    assert shipped.verdict != "fail"


def test_draw_sets_out_of_range_is_refused_in_one_line(branch, tmp_path, monkeypatch, capsys):
    with pytest.raises(InputError, match="draw_sets"):
        pdp_audit.audit_program(branch.fixed, DATA, 1.0, 0.0, bounds=(0, 1), draw_sets=0)
    monkeypatch.chdir(EXAMPLES)
    args = ["program", "program_branch:fixed", "--data", "program-values.csv", "--claim-epsilon", "1"]
    assert cli.main([*args, "--claim-delta", "0", "--draw-sets", "17", "--report", "none"]) == 2
    assert "--draw-sets" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(10))
def test_the_bug_is_refuted_at_every_root_seed(branch, seed):
    """The first draw set takes the clipped branch at every root seed; the 7 further ones (drawn from the seed) each
    take the shortcut with probability about 1/2, so all miss it with probability about 2⁻⁷: a refuted worst pair
    is the composition check's failure (``program-composition``, the run's verdict fail)."""
    found = analyse(branch.shortcut_when_large, DATA, "add-remove", (0, 1), (1.0, 0.0), seed)
    worst = found.worst()
    assert worst is not None and worst.refuted and worst.drawn.index > 0
    assert len(found.draw_sets) <= MOST_PATHS and found.recorded_sets == 8


def _values(data):
    return np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)


def doubled_on_some_draws(data, rng):
    """Two paths, chosen by a draw alone (the same on D and on D′), with the same calls: the clipped sum, or twice
    it, plus Laplace noise of scale 1 -- the paths differ only in R(D′) − R(D)."""
    coin = rng.laplace(0.0, 1.0)
    total = _values(data).sum()
    return (total if coin > 0 else 2.0 * total) + rng.laplace(0.0, 1.0)


def a_path_per_draw(data, rng):
    """A path of its own on (almost) every draw: the number of noise draws is itself drawn, as a sparse vector's
    stopping time is."""
    k = 1 + int(abs(rng.laplace(0.0, 1.0)) * 1000)
    return _values(data).sum() + rng.laplace(0.0, 1.0, size=k).mean()


def _full_replays(monkeypatch, program, seed):
    """The analysis on 8 draw sets, and the draw sets replayed on every named neighbour (each call of
    :func:`analysis._replayed` in it, the first's included)."""
    replays = []
    original = analysis._replayed

    def counted(session, data, candidates, drawn, *args, **kwargs):
        replays.append(drawn.index)
        return original(session, data, candidates, drawn, *args, **kwargs)

    monkeypatch.setattr(analysis, "_replayed", counted)
    found = analyse(program, DATA, "add-remove", (0, 1), (1.0, 0.0), seed, draw_sets=8)
    return found, replays


@pytest.mark.parametrize("seed", range(3))
def test_two_paths_are_replayed_twice_however_many_draw_sets(monkeypatch, seed):
    """Both paths are taken among the 8 draw sets at these seeds; the second path's later draw sets are recognised
    as it (their differences on the sentinels are its first draw set's, not the first path's), not replayed again."""
    found, replays = _full_replays(monkeypatch, doubled_on_some_draws, seed)
    assert len(replays) == 2 and replays[0] == 0 and found.unreplayed == 0
    assert [d.index for d in found.draw_sets] == replays
    # the doubled path: sensitivity 2 at scale 1, given the coin -- which the release does not reveal, so the
    # composition is a bound on the conditional laws, a finding for the black box, not a refutation
    worst = found.worst()
    assert worst is not None and not worst.refuted
    assert any(isinstance(f, Conditioned) and f.lower.pure >= 2 for f in worst.findings)


@pytest.mark.tier2
def test_a_path_per_draw_is_replayed_on_at_most_most_paths(monkeypatch):
    found, replays = _full_replays(monkeypatch, a_path_per_draw, 0)
    assert len(replays) == MOST_PATHS and found.unreplayed == 8 - MOST_PATHS
    run = pdp_audit.audit_program(a_path_per_draw, DATA, 1.0, 0.0, bounds=(0, 1), trials=100, law="ideal")
    assert run.parameters["paths_replayed"] == MOST_PATHS and run.parameters["paths_not_replayed"] == 4
    assert any("4 of the 8 draw sets" in line for line in run.parameters["not_covered"])


@pytest.mark.tier2
def test_the_same_seed_gives_the_same_bytes_on_several_paths(branch, tmp_path):
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        run = pdp_audit.audit_program(
            branch.shortcut_when_large, DATA, 1.0, 0.0, bounds=(0, 1), trials=100, seed=9, law="ideal"
        )
        pdp_audit.write_report(run, json=path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
