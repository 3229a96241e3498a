"""Report pages: no text off the page or outside its axes, no two texts overlapping, no legend over the data, no
missing glyph or other matplotlib warning, no truncation marker (:mod:`pdp_audit.reports.layout_check`).

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
    from pdp_audit import blackbox_search_files, use_cases
    from pdp_audit.cli.main import main

    found: list[str] = []
    with checking_pages(found), pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        # ``blackbox`` writes its PDF in the child process that runs the user's code, where the pages checked would
        # be lost with the child: run that work here
        for module in (use_cases, blackbox_search_files):  # the use cases that run it (plain and --search)
            patch.setattr(module, "run_isolated", lambda function, *args, target: function(*args))
        try:
            main(shlex.split(command))
        except SystemExit as stop:
            assert stop.code in (0, 1, 3), f"{command}: exit {stop.code}"
    assert list(tmp_path.glob("*.pdf")), f"{command} wrote no PDF"
    return "\n".join(found)


@pytest.fixture
def examples(tmp_path):
    from pdp_audit.cli.main import main

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


@pytest.mark.tier2
def test_canary_report(tmp_path):
    rng = np.random.default_rng(0)
    np.savetxt(tmp_path / "in.csv", rng.normal(1, 1, 300), header="score", comments="")
    np.savetxt(tmp_path / "out.csv", rng.normal(0, 1, 300), header="score", comments="")
    command = "canaries --in-scores in.csv --out-scores out.csv --delta 1e-5 --claim-epsilon 1 --report c.pdf"
    assert _render(tmp_path, command) == ""


@pytest.mark.tier2
def test_one_run_report_with_its_f_dp_finding(tmp_path):
    rng = np.random.default_rng(0)
    bits = rng.random(2000) < 0.5
    scores = (1.0 * bits + rng.standard_normal(2000)).tolist()
    (tmp_path / "run.csv").write_text("score,included\n" + "".join(f"{s!r},{int(b)}\n" for s, b in zip(scores, bits)))
    command = (
        "canaries --one-run --scores run.csv --column score --inclusion run.csv --inclusion-column included "
        "--delta 1e-5 --alpha 0.05 --report o.pdf"
    )
    assert _render(tmp_path, command) == ""


@pytest.mark.tier2
def test_training_run_report(tmp_path):
    """``canaries --one-run … --dp-sgd deploy.toml``: the page of both bounds (issue 46, item 2), with the check's
    and the finding's pages.  Five steps: the pages and verdicts of twenty (fail; the bound not certified, the curve
    rejected), a third of the accounting's CPU."""
    rng = np.random.default_rng(0)
    bits = rng.random(2000) < 0.5
    scores = (1.0 * bits + rng.standard_normal(2000)).tolist()
    (tmp_path / "run.csv").write_text("score,included\n" + "".join(f"{s!r},{int(b)}\n" for s, b in zip(scores, bits)))
    (tmp_path / "deploy.toml").write_text(
        'mechanism = "dp-sgd"\n[claim]\nepsilon = 0.5\ndelta = 1e-5\n[parameters]\nnoise_multiplier = 1.1\n'
        "sample_rate = 0.01\nsteps = 5\n[audit]\ntrials = 1000\n"
    )
    command = (
        "canaries --one-run --scores run.csv --column score --inclusion run.csv --inclusion-column included "
        "--delta 1e-5 --alpha 0.05 --dp-sgd deploy.toml --report t.pdf"
    )
    assert _render(tmp_path, command) == ""


BLACKBOX_TARGET = """
import numpy as np

class NoisySum:
    dimension = 4
    def release(self, answers, size, rng):
        return answers.sum() + rng.laplace(scale=2.0, size=(size, 1))

def leaky():
    return NoisySum()
"""


@pytest.mark.tier2
def test_blackbox_search_report(tmp_path, monkeypatch):
    """``pdp-audit blackbox --search --report``: cover, the attack's page, the pair and its witness, the ranking."""
    (tmp_path / "bb_target.py").write_text(BLACKBOX_TARGET)
    monkeypatch.syspath_prepend(str(tmp_path))
    command = (
        "blackbox bb_target:leaky --search patterns --neighbours linf:1 --candidates 6 --pilot-trials 500 "
        "--trials 2000 --statistic logistic --claim-epsilon 0.5 --claim-delta 0 --report bb.pdf"
    )
    assert _render(tmp_path, command) == ""


