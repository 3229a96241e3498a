"""The steps of an OpenDP measurement's call (:mod:`.opendp_measurements`): above by its privacy map at the distance its
argument moved (:func:`map_step`) and, where its constructor's noise law was recorded
(:func:`.opendp_measurements.noise_law`) and the release carries its noise, below by that law at the shift the
release shows (:func:`law_step`) -- the step a refutation by composition needs, since a privacy map bounds the loss
from above only.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np

from pdp_audit.audits.program import step_laws
from pdp_audit.audits.program.adapters.base import Stepped
from pdp_audit.audits.program.adapters.declared_budgets import exact_distance
from pdp_audit.audits.program.events import Compiled, Event, LibraryCall, input_of
from pdp_audit.audits.program.findings import Unaccounted


def _up(x: Fraction) -> float:
    """The smallest double at least ``x``."""
    value = float(x)
    return value if Fraction(value) >= x else math.nextafter(value, math.inf)


def map_step(k: int, call: LibraryCall, other: Event) -> Stepped:
    """An OpenDP measurement: its privacy map at the distance its argument moved (absolute, L1 or L2, by its input
    metric), where its output measure is pure DP (MaxDivergence); else a problem to report.  The map is OpenDP's
    proven bound, an upper step only (its measurement's δ(ε) may be far below it: a refutation needs
    :func:`law_step`; a compositor's own call is none: the measurements asked of it are calls of their own)."""
    if not isinstance(call, Compiled) or call.interactive:
        return None, None
    label = f"opendp.Measurement ({call.parameters['input_metric']})"
    counted = dataset_distance(call.input, input_of(other), call.parameters["input_metric"])
    if counted is not None:
        return _mapped(k, label, call, counted)
    try:
        before = np.asarray(call.input, dtype=float)
        after = np.asarray(input_of(other), dtype=float)
    except (TypeError, ValueError):
        return None, Unaccounted(k, label, "its argument cannot be compared")
    if before.shape != after.shape:
        return None, Unaccounted(k, label, "its argument changed shape")
    difference = np.abs(after - before)
    if not difference.any():
        return None, None
    metric = call.parameters["input_metric"]
    if not np.isfinite(difference).all():
        distance = math.inf
    elif metric.startswith(("AbsoluteDistance", "L1Distance")):  # the exact distance, rounded up: the map is monotone
        distance = _up(exact_distance(before, after))
    elif metric.startswith("L2Distance"):
        from pdp_audit.audits.program.gaussian_bounds import root_up  # deferred: loads mpmath

        distance = root_up(sum((Fraction(d) ** 2 for d in difference.ravel().tolist()), Fraction(0)))
    else:
        return None, Unaccounted(k, label, "its argument moved under a metric not read here")
    return _mapped(k, label, call, _typed(distance, metric))


def _mapped(k: int, label: str, call: Compiled, distance: float) -> Stepped:
    """The step of OpenDP measurement ``call`` whose argument moved by ``distance`` (> 0): its privacy map there."""
    if distance == 0:
        return None, None
    if not call.parameters["output_measure"].startswith("MaxDivergence") or not math.isfinite(distance):
        return None, Unaccounted(k, label, "its argument moved and its measure is not pure DP")
    try:
        epsilon = float(call.measurement.map(distance))
    except Exception as err:  # noqa: BLE001 - OpenDP refuses a distance its map cannot take: unexplained
        why = f"its privacy map refused the distance {distance:.6g} ({type(err).__name__})"
        return None, Unaccounted(k, label, why)
    return step_laws.Declared(call=k, label=label, epsilon=epsilon), None


#: OpenDP's dataset metrics read here, over a vector (a list) of any hashable records: the symmetric distance
#: (records added or removed, as multisets) and the change-one distance (records changed, between datasets of one size).
DATASET_METRICS = ("SymmetricDistance", "ChangeOneDistance")


def dataset_distance(before: Any, after: Any, metric: str) -> int | None:
    """The distance between two datasets an OpenDP measurement was applied to, under its dataset ``metric``: the
    symmetric distance Σ_v |#_D(v) − #_D′(v)| of the two multisets (OpenDP's ``SymmetricDistance``), or, between
    datasets of one size, half of it (``ChangeOneDistance``: each changed record leaves one value and joins another);
    None where the metric is not one of :data:`DATASET_METRICS` or an argument is neither a list nor a frame (a
    numeric argument is read by its metric's own distance).  Records are counted as Python compares them: two NaNs
    are two values, which can only overstate the distance, and the privacy map is monotone in it -- so the step
    stays an upper bound."""
    if not metric.startswith(DATASET_METRICS):
        return None
    before, after = _records(before), _records(after)
    if before is None or after is None:
        return None
    try:
        moved = Counter(before)
        moved.subtract(Counter(after))
    except TypeError:  # an unhashable record: not read here
        return None
    symmetric = sum(abs(v) for v in moved.values())
    if metric.startswith("ChangeOneDistance"):
        return symmetric // 2 if len(before) == len(after) else None
    return symmetric


def _records(dataset: Any) -> list | None:
    """A dataset's records: a list as it is, a frame's rows (OpenDP's Polars API takes a ``LazyFrame`` or a
    ``DataFrame``, pandas' too: its rows as a multiset under ``SymmetricDistance``) as tuples, else None."""
    if isinstance(dataset, list):
        return dataset
    polars = sys.modules.get("polars")
    if polars is not None and isinstance(dataset, (polars.LazyFrame, polars.DataFrame)):
        whole = dataset.collect() if isinstance(dataset, polars.LazyFrame) else dataset
        return whole.rows()
    pandas = sys.modules.get("pandas")
    if pandas is not None and type(dataset) is pandas.DataFrame:
        return [tuple(r) for r in dataset.itertuples(index=False, name=None)]
    return None


def _typed(distance: float, metric: str) -> float | int:
    """The distance as the metric's own type takes it (OpenDP's map refuses a float for ``L1Distance(i32)``): an
    integer metric's distance rounded up to an integer -- the map is monotone, so its value there bounds the loss at
    the distance itself."""
    integer = re.search(r"\((?:i|u)(?:8|16|32|64|128|size)\)", metric) is not None
    return math.ceil(distance) if integer else distance


def law_step(k: int, index: int, call: Event, shift: float, error: float = 0.0) -> step_laws.Step | None:
    """The lower step of element ``index`` of OpenDP measurement ``call`` (call ``k``), whose noise the release
    carries and which moved by ``shift`` (read off the release, as a location family's is): its recorded law at
    μ = |shift|/scale, the same step as numpy's ``laplace``/``normal`` -- a bound from below on the measurement's δ(ε),
    at every ε, for the release's real-valued law (the values OpenDP samples exactly, before its final rounding to a
    double: the reading numpy's steps have, whose float doubles the black box reads).  None where no law was recorded
    or the element did not move (or moved by an infinite amount: its input is outside OpenDP's domain).

    OpenDP samples on a grid g (2^k, k "defaults to the smallest granularity", on which every double lies; 1 for
    integers) and releases x + gJ (OpenDP's documentation of ``make_laplace``/``make_gaussian``: "Internally, all
    sampling is done using the discrete Laplace distribution"; the samplers of Canonne, Kamath & Steinke, NeurIPS
    2020, §5).  A shift off the lattice gz leaves the two laws disjoint (δ = 1, above any step); on it:

    * **Laplace** (``make_laplace``, ``make_geometric``): J has the discrete Laplace law P[J = j] ∝ e^{−|j|g/b}.  The
      Laplace law Lap(b) is E₁ − E₂ for independent exponentials of mean b, ⌊E/g⌋ is geometric of ratio e^{−g/b} and
      independent of the remainder E − g⌊E/g⌋ (memorylessness), and the difference of two independent such
      geometrics is that discrete Laplace law: x + Lap(b) = (x + gJ) + R with R independent of the data.  The
      continuous mechanism is a post-processing of OpenDP's, so its δ(ε) is at most OpenDP's at every ε (Dwork & Roth
      2014, Prop. 2.1): the Laplace step of Dwork & Roth 2014, §3.3, is exact as a lower bound (slack 0).  It is no
      upper bound (at b = g = 1, |shift| = 1, ε = 0.5 the discrete law's δ is 0.288, the continuous 0.221): the upper
      composition keeps the privacy map.
    * **Gaussian** (``make_gaussian`` over floats): J is the discrete Gaussian of parameter τ = σ/g, the loss ω(j)
      affine in j, and δ(ε) = Σ_j f(j) with f(j) = P[J = j](1 − e^{ε − ω(j)})₊, the continuous law's (Balle & Wang
      2018, Thm 8) ∫ f.  f is log-concave (a Gaussian times 1 − e^{affine}, log-concave where positive), so unimodal,
      and |Σ_j f(j) − ∫ f| ≤ max f ≤ 1/(τ√(2π)); the discrete normaliser is τ√(2π)(1 + O(e^{−2π²τ²})) (Poisson
      summation).  So OpenDP's δ(ε) ≥ the Gaussian step's − g/σ at every ε (the step's slack; 2^−1074/σ at the
      default granularity, below any δ a double resolves beside 1).

    ``error``: the shift's proven rounding bound (:func:`.replay_bounds.shift_bound`; 0: read exactly): the step's μ
    is then proven to lie in (|shift| ∓ error)/scale, in rationals (:attr:`.step_laws.Step.within`), and the lower
    composition takes its bottom -- *sound for* a shift read within ``error`` of the exact one."""
    law = call.noise_law if isinstance(call, Compiled) else None
    if law is None or shift == 0 or not math.isfinite(shift):
        return None
    label, mu = f"opendp.{law['constructor']}[{index}]", abs(shift) / law["scale"]
    scale, read = Fraction(law["scale"]), Fraction(abs(shift))
    within: tuple[Fraction, Fraction | None] = (Fraction(0), None)
    if math.isfinite(error):
        within = (max(Fraction(0), read - Fraction(error)) / scale, (read + Fraction(error)) / scale)
    if law["law"] == "gaussian":
        slack = law["grid"] / law["scale"]
        return step_laws.Gaussian(call=k, label=label, mu=mu, slack=slack, porous=False, within=within)
    return step_laws.Laplace(call=k, label=label, mu=mu, porous=False, within=within)
