"""A composition too wide for the grid (issue 86: a noisy CDF of 10⁵ coordinates each moved by its scale) is bounded
from below by a part of it, at once, and never certified."""

from __future__ import annotations

import time

from pdp_audit.audits.program import accounting
from pdp_audit.audits.program.step_laws import Gaussian, Laplace


def test_a_composition_too_wide_for_the_grid_is_refuted_by_its_largest_steps_at_once():
    # 400 Laplace steps of μ = 1: the whole grid would span ~10⁸ points (minutes); two of them alone, in closed
    # form, already show δ(1) > 0 -- a lower bound (a part's release is a post-processing of the whole's)
    steps = [Laplace(call=0, label=f"laplace[{j}]", mu=1.0) for j in range(400)]
    start = time.perf_counter()
    composed = accounting.composed_delta(list(steps), 1.0)
    assert time.perf_counter() - start < 20
    assert "400 steps: the 2 largest Laplace shift(s) alone" in composed.how
    assert composed.high == 1.0  # a part never certifies
    assert accounting.exceeds(composed, 0.0) and composed.low < 0.9


def test_a_composition_the_grid_holds_is_composed_whole():
    steps = [Laplace(call=0, label=f"laplace[{j}]", mu=1.0) for j in range(6)]
    composed = accounting.composed_delta(steps, 1.0)
    assert composed.how.startswith("grid composition of 6 steps (bounds")
    assert composed.high < 1.0


def test_a_wide_composition_of_gaussians_beside_a_laplace_step_is_bounded_by_its_widest_steps_on_the_grid():
    # the one Laplace step alone (pure ε = 1) would show nothing at ε = 1: its widest steps on the grid do
    steps = [Gaussian(call=0, label=f"gaussian[{j}]", mu=0.3) for j in range(300)]
    composed = accounting.composed_delta([*steps, Laplace(call=1, label="laplace[0]", mu=1.0)], 1.0)
    assert "the 10 largest of 301 steps alone" in composed.how
    assert composed.high == 1.0 and accounting.exceeds(composed, 0.0)
