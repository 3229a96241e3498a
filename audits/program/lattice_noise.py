"""numpy's integer noise as the program audit composes it: ``rng.geometric(p)`` and ``rng.integers(low, high)`` read
by the laws their implementation draws (:mod:`pdp_audit.mechanisms.numpy_samplers`), ``geometric`` alone or as the
difference of two calls (the two-sided geometric of ``counts + rng.geometric(p, k) - rng.geometric(p, k)``),
``integers`` alone (``counts + rng.integers(-k, k + 1, size=n)``).

**Integers** (:func:`integers_range`).  An ``integers`` call of scalar integer ends (a range of at most 2^53
values, numpy's default int64) is recorded as ``geometric``'s is, its ends (``low``, and ``high`` one past its
largest value) the parameters compared on every replay -- a range the data moves is a divergence, never composed --
and its law named :data:`INTEGERS`: uniform on the range, exactly (Lemire's rejection).  Its step against its shift
by a whole d (:func:`uniform_masses`) has three outcomes: the |d| values D alone draws, the n − |d| both draw (each
of ratio 1: merged, which leaves every hockey-stick divergence as it is), the |d| D′ alone draws, so δ(ε) =
min(|d|, n)/n at every ε (1/(2k + 1) for ``integers(-k, k + 1)`` moved by 1).  *Sound for* what ``geometric``'s step
is (below: the release a post-processing of U against U + d, the same map on D and D′), and for numpy's
``Generator.integers`` (:mod:`~pdp_audit.mechanisms.numpy_samplers`).  A draw the release does not carry by adding
(an index, a seed, a draw unused) is held at its draw by the probe, as a draw with no law is (:func:`held`).

**Recorded.**  A ``geometric`` call of a scalar ``p`` is a :class:`~.events.Located` draw on the integer lattice
(its value 0: the call shows none, its scale 1: the lattice's unit), its parameter ``p`` compared on every replay as
any call's parameters are -- a ``p`` the data moves is a divergence, never composed -- and its law named
:data:`GEOMETRIC` where numpy's search branch draws it (p ≥ 1/3: an exact law), else none (the inversion branch: no
exact law here, left undecided like ``gumbel``).

**Paired** (:func:`paired`).  Two calls G and H of one ``p`` and one shape, the second the next such call after the
first, are read in the coordinates (Z, C) = (G − H, H): shifting Z by t moves G alone by t; shifting C by t moves G
and H both by t (:attr:`.trace.Element.partner`).  The probe then reads each release coordinate ``c + G_i − H_i`` as
carrying Z_i with coefficient 1, and C_i as carrying nothing (C's elements alone have a partner, the call they move
with).  Z_i is an element of law :data:`DIFFERENCE` -- the
exact law of G_i − H_i, the convolution of the two implemented laws -- and C_i of law :data:`COMMON`.

**Sound for** the upper composition, with the reading's locality the probe has for every element: where no bit of
the release moves when C alone moves by the probe's step, its negative and a thousand steps (:func:`common_moves`:
the release is a function of Z and the data alone at the recorded draws and those; the same-map check
moves Z and C along its line and finds R_D′(u − Δ) = R_D(u) with C's shift 0), the release on D is f_D(Z) and on D′
f_D(Z + d): a post-processing of Z against Z + d, whose δ(ε) is the :class:`~.step_laws.Discrete` step of Z's law
against its shift by d (:func:`step`), computed from exact rationals (Dwork & Roth 2014, Prop. 2.1).  C's shift is 0
exactly: its call's parameters are the same on D and D′ (checked on replay) and it shows no value, so its draws do
not move with the data; where a coordinate carries C, C has no law here and the pair is not certified.  A shift d
that is not a whole number puts Z + d off the lattice: its support is disjoint from Z's (δ = 1).
"""

from __future__ import annotations

import inspect
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from pdp_audit.audits.program.events import Event, Located
from pdp_audit.mechanisms import numpy_samplers
from pdp_audit.verify.inputs import release_codec

if TYPE_CHECKING:  # the steps' module loads scipy: deferred, the fresh process's replay reads the pairing alone
    from pdp_audit.audits.program import step_laws

