"""Our arithmetic under our own floating-point rules, whatever the caller or the user's code set.

NumPy's error handling (``np.seterr``) and Python's warning filters are process state: a caller's
``np.seterr(all="raise")`` or ``warnings.simplefilter("error")`` turned an underflow in one of our interval
computations into a FloatingPointError out of ``audit_pair``, and a factory that set them did the same to a
certificate.  Every public entry point runs under :func:`own_float_rules` (every floating-point condition ignored:
our code checks finiteness where it matters, and a warning of ours is noise on the user's terminal), and every call
into the user's code under :func:`user_float_rules`, so that what that code sets is undone when it returns.
"""

from __future__ import annotations

import functools
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def own_float_rules() -> Iterator[None]:
    """Every NumPy floating-point condition ignored and RuntimeWarnings silenced, restored on exit."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def with_own_float_rules(function: F) -> F:
    """``function`` run under :func:`own_float_rules` (for the public API's functions)."""

    @functools.wraps(function)
    def ruled(*args: Any, **kwargs: Any) -> Any:
        with own_float_rules():
            return function(*args, **kwargs)

    return ruled  # type: ignore[return-value]


@contextmanager
def user_float_rules() -> Iterator[None]:
    """Around a call into the user's code: whatever ``np.seterr`` it calls is undone when it returns."""
    with np.errstate():
        yield
