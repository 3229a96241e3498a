"""Speed of ``audit_program``'s deterministic part (record, probe, replay on each neighbour, composition), against
the program runs the exact audit must make; and a program on 10⁴ records with about 100 neighbour candidates
decided in at most 30 s on 2 cores (issue 63).

    python benchmarks/bench_program.py [--quick]

Prints one JSON line per case: the program's own run time (one run on each neighbour, per neighbour), the whole
structural audit's time (building the neighbours, record, probe, every replay, the compositions; under the float
rules every entry point runs under; without the black box's confirmation, which only a finding triggers and whose
budget is ``trials``), the pairs, and the calls of the program the analysis made (the program wrapped in a counter,
:class:`Counted`: the record on D, the probes, two replays a neighbour, the further draw sets and their sentinels,
the exact readings, the same-map check's replays, the search's runs).  The case's ratio is the analysis over those
calls, each at the program's own run: ``analysis_seconds / (program_calls × program_seconds)``, what the analysis
costs over the runs it has to make (about 1 at the least; what exceeds it is the replay's own cost -- the sandbox,
the recording generator, a copy of the data -- and the reading, judging and composing around the runs).  Beside it
the time inside the calls over the same (the recording generator's draws are inside them), the old ratio (the whole
analysis a pair over one run of the program a pair: issue 63's 3×, set before the exact reading made several runs a
pair, and missed by every small program since), and the same with one draw set (``draw_sets=1``), the baseline of
the default's further draw sets.  The program's own run is timed bare on the neighbours, cycled for at least 20 ms;
it and the two analyses are alternated (at least three times, more while under 4 s) and the least of each kept: the
machine is shared, and a run's excess over its least is other processes' doing.

**The target** is a regression guard, not a floor.  What the exact audit must do sets the runs (the calls a pair,
stated in the row: every neighbour replayed twice, the same-map check's replays, the exact readings); each costs
at least one run of the program, so no analysis is much below 1×, and how far above 1 it sits depends on how much of a
run is the program's own work (a noisy sum pays the replay's fixed cost -- the sandbox, the recording generator's
draws, the copy of the data -- and the reading around it several times over; a pandas pipeline hardly at all), which
no principle fixes.  So each case's ratio measured at :data:`RECORDED_AT` (:data:`RECORDED`: the highest of three
runs, as the machine is shared) is its record, and the target is :data:`MARGIN` times it (issue 70's margin over a
record): a change that makes the analysis around its runs a quarter slower than the slowest run seen fails it; one
that adds runs shows in the calls a pair.  Issue 63's 3× a pair over one run, fixed before the exact reading, is kept
in the row's words as the whole analysis a pair over one run.

A last line times ``audit_program`` whole on
a program of 10⁴ records and about 100 neighbours (its confirmation included, where a finding triggers one), and
one on a histogram over 10⁵ bins, each carrying data, beside its buggy twins: noise of scale 1.9 and of scale 1 where
the sensitivity is 2 (refuted by composition), and a bin released without noise, which holds a record (a finding the
black box confirms) (issue 72: decided in at most 60 s on 2 cores).
"""

from __future__ import annotations

import functools
import json
import math
import sys
import time

import numpy as np


def noisy_sum(data, rng):
    return np.clip(np.nan_to_num(data), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)


def histogram(data, rng):
    counts = np.bincount(np.clip(np.nan_to_num(data * 20).astype(int), 0, 19), minlength=20).astype(float)
    return counts + rng.laplace(0.0, 2.0, size=20)


#: Bins of the large histogram (issue 72, item 5: a release of 10⁵ coordinates, each carrying data, decided in 60 s).
BINS = 100_000


def large_histogram(data, rng):
    """A histogram over 10⁵ bins plus Laplace noise of scale 2 per bin: sensitivity 2 under replace-one, ε = 1."""
    counts = np.bincount(np.asarray(data, dtype=np.int64) % BINS, minlength=BINS).astype(float)
    return counts + rng.laplace(0, 2.0, size=counts.size)


