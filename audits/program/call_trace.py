"""The call trace as page 1 shows it (:mod:`.pages`): the recorded calls in order, each with the line of the program
that made it, its input distance between D and D′ against the distance its noise allows on its own, its loss on the
pair and what was found at it.

What a call's noise *allows* on its own is the largest distance between its inputs on D and D′ within the claim
were it the only call: Laplace of scale b, ε·b in L1 (Dwork & Roth 2014, Thm 3.6); Gaussian of standard deviation σ,
σ·μ* in L2 with μ* the shift whose δ(ε) is the claim's δ (Balle & Wang 2018, Thm 8; 0 for a pure claim); a
diffprivlib mechanism, its declared sensitivity.  A call whose input moved by more is marked over-sensitive; the
diverging call, and a call whose scale differs between D and D′, are marked too.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from pdp_audit.audits.program.accounting import gaussian_delta
from pdp_audit.audits.program.adapters.declared_budgets import exact_distance
from pdp_audit.audits.program.events import Event, LibraryCall, Mechanism, input_of
from pdp_audit.audits.program.results import Analysis, PairResult
from pdp_audit.audits.program.step_laws import Gaussian, Laplace
from pdp_audit.reports.records import Table

#: At most this many rows of the call trace on the page (marked rows first).
TRACE_ROWS = 8


def number(value: Any) -> str:
    """A number as page 1 writes it: 6 significant digits, NaN, ±∞, integers as they are."""
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        return f"{float(value):.6g}"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def call_text(call: Event) -> str:
    """A call's kind and parameters in one short line (scalars as numbers, small arrays as lists)."""
    shown = []
    for key, value in sorted(call.parameters.items()):
        if key in ("measurement",):
            continue
        array = np.asarray(value) if not isinstance(value, str) else None
        if array is None or array.dtype.kind not in "biuf":
            text = str(value)
        elif array.ndim == 0:
            text = number(array.item())
        else:
            text = "[" + ", ".join(number(v) for v in array.ravel()[:3]) + (", …]" if array.size > 3 else "]")
        shown.append(f"{key} {text}")
    shape = f" ×{'×'.join(map(str, call.shape))}" if call.shape else ""
    return f"{call.name}{shape}" + (f" ({', '.join(shown)})" if shown else "")


def gaussian_allowance(epsilon: float, delta: float) -> float:
    """μ* with δ(ε) of the Gaussian shift μ* equal to ``delta`` (0 for δ = 0): the largest shift over σ one Gaussian
    call may have within (ε, δ) (Balle & Wang 2018, Thm 8; δ(ε) grows with μ, so a bracketing root)."""
    from scipy.optimize import brentq

    if delta <= 0:
        return 0.0
    high = 1.0
    while gaussian_delta(high, epsilon) < delta and high < 1e6:
        high *= 2
    if gaussian_delta(high, epsilon) < delta:
        return math.inf
    return float(brentq(lambda mu: gaussian_delta(mu, epsilon) - delta, 0.0, high, xtol=1e-12))


def allowed_distance(call: Event, epsilon: float, delta: float) -> float | None:
    """The largest input distance the call's noise allows on its own within the claim (module notes; None: not
    read)."""
    if isinstance(call, Mechanism):
        sensitivity = call.declared.get("sensitivity")
        return None if sensitivity is None else float(sensitivity)
    scale = None if call.scale is None else np.asarray(call.scale, dtype=float)
    if scale is None or scale.size == 0 or not np.all(scale == scale.ravel()[0]):
        return None
    b = float(scale.ravel()[0])
    if call.law == "laplace":
        return epsilon * b
    if call.law == "gaussian":
        return b * gaussian_allowance(epsilon, delta)
    return None


def moved_distance(analysis: Analysis, pair: PairResult, k: int, call: Event) -> float | None:
    """The distance between call ``k``'s inputs on D and D′ (L2 for a Gaussian, else L1; None: not visible)."""
    c = pair.comparison
    js = [j for j, e in enumerate(analysis.probe.elements) if e.call == k]
    if js and c.shifts.size:
        shifts = np.abs(np.asarray([c.shifts[j] for j in js], dtype=float))
        if np.isnan(shifts).all():
            return None
        shifts = shifts[~np.isnan(shifts)]
        return float(np.sqrt((shifts**2).sum()) if call.law == "gaussian" else shifts.sum())
    # a library's call that shows no value (an additive diffprivlib mechanism's input is its value)
    if c.replayed is not None and k < len(c.replayed.calls) and isinstance(call, LibraryCall) and call.value is None:
        try:
            before = np.asarray(call.input, dtype=float)
            after = np.asarray(input_of(c.replayed.calls[k]), dtype=float)
        except (TypeError, ValueError):
            return None
        return float(np.abs(after - before).sum()) if before.shape == after.shape else math.inf
    return None


