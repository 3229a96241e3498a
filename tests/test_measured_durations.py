"""Every duration the README, the user's pages of the docs and the help texts state is a benchmark's measurement.

``benchmarks/durations.py`` times each command the docs speak of and keeps one record per command in
``benchmarks/durations.jsonl`` (wall and CPU seconds, cores, load, date, code version); the docs state durations
only inside ``<!-- measured: NAME [PART] -->…<!-- /measured -->`` spans, which ``--write-docs`` renders from those
records.  These tests fail on a duration typed outside a span (code blocks included: a comment such as "~10 s" is
a claim a newcomer reads), on a span that disagrees with its record or names none, and on a help text that states
a duration at all (``--help`` cannot carry a measurement's provenance).  Memory sizes likewise: a record's ``peak``
(the command's peak resident memory) or a size the product declares (``<!-- bytes: … -->``), never typed.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests import tiers

ROOT = Path(__file__).resolve().parents[1]

_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|half an?|an?|a few|several"
_NUMBER = rf"(?:\d[\d.,]*(?:\s?[–-]\s?\d[\d.,]*)?½?\s?|½\s?|(?:{_NUMBER_WORDS})\s)"
_UNIT = r"(?:µs|us|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?)"
#: a stated duration: "42 s", "~10 s", "about ten seconds", "8 min", "an hour", "2–3 s", "1½ min"
DURATION = re.compile(
    rf"(?<![\w.^/-])(?:~|about |under |≈ ?)?{_NUMBER}{_UNIT}(?![\w/])"
    rf"|\b(?:\d+|{_NUMBER_WORDS})-(?:second|minute|hour)\b"
)
#: words that are not durations although the pattern matches them ("a second pass", "a few s")
_NOT_DURATIONS = re.compile(r"(?:an?|a few|several) (?:s|h|second|secs?)")
#: in a help text any time word is a duration claim ("(seconds)" for --quick was 712 s for a newcomer)
HELP_DURATION = re.compile(rf"{DURATION.pattern}|\((?:a few |several )?(?:seconds|minutes|hours)\b", re.I)


#: a stated memory size: "158 MB", "1.5 GiB", "160 bytes" (a record's ``peak`` or a declared constant's span only)
SIZE = re.compile(r"(?<![\w.])\d[\d.,]*\s?(?:[kKMGT]i?B|bytes)\b")


@functools.cache
def durations_module():
    """benchmarks/durations.py, loaded by its path (benchmarks/ is no package); registered first, as dataclasses
    look their module up in sys.modules."""
    spec = importlib.util.spec_from_file_location("bench_durations", ROOT / "benchmarks" / "durations.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@functools.cache
def results_span() -> re.Pattern:
    """The spans of docs/benchmarks.md's tables generated from the benchmarks' records (benchmarks/results.py;
    tests/test_benchmark_results.py compares them with the records): their seconds are records' renderings."""
    spec = importlib.util.spec_from_file_location("bench_results", ROOT / "benchmarks" / "results.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module.SPAN


def unmeasured(text: str) -> str:
    """``text`` without the spans rendered from records or from the product's declared constants."""
    durations = durations_module()
    spans = (durations.SPAN, durations.CONSTANT, durations.BYTES_CONSTANT, results_span())
    return functools.reduce(lambda rest, span: span.sub("", rest), spans, text)


def stated_durations(text: str) -> list[str]:
    """The durations ``text`` states outside measured spans."""
    bare = unmeasured(text)
    return [m.group(0) for m in DURATION.finditer(bare) if not _NOT_DURATIONS.fullmatch(m.group(0))]


def stated_sizes(text: str) -> list[str]:
    """The memory sizes ``text`` states outside measured spans and declared constants' spans."""
    return SIZE.findall(unmeasured(text))


def test_the_size_pattern_sees_the_sizes_the_docs_used_to_type():
    typed = (
        "(158 MB peak for the whole pytest process",
        "330 MB peak resident at 1e7",
        "about 160 bytes a release",
        "capped at 1 GiB",
        "a 4.2GB file",
    )
    for text in typed:
        assert stated_sizes(text), text
    for text in (
        "1e6 releases",
        "MB of",
        "<!-- measured: plugin-peak-1e6 peak -->158 MB<!-- /measured -->",
        "<!-- bytes: pdp_audit.audits.blackbox.attack.MEMORY_PER_SCORE -->160 bytes<!-- /bytes -->",
    ):
        assert not stated_sizes(text), text


def test_no_page_states_a_size_outside_a_span():
    durations = durations_module()
    typed = {
        str(path.relative_to(ROOT)): found
        for path in durations.doc_paths(ROOT)
        if (found := stated_sizes(path.read_text(encoding="utf-8")))
    }
    assert not typed, f"sizes typed by hand (measure them in benchmarks/durations.py): {typed}"


def test_the_pattern_sees_the_durations_the_docs_used_to_type():
    typed = (
        "6 cells, ~10 s; exit 1",
        "in about ten seconds and",
        "about 9 minutes on 2 cores",
        "(an hour; add",
        "took 8 min 48 s",
        "at 184 µs, gets",
        "take 24 s and 2–3 s.",
        "about 1½ min",
        "a five-minute tour",
    )
    for text in typed:
        assert stated_durations(text), text
    for text in (
        "as it is",
        "a second pass",
        "the 1e5 s-values",
        "ε = 1.5",
        "10 ones",
        "a 2-core machine",
        "<!-- measured: run-gaussian -->42 s wall<!-- /measured -->",
    ):
        assert not stated_durations(text), text


def test_no_page_states_a_duration_outside_a_measured_span():
    durations = durations_module()
    typed = {
        str(path.relative_to(ROOT)): found
        for path in durations.doc_paths(ROOT)
        if (found := stated_durations(path.read_text(encoding="utf-8")))
    }
    assert not typed, f"durations typed by hand (measure them in benchmarks/durations.py): {typed}"


def test_the_shipped_examples_state_no_duration():
    """`pdp-audit examples` copies these files into the user's folder, where no record can back a comment's
    "~10 s" (sweep-100.toml said "a few minutes"; it took 13 minutes at load 11): they point to the docs."""
    typed = {
        path.name: found
        for path in sorted((ROOT / "examples").rglob("*"))
        if path.suffix in (".toml", ".py", ".yml") and (found := stated_durations(path.read_text(encoding="utf-8")))
    }
    assert not typed, typed


def test_every_span_is_its_records_rendering():
    durations = durations_module()
    records = durations.load_records()
    wrong = []
    for path in durations.doc_paths(ROOT):
        for match in durations.SPAN.finditer(path.read_text(encoding="utf-8")):
            name, part, text = match.group(1), match.group(2) or "summary", match.group(3)
            if name not in records:
                wrong.append(f"{path.name}: {name} has no record")
            elif durations.render(records[name], part) != text:
                rendered = durations.render(records[name], part)
                wrong.append(f"{path.name}: {name} reads {text!r}, its record {rendered!r}")
        for match in durations.CONSTANT.finditer(path.read_text(encoding="utf-8")):
            declared = durations.human_seconds(durations.declared_seconds(match.group(1)))
            if declared != match.group(2):
                wrong.append(f"{path.name}: {match.group(1)} reads {match.group(2)!r}, the code declares {declared!r}")
        for match in durations.BYTES_CONSTANT.finditer(path.read_text(encoding="utf-8")):
            declared = durations.declared_bytes(match.group(1))
            if declared != match.group(2):
                wrong.append(f"{path.name}: {match.group(1)} reads {match.group(2)!r}, the code declares {declared!r}")
    assert not wrong, "run `python benchmarks/durations.py --write-docs --no-run`: " + "; ".join(wrong)


def test_every_record_says_what_it_was_measured_on():
    durations = durations_module()
    records = durations.load_records()
    assert records
    names = {m.name for m in durations.MEASUREMENTS}
    for name, record in records.items():
        assert name in names, f"{name}: a record no measurement of benchmarks/durations.py makes"
        for key in ("cores", "load_1min", "date", "code_version", "arch"):
            assert key in record, f"{name}: no {key}"
        assert ("per_call_s" in record) != ("wall_s" in record)
        if "wall_s" in record:
            # a verdict (pass, fail, or undecided: a black box never certifies), never bad usage (2) or a crash (4)
            assert record["exit_code"] in (0, 1, 3), f"{name}: exit {record['exit_code']}"


#: How far a tier's test count may move from the count its stated duration was measured on before the figure is
#: stale (a fraction of that count).  A tier's time is spread over its thousands of tests, so it grows with their
#: number: 10 % more tests, about 10 % more time -- the README's "≤ 5 minutes" stays readable from a figure measured
#: that close; a larger move (a series moved between tiers, a new test file of a hundred cases) is measured again.
DRIFT = 0.10


def drifted(then: int, now: int) -> bool:
    """Whether a suite of ``now`` tests is more than :data:`DRIFT` away from the ``then`` its figure ran."""
    return abs(now - then) > DRIFT * then


def tier_counts(config: pytest.Config) -> dict[str, int]:
    """The tests of each tier: this session's collection where it collected the whole suite (tests/tiers.py),
    else a collection of the whole suite in a child pytest (a run of a few test files)."""
    counts = config.stash.get(tiers.COUNTS, None)
    if counts is not None:
        return counts
    with tempfile.TemporaryDirectory() as folder:
        written = Path(folder) / "counts.json"
        env = {**os.environ, tiers.COUNTS_FILE: str(written)}
        argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return json.loads(written.read_text(encoding="utf-8"))


def suite_results() -> list[dict]:
    """The suite's records of benchmarks/results.py (docs/benchmarks.md's rows of the suite)."""
    lines = (ROOT / "benchmarks" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [record for record in map(json.loads, filter(None, lines)) if record["run"] == "suite"]


def test_the_drift_rule_reads_as_stated():
    assert not drifted(3000, 3300) and not drifted(3000, 2700)
    assert drifted(3000, 3301) and drifted(3000, 2699) and drifted(231, 3750)


def test_each_suites_figure_describes_the_suite_as_it_is(request):
    """A stated duration of the suite (a tier, the slow audits) was measured on so many tests, at a commit, on
    files of a hash (its record); it fails once the selection it ran holds more than :data:`DRIFT` more or fewer
    tests.  Seen failing: the README's 3 min 51 s, measured on the suite of 2026-11-26, stood beside a suite that
    had grown to ~3,750 tests and 15 minutes."""
    if os.environ.get(tiers.COUNTS_FILE):
        pytest.skip("this run is benchmarks/durations.py measuring the figure that replaces the record")
    durations = durations_module()
    records = durations.load_records()
    suites = {m.name: m.suite for m in durations.MEASUREMENTS if m.suite}
    assert "test-suite" in records, "the README's test command has no record"
    counts = tier_counts(request.config)
    stale = []
    # the records of benchmarks/durations.py (the README's and the docs' spans), and the suite's rows of
    # docs/benchmarks.md (benchmarks/results.py keeps the same records in its own file)
    shown = [(name, records[name]) for name in suites if name in records]
    shown += [(line["output"]["name"], line["output"]) for line in suite_results()]
    for name, record in shown:
        selection = suites[name]
        for key in ("tests", "suite_sha256", "code_version"):
            assert key in record, f"{name}: no {key} (measure it again: benchmarks/durations.py --only {name})"
        if drifted(record["tests"], counts[selection]):
            stale.append(
                f"{name}: measured on {record['tests']} tests ({record['code_version']}, suite "
                f"{record['suite_sha256'][:12]}), the selection holds {counts[selection]} now"
            )
    assert not stale, (
        f"figures more than {DRIFT:.0%} of their tests away from the suite (on idle cores: python "
        f"benchmarks/durations.py --only {' '.join(suites)} --write-docs): " + "; ".join(stale)
    )


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (1.84e-4, "180 µs"),
        (0.0042, "4.2 ms"),
        (42.4, "42 s"),
        (9.96, "10 s"),
        (528, "8 min 48 s"),
        (540, "9 min"),
        (3900, "1 h 5 min"),
    ],
)
def test_durations_read_as_a_person_writes_them(seconds, text):
    assert durations_module().human_seconds(seconds) == text


