"""Real sizes: a data file of a million rows is parsed to floats without a Python string per cell, and every
individual's pDP ε is one vectorised root-find (issue 27, item 12: a 1e6 × 30 CSV took 2 min 41 s and 2.95 GB,
most of it one scipy root-find per row and 30 million strings).  Speed is measured in benchmarks/; here: the
numbers are those of the slow, obvious computations."""

from __future__ import annotations

import random

import mpmath as mp
import numpy as np
import pytest

from pdp_audit.mechanisms.gaussian import analytic_delta, analytic_epsilon, log_analytic_delta
from pdp_audit.mechanisms.gaussian_pdp import distinct_values, per_instance_epsilons
from pdp_audit.verify.inputs.datasets import load_csv
from pdp_audit.verify.inputs.validation import InputError


def _tricky_numbers(count: int, seed: int) -> list[str]:
    """Decimal strings where a parser that is not correctly rounded gets the last bit wrong."""
    rng = random.Random(seed)
    numbers = ["4.9e-324", "2.4703282292062328e-324", "9.999999999999999e99", "-0.0", "+.5", "5.", ".5e1"]
    while len(numbers) < count:
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        numbers.append(f"{rng.choice(['', '-', '+'])}{digits[:1]}.{digits[1:]}e{rng.randint(-330, 80)}")
    return numbers


def test_the_csv_numbers_are_pythons_floats_of_the_cells(tmp_path):
    numbers = _tricky_numbers(30_000, seed=1)
    rows = [numbers[i : i + 3] for i in range(0, len(numbers) - 2, 3)]
    (tmp_path / "d.csv").write_text("a,b,c\n" + "\n".join(",".join(row) for row in rows) + "\n")
    features = load_csv(tmp_path / "d.csv").features
    expected = np.array([[float(cell) for cell in row] for row in rows])
    assert features.flags.c_contiguous
    assert np.array_equal(features.view(np.int64), expected.view(np.int64))  # bit for bit, signed zeros too


def test_integer_columns_are_read_as_floats_of_the_cells_signed_zeros_too(tmp_path):
    """pandas' type inference reads integer cells as int64 (``-0`` loses its sign): such a file is parsed again as
    floats, and every cell is Python's float of it; a table of floats is parsed once."""
    text = "a,b,c\n1,-0,0.5\n-0,3,-0.0\n9007199254740993,-7,1e-320\n"
    (tmp_path / "d.csv").write_text(text)
    features = load_csv(tmp_path / "d.csv").features
    expected = np.array([[float(cell) for cell in line.split(",")] for line in text.splitlines()[1:]])
    assert np.array_equal(features.view(np.int64), expected.view(np.int64))


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b\n1,2,3\n4,5,6\n", "Expected 2 fields in line 2, saw 3"),  # pandas would index by the first column
        ("a,b\n1,2\n4\n", "line 3, column 'b' is empty"),
        ("a,b\n1,1_000\n", "line 2, column 'b'"),  # Python's float accepts it; the faster reader does not
        ("a,a\n1,2\n", "duplicate column names ['a']"),
        ("a,b\n1,True\n4,false\n", "line 2, column 'b': 'True' is not a number"),  # pandas reads True as 1.0
        ("a,b\n1,inf\n", "line 2, column 'b': non-finite value"),
    ],
)
def test_unusual_files_are_read_or_refused_as_the_cell_by_cell_reader_does(tmp_path, text, message):
    (tmp_path / "d.csv").write_text(text)
    try:
        load_csv(tmp_path / "d.csv")
    except InputError as err:
        assert message in str(err), err
    else:
        assert message == "line 2, column 'b'", "1_000 is a number to Python's float: read as 1000"


@pytest.mark.parametrize("sigma, delta", [(1.0, 1e-5), (3.7, 1e-9), (0.3, 0.1), (20.0, 1e-12)])
def test_every_individuals_epsilon_is_the_one_found_alone(sigma, delta):
    rng = np.random.default_rng(0)
    sensitivities = np.concatenate([rng.uniform(0.0, 3.0, 400), [0.0, 1e-9, 1.0, 50.0]])
    together = per_instance_epsilons(sensitivities, delta, sigma)
    alone = np.array([analytic_epsilon(delta, sigma, s) for s in sensitivities])
    # both solve log δ(ε) = log δ to 4 ulps of ε, but log δ is evaluated with a cancellation in 1/(2s) − εs that
    # grows as ‖Δ_z‖/σ → 0 (2e-12 relative at 1e-3, 4e-6 at 1e-9, where ε ≈ 1e-10): the scale of the disagreement
    assert np.allclose(together, alone, rtol=1e-11, atol=1e-14)
    assert together[sensitivities == 0.0].tolist() == [0.0]