def _loss(pair: PairResult, k: int) -> str:
    """The privacy loss of call ``k``'s steps on the pair (μ, or the pure ε of a choice or declared budget); "not
    bounded" where the composition could not account for the call (its input turned NaN, moved beyond its declared
    sensitivity, or no law is known for it): no step is then no loss."""
    steps = [s for s in pair.steps if s.call == k]
    if not steps and any(u.call == k for u in pair.unaccounted):
        return "not bounded"
    if not steps:
        return "0" if pair.comparison.replayed is not None else "—"
    gaussians = [s for s in steps if isinstance(s, Gaussian)]
    if len(gaussians) == len(steps):
        return f"μ = {number(math.sqrt(sum(s.mu**2 for s in gaussians)))}"
    return f"ε = {number(sum(s.pure_epsilon() for s in steps))}"


def _moved_text(analysis: Analysis, pair: PairResult, k: int, moved: float, allowed: float) -> str:
    """How far call ``k``'s input moved beyond ``allowed``, as page 1 writes it: "X > A"; where six digits show X as
    A (a float sum moved by 1 + 2⁻⁵³ against a sensitivity of 1), a declared mechanism's exact excess over A, in
    rationals (as :func:`_over_sensitive` decides it), else "more than A"."""
    if number(moved) != number(allowed):
        return f"{number(moved)} > {number(allowed)}"
    call = analysis.recorded.calls[k]
    inputs = _declared_inputs(pair, k, call) if isinstance(call, Mechanism) else None
    if inputs is not None:
        before, after = inputs
        if before.shape == after.shape and np.isfinite(before).all() and np.isfinite(after).all():
            excess = float(exact_distance(before, after) - Fraction(allowed))
            return f"{number(allowed)} + {excess:.3g} > {number(allowed)}"
    ends = [s.rational() for s in pair.steps if s.call == k and isinstance(s, Laplace)]
    scale = None if call.scale is None else np.asarray(call.scale, dtype=float).ravel()
    if call.law == "laplace" and ends and None not in ends and scale is not None and scale.size:
        # Σ μ's proven low ends times the scale: the least distance the input moved
        low = sum((e[0] for e in ends if e is not None), Fraction(0)) * Fraction(float(scale[0]))
        if low > Fraction(allowed):
            return f"{number(allowed)} + {float(low - Fraction(allowed)):.3g} > {number(allowed)}"
    return f"more than {number(allowed)}"


def _declared_inputs(pair: PairResult, k: int, call: Mechanism) -> tuple[np.ndarray, np.ndarray] | None:
    """A declared mechanism's input on D and on D′ (call ``k``, replayed on the pair) as float arrays; None where
    either cannot be read as numbers."""
    replayed = pair.comparison.replayed
    after = input_of(replayed.calls[k]) if replayed is not None and k < len(replayed.calls) else None
    try:
        return np.asarray(call.input, dtype=float), np.asarray(after, dtype=float)
    except (TypeError, ValueError):
        return None


def _call_finding(
    analysis: Analysis, pair: PairResult, k: int, moved: float | None, allowed: float | None, epsilon: float
) -> tuple[str, bool]:
    """What was found at call ``k`` on the pair, and whether it broke the claim (a gap -- noise not accounted for --
    is said, not marked)."""
    c = pair.comparison
    if c.divergence is not None and k == c.divergence.index:
        return f"diverges: on D′ {c.divergence.replayed}", True
    rescaled = {i: b for i, _, b in (c.replayed.rescaled if c.replayed is not None else [])}
    if k in rescaled:
        assert c.replayed is not None
        on_d_prime = call_text(c.replayed.calls[k]) if k < len(c.replayed.calls) else rescaled[k]
        return f"scale taken from the data: on D′ {on_d_prime}", True
    if moved is not None and allowed is not None and _over_sensitive(analysis, pair, k, moved, allowed, epsilon):
        return f"over-sensitive: moved {_moved_text(analysis, pair, k, moved, allowed)}", True
    if any(analysis.probe.elements[j].call == k for j in c.coefficient_changed):
        return "its noise's weight in the release depends on the data", True
    gaps = [u.why for u in pair.unaccounted if u.call == k]
    return (gaps[0], False) if gaps else ("", False)


