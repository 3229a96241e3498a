"""A rehearsal of issue 63's hidden series: realistic programs (:mod:`tests.program_series`), each bug class of
Cebere et al. (PETS 2026, §5), Casacuberta et al. (CCS 2022, §4) and Lyu, Su & Li (PVLDB 2017) beside its fixed
twin, audited by ``pdp_audit.audit_program`` without being told the witness pair.

* Every bug FAILs with a witness named in its checks and the black box's confirmation (``program-confirm``) on the
  witness pair refuting the claim at p ≤ α; an accounting bug (double spending, noise too small for its answers, a
  wrong relation, a float sum's real sensitivity) is also refuted by the exact composition (``program-composition``).
* No twin FAILs: each passes or is undecided (as implemented, float noise added to a value is never certified; with
  ``law="ideal"`` the additive twins are certified by composition).

False alarms: every statistical check runs at the family-wise α = 1e-6 of its run (``alpha``), with a fixed seed;
a twin is correct, so its run FAILs by chance with probability at most 1e-6, and the exact checks (record,
structure, composition) make no error of chance.  Over the twins here the chance that any of them fails by bad luck
is at most their number times 1e-6.  A bug's confirmation is a p-value ≤ 1e-6 on fresh releases: an honest program
would show it with probability at most 1e-6.

Seen failing (the series does fail where the audit misdecides): before the default of 8 draw sets, the NaN noisy
max (its witness pair's releases agree at the first two draw sets' draws); before a finding could be confirmed on a
smaller pair of D's records, the 95th-percentile bounds (an exact finding, unconfirmed: ~1e5 releases per world
needed on D's pairs); before the statistical screening of pairs (:mod:`pdp_audit.audits.program.screening`), the
sparse vector whose query noise is drawn once (its witness pair of finite loss, its confirmation p = 1).
"""

from __future__ import annotations

import warnings
from importlib.util import find_spec

import pytest

import pdp_audit
from tests import program_series as s

ALPHA = 1e-6
TRIALS = 2000

ADD_REMOVE: dict = {}
#: Bugs whose confirmation refutes at p far below α with fewer releases: at 500 per world and seed 0 the largest
#: of their p-values is 8.1e-32 (salary_mean_percentile_bounds; the others 5e-34 or below), 25 orders of magnitude
#: under α = 1e-6, so the refutation does not hang on the seed (at 300 it was 1.0e-11: too close; at 1,000, 1e-60).
#: A smaller budget only makes a refutation harder, never a false alarm likelier: the twins keep theirs.
QUICK = {"trials": 500}
NAMED_WITNESS = {**QUICK, "candidates": 8}
AGE_CDF = {"trials": 1000, "candidates": 8}
REPLACE_ONE = {"neighbours": "replace-one"}
LOGIN_DAY = {"neighbours": "replace-one", "bounds": (s.DAY_START, s.DAY_START + s.DAY), "trials": 5000}
LOGIN_BUG = {**LOGIN_DAY, "trials": 3000}
SENTIMENT = {"neighbours": "replace-one", "bounds": (-1, 1)}
#: A claim of (1, 1e-5): the Gaussian mechanism's, and partition selection's.
GAUSSIAN = {"delta": 1e-5}


def _needs(library: str) -> pytest.MarkDecorator:
    """A case whose program calls an optional library (the ``libraries`` extra): skipped where it is not installed,
    as the README's test command installs ``.[test]`` only."""
    return pytest.mark.skipif(find_spec(library) is None, reason=f"{library} is not installed (pip install {library})")


