"""The program audit's review page (the report's page 1, :class:`~pdp_audit.reports.records.ReviewPage`): the
verdict about the claim in one headline and one reading, the witness pair as a small table (the record removed,
added or replaced, and the two datasets' rows that differ), the release under the same draws, the call trace with
each primitive's input distance between D and D′ against the distance its noise allows, the composition at the
claim, the black box's confirmation, and what the certificate does not cover.  The call trace is :mod:`.call_trace`'s.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from pdp_audit.audits.program.call_trace import (
    TRACE_ROWS,
    allowed_distance,
    call_text,
    in_file,
    moved_distance,
    number,
    trace_table,
)
from pdp_audit.audits.program.confirmation import witness as witness_of
from pdp_audit.audits.program.domain import fields_of
from pdp_audit.audits.program.neighbours import changed
from pdp_audit.audits.program.relation_hint import PAGE_HINT
from pdp_audit.audits.program.results import Analysis, PairResult
from pdp_audit.audits.program.screening import screened_on
from pdp_audit.audits.program.step_laws import Gaussian, Step
from pdp_audit.reports.records import Check, ReviewPage, Run, Section, Table
from pdp_audit.reports.verdict_words import check_word, claim_word

#: At most this many rows of the release and of the composition on the page (marked rows first).
RELEASE_ROWS = 4
STEP_ROWS = 4
#: At most this many fields of a record in the witness table (those that differ first).
FIELDS = 4
#: How each relation reads in the claim line.
RELATIONS = {"add-remove": "one record added or removed", "replace-one": "one record replaced"}
#: Page 1's footnote: where each word the page uses is explained (the docs page, as a path: the PDF is read away from
#: any site, and a fixed text keeps the report byte-reproducible).
GLOSSARY_LINE = "The words of this page (carried, loss alone, witness, as implemented, …): docs/reference/glossary.md."


def shown_pair(analysis: Analysis, run: Run | None = None) -> PairResult | None:
    """The pair the page shows: the pair the composition refutes, exactly, where one does (the worst: the headline's
    numbers are its); else the pair of ``run``'s confirmation where a statistical screening found it
    (:mod:`.screening`), else the pair the black box confirms first (:func:`.confirmation.witness`) where it has a
    finding, else the pair whose composition comes closest to the claim."""
    if not analysis.pairs:
        return None
    refuted = analysis.worst()
    if refuted is not None and refuted.refuted:  # an exact refutation: the pair whose numbers the headline states
        return refuted
    confirm = None if run is None else _confirmation(run)
    named = [p for p in analysis.pairs if confirm is not None and screened_on(confirm.details, p.neighbour.name)]
    if named:
        return named[0]
    witness = witness_of(analysis) or analysis.worst()
    if witness is not None and witness.findings:
        return witness
    return max(analysis.pairs, key=lambda p: (p.upper.high, p.upper.pure) if p.upper is not None else (-1.0, -1.0))


# --- the witness pair ----------------------------------------------------------------------------------------------


def _fields(data: Any) -> list[tuple[str, Any]]:
    """(name, column) of each field of a dataset (:func:`.domain.fields_of`), as the witness table heads them."""
    frame = hasattr(data, "iloc") and hasattr(data, "columns")
    return [(str(k) if frame else "value" if k is None else f"field {k}", v) for k, v in fields_of(data)]


def witness_table(data: Any, pair: PairResult, highlight: bool = True) -> Table:
    """The two datasets' sizes and the rows that differ: the record removed, added or replaced (D′'s row
    highlighted, for a witness)."""
    neighbour = pair.neighbour
    other = neighbour.data  # made at each reading
    n, m = len(data), len(other)
    before, after = _fields(data), _fields(other)
    position = neighbour.position
    if position is None:  # a record added as D′'s last
        rows = [("D", n, "—", None), ("D′", m, f"{m - 1} (added)", m - 1)]
    elif m < n:
        rows = [("D", n, str(position), position), ("D′", m, f"{position} (removed)", None)]
    else:
        rows = [("D", n, str(position), position), ("D′", m, f"{position} (replaced)", position)]
    d_row, d_prime_row = rows[0][3], rows[1][3]
    names = [name for name, _ in before]

    def differs(j: int) -> bool:
        if d_row is None or d_prime_row is None:
            return True
        return number(before[j][1][d_row]) != number(after[j][1][d_prime_row])

    order = sorted(range(len(names)), key=lambda j: not differs(j))[:FIELDS]
    order.sort()
    cells = []
    for (label, size, where, row), columns in zip(rows, (before, after)):
        values = ["—" if row is None else number(columns[j][1][row]) for j in order]
        cells.append([label, f"{size} records", where, *values])
    hidden = [j for j in range(len(names)) if j not in order]
    headings = [names[j] for j in order]
    if hidden:
        alike = "equal" if not any(differs(j) for j in hidden) else "more"
        headings[-1] += f" (+{len(hidden)} {alike} fields)"
    return Table(
        ["dataset", "size", "row", *headings],
        cells,
        highlight=(1,) if highlight else (),
        widths=[1.0, 1.2, 1.3, *[1.6] * len(order)],
    )


def _carried_by(analysis: Analysis, i: int) -> str:
    j = int(analysis.probe.carrier[i]) if i < analysis.probe.carrier.size else -1
    if j == -1:  # moved by no draw the probe shifts, small or by a whole scale, at D's draws: noise may still move it
        # elsewhere (a sparse vector's index), and noise the probe cannot shift (a hand-drawn law) may carry it
        return "no shifted noise" if analysis.probe.unperturbed else "no noise at D's draws"
    if j == -2:
        return "noise, not affinely"
    element = analysis.probe.elements[j]
    return f"noise of call {element.call}" + (f" [{element.index}]" if element.index else "")


def coordinate_names(structure: tuple, size: int) -> list[str]:
    """A name for each number of an encoded release (:func:`pdp_audit.verify.inputs.release_codec.encode`): its dict
    keys and positions (``sum``, ``[1]``, ``counts[0, 2]``, ``z.imag``); positions alone where the structure does not
    read."""
    names: list[str] = []
    nodes = iter(structure)

    def walk(prefix: str) -> None:
        node = next(nodes)
        tag = node[0]
        if tag in ("dict", "OrderedDict", "Counter", "defaultdict"):
            for key in node[-1]:
                walk(f"{prefix}.{_key_name(key)}" if prefix else _key_name(key))
        elif tag in ("tuple", "list", "namedtuple"):
            fields = node[-2] if tag == "namedtuple" else ()
            for i in range(node[-1]):
                walk(f"{prefix}.{fields[i]}" if fields else f"{prefix}[{i}]")
        elif tag == "Series":
            walk(prefix)
        elif tag == "DataFrame":
            for _ in range(len(node[3])):
                walk(prefix)
        elif tag in ("ndarray", "numpy", "torch"):
            _array_names(node, prefix, names, walk)
        elif tag in ("float", "int", "bool"):
            names.append(prefix or "the release")
        elif tag == "complex":
            names.extend(f"{prefix or 'the release'}.{part}" for part in ("real", "imag"))

    try:
        while len(names) < size:
            walk("")
    except (StopIteration, TypeError, IndexError):
        return [str(i) for i in range(size)]
    return names if len(names) == size else [str(i) for i in range(size)]


def _array_names(node: tuple, prefix: str, names: list[str], walk: Callable[[str], None]) -> None:
    """The names of an encoded array's numbers (an object array's items walked in turn)."""
    char, shape, layout = node[-4], tuple(node[-2]), node[-5]
    if isinstance(layout, tuple) and layout[2] is not None:  # a view: its numbers are its base's
        walk(prefix)
        return
    if char in "USV":
        return
    positions = [", ".join(map(str, i)) for i in np.ndindex(*shape)]
    at = [f"{prefix}[{p}]" if shape else (prefix or "the release") for p in positions]
    if char == "O":
        for name in at:
            walk(name)
    elif np.dtype(char).kind == "c":
        names.extend(f"{name}.{part}" for name in at for part in ("real", "imag"))
    else:
        names.extend(at)
    if layout == "grad":  # a tensor's gradient follows it
        walk(f"{prefix}.grad" if prefix else "grad")


def _key_name(key: tuple) -> str:
    """A dict key's name from its label (:func:`~pdp_audit.verify.inputs.release_codec.label`): a string as it is,
    a number as Python writes it, anything else as ``key``."""
    structure, numbers = key
    if len(structure) == 1 and structure[0][0] == "str":
        return structure[0][1]
    value = np.frombuffer(numbers, dtype=np.float64)
    if len(structure) == 1 and structure[0] in (("int", None), ("float",)) and value.size == 1:
        return str(int(value[0])) if structure[0][0] == "int" else repr(float(value[0]))
    return "key"


def _first_shown_differing(on_d: np.ndarray, on_d_prime: np.ndarray, at: Callable[[np.ndarray, int], str]) -> list[int]:
    """The first :data:`RELEASE_ROWS` coordinates whose numbers, as the table shows them (``at``), differ on D and on
    D′: only those whose bits differ (or that one side lacks) are formatted -- a release of 10⁵ numbers is not."""
    common = min(on_d.size, on_d_prime.size)
    with np.errstate(invalid="ignore"):
        unequal = np.flatnonzero(on_d[:common] != on_d_prime[:common])  # NaN too: its words decide
    candidates = itertools.chain(unequal.tolist(), range(common, max(on_d.size, on_d_prime.size)))
    differ = (i for i in candidates if at(on_d, i) != at(on_d_prime, i))
    return list(itertools.islice(differ, RELEASE_ROWS))


def release_table(analysis: Analysis, pair: PairResult) -> Table | None:
    """The release on D and on D′ with D's draws, coordinates that differ first (at most :data:`RELEASE_ROWS`); the
    ones that differ without noise carrying them highlighted (None where D′'s replay gave no release)."""
    replayed = pair.comparison.replayed
    on_d = analysis.recorded.numbers
    if replayed is None or on_d.size == 0:
        return None
    on_d_prime = replayed.numbers
    size = max(on_d.size, on_d_prime.size)

    def at(numbers: np.ndarray, i: int) -> str:
        return number(numbers[i]) if i < numbers.size else "absent"

    differ = _first_shown_differing(on_d, on_d_prime, at)
    shown = set(differ)
    alike = (i for i in range(size) if i not in shown)
    order = sorted(differ + list(itertools.islice(alike, RELEASE_ROWS - len(differ))))
    free = set(pair.comparison.free_differ) | set(pair.comparison.noisy_differ)
    names = coordinate_names(analysis.recorded.structure, on_d.size)
    rows, marked = [], []
    for k, i in enumerate(order):
        carried = _carried_by(analysis, i) if i < on_d.size else "—"
        rows.append([names[i] if i < len(names) else str(i), at(on_d, i), at(on_d_prime, i), carried])
        if i in free or (pair.comparison.structure_differs and i in differ):
            marked.append(k)
    more = size - len(order)
    if more:
        rows.append([f"… {more} more", "", "", ""])
    return Table(["release", "on D", "on D′ (D's draws)", "carried by"], rows, marked, widths=[1.4, 1.4, 1.4, 1.6])


# --- the composition, the checks, the certificate ------------------------------------------------------------------


def composition_table(analysis: Analysis, pair: PairResult, epsilon: float, delta: float) -> Table | None:
    """The pair's steps (law, loss alone, whether the release carries it) and, last, their composition at the
    claim's ε.  The steps the release carries come first: their composition is the lower bound, the one that decides
    a refutation.  Where it is not the composition of all known steps (an element read through a rounding is
    bounded below by its rounded law and above by its noise's law; an OpenDP measurement below by its law and above
    by its privacy map), the two compositions are two rows, the lower one highlighted where it exceeds the claim's
    δ, so the table says what decided."""
    if pair.upper is None:
        return None
    rows = _step_rows(pair)
    marked = []
    for row, deciding in _composed_rows(pair, epsilon):
        rows.append(row)
        marked += [len(rows) - 1] if deciding else []
    if pair.scale_moves:  # the steps are read at D's scales: with a scale that moved, the loss is not bounded
        unbounded = f"unbounded ({pair.scale_moves[0]}); the noise laws' rows above are at D's scales"
        rows.append(["scale moved", "—", "ε = ∞", unbounded])
        marked += [len(rows) - 1] if delta == 0 else []
    return Table(
        ["step (call and element)", "law", "loss alone", "carried by the release (lower bound)"],
        rows,
        tuple(marked),
        widths=[2.2, 1.6, 1.0, 2.2],
    )


def _step_rows(pair: PairResult) -> list[list[str]]:
    """The steps' rows, at most :data:`STEP_ROWS`: those the release carries first (the lower composition's), then
    those known only as upper bounds.  A carried step that is a known step but for its slack (its range's outside,
    :mod:`.carried_steps`) is that step, carried: one row; its slack is in the lower composition's row."""
    carried = {_law(s) for s in pair.carried}  # sets: a release of 10⁵ moved coordinates has 10⁵ steps
    known = [s for s in pair.steps if not s.trivial]
    known_laws = {_law(k) for k in known}
    below = [s for s in pair.carried if not s.trivial and _law(s) not in known_laws]
    shown_known = [s for s in known if _law(s) in carried]
    steps = shown_known + below + [s for s in known if _law(s) not in carried]
    below_set, shown_set = set(below), set(shown_known)
    rows = []
    for s in steps[:STEP_ROWS]:
        loss = f"μ = {number(s.mu)}" if isinstance(s, Gaussian) else f"ε = {number(s.pure_epsilon())}"
        shown = "yes (bounds below only)" if s in below_set else "yes" if s in shown_set else "no (bounded above only)"
        rows.append([s.what, s.law, loss, shown])
    if len(steps) > STEP_ROWS:
        rows.append([f"… {len(steps) - STEP_ROWS} more steps", "", "", ""])
    return rows


def _law(step: Step) -> Step:
    """The step without its slack: the law it composes (itself where it has none: a wide release's 10⁵ steps)."""
    return dataclasses.replace(step, slack=0.0) if step.slack else step


def _composed_rows(pair: PairResult, epsilon: float) -> list[tuple[list[str], bool]]:
    """The composition's rows, each with whether it decided a refutation: one where the carried steps are all the
    known ones, else the carried steps' (lower) and all known steps' (upper: no bound where some element is
    unaccounted, e.g. a rounded call rescaled on D′, whose grid is not D's shifted; left out where it bounds δ by
    1 only, which every pair satisfies)."""
    upper, lower = pair.upper, pair.lower
    assert upper is not None
    above = f"δ(ε = {epsilon:g}) ≤ {number(upper.high)}"
    if pair.unaccounted:  # an element known to no upper step: the known steps' composition bounds nothing
        above = f"not bounded above: {len(pair.unaccounted)} element(s) unaccounted"
    if lower is None or lower is upper:
        bounds = above if lower is None else f"{number(lower.low)} ≤ {above}"
        return [(["composed", upper.how.split(":")[0], f"ε = {number(upper.pure)}", bounds], pair.refuted)]
    carried = len([s for s in pair.carried if not s.trivial])
    verdict = "above the claim: refutes" if pair.refuted else "within the claim"
    if not pair.refuted and pair.against.lower_above:  # above, but conditioned or not shown carried: the black box's
        verdict = "above the claim, not a refutation (see the findings)"
    low = f"δ(ε = {epsilon:g}) ≥ {number(lower.low)}, {verdict}"
    name = f"composed, {carried} carried step(s)"
    rows = [([name, lower.how.split(":")[0], f"ε = {number(lower.pure)}", low], pair.refuted)]
    if pair.unaccounted or upper.high < 1:  # δ ≤ 1 holds of every pair: a row saying so would only take room
        whole = ["composed, all steps (above)", upper.how.split(":")[0], f"ε = {number(upper.pure)}", above]
        rows.append((whole, False))
    return rows


def checks_table(run: Run) -> Table:
    """Each check: exact or statistical, its verdict, its p-value and Holm-adjusted p-value at the run's α (the
    black box's confirmation beside the structural findings); failing checks highlighted."""
    rows, marked = [], []
    for k, check in enumerate(run.checks):
        p = "—" if check.pvalue is None else f"{check.pvalue:.3g} (Holm {check.adjusted_pvalue:.3g})"
        rows.append([check.title, "statistical" if check.statistical else "exact", check_word(check.verdict), p])
        if check.verdict == "fail":
            marked.append(k)
    return Table(["check", "kind", "verdict", f"p-value at α = {run.alpha:g}"], rows, marked, widths=[3, 1, 1, 1.8])


def _confirmation(run: Run) -> Check | None:
    return next((c for c in run.checks if c.id == "program-confirm"), None)


def _out_of_reach(run: Run, confirm: Check | None) -> str | None:
    """Where a confirmation that does not refute needed more releases than it had (``releases_needed``, by the
    exact law of the noise the release carries), the two numbers in words; else None."""
    if confirm is None or confirm.verdict == "fail":
        return None
    needed = confirm.details.get("releases_needed")
    trials = confirm.details.get("releases_per_world", run.parameters.get("trials"))  # fewer: a wide release's
    if needed is None or not trials or needed <= trials:
        return None
    return f"not within {int(trials):,} releases per world; the carried noise's exact law needs about {needed:.2g}"


def _on(confirm: Check) -> str:
    """Where the black box's confirmation ran: on the witness pair's final release, or on the smaller pair it names
    (:mod:`.smaller`: DP quantifies over every neighbouring pair)."""
    small = confirm.details.get("smaller_pair")
    if small:
        return f"on a smaller pair, {small['pair']}"
    found = screened_on(confirm.details)
    return "on the final release of the pair the screening of releases found" if found else "on the final release"


def _change(name: str) -> str:
    """A neighbour's name as what D′ is: ``D′ = D with record 3 (the maximum) removed``."""
    said = changed("D", name)
    return said if said.startswith("D′ = ") else f"D′ = {said}"


def _searched(analysis: Analysis) -> str:
    """The neighbours searched, counted by how they were made."""
    counts = Counter(p.neighbour.name.split(" ", 1)[0] for p in analysis.pairs)
    words = {"remove": "a record removed", "add": "a record added", "replace": "a record replaced"}
    parts = [f"{n} with {words.get(verb, verb)}" for verb, n in counts.items()]
    proposed = [p for p in analysis.pairs if p.neighbour.found_by]
    if proposed:
        how = proposed[0].neighbour.found_by.split(" (", 1)[0]
        parts.append(f"{len(proposed)} of them proposed by {how}")
    return f"{len(analysis.pairs)} neighbouring datasets ({', '.join(parts)})"


def _how_found(pair: PairResult, confirm: Check | None = None) -> str:
    """How the pair shown was found: by the statistical screening of releases (where the confirmation names it so,
    :mod:`.screening`), by the named list, or by the search (its candidate), out of how many."""
    if confirm is not None and screened_on(confirm.details, pair.neighbour.name):
        return f" Found by {confirm.details['screened_found_by']}."
    if pair.neighbour.found_by:
        return f" Found by {pair.neighbour.found_by}, beyond the named neighbours."
    return " One of the named neighbours."


#: The end of a sentence: a full stop and a capital, not the "al." of a citation's "et al.".
_SENTENCE_END = re.compile(r"(?<!\bal)\. (?=[A-Z])")


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text)[0].rstrip(".") + "."


