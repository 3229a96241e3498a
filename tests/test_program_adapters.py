"""The libraries as adapters (:mod:`pdp_audit.audits.program.adapters`): one interface, and the additive replay the
libraries share written once (:func:`~pdp_audit.audits.program.adapters.base.replayed_sum`).

A replay of an additive library call (diffprivlib's ``Laplace``, an OpenDP measurement, PyDP's ``add_noise``) returns
the recorded output itself, bit for bit and in its type, where the value given is the recorded one, and the value
plus the recorded noise, in the recorded output's kind, where it moved.  Exact checks, no chance.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from pdp_audit.audits.program import adapters
from pdp_audit.audits.program.adapters.base import additive, replayed_sum
from pdp_audit.audits.program.events import Mechanism
from pdp_audit.audits.program.recorder import Tape


def _replayed(value, recorded_value, output):
    """The replay of one additive call recorded on ``recorded_value`` with ``output``, given ``value``."""
    noise = float(output) - float(recorded_value)
    call = Mechanism("pydp.LaplaceMechanism.add_noise", {}, (), None, input=recorded_value, output=output)
    made = dataclasses.replace(call, **additive(noise, output))
    tape = Tape([made])
    recorded = tape.next_call(call)
    return replayed_sum(tape, recorded, value, recorded.input)


def test_an_unmoved_value_gives_the_recorded_output_itself():
    output = np.float64(0.1) + np.float64(0.7)
    assert _replayed(0.1, 0.1, output) is output  # the recorded object (its type, its bits), not a sum


def test_a_moved_value_gives_value_plus_the_recorded_noise_in_the_outputs_kind():
    assert _replayed(2.0, 1.0, 1.5) == 2.5
    moved = _replayed(2.0, 1.0, np.float32(1.5))
    assert type(moved) is np.float32 and moved == np.float32(2.5)
    assert _replayed(3, 1, 4) == 6 and type(_replayed(3, 1, 4)) is int  # a count moved by whole units


def test_every_library_has_one_adapter_and_only_libraries_give_steps():
    packages = [a.package for a in adapters.ADAPTERS]
    assert len(packages) == len(set(packages)) == 7
    assert adapters.LIBRARIES == {"diffprivlib", "opendp", "pydp"}
    for adapter in adapters.ADAPTERS:
        if adapter.draws:  # composed by the law of the generator's draws, never as calls
            assert adapter.upper_step(0, Mechanism("x.y", {}, (), None), Mechanism("x.y", {}, (), None)) == (None, None)
