"""The processes a run spreads its work over: a pool whose workers exit with their parent, one BLAS thread each;
the process the user's own code runs in (:func:`in_user_process`); and how the process ends on SIGTERM or SIGHUP
(:func:`terminations_raise`)."""

from __future__ import annotations

import functools
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

from pdp_audit.mechanisms.interruptions import Terminated  # also imported from here (its home before)
from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.core.config import WORKERS

#: The most worker processes a run may ask for (each is a process with its own memory).
MAX_WORKERS = int(WORKERS.high)


@contextmanager
def executor_for(workers: int):
    """None (serial) for one worker, else a process pool whose workers die with this process; results are
    identical either way.  On an error or Ctrl-C the blocks not yet started are cancelled.  Its workers hand blocks of
    losses back through memory shared with them (:class:`pdp_audit.verify.estimators.engine.SharedSlots`)."""
    if not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be in [1, {MAX_WORKERS}], got {workers}")
    workers = started_workers(workers)
    if workers == 1:
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor

    from pdp_audit.verify.estimators.engine import shared_slots

    with shared_slots(workers) as slots:  # made before the workers are forked: they inherit it
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_block_worker_init)
        if slots is not None:
            slots.pool = pool
        try:
            yield pool
        except Terminated:  # end now: the workers exit with this process (exit_with_parent), their blocks unfinished
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)


#: The share of this machine's physical memory one audit may plan to use (the rest: the system, other processes).
MEMORY_SHARE = 0.75


def physical_memory() -> int | None:
    """The memory this process may use, in bytes: the machine's physical memory, lowered by the process's own limits
    -- ``ulimit -v`` (RLIMIT_AS, RLIMIT_DATA) and its control group's ``memory.max`` (v2) or
    ``memory.limit_in_bytes`` (v1), as a container sets them -- (None where the system says nothing).  A budget
    checked against the machine alone died of MemoryError under a 3 GB ``ulimit -v`` after 69 s of work."""
    limits = [_machine_memory(), *_resource_limits(), _cgroup_limit()]
    known = [limit for limit in limits if limit is not None and limit > 0]
    return min(known) if known else None


def _machine_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _resource_limits() -> list[int | None]:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return []
    soft = [resource.getrlimit(kind)[0] for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA)]
    return [limit if limit != resource.RLIM_INFINITY else None for limit in soft]


@functools.lru_cache(maxsize=1)
def _cgroup_limit() -> int | None:
    """This process's control-group memory limit (None without one, or where it cannot be read).  Read once per
    process: every cell of a sweep spec checks its budget, and reading the cgroup files again for each was 60% of
    loading a spec of 100k cells (87 s; hostile pass 4).  A limit changed while the command runs is not seen."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if hierarchy == "0" and controllers == "":  # cgroup v2
            candidates = [Path("/sys/fs/cgroup") / path.lstrip("/") / "memory.max", Path("/sys/fs/cgroup/memory.max")]
        elif "memory" in controllers.split(","):  # cgroup v1
            base = Path("/sys/fs/cgroup/memory")
            candidates = [base / path.lstrip("/") / "memory.limit_in_bytes", base / "memory.limit_in_bytes"]
        else:
            continue
        for candidate in candidates:
            try:
                text = candidate.read_text().strip()
            except OSError:
                continue
            if text.isdigit() and int(text) < 1 << 60:  # "max", or v1's "no limit" of 2^63 rounded to pages
                return int(text)
    return None


#: glibc's mallopt parameters (malloc.h): M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8


def keep_freed_memory() -> bool:
    """Let this process keep the memory it frees for its next allocations (glibc's malloc; elsewhere nothing is
    done): whether it was set.  For a command's own process only -- a library call must not change its caller's
    allocator -- and before it starts threads.

    A large data file is parsed a piece at a time on threads, and pandas allocates and frees the same tens of
    megabytes for every piece: glibc handed them back to the system (a thread's own arena, or memory above the trim
    threshold at the top of the heap) and every piece faulted them in again, half the page faults of a 1e6 x 30
    certification (165,000 of them, 0.4 s of system time on a 2-core machine).  One arena, no trimming and blocks
    below 32 MiB from the heap keep them: the peak of memory is the same, as the same blocks are reused."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return False
    try:  # the symbols already loaded: ctypes.util.find_library would start /sbin/ldconfig to look for libc
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    settings = ((_M_ARENA_MAX, 1), (_M_TRIM_THRESHOLD, 2**30), (_M_MMAP_THRESHOLD, 32 * 2**20))
    return all(mallopt(parameter, value) == 1 for parameter, value in settings)