#: (program, data, options, accounting): accounting bugs are also refuted by the exact composition.
BUGS = [
    # p = 7.1e-29 at 5,000 releases a world, 8.1e-8 at 3,000: it keeps 5,000
    pytest.param(s.share_senior_public_n, s.STAFF, {"trials": 5000}, False, id="share_senior_public_n"),
    pytest.param(s.dept_pay_groupby, s.STAFF, QUICK, False, id="dept_pay_groupby"),
    pytest.param(s.payroll_raw_column, s.STAFF, QUICK, True, id="payroll_raw_column"),
    pytest.param(s.dp_gradient_floor_division, s.STAFF, {**GAUSSIAN, **QUICK}, True, id="dp_gradient_floor_division"),
    pytest.param(s.best_rated_dept_nan, s.STAFF, ADD_REMOVE, False, id="best_rated_dept_nan"),
    # p = 3.5e-18 at 1,000 releases a world (2.7e-23 at 2,000)
    pytest.param(s.describe_full_budget_each, s.STAFF, {"trials": 1000}, True, id="describe_full_budget_each"),
    # p = 1.3e-14 at 3,000 releases a world (4.3e-22 at 5,000); its twin keeps LOGIN_DAY's 5,000
    pytest.param(s.mean_login_time_float32, s.LOGINS, LOGIN_BUG, True, id="mean_login_time_float32"),
    # bounds taken from the data, the 1st/99th percentiles: the same bug and code as the 95th's below with a larger
    # effect (one outlier drags the 99th up by 80 %); the milder 95th, the form seen unconfirmed before, keeps the
    # class in the default run, and this one runs with the slow tests
    pytest.param(
        s.salary_mean_percentile_bounds,
        s.STAFF,
        QUICK,
        False,
        id="salary_mean_percentile_bounds",
        marks=pytest.mark.slow,
    ),
    pytest.param(s.salary_mean_p95_bounds, s.STAFF, QUICK, False, id="salary_mean_p95_bounds"),
    pytest.param(s.dept_counts_thresholded, s.STAFF, ADD_REMOVE, False, id="dept_counts_thresholded"),
    pytest.param(s.ratings_total_by_hand_unit_scale, s.STAFF, QUICK, False, id="ratings_total_by_hand_unit_scale"),
    # these two's witnesses are named neighbours (an outlier below the domain; D less its youngest record), found and
    # confirmed alike with 8 searched candidates as with the default 32 (the same witness and p on seed 0); the
    # search's exact compositions were most of their time
    pytest.param(s.age_histogram_data_bins, s.STAFF, NAMED_WITNESS, True, id="age_histogram_data_bins"),
    # p = 2.4e-44 at 1,000 releases a world, only 4.8e-14 at 500: it keeps 1,000
    pytest.param(s.age_cdf_noise_per_point, s.STAFF, AGE_CDF, True, id="age_cdf_noise_per_point"),
    pytest.param(s.largest_dept_max_unnoised, s.STAFF, QUICK, False, id="largest_dept_max_unnoised"),
    # the infinite loss (week 1 wins only on D less one week-0 incident) shows on the ~7% of draws whose threshold
    # falls in (5, 6]; at the recorded draws every pair agrees: the statistical screening of releases finds the pair
    pytest.param(s.first_busy_week_shared_noise, s.INCIDENTS, ADD_REMOVE, False, id="first_busy_week_shared_noise"),
    # its witness is a searched pair (two counts moved by 1: ε = 2); the confirmation's learned statistic on its
    # 7-column release rows needs more than 2,000 releases a world (p = 3.8e-4 there, 1.2e-38 at 3,000, 3.1e-45 at
    # 5,000 as measured on seed 0)
    pytest.param(
        s.product_counts_add_remove_accounting,
        s.REVIEWS,
        {**REPLACE_ONE, "trials": 3000},
        True,
        id="product_counts_add_remove_accounting",
    ),
    # refuted by composition through the law read off make_laplace's arguments (its privacy map bounds from above)
    pytest.param(
        s.opendp_sentiment_add_remove,
        s.REVIEWS,
        SENTIMENT,
        True,
        id="opendp_sentiment_add_remove",
        marks=_needs("opendp"),
    ),
    pytest.param(
        s.diffprivlib_mean_no_bounds,
        s.STAFF,
        {**REPLACE_ONE, **QUICK},
        False,
        id="diffprivlib_mean_no_bounds",
        marks=_needs("diffprivlib"),
    ),
]

