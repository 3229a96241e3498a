"""Fuzzing the command line with Hypothesis: however hostile the arguments, the CLI ends one of four ways.

Every command line is built from the real parser (every subcommand, every option, its choices), with
values drawn from a pool of hostile strings (non-finite, overflowing, negative, empty, huge, paths that
are directories, missing, empty or undecodable files).  (FIFOs are left out: opening one blocks until its
other end is opened, for us as for ``cat``; tests/test_files.py covers writing through them.)  The
properties, for every command line:

* the exit code is 0, 1 or 3 (a verdict), 2 (usage or input error) -- never 4 (an internal error of ours);
* exit 2 prints exactly one line on stderr, with no traceback;
* no RuntimeWarning (overflow, invalid value, division by zero) escapes from the computation.

The default suite runs a short version (``FUZZ_EXAMPLES``, default 40 command lines, each run at its audit's small
budget); ``--run-slow`` runs 2000 command lines (README, Reliability).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdp_audit.verify.cli import main as cli
from pdp_audit.verify.plans.arguments import Parser, command_line
from pdp_audit.verify.plans.catalogue import PLANS

HOSTILE = (
    "",
    "0",
    "-1",
    "1",
    "2",
    "0.5",
    "1e-320",
    "1e-12",
    "1e12",
    "1e308",
    "1e309",
    "-1e309",
    "nan",
    "inf",
    "-inf",
    "abc",
    "3.7",
    "1e100",
    "-0",
    "x" * 300,
    "é",
    "DIR",
    "MISSING.csv",
    "EMPTY.csv",
    "GARBAGE.csv",
    "none",
    "-",
)
# runs must stay cheap: the budget options take small values (or hostile ones), never the defaults
SMALL_BUDGET = ("--trials", "2000")
SKIPPED_COMMANDS = {"benchmark"}  # measures throughput for minutes by design; its options are tested elsewhere


#: Each audit's smoke budget (seconds per run) as its plan declares it: for the fuzz and the sweep of float options.
_PLANS = {plan.name: plan for plan in PLANS}


def _small_budget(audit: str, argv: list[str]) -> list[str]:
    """The audit's smoke options that ``argv`` does not set (a synthetic data set only where no data is named)."""
    added = []
    for key, value in _PLANS[audit].smoke.items():
        option = _PLANS[audit].options()[key]
        if option.cli_flag in argv or (key == "synthetic" and {"--data", "--dataset"} & set(argv)):
            continue
        added += command_line(_PLANS[audit], {key: value})
    return added


def _commands() -> dict[tuple[str, ...], Parser]:
    """Every leaf command of the real parser: ('run', NAME) for each audit, then the other subcommands (each parser
    keeps its subcommands and arguments: :class:`pdp_audit.verify.plans.arguments.Parser`)."""
    commands = {}
    for name, sub in cli.build_parser().commands.items():
        if name in SKIPPED_COMMANDS:
            continue
        leaves = sub.commands
        commands.update({(name, leaf): p for leaf, p in leaves.items()} if leaves else {(name,): sub})
    return commands


COMMANDS = _commands()


def _value(action: argparse.Action) -> st.SearchStrategy[list[str]]:
    if action.nargs == 0:
        return st.just([])
    pool = list(HOSTILE) + [str(c) for c in action.choices or ()]
    return st.sampled_from(pool).map(lambda v: [v])


@st.composite
def command_lines(draw) -> list[str]:
    path = draw(st.sampled_from(sorted(COMMANDS)))
    parser = COMMANDS[path]
    options = [a for a in parser.arguments if a.option_strings and a.dest != "help"]
    positionals = [a for a in parser.arguments if not a.option_strings]
    argv = list(path)
    for _ in positionals:
        argv.append(draw(st.sampled_from(HOSTILE[:-2] + ("SPEC.toml",))))
    for action in draw(st.lists(st.sampled_from(options), max_size=4, unique_by=lambda a: a.dest)) if options else []:
        argv += [draw(st.sampled_from(action.option_strings)), *draw(_value(action))]
    if path[0] == "run":  # the audit's small budget, where the line does not set it
        argv += _small_budget(path[1], argv)
    if path[0] in ("mutants", "blackbox") and "--trials" not in argv:
        argv += list(SMALL_BUDGET)
    if path[0] == "run" and "--report" not in argv:
        argv += ["--report", "none"]
    if path[0] == "claims" and "--run" in argv and "--only" not in argv:
        argv += ["--only", "RW-Lem24"]  # one exact entry: a whole ledger run takes minutes
    return argv