def started_workers(workers: int) -> int:
    """The processes worth starting for ``workers``: at most this machine's cores (the blocks are CPU-bound, each
    process holds its own copy of the data, and the numbers never depend on the count: ``--workers 256`` on two cores
    started 256 processes of ~150 MB each)."""
    return max(1, min(int(workers), os.cpu_count() or 1))


def exit_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone (killed with -9, SIGTERM or SIGHUP,
    so that nothing would collect the work): on Linux the kernel kills it when its parent ends
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``: at once, where the thread below needs the interpreter's lock, which a
    worker busy in a block held for up to 2 s after its parent was gone); elsewhere, and as a fallback, a thread
    checks the parent twice a second."""
    parent = os.getppid()
    _die_with_parent()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="pdp-audit-parent-watch", daemon=True).start()


def _die_with_parent() -> None:
    """Linux only: ask the kernel to send SIGKILL to this process when its parent ends (PR_SET_PDEATHSIG = 1)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no libc to call: the watching thread still ends it
        pass


def _block_worker_init() -> None:
    """A worker of ``--workers N``: one BLAS thread (one worker per core already), gone with its parent, and its own
    state of numpy's and Python's global generators -- forked workers inherit one state, and a sampler that draws
    from them (diffprivlib's default ``random_state``) would repeat the same releases in every worker."""
    import multiprocessing.util
    import random

    import numpy as np
    from threadpoolctl import threadpool_limits

    from pdp_audit.verify.estimators.engine import blas_limited_for_good

    np.random.seed()  # from the operating system's entropy; the parent's own state is untouched
    random.seed()
    threadpool_limits(limits=1)
    blas_limited_for_good()
    default_terminations()
    exit_with_parent()
    # before the worker's exit joins the non-daemon multiprocessing children the user's sampler started (a helper
    # sleeping 300 s kept the pool, and with it the command, waiting), they are ended: the audit is over
    multiprocessing.util.Finalize(None, _end_user_children, exitpriority=100)


def _end_user_children() -> None:
    """Kill and reap the ``multiprocessing`` children of this worker process: only the user's code starts any."""
    import multiprocessing  # loaded already: this process is a worker of a pool
    for child in multiprocessing.active_children():
        child.kill()
        child.join(1.0)


# --- the user's code in a process of its own ----------------------------------------------------------------------

#: Seconds a child given Ctrl-C (or SIGINT) has to unwind -- its private data copies are removed on the way out --
#: before it is killed.
CHILD_GRACE = 5.0


def in_user_process(work: Callable[[], Any], target: str) -> Any:
    """``work()`` -- the part of a command that runs the user's code: its import, factory, sampler, and the audit
    around them -- in a child process; its result, or what it raised, re-raised here.  ``target`` names that code in
    a message (``target: the code of 'mymod:make'``).

    A child that ends without delivering either (``os._exit(0)``, a segfault, ``kill -9`` of itself in the user's
    code) is one :class:`InputError` naming ``target`` and how the process ended: a command that could not decide
    must never exit 0, and the fault is the user's code, not ours.  The child exits with this process
    (:func:`exit_with_parent`, as the workers of ``--workers N`` do); on Ctrl-C here it is interrupted too and
    waited for, so no process is left behind.  Its standard output and error are this process's own (the terminal).

    The child is forked: ``work`` is a closure over the parsed arguments and the user's objects (nothing to pickle but
    the result), and nothing is imported again (numpy, scipy, scikit-learn: ~1 s a spawn).  Forking is safe here:
    the command has started no thread of its own before (the only threads pdp-audit starts run in the child or in
    worker processes), and OpenBLAS re-creates its pool after a fork.  Without ``fork`` (Windows), ``work()`` runs
    in this process; so it does when ``main`` is called inside a program that runs threads of its own (pytest-xdist's
    workers, a notebook's kernel): a fork copies their locks, and a child that then starts GNU OpenMP (scikit-learn's
    trees, after the host used them) waits forever -- measured as a hang of the suite before this rule."""
    import multiprocessing  # here: the commands that start no process of their own never import it
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - not on POSIX
        return work()
    if threading.active_count() > 1:  # a host with threads of its own (a test runner, a notebook): see below
        return work()
    with _reaping_orphans():
        return _in_child(multiprocessing.get_context("fork"), work, target)


