"""The black box audits the program as implemented by default (issue 60): where the releases are floats, the default
event test reads their structure as numbers, so a real-valued law whose doubles differ between the worlds is refuted
(Mironov, CCS 2012); ``law="ideal"`` reads the real-valued law only and says the float implementation was not
audited; integer releases are read as before, byte for byte.

Statistical tests at α = 1e-6 with fixed seeds (false alarm ≤ 1e-6 each: the event test's bound is valid whatever
was learned).  The bug, ``v + rng.laplace(0, 1/ε)`` (benchmarks/float_bugs.py, with the rest of the series), is
refuted at the default and not under the ideal law, so the test of its refutation fails where the default does not
read the numbers (as before issue 60, where it was inconclusive); its twins -- integer releases, the snapping
mechanism, diffprivlib's Geometric -- are not refuted.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

import pdp_audit
from pdp_audit.cli.main import main
from pdp_audit.reports.json_report import check_to_dict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import float_bugs as fb  # noqa: E402

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

ALPHA = 1e-6
TRIALS = 20_000


def _audit(name: str, law: str | None = None, seed: int = 5):
    case = fb.BY_NAME[name]
    budget = pdp_audit.BlackBoxBudget(train_trials=10_000, **({} if law is None else {"law": law}))
    return pdp_audit.audit_blackbox(
        case.make(), case.epsilon, case.delta, trials=TRIALS, seed=seed, alpha=ALPHA, budget=budget
    )


@pytest.mark.tier2
def test_the_textbook_float_laplace_is_refuted_by_default_and_not_as_a_real_valued_law():
    run = _audit("numpy-laplace")
    (check,) = run.checks
    assert run.verdict == "fail" and check.ci[0] > 2.0, check.note
    assert check.details["float_implementation"].startswith("audited") and "as implemented" in check.note
    ideal = _audit("numpy-laplace", law="ideal")
    (check,) = ideal.checks
    assert ideal.verdict == "inconclusive" and check.ci[0] <= fb.LAPLACE_EPSILON
    assert check.details["float_implementation"] == "not audited"
    assert "the float implementation was not audited" in check.note
    assert ideal.parameters["law"].startswith("ideal")


@pytest.mark.parametrize("name", ["two-sided-geometric", "snapping", "diffprivlib-0.6.6-Geometric"])
def test_the_twins_dp_as_implemented_are_not_refuted(name):
    if name.startswith("diffprivlib"):
        pytest.importorskip("diffprivlib")  # the libraries extra (.ci/libraries): not in the test extra
    run = _audit(name)
    assert run.verdict == "inconclusive", run.checks[0].note
    assert run.checks[0].ci[0] <= fb.BY_NAME[name].epsilon


def test_integer_releases_are_read_as_before_under_either_law():
    """The geometric's releases are integers: nothing of the float reading runs or is recorded, so the check is the
    same byte for byte under both laws (and as before issue 60: no key or word of it is added)."""
    default, ideal = _audit("two-sided-geometric"), _audit("two-sided-geometric", law="ideal")
    text = json.dumps(check_to_dict(default.checks[0]), sort_keys=True)
    assert text == json.dumps(check_to_dict(ideal.checks[0]), sort_keys=True)
    assert "float_implementation" not in text and "floating-point" not in text


def test_the_snapping_mechanism_is_read_as_floats():
    """Its releases are quarters, not integers: the default reads their structure (and still does not refute)."""
    check = _audit("snapping").checks[0]
    assert check.details["float_implementation"].startswith("audited")


MODULE = textwrap.dedent(
    """
    import numpy as np

    class Textbook:
        def sample(self, world, size, rng):
            return (0.0 if world == "D" else 1.0) + rng.laplace(0.0, 1.0, size=(size, 1))

    def make():
        return Textbook()
    """
)


@pytest.mark.tier2
def test_the_command_refutes_by_default_and_says_what_the_ideal_law_leaves_out(tmp_path, monkeypatch, capsys):
    (tmp_path / "float_mech.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["blackbox", "float_mech:make", "--claim-epsilon", "1", "--claim-delta", "0", "--trials", str(TRIALS)]
    argv += ["--train-trials", "10000", "--seed", "5"]
    assert main(argv) == 1
    assert "REFUTED" in capsys.readouterr().out
    out = tmp_path / "bb.json"
    assert main([*argv, "--law", "ideal", "--json", str(out)]) == 3
    assert "the float implementation was not audited" in capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert doc["law"] == "ideal" and doc["check"]["details"]["float_implementation"] == "not audited"


def test_reading_the_numbers_under_the_ideal_law_is_one_line(tmp_path, monkeypatch, capsys):
    argv = ["blackbox", "float_mech:make", "--claim-epsilon", "1", "--claim-delta", "0"]
    assert main([*argv, "--statistic", "events-numbers", "--law", "ideal"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--law" in err and "--statistic" in err and len(err.splitlines()) == 1
    with pytest.raises(pdp_audit.InputError, match="law"):
        pdp_audit.audit_blackbox(fb.BY_NAME["snapping"].make(), 1.0, 0.0, budget=pdp_audit.BlackBoxBudget(law="exact"))


@pytest.mark.tier2
def test_certify_of_a_sampler_only_factory_refutes_by_default_and_reads_the_ideal_law_when_told(tmp_path, monkeypatch):
    """``certify`` of a pair with ``sample`` only is the black box: as implemented by default (the textbook float
    Laplace refuted), the real-valued law with ``[audit] law = "ideal"`` (not refuted, and the certificate says the
    float implementation was not audited)."""
    (tmp_path / "float_mech.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    document = {"mechanism": "float_mech:make", "claim": {"epsilon": 1.0, "delta": 0.0}}
    document["audit"] = {"trials": TRIALS, "seed": 5}
    run = pdp_audit.certify(document)
    assert run.exit_code == 1 and run.certified["evidence"] == "black-box" and "law" not in run.certified["audit"]
    document["audit"]["law"] = "ideal"
    run = pdp_audit.certify(document)
    assert run.exit_code == 3 and run.checks[0].details["float_implementation"] == "not audited"
    assert run.certified["audit"]["law"].startswith("ideal")


def test_repeated_releases_scored_once_give_the_numbers_of_scoring_each(monkeypatch):
    """A grid-valued float mechanism's releases read with their structure are scored once per distinct release
    (features.distinct_rows): the rows rebuild every release bit for bit (−0.0 kept apart from 0.0), and the run's
    check is the one of scoring every release."""
    import numpy as np

    from pdp_audit.audits.blackbox import features

    raw = fb.ValuePair(fb.snapping, *fb.SNAP_VALUES).sample("D", 20_000, np.random.default_rng(1))
    raw[0, 0] = -0.0
    rows, repeated = features.distinct_rows(raw)
    assert repeated is not None and len(rows) < len(raw) / 4
    assert np.array_equal(rows[repeated].view(np.uint64), raw.view(np.uint64))
    once = json.dumps(check_to_dict(_audit("snapping").checks[0]), sort_keys=True)
    monkeypatch.setattr(features, "distinct_rows", lambda releases: (releases, None))
    assert json.dumps(check_to_dict(_audit("snapping").checks[0]), sort_keys=True) == once
