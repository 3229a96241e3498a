"""The sandbox: every crossing from pdp-audit into a user's code goes through here.

The user's code -- the import of a ``MODULE:FACTORY``, the factory, the sampler and every method of the pair -- is
untrusted in one sense only: it may fail in any way, and a failure must be reported as the user's, never as ours
(exit 4) nor as a verdict (exit 0).  Its process is the user's own: it must end as plain Python ends it.

API
---
``run_isolated(function, *args, target=...)``
    ``function(*args)`` in a **child Python process** started for it (``sys.executable``; never a fork: a fork of a
    process whose OpenMP or BLAS threads had started copied their locks, and the suite hung in scikit-learn's
    ``_BinMapper.transform``).  ``function`` is a module-level function and ``args`` are pickled (the child imports
    what they name: the current ``sys.path`` is the child's).  Its result, or what it raised, comes back here (the
    child's traceback as :class:`ChildTraceback`, the cause).  ``target`` names the user's code in messages, e.g.
    ``"target: the code of 'mymod:make'"``.

    *How it ends.*  The child returns from ``function`` and exits as any Python program does: ``atexit`` handlers
    run, the interpreter's teardown closes the user's objects (an open log is flushed, a gzip, bz2, xz or zip file
    gets its ending, a ``NamedTemporaryFile`` is removed) -- what plain Python leaves on disk, the sandbox leaves.
    This process waits for that exit: at most :data:`EXIT_WAIT` seconds, or :data:`STRAY_WAIT` where threads of the
    user's code were still running when the result was sent (one that never ends would make plain Python wait
    forever); then the child is ended, and one line says so.

    *Faults.*  What the user's code raises is re-raised here as it came (the guards below make it the user's
    :class:`~pdp_audit.verify.inputs.validation.InputError` or ``MalformedPair``).  A child that ends without a result
    (an exit that skips Python's own, a segfault, ``kill -9`` of itself), a ``sys.exit`` reaching the child's top, or a
    KeyboardInterrupt no SIGINT caused is one :class:`InputError` naming ``target`` and how the child ended (exit 2),
    never exit 0 and never an internal error.  (On Windows the work runs in this process.)

    *Signals.*  The child leads a process group of its own, and ends when this process ends, however it ends (the
    end of a pipe only this process holds open raises SIGIO in the child, which then sends itself SIGTERM, and ends
    itself, its descendants and its group :data:`CHILD_GRACE` seconds later if it still runs).  Ctrl-C
    or SIGTERM/SIGHUP here is passed to the child's whole group, which gets :data:`CHILD_GRACE` seconds to unwind
    (its private data copies are removed) before it is killed; the processes the user's code started (its group,
    and its descendants in sessions of their own) are killed when it is done.  A copy of the child that the user's
    code forks (``os.fork()``) ends as a forked child does where it returns into our code (:func:`user_state`): the
    audit never runs in it.  The child runs under
    :func:`~pdp_audit.verify.core.processes.terminations_raise` and our floating-point rules
    (:func:`~pdp_audit.verify.core.float_rules.own_float_rules`), and records the files it reads
    (:func:`~pdp_audit.verify.core.outputs.record_reads`, with those this process had read).

``import_from_current_folder(module_name, key)``
    The module of a command line's ``MODULE:NAME``, imported with the current folder first on ``sys.path`` under
    ``user_state()``: whatever its import raises is one InputError naming ``key`` (the user's fault, exit 2).

``user_state()``
    Around one call into the user's code in this process (a sampler call of an audit): the process state the user's
    code may change and ours relies on is given back when the call returns or raises -- ``np.seterr``, warning
    filters, the recursion limit, ``sys.path``, ``sys.modules``, the standard streams
    (:func:`pdp_audit.verify.core.float_rules.user_float_rules`).

The guards that turn what a call raises into the user's fault, naming the call, sit at each call site:
``GuardedPair`` (:mod:`pdp_audit.audits.pair.deployed`), ``UserSampler`` (the black box), ``call_factory``
(:mod:`pdp_audit.verify.evidence.user_code`); each lets an interruption (Ctrl-C, SIGTERM) through
(:data:`pdp_audit.verify.inputs.interruptions.INTERRUPTIONS`).

A sweep cell whose ``factory`` names the user's code runs the cell through :func:`run_isolated` too
(:func:`pdp_audit.sweeps.audits.kind_cell`).  The pools of ``--workers N``
(:func:`pdp_audit.verify.core.processes.executor_for`) and of a sweep run the pair's methods in forked workers that
start with one OpenMP and BLAS thread each (a fork is safe for a child that starts no thread pool of its own) and end
when their parent does; a Dask LocalCluster's workers are spawned (:func:`pdp_audit.verify.core.dask_cluster.connect`).
"""

