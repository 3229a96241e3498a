"""One progress helper for every pass and command (verify/estimators/progress.py): a bar with its total on a
terminal's stderr (or wherever PDP_AUDIT_PROGRESS=1 asks), nothing on a file or a pipe, the items passed through
unchanged either way, and never a byte of it on stdout or in the JSON."""

from __future__ import annotations

import io
import sys
import time

import pytest

from pdp_audit.verify.estimators import progress
from pdp_audit.verify.estimators.progress import asking, progress_bar, say, with_progress

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def at_once(monkeypatch):
    """Bars appear at once (a test's passes end before the delay that keeps short passes quiet) and redraw at every
    update (a warm run's passes can end inside one rate-limit interval, leaving the planned total undrawn)."""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "MININTERVAL", 0.0)
    monkeypatch.delenv(progress.ENV, raising=False)


def test_a_bar_shows_on_a_terminal_only(monkeypatch, at_once):
    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        assert list(with_progress(iter(range(7)), 7, "blocks of draws", "block", True)) == list(range(7))
        assert ("blocks of draws" in stream.getvalue()) is shown
        assert ("/7" in stream.getvalue()) is shown  # the total


def test_no_bar_when_not_asked(monkeypatch, at_once):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(with_progress(range(3), 3, "quiet", "block", False)) == [0, 1, 2]
    with progress_bar(3, "quiet", "cell", False) as bar:
        assert bar is None
    assert terminal.getvalue() == ""


def test_the_environment_forces_bars_on_or_off(monkeypatch, at_once):
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    monkeypatch.setenv(progress.ENV, "1")  # a log that wants the bars
    assert list(with_progress(range(3), 3, "forced", "block", True)) == [0, 1, 2]
    assert "forced" in piped.getvalue() and "/3 [" in piped.getvalue()
    assert list(with_progress(range(3), 3, "unasked", "block", False)) == [0, 1, 2]  # --quiet stays quiet
    assert "unasked" not in piped.getvalue()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv(progress.ENV, "0")
    assert list(with_progress(range(3), 3, "off", "block", True)) == [0, 1, 2]
    monkeypatch.setenv(progress.ENV, "maybe")  # not a yes/no word: the terminal decides
    assert list(with_progress(range(3), 3, "terminal", "block", True)) == [0, 1, 2]
    assert "off" not in terminal.getvalue() and "terminal" in terminal.getvalue()


def test_a_pass_given_no_progress_follows_its_audit(monkeypatch, at_once):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    list(with_progress(range(2), 2, "outside", "block"))
    with asking(True):
        list(with_progress(range(2), 2, "inside", "block"))
        list(with_progress(range(2), 2, "refused", "block", False))  # an explicit False still wins
        with asking(False):
            list(with_progress(range(2), 2, "nested-quiet", "block"))
    shown = terminal.getvalue()
    assert "inside" in shown
    assert not any(name in shown for name in ("outside", "refused", "nested-quiet"))


def test_a_short_pass_shows_nothing(monkeypatch):
    """The delay: a pass that ends before DELAY seconds never draws a bar (no flicker of a hundred tiny passes)."""
    monkeypatch.delenv(progress.ENV, raising=False)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert progress.DELAY >= 0.5
    assert list(with_progress(range(50), 50, "short", "block", True)) == list(range(50))
    assert terminal.getvalue() == ""


def test_a_bar_counts_from_its_initial_value(monkeypatch, at_once):
    monkeypatch.setattr(sys, "stderr", Terminal())
    with progress_bar(10, "sweep", "cell", True, initial=4) as bar:
        bar.update(6)
        assert (bar.n, bar.total) == (10, 10)


def test_a_line_said_is_the_bytes_print_writes(monkeypatch, at_once):
    for shown in (True, False):
        terminal, plain = Terminal(), io.StringIO()
        monkeypatch.setattr(sys, "stderr", terminal)
        with progress_bar(3, "around", "item", shown):
            say("  ran gaussian (1.0 s)", file=plain)
        assert plain.getvalue() == "  ran gaussian (1.0 s)\n"