EVENT_TARGET = """
import numpy as np

class Mixed:
    def sample(self, world, size, rng):
        shift = 0.0 if world == "D" else 0.4
        count = rng.binomial(6, 0.5 - shift / 8, size)
        return np.column_stack([count, rng.laplace(shift, 1.0, size), rng.laplace(shift, 1.0, size)])

def pair():
    return Mixed()
"""


EVENT_RUN = "blackbox ev_layout:pair --trials 3000 --claim-epsilon 0.2 --claim-delta 1e-6"


@pytest.mark.tier2
def test_blackbox_event_report(tmp_path, monkeypatch):
    """``pdp-audit blackbox --report`` of the event test (the default): the cover's and the check's events against the
    claim's region, the pair and its witness, the witness's test."""
    (tmp_path / "ev_layout.py").write_text(EVENT_TARGET)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _render(tmp_path, f"{EVENT_RUN} --report ev.pdf") == ""


@pytest.mark.slow
def test_blackbox_event_recheck_report(tmp_path, monkeypatch):
    """The re-check of an event test's witness, reported: the witness's run and the re-check's own budget named."""
    from pdp_audit.cli.main import main

    (tmp_path / "ev_layout.py").write_text(EVENT_TARGET)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert main([*EVENT_RUN.split(), "--json", "ev.json", "--report", "ev.pdf"]) == 1
    assert _render(tmp_path, f"{EVENT_RUN} --witness ev.json --seed 5 --report re.pdf") == ""


@pytest.mark.slow  # fast elsewhere: the event report's and the search report's pages above
def test_blackbox_event_search_report(tmp_path, monkeypatch):
    """``--search --statistic events --report``: the searched pair's events, its witness and the ranking."""
    (tmp_path / "bb_target.py").write_text(BLACKBOX_TARGET)
    monkeypatch.syspath_prepend(str(tmp_path))
    command = (
        "blackbox bb_target:leaky --search patterns --neighbours linf:1 --candidates 3 --pilot-trials 500 "
        "--trials 2000 --statistic events-numbers --claim-epsilon 0.5 --claim-delta 0 --report bb.pdf"
    )
    assert _render(tmp_path, command) == ""


@pytest.mark.slow
def test_gaussian_run_report(tmp_path):
    assert _render(tmp_path, "run gaussian --trials 3000 --report g.pdf --quiet") == ""


@pytest.mark.slow
def test_objpert_run_report(tmp_path):
    assert _render(tmp_path, "run objpert --trials 1000 --paper-claims --report o.pdf --quiet") == ""


@pytest.mark.tier2
def test_dp_sgd_run_report(tmp_path):
    command = "run dp-sgd --steps 5 --trials 1000 --paper-claims --report d.pdf --quiet"
    assert _render(tmp_path, command) == ""


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

    from pdp_audit import pytest_plugin
    from pdp_audit.mechanisms.gaussian import GaussianPair, analytic_sigma
    from pdp_audit.reports.audit_session import write_session_report

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


# --- defects found by reading the pages (each test fails on the code before its fix) -----------------------


def test_a_paragraph_with_a_character_limit_has_no_stray_short_line():
    """Wrapping at a character limit and then at the measured width left one-word lines ("0 guarantees rest" /
    "on exact mathematics"): both limits apply at once, so every line but the last is at least half full."""
    from pdp_audit.reports.page_text import _wrapped

    text = "The DP guarantees are checked at the neighbouring pair own.make(**parameters), as returned. " * 6
    rows = [row for row, _ in _wrapped([(text, {"size": 8, "width": 120})], None)]
    assert len(rows) > 2
    assert all(len(row) >= 60 for row in rows[:-1]), rows


def test_a_digest_is_split_only_between_groups_of_sixteen_digits():
    from pdp_audit.reports.page_text import HEX_GROUP, wrap_to_width

    digest = "0123456789abcdef" * 4
    rows = wrap_to_width(f"sha256 {digest} shape [300, 4]", 150, 9, "DejaVu Sans Mono")
    pieces = [word for row in rows for word in row.split() if set(word) <= set("0123456789abcdef") and len(word) > 8]
    assert "".join(pieces) == digest and len(pieces) > 1
    assert all(len(piece) % HEX_GROUP == 0 for piece in pieces), pieces


