"""A pair must draw its releases from the generator it is given, and from it only (issue 26, item 4):
verify/estimators/rng_discipline.py, run before the main draws by ``audit_pair``/``assert_dp``, the contract suite and
the
black-box route.

Pairs that repeat themselves -- reseeding on every call, a small set of seeds, a deterministic sequence -- are the
exact fail ``pair-protocol`` with a message saying what was observed.  Pairs that draw from a source of their own
(global ``np.random``, a generator of the pair's own) are audited and said not reproducible (issue 41, item 1).
Correct pairs never trip it, discrete ones with few outcomes and nearly deterministic ones included: the probe's
seeds are fixed, and its false-alarm probability is at most 56·e^{−40} ≈ 2.4e-16 whatever the release law (the
bound of the module notes, checked below on the entropies it rests on).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pdp_audit
from pdp_audit.mechanisms.base import MalformedPair
from pdp_audit.mechanisms.mutant_pairs import DrawsGaussian as Gaussian
from pdp_audit.mechanisms.mutant_pairs import GlobalNumpy, OwnGenerator, Reseeding
from pdp_audit.verify.estimators import rng_discipline as rd

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process


class FewSeeds(Gaussian):
    """Seeds a generator of its own from three seeds chosen by its rng: three distinct streams in all."""

    def noise(self, size, rng):
        return np.random.default_rng(int(rng.integers(3))).standard_normal((size, 1))


class Sequence(Gaussian):
    """A deterministic sequence that varies from row to row: no generator drives it."""

    def noise(self, size, rng):
        return np.sin(np.arange(size, dtype=float))[:, None]


class RandomizedResponse:
    """k-ary randomized response: the true answer with probability p, else uniform over the others (exact loss)."""

    def __init__(self, k: int, p: float):
        self.k, self.p, self.output_dim = k, p, 1

    def sample(self, world, size, rng):
        truth = 0 if world == "D" else 1
        keep = rng.random(size) < self.p
        other = (truth + 1 + rng.integers(self.k - 1, size=size)) % self.k
        return np.where(keep, truth, other)[:, None].astype(float)

    def _log_p(self, truth, o):
        return np.where(o == truth, math.log(self.p), math.log((1 - self.p) / (self.k - 1)))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return self._log_p(0, o) - self._log_p(1, o)


class Geometric:
    """The two-sided geometric mechanism on integers, α = e^{-ε}: the count 3 on D, 4 on D'."""

    def __init__(self, epsilon: float = 1.0):
        self.epsilon, self.output_dim = epsilon, 1

    def sample(self, world, size, rng):
        alpha = math.exp(-self.epsilon)
        noise = rng.geometric(1 - alpha, size) - rng.geometric(1 - alpha, size)
        return ((3 if world == "D" else 4) + noise)[:, None].astype(float)

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return self.epsilon * (np.abs(o - 4) - np.abs(o - 3))


class RareRelease:
    """Releases 0, except with probability 1e-3 a 1 (on both worlds): nearly deterministic, and a correct (0, 0)-DP
    pair.  Its arrays of 1000 are constant or have a handful of ones (n·Ĥ ≈ 7.9 for one): too uniform to tell
    from a reseeding pair, so identical arrays are not reported."""

    output_dim = 1

    def sample(self, world, size, rng):
        return (rng.random((size, 1)) < 1e-3).astype(float)

    def privacy_loss(self, outputs):
        return np.zeros(len(outputs))


class Deterministic:
    """No noise at all: the query itself, ``value[world]``, released every time."""

    output_dim = 1

    def __init__(self, d: float, d_prime: float):
        self.values = {"D": d, "D'": d_prime}

    def sample(self, world, size, rng):
        return np.full((size, 1), self.values[world])

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        if self.values["D"] == self.values["D'"]:
            return np.zeros(o.size)
        return np.where(o == self.values["D"], np.inf, -np.inf)


def _protocol_note(run) -> str:
    (check,) = [c for c in run.checks if c.id == "pair-protocol"]
    assert run.verdict == "fail" and check.verdict == "fail"
    return check.note


