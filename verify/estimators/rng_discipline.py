"""Does a pair draw its releases from the generator it is given, and from it only?

Every number of an audit rests on the engine's promise (:mod:`pdp_audit.verify.estimators.engine`): block ``b`` of a
stream
holds independent releases determined by that block's generator.  A pair can break it without any wrong shape or
value:

* it draws from another source (global ``np.random``, a generator of its own, the clock): two identical runs give
  different numbers -- independent draws all the same, so this is stated (*not reproducible*), not refused;
* it reseeds itself on every call (``np.random.default_rng(0)`` inside ``sample``): every block is the same block,
  so 1e7 releases are 65,536 counted 153 times and every interval is too narrow by a factor of 12;
* it seeds itself from a small set of seeds: the same, less often.

:func:`check_rng_discipline` calls ``sample(world, n, rng)`` with n = :data:`PROBE_SIZE` on each world before the
main draws, with generators seeded from fixed constants (the outcome depends on the pair alone):

1. twice with generators in the same state: the releases of a pair that draws from its generator only are
   identical, byte for byte.  Different ones mean a source of its own (OpenDP's cryptographic sampler,
   diffprivlib's default ``random_state``): its draws are independent all the same, so the audit runs and says
   it is *not reproducible* (a property of the run, not a privacy failure);
2. on :data:`PROBE_STATES` distinct generator states -- fresh generators with different seeds, and two successive
   calls on one generator -- no two of these arrays may be identical, unless the array is too uniform to tell
   (below).

**False alarms.**  For a pair that consumes its generator, arrays drawn from distinct generator states are
independent (as the generator's streams are), each of n iid rows of the release law P (any law: continuous,
discrete, mixed).  Let a be an array
whose distinct rows v_1, …, v_m occur k_1, …, k_m times.  Its probability is Π_l P(v_l)^{k_l}, and with
Σ_l P(v_l) ≤ 1 this is at most max_{x ∈ simplex} Π_l x_l^{k_l} = Π_l (k_l/n)^{k_l} = e^{−n Ĥ(a)}, Ĥ(a) the entropy
(nats) of the array's empirical law of rows.  Two independent arrays A, B are then identical and of empirical
entropy ≥ h with probability Σ_{a: Ĥ(a) ≥ h} P(a)² ≤ max_{a: Ĥ(a) ≥ h} P(a) ≤ e^{−nh}.  Identity is therefore
reported only when nĤ ≥ :data:`MIN_ENTROPY_NATS` = 40, and over the 2·C(8, 2) = 56 comparisons of a probe the
false-alarm probability is at most 56·e^{−40} ≈ 2.4e-16, whatever the pair's law.  For scale: 1000 continuous
releases have nĤ = 1000·log 1000 ≈ 6,900, 1000 fair coin flips 693, 1000 flips with 10 heads about 56.

**Deterministic releases are not refused.**  An array with nĤ < 40 (in particular a constant one: the mechanism
adds no noise, or almost never any) is iid draws of a point mass as far as anyone can tell, and sampling it is
valid: the DP checks then decide -- a deterministic release that differs between D and D' has an infinite loss and
δ(ε) = 1, a fail; one that does not is (0, 0)-DP.  What is refused is a release that varies from row to row and
repeats from call to call: no generator drives it.  A pair choosing among K internal seeds is caught when two of
the probe's eight states pick the same one (certainly for K ≤ 7; with probability 1 − Π_{i<8}(1 − i/K) otherwise).

Cost: 1 + PROBE_STATES = 9 calls of ``sample(world, 1000)`` per world, one array held at a time (each is kept as a
digest and its row entropy).
"""

from __future__ import annotations

import hashlib
from typing import Callable, NamedTuple

import numpy as np

from pdp_audit.mechanisms.base import WORLDS, MalformedPair, World

#: Releases per call of the probe.
PROBE_SIZE = 1000
#: Distinct generator states the probe draws from per world: seeds 0 to 6, and a second call on seed 1's generator.
PROBE_STATES = 8
#: Identical arrays are reported only when n·Ĥ (the log of the inverse of the largest probability any law can give
#: such an array) reaches this many nats: module notes.
MIN_ENTROPY_NATS = 40.0
#: Entropy of the generators' fixed seeds (the probe's outcome depends on the pair alone).
PROBE_ENTROPY = 0x5EED_2026

Sampler = Callable[[World, int, np.random.Generator], np.ndarray]


def probe_generator(index: int) -> np.random.Generator:
    """The probe's generator number ``index`` (fixed seeds)."""
    return np.random.default_rng(np.random.SeedSequence(PROBE_ENTROPY, spawn_key=(index,)))


