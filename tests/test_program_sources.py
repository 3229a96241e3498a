"""Randomness not drawn from ``rng`` recorded and replayed with no decoration (:mod:`pdp_audit.audits.program.sources`).

A sum of five records clipped to [0, 1] (sensitivity 1 under add-remove) with its noise drawn from numpy's global
state, a generator made inside the program, Python's ``random`` or ``scipy.stats``: each correct program is certified
at ``--law ideal`` (pure ε = 1 for Laplace of scale 1; (1, 1e-5) for a Gaussian of σ = 5 ≥ √(2 ln(1.25/δ)) = 4.84,
Dwork & Roth 2014, Thm A.1), and its twin with too little noise refuted.  Randomness that cannot be replayed
(``os.urandom``, ``secrets``) is named and keeps the claim undecided; noise seeded with a constant is named and never
certified.

Fixed seeds; α = 1e-6 (the audit's default).  Seen failing on main (dd09bff): every program here was "inconclusive:
randomness not drawn from rng" except ``os.urandom``'s (certified, its use not named) and ``np.random.seed(0)``'s
(refuted, the fixed seed not named).
"""

from __future__ import annotations

import os
import random
import secrets

import numpy as np
import pytest
import scipy.stats

import pdp_audit
from pdp_audit.audits.program import trace
from pdp_audit.audits.program.release_sampler import ReleaseSampler

DATA = np.array([0.1, 0.5, 0.9, 0.3, 0.7])


def _sum(data):
    values = np.nan_to_num(np.asarray(data, dtype=float).ravel(), nan=0.0, posinf=1.0, neginf=0.0)
    return np.clip(values, 0.0, 1.0).sum()


def global_laplace(scale):
    def program(data, rng):
        return _sum(data) + np.random.laplace(0.0, scale)

    return program


def made_generator(scale):
    def program(data, rng):
        return _sum(data) + np.random.default_rng().laplace(0.0, scale)

    return program


def python_gauss(sigma):
    def program(data, rng):
        return _sum(data) + random.gauss(0.0, sigma)

    return program


def scipy_laplace(scale):
    def program(data, rng):
        return _sum(data) + scipy.stats.laplace.rvs(scale=scale)

    return program


def _audit(program, delta=0.0):
    return pdp_audit.audit_program(program, DATA, 1.0, delta, bounds=(0, 1), law="ideal", trials=2000)


def _record(run):
    return next(c for c in run.checks if c.id == "program-record")


@pytest.mark.tier2(representatives=("np.random.laplace",))
@pytest.mark.parametrize(
    "make, correct, broken, delta",
    [
        (global_laplace, 1.0, 0.5, 0.0),
        (made_generator, 1.0, 0.5, 0.0),
        (python_gauss, 5.0, 1.0, 1e-5),
        (scipy_laplace, 1.0, 0.5, 0.0),
    ],
    ids=["np.random.laplace", "default_rng()", "random.gauss", "scipy.stats.laplace.rvs"],
)
def test_noise_from_another_source_is_recorded_and_composed(make, correct, broken, delta):
    fixed = _audit(make(correct), delta)
    assert fixed.verdict == "pass", _record(fixed).note
    assert len(_record(fixed).details["trace"]) == 1  # the one draw, recorded as a call with its law
    assert _audit(make(broken), delta).verdict == "fail"


def test_every_way_to_make_a_generator_inside_the_program_is_recorded():
    """``Generator(PCG64())``, a child of ``SeedSequence().spawn``, ``RandomState()``, ``random.Random()`` and a
    seed drawn from ``rng``: each one call recorded, the replay on D reproduces the release."""

    def made(data, rng):
        children = np.random.SeedSequence().spawn(2)
        noise = np.random.Generator(np.random.PCG64()).laplace(0.0, 1.0)
        noise += np.random.Generator(np.random.PCG64(children[1])).laplace(0.0, 1.0)
        noise += np.random.RandomState().laplace(0.0, 1.0)
        noise += random.Random().gauss(0.0, 1.0)
        noise += np.random.default_rng(rng.integers(2**63)).laplace(0.0, 1.0)
        return _sum(data) + noise

    recorded = trace.record(made, DATA)
    assert [c.name for c in recorded.calls] == ["laplace", "laplace", "laplace", "normal", "integers", "laplace"]
    assert recorded.unrecorded == ()
    again = trace.replay(made, DATA, recorded.calls)
    assert again.numbers.tolist() == recorded.numbers.tolist()