#: The law of one ``geometric`` draw as numpy's search draws it (alone: a one-sided law).
GEOMETRIC = "numpy-geometric"
#: The law of G − H for two paired ``geometric`` calls (:func:`paired`).
DIFFERENCE = "numpy-geometric-difference"
#: The common part H of a paired ``geometric`` call, which the release must not carry.
COMMON = "numpy-geometric-common"
#: The law of one ``integers`` draw of a public range (module notes: integers).
INTEGERS = "numpy-integers"
#: The laws whose steps :func:`step` makes.
LAWS = (GEOMETRIC, DIFFERENCE, INTEGERS)
#: The most values an ``integers`` range recorded as noise may hold (its draws, probed, stay exact in a double).
WIDEST = 2**53
#: Why an element of integer noise has no step yet: its shift is read to a rounding only (a pair so judged has its
#: shifts read exactly, :func:`.judgement.read_exactly`, and is judged anew).
NOT_EXACT = "the shift of integer noise is not read exactly"


def recorded_law(p: Any) -> str | None:
    """The law a ``geometric(p)`` call is recorded with: :data:`GEOMETRIC` for a scalar ``p`` numpy's search
    draws, None otherwise (module notes)."""
    if np.ndim(p) != 0:
        return None
    value = float(p)
    if not 0.0 < value <= 1.0:
        return None
    return GEOMETRIC if numpy_samplers.geometric_law(value) is not None else None


def _integers_signature(low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64, endpoint: bool = False):
    """``Generator.integers``'s signature, bound by :func:`integers_range`."""


def integers_range(*args: Any, **kwargs: Any) -> tuple[int, int, Any] | None:
    """(low, stop, size) of an ``integers`` call of these arguments drawn uniformly on {low, …, stop − 1} as
    :data:`INTEGERS` noise (module notes); None where it is recorded as any other draw: an end that is no integer
    scalar (an array, a float, a bool), another dtype (its output's type and overflow are not the lattice's), a range
    empty or wider than :data:`WIDEST`, or arguments numpy would refuse (it raises then, as it does)."""
    try:
        bound = inspect.signature(_integers_signature).bind(*args, **kwargs).arguments
        int64 = np.dtype(bound.get("dtype", np.int64)) == np.dtype(np.int64)
    except TypeError:
        return None
    low, high, endpoint = bound["low"], bound.get("high"), bound.get("endpoint", False)
    low, high = (0, low) if high is None else (low, high)
    integral = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (low, high))
    if not int64 or not integral or not isinstance(endpoint, (bool, np.bool_)):
        return None
    low, stop = int(low), int(high) + int(bool(endpoint))
    if not 0 < stop - low <= WIDEST or max(abs(low), abs(stop)) > WIDEST:
        return None
    return low, stop, bound.get("size")


def paired(calls: Sequence[Event]) -> dict[int, tuple[str, int]]:
    """Per ``geometric`` call of a law, its element law and partner call: the first of a pair (G) is read as
    :data:`DIFFERENCE` with its partner H, the second (H) as :data:`COMMON` with its partner G; an unpaired one as
    :data:`GEOMETRIC` with no partner (−1).  Pairs are made in call order: each call with the next unpaired call of
    the same ``p`` and shape."""
    out: dict[int, tuple[str, int]] = {}
    waiting: dict[tuple, int] = {}
    for k, call in enumerate(calls):
        if not isinstance(call, Located) or call.law != GEOMETRIC:
            continue
        key = (float(call.parameters["p"]), call.shape)
        first = waiting.pop(key, None)
        if first is None:
            waiting[key] = k
            out[k] = (GEOMETRIC, -1)
        else:
            out[first] = (DIFFERENCE, k)
            out[k] = (COMMON, first)
    return out


def _law(calls: Sequence[Event], call: int, partner: int, law: str) -> numpy_samplers.LatticeLaw | None:
    """The exact law of an element of ``law`` (:data:`GEOMETRIC` or :data:`DIFFERENCE`) of call ``call``."""
    own = numpy_samplers.geometric_law(float(calls[call].parameters["p"]))
    if own is None or law == GEOMETRIC:
        return own
    other = numpy_samplers.geometric_law(float(calls[partner].parameters["p"]))
    return None if other is None else own.difference(other)


def uniform_masses(call: Event, shift: int) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """The masses on D and on D′ of an :data:`INTEGERS` draw of ``call`` against its shift by a whole ``shift``:
    (D's alone, both, D′'s alone), of n = the range's size, m = min(|d|, n): (m/n, (n − m)/n, 0) against
    (0, (n − m)/n, m/n) (module notes: the outcomes both draw, each of ratio 1, merged)."""
    n = int(call.parameters["high"]) - int(call.parameters["low"])
    m = min(abs(shift), n)
    return (Fraction(m, n), Fraction(n - m, n), Fraction(0)), (Fraction(0), Fraction(n - m, n), Fraction(m, n))


