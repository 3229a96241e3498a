"""The audit of a DP program: :func:`run_program` -- the structural analysis (:mod:`.analysis`), its checks, and the
black box's confirmation of a finding on its witness pair (handed in by the catalogue, which alone may reach
another audit).

Checks, one family at the run's α:

* ``program-record`` (exact): the program replays its recorded draws on D to the same release -- else it draws
  randomness the recorder does not see, and nothing structural is trusted (inconclusive);
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
  implemented) whose call shows its value, audited alone by the black box (:mod:`.isolated`), its verdict listed;
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
import math
from pathlib import Path
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import feasibility, isolated, screening, smaller, trace
from pdp_audit.audits.program.analysis import Analysis, PairResult, analyse
from pdp_audit.audits.program.config import ProgramAuditConfig
from pdp_audit.audits.program.pages import review_page, shown_pair
from pdp_audit.audits.program.recorder import NOT_RECORDED
from pdp_audit.audits.program.release_sampler import release_samplers
from pdp_audit.reports.records import Page, Verdict
from pdp_audit.verify.core.checks import CheckSpec, Evidence, declare
from pdp_audit.verify.core.config import LAW_SCOPES
from pdp_audit.verify.core.sandbox import import_from_current_folder
from pdp_audit.verify.evidence.user_audits import decided
from pdp_audit.verify.inputs.validation import InputError

SOURCE = "Cebere, Erb, Desfontaines, Bellet & Fitzsimons, PETS 2026 (grey-box auditing, record and replay)"
CHECKS = declare(
    CheckSpec(
        "program-record",
        "The program replays its recorded draws",
        "replaying D's recorded primitive draws on D gives the recorded release",
        "R(D; z) = R(D; z) for the recorded draws z",
        SOURCE,
    ),
    CheckSpec(
        "program-structure",
        "Same calls and noise-carried differences on every neighbour",
        "with D's draws, "
        "every neighbour D′ makes the same primitive calls and its release differs only where noise carries it",
        "calls(D; z) = calls(D′; z); R_i(D′; z) = R_i(D; z) for coordinates free of noise",
        SOURCE,
    ),
    CheckSpec(
        "program-composition",
        "Composed primitives within the claim",
        "the exact composition of the recorded primitives' privacy-loss laws on every pair searched is within (ε, δ)",
        "δ_{D‖D′}(ε) of ⊗ steps ≤ δ (Laplace: μ = |Δ|/b; Gaussian: μ = ‖Δ‖₂/σ; choice: log p/p′)",
        "Koskela, Jälkö & Honkela 2020 (PLD); Balle & Wang 2018, Thm 8; Dwork & Roth 2014, §3.3",
    ),
    CheckSpec(
        "program-confirm",
        "Black-box confirmation on the witness pair, a smaller or a screened pair",
        "the final release on the witness pair (or on a smaller pair of D's records, or a pair screened by its "
        "releases) satisfies the claim",
        "ε ≥ lower bound of the learned test's events on fresh releases",
        "DP-Sniper (Bichsel et al. 2021); Kairouz et al. 2015",
    ),
)
NOT_COVERED = (
    "timing and other side channels",
    "floating-point effects of the noise samplers themselves (audit them with pdp-audit's float-structure checks)",
    NOT_RECORDED,
    "neighbours other than those searched, and draws other than the recorded ones (the release is read at them)",
)
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
        return pd.read_csv(io.BytesIO(raw))
    except (OSError, ValueError) as err:
        raise InputError(f"--data: cannot read {path!r} ({err})"[:300]) from None


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


#: The privacy-loss laws of continuous float samplers (numpy's, diffprivlib's float mechanisms): added to a value in
#: floating point their doubles can carry the value, so a composition of their real-valued laws certifies the
#: program's real-valued law only (issue 60).
CONTINUOUS_LAWS = ("laplace", "gaussian")
#: diffprivlib's mechanisms that add continuous float noise (accounted by their declared budget where no exact law is
#: read here): porous in the same way (issue 60).  Its integer and index mechanisms (Geometric*, Binary,
#: Exponential*, PermuteAndFlip, GaussianDiscrete) and its Snapping are not.
DIFFPRIVLIB_FLOAT = tuple(
    "diffprivlib." + name
    for name in (
        "Laplace", "LaplaceTruncated", "LaplaceBoundedDomain", "LaplaceBoundedNoise", "LaplaceFolded", "Gaussian",
        "GaussianAnalytic", "Staircase", "Uniform", "Vector", "Bingham",
    )
)  # fmt: skip


def _porous(step: Any) -> bool:
    """Whether a composition step is continuous float noise (its ``what`` reads ``call K KIND ...``)."""
    words = step.what.split(" ")
    return step.law in CONTINUOUS_LAWS or (len(words) > 2 and words[2] in DIFFPRIVLIB_FLOAT)


def confirmation_law(witness: PairResult, law: str) -> str:
    """The law the black box confirms a finding at: as implemented (the releases' float structure read, as
    ``pdp-audit blackbox`` reads it by default) where the run is about the program as implemented and the witness
    pair's release rests on continuous float noise of a finite, positive scale -- whose doubles can carry the value
    it is added to (Mironov, CCS 2012), so that the real-valued law would confirm a program that is not the one
    shipped; else the real-valued law (a release without float noise, or noise of scale 0: read as numbers its
    deterministic difference hid from the event test)."""
    rests = any(_porous(s) and 0 < s.mu < math.inf for s in witness.steps)
    return "as-implemented" if law == "as-implemented" and rests else "ideal"


#: What a program's verdict is about, by ``law``.
PROGRAM_SCOPES = {
    "as-implemented": "the program as implemented in floating point: continuous float noise added to a value is not "
    "certified",
    "ideal": LAW_SCOPES["ideal"] + " (the primitives' real-valued laws)",
}


def run_program(config: ProgramAuditConfig, progress: bool = False, confirm: Callable | None = None):
    """The audit of ``config``'s program (module notes); ``confirm(samplers, epsilon, delta, trials, seed, law)``: the
    black box's evidence on a pair of samplers ``(size, rng) -> releases`` (None: no confirmation)."""
    program, data, name = _target(config)
    epsilon, delta = config.claim_epsilon, config.claim_delta
    try:
        where = (config.bounds_pair(), (epsilon, delta), config.seed)
        analysis = analyse(program, data, config.neighbours, *where, config.draw_sets, config.budget())
    except trace.ProgramFault as err:
        return decided(name, [_fault(str(err))], config.alpha, _parameters(config, None), config.seed)
    evidence = _structural(analysis, epsilon, delta, config.law)
    if confirm is not None:
        evidence = _isolated(analysis, evidence, config, confirm, (program, data))
    witness = analysis.worst(confirmable=True)
    needs_confirmation = any(e.verdict != "pass" for e in evidence)
    tried = None  # the pair confirmed first, where one was
    if needs_confirmation and confirm is not None and witness is not None and witness.score > 0:
        evidence += _confirmed((program, data), witness, config, confirm)
        tried = witness
    if needs_confirmation and confirm is not None:
        evidence = _screened(analysis, evidence, (program, data), tried, config, confirm)
    run = decided(name, evidence, config.alpha, _parameters(config, analysis), config.seed)
    review = review_page(run, name, data, analysis, not_covered(analysis), PROGRAM_SCOPES[config.law])
    others = _others_page(analysis, shown_pair(analysis, run))
    return dataclasses.replace(run, pages=() if others is None else (others,), review=review)


