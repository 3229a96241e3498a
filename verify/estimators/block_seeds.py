"""The blocks' generators of a pass seeded all at once: the states :func:`pdp_audit.verify.estimators.engine.block_rng`
gives each block, computed for every block of a pass by a few array operations, and set on one generator reused
block after block.

``block_rng(seed, stream, b)`` is ``PCG64(SeedSequence(seed, spawn_key=(key, b)))``.  Making one took 14 us alone, and
40-50 us a block inside a pass of losses (a tenth of a scalar Gaussian block's time on a loaded 2-core machine:
SeedSequence's ``generate_state`` does its hashing word by word on numpy scalars).  Here the same steps run on
arrays with one element a block:

* SeedSequence (numpy's ``numpy.random.SeedSequence``, after M. E. O'Neill's ``seed_seq`` alternative, 2015): the
  entropy is the seed's 32-bit words, lowest first (one word for 0), padded with zero words to the pool's 4 (a
  spawn key is given), then the key's words and the block's; the pool is mixed from it by ``hashmix`` and ``mix``;
  ``generate_state(4, uint64)`` hashes 8 words out of the pool, taken in pairs, low word first;
* PCG64's seeding (``pcg64_set_seed``, O'Neill's PCG ``srandom``): of the four 64-bit words the first two (high,
  low) are the initial state s, the last two the sequence i; inc = 2i + 1, and the state is ((inc + s)·M + inc)
  mod 2^128 with M PCG's 128-bit multiplier.

The states are checked against numpy's own for the pass's first and last block; where they differ (a numpy that
seeds otherwise) no state is given, and the blocks are seeded one by one as before.  A block's numbers are the same
either way: they depend on the state only.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

#: SeedSequence's hashing constants (INIT_A, MULT_A: the entropy's; INIT_B, MULT_B: generate_state's; mix's two).
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4
_WORD = 0xFFFFFFFF
#: PCG's default 128-bit multiplier.
_PCG_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
_MASK_128 = (1 << 128) - 1

#: A block's PCG64 state: (state, inc), as ``bit_generator.state["state"]`` holds them.
State = tuple[int, int]


def words(n: int) -> list[int]:
    """``n`` (>= 0) as SeedSequence reads an integer: its 32-bit words, lowest first; one word for 0."""
    found: list[int] = []
    while n > 0 or not found:
        found.append(n & _WORD)
        n >>= 32
    return found


class _Hash:
    """SeedSequence's running hash constant, the same for every block (it does not depend on the data)."""

    def __init__(self, start: int, multiplier: int):
        self.constant, self.multiplier = start, multiplier

    def __call__(self, value: np.ndarray) -> np.ndarray:
        value = value ^ np.uint32(self.constant)
        self.constant = (self.constant * self.multiplier) & _WORD
        value = value * np.uint32(self.constant)
        return value ^ (value >> np.uint32(16))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result: np.ndarray = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
    return result ^ (result >> np.uint32(16))


def _pools(entropy: list[np.ndarray]) -> list[np.ndarray]:
    """SeedSequence's pool of each block (4 words, one array each) mixed from its entropy words (at least 4)."""
    hashmix = _Hash(_INIT_A, _MULT_A)
    pool = [hashmix(entropy[i]) for i in range(_POOL)]
    for source in range(_POOL):
        for target in range(_POOL):
            if source != target:
                pool[target] = _mix(pool[target], hashmix(pool[source]))
    for word in entropy[_POOL:]:
        for target in range(_POOL):
            pool[target] = _mix(pool[target], hashmix(word))
    return pool


def _seeding_words(pool: list[np.ndarray]) -> list[np.ndarray]:
    """``generate_state(4, np.uint64)`` of each block: four arrays of 64-bit words."""
    hashmix = _Hash(_INIT_B, _MULT_B)
    halves = [hashmix(pool[i % _POOL]).astype(np.uint64) for i in range(2 * _POOL)]
    return [halves[2 * i] | (halves[2 * i + 1] << np.uint64(32)) for i in range(_POOL)]


def _pcg64_state(high: int, low: int, seq_high: int, seq_low: int) -> State:
    inc = ((((seq_high << 64) | seq_low) << 1) | 1) & _MASK_128
    return ((inc + ((high << 64) | low)) * _PCG_MULTIPLIER + inc) & _MASK_128, inc


def computed_states(seed: int, key: int, count: int) -> list[State]:
    """The PCG64 states of ``SeedSequence(seed, spawn_key=(key, b))`` for b = 0 … ``count`` − 1 (< 2^32)."""
    prefix = words(int(seed))
    prefix += [0] * (_POOL - len(prefix))
    blocks = np.arange(count, dtype=np.uint32)
    entropy = [np.full(count, word, dtype=np.uint32) for word in (*prefix, *words(int(key)))] + [blocks]
    seeding = [column.tolist() for column in _seeding_words(_pools(entropy))]
    return [_pcg64_state(*four) for four in zip(*seeding)]


def block_states(seed: int, key: int, count: int) -> list[State] | None:
    """:func:`computed_states`, where they are numpy's for the first and the last block; else None."""
    if count == 0 or count >= 1 << 32 or seed < 0:
        return None
    states = computed_states(seed, key, count)
    for block in {0, count - 1}:
        bit_generator = np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=(int(key), block)))
        if (bit_generator.state["state"]["state"], bit_generator.state["state"]["inc"]) != states[block]:
            return None
    return states


def generators(states: Sequence[State]) -> Iterator[np.random.Generator]:
    """One generator set to each of ``states`` in turn: the same object, so a block must not keep it."""
    rng = np.random.Generator(np.random.PCG64(0))
    for state, inc in states:
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": state, "inc": inc},
            "has_uint32": 0,
            "uinteger": 0,
        }
        yield rng
