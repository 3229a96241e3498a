"""``pdp-audit program MODULE:FUNCTION``: exit 0 certified, 1 refuted, 2 bad input, the JSON report written; the
program and its data named as the user gave them.  Seen failing: with the command's exit code fixed at 3."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest

from pdp_audit.cli import main as cli

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

PROGRAM = """
import numpy as np

def fixed(data, rng):
    x = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return x.sum() + rng.laplace(0.0, 1.0)

def twice(data, rng):
    x = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float)), 0.0, 1.0)
    return x.sum() + rng.laplace(0.0, 1.0), x.sum() + rng.laplace(0.0, 1.0)
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "team_stats.py").write_text(PROGRAM, encoding="utf-8")
    values = np.linspace(0.0, 1.0, 6)
    (tmp_path / "people.csv").write_text(
        "value,group\n" + "".join(f"{float(v)!r},{'ab'[i % 2]}\n" for i, v in enumerate(values)), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _args(target: str, *extra: str) -> list[str]:
    return [
        "program",
        target,
        "--data",
        "people.csv",
        "--claim-epsilon",
        "1",
        "--claim-delta",
        "0",
        "--bounds",
        "0,1",
        "--trials",
        "2000",
        "--report",
        "none",
        *extra,
    ]


@pytest.mark.tier2
def test_a_correct_program_is_certified(folder):
    """Certified for its primitives' real-valued laws (--law ideal); as implemented its float Laplace noise is
    porous (issue 60): not decided, exit 3."""
    assert cli.main(_args("team_stats:fixed", "--json", "out.json", "--law", "ideal")) == 0
    document = json.loads((folder / "out.json").read_text(encoding="utf-8"))
    assert document["verdict"] == "pass"
    assert cli.main(_args("team_stats:fixed")) == 3


@pytest.mark.tier2
def test_double_spending_is_refuted(folder):
    assert cli.main(_args("team_stats:twice")) == 1


@pytest.mark.parametrize(
    "extra",
    [("--bounds", "1,0"), ("--neighbours", "swap"), ("--claim-epsilon", "-1"), ("--trials", "3")],
)
def test_bad_input_is_exit_2(folder, extra):
    assert cli.main(_args("team_stats:fixed", *extra)) == 2


def test_a_missing_function_or_file_is_exit_2(folder, capsys):
    assert cli.main(_args("team_stats:nope")) == 2
    assert "nope" in capsys.readouterr().err
    args = _args("team_stats:fixed")
    args[args.index("people.csv")] = "missing.csv"
    assert cli.main(args) == 2


@pytest.mark.parametrize("given", [["--bounds", "-5,5"], ["--bounds=-5,5"], ["--bounds", "value=-5,5"]])
def test_a_domain_that_starts_with_a_minus_is_the_options_value(given):
    """``--bounds -5,5`` is the domain [-5, 5], as ``--bounds=-5,5`` is (argparse took '-5,5' for an option and
    answered "expected one argument"); an option's name after it is still an option, ``-`` still a value."""
    args = _args("team_stats:fixed", "--json", "-")
    at = args.index("--bounds")
    args[at : at + 2] = given
    parsed = cli.build_parser(only="program").parse_args(args)
    assert "-5" in repr(parsed.bounds) and parsed.json == "-"
    with pytest.raises(cli.InputError, match="--bounds: expected one argument"):
        cli.build_parser(only="program").parse_args(args[: args.index("--trials")] + ["--bounds", "--trials", "9"])


def test_a_module_that_raises_while_imported_is_the_users_fault_in_one_line(folder, capsys):
    """The user's module failing at import is their error, one line, exit 2 (it was our internal error, exit 4)."""
    (folder / "broken_stats.py").write_text('raise ValueError("boom at import")\n', encoding="utf-8")
    assert cli.main(_args("broken_stats:fixed")) == 2
    err = capsys.readouterr().err
    assert "program: importing module 'broken_stats' raised ValueError" in err and "Traceback" not in err


GUIDE = Path(__file__).resolve().parent.parent / "docs" / "how-to" / "programs.md"


def _guide_blocks() -> list[list[str]]:
    """The guide's ``bash`` blocks, each a list of its non-empty lines."""
    blocks = [b.split("```")[0] for b in GUIDE.read_text(encoding="utf-8").split("```bash")[1:]]
    return [[line for line in block.splitlines() if line.strip()] for block in blocks]


#: Each command of the guide after ``pdp-audit examples my-programs && cd my-programs``, with the exit code the guide
#: promises: the bugs refuted (1), the fixes certified for their real-valued laws (``--law ideal``, 0) and not
#: decided as implemented (their float noise, 3); its deployment file certified (0); its sweep over ε of the budget
#: spent twice refuted at ε = 1 (1).
_FIRST, _SECOND = _guide_blocks()[:2]
GUIDE_COMMANDS = [shlex.split(line)[1:] for line in _FIRST[1:] + _SECOND]


def _promised(args: list[str]) -> int:
    if args[0] == "certify":
        return 0
    if args[0] == "sweep" or not args[1].endswith(":fixed"):
        return 1
    return 0 if "--law" in args and args[args.index("--law") + 1] == "ideal" else 3


#: The commands whose example another default test already runs (the wheel smoke test runs the first bug and the
#: deployment file verbatim; tests/test_program_confirm_small.py, test_program_draws.py and test_program_kinds.py the
#: mean, the branch and a program sweep): run here with ``--run-slow`` only, so the default run keeps one of each kind.
COVERED_ELSEWHERE = ("program_sum:nan_through_clip", "program_mean:", "program_branch:", "program_scores:", "sweep")


def test_the_guide_lists_the_commands_this_suite_runs():
    """The guide's first block starts in the examples' folder; its commands are the nine program audits and the
    deployment file and sweep of the second block."""
    assert _FIRST[0] == "pdp-audit examples my-programs && cd my-programs"
    assert len(_FIRST) == 10 and all(line.startswith("pdp-audit program ") for line in _FIRST[1:])
    assert [args[:2] for args in GUIDE_COMMANDS[9:]] == [
        ["certify", "deploy-program.toml"],
        ["sweep", "sweep-program.toml"],
    ]


@pytest.mark.tier2(
    representatives=(
        "program program_sum:fixed ideal",
        "certify deploy-program.toml",
        "program program_histogram:fixed ideal",
    )
)
@pytest.mark.parametrize(
    "args",
    [
        pytest.param(args, marks=pytest.mark.slow)
        if any(name in " ".join(args[:2]) for name in COVERED_ELSEWHERE)
        else args
        for args in GUIDE_COMMANDS
    ],
    ids=lambda args: " ".join(args[:2]) + (" ideal" if "ideal" in args else ""),
)
def test_the_guides_commands_run_verbatim_from_the_shipped_examples(tmp_path, monkeypatch, args):
    """Each command of docs/how-to/programs.md, run as written in the folder ``pdp-audit examples`` writes, ends with
    the exit code the guide promises (:func:`_promised`); a sweep writes its store and report."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["examples", "my-programs"]) == 0
    monkeypatch.chdir(tmp_path / "my-programs")
    assert cli.main(args) == _promised(args), args
    if args[0] == "sweep":
        assert Path("sweep-program.sqlite").is_file() and Path("sweep-program.pdf").is_file()