def headline(run: Run, claim: str, analysis: Analysis, pair: PairResult | None) -> tuple[str, str]:
    """The banner's headline about the claim and its one reading."""
    by_id = {c.id: c for c in run.checks}
    confirm, composition = _confirmation(run), by_id.get("program-composition")
    if run.verdict == "fail":
        return f"REFUTED: the program is not {claim}", _refuted(run, by_id, pair, confirm)
    if run.verdict == "pass":
        return _certified(run, claim, analysis)
    refuted = "Not refuted: no exact check fails"
    out_of_reach = _out_of_reach(run, confirm)
    if out_of_reach is not None:
        refuted += f", and the black box cannot confirm the finding ({out_of_reach})"
    elif confirm is not None and confirm.adjusted_pvalue is not None:
        refuted += (
            f", and the black box does not reject the claim {_on(confirm)} (p = {confirm.adjusted_pvalue:.3g} > α = "
            f"{run.alpha:g})"
        )
    open_checks = [c for c in run.checks if c.verdict == "inconclusive" and c.id != "program-confirm"]
    why = _first_sentence(open_checks[0].note) if open_checks else "nothing decides the claim."
    why = why if why.startswith("Not certified") else f"Not certified: {why}"
    estimate = _estimated(composition)
    tightest = composition.details.get("certified_at") if composition is not None else None
    if tightest:  # the exact composition certifies a larger δ: the tightest claim it holds, said first
        title = f"{claim_word(run.verdict)}: certified at ({tightest[0]:g}, {tightest[1]:.4g}), not at {claim}"
        return title, f"{refuted}. {why}{estimate}"
    return f"{claim_word(run.verdict)}: {claim} is neither certified nor refuted", f"{refuted}. {why}{estimate}"


