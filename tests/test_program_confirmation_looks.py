"""The black box's confirmation sized by what is left to decide (:mod:`pdp_audit.audits.program.confirmation_looks`).

* An exact refutation ends the run: a double spending (two coordinates of ε = 1 each; no one coordinate's law says
  how many releases an event test needs) draws no release at all, and says so; a sum whose noise is half the scale
  its sensitivity needs (ε = 2 on one coordinate) is corroborated on the few hundred releases per world its exact law
  says suffice, not on the 20,000 of the default cap.  Seen failing on main: both drew the whole cap (20,000
  training releases per world, p = 1e-60) and neither said why.
* Where no exact check decides (a count released without noise), the black box draws its budget in two looks fixed
  in advance (2,000 releases per world, then the cap), each at half of α, and stops at the first that rejects.  Seen
  failing on main: it learned from 20,000 releases per world.
* The looks keep their level: under the null (each look's p-value uniform, whatever happened before), the run rejects
  at most with probability α (Bonferroni over fixed looks), where reading each look at the whole α would not.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdp_audit

ALPHA = 1e-6
VALUES = pd.DataFrame({"value": np.random.default_rng(0).uniform(0.0, 1.0, 40)})


def spent_twice(data, rng):
    """Bug: a sum and a count, each with the whole ε = 1 (ε = 2 in all, one per coordinate)."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return float(values.sum() + rng.laplace(0.0, 1.0)), float(len(values) + rng.laplace(0.0, 1.0))


def half_the_noise(data, rng):
    """Bug: a sum of records in [0, 1] with Laplace noise of scale 1/2 (ε = 2 on one coordinate)."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return float(values.sum() + rng.laplace(0.0, 0.5))


def exact_count(data, rng):
    """Bug: a noisy sum released beside the exact count (a coordinate free of noise differs: the black box's)."""
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return float(values.sum() + rng.laplace(0.0, 1.0)), float(len(values))


_RUNS: dict = {}


def _audit(program):
    """The audit at the default budget (``trials`` 20,000: the cap), law ideal, once per program (module-scoped)."""
    if program not in _RUNS:
        _RUNS[program] = pdp_audit.audit_program(
            program, VALUES, 1.0, 0.0, neighbours="add-remove", bounds=(0.0, 1.0), law="ideal", alpha=ALPHA, seed=0
        )
    return _RUNS[program]


def _check(run, name):
    return next(c for c in run.checks if c.id == name)


def test_an_exact_refutation_no_coordinate_sizes_draws_no_release():
    run = _audit(spent_twice)
    confirm = _check(run, "program-confirm")
    assert run.verdict == "fail" and run.exit_code == 1
    assert _check(run, "program-composition").verdict == "fail"
    assert confirm.verdict == "inconclusive" and confirm.pvalue is None, confirm.note
    assert confirm.note.startswith("Not run: program-composition refutes the claim exactly, so the black box is not")
    assert confirm.details["not_run"] == "program-composition refutes the claim exactly"
    assert (
        run.review is not None and "The black box was not needed (the exact refutation decides)." in run.review.reading
    )


def test_an_exact_refutation_is_corroborated_on_the_releases_its_law_says_suffice():
    run = _audit(half_the_noise)
    confirm = _check(run, "program-confirm")
    assert run.verdict == "fail" and _check(run, "program-composition").verdict == "fail"
    releases = confirm.details["corroboration"]
    assert 500 <= releases <= 2_000 and confirm.details["train_per_world"] <= releases, confirm.details
    assert confirm.verdict == "fail" and confirm.pvalue <= ALPHA, confirm.note
    assert confirm.note.startswith("A corroboration only (program-composition refutes the claim exactly): one look")
    assert run.review is not None and "The black box corroborates it on the final release (p = " in run.review.reading


def test_where_no_exact_check_decides_the_black_box_stops_at_its_first_look():
    run = _audit(exact_count)
    confirm = _check(run, "program-confirm")
    assert run.verdict == "fail" and _check(run, "program-composition").verdict != "fail"
    assert confirm.verdict == "fail" and confirm.pvalue <= ALPHA, confirm.note
    looks = confirm.details["looks"]
    assert [k["releases_per_world"] for k in looks["planned"]] == [2_000, 20_000]
    assert [k["share_of_alpha"] for k in looks["planned"]] == [0.5, 0.5]
    assert len(looks["run"]) == 1 and confirm.details["train_per_world"] == 2_000, confirm.details
    assert "Drawn in two looks fixed in advance" in confirm.note


def test_the_looks_sizes_and_shares():
    from pdp_audit.audits.program import confirmation_looks as cl
    from pdp_audit.audits.program.confirmation_looks import FIRST, corroboration, looks

    assert looks(20_000, None, 0) == looks(20_000, None, 0)  # fixed by its inputs
    first, cap = looks(20_000, None, 0)
    assert (first.trials, cap.trials, first.share + cap.share, cap.seed) == (FIRST, 20_000, 1.0, 0)
    assert first.seed != 0  # its own streams
    (only,) = looks(6_000, None, 3)  # a first look of more than a quarter of the cap: the cap alone, at α
    assert (only.trials, only.share, only.seed) == (6_000, 1.0, 3)
    assert looks(20_000, 100.0, 0)[0].trials == 500 and looks(20_000, 1_000.0, 0)[0].trials == 4_000
    # a corroboration (its cap the user's, at most CORROBORATION): where the law says an event test needs at most it
    assert corroboration(2_000, None, 0) is None and corroboration(2_000, 2_100.0, 0) is None
    assert corroboration(2_000, 300.0, 0) == cl.Look(1_200, 1.0, 0)
    assert corroboration(2_000, 850.0, 0) == cl.Look(2_000, 1.0, 0)  # MARGIN × 850 cut to the cap
    assert corroboration(1_000, 1_500.0, 0) is None  # within CORROBORATION, not within the user's cap


@pytest.mark.parametrize("broken", [False, True])
def test_the_looks_keep_their_level_under_the_null(broken):
    """Each look's p-value uniform given the past (the null): the run's p-value min_k p_k / s_k is at most a with
    probability at most a.  40,000 runs at a = 0.05: the count of rejections is Binomial(n, q) with q ≤ 0.05 (mean
    2,000, sd 43.6); the test fails above 2,230 (P ≤ 1e-6 at q = 0.05: a z of 5.3).  Read at the whole α each
    (``broken``), q ≈ 0.0975 and the bound is far exceeded (the assertion inverted there: the bound is seen to bite)."""
    from pdp_audit.audits.program import confirmation_looks as cl
    from pdp_audit.audits.program.decision import CHECKS
    from pdp_audit.verify.core.checks import Evidence

    level, runs = 0.05, 40_000
    schedule = cl.looks(20_000, None, 0)
    uniform = np.random.default_rng(12).uniform(size=(runs, len(schedule)))
    rejected = 0
    for row in uniform:
        draws = iter(row)

        def look(k, draws=draws):
            return [Evidence(CHECKS["program-confirm"], pvalue=float(next(draws)))]

        if broken:
            shares = [cl.Look(k.trials, 1.0, k.seed) for k in schedule]
            found = cl.run_looks(look, tuple(shares), level)
        else:
            found = cl.run_looks(look, schedule, level)
        rejected += found[0].pvalue <= level
    assert (rejected > 2_230) is broken, rejected