def large_histogram_scale(scale):
    """The large histogram's buggy twin whose noise has scale ``scale`` < 2: ε = 2 / scale > 1."""

    def buggy(data, rng):
        counts = np.bincount(np.asarray(data, dtype=np.int64) % BINS, minlength=BINS).astype(float)
        return counts + rng.laplace(0, scale, size=counts.size)

    buggy.__qualname__ = f"large_histogram_scale_{scale:g}"
    return buggy


#: The bin the leaky twin releases without noise (its data holds a record there).
LEAKY_BIN = 7


def large_histogram_leaky_bin(data, rng):
    """The large histogram's buggy twin that releases bin :data:`LEAKY_BIN` without noise: no ε holds."""
    counts = np.bincount(np.asarray(data, dtype=np.int64) % BINS, minlength=BINS).astype(float)
    noise = rng.laplace(0, 2.0, size=counts.size)
    noise[LEAKY_BIN] = 0.0
    return counts + noise


def grouped_means(frame, rng):
    """A pandas pipeline: per group, a noisy clipped sum and a noisy count (milliseconds a run)."""
    clipped = frame.assign(value=frame["value"].fillna(0.0).clip(0.0, 1.0))
    groups = clipped.groupby("group")["value"].agg(["sum", "count"]).reindex(list("abcd"), fill_value=0.0)
    noisy = groups.to_numpy(dtype=float) + rng.laplace(0.0, 4.0, size=groups.shape)
    return {"sums": noisy[:, 0], "counts": noisy[:, 1]}


#: The commit whose audit code :data:`RECORDED` measured.
RECORDED_AT = "99f9805"

#: Each case's analysis over its program calls (``over_program_calls``) at :data:`RECORDED_AT`, by (case, relation,
#: search): the highest of three runs of the cases (2026-11-29, the 2 cores shared by other work at a load of 6 to 9;
#: the three differed by up to half the least, the fast programs' add-remove and random search the most), the record
#: its target is :data:`MARGIN` times.
RECORDED = {
    ("noisy sum, 1e4 records", "replace-one", "named"): 6.31,
    ("histogram of 20 bins, 1e4 records", "replace-one", "named"): 4.96,
    ("noisy sum, 1e4 records", "add-remove", "named"): 14.8,
    ("pandas group-by, 1e4 records", "replace-one", "named"): 1.74,
    ("pandas group-by, 1e4 records", "add-remove", "named"): 1.67,
    ("noisy sum, 1e4 records", "replace-one", "random"): 8.24,
    ("pandas group-by, 1e4 records", "replace-one", "random"): 1.8,
    ("pandas group-by, 1e4 records", "add-remove", "optuna"): 1.86,
}

#: The target's margin over a case's record: issue 70's for a record, 1.25.
MARGIN = 1.25


class Counted:
    """The program as the analysis calls it, each call counted and the time inside the calls summed: every run the
    analysis makes (the record on D, the probes, the replays, the further draw sets, the sentinels, the exact
    readings, the search's runs), each one call."""

    def __init__(self, program):
        self.program = program
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, data, rng):
        self.calls += 1
        start = time.perf_counter()
        try:
            return self.program(data, rng)
        finally:
            self.seconds += time.perf_counter() - start

    def timed(self, analysis):
        """``analysis()``'s seconds, the calls it made and the seconds inside them."""
        self.calls, self.seconds = 0, 0.0
        start = time.perf_counter()
        analysis()
        return time.perf_counter() - start, self.calls, self.seconds


def own_run(program, datasets, rng, least=0.02):
    """The program's own run, in seconds: the program called bare on each neighbour in turn, the neighbours cycled
    until ``least`` seconds have passed (a few neighbours of a fast program take under a millisecond, too short for
    one timing on a shared machine)."""
    runs, start = 0, time.perf_counter()
    while True:
        for neighbour in datasets:
            program(neighbour, rng)
        runs += len(datasets)
        elapsed = time.perf_counter() - start
        if elapsed >= least:
            return elapsed / runs


