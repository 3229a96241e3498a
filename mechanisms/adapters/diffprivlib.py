"""A diffprivlib mechanism on two neighbouring values, as a pair (diffprivlib 0.6; scikit-learn < 1.8 beside it --
0.6.6 does not import with scikit-learn 1.8 or later).

**What is drawn.**  ``sample(world, n, rng)`` calls the mechanism's ``randomise`` n times on the world's value, as a
user would (about 7 µs a call with 0.6.6).  With ``seeded=True`` (the default) each call of ``sample`` first gives a
copy of the mechanism a ``numpy.random.RandomState`` seeded from ``rng`` -- diffprivlib rejects numpy's
``Generator`` -- so the audit is reproducible; with ``seeded=False`` the mechanism keeps its own ``random_state``
(numpy's global generator by default) and the audit says it is not reproducible.

**The loss** of the release, from the mechanism's own parameters (ε, δ, sensitivity Δ, bounds) and the scale it
draws with (its ``_scale`` where it has one, else the documented formula); each law follows the library's sampler
(:mod:`pdp_audit.mechanisms.adapters.diffprivlib_laws`):

* ``Laplace``: b = Δ/(ε − log(1 − δ)) (Holohan et al. 2018), L(o) = (|o − v'| − |o − v|)/b;
* ``LaplaceTruncated``: the same release clipped to [l, u], atoms at the bounds (their tail masses' log-ratio);
* ``LaplaceBoundedDomain``: Laplace of the library's ``_find_scale()`` conditioned on [l, u] (rejection sampling),
  the inputs clipped first: the Laplace loss plus log C(v') − log C(v), C the mass of [l, u];
* ``Geometric``: P(k) ∝ e^{−ε|k|/Δ}, L(o) = ε(|o − v'| − |o − v|)/Δ;
* ``Gaussian`` (σ = Δ√(2 log(1.25/δ))/ε) and ``GaussianAnalytic`` (Balle & Wang 2018):
  L(o) = [(o − v')² − (o − v)²]/(2σ²);
* ``Exponential``: the inputs are two utility lists, the release a candidate's index, L(i) = log p_i − log p'_i with
  p_i ∝ μ_i e^{εu_i/((2 − m)Δ)};
* ``Binary``: the inputs are two labels, the release 1 for ``value1``, L = ±ε.

**As implemented.**  Each loss is the exact loss of the *real-valued* law the library's sampler stands for.  The
float mechanisms (``Laplace``, ``LaplaceTruncated``, ``LaplaceBoundedDomain``, ``Gaussian``, ``GaussianAnalytic``)
add their noise to the value in float64, so a release carries the value's precision (Mironov, CCS 2012; Haney et al.
2022, "Precision-based attacks and interval refining"): with the value 0, about a fifth of ``Laplace``'s releases
lie in (−1/2, 1/2) off the grid 2^−53·ℤ, with the value 1 none do, so they are not DP as implemented at any ε below
the attack's, and ``pdp_audit.audit_pair`` at its default law (``"as-implemented"``) fails ``loss-consistency``
naming that witness event and its frequency in each world.  ``Geometric``, ``Binary`` and ``Exponential`` release
integers or candidates and certify as implemented; ``PairBudget(law="ideal")`` certifies the float mechanisms'
real-valued laws, and the certificate says the float implementation was not audited.

The loss is the library's sampler turned into a density ratio: ``loss-consistency`` checks it against the draws.  The
claim (:attr:`MechanismPair.claim`) is the mechanism's (ε, δ); a pair whose values differ by more than Δ (a
sensitivity misdeclared) is what the audit refutes.  No pair declares a noise view: diffprivlib draws its Laplace
from four uniforms, its bounded variants by clipping or rejection, so none replays the canonical draws
(:mod:`pdp_audit.verify.estimators.view_replay`); a tight claim is decided from the draws alone (certify with a
margin).  Other mechanisms (``Staircase``, ``Snapping``, ``Uniform``, ``Bingham``, ``Vector``, ``PermuteAndFlip``,
…) are not adapted: audit them black-box, with ``sample`` only.

**Tools** (``diffprivlib.tools.mean``, ``var``, ``histogram``, …) have no exact loss here: :class:`ToolPair` runs one
on two neighbouring datasets as a black-box pair (``pdp_audit.audit_blackbox``, ``pdp-audit blackbox``), one call a
release (120–190 µs for ``tools.mean``: the black box fits its default budget to that speed), seeded through a
``RandomState`` like the mechanisms; :mod:`pdp_audit.mechanisms.adapters.diffprivlib_tools` makes such pairs for
``tools.histogram`` and ``tools.count_nonzero`` on a dataset and its neighbour.
"""

