"""The one-run audit (Steinke, Nasr & Jagielski 2023; audits/canaries/one_run.py, `pdp-audit canaries --one-run`,
`pdp_audit.audit_one_run`): its tail bound against an independent exact computation, its validity on mechanisms
of known ε (randomised response, where the bound is nearly tight, and the Gaussian mechanism), a bound that ignores
δ caught by the same test, and the command's exit codes and one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess

import mpmath
import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.canaries.one_run import epsilon_lower_bound, guess_grid, one_run_attack, tail_bound
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.verify.estimators.engine import sample_privacy_loss

ALPHA = 1e-6


def mp_tail_bound(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """The theorem's right-hand side by exact rational-precision sums (mpmath, 50 digits), term by term."""
    mpmath.mp.dps = 50
    q = mpmath.e**epsilon / (1 + mpmath.e**epsilon)

    def f(w: int):
        if w <= 0:
            return mpmath.mpf(1)
        return mpmath.fsum(mpmath.binomial(r, j) * q**j * (1 - q) ** (r - j) for j in range(w, r + 1))

    extra = max((f(v - i) - f(v)) / i for i in range(1, v + 1)) if delta > 0 else 0
    return float(min(1, f(v) + 2 * m * mpmath.mpf(delta) * extra))


@pytest.mark.parametrize(
    "m,r,v,epsilon,delta",
    [(1000, 50, 45, 1.0, 0.0), (1000, 50, 45, 1.0, 1e-9), (200, 100, 90, 2.0, 1e-7), (5000, 30, 30, 3.0, 1e-10)],
)
def test_tail_bound_is_the_theorem_computed_exactly(m, r, v, epsilon, delta):
    exact = mp_tail_bound(m, r, v, epsilon, delta)
    value = tail_bound(m, r, v, epsilon, delta)
    assert exact <= value <= exact * (1 + 1e-8), (value, exact)  # never below it: the margin only adds


def test_the_reported_epsilon_is_rejected_and_the_next_one_is_not():
    m, r, v, delta = 1000, 200, 170, 1e-9
    eps = epsilon_lower_bound(m, r, v, delta, ALPHA)
    assert eps > 0
    assert tail_bound(m, r, v, eps, delta) <= ALPHA < tail_bound(m, r, v, eps + 1e-6, delta)


def randomised_response(m: int, epsilon: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """m canaries with fair-coin inclusion; each canary's score is its bit flipped with probability 1/(1 + e^ε):
    an ε-DP release of each bit (δ = 0), the mechanism for which the theorem's binomial is exact."""
    rng = np.random.default_rng(seed)
    included = rng.random(m) < 0.5
    truthful = rng.random(m) < np.exp(epsilon) / (1 + np.exp(epsilon))
    return np.where(truthful, included, ~included).astype(float), included


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 4.0])
def test_the_bound_is_valid_and_nearly_tight_on_randomised_response(epsilon):
    """Validity at α = 1e-6 over five seeds each (a bound above ε: probability ≤ 1e-6 per seed); on this worst case
    for the theorem the bound comes within a factor 2 of the true ε from 20,000 canaries."""
    for seed in range(5):
        scores, included = randomised_response(20_000, epsilon, seed)
        bound = one_run_attack(scores, included, 0.0, seed=seed).epsilon_lower_bound_at(ALPHA)
        assert 0.5 * epsilon < bound <= epsilon, (epsilon, seed, bound)


@pytest.mark.parametrize("sigma", [1.0, 0.5])
def test_the_bound_is_valid_on_gaussian_canaries(sigma):
    """White-box canaries: an included canary's score is an exact privacy loss of the Gaussian mechanism drawn from
    D, an excluded one's from D'.  δ = 1e-10 keeps 2mδ far below α (the theorem's δ term)."""
    delta = 1e-10
    true = g.analytic_epsilon(delta, sigma)
    pair = g.GaussianPair([0.0], [1.0], sigma)
    for seed in range(3):
        included = np.random.default_rng(seed).random(10_000) < 0.5
        scores = np.where(
            included, sample_privacy_loss(pair, "D", 10_000, seed + 10), sample_privacy_loss(pair, "D'", 10_000, seed)
        )
        bound = one_run_attack(scores, included, delta, seed=seed).epsilon_lower_bound_at(ALPHA)
        assert 0 < bound <= true, (sigma, seed, bound, true)


