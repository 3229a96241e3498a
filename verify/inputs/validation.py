"""Parameter validation shared by every mechanism: one-line errors naming the parameter and its range.

:class:`InputError` is the suite's one exception type for bad user input (an option, a parameter, a
data file, a spec): the command line prints its message as one line and exits with code 2.  Any other
exception is an internal error.  It lives here, in the lowest layer, so that every package can raise it.
"""

from __future__ import annotations

import math
import numbers
import os
import stat
import sys
from typing import TypeGuard


class InputError(ValueError):
    """Bad user input: the message names the parameter (or file) and the valid range, in one line."""


def check_picklable(what: str, fix: str, *objects: object) -> None:
    """InputError unless every object pickles: worker processes receive a user's pair, sampler or mechanism by
    pickling, and a lambda or a class defined in a function cannot be sent (one line, before any block is
    submitted).  ``what`` names the object in the message ("pair"), ``fix`` says how to make it picklable."""
    import pickle

    for obj in objects:
        try:
            pickle.dumps(obj)
        except Exception as err:  # noqa: BLE001 - any pickling failure means the same thing here
            raise InputError(
                f"workers: the {what} cannot be sent to worker processes ({type(err).__name__}: {err}); {fix}, or "
                "use workers 1"
            ) from None


def quoted(text: object) -> str:
    """A string from a file, a key or a user's argument as an error message shows it: ``repr``-style, so that a
    line break, a carriage return or any other control character is escaped and the message stays one line."""
    return repr(str(text))


def shown(text: object) -> str:
    """A path or name as a message shows it in running text: as it is when every character is printable, else
    :func:`quoted` (a name holding a line break cannot start a forged line of its own)."""
    text = str(text)
    return text if text.isprintable() else quoted(text)


def one_line(message: str) -> str:
    """``message`` with every character that is not printable (line breaks, carriage returns, escapes, the
    Unicode line and paragraph separators) escaped as ``repr`` escapes it: what the command line prints is one
    line, whatever a file, a key or an argument held."""
    if message.isprintable():
        return message
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in message)


def not_a_regular_file(path: str | os.PathLike, what: str = "file", cap: int | None = None) -> str | None:
    """Why ``path`` cannot be read as an input file, as the words that follow it in a message (``"is a directory,
    not a CSV file"``), or None for (a link to) an existing regular file.  A FIFO, socket or device is named for
    what it is: reading one blocks or never ends, and it is no missing file.  ``cap``: the most bytes such a file
    is read up to, checked from its size before any read (a sparse 16 GB file was read until memory ran out)."""
    try:
        info = os.stat(path)
        mode = info.st_mode
    except FileNotFoundError:
        return "does not exist"
    except OSError as err:  # a loop of links, a name too long, a permission
        return f"cannot be read: {err.strerror or err}"
    if stat.S_ISDIR(mode):
        return f"is a directory, not a {what}"
    if not stat.S_ISREG(mode):
        return f"is not a regular file (a FIFO, a socket or a device); give a {what}"
    if cap is not None and info.st_size > cap:
        return f"is {info.st_size / 2**30:.1f} GiB; a {what} is read up to {cap / 2**30:g} GiB"
    return None


def finite_number(value: object) -> TypeGuard[float]:
    """Whether ``value`` read from a JSON document is a number that is finite as a float64: an int or float, not a
    boolean (JSON's ``true`` is no number), and not an integer beyond a double's range (``1e400`` written as digits
    reads as a Python int that ``math.isfinite`` cannot convert: it raised OverflowError, an internal error)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _number(name: str, value, valid: str) -> float:
    """``value`` as a float if it is a real number (numpy's scalars and 0-d arrays of real numbers included); a
    string, bytes, a boolean or a complex number is none (``float("1")`` and ``float(True)`` read them as numbers
    before), and an integer beyond the doubles (``10**400``) is refused in one line, not an OverflowError."""
    np = sys.modules.get("numpy")  # a value of numpy's exists only once numpy is loaded (--version loads none)
    real = isinstance(value, numbers.Real) or (
        np is not None and isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"
    )
    if not real or isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        raise InputError(f"{name} must be {valid}, got {_shown_value(value)}")
    try:
        return float(value)
    except (OverflowError, TypeError, ValueError):
        raise InputError(f"{name} must be {valid}, got {_shown_value(value)}") from None


def _shown_value(value: object) -> str:
    """``repr(value)``, at most 80 characters (an integer of 400 digits is named by its length)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:40]}… ({len(text)} characters)"


def positive(name: str, value: object, why: str = "") -> float:
    """``value`` as a float, or InputError unless it is a real number, finite and > 0 (``why`` is appended to the
    message)."""
    number = _number(name, value, "a finite number > 0")
    if not (math.isfinite(number) and number > 0):
        raise InputError(f"{name} must be a finite number > 0{why}, got {number!r}")
    return number


def nonnegative(name: str, value: object) -> float:
    """``value`` as a float, or InputError unless it is a real number, finite and >= 0."""
    number = _number(name, value, "a finite number >= 0")
    if not (math.isfinite(number) and number >= 0):
        raise InputError(f"{name} must be a finite number >= 0, got {number!r}")
    return number


def probability(name: str, value: float) -> float:
    """``value`` in the open interval (0, 1) (a δ, ρ or α)."""
    value = _number(name, value, "in (0, 1)")
    if not 0 < value < 1:
        raise InputError(f"{name} must be in (0, 1), got {value!r}")
    return value
