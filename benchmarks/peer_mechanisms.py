"""The 20 mechanisms of DP-Sniper's and StatDP's benchmark, written from their definitions, with the peers' results.

Benchmark code, not product code: each mechanism is a release function ``release(inputs, size, rng)`` returning a
(size, d) array, wrapped with DP-Sniper's input pair (D, D') in :class:`PeerPair`, whose ``sample(world, size,
rng)`` is what :func:`pdp_audit.audit_blackbox` and :func:`pdp_audit.audits.blackbox.attack.blackbox_attack` sample.

Sources (the definitions; no code was copied):

* Laplace: o = f(a) + Lap(1/ε).
* Truncated geometric: GeoSample of Balcer & Vadhan, "Differential privacy on finite computers" (2018), Alg. 4.8:
  a count c in {0..n} released as z with P(Z ≤ z) = F(z)/d, F as in their step 2 with k = ⌈ln(2/ε)⌉; by their
  Thm. 4.7 it is ln(1 + 2^-k)-DP (0.1178 at ε = 0.1), the claim used here.
* Noisy histograms, report noisy max: Ding, Wang, Wang, Zhang & Kifer, "Detecting violations of differential
  privacy" (CCS 2018), Algs. 5–10: NoisyHist1 adds Lap(1/ε) per bin (correct), NoisyHist2 Lap(ε) (incorrect);
  ReportNoisyMax1/2 return the argmax of the answers plus Lap(2/ε) / Exp(2/ε) noise (correct), ReportNoisyMax3/4 the
  noisy maximum itself (incorrect).
* Sparse vector: Lyu, Su & Li, "Understanding the sparse vector technique for differential privacy" (PVLDB 2017),
  Algs. 1–6 with threshold T, ε1 the threshold's share, at most c positive answers; outputs 1 (above), 0 (below),
  −1 (after the c-th positive answer: aborted); Alg. 3 releases the noisy answer instead of 1 and flags below /
  aborted as −1000 / −2000.  Algs. 1, 2 are ε-DP; Alg. 3 and 5 are not ε'-DP for any ε' (∞); Alg. 4 is
  ((1 + 6c)/4)ε-DP; Alg. 6 is not ε-DP (its loss grows with the number of queries).
* Numerical SVT and prefix sum: Wang, Ding, Wang, Kifer & Zhang, "Proving differential privacy with shadow
  execution" (PLDI 2019).
* RAPPOR: Erlingsson, Pihur & Korolova (CCS 2014): a Bloom filter of h = 4 MurmurHash3 positions in 20 bits,
  permanent randomised response with f, then (RAPPOR only) instantaneous randomised response with p, q.
* DP-Sniper's parameters, input pairs and ε lower bounds (confidence 0.9): Bichsel, Steffen, Bogunovic & Vechev,
  "DP-Sniper: black-box discovery of differential privacy violations using classifiers" (IEEE S&P 2021), from the
  reference results of github.com/eth-sri/dp-sniper (``eval_sp2021/reference-results/dd_search_{reg,mlp}_data.log``,
  key ``eps_lcb``; ``dpsniper/experiments/exp_default.py`` for ε = 0.1 and each mechanism's c, t; the pair is the
  one its logistic-regression search chose).  DP-Sniper draws 10.7e6 releases per input to train and 2e8 per input
  for the final bound (``DDConfig``: n_train, n_final).  StatDP's bounds are the two runs of its wrapper there
  (``statdp_{1,2}_data.log``, ``statdp_result.eps_lcb``; 5e5 releases for the detector, 2e8 for the bound).

``exact_epsilon`` is the privacy loss of the pair (D, D') where it is known in closed form (∞ where some output has
probability 0 under one world only); ``proved_epsilon`` is what the mechanism provably satisfies over all
neighbours (≥ the pair's), None where it is not DP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

EPSILON = 0.1  # DP-Sniper's ε for every mechanism
INF = float("inf")
#: DP-Sniper's releases per input: training, then the final bound (DDConfig.n_train, n_final).
DPSNIPER_SAMPLES = {"train": 10_700_000, "bound": 200_000_000}
#: StatDP's releases per input (its wrapper: 5e5 for the detector, then DP-Sniper's estimator with n_final).
STATDP_SAMPLES = {"detector": 500_000, "bound": 200_000_000}


def laplace(inputs, size, rng):
    return inputs[0] + rng.laplace(scale=1 / EPSILON, size=(size, 1))


GEO_N = 5
GEO_K = math.ceil(math.log(2 / EPSILON))


def geometric_pmf(count: int) -> np.ndarray:
    """P(Z = z), z = 0..n, of GeoSample(ε, n) at the count c: differences of Balcer & Vadhan's F / d (exact
    integers, then one division)."""
    n, k, c = GEO_N, GEO_K, int(count)
    d = (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)
    f = [2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)) for z in range(c)]
    f += [d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)) for z in range(c, n)]
    f.append(d)
    return np.diff([0, *f]) / d


def truncated_geometric(inputs, size, rng):
    pmf = geometric_pmf(int(inputs[0]))
    return rng.choice(GEO_N + 1, size=(size, 1), p=pmf).astype(float)


def noisy_hist1(inputs, size, rng):
    return inputs + rng.laplace(scale=1 / EPSILON, size=(size, inputs.size))


def noisy_hist2(inputs, size, rng):
    return inputs + rng.laplace(scale=EPSILON, size=(size, inputs.size))


def _noisy_answers(inputs, size, rng, noise: str):
    scale = 2 / EPSILON
    draws = (
        rng.laplace(scale=scale, size=(size, inputs.size))
        if noise == "laplace"
        else rng.exponential(scale=scale, size=(size, inputs.size))
    )
    return inputs + draws


def report_noisy_max1(inputs, size, rng):
    return np.argmax(_noisy_answers(inputs, size, rng, "laplace"), axis=1)[:, None].astype(float)


def report_noisy_max2(inputs, size, rng):
    return np.argmax(_noisy_answers(inputs, size, rng, "exponential"), axis=1)[:, None].astype(float)


def report_noisy_max3(inputs, size, rng):
    return np.max(_noisy_answers(inputs, size, rng, "laplace"), axis=1)[:, None]


def report_noisy_max4(inputs, size, rng):
    return np.max(_noisy_answers(inputs, size, rng, "exponential"), axis=1)[:, None]


@dataclass(frozen=True)
class Svt:
    """One of Lyu, Su & Li's sparse-vector algorithms.  ``variant`` 1–6; ``c`` positive answers at most; ``t`` the
    threshold.  Threshold noise Lap(scale_rho), query noise Lap(scale_nu) (none for Alg. 5)."""

    variant: int
    c: int
    t: float

    def scales(self) -> tuple[float, float]:
        eps1 = EPSILON / 4 if self.variant == 4 else EPSILON / 2
        eps2 = EPSILON - eps1
        rho = {2: self.c / eps1}.get(self.variant, 1 / eps1)
        nu = {1: 2 * self.c / eps2, 2: 2 * self.c / eps2, 3: self.c / eps2}.get(self.variant, 1 / eps2)
        return rho, nu

    def __call__(self, inputs, size, rng):
        scale_rho, scale_nu = self.scales()
        m = inputs.size
        rho = rng.laplace(scale=scale_rho, size=size)
        noisy = inputs + (0.0 if self.variant == 5 else rng.laplace(scale=scale_nu, size=(size, m)))
        if self.variant in (5, 6):  # no cutoff: every comparison is released
            return (noisy >= (rho + self.t)[:, None]).astype(float)
        out = np.empty((size, m))
        count = np.zeros(size, dtype=int)
        for i in range(m):
            above = noisy[:, i] >= rho + self.t
            aborted = count >= self.c
            if self.variant == 3:
                out[:, i] = np.where(above, noisy[:, i], -1000.0)
                out[aborted, i] = -2000.0
            else:
                out[:, i] = above
                out[aborted, i] = -1.0
            count += above & ~aborted
            if self.variant == 2:  # Alg. 2 draws a fresh threshold noise after each positive answer
                fresh = rng.laplace(scale=scale_rho, size=size)
                rho = np.where(above, fresh, rho)
        return out


@dataclass(frozen=True)
class NumericalSvt:
    """Numerical SVT (Wang et al. 2019): threshold noise Lap(3/ε), comparison noise Lap(6c/ε), a positive answer
    released as the answer plus Lap(3c/ε); 0 below; −1000 after the c-th positive answer."""

    c: int = 2
    t: float = 1.0

    def __call__(self, inputs, size, rng):
        m = inputs.size
        rho = rng.laplace(scale=3 / EPSILON, size=size)
        compared = inputs + rng.laplace(scale=6 * self.c / EPSILON, size=(size, m))
        released = inputs + rng.laplace(scale=3 * self.c / EPSILON, size=(size, m))
        out = np.zeros((size, m))
        count = np.zeros(size, dtype=int)
        for i in range(m):
            above = compared[:, i] >= self.t + rho
            aborted = count >= self.c
            out[above, i] = released[above, i]
            out[aborted, i] = -1000.0
            count += above & ~aborted
        return out


def murmur3_32(data: bytes, seed: int) -> int:
    """MurmurHash3 x86_32 (Appleby), as a signed 32-bit integer (RAPPOR's Bloom-filter hash in DP-Sniper)."""
    mask = 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & mask

    def mix(k: int) -> int:
        return (rotl((k * 0xCC9E2D51) & mask, 15) * 0x1B873593) & mask

    h = seed & mask
    whole = len(data) // 4 * 4
    for i in range(0, whole, 4):
        h = rotl(h ^ mix(int.from_bytes(data[i : i + 4], "little")), 13)
        h = (h * 5 + 0xE6546B64) & mask
    tail = data[whole:]
    if tail:
        h ^= mix(int.from_bytes(tail, "little"))
    h ^= len(data)
    for shift, mult in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
        h = ((h ^ (h >> shift)) * mult) & mask
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h


RAPPOR_BITS, RAPPOR_HASHES = 20, 4


def bloom_filter(value: int) -> np.ndarray:
    bits = np.zeros(RAPPOR_BITS)
    for i in range(RAPPOR_HASHES):
        bits[murmur3_32(str(value).encode(), i) % RAPPOR_BITS] = 1.0
    return bits


@dataclass(frozen=True)
class Rappor:
    """Permanent randomised response with ``f`` (a bit set to 1 or 0 with probability f/2 each, kept otherwise);
    with ``instantaneous``, each bit then reported 1 with probability q if it is 1 and p if it is 0."""

    f: float
    instantaneous: bool
    p: float = 0.45
    q: float = 0.55

    def bit_one(self) -> tuple[float, float]:
        """P(reported bit = 1) for a true bit 1 and a true bit 0."""
        one, zero = 1 - self.f / 2, self.f / 2
        if self.instantaneous:
            one, zero = one * self.q + (1 - one) * self.p, zero * self.q + (1 - zero) * self.p
        return one, zero

    def pair_epsilon(self, a: int, b: int) -> float:
        one, zero = self.bit_one()
        differing = int(np.sum(bloom_filter(a) != bloom_filter(b)))
        return differing * math.log(one / zero)

    def claimed_epsilon(self) -> float:
        """RAPPOR's ε: 2h ln(ratio) for one-time RAPPOR (PRR), h ln(q*(1 − p*)/(p*(1 − q*))) for one report."""
        one, zero = self.bit_one()
        if self.instantaneous:
            return RAPPOR_HASHES * math.log(one * (1 - zero) / (zero * (1 - one)))
        return 2 * RAPPOR_HASHES * math.log(one / zero)

    def __call__(self, inputs, size, rng):
        true_bits = bloom_filter(int(inputs[0]))
        u = rng.random((size, RAPPOR_BITS))
        prob_one = np.where(true_bits == 1, *self.bit_one())
        return (u < prob_one).astype(float)


def prefix_sum(inputs, size, rng):
    return np.cumsum(inputs + rng.laplace(scale=1 / EPSILON, size=(size, inputs.size)), axis=1)


PARALLEL_EPSILON, PARALLEL_COPIES = 0.005, 20


def laplace_parallel(inputs, size, rng):
    return inputs[0] + rng.laplace(scale=1 / PARALLEL_EPSILON, size=(size, PARALLEL_COPIES))


@dataclass(frozen=True)
class Parallel:
    """The mechanisms run side by side on the same input, their releases concatenated."""

    parts: tuple

    def __call__(self, inputs, size, rng):
        return np.hstack([part(inputs, size, rng) for part in self.parts])


@dataclass(frozen=True)
class PeerPair:
    """A benchmark mechanism on DP-Sniper's pair: ``sample(world, size, rng)`` releases on D or D'."""

    release: Callable
    d: tuple
    dprime: tuple

    def sample(self, world: str, size: int, rng: np.random.Generator) -> np.ndarray:
        inputs = np.asarray(self.d if world == "D" else self.dprime, dtype=float)
        return np.asarray(self.release(inputs, size, rng), dtype=float).reshape(size, -1)

    def sample_world(self, world: str) -> WorldSampler:
        """``(size, rng) -> releases`` of ``world``: a picklable sampler for worker processes."""
        return WorldSampler(self, world)


@dataclass(frozen=True)
class WorldSampler:
    pair: PeerPair
    world: str

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.pair.sample(self.world, size, rng)


@dataclass(frozen=True)
class Peer:
    """One benchmark row: the mechanism on its pair, its claim, and the peers' published ε lower bounds (conf 0.9)."""

    name: str
    pair: PeerPair
    correct: bool
    real_valued: bool
    exact_epsilon: float | None
    proved_epsilon: float | None
    dpsniper: dict = field(default_factory=dict)  # {"logistic": lcb, "mlp": lcb}
    statdp: tuple = ()  # the two runs' lcb
    claimed_epsilon: float = EPSILON


def _repeated(x, n):
    """The input vector (x, …, x) of n answers."""
    return (float(x),) * n


def _halves(a, b):
    """The 10 answers (a, …, a, b, …, b), five of each (DP-Sniper's sparse-vector patterns)."""
    return (float(a),) * 5 + (float(b),) * 5


ONE_TIME_RAPPOR, RAPPOR = Rappor(0.95, False), Rappor(0.75, True)
GEO_CLAIM = math.log(1 + 2.0**-GEO_K)
SVT4_PROVED = (1 + 6 * 1) / 4 * EPSILON
SVT34 = Parallel((Svt(3, 2, 1.0), Svt(4, 2, 1.0)))


def _geo_exact(a: int, b: int) -> float:
    return float(np.max(np.abs(np.log(geometric_pmf(a)) - np.log(geometric_pmf(b)))))


PEERS = (
    Peer(
        "Laplace",
        PeerPair(laplace, (1.0,), (2.0,)),
        True,
        True,
        0.1,
        0.1,
        {"logistic": 0.0968, "mlp": 0.0976},
        (0.0998, 0.0996),
    ),
    Peer(
        "TruncatedGeometric",
        PeerPair(truncated_geometric, (2.0,), (1.0,)),
        True,
        False,
        _geo_exact(2, 1),
        GEO_CLAIM,
        {"logistic": 0.1156, "mlp": 0.1155},
        (0.1159, 0.1169),
        claimed_epsilon=GEO_CLAIM,
    ),
    Peer(
        "NoisyHist1",
        PeerPair(noisy_hist1, (0, 1, 1, 1, 1), _repeated(1, 5)),
        True,
        True,
        0.1,
        0.1,
        {"logistic": 0.0978, "mlp": 0.0977},
        (0.0828, 0.0994),
    ),
    Peer(
        "NoisyHist2",
        PeerPair(noisy_hist2, (0, 1, 1, 1, 1), _repeated(1, 5)),
        False,
        True,
        1 / EPSILON,
        None,
        {"logistic": 4.602, "mlp": 4.6015},
        (9.7169, 10.0022),
    ),
    Peer(
        "ReportNoisyMax1",
        PeerPair(report_noisy_max1, _repeated(1, 5), (0, 2, 2, 2, 2)),
        True,
        False,
        None,
        0.1,
        {"logistic": 0.0923, "mlp": 0.0925},
        (0.092, 0.0921),
    ),
    Peer(
        "ReportNoisyMax2",
        PeerPair(report_noisy_max2, _repeated(1, 5), (0, 2, 2, 2, 2)),
        True,
        False,
        None,
        0.1,
        {"logistic": 0.0975, "mlp": 0.0979},
        (0.0996, 0.0997),
    ),
    # the max of 5 Laplaces shifted by 1: loss → 5/b = 5ε/2 in the left tail
    Peer(
        "ReportNoisyMax3",
        PeerPair(report_noisy_max3, _repeated(0, 5), _repeated(1, 5)),
        False,
        True,
        5 * EPSILON / 2,
        None,
        {"logistic": 0.2478, "mlp": 0.2488},
        (0.1991, 0.1961),
    ),
    # exponential noise: the max is ≥ 1 on D, ≥ 2 on D'; outputs in [1, 2) only on D
    Peer(
        "ReportNoisyMax4",
        PeerPair(report_noisy_max4, _repeated(1, 5), _repeated(2, 5)),
        False,
        True,
        INF,
        None,
        {"logistic": 0.3463, "mlp": 0.3534},
        (0.196, 0.1988),
    ),
    Peer(
        "SVT1",
        PeerPair(Svt(1, 1, 0.5), _halves(0, 1), _halves(1, 0)),
        True,
        False,
        None,
        0.1,
        {"logistic": 0.0858, "mlp": 0.0858},
        (0.0298, 0.0298),
    ),
    Peer(
        "SVT2",
        PeerPair(Svt(2, 1, 1.0), _halves(0, 1), _halves(1, 0)),
        True,
        False,
        None,
        0.1,
        {"logistic": 0.0859, "mlp": 0.0852},
        (0.0316, 0.0407),
    ),
    Peer(
        "SVT3",
        PeerPair(Svt(3, 1, 1.0), _repeated(1, 10), _halves(2, 0)),
        False,
        False,
        INF,
        None,
        {"logistic": 0.1716, "mlp": 0.1822},
        (0.0231, 0.1793),
    ),
    Peer(
        "SVT4",
        PeerPair(Svt(4, 1, 1.0), _repeated(1, 10), _halves(2, 0)),
        False,
        False,
        None,
        SVT4_PROVED,
        {"logistic": 0.1687, "mlp": 0.1696},
        (0.1709, 0.1719),
    ),
    Peer(
        "SVT5",
        PeerPair(Svt(5, 1, 1.0), _halves(2, 0), _repeated(1, 10)),
        False,
        False,
        INF,
        None,
        {"logistic": 1.7612, "mlp": 1.761},
        (14.3143, 14.3143),
    ),
    Peer(
        "SVT6",
        PeerPair(Svt(6, 1, 1.0), _halves(1, 0), _halves(0, 1)),
        False,
        False,
        None,
        None,
        {"logistic": 0.272, "mlp": 0.2698},
        (0.322, 0.32),
    ),
    Peer(
        "NumericalSVT",
        PeerPair(NumericalSvt(2, 1.0), _repeated(2, 10), _repeated(1, 10)),
        True,
        False,
        None,
        0.1,
        {"logistic": 0.0343, "mlp": 0.0345},
        (),
    ),
    Peer(
        "OneTimeRappor",
        PeerPair(ONE_TIME_RAPPOR, (1.0,), (0.0,)),
        True,
        False,
        ONE_TIME_RAPPOR.pair_epsilon(1, 0),
        ONE_TIME_RAPPOR.claimed_epsilon(),
        {"logistic": 0.5978, "mlp": 0.5999},
        (0.4706, 0.0602),
        claimed_epsilon=ONE_TIME_RAPPOR.claimed_epsilon(),
    ),
    Peer(
        "Rappor",
        PeerPair(RAPPOR, (1.0,), (0.0,)),
        True,
        False,
        RAPPOR.pair_epsilon(1, 0),
        RAPPOR.claimed_epsilon(),
        {"logistic": 0.293, "mlp": 0.3008},
        (0.2416, 0.0243),
        claimed_epsilon=RAPPOR.claimed_epsilon(),
    ),
    # ε = 0.1 for answers at ℓ1 distance 1, not under the benchmark's neighbouring (each answer moves by ≤ 1):
    # DP-Sniper's pair moves all 10 answers by 1, and the prefix sums are a bijection of them: the pair's loss is 10ε
    Peer(
        "PrefixSum",
        PeerPair(prefix_sum, _repeated(1, 10), _repeated(0, 10)),
        False,
        True,
        10 * EPSILON,
        None,
        {"logistic": 0.504, "mlp": 0.5774},
        (0.3516, 0.3446),
    ),
    Peer(
        "LaplaceParallel",
        PeerPair(laplace_parallel, (1.0,), (0.0,)),
        True,
        True,
        PARALLEL_COPIES * PARALLEL_EPSILON,
        PARALLEL_COPIES * PARALLEL_EPSILON,
        {"logistic": 0.035, "mlp": 0.0299},
        (0.0126, 0.0135),
    ),
    Peer(
        "SVT34Parallel",
        PeerPair(SVT34, _repeated(1, 10), _halves(2, 0)),
        False,
        False,
        INF,
        None,
        {"logistic": 0.261, "mlp": 0.2616},
        (0.1371, 0.1963),
    ),
)


def from_environment() -> PeerPair:
    """The pair of the mechanism named by the environment variable ``PDP_PEER`` (a factory for ``pdp-audit blackbox
    peer_mechanisms:from_environment``, run from this folder: ``benchmarks/blackbox_peers.py --cli``)."""
    import os

    by_name = {peer.name: peer.pair for peer in PEERS}
    name = os.environ.get("PDP_PEER", "")
    if name not in by_name:
        raise KeyError(f"PDP_PEER must name one of {', '.join(by_name)}, got {name!r}")
    return by_name[name]
