"""The mutant zoo (src/pdp_audit/mutants.py): every mutant must fail, by one of the checks meant to catch it, and its
correct twin must pass -- at the quick budget (each pass stopped once decided, the default: at most 4e4 releases per
world), fixed seeds, α = 1e-6 per run.  A
mutant the suite stops catching fails the build here."""

import json
import math

import numpy as np
import pytest
from scipy import integrate

from pdp_audit import mutant_runs as runs
from pdp_audit import mutants as zoo
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms.objpert import mechanism as op


# Tier 1 keeps a mutant of each check that catches one (dp-forward/reverse, loss-consistency, noise-view,
# pair-protocol, coverage) and of each mechanism family; the others of a check and family a kept one stands for run
# in tier 2 (objpert-small-lambda and two-reports-loss-of-one also have tests of their own below, in tier 1).
@pytest.mark.tier2(
    cases=(
        "variance-as-scale",
        "noise-halved",
        "objpert-no-log-det",
        "classical-missing-2",
        "objpert-small-lambda",
        "geometric-counts-scale-too-small",
        "geometric-histogram-scale-0.8",
        "laplace-histogram-scale-0.8",
        "loss-for-other-sigma",
        "loss-for-double-sigma",
        "sampler-half-sigma",
        "two-reports-loss-of-one",
        "swapped-worlds",
        "truncated-noise-untruncated-loss",
        "view-narrower-than-sampler",
        "half-nan-loss",
        "misaligned-losses",
    )
)
@pytest.mark.parametrize("mutant", zoo.MUTANTS, ids=lambda m: m.id)
def test_every_mutant_is_caught_and_its_twin_passes(mutant):
    outcome = runs.run_mutant(mutant, runs.quick_trials())  # early stopping, the default
    assert outcome.verdict == "fail", (mutant.id, outcome.verdict)
    assert set(outcome.caught_by) & set(mutant.expected), (mutant.id, outcome.caught_by, mutant.expected)
    assert outcome.twin_verdict == "pass", (mutant.id, outcome.twin_failing)


def test_the_zoo_covers_at_least_thirty_five_distinct_bugs():
    ids = [m.id for m in zoo.MUTANTS]
    assert len(ids) >= 35 and len(set(ids)) == len(ids)


