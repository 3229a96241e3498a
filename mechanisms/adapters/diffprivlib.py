"""A diffprivlib mechanism on two neighbouring values, as a pair (diffprivlib 0.6; scikit-learn < 1.8 beside it --
0.6.6 does not import with scikit-learn 1.8 or later).

**What is drawn.**  ``sample(world, n, rng)`` calls the mechanism's ``randomise`` n times on the world's value, as a
user would (about 7 µs a call with 0.6.6).  With ``seeded=True`` (the default) each call of ``sample`` first gives a
copy of the mechanism a ``numpy.random.RandomState`` seeded from ``rng`` -- diffprivlib rejects numpy's
``Generator`` -- so the audit is reproducible; with ``seeded=False`` the mechanism keeps its own ``random_state``
(numpy's global generator by default) and the audit says it is not reproducible.

**The loss** of the release, from the mechanism's own parameters (ε, δ, sensitivity Δ, bounds) and the scale it
draws with, computed from the mechanism's definition (:func:`noise_scale`); each law follows the library's sampler
(:mod:`pdp_audit.mechanisms.adapters.diffprivlib_laws`).  The adapter reads and builds mechanisms through the library's
public API only: a seeded copy, a world's ``Exponential`` and a mechanism sent to a worker process are built by the
mechanism's own constructor from its public parameters (:func:`rebuilt`).

* ``Laplace``: b = Δ/(ε − log(1 − δ)) (Holohan et al. 2018), L(o) = (|o − v'| − |o − v|)/b;
* ``LaplaceTruncated``: the same release clipped to [l, u], atoms at the bounds (their tail masses' log-ratio);
* ``LaplaceBoundedDomain``: Laplace of the scale of Holohan et al. (2018, the bounded Laplace mechanism: the fixed
  point b = Δ/(ε − log ΔC(b) − log(1 − δ)), found by bisection) conditioned on [l, u] (rejection sampling), the
  inputs clipped first: the Laplace loss plus log C(v') − log C(v), C the mass of [l, u];
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

import inspect
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pdp_audit.mechanisms.adapters import diffprivlib_laws as laws
from pdp_audit.verify.inputs.validation import InputError

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
        return rebuilt(mechanism, random_state=np.random.RandomState(int(rng.integers(2**32))))

    def __getstate__(self) -> dict:
        """What a worker process receives: the mechanisms as their class and public parameters (:class:`_Recipe`; the
        system entropy source of a mechanism without a ``random_state``, diffprivlib's default, has no state to
        pickle), built again by their constructor in the worker, each with its own source.  A seeded pair replaces
        the source at every draw anyway.  An unseeded pair whose mechanism keeps a generator state of its own (a
        ``random_state`` the user fixed) is not sent: every worker would get a copy of that state and repeat the
        others' releases, which the audit's statistics take as independent."""
        if not self.seeded and not all(_system_source(m) for m in (self.mechanism, *self.worlds.values())):
            raise TypeError(
                "the mechanism draws from a generator state of its own (its random_state): copies in "
                "worker processes would repeat each other's releases"
            )
        state = dict(self.__dict__)
        state["mechanism"] = _Recipe.of(self.mechanism)
        state["worlds"] = {world: _Recipe.of(m) for world, m in self.worlds.items()}
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        state["mechanism"] = state["mechanism"].built()
        state["worlds"] = {world: recipe.built() for world, recipe in state["worlds"].items()}
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
    """Whether ``mechanism`` draws from the system's entropy (no ``random_state``: diffprivlib's default), which no
    copy repeats."""
    return mechanism.random_state is None


def parameters(mechanism) -> dict:
    """The keyword arguments of the mechanism's constructor, read from the public attributes of the same names (a
    diffprivlib mechanism keeps each, checked, under its keyword: ``epsilon``, ``sensitivity``, ``utility``, …)."""
    names = inspect.signature(type(mechanism)).parameters
    return {name: getattr(mechanism, name) for name in names if hasattr(mechanism, name)}


def rebuilt(mechanism, **changes):
    """A new mechanism of ``mechanism``'s class, built by its constructor from its :func:`parameters` and
    ``changes`` (e.g. ``random_state``)."""
    return type(mechanism)(**{**parameters(mechanism), **changes})


@dataclass(frozen=True)
class _Recipe:
    """A mechanism as its class and constructor arguments: what pickles of it."""

    kind: type
    arguments: dict

    @classmethod
    def of(cls, mechanism) -> _Recipe:
        return cls(type(mechanism), parameters(mechanism))

    def built(self):
        return self.kind(**self.arguments)


def _world_mechanism(mechanism, kind: str, value):
    """The mechanism a world runs: itself, or for ``Exponential`` one scoring that world's utility (its candidates'
    labels dropped, so the release is the index), built by the library's constructor."""
    if kind != "Exponential":
        return mechanism
    return rebuilt(mechanism, utility=list(value), candidates=None)


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
    """The scale the mechanism draws with, from its definition (diffprivlib 0.6's documented formulas, computed with
    the same operations): Δ/ε (Geometric: e^{−|k|/b}); b = Δ/(ε − log(1 − δ)) (Laplace and LaplaceTruncated;
    Holohan et al. 2018); σ = √(2 log(1.25/δ))·Δ/ε (Gaussian; Dwork & Roth 2014, Theorem A.1); σ of Balle & Wang
    (2018, Algorithm 1), read from the mechanism's public ``variance`` (GaussianAnalytic); the bounded Laplace
    mechanism's fixed point (LaplaceBoundedDomain: :func:`bounded_domain_scale`)."""
    kind = type(mechanism).__name__
    eps, delta, sensitivity = float(mechanism.epsilon), float(mechanism.delta), float(mechanism.sensitivity)
    if kind == "Geometric":
        return sensitivity / eps
    if kind in ("Laplace", "LaplaceTruncated"):
        return float(sensitivity / (eps - np.log(1 - delta)))
    if kind == "Gaussian":
        return float(np.sqrt(2 * np.log(1.25 / delta)) * sensitivity / eps)
    if kind == "GaussianAnalytic":
        return math.sqrt(float(mechanism.variance(0.0)))  # σ²: its square root is σ exactly (binary floating point)
    if kind == "LaplaceBoundedDomain":
        return bounded_domain_scale(eps, delta, sensitivity, float(mechanism.upper) - float(mechanism.lower))
    raise InputError(f"diffprivlib.{kind}: its noise scale is not known")


