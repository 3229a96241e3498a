"""The summary pages of a run's PDF: the cover (what was audited, the verdict, the central figure, one row per
guarantee, the scope of the verdict), its continuation, and the title page of the appendix of paper findings.
"""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.certified_claim import (  # noqa: E402
    certified_claim,
    proven_pure,
    reproducible,
    verdict_suffix,
)
from pdp_audit.reports.check_reading import basis, reading  # noqa: E402
from pdp_audit.reports.page_text import (  # noqa: E402
    A4,
    COLOURS,
    draw_row,
    fmt,
    row_height,
    text_block,
    text_height,
    verdict_banner,
    wrap_cells,
)
from pdp_audit.reports.plots import draw_event_rates, draw_profile, draw_roc  # noqa: E402
from pdp_audit.reports.records import EventRates, Lines, Roc, Run, TailCurves  # noqa: E402
from pdp_audit.reports.verdict_words import check_word, claim_word  # noqa: E402

#: A run's and a certificate's banner: the verdict's word (:mod:`pdp_audit.reports.verdict_words`) and what it means.
VERDICT_TEXT = {
    verdict: f"{claim_word(verdict)} — {meaning}"
    for verdict, meaning in (
        ("pass", "every guarantee is supported by the evidence"),
        ("fail", "a guarantee is violated at the stated significance"),
        ("inconclusive", "no violation found, but not every guarantee could be confirmed"),
    )
}


def cover_page(run: Run) -> plt.Figure:
    """Page 1: what was audited or certified, the verdict, the central figure, one row per guarantee, scope.

    The central figure is the privacy profile δ(ε) of the audited neighbouring pair (the first DP check
    carrying one) beside the likelihood-ratio attack's ROC against the region the claim allows.  Rows that
    do not fit continue on :func:`cover_continued`.
    """
    fig = plt.figure(figsize=A4)
    y = text_block(fig, _identity_lines(run), top=0.965)
    y = _parameter_grid(fig, run, y)
    verdict_banner(fig, y, run.verdict, _banner(run))
    y -= 0.075
    y = _central_figure(fig, run, y)
    y = _guarantee_rows(fig, run.checks[: cover_rows(run)], y, len(run.checks))
    # right below the table, not pinned to the page's foot: a short table left a third of the page empty above it
    # (cover_rows keeps room for it, so it never runs below 0.03)
    text_block(fig, _scope_lines(run), top=max(y - _SCOPE_GAP, 0.03 + text_height(_scope_lines(run))))
    return fig


_SCOPE_GAP = 0.025  # between the guarantees' table and the scope paragraph


_CONTINUED_TOP = 0.95 - 0.03  # below the continuation page's title


def cover_continued(run: Run, first: int) -> list[plt.Figure]:
    """The guarantees the cover had no room for, on as many pages as they take."""
    pages, rest = [], list(run.checks[first:])
    while rest:
        fig = plt.figure(figsize=A4)
        y = text_block(fig, [("Guarantees (continued)", {"size": 13, "weight": "bold", "gap": 0.01})])
        count = _rows_fitting(rest, y - 0.05) or 1
        _guarantee_rows(fig, rest[:count], y)
        pages.append(fig)
        rest = rest[count:]
    return pages


#: The fewest rows a continuation page should hold: a page of two or three rows reads as a stray.
MIN_CONTINUED_ROWS = 4


def _rows_fitting(checks, room: float) -> int:
    """How many of ``checks``' rows fit in ``room`` (figure coordinates, the header included), with the break moved
    up so the rows left over fill at least :data:`MIN_CONTINUED_ROWS` on the next page where this page keeps as many;
    otherwise never all but one (a continuation page of a single row): then one fewer."""
    used, count = _HEADER, 0
    for check in checks:
        used += row_height(_cells(check), _CELL)
        if used > room:
            break
        count += 1
    left = len(checks) - count
    if 0 < left < MIN_CONTINUED_ROWS and count - (MIN_CONTINUED_ROWS - left) >= MIN_CONTINUED_ROWS:
        return count - (MIN_CONTINUED_ROWS - left)
    if left == 1 and count >= 2:
        count -= 1
    return count