def _in_child(context, work: Callable[[], Any], target: str) -> Any:
    """:func:`in_user_process`'s fork (by ``context``, multiprocessing's), wait and delivery."""
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_deliver, args=(work, writer, target), name="pdp-audit-user-code")
    child.start()  # flushes this process's stdout and stderr first: nothing printed so far is printed twice
    writer.close()  # the child's copy is the only one left: end of file once it is gone
    group = _own_group(child.pid)
    with _on_second_termination(lambda: _kill_at_once(child.pid, group)):
        return _delivered(child, reader, target, group)


def _delivered(child, reader, target: str, group: bool) -> Any:
    """The child's result or what it raised (see :func:`in_user_process`), the child stopped either way."""
    try:
        message = _receive(reader, child)
    except BaseException as err:  # Ctrl-C (or anything else) while waiting: the child goes first
        reader.close()  # what it would still send is refused at once
        # SIGTERM/SIGHUP here are passed on as they came: the child then ends at once too (its workers' blocks
        # unfinished, executor_for), where an interrupt waits for the running blocks (5.6 s measured with --workers 2)
        _stop(child, err.signum if isinstance(err, Terminated) else signal.SIGINT, group)
        raise
    reader.close()
    child.join(CHILD_GRACE)  # it exits right after sending
    _stop(child, signal.SIGINT, group)
    if message is None:
        raise InputError(
            f"{target} {_ending(child.exitcode)} before it delivered a result; this is a fault in that code"
        )
    kind, value, remote = message
    if kind == "result":
        return value
    if raised_without_signal(value):  # a SIGINT reached the child alone: sent by the code under audit to itself
        raise InputError(
            f"{target} was interrupted by a SIGINT that did not reach pdp-audit (sent to the audit's process "
            "alone); this is a fault in that code"
        )
    if isinstance(value, SystemExit):  # our code never exits in the child: sys.exit reached it from the user's code
        raise InputError(
            f"{target} called sys.exit({value.code!r}) outside the calls the audit guards; this is a fault in that code"
        )
    if remote:
        raise value from ChildTraceback(remote)
    raise value


class ChildTraceback(Exception):
    """The traceback of an exception raised in :func:`in_user_process`'s child, as text (shown as its cause)."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


def _ending(exitcode: int | None) -> str:
    """How the child ended, in words: ``ended the audit process (killed by signal SIGSEGV)``."""
    if exitcode is None:
        return "left the audit process running"
    if exitcode >= 0:
        return f"ended the audit process (exit status {exitcode}, as os._exit({exitcode}) does)"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = str(-exitcode)
    oom = "; SIGKILL is also how the system ends a process out of memory" if name == "SIGKILL" else ""
    return f"ended the audit process (killed by signal {name}{oom})"


def _deliver(work: Callable[[], Any], writer, target: str) -> None:
    """In the child: ``work()``'s result (or what it raised) sent once, then exit at once -- no thread the user's
    code left running keeps the command waiting.  A KeyboardInterrupt that no SIGINT caused was raised by the user's
    code (:func:`raised_without_signal`): one InputError naming ``target``, not "interrupted"."""
    try:
        exit_with_parent()
        try:  # the audit's own process group: what the user's code starts in it ends with the audit (_end_group)
            os.setpgid(0, 0)
        except OSError:
            pass
        try:
            message = ("result", work(), "")
        except BaseException as err:  # sent to the parent, which raises it (Ctrl-C included)
            if raised_without_signal(err):
                err = InputError(
                    f"{target} raised KeyboardInterrupt, but no interrupt (SIGINT) reached the audit; "
                    "this is a fault in that code"
                )
            message = ("raised", err, "".join(traceback.format_exception(err)))
            # the traceback travels as text: once dask.distributed is imported, tblib pickles an exception with its
            # chain, and a chained exception of a class in the user's module (raised ... from None keeps it as the
            # context) cannot be pickled here nor read by the parent -- an internal error for the user's fault
            err.__cause__ = err.__context__ = err.__traceback__ = None
        try:
            writer.send(message)
        except (pickle.PicklingError, TypeError, AttributeError) as err:  # unpicklable: a bug of ours (exit 4)
            writer.send(("raised", RuntimeError(f"the audit's result could not be sent: {err!r}"), message[2]))
    except BaseException:  # the parent stopped listening (its Ctrl-C) or is gone: nothing to deliver, nothing to say
        pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # closed, or replaced by None or anything else by the user's code
                pass
        os._exit(0)


def _receive(reader, child) -> tuple | None:
    """The child's message, or None when it ended (or its pipe closed) without one."""
    from multiprocessing.connection import wait  # loaded already: the child was started by multiprocessing
    while True:
        ready = wait([reader, child.sentinel])
        if reader in ready:
            try:
                data = reader.recv_bytes()
            except (EOFError, OSError):  # ended mid-message, or before one
                return None
            try:
                return pickle.loads(data)
            except Exception as err:  # e.g. an exception class of the user's module, which this process never imported
                return ("raised", RuntimeError(f"the child's message could not be read here: {err!r}"), "")
        if not reader.poll(0):  # the child is gone and sent nothing
            return None