from __future__ import annotations

import copy
import inspect
import math
import random
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pdp_audit.mechanisms.adapters import diffprivlib_laws as laws
from pdp_audit.mechanisms.validation import InputError

#: The adapted mechanisms and the law of their releases (:mod:`pdp_audit.mechanisms.adapters.diffprivlib_laws`).
LAWS = {
    "Laplace": "laplace",
    "Geometric": "geometric",
    "Gaussian": "gaussian",
    "GaussianAnalytic": "gaussian",
    "LaplaceTruncated": "truncated",
    "LaplaceBoundedDomain": "bounded",
    "Exponential": "exponential",
    "Binary": "binary",
}


class MechanismPair:
    """``mechanism.randomise`` on ``value`` (world D) and ``value_prime`` (D'), scalar releases.

    Args:
      mechanism: a diffprivlib mechanism named in :data:`LAWS`.
      value, value_prime: the two inputs (their difference is the sensitivity the pair exercises): numbers; for
        ``Exponential`` the two utility lists (one score per candidate; the release is the candidate's index); for
        ``Binary`` two of its labels (the release is 1 for ``value1``, 0 for ``value0``).
      seeded: draw from a ``RandomState`` seeded from the audit's generator (reproducible), or from the
        mechanism's own ``random_state``.
    """

    output_dim = 1

    def __init__(self, mechanism, value, value_prime, seeded: bool = True):
        kind = type(mechanism).__name__
        if kind not in LAWS:
            raise InputError(f"diffprivlib.{kind} is not adapted (one of {', '.join(LAWS)}): audit it black-box")
        self.mechanism, self.kind, self.law, self.seeded = mechanism, kind, LAWS[kind], seeded
        self.values = {"D": value, "D'": value_prime}
        self.worlds = {world: _world_mechanism(mechanism, kind, v) for world, v in self.values.items()}
        self.claim = (float(mechanism.epsilon), float(mechanism.delta))
        self._loss = _law(mechanism, kind, value, value_prime)

    def _drawing(self, world: str, rng: np.random.Generator):
        mechanism = self.worlds[world]
        if not self.seeded:
            return mechanism
        drawing = copy.copy(mechanism)
        drawing.random_state = np.random.RandomState(int(rng.integers(2**32)))
        drawing._rng = drawing.random_state  # what randomise draws from (set once, in __init__, by the library)
        return drawing

    def __getstate__(self) -> dict:
        """What a worker process receives: the mechanisms without their system entropy source (``random.SystemRandom``,
        diffprivlib's default, has no state to pickle); the worker gives each its own (:meth:`__setstate__`).  A
        seeded pair replaces the source at every draw anyway.  An unseeded pair whose mechanism keeps a generator
        state of its own (a ``random_state`` the user fixed) is not sent: every worker would get a copy of that state
        and repeat the others' releases, which the audit's statistics take as independent."""
        if not self.seeded and not all(_system_source(m) for m in (self.mechanism, *self.worlds.values())):
            raise TypeError(
                "the mechanism draws from a generator state of its own (its random_state): copies in "
                "worker processes would repeat each other's releases"
            )
        state = dict(self.__dict__)
        state["mechanism"] = _without_system_source(self.mechanism)
        state["worlds"] = {world: _without_system_source(m) for world, m in self.worlds.items()}
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        state["mechanism"] = _with_system_source(state["mechanism"])
        state["worlds"] = {world: _with_system_source(m) for world, m in state["worlds"].items()}
        self.__dict__.update(state)

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        mechanism = self._drawing(world, rng)
        value = None if self.kind == "Exponential" else self.values[world]
        draws = [mechanism.randomise(value) for _ in range(int(size))]
        if self.kind == "Binary":
            draws = [release == self.mechanism.value1 for release in draws]
        return np.asarray(draws, dtype=float)[:, None]

    def privacy_loss(self, outputs: np.ndarray) -> np.ndarray:
        return self._loss(np.atleast_2d(np.asarray(outputs, dtype=float))[:, 0])