def test_only_names_known_mutants(capsys):
    assert main(["mutants", "--quick", "--only", "noise-halved", "no-such-bug", "--report", "none"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-bug" in err[0], err


# slow: fast elsewhere (the wheel smoke test runs two mutants, --json; test_layout's mutants report reads the PDF)
@pytest.mark.slow
def test_cli_table_json_and_pdf(tmp_path, monkeypatch, capsys):
    """The command's table, JSON and PDF, on four mutants of different audits (each mutant of the zoo is run by
    the test above; the whole zoo through the command took 54 s of the suite)."""
    chosen = ("noise-halved", "ops-transposed-cholesky", "laplace-scale-times-epsilon", "two-reports-loss-of-one")
    out, pdf = tmp_path / "m.json", tmp_path / "m.pdf"
    assert main(["mutants", "--quick", "--only", *chosen, "--json", str(out), "--report", str(pdf)]) == 0
    doc = json.loads(out.read_text())
    assert doc["caught"] == doc["total"] == len(chosen)
    row = doc["mutants"][0]
    assert {"id", "description", "caught_by", "trials", "verdict"} <= set(row) and row["trials"] == runs.quick_trials()
    assert pdf.read_bytes().startswith(b"%PDF")
    assert "4 of 4 caught" in capsys.readouterr().out


def test_a_missed_mutant_makes_the_command_fail(tmp_path, monkeypatch, capsys):
    """A 'mutant' that is in fact correct is not caught: the table says MISSED and the exit code is 1."""
    correct = zoo.Mutant("not-a-bug", "the correct Gaussian mechanism", ("dp-forward",), zoo._twin, zoo._twin)
    monkeypatch.setattr(zoo, "MUTANTS", (correct,))
    assert main(["mutants", "--quick", "--json", str(tmp_path / "m.json")]) == 1
    assert "MISSED" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--trials", "10"], "--trials must be a whole number in [1000, 1e7], got 10"),
        (["--alpha", "2"], "--alpha must be a finite number in [1e-50, 1)"),
        (
            ["--alpha", "1e-320"],
            "--alpha must be a finite number in [1e-50, 1)",
        ),  # found by the fuzz run: scipy warnings
        (["--seed", "-1"], "--seed must be a whole number in [0, 2^63-1], got -1"),  # found by the fuzz run: exit 4
    ],
)
def test_bad_options_are_one_line(args, needle, capsys):
    assert main(["mutants", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------------
# The broken guarantees are really broken: exact computations, independent of the sampling audit
# ------------------------------------------------------------------------------------------------
_BY_ID = {m.id: m for m in zoo.MUTANTS}
_BREAKS = (-np.inf, -60.0, -30.0, -15.0, -8.0, -4.0, -2.0, 0.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0, np.inf)


def _objpert_worlds(lam, sigma):
    """The log-densities of ObjPert on D = {(1, +1), (0.1, +1)} and D' = {(0.1, +1)} (d = 1), from the
    change-of-variables density of :func:`pdp_audit.mechanisms.objpert.mechanism.log_density` (not the pair's
    privacy_loss)."""
    X, y = np.array([[1.0], [0.1]]), np.array([1.0, 1.0])
    return {
        "D": lambda t: float(op.log_density(np.array([t]), X, y, lam, sigma)),
        "D'": lambda t: float(op.log_density(np.array([t]), X[1:], y[1:], lam, sigma)),
    }


def _integral(f):
    return sum(integrate.quad(f, lo, hi, limit=200, epsabs=1e-13)[0] for lo, hi in zip(_BREAKS[:-1], _BREAKS[1:]))


def _objpert_delta(lam, sigma, epsilon=zoo.EPSILON):
    """δ_{P‖Q}(ε) = ∫ (p_P − e^ε p_Q)₊ dθ in both directions, by quadrature."""
    log_p = _objpert_worlds(lam, sigma)
    return {
        (p, q): _integral(lambda t, p=p, q=q: max(math.exp(log_p[p](t)) - math.exp(epsilon + log_p[q](t)), 0.0))
        for p, q in (("D", "D'"), ("D'", "D"))
    }


def test_objpert_small_lambda_breaks_its_claim_and_its_twin_keeps_it():
    assert zoo.OBJPERT_SMALL_LAM < op.theorem5_lambda(zoo.EPSILON, beta=0.25) == zoo.OBJPERT_LAM
    broken = _objpert_delta(zoo.OBJPERT_SMALL_LAM, zoo.OBJPERT_SIGMA)
    twin = _objpert_delta(zoo.OBJPERT_LAM, zoo.OBJPERT_SIGMA)
    assert max(broken.values()) > 3 * zoo.OBJPERT_DELTA, broken  # ≈ 0.046 at ε = 1
    assert max(twin.values()) < 1e-6 * zoo.OBJPERT_DELTA, twin
    # the pair the zoo audits is this instance
    pair = _BY_ID["objpert-small-lambda"].broken().pair
    assert pair.lam == zoo.OBJPERT_SMALL_LAM and pair.sigma == zoo.OBJPERT_SIGMA


def test_objpert_loss_without_log_det_is_not_the_privacy_loss():
    """The change of measure E_D[e^{−L}] = 1 holds for the exact loss and fails without the Jacobian term; the
    twin (σ = 3, λ = 0.5) keeps the (1, 1e-2) claim."""
    lam, sigma = zoo.OBJPERT_LAM, zoo.OBJPERT_LOSS_SIGMA
    log_p = _objpert_worlds(lam, sigma)
    mutant = _BY_ID["objpert-no-log-det"]
    broken, twin = mutant.broken().pair, mutant.twin().pair

    def mass(pair):
        return _integral(lambda t: math.exp(log_p["D"](t) - pair.privacy_loss(np.array([[t]]))[0]))

    assert mass(twin) == pytest.approx(1.0, abs=1e-7)
    assert abs(mass(broken) - 1.0) > 0.02
    theta = np.linspace(-6, 6, 13)[:, None]
    exact = np.array([log_p["D"](t) - log_p["D'"](t) for t in theta[:, 0]])
    np.testing.assert_allclose(twin.privacy_loss(theta), exact, atol=1e-10)
    assert np.max(np.abs(broken.privacy_loss(theta) - exact)) > 0.2
    assert max(_objpert_delta(lam, sigma).values()) < zoo.OBJPERT_DELTA / 10


def test_goe_upper_triangle_noise_breaks_algorithm6_guarantee():
    """The mutant's noise has diagonal sd σ₃ (measured on its sampler), not Algorithm 6's √2σ₃: the exact
    Gaussian δ(1) at the whitened shift of the measured law exceeds the claimed 1e-5 twenty-fold, while the
    twin's is its calibration's 1e-6."""
    mutant = _BY_ID["goe-upper-triangle"]
    rng = np.random.default_rng(0)
    on_diagonal = np.array([True, False, True])  # vech of a 2 x 2 matrix: (1,1), (1,2), (2,2)
    exact = {}
    for role, pair, diagonal_sd in (
        ("mutant", mutant.broken().pair, zoo.GOE_SIGMA3),
        ("twin", mutant.twin().pair, math.sqrt(2) * zoo.GOE_SIGMA3),
    ):
        noise = pair.sample("D", 400_000, rng) - pair.mean("D")
        law_sd = np.where(on_diagonal, diagonal_sd, zoo.GOE_SIGMA3)
        np.testing.assert_allclose(noise.std(axis=0), law_sd, rtol=0.01)
        np.testing.assert_allclose(np.corrcoef(noise.T), np.eye(3), atol=0.01)
        shift = (pair.mean("D'") - pair.mean("D")) / law_sd
        exact[role] = g.analytic_delta(zoo.EPSILON, 1.0, float(np.linalg.norm(shift)))
    assert exact["mutant"] > 20 * zoo.DELTA, exact  # ≈ 2.2e-4
    assert exact["twin"] == pytest.approx(zoo.TWIN_DELTA, rel=1e-6), exact


def test_two_reports_read_as_one_break_their_claim_and_the_twin_keeps_it():
    """Exact δ(ε) of two randomized-response reports, by enumerating the four releases: 0.34 at ε₀ = 1 (the
    mutant's pair; its loss reads one report and says (1, 0)), 0 at ε₀ = 1/2 (the twin)."""

    def enumerated(eps0, epsilon):
        pair = zoo.RandomizedResponse(eps0)
        releases = np.array([[a, b] for a in (0.0, 1.0) for b in (0.0, 1.0)])
        p_d = np.prod(np.where(releases == 1.0, pair.p, 1 - pair.p), axis=1)
        p_dp = np.prod(np.where(releases == 0.0, pair.p, 1 - pair.p), axis=1)
        np.testing.assert_allclose(pair.privacy_loss(releases), np.log(p_d / p_dp), atol=1e-12)
        return float(np.clip(p_d - math.exp(epsilon) * p_dp, 0, None).sum())

    assert enumerated(1.0, 1.0) == pytest.approx(zoo.two_reports_delta(1.0, 1.0), abs=1e-12)
    assert zoo.two_reports_delta(1.0, 1.0) == pytest.approx(math.e * (math.e - 1) / (1 + math.e) ** 2)
    assert zoo.two_reports_delta(1.0, 1.0) > 300 * 1e-3
    twin = 0.5 / zoo.mutant_pairs.TWIN_MARGIN  # the twin's ε₀: two reports are (2ε₀, 0)-DP, below the claimed ε = 1
    assert enumerated(twin, 1.0) < 1e-15 and zoo.two_reports_delta(twin, 1.0) == 0.0


def test_the_report_carries_the_deciding_numbers_of_mutant_and_twin():
    """The mutants report showed verdicts only: each row now has the deciding check's estimate, interval and the
    claim it is held to, for the mutant and (the same check) for its twin."""
    outcome = runs.run_mutant(zoo.MUTANTS[0], 2000, seed=0)
    row = json.loads(json.dumps(outcome.to_dict(), allow_nan=False))
    mutant, twin = row["mutant_evidence"], row["twin_evidence"]
    assert mutant["check"] in row["caught_by"] and mutant["verdict"] == "fail"
    low, high = mutant["interval"]
    assert low <= mutant["estimate"] <= high and low > mutant["claimed"]["delta_claim"]  # a FAIL: above δ
    assert twin["check"] == mutant["check"] and twin["verdict"] == "pass"