def _stop(child, signum: int = signal.SIGINT, group: bool = False) -> None:
    """End the child if it still runs: a moment to end by itself (unless it has a ``group`` of its own, which
    Ctrl-C on a terminal does not reach), then ``signum`` (an interrupt, or the SIGTERM/SIGHUP this process got) to
    it -- to its whole group, with the processes the user's code started -- and :data:`CHILD_GRACE` seconds to unwind
    (its private data copies are removed on the way out), then a kill; reaped either way, and then whatever is
    left of its group ended (:func:`_end_group`)."""
    child.join(0 if group else 0.5)
    if child.is_alive():
        try:
            os.killpg(child.pid, signum) if group else os.kill(child.pid, signum)
        except OSError:
            pass
        child.join(CHILD_GRACE)
    if child.is_alive():
        child.kill()
        child.join()
    if group:
        _end_group(child.pid)


def _own_group(pid: int) -> bool:
    """Make the child ``pid`` the leader of a process group of its own (it does so too, first thing: whichever
    comes first); whether it is one -- never signal a group that is this process's own."""
    try:
        os.setpgid(pid, pid)
    except OSError:  # it did so already (EACCES after it ran), or it is gone
        pass
    try:
        return os.getpgid(pid) == pid != os.getpgrp()
    except OSError:  # ended already: nothing of its group to wait for but what _end_group finds
        return False


def _end_group(pgid: int) -> None:
    """End what is left of the audit's process group once its leader is gone: the processes the user's factory or
    sampler started (a helper server, a ``multiprocessing`` child, a shell's background job), killed at once -- the
    audit is over, and a forked helper that inherited our SIGTERM handler printed a traceback when asked politely.
    A helper started by the factory outlived ``certify`` (and held its output pipes open) before.  Processes that
    left the group (``setsid``, ``start_new_session=True``) are ended as orphans (:func:`_reaping_orphans`)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:  # none left (ProcessLookupError), or none of ours
        pass


@contextmanager
def _reaping_orphans() -> Iterator[None]:
    """While the audit's child runs, this process is the subreaper of its descendants (Linux:
    ``prctl(PR_SET_CHILD_SUBREAPER)``): a process the user's code started in a session of its own (``setsid``,
    ``start_new_session=True``) -- beyond the audit's process group -- becomes this process's child when its parent
    ends, instead of init's.  When the child is done, every child this process gained meanwhile is killed and reaped,
    and the flag is given back.  Such a helper outlived ``certify`` and its signals before."""
    previous = _subreaper(True)
    if previous is None:  # not Linux, or no prctl: the process group is all that is ended
        yield
        return
    before = _children()

    def kill_orphans() -> None:  # a second SIGTERM: no time to reap, but nothing left behind
        for pid in _children() - before:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    try:
        with _on_second_termination(kill_orphans):
            yield
    finally:
        try:
            for _ in range(16):  # a killed orphan's own children become ours in turn
                orphans = _children() - before
                if not orphans:
                    break
                for pid in orphans:
                    _kill_and_reap(pid)
        finally:
            _subreaper(previous)


def _subreaper(on: bool) -> bool | None:
    """Set whether this process is a child subreaper (PR_SET_CHILD_SUBREAPER = 36); what it was before
    (PR_GET_CHILD_SUBREAPER = 37), or None where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        was = ctypes.c_int(0)
        if libc.prctl(37, ctypes.byref(was), 0, 0, 0) != 0 or libc.prctl(36, int(on), 0, 0, 0) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return bool(was.value)


