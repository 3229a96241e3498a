"""Library pipelines with a known privacy bug at some released version (benchmark code for
:mod:`library_versions`): each calls the library as its documentation does, with no decoration.

* :func:`survey`: OpenDP's ``make_randomized_response_bool(0.75)`` on each answer, which claims ε = ln(0.75/0.25)
  = ln 3 for one answer changed.  Up to OpenDP 0.4.0 it answered ``arg if B₁ else B₂`` with B₁, B₂ ~ Bernoulli(p)
  independent, so P(False | True) = (1 − p)² = 1/16 and P(False | False) = p + (1 − p)² = 13/16: ε = ln 13.
  OpenDP 0.5.0 fixed it (its changelog, "Fixed function in make_randomized_response_bool", pull request #481):
  ``arg XOR not B₁``.  Its module was ``opendp.meas`` before 0.6, ``opendp.measurements`` since.
* :func:`regression`: diffprivlib's ``LinearRegression`` with bounds on X and y, as its guide fits it.  Its
  sensitivity of the coefficient of w_i² reads the lower bound of feature i twice
  (``np.max(np.abs([bounds_X[0][i], bounds_X[0][i]])) ** 2``: diffprivlib issue #105, open, fix proposed in pull
  request #110), so with X in [0, 1] that coefficient, Σ x_i², is released without noise.
* :func:`naive_bayes`: diffprivlib's ``GaussianNB`` with its bounds, its model released (classes and means).  It
  takes its classes from the labels (``np.unique(y)``, through scikit-learn's ``fit``): the class domain is read from
  the data, the bug class dp-recorder's ``test_domain_inference`` maps to diffprivlib (Cebere et al., PETS 2026);
  not fixed as of 0.6.6.
"""

from __future__ import annotations

import warnings

import numpy as np

try:
    from opendp.measurements import make_randomized_response_bool  # OpenDP 0.6 and later
except ImportError:
    try:
        from opendp.meas import make_randomized_response_bool  # OpenDP 0.5 and before
    except ImportError:  # no OpenDP: survey is not run
        make_randomized_response_bool = None


def survey(data, rng):
    """Each answer of the column ``smoker`` (0 or 1) by randomized response, ε = ln 3 an answer."""
    from opendp.mod import enable_features

    enable_features("contrib")
    answer = make_randomized_response_bool(0.75)
    return [bool(answer(bool(x))) for x in data["smoker"]]


def regression(data, rng):
    """The slope of ``y`` on ``x`` (both in [0, 1], no intercept) by diffprivlib's ``LinearRegression``, ε = 1."""
    from diffprivlib.models import LinearRegression

    x = np.clip(np.nan_to_num(data[["x"]].to_numpy(dtype=float)), 0.0, 1.0)
    y = np.clip(np.nan_to_num(data["y"].to_numpy(dtype=float)), 0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its PrivacyLeakWarning-free path still warns on sklearn's API changes
        model = LinearRegression(epsilon=1.0, bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0), fit_intercept=False)
        model.fit(x, y)
    return float(model.coef_[0])


def naive_bayes(data, rng):
    """diffprivlib's ``GaussianNB`` (ε = 1, ``x`` in [0, 1]) on the labels ``label``: its classes and its means."""
    from diffprivlib.models import GaussianNB

    x = np.clip(np.nan_to_num(data[["x"]].to_numpy(dtype=float)), 0.0, 1.0)
    labels = data["label"].astype(str).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = GaussianNB(epsilon=1.0, bounds=(0.0, 1.0)).fit(x, labels)
    return [str(c) for c in model.classes_], model.theta_.ravel().tolist()
