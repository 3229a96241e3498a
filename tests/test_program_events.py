"""The record of a run: an immutable tuple of frozen, typed events (audits/program/events.py, issue 84)."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from pdp_audit.audits.program import fresh_process, trace


def test_a_record_is_a_tuple_of_frozen_events_each_of_its_kind():
    def program(data, rng):
        return float(data.sum()) + rng.laplace(0.0, 1.0), int(rng.choice(3))

    recorded = trace.record(program, np.arange(3.0))
    assert isinstance(recorded.calls, tuple)
    assert [type(c).__name__ for c in recorded.calls] == ["Located", "Choice"]
    assert recorded.calls[0].line.startswith("test_program_events.py:")  # made whole, with the program's line
    with pytest.raises(dataclasses.FrozenInstanceError):
        recorded.calls[0].noise = np.asarray(0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        recorded.numbers = np.zeros(2)


def test_what_cannot_be_sent_to_a_fresh_process_is_dropped_from_its_event_and_the_rest_kept():
    from pdp_audit.audits.program.events import Compiled, Located

    measured = Compiled("opendp.Measurement", {}, (), 1.0, input=[1.0, 2.0], measurement=lambda d: d, output=3.0)
    sent = fresh_process._sendable(measured, pickle.dumps)  # a lambda: not picklable by pickle
    assert sent.measurement is None and sent.input == [1.0, 2.0] and sent.output == 3.0 and sent.noise == 1.0
    assert measured.measurement is not None  # the recorded event itself unchanged
    drawn = Located("laplace", {"scale": np.ones(())}, (), np.zeros(()))
    assert fresh_process._sendable(drawn, pickle.dumps) is drawn
