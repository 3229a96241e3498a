"""Block reductions over the rows of a table are numpy's whole-table reductions bit for bit (issue 44: certify on
large data without full-size temporaries), and the Gaussian sum's neighbours built from them are the sums of the
neighbouring data sets' rows."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.mechanisms import row_reductions as rr
from pdp_audit.mechanisms.gaussian_mean import GaussianMeanMechanism
from pdp_audit.mechanisms.gaussian_query import Query, clip_rows, clipped_norms

#: Row counts about the block size (one block, a partial last block, a last block of one row) and columns about
#: numpy's unrolled reductions (fewer than 8, 8, more, one column).
ROWS = (1, 2, 3, rr.BLOCK_ROWS - 1, rr.BLOCK_ROWS, rr.BLOCK_ROWS + 1, 2 * rr.BLOCK_ROWS + 7)
COLUMNS = (1, 2, 3, 8, 9, 30)


def table(rows: int, columns: int, seed: int) -> np.ndarray:
    """Cells over twenty orders of magnitude, both signs and some exact zeros: sums and norms round differently
    under any other order of the additions."""
    rng = np.random.default_rng(seed)
    cells = rng.standard_normal((rows, columns)) * 10.0 ** rng.uniform(-10, 10, (rows, columns))
    cells[rng.random((rows, columns)) < 0.05] = 0.0
    return cells


@pytest.mark.parametrize("columns", COLUMNS)
def test_row_norms_are_numpys_bit_for_bit(columns):
    for seed, rows in enumerate(ROWS):
        cells = table(rows, columns, seed)
        scale = np.random.default_rng(seed).uniform(0, 1, rows)
        for order in (1, 2):
            assert np.array_equal(rr.row_norms(cells, order), np.linalg.norm(cells, ord=order, axis=1))
        assert np.array_equal(rr.row_norms(cells, scale=scale), np.linalg.norm(cells * scale[:, None], axis=1))
        column_major = np.asfortranarray(cells)  # not blocked: the whole-table operation itself
        assert np.array_equal(rr.row_norms(column_major), np.linalg.norm(column_major, axis=1))


@pytest.mark.parametrize("columns", [c for c in COLUMNS if c >= 2])
def test_neighbouring_sums_are_the_sums_of_the_neighbours_rows(columns):
    for seed, rows in enumerate(ROWS):
        cells = table(rows, columns, 100 + seed)
        assert rr.sums_in_order(cells)
        total = cells.sum(axis=0)
        row = table(1, columns, 200 + seed)[0]
        assert np.array_equal(rr.sum_with(total, row), np.vstack([cells, row]).sum(axis=0))
        for index in sorted({0, 1, rows // 2, rows - 2, rows - 1} & set(range(rows))):
            expected = np.delete(cells, index, axis=0).sum(axis=0)
            assert np.array_equal(rr.sum_without(cells, index), expected), (rows, index)


def test_a_single_column_or_a_column_major_table_is_not_summed_in_order():
    """numpy sums one column pairwise, not row after row: those tables keep the whole-table operations."""
    cells = table(1000, 1, 7)
    running = cells[0].copy()
    for row in cells[1:]:
        running = running + row
    assert not np.array_equal(running, cells.sum(axis=0))  # the premise: pairwise differs from in order here
    assert not rr.sums_in_order(cells)
    assert not rr.sums_in_order(np.asfortranarray(table(100, 3, 8)))


@pytest.mark.parametrize("columns", COLUMNS)
def test_the_gaussian_sums_neighbours_are_those_of_the_rows_themselves(columns):
    """Query.neighbour_sums from D's clipped rows against the sums of D±z's rows clipped anew, bit for bit, for
    one column (the whole-table path) and more (the block path); the clipped norms likewise."""
    query = Query("sum", 1.0)
    cells = table(2 * rr.BLOCK_ROWS + 3, columns, 300 + columns) * 1e-6  # norms on both sides of the clip
    clipped = query.clipped(cells)
    assert np.array_equal(clipped, clip_rows(cells, 1.0, np.linalg.norm(cells, axis=1)))
    assert np.array_equal(clipped_norms(cells, 1.0), np.linalg.norm(clipped, axis=1))
    outside = np.full(columns, 1e4)
    for relation, target in (("add", outside), ("add", cells[5]), ("remove", cells[0]), ("remove", cells[-1])):
        if relation == "add":
            neighbour = np.vstack([cells, target])
        else:  # its first copy removed
            neighbour = np.delete(cells, np.flatnonzero((cells == target).all(axis=1))[0], axis=0)
        d, d_prime = query.neighbour_sums(cells, target, relation, clipped)
        assert np.array_equal(d, query(cells)) and np.array_equal(d_prime, query(neighbour)), relation
    mean = GaussianMeanMechanism(1.0, 2.0, 3.0)
    assert np.array_equal(
        mean.per_instance_sensitivities(cells), np.hypot(np.linalg.norm(clipped, axis=1) / 2.0, 1.0 / 3.0)
    )


@pytest.mark.parametrize("columns", [c for c in COLUMNS if c >= 2])
def test_scaled_rows_sum_as_the_scaled_array_does(columns):
    """ScaledRows (a clipped data set never stored) sums, with and without a row, as the array of the scaled rows."""
    for seed, rows in enumerate(ROWS):
        cells = table(rows, columns, 400 + seed)
        scale = np.random.default_rng(seed).uniform(0, 1, rows)
        scaled = cells * scale[:, None]
        lazy = rr.ScaledRows(cells, scale)
        assert len(lazy) == rows and lazy.shape == cells.shape
        assert np.array_equal(lazy.total, scaled.sum(axis=0))
        fresh = rr.ScaledRows(cells, scale)  # no total yet: each sum without a row from the first row
        ends = {rr.BLOCK_ROWS - 1, rr.BLOCK_ROWS, 2 * rr.BLOCK_ROWS - 1, 2 * rr.BLOCK_ROWS, 2 * rr.BLOCK_ROWS + 1}
        for index in sorted(({0, 1, rows // 2, rows - 1} | ends) & set(range(rows))):
            expected = np.delete(scaled, index, axis=0).sum(axis=0)
            assert np.array_equal(lazy.without(index), expected), (rows, index)  # from the block's mark
            assert np.array_equal(fresh.without(index), expected), (rows, index)


def test_the_gaussian_pairs_from_scaled_rows_are_those_of_the_clipped_array():
    from pdp_audit.mechanisms.gaussian import GaussianMechanism
    from pdp_audit.mechanisms.gaussian_query import clip_scale

    cells = table(2 * rr.BLOCK_ROWS + 5, 4, 500) * 1e-6
    query = Query("sum", 1.0)
    lazy = rr.ScaledRows(cells, clip_scale(cells, 1.0))
    clipped = query.clipped(cells)
    mechanism = GaussianMechanism(query, 2.0)
    for relation, target in (("add", np.full(4, 9.0)), ("remove", cells[3000])):
        a, b = mechanism.pair(cells, target, relation, lazy), mechanism.pair(cells, target, relation, clipped)
        assert np.array_equal(a.q_d, b.q_d) and np.array_equal(a.q_dprime, b.q_dprime)
    assert np.array_equal(mechanism.per_instance_sensitivities(cells, lazy), np.linalg.norm(clipped, axis=1))
    mean = GaussianMeanMechanism(1.0, 2.0, 3.0)
    a, b = mean.pair(cells, cells[7], "remove", lazy), mean.pair(cells, cells[7], "remove", clipped)
    assert np.array_equal(a.sum_pair.q_dprime, b.sum_pair.q_dprime)


def test_removed_index_is_the_first_copy_in_any_block():
    """The row ``relation="remove"`` deletes is the target's first copy, found a block at a time."""
    from pdp_audit.mechanisms.base import SEARCH_ROWS, removed_index
    from pdp_audit.verify.inputs.validation import InputError

    cells = table(3 * SEARCH_ROWS + 7, 3, 600)
    for first, second in ((5, 9), (SEARCH_ROWS - 1, SEARCH_ROWS), (SEARCH_ROWS + 3, 3 * SEARCH_ROWS + 6)):
        data = cells.copy()
        data[second] = data[first]
        assert removed_index(data, data[second]) == first == np.flatnonzero(np.all(data == data[first], axis=1))[0]
    with pytest.raises(InputError, match="row of the dataset"):
        removed_index(cells, np.full(3, 7.5))
    with pytest.raises(InputError, match="row of the dataset"):
        removed_index(cells[:0], cells[0])