def cover_rows(run: Run) -> int:
    """How many guarantee rows fit on the cover (the rest go to :func:`cover_continued`)."""
    top = 0.965 - text_height(_identity_lines(run)) - _grid_height(run) - 0.075
    top -= _CENTRAL_HEIGHT if _profile(run) else 0
    return _rows_fitting(run.checks, top - 0.03 - text_height(_scope_lines(run)) - 0.01)


_CENTRAL_HEIGHT = 0.29
#: What a certificate of a user's mechanism rests on (``certified["evidence"]``), said on its first page.
EVIDENCE_TEXT = {
    "white-box": "white-box checks of the pair: pair-protocol, loss-consistency, noise-view "
    "(where the pair has a noise view), and δ(ε) ≤ δ both ways (dp-forward, dp-reverse) from sample() and its exact "
    "privacy_loss()",
    "black-box": "a black-box attack only (a test of D against D' learned on sample()'s releases, ε bounded on fresh "
    "ones): it can refute the claim, never certify it",
    "built-in": "the built-in audit's guarantees listed below, decided on draws of its sampler and exact privacy loss "
    "at exactly the deployed parameters and data (each with its formula and source on its page)",
    "program": "the program's noise primitives recorded on the deployed data and replayed on the neighbouring datasets "
    "searched, their exact privacy-loss laws composed, and a finding confirmed by the black-box attack on its witness "
    "pair",
}


def _pure_claim_line(run: Run) -> str:
    """What a passed pure claim (δ = 0) rests on, said once on the first page: the bounded-loss proof of a pair the
    suite built from its law, the exact δ(ε) = 0 of a built-in mechanism (sampling confirming it), or -- where
    neither -- the δ(ε) the draws certify, which is then all that is certified."""
    p = run.parameters
    if p.get("delta_certified") is None:
        return ""
    claim = certified_claim(run.checks)
    epsilon = fmt(p.get("epsilon"))
    if proven_pure(run.checks):
        return (
            f"Pure DP claimed (δ = 0) and proven at ε = {epsilon}: the pair is the suite's own Laplace or geometric "
            "mechanism, built from its declared law, and its privacy loss, verified on every draw, never exceeds ε "
            "(the bounded-loss proof; in real arithmetic -- floating-point effects on the release are outside it)."
        )
    bounded = any(x.id == "loss-bound" and x.verdict == "pass" for x in run.checks)
    seen = (
        "; loss-bound found every sampled privacy loss within ±ε, as the mechanism's proof of pure DP (a bounded "
        "loss) says"
        if bounded
        else ""
    )
    if claim is not None and claim.basis == "exact":
        return (
            f"Pure DP claimed (δ = 0): it holds by the exact δ(ε) = 0 at ε = {epsilon} of the mechanism the suite "
            f"builds from its law; sampling, which alone cannot prove δ = 0, confirms it (δ(ε) ≤ "
            f"{fmt(p['delta_certified'])} on the draws){seen}."
        )
    return (
        f"Pure DP claimed (δ = 0): sampling cannot prove δ = 0; these checks certify δ(ε) ≤ "
        f"{fmt(p['delta_certified'])} at ε = {epsilon} (the largest upper end of the DP checks' intervals){seen}."
    )


def _banner(run: Run) -> str:
    """The verdict's words; a black-box run that refuted nothing says it is not a certificate."""
    c = run.certified or {}
    if c.get("evidence") == "black-box" and run.verdict != "fail":
        trials = c.get("audit", {}).get("trials")
        return (
            f"{claim_word(run.verdict)} — not a certificate: no violation found at the stated power "
            f"({fmt(trials)} releases per world)"
        )
    if run.parameters.get("headline") and run.parameters.get("epsilon") is None:  # a bound, no claim to decide
        return f"{claim_word(run.verdict)} — no claim tested: a lower bound only (it can refute a claim, never certify)"
    words = VERDICT_TEXT[run.verdict]
    suffix = verdict_suffix(run.checks, with_reproducibility=False)
    return words if not suffix else f"{words.split(' — ')[0]} — {suffix.removeprefix(': ')}"


_CELL = 7  # points: the guarantees' table
_HEADER = 0.02
#: The guarantees' table: (left, width) of its columns -- guarantee, basis, reading, verdict.
_COLUMNS = ((0.07, 0.18), (0.26, 0.26), (0.53, 0.29), (0.83, 0.11))
_GRID = 6.5  # points: the parameters' grid
_GRID_COLUMNS = ((0.07, 0.28), (0.36, 0.28), (0.65, 0.28))


