"""What the release codec's readers append through: one encoding's walk (:class:`release_codec.Walk` is it).

The readers of numpy, pandas, torch and namedtuple objects (:mod:`release_arrays`, :mod:`release_frames`,
:mod:`release_tensors`, :mod:`release_namedtuples`) know the walk by this interface only, so that the codec imports
them and none of them imports the codec.
"""

from __future__ import annotations

from typing import Any, NoReturn, Protocol

import numpy as np


class Encoder(Protocol):
    """One encoding in progress: ``source`` names who returned the release (for refusals)."""

    source: str

    def node(self, node: tuple) -> None:
        """Append a structure node."""

    def array(self, numbers: np.ndarray) -> None:
        """Append float64 numbers."""

    def value(self, x: Any) -> None:
        """Encode ``x`` in turn (a back-reference where it was met before), one level deeper."""

    def label(self, value: Any) -> tuple:
        """``value`` as a plain hashable tuple, read in this encoding's memo and depth."""

    def buffer(self, start: int, size: int) -> int | None:
        """The ordinal of the buffer met before that is exactly ``size`` bytes at ``start``, else None (it is
        remembered); refused where it overlaps one partly."""

    def refuse(self, what: str, fix: str = ...) -> NoReturn:
        """Refuse the release in one line naming ``what`` it holds and how to return it instead."""
