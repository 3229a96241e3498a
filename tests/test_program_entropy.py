"""Every entropy source a program can reach is recorded, made constant or noted: none certifies (issue 83, item 2).

A sum of five records clipped to [0, 1] plus Laplace noise of scale 1 from ``rng`` is (1, 0)-DP and certified at
``--law ideal``.  Each program below adds to it a coin drawn from a source the audit does not record -- the coin
never comes up (a byte shifted right by 8 is 0), as a rare coin does not on the runs an audit makes -- or publishes
a value that is constant within one process and not between two (the clock read once, the order of a set of
strings, an object's address).  Every one of them was certified on main (7c9814f: exit 0, seen with main's venv on
a copy of this file); each must now leave the claim undecided, naming the source and the program's line (the
operating system's entropy, :mod:`pdp_audit.audits.program.entropy`), or naming the numbers that differ when D's
record is replayed in a fresh process (:mod:`pdp_audit.audits.program.fresh_process`).  The programs are functions
of this module, sent to the fresh process by name (imported anew there, as a CLI program is).  No test here is
statistical.
"""

from __future__ import annotations

import os
import pathlib
import posix
import ssl
import tempfile
import time
import uuid

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import audit_hooks, trace
from pdp_audit.cli import main as cli

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

DATA = np.array([0.1, 0.5, 0.9, 0.3, 0.7])


def _sum(data):
    values = np.nan_to_num(np.asarray(data, dtype=float).ravel(), nan=0.0, posinf=1.0, neginf=0.0)
    return np.clip(values, 0.0, 1.0).sum()


def noisy_sum(data, rng):
    return _sum(data) + rng.laplace(0.0, 1.0)


# --- the operating system's entropy, drawn on every run: the coin is always 0 -----------------------------------
def by_getrandom(data, rng):
    return noisy_sum(data, rng) + (os.getrandom(1)[0] >> 8)


def by_open(data, rng):
    with open("/dev/urandom", "rb", buffering=0) as device:
        return noisy_sum(data, rng) + (device.read(1)[0] >> 8)


def by_folder_descriptor(data, rng):
    folder = os.open("/dev", os.O_RDONLY)
    try:
        device = os.open("urandom", os.O_RDONLY, dir_fd=folder)
        byte = os.read(device, 1)[0]
        os.close(device)
    finally:
        os.close(folder)
    return noisy_sum(data, rng) + (byte >> 8)


#: A symlink to /dev/random, made by the test that reads it.
LINK: list[pathlib.Path] = []


def by_symlink(data, rng):
    with LINK[0].open("rb") as device:
        return noisy_sum(data, rng) + (device.read(1)[0] >> 8)


def by_kernel_uuid(data, rng):
    with open("/proc/sys/kernel/random/uuid", encoding="ascii") as kernel:
        coin = kernel.read().startswith("z")
    return noisy_sum(data, rng) + coin


def by_uuid4(data, rng):
    return noisy_sum(data, rng) + (uuid.uuid4().int >> 128)


def by_ssl(data, rng):
    return noisy_sum(data, rng) + (ssl.RAND_bytes(1)[0] >> 8)


def by_temporary_name(data, rng):
    with tempfile.NamedTemporaryFile() as made:
        coin = len(os.path.basename(made.name)) > 99
    return noisy_sum(data, rng) + coin


#: A descriptor of /dev/urandom opened before the audit (as at a program's import), by the test that reads it.
HELD: list = []


def by_held_descriptor(data, rng):
    return noisy_sum(data, rng) + (HELD[0].read(1)[0] >> 8)


def on_a_neighbour_only(data, rng):
    """Draws the operating system's entropy on a neighbour with a record added, never on D."""
    coin = os.getrandom(1)[0] >> 8 if len(data) > len(DATA) else 0
    return noisy_sum(data, rng) + coin


# --- the interpreter's own: constant within a process, not between two ------------------------------------------
_FIRST_TIME: list[float] = []


def by_clock_read_once(data, rng):
    if not _FIRST_TIME:
        _FIRST_TIME.append(time.time())
    return np.array([noisy_sum(data, rng), _FIRST_TIME[0]])


_NAMES = tuple(f"record-{i}" for i in range(20))


def by_set_order(data, rng):
    return np.array([noisy_sum(data, rng), *(_NAMES.index(name) for name in set(_NAMES))], dtype=float)


_ANCHOR = object()


def by_address(data, rng):
    return np.array([noisy_sum(data, rng), float(id(_ANCHOR))])


def _audit(program):
    return pdp_audit.audit_program(
        program, DATA, 1.0, 0.0, bounds=(0, 1), law="ideal", trials=200, draw_sets=1, candidates=0
    )


def _record(run):
    return next(c for c in run.checks if c.id == "program-record")


def test_a_correct_program_is_still_certified_after_a_fresh_process_replays_it():
    run = _audit(noisy_sum)
    assert run.verdict == "pass"
    assert "and in a fresh process" in _record(run).note


