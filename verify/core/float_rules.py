"""Our arithmetic under our own floating-point rules, whatever the caller or the user's code set.

NumPy's error handling (``np.seterr``) and Python's warning filters are process state: a caller's
``np.seterr(all="raise")`` or ``warnings.simplefilter("error")`` turned an underflow in one of our interval
computations into a FloatingPointError out of ``audit_pair``, and a factory that set them did the same to a
certificate.  Every public entry point runs under :func:`own_float_rules` (every floating-point condition ignored:
our code checks finiteness where it matters, and a warning of ours is noise on the user's terminal), and every call
into the user's code under :func:`user_float_rules`, so that what that code sets is undone when it returns (with
the recursion limit, ``sys.path``, ``sys.modules`` and the standard streams, which our code relies on as much).
"""

from __future__ import annotations

import functools
import operator
import os
import sys
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NoReturn, TypeVar

import numpy as np

from pdp_audit.verify.core.processes import USER_CALLS

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def own_float_rules() -> Iterator[None]:
    """Every NumPy floating-point condition ignored and RuntimeWarnings silenced, restored on exit.  Within, only our
    code runs between two calls into the user's code (:data:`_settled`); entered or left, the caller's code may have
    run since the last call."""
    global _settled, _ours
    _settled, _ours = False, _ours + 1
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            yield
    finally:
        _settled, _ours = False, _ours - 1


def with_own_float_rules(function: F) -> F:
    """``function`` run under :func:`own_float_rules` (for the public API's functions)."""

    @functools.wraps(function)
    def ruled(*args: Any, **kwargs: Any) -> Any:
        with own_float_rules():
            return function(*args, **kwargs)

    return ruled  # type: ignore[return-value]


def user_float_rules(modules: bool = True) -> _UserRules:
    """Around a call into the user's code: the process state it may change and our code relies on is given back
    when it returns (or raises) -- ``np.seterr``, the warning filters, the recursion limit, the entries of
    ``sys.path`` (theirs added are kept), the modules already imported, and standard output and error.  A factory
    that lowered the recursion limit to 60, emptied ``sys.path``, closed ``sys.stderr`` or set
    ``sys.modules["scipy.stats"] = None`` made our own code fail after it: exit 4, an internal error, for the
    user's change.  ``modules`` False: ``sys.modules`` is left to an enclosing :func:`user_modules` (a block of
    calls between which only our code that imports nothing runs).  A copy of the process that the call forked ends
    where it comes back (:func:`_end_forked_copy`)."""
    return _UserRules(modules)


class _UserRules:
    """:func:`user_float_rules`' context: a class, not a generator (a program's replay crosses this boundary once a
    run, and a generator's context cost as much as a small program's noise call); what the call left as it was is
    not set again."""

    __slots__ = ("_before", "_errstate", "_limit", "_modules", "_path", "_pid", "_streams", "_warnings")

    def __init__(self, modules: bool):
        self._modules = modules

    def __enter__(self) -> None:
        if not USER_CALLS.depth:  # a new call: its forks are counted from 0 (processes.fork_unless_a_copy)
            USER_CALLS.forks = 0
        USER_CALLS.depth += 1
        self._pid = os.getpid()
        self._limit = sys.getrecursionlimit()
        self._path = list(sys.path)
        self._streams = sys.stdout, sys.stderr
        self._before = _modules_now() if self._modules else None
        self._errstate = np.errstate()
        self._errstate.__enter__()
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()

    def __exit__(self, *exc: Any) -> None:
        if os.getpid() != self._pid:  # a copy the user's code forked, back in ours
            _end_forked_copy(exc[0] is not None)
        USER_CALLS.depth -= 1
        try:
            self._warnings.__exit__(*exc)
            self._errstate.__exit__(*exc)
        finally:
            if sys.getrecursionlimit() != self._limit:
                sys.setrecursionlimit(self._limit)
            if sys.path != self._path:
                sys.path.extend(entry for entry in self._path if entry not in sys.path)
            out, err = self._streams
            if sys.stdout is not out or sys.stderr is not err or _closed(out) or _closed(err):
                sys.stdout, sys.stderr = _usable(sys.stdout, out), _usable(sys.stderr, err)
            if self._before is not None:
                _restore_modules(self._before)


def _end_forked_copy(raised: bool) -> NoReturn:
    """The user's code forked the process (``os.fork()``) and the copy returned (or raised) into ours: it ends here,
    as a forked child ends -- ``os._exit``, the end Python's documentation gives a child after a fork -- with status
    0 (1 where it raised).  Never our code in the copy: the rest of the audit ran twice (a program forking on each
    call became a fork bomb), and its result went down the parent's pipe.  Nothing is flushed: the buffers it shares
    with its parent hold the parent's output."""
    os._exit(1 if raised else 0)


