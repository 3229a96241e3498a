"""The block engine's fast paths give the numbers of the forms they replace, bit for bit (issue 44): the rounding at
the loss resolution without its ``|L| < 2^20`` test, the scalar Gaussian loss without einsum, the one-pass check
of a block's losses, and blocks gathered into one array instead of concatenated."""

from __future__ import annotations

import os
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from pdp_audit.mechanisms.base import LOSS_RESOLUTION, MalformedPair, at_loss_resolution, checked_losses
from pdp_audit.mechanisms.gaussian import SIGMA_RANGE, GaussianPair
from pdp_audit.verify.estimators.engine import gathered
from pdp_audit.verify.inputs.validation import InputError

EDGES = [np.inf, -np.inf, np.nan, -0.0, 0.0, 5e-324, 2.0**20, -(2.0**20), 2.0**20 - 2.0**-33, 1e308, -1e300, 2.0**-33]


def general_rounding(losses: np.ndarray, resolution: float) -> np.ndarray:
    """The rounding as it was written before the fast path (base.at_loss_resolution's general form)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.abs(losses) < 2.0**20, np.rint(losses / resolution) * resolution, losses)


def bits(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("resolution", [LOSS_RESOLUTION, 2.0**-40, 2.0**-10, 1e-3])
def test_rounding_is_the_general_form_bit_for_bit(resolution):
    rng = np.random.default_rng(44)
    for scale in 10.0 ** np.arange(-12, 9, 2.0):
        losses = rng.standard_normal(4000) * scale
        with np.errstate(over="ignore"):
            huge = losses * 1e300
        for block in (losses, np.concatenate([losses, EDGES, huge])):
            with np.errstate(over="ignore"):
                fast = at_loss_resolution(block, resolution)
            assert np.array_equal(bits(fast), bits(general_rounding(block, resolution)))


def test_the_check_above_is_not_blind():
    """A rounding half an ulp of the grid off is told apart (the comparison is of bits, not of values)."""
    losses = np.random.default_rng(1).standard_normal(1000)
    assert not np.array_equal(bits(general_rounding(losses, 2.0**-32)), bits(general_rounding(losses, 2.0**-31)))
    assert not np.array_equal(bits(np.array([0.0])), bits(np.array([-0.0])))


def einsum_loss(pair: GaussianPair, outputs: np.ndarray) -> np.ndarray:
    """GaussianPair.privacy_loss's general (vector) form, applied to 1-d releases."""
    offset = outputs - pair._centres["D"]
    quad_d = np.einsum("ij,ij->i", offset, offset)
    np.subtract(outputs, pair._centres["D'"], out=offset)
    loss = np.einsum("ij,ij->i", offset, offset)
    loss -= quad_d
    loss *= 1 / (2 * pair.sigma**2)
    return loss


def exact_loss(pair: GaussianPair, o: float) -> mp.mpf:
    """(‖o − q_D'‖² − ‖o − q_D‖²)/(2σ²) of a 1-d release, from the float64 inputs, at 60 digits."""
    o, c, c_prime, sigma = (mp.mpf(float(x)) for x in (o, pair.q_d[0], pair.q_dprime[0], pair.sigma))
    return ((o - c_prime) ** 2 - (o - c) ** 2) / (2 * sigma**2)


def largest_errors(pair: GaussianPair, outputs: np.ndarray) -> tuple[float, float]:
    """The largest error of ``pair.privacy_loss`` relative to |L| and relative to its terms' size
    (‖o − q_D‖² + ‖o − q_D'‖²)/(2σ²), in units of 2^-53."""
    losses = pair.privacy_loss(outputs)
    of_loss = of_terms = 0.0
    with mp.workdps(60):
        for o, loss in zip(outputs[:, 0], losses):
            exact = exact_loss(pair, o)
            error = abs(mp.mpf(float(loss)) - exact)
            terms = ((o - pair.q_d[0]) ** 2 + (o - pair.q_dprime[0]) ** 2) / (2 * pair.sigma**2)
            of_loss = max(of_loss, float(error / abs(exact) / mp.mpf(2) ** -53) if exact else float(error != 0) * 1e300)
            of_terms = max(of_terms, float(error / mp.mpf(float(terms)) / mp.mpf(2) ** -53))
    return of_loss, of_terms


