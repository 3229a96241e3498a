"""A large data set is clipped once for every pair and sensitivity of the Gaussian audit (issue 44): the pairs and
per-instance sensitivities from D's clipped rows are those from the rows, bit for bit (clipping scales each row by
its own norm, so D±z's clipped rows are D's and z's)."""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.mechanisms import gaussian as g
from pdp_audit.mechanisms import gaussian_mean as gm
from pdp_audit.mechanisms import gaussian_query as gq
from pdp_audit.verify.inputs.validation import InputError


def bits(array) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)


def same_pair(a, b) -> bool:
    return np.array_equal(bits(a.q_d), bits(b.q_d)) and np.array_equal(bits(a.q_dprime), bits(b.q_dprime))


@pytest.mark.parametrize("shape", [(1, 1), (7, 1), (5000, 1), (300, 2), (2000, 30), (50, 100)])
def test_pairs_from_clipped_rows_are_the_pairs_from_the_rows(shape):
    rng = np.random.default_rng(shape[0] * 131 + shape[1])
    rows = rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, size=(shape[0], 1)) / np.sqrt(shape[1])
    for clip in (0.5, 1.0, 37.0):
        mechanism = g.GaussianMechanism(gq.Query("sum", clip), 2.0)
        mean = gm.GaussianMeanMechanism(clip, 2.0, 3.0)
        clipped = mechanism.query.clipped(rows)
        outside = rng.standard_normal(shape[1]) * 3
        for target, relation in ((outside, "add"), (rows[len(rows) // 2], "remove"), (rows[0], "add")):
            assert same_pair(mechanism.pair(rows, target, relation, clipped), mechanism.pair(rows, target, relation))
            joint, plain = mean.pair(rows, target, relation, clipped), mean.pair(rows, target, relation)
            assert same_pair(joint.sum_pair, plain.sum_pair) and same_pair(joint.count_pair, plain.count_pair)
        assert np.array_equal(
            bits(mechanism.per_instance_sensitivities(rows, clipped)), bits(mechanism.per_instance_sensitivities(rows))
        )
        assert np.array_equal(
            bits(mean.per_instance_sensitivities(rows, clipped)), bits(mean.per_instance_sensitivities(rows))
        )


def test_removing_a_row_that_is_not_in_the_data_is_refused_either_way():
    rows = np.ones((3, 2))
    mechanism = g.GaussianMechanism(gq.Query("sum", 1.0), 2.0)
    for clipped in (None, mechanism.query.clipped(rows)):
        with pytest.raises(InputError, match="row of the dataset"):
            mechanism.pair(rows, np.zeros(2), "remove", clipped)


def test_the_comparison_sees_a_row_left_out():
    rows = np.random.default_rng(3).standard_normal((100, 3))
    mechanism = g.GaussianMechanism(gq.Query("sum", 1.0), 2.0)
    wrong = mechanism.query.clipped(rows[1:])
    assert not same_pair(mechanism.pair(rows[1:], rows[5], "add", wrong), mechanism.pair(rows, rows[5], "add"))