def _identity_lines(run: Run) -> list[tuple[str, dict]]:
    """Title, mechanism, claim, data and its fingerprint, seed, α, code version, every parameter."""
    p, c = run.parameters, run.certified
    title = f"pdp-audit certificate — {run.mechanism}" if c else f"pdp-audit — privacy audit of {run.mechanism}"
    if c and c.get("evidence") == "black-box":
        title = f"pdp-audit black-box audit — {run.mechanism}"
    data = p.get("dataset_description") or p.get("dataset") or p.get("data")
    lines = [(title, {"size": 18, "weight": "bold", "gap": 0.008})]
    if run.subject:
        lines.append((run.subject, {"size": 9, "family": "DejaVu Sans Mono", "width": 92}))
    lines += [
        (
            f"Claim: {_claim_text(p)}.   Seed {run.seed}.   "
            f"Family-wise false-alarm probability α = {fmt(run.alpha)} (Holm over {_holm_count(run.checks)}).",
            {"size": 9.5},
        ),
    ]
    if data:  # a run without data (a black-box target, a pair given as is) has no "Data: —" line
        lines.append((f"Data: {data}", {"size": 9.5}))
    if p.get("headline"):  # an audit that bounds rather than decides leads with its bound
        lines.append((p["headline"], {"size": 10.5, "weight": "bold", "width": 80}))
    if c:
        lines += _certified_code_lines(c)
    lines += _evidence_lines(run)
    if c:
        lines.append(
            (
                f"Data fingerprint: sha256 {c.get('data_sha256', '—')}, shape {c.get('data_shape', '—')}.   "
                f"Code: pdp-audit {c.get('code_version', '—')}.   Deployment file "
                f"{(c.get('deployment_file') or {}).get('path', '—')}: sha256 "
                f"{(c.get('deployment_file') or {}).get('sha256', '—')}.",
                {"size": 8.5, "family": "DejaVu Sans Mono"},
            )
        )
    if run.findings is None or run.findings:  # an audit without paper statements (a user's pair) says nothing
        lines.append((findings_line(run), {"size": 8.5, "gap": 0.006}))
    return lines


def _certified_code_lines(c: Mapping[str, Any]) -> list[tuple[str, dict]]:
    """What a certificate certified: a user's mechanism (its module, helper modules and libraries, by sha256) and the
    releases of a joint certificate."""
    mono = {"size": 8.5, "family": "DejaVu Sans Mono"}
    lines: list[tuple[str, dict]] = []
    if "factory" in c:  # a user's mechanism: what code was certified
        module = c["module_file"]
        lines.append((f"Mechanism: {c['factory']} (module file {module['name']}, sha256 {module['sha256']})", mono))
        helpers = c.get("helper_modules", [])  # the modules it is written across, beside the deployment
        for helper in helpers[:3]:  # a page holds a few; the JSON holds every one
            lines.append((f"Helper module: {helper['name']}, sha256 {helper['sha256']}", mono))
        if len(helpers) > 3:
            lines.append((f"and {len(helpers) - 3} more helper modules (listed with their sha256 in the JSON)", mono))
        named = ", ".join(f"{lib['name']} {lib['version']}" for lib in c.get("libraries", []))
        if named:  # the installed libraries it is written on (their RECORD's sha256 in the JSON)
            lines.append((f"Libraries: {named}", mono))
    if c.get("releases"):  # several releases: certified as one
        listed = "; ".join(f"{i}. {r['mechanism']} on {r['data'] or '—'}" for i, r in enumerate(c["releases"], 1))
        lines.append(
            (
                f"Releases, certified as one joint release (the product of their worst-case pairs; its privacy loss "
                f"is the sum of theirs): {listed}.",
                {"size": 9.5},
            )
        )
    return lines


