"""A search over neighbouring inputs for the black-box attack (:mod:`pdp_audit.audits.blackbox.attack`).

A black-box attack needs a pair (D, D'); a mechanism that leaks on some neighbouring inputs only passes when the
user did not guess them.  Here the mechanism is given as ``release(dataset, size, rng)`` (:class:`SearchMechanism`)
with a neighbour relation (:class:`Neighbours`), and a generator proposes candidate pairs:

* ``patterns``: the input patterns of StatDP (Ding et al., CCS 2018) as DP-Sniper (Bichsel et al., S&P 2021) uses
  them for vectors of query answers -- around the base vector (r, …, r): one answer moved, one moved and the rest the
  other way, half and half, all up, all down, and the "X" of two halves swapped -- each also swapped (D' as D), and
  for datasets of rows the analogous replace-one and add-remove patterns (:func:`pattern_candidates`);
* ``random``: the patterns, then pairs drawn at random within the relation (:func:`random_candidates`);
* ``optuna``: the patterns enqueued first (those of its box: not add-remove's swapped ones, whose D has n − 1 rows),
  then optuna's TPE sampler proposing pairs that maximise the pilot bound (:func:`optuna_candidates`; optuna:
  ``pip install optuna``).

**Validity.**  Every candidate is attacked on a *pilot* budget (its own seeded streams) and ranked by the pilot's ε
lower bound at :data:`PILOT_ALPHA`; the final bound is then the attack of the chosen pair on *fresh* releases
(streams seeded by :func:`final_seed`, disjoint from every pilot's).  Given the pilot draws, the chosen pair is
fixed and the final draws are independent of them, so the final bound is one level-α test of one fixed pair:
P(final bound > ε_true of that pair) ≤ α conditionally on any pilot outcome, hence unconditionally.  No union over
the candidates is needed -- the pilot only selects, it never enters the bound (the argument of sample splitting, as for
the statistic chosen on a validation split in :func:`pdp_audit.audits.blackbox.learned_statistics.select_statistic`).
The pair found is a pair of neighbours, so a bound above the claimed ε refutes the claim for the mechanism.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Iterator, Protocol

import numpy as np

from pdp_audit.audits.blackbox.attack import AttackOptions, BlackBoxAttack, _progress_bar, blackbox_attack
from pdp_audit.audits.blackbox.defaults import PILOT_STATISTIC, SEARCH_STATISTIC, SEARCH_TRIALS
from pdp_audit.audits.blackbox.neighbours import RELATIONS, Neighbours  # noqa: F401 (RELATIONS: re-exported)
from pdp_audit.mechanisms.base import MalformedPair, user_error
from pdp_audit.verify.core.candidate_search import Parameter, maximise, require
from pdp_audit.verify.core.sandbox import user_state
from pdp_audit.verify.inputs.interruptions import INTERRUPTIONS
from pdp_audit.verify.inputs.validation import InputError


class SearchMechanism(Protocol):
    """What a search needs of a mechanism (the object ``MODULE:FACTORY`` returns for ``blackbox --search``).

    ``dimension``: the length n of a dataset -- the number of query answers (``l1:R``, ``linf:R``) or of rows
    (``replace-one``; ``add-remove`` also calls ``release`` on n − 1 rows).
    ``release(dataset, size, rng)``: ``size`` independent releases on ``dataset`` (a 1-D float array) as a
    (size, d) array (a vector of ``size`` is one column), drawn from ``rng`` (a ``numpy.random.Generator``) only.
    Optional ``domain``: (low, high), the range of a row's value for ``replace-one`` / ``add-remove`` (default
    (0, 1)).
    """

    dimension: int

    def release(self, dataset: np.ndarray, size: int, rng: np.random.Generator) -> Any: ...


#: The candidate generators.
SEARCHES = ("patterns", "random", "optuna")
#: The level at which the pilots' bounds are compared (selection only: it never enters the final bound).
PILOT_ALPHA = 0.1


@dataclass(frozen=True)
class Candidate:
    """A candidate pair: its generator's ``name`` for it and the datasets."""

    name: str
    d: tuple
    dprime: tuple


