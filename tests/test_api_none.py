"""None for a claim, budget, seed or level is refused by every public function before the first draw, in one line
naming the argument (main: a TypeError after 20-24 sample() calls, or from inside an audit's arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest

import pdp_audit


class Counting:
    """A correct Gaussian pair that counts its draws."""

    output_dim = 1

    def __init__(self):
        self.calls = 0

    def sample(self, world, size, rng):
        self.calls += 1
        return (1.0 if world == "D" else 0.0) + 4.0 * rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        return (outputs[:, 0] - 0.5) / 16


PAIR_CASES = [
    ({"epsilon": None, "delta": 1e-5}, "epsilon"),
    ({"epsilon": 1.0, "delta": None}, "delta"),
    ({"epsilon": 1.0, "delta": 1e-5, "trials": None}, "trials"),
    ({"epsilon": 1.0, "delta": 1e-5, "alpha": None}, "alpha"),
    ({"epsilon": 1.0, "delta": 1e-5, "seed": None}, "seed"),
]


@pytest.mark.parametrize("arguments, named", PAIR_CASES, ids=[n for _, n in PAIR_CASES])
def test_audit_pair_refuses_none_before_drawing(arguments, named):
    pair = Counting()
    with pytest.raises(pdp_audit.InputError, match=rf"^{named} must be .*, got None$"):
        pdp_audit.audit_pair(pair, **arguments)
    assert pair.calls == 0


@pytest.mark.parametrize("named", ["epsilon", "delta", "seed", "alpha"])
def test_audit_blackbox_refuses_none_before_drawing(named):
    pair = Counting()
    arguments = {"epsilon": 1.0, "delta": 1e-5, named: None}
    with pytest.raises(pdp_audit.InputError, match=rf"^{named} must be .*, got None$"):
        pdp_audit.audit_blackbox((pair.sample, pair.sample), **arguments)
    assert pair.calls == 0


@pytest.mark.parametrize("named", ["delta", "alpha", "seed"])
def test_the_canary_audits_refuse_none(named):
    scores = {"delta": 1e-5, "alpha": 1e-6, "seed": 0, named: None}
    with pytest.raises(pdp_audit.InputError, match=rf"^{named} must be .*, got None$"):
        pdp_audit.audit_canary_scores([1.0, 2.0], [0.0, 1.0], scores.pop("delta"), **scores)
    one_run = {"delta": 1e-5, "alpha": 1e-6, "seed": 0, named: None}
    with pytest.raises(pdp_audit.InputError, match=rf"^{named} must be .*, got None$"):
        pdp_audit.audit_one_run(np.arange(8.0), np.arange(8) % 2, one_run.pop("delta"), **one_run)


@pytest.mark.parametrize("named", ["rho", "trials", "seed", "alpha"])
def test_audit_coverage_refuses_none(named):
    calls = []

    def holds(size, rng):
        calls.append(size)
        return np.ones(size, dtype=bool)

    arguments = {"rho": 0.01, "trials": 1000, "seed": 0, "alpha": 1e-6, named: None}
    with pytest.raises(pdp_audit.InputError, match=rf"^{named} must be .*, got None$"):
        pdp_audit.audit_coverage(holds, arguments.pop("rho"), **arguments)
    assert calls == []


def test_run_audit_refuses_none_for_an_option_with_a_default():
    with pytest.raises(pdp_audit.InputError, match=r"^trials must be .*, got None$"):
        pdp_audit.run_audit("gaussian", trials=None)


def test_none_still_means_not_given_where_the_default_is_none():
    """``sigma=None``: calibrated to the claim, as when it is left out (the config is built, nothing refused)."""
    from pdp_audit.catalogue.plans import plans_by_name

    plan = plans_by_name()["gaussian"]
    assert plan.configure({"sigma": None, "trials": 2000}) == plan.configure({"trials": 2000})