def case(name, program, data, relation, strategy="named", candidates=0):
    """The analysis against the program's own runs on the same neighbours (one run each), alternated at least three
    times: the least of each (the machine is shared; a run's excess over its least is other processes' doing).  With
    a search (``strategy``, ``candidates``), the neighbours are the named ones and those the search proposed."""
    from pdp_audit.audits.program.analysis import analyse
    from pdp_audit.audits.program.search import Budget
    from pdp_audit.verify.core.float_rules import own_float_rules

    rng = np.random.default_rng(0)
    budget = Budget(strategy, candidates)
    counted = Counted(program)
    analysed = functools.partial(analyse, counted, data, relation, (0.0, 1.0), (1.0, 0.0), 0, budget=budget)
    own = float("inf")
    whole = single = (float("inf"), 0, 0.0)  # (seconds, calls, seconds inside the calls), the least disturbed run's
    calls = set()
    with own_float_rules():
        # warm-up (a first run's imports), and the neighbours the program's own runs are timed on
        analysis = analysed()
        datasets = [p.neighbour.data for p in analysis.pairs]  # made before the program's own runs
        began = time.perf_counter()
        for repeat in range(30):  # at least 3 alternations, more while they take under 4 s
            if repeat >= 3 and time.perf_counter() - began > 4.0:
                break
            own = min(own, own_run(program, datasets, rng))
            run = counted.timed(analysed)
            whole = min(whole, run)
            calls.add(run[1])
            single = min(single, counted.timed(lambda: analysed(draw_sets=1)))  # the baseline: one draw set
    timings = (own, whole, single, calls)
    print(json.dumps(_case_line((name, data, relation, budget), len(analysis.pairs), timings)))


def _case_line(case, pairs, timings):
    """A case's JSON line: ``case`` = (name, data, relation, search budget); ``timings`` = (the program's own run; the
    analysis, default and one draw set, each as (seconds, calls, seconds inside the calls); the call counts seen over
    the repeats)."""
    name, data, relation, budget = case
    run, whole, single, calls = timings
    own = run * pairs  # the program's own runs, one a pair
    return {
        "benchmark": "bench_program",
        "case": name,
        "records": len(data),
        "relation": relation,
        "search": budget.strategy,
        "candidates": budget.candidates,
        "pairs": pairs,
        "program_seconds": round(run, 6),
        "analysis_seconds": round(whole[0], 4),
        # everything (neighbours built, record, probe, replays, compositions) a pair over one run of the program
        "per_pair_over_program": round(whole[0] / own, 2),
        # the runs the analysis must make: its calls of the program, the same in every repeat (else their range)
        "program_calls": whole[1],
        "program_calls_range": [min(calls), max(calls)],
        "calls_per_pair": round(whole[1] / pairs, 2),
        # the analysis over the runs it makes, each at the program's own run: the target's ratio
        "over_program_calls": round(whole[0] / (whole[1] * run), 2),
        # the time inside those calls over the same (the recording generator's draws are inside them)
        "inside_calls_over_program_calls": round(whole[2] / (whole[1] * run), 2),
        # one draw set, in the same alternation: what the default's further draw sets cost
        "one_draw_set_per_pair_over_program": round(single[0] / own, 2),
        "one_draw_set_calls_per_pair": round(single[1] / pairs, 2),
        "one_draw_set_over_program_calls": round(single[0] / (single[1] * run), 2),
        "target_over_program_calls": round(MARGIN * RECORDED[(name, relation, budget.strategy)], 2),
        "target_margin": MARGIN,
        "target_recorded_at": RECORDED_AT,
        "target_seconds": 30.0,
    }


