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
budget); ``--run-slow`` runs 2000 command lines (docs/explanation/reliability.md).

Issue 27's classes have their own properties (at the end): stores damaged at random places with random JSON,
deployment files and sweep specs generated from the schema with hostile keys and values (control characters,
extreme integers, every TOML type), and faults of the operating system injected while reports are published
(``os.replace``, the PDF writer or file writes raising ENOSPC, EROFS, ELOOP, ...): never exit 4, exit 2 in one
line, and a failed write leaves the file that was there.
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

from pdp_audit.catalogue.arguments import Parser, command_line
from pdp_audit.catalogue.plans import plans
from pdp_audit.cli import main as cli

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
_PLANS = {plan.name: plan for plan in plans()}


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
    keeps its subcommands and arguments: :class:`pdp_audit.catalogue.arguments.Parser`)."""
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
    reliability numbers of docs/explanation/reliability.md)."""
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


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "10")), **FUZZ_SETTINGS)  # 2000 in the slow run
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
        for plan in plans()
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


# --------------------------------------------------------------------------------------------------
# Issue 27's classes: damaged stores, files with hostile keys and values, faults of the operating system.
# Each property: never exit 4; exit 2 is one stderr line (a line break anywhere in a key, a value or a column
# stays escaped); a failed write leaves the file that was there.
# --------------------------------------------------------------------------------------------------
#: Hostile text: line breaks, carriage returns, escapes, the Unicode line separator, a forged verdict line.
CONTROL_TEXT = st.builds(
    lambda head, brk, tail: head + brk + tail,
    st.text(alphabet="abcxyz_-. ", max_size=6),
    st.sampled_from(["\n", "\r", "\r\n", "\x1b[2K", "\u2028", "\x00", "\t", "\x85"]),
    st.sampled_from(["", "pdp-audit: CERTIFIED (all guarantees pass)", "x", "\n"]),
)
#: JSON values a damaged store may hold where pdp-audit writes something else.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | CONTROL_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5) | CONTROL_TEXT, inner, max_size=3),
    max_leaves=6,
)
#: Where a store can be damaged: a cell's column, a field of its first check, the meta table.
STORE_PLACES = st.sampled_from(
    [("column", c) for c in ("verdict", "parameters", "checks", "estimates", "effective", "seed", "position")]
    + [("check", k) for k in ("id", "verdict", "estimate", "exact", "ci", "level", "details", "role", "title")]
    + [("meta", k) for k in ("spec", "identity", "spec_source", "created")]
)


def _damage(store: Path, place: tuple[str, str], value) -> None:
    import json
    import sqlite3

    kind, key = place
    text = json.dumps(value)
    with sqlite3.connect(store) as db:
        cell_id, checks = db.execute("SELECT cell_id, checks FROM cells ORDER BY position LIMIT 1").fetchone()
        if kind == "column":
            plain = key in ("verdict", "seed", "position") and isinstance(value, (str, int, float))  # NOT NULL
            stored = value if plain else text
            db.execute(f"UPDATE cells SET {key} = ? WHERE cell_id = ?", (stored, cell_id))
        elif kind == "check":
            records = json.loads(checks)
            records[0][key] = value
            db.execute("UPDATE cells SET checks = ? WHERE cell_id = ?", (json.dumps(records), cell_id))
        else:
            db.execute("UPDATE meta SET value = ? WHERE key = ?", (text, key))
    sqlite3.connect(store).close()


@pytest.fixture(scope="module")
def toy_store(tmp_path_factory) -> Path:
    from tests.sweep_toy import make_toy_store

    return make_toy_store(tmp_path_factory.mktemp("fuzz-store") / "toy.sqlite")


def _check_damaged(toy_store: Path, place, value, capsys) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "damaged.sqlite"
        store.write_bytes(toy_store.read_bytes())
        _damage(store, place, value)
        argv = [
            "report",
            str(store),
            "-o",
            "none",
            "--json",
            str(Path(tmp) / "r.json"),
            "--csv",
            str(Path(tmp) / "r.csv"),
        ]
        rc = cli.main(argv)
        err = capsys.readouterr().err
        _tally(["report (damaged store)"], rc)
        assert rc in (0, 2), f"{place} = {value!r}: exit {rc}\n{err}"
        if rc == 2:
            assert err.count("\n") == 1 and "Traceback" not in err, f"{place} = {value!r}: {err!r}"


