"""A diffprivlib mechanism whose input moved past its declared sensitivity is unaccounted, and the pair where it moved
furthest past it is the one the black box confirms first.

diffprivlib 0.6.6's ``LinearRegression`` declares sensitivity 0 for the coefficient of w_i² when a feature's lower
bound is 0 (diffprivlib issue #105), so that coefficient, Σ x_i², is released without noise: a record moved from 0.1
to 0 moves it by 0.01 and leaves the release's law almost unchanged, one moved to 1 moves it by about 1 and changes
the scale of the slope's noise many times.  Both pairs are unaccounted by composition; the witness of highest rank
must be the second.  Exact checks, no chance.
"""

from __future__ import annotations

import numpy as np

from pdp_audit.audits.program.adapters.diffprivlib_mechanisms import declared_step
from pdp_audit.audits.program.events import Mechanism
from pdp_audit.audits.program.findings import rank


def _call(value: float, sensitivity: float = 0.0) -> Mechanism:
    declared = {"epsilon": 1 / 3, "delta": 0.0, "sensitivity": sensitivity}
    return Mechanism("diffprivlib.LaplaceFolded", {}, (), None, input=np.float64(value), declared=declared)


def test_the_pair_whose_input_moved_furthest_past_its_sensitivity_ranks_first():
    on_d = _call(0.1)
    (_, near), (_, far) = declared_step(2, on_d, _call(0.09)), declared_step(2, on_d, _call(1.09))
    assert near is not None and far is not None  # both unaccounted: moved past a declared sensitivity of 0
    assert rank([far]) > rank([near])