def decided(name, program, data, relation, trials, **search):
    """``audit_program`` whole (its confirmation included), once: the issue's 30 s target (``search``: the neighbour
    search's options; default: the audit's own), its wall and CPU seconds."""
    import pdp_audit

    start, cpu = time.perf_counter(), time.process_time()
    bounds = (0.0, 1.0)
    run = pdp_audit.audit_program(program, data, 1.0, 0.0, neighbours=relation, bounds=bounds, trials=trials, **search)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        json.dumps(
            {
                "benchmark": "bench_program",
                "case": name + ", decided",
                "records": len(data),
                "relation": relation,
                "pairs": run.parameters.get("pairs_searched"),
                "search": run.parameters.get("search"),
                "proposed": run.parameters.get("pairs_proposed"),
                "trials": trials,
                "verdict": run.verdict,
                "seconds": round(seconds, 2),
                "cpu_seconds": round(cpu, 2),  # the process's own: on a shared machine, wall time is others' too
                "target_seconds": 30.0,
            }
        )
    )


def decided_large(name, program, data, relation, target):
    """``audit_program`` whole at its default budget, once, at ``--law ideal`` with no declared domain (the
    issue's 60 s for a 10⁵-coordinate release), its wall and CPU seconds; the program's own run on D, the least of
    three, beside it."""
    import pdp_audit

    rng = np.random.default_rng(0)
    own = math.inf
    for _ in range(3):
        start = time.perf_counter()
        program(data, rng)
        own = min(own, time.perf_counter() - start)
    start, cpu = time.perf_counter(), time.process_time()
    run = pdp_audit.audit_program(program, data, 1.0, 0.0, neighbours=relation, law="ideal")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        json.dumps(
            {
                "benchmark": "bench_program",
                "case": name + ", decided",
                "records": len(data),
                "relation": relation,
                "pairs": run.parameters.get("pairs_searched"),
                "search": run.parameters.get("search"),
                "proposed": run.parameters.get("pairs_proposed"),
                "trials": run.parameters.get("trials", 20_000),
                "verdict": run.verdict,
                "seconds": round(seconds, 2),
                "cpu_seconds": round(cpu, 2),  # the process's own: on a shared machine, wall time is others' too
                "program_seconds": round(own, 6),
                "over_program": round(seconds / own, 1),
                "target_seconds": target,
            }
        )
    )


if __name__ == "__main__":
    import pandas as pd

    values = np.random.default_rng(1).uniform(0, 1, 10_000)
    frame = pd.DataFrame({"value": values, "group": np.array(list("abcd"))[np.arange(values.size) % 4]})
    case("noisy sum, 1e4 records", noisy_sum, values, "replace-one")
    case("histogram of 20 bins, 1e4 records", histogram, values, "replace-one")
    case("noisy sum, 1e4 records", noisy_sum, values, "add-remove")
    case("pandas group-by, 1e4 records", grouped_means, frame, "replace-one")
    case("pandas group-by, 1e4 records", grouped_means, frame, "add-remove")
    case("noisy sum, 1e4 records", noisy_sum, values, "replace-one", "random", 100)
    case("pandas group-by, 1e4 records", grouped_means, frame, "replace-one", "random", 100)
    case("pandas group-by, 1e4 records", grouped_means, frame, "add-remove", "optuna", 100)
    if "--quick" not in sys.argv:
        decided("pandas group-by, 1e4 records", grouped_means, frame, "replace-one", 20_000)  # the default search
        decided("pandas group-by, 1e4 records", grouped_means, frame, "replace-one", 20_000, candidates=100)
    counts = np.random.default_rng(2).integers(0, BINS, size=1_000)
    counts[0] = LEAKY_BIN  # a record in the leaky twin's bin (in the correct one's, a record like any other)
    large = "histogram of 1e5 bins at --law ideal, 1e3 records"
    decided_large(large, large_histogram, counts, "replace-one", 60.0)
    for scale in (1.9, 1.0):
        twin = f"{large}, its twin of scale {scale:g} (sensitivity 2)"
        decided_large(twin, large_histogram_scale(scale), counts, "replace-one", 60.0)
    twin = f"{large}, its twin with bin {LEAKY_BIN} bare"
    decided_large(twin, large_histogram_leaky_bin, counts, "replace-one", 60.0)
