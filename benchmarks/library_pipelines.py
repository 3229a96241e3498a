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
* :func:`covariance`: SmartNoise synth's ``DPcovariance`` (``snsynth.models.dp_covariance``, the covariance method
  behind its ``DPLinearRegression``), called as its own test calls it: bounds per column, ``global_eps``, then
  ``release``.  Its ``release`` clips a copy of the data to the bounds (``censor_data``) and then computes the
  covariance of the data it was given, not of the clipped copy, with noise calibrated to the bounds
  (``2/n · range_i · range_j``): SmartNoise SDK issue #622 (Cebere et al., PETS 2026), fixed in smartnoise-synth
  1.0.6 (pull request #624: ``covar(new_data.values.T, ...)``).  Its noise is Laplace by the inverse CDF of
  ``np.random.uniform`` (numpy's global state).
* :func:`spending`: pipeline-dp's count and sum per partition on its local backend (its README's
  ``DPEngine.aggregate``).  Its noise is drawn by PyDP (python-dp), in compiled code: Google's differential-privacy
  library's ``SecureURBG``, filled by ``RAND_bytes`` -- a source the recorder does not see.  Its sum clips each
  value with ``np.clip`` (``SumCombiner``), which passes NaN: a record whose value is NaN makes its partition's sum
  NaN (found by this audit; no issue known).  :func:`spending_finite` maps NaN and ±inf into [0, 1] first.
* :func:`pets_mst`, :func:`pets_aim`: SmartNoise synth 1.0.8's MST and AIM (on mbi 1.1.0, private-pgm on PyPI), fitted
  as its guide fits a synthesizer (``Synthesizer.create(name, epsilon, delta)``, ``fit(data, categorical_columns=…,
  preprocessor_eps=0.0)``, ``sample``).  Its ``LabelTransformer`` takes each column's categories from the data, so
  one record adds or removes a category, a marginal's cell and its noise draw, and every synthetic value of it: the
  domain read from the data, the bug class of dpmm's issue #18 and diffprivlib's ``np.unique`` (Cebere et al.,
  PETS 2026); no SmartNoise issue known, not fixed as of 1.0.8.  Their Gaussian measurements (OpenDP's
  ``make_gaussian`` applied to 0.0, added) and exponential mechanism are calibrated for one record added or removed,
  the relation of the MST and AIM papers (McKenna et al.); under replace-one a marginal moves by √2 in L2, what
  dp-recorder's harness reports for mbi's mechanisms (mbi issue #65 is JAM's, which no wheel holds).
  :func:`pets_mst_declared`, :func:`pets_aim_declared`: the categories declared instead (a ``TableTransformer``
  fitted on the declared cells), SmartNoise's way of passing a transformer to ``fit``.  :func:`pets_mwem`,
  :func:`pets_mwem_declared`: its MWEM (Hardt, Ligett & McSherry), pure ε, the same transformer.  MWEM reads the
  domain from the data a second time, whatever the transformer: its histogram spans each column's codes from their
  smallest to their largest in the data (``_histogram_from_data_attributes``: ``bin_count = int(max_c - min_c + 1)``,
  "TODO: just use integer bins and assume 0 base"), so removing the only record of the largest code drops a cell
  and every synthetic value of it with the categories declared too (found by this audit; no issue known, as of
  1.0.8).  Its noise is OpenDP's Laplace (``snsynth.utils.laplace_noise``), its exponential mechanism Python's
  ``random.random()`` against the scores, retried while it picks a query already measured.
* :func:`pets_dpmm_core`: dpmm 0.1.9's core PrivBayes model (``dpmm.models.PrivBayesGM``, ε = 1, δ = 10⁻⁹), fitted
  on the integer codes of ``pet`` and ``owner`` with no domain given, as its constructor allows (``domain=None``):
  its mechanism then takes each column's domain from the data (``df.astype(int).max(axis=0) + 1`` in
  ``Mechanism.fit``, which all its models share: dpmm issue #18, found by Re:cord-play's authors), so removing the
  only record of the largest code shrinks the domain, a marginal's cells and noise draws, and every synthetic value
  of it.  Every release on PyPI has it (0.1.1 to 0.1.9); pull request #19 (not released) requires the domain.
  :func:`pets_dpmm_core_declared`: the domain given, what that pull request requires.  PrivBayes rather than MST:
  MST's selection runs 2,500 iterations of inference whatever its options (seven seconds a fit here, against 0.6 s).
  Their Gaussian measurements are OpenDP's ``make_gaussian`` applied to 0.0 and added, calibrated for one record
  added or removed.
* :func:`sgd`: Opacus 1.5.4's ``PrivacyEngine.make_private`` (its issue #571, open), in its docstring.
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


def covariance(data, rng):
    """SmartNoise synth's ``DPcovariance`` of ``x`` and ``y`` (both in [0, 1]), ε = 1: the lower triangle of the
    covariance matrix."""
    import pandas as pd
    from snsynth.models.dp_covariance import DPcovariance

    bounds = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0]})
    model = DPcovariance(n=len(data), cols=["x", "y"], rng=bounds, global_eps=1.0)
    return [float(v) for v in model.release(data[["x", "y"]].astype(float))]