def test_a_bound_that_ignores_delta_fails_the_validity_test():
    """A (0, 0.01)-DP run: with probability 0.01 an included canary scores 10 (its membership revealed), otherwise
    every canary scores N(0, 1); the true ε at δ = 0.01 is 0.  The theorem with the true δ gives 0; the broken bound
    that drops δ claims ε > 1, above the true ε: the validity test catches it."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        included = rng.random(100_000) < 0.5
        scores = np.where(included & (rng.random(included.size) < 0.01), 10.0, rng.standard_normal(included.size))
        attack = one_run_attack(scores, included, 0.01, seed=seed)
        assert attack.epsilon_lower_bound_at(ALPHA) == 0.0
        broken = one_run_attack(scores, included, 0.0, seed=seed)
        assert broken.epsilon_lower_bound_at(ALPHA) > 1.0


def test_guesses_fixed_in_advance_use_all_of_alpha_and_the_grid_splits_it():
    scores, included = randomised_response(4_000, 2.0, 0)
    fixed = one_run_attack(scores, included, 0.0, guesses=(1000, 0))
    assert fixed.pairs == ((1000, 0),) and fixed.fixed
    assert fixed.epsilon_lower_bound_at(ALPHA) == epsilon_lower_bound(4_000, 1000, fixed.correct[0], 0.0, ALPHA)
    grid = one_run_attack(scores, included, 0.0)
    assert grid.pairs == tuple(guess_grid(4_000)) and len(grid.pairs) == 16
    share = ALPHA / 16
    best = max(epsilon_lower_bound(4_000, kp + km, c, 0.0, share) for (kp, km), c in zip(grid.pairs, grid.correct))
    assert grid.epsilon_lower_bound_at(ALPHA) == best


def test_api_refutes_never_certifies_and_checks_its_arguments():
    scores, included = randomised_response(20_000, 4.0, 1)
    run = pdp_audit.audit_one_run(scores, included.astype(int), 0.0, claim_epsilon=1.0)
    assert run.exit_code == 1 and run.checks[0].id == "one-run-epsilon" and run.checks[0].ci[0] > 1.0
    assert pdp_audit.audit_one_run(scores, included, 0.0, claim_epsilon=4.0).exit_code == 3
    assert pdp_audit.audit_one_run(scores, included, 0.0).exit_code == 3
    with pytest.raises(pdp_audit.InputError, match="row 2 is 2"):
        pdp_audit.audit_one_run([0.0, 1.0, 2.0], [0, 1, 2], 0.0)
    with pytest.raises(pdp_audit.InputError, match="expected 3"):
        pdp_audit.audit_one_run([0.0, 1.0, 2.0], [0, 1], 0.0)
    with pytest.raises(pdp_audit.InputError, match="guesses"):
        pdp_audit.audit_one_run([0.0, 1.0, 2.0], [0, 1, 1], 0.0, guesses=(3, 1))


def _write_run(tmp_path, epsilon=3.0, m=5_000):
    scores, included = randomised_response(m, epsilon, 2)
    rows = "".join(f"{float(s)!r},{int(b)}\n" for s, b in zip(scores + np.arange(m) * 1e-6, included))
    (tmp_path / "run.csv").write_text("score,included\n" + rows)
    run = str(tmp_path / "run.csv")
    return ["--one-run", "--scores", run, "--column", "score", "--inclusion", run, "--inclusion-column", "included"]


def test_cli_exit_codes_and_report(tmp_path, monkeypatch, capsys):
    args = [*_write_run(tmp_path), "--delta", "0", "--alpha", "0.05"]
    monkeypatch.chdir(tmp_path)  # runs without --report write pdp-audit-canaries.pdf here
    report, doc = tmp_path / "o.pdf", tmp_path / "o.json"
    assert main(["canaries", *args, "--claim-epsilon", "1", "--report", str(report), "--json", str(doc)]) == 1
    assert "REFUTED" in capsys.readouterr().out and report.read_bytes().startswith(b"%PDF")
    data = json.loads(doc.read_text())
    assert data["checks"][0]["details"]["m"] == 5_000 and data["parameters"]["guesses"] == "grid"
    none = ["--report", "none"]  # the exit codes below are the subject; the report is the first run's
    assert main(["canaries", *args, "--claim-epsilon", "5", "--guesses", "500", "500", *none]) == 3
    assert main(["canaries", *args, *none]) == 3
    if shutil.which("pdftotext"):
        text = " ".join(subprocess.run(["pdftotext", str(report), "-"], capture_output=True, text=True).stdout.split())
        for needle in ("Theorem 3.1", "probability 1/2", "not an upper bound", "union bound"):
            assert needle in text, needle


def test_cli_bad_bits_and_mismatched_files_are_one_line(tmp_path, capsys):
    args = _write_run(tmp_path, m=50)
    (tmp_path / "bits.csv").write_text("b\n" + "1\n" * 20 + "0.5\n" + "0\n" * 29)
    bad = [*args[:5], "--inclusion", str(tmp_path / "bits.csv"), "--delta", "0"]
    assert main(["canaries", *bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bits.csv: row 21 (line 22), column 'b': 0.5; inclusion bits must be 0 or 1" in err
    (tmp_path / "bits.csv").write_text("b\n" + "1\n" * 10)
    assert main(["canaries", *bad]) == 2
    assert "10 bits" in capsys.readouterr().err
    assert main(["canaries", *args, "--delta", "0", "--guesses", "40", "20"]) == 2
    assert "guesses" in capsys.readouterr().err
    assert main(["canaries", *args, "--delta", "0", "--in-scores", args[2]]) == 2
    assert "--in-scores belongs to the two-column mode" in capsys.readouterr().err


def test_the_example_training_run_writes_scores_the_one_run_audit_bounds(tmp_path, monkeypatch, capsys):
    """examples/canaries/train.py (DP-SGD in numpy): its files go through the command; a noisy run leaks a
    measurable ε through memorised canaries, a run without canaries' signal (noise multiplier 50) does not."""
    monkeypatch.chdir(tmp_path)  # the example writes here; the bounds are the subject, not a PDF (--report none)
    from pdp_audit.examples.canaries import train

    assert train.main(["--out", str(tmp_path / "leaky")]) == 0
    assert (tmp_path / "leaky" / "deploy.toml").exists()  # the default configuration has its claim
    run = str(tmp_path / "leaky" / "one_run.csv")
    args = ["--one-run", "--scores", run, "--column", "score", "--inclusion", run, "--inclusion-column", "included"]
    bound = ["--delta", "1e-5", "--alpha", "0.05", "--claim-epsilon", "0.5", "--report", "none"]
    assert main(["canaries", *args, *bound]) == 1
    assert train.main(["--out", str(tmp_path / "quiet"), "--noise-multiplier", "50"]) == 0
    run = str(tmp_path / "quiet" / "one_run.csv")
    args = ["--one-run", "--scores", run, "--column", "score", "--inclusion", run, "--inclusion-column", "included"]
    assert main(["canaries", *args, *bound]) == 3
    pos = str(tmp_path / "leaky" / "in_scores.csv")
    two_files = ["--in-scores", pos, "--out-scores", pos.replace("in_", "out_"), "--delta", "1e-5", "--report", "none"]
    assert main(["canaries", *two_files]) == 3