def bounded_domain_scale(epsilon: float, delta: float, sensitivity: float, diameter: float) -> float:
    """The scale b of the bounded Laplace mechanism on a domain of ``diameter`` D (Holohan, Antonatos, Braghin & Mac
    Aonghusa 2018, "The bounded Laplace mechanism in differential privacy", Section 4): the fixed point of
    f(b) = Δ/(ε − log ΔC(b) − log(1 − δ)), ΔC(b) = (2 − e^{−Δ/b} − e^{−(D−Δ)/b})/(1 − e^{−D/b}), found as diffprivlib
    0.6 finds it -- bisection from [Δ/(ε − log(1 − δ)), f of that] until the bracket stops shrinking -- so that the
    loss is the law the library samples."""

    def delta_c(shape: float) -> float:
        if shape == 0:
            return 2.0
        return (2 - np.exp(-sensitivity / shape) - np.exp(-(diameter - sensitivity) / shape)) / (
            1 - np.exp(-diameter / shape)
        )

    def f(shape: float) -> float:
        return sensitivity / (epsilon - np.log(delta_c(shape)) - np.log(1 - delta))

    left = sensitivity / (epsilon - np.log(1 - delta))
    right = f(left)
    previous = (right - left) * 2
    while previous > right - left:
        previous = right - left
        middle = (right + left) / 2
        if f(middle) >= middle:
            left = middle
        if f(middle) <= middle:
            right = middle
    return float((right + left) / 2)


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