def test_a_parenthesised_exponent_is_typeset():
    from pdp_audit.reports.page_text import math

    assert math("the rate n^(−1/4) is claimed") == "the rate $n^{−1/4}$ is claimed"
    assert math("2e^(−ε²/2)/ε") == "$2e^{−ε²/2}$/ε"
    assert math("(log(1/ρ))^(2/3)") == "(log(1/ρ))$^{2/3}$"
    assert math("2^-32") == "2^-32"  # not an exponent in parentheses: left as written
    assert _problems(lambda fig: fig.text(0.1, 0.5, math("rate n^(−1/4)"))) == []


def test_nested_spaced_and_subscripted_scripts_are_typeset():
    """The claims PDF printed λ_n^(−1/2), Π_(j<i), e^(−log(2/δ)), n^(a/4 − 1/2), E_𝒟 and μ̄^p as typed."""
    from pdp_audit.reports.page_text import math, wrap_to_width

    assert math("1 + n^(1/2)λ_n^(−1/2)") == "1 + $n^{1/2}$λ$_{n}^{−1/2}$"
    assert math("δ̃ = Σ_i δ_i Π_(j<i) e^(ε_j)") == "δ̃ = Σ$_{i}$ δ$_{i}$ Π$_{j<i}$ $e^{ε_j}$"
    assert math("½‖θ − θ*‖²_((XᵀX)⁻¹)") == "½‖θ − θ*‖²$_{(XᵀX)⁻¹}$"
    assert math("2e^(−log(2/δ))/log(2/δ)") == "2e$^{−log(2/δ)}$/log(2/δ)"
    assert math("Ce^(−cdt^(3/2))") == "Ce$^{−cdt^{3/2}}$"
    assert math("O(n^(a/2 − 1/4))") == r"O(n$^{a/2\,−\,1/4}$)"
    assert math("E_𝒟[e^(2ε)] and μ̄^p(x)") == r"E$_{\mathcal{D} }$[$e^{2ε}$] and μ̄$^{p}$(x)"
    assert math("P_D'[L_D'D > ε]") == "P$_{D'}$[L$_{D'D}$ > ε]"  # the reverse loss's subscript whole
    assert math("1/λ_n and λ_n² and δ_exact/δ and ‖H‖_F²") == (
        r"1/λ$_{n}$ and λ$_{n}$² and δ$_{\mathrm{exact}}$/δ and ‖H‖$_{F}$²"
    )
    assert math("dγ_n, βI_d, 8ρ_max, F⁻¹_λ1(x), ε_Thm17") == (
        r"dγ$_{n}$, βI$_{d}$, 8ρ$_{\mathrm{max}}$, F⁻¹$_{λ1}$(x), ε$_{Thm17}$"
    )
    assert math("n_rows, x_train, a/b_c.toml, F_unit") == "n_rows, x_train, a/b_c.toml, F_unit"  # names stay
    assert math("λ_min(XᵀX) of stage-lr-adaops-lambda_min") == r"λ$_{\mathrm{min}}$(XᵀX) of stage-lr-adaops-lambda_min"
    assert math("sigma_source = analytic, theorem10_constant_C, X^TX, 2^-32") == (
        "sigma_source = analytic, theorem10_constant_C, X^TX, 2^-32"  # identifiers and non-exponents stay
    )
    rows = wrap_to_width("the general rate is n^(−1/4 + a/2) " * 6, 200, 9)
    assert all(row.count("(") == row.count(")") for row in rows), rows  # a spaced exponent is never split
    lines = [("λ_n^(−1/2), Π_(j<i) e^(ε_j), ‖θ‖²_((XᵀX)⁻¹), Ce^(−cdt^(3/2)), E_𝒟[e^(2ε(Z,z))] ≤ 1", {"size": 9})]
    assert _problems(lambda fig: text_block(fig, lines * 3)) == []


def test_the_scope_paragraph_counts_in_words_and_names_the_pair_in_words():
    """An own mechanism's certificate read "checked at the neighbouring pair own_histogram.make(**parameters), as
    returned. 0 guarantees rest on exact mathematics …": Python in prose, and a count of none."""
    from types import SimpleNamespace

    from pdp_audit.reports.cover import _scope_lines

    def run(exact: int, sampled: int, pair: str):
        checks = [SimpleNamespace(statistical=False)] * exact + [SimpleNamespace(statistical=True)] * sampled
        return SimpleNamespace(checks=checks, parameters={"pair": pair}, alpha=1e-6)

    own = _scope_lines(run(0, 16, "the one own_histogram.make returns for the deployment's parameters"))[1][0]
    assert "0 guarantees" not in own and "All 16 guarantees rest on sampling" in own and "1 − α/16" in own
    assert "neighbouring pair: the one own_histogram.make returns" in own
    one = _scope_lines(run(0, 1, "Pair, as given"))[1][0]
    assert "The guarantee rests on sampling" in one and "level 1 − α)" in one
    assert "1 guarantee rests on exact mathematics" in _scope_lines(run(1, 9, "x"))[1][0]
    coverage = SimpleNamespace(checks=[SimpleNamespace(statistical=True)], parameters={"claim": "coverage"}, alpha=1e-6)
    assert "DP guarantees are checked" not in _scope_lines(coverage)[1][0]  # an event's claim: no pair to check at