def step(calls: Sequence[Event], element: Any, shift: float, label: str) -> step_laws.Discrete | None:
    """The upper step of ``element`` (a :class:`.trace.Element` of a law of :data:`LAWS`) moved by ``shift``: its
    exact law against the same shifted (module notes), as a choice over the union of the two supports (and numpy's
    "no return" outcome, of the same mass on both sides, where its search stalls); None where no law is read."""
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    if element.law == INTEGERS:
        law = None
    else:
        law = _law(calls, element.call, paired(calls).get(element.call, (GEOMETRIC, -1))[1], element.law)
        if law is None:
            return None
    if shift != round(shift):  # off the lattice: disjoint supports
        p, q = (Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))
    elif law is None:
        p, q = uniform_masses(calls[element.call], int(shift))
    else:
        d = int(shift)
        values = range(min(law.start, law.start + d), max(law.stop, law.stop + d))
        p = tuple(law.mass(k) for k in values)
        q = tuple(law.mass(k - d) for k in values)
        if law.never:
            p, q = p + (Fraction(law.never, law.denominator),), q + (Fraction(law.never, law.denominator),)
    from pdp_audit.audits.program import step_laws  # deferred: loads scipy (module imports)

    return step_laws.Discrete(
        call=element.call,
        label=label,
        p=tuple(float(v) for v in p),
        q=tuple(float(v) for v in q),
        exact=(p, q),
    )


def common_unmoved(found: Any, read: tuple[np.ndarray, np.ndarray], exact: dict[int, Fraction]) -> None:
    """Each :data:`COMMON` element no release coordinate carries read as unmoved, exactly (module notes: its call's
    parameters are D's, checked on replay, and it shows no value): shift 0, source "value", into ``read`` (the
    shifts and their sources) and ``exact``."""
    if not found.elements:
        return
    shifts, source = read
    for j in np.flatnonzero(found.columns().law == COMMON).tolist():  # in numpy: a histogram has 10⁵ elements
        if source[j] == "none":
            shifts[j], source[j] = 0.0, "value"
            exact[j] = Fraction(0)


def common_moves(replayed: Callable[[dict[int, float]], Any], found: Any, recorded: Any) -> bool:
    """Whether the release on D moves when the :data:`COMMON` elements alone move -- by the probe's step w, by −w,
    and by 1000·w (``replayed``: the release's numbers with some elements shifted, None where the replay
    diverges, raises or changes the structure): any bit that moves, or a replay that leaves the path, is the
    release reading H beside G − H (``(c + G − H, ΣH)`` reveals H; a branch on H moves a noisy coordinate that the
    data leaves equal), which no law here composes.  At the recorded draws and those three, as every reading of the
    probe is local."""
    common = np.flatnonzero(found.columns().law == COMMON).tolist() if found.elements else []
    if not common:
        return False
    for factor in (1.0, -1.0, 1000.0):
        numbers = replayed({j: factor * float(found.step[j]) for j in common})
        if numbers is None or release_codec.differ(numbers, recorded.numbers).any():
            return True
    return False


def common_carried(found: Any) -> list[tuple[int, int]]:
    """(call, index) of each :data:`COMMON` element, where the release moves with them on D (:attr:`.trace.Probe.
    common_moved`, :func:`common_moves`): every pair is then left with them unaccounted."""
    if not found.common_moved:
        return []
    at = np.flatnonzero(found.columns().law == COMMON).tolist()
    return [(found.elements[j].call, found.elements[j].index) for j in at]


def held(call: Event, found: Any) -> bool:
    """Whether ``call`` is an :data:`INTEGERS` call the probe ``found`` held at its draw (:func:`.probing.probe`):
    read then as a draw with no law is, blind (:func:`.results._blind`)."""
    return isinstance(call, Located) and call.law == INTEGERS and call.signature() in found.unperturbed


#: Why a pair whose release carries a common part is not certified (:func:`common_carried`).
COMMON_CARRIED = "the release carries the common part of two paired geometric draws, which has no law here"


def lattice_steps(
    calls: Sequence[Event], element: Any, read: tuple[float, float, str], label: str
) -> tuple[list[step_laws.Step], list[str]]:
    """The upper step of an element of a law of :data:`LAWS` or :data:`COMMON` whose shift was ``read`` = (shift,
    its proven rounding bound, where it was read), and why none is made where it is not: a common part a
    coordinate carries has no law here; a shift not read exactly is not composed (a whole number read within a
    rounding may be off the lattice)."""
    shift, error, source = read
    if element.law == COMMON:  # carried or not, composed by :func:`common_carried`
        return [], []
    if source != "release" or error != 0 or not np.isfinite(shift):
        return [], [NOT_EXACT]
    made = step(calls, element, shift, label)
    return ([made], []) if made is not None else ([], ["no exact law for this geometric draw here"])