def spending(data, rng):
    """pipeline-dp's ``DPEngine`` on its ``LocalBackend``, as its README aggregates: the count and the sum of
    ``spent`` (in [0, 1]) per ``day`` (public partitions), one record a person, Laplace noise, ε = 1 for one person
    added or removed."""
    return _aggregated(data["day"].astype(str), data["spent"].astype(float))


def spending_finite(data, rng):
    """:func:`spending` with NaN and ±inf mapped into [0, 1] first (pipeline-dp clips with ``np.clip``, which passes
    NaN)."""
    spent = np.nan_to_num(data["spent"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0)
    return _aggregated(data["day"].astype(str), spent)


def _aggregated(days, spent):
    import pipeline_dp

    rows = list(zip(range(len(days)), days, spent))
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=1.0, total_delta=0.0)
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    params = pipeline_dp.AggregateParams(
        noise_kind=pipeline_dp.NoiseKind.LAPLACE,
        metrics=[pipeline_dp.Metrics.COUNT, pipeline_dp.Metrics.SUM],
        max_partitions_contributed=1,
        max_contributions_per_partition=1,
        min_value=0.0,
        max_value=1.0,
    )
    extractors = pipeline_dp.DataExtractors(
        privacy_id_extractor=lambda row: row[0],
        partition_extractor=lambda row: row[1],
        value_extractor=lambda row: row[2],
    )
    result = engine.aggregate(rows, params, extractors, public_partitions=["mon", "tue", "wed"])
    accountant.compute_budgets()
    return [value for _, metrics in sorted(result) for value in (metrics.count, metrics.sum)]


PETS = ("cat", "dog", "fish")
OWNERS = ("yes", "no")


def pets_mst(data, rng):
    """SmartNoise synth's MST (ε = 1, δ = 10⁻⁹) fitted on the categorical columns ``pet`` and ``owner`` as its guide
    fits a synthesizer, then six synthetic records drawn: the count of each declared (pet, owner) cell among them,
    and of the records outside the declared categories (a post-processing of the synthetic data)."""
    return _synthesized("mst", data, None)


def pets_aim(data, rng):
    """SmartNoise synth's AIM (ε = 1, δ = 10⁻⁹), as :func:`pets_mst`."""
    return _synthesized("aim", data, None)


def pets_mst_declared(data, rng):
    """:func:`pets_mst` with the categories declared: a ``TableTransformer`` of ``LabelTransformer`` s fitted on the
    declared (pet, owner) cells, not on the data, and a value outside them mapped to the first category first."""
    return _synthesized("mst", _declared(data), _declared_transformer())


def pets_aim_declared(data, rng):
    """:func:`pets_aim` with the categories declared, as :func:`pets_mst_declared`."""
    return _synthesized("aim", _declared(data), _declared_transformer())


def pets_mwem(data, rng):
    """SmartNoise synth's MWEM (ε = 1, pure: its synthesizer takes no δ), as :func:`pets_mst`."""
    return _synthesized("mwem", data, None)


def pets_mwem_declared(data, rng):
    """:func:`pets_mwem` with the categories declared, as :func:`pets_mst_declared`."""
    return _synthesized("mwem", _declared(data), _declared_transformer())


def _declared(data):
    import pandas as pd

    pets = [p if p in PETS else PETS[0] for p in data["pet"].astype(str)]
    owners = [o if o in OWNERS else OWNERS[0] for o in data["owner"].astype(str)]
    return pd.DataFrame({"pet": pets, "owner": owners})


def _declared_transformer():
    import pandas as pd
    from snsynth.transform import LabelTransformer, TableTransformer

    cells = pd.DataFrame([(pet, owner) for pet in PETS for owner in OWNERS], columns=["pet", "owner"])
    transformer = TableTransformer([LabelTransformer(nullable=False), LabelTransformer(nullable=False)])
    transformer.fit(cells)
    return transformer


