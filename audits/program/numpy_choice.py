"""``rng.choice(k, p=w)`` as the composition reads it: the law numpy's implementation draws, once per index drawn.

**The law** (:func:`pdp_audit.mechanisms.numpy_samplers.choice_law`).  numpy draws an index by searching one
uniform double m/2^53 in the cdf it computes from the weights given (``cdf = p.cumsum(); cdf /= cdf[-1]``), so index i
has mass #{m: c_{i−1} ≤ m/2^53 < c_i}/2^53, exactly -- not w_i/Σw: a weight near 2^−53 rounds to a whole count of
the grid, and two weights whose ratio is 1 + 10⁻⁷ can draw with masses 1 and 2 counts (ε = log 2, not 10⁻⁷).  The
step is a :class:`~.step_laws.Discrete` of those masses on D and on D′ (its ``exact`` masses, rationals), under either
``--law``: the law is known exactly, no float porousness to set apart.

**Its count** (:func:`choice_steps`).  ``choice(k, size=n, p=w)`` with replacement draws n indices, each from its
own uniform (``uniform_samples = self.random(shape)``): n independent draws of one law, n steps (the basic
composition of their losses is their exact product law's, :mod:`.choice_delta`).  Before, one step stood for all n:
five draws of an ε = 0.44 exponential mechanism were certified at ε = 1.  Without replacement numpy draws the next
index from the weights left (a law of its own): more than one such index is not composed (no law here, undecided).

*Sound for* numpy's ``Generator.choice`` as in its source (``_generator.pyx``), the weights recorded being those
given, and an ideal bit generator (:mod:`~pdp_audit.mechanisms.numpy_samplers`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from pdp_audit.audits.program import step_laws
from pdp_audit.mechanisms import numpy_samplers

#: Why a choice of several indices without replacement is not composed.
WITHOUT_REPLACEMENT = "several indices drawn without replacement: no law here"


def implemented(weights: np.ndarray) -> tuple[Fraction, ...] | None:
    """The masses numpy draws index i with, from the ``weights`` given (module notes); None where numpy would refuse
    them (a negative, NaN or zero total: the program raised already on the side that gave them)."""
    if weights.size == 0 or not np.all(np.isfinite(weights)) or np.any(weights < 0) or not weights.sum() > 0:
        return None
    law = numpy_samplers.choice_law(weights)
    return tuple(Fraction(c, law.denominator) for c in law.counts)


def choice_steps(k: int, call: Any, weights: tuple[np.ndarray, np.ndarray]) -> tuple[list[step_laws.Step], str]:
    """The steps of choice call ``k`` (its recorded ``call``) with weights ``weights`` on D and on D′: one per index
    drawn, each of numpy's implemented law (module notes); and why there are none ("" where there are)."""
    p, q = weights
    count = math.prod(call.shape or ())
    if count > 1 and not call.parameters.get("replace", True):
        return [], WITHOUT_REPLACEMENT
    exact_p, exact_q = implemented(p), implemented(q)
    floats = (tuple(p.tolist()), tuple(q.tolist()))
    if exact_p is None or exact_q is None:  # as before: the weights over their sum
        step = step_laws.Discrete(call=k, label="choice", p=tuple(p / p.sum()), q=tuple(q / q.sum()), weights=floats)
    else:
        as_floats = (tuple(float(v) for v in exact_p), tuple(float(v) for v in exact_q))
        step = step_laws.Discrete(call=k, label="choice", p=as_floats[0], q=as_floats[1], exact=(exact_p, exact_q))
    return [step] * count, ""