def _refuted(run: Run, by_id: dict[str, Check], pair: PairResult | None, confirm: Check | None) -> str:
    """The banner's reading of a refutation: its witness pair and finding, the exact composition's δ, and the black
    box's confirmation."""
    composition = by_id.get("program-composition")
    where = _change(pair.neighbour.name) if pair is not None else "see below"
    finding = f": {pair.structural[0].line}" if pair is not None and pair.structural else ""
    reading = [f"Witness pair: {where}{finding}."]
    if composition is not None and composition.verdict == "fail" and composition.estimate is not None:
        epsilon, delta = float(run.parameters["epsilon"]), float(run.parameters["delta"])
        reading.append(
            f"The exact composition of the noise the release carries gives δ(ε = {epsilon:g}) ≥ "
            f"{number(composition.estimate)} > δ = {delta:g}."
        )
    structure = by_id.get("program-structure")
    if structure is not None and structure.verdict == "fail":
        reading.append("Noise whose scale depends on the data refutes a pure claim exactly.")
    return " ".join(reading + _confirmed(run, confirm))


def _estimated(composition: Check | None) -> str:
    """The primitives composed with an isolated one's estimated loss (:mod:`.estimated`), as page 1's sentence: an
    estimate, said as one (none where the composition has none)."""
    row = None if composition is None else composition.details.get("estimated")
    if not row:
        return ""
    return (
        f" Estimated, neither a guarantee nor a refutation: on {_change(row['pair'])}, the loss of the primitives as "
        f"they run ({', '.join(row['calls'])} as the black box estimates it) is a pure ε of about "
        f"{row['epsilon_estimate']:.3g}, at least {row['epsilon_lower']:.3g} at 1 − α."
    )