#: (program, data, options); ``law`` "ideal" where the twin is certified by composition for its real-valued law.
TWINS = [
    pytest.param(s.share_senior_fixed, s.STAFF, ADD_REMOVE, id="share_senior_fixed"),
    pytest.param(s.dept_pay_declared, s.STAFF, {"law": "ideal"}, id="dept_pay_declared-ideal"),
    pytest.param(s.payroll_capped_column, s.STAFF, {"law": "ideal"}, id="payroll_capped_column-ideal"),
    pytest.param(s.dp_gradient, s.STAFF, {**GAUSSIAN, "law": "ideal"}, id="dp_gradient-ideal"),
    pytest.param(s.best_rated_dept, s.STAFF, ADD_REMOVE, id="best_rated_dept"),
    pytest.param(s.describe_split_budget, s.STAFF, {"law": "ideal"}, id="describe_split_budget-ideal"),
    pytest.param(s.mean_login_time_offset, s.LOGINS, {**LOGIN_DAY, "law": "ideal"}, id="mean_login_time_offset-ideal"),
    pytest.param(s.salary_mean_public_bounds, s.STAFF, ADD_REMOVE, id="salary_mean_public_bounds"),
    pytest.param(s.dept_counts_partition_selection, s.STAFF, GAUSSIAN, id="dept_counts_partition_selection"),
    pytest.param(s.ratings_total_by_hand, s.STAFF, ADD_REMOVE, id="ratings_total_by_hand"),
    pytest.param(s.age_histogram_fixed_bins, s.STAFF, {"law": "ideal"}, id="age_histogram_fixed_bins-ideal"),
    pytest.param(s.age_cdf, s.STAFF, {"law": "ideal"}, id="age_cdf-ideal"),
    pytest.param(s.largest_dept_noisy_max, s.STAFF, ADD_REMOVE, id="largest_dept_noisy_max"),
    pytest.param(s.first_busy_week, s.INCIDENTS, ADD_REMOVE, id="first_busy_week"),
    pytest.param(s.busy_weeks, s.INCIDENTS, ADD_REMOVE, id="busy_weeks"),
    pytest.param(s.product_counts_replace_one, s.REVIEWS, {**REPLACE_ONE, "law": "ideal"}, id="product_counts-ideal"),
    pytest.param(
        s.opendp_sentiment_replace_one, s.REVIEWS, SENTIMENT, id="opendp_sentiment_replace_one", marks=_needs("opendp")
    ),
    pytest.param(
        s.diffprivlib_mean_bounds, s.STAFF, REPLACE_ONE, id="diffprivlib_mean_bounds", marks=_needs("diffprivlib")
    ),
]
#: The twins certified by composition for their primitives' real-valued laws (``law="ideal"``).
CERTIFIED = {
    "dept_pay_declared",
    "payroll_capped_column",
    "dp_gradient",
    "describe_split_budget",
    "mean_login_time_offset",
    "age_histogram_fixed_bins",
    "age_cdf",
    "product_counts_replace_one",
}


