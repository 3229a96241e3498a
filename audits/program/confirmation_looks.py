"""The black box's confirmation sized by what is left to decide: in looks of growing budget, and shortened to a
corroboration -- or not run -- where an exact check has already refuted the claim.

**Looks** (:func:`looks`).  Where no exact check decides the claim, the black box does, on at most ``--trials``
(the user's cap) fresh releases per world.  Its budget is drawn in at most two looks fixed before any release: a
first one of ``n₁`` releases per world (:data:`MARGIN` times what an event test at α needs by the exact law of the
noise the pair's release carries, :func:`.feasibility.carried_needs`, at least :data:`FEWEST`; :data:`FIRST` where no
exact law sizes it), then the cap -- one look only where ``n₁`` is more than a quarter of the cap.  Each look is a
whole black-box run (training, event selection and fresh pass) on streams of its own seed, its fresh pass itself
stopped once decided at the look's level (:mod:`pdp_audit.audits.blackbox.anytime`: the exact test after each of its
rounds, Bonferroni over the rounds).  Look k is read at the level α·s_k, the shares s_k fixed in advance and summing
to 1 (a half each; the only look: 1), and the confirmation's p-value is min_k p_k / s_k over the looks run.  Validity
(Bonferroni over fixed looks, an α-spending in the sense of Lan & DeMets 1983): given everything before look k, its
releases are new draws of the two worlds and its p-value is valid, P(p_k ≤ a·s_k) ≤ a·s_k; a look not run counts as
p_k = 1, no smaller than the one it would have given; so by the union bound, whatever looks are run and wherever the
run stops, P(min_k p_k/s_k ≤ a) ≤ Σ_k a·s_k = a for every a, and Holm's procedure over the run's family keeps its
level.  The price: the cap's look reads its test at α/2 (about 5% more releases at α = 1e-6: log 2e6 / log 1e6); the
gain: a violation the exact law says is plain is refuted after a few thousand of the program's runs, not 90,000.

**An exact refutation ends the run** (:func:`corroboration`).  Where an exact check fails (``program-structure`` or
``program-composition``: a lower composition of noise the release carries, not conditioned on draws it does not
reveal -- those stay inconclusive, :mod:`.conditioning`, and go to the looks above; nor read from a record that does
not reproduce, :func:`.decision._check`), that fail is the run's verdict and exit code whatever the black box says:
Holm's procedure decides only the statistical checks, and an exact check keeps its own verdict
(:func:`pdp_audit.verify.core.checks.finalize`).  So the confirmation can only corroborate the refutation on fresh
releases, never decide it: it is run once, at level α, on the witness pair or the smaller pair that needs fewest
(:mod:`.smaller`), where the exact law of the noise its release carries says an event test refutes within
:data:`CORROBORATION` releases per world (and ``--trials``), on :data:`MARGIN` × the releases it needs (at least
:data:`FEWEST`, at most that budget); else not at all (:func:`.confirmation.not_run`), the report saying which.
Shortening or skipping it cannot turn a wrong verdict into a pass: it removes a statistical check whose outcome could
at most add a second fail beside the exact one, so a refuted run stays refuted, only less corroborated; and no run
that no exact check refutes is shortened here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pdp_audit.verify.core.checks import CheckSpec, Evidence

#: The first look's releases per world where no exact law sizes it (the docs' ``--trials 2000``: the planted bugs of
#: the documented examples are refuted there).
FIRST = 2_000
#: The fewest releases per world a look or a corroboration draws (an event test at α = 1e-6 and ε = 1 rejects only
#: on 44 releases or more in its event, all of one world: log α / log(e/(1 + e))).
FEWEST = 500
#: A look sized by the exact law draws this many times the releases an event test needs there: the estimate is at
#: the expected counts of the best (Neyman-Pearson) event, and the black box learns its events from releases.
MARGIN = 4
#: An exact refutation's corroboration draws at most this many releases per world (about 9,000 runs of the
#: program in all: training, selection and fresh releases of both worlds); one that needs more is not run.
CORROBORATION = 2_000


@dataclass(frozen=True)
class Look:
    """One look of the confirmation: ``trials`` fresh releases per world (its training and selection sized from them
    by the black box), read at ``share`` of the run's α, on the streams of ``seed``."""

    trials: int
    share: float
    seed: int


def sized(needs: float | None) -> int | None:
    """The releases per world the exact law says a look needs (:data:`MARGIN` × ``needs``, at least :data:`FEWEST`);
    None where no exact law sizes it."""
    if needs is None or not math.isfinite(needs):
        return None
    return max(FEWEST, math.ceil(MARGIN * needs))


def looks(cap: int, needs: float | None, seed: int) -> tuple[Look, ...]:
    """The looks of a confirmation of at most ``cap`` releases per world (module notes): a first look of
    :func:`sized` (``needs``) or :data:`FIRST` releases, then the cap, a half of α each; the cap alone, at the whole
    α, where the first look would be more than a quarter of it.  The cap's look keeps the run's ``seed`` (its streams
    those of an unstaged confirmation); the first look's seed is derived from it (:func:`first_seed`)."""
    first = sized(needs) or FIRST
    if 4 * first > cap:
        return (Look(cap, 1.0, seed),)
    return (Look(first, 0.5, first_seed(seed)), Look(cap, 0.5, seed))