def test_pdp_audit_run_shows_its_passes_and_writes_the_same_outputs(tmp_path, monkeypatch, capsys, at_once):
    """`pdp-audit run` (every built-in plan goes through AuditPlan.run): bars with their totals on stderr when forced,
    and stdout (its timing aside) and the JSON byte for byte those of a run without them."""
    out = tmp_path / "run.json"
    argv = ["run", "laplace", "--trials", "2000", "--report", "none", "--json", str(out)]
    seen = forced_and_not(monkeypatch, capsys, argv, [out])
    assert "laplace: dp-pair/D: " in seen["1"][3] and "/1 [" in seen["1"][3], seen["1"][3]
    assert "block" not in seen["0"][3]


def test_pdp_audit_sweep_counts_its_cells(tmp_path, monkeypatch, capsys, at_once):
    """`pdp-audit sweep` (processes and Dask alike: the bar is run_sweep's, over whatever executor): cells done out
    of the spec's, with the rate and the estimated time left; the JSON unchanged by it."""
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[sweep]\nname = "tiny"\nmechanism = "laplace"\nseed = 0\nalpha = 1e-6\n'
        "[fixed]\ntrials = 1000\n[grid]\nclaim_epsilon = [0.5, 1.0]\n"
    )
    out = tmp_path / "sweep.json"
    seen = {}
    for forced in ("1", "0"):
        from pdp_audit.cli.main import main

        monkeypatch.setenv(progress.ENV, forced)
        store = tmp_path / "store.sqlite"
        store.unlink(missing_ok=True)  # both runs compute every cell
        code = main(["sweep", str(spec), "--store", str(store), "--json", str(out), "--workers", "1"])
        captured = capsys.readouterr()
        seen[forced] = (code, out.read_text(), captured.err)
    assert seen["1"][:2] == seen["0"][:2]
    assert "tiny: " in seen["1"][2] and "/2 [" in seen["1"][2], seen["1"][2]
    assert "tiny: " not in seen["0"][2]


def timeless(text: str) -> str:
    """``text`` without the run's wall time ("(0.8 s)"), the one unseeded part of a summary."""
    import re

    return re.sub(r"\(\d+(\.\d+)? s\)", "(… s)", text)


def test_a_sequential_pass_shows_one_bar_to_its_cap_and_its_numbers_do_not_change(monkeypatch, at_once):
    """The white-box pass drawn in looks (pair_checks._sequential_checks): one bar of the releases per world, its
    total the budget (the pass may stop before it), counted block by block; the checks the same without it."""
    from pdp_audit.mutants import gaussian
    from pdp_audit.verify.evidence import pair_sequential as sequential
    from pdp_audit.verify.evidence.pair_checks import MainPass, validated_dp_checks

    def audit(shown: bool):
        drawing = MainPass(shown, stop=sequential.Stopping(1e-6), law="ideal")
        return validated_dp_checks(gaussian(1.0), 1.0, 1e-3, 100_000, 0, False, drawing=drawing)  # fails at once

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    shown = audit(True)
    assert "plugin, releases per world (at most)" in terminal.getvalue()
    assert "/100k [" in terminal.getvalue(), terminal.getvalue()
    quiet = audit(False)
    assert repr([(e.spec.id, e.estimate, e.details) for e in shown]) == repr(
        [(e.spec.id, e.estimate, e.details) for e in quiet]
    )  # repr: nan == nan


def forced_and_not(monkeypatch, capture, argv: list, paths: list) -> dict:
    """``pdp-audit ARGV`` with the bars forced on (PDP_AUDIT_PROGRESS=1) and off (0): by forced value, (return code,
    stdout without its timings, the bytes of ``paths``, stderr)."""
    from pdp_audit.cli.main import main

    seen = {}
    for forced in ("1", "0"):
        monkeypatch.setenv(progress.ENV, forced)
        code = main(argv)
        captured = capture.readouterr()
        seen[forced] = (code, timeless(captured.out), [p.read_bytes() for p in paths], captured.err)
    assert seen["1"][:3] == seen["0"][:3]
    return seen


