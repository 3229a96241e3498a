"""The program audit's reading of replays decided by no tolerance (issue 70, items 3 and 4): a noise coefficient
that moves between D and D′ is compared exactly, up to a proven rounding bound (``replay_bounds.response_bound``), and a
coefficient that vanishes on one side (a clamp's flat region) is post-processing, not a data-dependent scale.

Every audit here is exact but for the black box's confirmation, which runs at the family-wise α = 1e-6 with a fixed
seed: a correct program is refuted by chance with probability at most 1e-6.

Seen failing before the fix (on main at dd09bff): the Laplace scale growing by 5e-5 per record passed its pure
claim (the coefficients compared to 1e-4); the clamped histogram was refuted ("the scale of 1 noise element(s) in the
release depends on the data", exactly); the sum plus a public constant of 5e5 was undecided (its shift read as
1.0000000107, the coefficient read at a probe step of 1e-3 against a release of magnitude 5e5).  At 56ad963, before
the read through a post-processing (:mod:`pdp_audit.audits.program.through`), the clamped and the folded histograms
were undecided, not certified.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import analysis, carried_events, comparison, decision, probing, trace

ALPHA = 1e-6
TRIALS = 500
VALUES = np.linspace(0.0, 1.0, 8)
LABELS = np.array([0, 0, 1, 1, 1, 2, 3, 3, 0, 1])


def _audit(program, data, **options):
    options = {"epsilon": 1.0, "trials": TRIALS, "seed": 0, "alpha": ALPHA, "law": "ideal", **options}
    return pdp_audit.audit_program(program, data, **options)


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


def scale_growing_with_n(data, rng):
    """Bug: the noise multiplied by 1 + 5e-5·n outside the call -- its scale depends on the data (pure ε violated)."""
    x = np.clip(np.nan_to_num(data), 0.0, 1.0)
    return x.sum() + (1.0 + 5e-5 * len(x)) * rng.laplace(0.0, 1.0)


@pytest.mark.tier2
def test_a_scale_growing_by_5e_5_per_record_is_not_certified():
    run = _audit(scale_growing_with_n, VALUES, bounds=(0, 1))
    assert run.verdict != "pass" and run.exit_code != 0
    structure = _check(run, "program-structure")
    assert "depends on the data" in structure.note, structure.note
    # not exact: a weight outside the call may also be a post-processing with pieces of other slopes
    assert structure.verdict == "inconclusive", structure.note


def clamped_histogram(data, rng):
    """PrivBayes-style noisy counts clamped at zero (synthcity): post-processing of an ε-DP histogram."""
    counts = np.array([(data == c).sum() for c in range(4)], dtype=float)
    return np.maximum(counts + rng.laplace(0.0, 1.0, 4), 0)


def clamped_histogram_small_noise(data, rng):
    """Bug: the same, with noise of a quarter of the scale (4ε spent)."""
    counts = np.array([(data == c).sum() for c in range(4)], dtype=float)
    return np.maximum(counts + rng.laplace(0.0, 0.25, 4), 0)


@pytest.mark.tier2
def test_a_clamped_histogram_is_certified_and_its_bug_twin_refuted():
    """The count clamped on D′ only is read through the clamp (``through``): certified at the real-valued law."""
    run = _audit(clamped_histogram, LABELS)
    assert run.verdict == "pass", [(c.id, c.verdict, c.note[:200]) for c in run.checks]
    assert "depends on the data" not in _check(run, "program-structure").note
    bug = _audit(clamped_histogram_small_noise, LABELS)
    assert bug.verdict == "fail" and _check(bug, "program-composition").verdict == "fail"


def test_a_flat_region_on_the_neighbour_is_post_processing_not_a_scale():
    """The rarest class's count (1) removed with noise that clamps on D′ only: its coefficient vanishes there."""

    def program(data, rng):
        return max(float((data == 2).sum()) + rng.laplace(0.0, 1.0), 0.0)

    data = LABELS
    recorded = trace.record(program, data)
    clamped = dataclasses.replace(recorded.calls[0], noise=np.asarray(-0.5))  # 1 − 0.5 > 0 on D, 0 − 0.5 clamped on D′
    recorded = trace.replay(program, data, [clamped])
    found = probing.probe(program, data, recorded, 0)
    assert found.carrier.tolist() == [0]
    compared = comparison.compare(program, data[data != 2], recorded, found)
    assert compared.post_processed == [0] and not compared.coefficient_changed
    assert compared.source == ["none"]  # not read from a clamped coordinate: its shift is not the count's


def sum_plus_constant(data, rng):
    """A clipped sum with Laplace noise at scale 1 (ε = 1) and a public constant of 5e5 added."""
    return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0) + 5e5


def sum_plus_constant_small_noise(data, rng):
    """Bug: the same with noise at scale 1/2."""
    return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 0.5) + 5e5