@pytest.mark.parametrize("sigma, delta", [(1.0, 1e-5), (3.8, 1e-5), (0.3, 0.1), (1000.0, 1e-5)])
def test_every_individuals_epsilon_holds_at_its_delta(sigma, delta):
    """Each ε returned is on the safe side of the root as log δ is evaluated (δ(ε) ≤ δ), and within the rounding of
    log δ of it: a hair below it δ exceeds δ (the root-finder's answer once fell below the root in 70% of rows).
    At σ = 1000 (ε ~ 1e-3) log δ changes by less than its rounding over 1e-10 of ε: only the first holds there."""
    sensitivities = np.random.default_rng(1).uniform(0.01, 3.0, 2000)
    epsilons = per_instance_epsilons(sensitivities, delta, sigma)
    s = sigma / sensitivities
    assert np.all(log_analytic_delta(epsilons, s) <= np.log(delta))
    rooted = epsilons > 0  # the rest have δ(0) ≤ δ
    assert rooted.mean() > 0.5 and np.all(log_analytic_delta(0.0, s[~rooted]) <= np.log(delta))
    if sigma < 10:
        assert np.all(log_analytic_delta(epsilons[rooted] * (1 - 1e-10), s[rooted]) > np.log(delta))


def test_distinct_values_read_from_any_sorting_order_are_numpys():
    values = np.random.default_rng(2).integers(0, 40, 5000) / 7.0  # many ties
    unique, inverse = np.unique(values, return_inverse=True)
    for kind in ("quicksort", "stable"):
        order = np.argsort(values, kind=kind)
        if kind == "stable":
            order = order[::-1][np.argsort(values[order[::-1]], kind="stable")]  # ties in the reverse order
        got_unique, got_inverse = distinct_values(values, order)
        assert np.array_equal(got_unique, unique) and np.array_equal(got_inverse, inverse.ravel())
    sorted_once = per_instance_epsilons(values, 1e-5, 1.3, np.argsort(values))
    assert np.array_equal(sorted_once, per_instance_epsilons(values, 1e-5, 1.3))


@pytest.mark.parametrize("sensitivity", [0.05, 0.7, 2.0])
def test_an_individuals_epsilon_solves_the_exact_profile_in_mpmath(sensitivity):
    sigma, delta = 1.3, 1e-6
    (epsilon,) = per_instance_epsilons(np.array([sensitivity]), delta, sigma)
    mp.mp.dps = 50
    s = mp.mpf(sigma) / sensitivity
    profile = mp.ncdf(0.5 / s - epsilon * s) - mp.exp(epsilon) * mp.ncdf(-0.5 / s - epsilon * s)
    assert abs(profile - delta) / delta < 1e-11
    assert analytic_delta(epsilon, sigma, sensitivity) == pytest.approx(delta, rel=1e-11)


def _wide_csv(path, columns: int, rows: int = 300) -> str:
    header = ",".join(f"c{j}" for j in range(columns)) + ",label"
    data = np.random.default_rng(0).uniform(-0.1, 0.1, size=(rows, columns + 1)).round(3)
    data[:, -1] = np.arange(rows) % 2 * 2 - 1  # labels ±1 for the fitted audits
    path.write_text(header + "\n" + "\n".join(",".join(map(str, r)) for r in data) + "\n")
    return str(path)


@pytest.mark.parametrize("audit,cap", [("gaussian", 100), ("objpert", 100), ("ssp", 200)])
def test_data_wider_than_the_synthetic_cap_is_refused_before_work(audit, cap, tmp_path, capsys):
    """main accepted any width: the Gaussian audit of 3 rows × 1,000 columns took 29 s and 1.8 GB, × 20,000 ran out
    of memory (issue 27, D14).  --data is now capped at --synthetic's d, in one line, before any draw."""
    import time

    from pdp_audit.cli.main import main

    wide = _wide_csv(tmp_path / "wide.csv", cap + 1)
    started = time.monotonic()
    args = ["run", audit, "--trials", "2000", "--quiet", "--report", "none", "--data", wide, "--target-column", "label"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("pdp-audit: error: --data: ") and "wide.csv" in err, err
    assert f"has {cap + 1} feature columns; this audit takes at most {cap}" in err and err.count("\n") == 1, err
    assert time.monotonic() - started < 30  # refused before the audit's draws
    # --synthetic's own cap is the same number
    assert main(["run", audit, "--synthetic", f"{10 * cap},{cap + 1}", "--quiet", "--report", "none"]) == 2
    assert f"d <= {cap}" in capsys.readouterr().err
