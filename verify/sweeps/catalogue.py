"""The mechanisms ``pdp-audit sweep`` can run, as an explicit tuple.

A new one: a module in ``verify/sweeps/`` defining a :class:`~verify.sweeps.schema.SweepMechanism`
(its parameter schema and cell function), and one line here.
"""

from __future__ import annotations

from verify.sweeps import gaussian
from verify.sweeps.schema import SweepMechanism

SWEEPS: tuple[SweepMechanism, ...] = (gaussian.SWEEP,)