@pytest.mark.tier2
def test_a_public_constant_of_5e5_is_read_exactly_and_costs_nothing():
    recorded = trace.record(sum_plus_constant, VALUES)
    found = probing.probe(sum_plus_constant, VALUES, recorded, 0)
    assert found.coefficient.tolist() == [1.0]  # the probe's power-of-two step: exact at this magnitude
    run = _audit(sum_plus_constant, VALUES, bounds=(0, 1))
    assert run.verdict == "pass", [(c.id, c.verdict, c.note[:200]) for c in run.checks]
    bug = _audit(sum_plus_constant_small_noise, VALUES, bounds=(0, 1))
    assert bug.verdict == "fail" and _check(bug, "program-composition").verdict == "fail"


def _counts(data):
    return np.array([(data == c).sum() for c in range(4)], dtype=float)


def folded_histogram(data, rng):
    """|count − 1 + noise|: post-processing (``abs`` of a noisy value, a public constant) of an ε-DP histogram."""
    return np.abs(_counts(data) + rng.laplace(0.0, 1.0, 4) - 1.0)


def folded_histogram_small_noise(data, rng):
    """Bug: the same with noise of a quarter of the scale."""
    return np.abs(_counts(data) + rng.laplace(0.0, 0.25, 4) - 1.0)


@pytest.mark.tier2
def test_abs_past_its_fold_is_post_processing():
    """The rarest class's count moved past abs's fold (its coefficient changes sign on D′) is read through the fold:
    certified, and the bug twin refuted by composition."""
    run = _audit(folded_histogram, LABELS)
    # at exactly ε, a count read past the fold (coefficient −1) has its shift within a rounding bound only: undecided
    # (issue 70, item 3: no margin certifies), never refuted
    assert run.verdict != "fail" and run.exit_code in (0, 3), [(c.id, c.verdict, c.note[:200]) for c in run.checks]
    bug = _audit(folded_histogram_small_noise, LABELS)
    assert bug.verdict == "fail" and _check(bug, "program-composition").verdict == "fail"


def test_a_flat_value_the_data_sets_is_not_read_as_post_processing():
    """max(count + noise, n/2 − 3): the floor moves with n, so the clamped coordinate's value on D′ is not what D
    gives at D′'s noisy value: never certified."""

    def floor_from_data(data, rng):
        return np.maximum(_counts(data) + rng.laplace(0.0, 1.0, 4), len(data) / 2.0 - 3.0)

    assert _audit(floor_from_data, LABELS).verdict != "pass"


