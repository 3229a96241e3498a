"""The noise law of an OpenDP measurement read off its constructor (``make_laplace``, ``make_geometric``,
``make_gaussian`` and their ``then_*`` forms), and the exact lower steps it gives the program audit's composition.

Exact checks (no chance): what the recorder reads, and whether the composition of a broken and a correct program
refutes.  Skipped where OpenDP is not installed (the README's test command installs ``.[test]`` only).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdp_audit.audits.program import accounting, analysis, step_laws
from pdp_audit.audits.program.recorder import Tape
from pdp_audit.audits.program.sources import sources_recorded

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")


def libraries_wrapped(tape: Tape):
    """The session's adapters installed, recording (or replaying) into ``tape`` (no run under way)."""
    return sources_recorded(lambda: tape, np.random.default_rng)


FLOATS = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float))
FLOAT = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
#: 8 values in [0, 1]: their sum moves by at most 1 when one is replaced within [0, 1].
VALUES = np.linspace(0.0, 1.0, 8)


def _recorded(program) -> list:
    tape = Tape()
    with libraries_wrapped(tape):
        program()
    return tape.recorded


def test_the_constructors_laws_are_read_and_the_constructors_restored():
    from opendp import measurements

    original = measurements.make_laplace
    made_outside = dp.m.make_laplace(*FLOAT, scale=2.0)

    def program():
        dp.m.make_laplace(*FLOATS, scale=0.5)([1.0, 2.0])
        (FLOAT >> dp.m.then_laplace(scale=3.0))(1.0)
        dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)(4)
        dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float), scale=1.5)(
            [1.0, 2.0]
        )
        dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False), size=2), FLOATS[1], scale=1.0, k=-10)(
            [1.0, 2.0]
        )  # a coarser grid than the smallest: its input is rounded onto it -- not read
        dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)(3)  # an integer Gaussian
        made_outside(1.0)  # made before the block: accounted by its privacy map only

    calls = _recorded(program)
    laws = [c.noise_law for c in calls]
    read = [(law["law"], law["scale"], law["constructor"]) if law else None for law in laws]
    assert read == [
        ("laplace", 0.5, "make_laplace"),
        ("laplace", 3.0, "make_laplace"),
        ("laplace", 2.0, "make_geometric"),
        ("gaussian", 1.5, "make_gaussian"),
        None,
        None,
        None,
    ]
    assert laws[0]["grid"] == 2.0**-1074 and laws[2]["grid"] == 1.0
    assert calls[0].parameters["scale"] == 0.5  # a scale that moves with the data diverges on replay
    assert measurements.make_laplace is original


def _laplace_sum(upper: float, scale: float):
    """A sum of values clipped to [0, ``upper``] released by ``make_laplace`` of ``scale``: ε-DP under replace-one
    on [0, 1]-bounded records where scale ≥ upper/ε (its map is read at distance 1 by the broken one)."""

    def program(data, rng):
        measurement = dp.m.make_laplace(*FLOATS, scale=scale)
        return np.asarray(measurement([float(np.clip(np.nan_to_num(data), 0.0, upper).sum())]))

    return program


def _worst_lower(program, data, claim: tuple[float, float]) -> float:
    found = analysis.analyse(program, data, "replace-one", (0.0, 1.0), claim, seed=0, draw_sets=1)
    return max(p.lower.low if p.lower is not None else 0.0 for p in found.pairs)


def test_a_broken_laplace_measurement_is_refuted_by_its_law_and_a_correct_one_is_not():
    """Broken: the sum clipped to [0, 2] where the noise (scale 1 at ε = 1) is calibrated for records in [0, 1]: a
    record replaced by an outlier moves the sum by up to 2, a pure ε of 2 and δ(ε = 1) = 1 − e^{−1/2} (Dwork & Roth
    2014, §3.3) -- refuted by the law read off ``make_laplace``, where its privacy map alone (an upper bound) could
    not.  Correct: clipped to [0, 1], not refuted."""
    broken = _worst_lower(_laplace_sum(2.0, 1.0), VALUES, (1.0, 0.0))
    assert broken >= 1 - math.exp(-0.5) - 2 * accounting.EPSILON_ERROR, broken
    assert _worst_lower(_laplace_sum(1.0, 1.0), VALUES, (1.0, 0.0)) == 0.0


def test_a_broken_gaussian_measurement_is_refuted_and_a_correct_one_is_not():
    """``make_gaussian`` (zCDP: its map gives no (ε, δ) upper step) over a sum of values in [0, 1]: σ = 0.5 at
    (ε, δ) = (1, 1e-5) leaks δ(1) ≈ 0.13 > 1e-5 (Balle & Wang 2018, Thm 8, μ = 2); σ = 5 (μ = 0.2) leaks less than
    1e-5.  The broken one is refuted, the correct one is not."""

    def gaussian_sum(sigma):
        def program(data, rng):
            space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
            return dp.m.make_gaussian(*space, scale=sigma)(float(np.clip(np.nan_to_num(data), 0.0, 1.0).sum()))

        return program

    claim = (1.0, 1e-5)
    assert _worst_lower(gaussian_sum(0.5), VALUES, claim) == pytest.approx(accounting.gaussian_delta(2.0, 1.0))
    assert _worst_lower(gaussian_sum(5.0), VALUES, claim) <= claim[1]