def test_the_example_writes_its_configuration_as_a_deployment_file(tmp_path):
    """train.py writes deploy.toml beside its scores: a DP-SGD deployment of exactly its σ, q, T and the claim,
    checked as `certify` checks it; with σ, q or T changed and no --claim-epsilon it writes none (the default claim
    is for the defaults only)."""
    from pdp_audit.deployment import deployment_config, load_deployment
    from pdp_audit.examples.canaries import train

    assert train.main(["--out", str(tmp_path / "a"), "--steps", "5", "--claim-epsilon", "3.5"]) == 0
    deployment = load_deployment(str(tmp_path / "a" / "deploy.toml"))
    config, _ = deployment_config(deployment)
    assert deployment.mechanism == "dp-sgd" and (config.epsilon, config.delta) == (3.5, 1e-5)
    assert (config.noise_multiplier, config.sample_rate, config.steps) == (0.5, 0.1, 5)
    assert config.neighbours == "add-remove"
    assert train.main(["--out", str(tmp_path / "b"), "--steps", "5"]) == 0
    assert not (tmp_path / "b" / "deploy.toml").exists() and (tmp_path / "b" / "one_run.csv").exists()
    assert train.DEFAULT_CONFIGURATION == {"noise_multiplier": 0.5, "sample_rate": 0.1, "steps": 300}