def _confirmed(run: Run, refuted: Check | None) -> list[str]:
    """What a refuted run's black-box confirmation (``refuted``) says, as the headline's sentence (none: no
    confirmation)."""
    out_of_reach = _out_of_reach(run, refuted)
    if out_of_reach is not None:
        return [f"The black box cannot confirm it on the final release: {out_of_reach}."]
    if refuted is not None and refuted.details.get("not_run"):
        return ["The black box was not needed (the exact refutation decides)."]
    if refuted is None or refuted.pvalue is None:
        return []
    confirms = refuted.verdict == "fail"
    # after an exact refutation, a short look that can only corroborate it (:mod:`.confirmation_looks`)
    verb = "corroborates" if refuted.details.get("corroboration") else "confirms"
    return [
        f"The black box {f'{verb} it' if confirms else f'does not {verb[:-1]} it'} {_on(refuted)} "
        f"(p = {refuted.adjusted_pvalue:.3g} {'≤' if confirms else '>'} α = {run.alpha:g})."
    ]


def _certified(run: Run, claim: str, analysis: Analysis) -> tuple[str, str]:
    """A pass's headline, its scope in the banner itself: certified for the real-valued laws is not certified as
    implemented."""
    ideal = " for the primitives' real-valued laws" if run.parameters.get("law") == "ideal" else ""
    return (
        f"CERTIFIED{ideal}: {claim} on the {len(analysis.pairs)} neighbouring datasets searched",
        "On every neighbour searched, the replay with D's draws made the same primitive calls, the release moved only "
        "where their noise carries it, and the exact composition of the primitives is within the claim."
        + (" The float implementation was not audited." if ideal else ""),
    )


