"""Progress bars of the long passes (blocks of draws, the black box's releases, a sweep's cells): tqdm on standard
error when it is a terminal, nothing at all on a file or a pipe (a log keeps no carriage-return debris).  One place
decides where a bar goes and how it looks; the passes only say what they count."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, ContextManager, Iterable, Iterator


def shows_progress(progress: bool) -> bool:
    """Whether a pass asked for ``progress`` gets a bar: only on a terminal's stderr."""
    return bool(progress) and sys.stderr.isatty()


def progress_bar(
    total: int, desc: str, unit: str, progress: bool, *, initial: int = 0, delay: float = 0.0, unit_scale: bool = False
) -> ContextManager[Any]:
    """A bar of ``total`` ``unit``s named ``desc`` (a context manager giving the tqdm bar, or None where no bar is
    shown: :func:`shows_progress`); ``delay``: seconds before it appears, ``unit_scale``: counts as 1.3M."""
    if not shows_progress(progress):
        return contextlib.nullcontext(None)
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        delay=delay,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    )


def with_progress(items: Iterable[Any], total: int, desc: str, unit: str, progress: bool) -> Iterator[Any]:
    """``items`` one by one, each counted on a bar (:func:`progress_bar`) that closes when they run out."""
    with progress_bar(total, desc, unit, progress) as bar:
        for item in items:
            yield item
            if bar is not None:
                bar.update(1)