def factored_and_general_pairs(rng: np.random.Generator) -> tuple[list[GaussianPair], list[GaussianPair]]:
    """1-d pairs whose midpoint is a float64 (counts, halves, integers far out, a third against 0) and pairs of
    random means (whose midpoint is mostly not)."""
    exact = [GaussianPair([100.0], [101.0], 3.7), GaussianPair([1 / 3], [0.0], 0.8), GaussianPair([0.0], [1.0], 1.0)]
    exact += [GaussianPair([1e15], [1e15 + 1], 0.5), GaussianPair([-2.5], [7.25], 1e-3)]
    exact += [GaussianPair([0.0], [1e-9], 1e-3)]
    general = []
    for _ in range(30):
        scale = 10.0 ** rng.uniform(-3, 6)
        pair = GaussianPair([rng.normal() * scale], [rng.normal() * scale], 10.0 ** rng.uniform(-3, 3))
        (exact if pair._factored is not None else general).append(pair)
    return exact, general


def releases(pair: GaussianPair, rng: np.random.Generator) -> np.ndarray:
    """Releases of both worlds, and a few far out in both tails (up to 40σ past either mean)."""
    far = np.array([pair.q_d[0], pair.q_dprime[0]])[:, None] + pair.sigma * np.array([-40.0, -9.0, 9.0, 40.0])
    return np.concatenate([pair.sample("D", 150, rng), pair.sample("D'", 150, rng), far.reshape(-1, 1)])


def test_scalar_gaussian_loss_is_exact_against_mpmath():
    """1-d losses against mpmath at 60 digits.  The factored form k·(m − o) (a midpoint that is a float64) is
    within 6·2^-53 of |L| (its bound: 5·2^-53 + O(2^-106), gaussian.factored_loss); the difference of squares
    (other means) within 8·2^-53 of its terms (three roundings of each square, one of the difference, two of
    1/(2σ²), one of the product), and bit for bit einsum's form of a vector's loss.  A midpoint one ulp off is
    told apart."""
    rng = np.random.default_rng(7)
    exact, general = factored_and_general_pairs(rng)
    assert len(exact) >= 6 and len(general) >= 20
    for pair in exact:
        of_loss, of_terms = largest_errors(pair, releases(pair, rng))
        assert of_loss <= 6 and of_terms <= 6, (pair.q_d, pair.q_dprime, pair.sigma, of_loss)
    for pair in general:
        outputs = releases(pair, rng)
        assert largest_errors(pair, outputs)[1] <= 8, (pair.q_d, pair.q_dprime, pair.sigma)
        assert np.array_equal(bits(pair.privacy_loss(outputs)), bits(einsum_loss(pair, outputs)))
    broken = GaussianPair([100.0], [101.0], 3.7)
    midpoint, factor = broken._factored
    broken._factored = (np.nextafter(midpoint, np.inf), factor)
    assert largest_errors(broken, releases(broken, rng))[0] > 6


def test_the_factored_form_applies_where_its_midpoint_is_exact():
    """m = (q_D + q_D')/2 must be a float64 exactly and k = (q_D' − q_D)/σ² a finite nonzero normal number."""
    from pdp_audit.mechanisms.gaussian import factored_loss

    assert factored_loss(100.0, 101.0, 3.7) == (100.5, 1 / 3.7**2)
    assert factored_loss(0.1, 0.2, 1.0) is None  # 0.1 + 0.2 is not 0.30000000000000004
    assert factored_loss(1e308, 1e308, 1.0) is None  # the sum overflows
    assert factored_loss(5e-324, 0.0, 1.0) is None  # half the least subnormal is not a float64
    assert factored_loss(1.0, 1.0, 1.0) is None  # k = 0: the difference of squares keeps +0
    assert factored_loss(0.0, 1e300, 1e-10) is None  # k overflows
    assert GaussianPair(np.zeros(3), np.ones(3), 1.0)._factored is None


@pytest.mark.parametrize(("world", "bad"), [("D", -np.inf), ("D'", np.inf), ("D", np.nan), ("D'", np.nan)])
def test_one_pass_loss_check_still_refuses(world, bad):
    with pytest.raises(MalformedPair, match="NaN" if np.isnan(bad) else "cannot be impossible"):
        checked_losses(world, 3, np.array([0.0, bad, 1.0]))


