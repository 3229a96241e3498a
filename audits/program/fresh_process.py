"""The catch-all: D's record replayed in a fresh process must give D's release, bit for bit.

The audit certifies a release as a function of the data and of the draws it records.  Randomness it does not record
and that no interception sees (:mod:`.entropy` notes the operating system's) is constant within one process, or
changes between the record and its replays: the second shows as a replay on D that differs from its record
(``program-record``), the first does not: the interpreter's **hash seed**, **object addresses** (``id()``, default
``hash()`` and ``repr``), a value the program draws or reads **once** (at its import), the **clock**, the **process
id** and **thread scheduling**.  So the record of D (the first draw set's) is replayed once in a fresh Python process
(:func:`~pdp_audit.verify.core.sandbox.run_isolated`: another process id, other addresses, a later time, the
program's module imported anew) with another hash seed (:func:`other_hash_seed`), and its release is compared with
the record's by their encodings (:mod:`~pdp_audit.verify.inputs.release_codec`: bit for bit).  Where they differ,
the claim is not certified, and the note says which numbers or which part of the structure differed.

Sound for: a release that depends on such a source in a way two processes show -- a changed release on most pairs
of processes.  Not for a rare coin (one process in a million): only its interception where it is drawn sees that
(:mod:`.entropy`), and the interpreter's own sources have none; nor for a program sent by value (a closure, a
function of ``__main__``: its module's values travel as they are in the audit's process, :func:`_packed`).  It runs
once an audit, and only where every exact check would otherwise pass: it can take a certificate away, never give one
or refute; where the record cannot be replayed there (the program cannot be sent to another process; it raises or
diverges there), the claim is not certified either.

**The hash seed.**  The audit's own process runs with a fixed ``PYTHONHASHSEED`` (:func:`audit_environment`: the
user's where it is a number, else 0), and the fresh process with another: the source is constant where the audit
reads the release (so a program's set order cannot make two audits of one ``--seed`` differ) and varied exactly
once, where it is compared.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import pickle
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from pdp_audit.audits.program import trace
from pdp_audit.audits.program.events import Event
from pdp_audit.verify.core.sandbox import run_isolated, user_state
from pdp_audit.verify.inputs import release_codec
from pdp_audit.verify.inputs.validation import InputError

#: What a release that differs in the fresh process depends on.
NOT_RECORDED_HERE = "randomness the audit does not record"
#: The largest hash seed Python takes (``PYTHONHASHSEED``: 0 to 2³² − 1).
_LARGEST_SEED = 2**32 - 1


@dataclass(frozen=True)
class Elsewhere:
    """D's record replayed in a fresh process: ``same``, its release is bit for bit the record's; ``line``, what
    differed, or why it was not replayed there (one line; "" where the same)."""

    same: bool
    line: str = ""


def _hash_seed(value: str | None) -> int | None:
    """``PYTHONHASHSEED``'s value as a seed, or None where it is not one (unset, ``random``)."""
    if value is None or not value.strip().isdecimal():
        return None
    seed = int(value)
    return seed if seed <= _LARGEST_SEED else None


def audit_environment() -> dict[str, str]:
    """The environment the audit's process is started with: its hash seed fixed (module notes)."""
    seed = _hash_seed(os.environ.get("PYTHONHASHSEED"))
    return {"PYTHONHASHSEED": str(0 if seed is None else seed)}


def other_hash_seed() -> str:
    """A hash seed other than this process's: the next one where this process's is fixed, else 1 (a random seed is
    Python's own 128 bits, none of the seeds a number names but by chance)."""
    seed = _hash_seed(os.environ.get("PYTHONHASHSEED"))
    return str(1 if seed is None else (seed + 1) % (_LARGEST_SEED + 1))


def replayed_elsewhere(program: Callable, data: Any, recorded: trace.Run) -> Elsewhere:
    """``recorded`` (D's record) replayed on ``data`` in a fresh process and its release compared with the record's
    (module notes)."""
    payload = _packed(program, data, recorded.calls)
    if isinstance(payload, str):
        return Elsewhere(False, f"D's record was not replayed in a fresh process: {payload}")
    try:
        outcome = run_isolated(
            replay_here,
            _module_root(program),
            payload,
            target="the program, replayed in a fresh process,",
            environment={"PYTHONHASHSEED": other_hash_seed()},
        )
    except InputError as err:  # it ended that process (a hard exit, a signal): not replayed there
        return Elsewhere(False, f"D's record was not replayed in a fresh process: {err}"[:300])
    return compared(recorded, outcome)


def _packed(program: Callable, data: Any, calls: Sequence[Event]) -> bytes | str:
    """The program, D and its recorded calls as bytes for the fresh process, or why they cannot be: cloudpickle sends
    a closure or a function of ``__main__`` by value, with its module's values as they are here, and a module's
    function by its name, imported anew there."""
    import cloudpickle  # deferred: the audit's import stays light

    try:
        return cloudpickle.dumps((program, data, [_sendable(call, cloudpickle.dumps) for call in calls]))
    except Exception as err:  # what the user's objects raise when pickled: any exception
        return (
            f"the program or its record cannot be sent to another process ({type(err).__name__}: {err}"[:200]
            + "); give a function defined at a module's top level"
        )