def test_a_suites_figure_names_its_tests_and_its_commit():
    record = {"name": "test-suite", "wall_s": 241.2, "cpu_s": 455.0, "cores": 2, "load_1min": 0.3}
    record |= {"date": "2026-11-29", "tests": 3603, "code_version": "git 0123456789ab"}
    durations = durations_module()
    assert durations.render(record) == (
        "4 min 1 s wall, 7 min 35 s CPU, 3,603 tests (on 2 cores at load 0.3, 2026-11-29, git 0123456789ab)"
    )
    assert durations.render(record, "tests") == "3,603"


def test_write_docs_rewrites_a_stale_span_and_keeps_the_rest(tmp_path):
    durations = durations_module()
    page = tmp_path / "README.md"
    page.write_text(
        "Runs in <!-- measured: x wall -->1 s<!-- /measured --> (see <!-- measured: x -->?<!-- /measured -->).\n"
    )
    record = {"name": "x", "wall_s": 42.4, "cpu_s": 15.0, "cores": 2, "load_1min": 0.3, "date": "2026-11-25"}
    assert durations.write_docs({"x": record}, tmp_path) == []
    assert page.read_text() == (
        "Runs in <!-- measured: x wall -->42 s<!-- /measured --> (see <!-- measured: x -->42 s wall, 15 s CPU "
        "(on 2 cores at load 0.3, 2026-11-25)<!-- /measured -->).\n"
    )
    assert durations.write_docs({}, tmp_path) == ["x", "x"]


