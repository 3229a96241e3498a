"""pipeline-dp audited as it ships: PyDP's mechanisms recorded at their Python boundary (its noise is drawn in
compiled code), accounted by their declared budgets, a NaN that passes pipeline-dp's clipping refuted by the black
box on the pair the audit finds.

Skipped where pipeline-dp is not installed (the README's test command installs it not: the guide names its
environment, ``pip install pipeline-dp``).  Fixed seeds; the refutations at α = 1e-6 (p ≤ 1e-60 here)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pipeline_dp", reason="pipeline-dp is not installed (pip install pipeline-dp)")

import pdp_audit  # noqa: E402 - after the skip
from pdp_audit.audits.program.analysis import analyse  # noqa: E402
from pdp_audit.audits.program.recorder import Tape  # noqa: E402
from pdp_audit.audits.program.sources import sources_recorded  # noqa: E402

# the pipelines of the guide's table (benchmarks/library_versions.py audits them at a pinned version): `spending`,
# pipeline-dp's README aggregation, and `spending_finite`, NaN and ±inf mapped into [0, 1] first
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from library_pipelines import spending, spending_finite  # noqa: E402

SPENDING = pd.DataFrame({"day": ["mon", "tue", "wed", "mon", "tue", "mon"], "spent": [0.2, 0.5, 0.9, 0.4, 0.1, 0.7]})
BOUNDS = {"day": {"mon", "tue", "wed"}, "spent": (0.0, 1.0)}


def libraries_wrapped(tape: Tape):
    """The session's adapters installed, recording (or replaying) into ``tape`` (no run under way)."""
    return sources_recorded(lambda: tape, np.random.default_rng)


def test_pipeline_dps_noise_is_recorded_with_its_declared_budget():
    tape = Tape()
    with libraries_wrapped(tape):
        release = spending(SPENDING, np.random.default_rng(0))
    calls = tape.recorded
    assert [c.name for c in calls] == ["pydp.LaplaceMechanism.add_noise"] * 6
    assert all(c.declared == {"epsilon": 0.5, "delta": 0.0, "sensitivity": 1.0} for c in calls)
    # each output is the value given plus the recorded noise, and the release shows it
    assert [c.input + float(c.noise) for c in calls] == [c.output for c in calls]
    assert sorted(release) == sorted(c.output for c in calls)
    replayed = Tape(calls)
    with libraries_wrapped(replayed):
        again = spending(SPENDING, np.random.default_rng(1))
    assert again == release  # the recorded draws, bit for bit, though PyDP's sampler is unseeded


def test_the_nan_that_passes_the_clipping_is_refuted_on_the_pair_the_audit_finds():
    run = pdp_audit.audit_program(
        spending, SPENDING, 1.0, 0.0, bounds=BOUNDS, neighbours="add-remove", seed=0, trials=2000
    )
    checks = {c.id: c for c in run.checks}
    assert checks["program-record"].verdict == "pass"  # every draw recorded: PyDP's, at its Python boundary
    confirm = checks["program-confirm"]
    assert run.verdict == "fail" and confirm.verdict == "fail" and confirm.adjusted_pvalue <= 1e-6
    assert confirm.details["witness"] == "add a record of NaN"


def test_the_pipeline_with_nan_mapped_first_is_not_refuted():
    run = pdp_audit.audit_program(
        spending_finite, SPENDING, 1.0, 0.0, bounds=BOUNDS, neighbours="add-remove", seed=0, law="ideal", trials=2000
    )
    checks = {c.id: c for c in run.checks}
    assert checks["program-record"].verdict == "pass"
    assert run.verdict != "fail" and checks["program-composition"].verdict != "fail"


def test_a_value_moved_beyond_the_declared_sensitivity_is_unaccounted():
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    def doubled(data, rng):
        """Bug: a sum of values in [0, 2] with noise declared for sensitivity 1."""
        total = float(np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 2.0).sum())
        return LaplaceMechanism(epsilon=1.0, sensitivity=1.0).add_noise(total)

    analysis = analyse(doubled, np.array([0.5, 1.0, 1.5]), "add-remove", (0.0, 2.0), (1.0, 0.0), 0, draw_sets=2)
    whys = [f.why for p in analysis.pairs for f in p.unaccounted]
    assert any("> its declared sensitivity 1" in why for why in whys)
    assert not any(p.refuted for p in analysis.pairs)  # a declared budget is no law: the black box decides


def test_a_partition_selection_is_recorded_with_its_declared_budget():
    from pydp.algorithms import partition_selection

    def kept(data, rng):
        strategy = partition_selection.create_truncated_geometric_partition_strategy(1.0, 1e-5, 1)
        return bool(strategy.should_keep(int(np.sum(np.asarray(data) > 0))))

    tape = Tape()
    with libraries_wrapped(tape):
        kept(np.array([1.0, 2.0]), np.random.default_rng(0))
    (call,) = tape.recorded
    assert call.name == "pydp.TruncatedGeometricPartitionSelectionStrategy.should_keep"
    assert call.declared == {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0}
    assert call.input == 2 and call.law is None
