"""Ledger entries decided by a sweep: rate statements read off fitted exponents (``pdp-audit claims --run``).

A *rate check* names a shipped sweep spec (``examples/*.toml``), the quantity its cells report (a check's
estimate, ``check:ID``, or a number of the cell's ``parameters``), the swept parameter it scales with and the
exponent the paper claims.  ``pdp-audit claims --run`` runs the cells of every spec the selected entries cite
once, as sweep cells on the same executor as the audits, and fits the quantity against the parameter as a power
law, y ≈ c·x^b, by :func:`pdp_audit.sweeps.rates.fit_exponent` (OLS on logarithms; Student-t interval for b at
level 1 − 1e-6, the suite's false-alarm probability per test).  The verdict of a rate check:

* relation ``=`` (the paper states the rate, "ε_n = n^(−1/4)", "depends on neither n nor d"): ``pass`` when the
  claimed exponent lies in the interval, ``fail`` when it lies outside;
* relation ``<=`` (the paper states an upper bound, "O(n^b)", "almost constant"): ``pass`` unless the whole
  interval lies above the claimed exponent (the quantity grows significantly faster than claimed), ``fail`` then;
* ``inconclusive`` when the cells allow no fit (fewer than three positive values), or, at ``--quick``, when the
  spec is not run at that budget (:data:`QUICK`).

The interval treats the cells' residuals around the power law as independent noise: a curve that bends over the
swept range shows as a wide interval (and R² below 1), which the check's note reports.

``--quick`` runs each spec's declared sub-grid (:data:`QUICK`: the cells whose parameters take the listed values,
the same cells hence the same numbers as in the full run), or, for a spec listed with ``None``, does not run it:
its rate checks are then inconclusive and their entries undecided (``agrees`` null).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from pdp_audit.ledger.entries import SWEEP
from pdp_audit.reports.records import Check, Line, Lines, Verdict
from pdp_audit.sweeps.rates import LEVEL, fit_exponent
from pdp_audit.sweeps.spec import Cell, CellTask, SweepSpec, cell_digest, cell_seed, load_spec, tasks_for

EXAMPLES = "examples/"  # spec paths name the shipped examples (package data, `pdp-audit examples DIR` copies them)


@dataclass(frozen=True)
class Rate:
    """One rate statement, decided from a sweep's cells (see the module docstring)."""

    id: str
    spec: str  # path of the sweep spec, relative to the repository root
    title: str
    claim: str  # the statement, in words
    formula: str  # the claimed law
    source: str
    x: str  # the swept parameter: a cell parameter, else a number of the cell's result parameters
    y: str  # ``check:ID`` (that check's estimate) or the name of a number of the cell's result parameters
    claimed: float  # the claimed exponent
    relation: str = "="  # "=" or "<=" (an upper bound)
    where: tuple[tuple[str, Any], ...] = ()  # only the cells whose parameters take these values
    reading: str = ""  # how the statement is read (the note's first sentence)
    x_label: str = ""  # x and y as a reader names them (the note, the figure's axes); default: the names above
    y_label: str = ""

    @property
    def x_name(self) -> str:
        return self.x_label or self.x

    @property
    def y_name(self) -> str:
        return self.y_label or self.y.removeprefix("check:") + (" (estimate)" if self.y.startswith("check:") else "")


