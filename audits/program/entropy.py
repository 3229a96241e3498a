"""The operating system's entropy, in every form Python offers it, noted where a run of the program draws it.

A draw the audit does not record cannot be replayed: on D′ it is drawn afresh, independently of D's.  A rare coin
drawn so (``os.getrandom(8)`` below a threshold, once in a million runs) comes up on no run compared, so the only
sound place to see it is where it is drawn.  Each form below is intercepted there, during a run of the program
(:attr:`~.sources.Sources.active`), and noted on the run's tape as randomness the audit cannot replay
(:data:`~.recorder.UNREPLAYABLE`: the claim undecided, never certified), with the program's line
(:func:`~.recorder.program_line`).  Inside a recorded library primitive (``tape.depth``) nothing is noted: its own
draws are its law's, recorded with it.

* **Named functions**, which raise no audit event: ``os.urandom``, ``os.getrandom`` (and ``posix``'s),
  ``uuid.uuid4`` and ``uuid.uuid1``, ``ssl.RAND_bytes``, ``tempfile.mktemp`` -- each public name replaced in its
  module for the session (a name the program bound at its import is rebound too, :mod:`.bound_names`), called as it
  is, and noted.  Inside one of them, another is not noted again (``uuid4``'s own ``os.urandom``).
* **``random.SystemRandom`` and ``secrets``**: their draws come from the run's generator (:func:`seeded_system`: the
  same law), so that a library built on them (diffprivlib's ``random_state=None``) draws the same noise on every run
  of one seed; where the program draws them itself they are noted.
* **The random devices, however they are opened** (:func:`events`): the ``open`` audit event, raised by
  ``builtins.open``, ``io.open``, ``pathlib``, ``os.open`` and ``open(fd)``, is read while a run is under way; the
  path (or descriptor) is ``stat``-ed and compared by *what it is*, not by its name: a character device whose
  device number is ``/dev/urandom``'s or ``/dev/random``'s, or a file of ``/proc/sys/kernel/random/``.  ``os.open``
  relative to a folder's descriptor (``dir_fd``) is replaced too, and the descriptor it returns is ``fstat``-ed.  A
  descriptor of a random device already open when a recording run begins is noted as well (:func:`run_started`).
* **tempfile's random names**: the ``tempfile.mkstemp`` and ``tempfile.mkdtemp`` events; ``mktemp`` by its name.

Soundness: a run that noted none of them drew no entropy of the operating system through Python's own functions.
Not seen (the fresh process's replay, :mod:`.fresh_process`, catches what changes the release on most runs, not a
rare coin): entropy drawn in compiled code, a descriptor held open outside ``/proc/self/fd``'s view, a process the
program starts, one of these functions taken before the session and held where :mod:`.bound_names` does not look (a
default argument, a closure), a generator class reached past its stand-in, and the interpreter's own state (the hash
seed, object addresses, the clock, the process id, thread scheduling), which the fresh process varies.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.adapters.base import Replace, Sources
from pdp_audit.audits.program.recorder import UNREPLAYABLE, Unrecorded

#: The random devices by device number (``st_rdev``), as this system makes them.
_DEVICES: dict[int, str] = {}
for _path in ("/dev/urandom", "/dev/random"):
    try:
        _DEVICES[os.stat(_path).st_rdev] = _path
    except OSError:  # no such device here (Windows)
        pass
#: The kernel's random files (``uuid``, ``boot_id``, ``entropy_avail``), and the file system they live on.
RANDOM_FILES = "/proc/sys/kernel/random/"
try:
    _PROC_SYS: int | None = os.stat(RANDOM_FILES).st_dev
except OSError:  # no /proc
    _PROC_SYS = None

#: Per thread, whether a noted function is running (the functions it calls are not noted again).
_INSIDE = threading.local()


def random_source(path: Any) -> str | None:
    """The random source a path or a descriptor (an int) opens -- ``/dev/urandom``, ``/dev/random`` or a file of
    :data:`RANDOM_FILES`, by what it is (module notes) -- or None."""
    try:
        found = os.fstat(path) if isinstance(path, int) else os.stat(path)
    except (OSError, TypeError, ValueError):  # not there (a file about to be made), not a path
        return None
    if stat.S_ISCHR(found.st_mode):
        return _DEVICES.get(found.st_rdev)
    if _PROC_SYS is None or found.st_dev != _PROC_SYS:
        return None
    try:
        where = os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int) else os.path.realpath(path)
    except (OSError, TypeError, ValueError):
        return None
    where = os.fsdecode(where)
    return where if where.startswith(RANDOM_FILES) else None


def _watched(sources: Sources) -> bool:
    """Whether a draw now is the program's own, in a run recorded or replayed (a tape, outside any primitive)."""
    if not sources.active:
        return False
    tape = sources.tape()
    return tape is not None and not tape.depth


def events(sources: Sources) -> dict[str, Callable[[tuple], None]]:
    """The audit-event handlers (:mod:`.audit_hooks`) that note a random device opened and a temporary name made
    during a run (module notes); each raises nothing."""

    def opened(args: tuple) -> None:
        # the device first: asking the tape in a forked copy (a pool's worker opening os.devnull) notes a draw there
        found = random_source(args[0])
        if found is not None and _watched(sources):
            sources.note(f"open of {found}", UNREPLAYABLE, undecided=True)

    def named(event: str) -> Callable[[tuple], None]:
        def made(args: tuple) -> None:
            if _watched(sources):
                sources.note(f"{event} (a random name)", UNREPLAYABLE, undecided=True)

        return made

    return {"open": opened, **{event: named(event) for event in ("tempfile.mkstemp", "tempfile.mkdtemp")}}


