"""Page 1 of the program report: the page a reviewer reads (``Run.review``, drawn by
:mod:`pdp_audit.reports.review_page`).  A failing program's page 1 holds the verdict's headline, the witness pair as a
table, the call trace with the diverging or over-sensitive call highlighted, the composition, the black box's
p-value and what is not covered; a passing twin's holds the certificate.  Drawn without overlaps or text off the page
(:mod:`pdp_audit.reports.layout_check`), and byte-identical for the same seed.  Seen failing: with the review page
drawn after the cover (``run_pages``), the page-1 tests fail; with the trace's marks cleared, the highlight tests
fail."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

import numpy as np
import pytest

import pdp_audit
from pdp_audit.audits.program import analysis, decision, pages
from pdp_audit.audits.program.accounting import gaussian_delta
from pdp_audit.audits.program.call_trace import gaussian_allowance
from pdp_audit.audits.program.pages import coordinate_names
from pdp_audit.reports.layout_check import checking_pages
from pdp_audit.reports.page_text import COLOURS
from pdp_audit.reports.review_page import review_pages
from pdp_audit.verify.inputs.release_codec import encode

VALUES = np.array([0, 1, 2, 3, 5, 6, 7, 8]) / 8  # dyadic: exact sums, so the twin is certified at exactly ε
LABELS = np.array([0, 0, 1, 1, 1, 2, 3, 3, 0, 1])


def raw_sum(data, rng):
    """Bug: the raw sum released with the clipped data's sensitivity 1."""
    return np.nan_to_num(data).sum() + rng.laplace(0.0, 1.0)


def spent_twice(data, rng):
    """Bug: the budget spent twice."""
    total = np.clip(np.nan_to_num(data), 0.0, 1.0).sum()
    return total + rng.laplace(0.0, 1.0), total + rng.laplace(0.0, 1.0)


def domain_from_data(data, rng):
    """Bug: the classes from np.unique of the data: removing a class's only record removes a call's element."""
    classes, counts = np.unique(data, return_counts=True)
    return dict(zip(classes.tolist(), (counts + rng.laplace(0.0, 1.0, size=counts.size)).tolist()))


def fixed_sum(data, rng):
    """The fixed twin: every value mapped into [0, 1] before the sum."""
    return np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0)


def _audit(program, data, **options):
    options = {"epsilon": 1.0, "trials": 2000, "seed": 0, "alpha": 1e-6, **options}
    return pdp_audit.audit_program(program, data, **options)


@functools.cache
def _audit_of_values(program, **options):
    """``_audit(program, VALUES, **options)``, made once in a process where two tests read the same audit: the same
    call at the same seed gives the same run (the byte-identical test audits twice to show it), and each of these
    audits costs 5-12 CPU seconds.  The tests only read the run."""
    return _audit(program, VALUES, **options)


def _page_one(run) -> list[tuple[str, str, str]]:
    """Page 1's drawn texts, each with its colour and weight, after checking that the review page is one page."""
    import matplotlib.colors
    import matplotlib.pyplot as plt

    figures = review_pages(run.review)
    try:
        assert len(figures) == 1, "the review page spilled onto a second page"
        return [
            (t.get_text(), matplotlib.colors.to_hex(t.get_color()), str(t.get_fontweight())) for t in figures[0].texts
        ]
    finally:
        for fig in figures:
            plt.close(fig)


def _highlighted(texts, verdict="fail") -> str:
    return " ".join(t for t, colour, weight in texts if colour == COLOURS[verdict] and weight == "bold")


@pytest.mark.tier2
def test_a_diverging_call_is_highlighted_in_the_trace_on_page_one():
    run = _audit(domain_from_data, LABELS)
    assert run.verdict == "fail"
    texts = _page_one(run)
    words = " ".join(t for t, _, _ in texts)
    assert "REFUTED" in words and "Witness pair" in words and "Call trace" in words and "Not covered" in words
    assert (
        f"{LABELS.size - 1} records" in words and "(removed)" in words
    )  # the witness table: D′'s size and the row removed
    marked = _highlighted(texts)
    assert "diverges" in marked and "laplace ×4" in marked, marked