def test_pdp_audit_mutants_counts_the_mutants_done(tmp_path, monkeypatch, capsys, at_once):
    """`pdp-audit mutants`: a bar of the mutants done out of those chosen; its table on stdout, above the bar, and
    the JSON unchanged by it.  The zoo's audits are stood in for (their own passes follow `run`'s)."""
    from pdp_audit import mutant_runs as runs

    def outcome(mutant, trials, seed, alpha, *early_stop):
        return runs.Outcome(mutant, trials, "fail", ("dp-forward",), "pass", ())

    monkeypatch.setattr(runs, "run_mutant", outcome)
    out = tmp_path / "mutants.json"
    argv = ["mutants", "--trials", "1000", "--only", "noise-halved", "swapped-worlds", "--json", str(out)]
    seen = forced_and_not(monkeypatch, capsys, argv, [out])
    assert seen["1"][1].count("  caught  ") == 2
    assert "pdp-audit mutants: " in seen["1"][3] and "/2 [" in seen["1"][3], seen["1"][3]
    assert seen["0"][3] == ""


def test_pdp_audit_claims_run_counts_the_audits_and_keeps_its_lines(tmp_path, monkeypatch, capsys, at_once):
    """`pdp-audit claims --run`: a bar of the audits done out of those the entries cite, beside its own "ran …"
    lines (stderr, as before); the JSON and stdout unchanged by it."""
    out = tmp_path / "claims.json"
    argv = ["claims", "--run", "--only", "RW-Lem24", "--report", "none", "--json", str(out), "--workers", "1"]
    seen = forced_and_not(monkeypatch, capsys, argv, [out])
    assert "pdp-audit claims --run: " in seen["1"][3] and "/1 [" in seen["1"][3], seen["1"][3]
    assert "  ran lemmas (" in seen["1"][3] and "  ran lemmas (" in seen["0"][3]
    assert "claims --run:" not in seen["0"][3]


