"""Chunks of a batch spread over the cores on threads, with BLAS limited to one thread meanwhile.

A batch of mid-sized dense problems (the ObjPert solver's trials, the privacy loss of many releases) is split into
chunks of rows; :func:`for_chunks` runs them side by side on threads, each with single-threaded BLAS, rather than
one at a time with BLAS's own threads (see its notes for why).  The BLAS limit is set through threadpoolctl and is
process-wide, so concurrent callers share it (:class:`_OneBlasThread`).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from threading import Lock
from typing import Callable

from pdp_audit.verify.inputs.workers import available_cores

#: threadpoolctl's controller of the native thread pools loaded, and the state of ``sys.modules`` it was made at
#: (:func:`native_pools`): ``threadpool_limits`` scans every loaded library again at each call (1.4 ms for BLAS,
#: 3 ms with scikit-learn's OpenMP), where a controller's limit costs 12-15 µs (measured 2026-11-26, load 3.6-6).
_POOLS = None
_POOLS_AT: tuple[int, str] | None = None


def native_pools():
    """threadpoolctl's controller of the native thread pools (BLAS, OpenMP) loaded in this process, which every limit
    of ours goes through; made again whenever a module was imported since (``sys.modules`` grew or has another last
    entry): a pool enters the process with an extension module (numpy's BLAS with numpy, scipy's own with
    ``scipy.linalg``, OpenMP with scikit-learn's trees), and one loaded after the controller was made must be limited
    too.  None without threadpoolctl (a declared dependency)."""
    global _POOLS, _POOLS_AT
    at = (len(sys.modules), next(reversed(sys.modules)))
    if _POOLS is None or at != _POOLS_AT:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - a declared dependency
            return None
        _POOLS = ThreadpoolController()
        _POOLS_AT = (len(sys.modules), next(reversed(sys.modules)))  # after the import of threadpoolctl
    return _POOLS


class _OneBlasThread:
    """BLAS limited to one thread while any caller is inside.  The limit is process-wide, so concurrent callers
    share it: the first to enter sets it, the last to leave restores the original."""

    def __init__(self):
        self._lock, self._users, self._limiter = Lock(), 0, None

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0 and native_pools() is not None:
                self._limiter = native_pools().limit(limits=1, user_api="blas")
            self._users += 1

    def __exit__(self, *exc) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._limiter is not None:
                self._limiter.restore_original_limits()
                self._limiter = None


_ONE_BLAS_THREAD = _OneBlasThread()


def _cores() -> int:
    """Threads for the chunks: the cores this process may use, but no more than BLAS is allowed now -- a worker
    process whose pool limited BLAS to one thread (one worker per core) must not add threads of its own."""
    cores = available_cores()
    controller = native_pools()
    if controller is None:
        return cores
    blas = [lib.num_threads for lib in controller.select(user_api="blas").lib_controllers]
    return min(cores, max(blas, default=cores))


def for_chunks(work: Callable[[slice], None], rows: int, step: int, parallel: bool = True) -> None:
    """``work(chunk)`` for the consecutive slices of ``step`` rows of ``rows``, the chunks spread over the cores.

    Several chunks run on threads, each with single-threaded BLAS: a chunk's GEMMs are mid-sized and the rest
    (ufuncs, per-matrix LAPACK calls) is single-threaded anyway, so chunks side by side use the cores better than
    one chunk at a time with BLAS threads waiting on each other -- which also stall badly when the machine is
    shared (2.7x slower, measured on 2 busy cores).  numpy releases the GIL in all of these; the chunks and the
    BLAS setting, and so the results, do not depend on the number of threads or cores.  ``parallel=False``: one
    chunk at a time (work that holds the GIL, such as the per-point Python loops of a non-GLM loss, gains nothing
    from threads).  A single chunk runs as called: switching BLAS's thread count would slow the caller's next
    small BLAS calls.
    """
    chunks = [slice(lo, lo + step) for lo in range(0, rows, step)]
    if len(chunks) < 2:
        for chunk in chunks:
            work(chunk)
        return
    threads = min(len(chunks), _cores()) if parallel else 1  # read before BLAS is limited below
    with _ONE_BLAS_THREAD:
        if threads < 2:
            for chunk in chunks:
                work(chunk)
            return
        with ThreadPoolExecutor(threads) as pool:
            for _ in pool.map(work, chunks):  # re-raises the first error of a chunk
                pass