def _over_sensitive(analysis: Analysis, pair: PairResult, k: int, moved: float, allowed: float, epsilon: float) -> bool:
    """Whether call ``k``'s input moved beyond what its noise allows alone, shown with no margin: a Laplace call's
    steps' proven lower ends of μ (:meth:`.step_laws.Step.rational`) add up above ``epsilon``, in rationals; a
    diffprivlib mechanism's exact L1 move is above its declared sensitivity (as
    :func:`.adapters.declared_budgets.declared_step` decides); a Gaussian call's distance above σμ*, μ* a root found
    to 1e-12 (a marking of the page, which decides no verdict)."""
    call = analysis.recorded.calls[k]
    if isinstance(call, Mechanism):
        inputs = _declared_inputs(pair, k, call)
        if inputs is None:
            return False
        b, a = inputs
        if b.shape != a.shape or not (np.isfinite(a).all() and np.isfinite(b).all()):
            return b.shape != a.shape
        return exact_distance(b, a) > Fraction(allowed)
    if call.law == "laplace":
        steps = [s for s in pair.steps if s.call == k and isinstance(s, Laplace)]
        ends = [s.rational() for s in steps]
        if any(e is None for e in ends):
            return True
        return sum((e[0] for e in ends if e is not None), Fraction(0)) > Fraction(epsilon)
    return moved > allowed


def trace_table(analysis: Analysis, pair: PairResult, epsilon: float, delta: float) -> Table:
    """The recorded calls in order, each with its input distance on the pair against the distance its noise allows;
    marked calls highlighted (all of them shown, then the first others, at most :data:`TRACE_ROWS` rows)."""
    calls = analysis.recorded.calls
    lines = source_lines(calls)[1]
    c = pair.comparison
    stop = c.divergence.index if c.divergence is not None else len(calls)
    rows, marked = [], []
    for k, call in enumerate(calls):
        allowed = allowed_distance(call, epsilon, delta)
        moved = moved_distance(analysis, pair, k, call) if k < stop else None
        finding, broke = _call_finding(analysis, pair, k, moved, allowed, epsilon)
        if k > stop:
            shown_moved, loss = "not replayed", "—"
        else:
            shown_moved, loss = ("—" if moved is None else number(moved)), ("—" if k == stop else _loss(pair, k))
        limit = "—" if allowed is None else number(allowed)
        rows.append([str(k), call_text(call), lines.get(k, "—"), shown_moved, limit, loss, finding])
        if broke:  # what broke the claim, not gaps
            marked.append(k)
    if c.divergence is not None and c.divergence.index >= len(calls):
        marked.append(len(rows))
        rows.append(
            [str(len(calls)), "(no such call on D)", "—", "—", "—", "—", f"diverges: on D′ {c.divergence.replayed}"]
        )
    keep = _kept(marked, len(rows))
    shown = [rows[k] for k in keep]
    highlight = [i for i, k in enumerate(keep) if k in marked]
    if len(keep) < len(rows):
        kept = set(keep)
        left = len([k for k in marked if k not in kept])
        more = f"{len(rows) - len(keep)} more calls, " + (f"{left} of them marked" if left else "none marked")
        shown.append(["…", more, "", "", "", "", ""])
    return Table(
        ["#", "primitive call (recorded on D)", "line", "input moved D→D′", "allowed alone", "loss", "finding"],
        shown,
        highlight,
        widths=[0.35, 2.5, 0.6, 1.1, 1.0, 1.1, 2.5],
    )


def source_lines(calls: Sequence[Event]) -> tuple[str, dict[int, str]]:
    """Where the program made each call (:meth:`~pdp_audit.audits.program.recorder.Tape.keep`): the one file they
    all come from ("" where several) and, per call, its line there (``file:line`` where several files)."""
    made = {k: call.line for k, call in enumerate(calls) if call.line}
    files = {where.rsplit(":", 1)[0] for where in made.values()}
    if len(files) != 1:
        return "", made
    return files.pop(), {k: where.rsplit(":", 1)[1] for k, where in made.items()}


def in_file(analysis: Analysis) -> str:
    """ " (in file.py)" where every call comes from one file, else ""."""
    single = source_lines(analysis.recorded.calls)[0]
    return f" (in {single})" if single else ""


def _kept(marked: Sequence[int], total: int) -> list[int]:
    """The rows kept of a long trace, at most :data:`TRACE_ROWS`: the first marked ones (all but one row's worth),
    then the first others."""
    first = list(marked)[: TRACE_ROWS - 1] if total > TRACE_ROWS else list(marked)
    known = set(marked)
    others = [k for k in range(total) if k not in known][: max(0, TRACE_ROWS - len(first))]
    return sorted(set(first) | set(others))
