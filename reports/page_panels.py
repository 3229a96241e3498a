"""The panels of a report page read as one figure: one legend for all their lines, below them, and one y range, so
that they compare at a glance (the small multiples of Tufte, *The Visual Display of Quantitative Information*, 1983,
ch. 4)."""

from __future__ import annotations

LEGEND_ROOM = 0.1  # below the panels: their x labels, and the page's legend


def page_legend(fig, axes, top: float) -> None:
    """One legend for every line of the page's panels (each label once), below them from ``top`` down."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    if entries:
        fig.legend(
            list(entries.values()),
            list(entries),
            loc="upper center",
            bbox_to_anchor=(0.5, top),
            ncol=3,
            fontsize=7,
            frameon=False,
        )


def share_y(axes) -> None:
    """One y range for the panels of a page, so that they compare at a glance."""
    if len(axes) < 2:
        return
    low = min(ax.get_ylim()[0] for ax in axes)
    high = max(ax.get_ylim()[1] for ax in axes)
    for ax in axes:
        ax.set_ylim(low, high)
