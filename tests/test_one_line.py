"""Untrusted strings never break the one-line contract (issue 27, item 9): a key, a CSV column name, a file name or
an argument holding a line break or a carriage return is quoted (repr-style) where an error prints it, so stderr is
exactly one line and no forged line (``pdp-audit: CERTIFIED ...``) can appear in a CI log.  On main, each case
below printed two or more lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdp_audit.cli.main import main

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

FORGED = "pdp-audit: CERTIFIED (all guarantees pass)"
BREAKS = {"newline": "\n", "carriage return": "\r", "line separator": "\u2028", "escape": "\x1b[2K"}
CLAIM = "[claim]\nepsilon = 1.0\ndelta = 1e-5\n"
GAUSSIAN = 'mechanism = "gaussian"\n'


def _toml_key(text: str) -> str:
    """``text`` as a quoted TOML key (the escapes TOML knows)."""
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace('"', '\\"') + '"'


def _toml_key_any(text: str) -> str:
    return _toml_key(text).replace("\u2028", "\\u2028").replace("\x1b", "\\u001b")


def _deployment(key: str) -> dict[str, str]:
    quoted = _toml_key_any(key)
    return {
        "a [parameters] key": f'{GAUSSIAN}{CLAIM}[parameters]\ndataset = "diabetes"\n{quoted} = 1\n',
        "a [claim] key": f'{GAUSSIAN}{CLAIM}{quoted} = 2\n[parameters]\ndataset = "diabetes"\n',
        "an [audit] key": f'{GAUSSIAN}{CLAIM}[parameters]\ndataset = "diabetes"\n[audit]\n{quoted} = 3\n',
        "a top-level key": f"{GAUSSIAN}{quoted} = 1\n{CLAIM}",
    }


def _spec(key: str) -> dict[str, str]:
    quoted = _toml_key_any(key)
    head = '[sweep]\nmechanism = "gaussian"\n'
    return {
        "a [sweep] key": f"{head}{quoted} = 1\n",
        "a [fixed] key": f"{head}[fixed]\n{quoted} = 1\n",
        "a [grid] key": f"{head}[grid]\n{quoted} = [1]\n",
        "a [[cells]] key": f"{head}[[cells]]\n{quoted} = 1\n",
    }


def _stderr_is_one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("\n"), repr(err)
    assert "\r" not in err and "\u2028" not in err and "\x1b" not in err, repr(err)
    assert not any(line.startswith("pdp-audit: CERTIFIED") for line in err.splitlines()), repr(err)
    return err


@pytest.mark.parametrize("brk", sorted(BREAKS))
@pytest.mark.parametrize("where", sorted(_deployment("k")))
def test_deployment_keys_with_line_breaks_are_one_line(where, brk, tmp_path, capsys):
    path = tmp_path / "deploy.toml"
    path.write_text(_deployment(f"k{BREAKS[brk]}{FORGED}")[where], encoding="utf-8")
    assert main(["certify", str(path), "--report", "none"]) == 2
    _stderr_is_one_line(capsys)


@pytest.mark.parametrize("brk", sorted(BREAKS))
@pytest.mark.parametrize("where", sorted(_spec("k")))
def test_sweep_spec_keys_with_line_breaks_are_one_line(where, brk, tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(_spec(f"k{BREAKS[brk]}{FORGED}")[where], encoding="utf-8")
    assert main(["sweep", str(path), "--store", str(tmp_path / "s.sqlite")]) == 2
    _stderr_is_one_line(capsys)
    assert not (tmp_path / "s.sqlite").exists()


def _csv(tmp_path: Path, header: list[str], rows: list[list[str]]) -> Path:
    def field(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    lines = [",".join(field(h) for h in header)] + [",".join(r) for r in rows]
    path = tmp_path / "d.csv"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return path


@pytest.mark.parametrize("brk", ["newline", "carriage return"])
@pytest.mark.parametrize("case", ["target column missing", "duplicate names", "a cell that is no number"])
def test_csv_column_names_with_line_breaks_are_one_line(case, brk, tmp_path, capsys):
    name = f"a{BREAKS[brk]}{FORGED}"
    header = {"duplicate names": [name, name, "y"]}.get(case, [name, "b", "y"])
    rows = [["x", "1", "2"]] if case == "a cell that is no number" else [["1", "2", "3"], ["4", "5", "6"]]
    data = _csv(tmp_path, header, rows)
    target = ["--target-column", "zz"] if case == "target column missing" else []
    assert main(["run", "gaussian", "--data", str(data), *target, "--trials", "2000", "--report", "none"]) == 2
    err = _stderr_is_one_line(capsys)
    assert "\\n" in err or "\\r" in err, err  # the name is shown, escaped


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "gaussian", f"--no-such-option\n{FORGED}"],
        ["run", "gaussian", "--trials", f"1\n{FORGED}"],
        ["run", "gaussian", "--data", f"missing\n{FORGED}.csv", "--report", "none"],
        ["run", "gaussian", "--query", f"sum\r{FORGED}"],
        ["report", f"none\n{FORGED}.sqlite"],
        ["certify", f"none\n{FORGED}.toml"],
        ["sweep", f"none\n{FORGED}.toml"],
        ["blackbox", f"no_module\n{FORGED}:make", "--claim-epsilon", "1", "--claim-delta", "1e-5"],
        ["tau", "--d", f"3\n{FORGED}", "--rho", "0.1"],
    ],
)
def test_arguments_with_line_breaks_are_one_line(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    _stderr_is_one_line(capsys)


@pytest.mark.parametrize("kind", ["deployment", "spec"])
def test_file_names_with_line_breaks_are_one_line(kind, tmp_path, capsys):
    """A file that exists, whose name holds a line break, with a bad key: the name starts the message, quoted."""
    name = f"x\n{FORGED}.toml"
    path = tmp_path / name
    if kind == "deployment":
        path.write_text(_deployment("bad")["a [parameters] key"], encoding="utf-8")
        argv = ["certify", str(path), "--report", "none"]
    else:
        path.write_text(_spec("bad")["a [fixed] key"], encoding="utf-8")
        argv = ["sweep", str(path), "--store", str(tmp_path / "s.sqlite")]
    assert main(argv) == 2
    assert "\\n" in _stderr_is_one_line(capsys)


def test_a_sweep_name_with_a_line_break_cannot_forge_a_summary_line(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(
        f'[sweep]\nmechanism = "gaussian"\nname = "s\\n{FORGED}"\nchecks = ["loss-law"]\n'
        '[fixed]\ntrials = 2000\nsynthetic = "50,3"\n',
        encoding="utf-8",
    )
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.sqlite"), "--workers", "1"]) in (0, 3)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "\\n" in out and not out.startswith("pdp-audit: CERTIFIED"), repr(out)


def test_ordinary_names_still_read_plainly(tmp_path, capsys):
    """Ordinary file names are not quoted where they start a message (only unprintable ones are); keys are."""
    path = tmp_path / "deploy.toml"
    path.write_text(_deployment("colour")["an [audit] key"], encoding="utf-8")
    assert main(["certify", str(path), "--report", "none"]) == 2
    err = _stderr_is_one_line(capsys)
    assert err.startswith(f"pdp-audit: error: {path}: unknown key 'audit.colour'"), err
