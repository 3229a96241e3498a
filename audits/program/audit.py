"""The audit of a DP program: :func:`run_program` -- the structural analysis (:mod:`.analysis`), its checks, and the
black box's confirmation of a finding on its witness pair (handed in by the catalogue, which alone may reach
another audit).

Checks, one family at the run's α:

* ``program-record`` (exact): the program replays its recorded draws on D to the same release -- and, before a
  certificate, in a fresh process (:mod:`.fresh_process`) -- and draws, on D or on a neighbour, no randomness the
  audit cannot replay (:mod:`.entropy`); else nothing structural is trusted (inconclusive);
* ``program-structure`` (exact): on every neighbour searched, the replay with D's draws follows the same calls and
  the release differs only where the recorded noise carries it -- a divergence, a noise-free coordinate or structure
  that differs, a scale taken from the data are findings with their witness (inconclusive: a finding to confirm;
  sparse-vector programs diverge legitimately), except that a Laplace or Gaussian call whose scale depends on the
  data refutes a pure claim exactly (fail);
* ``program-composition`` (exact): the recorded primitives' exact privacy-loss laws composed on each pair
  (:mod:`.accounting`): fail where the composition of the noise the release carries exceeds the claim (a double
  spending, a sensitivity larger than the noise was calibrated for, a wrong neighbour relation); pass where every
  pair's upper composition is within the claim and nothing is unexplained; inconclusive otherwise;
* beside the composition, each primitive without a law it knows (gumbel, logistic; float Laplace and Gaussian as
  implemented) whose call shows its value, audited alone by the black box (:mod:`.isolated`), its verdict listed,
  and its estimated loss composed with the exact steps of its pair, as an estimate that decides nothing
  (:mod:`.estimated`);
* ``program-confirm`` (statistical, only where a check did not pass): the black box's attack on the final
  release of the witness pair (``trials`` fresh releases per world), its p-value beside the structural finding --
  or, where by the exact law of the noise it carries the witness pair needs more releases than that, on the smaller
  pair of D's first records that needs fewest and shows the same class of finding (:mod:`.smaller`); where that does
  not refute and the release is discrete, also on the pair a statistical screening of releases finds, the two joined
  by Bonferroni's correction (:mod:`.screening`).
"""

from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import (
    confirmation,
    confirmation_looks,
    feasibility,
    file_reads,
    fresh_process,
    isolated,
    screening,
    smaller,
    trace,
)
from pdp_audit.audits.program.adapters import LIBRARIES
from pdp_audit.audits.program.analysis import analyse
from pdp_audit.audits.program.config import ProgramAuditConfig
from pdp_audit.audits.program.confirmation import Confirmation, Run
from pdp_audit.audits.program.decision import certifies, confirmation_law, decide, found, not_covered, refutation
from pdp_audit.audits.program.estimated import estimated
from pdp_audit.audits.program.events import LibraryCall
from pdp_audit.audits.program.isolated import Isolated
from pdp_audit.audits.program.pages import review_page, shown_pair
from pdp_audit.audits.program.release_sampler import HEAD, ReleaseSampler, release_samplers, witness_columns
from pdp_audit.audits.program.results import Analysis, PairResult
from pdp_audit.audits.program.smaller import Smaller
from pdp_audit.reports.records import Page
from pdp_audit.verify.core.checks import Evidence
from pdp_audit.verify.core.config import LAW_SCOPES
from pdp_audit.verify.core.module_fingerprints import libraries
from pdp_audit.verify.core.sandbox import import_from_current_folder
from pdp_audit.verify.evidence.user_audits import decided
from pdp_audit.verify.inputs.validation import InputError, shown

#: At most this many of the other neighbours searched on the report's last program page.
OTHER_PAIRS = 16


