"""The processes a run spreads its work over: a pool whose workers start with one OpenMP and BLAS thread each and
exit with their parent; and how the process ends on SIGTERM or SIGHUP (:func:`terminations_raise`).  The process
the user's own code runs in is the sandbox's (:mod:`pdp_audit.verify.core.sandbox`)."""

from __future__ import annotations

import errno
import functools
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, NoReturn

import numpy as np

from pdp_audit.verify.inputs.interruptions import Terminated  # also imported from here (its home before)
from pdp_audit.verify.inputs.workers import available_cores, checked_workers


@contextmanager
def executor_for(workers: int):
    """None (serial) for one worker, else a process pool whose workers die with this process; results are
    identical either way.  On an error or Ctrl-C the blocks not yet started are cancelled.  Its workers hand blocks of
    losses back through memory shared with them (:class:`pdp_audit.verify.estimators.engine.SharedSlots`)."""
    workers = started_workers(checked_workers(workers))
    if workers == 1:
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor

    # deferred: loads concurrent.futures; list --help must not
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


def started_workers(workers: int) -> int:
    """The processes worth starting for ``workers``: at most the cores this process may use (the blocks are
    CPU-bound, each process holds its own copy of the data, and the numbers never depend on the count: ``--workers
    256`` on two cores started 256 processes of ~150 MB each)."""
    return max(1, min(int(workers), available_cores()))