def _confirmed(target: tuple, witness: PairResult, config: ProgramAuditConfig, confirm: Callable) -> list[Evidence]:
    """The black box's confirmation of a finding, on the witness pair -- or, where by the exact law of the noise its
    release carries the witness pair needs more than ``trials`` releases per world, on the smaller pair of D's
    records that needs fewest (:mod:`.smaller`; DP quantifies over every neighbouring pair, Dwork & Roth 2014,
    Def. 2.4), chosen by the exact analyses alone: one test at α either way."""
    program, data = target
    pair, small = witness, None
    needs = feasibility.carried_needs(witness, config.claim_epsilon, config.alpha)
    if needs is not None and needs[0] > config.trials:
        small = smaller.smallest(program, data, config, witness)
        if small is not None and small.needed < needs[0]:
            data, pair = small.base, small.pair
        else:
            small = None
    samplers = release_samplers(program, data, pair.neighbour.data, config.seed)
    law = confirmation_law(pair, config.law)
    found = confirm(samplers, config.claim_epsilon, config.claim_delta, config.trials, config.seed, law)
    out = [_feasible(_as_confirmation(e, witness, law), pair, config) for e in found]
    return out if small is None or needs is None else [smaller.noted(e, small, needs) for e in out]


def _screened(
    analysis: Analysis,
    evidence: list[Evidence],
    target: tuple,
    tried: PairResult | None,
    config: ProgramAuditConfig,
    confirm: Callable,
) -> list[Evidence]:
    """Where no confirmation refutes at α (``tried``: the structural witness confirmed, or None), the pair the
    statistical screening of the releases finds (:mod:`.screening`) confirmed on fresh releases, the two
    confirmations joined by Bonferroni's correction; unchanged where the release is not discrete."""
    if any(e.spec.id == "program-confirm" and e.pvalue is not None and e.pvalue <= config.alpha for e in evidence):
        return evidence
    program, data = target
    found = screening.screen(program, data, analysis.pairs, tried, config.claim_epsilon, config.seed)
    if found is None or found.pair is None:
        return evidence
    if not found.worth:
        return screening.unscreened(evidence, found)
    samplers = release_samplers(program, data, found.pair.neighbour.data, config.seed)
    law = confirmation_law(found.pair, config.law)
    got = confirm(samplers, config.claim_epsilon, config.claim_delta, config.trials, config.seed, law)
    return screening.combined(evidence, [_as_confirmation(e, found.pair, law) for e in got], found)