def test_a_plugin_grid_runs_claim_is_stated():
    """The session report's page of `privacy_audit.run("ops", claim_epsilon=0.5, …)` read "Claim: (—, —)-DP":
    its parameters carry the sweep's names."""
    from pdp_audit.reports.cover import _claim_text

    assert _claim_text({"audit": "ops", "claim_epsilon": 0.5, "claim_delta": 1e-5}) == "(0.5, 1e-05)-DP"
    stated = _claim_text({"epsilon": 1.0, "delta": 1e-6, "claim": "pDP for this (D, z)"})
    assert stated == "(1, 1e-06)-pDP for this (D, z)"


def test_a_claims_figure_on_a_page_of_its_own_sits_below_the_title():
    """RW-Thm5's figure went to a page of its own and was drawn at the foot of the page, its top half empty."""
    from pdp_audit.reports.claims_report import _entry_pages
    from pdp_audit.reports.records import Check, CoverageFigure

    figure = CoverageFigure(failure_rate=0.001, lo=0.0005, hi=0.002, rho=0.01, exact=None, trials=10_000, level=0.99)
    long = "a long note on how the check was decided, " * 30
    checks = [
        Check(
            id=f"c{k}",
            title="t",
            claim="c",
            formula="f",
            source="s",
            verdict="pass",
            estimate=0.001,
            ci=(0.0005, 0.002),
            pvalue=1.0,
            level=0.99,
            note=long,
            details={"rho": 0.01},
            figure=figure,
        )
        for k in range(4)
    ]
    entry = {
        "id": "K1",
        "where": "[PDP] Fig. 1",
        "verdict": "pass",
        "expected": "pass",
        "agrees": True,
        "statement": "s",
        "command": "pdp-audit run x",
        "rerun": "pdp-audit claims --run --only K1",
        "finding": "",
    }
    with plt.rc_context(RC):
        pages = list(_entry_pages(entry, checks))
        last = pages[-1]
        assert len(pages) >= 2 and last.axes, len(pages)
        assert min(ax.get_position().y0 for ax in last.axes) > 0.5  # right below the title (0.305 at the foot)
        assert page_problems(last) == []
        for page in pages:
            plt.close(page)
    from pdp_audit.reports.claims_report import _figure_height
    from pdp_audit.reports.records import TailCurves

    two_panels = TailCurves([0.0, 1.0], {"D||D', plain": None, "D||D', importance sampling": None}, 0.99, 1.0, 1e-5)
    assert _figure_height(two_panels) == 0.4  # RW-Thm11's two δ(ε) panels were strips in 0.3 of the page


def test_mutant_rows_whose_readings_wrap_stay_on_their_page():
    """A fixed nine rows a page ran off the page's foot once failed readings wrap ("δ(20) ≥ 0.98 > δ = 1e-05")."""
    from pdp_audit.reports.mutants_report import _chunks, _page

    reading = "δ(20) in [0, 0.968], which contains δ = 1e-05 at the deployed noise scale of the release"
    evidence = {"check": "dp-forward", "verdict": "inconclusive", "estimate": 0.5, "interval": [0.0, 0.968]}
    row = {
        "id": "mutant",
        "verdict": "fail",
        "twin_verdict": "inconclusive",
        "caught_by": ["dp-forward"],
        "trials": 2000,
        "twin_not_passing": ["dp-forward"],
        "description": "a plausible bug of a release, described at length " * 3,
        "mutant_evidence": {**evidence, "reading": reading},
        "twin_evidence": {**evidence, "reading": reading},
    }
    doc = {"total": 14, "caught": 0, "seed": 0, "alpha": 1e-6, "mutants": [dict(row, id=f"m{k}") for k in range(14)]}
    chunks = _chunks(doc)
    assert sum(len(c) for c in chunks) == 14 and len(chunks) > 2
    with plt.rc_context(RC):
        for k, chunk in enumerate(chunks):
            fig = _page(doc, chunk, first=k == 0)
            assert page_problems(fig) == [], k
            plt.close(fig)


