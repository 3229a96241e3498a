"""What ``certify`` of a large CSV does fast decides as before (issue 44): the scan for letters below the header (the
float reader's gate) is the regular expression's, and a JSON-only report imports no PDF renderer."""

from __future__ import annotations

import random
import subprocess
import sys

from pdp_audit.mechanisms import datasets


def regex_gate(content: bytes) -> bool:
    """The gate as written before: no match of the letter class below the header line."""
    body = content.lstrip(b"\xef\xbb\xbf\r\n\t ")
    return datasets._WORD.search(body, body.find(b"\n") + 1 if b"\n" in body else len(body)) is None


def test_letter_scan_is_the_regular_expression(tmp_path):
    rng = random.Random(44)
    alphabet = b"0123456789.,-+eE \n\r\txyzTrueFalsnaNif\xef\xbb\xbf\xff"
    path = tmp_path / "d.csv"
    answers = set()
    for _ in range(3000):
        content = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        path.write_bytes(content)
        assert datasets._plain_numbers(path) == regex_gate(content), content
        answers.add(regex_gate(content))
    assert answers == {True, False}  # both outcomes were exercised


def test_a_json_only_report_imports_no_pdf_renderer(tmp_path):
    code = (
        "import sys\nimport pdp_audit\nfrom pdp_audit.reports.publish import write_run_reports\n"
        "run = pdp_audit.run_audit('laplace', claim_epsilon=1.0, trials=2000)\n"
        f"write_run_reports(run, None, {str(tmp_path / 'r.json')!r})\n"
        "print('matplotlib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "False"
    assert (tmp_path / "r.json").stat().st_size > 0