@pytest.mark.parametrize("t", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("s", [1, 2])
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0])
def test_the_laplace_step_bounds_the_discrete_laplace_law_from_below(t, s, epsilon):
    """The step of a geometric (integer) measurement of scale t at the shift s is the continuous Laplace's at
    μ = s/t: at or below the discrete Laplace law's own δ(ε) (summed exactly over its support), as the post-processing
    argument of :func:`pdp_audit.audits.program.adapters.opendp_steps.law_step` says; and strictly below where
    0 < ε < μ.  At ε = 0 (total variation) and an even shift the two are equal: 1 − e^(−s/(2t)) both (the sum over
    j ≤ 0 of the discrete law's p_j − q_j); the grid's lower bound lay below it by its slack, the closed form does
    not."""
    j = np.arange(-400, 401)
    p = np.exp(-np.abs(j) / t)
    p /= p.sum()
    q = np.exp(-np.abs(j - s) / t)
    q /= q.sum()
    exact = float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())
    step = accounting.composed_delta([step_laws.Laplace(call=0, label="step", mu=s / t)], epsilon)
    assert step.low <= exact + 1e-12
    if 0 < epsilon < s / t:
        assert step.low < exact


def test_a_gaussian_steps_slack_lowers_the_lower_bound_only():
    plain = accounting.composed_delta([step_laws.Gaussian(call=0, label="a", mu=2.0)], 1.0)
    slack = accounting.composed_delta([step_laws.Gaussian(call=0, label="a", mu=2.0, slack=0.01)], 1.0)
    assert slack.low == pytest.approx(plain.low - 0.01) and slack.high == plain.high


def test_the_privacy_map_remains_the_upper_step():
    """The correct Laplace program is certified by its map (pure ε = 1 ≤ ε), as before the law was read."""
    found = analysis.analyse(_laplace_sum(1.0, 1.0), VALUES, "replace-one", (0.0, 1.0), (1.0, 0.0), 0, 1)
    worst = max(found.pairs, key=lambda p: p.upper.pure if p.upper is not None else 0.0)
    assert worst.upper is not None and worst.upper.pure == pytest.approx(1.0) and worst.upper.high == 0.0
    assert all(s.law == "declared" for s in worst.steps) and worst.carried and worst.carried[0].law == "laplace"


def test_a_replayed_coordinate_whose_argument_did_not_move_is_the_recorded_output_itself():
    """OpenDP draws its own noise (unseeded): a replay returns the recorded output where the argument did not move,
    not argument + noise, which rounds to another double for some draws -- the release then showed a shift of an ulp
    on that coordinate, and the lower composition a step more on some runs than on others."""
    measurement = dp.m.make_laplace(*FLOATS, scale=1.0)
    on_d, on_d_prime = [0.1, 0.7], [0.3, 0.7]
    # fresh noise each time (OpenDP's output lies on its grid: argument + noise differs from it on about half the
    # draws, so the old replay passed 40 of them with probability below 1e-6): the second coordinate comes back as
    # recorded, bit for bit
    for _ in range(40):
        tape = Tape()
        with libraries_wrapped(tape):
            recorded = measurement(on_d)
        replay = Tape(tape.recorded)
        with libraries_wrapped(replay):
            replayed = measurement(on_d_prime)
        assert replayed[1] == recorded[1] and replayed[0] == pytest.approx(recorded[0] + 0.2, abs=1e-9)


def test_the_record_says_a_run_of_opendp_is_not_reproducible_run_to_run():
    """OpenDP's samplers draw from the operating system's generator, which no seed reaches: two runs at one seed
    record other draws, so the record says its witness and numbers are that run's; a program of numpy's noise alone
    does not say so."""
    from pdp_audit.audits.program.decision import decide

    found = analysis.analyse(_laplace_sum(1.0, 1.0), VALUES, "replace-one", (0.0, 1.0), (1.0, 0.0), seed=0, draw_sets=1)
    (record,) = [c for c in decide(found, (1.0, 0.0), "ideal", []) if c.id == "program-record"]
    assert "Not reproducible run to run: OpenDP draws from a source no seed reaches" in record.note, record.note

    def numpy_sum(data, rng):
        return float(np.clip(np.nan_to_num(data), 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)

    plain = analysis.analyse(numpy_sum, VALUES, "replace-one", (0.0, 1.0), (1.0, 0.0), seed=0, draw_sets=1)
    assert not any("Not reproducible" in c.note for c in decide(plain, (1.0, 0.0), "ideal", []))