def _isolated(
    analysis: Analysis, evidence: list[Evidence], config: ProgramAuditConfig, confirm: Callable, target: tuple
) -> list[Evidence]:
    """The primitives without a law the composition knows, each audited alone by the black box
    (:mod:`.isolated`), listed on the composition's evidence; ``target``: the program and its data (the values a
    noise added outside its call is added to are read by replaying them)."""
    rows = []
    program, data = target
    for primitive in isolated.primitives(analysis, config.law, program, data):
        trials = min(config.trials, isolated.ISOLATED_TRIALS)
        found = confirm(
            isolated.primitive_pairs(primitive),
            config.claim_epsilon,
            config.claim_delta,
            trials,
            config.seed,
            config.law,
        )
        rows.append(isolated.row(primitive, found, config.law, config.alpha))
    if not rows:
        return evidence
    return [_with_isolated(e, rows) if e.spec.id == "program-composition" else e for e in evidence]


def _with_isolated(composition: Evidence, rows: list[dict]) -> Evidence:
    """The composition with its isolated primitives: a primitive refuted alone means the program is not certified
    on it (named first in the note); one not refuted leaves its part of the program not certified (no exact law
    composes it), so the composition does not pass either way."""
    refuted = [r for r in rows if r.get("verdict") == "fail"]
    named = ", ".join(f"call {r['call']} {r['kind']}" for r in (refuted or rows))
    lead = (
        f"Not certified on a primitive refuted in isolation ({named}): the program rests on it."
        if refuted
        else f"Not certified: the part of {named} is not composed exactly (audited alone, not refuted)."
    )
    note = composition.note[:1].upper() + composition.note[1:]  # a sentence of its own after the lead
    out = composition.with_details(isolated=rows, not_certified=[f"call {r['call']} {r['kind']}" for r in rows])
    out = dataclasses.replace(out, note=f"{lead} {note}").noted(isolated.line(rows))
    return out if out.verdict == "fail" else dataclasses.replace(out, verdict="inconclusive")


def _others_page(analysis: Analysis, shown: PairResult | None) -> Page | None:
    """What page 1 does not show: the other neighbours searched, worst first, each with its first finding or its
    composition at the claim (None where page 1 shows the only pair)."""
    others = [p for p in sorted(analysis.pairs, key=lambda r: -r.score) if p is not shown]
    if not others:
        return None
    rows = []
    for p in others[:OTHER_PAIRS]:
        if p.findings:
            rows.append(f"{p.neighbour.name}: {p.findings[0]}")
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


