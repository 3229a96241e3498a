"""The learned test statistics of the black-box audit (:mod:`pdp_audit.audits.blackbox.attack`), fitted on the
training releases alone: a logistic regression of "released on D" against "released on D'" on the standardised outputs
and their squares (linear and quadratic features: it recovers the optimal test of Gaussian releases whose means or
variances differ; :class:`Standardiser` says why no magnitude of finite release can overflow them), in the spirit of
DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev 2021); gradient-boosted trees; and the choice between the two on a
validation split of the training releases (:func:`select_statistic`).  A statistic is frozen once fitted: the bound
computed from its scores on fresh releases is valid whatever it learned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pdp_audit.audits.blackbox.trees import StepFunction, TreeEnsemble
from pdp_audit.verify.estimators.row_scores import linear_rows

if TYPE_CHECKING:  # pragma: no cover
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

#: Standardised releases are clipped to ±Z_MAX (never on the training split, where |z| ≤ √(n − 1) ≤ 1.5e4).
Z_MAX = 2.0**20


@dataclass(frozen=True)
class Standardiser:
    """z = clip((o / p − c) / s, −Z_MAX, Z_MAX) per coordinate, fitted on the training releases.

    p = 2^e is the power of two with max |o| < p on the training split (o/p is computed as ldexp(o, −e): exact, no
    overflow even where p itself is not a float64, e = 1024 for |o| ≥ 2^1023, and |o/p| < 1),
    c and s the mean and standard deviation of o/p there (s = 1 for a constant coordinate).  No sum or square is
    ever taken of a number above 1 in magnitude before standardising, so finite releases of any magnitude, 1e300 or
    1e-300, give finite features z and z² (and z² ≤ 2^40).  On the training split |z| ≤ √(n − 1) (Samuelson's
    inequality: no value lies more than √(n − 1) standard deviations from the mean of n), so the clip acts only on
    fresh releases beyond the training range, where it keeps the statistic finite.  The statistic learned from
    [z, z²] is the one learned from [o, o²] (each is an affine function of the other's span), and like it depends on
    the training split only: the scores of the test split stay independent draws of a fixed statistic.
    """

    exponent: np.ndarray  # e per coordinate: max |o| < 2^e on the training split
    centre: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, releases: np.ndarray) -> Standardiser:
        largest = np.max(np.abs(releases), axis=0)
        _, exponent = np.frexp(largest)  # largest = f·2^e with f in [0.5, 1): |o| < 2^e (e = 0 for largest = 0)
        unit = cls._unit(releases, exponent)
        centre = unit.mean(axis=0)
        scale = unit.std(axis=0)
        return cls(exponent, centre, np.where(scale > 0, scale, 1.0))

    @staticmethod
    def _unit(releases: np.ndarray, exponent: np.ndarray) -> np.ndarray:
        """o · 2^−e, by ldexp: exact, and never forming 2^e itself, which overflows for e = 1024 (|o| ≥ 2^1023,
        e.g. 1e308: the power of two was inf, every release 0, the bound 0)."""
        return np.ldexp(releases, -exponent)

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        """z of each release: the same operations, a column at a time (:func:`by_column`)."""
        z = self._unit(releases, self.exponent)
        with np.errstate(over="ignore"):
            by_column(z, np.subtract, self.centre)
            by_column(z, np.divide, self.scale)
        return np.clip(z, -Z_MAX, Z_MAX, out=z)


#: :func:`by_column` takes a column at a time up to this many columns, and numpy's broadcast beyond (measured on
#: 64k rows, 2 shared cores: 47 against 312 µs for 2 columns, 395 against 418 for 8, 1,582 against 808 for 20).
BY_COLUMN_MAX = 8


def by_column(values: np.ndarray, operation: np.ufunc, per_column: np.ndarray) -> None:
    """``values = operation(values, per_column)`` in place (a C-ordered array, ``per_column`` broadcast along its
    rows), a column at a time where the rows are short: numpy's broadcast loop then runs once per row over a few
    values (one or two, for a 1-D mechanism's [z, z²]), several times the arithmetic on the selection pass's blocks
    of releases; where they are long (past :data:`BY_COLUMN_MAX`) a column is strided across every row's memory, and
    the broadcast is the faster.  The same operations on the same numbers either way."""
    if values.shape[1] > BY_COLUMN_MAX:
        operation(values, per_column, out=values)
        return
    for j in range(values.shape[1]):
        column = values[:, j]
        operation(column, per_column[j], out=column)


def _features(standardised: np.ndarray) -> np.ndarray:
    return np.hstack([standardised, standardised**2])


#: A value is an atom of a column when it makes at least this share of the column's training releases (and 10 of
#: them): a point mass (a flag such as "aborted", a count) rather than a real number drawn twice by chance.
ATOM_SHARE = 1e-3
#: At most this many atoms per column, the most frequent first.
MAX_ATOMS = 4


@dataclass(frozen=True)
class Atoms:
    """Point masses of the releases, found on the training split: per column, the values (exact equality) that
    carry at least :data:`ATOM_SHARE` of it.  A column of at most 3 values all atoms is left alone (z and z² already
    span every function of 3 values); in any other column with atoms (a flag beside real numbers, a count of more
    than 3 values), each atom gets an indicator feature and is replaced in the real-valued part by ``fill``, the mean
    of the column's other training values (0 if none), so that a flag of −1000 does not swamp z and z² of the real
    values beside it.  Fitted on training releases only, like every other part of the statistic."""

    columns: tuple[int, ...]
    values: tuple[np.ndarray, ...]
    fill: tuple[float, ...]

    @classmethod
    def fit(cls, releases: np.ndarray) -> Atoms | None:
        n = len(releases)
        columns, values, fill = [], [], []
        for j in range(releases.shape[1]):
            found, counts = np.unique(releases[:, j], return_counts=True)
            heavy = counts >= max(10, ATOM_SHARE * n)
            atoms = found[heavy][np.argsort(-counts[heavy], kind="stable")][:MAX_ATOMS]
            if atoms.size == 0 or (found.size <= 3 and heavy.all()):
                continue
            rest = releases[~np.isin(releases[:, j], atoms), j]
            columns.append(j)
            values.append(atoms)
            fill.append(float(rest.mean()) if rest.size else 0.0)
        return cls(tuple(columns), tuple(values), tuple(fill)) if columns else None

    def __call__(self, releases: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the releases with each atom replaced by its column's fill, the atoms' indicators: a column of 1.0 and 0.0
        per atom, in the order of the columns, then of their atoms).  Compared an atom at a time with the column made
        contiguous, the indicators written into one array: a comparison of every release with a column's few atoms at
        once (a broadcast whose loop ran once per release over those few) and the stacking of the indicators cost
        four times as much on SVT3's blocks."""
        filled = releases.copy()
        indicators = np.empty((len(releases), sum(atoms.size for atoms in self.values)))
        at = 0
        for j, atoms, fill in zip(self.columns, self.values, self.fill):
            column = np.ascontiguousarray(releases[:, j])
            found = np.zeros(len(releases), dtype=bool)
            for atom in atoms:
                hit = column == atom
                found |= hit
                indicators[:, at] = hit
                at += 1
            np.copyto(filled[:, j], fill, where=found)
        return filled, indicators


@dataclass(frozen=True)
class LearnedStatistic:
    """The frozen test statistic: the logistic regression's decision function of the standardised releases and
    their squares (and of the indicators of their :class:`Atoms`, where there are any), fitted on the training
    split.  ``first_call`` is (columns, call) of the first training block."""

    standardise: Standardiser
    scaler: StandardScaler
    model: LogisticRegression
    first_call: tuple[int, str]
    atoms: Atoms | None = None

    def features(self, releases: np.ndarray) -> np.ndarray:
        if self.atoms is None:
            return _features(self.standardise(releases))
        filled, indicators = self.atoms(releases)
        return np.hstack([_features(self.standardise(filled)), indicators])

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        """The scores of (size, d) releases: row by row, so a block's scores are those of the same rows in any
        larger array (the bound is the same streamed or in memory)."""
        return linear_scores(self.scaler, self.model, self.features(releases))


def linear_scores(scaler: StandardScaler, model: LogisticRegression, features: np.ndarray) -> np.ndarray:
    """The logistic decision function Σ_k w_k·(f_k − m_k)/s_k + b of a new float64 array of finite ``features`` (the
    :class:`Standardiser`'s clip keeps them finite), computed as a **fixed function of each row**: centred and
    scaled in place (a column at a time: :func:`by_column`), then the products w_k·x_k added in the order of the
    features, the intercept last -- every step an elementwise float64 ufunc (subtract, divide, multiply, add).

    Not ``X @ coef.T`` (scikit-learn's ``decision_function``): a BLAS product rounds a row by where it falls in its
    block, and a threshold at a repeated release's score then held it in some blocks only: the event test refuted
    correct mechanisms (Mironov's snapping, ε = 1: at ε ≥ 1.051, p = 4e-24, at the default budget, seed 0).  The
    sum of :func:`pdp_audit.verify.estimators.row_scores.linear_rows` is one double for a release in every block
    (its module notes), so {score ≥ t} is a fixed set of releases and the counts of the fresh releases in it are
    what the exact test assumes (:mod:`pdp_audit.audits.blackbox.events`).  The numbers differ from scikit-learn's
    in their last bits (another order of the same sum); the statistic is fitted by it and only scored here."""
    by_column(features, np.subtract, scaler.mean_)
    by_column(features, np.divide, scaler.scale_)
    return linear_rows(features, model.coef_, float(model.intercept_[0]))


def learn_statistic(train_d: np.ndarray, train_dp: np.ndarray, first_call: tuple[int, str], accuracy: bool = True):
    """The logistic statistic learned on the training releases of D (label 1) and D' (label 0), and its training
    accuracy (NaN unless ``accuracy``: the event test reads none, and it costs scaling and scoring every training
    release again)."""
    # deferred: scikit-learn (and the scipy.stats it imports) costs about 1.5 CPU s to import, and only a logistic
    # statistic needs it: an event or tree statistic, a witness read or a program audit's start does not
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    train = np.vstack([train_d, train_dp])
    atoms = Atoms.fit(train)
    standardise = Standardiser.fit(train if atoms is None else atoms(train)[0])
    unfitted = LearnedStatistic(standardise, StandardScaler(), LogisticRegression(max_iter=1000), first_call, atoms)
    X = unfitted.features(train)
    y = np.concatenate([np.ones(len(train_d)), np.zeros(len(train_dp))])
    scaler = StandardScaler().fit(X)
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(X), y)
    statistic = LearnedStatistic(standardise, scaler, model, first_call, atoms)
    return statistic, float(model.score(scaler.transform(X), y)) if accuracy else float("nan")


@dataclass(frozen=True)
class TreeStatistic:
    """Gradient-boosted trees (:func:`pdp_audit.audits.blackbox.boosting.fit_trees`) on the raw releases: their
    decision function (log-odds of D), row by row.  Trees split on thresholds of single coordinates, so they see
    what no smooth function of [z, z²] sees: flags mixed with real values, interactions between coordinates."""

    model: TreeEnsemble
    first_call: tuple[int, str]
    #: on one column, the model as its step function (the same numbers, by a lookup: the selection pass scores
    #: millions of releases, and the traversal of every tree was half the time of a default run on 1-D Laplace)
    steps: StepFunction | None = field(default=None, compare=False, repr=False)

    def __call__(self, releases: np.ndarray) -> np.ndarray:
        if self.steps is not None and releases.shape[1] == 1 and np.isfinite(releases).all():
            return self.steps(releases[:, 0])
        # deferred: read at call time (tests replace features.distinct_rows)
        from pdp_audit.audits.blackbox.features import distinct_rows

        rows, repeated = distinct_rows(releases)
        scores = self.model(rows)
        return scores if repeated is None else scores[repeated]


def learn_trees(
    train_d: np.ndarray, train_dp: np.ndarray, first_call: tuple[int, str], seed: int, accuracy: bool = True
):
    """The tree statistic learned on the training releases (``seed``: its early-stopping split and binning
    subsample), and its training accuracy (NaN unless ``accuracy``: the event test reads none, and it costs a
    traversal of every tree for every training release)."""
    X = np.vstack([train_d, train_dp])
    y = np.concatenate([np.ones(len(train_d)), np.zeros(len(train_dp))])
    # deferred: the boosting imports scipy.special; a witness's trees are rebuilt from data without it
    # (:mod:`pdp_audit.audits.blackbox.witness_file`, read before the audit's process starts)
    from pdp_audit.audits.blackbox.boosting import fit_trees

    ensemble = fit_trees(X, y, int(seed) % 2**32)
    train_accuracy = float(np.mean((ensemble(X) > 0) == (y == 1))) if accuracy else float("nan")
    steps = StepFunction.of(ensemble) if X.shape[1] == 1 else None
    return TreeStatistic(ensemble, first_call, steps), train_accuracy


#: The share of each world's training releases that ``select`` holds out to compare the learners.
VALIDATION_SHARE = 0.25
#: The level of the ε lower bound the learners are compared by on the validation split.
SELECTION_ALPHA = 0.1


def select_statistic(train_d: np.ndarray, train_dp: np.ndarray, first_call: tuple[int, str], delta: float, seed: int):
    """Logistic and trees, each fitted on the first 1 − :data:`VALIDATION_SHARE` of each world's training releases;
    kept: the one whose scores on the rest give the larger ε lower bound at :data:`SELECTION_ALPHA` (logistic on a
    tie).  The choice depends on training draws only, so the scores of fresh releases are still independent draws
    of a fixed statistic and the final bound stays valid (no union over the candidates is needed).  Returns
    (statistic, training accuracy, its name, the validation bounds by name)."""
    # deferred: the estimators import scipy (optimize, special, fft); a witness's statistic is rebuilt from data
    # without them (:mod:`pdp_audit.audits.blackbox.witness_file`, read before the audit's process starts)
    from pdp_audit.verify.estimators.attack import pooled_rank_attack

    cut_d, cut_dp = (int(len(t) * (1 - VALIDATION_SHARE)) for t in (train_d, train_dp))
    fit_d, fit_dp = train_d[:cut_d], train_dp[:cut_dp]
    candidates = {
        "logistic": learn_statistic(fit_d, fit_dp, first_call),
        "trees": learn_trees(fit_d, fit_dp, first_call, seed),
    }
    bounds = {
        name: pooled_rank_attack(stat(train_d[cut_d:]), stat(train_dp[cut_dp:]), delta, seed).epsilon_lower_bound_at(
            SELECTION_ALPHA
        )
        for name, (stat, _) in candidates.items()
    }
    best = max(bounds, key=lambda name: (bounds[name], name == "logistic"))
    return (*candidates[best], best, bounds)
