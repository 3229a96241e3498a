"""Float structure in the white-box pair's ``loss-consistency`` (issue 60): a sampler whose doubles differ between
the worlds fails as implemented, named by its witness event and the event's frequency in each world, whatever its
real-valued law; pairs that are DP as implemented -- integer releases, releases snapped to a grid -- still
certify, and ``law="ideal"`` leaves the float events out.

Every audit runs at the API's family-wise α = 1e-6 (Holm over its checks; the float events join the Bonferroni
family of ``loss-consistency``), fixed seeds.  The porous pair is Mironov's textbook Laplace (CCS 2012, §3): v + noise
computed in float64, v = 0 or 1 -- with v = 1 every release in (−1/2, 1/2) is a multiple of 2^−53, with v = 0 about
a fifth of all releases are not (Haney et al. 2022).  Under ``law="ideal"`` (what the check read before) it passes:
the failing version the new events are seen to catch.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import pdp_audit
from pdp_audit.mechanisms.float_twins import IntegerLaplace, SnappedLaplace
from pdp_audit.verify.estimators import float_structure as fs

EPSILON, DELTA = 1.1, 0.05  # a margin that 20,000 draws a world certify for a 1-DP pair
BUDGET = 20_000


class FloatLaplace:
    """v + Laplace(1) noise added in float64 (numpy's sampler), the loss of the real-valued law ε(|o − 1| − |o|):
    1-DP as a real-valued law, not as implemented."""

    output_dim = 1

    def sample(self, world, size, rng):
        return (0.0 if world == "D" else 1.0) + rng.laplace(0.0, 1.0, (size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return np.abs(o - 1.0) - np.abs(o)


class FloatGaussian:
    """The textbook c + σ·rng.standard_normal() (σ = 4), c = 0 or 1, and the loss of its real-valued law."""

    output_dim, sigma = 1, 4.0

    def sample(self, world, size, rng):
        return (0.0 if world == "D" else 1.0) + self.sigma * rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return ((o - 1.0) ** 2 - o**2) / (2 * self.sigma**2)


def _audit(pair, law="as-implemented", seed=0):
    budget = pdp_audit.PairBudget(BUDGET, early_stop=False, law=law)
    return pdp_audit.audit_pair(pair, EPSILON, DELTA, trials=budget, seed=seed)


def _check(run, check_id="loss-consistency"):
    return next(c for c in run.checks if c.id == check_id)


@pytest.mark.tier2
def test_float_laplace_fails_as_implemented_naming_the_witness_and_its_two_frequencies():
    run = _audit(FloatLaplace())
    consistency = _check(run)
    assert run.exit_code == 1 and consistency.verdict == "fail", pdp_audit.describe(run)
    witness = consistency.details["witness"]
    assert witness["event"].startswith("k(o[0]) ≤ ") and "not a multiple of 2^" in witness["event"]
    assert witness["p"] < 1e-12
    # about a fifth of D's releases lie in (−1/2, 1/2) off 2^−53·ℤ; none of D''s can
    assert witness["P_D"] > 0.1 and witness["P_D'"] == 0.0
    text = pdp_audit.describe(run)
    assert witness["event"] in text and "under D and 0 under D'" in text
    assert "(scope: the floating-point program as implemented" in text


def test_the_textbook_gaussian_fails_as_implemented_and_passes_under_the_ideal_law():
    """With c = 0 about a tenth of the releases lie in (−1/2, 1/2), most of them off 2^−53·ℤ; with c = 1 none do."""
    run = _audit(FloatGaussian())
    witness = _check(run).details["witness"]
    assert run.exit_code == 1 and _check(run).verdict == "fail", pdp_audit.describe(run)
    assert witness["p"] < 1e-12 and abs(witness["P_D"] - witness["P_D'"]) > 0.05, witness
    assert _audit(FloatGaussian(), law="ideal").exit_code == 0


@pytest.mark.tier2
def test_the_same_pair_passes_under_the_ideal_law_and_says_what_was_not_audited():
    run = _audit(FloatLaplace(), law="ideal")
    assert run.exit_code == 0 and _check(run).verdict == "pass", pdp_audit.describe(run)
    assert "witness" not in _check(run).details or not _check(run).details["witness"]["event"].startswith("k(")
    assert run.parameters["scope"] == "the real-valued law; the float implementation was not audited"
    assert "the float implementation was not audited" in pdp_audit.describe(run)


@pytest.mark.tier2(representatives=("snapped",))
@pytest.mark.parametrize("pair", [IntegerLaplace(), SnappedLaplace()], ids=["integer", "snapped"])
def test_pairs_dp_as_implemented_still_certify(pair):
    run = _audit(pair)
    assert run.exit_code == 0, pdp_audit.describe(run)
    families = dict(_check(run).details["bins_by_family"])
    assert any(name.startswith("k(o[0])") for name in families)  # the float events were read


def test_the_snapping_twins_law_is_a_law():
    """Its masses on the grid points of [−B, B] sum to 1 in both worlds (the loss the twin certifies with is exact)."""
    pair = SnappedLaplace()
    points = np.arange(-pair.bound, pair.bound + pair.grid / 2, pair.grid)
    for v in (0.0, 1.0):
        assert np.exp(pair._log_mass(points, v)).sum() == pytest.approx(1.0, abs=1e-12)


def test_law_is_checked_where_it_enters():
    with pytest.raises(pdp_audit.InputError, match="law"):
        pdp_audit.audit_pair(FloatLaplace(), EPSILON, DELTA, trials=pdp_audit.PairBudget(law="exact"))


def test_check_pair_reads_the_bits_as_implemented_and_says_when_it_did_not():
    """``pdp_audit.check_pair`` takes ``law`` as every other route does.  As implemented (the default) the contract's
    likelihood-ratio identities read the releases' doubles: the float Laplace fails on its witness event, off
    2^−53·ℤ in one world and never in the other (before ``law`` it passed: the identities read values only, as
    under ``law="ideal"`` below, false-alarm probability 1e-6 at a fixed seed).  Under the ideal law it passes and
    returns the scope line saying the float implementation was not audited; the integer twin passes as implemented."""
    with pytest.raises(AssertionError) as failed:
        pdp_audit.check_pair(FloatLaplace())
    message = str(failed.value)
    assert message.startswith("check_likelihood_ratio_identities: ") and "k(o[0]) ≤ -54" in message
    assert "not a multiple of 2^-53" in message and " under D and 0 under D'" in message
    assert message.endswith("(scope: the floating-point program as implemented, its releases' bits included)")
    ideal = pdp_audit.check_pair(FloatLaplace(), law="ideal")
    assert ideal == "the real-valued law; the float implementation was not audited"
    assert pdp_audit.check_pair(IntegerLaplace()).startswith("the floating-point program as implemented")
    for wrong in ("exact", None):
        with pytest.raises(pdp_audit.InputError, match="^law must be one of 'as-implemented', 'ideal', got"):
            pdp_audit.check_pair(FloatLaplace(), law=wrong)


class HalvesInOneWorld:
    """The two-sided geometric mechanism at ε = 1 on v = 0 or 1 whose D world releases o + 1/2 one time in a hundred
    (a half-integer D' never releases), with a loss 1.25 times the geometric's: the loss's own events (L = ±1.25,
    two non-zero frequencies) refute it with the smallest p-values, and the event {o off the integers}, never seen
    under D', refutes it on its own too."""

    output_dim, share, wrong = 1, 0.01, 1.25

    def sample(self, world, size, rng):
        p = 1 - np.exp(-1.0)
        noise = (rng.geometric(p, (size, 1)) - rng.geometric(p, (size, 1))).astype(float)
        if world == "D":
            return noise + 0.5 * (rng.random((size, 1)) < self.share)
        return 1.0 + noise

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return self.wrong * (np.abs(o - 1.0) - np.abs(o))


@pytest.mark.tier2
def test_a_fail_names_an_event_one_world_never_reaches_over_a_smaller_p_value():
    """Where events of both kinds refute, the witness is the one seen in one world only -- it bounds δ(ε) by its
    count alone at every ε -- named with its two frequencies (before, the least p-value's event was named: {L = 1.25},
    seen in both worlds), by the pair audit and by the contract suite alike."""
    run = _audit(HalvesInOneWorld())
    consistency = _check(run)
    assert consistency.verdict == "fail", pdp_audit.describe(run)
    witness = consistency.details["witness"]
    assert witness["P_D'"] == 0.0 and 0.005 < witness["P_D"] < 0.02, witness
    assert "L " not in witness["event"] or "and L" in witness["event"]  # an event of the release, not of L alone
    assert "Seen in one world only, and refuting on its own at level" in consistency.note
    assert f"{witness['P_D']:.4g} under D and 0 under D'" in pdp_audit.describe(run)
    with pytest.raises(AssertionError, match=r"E's frequencies 0\.0\d+ under D and 0 under D'"):
        pdp_audit.check_pair(HalvesInOneWorld())


def _granularity_by_fractions(x: float) -> int:
    q, k = Fraction(x), 0
    while (q / Fraction(2) ** (k + 1)).denominator == 1:
        k += 1
    while (q / Fraction(2) ** k).denominator != 1:
        k -= 1
    return k


def test_the_float_features_are_exact():
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.laplace(0, 1, 200), rng.integers(-50, 50, 50), [5e-324, 2.0**-1022, 1e300, -0.75]])
    values = values[values != 0]
    expected = [_granularity_by_fractions(float(x)) for x in values]
    assert fs.granularity(values).tolist() == expected
    assert fs.granularity(np.array([0.0]))[0] == fs.ZERO_GRANULARITY
    for grid in (-3, 0, 2):
        residues = fs.grid_residue(values, grid)
        for x, r, k in zip(values, residues, expected):
            on_grid = k >= grid
            assert r == (int(Fraction(x) / Fraction(2) ** grid) % 8 if on_grid else 8)


@pytest.mark.tier2
def test_the_cover_keeps_floating_point_in_scope_only_where_it_was_read():
    """A pair audited as implemented read its releases' doubles: its cover must not list floating point as out of
    scope (it did, beside the scope line saying the bits were read); under the ideal law it stays out of scope."""
    from pdp_audit.reports.cover import _scope_lines

    def covered(law):
        return _scope_lines(_audit(IntegerLaplace(), law=law))[1][0]

    assert "floating-point structure is in scope" in covered("as-implemented")
    assert "Out of scope: floating-point and timing side channels" in covered("ideal")
