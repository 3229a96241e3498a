"""The black-box attack's frozen scores as data, and back: what a witness stores so that a reviewer can re-apply the
test without our training draws.

Every score the attack can freeze is a fixed function of one release (row by row), fitted on training releases:

* ``logistic`` (:class:`pdp_audit.audits.blackbox.learned_statistics.LearnedStatistic`): the standardiser's
  power-of-two exponents, centres and scales per column, the point masses and their fills, the feature scaler's means
  and scales, the coefficients and the intercept: score = Σ_k c_k (f_k − m_k)/s_k + b (:data:`FEATURES`);
* ``trees`` (scikit-learn's gradient-boosted trees): their node arrays and baseline
  (:mod:`pdp_audit.audits.blackbox.trees`, evaluated by our traversal, bit-identical to scikit-learn's);
* ``histograms`` (:class:`~pdp_audit.audits.blackbox.features.HistogramScore`; ``differences`` for the
  increments): per column the interior bin edges and each bin's log ratio; score = Σ_j r_j(bin_j(o_j));
* ``pooled`` (:class:`~pdp_audit.audits.blackbox.features.PooledHistogramScore`): per column its quantile edges,
  and one log ratio per bin rank;
* ``outcomes`` (:class:`~pdp_audit.audits.blackbox.features.OutcomeScore`): the atoms of each column, the sorted
  64-bit outcome keys seen on the fitting releases (16 hexadecimal digits each), their counts in each world and
  log ratios; score = the log ratio of the release's outcome (NaN, in no event, for an outcome never seen).

JSON keeps every float64 exactly (Python writes the shortest repr that reads back to the same number), so
:func:`score_from_data` rebuilds a score that gives the same numbers on the same releases.  Each kind carries its
definition in words (``features`` / ``definition``), checked on reading: a witness written by a version that
computes something else is refused, never re-applied as if it were ours.  Every number is checked as it is read
(finite, no booleans, integers where indices are, scales > 0, edges sorted, arrays of sizes that fit together):
a damaged or edited witness is one line (:class:`~pdp_audit.verify.inputs.validation.InputError`), never an internal
error or a re-check of a function that the attack could not have frozen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.blackbox import trees as blackbox_trees
from pdp_audit.audits.blackbox.features import HistogramScore, OutcomeKeys, OutcomeScore, PooledHistogramScore
from pdp_audit.audits.blackbox.learned_statistics import Atoms, LearnedStatistic, Standardiser, TreeStatistic
from pdp_audit.verify.inputs.validation import InputError, finite_number

#: What a logistic score's features are, in words (its ``features`` field).
FEATURES = (
    "per column j of a release o: z_j = clip((o_j·2^-exponent_j - centre_j) / scale_j, -2^20, 2^20), computed after "
    "each atom of the column is replaced by its fill; features [z_1..z_d, z_1^2..z_d^2, then one indicator per atom]; "
    "score = sum_k coefficients_k (feature_k - feature_mean_k) / feature_scale_k + intercept"
)
#: The other kinds' definitions, in words (their ``definition`` field).
DEFINITIONS = {
    "trees": "score = baseline + sum over trees of the value of the leaf a release o reaches from node 0: at an "
    "internal node go to left if o[feature] <= threshold, to right if o[feature] > threshold (a NaN goes left iff "
    "missing_left); a leaf has feature, left and right -1",
    "histograms": "per column j (of the first differences o_j - o_(j-1), o_0 = 0, when differences): the bin "
    "b = the number of edges_j strictly below the value; score = sum_j log_ratio_j[b]",
    "pooled": "per column j: b = floor((number of edges_j < o_j + number of edges_j <= o_j) / 2); "
    "score = sum_j log_ratio[b]",
    "outcomes": "h = 0; for each column j: w = the 64 bits of o_j (-0.0 and 0.0 differ) if it equals one of "
    "atoms_j, else 0x7ff8deadbeef0001; h = splitmix64_finaliser(h + 0x9e3779b97f4a7c15 + w) (arithmetic mod "
    "2^64); score = log_ratio of h in table, NaN (in no event) if h is not in it",
}
#: The largest |exponent| of the standardising power of two: a double's exponents lie in [-1074, 1023].
MAX_EXPONENT = 1100
#: The most columns, bins per column and outcomes a stored score may hold (far beyond what the attack fits: a
#: witness holding more was edited, and reading it would only exhaust memory).
MAX_COLUMNS = 1 << 20
MAX_EDGES = 1 << 16
MAX_OUTCOMES = 1 << 24


@dataclass(frozen=True)
class FrozenScore:
    """A score rebuilt from data as the pooled-rank re-check uses it: ``score`` and ``first_call`` = (columns,
    words naming where that dimension came from)."""

    score: Callable[[np.ndarray], np.ndarray]
    first_call: tuple[int, str]

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        return self.score(releases)


def _numbers(data: dict, key: str) -> np.ndarray:
    """``data[key]``: a list of finite numbers (not booleans), as float64."""
    values = data.get(key)
    if not isinstance(values, list) or not all(finite_number(v) for v in values):
        raise InputError(f"witness: the statistic's {key!r} must be a list of finite numbers")
    return np.asarray(values, dtype=np.float64)


def _count(data: dict, key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
        raise InputError(f"witness: the statistic's {key!r} must be an integer in [{low}, {high}], got {value!r}")
    return value


def _rows(data: dict, key: str, width: int) -> list[np.ndarray]:
    """``data[key]``: one list of finite numbers per column (``width`` of them)."""
    rows = data.get(key)
    if not isinstance(rows, list) or len(rows) != width:
        raise InputError(f"witness: the statistic's {key!r} must hold one list per column ({width})")
    return [_numbers({key: row}, key) for row in rows]


def _sorted(edges: np.ndarray, key: str, strictly: bool) -> np.ndarray:
    steps = np.diff(edges)
    if edges.size > MAX_EDGES or not np.all(steps > 0 if strictly else steps >= 0):
        raise InputError(f"witness: the statistic's {key!r} must be sorted lists of at most {MAX_EDGES} numbers")
    return edges


def _defined(data: dict, kind: str) -> None:
    """The kind's definition in words must be this version's (the re-check computes it, nothing else)."""
    if data.get("definition") != DEFINITIONS[kind]:
        raise InputError(f"witness: the {kind} score's 'definition' is not the one this version computes (edited?)")


# --- logistic -------------------------------------------------------------------------------------------------


def logistic_to_data(statistic: Any, width: int) -> dict:
    """A :class:`~pdp_audit.audits.blackbox.learned_statistics.LearnedStatistic` reading ``width`` columns as data."""
    s, atoms = statistic.standardise, statistic.atoms
    return {
        "kind": "logistic",
        "recheckable": True,
        "features": FEATURES,
        "dimension": int(width),
        "exponent": [int(v) for v in s.exponent],
        "centre": [float(v) for v in s.centre],
        "scale": [float(v) for v in s.scale],
        "atoms": []
        if atoms is None
        else [
            {"column": int(j), "values": [float(v) for v in values], "fill": float(fill)}
            for j, values, fill in zip(atoms.columns, atoms.values, atoms.fill)
        ],
        "feature_mean": [float(v) for v in statistic.scaler.mean_],
        "feature_scale": [float(v) for v in statistic.scaler.scale_],
        "coefficients": [float(v) for v in statistic.model.coef_[0]],
        "intercept": float(statistic.model.intercept_[0]),
    }


def _check_logistic_numbers(data: dict) -> None:
    """Every number of a stored logistic score must be one :func:`logistic_to_data` can write: finite, not a
    boolean, the exponents integers within a double's range and the scales (which divide) > 0.  A damaged or edited
    value would otherwise reach scikit-learn as an infinity (an internal error) or give every release the same
    score (a re-check that cannot refute, reported as a bound)."""

    def numbers(key: str) -> list:
        value = data.get(key)
        values = value if isinstance(value, list) else [value]
        if not all(finite_number(v) for v in values):
            raise InputError(f"witness: the statistic's {key!r} must hold finite numbers")
        return values

    for key in ("centre", "coefficients", "feature_mean", "intercept"):
        numbers(key)
    for key in ("scale", "feature_scale"):
        if not all(v > 0 for v in numbers(key)):
            raise InputError(f"witness: the statistic's {key!r} must be > 0 (a scale divides)")
    if not all(isinstance(v, int) and abs(v) <= MAX_EXPONENT for v in numbers("exponent")):
        raise InputError(f"witness: the statistic's 'exponent' must hold integers in [-{MAX_EXPONENT}, {MAX_EXPONENT}]")
    if not (isinstance(data.get("dimension"), int) and not isinstance(data.get("dimension"), bool)):
        raise InputError(f"witness: the statistic's 'dimension' must be an integer, got {data.get('dimension')!r}")


def logistic_from_data(data: dict) -> Any:
    """The :class:`~pdp_audit.audits.blackbox.learned_statistics.LearnedStatistic` of :func:`logistic_to_data`'s data
    (InputError for data that is not a logistic score or whose arrays do not fit together)."""
    if data.get("features") not in (FEATURES, list(FEATURES)):  # the re-check computes FEATURES, nothing else
        raise InputError("witness: the statistic's 'features' are not the ones this version computes (edited?)")
    _check_logistic_numbers(data)
    try:
        dim = int(data["dimension"])
        standardise = Standardiser(
            np.asarray(data["exponent"], dtype=int), np.asarray(data["centre"], float), np.asarray(data["scale"], float)
        )
        rows = data["atoms"]
        atoms = (
            Atoms(
                tuple(int(a["column"]) for a in rows),
                tuple(np.asarray(a["values"], float) for a in rows),
                tuple(float(a["fill"]) for a in rows),
            )
            if rows
            else None
        )
        mean, scale = np.asarray(data["feature_mean"], float), np.asarray(data["feature_scale"], float)
        coef = np.asarray(data["coefficients"], float)
        intercept = float(data["intercept"])
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise InputError(f"witness: the statistic is malformed ({type(err).__name__}: {err})") from None
    width = 2 * dim + sum(len(a) for a in (atoms.values if atoms else ()))
    if not (standardise.exponent.size == standardise.centre.size == standardise.scale.size == dim) or not (
        mean.size == scale.size == coef.size == width
    ):
        raise InputError(f"witness: the statistic's arrays do not fit {dim}-dimensional releases")
    if atoms is not None and not all(0 <= j < dim for j in atoms.columns):
        raise InputError(f"witness: the statistic's atoms name columns outside [0, {dim})")
    # deferred: scikit-learn (about 1.5 CPU s to import) only once the data is checked: a damaged witness is
    # refused without it
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler()
    scaler.mean_, scaler.scale_, scaler.var_ = mean, scale, scale**2
    scaler.n_features_in_, scaler.n_samples_seen_ = width, 2
    model = LogisticRegression()
    model.coef_, model.intercept_, model.classes_ = coef[None, :], np.array([intercept]), np.array([0.0, 1.0])
    model.n_features_in_ = width
    return LearnedStatistic(standardise, scaler, model, (dim, "the witness's releases"), atoms)


# --- histograms, pooled histograms, outcomes --------------------------------------------------------------------


def _histograms_to_data(score: Any) -> dict:
    return {
        "kind": "histograms",
        "definition": DEFINITIONS["histograms"],
        "differences": bool(score.differences),
        "edges": [[float(v) for v in cut] for cut in score.edges],
        "log_ratio": [[float(v) for v in ratio] for ratio in score.log_ratio],
    }


def _histograms_from_data(data: dict, width: int) -> Any:
    _defined(data, "histograms")
    if not isinstance(data.get("differences"), bool):
        raise InputError("witness: the histograms' 'differences' must be true or false")
    edges = [_sorted(cut, "edges", strictly=False) for cut in _rows(data, "edges", width)]
    ratios = _rows(data, "log_ratio", width)
    if any(r.size != e.size + 1 for e, r in zip(edges, ratios)):
        raise InputError("witness: each column's 'log_ratio' must have one more value than its 'edges'")
    return HistogramScore(tuple(edges), tuple(ratios), data["differences"])


def _pooled_to_data(score: Any) -> dict:
    return {
        "kind": "pooled",
        "definition": DEFINITIONS["pooled"],
        "edges": [[float(v) for v in cut] for cut in score.edges],
        "log_ratio": [float(v) for v in score.log_ratio],
    }


def _pooled_from_data(data: dict, width: int) -> Any:
    _defined(data, "pooled")
    edges = [_sorted(cut, "edges", strictly=False) for cut in _rows(data, "edges", width)]
    ratio = _numbers(data, "log_ratio")
    if any(e.size + 1 != ratio.size for e in edges):
        raise InputError("witness: the pooled 'log_ratio' must have one more value than each column's 'edges'")
    return PooledHistogramScore(tuple(edges), ratio)


def _outcomes_to_data(score: Any) -> dict:
    return {
        "kind": "outcomes",
        "definition": DEFINITIONS["outcomes"],
        "atoms": [[float(v) for v in atoms] for atoms in score.keys.atoms],
        "table": [f"{int(h):016x}" for h in score.table],
        "log_ratio": [float(v) for v in score.log_ratio],
        "counts_d": [int(v) for v in score.counts[0]],
        "counts_dprime": [int(v) for v in score.counts[1]],
        "sizes": [int(v) for v in score.sizes],
    }


def _hex_keys(values: Any) -> np.ndarray:
    """Outcome keys: 16 lowercase hexadecimal digits each, strictly increasing (the table is searched in order)."""
    ok = isinstance(values, list) and 1 <= len(values) <= MAX_OUTCOMES
    ok = ok and all(isinstance(v, str) and len(v) == 16 and set(v) <= set("0123456789abcdef") for v in values)
    keys = [int(v, 16) for v in values] if ok else []
    if not ok or any(b <= a for a, b in zip(keys, keys[1:])):
        raise InputError(
            f"witness: the outcomes' 'table' must hold 1 to {MAX_OUTCOMES} keys of 16 hexadecimal digits, increasing"
        )
    return np.array(keys, dtype=np.uint64)


def _counts(data: dict, key: str, size: int) -> np.ndarray:
    values = data.get(key)
    if not (
        isinstance(values, list)
        and len(values) == size
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62 for v in values)
    ):
        raise InputError(f"witness: the outcomes' {key!r} must hold {size} counts (integers >= 0)")
    return np.asarray(values, dtype=np.int64)


def _outcomes_from_data(data: dict, width: int) -> Any:
    _defined(data, "outcomes")
    atoms = tuple(_sorted(a, "atoms", strictly=True) for a in _rows(data, "atoms", width))
    table = _hex_keys(data.get("table"))
    ratio = _numbers(data, "log_ratio")
    if ratio.size != table.size:
        raise InputError("witness: the outcomes' 'log_ratio' must have one value per key of 'table'")
    counts = (_counts(data, "counts_d", table.size), _counts(data, "counts_dprime", table.size))
    sizes = tuple(_counts(data, "sizes", 2).tolist())
    return OutcomeScore(OutcomeKeys(atoms), table, ratio, counts, sizes)


def decoded_outcomes(atoms: tuple[np.ndarray, ...], table: np.ndarray, most: int = 1 << 18) -> dict | None:
    """The outcome each key of ``table`` stands for, as a tuple per column of the atom's value or None (any value
    that is not an atom): found by hashing every combination of the columns' atoms (None when there are more than
    ``most`` of them).  For display only: a reader sees "(−1000, ·, ·)" where the score sees a 64-bit key."""
    sizes = [len(a) + 1 + int(np.any(a == 0)) for a in atoms]
    if math.prod(sizes) > most:
        return None
    grid = np.indices(sizes).reshape(len(sizes), -1).T  # each combination: an atom's index, or len(atoms) for "none"
    choices = [np.r_[a, [-0.0] if np.any(a == 0) else [], np.nan] for a in atoms]  # a zero atom: two outcomes
    rows = np.column_stack([c[g] for c, g in zip(choices, grid.T)])
    keys = OutcomeKeys(tuple(atoms))(np.where(np.isnan(rows), np.inf, rows))  # inf: never an atom (releases finite)
    wanted = set(int(k) for k in table)
    return {
        int(k): tuple(None if np.isnan(v) else float(v) for v in row) for k, row in zip(keys, rows) if int(k) in wanted
    }


# --- dispatch -------------------------------------------------------------------------------------------------


def score_to_data(score: Any, width: int) -> dict:
    """A frozen score reading ``width`` columns as JSON-ready data (the module docstring's kinds)."""
    if isinstance(score, LearnedStatistic):
        return logistic_to_data(score, width)
    if isinstance(score, TreeStatistic):
        trees = blackbox_trees.to_data(score.model)
        return {"kind": "trees", "recheckable": True, "definition": DEFINITIONS["trees"], **trees}
    if isinstance(score, HistogramScore):
        return _histograms_to_data(score)
    if isinstance(score, PooledHistogramScore):
        return _pooled_to_data(score)
    if isinstance(score, OutcomeScore):
        return _outcomes_to_data(score)
    raise TypeError(f"no data form for a {type(score).__name__} score")


def score_from_data(data: Any, width: int) -> Callable[[np.ndarray], np.ndarray]:
    """The score of :func:`score_to_data`'s ``data``, reading ``width`` columns (InputError, one line, for data
    that is not such a score)."""
    if not isinstance(data, dict):
        raise InputError(f"witness: the score is malformed (a {type(data).__name__}, not a table)")
    kind = data.get("kind")
    if kind == "logistic":
        statistic = logistic_from_data(data)
        if statistic.first_call[0] != width:
            raise InputError(f"witness: the logistic score reads {statistic.first_call[0]} columns, not {width}")
        return statistic
    if kind == "trees":
        _defined(data, "trees")
        return blackbox_trees.from_data(data, width)
    readers = {"histograms": _histograms_from_data, "pooled": _pooled_from_data, "outcomes": _outcomes_from_data}
    if kind not in readers:
        raise InputError(f"witness: unknown score kind {kind!r} (this version reads {', '.join(SCORE_KINDS)})")
    return readers[kind](data, width)


#: The kinds of score a witness may hold.
SCORE_KINDS = ("logistic", "trees", "histograms", "pooled", "outcomes")