@pytest.mark.tier2
@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")), **FUZZ_SETTINGS)
@given(place=STORE_PLACES, value=JSON_VALUES)
def test_damaged_stores_are_reported_or_refused_in_one_line(toy_store, place, value, capsys):
    _check_damaged(toy_store, place, value, capsys)


@pytest.mark.slow
@settings(max_examples=500, **FUZZ_SETTINGS)
@given(place=STORE_PLACES, value=JSON_VALUES)
def test_five_hundred_damaged_stores(toy_store, place, value, capsys):
    _check_damaged(toy_store, place, value, capsys)


#: TOML values of every type, extreme integers and hostile strings included.
TOML_VALUES = st.one_of(
    st.sampled_from([10**400, -(10**400), 2**63, -1, 0, 1, 0.5, 1e308, float("inf"), float("nan"), True, "", "1e-320"]),
    CONTROL_TEXT,
    st.lists(st.sampled_from([1, "a\nb", 0.5]), max_size=3),
    st.dictionaries(CONTROL_TEXT, st.just(1), max_size=2),
)


def _keys(names: list[str]) -> st.SearchStrategy[str]:
    """A key of the schema or a hostile one."""
    return st.sampled_from(names) | CONTROL_TEXT


def _toml(table: dict) -> str:
    """A small TOML writer (keys quoted and escaped, values of every type) for generated files."""
    import json
    import math

    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"

    lines = [
        f"{json.dumps(k)} = {value(v)}" for k, v in table.items() if not isinstance(v, dict) or not k.startswith("[")
    ]
    for name, inner in table.items():
        if isinstance(inner, dict) and name.startswith("["):
            lines.append(name)
            lines += [f"{json.dumps(k)} = {value(v)}" for k, v in inner.items()]
    return "\n".join(lines) + "\n"


@st.composite
def deployment_files(draw) -> str:
    """A Gaussian deployment at a small budget with one to three keys from the schema or hostile, of any type."""
    plan = _PLANS["gaussian"]
    tables = {
        "[claim]": {"epsilon": 1.0, "delta": 1e-5},
        "[parameters]": {"dataset": "diabetes"},
        "[audit]": {"trials": 2000},
    }
    names = {"[claim]": ["epsilon", "delta"], "[audit]": ["trials", "seed", "alpha", "workers"]}
    names["[parameters]"] = [o.table_key or o.key for o in plan.options().values() if o.table == "parameters"]
    for _ in range(draw(st.integers(1, 3))):
        table = draw(st.sampled_from(sorted(tables)))
        tables[table][draw(_keys(names[table]))] = draw(TOML_VALUES)
    return _toml({"mechanism": "gaussian", **tables})


@st.composite
def sweep_files(draw) -> str:
    """A Gaussian sweep of at most three small cells with keys from the schema or hostile, of any type."""
    names = [k for k in _PLANS["gaussian"].options() if k not in ("seed", "alpha", "paper_claims", "trials")]
    fixed = {"trials": 2000, "synthetic": "50,3"}
    grid = {}
    for _ in range(draw(st.integers(1, 3))):
        key = draw(_keys(names + ["name", "checks"]))
        if draw(st.booleans()):
            fixed[key] = draw(TOML_VALUES)
        else:
            grid[key] = draw(st.lists(TOML_VALUES, min_size=1, max_size=2))
    head = {"mechanism": "gaussian", "checks": ["loss-law"]}
    return _toml({"[sweep]": head, "[fixed]": fixed, **({"[grid]": grid} if grid else {})})


def _check_file(kind: str, text: str, capsys) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{kind}.toml"
        path.write_text(text, encoding="utf-8")
        if kind == "deployment":
            argv = ["certify", str(path), "--report", "none", "--quiet"]
        else:
            argv = ["sweep", str(path), "--store", str(Path(tmp) / "s.sqlite"), "--workers", "1", "--quiet"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rc = cli.main(argv)
        err = capsys.readouterr().err
    _tally([f"{argv[0]} (generated file)"], rc)
    assert rc in (0, 1, 2, 3), f"{text!r}: exit {rc}\n{err}"
    if rc == 2:
        assert err.count("\n") == 1 and "Traceback" not in err, f"{text!r}: {err!r}"
        assert not any(line.startswith("pdp-audit: CERTIFIED") for line in err.splitlines()), err
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], text


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")), **FUZZ_SETTINGS)
@given(
    kind_and_text=st.one_of(
        deployment_files().map(lambda t: ("deployment", t)), sweep_files().map(lambda t: ("spec", t))
    )
)
def test_generated_deployments_and_specs_end_in_a_verdict_or_one_line(kind_and_text, capsys):
    _check_file(*kind_and_text, capsys)


