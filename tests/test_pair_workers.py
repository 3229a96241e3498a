"""The workers of a white-box pair's audit (``audit_pair``, ``assert_dp``, ``pdp-audit certify`` of a
``module:factory``): chosen, where the user names none, by the black box's rule
(:func:`pdp_audit.verify.evidence.user_audits.chosen_workers`) -- the available cores for a pair whose ``sample`` and
``privacy_loss`` cost at least ``PARALLEL_FROM_S`` a release and that pickles, one process otherwise, saying why --
and never a byte of the result changed by them.  The cost is given, not timed, where the choice is what is tested."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.pair.deployed import GuardedPair
from pdp_audit.reports.json_report import dumps
from pdp_audit.verify.evidence import pair_checks, user_audits


class Laplace:
    """A count (1 on D, 0 on D') with Laplace noise of scale 2: (0.5, 0)-DP.  At module level: it pickles."""

    output_dim = 1

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + rng.laplace(0.0, 2.0, (int(size), 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return (np.abs(o) - np.abs(o - 1.0)) / 2.0


def local_pair():
    """The same pair, of a class defined in a function: it cannot be pickled."""

    class Local(Laplace):
        pass

    return Local()


def named(pair, **budget):
    """``audit_pair(pair, 1.0, 1e-3)`` with its workers named, as a deployment's ``[audit] workers`` names them (the
    ideal law: the float Laplace pair here is porous as implemented)."""
    from pdp_audit.audits.pair.audit import run_pair
    from pdp_audit.audits.pair.config import PairAuditConfig
    from pdp_audit.verify.core.config import build

    values = {"epsilon": 1.0, "delta": 1e-3, "seed": 0, "alpha": 1e-6, "law": "ideal", **budget}
    return run_pair(build(PairAuditConfig, values, extra={"target": pair}))


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True, 10**400, float("inf")])
def test_named_workers_out_of_range_are_refused_before_any_draw(workers):
    from pdp_audit.verify.inputs.validation import InputError

    class Counting(Laplace):
        calls = 0

        def sample(self, world, size, rng):
            Counting.calls += 1
            return super().sample(world, size, rng)

    with pytest.raises(InputError, match=r"^workers"):
        named(Counting(), trials=2_000, workers=workers)
    assert Counting.calls == 0


@pytest.fixture
def four_cores(monkeypatch):
    monkeypatch.setattr(user_audits, "available_cores", lambda: 4, raising=False)  # old code: none


def costing(monkeypatch, seconds: float) -> None:
    monkeypatch.setattr(user_audits, "sampler_cost", lambda samplers: seconds)


@pytest.fixture
def passes(monkeypatch):
    """The workers each main pass of sample and privacy_loss was given: the fixed pass's, or the pass in looks' (early
    stopping, the default)."""
    seen: list[int] = []
    stream, looked = pair_checks.stream_losses, pair_checks._sequential_checks

    def spy(pair, epsilon, trials, seed, progress=False, workers=1):
        seen.append(workers)
        return stream(pair, epsilon, trials, seed, progress, workers)

    def spy_looks(pair, claim, budget, per_instance, drawing):
        seen.append(drawing.chosen_workers())
        return looked(pair, claim, budget, per_instance, drawing)

    monkeypatch.setattr(pair_checks, "stream_losses", spy)
    monkeypatch.setattr(pair_checks, "_sequential_checks", spy_looks)
    return seen


def test_a_slow_pair_that_pickles_gets_the_cores_a_fast_one_one_process(four_cores, monkeypatch):
    from pdp_audit.audits.pair.deployed import pair_workers

    slow, fast = 2 * user_audits.PARALLEL_FROM_S, user_audits.PARALLEL_FROM_S / 2
    costing(monkeypatch, slow)
    chosen = pair_workers(GuardedPair(Laplace(), "Laplace"), None)
    assert chosen.workers == 4 and chosen.why.startswith("Workers: 4 (the available cores): the pair (sample and")
    assert pair_workers(GuardedPair(Laplace(), "Laplace"), 3).workers == 3  # named workers are kept
    costing(monkeypatch, fast)
    chosen = pair_workers(GuardedPair(Laplace(), "Laplace"), None)
    assert chosen.workers == 1 and "costs less than" in chosen.why


def test_a_slow_pair_that_does_not_pickle_runs_in_one_process_and_says_why(four_cores, monkeypatch, passes):
    from pdp_audit.audits.pair.deployed import pair_workers

    costing(monkeypatch, 2 * user_audits.PARALLEL_FROM_S)
    chosen = pair_workers(GuardedPair(local_pair(), "Local"), None)
    assert chosen.workers == 1 and "does not pickle (AttributeError)" in chosen.why
    run = pdp_audit.audit_pair(
        local_pair(), 1.0, 1e-3, trials=pdp_audit.PairBudget(2_000, law="ideal")
    )  # still audited, serially
    assert run.verdict in ("pass", "inconclusive") and passes == [1]


def test_named_workers_with_a_pair_that_does_not_pickle_are_one_line():
    from pdp_audit.verify.inputs.validation import InputError

    with pytest.raises(InputError, match=r"^workers: the pair cannot be sent to worker processes \(AttributeError"):
        named(local_pair(), trials=2_000, workers=2)


def test_audit_pair_draws_a_slow_pair_on_the_cores_it_chose(four_cores, monkeypatch, passes):
    costing(monkeypatch, 2 * user_audits.PARALLEL_FROM_S)
    pdp_audit.audit_pair(Laplace(), 1.0, 1e-3, trials=pdp_audit.PairBudget(2_000, law="ideal"))
    costing(monkeypatch, user_audits.PARALLEL_FROM_S / 2)
    pdp_audit.audit_pair(Laplace(), 1.0, 1e-3, trials=pdp_audit.PairBudget(2_000, law="ideal"))
    named(Laplace(), trials=2_000, workers=2)
    assert passes == [4, 1, 2]


def test_the_result_is_byte_identical_on_one_and_two_workers():
    """Two blocks per world (65,536 and 4,464 releases): drawn by two processes, in a window, the same bytes."""
    runs = [dumps(named(Laplace(), trials=70_000, workers=w)) for w in (1, 2)]
    assert runs[0] == runs[1]
    assert json.loads(runs[0])["verdict"] == "pass"


USER_MODULE = """
import numpy as np

class Laplace:
    output_dim = 1

    def sample(self, world, size, rng):
        return (1.0 if world == "D" else 0.0) + rng.laplace(0.0, 2.0, (int(size), 1))

    def privacy_loss(self, outputs):
        o = outputs[:, 0]
        return (np.abs(o) - np.abs(o - 1.0)) / 2.0

def make():
    return Laplace()
"""


def deployment(folder: Path) -> dict:
    (folder / "slowmod.py").write_text(USER_MODULE, encoding="utf-8")
    audit = {"trials": 70_000, "law": "ideal"}  # a float Laplace, certified as its real-valued law
    return {"mechanism": "slowmod:make", "claim": {"epsilon": 1.0, "delta": 1e-3}, "audit": audit}


def test_certify_states_the_workers_it_chose_and_its_certificate_does_not_depend_on_them(
    tmp_path, monkeypatch, capsys, four_cores
):
    """The user's module, executed from its file, is sent to the workers by name: the certificate's bytes are those of
    one process; the budget statement names the workers and why."""
    monkeypatch.chdir(tmp_path)
    costing(monkeypatch, 2 * user_audits.PARALLEL_FROM_S)
    chosen = pdp_audit.certify(deployment(tmp_path), progress=True)
    said = capsys.readouterr().err
    assert "on 4 worker processes. Workers: 4 (the available cores): the pair (sample and privacy_loss)" in said
    monkeypatch.setattr(user_audits, "available_cores", lambda: 1)  # the same file, drawn in one process
    serial = pdp_audit.certify(deployment(tmp_path), progress=True)
    assert "in this process (one core). Workers: one process -- this process may run on one core only." in (
        capsys.readouterr().err
    )
    assert chosen.verdict == "pass" and dumps(chosen) == dumps(serial)
