"""``pdp-audit run geometric``: the exact profile against an independent summation, the bounded loss, and the
verdicts on a correct and a deliberately broken deployment."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import mpmath
import numpy as np
import pytest

from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.cli import main as cli
from pdp_audit.mechanisms import geometric as geo

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _summed_delta(epsilon: float, scale: float, shift: int) -> tuple[float, float]:
    """δ(ε) = Σ_k (P_D(k) − e^ε P_D'(k))₊ of Z vs m + Z summed by mpmath over k ∈ [−N, m + N] from the pmf
    (1 − α)/(1 + α) α^{|k|}, and the truncation bound: the omitted terms are at most the omitted P_D mass,
    Σ_{k < −N} + Σ_{k > m + N} ≤ 2α^{N+1}/(1 + α)."""
    mpmath.mp.dps = 30
    alpha = mpmath.exp(-1 / mpmath.mpf(scale))
    norm = (1 - alpha) / (1 + alpha)
    n = int(60 * scale) + 50
    total = mpmath.fsum(
        max(mpmath.mpf(0), norm * alpha ** abs(k) - mpmath.exp(epsilon) * norm * alpha ** abs(k - shift))
        for k in range(-n, shift + n + 1)
    )
    return float(total), float(2 * alpha ** (n + 1) / (1 + alpha))


@pytest.mark.parametrize("scale, shift", [(0.5, 1), (1.0, 1), (2.5, 3), (7.0, 5), (3.0, 20)])
@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.5, 0.8, 1.0, 1.3])
def test_profile_matches_summation(scale, shift, fraction):
    epsilon = fraction * shift / scale
    exact = geo.geometric_delta(epsilon, scale, shift)
    summed, truncation = _summed_delta(epsilon, scale, shift)
    assert truncation < 1e-20
    # terms of size ≤ 1 in double precision: agreement to 1e-13 absolute
    assert exact == pytest.approx(summed, rel=1e-12, abs=1e-13)
    if 0 < exact:
        assert geo.geometric_delta(geo.geometric_epsilon(exact, scale, shift), scale, shift) == pytest.approx(exact)


def test_profile_is_symmetric_and_zero_from_the_bound():
    assert geo.geometric_delta(0.5, 2.0, 1) == 0.0 and geo.geometric_delta(0.49, 2.0, 1) > 0
    assert geo.geometric_delta(0.3, 2.0, -3) == geo.geometric_delta(0.3, 2.0, 3)
    alpha = math.exp(-1 / 2.0)
    assert geo.geometric_delta(0.0, 2.0, 1) == pytest.approx((1 - alpha) / (1 + alpha))  # TV of a unit shift
    assert geo.geometric_scale(0.5, 3) == 6.0 and geo.geometric_epsilon(0.0, 6.0, 3) == 0.5


def test_loss_is_bounded_and_its_atoms_attained():
    rng = np.random.default_rng(7)
    pair = geo.GeometricPair(np.array([4.0]), np.array([7.0]), scale=1.5)
    outputs = {w: pair.sample(w, 50_000, rng) for w in ("D", "D'")}
    assert all(np.array_equal(o, np.rint(o)) for o in outputs.values())  # integer releases
    losses = np.concatenate([pair.privacy_loss(o) for o in outputs.values()])
    assert pair.loss_bound == 2.0
    assert np.max(np.abs(losses)) == pytest.approx(2.0)
    assert np.max(np.abs(losses)) <= 2.0 * (1 + 1e-12)


def test_integer_query_rounds_and_clamps():
    rows = np.array([[2.4, 0.0], [-7.6, 1.0], [30.0, 2.0], [2.5, 3.0]])
    query = geo.IntegerQuery("sum", 5, column=0)
    assert list(query.values(rows)) == [2.0, -5.0, 5.0, 2.0]  # 2.5 rounds to even
    assert query(rows)[0] == 4.0 and list(query.per_instance_sensitivities(rows)) == [2.0, 5.0, 5.0, 2.0]
    with pytest.raises(ValueError, match="integer query values"):
        geo.GeometricPair(np.array([0.5]), np.array([1.0]), 1.0)


def _run(**values):
    plan = plans_by_name()["geometric"]
    return plan.execute(plan.configure({"trials": 20_000, **values}))


@pytest.mark.parametrize("query", ["sum", "count"])
def test_correct_pure_deployment_passes(query):
    run = _run(query=query)
    assert run.verdict == "pass", [(c.id, c.verdict) for c in run.checks]
    assert {c.id for c in run.checks} >= {"dp-forward", "dp-reverse", "loss-bound", "tail-curve"}


@pytest.mark.parametrize("query", ["sum", "count"])
def test_deflated_noise_fails_at_a_small_budget(query):
    run = _run(query=query, noise_multiplier=0.5, trials=5000)
    verdicts = {c.id: c.verdict for c in run.checks}
    assert run.verdict == "fail"
    assert verdicts["dp-forward"] == verdicts["loss-bound"] == "fail"


def test_per_instance_epsilon_is_the_rows_share_of_the_bound():
    run = _run(claim_epsilon=0.8)
    check = next(c for c in run.checks if c.id == "pdp-median-individual")
    wine_alcohol = np.rint(_alcohol())  # the default: wine's first column, rounded, clamped to C = 20
    median = np.sort(np.minimum(wine_alcohol, 20))[len(wine_alcohol) // 2]
    assert f"{median * 0.8 / 20:.4g}" in check.claim and check.verdict == "pass"


def _alcohol() -> np.ndarray:
    from sklearn.datasets import load_wine

    return load_wine().data[:, 0]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--query", "count", "--sensitivity", "3"], "--sensitivity applies to --query sum only"),
        (["--query", "count", "--column", "ash"], "--column applies to --query sum only"),
        (["--sensitivity", "0"], "--sensitivity"),
        (["--sensitivity", "2.5"], "--sensitivity"),
        (["--column", "nope"], "--column 'nope' is not a feature column"),
        (["--noise-multiplier", "0"], "--noise-multiplier"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(args, needle, capsys):
    assert cli.main(["run", "geometric", *args, "--trials", "1000", "--report", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err, err


@pytest.mark.parametrize("multiplier, code", [(None, 0), (0.5, 1)])
def test_the_deployment_is_certified_at_pure_dp_and_a_deflated_one_refused(tmp_path, multiplier, code):
    text = (EXAMPLES / "deploy-geometric.toml").read_text(encoding="utf-8").replace("trials = 1e6", "trials = 2e4")
    assert "delta = 0\n" in text
    if multiplier is not None:
        text = text.replace("\nquery", f"\nnoise_multiplier = {multiplier}\nquery")
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path)
    (tmp_path / "deploy.toml").write_text(text, encoding="utf-8")
    assert cli.main(["certify", str(tmp_path / "deploy.toml"), "--report", "none", "--quiet"]) == code