def _evidence_lines(run: Run) -> list[tuple[str, dict]]:
    """How the verdict was reached: reproducibility, the evidence, a pure claim's proof, the individuals, the scope
    (the program as implemented or a real-valued law), the draws used, and a clipping warning."""
    c = run.certified
    lines: list[tuple[str, dict]] = []
    if not reproducible(run.checks):  # a sampler of its own source: the verdict stands, the numbers do not repeat
        lines.append(
            (
                "Not reproducible: the sampler returned different releases for the same rng seed -- it draws from a "
                "source of its own. Its draws are independent, so the verdict stands; a rerun gives other numbers.",
                {"size": 9.5},
            )
        )
    if c and "evidence" in c:  # on what evidence
        lines.append((f"Evidence: {EVIDENCE_TEXT[c['evidence']]}.", {"size": 9.5}))
    pure = _pure_claim_line(run)
    if pure:
        lines.append((pure, {"size": 9.5}))
    if c and c.get("individuals"):
        lines.append((f"Per-instance: {len(c['individuals'])} individuals, each audited as her own pair.", {}))
    if run.parameters.get("scope"):  # what the verdict is about: the program as implemented, or a real-valued law
        lines.append((f"Scope: {run.parameters['scope']}.", {"size": 9.5}))
    stopped = _draws_used(run.checks)
    if stopped:
        lines.append((stopped, {"size": 9.5}))
    if run.clipping is not None and run.clipping.warning:  # the clip decides the release: said before the verdict
        lines.append(
            (f"Warning: {run.clipping.warning}", {"size": 9.5, "weight": "bold", "color": COLOURS["fail"], "width": 90})
        )
    return lines


def _parameter_cells(run: Run) -> list[list[list[str]]]:
    """Every parameter set, ``key = value``, three to a row, each cell wrapped into its column (never cut)."""
    p, c = run.parameters, run.certified
    # options left unset (None: another query's, a default drawn from elsewhere) stay in the JSON, off the cover
    listed = (c.get("parameters", p) if c else p).items()
    said = ("headline", "dataset_description", "scope")  # stated in the lines above the grid
    shown = [(k, v) for k, v in listed if v is not None and k not in said and not isinstance(v, (dict, list))]
    cells = [f"{k} = {fmt(v, 6)}" for k, v in shown]
    rows = [cells[i : i + 3] for i in range(0, len(cells), 3)]
    return [wrap_cells(row, _GRID_COLUMNS, _GRID, "DejaVu Sans Mono") for row in rows]


def _grid_height(run: Run) -> float:
    return sum(row_height(row, _GRID) for row in _parameter_cells(run)) + 0.012


def _parameter_grid(fig, run: Run, y: float) -> float:
    """Draw the parameters' grid from ``y`` down; return the y below it."""
    mono = {"family": "DejaVu Sans Mono"}
    for row in _parameter_cells(run):
        y = draw_row(fig, y, row, _GRID_COLUMNS, _GRID, [mono] * len(row))
    return y - 0.012


def _claim_text(p) -> str:
    """The claim as the cover states it: (ε, δ)-DP, or the claim an assertion of the pytest plugin names (per-instance
    DP, DP of a black box, the coverage of an event)."""
    kind = p.get("claim")
    if p.get("epsilon") is None and p.get("claim_epsilon") is not None:  # a sweep cell's names (the plugin's grid)
        p = {**p, "epsilon": p["claim_epsilon"], "delta": p.get("claim_delta", p.get("delta"))}
    if kind == "coverage":
        return f"an event holds with probability ≥ 1 − ρ, ρ = {fmt(p.get('rho'))}"
    if p.get("epsilon") is None and p.get("delta") is not None:  # a lower bound without a claim to refute
        return f"none tested: the ε the evidence proves at δ = {fmt(p.get('delta'))}"
    return f"({fmt(p.get('epsilon'))}, {fmt(p.get('delta'))})-{kind if isinstance(kind, str) else 'DP'}"


def _profile(run: Run):
    """The (privacy profile, ROC) the cover draws: the first guarantee carrying each (None where absent)."""
    profile = next((c.figure for c in run.checks if isinstance(c.figure, (TailCurves, Lines))), None)
    roc = next((c.figure for c in run.checks if isinstance(c.figure, (Roc, EventRates))), None)
    return (profile, roc) if profile is not None or roc is not None else None


def _draw_attack(fig, figure, box) -> None:
    """The cover's small attack panel: an ROC, or the events of the black-box event test."""
    (draw_event_rates if isinstance(figure, EventRates) else draw_roc)(fig, figure, box, compact=True)


