"""The DP-SGD audit's exact reference holds a bounded grid: a budget whose grid would not fit is refused in one line
naming --steps and its largest value, before any work, by every route (the config's rule); the estimate the rule
reads is an upper bound on the arrays the FFT composition really holds."""

from __future__ import annotations

import time

import pytest

import pdp_audit
from pdp_audit.audits.dp_sgd.config import MAX_REFERENCE_POINTS
from pdp_audit.catalogue.plans import plans_by_name
from pdp_audit.cli.main import main
from pdp_audit.mechanisms import pld_composition as pld
from pdp_audit.mechanisms import subsampled_gaussian as sg
from pdp_audit.verify.inputs.validation import InputError

#: The issue's budget: 90-million-element arrays and a MemoryError (exit 4) after minutes.
HUGE = {"steps": 1e6, "sample_rate": 0.5, "noise_multiplier": 0.3}


@pytest.mark.tier2(representatives=("0.6-0.2-30-add-remove",))
@pytest.mark.parametrize(
    ("sigma", "q", "steps", "neighbours"),
    [
        (1.1, 0.01, 1000, "add-remove"),
        (0.6, 0.2, 30, "add-remove"),
        (1.0, 0.05, 200, "replace-one"),
    ],
)
def test_the_estimate_bounds_the_largest_array_the_composition_holds(sigma, q, steps, neighbours, monkeypatch):
    held = []
    convolve = pld._convolve

    def recorded(a, b):
        out = convolve(a, b)
        held.append(out.pmf.size)
        return out

    monkeypatch.setattr(pld, "_convolve", recorded)
    pair = sg.SubsampledGaussian(sigma, q, neighbours)
    for direction in sg.DIRECTIONS:
        held.clear()
        law = sg.StepLossLaw(pair, direction)
        loss_law = pld.LossLaw(law.cdf, law.support)
        pld.composed_profile(loss_law, steps, 2e-3)
        estimate = pld.grid_width(loss_law).points(steps, 2e-3)
        assert max(held) <= estimate <= 4 * max(held)


def test_max_steps_is_the_largest_count_within_the_points():
    width = pld.GridWidth(step_range=5.9, step_std=0.011)
    largest = width.max_steps(3.2e-3, MAX_REFERENCE_POINTS)
    assert width.points(largest, 3.2e-3) <= MAX_REFERENCE_POINTS < width.points(largest + 1, 3.2e-3)


def test_a_grid_beyond_memory_is_refused_before_any_work_in_one_line(capsys):
    argv = ["run", "dp-sgd", "--steps", "1e6", "--sample-rate", "0.5", "--noise-multiplier", "0.3", "--report", "none"]
    start = time.perf_counter()
    assert main(argv) == 2
    assert time.perf_counter() - start < 20  # the configuration's estimate only (the run died after minutes)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--steps must be at most" in err and "--noise-multiplier 0.3" in err


def test_every_route_refuses_it_the_same_way():
    with pytest.raises(InputError, match="steps must be at most"):
        plans_by_name()["dp-sgd"].configure(HUGE)  # deployment files, sweep cells and the ledger build through it
    with pytest.raises(InputError, match="steps must be at most"):
        pdp_audit.run_audit("dp-sgd", **HUGE)


@pytest.mark.parametrize("neighbours", ["add-remove", "replace-one"])
def test_one_step_fits_at_every_accepted_noise_multiplier_and_sample_rate(neighbours):
    """The message's largest --steps is at least 1 wherever σ and q are accepted (their extremes)."""
    values = {"steps": 1, "sample_rate": 0.999999, "noise_multiplier": 0.3, "neighbours": neighbours}
    plans_by_name()["dp-sgd"].configure(values)


def test_the_documented_budgets_are_accepted():
    plan = plans_by_name()["dp-sgd"]
    plan.configure({})
    plan.configure({"noise_multiplier": 0.8, "sample_rate": 0.004, "steps": 10000, "claim_epsilon": 3.61})
    plan.configure({"neighbours": "replace-one", "claim_epsilon": 2.6})