def _children() -> set[int]:
    """The process ids whose parent is this process (from /proc)."""
    me, found = os.getpid(), set()
    try:
        entries = [entry.name for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError:
        return found
    for name in entries:
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == me:
            found.add(int(name))
    return found


#: What a second SIGTERM or SIGHUP, arriving while the first is cleaned up after, must still do before the process
#: ends at once: kill the audit's child and its group, then the orphans this process became the subreaper of (the
#: innermost first).  Without it a helper the user's code started in a session of its own outlived a double SIGTERM.
_AT_ONCE: list[Callable[[], None]] = []


@contextmanager
def _on_second_termination(cleanup: Callable[[], None]) -> Iterator[None]:
    _AT_ONCE.append(cleanup)
    try:
        yield
    finally:
        _AT_ONCE.remove(cleanup)


def _kill_at_once(pid: int, group: bool) -> None:
    """SIGKILL the audit's child (its whole group where it leads one) and reap it, so that what it started in a
    session of its own is this process's orphan before the orphans are killed."""
    try:
        os.killpg(pid, signal.SIGKILL) if group else os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass


def _end_at_once(signum: int, frame) -> None:
    """The handler of a second SIGTERM or SIGHUP: the cleanups of :data:`_AT_ONCE`, then the end by that signal (a
    third one ends the process with no cleanup at all)."""
    for each in TERMINATIONS:
        signal.signal(each, signal.SIG_DFL)
    for cleanup in reversed(list(_AT_ONCE)):
        try:
            cleanup()
        except BaseException:  # noqa: BLE001 - ending now: whatever failed, the rest still runs
            pass
    end_by(signum)


def _kill_and_reap(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):  # gone already, or reaped by whoever started it here
        pass


# --- ending on SIGTERM or SIGHUP ---------------------------------------------------------------------------------

#: The signals that ask the command to end (``kill``, a closed terminal); Ctrl-C (SIGINT) is Python's
#: KeyboardInterrupt already.
TERMINATIONS = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def terminations_raise() -> Iterator[None]:
    """While inside: SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (a second one, while the first
    is being cleaned up after, ends the process at once, its child and orphans killed first: :func:`_end_at_once`),
    and a SIGINT is recorded before it raises KeyboardInterrupt as Python's own handler does
    (:func:`raised_without_signal`).  The handlers before are restored on leaving.  Outside the main thread (where
    Python cannot install handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame) -> None:
        for each in TERMINATIONS:
            signal.signal(each, _end_at_once)
        raise Terminated(signum)

    def record_interrupt(signum: int, frame) -> None:
        _SIGINT.received = True
        signal.default_int_handler(signum, frame)

    previous = {each: signal.signal(each, raise_terminated) for each in TERMINATIONS}
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # an ignored SIGINT (`cmd &`) stays ignored
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, record_interrupt)
    recording, _SIGINT.recording, _SIGINT.received = _SIGINT.recording, signal.SIGINT in previous, False
    try:
        yield
    finally:
        _SIGINT.recording = recording
        for each, handler in previous.items():
            signal.signal(each, handler)


class _SigintRecord:
    """Whether :func:`terminations_raise` records SIGINT in this process, and whether one arrived (a forked child
    has its own copy)."""

    recording = False
    received = False


_SIGINT = _SigintRecord()


def raised_without_signal(err: BaseException) -> bool:
    """Whether ``err`` is a KeyboardInterrupt that no SIGINT caused while SIGINT was recorded: only code raises it
    so, and our code never does -- the user's ``raise KeyboardInterrupt`` (or one from its ``__str__``) read as
    Ctrl-C, exit 130 "interrupted", before."""
    return isinstance(err, KeyboardInterrupt) and _SIGINT.recording and not _SIGINT.received


def end_by(signum: int) -> NoReturn:
    """End this process by ``signum`` with its default disposition, as if no handler had been installed: a shell
    then reports 128 + signum (143 for SIGTERM, 129 for SIGHUP) and a parent sees death by that signal."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said on it
            pass
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    time.sleep(1.0)  # the signal is delivered at once; this only covers a system that delays it
    os._exit(128 + signum)


def default_terminations() -> None:
    """In a forked worker: SIGTERM and SIGHUP end it at once (it inherited its parent's :func:`terminations_raise`
    handler, which would raise inside a block of work and leave the worker waiting)."""
    for each in TERMINATIONS:
        signal.signal(each, signal.SIG_DFL)
