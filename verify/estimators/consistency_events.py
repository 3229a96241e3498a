"""The events a user's pair is checked on: where a privacy loss that is not the sampler's shows.

For the exact privacy loss L = log p_D/p_D' and *every* event A of the release o (not only events of L),

    P_D'(o ∈ A, L > 0) = E_D[e^{−L} 1{o ∈ A, L > 0}],        P_D(o ∈ A, L ≤ 0) = E_D'[e^{L} 1{o ∈ A, L ≤ 0}],   (1)

each summand in [0, 1].  :mod:`pdp_audit.verify.estimators.consistency` compares (1) on four quantile bins of L per
side,
which is blind where errors hide: in the far tails (a loss clipped at ±2), on atoms (a rare branch of the
mechanism given a finite loss), near ±ε (a loss written for another σ), and -- at every budget -- to a loss that
is the exact loss L_h of a post-processing h(o) (a loss that ignores a coordinate or a report): L_h satisfies (1)
on every event of h(o), hence of L_h, but not on events that carry information about o beyond h(o).  The
events here are fixed from a *pilot* share of the draws only, so they are independent of the draws that test
them, and each is intersected with {L > 0} and with {L ≤ 0}:

* **loss bins** (:func:`loss_bins`): bins of L cut at 0, at ±ε (the claimed ε), at the pilot's quantiles of
  levels 1/2, 1/4, 1/8, … and 1 − 1/4, 1 − 1/8, … down to about :data:`TAIL_DRAWS` pilot draws in each tail
  (geometrically into both tails), and around each atom of L (a value repeating in the pilot, kept whole: L is
  compared at :data:`pdp_audit.mechanisms.base.LOSS_RESOLUTION`);
* **coordinate bins** (:class:`CoordinateBins`): for the :data:`COORDINATES_WITH_BINS` coordinates whose pilot
  laws differ most between the worlds (two-sample KS), bins between the pilot's quantiles of that coordinate,
  each atom of the coordinate its own bin;
* **score bins** (:class:`ScoreBins`): quantile bins of the score of a classifier of D against D' releases
  (logistic regression on standardised coordinates, their squares and L), trained on pilot draws only.  A
  coarsened loss misplaces mass between the score's bins, since the score sees what h(o) forgets;
* **float bins** (:class:`FloatBins`; the program audited as implemented, not under the ideal law): the bit
  structure of the coordinates as doubles (:mod:`pdp_audit.verify.estimators.float_structure`) -- the dyadic
  granularity k(o) (the largest k with o ∈ 2^k·ℤ), the trailing zeros of the significand, its low bits and the
  residue of o on the grid 2^G·ℤ most pilot releases lie on (parity and small residues of integers) -- for the
  :data:`FLOAT_FAMILIES` (coordinate, feature) pairs whose pilot laws differ most between the worlds (total
  variation), each value its own bin (beyond :data:`FLOAT_VALUES` values, quantile bins and the most frequent
  values), with the tails {k ≤ t} and {k > t} of the ordered features.  A loss of the real-valued law is not the
  loss of a sampler whose doubles differ between the worlds: Laplace noise added to v in float64 gives releases
  in (−1/2, 1/2) that are multiples of 2^−53 for v = 1 and mostly are not for v = 0 (Haney et al. 2022,
  "Precision-based attacks and interval refining"; Mironov, CCS 2012).  Such an event, impossible in one world
  and frequent in the other, decides by its counts: the other world's Clopper–Pearson interval of zero
  draws is [0, log(2/a)/n].

Releases enter through their first :data:`COORDINATES_KEPT` coordinates (non-finite values mapped to finite
ones, a fixed function of o, so (1) still holds); at most :data:`RELEASE_PILOT_MAX` pilot releases per world are
kept to place the bins and train the classifier, so memory is bounded whatever the budget.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from pdp_audit.verify.estimators import float_structure as fs
from pdp_audit.verify.estimators.float_structure import ZERO_GRANULARITY, granularity
from pdp_audit.verify.estimators.row_scores import linear_rows

#: The loss bins' geometric quantile levels stop where a tail holds about this many pilot draws.
TAIL_DRAWS = 30
#: At most this many atoms of L (the most frequent in the pilot) get bins of their own; so do at most
#: :data:`COORDINATE_ATOMS` atoms of each coordinate with bins.
LOSS_ATOMS, COORDINATE_ATOMS = 16, 4
#: Releases are seen through their first ``COORDINATES_KEPT`` coordinates; the ``COORDINATES_WITH_BINS`` of them
#: that differ most between the worlds in the pilot get bins of their own.
COORDINATES_KEPT, COORDINATES_WITH_BINS = 64, 8
#: Pilot releases kept per world (to place the coordinate bins and train the classifier).
RELEASE_PILOT_MAX = 1 << 15
#: Quantile levels of the coordinate bins and of the score bins.
COORDINATE_LEVELS = (1 / 16, 1 / 4, 1 / 2, 3 / 4, 15 / 16)
SCORE_LEVELS = (1 / 64, 1 / 16, 1 / 4, 1 / 2, 3 / 4, 15 / 16, 63 / 64)
#: Standardised coordinates are clipped to ±FEATURE_CLIP before the classifier sees them.
FEATURE_CLIP = 10.0
#: The (coordinate, float feature) families with bins of their own, and the most values of one with a bin each.
FLOAT_FAMILIES, FLOAT_VALUES = 4, 32
#: The low significand bits and the residue modulus of the float bins.
FLOAT_LOW_BITS, FLOAT_MODULUS = 4, 8


def kept_coordinates(releases: np.ndarray) -> np.ndarray:
    """The first :data:`COORDINATES_KEPT` coordinates of each release as finite floats (NaN → 0, ±∞ → ±the
    largest float): a fixed function of the release, so events of it are events of o."""
    kept = np.asarray(releases)[:, :COORDINATES_KEPT].astype(float)
    return np.nan_to_num(kept, nan=0.0, posinf=np.finfo(float).max, neginf=-np.finfo(float).max)


def _atoms(values: np.ndarray, most: int) -> np.ndarray:
    """Values that repeat in ``values``: the ``most`` most frequent (ties: smallest first), sorted."""
    unique, counts = np.unique(values, return_counts=True)
    repeated = counts >= 2
    unique, counts = unique[repeated], counts[repeated]
    order = np.lexsort((unique, -counts))[:most]
    return np.sort(unique[order])


@dataclass(frozen=True)
class Bins:
    """The partition of the line by ``edges`` (sorted, finite): bin i is (edges[i−1], edges[i]], the first
    (−∞, edges[0]] and the last (edges[−1], +∞] (infinities included)."""

    edges: np.ndarray

    @property
    def size(self) -> int:
        return self.edges.size + 1

    def labels(self, values: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.edges, values, side="left")

    def bounds(self, i: int) -> tuple[float, float]:
        lo = -math.inf if i == 0 else float(self.edges[i - 1])
        hi = math.inf if i == self.edges.size else float(self.edges[i])
        return lo, hi


def _bins(values: np.ndarray, levels, atoms: np.ndarray, extra=()) -> Bins:
    """Bins cut at the quantiles of ``values`` of ``levels``, at ``extra`` and around each atom (a bin
    (nextafter(v, −∞), v] = {v} of its own)."""
    finite = values[np.isfinite(values)]
    cuts = [np.quantile(finite, levels)] if finite.size else []
    edges = np.concatenate([*cuts, np.asarray(extra, float), atoms, np.nextafter(atoms, -np.inf)])
    return Bins(np.unique(edges[np.isfinite(edges)]))


def loss_levels(pilot_draws: int) -> np.ndarray:
    """1/2, 1/4, … and 3/4, 7/8, …: the quantile levels 2^{−k} and 1 − 2^{−k} with 2^{−k}·pilot_draws ≥
    :data:`TAIL_DRAWS`."""
    deepest = max(1, int(math.floor(math.log2(max(pilot_draws, 2) / TAIL_DRAWS))))
    low = 2.0 ** -np.arange(1, deepest + 1)
    return np.unique(np.concatenate([low, 1 - low]))


def loss_bins(pilot_losses: np.ndarray, epsilon: float | None) -> Bins:
    """The loss bins of the module notes from the pooled pilot losses of both worlds."""
    extra = [0.0] if epsilon is None else [0.0, float(epsilon), -float(epsilon)]
    atoms = _atoms(pilot_losses[np.isfinite(pilot_losses)], LOSS_ATOMS)
    return _bins(pilot_losses, loss_levels(pilot_losses.size), atoms, extra)


def _robust_scale(values: np.ndarray) -> tuple[float, float]:
    """Median and a scale (interquartile range, else the spread, else 1) of ``values``, from sample values only
    (no arithmetic that could overflow on huge releases)."""
    q25, median, q75 = np.quantile(values, [0.25, 0.5, 0.75], method="inverted_cdf")
    with np.errstate(over="ignore", invalid="ignore"):
        for scale in (q75 - q25, np.max(values) - np.min(values)):
            if np.isfinite(scale) and scale > 0:
                return float(median), float(scale)
    return float(median), 1.0


class CoordinateBins:
    """Bins of the pilot's most different coordinates: ``columns[j]`` is cut by ``bins[j]``; the label of a
    release is one integer per column (``labels`` returns a (rows, columns) array)."""

    def __init__(self, pilot_d: np.ndarray, pilot_dp: np.ndarray):
        from scipy import stats  # here, not at the top: scipy.stats is most of a second of a process's start

        distance = [stats.ks_2samp(pilot_d[:, j], pilot_dp[:, j]).statistic for j in range(pilot_d.shape[1])]
        order = np.lexsort((np.arange(len(distance)), -np.asarray(distance)))
        self.columns = [int(j) for j in order[:COORDINATES_WITH_BINS]]
        pooled = np.vstack([pilot_d, pilot_dp])
        self.bins = [
            _bins(pooled[:, j], COORDINATE_LEVELS, _atoms(pooled[:, j], COORDINATE_ATOMS)) for j in self.columns
        ]

    def labels(self, coordinates: np.ndarray) -> np.ndarray:
        return np.column_stack([b.labels(coordinates[:, j]) for j, b in zip(self.columns, self.bins)])


class ScoreBins:
    """Quantile bins of a linear score learned on the pilot: logistic regression of D (1) against D' (0) on
    the standardised coordinates z (clipped to ±:data:`FEATURE_CLIP`), z² and the standardised loss
    (clipped), fitted deterministically (lbfgs, at most 100 iterations; no randomness)."""

    def __init__(self, pilot: dict[str, tuple[np.ndarray, np.ndarray]]):
        from sklearn.linear_model import LogisticRegression

        coordinates = np.vstack([pilot[w][0] for w in ("D", "D'")])
        losses = np.concatenate([pilot[w][1] for w in ("D", "D'")])
        self.centre, self.scale = zip(*(_robust_scale(coordinates[:, j]) for j in range(coordinates.shape[1])))
        self.loss_centre, self.loss_scale = _robust_scale(np.clip(losses, -50.0, 50.0))
        features = self.features(coordinates, losses)
        labels = np.concatenate([np.ones(pilot["D"][1].size), np.zeros(pilot["D'"][1].size)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a fit stopped at max_iter still defines a valid score
            model = LogisticRegression(C=1.0, max_iter=100).fit(features, labels)
        self.weights, self.intercept = model.coef_.ravel().copy(), float(model.intercept_[0])
        self.bins = _bins(self.score(coordinates, losses), SCORE_LEVELS, np.empty(0))

    def features(self, coordinates: np.ndarray, losses: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.clip((coordinates - np.asarray(self.centre)) / np.asarray(self.scale), -FEATURE_CLIP, FEATURE_CLIP)
            loss = np.clip((np.clip(losses, -50.0, 50.0) - self.loss_centre) / self.loss_scale, -1e3, 1e3)
        return np.column_stack([z, z**2, loss])

    def score(self, coordinates: np.ndarray, losses: np.ndarray) -> np.ndarray:
        """The linear score of each release, a fixed function of it (:func:`~pdp_audit.verify.estimators.row_scores.
        linear_rows`; a BLAS product rounds a row by its place in the block, and a bin's end at a repeated release's
        score then held it in some blocks only)."""
        return linear_rows(self.features(coordinates, losses), self.weights, self.intercept)

    def labels(self, coordinates: np.ndarray, losses: np.ndarray) -> np.ndarray:
        return self.bins.labels(self.score(coordinates, losses))


def _total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """The total variation distance between the empirical laws of two integer samples."""
    values, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    p = np.bincount(inverse[: a.size], minlength=values.size) / max(a.size, 1)
    q = np.bincount(inverse[a.size :], minlength=values.size) / max(b.size, 1)
    return float(0.5 * np.abs(p - q).sum())


def _integer_bins(values: np.ndarray) -> Bins:
    """Bins of an integer feature from its pooled pilot values: each value its own bin {v} = (v − 1, v] and
    (−∞, min − 1] below them all (up to :data:`FLOAT_VALUES` values; beyond, bins between quantiles of levels
    i/FLOAT_VALUES, the :data:`FLOAT_VALUES` / 4 most frequent values each its own)."""
    distinct = np.unique(values)
    if distinct.size > FLOAT_VALUES:
        levels = np.arange(1, FLOAT_VALUES) / FLOAT_VALUES
        atoms = _atoms(values, FLOAT_VALUES // 4)
        distinct = np.unique(np.concatenate([np.quantile(values, levels, method="inverted_cdf"), atoms, atoms - 1]))
    return Bins(np.unique(np.concatenate([[distinct[0] - 1], distinct])).astype(float))


@dataclass(frozen=True)
class FloatFeature:
    """One feature of a coordinate's float structure: ``kind`` ``"k"`` (granularity), ``"tz"`` (trailing zeros),
    ``"low"`` (low significand bits) or ``"res"`` (residue on the grid 2^``grid``·ℤ); ``ordered``: its tails are
    events too."""

    kind: str
    column: int
    grid: int = 0

    @property
    def ordered(self) -> bool:
        return self.kind in ("k", "tz")

    def values(self, coordinates: np.ndarray) -> np.ndarray:
        o = coordinates[:, self.column]
        if self.kind == "k":
            return fs.granularity(o)
        if self.kind == "tz":
            return fs.trailing_zeros(o)
        if self.kind == "low":
            return fs.low_bits(o, FLOAT_LOW_BITS)
        return fs.grid_residue(o, self.grid, FLOAT_MODULUS)

    @property
    def name(self) -> str:
        o = f"o[{self.column}]"
        return {
            "k": f"k({o})",
            "tz": f"tz({o})",
            "low": f"low{FLOAT_LOW_BITS}({o})",
            "res": f"{o}/2^{self.grid} mod {FLOAT_MODULUS}",
        }[self.kind]

    def gloss(self, at_most: float) -> str:
        """What {feature ≤ at_most} says of the release, in words (granularity and grid residues)."""
        o = f"o[{self.column}]"
        if self.kind == "k":
            return f" ({o} not a multiple of 2^{int(at_most) + 1})"
        return ""

    def cell(self, lo: float, hi: float) -> str:
        """The bin (lo, hi] in words."""
        if hi == lo + 1:
            if self.kind == "res" and hi == FLOAT_MODULUS:
                return f"o[{self.column}] off the grid 2^{self.grid}·ℤ"
            return f"{self.name} = {hi:.0f}"
        if math.isinf(lo):
            return f"{self.name} ≤ {hi:.0f}{self.gloss(hi)}"
        if math.isinf(hi):
            return f"{self.name} > {lo:.0f}"
        return f"{self.name} ∈ ({lo:.0f}, {hi:.0f}]"


#: The features of each coordinate :class:`FloatBins` chooses from.
FLOAT_KINDS = ("k", "tz", "low", "res")


class FloatBins:
    """Bins of the float structure of the coordinates (module notes): the :data:`FLOAT_FAMILIES` features whose
    pilot laws differ most between the worlds (total variation; ties: the first coordinate, then the order of
    :data:`FLOAT_KINDS`), each cut by :func:`_integer_bins` of its pooled pilot values.  The grid of a coordinate's
    residue is 2^G·ℤ, G the median granularity of its pooled pilot values."""

    def __init__(self, pilot_d: np.ndarray, pilot_dp: np.ndarray):
        pooled = np.vstack([pilot_d, pilot_dp])
        candidates: list[tuple[float, int, int, FloatFeature]] = []
        for j in range(pooled.shape[1]):
            k = granularity(pooled[:, j])
            k = k[k < ZERO_GRANULARITY]
            grid = int(np.quantile(k, 0.5, method="inverted_cdf")) if k.size else 0
            for rank, kind in enumerate(FLOAT_KINDS):
                feature = FloatFeature(kind, j, grid if kind == "res" else 0)
                distance = _total_variation(feature.values(pilot_d), feature.values(pilot_dp))
                candidates.append((-distance, j, rank, feature))
        candidates.sort(key=lambda c: c[:3])
        self.features = [c[3] for c in candidates[:FLOAT_FAMILIES]]
        self.bins = [_integer_bins(f.values(pooled)) for f in self.features]

    def labels(self, coordinates: np.ndarray) -> np.ndarray:
        return np.column_stack([b.labels(f.values(coordinates)) for f, b in zip(self.features, self.bins)])