def help_texts(parser, path: str) -> list[tuple[str, str]]:
    """The description, epilog, every argument's help and every subcommand's help of ``parser`` (a
    :class:`~pdp_audit.verify.core.parser.Parser`) and of the parsers below it."""
    texts = [(path, parser.description or ""), (path, parser.epilog or "")]
    for action in parser.arguments:
        texts.append((f"{path} {'/'.join(action.option_strings) or action.dest}", action.help or ""))
    for name, sub in parser.commands.items():
        texts.append((f"{path} {name}", parser.command_help.get(name) or ""))
        texts += help_texts(sub, f"{path} {name}")
    return texts


def plugin_help_texts() -> list[tuple[str, str]]:
    """The help of every option the pytest plugin adds (``pytest --help`` shows them)."""
    texts: list[tuple[str, str]] = []

    class Group:
        def addoption(self, *flags, **kwargs):
            texts.append((f"pytest {'/'.join(flags)}", kwargs.get("help", "")))

    class Parser(Group):
        def getgroup(self, *args, **kwargs):
            return Group()

        def addini(self, name, help="", **kwargs):  # noqa: A002 - pytest's keyword
            texts.append((f"pytest ini {name}", help))

    from pdp_audit import pytest_plugin

    pytest_plugin.pytest_addoption(Parser())
    return texts


def test_no_help_text_states_a_duration():
    """No measured duration in a help text; a declared one (a threshold, a time target) only as its constant reads
    (a help text that drifts from its constant fails too)."""
    from pdp_audit.cli.main import build_parser

    durations = durations_module()
    declared = {durations.human_seconds(durations.declared_seconds(name)) for name in durations.DECLARED}
    stated = [
        f"{where}: {m.group(0)!r}"
        for where, text in [*help_texts(build_parser(), "pdp-audit"), *plugin_help_texts()]
        for m in HELP_DURATION.finditer(text)
        if not _NOT_DURATIONS.fullmatch(m.group(0)) and m.group(0) not in declared
    ]
    assert not stated, stated


def test_the_help_check_sees_a_duration():
    from pdp_audit.verify.core.parser import Parser

    parser = Parser(description="x")
    parser.add_argument("--quick", help="2e4 releases per world instead of 1e5 (seconds)")
    parser.add_argument("--slow", help="takes about 20 s")
    assert len([m for _, t in help_texts(parser, "p") for m in HELP_DURATION.finditer(t)]) == 2