def test_possible_infinities_and_empty_blocks_pass():
    assert checked_losses("D", 2, np.array([np.inf, 1.0]))[0] == np.inf
    assert checked_losses("D'", 2, np.array([-np.inf, 1.0]))[0] == -np.inf
    assert checked_losses("D", 0, np.array([])).size == 0


@pytest.mark.parametrize(
    "blocks",
    [
        [np.arange(3.0), np.arange(2.0)],
        [np.ones((3, 2)), np.ones((2, 2))],
        [np.arange(3), np.arange(2.0)],  # another type: concatenated, as before
        [np.arange(3, dtype=np.float32), np.arange(2.0)],
        [np.arange(3.0), np.arange(3.0)],  # another length than planned
        [[1.0, 2.0, 3.0], [4.0, 5.0]],
    ],
)
def test_gathered_is_concatenate(blocks):
    expected = np.concatenate(blocks)
    got = gathered(iter(blocks), [3, 2])
    assert got.dtype == expected.dtype and got.shape == expected.shape and np.array_equal(got, expected)


class Edgy:
    """A pair of the user's kind (no ``writes_losses_into``) whose losses reach the general rounding: huge losses and
    infinite ones (+∞: possible for releases drawn on D), so the fast path's sum is not finite."""

    output_dim = 1

    def sample(self, world, size, rng):
        return rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        losses = outputs[:, 0] * 1e300
        losses[::7] = np.inf
        return losses


class NanAtThree(Edgy):
    """A broken pair: a NaN loss in every block."""

    def privacy_loss(self, outputs):
        losses = outputs[:, 0].copy()
        losses[3] = np.nan
        return losses


def test_losses_written_into_the_result_are_those_gathered_bit_for_bit():
    """run_blocks writes each block of a PrivacyLossSampler straight into the result (a pair of ours through one
    reused scratch array): the numbers of the blocks returned and concatenated, for the scalar and vector Gaussian
    losses, a pair without the scratch, and the rounding's general form."""
    from pdp_audit.verify.estimators.engine import PrivacyLossSampler, block_rng, block_sizes, run_blocks

    scalar = GaussianPair(np.array([100.0]), np.array([101.0]), 3.7)
    vector = GaussianPair(np.zeros(3), np.eye(3)[0], 0.9)
    for pair, world in ((scalar, "D"), (scalar, "D'"), (vector, "D"), (vector, "D'"), (Edgy(), "D")):
        sampler = PrivacyLossSampler(pair, world)
        n = 2 * 65536 + 11
        with np.errstate(over="ignore"):
            blocks = [sampler(size, block_rng(5, "s", b)) for b, size in enumerate(block_sizes(n))]
            written = run_blocks(sampler, n, 5, "s")
        assert np.array_equal(bits(written), bits(np.concatenate(blocks))), (type(pair).__name__, world)


def test_vector_losses_drawn_a_chunk_at_a_time_are_the_general_ones_bit_for_bit():
    """GaussianPair.rounded_losses_into of vector releases (chunks of rows kept in cache) against sample, privacy_loss
    and the rounding's general form, over dimensions whose chunks are 1 row to thousands and end inside a block, with
    means and σ from tiny to overflowing (the chunk's sum then sends the block the general way)."""
    from pdp_audit.verify.estimators.engine import PrivacyLossSampler, block_rng

    rng = np.random.default_rng(3)
    pairs = [GaussianPair(np.zeros(d), np.eye(d)[0], 0.9) for d in (2, 3, 10, 31, 100)]
    pairs += [GaussianPair(rng.standard_normal(7) * 1e3, rng.standard_normal(7), 1e-3)]
    pairs += [GaussianPair(np.zeros(40_000), np.ones(40_000), 2.0)]  # a row longer than a chunk
    pairs += [GaussianPair(np.full(4, 1e150), np.full(4, -1e150), 1e152)]  # squares overflow: the general way
    for pair in pairs:
        for world in ("D", "D'"):
            sampler = PrivacyLossSampler(pair, world)
            size = 5 if pair.output_dim > 1000 else 9_999
            out, scratch = np.empty(size), np.empty(size)
            with np.errstate(over="ignore", invalid="ignore"):
                written = sampler.into(size, block_rng(2, "v", 1), out, scratch)
                general = sampler(size, block_rng(2, "v", 1))
            assert np.array_equal(bits(written), bits(general)), (pair.output_dim, world)