def _parameters(config: ProgramAuditConfig, analysis: Analysis | None) -> dict:
    out: dict[str, Any] = {
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
    }
    if analysis is not None:
        proposed = [p for p in analysis.pairs if p.neighbour.found_by]
        worst = max(proposed, key=lambda p: p.score, default=None)
        out.update(
            pairs_searched=len(analysis.pairs),
            pairs_proposed=len(proposed),
            worst_proposed=None if worst is None else _found(worst),
            primitives=len(analysis.recorded.calls),
            paths_replayed=len(analysis.draw_sets),
            paths_not_replayed=analysis.unreplayed,
            not_covered=not_covered(analysis),
        )
    return out


def not_covered(analysis: Analysis) -> list[str]:
    """What the verdict does not cover (:data:`NOT_COVERED`), and the draw sets whose own path was replayed on the
    sentinels only (past :data:`~pdp_audit.audits.program.analysis.MOST_PATHS`), where there are some."""
    out = list(NOT_COVERED)
    if analysis.unreplayed:
        out.append(
            f"{analysis.unreplayed} of the {analysis.recorded_sets} draw sets, each on a path of its own past the "
            f"{len(analysis.draw_sets)} replayed on every neighbour (replayed on the two largest changes only)"
        )
    return out


def _found(pair: PairResult) -> dict:
    """A pair as the JSON names it: its neighbour, how it was found (the named list, or the search's candidate), and
    its score (:class:`~pdp_audit.audits.program.analysis.PairResult`)."""
    found_by = pair.neighbour.found_by or "the named list"
    return {"neighbour": pair.neighbour.name, "found_by": found_by, "score": pair.score}


def _fault(message: str) -> Evidence:
    return Evidence(
        CHECKS["program-record"], verdict="fail", note=f"The program's own fault: {message}", details={"fault": message}
    )


def _trace(analysis: Analysis, highlight: int | None) -> list[str]:
    """The recorded calls, one line each (the first 40), the diverging call marked."""
    lines = []
    for k, call in enumerate(analysis.recorded.calls[:40]):
        mark = " <-- diverges" if k == highlight else ""
        lines.append(f"{k}: {call.signature()}{mark}")
    if len(analysis.recorded.calls) > 40:
        lines.append(f"... {len(analysis.recorded.calls) - 40} more")
    return lines


def drawn(analysis: Analysis, pair: PairResult) -> str:
    """Which draw set ``pair`` was replayed on, as words (empty where only the first was replayed on every
    neighbour: the others followed its path)."""
    sets = analysis.recorded_sets
    return f" (draw set {pair.draw_set + 1} of {sets})" if len(analysis.draw_sets) > 1 else ""


def _pair_rows(analysis: Analysis) -> list[dict]:
    rows = []
    for p in sorted(analysis.pairs, key=lambda r: -r.score)[:12]:
        row: dict[str, Any] = {**_found(p), "draw_set": p.draw_set, "findings": list(p.findings)}
        if p.upper is not None:
            row.update(pure_epsilon=p.upper.pure, delta_upper=p.upper.high, how=p.upper.how)
        if p.lower is not None:
            row.update(delta_lower=p.lower.low)
        row["steps"] = [f"{s.what}: {s.law}" + (f" μ = {s.mu:.6g}" if s.law != "discrete" else "") for s in p.steps][
            :20
        ]
        rows.append(row)
    return rows


