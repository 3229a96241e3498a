"""dp-recorder's bug classes as undecorated programs, each beside its fix (benchmark code for :mod:`dp_recorder_peers`).

Each bug is the program of one test of dp-recorder (github.com/ObliviousAI/dp-recorder, commit 85d189e, ``tests/``;
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in Practice: Grey-Box Auditing of
Differential Privacy Libraries", PETS 2026, arXiv:2602.17454) with its decorations taken away: the primitive is a
plain function drawing from numpy's global state, as dp-recorder's ``instrumented_laplace`` does, and no
``ensure_equality`` is called.  The programs take ``(data, rng)`` (``pdp-audit program``'s form) and read the
records from the column ``value``; ``rng`` is not used, as the tests' programs do not have one.  Each ``*_fixed`` is
the same program with its bug fixed; every fix also maps NaN and ±inf into the domain (``np.nan_to_num``), since
``np.clip`` keeps NaN.

dp-recorder's peer run (:mod:`dp_recorder_peers`, ``--peer``) replaces :func:`laplace` by the same function under
dp-recorder's ``audit_spec`` decorator, so both tools audit one body of code.

``spent_twice`` clips its sum to [0, 1] so that it holds the test's one bug (the test sums raw data, which its data,
zeros and a 1, never shows; unclipped, the first witness found would be an outlier instead).  ``size_as_public``
keeps the test's ``np.clip``, and so a NaN bug beside the size.  Two tests (``test_nan_injection``,
``test_sensitivity_miscalibration``) give a replace-one pair but calibrate a sum over [-5, 5] with sensitivity 5,
add/remove's: replaced, a record moves the sum by up to 10.  ``clipped_sum_add_remove_scale`` is their program with
NaN mapped and that sensitivity kept; their fixes here use 10."""

from __future__ import annotations

import numpy as np

EPSILON = 1.0
CLASSES = (0.0, 1.0, 2.0)  # the class domain, public


def laplace(values, sensitivity, epsilon):
    """Laplace noise of scale sensitivity/ε on each value, from numpy's global state (dp-recorder's primitive)."""
    return values + np.random.laplace(0.0, sensitivity / epsilon, size=values.shape)


def _values(data) -> np.ndarray:
    return data["value"].to_numpy(dtype=float)


def _inside(data, low: float, high: float) -> np.ndarray:
    """The records mapped into [low, high]: NaN to 0, ±inf to the ends, then clipped."""
    values = np.nan_to_num(_values(data), nan=0.0, posinf=high, neginf=low)
    return np.clip(values, low, high)


def size_as_public(data, rng):
    """test_buggy_private_mean: a mean whose divisor, the size, is private under add/remove (synthcity)."""
    values = _values(data)
    total = np.sum(np.clip(values, -1.0, 1.0))
    return float(laplace(np.array([total]), 1.0, EPSILON)[0] / len(values))


def size_as_public_fixed(data, rng):
    """The fix: the size counted with noise too, half of ε each; the reader divides (sum and count in [-1, 1])."""
    values = _inside(data, -1.0, 1.0)
    total = laplace(np.array([np.sum(values)]), 1.0, EPSILON / 2)[0]
    count = laplace(np.array([float(len(values))]), 1.0, EPSILON / 2)[0]
    return float(total), float(count)


def size_as_public_ratio(data, rng):
    """The same fix releasing the ratio of the noisy sum and count (post-processing of the fix above)."""
    total, count = size_as_public_fixed(data, rng)
    return total / max(count, 1.0)


def domain_from_data(data, rng):
    """test_domain_inference: counts per class, the classes read from the data (diffprivlib, dpmm)."""
    values = _values(data)
    classes = np.unique(values)
    return [float(laplace(np.array([np.sum(values == c)]), 1.0, EPSILON / len(classes))[0]) for c in classes]


def domain_from_data_fixed(data, rng):
    """The fix: the public class domain."""
    values = _values(data)
    return [float(laplace(np.array([np.sum(values == c)]), 1.0, EPSILON / len(CLASSES))[0]) for c in CLASSES]


def spent_twice(data, rng):
    """test_double_spending: a sum and a count, each with the whole ε."""
    values = _inside(data, 0.0, 1.0)
    total = laplace(np.array([np.sum(values)]), 1.0, EPSILON)
    count = laplace(np.array([float(len(values))]), 1.0, EPSILON)
    return float(total[0]), float(count[0])


def spent_twice_fixed(data, rng):
    """The fix: half of ε each."""
    values = _inside(data, 0.0, 1.0)
    total = laplace(np.array([np.sum(values)]), 1.0, EPSILON / 2)
    count = laplace(np.array([float(len(values))]), 1.0, EPSILON / 2)
    return float(total[0]), float(count[0])


def nan_through_clip(data, rng):
    """test_nan_injection: ``np.clip`` keeps NaN, so one NaN record makes the sum NaN (SmartNoise, dpmm, Opacus...)."""
    total = np.sum(np.clip(_values(data), -5.0, 5.0))
    return float(laplace(np.array([total]), 5.0, EPSILON)[0])


def nan_through_clip_fixed(data, rng):
    """The fix: NaN and ±inf mapped into [-5, 5] before the clip, and the noise calibrated to replace-one (the
    test's pair replaces a record): a record moving from −5 to 5 moves the sum by 10."""
    total = np.sum(_inside(data, -5.0, 5.0))
    return float(laplace(np.array([total]), 10.0, EPSILON)[0])


def clipped_sum_add_remove_scale(data, rng):
    """The tests' sensitivity 5 of a sum over [-5, 5] (``test_nan_injection``, ``test_sensitivity_miscalibration``),
    NaN mapped: right under add/remove, half the sensitivity under the replace-one pairs the tests give."""
    total = np.sum(_inside(data, -5.0, 5.0))
    return float(laplace(np.array([total]), 5.0, EPSILON)[0])


def zero_sensitivity(data, rng):
    """test_noise_miscalibration: PrivBayes' sensitivity n_features − K is 0 when K = n_features (synthcity)."""
    n_features, k = 5, 5
    total = np.sum(_values(data))
    return float(laplace(np.array([total]), float(n_features - k), EPSILON)[0])


def zero_sensitivity_fixed(data, rng):
    """The fix: the records clipped to [0, 1] and the noise calibrated to that bound."""
    total = np.sum(_inside(data, 0.0, 1.0))
    return float(laplace(np.array([total]), 1.0, EPSILON)[0])


def raw_sum(data, rng):
    """test_sensitivity_miscalibration: the raw sum released with the clipped sum's sensitivity (SmartNoise, dpmm)."""
    values = _values(data)
    clipped = np.clip(values, -5.0, 5.0)  # noqa: F841 -- computed and forgotten, as in the test
    return float(laplace(np.array([np.sum(values)]), 5.0, EPSILON)[0])


def raw_sum_fixed(data, rng):
    """The fix: the sum of the clipped records, calibrated to replace-one (sensitivity 10, as above)."""
    return float(laplace(np.array([np.sum(_inside(data, -5.0, 5.0))]), 10.0, EPSILON)[0])


def count_ones(data, rng):
    """test_correct_mechanism: a count of ones, sensitivity 1 under add/remove (correct as written)."""
    count = float(np.sum(_values(data) == 1))
    return float(laplace(np.array([count]), 1.0, EPSILON)[0])
