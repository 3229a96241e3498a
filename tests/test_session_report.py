"""The pytest plugin's ``--audit-report`` drawn by the renderer of ``pdp-audit run``: each assertion rebuilt as its
:class:`Run` (checks with their δ(ε) profile and ROC, parameters, seed), its test named once on its cover; the
figures travel with the records as exact JSON data (xdist) and stay out of the JSON document."""

import dataclasses
import json
import math

import numpy as np
import pytest

from pdp_audit import pytest_plugin
from pdp_audit.mechanisms.gaussian import GaussianPair, analytic_sigma
from pdp_audit.reports.audit_session import assertion_run, session_document, write_session_report
from pdp_audit.reports.cover import _identity_lines
from pdp_audit.reports.figure_json import figure_from_dict, figure_to_dict
from pdp_audit.reports.records import Roc, TailCurve, TailCurves

NODE = "tests/test_mine.py::test_release_is_dp"


def test_figures_round_trip_exactly_through_json():
    curve = TailCurve(
        estimate=np.array([0.5, 1e-300, np.nan]), lo=np.array([-np.inf, 0.0, 0.1]), hi=[1.0, np.inf, 2.0], exact=None
    )
    figure = TailCurves(np.array([0.0, 0.5, 1.0]), {"D||D'": curve}, 0.999999, 1.0, 1e-5)
    text = json.dumps(figure_to_dict(figure), allow_nan=False)
    back = figure_from_dict(json.loads(text))
    assert type(back) is TailCurves and list(back.curves) == ["D||D'"]
    got = back.curves["D||D'"]
    np.testing.assert_array_equal(np.asarray(got.estimate, float), curve.estimate)  # NaN == NaN here
    np.testing.assert_array_equal(np.asarray(got.lo, float), curve.lo)
    assert got.hi[1] == math.inf and got.exact is None and back.delta_claim == 1e-5
    roc = Roc([0.0, 0.1], [0.0, 0.3], 1.0, 1e-5, 0.25, 0.999, exact_points=((0.1, 0.2, 0.3),))
    assert figure_from_dict(json.loads(json.dumps(figure_to_dict(roc)))).exact_points == [[0.1, 0.2, 0.3]]


def test_every_figure_type_of_the_records_is_serialisable():
    """The records' Figure union and its parts are all known to the JSON form (a new one must be added there)."""
    from typing import get_args

    from pdp_audit.reports import records
    from pdp_audit.reports.figure_json import FIGURE_TYPES

    assert {cls.__name__ for cls in get_args(records.Figure)} <= set(FIGURE_TYPES)

    @dataclasses.dataclass(frozen=True)
    class Unknown:
        x: float

    with pytest.raises(TypeError, match="not a figure record"):
        figure_to_dict(Unknown(1.0))


@pytest.fixture(scope="module")
def records():
    """Two decided assertions of one test, recorded as the plugin records them (a correct and a broken pair)."""
    kept = []

    class Session:
        def add(self, record):
            kept.append(record)

    # 5e4: at 2e4 the correct pair was inconclusive (the loss-scale band widens δ's interval) and the plugin skipped
    # every test of this fixture
    settings = pytest_plugin.Settings(trials=50_000, seed=0, alpha=1e-6, strict=False)
    audit = pytest_plugin.PrivacyAudit(NODE, settings, Session())
    audit.assert_dp(GaussianPair([0.0], [1.0], analytic_sigma(1.0, 1e-3)), epsilon=1.0, delta=1e-2, law="ideal")
    with pytest.raises(pytest.fail.Exception):
        audit.assert_dp(GaussianPair([0.0], [1.0], 0.3), epsilon=1.0, delta=1e-2, law="ideal")
    return json.loads(json.dumps(kept))  # as an xdist worker ships them


def test_each_assertion_is_rebuilt_as_its_run_with_profile_and_roc(records):
    runs = [assertion_run(r) for r in records]
    assert [r.verdict for r in runs] == ["pass", "fail"] and [r.exit_code for r in runs] == [0, 1]
    for run, record in zip(runs, records):
        figures = {c.id: type(c.figure).__name__ for c in run.checks}
        assert figures["dp-forward"] == "TailCurves" and figures["dp-reverse"] == "Roc"
        assert run.parameters["epsilon"] == 1.0 and run.seed == record["seed"] and run.mechanism == "GaussianPair"
        texts = [t for t, _ in _identity_lines(run)]
        assert sum(NODE in t for t in texts) == 1  # the test is named once, on the assertion's cover
        assert not any(NODE in c.claim for c in run.checks)  # and not repeated in every claim
    forward = next(c for c in runs[1].checks if c.id == "dp-forward")
    # the broken pair's plain profile at the claimed ε lies far above δ = 1e-2 (exact: 0.61)
    at_claim = list(forward.figure.epsilons).index(1.0)
    assert forward.figure.curves["D||D'"].lo[at_claim] > 0.3


@pytest.mark.tier2
def test_the_report_is_written_without_figures_in_its_json(records, tmp_path):
    written = write_session_report(records, "fail", tmp_path / "audit.pdf")
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert doc == json.loads(json.dumps(session_document(records, "fail")))
    assert all("figure" not in c for a in doc["assertions"] for c in a["checks"])
    assert all(a["parameters"]["delta"] == 1e-2 and a["mechanism"] == "GaussianPair" for a in doc["assertions"])
    pdf = (tmp_path / "audit.pdf").read_bytes()
    # session cover, per assertion its cover and one page per figure check (2) and the stacked text checks, seeds
    assert pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") >= 1 + 2 * 4 + 1
    assert {p.name for p in written} == {"audit.pdf", "audit.json"}


def test_assertions_are_numbered_as_a_reader_counts(records):
    """The cover's first column read "[0]", "[0]", … and each page "assertion 0": the JSON's 0-based index within
    the test.  Pages number the assertions of the session from 1 and name a test's later assertions."""
    first, second = (assertion_run(r, k).subject for k, r in enumerate(records, 1))
    assert first.startswith(f"Assertion 1: {NODE}: ") and "[0]" not in first and "assertion 0" not in first
    assert second.startswith(f"Assertion 2: {NODE}, the test's assertion 2: ")


def test_without_a_report_the_plugin_draws_no_figure_and_decides_the_same():
    """Settings.figures (``--audit-report`` given) only decides whether each check's figure is drawn: the same
    verdicts, estimates, intervals and message with and without; None where no page will show it."""
    outcomes = []
    for figures in (True, False):
        kept = []

        class Session:
            def add(self, record):
                kept.append(record)

        settings = pytest_plugin.Settings(trials=20_000, seed=0, alpha=1e-6, strict=False, figures=figures)
        audit = pytest_plugin.PrivacyAudit(NODE, settings, Session())
        outcomes.append(
            (audit.assert_dp(GaussianPair([0.0], [1.0], 4.0), epsilon=1.0, delta=1e-2, law="ideal"), kept[0])
        )
    (drawn, drawn_record), (bare, bare_record) = outcomes
    assert drawn.message == bare.message and drawn.verdict == bare.verdict == "pass"
    without = [{k: v for k, v in c.items() if k != "figure"} for c in drawn_record["checks"]]
    assert without == [{k: v for k, v in c.items() if k != "figure"} for c in bare_record["checks"]]
    assert any(c.figure is not None for c in drawn.checks) and all(c.figure is None for c in bare.checks)
    assert all(c["figure"] is None for c in bare_record["checks"])