def test_the_cover_profile_and_roc_panels_have_the_same_height():
    from pdp_audit.reports.cover import _central_figure
    from pdp_audit.reports.records import Line, Lines, Roc

    class Check:
        def __init__(self, figure):
            self.figure = figure

    profile = Lines([Line("δ(ε)", [0.1, 0.01], x=[0.5, 1.0]), Line("claim", [1e-5, 1e-5], x=[0.5, 1.0])])
    roc = Roc(fpr=[1e-6, 1], tpr=[0, 1], epsilon_claim=1.0, delta_claim=1e-5, epsilon_lower_bound=0.5, level=0.99)

    class Run:
        checks = [Check(profile), Check(roc)]

    with plt.rc_context(RC):
        fig = _page()
        below = _central_figure(fig, Run(), 0.7)
        (_, y0, _, h0), (_, y1, _, h1) = (ax.get_position().bounds for ax in fig.axes)
        plt.close(fig)
    assert (y0, h0) == pytest.approx((y1, h1))
    assert below == pytest.approx(0.7 - 0.29) and y0 > below  # the table below starts where it did


def test_categories_label_each_case_and_bound_the_y_axis():
    """The per-instance figure: an error bar per individual, her name on the x axis, the log y axis fitted to the
    intervals (a claimed δ far above them no longer squeezes them into a sliver)."""
    from pdp_audit.reports.plots import plot
    from pdp_audit.reports.records import Line, Lines

    lines = [
        Line("dp-forward", [1e-9, 0.0], x=[1, 2], lo=[0.0, 0.0], hi=[2e-9, 1e-9]),
        Line("claimed δ = 1e-05", [1e-5, 1e-5], marker="", style="--"),
    ]
    figure = Lines(lines, x=[1, 2], xlabel="individual", ylabel="δ", logy=True, categories=["ann", "bob"])
    with plt.rc_context(RC):
        fig = _page()
        plot(fig, figure, (0.1, 0.2, 0.8, 0.5))
        ax = fig.axes[0]
        fig.canvas.draw()
        names = [t.get_text() for t in ax.get_xticklabels()]
        low, high = ax.get_ylim()
        problems = page_problems(fig)
        plt.close(fig)
    assert names == ["ann", "bob"] and problems == []
    assert ax.get_yscale() == "log" and 1e-11 <= low < 1e-9 and 1e-5 < high <= 1e-4  # a decade around the data


def test_the_plugin_cover_lists_every_assertion_over_continuation_pages():
    """60 assertions: each row on a cover page (none cut with "… continued on the assertions' pages")."""
    from pdp_audit.reports.audit_session import _cover

    rows = [
        {"index": k, "nodeid": f"tests/test_m.py::test_{k}", "header": "assert_dp (1, 1e-5)", "verdict": "pass"}
        for k in range(60)
    ]
    doc = {"counts": {"pass": 60, "inconclusive": 0, "fail": 0}, "assertions": rows, "verdict": "pass"}
    with plt.rc_context(RC):
        pages = _cover(doc)
        texts = [t.get_text() for fig in pages for t in fig.texts]
        problems = [p for fig in pages for p in page_problems(fig)]
        for fig in pages:
            plt.close(fig)
    assert len(pages) > 1 and problems == []
    assert all(str(k) in texts for k in range(1, 61)) and not any("continued on" in t for t in texts)  # numbered


def test_a_check_id_too_wide_for_its_column_breaks_after_a_hyphen():
    """ "thm5-variance-loss-conside" / "ncy" in the guarantees table: an identifier breaks at a joint."""
    from pdp_audit.reports.page_text import word_width, wrap_to_width

    name = "thm5-variance-loss-consistency"
    rows = wrap_to_width(name, 0.8 * word_width(name, 7.5), 7.5)
    assert "".join(rows) == name and all(row.endswith("-") for row in rows[:-1]), rows


def _one_check_run(**parameters):
    from pdp_audit.reports.records import Check, Run

    check = Check(
        id="blackbox-attack",
        title="Black-box attack",
        claim="No test of D vs D' has (FPR, TPR) outside the region",
        formula="ε ≥ log((TPR − δ)/FPR)",
        source="Kairouz et al. 2015",
        verdict="fail",
        pvalue=1e-9,
        ci=(0.7, float("inf")),
        level=0.999999,
    )
    return Run("NoisySum", [check], "fail", 1, 1e-6, {"claim": "DP (black box)", **parameters}, 0)