def _vector_patterns(n: int, r: float, ball: str) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """StatDP's patterns around the base (r, …, r): (name, D, D') with D' = D + r·s/‖s‖ (‖·‖ the relation's norm,
    ∞ or 1, so every pair is on the boundary of the ball), and the X (two halves swapped)."""
    half = n // 2
    ones, rest = np.ones(n), np.r_[0.0, -np.ones(n - 1)]
    shapes = {
        "one above": -np.eye(n)[0],
        "one below": np.eye(n)[0],
        "one above rest below": np.eye(n)[0] + rest,
        "one below rest above": -np.eye(n)[0] - rest,
        "half above half below": np.r_[np.ones(half), -np.ones(n - half)],
        "all above": ones,
        "all below": -ones,
    }
    base = r * ones
    for name, step in shapes.items():
        if n == 1 and name in ("one above rest below", "one below rest above", "half above half below"):
            continue
        norm = np.abs(step).max() if ball == "linf" else np.abs(step).sum()
        yield name, base, base + r * step / norm
    if n >= 2:
        scale = 1.0 if ball == "linf" else 1.0 / n
        x = np.r_[np.ones(half), np.zeros(n - half)] * r * scale
        yield "X shape", x + base * (ball == "l1"), x[::-1] + base * (ball == "l1")


def _row_patterns(n: int, kind: str, domain: tuple) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """Rows at the domain's low, middle and high values, and half low half high; D' replaces the first row by the
    far end of the domain (``replace-one``) or removes the first row (``add-remove``)."""
    lo, hi = domain
    mid = (lo + hi) / 2
    bases = {"low": np.full(n, lo), "middle": np.full(n, mid), "high": np.full(n, hi)}
    if n >= 2:
        bases["half low half high"] = np.r_[np.full(n // 2, lo), np.full(n - n // 2, hi)]
    for name, base in bases.items():
        if kind == "add-remove":
            yield f"{name} rows, one removed", base, base[1:]
            continue
        for value in (lo, hi) if name != "half low half high" else (hi,):
            if base[0] != value:
                other = base.copy()
                other[0] = value
                yield f"{name} rows, one replaced by {value:g}", base, other


def pattern_candidates(n: int, neighbours: Neighbours, domain: tuple = (0.0, 1.0)) -> list[Candidate]:
    """The pattern candidates for datasets of length ``n`` (each pattern, then its swap), in a fixed order."""
    if neighbours.kind in ("l1", "linf"):
        raw = _vector_patterns(n, neighbours.radius, neighbours.kind)
    else:
        raw = _row_patterns(n, neighbours.kind, domain)
    out = []
    for name, d, dprime in raw:
        out.append(Candidate(name, tuple(map(float, d)), tuple(map(float, dprime))))
        out.append(Candidate(f"{name} (swapped)", tuple(map(float, dprime)), tuple(map(float, d))))
    return out


def random_pair(n: int, neighbours: Neighbours, domain: tuple[float, float], rng: np.random.Generator) -> tuple:
    """One random pair within the relation: answers uniform in [0, 2R] moved to a random point of the ball's boundary
    (``linf``: each coordinate ±R or uniform in [−R, R], half each; ``l1``: signs times a uniform point of the
    simplex), or rows uniform in the domain with one replaced or removed."""
    if neighbours.kind in ("l1", "linf"):
        r = neighbours.radius
        d = rng.uniform(0, 2 * r, n)
        if neighbours.kind == "linf":
            step = np.where(rng.random(n) < 0.5, rng.choice([-r, r], n), rng.uniform(-r, r, n))
        else:
            step = rng.choice([-1.0, 1.0], n) * rng.dirichlet(np.ones(n)) * r
        return d, d + step
    d = rng.uniform(*domain, n)
    if neighbours.kind == "add-remove":
        return d, np.delete(d, rng.integers(n))
    other = d.copy()
    other[rng.integers(n)] = rng.uniform(*domain)
    return d, other


def random_candidates(n: int, neighbours: Neighbours, domain: tuple, count: int, seed: int) -> list[Candidate]:
    """The patterns, then random pairs (:func:`random_pair`, seeded by ``seed``) up to ``count`` candidates."""
    out = pattern_candidates(n, neighbours, domain)[:count]
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5EA2C4]))
    while len(out) < count:
        d, dprime = random_pair(n, neighbours, domain, rng)
        out.append(Candidate(f"random {len(out)}", tuple(map(float, d)), tuple(map(float, dprime))))
    return out