@pytest.mark.tier2
def test_an_over_sensitive_call_is_highlighted_with_its_distance():
    run = _audit(raw_sum, VALUES, bounds=(0, 1))
    assert run.verdict == "fail"
    marked = _highlighted(_page_one(run))
    assert "over-sensitive" in marked, marked
    (trace,) = [s.table for s in run.review.sections if s.heading == "Call trace"]
    row = trace.rows[trace.highlight[0]]
    assert row[4] == "1" and row[3] != row[4]  # allowed alone: ε·b = 1; the input moved by more


def gumbel_sum(data, rng):
    """Bug: the raw sum as the location of Gumbel noise, a law the composition does not know."""
    return rng.gumbel(float(np.nan_to_num(data).sum()), 1.0)


@pytest.mark.tier2
def test_a_call_the_composition_cannot_account_shows_no_loss_of_zero():
    run = _audit(gumbel_sum, VALUES, bounds=(0, 1))
    (trace,) = [s.table for s in run.review.sections if s.heading == "Call trace"]
    (row,) = trace.rows
    assert row[3] not in ("0", "—") and row[5] == "not bounded", row  # its input moved, and no law bounds it


def rounded_sum(data, rng):
    """Bug by a rounding: 0.5 + 0.1 and 0.5 + 0.1 + 1.0 are doubles 1 + 2⁻⁵³ apart, above the sensitivity 1."""
    return float(np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0)


@pytest.mark.tier2
def test_an_input_moved_beyond_its_allowance_by_a_rounding_shows_the_excess():
    run = _audit(rounded_sum, np.array([0.5, 0.1]), bounds=(0, 1), law="ideal")
    (trace,) = [s.table for s in run.review.sections if s.heading == "Call trace"]
    (row,) = trace.rows
    assert row[6] == "over-sensitive: moved 1 + 1.11e-16 > 1", row  # not "moved 1 > 1"


@pytest.mark.tier2
def test_a_double_spending_is_shown_by_its_composition_the_black_box_not_needed():
    run = _audit_of_values(spent_twice, bounds=(0, 1))
    texts = _page_one(run)
    words = " ".join(t for t, _, _ in texts)
    assert "Composition on this pair" in words and "Black-box confirmation on the witness pair" in words
    marked = _highlighted(texts)
    assert "composed" in marked and "ε = 2" in marked, marked
    confirm = next(c for c in run.checks if c.id == "program-confirm")
    # an exact refutation ends the run: two coordinates of ε = 1 each, no one of which sizes a short corroboration
    assert confirm.pvalue is None and confirm.details["not_run"] == "program-composition refutes the claim exactly"
    assert "The black box was not needed (the exact refutation decides)." in run.review.reading


def test_a_passing_twin_shows_its_certificate():
    run = _audit(fixed_sum, VALUES, bounds=(0, 1), law="ideal")
    assert run.verdict == "pass"
    texts = _page_one(run)
    words = " ".join(t for t, _, _ in texts)
    assert "CERTIFIED" in words and "Certificate" in words and "δ̄ = 0" in words
    assert f"Searched: {run.parameters['pairs_searched']} neighbouring" in words
    assert "laplace (scale 1)" in words and not _highlighted(texts)


