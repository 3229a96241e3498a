"""The commands that draw the DP-SGD configuration's exact δ(ε) curve where the FFT reference cannot bracket ε at δ
from above (δ below the grid's carried round-off: the upper ε bound is +∞) give the verdict, never exit 4.  Seen
failing (issue 83): ``run dp-sgd`` with a PDF report ended in "cannot convert float NaN to integer" -- the figure's ε
axis ran to 1.5 × +∞ -- where ``--report none`` gave the verdict; ``canaries --dp-sgd`` ended so with no report at
all (its configuration's curve ran to 4 × +∞)."""

from __future__ import annotations

import json

import numpy as np

from pdp_audit.cli.main import main

#: The issue's command, at the smallest --trials the command takes (it ended in exit 4 there too).
ISSUE = ["run", "dp-sgd", "--noise-multiplier", "0.8", "--sample-rate", "0.01", "--steps", "2000",
         "--claim-epsilon", "5.4764", "--claim-delta", "1e-8", "--trials", "1000", "--quiet"]  # fmt: skip


def test_the_issues_command_gives_its_verdict_with_its_figures(tmp_path, monkeypatch):
    """With the PDF (whose figures draw the exact curve) the command gives the verdict its checks decide (on main:
    exit 4 here, 3 with ``--report none``), and the curve's bracket at δ = 1e-8 is open above (the reason its axis
    had no end)."""
    monkeypatch.chdir(tmp_path)
    code = main([*ISSUE, "--report", "report.pdf", "--json", "drawn.json"])
    assert code != 4
    doc = json.loads((tmp_path / "drawn.json").read_text())
    verdicts = {check["id"]: check["verdict"] for check in doc["checks"]}
    assert code == doc["exit_code"] == {"fail": 1, "inconclusive": 3}[doc["verdict"]], verdicts
    assert (tmp_path / "report.pdf").stat().st_size > 0
    assert doc["parameters"]["exact_epsilon_high"] is None  # +∞, written as null


DEPLOY = """mechanism = "dp-sgd"
[claim]
epsilon = 0.5
delta = 1e-20
[parameters]
noise_multiplier = 1.1
sample_rate = 0.01
steps = 20
[audit]
trials = 1000
"""


def test_a_training_runs_report_at_a_delta_below_the_grids_round_off(tmp_path, monkeypatch):
    """``canaries --one-run --dp-sgd`` at δ = 1e-20: the configuration's curve is tested on a finite ε grid, the
    exact ε's upper end is stated unbounded, and the canaries' verdict is the exit code."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(46)
    bits = rng.random(2000) < 0.5
    scores = (1.0 * bits + rng.standard_normal(2000)).tolist()
    (tmp_path / "run.csv").write_text("score,included\n" + "".join(f"{s!r},{int(b)}\n" for s, b in zip(scores, bits)))
    (tmp_path / "deploy.toml").write_text(DEPLOY)
    code = main(["canaries", "--one-run", "--scores", "run.csv", "--column", "score", "--inclusion", "run.csv",
                 "--inclusion-column", "included", "--alpha", "0.05", "--report", "none", "--delta", "1e-20",
                 "--dp-sgd", "deploy.toml", "--json", "t.json"])  # fmt: skip
    assert code != 4
    doc = json.loads((tmp_path / "t.json").read_text())
    both = doc["parameters"]["dp_sgd"]
    assert code == doc["exit_code"]
    assert both["upper"]["exact_epsilon_high"] is None and both["upper"]["exact_epsilon_low"] > 0
    assert both["curve"]["rejected"] is True  # a μ = 1 game is far from this configuration's curve
