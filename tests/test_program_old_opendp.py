"""A pipeline pinned to an OpenDP before 0.7 is recorded, not a crash (exit 4).

OpenDP 0.5 and before keep their constructors in ``opendp.meas`` and their combinators in ``opendp.comb`` (0.6
renamed them ``opendp.measurements`` and ``opendp.combinators``), and their measurements carry no ``input_metric``
or ``output_measure`` before 0.7 (only distance types).  OpenDP 0.4.0 installed from PyPI has that layout; its
``make_randomized_response_bool`` answers with ε = ln 13 where it claims ln 3 (fixed in 0.5.0, OpenDP's changelog).
The layout is reproduced here by small stand-in modules (the test environment has a current OpenDP, or none), so
the recorder is exercised on it without installing an old release: exact checks, no chance.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from pdp_audit.audits.program.recorder import Tape
from pdp_audit.audits.program.sources import sources_recorded


def libraries_wrapped(tape: Tape):
    """The session's adapters installed, recording (or replaying) into ``tape`` (no run under way)."""
    return sources_recorded(lambda: tape, np.random.default_rng)


class Measurement:
    """OpenDP 0.4's ``opendp.mod.Measurement`` as the recorder sees it: ``__call__``, ``invoke`` and ``check``."""

    def __init__(self, function):
        self.function = function

    def __call__(self, arg):
        return self.function(arg)

    def invoke(self, arg):
        return self(arg)

    def check(self, d_in, d_out):
        return True


@pytest.fixture
def opendp_0_4(monkeypatch):
    """The modules ``opendp``, ``opendp.mod``, ``opendp.meas`` and ``opendp.comb`` of OpenDP 0.4, and no others."""
    package = types.ModuleType("opendp")
    package.__path__ = []  # a package whose submodules are only those set here
    mod, meas, comb = (types.ModuleType(f"opendp.{name}") for name in ("mod", "meas", "comb"))
    mod.Measurement = Measurement
    comb.make_chain_mt = lambda measurement, transformation: Measurement(lambda x: measurement(transformation(x)))
    for name, module in (("mod", mod), ("meas", meas), ("comb", comb)):
        setattr(package, name, module)
        monkeypatch.setitem(sys.modules, f"opendp.{name}", module)
    monkeypatch.setitem(sys.modules, "opendp", package)
    for name in ("measurements", "combinators"):
        monkeypatch.delitem(sys.modules, f"opendp.{name}", raising=False)
    return mod


def test_a_measurement_of_opendp_0_4_is_recorded(opendp_0_4):
    answer = opendp_0_4.Measurement(lambda x: not x)  # a stand-in for an answer flipped by randomized response
    tape = Tape()
    with libraries_wrapped(tape):
        recorded = answer(True)
    (call,) = tape.recorded
    assert (recorded, call.name) == (False, "opendp.Measurement")
    assert call.parameters["input_metric"] == call.parameters["output_measure"] == "unknown"
    assert opendp_0_4.Measurement.__call__ is Measurement.__call__  # given back on leaving