def _structural(analysis: Analysis, epsilon: float, delta: float, law: str) -> list[Evidence]:
    worst = analysis.worst()
    witness = None if worst is None else worst.neighbour.name
    details = {
        "witness": witness,
        "witness_found_by": None if worst is None else _found(worst)["found_by"],
        "pairs": _pair_rows(analysis),
        "not_covered": not_covered(analysis),
    }
    record = Evidence(
        CHECKS["program-record"],
        verdict="pass",
        note=f"{len(analysis.recorded.calls)} primitive call(s) recorded; the replay on D reproduces the release.",
        details={"trace": _trace(analysis, None)},
    )
    if not analysis.reproducible:
        record = Evidence(
            CHECKS["program-record"],
            verdict="inconclusive",
            note="Replaying the recorded draws on D gives another release: the program draws "
            f"randomness the recorder does not see ({NOT_RECORDED}).",
            details=record.details,
        )
    with_findings = [p for p in analysis.pairs if p.findings]
    exact_pure = [p for p in analysis.pairs if delta == 0 and p.scale_moves]
    if not with_findings:
        structure = Evidence(
            CHECKS["program-structure"],
            verdict="pass",
            note=f"{len(analysis.pairs)} neighbour(s) replayed: same calls, differences only where noise carries them.",
            details={"pairs_searched": len(analysis.pairs)},
        )
    else:
        first = max(with_findings, key=lambda p: p.score)
        divergence = first.comparison.divergence
        verdict: Verdict = "fail" if exact_pure else "inconclusive"
        why = (
            f" A pure claim is refuted exactly: released noise of a location family whose scale differs between D "
            f"and D′ has an unbounded privacy-loss ratio ({exact_pure[0].neighbour.name}: "
            f"{exact_pure[0].scale_moves[0]})."
            if exact_pure
            else " A finding for the black box to confirm."
        )
        structure = Evidence(
            CHECKS["program-structure"],
            verdict=verdict,
            note=f"{len(with_findings)} of {len(analysis.pairs)} neighbour(s) with findings; witness: "
            f"{first.neighbour.name}{drawn(analysis, first)}: {first.findings[0]}.{why}",
            details={
                "witness": first.neighbour.name,
                "draw_set": first.draw_set,
                "witness_found_by": _found(first)["found_by"],
                "findings": list(first.findings),
                "trace": _trace(analysis.seen_by(first), None if divergence is None else divergence.index),
                "pairs_searched": len(analysis.pairs),
            },
        )
    composition = _composition(analysis, epsilon, delta, details, law)
    return [record, structure, composition]


def _composition(analysis: Analysis, epsilon: float, delta: float, details: dict, law: str) -> Evidence:
    spec = CHECKS["program-composition"]
    refuted = [p for p in analysis.pairs if p.lower is not None and p.lower.low > delta * (1 + 1e-9)]
    if refuted:
        return _refuted(analysis, refuted, epsilon, delta, details)
    decided = [p for p in analysis.pairs if p.upper is not None]
    if not decided:
        return Evidence(
            spec, verdict="inconclusive", note="No pair could be composed (every replay diverged).", details=details
        )
    top = max(decided, key=lambda p: (p.upper.high, p.upper.pure) if p.upper is not None else (0, 0))
    assert top.upper is not None
    open_pairs = [p for p in analysis.pairs if p.findings or p.unaccounted or p.upper is None]
    summary = (
        f"worst pair {top.neighbour.name}: δ(ε = {epsilon:g}) ≤ {top.upper.high:.4g}, pure ε of the steps "
        f"{top.upper.pure:.6g} ({top.upper.how})"
    )
    porous = sorted({s.what for p in analysis.pairs for s in p.steps if _porous(s)})
    unshifted = analysis.unshifted()
    certified = top.upper.high <= delta and not open_pairs and analysis.reproducible and not unshifted
    if certified and law == "as-implemented" and porous:
        return Evidence(
            spec,
            verdict="inconclusive",
            estimate=top.upper.high,
            note=f"Not certified as implemented: {summary} holds for the real-valued laws, but the release carries "
            f"continuous float noise added to a value ({', '.join(porous[:4])}), whose doubles can carry the value "
            "(Mironov, CCS 2012; Haney et al. 2022). Rerun with law ideal (--law ideal) to certify the real-valued "
            "laws, or release integer or snapped noise.",
            details={**details, "composed_epsilon": top.upper.pure, "composed_delta": top.upper.high, "porous": porous},
        )
    if certified:
        return Evidence(
            spec,
            verdict="pass",
            estimate=top.upper.high,
            note=f"Every pair of {len(analysis.pairs)} within the claim; {summary}.",
            details={**details, "composed_epsilon": top.upper.pure, "composed_delta": top.upper.high},
        )
    return Evidence(
        spec,
        verdict="inconclusive",
        estimate=top.upper.high,
        note=f"{summary}; " + "; ".join(_open_reasons(top, open_pairs, delta, unshifted)) + ".",
        details=details,
    )