def test_tie_breaking_never_reuses_the_users_coins():
    """Coins drawn as default_rng(0).random(m) < 0.5 and tied scores (randomised response): with the default seed 0
    the guesses among the tied top scores must not depend on the coins.  Were the ties broken by default_rng(0)'s
    uniforms -- the coins themselves -- the top 500 would be the canaries with the largest uniforms, all excluded
    (measured 238 of 500 right, against about e/(1 + e) · 500 = 366)."""
    m, included = 2000, np.random.default_rng(0).random(2000) < 0.5
    truthful = np.random.default_rng(1).random(m) < np.exp(1.0) / (1 + np.exp(1.0))
    scores = np.where(truthful, included, ~included).astype(float)
    correct = one_run_attack(scores, included, 0.0, guesses=(500, 0), seed=0).correct[0]
    assert 316 < correct < 416, correct  # Binomial(500, 0.731): 366 ± 9.9; 5 sd either side (p < 1e-6)


def _tail_bound_over_every_i(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """The tail bound with its δ term maximised over every i = 1..v (the computation as first written, O(v))."""
    from scipy import special, stats

    q = float(special.expit(epsilon))
    f_v = float(stats.binom.sf(v - 1, r, q))
    i = np.arange(1, v + 1)
    extra = float(np.max((stats.binom.sf(v - i - 1, r, q) - f_v) / i))
    return min(1.0, (f_v + 2 * m * delta * extra) * (1 + 1e-9))


def test_the_delta_term_maximised_on_a_window_is_the_maximum_over_every_i():
    """For v above the full-maximum cut-off the δ term is maximised on a window found by bisection (the running
    mean of a log-concave pmf is unimodal); it equals the maximum over all v values of i bit for bit, at counts
    near the rejection boundary (f(v) from 1e-12 to 1/2) and far from it."""
    from scipy import special, stats

    rng = np.random.default_rng(2)
    for _ in range(30):
        r = int(rng.integers(9_000, 200_000))
        epsilon = float(rng.uniform(0.0, 5.0))
        q = float(special.expit(epsilon))
        near = int(stats.binom.isf(10 ** -rng.uniform(0.3, 12), r, q)) + 1  # f(v) between 1e-12 and 1/2
        for v in (near, int(rng.integers(4_097, r + 1))):
            if v <= 4_096 or v > r:
                continue
            delta = 10 ** float(rng.uniform(-12, -4))
            assert tail_bound(10**6, r, v, epsilon, delta) == _tail_bound_over_every_i(10**6, r, v, epsilon, delta)


def test_the_ranking_shared_by_the_guess_sets_is_each_sets_own_lexsort():
    """The correct guesses of every grid pair, from one ranking (a plain sort where no scores tie), equal those of
    the per-pair lexsort with the tie-breaking uniforms, with and without ties."""
    from pdp_audit.audits.canaries.one_run import TIE_STREAM

    rng = np.random.default_rng(4)
    for decimals in (None, 1, 0):
        included = rng.random(3_000) < 0.5
        scores = rng.normal(included * 1.0, 1.0)
        if decimals is not None:
            scores = np.round(scores, decimals)
        for seed in range(3):
            order = np.lexsort((np.random.default_rng([seed, TIE_STREAM]).random(scores.size), scores))
            attack = one_run_attack(scores, included, 0.0, seed=seed)
            for (k_in, k_out), correct in zip(attack.pairs, attack.correct):
                top, bottom = order[scores.size - k_in :] if k_in else order[:0], order[:k_out]
                assert correct == int(np.sum(included[top])) + int(np.sum(~included[bottom]))


def test_a_claim_of_epsilon_zero_is_refuted_only_where_the_interval_excludes_it():
    # scores independent of the inclusion bits: ε = 0 holds and no seed may refute it (seeds 0, 1 and 3 failed at
    # p = 1e-60 while no guess set rejected ε = 0 at the run's α); scores 1σ higher when included are refuted at
    # ε = 0 (at δ = 1e-10: the theorem's 2mδ term keeps δ = 1e-7 from refuting anything at α = 1e-6).
    # False alarm ≤ α = 1e-6.
    for seed in range(5):
        rng = np.random.default_rng(seed)
        included = rng.random(10_000) < 0.5
        run = pdp_audit.audit_one_run(rng.normal(0, 1, 10_000), included, 1e-7, claim_epsilon=0.0, seed=seed)
        (check,) = run.checks
        assert run.verdict == "inconclusive" and check.ci[0] == 0.0 and check.pvalue > 1e-6, (seed, check.pvalue)
    rng = np.random.default_rng(0)
    included = rng.random(10_000) < 0.5
    leaky = pdp_audit.audit_one_run(rng.normal(1.0 * included, 1.0), included, 1e-10, claim_epsilon=0.0)
    assert leaky.verdict == "fail" and leaky.exit_code == 1 and leaky.checks[0].ci[0] > 0
