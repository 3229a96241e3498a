"""The public API (``import pdp_audit``): its names, its arguments, and that it computes what the CLI and the
pytest plugin compute (they are layers over it)."""

from __future__ import annotations

import inspect
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import pdp_audit
from pdp_audit.cli.main import main
from pdp_audit.reports.json_report import dumps

from .user_pairs import ShiftedGaussian

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PUBLIC = [
    "EXIT_CODES",
    "BlackBoxBudget",
    "Check",
    "InputError",
    "NeighbourPair",
    "PairBudget",
    "Run",
    "SearchOptions",
    "Verdict",
    "__version__",
    "audit_blackbox",
    "audit_canary_scores",
    "audit_coverage",
    "audit_blackbox_search",
    "audit_one_run",
    "audit_pair",
    "audit_program",
    "certify",
    "check_pair",
    "describe",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_sigma",
    "list_audits",
    "read_sweep",
    "run_audit",
    "write_report",
]


def test_the_public_names_are_exactly_these_and_documented():
    assert sorted(pdp_audit.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert hasattr(pdp_audit, name), name
    for name in (
        "audit_pair",
        "audit_blackbox",
        "audit_blackbox_search",
        "audit_coverage",
        "audit_canary_scores",
        "audit_one_run",
        "audit_program",
        "run_audit",
        "certify",
        "read_sweep",
    ):
        doc = inspect.getdoc(getattr(pdp_audit, name))
        for section in ("Args:", "Returns:", "Raises:", "Example"):
            assert section in doc, (name, section)
    assert pdp_audit.__version__ and pdp_audit.EXIT_CODES == {"pass": 0, "fail": 1, "inconclusive": 3}


@pytest.mark.tier2
def test_audit_pair_passes_a_correct_pair_and_fails_a_broken_one():
    good = pdp_audit.audit_pair(
        ShiftedGaussian(4.0), epsilon=1.0, delta=1e-2, trials=pdp_audit.PairBudget(20_000, law="ideal")
    )
    assert isinstance(good, pdp_audit.Run) and good.verdict == "pass" and good.exit_code == 0
    assert [c.id for c in good.checks] == ["loss-consistency", "dp-forward", "dp-reverse"]
    assert good.mechanism == "ShiftedGaussian" and good.parameters["epsilon"] == 1.0
    halved = pdp_audit.audit_pair(
        ShiftedGaussian(0.5), epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
    )
    assert halved.verdict == "fail" and halved.exit_code == 1
    wrong_loss = pdp_audit.audit_pair(
        ShiftedGaussian(1.0, loss_sigma=2.0), epsilon=5.0, delta=1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
    )
    assert {c.id for c in wrong_loss.checks if c.verdict == "fail"} >= {"loss-consistency"}
    assert "[loss-consistency] refuted" in pdp_audit.describe(wrong_loss)


def test_audit_pair_is_seeded_and_per_instance_names_its_checks():
    a = pdp_audit.audit_pair(
        ShiftedGaussian(4.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"), seed=3, per_instance=True
    )
    b = pdp_audit.audit_pair(
        ShiftedGaussian(4.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"), seed=3, per_instance=True
    )
    assert dumps(a) == dumps(b)
    assert [c.id for c in a.checks][-2:] == ["pdp-forward", "pdp-reverse"]


@pytest.mark.parametrize(
    "keywords, named",
    [
        ({"epsilon": -1.0}, "epsilon must be a finite number >= 0"),
        ({"epsilon": float("nan")}, "epsilon must be"),
        ({"delta": 1.0}, "delta must be a finite number in [0, 1)"),
        ({"delta": "a lot"}, "delta must be a finite number in [0, 1)"),
        ({"trials": 10}, "trials must be a whole number in [100, 1e8]"),
        ({"trials": 2.5e3 + 0.5}, "trials must be a whole number"),
        ({"seed": -1}, "seed must be a whole number in [0, 2^63-1]"),
        ({"alpha": 0.0}, "alpha must be a finite number in [1e-50, 1)"),
    ],
)
def test_bad_arguments_are_one_line_naming_the_keyword(keywords, named):
    arguments = {"epsilon": 1.0, "delta": 1e-5, **keywords}
    with pytest.raises(pdp_audit.InputError) as caught:
        pdp_audit.audit_pair(ShiftedGaussian(1.0), arguments.pop("epsilon"), arguments.pop("delta"), **arguments)
    assert named in str(caught.value) and "\n" not in str(caught.value)


def test_a_pair_without_its_methods_is_refused_before_sampling():
    with pytest.raises(pdp_audit.InputError, match=r"pair must have sample\(\) and privacy_loss\(\)"):
        pdp_audit.audit_pair(object(), 1.0, 1e-5, trials=pdp_audit.PairBudget(law="ideal"))


def test_a_property_of_the_pair_that_raises_is_the_pairs_fault():
    """main let the user's exception escape (exit 4 from certify): a property that raises is one line naming it."""

    class Raising(FlatLoss):
        @property
        def output_dim(self):
            raise RuntimeError("not today")

    run = pdp_audit.audit_pair(Raising(), 1.0, 1e-3, trials=pdp_audit.PairBudget(2_000, law="ideal"))
    assert run.verdict == "fail" and run.checks[0].id == "pair-protocol"
    assert "reading .output_dim raised RuntimeError: 'not today'" in run.checks[0].note

    class NoSample(FlatLoss):
        @property
        def sample(self):
            raise KeyError("sample")

    with pytest.raises(pdp_audit.InputError, match=r"reading \.sample raised KeyError"):
        pdp_audit.audit_pair(NoSample(), 1.0, 1e-3, trials=pdp_audit.PairBudget(law="ideal"))


class FlatLoss:
    """Both worlds release the same noise: the privacy loss is 0, flat in the noise (no shift to sample with)."""

    output_dim = 1
    noise_dim = 1
    noise_sigma = np.array([1.0])

    def sample(self, world, size, rng):
        return rng.standard_normal((size, 1))

    def release_from_noise(self, world, noise):
        return noise

    def privacy_loss(self, outputs):
        return np.zeros(len(outputs))


def test_a_loss_flat_in_the_noise_falls_back_to_plain_tails_with_a_note():
    """Importance sampling needs a direction in which the loss grows; a flat loss has none."""
    run = pdp_audit.audit_pair(FlatLoss(), 1.0, 1e-200, trials=pdp_audit.PairBudget(2_000, law="ideal"))
    forward = next(c for c in run.checks if c.id == "dp-forward")
    assert "no shift to use" in forward.note and forward.verdict != "fail"


@pytest.mark.tier2
def test_blackbox_refutes_a_false_claim_and_never_passes():
    def sample_d(size, rng):
        return rng.normal(2.0, 0.5, size=(size, 1))

    def sample_d_prime(size, rng):
        return rng.normal(0.0, 0.5, size=(size, 1))

    refuted = pdp_audit.audit_blackbox((sample_d, sample_d_prime), 1.0, 1e-5, trials=20_000)
    assert refuted.verdict == "fail" and refuted.exit_code == 1 and refuted.mechanism.endswith("sample_d")
    unrefuted = pdp_audit.audit_blackbox(ShiftedGaussian(50.0), 1.0, 1e-5, trials=5_000)
    assert unrefuted.verdict == "inconclusive" and unrefuted.exit_code == 3


def test_coverage_of_a_wrong_bound_fails():
    bound = 1.0  # P[|N(0,1)| > 1] = 0.317, claimed at most 0.01
    run = pdp_audit.audit_coverage(lambda size, rng: np.abs(rng.standard_normal(size)) <= bound, 0.01, trials=5_000)
    assert run.verdict == "fail"
    with pytest.raises(pdp_audit.InputError, match=r"rho must be a finite number in \(0, 1\)"):
        pdp_audit.audit_coverage([True], 1.5)


def test_run_audit_computes_what_the_command_line_computes(capsys):
    run = pdp_audit.run_audit("gaussian", trials=4000, claim_epsilon=0.5, seed=2)
    code = main(
        ["run", "gaussian", "--trials", "4000", "--claim-epsilon", "0.5", "--seed", "2"]
        + ["--report", "none", "--json", "-"]
    )
    assert code == run.exit_code
    assert capsys.readouterr().out == dumps(run)


def test_run_audit_refuses_unknown_audits_and_options_and_bad_values():
    with pytest.raises(pdp_audit.InputError, match="name must be an audit"):
        pdp_audit.run_audit("no-such-audit")
    with pytest.raises(pdp_audit.InputError, match="unknown option 'sigmaa'"):
        pdp_audit.run_audit("gaussian", sigmaa=3.0)
    with pytest.raises(pdp_audit.InputError, match=r"^trials must be a whole number in \[1000, 1e9\], got 'many'$"):
        pdp_audit.run_audit("gaussian", trials="many")  # named as the caller names it: a keyword, not a flag
    assert "gaussian" in pdp_audit.list_audits()


@pytest.mark.tier2
def test_certify_a_file_or_the_same_mapping(tmp_path, capsys):
    shutil.copy(EXAMPLES / "deploy-data.csv", tmp_path / "deploy-data.csv")
    text = (EXAMPLES / "deploy-gaussian.toml").read_text(encoding="utf-8")
    deployment = tmp_path / "deploy.toml"
    deployment.write_text(text.replace("trials = 1e6", "trials = 2e4"), encoding="utf-8")
    from pdp_audit.deployment import tomllib

    from_file = pdp_audit.certify(deployment)
    assert from_file.exit_code == 0 and from_file.certified["deployment_file"]["path"] == deployment.name
    document = tomllib.loads(deployment.read_text(encoding="utf-8"))
    document["parameters"]["data"] = str(tmp_path / "deploy-data.csv")
    from_mapping = pdp_audit.certify(document)
    assert [c.estimate for c in from_mapping.checks] == [c.estimate for c in from_file.checks]
    assert from_mapping.certified["data_sha256"] == from_file.certified["data_sha256"]
    assert from_mapping.certified["deployment_file"]["path"] == "<mapping>"
    code = main(["certify", str(deployment), "--report", "none", "--json", "-", "--quiet"])
    assert code == 0 and json.loads(capsys.readouterr().out)["checks"] == json.loads(dumps(from_file))["checks"]
    with pytest.raises(pdp_audit.InputError, match="<mapping>: unknown key 'parameters.sigmaa'"):
        pdp_audit.certify({**document, "parameters": {**document["parameters"], "sigmaa": 1.0}})


@pytest.mark.tier2
def test_write_report_writes_both_files_and_checks_paths_first(tmp_path):
    run = pdp_audit.audit_pair(ShiftedGaussian(4.0), 1.0, 1e-3, trials=pdp_audit.PairBudget(2_000, law="ideal"))
    pdp_audit.write_report(run, pdf=tmp_path / "a.pdf", json=tmp_path / "a.json")
    assert (tmp_path / "a.pdf").read_bytes().startswith(b"%PDF")
    assert json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["verdict"] == run.verdict
    with pytest.raises(pdp_audit.InputError, match="pdf: .* is a directory"):
        pdp_audit.write_report(run, pdf=tmp_path)


def test_check_pair_names_the_failing_contract_check():
    """The textbook c + σ·rng.standard_normal() is 2-DP-ish as a real-valued law, not as implemented (its doubles
    differ between the worlds: tests/test_float_consistency.py); the real-valued law passes every check."""
    pdp_audit.check_pair(ShiftedGaussian(2.0), law="ideal")

    class Nondeterministic(ShiftedGaussian):
        def sample(self, world, size, rng):
            return super().sample(world, size, np.random.default_rng())

    with pytest.raises(AssertionError, match="check_determinism"):
        pdp_audit.check_pair(Nondeterministic(2.0))


def test_the_gaussian_calibration_is_exact_and_validated():
    sigma = pdp_audit.gaussian_sigma(1.0, 1e-5)
    assert pdp_audit.gaussian_delta(1.0, sigma) == pytest.approx(1e-5, rel=1e-9)
    assert pdp_audit.gaussian_epsilon(1e-5, sigma) == pytest.approx(1.0, rel=1e-9)
    assert pdp_audit.gaussian_sigma(1.0, 1e-5, sensitivity=2.0) == pytest.approx(2 * sigma, rel=1e-12)
    with pytest.raises(pdp_audit.InputError, match="delta must be in"):
        pdp_audit.gaussian_sigma(1.0, 0.0)


def test_audit_blackbox_takes_its_statistic_and_training_budget_as_one_record():
    """``budget=pdp_audit.BlackBoxBudget(...)`` reaches the attack (the logistic test's check says so); anything else
    as the budget is refused in one line before a release is drawn."""

    def shifted(mean):
        return lambda size, rng: rng.normal(mean, 1.0, size=(size, 1))

    run = pdp_audit.audit_blackbox(
        (shifted(3.0), shifted(0.0)), 1.0, 1e-5, trials=5_000, budget=pdp_audit.BlackBoxBudget(statistic="logistic")
    )
    assert run.verdict == "fail" and "learned test" in run.checks[0].title
    with pytest.raises(pdp_audit.InputError, match="^budget must be a pdp_audit.BlackBoxBudget, got dict$"):
        pdp_audit.audit_blackbox((shifted(3.0), shifted(0.0)), 1.0, 1e-5, budget={"statistic": "logistic"})


@pytest.mark.parametrize("value", [3, None, "run.json", {"verdict": "pass"}])
def test_describe_of_anything_but_a_run_is_one_line_naming_what_it_takes(value):
    """``pdp_audit.describe(3)`` raised AttributeError ('int' object has no attribute 'mechanism'), then TypeError:
    malformed input is an InputError (exit 2's kind), naming the parameter."""
    with pytest.raises(pdp_audit.InputError) as err:
        pdp_audit.describe(value)
    message = str(err.value)
    assert "\n" not in message and message.startswith("run: describe takes a Run") and type(value).__name__ in message


@pytest.mark.parametrize("data", [None, 3.0, (row for row in [[1.0]])])
def test_audit_program_on_data_that_holds_no_records_is_one_line_naming_data(data):
    """``audit_program(program, data=None)`` raised TypeError (``len() of unsized object``) from inside the audit."""
    with pytest.raises(pdp_audit.InputError) as err:
        pdp_audit.audit_program(lambda data, rng: 0.0, data, 1.0)
    message = str(err.value)
    assert "\n" not in message and message.startswith("data must be a numpy array of records"), message
    assert type(data).__name__ in message