#: Every rate check the ledger cites, by id.
RATES: dict[str, Rate] = {
    r.id: r
    for r in (
        Rate(
            "k4-conditioned",
            "examples/pdp-k4-conditioned.toml",
            "K4, well-conditioned regime: pDP for all falls like n^(−1/4)",
            "On well-conditioned data (λ_max, λ_min of XᵀX of order n/d), OPS with γ_n = √n and λ_n = 0 gives "
            "(ε_n, δ)-pDP for everyone with ε_n = n^(−1/4).",
            "pDP-for-all ε_n ∝ n^b with b = −1/4 (exponent of the exact pDP-for-all ε at δ = 1e-5 against n)",
            "[PDP] §4",
            "n_rows",
            "pdp_for_all_epsilon",
            -0.25,
            reading="Read as the rate of the exact pDP-for-all ε (the largest pDP ε over unit-norm targets outside "
            "the data, |y| = 1), γ = √n, λ = 1e-12 (λ_n = 0), synthetic data with d = 5.",
            x_label="n (rows of the data)",
            y_label="pDP-for-all ε",
        ),
        Rate(
            "k4-general",
            "examples/pdp-k4-general.toml",
            "K4, general regime: pDP for all is O(n^(a/2 − 1/4))",
            "With ‖θ̂‖ = O(1), OPS with γ_n = n^(a/2), λ_n = n^(1/2 − a/2) gives (ε_n, δ)-pDP for everyone with "
            "ε_n ≈ √(γ_n log(2/δ)/λ_n) = n^(−1/4 + a/2); here a = 0.25.",
            "pDP-for-all ε_n = O(n^b), b = −1/4 + a/2 = −0.125: the fitted exponent is not above b",
            "[PDP] §4",
            "n_rows",
            "pdp_for_all_epsilon",
            -0.125,
            relation="<=",
            reading="Read as an upper bound: √(γ_n log(2/δ)/λ_n) bounds (4.5)'s leading term "
            "√(γ_n log(2/δ)/(λ_n + λ_min)) for every data set; it is attained only where λ_min(XᵀX) ≲ λ_n.",
            x_label="n (rows of the data)",
            y_label="pDP-for-all ε",
        ),
        Rate(
            "k6-dp-constant",
            "examples/pdp-k6.toml",
            "K6: OPS with γ_n = 1, λ_n = √(n/d) keeps an almost constant DP ε",
            "OPS with γ_n = 1 and λ_n = √(n/d) preserves 'meaningful (almost constant)' DP.",
            "worst-case ε_n = O(n⁰): the fitted exponent in n of the worst ε found is not above 0",
            "[PDP] §4",
            "n_rows",
            "dp_epsilon_worst_found",
            0.0,
            relation="<=",
            reading="Read as 'the DP ε does not grow with n' (bounded), measured by the largest ε over the audit's "
            "adversarial search (data and adversarial bases, among them K5's n identical rows along e₁, y = 1), "
            "a lower estimate of the DP ε.",
            x_label="n (rows of the data)",
            y_label="largest DP ε found",
        ),
        *(
            Rate(
                f"k21-{axis}-{mode}",
                spec,
                f"K21: the {mode} report's worst-case tightness does not depend on {axis}",
                f"For GLMs the strength of the {'data-independent' if mode == 'independent' else 'data-dependent'} "
                f"bound does not depend on {axis} ([RW] Fig. {figure}).",
                f"max ε̄₁ᴾ / max ε₁ ∝ {axis}^b with b = 0",
                f"[RW] App. B.1, Fig. {figure}",
                axis,
                "check:k21-worst-case",
                0.0,
                where=(("mode", mode),),
                reading=f"Read as: the ratio of the largest released bound max_z ε̄₁ᴾ to the largest true ex-post pDP "
                f"max_z ε₁ at one release (finding k21-worst-case of each cell) has exponent 0 in {axis}, "
                f"{'d = 50' if axis == 'n' else 'n = 1000'}, δ = ρ = 1e-6.",
                x_label="n (rows of the data)" if axis == "n" else "d (dimension)",
                y_label="max ε̄₁ᴾ / max ε₁",
            )
            for axis, spec, figure in (("n", "examples/rw-figure-4.toml", 4), ("d", "examples/rw-figure-5.toml", 5))
            for mode in ("independent", "dependent")
        ),
    )
}