from __future__ import annotations

import importlib
import os
import pickle
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from types import ModuleType
from typing import Any, Callable, Mapping

from pdp_audit.mechanisms.base import user_error
from pdp_audit.verify.core.float_rules import own_float_rules, user_float_rules
from pdp_audit.verify.core.outputs import add_reads, read_paths, record_reads
from pdp_audit.verify.core.processes import (
    PARENT_GONE,
    fork_unless_a_copy,
    limit_processes,
    on_second_termination,
    raised_without_signal,
    terminations_raise,
)
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS, Terminated
from pdp_audit.verify.inputs.validation import InputError

__all__ = ["CHILD_GRACE", "EXIT_WAIT", "ChildTraceback", "run_isolated", "user_state"]

#: Seconds a child given Ctrl-C (or SIGTERM) has to unwind -- its private data copies are removed on the way out --
#: before it is killed.
CHILD_GRACE = 5.0
#: Seconds this process waits for a child that has delivered its result to end as Python ends (its ``atexit``
#: handlers, the teardown that closes the user's files); a child still running then (a thread of the user's code
#: that never ends) is ended.
EXIT_WAIT = 60.0

#: Seconds the wait is where threads of the user's code were still running when the result was sent (Python's exit
#: waits for them; one that never ends made the command hang after its certificate before).
STRAY_WAIT = 2.0

#: The child's program: the sandbox's own entry point, given the two pipes' descriptors.
_CHILD = "import sys; from pdp_audit.verify.core.sandbox import child_main; child_main(*map(int, sys.argv[1:]))"

user_state = user_float_rules