@pytest.mark.parametrize(
    "pair,needle",
    [
        (
            Reseeding(),
            "sample('D', 1000) returned identical releases on two successive calls with one generator: the "
            "pair reseeds itself on every call",
        ),
        (FewSeeds(), "returned identical releases for two different seeds"),
        (Sequence(), "returned identical releases on two successive calls"),
    ],
    ids=["reseeding", "few-seeds", "sequence"],
)
def test_a_pair_that_ignores_its_rng_is_a_pair_protocol_failure(pair, needle):
    """On main every one of these passed: the same claim, and a correct σ, with numbers that depend on the run
    (global state) or with 65,536 distinct draws counted as many times as asked (reseeding)."""
    run = pdp_audit.audit_pair(pair, epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal"))
    assert needle in _protocol_note(run), _protocol_note(run)
    assert not [c for c in run.checks if c.id.startswith("dp-")]  # nothing was sampled to decide the claim


def test_the_contract_suite_names_the_rng_check():
    pdp_audit.check_pair(Gaussian(), law="ideal")  # a textbook float Gaussian: its real-valued law
    with pytest.raises(AssertionError, match=r"check_determinism: .*reseeds itself on every call"):
        pdp_audit.check_pair(Reseeding())


@pytest.mark.parametrize(
    "pair",
    [RandomizedResponse(2, 0.75), RandomizedResponse(3, 0.9), Geometric(1.0), RareRelease(), Deterministic(0.5, 0.5)],
    ids=["rr-2", "rr-3", "geometric", "rare-release", "deterministic"],
)
def test_correct_discrete_and_nearly_deterministic_pairs_never_trip_the_probe(pair):
    rd.check_rng_discipline(pair.sample)


def test_a_deterministic_release_is_left_to_the_dp_checks():
    """A release without noise is iid draws of a point mass: sampling it is valid, and the DP checks decide --
    (0, 0)-DP when it does not depend on the individual, δ(ε) = 1 when it does."""
    same = pdp_audit.audit_pair(
        Deterministic(0.5, 0.5), epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
    )
    assert same.verdict == "pass", pdp_audit.describe(same)
    leaks = pdp_audit.audit_pair(
        Deterministic(0.0, 1.0), epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
    )
    failing = {c.id for c in leaks.checks if c.verdict == "fail"}
    assert leaks.verdict == "fail" and {"dp-forward", "dp-reverse"} <= failing and "pair-protocol" not in failing


def test_the_black_box_route_refuses_a_sampler_that_ignores_its_rng():
    run = pdp_audit.audit_blackbox(Reseeding(), epsilon=1.0, delta=1e-5, trials=2_000)
    assert "reseeds itself on every call" in _protocol_note(run)


def test_the_probe_is_cheap_and_runs_before_the_main_draws():
    calls = []

    class Counting(Gaussian):
        def sample(self, world, size, rng):
            calls.append(size)
            return super().sample(world, size, rng)

    pdp_audit.audit_pair(Counting(), epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(1_000, law="ideal"))
    probe = 2 * (1 + rd.PROBE_STATES)  # per world: seed 0 twice, then seven more generator states
    assert calls[:probe] == [rd.PROBE_SIZE] * probe


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    first, again = (
        pdp_audit.audit_pair(Gaussian(), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"), seed=3)
        for _ in range(2)
    )
    other = pdp_audit.audit_pair(Gaussian(), 1.0, 1e-3, trials=pdp_audit.PairBudget(5_000, law="ideal"), seed=4)
    assert [c.estimate for c in first.checks] == [c.estimate for c in again.checks]
    assert [c.estimate for c in first.checks] != [c.estimate for c in other.checks]


def test_row_entropy_is_the_bound_of_the_false_alarm_argument():
    """n·Ĥ = −log of the largest probability any law gives the array: n log n for distinct rows, n log 2 for a
    balanced coin, 0 for a constant, and rows (not values) are what is counted."""
    n = 1000
    assert rd.row_entropy_nats(np.random.default_rng(0).standard_normal((n, 2))) == pytest.approx(n * math.log(n))
    assert rd.row_entropy_nats(np.repeat([[0.0], [1.0]], n // 2, axis=0)) == pytest.approx(n * math.log(2))
    assert rd.row_entropy_nats(np.zeros((n, 3))) == 0.0
    one_in_a_thousand = np.zeros((n, 1))
    one_in_a_thousand[17] = 1.0
    assert rd.row_entropy_nats(one_in_a_thousand) == pytest.approx(math.log(n) + (n - 1) * math.log(n / (n - 1)))
    # the bound: P(array) ≤ e^{−n·Ĥ} for every law; here the law that attains it (the empirical one)
    p = 0.3
    coin = np.repeat([[0.0], [1.0]], [700, 300], axis=0)
    assert -(700 * math.log(1 - p) + 300 * math.log(p)) == pytest.approx(rd.row_entropy_nats(coin))
    # the stated false-alarm probability of a probe
    comparisons = 2 * math.comb(rd.PROBE_STATES, 2)
    assert comparisons * math.exp(-rd.MIN_ENTROPY_NATS) < 2.5e-16


def test_shapes_are_checked_by_the_probe_with_the_usual_message():
    class Flat(Gaussian):
        def sample(self, world, size, rng):
            return super().sample(world, size, rng)[:, 0]

    run = pdp_audit.audit_pair(Flat(), 1.0, 1e-3, trials=pdp_audit.PairBudget(1_000, law="ideal"))
    assert "sample('D', 1000) returned shape (1000,); expected (1000, 1)" in _protocol_note(run)


def test_malformed_pair_is_what_the_probe_raises():
    with pytest.raises(MalformedPair, match="for two different seeds"):
        rd.check_rng_discipline(FewSeeds().sample)


@pytest.mark.parametrize("pair", [GlobalNumpy(), OwnGenerator()], ids=["global-np-random", "own-generator"])
def test_a_sampler_of_its_own_source_is_audited_and_said_not_reproducible(pair):
    """Same seed, different releases: a source of its own (OpenDP's sampler, diffprivlib's default random_state).
    Its draws are independent, so the claim is decided -- and every verdict line says it cannot be rerun."""
    assert rd.check_rng_discipline(pair.sample).startswith("not reproducible: sample('D', 1000) returned different")
    run = pdp_audit.audit_pair(pair, epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(100_000, law="ideal"))
    assert run.verdict == "pass" and {c.id for c in run.checks} >= {"dp-forward", "dp-reverse"}
    assert all(c.details["reproducible"] is False for c in run.checks)
    first = pdp_audit.describe(run).splitlines()[0]
    assert first.startswith("pdp-audit: GlobalNumpy: CERTIFIED: (1, ") or first.startswith(
        "pdp-audit: OwnGenerator: CERTIFIED"
    )
    assert "DP certified (not reproducible: the sampler draws from its own source)" in first


def test_its_broken_twin_fails_on_privacy_not_on_the_protocol():
    """σ = 1 where the claim (1, 1e-3) needs about 3.4: a dp check fails, the exit code is the privacy verdict's."""
    run = pdp_audit.audit_pair(
        GlobalNumpy(sigma=1.0), epsilon=1.0, delta=1e-3, trials=pdp_audit.PairBudget(20_000, law="ideal")
    )
    assert run.exit_code == 1 and "pair-protocol" not in {c.id for c in run.checks}
    assert {c.id: c.verdict for c in run.checks}["dp-forward"] == "fail"


@pytest.mark.tier2
def test_the_black_box_line_says_a_sampler_of_its_own_source_is_not_reproducible(tmp_path, monkeypatch, capsys):
    """Issue 72: ``pdp-audit blackbox`` on a sampler drawing from numpy's global state gave other numbers on the
    same seed and said so only in its JSON; its one line now says it, as the pair audit's lines do."""
    from pdp_audit.cli.main import main

    (tmp_path / "own_source.py").write_text(
        "from pdp_audit.mechanisms.mutant_pairs import GlobalNumpy\n\ndef make():\n    return GlobalNumpy(sigma=1.0)\n"
    )
    monkeypatch.chdir(tmp_path)
    argv = ["blackbox", "own_source:make", "--claim-epsilon", "1", "--claim-delta", "1e-5", "--trials", "2000"]
    assert main([*argv, "--report", "none"]) in (1, 3)
    (line,) = capsys.readouterr().out.strip().splitlines()[-1:]
    assert line.startswith("pdp-audit blackbox own_source:make: ") and line.endswith(
        "(not reproducible: the sampler draws from its own source)"
    ), line
