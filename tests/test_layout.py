"""The layout of every report page: no text off the page or outside its axes, no two texts overlapping, no legend
over the data, no missing glyph or other matplotlib warning, no truncation marker
(:mod:`pdp_audit.reports.layout_check`).

The check is first shown to fail on pages broken on purpose, then run over every page of every report type at tiny
budgets (each report is written by the command a user runs, in-process, so every writer's pages are checked as they
are saved).  Reports slower than about 20 s to compute on a CI core are marked slow.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pdp_audit.reports.layout_check import checking_pages, page_problems  # noqa: E402
from pdp_audit.reports.page_text import A4, RC, text_block  # noqa: E402


def _page():
    fig = plt.figure(figsize=A4)
    return fig


def _problems(draw) -> list[str]:
    with plt.rc_context(RC):
        fig = _page()
        try:
            draw(fig)
            return page_problems(fig)
        finally:
            plt.close(fig)


# --- the check can fail ------------------------------------------------------------------------------------


def test_a_clean_page_has_no_problem():
    def draw(fig):
        text_block(fig, [("A title", {"size": 15, "weight": "bold"}), ("A short paragraph.", {"size": 9.5})])
        ax = fig.add_axes((0.1, 0.1, 0.8, 0.5))
        ax.plot([0, 1], [0, 1], label="a line")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.12))
        ax.set_xlabel("x (units)")

    assert _problems(draw) == []


def test_a_long_string_runs_off_the_page():
    problems = _problems(lambda fig: fig.text(0.07, 0.5, "a long string that overflows " * 12, fontsize=9))
    assert any("off the page" in p for p in problems)


def test_the_same_long_string_wrapped_by_text_block_fits():
    assert _problems(lambda fig: text_block(fig, [("a long string that overflows " * 12, {"size": 9})])) == []


def test_two_texts_drawn_over_each_other_overlap():
    def draw(fig):
        fig.text(0.1, 0.5, "interval [0.001, 0.002]", fontsize=9)
        fig.text(0.2, 0.5, "PASS", fontsize=9)

    assert any("texts overlap" in p for p in _problems(draw))


def test_lines_of_a_text_block_do_not_overlap():
    lines = [(f"line {k}: δ_{{D‖D'}}(ε) and e^{{ε}}", {"size": 9.5}) for k in range(20)]
    assert _problems(lambda fig: text_block(fig, lines)) == []


def test_a_truncation_marker_is_found():
    assert any("truncated" in p for p in _problems(lambda fig: fig.text(0.1, 0.5, "sigma_source = analytic [...]")))


def test_a_missing_glyph_is_found():
    problems = _problems(lambda fig: fig.text(0.1, 0.5, "the domain 𝒳", fontsize=9))
    assert any("missing from font" in p for p in problems)


def test_a_text_outside_its_axes_is_found():
    def draw(fig):
        ax = fig.add_axes((0.1, 0.1, 0.3, 0.3))
        ax.text(0.9, 0.5, "a note that runs out of the axes", transform=ax.transAxes)

    assert any("outside its axes" in p for p in _problems(draw))


def test_a_legend_over_the_data_is_found():
    def draw(fig):
        ax = fig.add_axes((0.1, 0.1, 0.8, 0.5))
        x = np.linspace(0, 1, 50)
        ax.plot(x, x, label="rising line through the upper right corner")
        ax.legend(loc="upper right")

    assert any("legend over the data" in p for p in _problems(draw))


# --- every report type -----------------------------------------------------------------------------------


def _render(tmp_path: Path, command: str) -> str:
    """Run ``pdp-audit COMMAND`` in-process in ``tmp_path`` with every saved page checked; its problems, one a
    line (empty: none)."""
    from pdp_audit.verify.cli.main import main

    found: list[str] = []
    with checking_pages(found), pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        try:
            main(shlex.split(command))
        except SystemExit as stop:
            assert stop.code in (0, 1, 3), f"{command}: exit {stop.code}"
    assert list(tmp_path.glob("*.pdf")), f"{command} wrote no PDF"
    return "\n".join(found)


@pytest.fixture
def examples(tmp_path):
    from pdp_audit.verify.cli.main import main

    try:
        main(["examples", str(tmp_path / "ex")])
    except SystemExit as stop:
        assert stop.code == 0
    return tmp_path / "ex"


def _small(examples: Path, name: str, old: str, new: str) -> Path:
    """A shipped example with a smaller budget, beside the original (its data path is relative to it)."""
    path = examples / f"small-{name}"
    path.write_text((examples / name).read_text().replace(old, new))
    return path


def test_canary_report(tmp_path):
    rng = np.random.default_rng(0)
    np.savetxt(tmp_path / "in.csv", rng.normal(1, 1, 300))
    np.savetxt(tmp_path / "out.csv", rng.normal(0, 1, 300))
    command = "canaries --in-scores in.csv --out-scores out.csv --delta 1e-5 --claim-epsilon 1 --report c.pdf"
    assert _render(tmp_path, command) == ""


@pytest.mark.slow
def test_gaussian_run_report(tmp_path):
    assert _render(tmp_path, "run gaussian --trials 3000 --report g.pdf --quiet") == ""


@pytest.mark.slow
def test_objpert_run_report(tmp_path):
    assert _render(tmp_path, "run objpert --trials 1000 --paper-claims --report o.pdf --quiet") == ""


@pytest.mark.slow
def test_certificate_of_a_built_in_audit(examples):
    spec = _small(examples, "deploy-gaussian.toml", "trials = 1e6", "trials = 3000")
    assert _render(examples, f"certify {spec.name} --report cert.pdf --quiet") == ""


@pytest.mark.slow
def test_certificate_of_an_own_mechanism(examples):
    spec = _small(examples, "deploy-own.toml", "trials = 2e5", "trials = 3000")
    assert _render(examples, f"certify {spec.name} --report cert.pdf --quiet") == ""


@pytest.mark.slow
def test_sweep_report(examples):
    spec = _small(examples, "sweep-small.toml", "trials = 1e5 ", "trials = 2000 ")
    assert _render(examples, f"sweep {spec.name} --workers 1 --report sweep.pdf --quiet") == ""


@pytest.mark.slow
def test_mutants_report(tmp_path):
    assert _render(tmp_path, "mutants --trials 2000 --report m.pdf --quiet") == ""


@pytest.mark.slow
def test_claims_report(tmp_path):
    assert _render(tmp_path, "claims --run --quick --report claims.pdf") == ""


@pytest.mark.slow
def test_plugin_session_report(tmp_path):
    """The pytest plugin's ``--audit-report``: a passing and a failing assertion of one test."""
    import json

    from pdp_audit.mechanisms.gaussian import GaussianPair, analytic_sigma
    from pdp_audit.reports.audit_session import write_session_report
    from pdp_audit.verify import pytest_plugin

    kept: list[dict] = []

    class Session:
        def add(self, record):
            kept.append(record)

    settings = pytest_plugin.Settings(trials=2000, seed=0, alpha=1e-6, strict=False)
    audit = pytest_plugin.PrivacyAudit("tests/test_mine.py::test_release_is_dp", settings, Session())
    audit.assert_dp(GaussianPair([0.0], [1.0], analytic_sigma(1.0, 1e-3)), epsilon=1.0, delta=1e-2)
    with pytest.raises(pytest.fail.Exception):
        audit.assert_dp(GaussianPair([0.0], [1.0], 0.3), epsilon=1.0, delta=1e-2)
    found: list[str] = []
    with checking_pages(found):
        write_session_report(json.loads(json.dumps(kept)), "fail", tmp_path / "audit.pdf")
    assert "\n".join(found) == ""
