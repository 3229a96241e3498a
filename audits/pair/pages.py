"""The page a certificate of a user's mechanism adds for ``per_instance()``: each individual's guarantee
(``people``: :class:`pdp_audit.audits.pair.deployed.Individual`; ``budget``: its
:class:`~pdp_audit.audits.pair.config.PairAuditConfig`)."""

from __future__ import annotations

from typing import Any

from pdp_audit.reports.records import Line, Lines, Page
from pdp_audit.reports.verdict_words import check_word


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def per_instance_page(checks: list, people: list, budget: Any, kind: str) -> Page:
    """Each individual's estimate and interval of her DP checks (δ(ε) per direction, or the black-box ε bound) and
    her verdict (the worst of her checks)."""
    rows = [f"{'individual':<26}each DP check: estimate [simultaneous interval]   verdict"]
    series: dict[str, list] = {}
    for k, person in enumerate(people):
        own = [c for c in checks if c.id.startswith(person.id + "/")]
        verdict = next((v for v in ("fail", "inconclusive") if any(c.verdict == v for c in own)), "pass")
        cells = []
        for c in own:
            if c.id.endswith(("-forward", "-reverse", "blackbox-attack")):
                name = c.id.rpartition("/")[2]
                lo, hi = c.ci if c.ci is not None else (float("nan"), float("nan"))
                cells.append(f"{name} {_fmt(c.estimate)} [{_fmt(lo)}, {_fmt(hi)}]")
                series.setdefault(name, []).append((k + 1, c.estimate, lo, hi))
        rows.append(f"{person.id[:24]:<26}{'   '.join(cells)}   {check_word(verdict)}")
    lines = [Line(name, y, x=x, lo=lo, hi=hi) for name, (x, y, lo, hi) in ((n, zip(*ps)) for n, ps in series.items())]
    if kind == "white-box":
        lines.append(Line(f"claimed δ = {budget.delta:g}", [budget.delta] * len(people), marker="", style="--"))
    figure = Lines(
        lines,
        x=list(range(1, len(people) + 1)),
        xlabel="individual (as in the table)",
        ylabel="δ(ε) at the claimed ε (log scale)" if kind == "white-box" else "ε lower bound",
        logy=kind == "white-box",  # intervals of 1e-9 beside a claimed δ of 1e-5: each visible on a log axis
        categories=[p.id[:12] for p in people],
    )
    claim = f"({budget.epsilon:g}, {budget.delta:g})"
    return Page(
        "Per-instance privacy: each individual's guarantee",
        f"Each of the {len(people)} individuals of per_instance() has her own pair (D, D ± z), audited as a "
        f"{claim}-per-instance DP claim (Wang 2019, §2) with the same budget as the mechanism "
        f"({budget.trials:,} draws per world) and decided in the same family of tests (Holm at α = {budget.alpha:g}): "
        "the certificate passes only when every individual's guarantees pass. Each row: the estimate and the "
        "simultaneous interval of each of her DP checks, and her verdict"
        + (
            " (in the figure, an estimate or interval end of 0 is drawn at the axis' floor)."
            if kind == "white-box"
            else "."
        ),
        figure,
        rows=tuple(rows),
    )
