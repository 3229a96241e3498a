"""The user's code and the caller's process state cannot corrupt an audit: a ``privacy_loss`` that writes into its
input, a caller's ``np.seterr(all="raise")`` or warnings-as-errors, a pair that changes ``np.seterr`` itself.  Each
case failed on the code before it (named in its docstring); the verdicts are those of the correct pairs."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import pdp_audit


class GaussianShift:
    """N(1, s²) against N(0, s²), with its Gaussian noise view; the loss (o − 1/2)/s²."""

    output_dim = noise_dim = 1

    def __init__(self, s: float):
        self.s = self.noise_sigma = s

    def centre(self, world):
        return 1.0 if world == "D" else 0.0

    def sample(self, world, size, rng):
        return self.centre(world) + self.s * rng.standard_normal((size, 1))

    def release_from_noise(self, world, noise):
        return self.centre(world) + noise

    def privacy_loss(self, outputs):
        return (outputs[:, 0] - 0.5) / self.s**2


class InPlaceLoss(GaussianShift):
    """The same loss, computed by writing into the array it is given."""

    def privacy_loss(self, outputs):
        outputs -= 0.5
        outputs /= self.s**2
        return outputs[:, 0]


class SetsRaise(GaussianShift):
    """A sampler that turns every floating-point condition into an error for the whole process."""

    def sample(self, world, size, rng):
        np.seterr(all="raise")
        return super().sample(world, size, rng)


def test_a_loss_that_writes_into_its_input_is_audited_as_the_pair_it_is():
    """main: noise-view FAILED (the releases compared after privacy_loss were the ones it had overwritten)."""
    s = 1.1 * pdp_audit.gaussian_sigma(1.0, 1e-6)
    run = pdp_audit.audit_pair(InPlaceLoss(s), 1.0, 1e-6, trials=pdp_audit.PairBudget(20_000, law="ideal"))
    assert {c.id: c.verdict for c in run.checks}["noise-view"] == "pass"
    assert run.verdict != "fail"


@pytest.mark.tier2(representatives=("seterr",))
@pytest.mark.parametrize("caller", ["seterr", "warnings"])
def test_the_callers_floating_point_state_does_not_reach_our_arithmetic(caller):
    """main: np.seterr(all="raise") made an underflow in an interval's label a FloatingPointError out of audit_pair;
    the caller's state is as it was afterwards."""
    before = np.geterr()
    with np.errstate(all="raise"), warnings.catch_warnings():
        if caller == "warnings":
            np.seterr(all="warn")
            warnings.simplefilter("error")
        run = pdp_audit.audit_pair(GaussianShift(4.0), 1.0, 1e-2, trials=pdp_audit.PairBudget(20_000, law="ideal"))
        inside = np.geterr()
    assert run.verdict == "pass"
    assert inside == ({k: "raise" for k in before} if caller == "seterr" else {k: "warn" for k in before})
    assert np.geterr() == before


def test_a_pair_that_sets_seterr_changes_nothing_outside_its_call():
    """main: the sampler's np.seterr(all="raise") stayed set for the rest of the audit (FloatingPointError, exit 4)."""
    before = np.geterr()
    run = pdp_audit.audit_pair(SetsRaise(4.0), 1.0, 1e-2, trials=pdp_audit.PairBudget(20_000, law="ideal"))
    assert run.verdict == "pass"
    assert np.geterr() == before


class PoisonsModules(GaussianShift):
    """A sampler that pops scipy from ``sys.modules``, blocks scipy.stats and a module of ours not yet imported."""

    def sample(self, world, size, rng):
        sys.modules.pop("scipy", None)
        sys.modules["scipy.stats"] = None
        sys.modules["pdp_audit.not_imported_yet"] = None
        return super().sample(world, size, rng)


@pytest.mark.tier2
def test_a_pair_that_poisons_sys_modules_changes_nothing_our_code_imports():
    """The hostile pass's `sys.modules['scipy.stats'] = None` in a factory or sampler made our next import fail:
    exit 4, an internal error, for the user's change.  Every module imported before the call is back after it."""
    before = dict(sys.modules)
    try:
        run = pdp_audit.audit_pair(PoisonsModules(4.0), 1.0, 1e-2, trials=pdp_audit.PairBudget(20_000, law="ideal"))
        assert run.verdict == "pass", pdp_audit.describe(run)
        assert sys.modules["scipy"] is before["scipy"] and sys.modules["scipy.stats"] is before["scipy.stats"]
        assert "pdp_audit.not_imported_yet" not in sys.modules
    finally:
        sys.modules.update({k: v for k, v in before.items() if sys.modules.get(k) is not v})
        sys.modules.pop("pdp_audit.not_imported_yet", None)