#: The fields of a library's event that hold the library's own objects (:class:`~.events.LibraryCall`'s).
_LIBRARY_NOTES = ("input", "output", "measurement", "selecting", "noise_law")


def _sendable(call: Event, dumps: Callable[[Any], bytes]) -> Event:
    """``call`` without the library's objects it notes that cannot be pickled (an OpenDP measurement: ctypes
    pointers), which the audit reads here (the measurement's privacy map), never the replay: a replay that needed
    one would raise there, and the fresh process's answer would be undecided, never a certificate."""
    dropped: dict[str, Any] = {}
    for name in (f.name for f in dataclasses.fields(call) if f.name in _LIBRARY_NOTES):
        try:
            dumps(getattr(call, name))
        except Exception:  # noqa: BLE001 - what a library's object raises when pickled: any exception
            dropped[name] = None
    return dataclasses.replace(call, **dropped) if dropped else call


def _module_root(program: Callable) -> str | None:
    """The folder from which the program's module is imported (its file's folder, above its package's), which this
    process's ``sys.path`` may no longer hold (a module imported with a folder put on the path for its import
    alone), or None where it has no file."""
    name = str(getattr(program, "__module__", "") or "")
    module = sys.modules.get(name)
    where = getattr(module, "__file__", None)
    if not name or name == "__main__" or not isinstance(where, str):
        return None
    levels = name.count(".") + (1 if os.path.basename(where).startswith("__init__.") else 0)
    return str(Path(where).resolve().parents[levels])


def _at_home(program: Any) -> Any:
    """A function sent by value (a closure, a lambda) made again in the namespace of its module, imported anew here,
    as a function sent by its name is (its module's names bound to a randomness source are then rebound for the
    replay, :mod:`.bound_names`); where its module cannot be imported here, the function as sent."""
    name = getattr(program, "__module__", None)
    if not isinstance(program, types.FunctionType) or not isinstance(name, str) or name == "__main__":
        return program
    try:
        module = importlib.import_module(name)
    except Exception:  # the user's module failing at import: the function as sent
        return program
    if program.__globals__ is module.__dict__:
        return program
    code, cells = program.__code__, program.__closure__
    made = types.FunctionType(code, module.__dict__, program.__name__, program.__defaults__, cells)
    made.__kwdefaults__, made.__qualname__ = program.__kwdefaults__, program.__qualname__
    made.__dict__.update(program.__dict__)
    return made


def replay_here(root: str | None, payload: bytes) -> tuple:
    """In the fresh process: the program replayed on D with D's recorded calls (``root``: the folder its module is
    imported from, put last on ``sys.path``); ``("release", structure, numbers)``, or ``(what happened, one line)``
    where it could not be read, raised or diverged."""
    if root is not None and root not in sys.path:
        sys.path.append(root)
    try:
        with user_state(modules=False):  # its module imported anew: a copy it forks there ends as it leaves the import
            program, data, calls = pickle.loads(payload)
    except Exception as err:  # a module or an object that cannot be made again here
        return ("unread", f"the program cannot be loaded there ({type(err).__name__}: {err})"[:300])
    program = _at_home(program)
    try:
        again = trace.replay(program, data, calls)
    except trace.Divergence as divergence:
        return ("diverged", f"it made other calls there ({divergence})"[:300])
    except (trace.ProgramFault, InputError) as err:  # the program's fault there, or a release it cannot encode
        return ("raised", f"it failed there ({err})"[:300])
    return ("release", again.structure, again.numbers)


def compared(recorded: trace.Run, outcome: tuple) -> Elsewhere:
    """The fresh process's ``outcome`` (:func:`replay_here`) against D's record."""
    if outcome[0] != "release":
        return Elsewhere(False, f"D's record was not replayed in a fresh process: {outcome[1]}")
    structure, numbers = outcome[1], outcome[2]
    lead = (
        f"{NOT_RECORDED_HERE}: D's record replayed in a fresh process (another hash seed, other object addresses, "
        "another time and process id) gave another release"
    )
    if structure != recorded.structure:
        return Elsewhere(False, f"{lead} -- its structure differs ({_first_part(recorded.structure, structure)})")
    if release_codec.same_bits(recorded.numbers, numbers):
        return Elsewhere(True)
    where = np.flatnonzero(release_codec.differ(recorded.numbers, numbers))
    i = int(where[0])
    return Elsewhere(
        False,
        f"{lead} -- {where.size} of its {recorded.numbers.size} numbers differ (number {i}: "
        f"{float(recorded.numbers[i])!r} here, {float(numbers[i])!r} there)",
    )


def _first_part(here: tuple, there: tuple) -> str:
    """The first part of two release structures that differs, as one short line."""
    for k, (a, b) in enumerate(zip(here, there)):
        if a != b:
            return f"part {k}: {_short(a)} here, {_short(b)} there"
    return f"{len(here)} parts here, {len(there)} there"


def _short(part: Any) -> str:
    text = repr(part)
    return text if len(text) <= 80 else text[:77] + "..."