def _central_figure(fig, run: Run, top: float) -> float:
    """Draw the privacy profile and the ROC side by side below ``top``; return the y below them."""
    figures = _profile(run)
    if figures is None:
        return top
    profile, roc = figures
    box_height = _CENTRAL_HEIGHT - 0.09
    bottom = top - _CENTRAL_HEIGHT + 0.06
    if profile is not None and roc is not None:
        draw_profile(fig, profile, (0.09, bottom, 0.37, box_height))
        profile_axes = fig.axes[-1]
        _draw_attack(fig, roc, (0.58, bottom, 0.37, box_height))
        # each shrunk from below for its legend: both take the smaller height, so that the two panels align
        panels = (profile_axes, fig.axes[-1])
        upper = min(ax.get_position().y1 for ax in panels)
        low = max(ax.get_position().y0 for ax in panels)
        for ax in panels:
            left, _, width, _ = ax.get_position().bounds
            ax.set_position((left, low, width, upper - low))
    elif profile is not None:
        draw_profile(fig, profile, (0.09, bottom, 0.84, box_height))
    else:
        _draw_attack(fig, roc, (0.09, bottom, 0.84, box_height))
    return top - _CENTRAL_HEIGHT


def _cells(check) -> list[list[str]]:
    """A guarantee's row: its id, what its verdict rests on, the number to take away, the verdict; wrapped."""
    return wrap_cells((check.id, basis(check), reading(check), check_word(check.verdict)), _COLUMNS, _CELL, bold=(3,))


def _holm_count(checks) -> str:
    """ "4 statistical guarantees", or "the 9 statistical guarantees of 10" where some are exact: the count agrees
    with the rows the table lists."""
    statistical = sum(x.statistical for x in checks)
    said = _count(statistical, "statistical guarantee", "statistical guarantees")
    return said if statistical == len(checks) else f"the {said} of {len(checks)}"


def _guarantee_rows(fig, checks, y: float, total: int | None = None) -> float:
    """One row per guarantee of ``checks`` from ``y`` down; return the y below the last row.  ``total``: the run's
    guarantees where the table continues overleaf (its header then says how many it holds)."""
    first = "guarantee" if total is None or total == len(checks) else f"guarantee ({len(checks)} of {total})"
    header = (first, "basis of the verdict", "what the evidence shows", "verdict")
    for (x, _), h in zip(_COLUMNS, header):
        fig.text(x, y, h, fontsize=8.5, weight="bold", va="top")
    y -= _HEADER
    for check in checks:
        verdict = {"color": COLOURS[check.verdict], "weight": "bold"}
        y = draw_row(fig, y, _cells(check), _COLUMNS, _CELL, [{}, {}, {}, verdict])
    return y


def _scope_lines(run: Run) -> list[tuple[str, dict]]:
    """What the verdict does and does not cover, from the run's own checks."""
    exact = sum(not c.statistical for c in run.checks)
    sampled = len(run.checks) - exact
    target = run.parameters.get("worst_case_target") or run.parameters.get("pair")
    neighbour = (
        f"The DP guarantees are checked at the neighbouring pair: {target}."
        if target
        else "The DP guarantees are checked at the worst neighbour the audit searched for, not one proven worst; "
        "each check's page says which pair it used."
    )
    if run.parameters.get("claim") == "coverage":  # the plugin's assert_coverage: an event, no pair
        neighbour = "The claim is the test's own event, checked on draws of it; no neighbouring pair is involved."
    level = f"1 − α/{sampled}" if sampled > 1 else "1 − α"
    sampling = (
        f"on sampling, decided at family-wise false-alarm probability α = {fmt(run.alpha)} (simultaneous intervals "
        f"at level {level}). "
    )
    exact_part = (
        f"{_count(exact, 'guarantee rests', 'guarantees rest')} on exact mathematics (closed forms and identities "
        "computed by the suite, to floating-point tolerance)"
    )
    if exact and sampled:
        basis_text = f"{exact_part}; {_count(sampled, 'rests', 'rest')} {sampling}"
    elif exact:
        basis_text = f"{exact_part}. "
    else:
        basis_text = f"{'The guarantee rests' if sampled == 1 else f'All {sampled} guarantees rest'} {sampling}"
    # a pair audited as implemented read its releases' doubles (its scope line says so): floating point is in scope
    as_implemented = "bits included" in str(run.parameters.get("scope", ""))
    out_of_scope = (
        "Out of scope: timing side channels (the releases' floating-point structure is in scope: it was read), "
        if as_implemented
        else "Out of scope: floating-point and timing side channels, "
    )
    return [
        ("What this does and does not cover", {"size": 9.5, "weight": "bold"}),
        (
            f"{neighbour} {basis_text}"
            "certified: the whole interval lies on the claim's side (or an exact closed form computed here satisfies "
            "the claim and the sampled estimate agrees with it); refuted: the data contradict the claim at α; "
            f"undecided: neither, and the page says what budget decides it. {out_of_scope}"
            "the random number generator of the deployment, and any mechanism or parameter other than "
            "those listed above.",
            {"size": 8, "width": 120},
        ),
    ]


