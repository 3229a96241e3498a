"""Large releases (issue 72, item 5): a release whose every coordinate carries noise is read in numpy, element by
element only where an element moved, and decided as a small one is.  Speed is measured in
``benchmarks/bench_program.py``; these tests hold the verdicts only, at sizes that cost little.

Seen failing: before, an element whose coefficient the probe read as 1 ± 2⁻⁴⁰ (its noisy value crosses a binade
under the probe's step, and the response rounds by an ulp of the coordinate) was not read exactly, and its unmoved
element's rounding bound kept a composition at exactly ε undecided: a histogram of 800 bins plus Laplace noise of
scale 2 (ε = 1 under replace-one; one such coordinate) was inconclusive at ``--law ideal``, and one of 10⁴ bins (24
such coordinates) too."""

from __future__ import annotations

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import carried_events, carried_steps, comparison, probing, trace

OPTIONS = {"neighbours": "replace-one", "trials": 500, "seed": 0, "law": "ideal", "draw_sets": 1, "search": "named"}
DATA = np.arange(40) % 7
#: Bins of the histogram below: at the recorder's draws, the probe reads coordinate 773's coefficient as 1 ± 2⁻⁴⁰
#: (its noisy value crosses a binade under the probe's step).
BINS = 800


def histogram(data, rng):
    """A histogram plus Laplace noise of scale 2: sensitivity 2 under replace-one, ε = 1."""
    counts = np.bincount(np.asarray(data, dtype=np.int64) % BINS, minlength=BINS).astype(float)
    return counts + rng.laplace(0.0, 2.0, size=counts.size)


def test_counts_read_with_a_rounded_coefficient_are_certified_at_exactly_epsilon():
    assert pdp_audit.audit_program(histogram, DATA, 1.0, **OPTIONS).verdict == "pass"


#: Bins of the releases below: more than the numbers the black box reads of a release
#: (:data:`~pdp_audit.audits.program.release_sampler.MOST_COLUMNS`).
WIDE = 1_100
#: The bin whose noise the leaky histogram leaves out, and a record in it (so a neighbour moves it).
LEAKY_BIN = 3
#: A machine whose memory holds the black box's releases read on a few numbers, not on 1,100 of them.
SMALL_MEMORY = 4_000_000


def scale_one(data, rng):
    """A histogram plus Laplace noise of scale 1: ε = 2 under replace-one (sensitivity 2), not the ε = 1 claimed."""
    counts = np.bincount(np.asarray(data, dtype=np.int64) % WIDE, minlength=WIDE).astype(float)
    return counts + rng.laplace(0.0, 1.0, size=counts.size)


def leaky_bin(data, rng):
    """A histogram plus Laplace noise of scale 2, but for one bin released bare: no ε holds."""
    counts = np.bincount(np.asarray(data, dtype=np.int64) % WIDE, minlength=WIDE).astype(float)
    noise = rng.laplace(0.0, 2.0, size=counts.size)
    noise[LEAKY_BIN] = 0.0
    return counts + noise


def _checks(run) -> dict:
    return {c.id: c for c in run.checks}


def test_an_exact_refutation_of_a_wide_release_is_not_turned_into_a_usage_error(monkeypatch):
    """Seen failing before: the composition refuted the claim exactly, then the black box's confirmation read every
    number of the release, and its memory check (a budget of the audit's own) ended the run with InputError (exit 2,
    "… GB … for 1103-dimensional releases"; at 10⁵ bins, 660 GB on any machine).  Its releases could not change the
    verdict: it is not run, and says why."""
    monkeypatch.setattr("pdp_audit.verify.core.processes.physical_memory", lambda: SMALL_MEMORY)
    run = pdp_audit.audit_program(scale_one, DATA, 1.0, **OPTIONS)
    checks = _checks(run)
    assert run.verdict == "fail" and run.exit_code == 1
    assert checks["program-composition"].verdict == "fail"
    confirm = checks["program-confirm"]
    assert confirm.verdict == "inconclusive" and confirm.pvalue is None
    assert confirm.note.startswith("Not run: program-composition refutes the claim exactly"), confirm.note


@pytest.mark.tier2
def test_a_wide_release_with_a_bare_bin_is_confirmed_on_the_numbers_that_differ(monkeypatch):
    """No exact check decides a bin released without noise: the black box confirms it, reading the numbers that
    differ on the witness pair (a replacement moves at most two bins), a post-processing of the release.  Seen
    failing before: the black box read all 1,100 numbers, which this machine's memory does not hold (InputError)."""
    monkeypatch.setattr("pdp_audit.verify.core.processes.physical_memory", lambda: SMALL_MEMORY)
    data = np.r_[LEAKY_BIN, DATA]
    run = pdp_audit.audit_program(leaky_bin, data, 1.0, **OPTIONS)
    confirm = _checks(run)["program-confirm"]
    assert run.verdict == "fail" and confirm.verdict == "fail", confirm.note
    assert 1 <= confirm.details["numbers_read"] <= 2, confirm.details


def test_only_the_moved_elements_of_a_wide_pair_are_read_where_the_release_carries_them():
    """A replacement moves two of the 1,100 bins: only their lower steps are composed, so only they are read where
    the release carries them (:func:`.carried_steps.unshown`); every carrier is found at once in numpy, and those
    asked for (``among``) are the same, field for field, as the whole list's.  Seen failing before: ``unshown``
    named all 1,100 elements (each read by eight replays' checks, and 10⁵ bins took minutes a pair)."""
    data = np.r_[5, DATA]
    recorded = trace.record(scale_one, data)
    found = probing.probe(scale_one, data, recorded, 0)
    neighbour = np.r_[6, DATA]  # record 0 moved from bin 5 to bin 6
    c = comparison.compare(scale_one, neighbour, recorded, found)
    assert carried_steps.unshown(c, found) == (5, 6)
    every = carried_events.carriers(recorded, c.replayed, found)
    assert [x.element for x in every] == list(range(WIDE))
    among = np.zeros(WIDE, dtype=bool)
    among[[5, 6]] = True
    assert carried_events.carriers(recorded, c.replayed, found, among) == [every[5], every[6]]
    five = every[5]  # 6 records in bin 5 on D, 5 on D′ (DATA holds 5): the count plus its recorded draw
    assert (five.coefficient, five.stretch, five.scale, five.law) == (1.0, 1.0, 1.0, "laplace")
    assert five.value == 6.0 + five.draw and five.value_after == 5.0 + five.draw
