"""Where a user's program raised: the line of its own code that a one-line error names.

A program's fault is reported in one line (never a traceback): the exception and the place in the user's code it
came from -- the deepest frame of the traceback that is neither pdp-audit's own (its recorder wraps the generator
the program draws from) nor Python's library or an installed package (a ``KeyError`` raised deep in pandas is the
user's ``data["nope"]``); where every frame is a library's (a program that is itself an installed function, such as
``numpy:sum``), the outermost frame outside pdp-audit: the function called.
"""

from __future__ import annotations

import os
import traceback
from types import FrameType
from typing import Iterable

from pdp_audit.verify.core.libraries import in_library

#: The namespace of pdp-audit's own modules.
OURS = "pdp_audit"


def _ours(frame: FrameType) -> bool:
    name = frame.f_globals.get("__name__")
    return isinstance(name, str) and (name == OURS or name.startswith(OURS + "."))


def raised_at(err: BaseException) -> str | None:
    """``h.py, line 10, in release``: where the user's code raised ``err`` (module notes); None where its traceback
    shows no frame outside pdp-audit."""
    frames = [(frame, line) for frame, line in traceback.walk_tb(err.__traceback__) if not _ours(frame)]
    if not frames:
        return None
    own = [(frame, line) for frame, line in frames if not in_library(frame.f_code.co_filename)]
    frame, line = own[-1] if own else frames[0]
    return _place(frame, line)


def stack_place(frames: Iterable[tuple[FrameType, int]]) -> str | None:
    """Where the user's code stands in a stack (``traceback.walk_stack``: innermost first), as :func:`raised_at`
    writes it: its innermost frame that is neither pdp-audit's nor Python's library's or an installed package's
    (``pd.read_csv`` reached from the user's line); None where no frame is the user's."""
    for frame, line in frames:
        if not _ours(frame) and not in_library(frame.f_code.co_filename):
            return _place(frame, line)
    return None


def _place(frame: FrameType, line: int) -> str:
    return f"{_shown(frame.f_code.co_filename)}, line {line}, in {frame.f_code.co_name}"


def _shown(filename: str) -> str:
    """The file relative to the current folder where it is inside it, else as the code object names it."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive (Windows)
        return filename
    return filename if relative.startswith(os.pardir) else relative