def test_page_one_names_the_glossary_of_its_words_in_a_footnote():
    """Page 1's footnote names the docs page that explains its words ("carried", "loss alone"), a page that exists;
    drawn in the bottom margin, so the page is still one page.  Seen failing before the footnote was added."""
    from pathlib import Path

    run = _audit_of_values(fixed_sum, bounds=(0, 1), law="ideal")
    assert run.review.footnote == pages.GLOSSARY_LINE
    path = re.search(r"docs/\S+\.md", pages.GLOSSARY_LINE)
    assert path is not None and (Path(__file__).resolve().parent.parent / path.group(0)).is_file()
    assert "glossary.md" in " ".join(t for t, _, _ in _page_one(run))


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler) reads the PDF's page 1")
# the twin's page in tier 2: its certificate's words are test_a_passing_twin_shows_its_certificate's in tier 1
@pytest.mark.tier2(representatives=("bug",))
@pytest.mark.parametrize("program", [spent_twice, fixed_sum], ids=["bug", "twin"])
def test_the_review_page_is_page_one_laid_out_and_byte_identical(tmp_path, program):
    found: list[str] = []
    paths = [tmp_path / "a.pdf", tmp_path / "b.pdf"]
    for path in paths:
        run = _audit(program, VALUES, bounds=(0, 1), law="ideal")
        with checking_pages(found):
            pdp_audit.write_report(run, pdf=path)
    assert not found, found
    assert paths[0].read_bytes() == paths[1].read_bytes()
    page = subprocess.run(
        ["pdftotext", "-f", "1", "-l", "1", str(paths[0]), "-"], capture_output=True, text=True, check=True
    ).stdout
    headline = "REFUTED" if program is spent_twice else "CERTIFIED"
    assert headline in page and "dataset" in page and "Not covered" in page, page[:500]


def test_release_coordinates_are_named_by_keys_and_positions():
    encoded = encode({"sum": 1.0, "counts": np.zeros((2, 2)), "pair": (1, 2), 3: 1j})
    structure, numbers = encoded.structure, encoded.numbers
    assert coordinate_names(structure, numbers.size) == [
        "sum", "counts[0, 0]", "counts[0, 1]", "counts[1, 0]", "counts[1, 1]", "pair[0]", "pair[1]", "3.real", "3.imag",
    ]  # fmt: skip
    assert coordinate_names(structure, 3) == ["0", "1", "2"]  # a structure that does not read: positions


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-5), (0.5, 1e-3), (3.0, 1e-9)])
def test_the_gaussian_allowance_spends_the_claims_delta(epsilon, delta):
    mu = gaussian_allowance(epsilon, delta)
    assert gaussian_delta(mu, epsilon) == pytest.approx(delta, rel=1e-6)
    assert gaussian_delta(mu * 1.01, epsilon) > delta and gaussian_allowance(epsilon, 0.0) == 0.0


def noisy_max_with_count(data, rng):
    """Bug: report noisy max that also releases the winner's exact count."""
    counts = np.array([(data == c).sum() for c in range(4)], dtype=float)
    winner = int(np.argmax(counts + rng.laplace(0.0, 1.0, size=4)))
    return str(winner), float(counts[winner])


@pytest.mark.tier2
def test_a_count_released_without_noise_is_highlighted_in_the_release_not_the_trace():
    run = _audit(noisy_max_with_count, LABELS)
    assert run.verdict == "fail"
    tables = {s.heading: s.table for s in run.review.sections}
    release = tables["The release on D and on D′, with the noise drawn on D"]
    (marked,) = release.highlight
    assert release.rows[marked][0] == "[1]" and release.rows[marked][3] == "no noise at D's draws", release.rows
    assert not tables["Call trace"].highlight  # its noise is read nowhere in the release: a gap, not the bug


def sum_with_noise_by_hand(data, rng):
    """Bug: Laplace noise of scale 1 drawn by hand from a uniform, on a sum of values in [0, 4]."""
    u = rng.uniform(-0.5, 0.5)
    return np.clip(np.nan_to_num(data), 0.0, 4.0).sum() - np.sign(u) * np.log(1 - 2 * abs(u))


def test_noise_drawn_by_hand_is_not_called_no_noise():
    """The probe shifts location families only: a coordinate carrying a uniform turned into Laplace noise is free of
    the draws it shifts, not of noise (seen failing: the finding said "free of the recorded noise", the page "no
    noise")."""
    run = _audit(sum_with_noise_by_hand, VALUES * 4, trials=200)
    structure = next(c for c in run.checks if c.id == "program-structure")
    assert "no shifted draw moves (the draws of uniform(" in structure.note, structure.note
    assert "free of the recorded noise" not in structure.note
    tables = {s.heading: s.table for s in run.review.sections}
    release = tables["The release on D and on D′, with the noise drawn on D"]
    assert release.rows[0][3] == "no shifted noise", release.rows


