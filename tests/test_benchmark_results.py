"""docs/benchmarks.md's speed tables are the benchmarks' records, never typed by hand.

``benchmarks/results.py`` keeps each JSON line a benchmark printed in ``benchmarks/results.jsonl`` with the command,
the machine (CPU model, cores), the load before and after, the date and the commit, and renders the page's
``<!-- results: TABLE -->…<!-- /results -->`` spans from them.  These tests fail when a span differs from its
rendering of the records (a number edited by hand, a record added without ``--write-docs``), when a record does not
say what it was measured on, and when a row of issue 44 has no benchmark.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def results_module():
    """benchmarks/results.py, loaded by its path (benchmarks/ is no package; dataclasses need sys.modules)."""
    spec = importlib.util.spec_from_file_location("bench_results", ROOT / "benchmarks" / "results.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_span_of_the_page_is_its_records_rendering():
    results = results_module()
    records = results.load_records()
    text = results.PAGE.read_text(encoding="utf-8")
    spans = results.SPAN.findall(text)
    assert {name for name, _ in spans} == set(results.TABLES), "docs/benchmarks.md lacks a results table"
    wrong = [name for name, body in spans if body != results.render(name, records)]
    assert not wrong, f"run `python benchmarks/results.py --write-docs`: the tables {wrong} differ from the records"


def test_every_record_says_what_it_was_measured_on_and_shows_in_the_table():
    results = results_module()
    records = results.load_records()
    assert records
    for r in records:
        assert r["run"] in results.RUN_NAMES, f"{r['run']}: no benchmark of benchmarks/results.py records it"
        assert r["command"] == next(run for run in results.RUNS if run.name == r["run"]).command()
        for key in ("cpu", "cores"):
            assert r["machine"].get(key), f"{r['run']}: no {key}"
        assert len(r["load_1min"]) == 2 and r["date"] and r["commit"], r["run"]
        assert results.rows_of(r), f"{r['run']}: a line the table shows no row of: {r['output']}"


def test_the_rows_of_issue_44_each_have_a_benchmark():
    """start-up, canaries, one-run, certify on big data, black-box throughput, Gaussian loss samples/s, sweeps, the
    privacy report and the suite: each a run whose output the table knows how to show."""
    results = results_module()
    assert set(results.RUN_NAMES) >= {
        "startup",
        "canary-speed",
        "canary-peers",
        "certify-big-data",
        "blackbox-throughput",
        "gaussian",
        "sweep-small",
        "privacy-report",
        "suite",
    }
    for run in results.RUNS:
        assert (ROOT / "benchmarks" / run.script).exists(), run.script


def test_write_docs_rewrites_a_stale_table_and_keeps_the_rest(tmp_path):
    results = results_module()
    page = tmp_path / "benchmarks.md"
    page.write_text("Before.\n<!-- results: runs -->\n| edited by hand |\n<!-- /results -->\nAfter.\n")
    record = {
        "run": "startup",
        "command": "python benchmarks/startup.py --runs 9",
        "machine": {"cpu": "Some CPU", "cores": 2},
        "load_1min": [0.3, 0.5],
        "date": "2026-11-26 02:00 UTC",
        "commit": "0123456789ab",
        "output": {
            "benchmark": "startup",
            "command": "import pdp_audit",
            "median_s": 0.3,
            "floor": "import numpy, scipy.stats",
            "floor_median_s": 0.25,
            "ratio": 1.2,
            "target_ratio": 1.2,
        },
    }
    assert results.write_docs([record], page) == []
    text = page.read_text()
    assert text.startswith("Before.\n<!-- results: runs -->\n\n| run | command |") and text.endswith("After.\n")
    assert "| startup | `python benchmarks/startup.py --runs 9` | Some CPU, 2 cores | 0.3 → 0.5 |" in text
    assert "edited by hand" not in text
    assert results.rows_of(record) == [
        ("`import pdp_audit`", "0.3 s", '`python -c "import numpy, scipy.stats"` 0.25 s', "1.2×", "≤ 1.2×", "yes")
    ]


def test_a_new_run_replaces_its_benchmarks_old_records_only():
    results = results_module()
    old = [{"run": "startup", "n": 1}, {"run": "gaussian", "n": 2}, {"run": "startup", "n": 3}]
    assert results.replaced(old, "startup", [{"run": "startup", "n": 4}]) == [
        {"run": "gaussian", "n": 2},
        {"run": "startup", "n": 4},
    ]
    assert results.replaced(old, "startup", []) == old  # a run that failed keeps the last good records


def test_the_json_lines_of_a_benchmarks_output():
    results = results_module()
    assert results.json_lines('warming up\n{"a": 1}\n{not json\n{"b": 2}\n') == [{"a": 1}, {"b": 2}]


def test_the_program_audits_rows_against_the_runs_it_makes():
    """A case's deterministic part against the program runs it makes (its calls counted, each at the program's own
    run), its target the case's record at a commit times a margin; the whole audit against issue 63's 30 s."""
    results = results_module()
    case = {
        "benchmark": "bench_program",
        "case": "noisy sum, 1e4 records",
        "records": 10_000,
        "relation": "replace-one",
        "search": "random",
        "candidates": 100,
        "pairs": 40,
        "program_seconds": 0.0001,
        "analysis_seconds": 0.12,
        "per_pair_over_program": 30.0,
        "program_calls": 240,
        "program_calls_range": [240, 240],
        "calls_per_pair": 6.0,
        "over_program_calls": 5.0,
        "inside_calls_over_program_calls": 1.9,
        "one_draw_set_per_pair_over_program": 27.5,
        "one_draw_set_calls_per_pair": 5.5,
        "one_draw_set_over_program_calls": 5.0,
        "target_over_program_calls": 6.25,
        "target_margin": 1.25,
        "target_recorded_at": "99f9805",
        "target_seconds": 30.0,
    }
    assert results.rows_of({"run": "program", "output": case}) == [
        (
            "`audit_program`'s deterministic part over the program runs it makes: noisy sum, 1e4 records, replace-one,"
            " search random (100), 40 pairs, 6 runs a pair (inside them: 1.9×; the analysis a pair over one run: 30×;"
            " one draw set: 5.5 runs a pair, 5×)",
            "0.003 s a pair",
            "the program's own run × its runs a pair: 0.0001 s × 6",
            "5×",
            "≤ 6.25× (1.25× the record at 99f9805)",
            "yes",
        )
    ]
    slower = {**case, "over_program_calls": 6.3}  # past the record's margin: a regression
    assert results.rows_of({"run": "program", "output": slower})[0][3:] == (
        "6.3×",
        "≤ 6.25× (1.25× the record at 99f9805)",
        "**no**",
    )
    whole = {
        "benchmark": "bench_program",
        "case": "pandas group-by, 1e4 records, decided",
        "records": 10_000,
        "relation": "replace-one",
        "pairs": 101,
        "search": "random",
        "proposed": 100,
        "trials": 20_000,
        "verdict": "pass",
        "seconds": 12.5,
        "target_seconds": 30.0,
    }
    (row,) = results.rows_of({"run": "program", "output": whole})
    assert row[1:] == ("12.5 s", "", "", "≤ 30 s on 2 cores", "yes")
