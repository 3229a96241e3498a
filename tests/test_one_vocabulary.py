"""One vocabulary for one outcome (issue 86, item 3): the CLI's headline and check lines, a PDF's text, ``describe()``
and the pytest plugin's outcome names and summary say a verdict as CERTIFIED, REFUTED or UNDECIDED (a check's in lower
case), and nothing else; the JSON keeps its stable values ``pass``, ``fail``, ``inconclusive``, one for each word.

Seen failing on main: the program's headline was "PASS"/"FAIL"/"INCONCLUSIVE", its check lines "pass", page 1's
banner "NOT DECIDED", the cover's "PASS —", the plugin's summary "2 pass, 1 inconclusive, 1 fail".  Tiny programs,
small budgets: each run takes seconds."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from pdp_audit import pytest_plugin
from pdp_audit.cli.main import main
from pdp_audit.pytest_session import AuditSession
from pdp_audit.reports.verdict_words import CLAIM_WORDS, WORDS

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

#: Every verdict word the suite printed before issue 86, in any place: none may be printed now.
OLD_WORDS = re.compile(r"\b(PASS|FAIL|INCONCLUSIVE|NOT DECIDED|NOT CERTIFIED|NOT A CERTIFICATE|NO CLAIM TESTED)\b")
EXIT = {"pass": 0, "fail": 1, "inconclusive": 3}

PROGRAM = """import numpy as np


def correct(data, rng):
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return values.sum() + rng.laplace(0.0, 1.0)


def wide_clip(data, rng):
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=10.0, neginf=0.0), 0.0, 10.0)
    return values.sum() + rng.laplace(0.0, 1.0)


def no_law(data, rng):
    values = np.clip(np.nan_to_num(data["value"].to_numpy(dtype=float), nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return values.sum() + rng.gumbel(0.0, 1.0)
"""


def _program(tmp_path, capsys, function: str, *extra: str) -> tuple[int, str, dict]:
    """``pdp-audit program prog:FUNCTION`` in ``tmp_path`` (the working directory: the program's module is found
    there, as on a command line): its exit code, standard output and JSON."""
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "values.csv").write_text("value\n0.1\n0.5\n0.9\n0.3\n", encoding="utf-8")
    args = ["program", f"prog:{function}", "--data", str(tmp_path / "values.csv"), "--claim-epsilon", "1"]
    args += ["--claim-delta", "0", "--bounds", "0,1", "--trials", "200", "--search", "named", "--law", "ideal"]
    args += ["--report", str(tmp_path / f"{function}.pdf"), "--json", str(tmp_path / f"{function}.json"), *extra]
    code = main(args)
    out = capsys.readouterr().out
    return code, out, json.loads((tmp_path / f"{function}.json").read_text(encoding="utf-8"))


def _says_one_vocabulary(code: int, out: str, doc: dict, pages: list[list[str]]) -> None:
    """The headline's word is the JSON's verdict's, the exit code its; each check line a lower-case word of the three;
    the PDF's banner starts with the word; no old word anywhere."""
    word = CLAIM_WORDS[doc["verdict"]]
    assert code == EXIT[doc["verdict"]] == doc["exit_code"], (code, doc["verdict"])
    headline, *lines = out.splitlines()
    assert re.search(rf": {word} \(claim ε", headline), headline
    said = [m.group(1) for line in lines if (m := re.match(r"  program-[a-z]+: (\S+)", line))]
    assert {c["verdict"] for c in doc["checks"]} <= set(EXIT), doc["checks"]
    assert said == [CLAIM_WORDS[c["verdict"]].lower() for c in doc["checks"]] and set(said) <= set(WORDS), said
    text = "\n".join(t for page in pages for t in page)
    assert not OLD_WORDS.search(out), OLD_WORDS.search(out)
    assert not OLD_WORDS.search(text), OLD_WORDS.search(text)
    assert any(t.startswith(f"{word}") for t in pages[0]), pages[0][:8]
    assert not OLD_WORDS.search(doc["review"]["headline"]) and doc["review"]["headline"].startswith(word)


@pytest.mark.parametrize(
    ("function", "verdict"),
    [("correct", "pass"), ("wide_clip", "fail"), ("no_law", "inconclusive")],
    ids=["certified", "refuted", "undecided"],
)
def test_a_program_audit_says_its_verdict_in_one_vocabulary(
    tmp_path, capsys, monkeypatch, drawn_pages, function, verdict
):
    monkeypatch.chdir(tmp_path)
    code, out, doc = _program(tmp_path, capsys, function)
    assert doc["verdict"] == verdict, out
    _says_one_vocabulary(code, out, doc, drawn_pages)


def test_a_built_in_run_its_cover_and_describe_say_the_same_words(tmp_path, capsys, drawn_pages):
    """``pdp-audit run``: its headline, check lines and the cover's banner."""
    args = [
        "run",
        "laplace",
        "--trials",
        "2000",
        "--report",
        str(tmp_path / "r.pdf"),
        "--json",
        str(tmp_path / "r.json"),
    ]
    code = main(args)
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    word = CLAIM_WORDS[doc["verdict"]]
    assert code == EXIT[doc["verdict"]] and out.startswith(f"pdp-audit run laplace: {word}"), out
    lines = {line.split()[1]: line.split()[0] for line in out.splitlines()[1:] if len(line.split()) > 1}
    said = [lines[c["id"]] for c in doc["checks"]]  # each check's line: its word, then its id
    assert said == [CLAIM_WORDS[c["verdict"]].lower() for c in doc["checks"]] and set(said) <= set(WORDS), out
    text = "\n".join(t for page in drawn_pages for t in page)
    assert not OLD_WORDS.search(out) and not OLD_WORDS.search(text), (out, OLD_WORDS.search(text))
    assert any(t.startswith(f"{word} — ") for t in drawn_pages[0]), drawn_pages[0][:12]


def test_the_pytest_plugin_names_its_outcomes_and_counts_in_the_same_words():
    """The plugin's own outcome (an undecided assertion) and its summary's counts and lines."""
    undecided = SimpleNamespace(skipped=True, longrepr=("f", 1, f"msg\n  ({pytest_plugin.UNDECIDED_NOTE})"))
    category, letter, (word, _) = pytest_plugin.pytest_report_teststatus(undecided, None)
    assert (category, word) == ("undecided", "UNDECIDED") and letter == "U"
    assert pytest_plugin.UNDECIDED_NOTE.startswith("undecided")

    written: list[str] = []
    session = AuditSession(SimpleNamespace())  # the controller: no workerinput
    for index, verdict in enumerate(("pass", "fail", "inconclusive", "pass")):
        note = {"id": "dp-forward", "verdict": verdict, "note": "why"}
        session.add({"nodeid": "t.py::test", "index": index, "verdict": verdict, "header": "h", "checks": [note]})
    reporter = SimpleNamespace(section=lambda *a, **k: None, write_line=written.append)
    session.pytest_terminal_summary(reporter)
    text = "\n".join(written)
    assert "4 assertions: 2 certified, 1 undecided, 1 refuted" in text, text
    assert re.search(r"^  REFUTED +t\.py::test \[1\]", text, re.M) and re.search(r"^  UNDECIDED +t\.py", text, re.M)
    assert "[dp-forward] undecided: why" in text and not OLD_WORDS.search(text), text