def _system_source(mechanism) -> bool:
    """Whether ``mechanism`` draws from the system's entropy (diffprivlib's default), which no copy repeats."""
    return isinstance(getattr(mechanism, "_rng", None), random.SystemRandom)


def _without_system_source(mechanism):
    """A copy of ``mechanism`` whose system entropy source is a marker (None), for pickling."""
    if not _system_source(mechanism):
        return mechanism
    bare = copy.copy(mechanism)
    bare._rng = None
    return bare


def _with_system_source(mechanism):
    """``mechanism`` given a system entropy source of this process where it was sent without one."""
    if getattr(mechanism, "_rng", False) is None and getattr(mechanism, "random_state", None) is None:
        mechanism._rng = random.SystemRandom()
    return mechanism


def _world_mechanism(mechanism, kind: str, value):
    """The mechanism a world runs: itself, or for ``Exponential`` a copy scoring that world's utility (its
    candidates' labels dropped, so the release is the index)."""
    if kind != "Exponential":
        return mechanism
    world = copy.copy(mechanism)
    world.utility, world.candidates = list(value), None
    world._check_utility_candidates_measure(world.utility, None, world.measure)
    world._probabilities = world._find_probabilities(
        world.epsilon, world.sensitivity, world.utility, world.monotonic, world.measure
    )
    return world


def _law(mechanism, kind: str, value, value_prime):
    """o ↦ log p_D(o) − log p_D'(o) of the library's sampler (:mod:`.diffprivlib_laws`), a picklable callable."""
    law = LAWS[kind]
    if law == "exponential":
        return _table_loss(_exponential_table(mechanism, value, value_prime))
    if law == "binary":
        return _table_loss(_binary_table(mechanism, value, value_prime))
    v, v_prime, scale = float(value), float(value_prime), noise_scale(mechanism)
    if law == "gaussian":
        return _Loss(_gaussian_loss, (v, v_prime, scale))
    if law in ("laplace", "geometric"):
        return _Loss(laws.laplace_loss, (v, v_prime, scale))
    bounds = (float(mechanism.lower), float(mechanism.upper))
    if law == "truncated":
        return _Loss(laws.truncated_laplace_loss, (v, v_prime, scale, *bounds))
    return _Loss(laws.bounded_domain_loss, (v, v_prime, scale, *bounds))


@dataclass(frozen=True)
class _Loss:
    """``function(o, *args)``: a loss with its parameters bound, which pickles (a closure would not, and a pair goes
    to worker processes by pickling)."""

    function: Callable[..., np.ndarray]
    args: tuple

    def __call__(self, o: np.ndarray) -> np.ndarray:
        return self.function(o, *self.args)


def _gaussian_loss(o: np.ndarray, v: float, v_prime: float, scale: float) -> np.ndarray:
    return ((o - v_prime) ** 2 - (o - v) ** 2) / (2 * scale**2)


def _table_lookup(o: np.ndarray, table: np.ndarray) -> np.ndarray:
    return table[o.astype(int)]


def _table_loss(table: np.ndarray):
    """The loss of a release that is an index into ``table`` (a candidate, a label)."""
    return _Loss(_table_lookup, (table,))