def test_the_scope_follows_a_short_guarantees_table_and_no_data_is_no_data_line():
    """The black-box and canary covers: the scope paragraph sat at the page's foot, a third of the page below a
    one-row table; a run without data said "Data: —"; "Holm over 1 statistical guarantees"."""
    from pdp_audit.reports.cover import cover_page

    with plt.rc_context(RC):
        fig = cover_page(_one_check_run(pair="GaussianPair, as given"))
        problems = page_problems(fig)
        texts = {t.get_text(): t.get_position()[1] for t in fig.texts}
        plt.close(fig)
    assert problems == []
    table = texts["blackbox-attack"]  # the table's only row
    scope = texts["What this does and does not cover"]
    assert 0 < table - scope < 0.08, (table, scope)
    assert not any(t.startswith("Data:") for t in texts)
    assert "(Holm over 1 statistical guarantee)." in " ".join(texts)  # the claim's line, wrapped


def test_the_ranking_rows_line_up_with_their_header():
    """A page's rows lose their leading spaces when drawn: the rank, right-aligned in 3 characters under a header of
    4, shifted every row's columns left of the header's ("D" over the middle of the vectors)."""
    import pdp_audit
    from pdp_audit.audits.blackbox.search_check import SearchOptions
    from pdp_audit.reports.blackbox_report import report_pages

    class NoisySum:
        dimension = 2

        def release(self, answers, size, rng):
            return answers.sum() + rng.laplace(scale=2.0, size=(size, 1))

    options = SearchOptions(candidates=3, pilot_trials=300, trials=1000)
    outcome = pdp_audit.audit_blackbox_search(NoisySum(), 0.5, 0.0, seed=0, options=options)
    header, *rows = report_pages(outcome.report_record())[-1].rows
    assert rows and all(row == row.lstrip() for row in (header, *rows))
    column = header.index(" D ") + 1  # where the D vectors start
    assert all(row[column] == "(" and row[column - 2 : column] == "  " for row in rows), (header, rows)


def test_a_check_decided_by_a_certified_bound_leads_with_it_not_an_open_interval():
    """ObjPert's dp-forward page read "Estimate 5.49e-26 … Interval [0, ∞]" beside a PASS: the certified bound that
    decides it (page 1's basis) was only in the note.  Now the deciding number comes first and an interval open
    above is shown as its certified lower end."""
    from pdp_audit.reports.pdf import check_lines
    from pdp_audit.reports.records import Check

    certified = Check(
        id="thm5-variance-dp-forward",
        title="DP forward",
        claim="(1, 1e-05)-DP",
        formula="δ(ε) ≤ δ",
        source="[RW] Theorem 5",
        verdict="pass",
        estimate=5.49e-26,
        pvalue=1.0,
        ci=(0.0, float("inf")),
        level=0.9999998,
        details={"epsilon": 1.0, "delta_claim": 1e-5, "certified_delta": 1.26e-19, "sampling": "importance"},
    )
    text = " ".join(line for line, _ in check_lines(certified))
    assert "[0, ∞]" not in text and "Decides: δ(1) ≤ 1.26e-19 (certified)" in text, text
    assert text.index("Decides: δ(1)") < text.index("5.49e-26")  # the deciding number first


def test_a_continuation_page_of_guarantees_holds_at_least_four_rows_when_the_break_can_move():
    """The Gaussian run's and the built-in certificate's page 2 held two or three rows: the break moves up so the
    continuation holds MIN_CONTINUED_ROWS, where page 1 keeps as many; a single row is still never left alone."""
    from pdp_audit.reports import cover

    checks = [_one_check_run().checks[0]] * 12
    one = cover.row_height(cover._cells(checks[0]), cover._CELL)
    room = cover._HEADER + 9.5 * one  # nine rows fit
    assert cover._rows_fitting(checks, room) == 8  # 9 + 3 would leave three: 8 + 4
    assert cover._rows_fitting(checks[:10], room) == 6  # 9 + 1: 6 + 4
    assert cover._rows_fitting(checks[:5], cover._HEADER + 4.5 * one) == 3  # 4 + 1, page 1 too short to give 3: 3 + 2
    assert cover._rows_fitting(checks[:9], room) == 9  # all fit: no break