@pytest.mark.tier2(representatives=("by_getrandom-", "by_open-"))
@pytest.mark.parametrize(
    "program, named",
    [
        (by_getrandom, "os.getrandom"),
        (by_open, "open of /dev/urandom"),
        (by_folder_descriptor, "open of /dev/urandom"),
        (by_symlink, "open of /dev/random"),
        (by_kernel_uuid, "open of /proc/sys/kernel/random/uuid"),
        (by_uuid4, "uuid.uuid4"),
        (by_ssl, "ssl.RAND_bytes"),
        (by_temporary_name, "tempfile.mkstemp (a random name)"),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_the_operating_systems_entropy_is_noted_where_the_program_draws_it(tmp_path, program, named):
    if program is by_symlink:
        LINK[:] = [tmp_path / "coin"]
        LINK[0].symlink_to("/dev/random")
    run = _audit(program)
    record = _record(run)
    assert run.verdict != "pass" and record.verdict == "inconclusive"
    assert f"{named} at test_program_entropy.py:" in record.note, record.note
    assert "cannot replay" in record.note


def test_a_descriptor_opened_before_the_audit_is_noted():
    HELD[:] = [open("/dev/urandom", "rb", buffering=0)]
    try:
        run = _audit(by_held_descriptor)
    finally:
        HELD.pop().close()
    assert run.verdict != "pass"
    assert "/dev/urandom held open" in _record(run).note


def test_entropy_drawn_on_a_neighbour_alone_is_noted():
    run = _audit(on_a_neighbour_only)
    assert run.verdict != "pass"
    assert "os.getrandom at test_program_entropy.py:" in _record(run).note


@pytest.mark.tier2(representatives=("by_set_order",))
@pytest.mark.parametrize("program", [by_clock_read_once, by_set_order, by_address], ids=lambda p: p.__name__)
def test_a_release_that_a_fresh_process_changes_is_not_certified(program):
    run = _audit(program)
    record = _record(run)
    assert run.verdict != "pass" and record.verdict == "inconclusive"
    assert "randomness the audit does not record: D's record replayed in a fresh process" in record.note
    assert "numbers differ (number " in record.note  # the noise's coordinate 0 is the same: a later one differs
    assert "(number 0:" not in record.note


SET_ORDER = """
import numpy as np

NAMES = tuple(f"record-{i}" for i in range(20))

def by_set_order(data, rng):
    x = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return np.array([x.sum() + rng.laplace(0.0, 1.0), *(NAMES.index(n) for n in set(NAMES))], dtype=float)
"""


def test_the_command_fixes_the_audits_hash_seed_and_varies_the_fresh_processes(tmp_path, monkeypatch):
    """``pdp-audit program`` audits with ``PYTHONHASHSEED`` 0 and replays in a fresh process with 1: the set order
    of twenty strings differs between the two, deterministically (exit 3, not 0)."""
    (tmp_path / "ordered.py").write_text(SET_ORDER, encoding="utf-8")
    (tmp_path / "people.csv").write_text("value\n0.1\n0.5\n0.9\n0.3\n0.7\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    args = ["program", "ordered:by_set_order", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    extra = ["--bounds", "0,1", "--law", "ideal", "--trials", "200", "--draw-sets", "1", "--candidates", "0"]
    assert cli.main([*args, *extra, "--report", "none", "--json", "out.json"]) == 3
    assert "D's record replayed in a fresh process" in (tmp_path / "out.json").read_text(encoding="utf-8")


def test_a_seed_sequence_made_without_entropy_is_the_same_on_a_record_and_its_replay():
    """``SeedSequence()``'s entropy comes from the run's draw set (the same on D and every D′, another in another
    draw set), not from the operating system (on main: another on each run, the record never reproduced)."""

    def minted(data, rng):
        return float(np.random.SeedSequence().entropy % 2**52)

    with trace.Session(minted) as session:
        first = trace.record(session, DATA)
        again = trace.replay(session, DATA, first.calls)
        session.draws(7)
        other = trace.record(session, DATA)
    assert first.numbers.tolist() == again.numbers.tolist() != other.numbers.tolist()


def test_nothing_installed_outlives_the_audit():
    """The replaced names are given back, and the audit hook, which stays in the process, calls no handler."""
    before = (os.getrandom, os.urandom, os.open, posix.open, uuid.uuid4, ssl.RAND_bytes, tempfile.mktemp)
    assert _audit(by_getrandom).verdict != "pass"
    after = (os.getrandom, os.urandom, os.open, posix.open, uuid.uuid4, ssl.RAND_bytes, tempfile.mktemp)
    assert all(a is b for a, b in zip(before, after))
    assert not audit_hooks._HANDLERS  # every block closed: each event a look-up that finds nothing


def test_the_audit_hook_calls_its_handlers_only_inside_their_block(tmp_path):
    seen: list[tuple] = []
    path = tmp_path / "watched.txt"
    path.write_text("x", encoding="utf-8")
    with audit_hooks.watching({"open": seen.append}) as armed:
        path.read_text(encoding="utf-8")
        with audit_hooks.watching({"open": seen.append}):
            path.read_text(encoding="utf-8")
    path.read_text(encoding="utf-8")
    assert armed
    assert [str(args[0]) for args in seen] == [str(path)] * 3  # once in the outer block, twice in the inner