def _count(n: int, one: str, many: str) -> str:
    """``n`` with the singular or plural words (1 guarantee rests, 2 guarantees rest)."""
    return f"{n} {one if n == 1 else many}"


def findings_line(run: Run) -> str:
    """One sentence on the paper findings: not run, or their counts by verdict (never part of the verdict)."""
    if run.findings is None:
        return (
            "Statements as printed in the papers were not checked in this run (ask with --paper-claims, or run "
            "pdp-audit claims); the verdict is about the deployed mechanism only."
        )
    if not run.findings:
        return "This audit checks no statement printed in a paper; the verdict is about the deployed mechanism only."
    counts = {v: sum(c.verdict == v for c in run.findings) for v in COLOURS}
    return (
        f"Paper findings (appendix, not part of the verdict): {len(run.findings)} statements checked as printed — "
        f"{counts['pass']} certified, {counts['fail']} refuted, {counts['inconclusive']} undecided."
    )


_APPENDIX_COLUMNS = ((0.07, 0.22), (0.30, 0.52), (0.83, 0.11))


def appendix_page(run: Run) -> list[plt.Figure]:
    """The title page of the appendix of paper findings: what they are, and one row per finding (continued on as
    many pages as the rows take)."""
    intro: list[tuple[str, dict]] = [
        ("Appendix: paper findings", {"size": 18, "weight": "bold", "gap": 0.01}),
        (
            "Statements checked as printed in the papers. Each has its own verdict, decided as a separate "
            f"family of tests at α = {fmt(run.alpha)}; none of them is part of the deployment's verdict, "
            "unless the audited configuration deploys the printed form (it is then listed among the guarantees).",
            {"size": 9.5, "gap": 0.02},
        ),
    ]
    pages, fig, y = [], None, 0.0
    for check in run.findings or ():
        row = wrap_cells((check.id, check.title, check_word(check.verdict)), _APPENDIX_COLUMNS, 8, bold=(2,))
        if fig is None or y - row_height(row, 8) < 0.04:
            fig = plt.figure(figsize=A4)
            pages.append(fig)
            y = text_block(fig, intro if len(pages) == 1 else [("Paper findings (continued)", intro[0][1])])
        verdict = {"color": COLOURS[check.verdict], "weight": "bold"}
        y = draw_row(fig, y, row, _APPENDIX_COLUMNS, 8, [{}, {}, verdict])
    return pages


def _draws_used(checks) -> str:
    """What passes drawn in looks and stopped once decided drew (``details["early_stop"]`` of their checks), so the
    certificate says on how many draws its verdict rests; empty for a fixed pass."""
    stops = [x.details.get("early_stop") for x in checks if isinstance(x.details, dict)]
    records = [r for r in stops if isinstance(r, dict) and "drawn_per_world" in r and "max_per_world" in r]
    if not records:
        return ""
    low, high = (f(r["drawn_per_world"] for r in records) for f in (min, max))
    cap = max(r["max_per_world"] for r in records)
    drawn = f"{low:,}" if low == high else f"{low:,} to {high:,}"
    return (
        f"Draws: each pass drawn in looks and stopped once decided, a share of α fixed in advance spent at each look: "
        f"{drawn} of at most {cap:,} releases per world."
    )
