"""OpenDP's Polars API as the program audit reads it: a release that is collected once, and datasets that are frames.

OpenDP's Polars measurements (``make_private_lazyframe``, what ``Context.query().….release()`` asks of a compositor)
answer with a ``OnceFrame``: a one-shot handle whose ``collect()`` evaluates the private plan, drawing its noise in
OpenDP's own sampler, and refuses a second time.  The recorder collects it where the measurement answers (the same
plan on the same data, so the same law: nothing else happens between the answer and the program's own collect that
the plan reads) and hands the program a ``OnceFrame`` over the frame collected (:func:`handed`): a replay hands it
the recorded frame again, where the recorded handle would refuse.

Their argument is a frame (a ``LazyFrame`` or ``DataFrame``; pandas' too), whose distance under OpenDP's
``SymmetricDistance`` is that of its rows as a multiset (:func:`rows`), read by
:func:`.opendp_steps.dataset_distance` as it reads a vector's."""

from __future__ import annotations

import sys
from typing import Any


def collected(output: Any) -> Any | None:
    """The frame a measurement's ``OnceFrame`` output collects (its one evaluation); None for another output."""
    once = _once_frame_class()
    if once is None or not isinstance(output, once):
        return None
    handle: Any = output  # OpenDP's OnceFrame (its class found at run time)
    return handle.collect()


def handed(frame: Any) -> Any:
    """A ``OnceFrame`` whose ``collect()`` returns ``frame`` once and then refuses as OpenDP's does, and whose
    ``lazy()`` returns it as a ``LazyFrame`` (OpenDP's honest-but-curious escape): what the program is handed on the
    record and on every replay."""
    return _collected_class()(frame)


def rows(frame: Any) -> list | None:
    """A frame's rows as a list of tuples (a polars ``LazyFrame`` collected first, a pandas frame's values), or None
    where ``frame`` is no frame read here."""
    polars = sys.modules.get("polars")
    if polars is not None and isinstance(frame, (polars.LazyFrame, polars.DataFrame)):
        whole = frame.collect() if isinstance(frame, polars.LazyFrame) else frame
        return whole.rows()
    pandas = sys.modules.get("pandas")
    if pandas is not None and type(frame) is pandas.DataFrame:
        return [tuple(r) for r in frame.itertuples(index=False, name=None)]
    return None


def _once_frame_class() -> type | None:
    module = sys.modules.get("opendp.extras.polars")
    found = getattr(module, "OnceFrame", None)
    return found if isinstance(found, type) else None


_COLLECTED: dict[type, type] = {}


def _collected_class() -> type:
    """OpenDP's ``OnceFrame`` subclassed over a frame already collected (made once per ``OnceFrame`` class)."""
    once = _once_frame_class()
    assert once is not None, "handed() follows collected(), which found OpenDP's OnceFrame"
    if once not in _COLLECTED:

        class CollectedOnceFrame(once):  # type: ignore[misc,valid-type]
            """A ``OnceFrame`` over a frame the audit collected when the measurement answered."""

            def __init__(self, frame: Any):
                self._frame, self._spent = frame, False

            def collect(self) -> Any:
                if self._spent:
                    from opendp.mod import OpenDPException

                    raise OpenDPException("FailedFunction", "OnceFrame has been exhausted")
                self._spent = True
                return self._frame.clone()

            def lazy(self) -> Any:
                return self._frame.lazy()

        _COLLECTED[once] = CollectedOnceFrame
    return _COLLECTED[once]
