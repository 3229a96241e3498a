"""Replay: is ``sample()`` *exactly* the declared noise view, or only statistically close to it?

A noise view (``release_from_noise`` with a declared law: Gaussian of ``noise_sigma``, Laplace or two-sided geometric
of ``noise_scale``) lets importance sampling certify a δ far below what plain draws can see -- but only for the
view's law.  Statistical agreement between the view and ``sample()`` (KS, Mood's scale test, the one-sample scale
test of the residuals) cannot pin that law: a sampler 1% narrower than its view, a centre 3% off, a 0.2% branch of
narrower noise or a release that reveals its input with probability 1e-4 all pass those tests at 1e5 draws, and a
bound resting on the view would certify δ ≈ 1e-11 where the true δ is 1e-4 to 1e-2.

**The replay.**  For each world and each of :data:`REPLAY_BLOCKS` seeds, two generators in the same state: one is
given to ``sample(world, size, rng)``; from the other the suite draws the declared noise itself, in the canonical
way (:func:`canonical_noise`), and computes ``release_from_noise(world, noise)``.  The view *replays* the sampler
when every release agrees to the releases' precision.  Then ``sample()`` is, on every replayed row, the declared
law pushed through the view -- not approximately but draw for draw -- and a bound on the view's law is a bound on
the sampler.  Anything else breaks the replay: a different scale or centre changes every row; a mixture, a rare
branch or a revealing release either draws more from the generator (every later row changes) or changes the rows
where it fires (a branch of probability p is missed on ``m`` rows with probability (1 − p)^m: at
:data:`REPLAY_BLOCKS` × 16,384 rows per world, a 1e-4 branch is seen with probability 1 − e^{−13});
a sampler that draws from another source (numpy's global generator, a cryptographic one) changes every row.

**Replay is evidence with a rate.**  Agreement on m rows per world does not make a branch impossible; it bounds its
probability.  If ``sample()`` departs from the view on a set of generator states of probability p_W in world W and
none of m independent rows fell there, then p_W ≤ u = 1 − a^{1/m} at confidence 1 − a (Clopper–Pearson with no
success: about 14/m at a = 1e-6, 1.4e-4 at m = 1e5).  The two laws then differ by at most p_W in total variation,
so for every event S, P_D(S) ≤ V_D(S) + p_D ≤ e^ε V_D'(S) + δ_V + p_D ≤ e^ε P_D'(S) + δ_V + p_D + e^ε p_D': a bound
δ_V(ε) on the view's law is the sampler's only up to :meth:`Replay.unseen_delta`, u_D + e^ε u_D'.  A pure claim
therefore passes by the view's bounded-loss proof only where the pair *is* the declared law by construction -- a
mechanism the suite built from it (:func:`built_from_law`) -- and otherwise certifies that δ̄ (Dwork & Roth 2014,
Theorem 3.6 for the view; the replay's rate for the rest).

**What a replay does not prove.**  A departure that draws nothing from the generator and fires on fewer than about
1/m of the noise values (a deterministic backdoor keyed on the noise itself) is not excluded; no black-box test of
``sample()`` can exclude it.  Where the replay fails the view is not used for any bound (the audit decides from
``sample()``'s own draws, so a tight claim is inconclusive rather than certified), and the note says how to draw
the noise so that it replays.

**The canonical draws** (one call for the whole block, rows of length ``noise_dim``):

    gaussian:   noise_sigma * rng.standard_normal((size, noise_dim))   (rng.normal(centre, σ, shape) is the same)
    laplace:    rng.laplace(0.0, noise_scale, (size, noise_dim))        (rng.laplace(centre, b, shape) is the same)
    geometric:  rng.geometric(p, shape) − rng.geometric(p, shape),  p = 1 − e^{−1/b}

A view made of several releases' views side by side (``pairs``: a joint release, each drawn from the one generator
after the other) draws its parts one after the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from pdp_audit.verify.estimators.engine import block_rng
from pdp_audit.verify.estimators.rare import noise_view

#: Seeds per world the replay runs over.
REPLAY_BLOCKS = 4
#: Rows per replayed block (fewer where the releases are wide: :data:`REPLAY_VALUES` values per array at most).
REPLAY_ROWS = 1 << 14
REPLAY_VALUES = 1 << 22
#: Releases agree when they differ by at most this many units of the coarser type's machine epsilon, relative to
#: the size of the terms (release, view's release, noise): one rounding of each side and of a centre added in
#: another order.
REPLAY_ULPS = 4.0
WORLDS = ("D", "D'")
#: Views are trusted for float32 and float64 releases only: the structure checks' tolerances (a few hundred ulps)
#: mean nothing at float16's 2^-10.
FLOAT32_EPS = float(np.finfo(np.float32).eps)

Draw = Callable[[int, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class Replay:
    """The outcome of a replay: ``rows`` releases compared per world, ``mismatches`` of them that differ, and
    ``reason`` (empty when the view replays the sampler)."""

    rows: int
    mismatches: int
    reason: str = ""

    def unseen_rate(self, alpha: float) -> float:
        """The probability of a branch of ``sample()`` none of the ``rows`` replayed rows of one world fell in, bounded
        at confidence 1 − ``alpha``: the Clopper–Pearson upper end 1 − α^{1/m} for no success in m rows."""
        return float(-np.expm1(np.log(alpha) / max(1, self.rows)))

    def unseen_delta(self, epsilon: float, alpha: float) -> float:
        """How much a bound on the view's δ(ε) may miss the sampler's, at confidence 1 − ``alpha`` (module notes):
        u_D + e^ε u_D', each world's rate at α/2."""
        return float(min(1.0, (1.0 + np.exp(epsilon)) * self.unseen_rate(alpha / 2)))

    @property
    def exact(self) -> bool:
        """Whether ``sample()`` released exactly what the view released from the same draws, on every row."""
        return not self.reason

    def describe(self) -> str:
        if self.exact:
            return (
                f"Replay: sample() released exactly release_from_noise(the declared noise) on all {self.rows:,} "
                "rows per world drawn from the same generator state, so the view's bounds are the sampler's."
            )
        return (
            f"The view does not replay sample() ({self.reason}), so no bound rests on it and sample()'s own draws "
            "decide; to replay, sample() must draw its noise from the generator it is given as "
            "pdp_audit.verify.estimators.view_replay describes and release release_from_noise(world, noise)."
        )


def built_from_law(pair) -> bool:
    """Whether ``pair`` is its declared noise law by construction: a pair class of the suite's own (its module in
    ``pdp_audit``) that says so itself (``built_from_law`` in its own class body, so a subclass that overrides
    ``sample`` -- the user's, or a mutant of the zoo -- is never taken for it).  Only then is a bound on the view's
    law the sampler's without the replay's rate (module notes)."""
    cls = type(pair)
    return cls.__module__.startswith("pdp_audit.") and "built_from_law" in vars(cls) and bool(pair.built_from_law)


def canonical_draw(view, law: str) -> Draw:
    """How the suite draws the declared noise of ``view`` (module notes): ``draw(size, rng)`` → (size, noise_dim)."""
    parts = getattr(view, "pairs", None)
    if parts is not None and law == "gaussian":
        return _parts_draw([canonical_draw(_gaussian_view(p), "gaussian") for p in parts])
    if parts is not None:
        return _parts_draw([canonical_draw(p, law) for p in parts])
    k = int(view.noise_dim)
    if law == "gaussian":
        sigma = view.noise_sigma
        return lambda size, rng: sigma * rng.standard_normal((int(size), k))
    scale = np.broadcast_to(np.asarray(view.noise_scale, dtype=float), (k,))
    if law == "laplace":
        return lambda size, rng: rng.laplace(0.0, scale, (int(size), k))
    p = -np.expm1(-1.0 / scale)
    return lambda size, rng: (rng.geometric(p, (int(size), k)) - rng.geometric(p, (int(size), k))).astype(float)


def _gaussian_view(pair):
    return noise_view(pair)


def _parts_draw(draws: list[Draw]) -> Draw:
    return lambda size, rng: np.concatenate([draw(size, rng) for draw in draws], axis=1)


def replay(pair, view, law: str, seed: int, rows: int | None = None) -> Replay:
    """Replay ``pair.sample`` against ``view`` (module notes) over :data:`REPLAY_BLOCKS` seeds per world, at most
    ``rows`` rows per world in all (the audit's budget).  Never raises for the pair's faults: a replay that cannot
    run (an exception, a wrong shape) is a failed replay, and the checks that call ``sample()`` name the fault."""
    draw = canonical_draw(view, law)
    per_block = max(1, min(REPLAY_ROWS, REPLAY_VALUES // max(1, int(view.noise_dim))))
    if rows is not None:
        per_block = max(1, min(per_block, int(rows) // REPLAY_BLOCKS))
    compared = mismatches = 0
    for world in WORLDS:
        for block in range(REPLAY_BLOCKS):
            try:
                released = np.asarray(pair.sample(world, per_block, block_rng(seed, f"replay/{world}", block)))
                noise = draw(per_block, block_rng(seed, f"replay/{world}", block))
                via_view = np.asarray(view.release_from_noise(world, noise))
            except Exception as error:  # noqa: BLE001 -- the pair's own fault: named by the checks that sample
                return Replay(compared, mismatches, f"replaying raised {type(error).__name__}")
            if max(_epsilon(released), _epsilon(via_view)) > FLOAT32_EPS:
                return Replay(0, 0, f"releases of type {released.dtype}: coarser than float32, too coarse to verify")
            if released.shape != via_view.shape:
                return Replay(compared, mismatches, f"sample() gave shape {released.shape}, the view {via_view.shape}")
            compared += per_block
            mismatches += int(np.count_nonzero(~_agree(released, via_view, noise).all(axis=1)))
    rows_per_world = compared // len(WORLDS)
    if mismatches:
        return Replay(rows_per_world, mismatches, f"{mismatches:,} of {compared:,} releases differ")
    return Replay(rows_per_world, 0)


def _agree(released: np.ndarray, via_view: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Element-wise agreement at the coarser type's precision (NaN never agrees)."""
    eps = max(_epsilon(released), _epsilon(via_view))
    a, b = released.astype(float).reshape(len(released), -1), via_view.astype(float).reshape(len(via_view), -1)
    size = np.abs(a) + np.abs(b)
    if noise.shape == a.shape:
        size = size + np.abs(noise)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(a - b) <= REPLAY_ULPS * eps * size


def _epsilon(values: np.ndarray) -> float:
    return float(np.finfo(values.dtype).eps) if np.issubdtype(values.dtype, np.floating) else float(np.finfo(float).eps)
