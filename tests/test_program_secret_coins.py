"""A refutation by composition never conditions on draws the release does not reveal (audits/program/conditioning.py).

Poisson subsampling keeps each record by a coin of its own and adds Laplace noise of ε₀ = 2 to the sample's clipped
sum: given the coins that keep a record, removing it moves the sum by up to 1 (pure ε 2 > 1.5), but over the coins the
release is log(1 + ½(e² − 1)) = 1.434-DP (Balle, Barthe & Gaboardi 2018, Thm 8).  Seen failing before the rule: the
pair "remove record 0" was refuted by composition at a claim of 1.5 (δ(1.5) ≥ 0.435, pure ε of the steps 2.64) --
a correct program refuted.  The coins are drawn whatever the data (one per slot of a public capacity), so every
neighbour replays the same calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdp_audit.audits.program.analysis import analyse
from pdp_audit.audits.program.decision import decide
from pdp_audit.audits.program.findings import Conditioned, Rescaled

VALUES = np.array([0.51, 0.95, 0.14, 0.95, 0.62, 0.39, 0.93, 0.77])
CAPACITY = 16  # a public capacity: one coin per slot, whatever the data
AMPLIFIED = math.log1p(0.5 * math.expm1(2.0))  # 1.434: subsampling at q = 1/2 of a 2-DP sum


def _clipped(data):
    return np.clip(np.nan_to_num(np.asarray(data, dtype=float).ravel(), nan=0.0), 0.0, 1.0)


def _kept_by(coins):
    def program(data, rng):
        x = _clipped(data)
        keep = coins(rng)[: x.size]
        return float(x[keep].sum() + rng.laplace(0.0, 0.5))

    return program


COINS = {
    "uniform": lambda rng: rng.random(CAPACITY) < 0.5,
    "binomial": lambda rng: rng.binomial(1, 0.5, CAPACITY) == 1,
    "integers": lambda rng: rng.integers(0, 2, CAPACITY) == 1,
    # Laplace draws no release coordinate carries: shiftable noise, but secret
    "laplace, not released": lambda rng: rng.laplace(0.0, 1.0, CAPACITY) > 0,
}


def _analysed(program, claim, seed=0):
    return analyse(program, VALUES, "add-remove", (0.0, 1.0), claim, seed, draw_sets=4)


@pytest.mark.parametrize("coins", sorted(COINS))
def test_poisson_subsampling_is_not_refuted_by_its_conditional_composition(coins):
    assert AMPLIFIED < 1.5 < 2.0
    analysis = _analysed(_kept_by(COINS[coins]), (1.5, 0.0))
    assert not any(p.refuted for p in analysis.pairs)
    conditioned = [f for p in analysis.pairs for f in p.findings if isinstance(f, Conditioned)]
    assert conditioned and conditioned[0].lower.low > 0  # the conditional bound is kept, as a finding
    composition = decide(analysis, (1.5, 0.0), "ideal", [])[2]
    assert composition.verdict == "inconclusive"
    assert "given draws the release does not reveal" in composition.note


def test_without_the_coins_the_same_sum_is_refuted_exactly():
    """Every record kept: nothing is secret, and the 2-DP sum is refuted at 1.5 by composition."""

    def every_record(data, rng):
        return float(_clipped(data).sum() + rng.laplace(0.0, 0.5))

    analysis = _analysed(every_record, (1.5, 0.0))
    assert any(p.refuted for p in analysis.pairs)
    assert decide(analysis, (1.5, 0.0), "ideal", [])[2].verdict == "fail"


def test_a_further_draw_the_release_reveals_keeps_the_refutation():
    """A second Laplace draw released as it is: revealed, so conditioning on it is conditioning on the release."""

    def with_a_released_draw(data, rng):
        return [float(_clipped(data).sum() + rng.laplace(0.0, 0.5)), float(rng.laplace(0.0, 1.0))]

    analysis = _analysed(with_a_released_draw, (1.5, 0.0))
    assert any(p.refuted for p in analysis.pairs)


def test_a_scale_read_from_a_secret_sample_is_not_refuted_exactly():
    """Pure claim, the noise's scale from the sample's size: given the coins the scale moves with the removed record
    (a tail event refutes the conditional laws), but over the coins both worlds mix the same scales."""

    def scale_from_the_sample(data, rng):
        x = _clipped(data)
        keep = rng.random(CAPACITY)[: x.size] < 0.5
        return float(x[keep].sum() + rng.laplace(0.0, 4.0 / (1.0 + keep.sum())))

    analysis = _analysed(scale_from_the_sample, (1.0, 0.0))
    rescaled = [f for p in analysis.pairs for f in p.structural if isinstance(f, Rescaled)]
    assert rescaled
    assert not any(f.exact for f in rescaled)
    assert not any(p.refuted for p in analysis.pairs)