class EqualsEverything:
    """What the user's code may put in ``sys.modules`` (a mock, say): an object that says it equals anything."""

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def test_an_object_claiming_to_equal_the_module_it_replaced_is_replaced_back():
    """main: sys.modules was compared with its copy by dict equality, which asked the object, and the object said it
    was the module: the restore was skipped, and our next `import json` got the object."""
    from pdp_audit.verify.core.float_rules import user_float_rules

    module = sys.modules["json"]
    try:
        for _ in range(2):  # the first call may copy sys.modules, the second reuses the copy (nothing imported since)
            with user_float_rules():
                sys.modules["json"] = EqualsEverything()
            assert sys.modules["json"] is module
    finally:
        sys.modules["json"] = module


def test_within_our_rules_a_settled_boundary_still_restores_what_a_later_call_changes():
    """Within :func:`own_float_rules` a call into the user's code after one that changed nothing takes the last copy
    of ``sys.modules`` without comparing it again; a module the later call replaces is still put back."""
    from pdp_audit.verify.core import float_rules
    from pdp_audit.verify.core.float_rules import own_float_rules, user_float_rules

    module = sys.modules["json"]
    try:
        with own_float_rules():
            with user_float_rules():
                pass
            assert float_rules._settled
            with user_float_rules():
                sys.modules["json"] = EqualsEverything()
            assert sys.modules["json"] is module and not float_rules._settled
        assert not float_rules._settled
    finally:
        sys.modules["json"] = module


def test_outside_our_rules_the_callers_replacement_between_two_calls_is_kept():
    """Between two calls into the user's code outside :func:`own_float_rules`, the caller's program may replace a
    module (the same number of modules): the next call compares ``sys.modules`` again, and keeps the caller's
    replacement, not the copy from before it (the shortcut taken outside made the restore undo it)."""
    from pdp_audit.verify.core import float_rules
    from pdp_audit.verify.core.float_rules import user_float_rules

    module, stand_in = sys.modules["json"], EqualsEverything()
    try:
        with user_float_rules():
            pass
        sys.modules["json"] = stand_in
        with user_float_rules():
            pass
        assert sys.modules["json"] is stand_in
        float_rules._ours += 1  # as if within our rules: the shortcut taken (what the guard prevents)
        try:
            with user_float_rules():
                pass
            sys.modules["json"] = module
            with user_float_rules():
                pass
            assert sys.modules["json"] is stand_in  # the caller's change undone: why the shortcut is ours only
        finally:
            float_rules._ours -= 1
    finally:
        sys.modules["json"] = module


class SwapsModules:
    """A sampler-only pair whose third call replaces ``json`` in ``sys.modules`` and pops ``csv`` for a name of its
    own: the number of modules is unchanged, and only the entries tell."""

    def __init__(self):
        self.calls = 0

    def sample(self, world, size, rng):
        self.calls += 1
        if self.calls == 3:
            sys.modules["json"] = EqualsEverything()
            sys.modules["swapped_in"] = sys.modules.pop("csv")
        return rng.standard_normal((size, 1)) + (0.0 if world == "D" else 0.1)


def test_a_black_box_sampler_that_swaps_modules_between_settled_calls_is_undone():
    """The black-box run calls its sampler many times within our rules, each call after the first taking the last
    copy of ``sys.modules`` (the same length); a module replaced, and one popped while
    another is added, by a later call are still put back."""
    import csv
    import json

    pair = SwapsModules()
    try:
        pdp_audit.audit_blackbox(pair, 1.0, 0.0, trials=20_000)
        assert pair.calls > 3
        assert sys.modules["json"] is json and sys.modules["csv"] is csv
    finally:
        sys.modules["json"], sys.modules["csv"] = json, csv
        sys.modules.pop("swapped_in", None)