def _refuted(analysis: Analysis, refuted: list[PairResult], epsilon: float, delta: float, details: dict) -> Evidence:
    """The composition's failure on the pair whose carried noise gives the largest lower bound on δ(ε)."""
    worst = max(refuted, key=lambda p: p.lower.low if p.lower is not None else 0.0)
    assert worst.lower is not None
    return Evidence(
        CHECKS["program-composition"],
        verdict="fail",
        estimate=worst.lower.low,
        note=f"Refuted by composition on {worst.neighbour.name}{drawn(analysis, worst)}: δ(ε = {epsilon:g}) ≥ "
        f"{worst.lower.low:.4g} > "
        f"δ = {delta:g} for the noise the release carries (pure ε of the steps {worst.lower.pure:.6g}; "
        f"{worst.lower.how}); the steps: {'; '.join(s.what + ' ' + s.law for s in worst.carried[:6])}.",
        details={
            **details,
            "witness": worst.neighbour.name,
            "witness_found_by": _found(worst)["found_by"],
            "draw_set": worst.draw_set,
        },
    )


def _open_reasons(top: PairResult, open_pairs: list[PairResult], delta: float, unshifted: list[str]) -> list[str]:
    """Why a composition that does not refute does not certify either (``unshifted``: :meth:`Analysis.unshifted`)."""
    assert top.upper is not None
    reasons = []
    if top.upper.high > delta:
        reasons.append(
            "the upper composition exceeds δ but the release does not carry every step (a bound, not a refutation)"
        )
    if open_pairs:
        first = open_pairs[0]
        reasons.append(
            f"{len(open_pairs)} pair(s) not explained by composition (first: {first.neighbour.name}: "
            f"{(first.findings or first.unaccounted or ['diverged'])[0]})"
        )
    if unshifted:
        reasons.append(
            f"the program draws noise the audit can neither shift nor account ({', '.join(unshifted[:2])}), and a "
            "release coordinate no shifted draw moves may depend on it: not shown free of noise, so not certified"
        )
    return reasons


def _feasible(evidence: Evidence, witness: PairResult, config: ProgramAuditConfig) -> Evidence:
    """A confirmation that does not refute, with what it would have needed: where the noise the witness's release
    carries has an exact law, the releases per world an event test at α needs by it (:mod:`.feasibility`); beyond
    the budget, the note says the confirmation was out of reach, not that the finding is unconfirmed by evidence.
    The note is left out where the test's own p-value is within α: the estimate is of an event test at the expected
    counts, and a confirmation that refuted despite it must not read as one that did not (its verdict is Holm's,
    decided after this)."""
    refuted = evidence.verdict == "fail" or (evidence.pvalue is not None and evidence.pvalue <= config.alpha)
    if evidence.spec.id != "program-confirm" or refuted:
        return evidence
    needs = feasibility.carried_needs(witness, config.claim_epsilon, config.alpha)
    if needs is None:
        return evidence
    needed, what = needs
    out = evidence.with_details(releases_needed=needed, releases_needed_by=what)
    if needed <= config.trials:
        return out
    return out.noted(
        f"Not confirmed within {config.trials:,} releases per world: by the exact law of the noise the release "
        f"carries ({what}), an event test at α = {config.alpha:g} would need about {needed:.2g} per world; the exact "
        "finding stands on its own.",
        before=True,
    )


def _as_confirmation(evidence: Evidence, witness: PairResult, law: str) -> Evidence:
    spec = CHECKS["program-confirm"] if evidence.spec.id == "blackbox-attack" else evidence.spec
    at = "as implemented (the releases' float structure read)" if law == "as-implemented" else "the real-valued law"
    return (
        dataclasses.replace(evidence, spec=spec)
        .noted(f"Witness pair: D and {witness.neighbour.name}; confirmed at {at}.", before=True)
        .with_details(
            witness=witness.neighbour.name, witness_found_by=_found(witness)["found_by"], confirmation_law=law
        )
    )