def test_randomness_that_cannot_be_replayed_is_named_and_undecided():
    def salted(data, rng):
        os.urandom(8)
        return _sum(data) + rng.laplace(0.0, 1.0)

    run = _audit(salted)
    assert run.verdict == "inconclusive"
    record = _record(run)
    assert record.verdict == "inconclusive" and "os.urandom at test_program_sources.py" in record.note
    assert any("os.urandom" in line for line in record.details["unrecorded"])


@pytest.mark.tier2
def test_noise_seeded_with_a_constant_is_named_and_not_certified():
    def seeded(data, rng):
        np.random.seed(0)
        return _sum(data) + np.random.laplace(0.0, 1.0)

    run = _audit(seeded)
    assert run.verdict != "pass"
    (line,) = _record(run).details["unrecorded"]
    assert line.startswith("numpy.random.seed(0) at test_program_sources.py") and "not random" in line


def test_every_name_is_given_back_after_the_audit():
    before = (np.random.laplace, np.random.default_rng, np.random.Generator, random.gauss, random.Random, os.urandom)
    before += (scipy.stats.laplace.random_state,)
    _audit(global_laplace(1.0))
    after = (np.random.laplace, np.random.default_rng, np.random.Generator, random.gauss, random.Random, os.urandom)
    assert before == after + (scipy.stats.laplace.random_state,)


def test_the_black_box_draws_every_source_from_the_release_seed():
    """Outside the record, a release's numpy-global noise comes from its own generator: the same seed, the same
    releases; each release a fresh draw."""
    sampler = ReleaseSampler(global_laplace(1.0), DATA, 4)
    first, again = sampler(50, np.random.default_rng(1)), sampler(50, np.random.default_rng(1))
    assert np.array_equal(first, again)
    assert np.unique(first[:, 3]).size == 50


def test_secrets_draw_from_the_run_seed():
    """``secrets``' draws come from the run's generator: the same record and the same black-box releases on every run
    of one seed (before, two records of one seed differed), their use still named as unreplayable."""

    def salted(data, rng):
        return [_sum(data) + secrets.SystemRandom().random(), secrets.randbits(8), len(secrets.token_bytes(3))]

    first, again = trace.record(salted, DATA), trace.record(salted, DATA)
    assert first.numbers.tolist() == again.numbers.tolist()
    assert any("SystemRandom" in str(note) for note in first.unrecorded)
    sampler = ReleaseSampler(salted, DATA, 6)  # the encoding's 3 head columns, then the release's 3 numbers
    releases = sampler(20, np.random.default_rng(1))
    assert np.array_equal(releases, sampler(20, np.random.default_rng(1)))
    assert np.unique(releases[:, 3]).size == 20 and set(releases[:, 5].tolist()) == {3.0}


def test_a_diffprivlib_mechanism_draws_its_noise_from_the_run_seed():
    """diffprivlib's mechanisms draw from a ``secrets.SystemRandom`` (``random_state=None``): the audit's record and
    black box read the same noise on every run of one seed; seen failing before (the recorded noise differed between
    two records, and a LinearRegression audit's findings between runs of one seed)."""
    mechanisms = pytest.importorskip("diffprivlib.mechanisms")

    def released(data, rng):
        return float(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0).randomise(float(_sum(data))))

    first, again = trace.record(released, DATA), trace.record(released, DATA)
    assert first.calls[0].noise == again.calls[0].noise and not first.unrecorded
    sampler = ReleaseSampler(released, DATA, 4)
    assert np.array_equal(sampler(20, np.random.default_rng(1)), sampler(20, np.random.default_rng(1)))


def test_a_seed_used_twice_keeps_the_claim_undecided():
    """Two generators seeded alike draw the same noise: the second coordinate releases the first's noise, so the
    sum is read exactly (not DP).  Recording each draw afresh would compose two independent noises and certify."""

    def reused(data, rng):
        seed = rng.integers(2**63)
        first = np.random.default_rng(seed).laplace(0.0, 1.0)
        second = np.random.default_rng(seed).laplace(0.0, 1.0)
        return [_sum(data) + first, second]

    run = _audit(reused)
    assert run.verdict != "pass"
    assert any("used twice" in line for line in _record(run).details["unrecorded"])
