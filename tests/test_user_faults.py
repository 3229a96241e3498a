"""Faults in the user's code through the public API are the user's, in one line (issue #27): a sampler that
returns a tuple or no columns, a privacy_loss that raises or exits, a coverage sampler that returns no booleans --
the exact fail ``pair-protocol`` (or an InputError naming the sampler), never our exit 4 and never a silent pass."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import pdp_audit


class Shift:
    """A Gaussian pair (σ = 0.3, a shift of 1) whose sample() and privacy_loss() can be made faulty."""

    output_dim = 1

    def __init__(self, returns=None, loss_raises: BaseException | None = None):
        self.returns, self.loss_raises = returns, loss_raises

    def sample(self, world, size, rng):
        out = rng.normal(1.0 if world == "D" else 0.0, 0.3, size=(size, 1))
        return out if self.returns is None else self.returns(out)

    def privacy_loss(self, outputs):
        if self.loss_raises is not None:
            raise self.loss_raises
        o = outputs[:, 0]
        return (o**2 - (o - 1.0) ** 2) / (2 * 0.3**2)


def protocol_note(run) -> str:
    """The note of the run's one check, which must be the exact fail pair-protocol."""
    assert run.verdict == "fail" and [c.id for c in run.checks] == ["pair-protocol"], run.checks
    note = run.checks[0].note
    assert "\n" not in note, note  # a message of the user's with a newline cannot forge a line
    return note


@pytest.mark.parametrize(
    "returns,needle",
    [
        (lambda out: (out, 5), "returned a tuple that is not an array of numbers"),
        (lambda out: out[:, :0], ", 0); expected ("),
    ],
)
def test_a_black_box_sampler_returning_no_releases_is_the_pairs_fault(returns, needle):
    """main: the tuple crashed np.asarray and no columns crashed StandardScaler (exit 4, "please report it")."""
    run = pdp_audit.audit_blackbox(Shift(returns), 1.0, 1e-5, trials=2000)
    assert needle in protocol_note(run)


def test_a_pair_sampler_returning_a_tuple_is_the_pairs_fault():
    run = pdp_audit.audit_pair(Shift(lambda out: (out, 5)), 1.0, 1e-5, trials=1000)
    assert "sample('D', " in protocol_note(run) and "not an array of numbers" in protocol_note(run)


@pytest.mark.parametrize(
    "raised,needle",
    [
        (RuntimeError("boom\npdp-audit: CERTIFIED"), "privacy_loss(ndarray) raised RuntimeError: 'boom\\npdp-audit"),
        (SystemExit(0), "privacy_loss(ndarray) raised SystemExit (sys.exit(0))"),
    ],
)
def test_a_privacy_loss_that_raises_or_exits_is_the_pairs_fault(raised, needle):
    """main let both through raw: a traceback (exit 4), and sys.exit(0) ended the audit with exit 0."""
    run = pdp_audit.audit_pair(Shift(loss_raises=raised), 1.0, 1e-5, trials=1000)
    assert needle in protocol_note(run)


@pytest.mark.parametrize(
    "holds,needle",
    [
        (lambda n, rng: np.full(n, np.nan), "returned float64 values; expected booleans"),
        (lambda n, rng: np.full(n, 0.5), "returned float64 values; expected booleans"),
        (lambda n, rng: np.full(n, 2), "returned int64 values; expected booleans"),
        (lambda n, rng: np.ones((n, 1), dtype=bool), "returned shape (2000, 1); expected a boolean array"),
        (lambda n, rng: 1 / 0, "(2000, rng) raised ZeroDivisionError: 'division by zero'"),
        (lambda n, rng: sys.exit(0), "(2000, rng) raised SystemExit (sys.exit(0))"),
        (lambda rng: 0.5, "(rng) returned float 0.5; expected a bool"),
    ],
)
def test_a_coverage_sampler_that_returns_no_booleans_fails_naming_it(holds, needle):
    """main cast what the sampler returned to bool: NaN, 0.5 and 2 are True, so every trial "held" and the claim
    passed (as did the plugin's assert_coverage); its exceptions went through raw and a bad shape was a ValueError."""
    run = pdp_audit.audit_coverage(holds, 0.05, trials=2000)
    note = protocol_note(run)
    assert needle in note and "<lambda>" in note, note
    assert run.exit_code == 1


def test_coverage_still_decides_a_boolean_sampler_and_refuses_an_array_of_numbers():
    assert pdp_audit.audit_coverage(lambda n, rng: rng.random(n) < 0.99, 0.05, trials=2000).verdict == "pass"
    assert pdp_audit.audit_coverage(lambda rng: bool(rng.random() < 0.5), 0.05, trials=200).verdict == "fail"
    with pytest.raises(pdp_audit.InputError, match="holds: an array of outcomes must be boolean"):
        pdp_audit.audit_coverage(np.full(100, 0.5), 0.05)


@pytest.mark.parametrize("pair", [None, object()])
def test_check_pair_of_no_pair_is_an_input_error(pair):
    """main: AttributeError ('NoneType' object has no attribute 'output_dim') from inside the contract suite."""
    with pytest.raises(pdp_audit.InputError, match="pair must have sample\\(\\) and privacy_loss\\(\\)"):
        pdp_audit.check_pair(pair)