@pytest.mark.slow
@settings(max_examples=500, **FUZZ_SETTINGS)
@given(
    kind_and_text=st.one_of(
        deployment_files().map(lambda t: ("deployment", t)), sweep_files().map(lambda t: ("spec", t))
    )
)
def test_five_hundred_generated_files(kind_and_text, capsys):
    _check_file(*kind_and_text, capsys)


#: Commands that publish files, at small budgets: (argv, the outputs they write).
PUBLISHING = {
    "run": (
        ["run", "gaussian", "--trials", "2000", "--quiet", "--report", "r.pdf", "--json", "r.json"],
        ("r.pdf", "r.json"),
    ),
    "report": (
        ["report", "toy.sqlite", "-o", "r.pdf", "--json", "r.json", "--csv", "r.csv", "--quiet"],
        ("r.pdf", "r.json", "r.csv"),
    ),
    "tau": (["tau", "--d", "3", "--rho", "0.1", "--json", "r.json"], ("r.json",)),
    "claims": (["claims", "--json", "r.json"], ("r.json",)),
}
OS_FAULTS = st.sampled_from(["ENOSPC", "EROFS", "ELOOP", "EDQUOT", "EIO", "EACCES", "EFBIG"])


def _check_fault(command: str, fault: str, where: str, toy_store: Path, capsys, monkeypatch) -> None:
    import errno
    import shutil

    from matplotlib.backends import backend_pdf

    argv, outputs = PUBLISHING[command]
    code = getattr(errno, fault)

    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    with tempfile.TemporaryDirectory() as tmp, monkeypatch.context() as patch:
        root = Path(tmp)
        shutil.copy(toy_store, root / "toy.sqlite")
        for name in outputs:
            (root / name).write_text("earlier\n")
        patch.chdir(root)
        if where == "replace":
            patch.setattr(os, "replace", refuse)
        elif where == "pdf" and "r.pdf" in outputs:
            patch.setattr(backend_pdf.PdfFile, "write", lambda self, data: refuse())
        else:
            real = Path.write_text
            patch.setattr(
                Path, "write_text", lambda self, *a, **k: refuse() if ".pdp-" in self.name else real(self, *a, **k)
            )
        rc = cli.main(argv)
        err = capsys.readouterr().err
        kept = all((root / name).read_text() == "earlier\n" for name in outputs)
        left = [p.name for p in root.iterdir() if ".pdp-" in p.name]
    _tally([f"{command} (OS fault)"], rc)
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, f"{command} {fault} {where}: {rc} {err!r}"
    assert os.strerror(code) in err and "cannot write" in err, err
    assert kept and not left, f"{command} {fault} {where}: an earlier file changed or a temporary was left ({left})"


@pytest.mark.slow  # 21-23 s of the suite on 2 cores: --run-slow (CI's time limit)
@settings(max_examples=int(os.environ.get("FUZZ_FAULTS", "12")), **FUZZ_SETTINGS)
@given(command=st.sampled_from(sorted(PUBLISHING)), fault=OS_FAULTS, where=st.sampled_from(["replace", "pdf", "text"]))
def test_os_faults_while_publishing_are_one_line_and_keep_what_was_there(
    command, fault, where, toy_store, capsys, monkeypatch
):
    _check_fault(command, fault, where, toy_store, capsys, monkeypatch)


@pytest.mark.slow
@settings(max_examples=150, **FUZZ_SETTINGS)
@given(command=st.sampled_from(sorted(PUBLISHING)), fault=OS_FAULTS, where=st.sampled_from(["replace", "pdf", "text"]))
def test_one_hundred_and_fifty_os_faults(command, fault, where, toy_store, capsys, monkeypatch):
    _check_fault(command, fault, where, toy_store, capsys, monkeypatch)
