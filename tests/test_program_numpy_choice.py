"""``rng.choice(k, p=w)`` composed by the law numpy's implementation draws, once per index drawn
(:mod:`pdp_audit.audits.program.numpy_choice`).

Seen failing on main (99f9805): five draws of an exponential mechanism of pure ε 0.44 each were certified at
(1, 0) (one step stood for all five), and weights whose ratio is 1 + 2·10⁻⁷ but which numpy draws with 2 counts of
2⁵³ against 1 were certified at (0.1, 0) (the composition read w_i/Σw, not numpy's cdf)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdp_audit

LABELS = pd.DataFrame({"c": [0, 1, 1, 2, 3, 3, 3, 2]})
OPTIONS = {"trials": 300, "seed": 0, "alpha": 1e-6, "search": "named", "draw_sets": 2}
GRID = 2.0**-53


def _weights(data) -> np.ndarray:
    counts = np.array([(data["c"] == c).sum() for c in range(4)], dtype=float)
    weights = np.exp(0.5 * counts)  # the exponential mechanism of ε = 1 for a count of sensitivity 1
    return weights / weights.sum()


def one_draw(data, rng):
    return int(rng.choice(4, p=_weights(data)))


def five_draws(data, rng):
    return rng.choice(4, size=5, p=_weights(data))


def on_the_grid(data, rng):
    """Ideal ratio 1 + 2e-7; numpy's cdf puts 2 of the uniform's 2⁵³ outcomes on index 0 on D, 1 on D less one."""
    first = (1.0000001 if len(data) > 7 else 0.9999999) * GRID
    return int(rng.choice(3, p=np.array([first, 3 * GRID, 1.0 - 4 * GRID])))


def _composition(run):
    return next(c for c in run.checks if c.id == "program-composition")


@pytest.fixture(scope="module")
def twin():
    return pdp_audit.audit_program(one_draw, LABELS, 1.0, 0.0, **OPTIONS)


def test_five_draws_compose_five_steps(twin):
    assert twin.verdict == "pass"
    run = pdp_audit.audit_program(five_draws, LABELS, 1.0, 0.0, **OPTIONS)
    assert run.verdict != "pass"
    assert "5 choice(s)" in _composition(run).note


def test_weights_are_read_as_numpy_draws_them(twin):
    assert twin.verdict == "pass"
    run = pdp_audit.audit_program(on_the_grid, LABELS, 0.1, 0.0, **OPTIONS)
    assert run.verdict != "pass"
    assert _composition(run).details["certified_at"][1] < 1e-15  # the implemented law's sliver of δ