#: The cells ``--quick`` runs of each spec: a sub-grid (the cells whose parameters take the listed values) or
#: ``None`` (not run at --quick: its entries are undecided).  A spec not listed runs whole.
_SMALL_N = [f"{n},5" for n in (1000, 1468, 2154, 3162, 4642, 6813, 10000)]
QUICK: dict[str, dict[str, list] | None] = {
    "examples/pdp-k4-conditioned.toml": {"synthetic": _SMALL_N},
    "examples/pdp-k4-general.toml": {"synthetic": _SMALL_N},
    "examples/pdp-k6.toml": {"synthetic": _SMALL_N},
    "examples/rw-figure-4.toml": None,  # 50 privacy-report cells, ~6 min on 2 cores
    "examples/rw-figure-5.toml": None,  # 50 privacy-report cells, ~3 min on 2 cores (both: 9 min measured)
}


def specs_of(checks: Sequence[str]) -> list[str]:
    """The specs the rate checks ``checks`` are read from, in order, each once."""
    unknown = [c for c in checks if c not in RATES]
    if unknown:
        raise KeyError(f"unknown rate check {unknown[0]!r} (see src/pdp_audit/ledger/rates.py)")
    return list(dict.fromkeys(RATES[c].spec for c in checks))


@dataclass
class SweepRun:
    """The cells of one spec run for the ledger: the spec (seeded by the ledger's seed) and the cells to run."""

    key: str  # ``sweep SPEC``
    spec: SweepSpec
    cells: list[Cell]
    quick_skipped: bool = False
    results: dict[str, dict] = field(default_factory=dict)  # cell id -> the cell's result

    @property
    def path(self) -> str:
        return self.key.split(" ", 1)[1]

    def tasks(self) -> list[CellTask]:
        """The cells as sweep tasks, their ids prefixed by ``key`` (to tell them from the audits')."""
        return [dataclasses.replace(t, cell_id=f"{self.key}#{t.cell_id}") for t in tasks_for(self.spec, self.cells)]

    def add(self, task_id: str, result: dict) -> None:
        self.results[task_id.split("#", 1)[1]] = result


def shipped_spec(path: str) -> Path:
    """The file of a shipped sweep spec named ``examples/NAME.toml``, wherever the package is installed."""
    if not path.startswith(EXAMPLES):
        raise ValueError(f"not a shipped example: {path!r}")
    return Path(str(resources.files("pdp_audit.examples").joinpath(path.removeprefix(EXAMPLES))))


def sweep_run(path: str, seed: int, quick: bool) -> SweepRun:
    """The cells of the shipped spec ``path`` (``examples/NAME.toml``), seeded from ``seed`` as ``pdp-audit sweep``
    would with ``[sweep] seed = seed``; at ``--quick``, its declared sub-grid (:data:`QUICK`)."""
    spec = load_spec(shipped_spec(path))
    cells = [
        dataclasses.replace(c, seed=cell_seed(seed, cell_digest(spec.mechanism, c.parameters))) for c in spec.cells
    ]
    spec = dataclasses.replace(spec, seed=seed, cells=cells)
    skipped = False
    if quick and path in QUICK:
        grid = QUICK[path]
        if grid is None:
            cells, skipped = [], True
        else:
            cells = [c for c in cells if all(c.parameters.get(k) in v for k, v in grid.items())]
    return SweepRun(f"{SWEEP} {path}", spec, cells, skipped)


def _value(cell: Cell, result: dict, name: str) -> float | None:
    if name.startswith("check:"):
        check = next((c for c in result.get("checks", ()) if c["id"] == name[len("check:") :]), None)
        value = None if check is None else check.get("estimate")
    elif name in cell.parameters:
        value = cell.parameters[name]
    else:
        value = result.get("parameters", {}).get(name)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def points(rate: Rate, run: SweepRun) -> list[tuple[float, float, str]]:
    """(x, y, cell id) of every cell of ``run`` the rate reads, sorted by x (cells without both values left out)."""
    out = []
    for cell in run.cells:
        if any(cell.parameters.get(k) != v for k, v in rate.where):
            continue
        result = run.results.get(cell.cell_id)
        if result is None:
            continue
        x, y = _value(cell, result, rate.x), _value(cell, result, rate.y)
        if x is not None and y is not None:
            out.append((x, y, cell.cell_id))
    return sorted(out)