def _exponential_table(mechanism, utility, utility_prime) -> np.ndarray:
    """log p_i − log p'_i per candidate of ``Exponential`` on the two utility lists."""
    if not float(mechanism.sensitivity) > 0 or math.isinf(float(mechanism.epsilon)):
        raise InputError("diffprivlib.Exponential with sensitivity 0 or ε = inf is not adapted: audit it black-box")
    if len(utility) != len(utility_prime) or len(utility) != len(mechanism.utility):
        raise InputError("the two utility lists must have one score per candidate of the mechanism")
    args = (float(mechanism.epsilon), float(mechanism.sensitivity), mechanism.monotonic, mechanism.measure)
    return laws.exponential_log_probabilities(utility, *args) - laws.exponential_log_probabilities(utility_prime, *args)


def _binary_table(mechanism, label, label_prime) -> np.ndarray:
    """log P(o) − log P'(o), o = 0 (``value0``), 1 (``value1``), of ``Binary`` on the two labels."""
    labels = (mechanism.value0, mechanism.value1)
    if label not in labels or label_prime not in labels:
        raise InputError(f"diffprivlib.Binary's inputs are its labels {labels}, got {label!r} and {label_prime!r}")
    eps = float(mechanism.epsilon)
    return laws.binary_log_probabilities(eps, labels.index(label)) - laws.binary_log_probabilities(
        eps, labels.index(label_prime)
    )


def noise_scale(mechanism) -> float:
    """The scale the mechanism draws with: b (Laplace and its bounded variants), Δ/ε (Geometric: e^{−|k|/b}), σ
    (Gaussian)."""
    kind = type(mechanism).__name__
    eps, delta, sensitivity = float(mechanism.epsilon), float(mechanism.delta), float(mechanism.sensitivity)
    if kind == "Geometric":
        return sensitivity / eps
    probe = copy.copy(mechanism)
    probe.random_state = probe._rng = np.random.RandomState(0)
    if kind == "LaplaceBoundedDomain":
        return float(probe._find_scale())  # what randomise sets _scale to on its first call
    probe.randomise(0.0)  # sets _scale where the library computes it lazily
    scale = getattr(probe, "_scale", None)
    if scale is not None:
        return float(scale)
    if kind in ("Laplace", "LaplaceTruncated"):
        return sensitivity / (eps - math.log(1 - delta))
    if kind == "Gaussian":
        return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
    raise InputError(f"diffprivlib.{kind}: its noise scale could not be read")


class ToolPair:
    """``tool(data, **options)`` on a dataset (world D) and its neighbour (D'), as a black-box pair: ``sample`` only.

    Args:
      tool: a diffprivlib tool, e.g. ``diffprivlib.tools.mean``.
      data, neighbour: the two datasets (arrays the tool accepts).
      seeded: give each call of ``sample`` a ``RandomState`` seeded from the audit's generator (reproducible; every
        diffprivlib tool takes ``random_state``), or leave the tool to draw from its own (not reproducible).  A
        ``random_state`` among ``options`` is kept either way.
      options: the tool's keyword arguments as deployed (``epsilon``, ``bounds``, …).

    Each release is flattened to one row (a histogram's counts, a scalar's one value).  Unless ``options`` names an
    ``accountant``, each call of ``sample`` gives the tool a fresh ``BudgetAccountant`` of its own: the audit's
    millions of calls are not spent from (nor appended to) the process's default accountant."""

    def __init__(self, tool, data, neighbour, seeded: bool = True, **options):
        self.tool, self.options, self.seeded = tool, options, seeded
        self.data = {"D": data, "D'": neighbour}

    def _call_options(self, rng: np.random.Generator) -> dict:
        from diffprivlib.accountant import BudgetAccountant

        options = dict(self.options)
        if self.seeded and "random_state" not in options:
            options["random_state"] = np.random.RandomState(int(rng.integers(2**32)))
        if "accountant" not in options and "accountant" in inspect.signature(self.tool).parameters:
            options["accountant"] = BudgetAccountant()
        return options

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        options, data = self._call_options(rng), self.data[world]
        rows = [np.ravel(np.asarray(_first(self.tool(data, **options)), dtype=float)) for _ in range(int(size))]
        return np.asarray(rows, dtype=float).reshape(int(size), -1)


def _first(release):
    """A tool's release (``histogram`` returns (counts, edges): the counts are the release)."""
    return release[0] if isinstance(release, tuple) else release