@pytest.mark.tier2
def test_pdp_audit_certify_counts_the_pairs_and_shows_their_passes(tmp_path, monkeypatch, capfd, at_once):
    """`pdp-audit certify` of a user's `module:factory`: a bar of the pairs audited (the deployment's, then each
    individual's) over the bars of their passes; the certificate's JSON and stdout unchanged by them.  Run here,
    without the sandbox's child (which the patched bar settings would not reach)."""
    from importlib import resources

    from pdp_audit import certify_files

    examples = resources.files("pdp_audit.examples")
    for name in ("own_histogram.py", "deploy-data.csv"):
        (tmp_path / name).write_bytes(examples.joinpath(name).read_bytes())
    deployment = examples.joinpath("deploy-own.toml").read_text().replace("trials = 2e5", "trials = 1000")
    (tmp_path / "deploy.toml").write_text(deployment.replace("individuals = 3", "individuals = 0"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(certify_files, "run_isolated", lambda function, *args, target: function(*args))
    out = tmp_path / "certificate.json"
    argv = ["certify", "deploy.toml", "--report", "none", "--json", str(out)]
    seen = forced_and_not(monkeypatch, capfd, argv, [out])
    assert "pdp-audit certify, pairs audited: " in seen["1"][3] and "/1 [" in seen["1"][3], seen["1"][3]
    assert "plugin" in seen["1"][3]  # the pass of a pair, under the bar of the pairs
    assert "pairs audited" not in seen["0"][3]


class Shifted:
    """A sampler one unit apart between the worlds (a black box)."""

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + rng.laplace(scale=1.0, size=(size, 1))


def make_shifted() -> Shifted:
    return Shifted()


@pytest.mark.tier2
def test_pdp_audit_blackbox_shows_its_passes_and_writes_the_same_json(tmp_path, monkeypatch, capfd, at_once):
    """`pdp-audit blackbox`: a bar of the releases drawn, named by its pass, with the total; the JSON and stdout
    unchanged by it (the sampler runs in a forked child: its stderr is read at the descriptor)."""
    out = tmp_path / "blackbox.json"
    argv = ["blackbox", f"{__name__}:make_shifted", "--claim-epsilon", "0.5", "--claim-delta", "0"]
    argv += ["--trials", "2000", "--train-trials", "1000", "--json", str(out)]
    seen = forced_and_not(monkeypatch, capfd, argv, [out])
    assert "blackbox, training releases" in seen["1"][3] and "/7.00k [" in seen["1"][3], seen["1"][3]
    assert "release/s" not in seen["0"][3]


@pytest.mark.tier2
def test_pdp_audit_canaries_counts_its_stages(tmp_path, monkeypatch, capsys, at_once):
    """`pdp-audit canaries` (scores, and --one-run): a bar of the stages of the bound (millions of scores take a
    while; nothing in them has a count of its own), with the total; the JSON and stdout unchanged by it."""
    import numpy as np

    rng = np.random.default_rng(0)
    for name, values in (("in", rng.normal(1, 1, 2000)), ("out", rng.normal(0, 1, 2000))):
        np.save(tmp_path / f"{name}.npy", values)
    np.save(tmp_path / "scores.npy", rng.normal(0, 1, 2000))
    np.save(tmp_path / "bits.npy", rng.integers(0, 2, 2000))
    out = tmp_path / "canaries.json"
    common = ["--delta", "1e-5", "--claim-epsilon", "1", "--report", "none", "--json", str(out)]
    scores = ["canaries", "--in-scores", str(tmp_path / "in.npy"), "--out-scores", str(tmp_path / "out.npy")]
    one_run = ["canaries", "--one-run", "--scores", str(tmp_path / "scores.npy")]
    one_run += ["--inclusion", str(tmp_path / "bits.npy")]
    for argv, name in ((scores, "canaries, 4,000 scores: "), (one_run, "canaries --one-run, 2,000 canaries: ")):
        seen = forced_and_not(monkeypatch, capsys, [*argv, *common], [out])
        assert name in seen["1"][3] and "stage" in seen["1"][3], seen["1"][3]
        assert seen["0"][3] == ""


def test_a_pass_says_whose_it_is(monkeypatch, at_once):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with asking(True, "gaussian"):
        list(with_progress(range(2), 2, "rare/D||D'", "block"))
        with asking(True):  # a nested ask without a label keeps the audit's
            list(with_progress(range(2), 2, "dp-pair/D", "block"))
    assert "gaussian: rare/D||D'" in terminal.getvalue() and "gaussian: dp-pair/D" in terminal.getvalue()


def test_the_whole_audit_bar_counts_the_draws_of_every_pass(monkeypatch, at_once):
    """audit_bar: the passes' blocks advance it by their sizes (the last block too: counted as it comes), planned()
    adds to its total, an audit inside another's bar shares it, and nothing of it exists where no bar is shown."""
    from pdp_audit.verify.estimators.engine import run_blocks

    monkeypatch.setattr(sys, "stderr", Terminal())
    with asking(True, "demo"), progress.audit_bar() as bar:
        assert progress.planning()
        opened, planning = bar.start_t, time.time()
        progress.planned(1500)
        assert bar.start_t >= planning >= opened  # the clock of the rate starts at the plan, not at the setup
        with progress.audit_bar() as inner:
            assert inner is bar
            progress.planned(500)
        run_blocks(lambda size, rng: rng.random(size), 1_300, 0, "s", block_size=512)  # blocks 512, 512, 276
        list(with_progress(iter("ab"), 2, "other", "block", False, [300, 400]))  # its own bar off: still counted
        assert (bar.n, bar.total) == (2000, 2000)
    assert "demo: the audit's draws" in sys.stderr.getvalue()
    with asking(False), progress.audit_bar() as none:
        assert none is None and not progress.planning()
        progress.planned(10)  # nothing to add to
    assert not progress.planning()


def test_a_weighted_pass_advances_the_whole_audit_bar_by_its_weight(monkeypatch, at_once):
    """weighted(w): each draw of the passes inside advances the whole audit's bar by w (a costly draw weighs its
    cost); outside, by one again."""
    from pdp_audit.verify.estimators.engine import run_blocks

    monkeypatch.setattr(sys, "stderr", Terminal())
    with asking(True, "demo"), progress.audit_bar() as bar:
        progress.planned(3 * 1000 + 500)
        with progress.weighted(3):
            run_blocks(lambda size, rng: rng.random(size), 1_000, 0, "heavy", block_size=512)
        run_blocks(lambda size, rng: rng.random(size), 500, 0, "light", block_size=512)
        assert (bar.n, bar.total) == (3500, 3500)


def test_passes_planned_at_most_give_back_what_they_did_not_draw(monkeypatch, at_once):
    """at_most(k): the passes inside were planned as at most k draws (weighed as they are); on leaving, the bar's total
    takes back what they did not draw, so it ends at its total."""
    from pdp_audit.verify.estimators.engine import run_blocks

    monkeypatch.setattr(sys, "stderr", Terminal())
    with asking(True, "demo"), progress.audit_bar() as bar:
        progress.planned(2 * 1000 + 3 * 900)
        with progress.at_most(1000):
            run_blocks(lambda size, rng: rng.random(size), 600, 0, "found", block_size=512)
        with progress.weighted(3), progress.at_most(900):
            run_blocks(lambda size, rng: rng.random(size), 100, 0, "weighed", block_size=512)
        assert bar.total == 1000 + 600 + 3 * 100
        run_blocks(lambda size, rng: rng.random(size), 1000, 0, "rest", block_size=512)
        assert (bar.n, bar.total) == (1900, 1900)


class _Recorded:
    """tqdm bars whose last count and total are kept by description (what a test of a whole audit reads)."""

    def __init__(self, monkeypatch):
        import tqdm

        seen = self.seen = {}

        class Recording(tqdm.tqdm):
            def close(self):
                seen.setdefault(self.desc, (self.n, self.total))
                super().close()

        monkeypatch.setattr(tqdm, "tqdm", Recording)


@pytest.mark.tier2(
    cases=(
        "objpert-options9",
        "goe-release-options8",
        "goe-release-options6",
        "objpert-options10",
        "objpert-options11",
        "objpert-options12",
        # each audit and planning path keeps a case in tier 1: gaussian 0 and 2, privacy-report's dependent and
        # adaptive, dp-sgd add/remove, ops's plain tails, adaops's unrunnable groups
        "gaussian-options1",
        "privacy-report-options13",
        "dp-sgd-options17",
        "ops-options19",
        "adaops-options21",
    )
)
@pytest.mark.parametrize(
    "audit, options",
    [
        ("gaussian", {}),
        ("gaussian", {"query": "mean", "paper_claims": True}),
        ("gaussian", {"calibration": "classical", "query": "count"}),
        ("laplace", {"query": "mean"}),
        ("geometric", {}),
        ("randomized-response", {}),
        ("goe-release", {"matrices": 1000}),
        ("goe-release", {"matrices": 1000, "d": 20, "paper_claims": True}),
        ("goe-release", {"matrices": 1000, "d": 7, "tau_reading": "unit-goe"}),
        ("objpert", {"search_trials": 200, "synthetic": "60,2"}),
        ("objpert", {"search_trials": 200, "synthetic": "60,2", "paper_claims": True}),
        ("objpert", {"search_trials": 200, "synthetic": "60,2", "loss": "squared", "theta_radius": 1.0}),
        ("objpert", {"search_trials": 200, "synthetic": "60,2", "sigma": 2.0}),
        # the report's passes and their draws do not depend on the data's size: 60 × 2 plans and draws the totals of
        # the default 1000 × 50 pass for pass (8-11 CPU s a run there, 1.4-1.8 here)
        ("privacy-report", {"repetitions": 200, "no_figures": True, "n": 60, "d": 2}),
        ("privacy-report", {"repetitions": 200, "no_figures": True, "mode": "independent", "n": 60, "d": 2}),
        ("privacy-report", {"repetitions": 200, "mode": "adaptive", "n": 60, "d": 2}),
        # 5 steps plan and draw the passes of 20 (the same bars and totals at 1000 trials) at a quarter of the cost
        ("dp-sgd", {"steps": 5}),
        ("dp-sgd", {"steps": 5, "neighbours": "replace-one"}),
        ("output-perturbation", {"search": 8, "synthetic": "60,2", "paper_claims": True, "no_reproduce": True}),
        ("ops", {"search": 8, "synthetic": "60,2", "paper_claims": True, "no_reproduce": True}),
        # plain tails: the bound is given back (at 2000 trials; at 1000 its rare passes run)
        ("ops", {"search": 8, "synthetic": "60,2", "claim_delta": 0.02, "trials": 2000}),
        ("adaops", {"search": 8, "synthetic": "60,2", "paper_claims": True, "no_reproduce": True}),
        ("adaops", {"search": 8, "synthetic": "60,2", "algorithm": "pdp", "printed": True}),  # unrunnable groups
        ("adassp", {"search": 8, "synthetic": "60,2", "printed": True}),  # Monte Carlo search scores
        ("ssp", {"search": 8, "synthetic": "60,2", "paper_claims": True, "no_reproduce": True}),
    ],
)
def test_an_audit_plans_exactly_the_draws_it_takes(monkeypatch, at_once, audit, options):
    """The whole-audit bar of an audit that plans: its total, planned before the first draw, is the draws its passes
    take (each DP check's importance-sampled tail and profile points included), so the time left is the audit's."""
    from pdp_audit.catalogue.plans import plans_by_name

    monkeypatch.setenv(progress.ENV, "1")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    recorded = _Recorded(monkeypatch)
    plan = plans_by_name()[audit]
    trials = options.get("trials", 1000)  # the passes of 2000 trials, each at half the draws (ops's plain tails aside)
    plan.execute(plan.configure({**options, "trials": trials}), 1, True)
    done, total = recorded.seen[f"{audit}: the audit's draws"]
    assert done == total and total >= 2 * trials  # at least trials in each of two worlds or directions


def test_pdp_audit_run_gaussian_shows_one_bar_of_the_audit_and_writes_the_same_outputs(
    tmp_path, monkeypatch, capsys, at_once
):
    """`pdp-audit run gaussian`: the whole audit's bar with its total and time left on stderr when forced; stdout and
    the JSON byte for byte those of a run without bars."""
    out = tmp_path / "run.json"
    argv = ["run", "gaussian", "--trials", "2000", "--report", "none", "--json", str(out)]
    seen = forced_and_not(monkeypatch, capsys, argv, [out])
    # 2 pairs × 2 worlds × 2000 draws, and the claims' importance-sampled tails; no report: no figure points
    assert "gaussian: the audit's draws: " in seen["1"][3] and "/16.0k [" in seen["1"][3], seen["1"][3]
    assert "the audit's draws" not in seen["0"][3]


@pytest.fixture
def lines_at_once(monkeypatch):
    """Plain lines where standard error is no terminal, the first at once and then at most one per 0.05 s."""
    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.05)
    monkeypatch.delenv(progress.ENV, raising=False)


def test_off_a_terminal_progress_is_plain_lines_of_the_outermost_bar(monkeypatch, lines_at_once):
    """A pipe or a log got nothing (a Dask sweep in a pipe was silent for 88 s): whole lines now, with the count,
    the total and the time left, at most one per LINE_INTERVAL, no carriage return, and a pass inside adds none."""
    import time

    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    start = time.perf_counter()
    with asking(True, "gaussian"), progress.audit_bar():
        progress.planned(40)
        for _ in with_progress(range(40), 40, "inner pass", "block", units=[1] * 40):
            time.sleep(0.01)
    elapsed = time.perf_counter() - start
    lines = piped.getvalue().splitlines()
    assert "\r" not in piped.getvalue() and lines and all(line.strip() for line in lines)
    assert all(line.startswith("gaussian: the audit's draws:") for line in lines)  # the pass inside shows none
    assert any("/40.0 [" in line and "<" in line for line in lines)  # the total, and elapsed<remaining
    assert len(lines) <= elapsed / progress.LINE_INTERVAL + 2


def test_off_a_terminal_a_short_pass_and_quiet_show_nothing(monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert list(with_progress(range(3), 3, "short", "block", True)) == [0, 1, 2]  # within LINE_INTERVAL
    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.0)
    assert list(with_progress(range(3), 3, "quiet", "block", False)) == [0, 1, 2]
    monkeypatch.setenv(progress.ENV, "0")
    assert list(with_progress(range(3), 3, "off", "block", True)) == [0, 1, 2]
    assert piped.getvalue() == ""


def test_a_sweep_in_a_pipe_prints_lines_on_stderr_and_its_json_unchanged(tmp_path, monkeypatch, capsys):
    from pdp_audit.cli.main import main

    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.0)
    monkeypatch.delenv(progress.ENV, raising=False)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[sweep]\nname = "tiny"\nmechanism = "laplace"\nseed = 0\nalpha = 1e-6\n'
        "[fixed]\ntrials = 1000\n[grid]\nclaim_epsilon = [0.5, 1.0]\n"
    )
    store = tmp_path / "store.sqlite"
    assert main(["sweep", str(spec), "--store", str(store), "--json", "-", "--workers", "1"]) in (0, 1, 3)
    captured = capsys.readouterr()
    import json

    assert "tiny" in json.dumps(json.loads(captured.out))  # stdout is the JSON alone
    assert "tiny: " in captured.err and "/2 [" in captured.err and "\r" not in captured.err
