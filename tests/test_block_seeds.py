"""The blocks' generator states computed for a whole pass at once (verify/estimators/block_seeds.py, issue 44) are
numpy's ``PCG64(SeedSequence(seed, spawn_key=(key, b)))`` states, and a pass drawn with them is the pass drawn with a
generator made a block, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.mechanisms.gaussian import GaussianPair
from pdp_audit.verify.estimators import block_seeds, engine


def numpy_state(seed: int, key: int, block: int) -> tuple[int, int]:
    state = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(key, block))).state["state"]
    return state["state"], state["inc"]


SEEDS = [0, 1, 7, 2**32 - 1, 2**32, 2**64 + 5, 2**128 + 3, 2**200 + 11, 4_123_456_789_012]
KEYS = [0, 1, engine.stream_key("plv/D"), 2**32 - 1]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_states_are_numpys(seed):
    for key in KEYS:
        states = block_seeds.computed_states(seed, key, 40)
        assert states == [numpy_state(seed, key, block) for block in range(40)], (seed, key)
    far = block_seeds.computed_states(seed, 5, 70_000)
    assert [far[b] for b in (65_535, 65_536, 69_999)] == [numpy_state(seed, 5, b) for b in (65_535, 65_536, 69_999)]


def test_words_are_seedsequences_reading_of_an_integer():
    assert block_seeds.words(0) == [0]
    assert block_seeds.words(2**32) == [0, 1]
    assert block_seeds.words(2**64 - 1) == [2**32 - 1, 2**32 - 1]


def test_states_numpy_disagrees_with_are_not_given(monkeypatch):
    """A hashing step off (a constant changed) gives other states: the check against numpy's finds it, no states
    are given, and the pass draws a generator a block (the same numbers)."""
    pair = GaussianPair(np.array([0.0]), np.array([1.0]), 2.0)
    expected = engine.sample_privacy_loss(pair, "D", 3 * 65536 + 5, seed=4)
    monkeypatch.setattr(block_seeds, "_MULT_B", block_seeds._MULT_B ^ 1)
    assert block_seeds.computed_states(4, 9, 3) != [numpy_state(4, 9, b) for b in range(3)]
    assert block_seeds.block_states(4, 9, 3) is None
    assert engine.pass_states(engine.PrivacyLossSampler(pair, "D"), 4, "plv/D", 4) is None
    again = engine.sample_privacy_loss(pair, "D", 3 * 65536 + 5, seed=4)
    assert np.array_equal(again.view(np.uint64), expected.view(np.uint64))


def test_a_pass_seeded_at_once_is_the_pass_seeded_block_by_block(monkeypatch):
    pairs = [GaussianPair(np.array([100.0]), np.array([101.0]), 3.7), GaussianPair(np.zeros(3), np.eye(3)[0], 0.9)]
    n = 5 * 65536 + 17
    at_once = [engine.sample_privacy_loss(p, w, n, seed=9) for p in pairs for w in ("D", "D'")]
    assert engine.pass_states(engine.PrivacyLossSampler(pairs[0], "D"), 9, "plv/D", 6) is not None
    monkeypatch.setattr(engine, "pass_states", lambda *args: None)
    one_by_one = [engine.sample_privacy_loss(p, w, n, seed=9) for p in pairs for w in ("D", "D'")]
    for a, b in zip(at_once, one_by_one):
        assert np.array_equal(a.view(np.uint64), b.view(np.uint64))


def test_a_worker_given_states_draws_the_blocks_numbers():
    sampler = engine.PrivacyLossSampler(GaussianPair(np.array([0.0]), np.array([1.0]), 2.0), "D")
    states = engine.pass_states(sampler, 3, "s", 6)
    assert states is not None
    returned = engine._slot_job((sampler, 3, "s", 4, [1000, 7], "not these slots", 0, states[4:6]))
    expected = [sampler(size, engine.block_rng(3, "s", 4 + k)) for k, size in enumerate((1000, 7))]
    assert np.array_equal(returned.view(np.uint64), np.concatenate(expected).view(np.uint64))
