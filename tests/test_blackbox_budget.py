"""Black-box budgets up to 1e9 in flat memory, and progress on a terminal (issue 30, "streamed and parallel").

The event test keeps only counts of its fresh releases, and the scores of a selection pass whose size is capped
(:data:`pdp_audit.audits.blackbox.events.SELECTION_MAX`: it was a quarter of ``trials``, 12 GB of scores at 1e9); the
logistic test keeps a score per fresh release and is refused in one line before the attack's draws where they do not
fit.  Each pass (training, selection, fresh; a search's pilots) names itself on a bar on a terminal, and nothing is
written where stderr is not one."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.blackbox import attack as blackbox
from pdp_audit.audits.blackbox import events as blackbox_events
from pdp_audit.audits.blackbox.attack import AttackOptions, attack_memory, blackbox_attack
from pdp_audit.audits.blackbox.search import Neighbours, SearchBudget, search_pairs
from pdp_audit.cli.main import main
from pdp_audit.verify.core import processes


def shifted(size, rng):
    return rng.normal(1.0, 2.0, (size, 1))


def centred(size, rng):
    return rng.normal(0.0, 2.0, (size, 1))


def test_trials_reach_1e9_for_the_black_box_alone(monkeypatch, capsys):
    """``--trials`` of ``blackbox`` has its own range (1e8 was the pair audits'), declared once for the CLI and the
    API; 1e9 with the event test passes the memory check of a 4 GB machine (its selection pass is capped)."""
    monkeypatch.setattr(processes, "physical_memory", lambda: 4 * 10**9)

    def accepted(*args, **kwargs):
        raise RuntimeError("accepted")

    monkeypatch.setattr(blackbox, "blackbox_attack", accepted)
    with pytest.raises(RuntimeError, match="accepted"):
        pdp_audit.audit_blackbox((shifted, centred), 1.0, 1e-5, trials=1e9)
    with pytest.raises(pdp_audit.InputError, match=r"^trials must be a whole number in \[100, 1e9\], got 2000000000"):
        pdp_audit.audit_blackbox((shifted, centred), 1.0, 1e-5, trials=2e9)
    assert main(["blackbox", "m:f", "--claim-epsilon", "1", "--claim-delta", "0", "--trials", "2e9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--trials must be a whole number in [100, 1e9], got 2e9" in err, err
    with pytest.raises(pdp_audit.InputError, match=r"trials must be a whole number in \[100, 1e8\]"):
        pdp_audit.audit_pair(object(), 1.0, 1e-5, trials=1e9)  # the white-box pair audits keep theirs


def test_the_logistic_test_at_1e9_is_refused_in_one_line_before_the_attack_draws(monkeypatch):
    """16 bytes per fresh release kept (and the pooled-rank attack's arrays): 160 GB at 1e9.  Only the memory
    probe's 2 releases are drawn before the refusal (the rng-discipline probes come after it)."""
    monkeypatch.setattr(processes, "physical_memory", lambda: 16 * 10**9)
    sizes = []

    def counted(size, rng):
        sizes.append(size)
        return rng.normal(size=(size, 1))

    budget = pdp_audit.BlackBoxBudget(train_trials=1e5, statistic="logistic")
    with pytest.raises(pdp_audit.InputError) as caught:
        pdp_audit.audit_blackbox((counted, counted), 1.0, 1e-5, trials=1e9, budget=budget)
    message = str(caught.value)
    assert message.startswith("train-trials 100000 and trials 1e+09 need about 160 GB") and "\n" not in message
    assert sizes == [2]


def test_the_selection_pass_is_capped_and_the_event_tests_memory_is_flat_in_trials(monkeypatch):
    """Its size was a quarter of ``trials`` (2.5e8 releases per world at 1e9, 6 scores each); it is capped at
    SELECTION_MAX, which leaves every budget up to 1e7 as it was (the benchmark's)."""
    size = blackbox_events.selection_size
    assert [size(t) for t in (100, 8_000_000, 10**7, 10**8, 10**9)] == [25, 2_000_000, 2_500_000, 2_500_000, 2_500_000]
    assert attack_memory(200_000, 1, 10**9, "events") == attack_memory(200_000, 1, 10**7, "events") < 1e9
    assert attack_memory(200_000, 1, 10**9, "logistic") > 1e11
    drawn = {}

    class Counted:
        def __init__(self, world):
            self.world = world

        def __call__(self, n, rng):
            drawn[self.world] = drawn.get(self.world, 0) + n
            return rng.normal(1.0 if self.world == "D" else 0.0, 2.0, (n, 1))

    monkeypatch.setattr(blackbox_events, "SELECTION_MAX", 3_000)
    attack = blackbox_attack(Counted("D"), Counted("D'"), 20_000, 1e-5, 0, train_trials=2_000)
    # training 2,000 + selection 3,000 (not 5,000) + a Poisson number <= 20,000 fresh, per world
    assert drawn["D"] == 2_000 + 3_000 + min(attack.attack.n, 20_000)
    assert drawn["D'"] == 2_000 + 3_000 + min(attack.attack.m, 20_000)


class Terminal(io.StringIO):
    """A stderr that says it is a terminal (tqdm writes its bars there)."""

    def isatty(self) -> bool:
        return True


@pytest.mark.tier2(representatives=("logistic-passes1",))
@pytest.mark.parametrize("statistic, passes", [("events", ("training", "selection", "fresh")), ("logistic", ())])
def test_every_pass_shows_itself_on_a_terminal_and_nothing_elsewhere(monkeypatch, statistic, passes):
    passes = passes or ("training", "fresh")
    at_once(monkeypatch)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    blackbox_attack(shifted, centred, 20_000, 1e-5, 0, True, train_trials=2_000, options=AttackOptions(statistic))
    shown = terminal.getvalue()
    for name in passes:
        assert f"blackbox, {name} releases" in shown, shown
    assert "selection" not in shown or statistic == "events"
    piped = io.StringIO()  # not a terminal: a file, a pipe
    monkeypatch.setattr(sys, "stderr", piped)
    blackbox_attack(shifted, centred, 20_000, 1e-5, 0, True, train_trials=2_000, options=AttackOptions(statistic))
    assert piped.getvalue() == ""


class NoisySum:
    dimension = 2

    def release(self, answers, size, rng):
        return answers.sum() + rng.laplace(scale=2.0, size=(size, 1))


@pytest.mark.tier2
def test_a_searchs_pilots_show_themselves_on_a_terminal(monkeypatch):
    from pdp_audit.audits.blackbox import search as blackbox_search

    bars = kept_bars(monkeypatch, blackbox_search)
    at_once(monkeypatch)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    budget = SearchBudget(candidates=3, pilot_trials=1_000, trials=2_000, rounds=2, progress=True)
    result = search_pairs(NoisySum(), Neighbours("linf", 1.0), "patterns", 0.0, 0, budget)
    shown = terminal.getvalue()
    assert "blackbox search, pilot attacks" in shown, shown
    assert [(bar.n, bar.total) for bar in bars] == [(5, 5)]  # 3 pilots, then the better 2 again
    assert "blackbox, fresh releases" in shown  # the final attack
    assert len(result.ranking) == 3
    quiet = SearchBudget(candidates=3, pilot_trials=1_000, trials=2_000, rounds=2)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert search_pairs(NoisySum(), Neighbours("linf", 1.0), "patterns", 0.0, 0, quiet).ranking == result.ranking
    assert sys.stderr.getvalue() == ""


def at_once(monkeypatch) -> None:
    """Bars appear at once, wherever a pass asks (a test's passes end before the delay that hides short ones)."""
    from pdp_audit.verify.estimators import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.delenv(progress.ENV, raising=False)


def kept_bars(monkeypatch, module) -> list:
    """The bars ``module`` makes, kept for the test to read."""
    bars = []
    real = module._progress_bar

    def kept(*args, **kwargs):
        bar = real(*args, **kwargs)
        bars.append(bar)
        return bar

    monkeypatch.setattr(module, "_progress_bar", kept)
    return bars


def test_a_bar_counts_the_releases_drawn(monkeypatch):
    """The fresh pass's sizes are Poisson: the bar's total is corrected to the releases really drawn."""
    bars = kept_bars(monkeypatch, blackbox)
    monkeypatch.setattr(sys, "stderr", Terminal())
    attack = blackbox_attack(shifted, centred, 20_000, 1e-5, 0, True, train_trials=2_000)
    (bar,) = bars
    fresh = min(attack.attack.n, 20_000) + min(attack.attack.m, 20_000)
    drawn = 2 * (2_000 + blackbox_events.selection_size(20_000)) + fresh
    assert bar.n == bar.total == drawn
    assert np.isfinite(attack.epsilon_lower_bound_at(1e-6))