def _synthesized(name, data, transformer):
    import contextlib
    import io

    from snsynth import Synthesizer

    frame = data[["pet", "owner"]].astype(str)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):  # AIM prints its sigma
        warnings.simplefilter("ignore")
        budget = {"epsilon": 1.0} if name == "mwem" else {"epsilon": 1.0, "delta": 1e-9}  # MWEM is pure ε
        synthesizer = Synthesizer.create(name, **budget)
        synthesizer.fit(frame, categorical_columns=["pet", "owner"], preprocessor_eps=0.0, transformer=transformer)
        released = synthesizer.sample(6)
    return _cell_counts([tuple(map(str, r)) for r in released[["pet", "owner"]].itertuples(index=False)])


#: the integer codes of :data:`PETS` and :data:`OWNERS` (dpmm's core models take non-negative integer columns)
DPMM_DOMAIN = {"pet": len(PETS), "owner": len(OWNERS)}


def pets_dpmm_core(data, rng):
    """dpmm's core ``PrivBayesGM`` (ε = 1, δ = 10⁻⁹) on the codes of ``pet`` and ``owner``, no domain given;
    twelve synthetic records drawn: the count of each (pet, owner) cell among them and of the records outside them.
    Its inference runs 100 iterations, not its default 5,000 (eight seconds a fit here): a post-processing of the
    noisy marginals, which no privacy statement depends on."""
    from dpmm.models import PrivBayesGM

    return _dpmm_counts(PrivBayesGM(epsilon=1.0, delta=1e-9, n_iters=100, n_jobs=1), _codes(data))


def pets_dpmm_core_declared(data, rng):
    """:func:`pets_dpmm_core` with the domain given (dpmm pull request #19 requires it)."""
    from dpmm.models import PrivBayesGM

    model = PrivBayesGM(epsilon=1.0, delta=1e-9, n_iters=100, n_jobs=1, domain=dict(DPMM_DOMAIN))
    return _dpmm_counts(model, _codes(data))


def _codes(data):
    """``pet`` and ``owner`` as non-negative integer codes, clipped into the declared domain (NaN to 0)."""
    import pandas as pd

    return pd.DataFrame(
        {
            column: np.clip(np.nan_to_num(data[column].to_numpy(dtype=float)), 0, DPMM_DOMAIN[column] - 1).astype(int)
            for column in DPMM_DOMAIN
        }
    )


def _dpmm_counts(model, codes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(codes)
        released = model.generate(n_records=12)
    records = [
        (PETS[p] if 0 <= p < len(PETS) else str(p), OWNERS[o] if 0 <= o < len(OWNERS) else str(o))
        for p, o in released[["pet", "owner"]].astype(int).itertuples(index=False)
    ]
    return _cell_counts(records)


def _cell_counts(records):
    """The count of each declared (pet, owner) cell among ``records``, then of the records outside them."""
    cells = [(pet, owner) for pet in PETS for owner in OWNERS]
    return [sum(r == cell for r in records) for cell in cells] + [sum(r not in cells for r in records)]


def sgd(data, rng):
    """Opacus's ``PrivacyEngine.make_private`` as its tutorial trains a model: a one-weight linear model (no bias,
    weight 0) fitted to ``y`` from ``x`` (both in [0, 1]) by DP-SGD for one epoch, batches of 2 by Poisson sampling,
    noise multiplier 1, clipping norm 1, learning rate 1; the weight released.  Opacus divides each noisy gradient
    sum by ``expected_batch_size = int(len(dataset) * sample_rate)`` and takes ``sample_rate = 1/len(data_loader)``:
    both read the dataset's size, which one record added or removed changes (Opacus issue #571, open; found by
    Re:cord-play's authors).  Its claim is the RDP accountant's ε at δ = 10⁻⁵ for the sample rate and steps of D."""
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    x = torch.tensor(np.clip(np.nan_to_num(data[["x"]].to_numpy(dtype=float)), 0.0, 1.0), dtype=torch.float32)
    y = torch.tensor(np.clip(np.nan_to_num(data[["y"]].to_numpy(dtype=float)), 0.0, 1.0), dtype=torch.float32)
    model = torch.nn.Linear(1, 1, bias=False)
    torch.nn.init.zeros_(model.weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    loader = DataLoader(TensorDataset(x, y), batch_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Opacus warns that secure_mode is off
        engine = PrivacyEngine()
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0
        )
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(xb), yb).backward()
            optimizer.step()
    return float(next(model.parameters()).detach().ravel()[0])
