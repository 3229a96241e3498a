"""One report for a DP-SGD training run (``canaries … --dp-sgd deploy.toml``): the configuration's certified upper
bound beside the canaries' lower bound, the gap stated; bad files are one line, exit 2, before any work."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pdp_audit.cli.main import main
from pdp_audit.training_run import gap, page_text

DEPLOY = """mechanism = "dp-sgd"
[claim]
epsilon = {epsilon}
delta = 1e-5
[parameters]
noise_multiplier = 1.1
sample_rate = 0.01
steps = 20
[audit]
trials = 1000
"""


@pytest.fixture
def run_files(tmp_path, monkeypatch):
    """A leaky one-run game (scores μ·bit + N(0, 1), μ = 1, 2,000 canaries) and a small DP-SGD deployment."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(46)
    bits = rng.random(2000) < 0.5
    scores = (1.0 * bits + rng.standard_normal(2000)).tolist()
    rows = "".join(f"{s!r},{int(b)}\n" for s, b in zip(scores, bits))
    (tmp_path / "run.csv").write_text("score,included\n" + rows)
    (tmp_path / "deploy.toml").write_text(DEPLOY.format(epsilon=0.5))
    return tmp_path


ARGS = ["canaries", "--one-run", "--scores", "run.csv", "--column", "score", "--inclusion", "run.csv",
        "--inclusion-column", "included", "--alpha", "0.05", "--report", "none"]  # fmt: skip


def test_both_bounds_in_one_report(run_files, capsys):
    """The JSON's parameters.dp_sgd holds the upper side (claim, verdict, exact ε bracket), the lower side and the
    gap; the claim the canaries test is the deployment's; the summary prints the page's rows."""
    code = main([*ARGS, "--delta", "1e-5", "--dp-sgd", "deploy.toml", "--json", "t.json"])
    doc = json.loads((run_files / "t.json").read_text())
    both = doc["parameters"]["dp_sgd"]
    upper, lower = both["upper"], both["lower"]
    assert doc["parameters"]["epsilon"] == 0.5 == upper["epsilon"]  # the accountant's claim, tested by the canaries
    assert upper["exact_epsilon_low"] <= upper["exact_epsilon_high"] < 0.5  # (1.1, 0.01, 20): ε ≈ 0.27 at 1e-5
    assert upper["verdict"] in ("pass", "inconclusive")
    assert lower["check"] == "one-run-epsilon" and lower["epsilon"] <= lower["fdp_epsilon"]
    assert both["gap"]["difference"] == pytest.approx(upper["exact_epsilon_high"] - lower["epsilon"])
    assert both["curve"]["rejected"] is True  # a μ = 1 game is far from this configuration's curve
    assert [p["title"] for p in doc["pages"]][0].startswith("The training run")
    out = capsys.readouterr().out
    assert "Upper  accountant's claim (0.5, 1e-05)" in out and "Lower  canaries, one-run-epsilon" in out
    assert code == doc["exit_code"]  # the canaries' verdict decides the exit code


def test_a_lower_bound_above_the_upper_one_is_stated_inconsistent():
    upper = {"noise_multiplier": 1.1, "sample_rate": 0.01, "steps": 20, "neighbours": "add-remove",
             "exact_epsilon_high": 0.3}  # fmt: skip
    lower = {"epsilon": 0.9}
    stated = gap(0.3, 0.9)
    assert stated["consistent"] is False
    assert "INCONSISTENT" in page_text(upper, lower, stated, 0.9)
    assert gap(2.0, 0.5) == {"difference": 1.5, "ratio": 4.0, "consistent": True}
    assert gap(None, 0.5)["difference"] is None


def test_bad_deployments_are_one_line_before_any_work(run_files, capsys):
    assert main([*ARGS, "--delta", "1e-6", "--dp-sgd", "deploy.toml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--delta 1e-06 differs from" in err and "claim.delta 1e-05" in err
    (run_files / "g.toml").write_text(
        'mechanism = "gaussian"\n[claim]\nepsilon = 1.0\ndelta = 1e-5\n[parameters]\nsigma = 5.0\n'
    )
    assert main([*ARGS, "--delta", "1e-5", "--dp-sgd", "g.toml"]) == 2
    assert 'expected mechanism = "dp-sgd"' in capsys.readouterr().err
    (run_files / "bad.toml").write_text(DEPLOY.format(epsilon=0.5).replace("steps = 20", "steps = 0"))
    assert main([*ARGS, "--delta", "1e-5", "--dp-sgd", "bad.toml"]) == 2
    assert "steps" in capsys.readouterr().err


def test_the_configurations_curve_is_not_rejected_by_canaries_without_signal():
    """Scores independent of the coins cannot reject any curve (p = 1); scores of a μ = 1 Gaussian game reject the
    curve of (σ, q, T) = (1.1, 0.01, 20), whose ε at 1e-5 is about 0.33 (μ-GDP with μ ≈ 0.05)."""
    from types import SimpleNamespace

    import pdp_audit
    from pdp_audit.training_run import curve_test

    config = SimpleNamespace(
        parameters={
            "noise_multiplier": 1.1,
            "sample_rate": 0.01,
            "steps": 20,
            "neighbours": "add-remove",
            "epsilon": 0.5,
            "exact_epsilon_high": 0.3312,
        }  # fmt: skip
    )
    rng = np.random.default_rng(5)
    bits = rng.random(2000) < 0.5
    quiet = pdp_audit.audit_one_run(rng.standard_normal(2000), bits, 1e-5, alpha=0.05)
    assert curve_test(quiet, config) == {"pvalue": 1.0, "rejected": False, "alpha": 0.05}
    leaky = pdp_audit.audit_one_run(1.0 * bits + rng.standard_normal(2000), bits, 1e-5, alpha=0.05)
    assert curve_test(leaky, config)["rejected"] is True