def _audit(program, data, options):
    options = {"trials": TRIALS, "seed": 0, "alpha": ALPHA, **options}
    delta = options.pop("delta", 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diffprivlib's own warnings on bounds taken from the data
        return pdp_audit.audit_program(program, data, s.EPSILON, delta, **options)


def _summary(run) -> list:
    return [(c.id, c.verdict, c.pvalue, c.note[:240]) for c in run.checks]


@pytest.mark.tier2(representatives=("dp_gradient_floor_division",))
@pytest.mark.parametrize(("program", "data", "options", "accounting"), BUGS)
def test_every_bug_fails_with_a_witness_and_a_confirming_pvalue(program, data, options, accounting):
    run = _audit(program, data, options)
    checks = {c.id: c for c in run.checks}
    assert run.verdict == "fail" and run.exit_code == 1, _summary(run)
    assert checks["program-record"].verdict == "pass", _summary(run)  # the finding is about the data, not a fault
    failed = [c for c in run.checks if c.verdict == "fail"]
    assert all(c.details.get("witness") for c in failed), _summary(run)
    confirm = checks.get("program-confirm")
    assert confirm is not None and confirm.details["witness"], _summary(run)
    exact = any(checks[name].verdict == "fail" for name in ("program-structure", "program-composition"))
    if exact and confirm.details.get("not_run"):  # an exact refutation ends the run: the black box was not needed
        assert confirm.verdict == "inconclusive" and confirm.pvalue is None, _summary(run)
    else:  # the black box's refutation, or an exact one's corroboration
        assert confirm.verdict == "fail" and confirm.pvalue is not None and confirm.pvalue <= ALPHA, _summary(run)
        assert not exact or confirm.details["corroboration"], _summary(run)
    if accounting:
        assert checks["program-composition"].verdict == "fail", _summary(run)
        assert "Refuted by composition" in checks["program-composition"].note


@pytest.mark.tier2(representatives=("mean_login_time_offset-ideal", "payroll_capped_column-ideal"))
@pytest.mark.parametrize(("program", "data", "options"), TWINS)
def test_no_twin_fails(program, data, options):
    run = _audit(program, data, options)
    assert run.verdict != "fail" and run.exit_code in (0, 3), _summary(run)
    if options.get("law") == "ideal" and program.__name__ in CERTIFIED:
        assert run.verdict == "pass", _summary(run)


# --- the libraries' own pipelines (issue 71): small budgets, each decided by what the audit found itself ---------
@_needs("opendp")
def test_an_opendp_pipeline_over_strings_for_the_wrong_relation_is_refuted_by_composition():
    """Seen failing before OpenDP's chains were read as their parts (:mod:`.adapters.opendp_measurements`): the
    argument, a vector of strings, "cannot be compared", and the composition read no step (inconclusive)."""
    options = {**REPLACE_ONE, "bounds": {"product": list(s.PRODUCTS)}, "trials": 100, "law": "ideal"}
    run = _audit(s.opendp_product_counts_add_remove, s.PRODUCT_REVIEWS, options)
    composition = next(c for c in run.checks if c.id == "program-composition")
    assert run.exit_code == 1 and composition.verdict == "fail", _summary(run)
    assert "Refuted by composition" in composition.note and composition.details.get("witness"), _summary(run)
    assert "opendp.make_laplace" in composition.note, _summary(run)


@_needs("opendp")
@pytest.mark.parametrize("law", ["ideal", "as-implemented"])
def test_its_twin_over_strings_is_certified(law):
    """Seen failing before: inconclusive ("its argument cannot be compared").  OpenDP's integer counts carry its
    discrete Laplace noise exactly, so the twin is certified as implemented too."""
    options = {**REPLACE_ONE, "bounds": {"product": list(s.PRODUCTS)}, "trials": 100, "law": law}
    run = _audit(s.opendp_product_counts_replace_one, s.PRODUCT_REVIEWS, options)
    assert run.verdict == "pass" and run.exit_code == 0, _summary(run)


@_needs("diffprivlib")
def test_diffprivlibs_mean_without_bounds_is_refuted_on_a_finite_outlier():
    """Seen failing before divergences were ordered by how far the mechanism's parameters moved
    (:func:`pdp_audit.audits.program.recorder.moved`): the first diverging pair (a record at the domain's lower end,
    the truncation range moving from 0.1 to 0) was confirmed, p = 1 at this budget -- inconclusive."""
    options = {**REPLACE_ONE, "bounds": (0, 1), "trials": 200}
    run = _audit(s.diffprivlib_score_mean_no_bounds, s.SCORES, options)
    confirm = next(c for c in run.checks if c.id == "program-confirm")
    assert run.exit_code == 1 and confirm.pvalue is not None and confirm.pvalue <= ALPHA, _summary(run)
    assert "outlier" in confirm.details["witness"], _summary(run)


@_needs("opendp")
@pytest.mark.parametrize(("scale", "certified"), [(1.0, False), (2.0, True)])
def test_an_opendp_chain_built_before_the_program_is_accounted_by_its_map_over_strings(scale, certified):
    """A chain built before the recording (at a module's import) is recorded as it is called, on the vector of
    strings: its privacy map is read at the symmetric distance the two vectors are apart (2 for a review moved to
    another product).  Seen failing before (:func:`.opendp_steps.dataset_distance`): "its argument cannot be
    compared", the steps' pure ε read as 0, the twin inconclusive.  The chains are built at tests/program_series.py's
    import; a closure holding one was undecided once the fresh process replayed D (its chain cannot be pickled)."""
    # module functions, sent to the fresh process by name (a closure holding the chain cannot be pickled)
    counts = s.opendp_counts_of_a_chain_made_at_import_fixed if certified else s.opendp_counts_of_a_chain_made_at_import
    options = {**REPLACE_ONE, "bounds": {"product": list(s.PRODUCTS)}, "trials": 100, "law": "ideal"}
    run = _audit(counts, s.PRODUCT_REVIEWS, options)
    composition = next(c for c in run.checks if c.id == "program-composition")
    assert f"pure ε of the steps {2.0 / scale:g}" in composition.note, _summary(run)
    assert (run.verdict == "pass" and run.exit_code == 0) == certified, _summary(run)