def test_einsum_row_sums_do_not_depend_on_the_rows_given():
    """What GaussianPair._vector_chunk relies on: einsum's ``ij,ij->i`` of a chunk of rows is that of the whole."""
    rng = np.random.default_rng(5)
    for d in (2, 3, 7, 10, 16, 33, 100):
        x = rng.standard_normal((20_000, d)) * 10 ** rng.uniform(-5, 5, size=d)
        whole = np.einsum("ij,ij->i", x, x)
        for rows in (1, 7, 3276, 8192, 8193):
            parts = [np.einsum("ij,ij->i", x[s : s + rows], x[s : s + rows]) for s in range(0, len(x), rows)]
            assert np.array_equal(bits(np.concatenate(parts)), bits(whole)), (d, rows)


def test_a_malformed_block_is_still_refused_when_written_into_the_result():
    from pdp_audit.verify.estimators.engine import PrivacyLossSampler, run_blocks

    with pytest.raises(MalformedPair, match="NaN for 1 of"):
        run_blocks(PrivacyLossSampler(NanAtThree(), "D"), 1000, 0, "s")


def test_losses_handed_back_through_shared_slots_are_the_serial_ones(monkeypatch):
    """A local pool's workers round jobs of blocks into memory shared at the fork (SharedSlots) rather than pickling
    them back: the numbers are the serial ones bit for bit, however the blocks are grouped into jobs, a failed pass
    leaves no job that would write into a slot the next pass reads, and the slots go with the pool."""
    from pdp_audit.verify.core.processes import executor_for
    from pdp_audit.verify.estimators import engine

    scalar = GaussianPair(np.array([100.0]), np.array([101.0]), 3.7)
    vector = GaussianPair(np.zeros(3), np.eye(3)[0], 0.9)
    n = 9 * 65536 + 11  # more jobs than slots: every slot is written again
    cases = [(scalar, "D"), (vector, "D'"), (Edgy(), "D")]
    with np.errstate(over="ignore"):
        serial = [engine.run_blocks(engine.PrivacyLossSampler(p, w), n, 5, "s") for p, w in cases]
    with executor_for(2) as pool:
        if pool is None:
            pytest.skip("one core: no pool")
        slots = engine._SLOTS
        assert slots is not None and slots.pool is pool and slots.count < len(engine.jobs_of(10, slots))
        with pytest.raises(MalformedPair, match="NaN"):
            engine.run_blocks(engine.PrivacyLossSampler(NanAtThree(), "D"), n, 5, "s", pool)
        for per_job in (1, 2, 3):  # jobs of one block, and of several with a shorter last one
            monkeypatch.setattr(
                engine,
                "jobs_of",
                lambda blocks, _: [range(b, min(b + per_job, blocks)) for b in range(0, blocks, per_job)],
            )
            with np.errstate(over="ignore"):
                for (pair, world), expected in zip(cases, serial):
                    pooled = engine.run_blocks(engine.PrivacyLossSampler(pair, world), n, 5, "s", pool)
                    assert np.array_equal(bits(pooled), bits(expected)), (type(pair).__name__, world, per_job)
    assert engine._SLOTS is None


