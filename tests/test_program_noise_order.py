"""Noise added in an order the data sets: each release coordinate must carry the same noise element on D′ as on D
before a shift is read from it.

The program counts each of three public codes, adding Laplace noise group by group in the order the codes first
appear in the data (a dictionary filled record by record, as pipeline-dp's local backend groups), and releases the
counts in the codes' order.  Removing the first record (code 1) moves code 1's first appearance after codes 0 and 2:
on D′ the coordinate of code 1 carries the third draw, on D the first.  Every draw is Laplace of one scale, so the
probe's check of the coefficients on D′ (a shift of −w, the same for every element) sees D's response everywhere.
Seen failing before the carriers were checked: the shift of code 1's draw was read as R(D′) − R(D), a difference of
two draws, and the correct program (ε = 1: one count moves by one) was refuted by composition on "remove record 0"
(pure ε of the steps 3.1, δ(1) ≥ 0.45) at every seed tried; rounded to one decimal, its counts are read through
the rounding (a landing), whose bisection on D′ crossed D's level by another draw: refuted too."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.program.analysis import analyse

CODES = np.array([1, 0, 2, 0, 1, 0], dtype=float)
FIRST = "remove record 0 (the first)"


def counts_in_order(data, rng, scale=1.0):
    """The Laplace count of each code 0, 1, 2 (ε = 1 at ``scale`` 1), noised in the order the codes first appear."""
    codes = np.clip(np.nan_to_num(np.asarray(data, dtype=float).ravel()), 0, 2).astype(int)
    order = list(dict.fromkeys([*codes.tolist(), 0, 1, 2]))
    noisy = {k: float(np.sum(codes == k)) + float(rng.laplace(0.0, scale)) for k in order}
    return [noisy[k] for k in range(3)]


def rounded(data, rng):
    """:func:`counts_in_order` rounded to one decimal: each count read through a rounding (a landing)."""
    return [round(value, 1) for value in counts_in_order(data, rng)]


def half_the_noise(data, rng):
    """Bug: :func:`counts_in_order` at scale 1/2 (ε = 2)."""
    return counts_in_order(data, rng, 0.5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_correct_program_noised_in_the_datas_order_is_not_refuted(seed):
    analysis = analyse(counts_in_order, CODES, "add-remove", (0, 2), (1.0, 0.0), seed, draw_sets=4)
    assert not any(p.refuted for p in analysis.pairs)
    first = [p for p in analysis.pairs if p.neighbour.name == FIRST]
    assert first and all(p.comparison.carriers_moved for p in first)
    assert all("carry other noise on D′" in f.why for p in first for f in p.unaccounted[-1:])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rounded_it_is_not_refuted_either(seed):
    analysis = analyse(rounded, CODES, "add-remove", (0, 2), (1.0, 0.0), seed, draw_sets=4)
    assert any(p.comparison.landings for p in analysis.pairs)  # the counts are read through the rounding
    assert not any(p.refuted for p in analysis.pairs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_program_at_half_the_noise_is_still_refuted(seed):
    analysis = analyse(half_the_noise, CODES, "add-remove", (0, 2), (1.0, 0.0), seed, draw_sets=4)
    refuted = [p for p in analysis.pairs if p.refuted]
    assert refuted and all(not p.comparison.carriers_moved for p in refuted)