class ChildTraceback(Exception):
    """The traceback of an exception raised in :func:`run_isolated`'s child, as text (shown as its cause)."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


# --- this side --------------------------------------------------------------------------------------------------


def run_isolated(
    function: Callable[..., Any], *args: Any, target: str, environment: Mapping[str, str] | None = None
) -> Any:
    """``function(*args)`` in a child Python process; see the module's docstring.  ``environment``: variables the
    child's environment sets beside this process's (the program audit's fixed ``PYTHONHASHSEED``)."""
    if sys.platform == "win32":  # pragma: no cover - no select() on pipes, no process groups: the work runs here
        return function(*args)

    payload = b"".join(_frame(part) for part in ((list(sys.path), read_paths()), (function, args)))
    work_r, work_w = os.pipe()
    result_r, result_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # what was printed so far comes before what the child prints
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    try:
        command = [sys.executable, "-c", _CHILD, str(work_r), str(result_w)]
        variables = None if environment is None else {**os.environ, **environment}
        child = subprocess.Popen(command, pass_fds=(work_r, result_w), env=variables)
    finally:
        os.close(work_r)
        os.close(result_w)
    group = _own_group(child.pid)
    try:
        try:
            _write_all(work_w, payload)
        except BrokenPipeError:  # it ended before reading its work: _delivered says how
            pass
        with on_second_termination(lambda: _kill_at_once(child, group)):
            return _delivered(child, result_r, target, group)
    finally:
        os.close(result_r)
        os.close(work_w)  # its end of file tells a child still running that this process is done


def _delivered(child: subprocess.Popen, reader: int, target: str, group: bool) -> Any:
    """The child's result or what it raised, the child ended either way."""
    try:
        message = _receive(reader, child)
    except BaseException as err:  # Ctrl-C, SIGTERM (or anything else) while waiting: the child goes first
        _stop(child, err.signum if isinstance(err, Terminated) else signal.SIGINT, group)
        raise
    stray = message is not None and message[0] == "result" and message[3]
    _ended(child, group, STRAY_WAIT if stray else EXIT_WAIT if message is not None else 0.5)
    if message is None:
        raise InputError(
            f"{target} {_ending(child.returncode)} before it delivered a result; this is a fault in that code"
        )
    kind, value, remote, _ = message
    if kind == "result":
        return value
    if isinstance(value, KeyboardInterrupt) and raised_without_signal(value):  # no SIGINT reached this process
        raise InputError(
            f"{target} was interrupted by a SIGINT that did not reach pdp-audit (sent to the audit's process alone); "
            "this is a fault in that code"
        )
    if kind == "interrupt":  # a KeyboardInterrupt raised by the user's code, with no SIGINT behind it
        raise InputError(
            f"{target} raised KeyboardInterrupt, but no interrupt (SIGINT) reached the audit; this is a "
            "fault in that code"
        )
    if isinstance(value, SystemExit):  # our code never exits in the child: sys.exit reached it from the user's code
        raise InputError(
            f"{target} called sys.exit({value.code!r}) outside the calls the audit guards; this is a fault in that code"
        )
    if remote:
        raise value from ChildTraceback(remote)
    raise value


def _receive(reader: int, child: subprocess.Popen) -> tuple | None:
    """The child's message, or None when it ended without one (a descendant of the child that inherited the pipe
    does not keep this waiting: the child's exit is watched too)."""
    data = bytearray()
    with selectors.DefaultSelector() as selector:  # not select.select: no limit on the descriptor's number
        selector.register(reader, selectors.EVENT_READ)
        while True:
            if selector.select(0.2):
                chunk = os.read(reader, 1 << 20)
                if not chunk:
                    break
                data += chunk
                if len(data) >= 8 and len(data) - 8 >= struct.unpack("<Q", data[:8])[0]:
                    break
            elif child.poll() is not None:
                break
    if len(data) < 8 or len(data) - 8 < struct.unpack("<Q", data[:8])[0]:
        return None
    try:
        return pickle.loads(memoryview(data)[8:])
    except Exception as err:  # e.g. an exception class of a module only the child imported
        return ("raised", RuntimeError(f"the child's message could not be read here: {err!r}"), "", ())


def _ended(child: subprocess.Popen, group: bool, wait: float) -> None:
    """Wait up to ``wait`` seconds for the child to end by itself (as Python ends), then end it (:func:`_stop`)."""
    try:
        child.wait(wait)
    except subprocess.TimeoutExpired:
        print(
            f"pdp-audit: the audit's process did not end within {wait:g} s of its result (a thread of the code "
            "under audit still running?); it was ended",
            file=sys.stderr,
        )
    _stop(child, signal.SIGTERM, group)


def _stop(child: subprocess.Popen, signum: int, group: bool) -> None:
    """End the child if it still runs: ``signum`` to its whole group (with the processes the user's code started),
    :data:`CHILD_GRACE` seconds to unwind, then a kill; reaped either way, then what is left of its group killed."""
    if child.poll() is None:
        try:
            os.killpg(child.pid, signum) if group else child.send_signal(signum)
        except OSError:
            pass
        try:
            child.wait(CHILD_GRACE)
        except subprocess.TimeoutExpired:
            _end_descendants(child.pid)
            child.kill()
            child.wait()
        except BaseException:  # a second Ctrl-C or SIGTERM while it unwinds: no more waiting
            _kill_at_once(child, group)
            raise
    _end_group(child.pid, group)


def _kill_at_once(child: subprocess.Popen, group: bool) -> None:
    """A second SIGTERM while the child unwinds: its descendants, its group and it are killed now, and reaped."""
    if child.poll() is None:
        _end_descendants(child.pid)
    try:
        os.killpg(child.pid, signal.SIGKILL) if group else child.kill()
        child.wait()
    except OSError:
        pass


def _own_group(pid: int) -> bool:
    """Make the child ``pid`` the leader of a process group of its own (it does so too, first thing: whichever comes
    first); whether it is one -- never signal a group that is this process's own."""
    try:
        os.setpgid(pid, pid)
    except OSError:  # it did so already, or it is gone
        pass
    try:
        return os.getpgid(pid) == pid != os.getpgrp()
    except OSError:
        return False


def _end_group(pgid: int, group: bool) -> None:
    """Kill what is left of the child's process group once it is gone: processes the user's factory or sampler
    started (a helper server, a ``multiprocessing`` child) -- the audit is over."""
    if group:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:  # none left
            pass


def _ending(returncode: int | None) -> str:
    """How the child ended, in words: ``ended the audit process (killed by signal SIGSEGV)``."""
    if returncode is None:
        return "left the audit process running"
    if returncode >= 0:
        return f"ended the audit process (exit status {returncode})"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = str(-returncode)
    oom = "; SIGKILL is also how the system ends a process out of memory" if name == "SIGKILL" else ""
    return f"ended the audit process (killed by signal {name}{oom})"


def _frame(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("<Q", len(data)) + data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# --- the child's side -------------------------------------------------------------------------------------------


def child_main(work_fd: int, result_fd: int) -> None:
    """The child of :func:`run_isolated`: read the work, run it, send what came of it, and return -- the
    interpreter then exits as Python does.  Nothing here ends the process otherwise."""
    try:  # a group of its own: what the user's code starts in it ends with the audit (_end_group)
        os.setpgid(0, 0)
    except OSError:
        pass
    limit_processes()  # not as root: what the user's code starts from C is bounded too
    os.fork = fork_unless_a_copy  # a copy the user's code forked may not fork again: no fork bomb
    for fd in (work_fd, result_fd):  # not inherited by what the user's code starts
        os.set_inheritable(fd, False)
    try:
        reads, function, args = _read_work(work_fd)
    except EOFError:  # the parent is gone before it sent the work: nothing to do
        return
    except Exception as err:  # the work could not be read here (a bug of ours: exit 4 in the parent)
        failed = RuntimeError(f"the audit's work could not be read in its process: {err!r}")
        _send(result_fd, ("raised", failed, "", ()))
        return
    _end_with_parent(work_fd)
    # deferred: loads tempfile; list --help must not
    from pdp_audit.reports.files import streams_whose_readers_may_leave

    streams_whose_readers_may_leave()  # a reader that left ends no audit early: the parent's verdict stands
    message: tuple
    with terminations_raise():
        record_reads()
        add_reads(reads)
        try:
            with own_float_rules():
                message = ("result", function(*args), "", ())
        except BaseException as err:  # sent to the parent, which raises it (Ctrl-C and SIGTERM included)
            if raised_without_signal(err):
                message = ("interrupt", None, "", ())
            else:
                message = ("raised", err, "".join(traceback.format_exception(type(err), err, err.__traceback__)), ())
                # the traceback travels as text: a chained exception of a class in the user's module cannot be
                # pickled here nor read by the parent -- an internal error for the user's fault
                err.__cause__ = err.__context__ = err.__traceback__ = None
        if message[0] == "result":  # threads of the user's code still running, which Python's exit waits for
            message = (*message[:3], _stray_threads())
        _send(result_fd, message)
    _end_descendants()


def _stray_threads() -> tuple[str, ...]:
    """The names of the threads still running that Python's exit would wait for (not daemons, not the main one)."""
    main = threading.main_thread()
    return tuple(t.name for t in threading.enumerate() if t is not main and not t.daemon and t.is_alive())


def _read_work(fd: int) -> tuple:
    """The parent's ``sys.path`` and the files it read (the first frame), then the function and its arguments,
    unpickled with that path (they may name modules of the user's folder)."""
    path, reads = pickle.loads(_read_frame(fd))
    sys.path[:] = path
    function, args = pickle.loads(_read_frame(fd))
    return reads, function, args


def _read_frame(fd: int) -> bytes:
    return _read_exactly(fd, struct.unpack("<Q", _read_exactly(fd, 8))[0])


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError("the parent is gone")
        data += chunk
    return data


def _send(fd: int, message: tuple) -> None:
    try:
        data = _frame(message)
    except Exception as err:  # unpicklable: a bug of ours (exit 4), the traceback kept
        data = _frame(("raised", RuntimeError(f"the audit's result could not be sent: {err!r}"), message[2], ()))
    try:
        _write_all(fd, data)
        os.close(fd)
    except OSError:  # the parent stopped listening (its Ctrl-C) or is gone: nothing to deliver
        pass


def _end_with_parent(fd: int) -> None:
    """Once the parent is gone -- end of file on the pipe only it holds open, which the kernel signals with SIGIO
    (``O_ASYNC``) -- this process gets SIGTERM: the audit unwinds (its temporaries removed) and ends by that signal;
    nothing would collect its work (:func:`_parent_gone`).  A signal, not a watching thread: a daemon thread still
    running at the interpreter's exit kept a gzip file of the user's module from its ending."""
    import fcntl

    if not hasattr(signal, "SIGIO"):  # pragma: no cover - not on Linux/BSD
        return
    signal.signal(signal.SIGIO, _parent_gone)
    try:
        fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
    except OSError:  # pragma: no cover - a system without O_ASYNC on pipes: the parent kills the group on its way out
        return
    try:
        if os.read(fd, 1) == b"":  # gone already, before the signal was asked for
            signal.raise_signal(signal.SIGTERM)
    except BlockingIOError:  # still there
        pass


def _parent_gone(signum: int, frame: Any) -> None:
    """The SIGIO of :func:`_end_with_parent`: SIGTERM to this process, whose Terminated unwinds the audit, and a
    daemon thread that ends it, its descendants and its group :data:`CHILD_GRACE` seconds later if it still runs.
    Python drops an exception raised where none can propagate -- a handler run inside an at-fork hook (logging's
    ``_releaseLock`` after each ``os.fork``), a ``__del__`` --, and the child of a program forking on each call
    forked on after the command's ``kill -9``, an orphan, until the audit's end ("Exception ignored in
    _releaseLock ... Terminated")."""
    PARENT_GONE.now = True  # the user's code forks no more: the sweep of its processes ends
    threading.Thread(target=_end_later, name="pdp-audit-parent-gone", daemon=True).start()
    signal.raise_signal(signal.SIGTERM)


def _end_later() -> None:
    """:data:`CHILD_GRACE` seconds for the audit to unwind, then its descendants and its group killed, and it."""
    time.sleep(CHILD_GRACE)
    _end_descendants()
    if os.getpgrp() == os.getpid():  # at once, this process too: its main thread may be forking still
        os.killpg(os.getpid(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def _end_descendants(pid: int | None = None) -> None:
    """Kill the processes the user's code started and left running under ``pid`` (this process by default) -- in a
    session of their own too --, while they are still its descendants, and those left in its process group where it
    leads one: the audit is over (a helper outlived ``certify`` and held its pipes open; one started with
    ``setsid`` outlived the audit's process group; the process a forked copy started outlives the copy, in the
    group, and nothing killed the group where the command was killed with -9).  Swept again until a sweep finds
    none (at most :data:`SWEEPS` times): a process that one started between the sweep's reading of /proc and its
    end was left (a ``sleep`` that a forked copy started as the copy was killed)."""
    for _ in range(SWEEPS):
        found = _descendants(os.getpid() if pid is None else pid)
        if not found:
            return
        for each in found:
            try:
                os.kill(each, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)  # for the kills to land: a process killed but not yet ended is found again


#: The sweeps of :func:`_end_descendants` at most (0.01 s apart): each finds what the processes the one before
#: killed had started meanwhile, a generation at most.
SWEEPS = 20


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid``, and the others of the process group it leads, if it leads one, that have not
    ended (from /proc; none where there is no /proc)."""
    parents: dict[int, int] = {}
    group: set[int] = set()
    ended: set[int] = set()
    try:
        entries = [entry.name for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError:
        return set()
    for name in entries:
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rpartition(")")[2].split()
            parents[int(name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
        if fields[0] in ("Z", "X"):  # ended already (a zombie its parent has not reaped)
            ended.add(int(name))
        elif fields[2] == str(pid):
            group.add(int(name))
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {each for each, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return (found | group) - ended - {pid}


def _raised_in(err: BaseException, module_name: str) -> str:
    """``" in PACKAGE"`` where the innermost frame of ``err`` ran in another top-level package than the user's
    module's (a library the module imports, broken in the user's environment: pandas too new for it), else ``""``."""
    frames = traceback.walk_tb(err.__traceback__)
    packages = [str(frame.f_globals.get("__name__", "")).partition(".")[0] for frame, _ in frames]
    packages = [p for p in packages if p not in ("", "importlib", "pdp_audit")]  # the import machinery, ours
    return f" in {packages[-1]}" if packages and packages[-1] != module_name.partition(".")[0] else ""


def import_from_current_folder(module_name: str, key: str) -> ModuleType:
    """The module ``module_name`` of a command line's ``MODULE:NAME``, imported with the current folder first on
    ``sys.path``, as ``python -m`` would (a console script's ``sys.path`` starts at its own bin folder); what the
    module sets of the process's state while it loads is undone.  Whatever the import raises is the user's: one
    InputError naming ``key`` (an interruption stays one)."""
    sys.path.insert(0, os.getcwd())
    try:
        with user_state():
            return importlib.import_module(module_name)
    except ImportError as err:
        raise InputError(f"{key}: cannot import module {module_name!r} ({err}{_raised_in(err, module_name)})") from None
    except BaseException as err:  # the user's module failed while it was imported: their code, their error
        if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
            raise
        where = _raised_in(err, module_name)
        raise InputError(f"{key}: importing module {module_name!r} raised {user_error(err)}{where}") from None
    finally:
        sys.path.remove(os.getcwd())