def test_jobs_cover_the_blocks_in_order_fit_a_slot_and_shrink_to_one_block():
    """Jobs are consecutive blocks, at most a slot's, never more than 1/(2 * count) of the blocks still to give out
    (so the pass ends on jobs of one block: no worker waits long for another's last job), and fewer than the blocks
    in a long pass (each job costs pickling, pipes and wake-ups)."""
    from pdp_audit.verify.estimators import engine

    slots = engine.SharedSlots(4, 32)
    for blocks in (0, 1, 31, 32, 33, 255, 611, 10_000):
        jobs = engine.jobs_of(blocks, slots)
        assert [b for job in jobs for b in job] == list(range(blocks))
        assert all(1 <= len(job) <= slots.blocks for job in jobs)
        assert all(len(job) <= max(1, (blocks - job.start) // (2 * slots.count)) for job in jobs)
        assert blocks == 0 or len(jobs[-1]) == 1
    assert len(engine.jobs_of(611, slots)) < 611 // 8 < len(engine.jobs_of(611, engine.SharedSlots(4, 8)))
    slots.memory.close()


def test_a_worker_not_forked_with_the_slots_returns_its_blocks():
    """A worker that did not inherit the pool's slots (spawned, not forked) sends its job's blocks back as before."""
    from pdp_audit.verify.estimators import engine

    sampler = engine.PrivacyLossSampler(GaussianPair(np.array([0.0]), np.array([1.0]), 2.0), "D")
    returned = engine._slot_job((sampler, 3, "s", 4, [1000, 7], "not these slots", 0, None))
    expected = [sampler(size, engine.block_rng(3, "s", 4 + k)) for k, size in enumerate((1000, 7))]
    assert np.array_equal(bits(returned), bits(np.concatenate(expected)))


def test_a_subclass_overriding_the_loss_is_called_without_out():
    """A user's pair deriving from GaussianPair with its own ``privacy_loss(outputs)`` inherits
    ``writes_losses_into`` but not the keyword: the engine calls it plainly (it raised TypeError), and the losses are
    its own (here shifted by 0.05)."""
    from pdp_audit.verify.estimators.engine import sample_privacy_loss, writes_losses_into

    class Shifted(GaussianPair):
        def privacy_loss(self, outputs):
            return super().privacy_loss(outputs) + 0.05

    ours, theirs = (cls(np.zeros(2), np.array([0.5, 0.0]), 1.0) for cls in (GaussianPair, Shifted))
    assert writes_losses_into(ours) and not writes_losses_into(theirs)
    plain = sample_privacy_loss(ours, "D", 5000, seed=3)
    shifted = sample_privacy_loss(theirs, "D", 5000, seed=3)
    assert np.allclose(shifted - plain, 0.05, atol=1e-9)


class SampledPlainly(GaussianPair):
    """A GaussianPair whose releases come from its own ``sample``: the engine takes the general way with it."""

    def sample(self, world, size, rng):
        return super().sample(world, size, rng)


def _losses_and_warnings(pair, world: str, n: int, seed: int):
    """The pass's losses as bits, or the error it raised, and the warnings it gave, in order."""
    import warnings

    from pdp_audit.verify.estimators.engine import sample_privacy_loss

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = bits(sample_privacy_loss(pair, world, n, seed)).tobytes()
        except Exception as error:  # noqa: BLE001 - the same error either way is what is checked
            result = repr(error)
    return result, [str(w.message) for w in caught]


def test_losses_drawn_and_rounded_in_one_go_are_the_general_ones_bit_for_bit():
    """A 1-d GaussianPair draws its releases and rounds their losses a cache-sized chunk at a time
    (``rounded_losses_into``): the numbers of ``sample``, ``privacy_loss`` and ``at_loss_resolution`` bit for bit,
    and where they overflow (σ or the means near the float64 range: NaN, infinite or unscalable losses) the same
    error or numbers and the same warnings, the generator rewound and the block drawn the general way."""
    from pdp_audit.verify.estimators.engine import draws_rounded_losses

    rng = np.random.default_rng(44)
    cases = [((100.0, 101.0), 3.7), ((0.0, 1.0), 4e153), ((1e150, -1e150), 1e150), ((1e300, 0.0), 1e160)]
    cases += [((0.0, 1.0), 1e155), ((2e255, -1e254), 5e-286), ((1.0, 2.0), 1e-170), ((0.0, 1e308), 1.0)]
    cases += [((0.0, 1e-9), 1e-3)]  # 4e153: NaN for the releases past 3.3σ only, as many either way
    cases += [((1.7e308, 0.0), 1e10)]  # factored (m a float64): k·(m − o)/R overflows
    for _ in range(40):
        cases.append((tuple(rng.normal(size=2) * 10.0 ** rng.uniform(-4, 8)), 10.0 ** rng.uniform(-6, 6)))
    for i, ((q_d, q_dprime), sigma) in enumerate(cases):
        if not SIGMA_RANGE[0] <= sigma <= SIGMA_RANGE[1]:  # 1/(2σ²) not a finite nonzero float: refused up front
            for cls in (GaussianPair, SampledPlainly):
                with pytest.raises(InputError, match="sigma must be between"):
                    cls(np.array([q_d]), np.array([q_dprime]), sigma)
            continue
        ours, plain = (cls(np.array([q_d]), np.array([q_dprime]), sigma) for cls in (GaussianPair, SampledPlainly))
        assert draws_rounded_losses(ours) and not draws_rounded_losses(plain)
        for world in ("D", "D'"):
            n = (1, 65536 + 40_000, 3)[i % 3] if i < 9 else int(rng.integers(1, 100_000))
            fused, general = (_losses_and_warnings(p, world, n, seed=i) for p in (ours, plain))
            assert fused == general, (q_d, q_dprime, sigma, world, n)


def test_a_coarser_grid_takes_the_general_way():
    """``rounded_losses_into`` hands back the releases it drew (those of ``sample``) for a resolution that is not a
    power of two, a scalar's or a vector's (which it draws in one go at a power of two); a pair whose instance
    overrides ``sample`` is not drawn in one go."""
    from pdp_audit.verify.estimators.engine import draws_rounded_losses

    vector = GaussianPair(np.zeros(3), np.eye(3)[0], 0.9)
    scalar = GaussianPair(np.array([0.0]), np.array([1.0]), 0.9)
    out, scratch = np.empty(100), np.empty(100)
    assert vector.rounded_losses_into("D", 100, np.random.default_rng(1), out, scratch, LOSS_RESOLUTION) is None
    for pair in (vector, scalar):
        drawn = pair.rounded_losses_into("D", 100, np.random.default_rng(1), out, scratch, 1e-3)
        assert drawn is not None and np.array_equal(drawn, pair.sample("D", 100, np.random.default_rng(1)))
    scalar.sample = lambda world, size, rng: GaussianPair.sample(scalar, world, size, rng)
    assert not draws_rounded_losses(scalar)


class DiesInAWorker(GaussianPair):
    """A pair whose releases end the process that draws them where it is not the one that made the pair."""

    def __init__(self):
        super().__init__(np.array([0.0]), np.array([1.0]), 1.0)
        self.parent = os.getpid()

    def sample(self, world, size, rng):
        if os.getpid() != self.parent:
            os._exit(3)
        return super().sample(world, size, rng)


#: Shared memory other programs name in /dev/shm while they run: joblib's and loky's (other tests of the suite;
#: loky's semaphores are ``sem.loky-…``), and multiprocessing's named semaphores (``sem.mp-…``), which a pool started
#: by spawn or forkserver keeps while it runs -- Dask's workers in other tests, or any other program on the machine.
#: Ours cannot hide among them: a pool started by fork unlinks each semaphore as it makes it, and a pool that kept a
#: named one would map it while its pass runs, which :func:`shm_mapped` sees (the test asserts that no process of
#: the pool maps a file of /dev/shm).
OTHERS_SHM = ("joblib_memmapping_folder_", "loky-", "sem.loky-", "sem.mp-")


def shm_entries() -> set[str]:
    """The entries of /dev/shm that could be this process's: its user's, less the names of :data:`OTHERS_SHM` (a
    file of another owner is another program's).  Seen failing before: a ``sem.mp-*`` file another program made
    while the test ran was counted as a segment the pool left behind."""
    return {entry.name for entry in os.scandir("/dev/shm") if not entry.name.startswith(OTHERS_SHM) and _ours(entry)}


def _ours(entry: os.DirEntry) -> bool:
    try:
        return entry.stat(follow_symlinks=False).st_uid == os.geteuid()
    except FileNotFoundError:  # removed since the listing: not left behind
        return False


def shm_mapped(pid: int) -> list[str]:
    """The lines of /proc/PID/maps that map a file of /dev/shm still there (multiprocessing's semaphores are removed
    from it as soon as they are made: "(deleted)")."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return [line for line in lines if "/dev/shm/" in line and not line.endswith("(deleted)")]


@pytest.mark.skipif(not Path("/dev/shm").is_dir() or not Path("/proc/self/maps").exists(), reason="Linux only")
def test_a_pool_leaves_no_shared_memory_segment_on_any_exit(monkeypatch):
    """The slots a pool shares with its workers are anonymous (nothing in /dev/shm while they run, so nothing left
    there): after a pass, a malformed pair's error, Ctrl-C in the middle of a pass, and a worker's death, no entry
    of /dev/shm is new, and no process of the pool maps one."""
    from concurrent.futures.process import BrokenProcessPool

    from pdp_audit.verify.core.processes import executor_for
    from pdp_audit.verify.estimators import engine

    before = shm_entries()
    scalar = engine.PrivacyLossSampler(GaussianPair(np.array([0.0]), np.array([1.0]), 2.0), "D")
    n = 5 * 65536
    with executor_for(2) as pool:
        if pool is None:
            pytest.skip("one core: no pool")
        engine.run_blocks(scalar, n, 1, "s", pool)
        assert [line for pid in (os.getpid(), *pool._processes) for line in shm_mapped(pid)] == []
        with pytest.raises(MalformedPair):
            engine.run_blocks(engine.PrivacyLossSampler(NanAtThree(), "D"), n, 1, "s", pool)

    def interrupted(items, *args, **kwargs):
        for _ in items:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), executor_for(2) as pool:
        with monkeypatch.context() as patched:
            patched.setattr(engine, "with_progress", interrupted)
            engine.run_blocks(scalar, n, 1, "s", pool)
    with pytest.raises(BrokenProcessPool), executor_for(2) as pool:
        engine.run_blocks(engine.PrivacyLossSampler(DiesInAWorker(), "D"), n, 1, "s", pool)
    assert engine._SLOTS is None
    assert shm_entries() - before == set()


def blas_in_this_process() -> tuple[bool, set[int]]:
    """(whether this process says BLAS is limited for good, the thread counts of its BLAS libraries)."""
    import threadpoolctl

    from pdp_audit.verify.estimators import engine

    threads = {info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"}
    return engine._BLAS_FOR_GOOD, threads


def test_one_blas_thread_limits_once_however_deep_and_not_in_a_limited_worker(monkeypatch):
    """Nested blocks (the GOE audit's, around each of its blocks) limit once, with the limit in force throughout and
    lifted after, through one threadpoolctl controller that later blocks reuse (threadpool_limits scanned the loaded
    libraries at every call: it must not be called); a pool worker limited BLAS at its start, says so, and its blocks
    scan nothing."""
    import threadpoolctl

    from pdp_audit.verify.core.processes import executor_for
    from pdp_audit.verify.estimators import engine
    from pdp_audit.verify.inputs import blas_threads

    limits, pools = [], set()

    class Counted(threadpoolctl.ThreadpoolController):
        def limit(self, **kwargs):
            limits.append(kwargs)
            return super().limit(**kwargs)

    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", Counted)
    monkeypatch.setattr(threadpoolctl, "threadpool_limits", None)
    monkeypatch.setattr(blas_threads, "_POOLS", None)
    before = blas_in_this_process()[1]
    for _ in range(2):
        with engine.one_blas_thread():
            with engine.one_blas_thread():
                assert blas_in_this_process()[1] <= {1}
            assert blas_in_this_process()[1] <= {1}
        assert blas_in_this_process()[1] == before
        pools.add(id(blas_threads._POOLS))
    assert len(pools) == 1 and limits == [{"limits": 1, "user_api": "blas"}] * 2
    monkeypatch.undo()  # a worker limits BLAS at its start through threadpool_limits
    with executor_for(2) as pool:
        if pool is None:
            pytest.skip("one core: no pool")
        for_good, threads = pool.submit(blas_in_this_process).result()
    assert for_good and threads <= {1}


def test_one_blas_thread_limits_a_blas_loaded_after_its_controller_was_made(monkeypatch):
    """engine.one_blas_thread: a BLAS loaded after its controller was made (scipy's own, with ``scipy.linalg``) is
    limited too, as a scan at each call limited it: a module imported since makes the controller again.  Here the
    controller is one made without the BLAS libraries, and the import one of a new module; kept, it fails."""
    import sys
    import types

    import threadpoolctl

    from pdp_audit.verify.estimators import engine
    from pdp_audit.verify.inputs import blas_threads

    before = blas_in_this_process()[1]
    if not before or before == {1}:
        pytest.skip("no BLAS with more than one thread to limit")
    stale = threadpoolctl.ThreadpoolController()
    stale.lib_controllers = [lib for lib in stale.lib_controllers if lib.user_api != "blas"]
    monkeypatch.setattr(blas_threads, "_POOLS", stale)
    monkeypatch.setattr(blas_threads, "_POOLS_AT", (len(sys.modules), next(reversed(sys.modules))))
    monkeypatch.setitem(sys.modules, "pdp_audit_a_module_imported_since", types.ModuleType("imported_since"))
    with engine.one_blas_thread():
        assert blas_in_this_process()[1] == {1}
    assert blas_in_this_process()[1] == before and blas_threads._POOLS is not stale