@contextmanager
def user_modules() -> Iterator[None]:
    """``sys.modules`` given back on leaving the block, as :func:`user_float_rules` gives it back after one call: for
    a block of calls into the user's code, each under ``user_float_rules(modules=False)``, between which our code
    imports nothing (checking every module's identity after each call cost more than a small program's run)."""
    before = _modules_now()
    try:
        yield
    finally:
        _restore_modules(before)


#: sys.modules as the last call into the user's code found it (a copy, never changed): a black-box run calls the
#: sampler hundreds of times with nothing imported between two calls, and copying the thousand or more entries was
#: most of this boundary's cost.
_last_modules: dict[str, Any] = {}
#: Whether the last call into the user's code left ``sys.modules`` the very entries of :data:`_last_modules` (found
#: by :func:`_restore_modules`), within :func:`own_float_rules` (``_ours``: its depth) and not entered or left since:
#: then only our code ran since, which imports (adds names) but never replaces or removes a module, so the same
#: length says nothing changed.  Each comparison entry by entry reads every module object, cold in the cache after
#: a block of releases: 0.3 ms a call, two a sampler call, 0.27 s of CPU of the benchmark's black-box run (issue 44).
_settled = False
_ours = 0


def _modules_now() -> dict[str, Any]:
    """A copy of ``sys.modules`` as it is now: the last one made where nothing was imported or replaced since
    (:data:`_settled` within :func:`own_float_rules` and the same length; else :func:`_unchanged`, loops in C), else a
    new one."""
    global _last_modules
    before = _last_modules
    if _settled and _ours and len(sys.modules) == len(before):
        return before
    if not _unchanged(sys.modules, before):
        before = _last_modules = dict(sys.modules)
    return before


def _unchanged(modules: dict[str, Any], before: dict[str, Any]) -> bool:
    """Whether ``modules`` holds the same names as ``before``, in the same order, each the same object: identity entry
    by entry (loops in C).  Not dict equality: that falls back to ``==`` where two values differ, and an object the
    user's code put in place of a module, whose ``__eq__`` says it equals anything, then passed for that module and
    was never replaced.  A name re-inserted (another order, or an equal string) reads as a change: the restore then
    looks at every entry, as it must where anything may have changed."""
    return (
        len(modules) == len(before)
        and all(map(operator.is_, modules, before))
        and all(map(operator.is_, modules.values(), before.values()))
    )


#: The packages our code imports, some lazily: a user's ``sys.modules[name] = None`` for one of them (an import
#: blocked before we made it) is undone; the user's own blocks of other packages are theirs to keep.
OURS = ("pdp_audit", "numpy", "scipy", "statsmodels", "matplotlib", "pandas", "sklearn", "mpmath", "tqdm")


def _restore_modules(before: dict[str, Any]) -> None:
    """``sys.modules`` as our code needs it after a call into the user's code: every module that was imported before
    is there again (a factory that popped ``scipy`` or set ``sys.modules["scipy.stats"] = None`` made our next import
    fail: exit 4 for the user's change), and an import of ours the call blocked is unblocked.  Modules the user's code
    imported stay.  Where the call left ``sys.modules`` as it was (the same names, each the same object: what almost
    every sampler call does), there is nothing to restore, and that is found without a Python loop over the thousand
    or more modules (a black-box run calls the sampler hundreds of times)."""
    global _settled
    unchanged = _unchanged(sys.modules, before)
    _settled = unchanged and before is _last_modules
    if unchanged:
        return
    for name, module in before.items():
        if sys.modules.get(name) is not module and module is not None:
            sys.modules[name] = module
    for name in [n for n, m in sys.modules.items() if m is None and n not in before]:
        if name.partition(".")[0] in OURS:
            del sys.modules[name]


def _closed(stream: Any) -> bool:
    return getattr(stream, "closed", True)


def _usable(stream: Any, before: Any) -> Any:
    """``stream`` if it can still be written to, else the stream that was there before (or a new one on its file
    descriptor, where the user's code closed that object)."""
    for candidate in (stream, before):
        if candidate is not None and not getattr(candidate, "closed", True):
            return candidate
    try:
        fd = before.fileno() if before is not None else None
    except (OSError, ValueError, AttributeError):
        fd = None
    if fd is None:
        return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the process's stream from now on)
    try:
        return open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    except OSError:
        return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