def exit_with_parent() -> None:
    """In a worker process: end as soon as the process that started it is gone (killed with -9, SIGTERM or SIGHUP,
    so that nothing would collect the work): a daemon thread checks the parent twice a second and then sends this
    process SIGTERM (whose default action the workers keep: :func:`default_terminations`), SIGKILL if the code it
    runs ignored that."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5.0)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="pdp-audit-parent-watch", daemon=True).start()


def _block_worker_init() -> None:
    """A worker of ``--workers N``: one BLAS thread (one worker per core already), gone with its parent, and its own
    state of numpy's and Python's global generators -- forked workers inherit one state, and a sampler that draws
    from them (diffprivlib's default ``random_state``) would repeat the same releases in every worker."""
    import multiprocessing.util
    import random

    from threadpoolctl import threadpool_limits

    # deferred: loads concurrent.futures; list --help must not
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


#: What a second SIGTERM or SIGHUP, arriving while the first is cleaned up after, must still do before the process
#: ends at once: kill the sandbox's child and its group (:mod:`pdp_audit.verify.core.sandbox`).
_AT_ONCE: list[Callable[[], None]] = []


@contextmanager
def on_second_termination(cleanup: Callable[[], None]) -> Iterator[None]:
    """While inside, a second SIGTERM or SIGHUP runs ``cleanup`` before the process ends."""
    _AT_ONCE.append(cleanup)
    try:
        yield
    finally:
        _AT_ONCE.remove(cleanup)


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
    _REPLACED.append(previous)
    try:
        yield
    finally:
        _REPLACED.pop()
        _SIGINT.recording = recording
        for each, handler in previous.items():
            signal.signal(each, handler)


#: The handlers each :func:`terminations_raise` under way replaced, outermost first.
_REPLACED: list[dict] = []


class _UserCalls:
    """How many calls into the user's code are under way in this process
    (:func:`~pdp_audit.verify.core.float_rules.user_float_rules` counts them), and how many copies of this process
    the one under way forked (set back to 0 when the next one starts: :func:`fork_unless_a_copy` counts them)."""

    depth = 0
    forks = 0


USER_CALLS = _UserCalls()


def _forked() -> None:
    """Run in every child of ``os.fork``: one the user's code forked gets the signal handling of the process before
    pdp-audit's (:func:`handlers_before_ours`).  Registered here, whose globals hold no copy of ``sys.modules``: the
    interpreter keeps an at-fork hook's module alive to its very end, and one that held every module kept a user's
    gzip file from its ending at exit."""
    if USER_CALLS.depth:
        _FORKED_COPY.made_by_user = True
        handlers_before_ours()


class _ForkedCopy:
    """Whether this process is a copy that the user's code forked (set in the copy by :func:`_forked`)."""

    made_by_user = False


_FORKED_COPY = _ForkedCopy()
_OS_FORK = os.fork


class _ParentGone:
    """Whether the command that started this process is gone (set by the sandbox's SIGIO handler): from then on no
    fork of the user's code is made.  Why: the SIGTERM that ends the audit is dropped where Python cannot raise it
    (an at-fork hook), a program forking on each call forked on, and its copies -- zombies nobody reaps -- grew the
    process table faster than the sweep that ends the audit's descendants could read it (5,000 entries in 16 s)."""

    now = False


PARENT_GONE = _ParentGone()

#: The copies the process that runs the user's code may fork within one call into that code (its import, the
#: factory, one sampler or program call).  Above what a program forks for its work: a ``multiprocessing`` pool of
#: one worker per core -- its default size -- made on each call, on a machine of up to 256 cores.  Low enough that
#: a loop of forks is stopped within seconds: 256 forks of the audit's process (numpy, scipy and pandas loaded, 130
#: MB) took 3.3 s at 12.7 ms each (2 cores, load 3.1), and 256 processes a call leave room in the smallest usual
#: process table (``kernel.pid_max`` 32768).  Per call, not per audit: an audit calls the program hundreds to tens of
#: thousands of times (the black box's trials), and a program that forks a pool on each call would be refused for
#: the audit's size, not for anything it does in one call.
FORKS_PER_CALL = 256


def fork_unless_a_copy() -> int:
    """``os.fork`` in the process that runs the user's code (:func:`~pdp_audit.verify.core.sandbox.child_main`
    installs it): a copy that the user's code forked may not fork again, and within one call the first process may
    fork at most :data:`FORKS_PER_CALL` copies -- beyond, OSError (EAGAIN, as the system's own refusal of a fork
    reads), which ends a copy where it leaves the user's code, as a forked child ends
    (``float_rules._end_forked_copy``), and is the program's fault in the first process (one line, exit 2, where it
    ends the program's call on its data).  Sound for: ``os.fork`` (and ``multiprocessing``'s fork start method,
    which calls it) can grow the processes of one call only linearly, never exponentially (``while True: os.fork()``
    made copies that forked again until the command's time limit), and by at most :data:`FORKS_PER_CALL` a call (a
    loop of 10^6 forks, each copy leaving at once, ran 10^6 forks in one call).  Our own forks (the pool of
    ``--workers N``) run between calls and are not counted.  Not for: forks from C code (``subprocess``'
    ``fork_exec``, ``os.posix_spawn``, an extension), which only the process group's end at the audit's end and
    :func:`limit_processes` contain, nor copies that stay inside the program: they outlive their call and add up
    over the calls until the audit's end."""
    if _FORKED_COPY.made_by_user:
        raise OSError(errno.EAGAIN, "pdp-audit: a copy that the audited code forked may not fork again")
    if PARENT_GONE.now:
        raise OSError(errno.EAGAIN, "pdp-audit: the audit is ending; no process may be forked")
    if USER_CALLS.depth:
        if USER_CALLS.forks >= FORKS_PER_CALL:
            raise OSError(errno.EAGAIN, f"pdp-audit: the audited code may fork at most {FORKS_PER_CALL} copies a call")
        USER_CALLS.forks += 1
    return _OS_FORK()


#: The processes and threads (Linux counts both against RLIMIT_NPROC) that the audit's process and what it starts
#: may add to those its user runs already, where the limit applies (not as root: :func:`limit_processes`).  Above
#: what an audit and its program use -- a BLAS and OpenMP thread per core, a ``--workers`` process per core, the
#: program's pool of a worker per core on a call (:data:`FORKS_PER_CALL` at most) -- on machines of up to a few
#: hundred cores; far below the system's usual default (``ulimit -u`` is tens of thousands: 96,365 on the machine
#: this was written on), so that processes started from C in a loop (``subprocess.Popen`` never waited for), which
#: no count of Python's forks sees, meet EAGAIN after 4096 instead of filling the machine's process table.
PROCESSES_ADDED = 4096


def limit_processes() -> None:
    """In the process that runs the user's code: RLIMIT_NPROC's soft limit set to the processes and threads its user
    runs now plus :data:`PROCESSES_ADDED`, unless the limit is that low already (a limit the user set lower is
    kept; the hard limit is left as it is, so a program that needs more may raise it).  Sound for: every process or
    thread the audit's process and its descendants start -- from Python or from C (``subprocess``,
    ``os.posix_spawn``, an extension) -- fails with EAGAIN once its user runs that many.  Not for: root, nor a user
    whose other processes, started meanwhile, take the room (they count too), nor where the user's processes cannot
    all be counted (:func:`_tasks_of`); then nothing is set."""
    # Not as root: the kernel does not enforce RLIMIT_NPROC for a process of the root user or one with
    # CAP_SYS_RESOURCE or CAP_SYS_ADMIN (root has both), so a limit would contain nothing -- and a program that drops
    # to another user (setuid) would meet a bound computed from root's processes, not that user's.
    if os.geteuid() == 0:
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return
    running = _tasks_of(os.getuid())
    if running is None:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    bound = running + PROCESSES_ADDED
    if soft == resource.RLIM_INFINITY or soft > bound:
        resource.setrlimit(resource.RLIMIT_NPROC, (bound, hard))


def _tasks_of(uid: int) -> int | None:
    """The processes and threads whose real user is ``uid`` -- RLIMIT_NPROC's count --, from /proc; None where that
    count may miss some: no /proc, or a process-ID namespace below the system's (a container's: its /proc does not
    show the same user's processes outside it, which the kernel counts), read from ``NSpid``."""
    try:
        nested = len(_status_field(Path("/proc/self/status").read_text(), "NSpid").split()) != 1
        entries = [entry.name for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError:
        return None
    if nested:
        return None
    total = 0
    for name in entries:
        try:
            status = Path(f"/proc/{name}/status").read_text()
            if int(_status_field(status, "Uid").split()[0]) == uid:
                total += int(_status_field(status, "Threads"))
        except (OSError, ValueError, IndexError):  # ended meanwhile
            continue
    return total


def _status_field(status: str, name: str) -> str:
    """The value of the field ``name`` in the text of a /proc/PID/status ("" where it has none)."""
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return value
    return ""


def handlers_before_ours() -> None:
    """In a process the user's code forked: the signal handlers there were before :func:`terminations_raise`
    (Python's own, or the user's), so that it ends on SIGTERM as it would without pdp-audit -- a ``multiprocessing``
    pool's workers, ended with SIGTERM by the pool's ``terminate``, raised :class:`Terminated` inside the queue's
    lock, and the pool's exit hung the audit for good."""
    if not _REPLACED:
        return
    try:
        for each, handler in _REPLACED[0].items():
            signal.signal(each, handler)
    except ValueError:  # forked from a thread other than the main one: no handler can be set there
        pass


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
    raise SystemExit(128 + signum)


def default_terminations() -> None:
    """In a forked worker: SIGTERM and SIGHUP end it at once (it inherited its parent's :func:`terminations_raise`
    handler, which would raise inside a block of work and leave the worker waiting)."""
    for each in TERMINATIONS:
        signal.signal(each, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):  # pragma: no branch - not on Windows
    os.register_at_fork(after_in_child=_forked)
