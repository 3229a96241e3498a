"""Every mechanism of the catalogue, now and later, runs the common contract (verify/evidence/contract.py)."""

import numpy as np
import pytest

from pdp_audit.mechanisms.catalogue import registered
from pdp_audit.mechanisms.gaussian import GaussianPair
from pdp_audit.verify.evidence import contract

#: (mechanism, index, pair) of every example pair of the catalogue
EXAMPLES = [
    (name, i, pair)
    for name, mech in registered().items()
    for i, pair in enumerate(mech.example_pairs(np.random.default_rng(2024)))
]
PAIRS = [pytest.param(pair, id=f"{name}-{i}") for name, i, pair in EXAMPLES]
#: The sampled identity check (nine tenths of this file's time) on every pair but each mechanism's first: tier 2.
#: Tier 1 runs it on the first pair of every mechanism, and the other checks on every pair.
LATER_PAIRS_IDENTITIES = tuple(f"{name}-{i}-check_likelihood_ratio_identities" for name, i, _ in EXAMPLES if i)


def test_every_mechanism_has_example_pairs():
    for name, mech in registered().items():
        assert mech.example_pairs(np.random.default_rng(0)), name


#: Draws per world of the identity check on the catalogue's pairs (the shipped contract draws
#: contract.IDENTITY_SAMPLES = 2e5): half the suite's time for them, and still enough to catch the broken
#: densities below (test_the_suites_identity_budget_catches_a_broken_density: the 0.05 shift at p ≈ 5e-10).
SUITE_IDENTITY_SAMPLES = 100_000


@pytest.mark.tier2(cases=LATER_PAIRS_IDENTITIES)
@pytest.mark.parametrize("check", contract.CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("pair", PAIRS)
def test_contract(pair, check, monkeypatch):
    monkeypatch.setattr(contract, "IDENTITY_SAMPLES", SUITE_IDENTITY_SAMPLES)
    check(pair)


class MisnormalisedPair(GaussianPair):
    """A broken mechanism: the D' log-density's quadratic form uses 1.05σ but its normaliser σ."""

    def privacy_loss(self, outputs):
        wide = -0.5 * np.sum((outputs - self.q_dprime) ** 2, axis=1) / (1.05 * self.sigma) ** 2
        narrow = -0.5 * np.sum((outputs - self.q_d) ** 2, axis=1) / self.sigma**2
        return narrow - wide


class ShiftedLossPair(GaussianPair):
    """A broken mechanism: a constant error of 0.05 in one log-density (E_D[e^{−L}] = e^{−0.05}).  At the
    contract's 2e5 draws per world the half-line test has p ≈ 3e-19; an error of 0.02 needs about 1e6."""

    def privacy_loss(self, outputs):
        return super().privacy_loss(outputs) + 0.05


@pytest.mark.parametrize("broken", [MisnormalisedPair, ShiftedLossPair])
def test_identity_check_catches_a_broken_density_and_check_pair_names_it(broken):
    """At the contract's own budget; through check_pair, which runs the cheap checks first (the broken pairs pass
    them) and names the check that failed: one audit of each broken pair for both."""
    pair = broken(np.zeros(3), np.array([0.5, 0.0, 0.0]), 1.0)
    with pytest.raises(AssertionError, match="^check_likelihood_ratio_identities: .*does not match the sampler"):
        contract.check_pair(pair)


@pytest.mark.parametrize("broken", [MisnormalisedPair, ShiftedLossPair])
def test_the_suites_identity_budget_catches_a_broken_density(broken, monkeypatch):
    """test_contract's budget for the catalogue's pairs still catches both broken densities (the shift at p ≈ 5e-10;
    at 5e4 draws it passes, so the budget is not cut further)."""
    monkeypatch.setattr(contract, "IDENTITY_SAMPLES", SUITE_IDENTITY_SAMPLES)
    pair = broken(np.zeros(3), np.array([0.5, 0.0, 0.0]), 1.0)
    with pytest.raises(AssertionError, match="does not match the sampler"):
        contract.check_likelihood_ratio_identities(pair)


def test_check_pair_runs_the_whole_contract_on_a_correct_pair():
    """A correct pair passes every check (a failed one is named: test_identity_check_catches_a_broken_density_and_…)."""
    contract.check_pair(GaussianPair(np.zeros(2), np.array([0.3, 0.0]), 1.0))


def test_check_pair_tests_the_identities_on_events_of_the_release():
    """The contract suite runs audit_pair's loss-consistency (events of the release, the scale identity): the exact
    loss of a post-processing (one coordinate of a two-coordinate release) passes every identity on bins of L, and
    fails here; the pair whose loss reads both coordinates passes."""
    from pdp_audit.mechanisms.gaussian import analytic_sigma
    from pdp_audit.mechanisms.mutant_pairs import Shift
    from pdp_audit.verify.estimators.consistency import loss_consistency
    from pdp_audit.verify.estimators.engine import PrivacyLossSampler, run_blocks

    sigma = analytic_sigma(1.0, 6e-5, np.sqrt(2))
    broken = Shift(sigma, d=2, loss_coordinates=1)
    losses = [
        run_blocks(PrivacyLossSampler(broken, w), contract.IDENTITY_SAMPLES, 11, f"identity/{w}") for w in ("D", "D'")
    ]
    assert loss_consistency(*losses).pvalue > contract.FALSE_ALARM  # the bins of L alone cannot see it
    with pytest.raises(AssertionError, match="does not match the sampler"):
        contract.check_likelihood_ratio_identities(broken)
    contract.check_likelihood_ratio_identities(Shift(sigma, d=2))