def corroboration(cap: int, needs: float | None, seed: int) -> Look | None:
    """The one look that corroborates an exact refutation (module notes): where an event test needs at most
    ``cap`` releases per world by the exact law (``needs``), :func:`sized` (``needs``) of them but at most ``cap``, at
    the whole α; None (not run) otherwise.  ``cap``: the user's, at most :data:`CORROBORATION`."""
    size = sized(needs)
    if size is None or needs is None or needs > cap:
        return None
    return Look(min(size, cap), 1.0, seed)


@dataclass(frozen=True)
class Reading:
    """One piece of the black box's evidence (``raw``) as the confirmation reads it before its check is built, once
    (:meth:`check`): whether it is the event test's (``confirm``), its p-value at its look's ``share`` of α corrected
    over the ``tests`` Bonferroni's joins (:mod:`.screening`; its event and interval read at the level × share / tests),
    its ``note`` and ``details``."""

    raw: Evidence
    confirm: bool
    pvalue: float | None
    share: float = 1.0
    tests: int = 1
    note: str = ""
    details: dict = field(default_factory=dict)

    def noted(self, text: str) -> Reading:
        return dataclasses.replace(self, note=" ".join((self.note, text)).strip())

    def with_details(self, **details: Any) -> Reading:
        return dataclasses.replace(self, details={**self.details, **details})

    def check(self, spec: CheckSpec) -> Evidence:
        """The check of this reading, built once: the event test's as ``spec`` (``program-confirm``), any other
        piece as the black box named it."""
        raw, share, tests = self.raw, self.share, self.tests

        def at(read: Callable | None) -> Callable | None:
            return read if read is None or (share == 1.0 and tests == 1) else lambda level: read(level / tests * share)

        return dataclasses.replace(
            raw,
            spec=spec if self.confirm else raw.spec,
            pvalue=self.pvalue,
            failed=at(raw.failed),
            interval=at(raw.interval),
            note=self.note,
            details=self.details,
        )


def first_seed(seed: int) -> int:
    """The first look's seed: another entropy than ``seed``'s, so that its streams
    (:func:`pdp_audit.verify.estimators.engine.block_rng`) are independent of the cap's look's."""
    state = np.random.SeedSequence([int(seed) % 2**63, 0x1007]).generate_state(2, np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


def _confirm_of(found: list[Evidence]) -> Evidence | None:
    """The black box's confirming evidence in one look's evidence (its event test's, with a p-value)."""
    return next((e for e in found if _is_confirm(e) and e.pvalue is not None), None)


def _is_confirm(e: Evidence) -> bool:
    return e.spec.id in ("blackbox-attack", "program-confirm")


def decided(found: list[Evidence], look: Look, alpha: float) -> bool:
    """Whether a look ends the confirmation: its test rejects at its share of α, or one of its checks fails without a
    p-value (a sampler that breaks the protocol: no later look reads it otherwise)."""
    confirm = _confirm_of(found)
    if confirm is not None and confirm.pvalue is not None and confirm.pvalue <= alpha * look.share:
        return True
    return any(e.verdict == "fail" and e.pvalue is None for e in found)


def run_looks(run_look: Callable[[Look], list[Evidence]], schedule: tuple[Look, ...], alpha: float) -> list[Reading]:
    """The looks of ``schedule`` in order (``run_look(look)``: the black box's evidence of one), until one is
    :func:`decided` or the last has run: the evidence of the look of smallest p_k / s_k read at its share, its p-value
    that (at most 1), its event and interval at its share of the level, the looks planned and run in its details
    (module notes)."""
    runs: list[tuple[Look, list[Evidence]]] = []
    for look in schedule:
        found = run_look(look)
        runs.append((look, found))
        if decided(found, look, alpha):
            break
    return combined(runs, schedule)


def combined(runs: list[tuple[Look, list[Evidence]]], schedule: tuple[Look, ...]) -> list[Reading]:
    """The looks' evidence as one confirmation (:func:`run_looks`): the chosen look's, its confirmation read at its
    share (a single look of share 1 as it is), the looks in its details."""

    def weighted(run: tuple[Look, list[Evidence]]) -> float:
        confirm = _confirm_of(run[1])
        return math.inf if confirm is None or confirm.pvalue is None else confirm.pvalue / run[0].share

    chosen_look, chosen = min(runs, key=weighted) if any(math.isfinite(weighted(r)) for r in runs) else runs[-1]
    run = []
    for look, found in runs:
        confirm = _confirm_of(found)
        run.append({"releases_per_world": look.trials, "pvalue": None if confirm is None else confirm.pvalue})
    looked = {"planned": [{"releases_per_world": k.trials, "share_of_alpha": k.share} for k in schedule], "run": run}
    out, share = [], chosen_look.share
    for e in chosen:  # the confirmation read at its share: p / s (at most 1), its event and interval at s × the level
        if not _is_confirm(e):
            out.append(Reading(e, False, e.pvalue, details=dict(e.details)))
            continue
        pvalue = e.pvalue if e.pvalue is None or share == 1.0 else min(1.0, e.pvalue / share)
        out.append(Reading(e, True, pvalue, share, details={**e.details, "looks": looked}))
    return out


def words(looked: dict | None) -> str:
    """The looks planned and run (:func:`combined`'s details), as the confirmation's note says them (empty for a single
    look at the whole level)."""
    if not looked or len(looked["planned"]) < 2:
        return ""
    sizes = " and ".join(f"{row['releases_per_world']:,}" for row in looked["planned"])
    ran = len(looked["run"])
    said = "the first decided, the second was not drawn" if ran == 1 else "both drawn"
    return (
        f"Drawn in two looks fixed in advance ({sizes} releases per world at most, a half of α each, Bonferroni over "
        f"the looks: the p-value is the smaller p × 2); {said}."
    )
