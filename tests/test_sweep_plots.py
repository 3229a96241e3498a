"""The sweep report's plots: one column per value of the next swept parameter, lines for the rest, and a row of
absolute curves for a check that carries them (the two curves of a paper's figure)."""

from types import SimpleNamespace

import numpy as np
import pytest

from pdp_audit.reports.sweep_pdf import PANEL_COLUMNS, plot_pages


def _cell(n, mode, curves=True):
    report, truth = 1.0 / n, (0.5 if mode == "dependent" else 0.1) / n
    details = {"curves": {"report": report, "truth": truth}} if curves else {}
    check = {"id": "k21-worst-case", "title": "K21", "estimate": report / truth, "ci": None, "verdict": "pass"}
    return {"parameters": {"n": n, "mode": mode}, "checks": [dict(check, details=details)]}


def _results(cells, swept):
    return SimpleNamespace(spec={"swept": swept}, cells=cells)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_one_column_per_value_of_the_other_parameter_with_the_curves_above():
    cells = [_cell(n, mode) for mode in ("independent", "dependent") for n in (100, 1000, 10000)]
    page = plot_pages(_results(cells, ["n", "mode"]))[0]  # against n
    axes = page.get_axes()
    assert len(axes) == 4  # (curves, estimate) × (dependent, independent)
    titles = [ax.get_title() for ax in axes if ax.get_title()]
    assert titles == ["mode = dependent", "mode = independent"]
    curves_dependent = axes[0]
    plotted = {line.get_label(): line.get_ydata() for line in curves_dependent.get_lines()}
    assert set(plotted) == {"report", "truth"}
    np.testing.assert_allclose(plotted["truth"], [0.5 / n for n in (100, 1000, 10000)])
    assert curves_dependent.get_yscale() == "log"  # the curves span decades
    estimates = axes[2].get_lines()[0].get_ydata()
    np.testing.assert_allclose(estimates, [2.0, 2.0, 2.0])


def test_a_check_without_curves_has_one_row_and_many_columns_continue_on_the_next_page():
    modes = [f"m{i}" for i in range(PANEL_COLUMNS + 1)]
    cells = [_cell(n, mode, curves=False) for mode in modes for n in (100, 1000)]
    pages = plot_pages(_results(cells, ["n", "mode"]))
    assert [len(p.get_axes()) for p in pages] == [PANEL_COLUMNS, 1]  # against n only: a mode is not an x axis


def test_the_parameter_with_fewest_values_gets_the_columns_and_too_many_values_become_lines():
    cells = [
        dict(_cell(n, "dependent", curves=False), parameters={"n": n, "d": d, "mode": m})
        for n in (10, 100)
        for d in range(1, 13)
        for m in ("a", "b")
    ]
    pages = plot_pages(_results(cells, ["n", "d", "mode"]))
    against_n = pages[0]
    assert [ax.get_title() for ax in against_n.get_axes()] == ["mode = a", "mode = b"]
    joined = [line for line in against_n.get_axes()[0].get_lines() if len(line.get_xdata()) == 2]
    assert len(joined) == 12  # one line per d, each through n = 10 and 100
    against_d = pages[1]
    assert len(against_d.get_axes()) == 2  # columns per mode again; n is a line


def test_fixed_parameters_left_to_defaults_are_named_not_printed_as_none():
    from pdp_audit.reports.sweep_pdf import _fixed_text

    text = _fixed_text({"sensitivity": 1, "sigma": None, "data": None})
    assert "None" not in text and text.startswith("sensitivity = 1") and "sigma, data" in text