def mean_size_public(data, rng):
    """Bug: n = len(data) is private under add/remove, yet it sets the noise's scale."""
    values = np.clip(np.nan_to_num(data), 0.0, 1.0)
    return values.mean() + rng.laplace(0.0, 1.0 / len(values))


@pytest.mark.tier2
def test_a_scale_taken_from_the_data_is_highlighted_with_both_scales():
    run = _audit_of_values(mean_size_public, bounds=(0, 1))
    (trace,) = [s.table for s in run.review.sections if s.heading == "Call trace"]
    (marked,) = trace.highlight
    row = trace.rows[marked]
    on_d = f"laplace (scale {1 / VALUES.size:.6g})"
    assert row[1] == on_d, row  # on D
    assert row[6].startswith("scale taken from the data: on D′ laplace (scale ") and on_d[8:] not in row[6], row


def test_a_scale_taken_from_the_data_makes_the_composition_unbounded():
    """The steps are read at D's scales: a pair whose scale moved gets a last row saying its loss is unbounded,
    highlighted under a pure claim (seen failing: the table ended on "0 ≤ δ(ε = 1) ≤ 0" under a REFUTED banner)."""
    run = _audit_of_values(mean_size_public, bounds=(0, 1))
    (table,) = [s.table for s in run.review.sections if s.heading == "Composition on this pair"]
    assert table.rows[-1][:3] == ["scale moved", "—", "ε = ∞"] and "unbounded" in table.rows[-1][3], table.rows
    assert len(table.rows) - 1 in table.highlight


def many_statistics(data, rng):
    """Bug: 30 noisy column sums of 8 fields, one field never clipped (30 calls, 8 fields, 30 coordinates)."""
    return {
        f"stat_{k}": (data[:, k % 8] if k % 8 == 7 else np.clip(data[:, k % 8], 0, 1)).sum() + rng.laplace(0.0, 30.0)
        for k in range(30)
    }


@pytest.mark.tier2
def test_a_long_trace_still_fits_page_one_with_what_was_left_out_counted():
    data = np.random.default_rng(1).uniform(0, 1, size=(20, 8))
    run = _audit(many_statistics, data, bounds=(0, 1), trials=500, law="ideal")
    texts = _page_one(run)  # one page: the trace, release, fields and steps cut to a page's worth, never clipped
    words = " ".join(t for t, _, _ in texts)
    assert "more calls" in words and "more fields" in words and "Not covered" in words, words
    (trace,) = [s.table for s in run.review.sections if s.heading == "Call trace"]
    assert len(trace.rows) <= 9 and trace.rows[-1][0] == "…"


def test_the_trace_names_the_line_of_the_program_that_made_each_call():
    """Each recorded call carries the line of the program that made it (the innermost frame outside pdp-audit and
    the recorded libraries): the trace says where to look."""
    import inspect

    run = _audit_of_values(spent_twice, bounds=(0, 1))
    (trace,) = [s.table for s in run.review.sections if s.heading == "Call trace"]
    source, first = inspect.getsourcelines(spent_twice)
    line = first + next(i for i, text in enumerate(source) if "rng.laplace" in text)
    assert [row[1:3] for row in trace.rows[:2]] == [["laplace (scale 1)", str(line)]] * 2
    (intro,) = [s.text for s in run.review.sections if s.heading == "Call trace"]
    assert "Line: where the program made the call (in test_program_report.py)." in intro


def test_a_draw_made_inside_pandas_is_placed_at_the_programs_line():
    """A program that hands its generator to pandas (``sample(random_state=rng)``) gets the line of its own call,
    not one inside pandas (seen failing: ``sample.py:166``)."""
    import inspect

    import pandas as pd

    from pdp_audit.audits.program.recorder import RecordingGenerator, Tape

    tape = Tape()
    rng = RecordingGenerator(tape, 0)

    def program():
        return pd.Series(np.arange(5.0)).sample(3, random_state=rng).sum()

    program()
    line = inspect.getsourcelines(program)[1] + 1
    assert [c.line for c in tape.recorded] == [f"test_program_report.py:{line}"]


