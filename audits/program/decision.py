"""The program audit's exact checks decided once, from the typed findings of every pair (:mod:`.findings`), their
compositions (:mod:`.accounting`) and the primitives audited in isolation (:mod:`.isolated`): :func:`decide`.

* ``program-record``: pass where every draw set's record replays on D to its release, D's record gives it in a fresh
  process too where it was replayed there (:mod:`.fresh_process`), and no run on D or on a neighbour drew randomness
  the audit cannot replay (:mod:`.entropy`); else inconclusive (randomness the recorder does not see: nothing
  structural is trusted).
* ``program-structure``: pass where no pair has a structural finding; fail where one is exact (released noise whose
  scale moves, against a pure claim); else inconclusive, its witness the pair of highest order
  (:attr:`.PairResult.order`).
* ``program-composition``: fail where some pair's carried composition exceeds δ (:func:`~.accounting.exceeds`, the
  one definition of "δ exceeded"); pass only where every pair's upper composition is within the claim, no pair has a
  finding or noise not accounted for, every release coordinate is shown to carry shiftable noise or none is drawn
  that cannot be shifted, the record reproduces, no primitive was audited in isolation, and (as implemented) no step
  is continuous float noise; inconclusive otherwise.

Beside them, the black box's confirmation (:class:`.confirmation.Confirmation`, made before, from :func:`certifies`
and :func:`refutation`).  Each check is built once, here; the run's verdict and exit code follow from them by Holm's
procedure at the run's α (:func:`pdp_audit.verify.evidence.user_audits.decided`), and page 1's headline reads it.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from pdp_audit.audits.program.estimated import Estimated
from pdp_audit.audits.program.events import LibraryCall
from pdp_audit.audits.program.findings import Conditioned, Rescaled, Unshifted, UpperAbove, rank
from pdp_audit.audits.program.isolated import Isolated, line
from pdp_audit.audits.program.recorder import ELSEWHERE, NOT_RECORDED, REPEATED, UNREPLAYABLE
from pdp_audit.audits.program.relation_hint import replace_one_hint
from pdp_audit.audits.program.results import Analysis, PairResult
from pdp_audit.audits.program.sources import named
from pdp_audit.reports.records import Verdict
from pdp_audit.verify.core.checks import CheckSpec, Evidence, declare


class Confirmed(Protocol):
    """What :func:`decide` reads of the confirmation stage (:class:`.confirmation.Confirmation`, which imports this
    module's checks: named by what it gives, not imported, so the two modules import one way)."""

    @property
    def checks(self) -> list[Evidence]: ...


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


def confirmation_law(witness: PairResult, law: str) -> str:
    """The law the black box confirms a finding at: as implemented (the releases' float structure read, as
    ``pdp-audit blackbox`` reads it by default) where the run is about the program as implemented and the witness
    pair's release rests on continuous float noise of a finite, positive scale (a porous step:
    :attr:`~.step_laws.Step.porous`) -- whose doubles can carry the value it is added to (Mironov, CCS 2012), so that
    the real-valued law would confirm a program that is not the one shipped; else the real-valued law (a release
    without float noise, or noise of scale 0: read as numbers its deterministic difference hid from the event test)."""
    rests = any(s.porous and 0 < s.size < math.inf for s in witness.steps)
    return "as-implemented" if law == "as-implemented" and rests else "ideal"


def decide(
    analysis: Analysis,
    claim: tuple[float, float],
    law: str,
    isolated: list[Isolated],
    estimate: Estimated | None = None,
    confirmation: Confirmed | None = None,
) -> list[Evidence]:
    """The run's checks, each built once (module notes): ``program-record``, ``program-structure``,
    ``program-composition`` (``isolated``: the primitives audited alone; ``estimate``: their composition with the exact
    steps, :mod:`.estimated`, said and deciding nothing) and the black box's ``confirmation`` where it ran."""
    worst = analysis.worst()
    details = {
        "witness": None if worst is None else worst.neighbour.name,
        "witness_found_by": None if worst is None else found(worst)["found_by"],
        "pairs": _pair_rows(analysis),
        "not_covered": not_covered(analysis),
    }
    # the composition: the pairs' compositions against the claim, the isolated primitives beside them
    verdict, note, details, value = _composed(analysis, claim, details, law)
    if isolated:
        verdict, note, details = _beside_isolated((verdict, note, details), isolated, estimate, claim)
    composition = _check(analysis, "program-composition", verdict, note, details, value)
    return [_record(analysis), _structure(analysis), composition, *(confirmation.checks if confirmation else [])]


def _check(analysis: Analysis, name: str, verdict: Verdict, note: str, details: dict, value: float | None = None):
    """The exact check ``name``, built once: where the record on D does not reproduce (:mod:`.reproduction`), a
    refutation read from the replays is not exact, and stays undecided.  Every reading compares a replay with the
    record as the data's doing or the noise's; a program whose replay on D departs from its record is no function of
    the data and the recorded draws (a state it keeps, randomness the audit does not see), and its replays on D and D′
    may differ by the state (``10·k + x + Lap(1)`` on its k-th call is DP at every k; replays differ by 10 a call)."""
    if verdict == "fail" and not analysis.reproducible:
        why = (
            "Not exact: the record on D does not reproduce (program-record), so no difference between replays is "
            "read as the data's doing. "
        )
        verdict, note = "inconclusive", why + note
    return Evidence(CHECKS[name], verdict=verdict, estimate=value, note=note, details=details)


def certifies(analysis: Analysis, claim: tuple[float, float], law: str, isolated: list, tightest: bool) -> bool:
    """Whether every exact check :func:`decide` builds passes (with ``tightest``: or the composition certifies the
    tightest claim, :data:`TIGHTEST_PENDING`), read before any is built: the record reproduces, no pair has a
    structural finding, the composition's parts pass (:func:`_composed`) and no primitive is audited alone.  Where so,
    D's record is first replayed in a fresh process (:mod:`.fresh_process`); where not, the black box confirms."""
    if not analysis.reproducible or any(p.structural for p in analysis.pairs):
        return False
    verdict, _, details, _ = _composed(analysis, claim, {}, law)
    return (verdict == "pass" and not isolated) or (tightest and TIGHTEST_PENDING in details)


def refutation(analysis: Analysis) -> tuple[str, str | None] | None:
    """The first exact check :func:`decide` builds as a fail, and the witness it names (None: none fails): the
    structure check's exact finding, else the composition's refutation -- neither where the record does not
    reproduce (:func:`_check`)."""
    worst, structural = analysis.worst(), [p for p in analysis.pairs if p.structural]
    if not analysis.reproducible or worst is None:
        return None
    if any(f.exact for p in structural for f in p.structural):  # as :func:`_structure` reads them
        return "program-structure", max(structural, key=lambda p: p.order).neighbour.name
    return ("program-composition", worst.neighbour.name) if worst.refuted else None


#: Why a record that does not reproduce keeps the claim undecided, by the unrecorded source its notes name first.
UNREPRODUCED = (
    (UNREPLAYABLE, "The program uses randomness the audit cannot replay."),
    (REPEATED, "The program draws a recorded stream twice (a copy or a saved state of it)."),
    (ELSEWHERE, "The program draws randomness in another process, which the audit does not record."),
)


#: The libraries whose noise no seed reaches (OpenDP's samplers draw from the operating system's generator, PyDP's
#: from its own): a run of a program that calls them records other draws each time, so its numbers are that run's.
UNSEEDED = {"opendp": "OpenDP", "pydp": "PyDP"}


def _unseeded(analysis: Analysis) -> str:
    """The record's sentence on the libraries whose draws no seed reaches ("" where none is called)."""
    calls = [c for d in analysis.draw_sets for c in d.recorded.calls if isinstance(c, LibraryCall)]
    names = sorted({UNSEEDED[c.library] for c in calls if c.library in UNSEEDED})
    if not names:
        return ""
    verb = "draws" if len(names) == 1 else "draw"
    return (
        f" Not reproducible run to run: {' and '.join(names)} {verb} from a source no seed reaches, so another run"
        " records other draws (its witness and numbers may differ; each run's verdict is sound on its own)."
    )


def _record(analysis: Analysis) -> Evidence:
    unrecorded = _unrecorded(analysis)
    details: dict[str, Any] = {"trace": _trace(analysis, None), "unrecorded": unrecorded}
    seen = f" Randomness not recorded: {'; '.join(unrecorded)}." if unrecorded else ""
    seen += _unseeded(analysis)
    if not analysis.reproducible:
        why = next((w for source, w in UNREPRODUCED if any(source in line for line in unrecorded)), None)
        departed = next((d.probe.departed for d in analysis.draw_sets if d.probe.departed), analysis.probe.departed)
        if why is None and analysis.elsewhere is not None and not analysis.elsewhere.same:
            why = "D's record does not give its release in a fresh process."
        if why is None:  # no source the record noted says why: the replay itself does (:mod:`.reproduction`)
            why = (
                f"Replaying the recorded draws on D {departed or 'gives another release'}: randomness or state the "
                f"audit does not record (a value the program keeps between calls; {NOT_RECORDED})."
            )
        details["departed"] = departed
        return Evidence(CHECKS["program-record"], verdict="inconclusive", note=why + seen, details=details)
    return Evidence(
        CHECKS["program-record"],
        verdict="pass",
        note=f"{len(analysis.recorded.calls)} primitive call(s) recorded; the replay on D reproduces the release"
        + ("" if analysis.elsewhere is None else " here and in a fresh process (another hash seed, addresses, time)")
        + f".{seen}",
        details=details,
    )


def _unrecorded(analysis: Analysis) -> list[str]:
    """The randomness each draw set's record on D and each neighbour's replay used and did not record
    (:mod:`.sources`, :mod:`.entropy`), and what D's record replayed in a fresh process showed
    (:mod:`.fresh_process`), one line each."""
    lines = named([d.recorded for d in analysis.draw_sets])
    replays = [p.comparison.replayed for p in analysis.pairs if p.comparison.replayed is not None]
    # from the neighbours' replays, what keeps the claim undecided only (a constant seed read from D′ is D's kind)
    lines += [str(note) for run in replays for note in run.unrecorded if note.undecided]
    elsewhere = analysis.elsewhere
    lines += [elsewhere.line] if elsewhere is not None and not elsewhere.same else []
    return list(dict.fromkeys(lines))


def _structure(analysis: Analysis) -> Evidence:
    with_findings = [p for p in analysis.pairs if p.structural]
    if not with_findings:
        note = f"{len(analysis.pairs)} neighbour(s) replayed: same calls, differences only where noise carries them."
        return _check(analysis, "program-structure", "pass", note, {"pairs_searched": len(analysis.pairs)})
    first = max(with_findings, key=lambda p: p.order)
    exact = [(p, f) for p in analysis.pairs for f in p.structural if f.exact]
    verdict: Verdict = "fail" if exact else "inconclusive"
    why = " A finding for the black box to confirm."
    if exact:
        pair, finding = exact[0]
        tails = finding.tails if isinstance(finding, Rescaled) else 0.0  # the one exact structural finding
        why = (
            " A pure claim is refuted exactly: released noise of a location family whose scale differs between D "
            f"and D′ has an unbounded privacy-loss ratio in its tails, and the release carries them: an event there, "
            f"verified by replay on D and on D′, gives δ(ε) ≥ {tails:.4g} > 0 "
            f"({pair.neighbour.name}: {pair.scale_moves[0]})."
        )
    divergence = first.comparison.divergence
    hint = replace_one_hint(analysis.pairs, analysis.records)  # a hint, never a verdict (:mod:`.relation_hint`)
    return _check(
        analysis,
        "program-structure",
        verdict,
        f"{len(with_findings)} of {len(analysis.pairs)} neighbour(s) with findings; witness: "
        f"{first.neighbour.name}{drawn(analysis, first)}: {first.structural[0].line}.{why}"
        + ("" if hint is None else f" {hint}"),
        {
            **({} if hint is None else {"relation_hint": hint}),
            "witness": first.neighbour.name,
            "draw_set": first.drawn.index,
            "witness_found_by": found(first)["found_by"],
            "findings": [f.line for f in first.structural],
            "trace": _trace(analysis.seen_by(first), None if divergence is None else divergence.index),
            "pairs_searched": len(analysis.pairs),
        },
    )


#: The composition check's parts before it is built (:func:`_check`): its verdict, note, details and estimate.
Parts = tuple[Verdict, str, dict, "float | None"]


def _composed(analysis: Analysis, claim: tuple[float, float], details: dict, law: str) -> Parts:
    """The composition check's parts, from the pairs' compositions against ``claim`` (module notes): the check
    :func:`decide` builds, and what :func:`certifies` reads before any check is built."""
    epsilon, delta = claim
    if any(p.refuted for p in analysis.pairs):
        return _refuted(analysis, epsilon, delta, details)
    # a pair whose release carries other draws on D′ than on D has steps no composition of the pair describes
    decided = [p for p in analysis.pairs if p.upper is not None and not p.comparison.carriers_moved]
    if not decided:
        return _uncomposed(analysis, details)
    top = _top(decided)
    assert top.upper is not None
    open_pairs = [p for p in analysis.pairs if p.structural or p.unaccounted or p.upper is None]
    summary = (
        f"worst pair {top.neighbour.name}: δ(ε = {epsilon:g}) ≤ {top.upper.high:.4g}, pure ε of the steps "
        f"{top.upper.pure:.6g} ({top.upper.how})"
    )
    unshifted = analysis.unshifted()
    if not top.against.upper_above and not open_pairs and analysis.reproducible and unshifted is None:
        return _within(analysis, top, summary, details, law)
    reasons = _conditioned(analysis.pairs) + _open_reasons(top, open_pairs, unshifted, analysis.reproducible)
    tightest = _tightest(analysis, top, (epsilon, delta), law) if len(reasons) == 1 and not open_pairs else None
    return _undecided(analysis, (summary, reasons, details), tightest, claim, top.upper.high)


def _undecided(
    analysis: Analysis,
    said: tuple[str, list[str], dict],
    tightest: float | None,
    claim: tuple[float, float],
    high: float,
) -> Parts:
    """The undecided composition's parts: its ``said`` summary, reasons and details, with the ``tightest`` claim the
    same composition certifies said first (:func:`_tightest`), or kept for the fresh process where that is to run."""
    summary, reasons, details = said
    epsilon, delta = claim
    if tightest is not None and analysis.elsewhere is None:  # a certificate's fresh process is still to run
        details = {**details, TIGHTEST_PENDING: tightest}
    elif tightest is not None:  # δ alone is exceeded: the claim the same composition certifies, said first
        summary = f"Certified at ({epsilon:g}, {tightest:.4g}), not at the claim ({epsilon:g}, {delta:g}): {summary}"
        details = {**details, "certified_at": [epsilon, tightest]}
    return "inconclusive", f"{summary}; " + "; ".join(reasons) + ".", details, high


#: The composition's detail of a tightest claim (:func:`_tightest`) whose certificate waits for the fresh process, as
#: a pass's does (:func:`certifies`): the audit runs it, and the claim is said once it reproduces.
TIGHTEST_PENDING = "certified_at_if_reproduced"


def _tightest(analysis: Analysis, top: PairResult, claim: tuple[float, float], law: str) -> float | None:
    """The smallest δ̄ the composition certifies at the claim's ε -- every pair's upper composition at most δ̄ (the
    largest, ``top``'s, rounded up) -- where that, not a finding, is all that keeps the claim from a pass: every pair
    composed, its only finding the upper composition above δ, the record reproduced, no noise unshifted, no
    conditioning, and as implemented no porous step (whose real-valued law certifies nothing of the float program).
    None where that is not so, or δ̄ is 1.  Said as certified only once the record also reproduces in a fresh
    process, as a pass's is (:data:`TIGHTEST_PENDING`).  *Sound for* what a pass at (ε, δ̄) is sound for: the same
    pairs, replays and upper compositions at the same ε, each within δ̄, and no finding but δ's."""
    assert top.upper is not None
    high = top.upper.high
    if any(p.upper is None or not all(isinstance(f, UpperAbove) for f in p.findings) for p in analysis.pairs):
        return None
    porous = law == "as-implemented" and any(s.porous for p in analysis.pairs for s in p.steps)
    conditioned = any(isinstance(f, Conditioned) for p in analysis.pairs for f in p.findings)
    if porous or conditioned or not analysis.reproducible or analysis.unshifted() is not None:
        return None
    return high if claim[1] < high < 1.0 else None


def _uncomposed(analysis: Analysis, details: dict) -> Parts:
    """No pair could be composed: every replay diverged, or each pair's release carries other noise on D′."""
    diverged = all(p.upper is None for p in analysis.pairs)
    why = "every replay diverged" if diverged else "each carries other noise on D′ than on D, or diverged"
    return "inconclusive", f"No pair could be composed ({why}).", details, None


def _top(decided: list[PairResult]) -> PairResult:
    """The largest composition; among equals (every pair's steps unmoved, say), the pair of highest order: the witness
    every other part of the report names (:meth:`.Analysis.worst`), not the first searched."""
    return max(
        decided, key=lambda p: (p.upper.high, p.upper.pure, p.order) if p.upper is not None else (0, 0, (0, 0, 0))
    )


def _within(analysis: Analysis, top: PairResult, summary: str, details: dict, law: str) -> Parts:
    """Every pair composed within the claim: a pass, but as implemented not where the release carries continuous
    float noise added to a value (porous steps), whose doubles can carry the value."""
    assert top.upper is not None
    composed = {"composed_epsilon": top.upper.pure, "composed_delta": top.upper.high}
    porous = sorted({s.what for p in analysis.pairs for s in p.steps if s.porous})
    if law == "as-implemented" and porous:
        note = (
            f"Not certified as implemented: {summary} holds for the real-valued laws, but the release carries "
            f"continuous float noise added to a value ({', '.join(porous[:4])}), whose doubles can carry the value "
            "(Mironov, CCS 2012; Haney et al. 2022). Rerun with law ideal (--law ideal) to certify the real-valued "
            "laws, or release integer or snapped noise."
        )
        return "inconclusive", note, {**details, **composed, "porous": porous}, top.upper.high
    note = f"Every pair of {len(analysis.pairs)} within the claim; {summary}."
    return "pass", note, {**details, **composed}, top.upper.high


def _refuted(analysis: Analysis, epsilon: float, delta: float, details: dict) -> Parts:
    """The composition's failure on the witness every part of the report names (:meth:`.Analysis.worst`: among the
    pairs it refutes, a finite record before NaN or ±inf, then the largest lower bound on δ(ε)) -- each refutation is
    exact, so any one proves the claim false; the headline states this pair's bound beside this pair."""
    worst = analysis.worst()
    assert worst is not None and worst.refuted and worst.lower is not None
    note = (
        f"Refuted by composition on {worst.neighbour.name}{drawn(analysis, worst)}: δ(ε = {epsilon:g}) ≥ "
        f"{worst.lower.low:.4g} > "
        f"δ = {delta:g} for the noise the release carries (pure ε of the steps {worst.lower.pure:.6g}; "
        f"{worst.lower.how}); the steps: {'; '.join(s.what + ' ' + s.law for s in worst.carried[:6])}."
    )
    witness = {"witness": worst.neighbour.name, "witness_found_by": found(worst)["found_by"]}
    return "fail", note, {**details, **witness, "draw_set": worst.drawn.index}, worst.lower.low


def _open_reasons(
    top: PairResult, open_pairs: list[PairResult], unshifted: Unshifted | None, reproduced: bool = True
) -> list[str]:
    """Why a composition that does not refute does not certify either (``unshifted``: :meth:`Analysis.unshifted`)."""
    assert top.upper is not None
    reasons = []
    if top.against.upper_above and not any(isinstance(f, Conditioned) for p in open_pairs + [top] for f in p.findings):
        reasons.append(
            "the upper composition exceeds δ but the release does not carry every step (a bound, not a refutation)"
        )
    if open_pairs:
        first = max(open_pairs, key=lambda p: p.order)  # the most severe, as the witness is chosen
        said = [f.line for f in first.structural] or [u.line for u in first.unaccounted] or ["diverged"]
        reasons.append(
            f"{len(open_pairs)} pair(s) not explained by composition (worst: {first.neighbour.name}: {said[0]})"
        )
    if unshifted is not None:
        reasons.append(unshifted.line)
    if not reproduced:
        reasons.append("the record on D does not reproduce (program-record)")
    return reasons


def _conditioned(pairs: list[PairResult]) -> list[str]:
    """Why a composition above the claim does not refute where it is conditioned on draws the release does not reveal
    (:mod:`.conditioning`), on the pair of highest order among them; empty where none is."""
    conditioned = [(p, f) for p in pairs for f in p.findings if isinstance(f, Conditioned)]
    if not conditioned:
        return []
    pair, finding = max(conditioned, key=lambda pf: pf[0].order)
    return [
        f"on {pair.neighbour.name} {finding.line}; conditioning on such draws bounds the loss from above only (a "
        "mixture may lose less: subsampling), so a refutation is the black box's"
    ]


def _beside_isolated(
    parts: tuple[Verdict, str, dict], audits: list[Isolated], estimate: Estimated | None, claim: tuple[float, float]
) -> tuple[Verdict, str, dict]:
    """The composition's verdict, note and details (``parts``) with its isolated primitives: a primitive refuted
    alone means the program is not certified on it (named first in the note); one not refuted leaves its part of the
    program not certified (no exact law composes it), so the composition does not pass either way.  The ``estimate``
    of the primitives' composition with the isolated ones' losses is said after them, as an estimate: it decides
    nothing (:mod:`.estimated`)."""
    verdict, note, details = parts
    refuted = [a for a in audits if a.refuted]
    named = ", ".join(a.named for a in (refuted or audits))
    lead = (
        f"Not certified on a primitive refuted in isolation ({named}): the program rests on it."
        if refuted
        else f"Not certified: the part of {named} is not composed exactly (audited alone, not refuted)."
    )
    note = note[:1].upper() + note[1:]  # a sentence of its own after the lead
    note = f"{lead} {note} {line(audits)}" + ("" if estimate is None else f" {estimate.line(claim)}")
    rows = {"isolated": [a.row() for a in audits], "not_certified": [a.named for a in audits]}
    estimated = {} if estimate is None else {"estimated": estimate.row()}
    return "fail" if verdict == "fail" else "inconclusive", note, {**details, **rows, **estimated}


def not_covered(analysis: Analysis) -> list[str]:
    """What the verdict does not cover (:data:`NOT_COVERED`), and the draw sets whose own path was replayed on the
    sentinels only (past :data:`~pdp_audit.audits.program.analysis.MOST_PATHS`), where there are some."""
    out = list(NOT_COVERED) + [f"randomness not recorded: {line}" for line in _unrecorded(analysis)]
    if analysis.unreplayed:
        out.append(
            f"{analysis.unreplayed} of the {analysis.recorded_sets} draw sets, each on a path of its own past the "
            f"{len(analysis.draw_sets)} replayed on every neighbour (replayed on the two largest changes only)"
        )
    return out


def found(pair: PairResult) -> dict:
    """A pair as the JSON names it: its neighbour, how it was found (the named list, or the search's candidate), and
    its most severe finding's kind (None: none; :data:`.findings.SEVERITY`)."""
    found_by = pair.neighbour.found_by or "the named list"
    worst = max(pair.findings, key=lambda f: rank([f]), default=None)
    return {"neighbour": pair.neighbour.name, "found_by": found_by, "finding": None if worst is None else worst.kind}


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
    return f" (draw set {pair.drawn.index + 1} of {sets})" if len(analysis.draw_sets) > 1 else ""


def _pair_rows(analysis: Analysis) -> list[dict]:
    rows = []
    for p in sorted(analysis.pairs, key=lambda r: r.order, reverse=True)[:12]:
        row: dict[str, Any] = {**found(p), "draw_set": p.drawn.index, "findings": [f.line for f in p.structural]}
        if p.upper is not None:
            row.update(pure_epsilon=p.upper.pure, delta_upper=p.upper.high, how=p.upper.how)
        if p.lower is not None:
            row.update(delta_lower=p.lower.low)
        shown = p.steps[:20]  # a wide release's pair has 10⁵ steps
        row["steps"] = [f"{s.what}: {s.law}" + (f" μ = {s.size:.6g}" if s.law != "discrete" else "") for s in shown]
        rows.append(row)
    return rows
