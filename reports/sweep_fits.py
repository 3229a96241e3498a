"""The sweep report's pages of fitted exponents: power laws of a check's estimates against a swept parameter, drawn
only for checks whose estimate is a quantity a rate statement can be about (see :func:`rate_check`); every fit stays
in the sweep's JSON."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.page_text import A4, fmt, text_block  # noqa: E402


def _value(v) -> str:
    return fmt(v, 4) if isinstance(v, float) else str(v)


def exponent_pages(results) -> list[plt.Figure]:
    """The fitted exponents (power laws of the estimates against each swept parameter), when the sweep has any."""
    fits = [e for e in results.exponents if rate_check(results, e.check)]
    if not fits:
        return []
    pages = []
    per_page = 40
    for start in range(0, len(fits), per_page):
        fig = plt.figure(figsize=A4)
        lines: list[tuple[str, dict]] = [
            ("Fitted exponents" + (" (continued)" if start else ""), {"size": 15, "weight": "bold"}),
            (
                "Each row fits one check's estimates y against one swept parameter x as a power law, "
                "log y = a + b log x (least squares over the cells sharing the other swept parameters; Student-t "
                f"interval on b at level 1 − {1 - fits[0].level:.0e}, as every test of the suite; non-positive "
                "estimates left out). A rate statement such as ε_n ∝ n^(−1/4), or 'does not depend on n' (b = 0), "
                "is read against the interval; a low R² says the curve is not a power law.",
                {"size": 8.5, "gap": 0.012},
            ),
        ]
        mono = {"size": 7.5, "family": "DejaVu Sans Mono", "width": 200, "gap": 0}
        wc = max([5] + [len(e.check) for e in fits])  # columns as wide as their longest entry: nothing cut
        wx = max([1] + [len(e.parameter) for e in fits])
        lines.append((f"{'check':<{wc}} {'x':<{wx}} {'b':>8}  {'interval':<20} {'R²':>6} {'cells':>5}  group", mono))
        for e in fits[start : start + per_page]:
            group = ", ".join(f"{k}={_value(v)}" for k, v in e.group.items()) or "all cells"
            interval = f"[{e.ci[0]:.3g}, {e.ci[1]:.3g}]"
            lines.append(
                (
                    f"{e.check:<{wc}} {e.parameter:<{wx}} {e.exponent:>8.3g}  {interval:<20} "
                    f"{e.r_squared:>6.3f} {e.points:>5}  {group}",
                    mono,
                )
            )
        text_block(fig, lines)
        pages.append(fig)
    return pages


#: Checks whose estimate is decided against a fixed claim (a δ at the claimed ε, an attack's ε, a p-value): a power
#: law fitted to them states no rate.  Their fits stay in the sweep's JSON.
_NO_RATE = ("dp-forward", "dp-reverse", "lr-attack", "tail-curve", "loss-law", "loss-consistency")


def rate_check(results, check_id: str) -> bool:
    """Whether the PDF fits a power law to ``check_id``'s estimates: a sampled estimate of a quantity, not a check
    against a claim, nor an exact check (whose estimate is a floating-point error)."""
    if check_id.endswith(_NO_RATE):
        return False
    return any(c.get("pvalue") is not None for cell in results.cells for c in cell["checks"] if c["id"] == check_id)