def rounded_half_noise_histogram(data, rng):
    """Bug: replace-one moves two counts by 1, the noise is calibrated for one (scale 1/ε); rounded to 0.1."""
    counts = np.array([(data == c).sum() for c in range(4)], dtype=float)
    return np.round(counts + rng.laplace(0.0, 1.0, size=4), 1)


@pytest.mark.tier2
def test_a_rounded_bugs_composition_table_says_what_decided():
    """Behind a rounding the refutation is the rounded law's (a lower bound), the noise's law an upper one: the
    carried steps come first and the lower composition is its own highlighted row (seen failing: four rows "no
    (bounded above only)", the rounded law's steps cut off as "… 2 more steps", beside one composed row that
    refuted)."""
    run = _audit(rounded_half_noise_histogram, LABELS, neighbours="replace-one", trials=100, law="ideal")
    assert run.verdict == "fail"
    (table,) = [s.table for s in run.review.sections if s.heading == "Composition on this pair"]
    carried = [row for row in table.rows if row[3].startswith("yes")]
    assert carried and table.rows[: len(carried)] == carried, table.rows  # the carried steps first
    (marked,) = [table.rows[i] for i in table.highlight]
    assert marked[0].startswith("composed, ") and "refutes" in marked[3], table.rows
    assert any(row[0] == "composed, all steps (above)" for row in table.rows), table.rows


def rounded_mean_private_size(data, rng):
    """Bug: the mean's noise scale 1/n with n private under add/remove, rounded to cents."""
    x = np.clip(np.nan_to_num(data), 0.0, 1.0)
    return round(float(x.mean() + rng.laplace(0.0, 1.0 / x.size)), 2)


@pytest.mark.tier2
def test_an_exact_refutations_page_shows_the_pair_whose_composition_refutes():
    """The headline states the refuting pair's δ(ε): page 1's witness and composition are that pair's, not the
    screening's, and the upper row of a rescaled rounded call, known to no upper step, bounds nothing (seen
    failing: that row read "δ(ε = 1) ≤ 0" under the refutation; on the examples' program-values.csv the page showed
    the pair the screening of releases found, δ(1) ≥ 8.2e-06, beside a headline of 5.8e-05)."""
    run = _audit(rounded_mean_private_size, VALUES, bounds=(0, 1), trials=200, law="ideal")
    assert run.verdict == "fail"
    composition = next(c for c in run.checks if c.id == "program-composition")
    (table,) = [s.table for s in run.review.sections if s.heading == "Composition on this pair"]
    (marked,) = [table.rows[i] for i in table.highlight]
    shown = float(marked[3].split("≥ ")[1].split(",")[0])
    stated = float(re.search(r"δ\(ε = [^)]*\) ≥ ([0-9.e+-]+)", composition.note).group(1))
    assert abs(shown - stated) <= 1e-3 * stated, (marked, composition.note)  # the note's 4 digits, the table's 6
    (upper,) = [row for row in table.rows if row[0] == "composed, all steps (above)"]
    assert upper[3].startswith("not bounded above"), table.rows


def clipped_too_wide(data, rng):
    """Bug: a sum clipped to [0, 2] where the domain is [0, 1], its noise for [0, 1]; NaN passes the clip."""
    return float(np.clip(data, 0.0, 2.0).sum() + rng.laplace(0.0, 1.0))


def test_the_composition_names_the_witness_the_page_shows_and_states_its_bound():
    """Where a finite outlier (δ(1) ≥ 0.39) and a record of NaN (δ(1) ≥ 1) both refute, the composition's witness and
    bound are the pair page 1 shows (:meth:`.Analysis.worst`: the finite outlier), so the headline's δ(ε) is the
    shown pair's (seen failing: the check named NaN, and the headline stated its δ(ε) ≥ 1 beside the outlier)."""
    found = analysis.analyse(clipped_too_wide, VALUES, "add-remove", (0.0, 1.0), (1.0, 0.0), 0, draw_sets=1)
    composition = decision.decide(found, (1.0, 0.0), "ideal", [])[2]
    shown = pages.shown_pair(found)
    assert composition.verdict == "fail" and shown is not None and shown.lower is not None
    assert composition.details["witness"] == shown.neighbour.name and composition.estimate == shown.lower.low