def run_started(sources: Sources) -> None:
    """At a recording run's start: each descriptor of a random device the process holds open (opened before the run,
    at the program's import say, and read in it unseen) noted on the run's tape, with no line; and, where the process
    refused the audit hook (:mod:`.audit_hooks`), that the random devices' opens are not seen."""
    tape = sources.tape()
    if tape is None or not tape.recording:
        return
    if sources.unwatched:
        tape.note(Unrecorded("opens of the random devices (the process refused an audit hook)", UNREPLAYABLE, "", True))
    try:
        descriptors = os.listdir("/proc/self/fd") if _DEVICES else []
    except OSError:  # no /proc (module notes)
        return
    for fd in descriptors:
        found = random_source(f"/proc/self/fd/{fd}")
        if found is not None:
            tape.note(Unrecorded(f"{found} held open (descriptor {fd}) from before the run", UNREPLAYABLE, "", True))


def noted(sources: Sources, what: str, original: Callable, seeded: Callable | None = None) -> Callable:
    """``original`` (or ``seeded``, its draws from the run's generator) noted where the program calls it in a run."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if not sources.active:
            return original(*args, **kwargs)
        if getattr(_INSIDE, "on", False):  # inside another noted function: noted there
            return (seeded or original)(*args, **kwargs)
        sources.note(what, UNREPLAYABLE, undecided=True)
        _INSIDE.on = True
        try:
            return (seeded or original)(*args, **kwargs)
        finally:
            _INSIDE.on = False

    call.__name__, call.__doc__ = getattr(original, "__name__", what), original.__doc__
    return call


def replace_names(sources: Sources, replace: Replace) -> Callable[[], bool]:
    """The names of the module notes replaced for the session, those of modules not yet imported (``uuid``,
    ``ssl``, ``tempfile``) as they are; the function that replaces them once imported (whether it did)."""
    drawing = {name: getattr(os, name) for name in ("urandom", "getrandom") if hasattr(os, name)}
    opening = os.open
    for module in (os, sys.modules.get("posix")):  # posix: the module os takes them from, reachable as well
        if module is None:
            continue
        for name, original in drawing.items():
            replace(module, name, noted(sources, f"os.{name}", original))
        replace(module, "open", _device_checked(sources, opening))
    system = sys.modules["random"].SystemRandom  # secrets' functions are methods of one: they draw through these
    seeded_draws = seeded_system(sources)
    for name, seeded in seeded_draws.items():
        what = f"secrets / random.SystemRandom.{name}"
        replace(system, name, noted(sources, what, getattr(system, name), seeded))
    # secrets.randbits is its SystemRandom's getrandbits bound at secrets' import, which the class's does not reach
    seeded_bits = seeded_draws["getrandbits"]
    secrets = sys.modules["secrets"]
    replace(secrets, "randbits", noted(sources, "secrets.randbits", secrets.randbits, lambda k: seeded_bits(None, k)))
    done: set[str] = set()

    def late() -> bool:
        return _late_names(sources, replace, done)

    late()
    return late


#: Functions of modules a program may import in its body, noted once their module is loaded.
_LATE = {"uuid": ("uuid1", "uuid4"), "ssl": ("RAND_bytes",), "tempfile": ("mktemp",)}


def _late_names(sources: Sources, replace: Replace, done: set[str]) -> bool:
    """The names of :data:`_LATE` whose module is loaded and not yet seen, replaced; whether any was."""
    found = False
    for module_name, names in _LATE.items():
        module = sys.modules.get(module_name)
        if module is None or module_name in done:
            continue
        done.add(module_name)
        for name in names:
            if hasattr(module, name):
                replace(module, name, noted(sources, f"{module_name}.{name}", getattr(module, name)))
                found = True
    return found


def _device_checked(sources: Sources, original: Callable) -> Callable:
    """``os.open`` whose descriptor, in a run, is ``fstat``-ed: a random device opened relative to a folder's
    descriptor (``dir_fd``), whose path the ``open`` event cannot resolve, is noted."""

    def open_checked(*args: Any, **kwargs: Any) -> Any:
        fd = original(*args, **kwargs)
        found = random_source(fd)  # the device first, as for the open event
        if found is not None and _watched(sources):
            sources.note(f"open of {found}", UNREPLAYABLE, undecided=True)
        return fd

    open_checked.__name__, open_checked.__doc__ = "open", original.__doc__
    return open_checked


def seeded_system(sources: Sources) -> dict[str, Callable]:
    """``random.SystemRandom``'s draws from the run's generator, the law of each the same: ``random()`` a multiple of
    2⁻⁵³ in [0, 1) (numpy's ``Generator.random``), ``getrandbits(k)`` and ``randbytes(n)`` uniform bits
    (``Generator.bytes``), by numpy's own methods: never calls on the tape (noted where the program makes them)."""
    draw = np.random.Generator

    def system_random(self: Any) -> float:
        return float(draw.random(sources.rng()))

    def getrandbits(self: Any, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        return int.from_bytes(draw.bytes(sources.rng(), size), "little") >> (8 * size - k)

    def randbytes(self: Any, n: int) -> bytes:
        return draw.bytes(sources.rng(), n)

    return {"random": system_random, "getrandbits": getrandbits, "randbytes": randbytes}
