"""The draw sets' seeds are plain Python ints under every NumPy the project supports (``numpy>=1.24``).

NumPy 1.26 refuses ``np.uint64(x) >> 1`` (a uint64 and a Python int promote to float64, which has no shift), so a
seed shifted as a NumPy scalar ended every program audit in exit 4 there.  The stand-in below gives the scalar that
behaviour on any NumPy.  Seen failing on main (``generate_state(...)[0] >> 1``): TypeError from the stand-in."""

from __future__ import annotations

import numpy as np

from pdp_audit.audits.program import analysis


class _Uint64As126:
    """A uint64 scalar as NumPy 1.26 has it: ``int()`` works, a shift by a Python int raises TypeError."""

    def __init__(self, value: np.uint64) -> None:
        self.value = value

    def __int__(self) -> int:
        return int(self.value)

    def __rshift__(self, other):
        raise TypeError("ufunc 'right_shift' not supported for the input types")


class _SeedSequence126(np.random.SeedSequence):
    def generate_state(self, n_words, dtype=np.uint32):
        return [_Uint64As126(word) for word in super().generate_state(n_words, dtype)]


def test_draw_seeds_are_python_ints_in_range_and_unchanged():
    seeds = [analysis.draw_seed(index, 20240601) for index in range(4)]
    assert all(type(seed) is int and 0 <= seed < 2**63 for seed in seeds), seeds
    assert len(set(seeds)) == 4


def test_draw_seed_under_numpy_126_scalars(monkeypatch):
    expected = [analysis.draw_seed(index, 7) for index in range(1, 4)]
    analysis.draw_seed.cache_clear()  # made once a process: made again here, with NumPy 1.26's scalars
    monkeypatch.setattr(np.random, "SeedSequence", _SeedSequence126)
    try:
        assert [analysis.draw_seed(index, 7) for index in range(1, 4)] == expected
    finally:
        analysis.draw_seed.cache_clear()  # none of the stand-in's seeds kept for later tests