def load_program(spec: str) -> Callable:
    """``MODULE:FUNCTION`` imported from the current folder or an installed module (one-line InputErrors)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise InputError(f"program must be MODULE:FUNCTION, got {spec!r}")
    module = import_from_current_folder(module_name, "program")
    program = getattr(module, attribute, None)
    if not callable(program):
        raise InputError(f"program: module {module_name!r} has no function {attribute!r}")
    return program


def load_data(path: str) -> Any:
    """A dataset file: ``.npy`` (a numpy array of records) or CSV with a header row (a pandas DataFrame), its bytes
    read once and parsed by :func:`parse_data`."""
    try:
        raw = Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"--data: cannot read {path!r} ({err.strerror or err})") from None
    return parse_data(path, raw)


def parse_data(path: str, raw: bytes) -> Any:
    """The dataset in the bytes ``raw`` of the file ``path`` (its suffix says how to read them): what every way in
    audits, so a deployment file's program reads the bytes it fingerprints exactly as ``--data`` reads its file."""
    if str(path).endswith(".npy"):
        try:
            return np.load(io.BytesIO(raw), allow_pickle=False)
        except (OSError, ValueError) as err:
            raise InputError(f"--data: cannot read {path!r} ({err})") from None
    import pandas as pd

    try:
        table = pd.read_csv(io.BytesIO(raw))
        header = pd.read_csv(io.BytesIO(raw), header=None, nrows=1, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as err:
        raise InputError(f"--data: cannot read {path!r} ({err})"[:300]) from None
    names = header.iloc[0].tolist() if len(header) else []
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:  # pandas renames the second ``a`` to ``a.1``: the program would read a column the file lacks
        raise InputError(
            f"--data: {shown(path)} has duplicate column names {duplicates}; every column needs its own name"
        )
    return table


def _target(config: ProgramAuditConfig) -> tuple[Callable, Any, str]:
    if config.target is not None:
        program, data = config.target  # a deployment file's program names itself by its MODULE:FUNCTION
        name = config.program or str(getattr(program, "__qualname__", type(program).__name__))
    else:
        assert config.program is not None and config.data is not None
        program, data, name = load_program(config.program), load_data(config.data), config.program
    if not callable(program):
        raise InputError(f"program must be a function program(data, rng), got {type(program).__name__}")
    if not (hasattr(data, "iloc") or isinstance(data, np.ndarray)):
        try:
            data = np.asarray(data)
        except (TypeError, ValueError):
            raise InputError(f"data must be a numpy array of records or a pandas DataFrame, got {type(data).__name__}")
    if len(data) == 0:
        raise InputError("data must hold at least one record")
    return program, data, name


#: What a program's verdict is about, by ``law``.
PROGRAM_SCOPES = {
    "as-implemented": "the program as implemented in floating point: continuous float noise added to a value is not "
    "certified",
    "ideal": LAW_SCOPES["ideal"] + " (the primitives' real-valued laws)",
}


def run_program(config: ProgramAuditConfig, progress: bool = False, confirm: Callable | None = None):
    """The audit of ``config``'s program (module notes); ``confirm(samplers, epsilon, delta, trials, seed, law,
    level=None)``: the black box's evidence on a pair of samplers ``(size, rng) -> releases``, its fresh pass stopped
    once decided at ``level`` where one is given (None: no confirmation).  The audited data
    file (``config.data``), opened by the program itself while the audit runs, is one line (:mod:`.file_reads`)."""
    try:
        with file_reads.refused([] if config.data is None else [config.data]):
            return _audited(config, progress, confirm)
    except file_reads.DataFileRead as read:
        name = config.program or str(getattr(config.target and config.target[0], "__qualname__", "program"))
        raise InputError(read.words(name)) from None


def _audited(config: ProgramAuditConfig, progress: bool, confirm: Callable | None):
    program, data, name = _target(config)
    target, claim = (program, data), (config.claim_epsilon, config.claim_delta)
    try:
        where = (config.domain_of(data), claim, config.seed)
        analysis = analyse(program, data, config.neighbours, *where, config.draw_sets, config.budget())
    except trace.ProgramFault as err:  # on D itself: every fault on a neighbour only is a finding of the analysis
        raise InputError(fault_on_d(name, err)) from None
    audits = [] if confirm is None else _isolated(analysis, config, confirm, target)
    estimate = estimated(analysis.pairs, audits, config.alpha)
    # the exact verdicts, read once: D's record replayed in a fresh process before a certificate or a tightest claim
    # (δ alone exceeded), a certificate only where it gives the release there too; where none, the black box confirms
    refuted, certified = refutation(analysis), certifies(analysis, claim, config.law, audits, tightest=False)
    if certified or certifies(analysis, claim, config.law, audits, tightest=True):
        elsewhere = fresh_process.replayed_elsewhere(program, data, analysis.recorded)
        analysis, certified = dataclasses.replace(analysis, elsewhere=elsewhere), certified and elsewhere.same
    confirmed = None if confirm is None or certified else _confirmation(analysis, target, config, confirm, refuted)
    evidence = decide(analysis, claim, config.law, audits, estimate, confirmed)
    parameters = {**_parameters(config, analysis), "libraries": used_libraries(program, analysis)}
    run = decided(name, evidence, config.alpha, parameters, config.seed)
    review = review_page(run, name, data, analysis, not_covered(analysis), PROGRAM_SCOPES[config.law])
    others = _others_page(analysis, shown_pair(analysis, run))
    return dataclasses.replace(run, pages=() if others is None else (others,), review=review)


def used_libraries(program: Callable, analysis: Analysis) -> list[dict[str, str]]:
    """Which version of each library the run saw: the installed distributions the program's module is written on,
    and those whose primitives it called (imported in its body, say), each with its version and the SHA-256 of its
    RECORD (:func:`~pdp_audit.verify.core.module_fingerprints.libraries`)."""
    called = {c.library for c in analysis.recorded.calls if isinstance(c, LibraryCall)}
    module = sys.modules.get(str(getattr(program, "__module__", "")))
    return libraries([] if module is None else [module], packages=called.intersection(LIBRARIES))


def _confirmation(
    analysis: Analysis, target: tuple, config: ProgramAuditConfig, confirm: Callable, refuted: tuple | None
) -> Confirmation:
    """The black box's confirmation of a finding, a stage of its own (:class:`.confirmation.Confirmation`, which
    :func:`.decision.decide` reads): on the witness pair, where it has a finding -- or, where by the exact law of the
    noise its release carries the witness pair needs more than ``trials`` releases per world, on the smaller pair of
    D's records that needs fewest (:mod:`.smaller`; DP quantifies over every neighbouring pair, Dwork & Roth 2014,
    Def. 2.4), chosen by the exact analyses alone: one test either way, drawn in looks (:mod:`.confirmation_looks`),
    at α -- at α/2 where other pairs could be screened; then, where that does not refute at its level, on the pair
    the statistical screening of the releases finds (:mod:`.screening`), the two joined by Bonferroni's correction.
    A wide release: on fewer releases and a projection.  Where an exact check refutes the claim (``refuted``: its
    name and witness, :func:`.decision.refutation`), only a short corroboration, or none (:func:`_corroborated`)."""
    program, data = target
    budget = confirmation.Budget(config.trials, config.alpha, analysis.recorded.numbers.size)
    config = dataclasses.replace(config, trials=budget.trials)
    if refuted is not None:
        return _corroborated(analysis, target, config, confirm, (refuted, budget))
    witness = confirmation.witness(analysis)
    first_config = config
    if witness is not None and witness.findings and screening.candidates(analysis.pairs, witness):
        # a screening may follow: the witness's test is read at its Bonferroni share, α/2 (screening's notes)
        first_config = dataclasses.replace(config, alpha=config.alpha / 2)
    first = None if witness is None or not witness.findings else _on_witness(target, witness, first_config, confirm)
    screened, second = None, None
    if not confirmation.refutes(first, first_config.alpha):
        tried = None if first is None else witness
        screened = screening.screen(program, data, analysis.pairs, tried, config.claim_epsilon, config.seed)
        if screened is not None and screened.worth and screened.pair is not None:
            second = _run(target, (screened.pair, screened.pair, None), config, confirm)
    return Confirmation(budget, first, screened, second, shared=first_config is not config)


def _corroborated(
    analysis: Analysis, target: tuple, config: ProgramAuditConfig, confirm: Callable, refuted: tuple
) -> Confirmation:
    """An exact refutation's confirmation (:mod:`.confirmation_looks`, module notes): one look at the whole α on the
    witness pair, or on the smaller pair that needs fewest releases (as :func:`_on_witness` chooses it, within
    :data:`~.confirmation_looks.CORROBORATION` releases), at the budget the exact law of its carried noise says
    refutes; where no such pair is within that budget, not run.  ``refuted``: the exact check that fails with its
    witness (:func:`.decision.refutation`), and the confirmation's :class:`~.confirmation.Budget`.  No screening: it
    could not change the verdict."""
    check, budget = refuted
    witness = confirmation.witness(analysis)
    if witness is None or not witness.findings or confirmation.wide(budget.numbers):
        return Confirmation(budget, refuted=check)
    short = dataclasses.replace(config, trials=min(config.trials, confirmation_looks.CORROBORATION))
    run = _on_witness(target, witness, short, confirm, corroborate=True)
    if run is None:
        needs = feasibility.carried_needs(witness, config.claim_epsilon, config.alpha)
        return Confirmation(budget, refuted=check, needed=None if needs is None else needs[0])
    return Confirmation(budget, run, refuted=check)


def _on_witness(
    target: tuple, witness: PairResult, config: ProgramAuditConfig, confirm: Callable, corroborate: bool = False
) -> Run | None:
    """The confirmation on the witness pair, or on the smaller pair needing fewest releases (:func:`_confirmation`);
    ``corroborate``: one look at the budget its exact law says refutes, or None where that is beyond ``config.trials``
    (:func:`.confirmation_looks.corroboration`)."""
    program, data = target
    needs = feasibility.carried_needs(witness, config.claim_epsilon, config.alpha)
    small = None
    if needs is not None and needs[0] > config.trials:
        small = smaller.smallest(program, data, config, witness)
    chosen = None if small is None or needs is None or small.needed >= needs[0] else (small, needs[0])
    pair, base = (witness, data) if chosen is None else (chosen[0].pair, chosen[0].base)
    pair_needs = needs if chosen is None else feasibility.carried_needs(pair, config.claim_epsilon, config.alpha)
    schedule, need = None, None if pair_needs is None else pair_needs[0]
    if corroborate:
        look = confirmation_looks.corroboration(config.trials, need, config.seed)
        if look is None:
            return None
        schedule = (look,)
    return _run((program, base), (pair, witness, chosen), config, confirm, pair_needs, schedule)


def _run(
    target: tuple,
    pairs: tuple[PairResult, PairResult, tuple[Smaller, float] | None],
    config: ProgramAuditConfig,
    confirm: Callable,
    needs: tuple[float, str] | None = None,
    schedule: tuple[confirmation_looks.Look, ...] | None = None,
) -> Run:
    """The black box run on a pair's releases (``target``: the program and the base it runs on; ``pairs``: the pair,
    the witness, and where the pair is a smaller one, it with the releases the witness needs), a wide release on the
    numbers that differ on the pair (:func:`~.release_sampler.witness_columns`), in the looks of ``schedule`` (None:
    those :func:`.confirmation_looks.looks` sizes from ``needs``, by the exact law of its carried noise)."""
    program, data = target
    pair, witness, chosen = pairs
    replayed = pair.comparison.replayed
    columns = witness_columns(pair.drawn.recorded.numbers, None if replayed is None else replayed.numbers)
    samplers = release_samplers(program, data, pair.neighbour.data, config.seed, columns)
    law = confirmation_law(pair, config.law)
    if schedule is None:
        schedule = confirmation_looks.looks(config.trials, None if needs is None else needs[0], config.seed)

    def look_run(look: confirmation_looks.Look) -> list[Evidence]:
        level = config.alpha * look.share  # the look's fresh pass stops once decided at its share of α
        return confirm(samplers, config.claim_epsilon, config.claim_delta, look.trials, look.seed, law, level)

    found = confirmation_looks.run_looks(look_run, schedule, config.alpha)
    sampler = samplers.sample_d
    assert isinstance(sampler, ReleaseSampler)
    kept = sampler.kept  # the columns read, where the release is read on some (HEAD's among them)
    small, witness_needs = (None, None) if chosen is None else chosen
    read = None if kept is None else kept.size - HEAD
    return Run(found, pair, witness, law, needs, small, witness_needs, read, schedule)


def _isolated(analysis: Analysis, config: ProgramAuditConfig, confirm: Callable, target: tuple) -> list[Isolated]:
    """The primitives without a law the composition knows, each audited alone by the black box (:mod:`.isolated`);
    ``target``: the program and its data (the values a noise added outside its call is added to are read by
    replaying them)."""
    program, data = target
    out = []
    for primitive in isolated.primitives(analysis, config.law, program, data):
        trials = min(config.trials, isolated.ISOLATED_TRIALS)
        pairs = isolated.primitive_pairs(primitive)
        found = confirm(pairs, config.claim_epsilon, config.claim_delta, trials, config.seed, config.law)
        out.append(isolated.audited(primitive, found, config.law, config.alpha))
    return out


def _others_page(analysis: Analysis, shown: PairResult | None) -> Page | None:
    """What page 1 does not show: the other neighbours searched, worst first, each with its first finding or its
    composition at the claim (None where page 1 shows the only pair)."""
    others = [p for p in sorted(analysis.pairs, key=lambda r: r.order, reverse=True) if p is not shown]
    if not others:
        return None
    rows = []
    for p in others[:OTHER_PAIRS]:
        if p.structural:
            rows.append(f"{p.neighbour.name}: {p.structural[0].line}")
        elif p.upper is not None:
            low = "" if p.lower is None else f", carried ≥ {p.lower.low:.3g}"
            rows.append(f"{p.neighbour.name}: pure ε {p.upper.pure:.4g}, δ(ε) ≤ {p.upper.high:.3g}{low}")
        else:
            rows.append(f"{p.neighbour.name}: not composed")
    if len(others) > OTHER_PAIRS:
        rows.append(f"... {len(others) - OTHER_PAIRS} more")
    text = (
        f"Page 1 shows one of the {len(analysis.pairs)} neighbouring datasets searched; the others, worst first "
        "(a finding, or the composition of the noise whose input moved: the steps' pure ε and δ(ε) at the claim)."
    )
    return Page("Program audit: the other neighbours searched", text, rows=rows)


def _parameters(config: ProgramAuditConfig, analysis: Analysis) -> dict:
    proposed = [p for p in analysis.pairs if p.neighbour.found_by]
    worst = max(proposed, key=lambda p: p.order, default=None)
    return {
        "claim": f"DP under {config.neighbours}",
        "epsilon": config.claim_epsilon,
        "delta": config.claim_delta,
        "neighbours": config.neighbours,
        "bounds": config.bounds,
        "search": config.search,
        "candidates": config.candidates,
        "trials": config.trials,
        "draw_sets": config.draw_sets,
        "law": config.law,
        "scope": PROGRAM_SCOPES[config.law],
        "pairs_searched": len(analysis.pairs),
        "pairs_proposed": len(proposed),
        "worst_proposed": None if worst is None else found(worst),
        "primitives": len(analysis.recorded.calls),
        "paths_replayed": len(analysis.draw_sets),
        "paths_not_replayed": analysis.unreplayed,
        "not_covered": not_covered(analysis),
    }


def fault_on_d(name: str, fault: trace.ProgramFault) -> str:
    """The one line of a program that raised on D, the dataset audited: the user's fault (exit 2), not a verdict --
    a program that does not run on its own data has no release to audit.  (Raising on a neighbour only is a
    difference the release shows, a finding: :mod:`.analysis`.)"""
    at = f" ({fault.place})" if fault.place else ""
    raised = str(fault).removeprefix("the program ")
    return f"program {shown(name)} {raised}{at} on D, the dataset audited (not a neighbour); a fault in the program"