@dataclass(frozen=True)
class DatasetSampler:
    """``(size, rng) -> releases`` of ``mechanism`` on ``dataset``; what the user's ``release`` raises is the
    mechanism's fault (:class:`MalformedPair`, one line naming the call).  Picklable when the mechanism is."""

    mechanism: Any
    dataset: tuple
    world: str

    def __call__(self, size: int, rng: np.random.Generator) -> Any:
        try:
            with user_state():  # what the mechanism sets of the process's state is undone
                return self.mechanism.release(np.asarray(self.dataset, dtype=float), size, rng)
        except BaseException as err:  # a BaseException of the user's code is theirs too (as UserSampler's)
            if isinstance(err, INTERRUPTIONS):  # Ctrl-C, SIGTERM: a wish to stop, not a fault
                raise
            raise MalformedPair(f"release({self.world}, {size}) raised {user_error(err)}") from None


@dataclass(frozen=True)
class SearchBudget:
    """The search's budget: ``pilot_trials`` releases per world both to learn and to bound each candidate's pilot,
    ``candidates`` pairs at most, the final attack's ``trials`` and ``train_trials`` (None: the attack's default
    for its statistic), the final attack's ``options`` (statistic, executor), ``rounds`` of successive halving
    (:func:`halved`), the pilots' statistic (``pilot_statistic``), and ``progress``: bars on a terminal's stderr,
    of the pilot attacks and of the final attack's releases."""

    candidates: int = 16
    pilot_trials: int = 20_000
    trials: int = SEARCH_TRIALS
    train_trials: int | None = None
    options: AttackOptions = AttackOptions(SEARCH_STATISTIC)
    rounds: int = 1
    pilot_statistic: str = PILOT_STATISTIC
    progress: bool = False

    @property
    def pilot_options(self) -> AttackOptions:
        """The pilots' attack options: :attr:`pilot_statistic` on the final attack's executor."""
        return AttackOptions(self.pilot_statistic, self.options.executor, law=self.options.law)


@dataclass(frozen=True)
class Ranked:
    """A candidate and its pilot bound at :data:`PILOT_ALPHA` on ``pilot_trials`` releases per world (its last
    round's)."""

    candidate: Candidate
    pilot_bound: float
    pilot_trials: int = 0


@dataclass(frozen=True)
class SearchResult:
    """The ranking (best first, ties in the generator's order), the chosen pair and its final attack on fresh
    releases (seeded by :func:`final_seed`)."""

    ranking: tuple[Ranked, ...]
    chosen: Candidate | None  # None: the target's own pair, attacked without a search
    final: BlackBoxAttack
    final_seed: int