def _workspace(root: Path) -> None:
    """The files the hostile values name: a directory, an empty and a garbage file, a sweep spec."""
    (root / "DIR").mkdir()
    (root / "EMPTY.csv").write_text("")
    (root / "GARBAGE.csv").write_bytes(b"\xff\xfe\x00a,b\n1,\x00\n")
    (root / "SPEC.toml").write_text('[sweep]\nmechanism = "gaussian"\n')


def _tally(argv: list[str], rc: int) -> None:
    """With FUZZ_COUNTS=path, keep a running JSON count of command lines per subcommand and exit code (the
    README's reliability numbers)."""
    target = os.environ.get("FUZZ_COUNTS")
    if not target:
        return
    import json

    path = Path(target)
    counts = json.loads(path.read_text()) if path.exists() else {}
    key = f"{argv[0]} exit {rc}"
    counts[key] = counts.get(key, 0) + 1
    path.write_text(json.dumps(dict(sorted(counts.items())), indent=1))


def _run(argv: list[str], capsys) -> tuple[int, str, list[warnings.WarningMessage]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _workspace(root)
        before = os.getcwd()
        os.chdir(root)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                rc = cli.main(argv)
        finally:
            os.chdir(before)
    return rc, capsys.readouterr().err, caught


def _check(argv: list[str], capsys) -> None:
    rc, err, caught = _run(argv, capsys)
    _tally(argv, rc)
    assert rc in (0, 1, 2, 3), f"{argv}: exit {rc}\n{err}"
    if rc == 2:
        assert err.count("\n") == 1 and "Traceback" not in err, f"{argv}: {err!r}"
    runtime = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert not runtime, f"{argv}: {[str(w.message) for w in runtime]}"


FUZZ_SETTINGS = dict(
    deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")), **FUZZ_SETTINGS)
@given(command_lines())
def test_hostile_command_lines_end_in_a_verdict_or_one_line(capsys, argv):
    _check(argv, capsys)


@pytest.mark.slow
@settings(max_examples=2000, **FUZZ_SETTINGS)
@given(command_lines())
def test_two_thousand_hostile_command_lines(capsys, argv):
    _check(argv, capsys)


_EXTREMES = ("5e-324", "1e-320", "1e-200", "1e200", "1e300")


def _float_options() -> list[tuple[str, str]]:
    """Every (audit, flag) of a float option of ``run``, from the audits' declared options."""
    return [
        (plan.name, option.cli_flag)
        for plan in PLANS
        for option in plan.options().values()
        if option.kind == "float" and option.cli
    ]


@pytest.mark.slow
@pytest.mark.parametrize("audit, option", _float_options())
def test_every_float_option_of_every_audit_at_the_extremes_of_the_doubles(audit, option, capsys):
    """A systematic companion of the random fuzz: each float option of `run` at subnormal and near-overflow values
    (a probe of these found subnormal --claim-delta/--claim-epsilon, --sensitivity and the privacy report's noise
    scales raising inside the audits, and a budget hint overflowing at δ = 1e-250)."""
    for value in _EXTREMES:
        small = _small_budget(audit, [option])
        _check(["run", audit, option, value, *small, "--report", "none", "--quiet"], capsys)


@pytest.mark.slow
@pytest.mark.parametrize("audit", sorted({audit for audit, _ in _float_options()}))
def test_the_small_runs_of_the_extremes_sweep_are_valid(audit, capsys):
    """Each audit's small budget above must itself be accepted, or the sweep would test only the budget's error."""
    small = _small_budget(audit, [])
    rc, err, _ = _run(["run", audit, *small, "--report", "none", "--quiet"], capsys)
    assert rc in (0, 1, 3), err