def certificate(analysis: Analysis, epsilon: float, delta: float) -> Section:
    """What a pass rests on: the composed (ε, δ̄), the primitives with their largest input distance over every pair
    searched against what their noise allows, and the neighbours searched."""
    composed = [p.upper for p in analysis.pairs if p.upper is not None]
    high = max((u.high for u in composed), default=0.0)
    pure = max((u.pure for u in composed), default=0.0)
    calls = analysis.recorded.calls
    rows = []
    for k, call in enumerate(calls[:TRACE_ROWS]):
        moved = [moved_distance(analysis.seen_by(p), p, k, call) for p in analysis.pairs if _same_call(analysis, p, k)]
        largest = max((m for m in moved if m is not None), default=None)
        allowed = allowed_distance(call, epsilon, delta)
        rows.append([str(k), call_text(call), "—" if largest is None else number(largest),
                     "—" if allowed is None else number(allowed)])  # fmt: skip
    if len(calls) > TRACE_ROWS:
        rows.append(["…", f"{len(calls) - TRACE_ROWS} more calls", "", ""])
    return Section(
        "Certificate",
        f"Composed over every pair searched: δ(ε = {epsilon:g}) ≤ δ̄ = {number(high)} (claimed δ = {delta:g}); the "
        f"steps' pure ε add up to at most {number(pure)} (claimed ε = {epsilon:g}). Searched: {_searched(analysis)}. "
        "The primitives and sensitivities it rests on: each call's largest input distance between D and D′ over "
        "every pair (L1; L2 for Gaussian noise) and the most its noise allows within the claim were it the only call:",
        Table(
            ["#", "primitive call (recorded on D)", "largest input distance, any pair", "allowed alone"],
            rows,
            widths=[0.35, 3.4, 1.6, 1.2],
        ),
    )


