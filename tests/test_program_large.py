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

import pdp_audit

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