def derived_seed(seed: int, *path: int) -> int:
    """A seed for the sub-stream ``path`` of the root ``seed`` (NumPy's SeedSequence: independent streams)."""
    return int(np.random.SeedSequence([int(seed), *path]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def pilot_seed(seed: int, index: int) -> int:
    """The seed of the pilot of candidate ``index`` (its streams are disjoint from every other's)."""
    return derived_seed(seed, 1, index)


def final_seed(seed: int) -> int:
    """The seed of the final attack's fresh releases."""
    return derived_seed(seed, 2)


def _samplers(mechanism: Any, candidate: Candidate) -> tuple[DatasetSampler, DatasetSampler]:
    return DatasetSampler(mechanism, candidate.d, "D"), DatasetSampler(mechanism, candidate.dprime, "D'")


def pilot_bound(mechanism: Any, candidate: Candidate, delta: float, seed: int, budget: SearchBudget) -> float:
    """The candidate's pilot: the attack on ``budget.pilot_trials`` releases per world (to learn and to bound)."""
    attack = blackbox_attack(
        *_samplers(mechanism, candidate),
        budget.pilot_trials,
        delta,
        seed,
        train_trials=budget.pilot_trials,
        options=budget.pilot_options,
    )
    return attack.epsilon_lower_bound_at(PILOT_ALPHA)


def _ranked(tried: list[Ranked]) -> list[Ranked]:
    """Best pilot bound first; ties in the generator's order."""
    return [tried[i] for i in sorted(range(len(tried)), key=lambda i: (-tried[i].pilot_bound, i))]


def halved(
    mechanism: Any, tried: list[Ranked], delta: float, seed: int, budget: SearchBudget, bar=None
) -> list[Ranked]:
    """Successive halving (Karnin, Koren & Somekh 2013): for each round after the first, the better half of the
    previous round's candidates (at least 2) is attacked again on twice the pilot budget of fresh pilot releases
    (streams of their own), and ranked by that round's bound.  Returns the survivors of the last round first
    (ranked), then the candidates dropped in each earlier round (latest round first, each ranked by the bound of the
    round that dropped it).  Pilots only select: the final bound is unaffected (module docstring)."""
    ranking = _ranked(tried)
    dropped: list[Ranked] = []
    pilot = budget.pilot_trials
    for round_ in range(1, budget.rounds):
        if len(ranking) <= 1:
            break
        keep = max(2, len(ranking) // 2)
        survivors, gone = ranking[:keep], ranking[keep:]
        dropped = gone + dropped
        pilot *= 2
        stage = dataclasses.replace(budget, pilot_trials=pilot)
        if bar is not None:
            bar.total += len(survivors)
        ranking = _ranked(
            [
                Ranked(
                    r.candidate,
                    _counted_pilot(bar, mechanism, r.candidate, delta, derived_seed(seed, 3, round_, i), stage),
                    pilot,
                )
                for i, r in enumerate(survivors)
            ]
        )
    return ranking + dropped


def _counted_pilot(bar, *pilot) -> float:
    """:func:`pilot_bound` of ``pilot`` = (mechanism, candidate, delta, seed, budget), counted on ``bar``."""
    bound = pilot_bound(*pilot)
    if bar is not None:
        bar.update(1)
    return bound


def optuna_candidates(
    mechanism: Any, neighbours: Neighbours, delta: float, seed: int, budget: SearchBudget, bar=None
) -> list[Ranked]:
    """Candidates proposed by optuna's TPE sampler maximising the pilot bound, the patterns of its box enqueued first
    (the shared driver :func:`pdp_audit.verify.core.candidate_search.maximise`, seeded by ``seed``, one trial at a
    time); returns the (candidate, pilot bound) of every trial (each pilot counted on ``bar``, if any).  One-line
    InputError without optuna."""
    require("optuna")
    n, domain = int(mechanism.dimension), _domain(mechanism)
    vector = neighbours.kind in ("l1", "linf")
    low, high = (0.0, 2 * neighbours.radius) if vector else domain
    space = [Parameter(f"d{i}", "float", low, high) for i in range(n)]
    if vector:
        space += [Parameter(f"s{i}", "float", -1.0, 1.0) for i in range(n)]
    else:
        space.append(Parameter("replacement", "float", low, high))
    # a pattern whose D has n - 1 rows (add-remove's swapped ones) is no point of the box, whose D has n: enqueued
    # without its last row, TPE would draw that row and the trial would carry the pattern's name but not its pair
    patterns = [p for p in pattern_candidates(n, neighbours, domain) if len(p.d) == n][: budget.candidates]
    tried: list[Ranked] = []

    def to_pair(params: dict) -> tuple[np.ndarray, np.ndarray]:
        d = np.array([params[f"d{i}"] for i in range(n)])
        if not vector:
            other = d.copy()
            other[0] = params["replacement"]
            return d, (d[1:] if neighbours.kind == "add-remove" else other)
        step = np.array([params[f"s{i}"] for i in range(n)])
        norm = np.abs(step).max() if neighbours.kind == "linf" else np.abs(step).sum()
        return d, d + neighbours.radius * step / (norm if norm > 0 else 1.0)

    def criterion(proposals: list[dict], first: int) -> list[float]:
        for index, params in enumerate(proposals, first):
            d, dprime = to_pair(params)
            name = patterns[index].name if index < len(patterns) else f"optuna {index}"
            candidate = Candidate(name, tuple(map(float, d)), tuple(map(float, dprime)))
            bound = _counted_pilot(bar, mechanism, candidate, delta, pilot_seed(seed, index), budget)
            tried.append(Ranked(candidate, bound, budget.pilot_trials))
        return [r.pilot_bound for r in tried[first:]]

    enqueued = [_pattern_params(pattern, neighbours, vector) for pattern in patterns]
    maximise(space, criterion, "optuna", budget.candidates, seed, batch=1, enqueued=enqueued)
    return tried


def _pattern_params(pattern: Candidate, neighbours: Neighbours, vector: bool) -> dict:
    """optuna's parameters of a pattern (the inverse of its ``to_pair``)."""
    d, dprime = np.asarray(pattern.d), np.asarray(pattern.dprime)
    params = {f"d{i}": float(v) for i, v in enumerate(d)}
    if vector:
        step = (dprime - d) / neighbours.radius
        params.update({f"s{i}": float(v) for i, v in enumerate(step)})
    else:
        params["replacement"] = float(dprime[0]) if neighbours.kind == "replace-one" else float(d[0])
    return params


def _domain(mechanism: Any) -> tuple[float, float]:
    try:  # the user's attribute: whatever reading or converting it raises is theirs, in one line
        domain = getattr(mechanism, "domain", (0.0, 1.0))
        lo, hi = (float(v) for v in domain)
    except Exception as err:  # noqa: BLE001
        raise InputError(
            f"the mechanism's domain must be (low, high), finite with low < high ({type(err).__name__}: {str(err)!r})"
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InputError(f"the mechanism's domain must be (low, high), finite with low < high, got {domain!r}")
    return lo, hi


def search_pairs(mechanism: Any, neighbours: Neighbours, search: str, delta: float, seed: int, budget: SearchBudget):
    """Rank the candidates of ``search`` on their pilots and attack the best on fresh releases (module docstring:
    the final bound is one level-α test of the chosen pair).  Returns a :class:`SearchResult`."""
    n, domain = int(mechanism.dimension), _domain(mechanism)
    with _progress_bar(0, budget.progress, "blackbox search, pilot attacks", "pilot") as bar:
        if search == "optuna":
            if bar is not None:
                bar.total = budget.candidates
            tried = optuna_candidates(mechanism, neighbours, delta, seed, budget, bar)
        else:
            if search == "patterns":
                candidates = pattern_candidates(n, neighbours, domain)[: budget.candidates]
            else:
                candidates = random_candidates(n, neighbours, domain, budget.candidates, seed)
            if bar is not None:
                bar.total = len(candidates)
            tried = [
                Ranked(c, _counted_pilot(bar, mechanism, c, delta, pilot_seed(seed, i), budget), budget.pilot_trials)
                for i, c in enumerate(candidates)
            ]
        ranking = tuple(halved(mechanism, tried, delta, seed, budget, bar))
    for ranked in tried:  # our generators' promise, checked: a pair outside the relation would prove nothing
        d, dprime = np.asarray(ranked.candidate.d), np.asarray(ranked.candidate.dprime)
        assert neighbours.holds(d, dprime), ranked.candidate
    chosen = ranking[0].candidate
    final = blackbox_attack(
        *_samplers(mechanism, chosen),
        budget.trials,
        delta,
        final_seed(seed),
        budget.progress,
        train_trials=budget.train_trials,
        options=budget.options,
    )
    return SearchResult(ranking, chosen, final, final_seed(seed))