def _same_call(analysis: Analysis, pair: PairResult, k: int) -> bool:
    """Whether the pair replayed without diverging and its draw set's call ``k`` on D is the first draw set's."""
    calls = analysis.seen_by(pair).recorded.calls
    first = analysis.recorded.calls
    same = k < len(calls) and (calls is first or calls[k].signature() == first[k].signature())
    return pair.comparison.divergence is None and same


def review_page(
    run: Run, name: str, data: Any, analysis: Analysis, not_covered: Sequence[str], scope: str
) -> ReviewPage:
    """The program report's page 1 (module notes)."""
    epsilon, delta = float(run.parameters["epsilon"]), float(run.parameters["delta"])
    relation = str(run.parameters["neighbours"])
    claim = f"({epsilon:g}, {delta:g})-DP under {relation}"
    pair = shown_pair(analysis, run)
    title, reading = headline(run, claim, analysis, pair)
    structure = next((c for c in run.checks if c.id == "program-structure"), None)
    if structure is not None and structure.details.get("relation_hint"):  # a hint, never a verdict
        reading += f" {PAGE_HINT}"
    sections = []
    if run.verdict == "pass":
        sections.append(certificate(analysis, epsilon, delta))
    analysis = analysis.seen_by(pair)  # the record and probe of the shown pair's draw set
    if pair is not None:
        confirm = _confirmation(run)
        fresh = confirm is not None and screened_on(confirm.details, pair.neighbour.name)  # found by the screening
        # a witness, not only the pair nearest the claim
        found = run.verdict != "pass" and (bool(pair.findings) or fresh)
        heading = "Witness pair" if found else "Pair closest to violating the claim"
        witness = witness_table(data, pair, highlight=found)
        sections.append(Section(heading, f"{_change(pair.neighbour.name)}.{_how_found(pair, confirm)}", witness))
        release = release_table(analysis, pair)
        if release is not None and run.verdict != "pass":
            agree = "At D's draws they may agree: the screening and the confirmation read fresh draws." if fresh else ""
            sections.append(Section("The release on D and on D′, with the noise drawn on D", agree, release))
    if pair is not None and run.verdict != "pass":  # a pass's certificate lists the calls
        several = len(analysis.draw_sets) > 1
        drawn = f" on draw set {pair.drawn.index + 1} of {analysis.recorded_sets}" if several else ""
        sections.append(
            Section(
                "Call trace",
                f"The {len(analysis.recorded.calls)} primitive call(s) recorded on D{drawn}, in order, replayed on D′ "
                f"with D's draws. Line: where the program made the call{in_file(analysis)}. Input moved: the distance "
                "of the call's inputs, D to D′ (L1; L2 for Gaussian noise); allowed alone: the most its noise allows "
                "within the claim were it the only call; loss: its privacy loss on this pair.",
                trace_table(analysis, pair, epsilon, delta),
            )
        )
    if pair is not None:
        table = composition_table(analysis, pair, epsilon, delta)
        why = (
            f"The exact privacy-loss laws of the noise whose input moved, composed: δ(ε = {epsilon:g}) bounded from "
            "below by the steps the release shows directly (carried), from above by all of them."
            if table is not None
            else "Not composed: the replay on D′ diverged or raised, so its steps are unknown."
        )
        sections.append(Section("Composition on this pair", why, table))
    sections.append(Section("Checks", table=checks_table(run)))
    covered = "; ".join(not_covered)
    sections.append(Section("Not covered", f"{covered[:1].upper()}{covered[1:]}. Scope: {scope}."))
    return ReviewPage(
        f"pdp-audit — program audit of {name}",
        f"Claim: {claim} ({RELATIONS.get(relation, relation)}), on D = the {analysis.records} records given. "
        f"Seed {run.seed}; family-wise false-alarm probability α = {run.alpha:g}.",
        run.verdict,
        title,
        reading,
        sections,
        footnote=GLOSSARY_LINE,
    )