def _clipped(data):
    return np.clip(np.nan_to_num(np.asarray(data, dtype=float), nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)


def clamped_mean(data, rng):
    """A noisy mean of n values in [0, 1], scale 2/n (n moves under add/remove: the scale is read from the data),
    clamped to [0, 1]: the clamp folds the tails into two point masses, and the loss is bounded -- 0.5 on removing
    the record 0 of ``VALUES`` (mpmath, the masses at 0 and 1 and the density between), below ε = 1."""
    x = _clipped(data)
    return float(np.clip(x.mean() + rng.laplace(0.0, 2.0 / len(x)), 0.0, 1.0))


def clamped_mean_by_min_max(data, rng):
    """The same clamp written with ``min`` and ``max``."""
    x = _clipped(data)
    return min(max(x.mean() + rng.laplace(0.0, 2.0 / len(x)), 0.0), 1.0)


def clamped_mean_small_noise(data, rng):
    """Bug: the same clamp around noise of an eighth of the scale -- its tails, inside [0, 1], refute ε = 1."""
    x = _clipped(data)
    return float(np.clip(x.mean() + rng.laplace(0.0, 0.25 / len(x)), 0.0, 1.0))


def unclamped_mean(data, rng):
    """Bug: the noisy mean of scale 2/n released as it is -- a scale that moves with n, its tails released."""
    x = _clipped(data)
    return float(x.mean() + rng.laplace(0.0, 2.0 / len(x)))


NAMED = {"bounds": (0, 1), "search": "named", "draw_sets": 1}


def _decided(program, relation="add-remove", claim=(1.0, 0.0)):
    """The exact checks (record, structure, composition) of the named neighbours, one draw set, no black box."""
    found = analysis.analyse(program, VALUES, relation, (0.0, 1.0), claim, 0, draw_sets=1)
    return {e.spec.id: e for e in decision.decide(found, claim, "ideal", [])}


@pytest.mark.parametrize("program", [clamped_mean, clamped_mean_by_min_max], ids=["np.clip", "min-max"])
def test_a_clamp_after_a_scale_from_the_data_is_not_refuted_exactly(program):
    """Seen failing on main (5416298): "A pure claim is refuted exactly: released noise of a location family whose
    scale differs ..." -- program-structure fail on a pair whose loss is 0.5 < ε."""
    checks = _decided(program)
    structure = checks["program-structure"]
    assert structure.verdict == "inconclusive" and "not exact" in structure.note, structure.note
    assert checks["program-composition"].verdict != "fail", checks["program-composition"].note


@pytest.mark.tier2
def test_a_clamped_mean_whose_scale_moves_with_n_is_not_refuted():
    """The whole audit, the black box included (seen failing on main: exit 1)."""
    run = _audit(clamped_mean, VALUES, trials=100, **NAMED)
    assert run.verdict != "fail" and run.exit_code != 1, [(c.id, c.verdict, c.note[:200]) for c in run.checks]


@pytest.mark.tier2
def test_a_scale_from_the_data_whose_tails_the_release_carries_is_refuted_exactly():
    """The tail event is verified by replay on D and on D′ where the release carries it: still refuted exactly,
    clamped (noise of an eighth of the scale: its tails inside [0, 1]) or not."""
    unclamped = _decided(unclamped_mean)["program-structure"]
    assert unclamped.verdict == "fail" and "verified by replay" in unclamped.note, unclamped.note
    run = _audit(clamped_mean_small_noise, VALUES, **NAMED)
    structure = _check(run, "program-structure")
    assert structure.verdict == "fail" and "verified by replay" in structure.note, structure.note
    assert run.verdict == "fail"


def test_the_tail_edges_are_read_where_the_release_carries_them_and_not_past_a_clamp():
    """:func:`.carried_events.events` on one pair: an edge verified in the tails for the unclamped mean, none past the
    clamp (at 1, 1.6 scales above the recorded draw's value)."""
    removed = VALUES[1:]
    found_edges = {}
    for program in (clamped_mean, unclamped_mean):
        recorded = trace.record(program, VALUES)
        found = probing.probe(program, VALUES, recorded, 0)
        other = trace.replay(program, removed, recorded.calls)
        carriers = carried_events.carriers(recorded, other, found)
        assert [c.element for c in carriers] == [0]  # affine at the recorded draw, clamp or not
        on_d = probing.replayer(program, VALUES, recorded, found)
        on_after = probing.replayer(program, removed, recorded, found)
        found_edges[program.__name__] = carried_events.events(on_d, on_after, carriers, {0: 1.0})
    assert found_edges["clamped_mean"] == []
    (edges,) = found_edges["unclamped_mean"]
    assert edges.on_d and all(lo < hi for lo, hi in edges.on_d + edges.on_d_prime)
    assert all(abs(lo) > 0.5 for lo, _ in edges.on_d)  # past the clamp's ends: 1 − 0.5 and 0 − 0.5 in the noise


GAUSSIAN_CLAIM = (1.0, 1e-5)


def clamped_gaussian_mean(data, rng):
    """A mean of 8 values in [0, 1] (replace-one: its sensitivity 1/8) with Gaussian noise of σ = 0.4347, clamped to
    [0, 1]: unclamped, δ(1) = 3.0e-5 > 1e-5 (μ = 0.2876); clamped, δ(1) = 0 on replacing the record 0 by 1 (mpmath:
    its loss is at most 0.51 there) -- the event that decides the unclamped law lies past the clamp."""
    return float(np.clip(_clipped(data).mean() + rng.normal(0.0, 0.4347), 0.0, 1.0))


def unclamped_gaussian_mean(data, rng):
    """Bug: the same, unclamped: δ(1) = 3.0e-5 > 1e-5."""
    return float(_clipped(data).mean() + rng.normal(0.0, 0.4347))


def clamped_gaussian_mean_small_noise(data, rng):
    """Bug: clamped around noise of σ = 0.05 (μ = 2.5): the event that decides lies inside [0, 1]."""
    return float(np.clip(_clipped(data).mean() + rng.normal(0.0, 0.05), 0.0, 1.0))


def test_a_clamp_past_the_event_that_decides_is_not_refuted_by_composition():
    """Seen failing on main (5416298): "Refuted by composition ... δ(ε = 1) ≥ 3.003e-05 > δ = 1e-05" on a pair
    whose δ(1) is 0."""
    composition = _decided(clamped_gaussian_mean, "replace-one", GAUSSIAN_CLAIM)["program-composition"]
    assert composition.verdict != "fail", composition.note


@pytest.mark.parametrize(
    "program", [unclamped_gaussian_mean, clamped_gaussian_mean_small_noise], ids=["no clamp", "clamped, σ = 0.05"]
)
def test_a_composition_the_release_carries_is_still_refuted(program):
    """Where the release carries the noise over its range (no clamp, or a clamp far past it), the composition still
    refutes the claim exactly."""
    composition = _decided(program, "replace-one", GAUSSIAN_CLAIM)["program-composition"]
    assert composition.verdict == "fail", composition.note
