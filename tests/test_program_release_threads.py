"""The black box's releases of a program, and the screening's, drawn with BLAS on one thread
(:class:`~pdp_audit.audits.program.release_sampler.ReleaseSampler`, :mod:`pdp_audit.audits.program.screening`), as a
worker of the black box's pool draws them: a program of many small BLAS calls (diffprivlib's ``LogisticRegression``:
L-BFGS-B's small factorisations) ran about 10x slower with BLAS's threads waiting on each other on 2 busy cores.
Seen failing on main (c96a185): the program read 2 BLAS threads in both.
"""

from __future__ import annotations

import numpy as np
import pytest

from pdp_audit.audits.program import screening
from pdp_audit.audits.program.release_sampler import HEAD, ReleaseSampler
from pdp_audit.verify.inputs import release_codec

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads() -> int:
    """The most threads a BLAS loaded in this process may use now."""
    return max(info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas")


def blas_threads(data, rng):
    """Releases the BLAS thread count it runs with, beside a noisy sum."""
    return [float(_blas_threads()), float(np.clip(data, 0.0, 1.0).sum() + rng.laplace(0.0, 1.0))]


def test_releases_are_drawn_with_one_blas_thread_and_the_limit_is_lifted_after():
    data = np.array([0.1, 0.5, 0.9])
    sampler = ReleaseSampler(blas_threads, data, HEAD + 2)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        releases = sampler(3, np.random.default_rng(1))
        after = _blas_threads()
    assert releases[:, HEAD].tolist() == [1.0, 1.0, 1.0]
    assert after == 2


def test_the_screening_draws_with_one_blas_thread():
    data = np.array([0.1, 0.5, 0.9])
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        counts = screening._outcomes(blas_threads, data, 3, np.random.default_rng(1))
        after = _blas_threads()
    assert counts is not None
    assert {release_codec.numbers_of(key)[0] for key in counts} == {1.0}
    assert after == 2
