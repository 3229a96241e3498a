"""The commands' work run in the test's own process rather than in the sandbox's fresh Python, for tests whose
subject is not the process boundary.

A command that runs the user's code (``blackbox``, ``certify``, ``program``, a sweep's user cells) does it in a child
Python (:func:`pdp_audit.verify.core.sandbox.run_isolated`) whose imports cost 0.4 CPU s for a command refused early
and 2-3 CPU s for one that audits (tests/test_blackbox_event_witness.py's two commands: 8.5 CPU s in the child, 3.4
here; a ``program`` command refused at its ``--bounds``: 1.6 CPU s in the child, before its audit starts).
The boundary has tests of its own (tests/test_sandbox.py, test_hostile_pass5.py, test_program_boundary.py), and
test_sandbox's test_a_well_behaved_target_gives_the_bytes_it_gave_in_process shows that a command gives the same
bytes either way.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

#: The mark that runs a test's commands here (``commands_in_process(False)``: not this test), read by tests/conftest.py
MARK = "commands_in_process"

#: The modules whose commands run the user's code through :func:`pdp_audit.verify.core.sandbox.run_isolated`
SANDBOXED_COMMANDS = (
    "pdp_audit.use_cases",
    "pdp_audit.certify_files",
    "pdp_audit.sweeps.audits",
    "pdp_audit.blackbox_search_files",
)

#: Where a module that is not the user's lives: this Python's, its libraries', the checkout's
NOT_THE_USERS = tuple(
    {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(__file__).resolve().parents[1]}
)


def commands_here(patch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Run the commands' work in this process while ``patch`` holds.  ``program`` passes an environment (the hash
    seed the audit's process starts with is part of what the audit replays): its work runs here only where this
    process started with that environment (:func:`started_with`; the xdist workers do, tests/conftest.py), else in
    its child.  ``sys.path`` (a program's audit puts the current folder first) and standard output's descriptor (made
    standard error's under ``--json -``) are given back after each command.  Returns what forgets the user's modules
    imported since (call it when done), as the child forgot them with its end: a later test's module of the same name
    is read afresh."""
    from pdp_audit.verify.core import sandbox

    def here(function, *args, target, environment=None):
        if environment is not None and not started_with(environment):
            return sandbox.run_isolated(function, *args, target=target, environment=environment)
        with _path_and_output_kept():
            return function(*args)

    for name in SANDBOXED_COMMANDS:
        patch.setattr(importlib.import_module(name), "run_isolated", here)
    before = set(sys.modules)

    def forget() -> None:
        for name in set(sys.modules) - before:
            if _users(getattr(sys.modules[name], "__file__", None)):
                del sys.modules[name]

    return forget


def started_with(environment: Mapping[str, str]) -> bool:
    """Whether this process started with ``environment``: only a hash seed of 0 is known so
    (``sys.flags.hash_randomization`` is 0 exactly where ``PYTHONHASHSEED`` was 0 at the start; another seed leaves no
    trace but the hashes themselves)."""
    return dict(environment) == {"PYTHONHASHSEED": "0"} and sys.flags.hash_randomization == 0


@contextlib.contextmanager
def _path_and_output_kept() -> Iterator[None]:
    """``sys.path`` and the descriptor of standard output as they were, once the block is done."""
    path = list(sys.path)
    try:
        saved = os.dup(1)
    except OSError:  # no standard output: nothing to give back
        saved = None
    try:
        yield
    finally:
        sys.path[:] = path
        if saved is not None:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _users(path: str | None) -> bool:
    """Whether a module's file is the user's: none of :data:`NOT_THE_USERS` holds it."""
    if path is None:
        return False
    resolved = Path(path).resolve()
    return not any(resolved.is_relative_to(root) for root in NOT_THE_USERS)
