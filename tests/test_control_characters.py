"""Control characters of a user's names reach no font (issue 27, minor): the PDF shows them escaped, and matplotlib
prints no ``Glyph 27 missing`` warning carrying the raw ESC byte onto the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

SPEC = (
    '[sweep]\nname = "n\\npdp-audit: CERTIFIED\\r\\u001b[2K\\u0085"\nmechanism = "gaussian"\nchecks = ["dp-forward"]\n'
    "[fixed]\ntrials = 2000\n[grid]\nclaim_epsilon = [1.0]\n"
)


def test_a_page_with_control_characters_is_saved_without_a_warning_and_shows_them_escaped(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    from pdp_audit.reports.page_text import save_pages

    fig = plt.figure()
    label = fig.text(0.1, 0.5, "sweep a\x1b[2Kb\rc\x85d\te\nsecond line")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph is a UserWarning
        with PdfPages(tmp_path / "p.pdf") as pdf:
            save_pages(pdf, [fig])
    assert label.get_text() == "sweep a\\x1b[2Kb\\x0dc\\x85d\\x09e\nsecond line"


@pytest.mark.tier2
def test_a_sweep_named_with_an_escape_prints_nothing_on_stderr(tmp_path):
    (tmp_path / "s1.toml").write_text(SPEC, encoding="utf-8")
    command = [sys.executable, "-m", "pdp_audit.cli", "sweep", "s1.toml", "--workers", "1", "--report", "s1.pdf"]
    env = {**os.environ, "PDP_AUDIT_PROGRESS": "0"}  # progress lines aside (a loaded machine passes LINE_INTERVAL)
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode in (0, 1, 3) and (tmp_path / "s1.pdf").stat().st_size > 0, done.stderr
    assert done.stderr == "", done.stderr


def test_tick_labels_given_as_strings_are_escaped_too(tmp_path):
    """A sweep's category or an individual's name set as a tick label (``set_xticks(ticks, labels)``): the draw sets
    every tick label again from the axis's formatter, so escaping the label artists alone left the raw ESC to the
    font (a ``Glyph 27 missing`` warning, the byte on the terminal)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    from pdp_audit.reports.page_text import save_pages

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_xticks([0, 1], ["a\x1b[2Kb", "plain"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph is a UserWarning
        with PdfPages(tmp_path / "p.pdf") as pdf:
            save_pages(pdf, [fig])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a\\x1b[2Kb", "plain"]


def test_titles_axis_labels_and_legend_entries_are_escaped_too(tmp_path):
    """The texts inside an axes -- its title, an axis label, a legend's entry -- are found and escaped as a
    figure's own texts are (the walk over the figure's artists, which leaves the axes' ticks to the draw)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    from pdp_audit.reports.page_text import save_pages

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="line a\x1bb")
    ax.set_title("title a\x1bb")
    ax.set_xlabel("x a\x07b")
    ax.legend()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph is a UserWarning
        with PdfPages(tmp_path / "p.pdf") as pdf:
            save_pages(pdf, [fig])
    assert ax.get_title() == "title a\\x1bb"
    assert ax.xaxis.label.get_text() == "x a\\x07b"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["line a\\x1bb"]