def rate_check(rate: Rate, run: SweepRun) -> Check:
    """The check record of ``rate`` from the cells of its spec (see the module docstring for the verdict)."""
    pts = points(rate, run)
    fit = fit_exponent([p[0] for p in pts], [p[1] for p in pts])
    used = [p for p in pts if p[0] > 0 and p[1] > 0]
    group = ", ".join(f"{k} = {v}" for k, v in rate.where)
    quantity, x_name = rate.y_name, rate.x_name
    details = {
        "spec": rate.spec,
        "x": rate.x,
        "y": rate.y,
        "relation": rate.relation,
        "where": dict(rate.where),
        "points": [[x, y] for x, y, _ in pts],
        "cells": [c for _, _, c in pts],
    }
    common: dict[str, Any] = dict(id=rate.id, title=rate.title, claim=rate.claim, formula=rate.formula)
    common.update(source=rate.source, role="paper")
    if run.quick_skipped or fit is None:
        why = (
            f"not run at --quick budgets ({len(run.spec.cells)} cells): undecided; the full run decides it"
            if run.quick_skipped
            else f"no power law can be fitted: {len(used)} cells with positive {x_name} and {quantity}"
        )
        return Check(
            **common, verdict="inconclusive", exact=rate.claimed, note=f"{rate.reading} {why}.", details=details
        )
    b, (lo, hi), r2 = fit
    verdict: Verdict
    if rate.relation == "=":
        verdict = "pass" if lo <= rate.claimed <= hi else "fail"
        rule = f"pass iff the claimed exponent {rate.claimed:g} lies in the interval"
    else:
        verdict = "pass" if lo <= rate.claimed else "fail"
        rule = f"an upper bound: fail iff the whole interval lies above the claimed exponent {rate.claimed:g}"
    xs = [p[0] for p in used]
    note = (
        f"{rate.reading} Fitted log({quantity}) = a + b log {x_name.split(' (')[0]} over {len(used)} cells of the "
        f"shipped sweep {rate.spec.removeprefix('examples/')}"
        + (f" ({group})" if group else "")
        + f", {x_name} from {min(xs):.4g} to {max(xs):.4g}: b = {b:.4g}, interval [{lo:.4g}, {hi:.4g}] at level "
        f"1 − 1e-6, R² = {r2:.4f}; {rule}."
    )
    a = _intercept([p[0] for p in used], [p[1] for p in used], b)
    figure = Lines(
        series=[
            Line(f"{quantity} per cell", [p[1] for p in used], x=xs, style=""),
            Line(f"fit: exponent {b:.3g} [{lo:.3g}, {hi:.3g}]", [math.exp(a) * x**b for x in xs], x=xs, marker=""),
            Line(
                f"claimed exponent {rate.claimed:g} (through the mean)",
                [math.exp(a) * x**rate.claimed * _gm(xs) ** (b - rate.claimed) for x in xs],
                x=xs,
                marker="",
                style="--",
            ),
        ],
        xlabel=x_name,
        ylabel=quantity,
        logx=True,
        logy=True,
    )
    return Check(
        **common,
        verdict=verdict,
        estimate=b,
        exact=rate.claimed,
        ci=(lo, hi),
        level=LEVEL,
        note=note,
        details={**details, "r_squared": r2},
        figure=figure,
    )


def _gm(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _intercept(xs: Sequence[float], ys: Sequence[float], b: float) -> float:
    """The OLS intercept of log y on log x given the slope ``b``."""
    return sum(math.log(y) - b * math.log(x) for x, y in zip(xs, ys)) / len(xs)