def row_entropy_nats(releases: np.ndarray) -> float:
    """n·Ĥ: the number of rows times the entropy (nats) of the empirical law of the rows of ``releases``, rows
    compared byte for byte (−log of the largest probability any law of rows gives this array: module notes)."""
    rows = np.ascontiguousarray(releases)
    n = rows.shape[0]
    if n == 0:
        return 0.0
    width = rows.dtype.itemsize * int(np.prod(rows.shape[1:], dtype=np.int64))
    if width == 0:
        return 0.0
    keys = rows.reshape(n, -1).view(np.dtype((np.void, width))).ravel()
    _, counts = np.unique(keys, return_counts=True)
    return float(-np.sum(counts * np.log(counts / n)))


def _fingerprint(releases: np.ndarray) -> tuple:
    """What identifies an array for the probe: shape, type and a digest of its bytes."""
    rows = np.ascontiguousarray(releases)
    return rows.shape, rows.dtype.str, hashlib.blake2b(rows.tobytes(), digest_size=16).digest()


#: What a run says of a sampler that draws from a source of its own (:func:`check_rng_discipline`'s return value).
NOT_REPRODUCIBLE = (
    "not reproducible: {name} returned different releases for the same rng seed -- the sampler draws from a source "
    "of its own (a cryptographic generator as OpenDP's, numpy's global one as diffprivlib's default random_state, "
    "the clock); the statistics stand (its draws are independent), but a rerun with the same seed gives other numbers"
)


class SeededPerRelease(NamedTuple):
    """Two samplers of ours ``(size, rng) -> releases`` (D, then D′) that draw each release from its own generator
    seeded from the rng (a program's releases, :mod:`pdp_audit.audits.program.release_sampler`): not probed for
    drawing from their rng alone (:func:`check_rng_discipline`: 9 calls of 1,000 releases a world).  The probe could
    only find a program that ignores its generator, whose releases are then either a function of the data alone --
    every release its D's or its D′'s, so a refutation by them is a true one -- or drawn from a source of its own,
    which the program audit's record check names; for a program of milliseconds the probe cost more than the
    attack."""

    sample_d: Callable
    sample_dprime: Callable


def check_rng_discipline(sample: Sampler, checked: Callable[[World, int, object], np.ndarray] | None = None) -> str:
    """Raise :class:`pdp_audit.mechanisms.base.MalformedPair` when ``sample(world, n, rng)`` repeats itself -- the
    same releases from distinct generator states, which no statistic may count as independent draws (module notes:
    what is called, and why a correct pair fails it with probability ≤ 2.4e-16).  A sampler that gives *different*
    releases for the same seed draws from a source of its own: its draws are still independent, so it is audited,
    and the reason it is not reproducible is returned (:data:`NOT_REPRODUCIBLE`; "" for a pair that draws from its
    rng alone).  ``checked(world, size, releases)`` validates and normalises each call's releases (shapes: it raises
    MalformedPair itself); by default they are taken as returned."""
    n = PROBE_SIZE
    why = ""

    def draw(world: World, rng: np.random.Generator) -> tuple[tuple, float]:
        out = sample(world, n, rng)
        releases = np.asarray(checked(world, n, out) if checked is not None else out)
        return _fingerprint(releases), row_entropy_nats(releases)

    for world in WORLDS:
        name = f"sample({world!r}, {n})"
        first = draw(world, probe_generator(0))
        if first[0] != draw(world, probe_generator(0))[0]:
            why = why or NOT_REPRODUCIBLE.format(name=name)
        shared = probe_generator(1)
        once, again = draw(world, shared), draw(world, shared)
        if once[0] == again[0] and once[1] >= MIN_ENTROPY_NATS:
            raise MalformedPair(
                f"{name} returned identical releases on two successive calls with one generator: the pair reseeds "
                "itself on every call (its releases do not depend on the state of its rng)"
            )
        seen: dict[tuple, str] = {}
        draws = [("seed 0", first), ("seed 1", once), ("seed 1, next call", again)]
        draws += [(f"seed {i}", draw(world, probe_generator(i))) for i in range(2, PROBE_STATES - 1)]
        for label, (key, entropy) in draws:
            if key in seen and entropy >= MIN_ENTROPY_NATS:
                raise MalformedPair(
                    f"{name} returned identical releases for two different seeds ({seen[key]} and {label}): the pair "
                    "ignores its rng (it seeds itself, from a constant or a small set of seeds)"
                )
            seen.setdefault(key, label)
    return why
