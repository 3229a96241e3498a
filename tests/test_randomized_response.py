"""``pdp-audit run randomized-response``: the exact profile against an enumeration of the reports, the sampler
against its probabilities, and the verdicts on a correct and a deliberately broken deployment."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import mpmath
import numpy as np
import pytest

from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.cli import main as cli
from pdp_audit.mechanisms import randomized_response as rr
from pdp_audit.verify.evidence import contract

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _enumerated_delta(epsilon, randomization, k, value=0, other=1):
    """Σ_o (P_D(o) − e^ε P_D'(o))₊ over the k reports, from p = e^{ε_r}/(e^{ε_r} + k − 1) and q = (1 − p)/(k − 1)
    in 40-digit arithmetic."""
    mpmath.mp.dps = 40
    p = mpmath.exp(randomization) / (mpmath.exp(randomization) + k - 1)
    q = (1 - p) / (k - 1)

    def pmf(o, truth):
        return p if o == truth else q

    return float(mpmath.fsum(max(0, pmf(o, value) - mpmath.exp(epsilon) * pmf(o, other)) for o in range(k)))


@pytest.mark.parametrize("k", [2, 3, 10])
@pytest.mark.parametrize("randomization", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("fraction", [0.0, 0.5, 0.99, 1.0, 2.0])
def test_profile_matches_enumeration(k, randomization, fraction):
    epsilon = fraction * randomization
    exact = rr.rr_delta(epsilon, randomization, k)
    assert exact == pytest.approx(_enumerated_delta(epsilon, randomization, k), rel=1e-12, abs=1e-15)
    if exact > 0:
        assert rr.rr_epsilon(exact, randomization, k) == pytest.approx(epsilon, rel=1e-9, abs=1e-12)


def test_calibration_round_trips_and_total_variation():
    for k in (2, 5):
        keep = rr.keep_probability(0.8, k)
        assert keep == pytest.approx(math.exp(0.8) / (math.exp(0.8) + k - 1))
        assert rr.randomization_epsilon(keep, k) == pytest.approx(0.8, rel=1e-12)
        assert rr.rr_delta(0.0, 0.8, k) == pytest.approx(keep - (1 - keep) / (k - 1))  # TV = p − q


def test_sampler_frequencies_match_the_probabilities():
    """Each report's frequency in 400,000 draws lies within 5.5 standard errors of its probability (two-sided
    false alarm ≤ 4e-8 per category by the normal approximation, n·q ≥ 4e4)."""
    pair = rr.RandomizedResponsePair(2, 0, 4, 1.2)
    n = 400_000
    reports = pair.sample("D", n, np.random.default_rng(12))[:, 0]
    keep = rr.keep_probability(1.2, 4)
    for o in range(4):
        prob = keep if o == 2 else (1 - keep) / 3
        assert abs(np.mean(reports == o) - prob) <= 5.5 * math.sqrt(prob * (1 - prob) / n), o


class TooTruthfulPair(rr.RandomizedResponsePair):
    """A broken mechanism: it reports the truth as if ε_r were doubled, while its loss claims ε_r."""

    def sample(self, world, size, rng):
        return rr.RandomizedResponsePair(self.value, self.other, self.k, 2 * self.randomization).sample(
            world, size, rng
        )


def test_the_contract_catches_a_sampler_that_keeps_the_truth_too_often():
    contract.check_likelihood_ratio_identities(rr.RandomizedResponsePair(0, 1, 3, 1.0))
    with pytest.raises(AssertionError, match="does not match the sampler"):
        contract.check_likelihood_ratio_identities(TooTruthfulPair(0, 1, 3, 1.0))


def test_loss_takes_three_values_bounded_by_the_randomization():
    pair = rr.RandomizedResponsePair(1, 2, 5, 0.9)
    losses = pair.privacy_loss(np.arange(5, dtype=float).reshape(5, 1))
    assert list(losses) == [0.0, 0.9, -0.9, 0.0, 0.0]


def _run(**values):
    plan = plans_by_name()["randomized-response"]
    return plan.execute(plan.configure({"trials": 20_000, **values}))


@pytest.mark.parametrize("values", [{}, {"dataset": "breast-cancer", "claim_epsilon": 0.3}])
def test_correct_pure_deployment_passes(values):
    run = _run(**values)
    assert run.verdict == "pass", [(c.id, c.verdict) for c in run.checks]
    assert {c.id for c in run.checks} >= {"dp-forward", "dp-reverse", "loss-bound", "tail-curve", "pdp-individual"}


def test_deflated_randomization_fails_at_a_small_budget():
    run = _run(noise_multiplier=0.5, trials=5000)
    verdicts = {c.id: c.verdict for c in run.checks}
    assert run.verdict == "fail"
    assert verdicts["dp-forward"] == verdicts["loss-bound"] == "fail"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--data", "examples/deploy-data.csv"], "--data needs --column and --categories"),
        (["--column", "ash"], "--column needs --categories"),
        (["--categories", "1"], "--categories"),
        (["--keep-probability", "1"], "--keep-probability"),
        (["--keep-probability", "0.2"], "--keep-probability must be above 1/k"),
        (["--categories", "2"], "must hold categories 0..1"),
        (["--column", "ash", "--categories", "4"], "must hold categories 0..3"),
        (["--noise-multiplier", "0.001", "--claim-epsilon", "1"], "at most 700"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(args, needle, capsys):
    assert cli.main(["run", "randomized-response", *args, "--trials", "1000", "--report", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err, err


@pytest.mark.parametrize("multiplier, code", [(None, 0), (0.5, 1)])
def test_the_deployment_is_certified_at_pure_dp_and_a_deflated_one_refused(tmp_path, multiplier, code):
    text = (EXAMPLES / "deploy-randomized-response.toml").read_text(encoding="utf-8")
    text = text.replace("trials = 1e6", "trials = 2e4")
    assert "delta = 0\n" in text
    if multiplier is not None:
        text = text.replace("\ncategories", f"\nnoise_multiplier = {multiplier}\ncategories")
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path)
    (tmp_path / "deploy.toml").write_text(text, encoding="utf-8")
    assert cli.main(["certify", str(tmp_path / "deploy.toml"), "--report", "none", "--quiet"]) == code
