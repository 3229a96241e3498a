"""A diffprivlib mechanism on two neighbouring values, as a pair (diffprivlib 0.6; scikit-learn < 1.8 beside it --
0.6.6 does not import with scikit-learn 1.8 or later).

**What is drawn.**  ``sample(world, n, rng)`` calls the mechanism's ``randomise`` n times on the world's value, as a
user would (about 7 µs a call with 0.6.6).  With ``seeded=True`` (the default) each call of ``sample`` first gives a
copy of the mechanism a ``numpy.random.RandomState`` seeded from ``rng`` -- diffprivlib rejects numpy's
``Generator`` -- so the audit is reproducible; with ``seeded=False`` the mechanism keeps its own ``random_state``
(numpy's global generator by default) and the audit says it is not reproducible.

**The loss** of the noise the mechanism adds, from its own parameters (ε, δ, sensitivity Δ) and the scale it draws
with (its ``_scale`` after one draw where it has one, else the documented formula):

* ``Laplace``: b = Δ/(ε − log(1 − δ)) (Holohan et al. 2018), L(o) = (|o − v'| − |o − v|)/b;
* ``Geometric``: P(k) ∝ e^{−ε|k|/Δ}, L(o) = ε(|o − v'| − |o − v|)/Δ;
* ``Gaussian`` (σ = Δ√(2 log(1.25/δ))/ε) and ``GaussianAnalytic`` (Balle & Wang 2018):
  L(o) = [(o − v')² − (o − v)²]/(2σ²).

The loss is the library's scale turned into a density ratio: ``loss-consistency`` checks it against the draws.  The
claim (:attr:`MechanismPair.claim`) is the mechanism's (ε, δ); a pair whose values differ by more than Δ (a
sensitivity misdeclared) is what the audit refutes.  Other mechanisms (``Exponential``, ``Binary``, the bounded and
truncated Laplace variants) are not adapted as white-box pairs: audit them black-box, with ``sample`` only.

**Tools** (``diffprivlib.tools.mean``, ``var``, ``histogram``, …) have no exact loss here: :class:`ToolPair` runs one
on two neighbouring datasets as a black-box pair (``pdp_audit.audit_blackbox``, ``pdp-audit blackbox``), one call a
release (120–190 µs for ``tools.mean``: the black box fits its default budget to that speed).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from pdp_audit.mechanisms.validation import InputError

#: The adapted mechanisms and the family of their noise.
LAWS = {"Laplace": "laplace", "Geometric": "laplace", "Gaussian": "gaussian", "GaussianAnalytic": "gaussian"}


class MechanismPair:
    """``mechanism.randomise`` on ``value`` (world D) and ``value_prime`` (D'), scalar releases.

    Args:
      mechanism: a diffprivlib ``Laplace``, ``Geometric``, ``Gaussian`` or ``GaussianAnalytic``.
      value, value_prime: the two inputs (their difference is the sensitivity the pair exercises).
      seeded: draw from a ``RandomState`` seeded from the audit's generator (reproducible), or from the
        mechanism's own ``random_state``.
    """

    output_dim = 1

    def __init__(self, mechanism, value: float, value_prime: float, seeded: bool = True):
        kind = type(mechanism).__name__
        if kind not in LAWS:
            raise InputError(f"diffprivlib.{kind} is not adapted (one of {', '.join(LAWS)}): audit it black-box")
        self.mechanism, self.kind, self.law, self.seeded = mechanism, kind, LAWS[kind], seeded
        self.values = {"D": value, "D'": value_prime}
        self.v, self.v_prime = float(value), float(value_prime)
        self.scale = noise_scale(mechanism)
        self.claim = (float(mechanism.epsilon), float(mechanism.delta))

    def _drawing(self, rng: np.random.Generator):
        if not self.seeded:
            return self.mechanism
        drawing = copy.copy(self.mechanism)
        drawing.random_state = np.random.RandomState(int(rng.integers(2**32)))
        drawing._rng = drawing.random_state  # what randomise draws from (set once, in __init__, by the library)
        return drawing

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        mechanism, value = self._drawing(rng), self.values[world]
        return np.asarray([mechanism.randomise(value) for _ in range(int(size))], dtype=float)[:, None]

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        o = np.atleast_2d(np.asarray(outputs, dtype=float))[:, 0]
        if self.law == "laplace":
            return (np.abs(o - self.v_prime) - np.abs(o - self.v)) / self.scale
        return ((o - self.v_prime) ** 2 - (o - self.v) ** 2) / (2 * self.scale**2)


def noise_scale(mechanism) -> float:
    """The scale the mechanism draws with: b (Laplace), Δ/ε (Geometric: e^{−|k|/b}), σ (Gaussian)."""
    kind = type(mechanism).__name__
    eps, delta, sensitivity = float(mechanism.epsilon), float(mechanism.delta), float(mechanism.sensitivity)
    if kind == "Geometric":
        return sensitivity / eps
    probe = copy.copy(mechanism)
    probe.random_state = probe._rng = np.random.RandomState(0)
    probe.randomise(0 if kind == "Geometric" else 0.0)  # sets _scale where the library computes it lazily
    scale = getattr(probe, "_scale", None)
    if scale is not None:
        return float(scale)
    if kind == "Laplace":
        return sensitivity / (eps - math.log(1 - delta))
    if kind == "Gaussian":
        return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
    raise InputError(f"diffprivlib.{kind}: its noise scale could not be read")


class ToolPair:
    """``tool(data, **options)`` on a dataset (world D) and its neighbour (D'), as a black-box pair: ``sample`` only.

    Args:
      tool: a diffprivlib tool, e.g. ``diffprivlib.tools.mean``.
      data, neighbour: the two datasets (arrays the tool accepts).
      options: the tool's keyword arguments as deployed (``epsilon``, ``bounds``, …); a ``random_state`` given here
        is kept, else the tool draws from its own (not reproducible).

    Each release is flattened to one row (a histogram's counts, a scalar's one value)."""

    def __init__(self, tool, data, neighbour, **options):
        self.tool, self.options = tool, options
        self.data = {"D": data, "D'": neighbour}

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        rows = [
            np.ravel(np.asarray(_first(self.tool(self.data[world], **self.options)), dtype=float))
            for _ in range(int(size))
        ]
        return np.asarray(rows, dtype=float).reshape(int(size), -1)


def _first(release):
    """A tool's release (``histogram`` returns (counts, edges): the counts are the release)."""
    return release[0] if isinstance(release, tuple) else release
