"""What ``certify`` of a large CSV does fast decides as before (issue 44): pandas' parse straight to floats is used
only where it is the table the text reader reads (the same doubles, or the same one-line error), and a JSON-only
report imports no PDF renderer."""

from __future__ import annotations

import hashlib
import io
import random
import subprocess
import sys

import pytest

from pdp_audit.verify.inputs import datasets


@pytest.mark.tier2
def test_a_json_only_report_imports_no_pdf_renderer(tmp_path):
    """Nor, for a pure-DP audit of the default data set, scipy.stats (only its beta quantiles' ufuncs are used) or
    scikit-learn (the data set read from verify/inputs/shipped_store.py, warmed here)."""
    from pdp_audit.verify.inputs.datasets import load_shipped

    load_shipped("diabetes")  # the store this process and the child share (the user's cache folder)
    code = (
        "import sys\nimport pdp_audit\nfrom pdp_audit.reports.publish import write_run_reports\n"
        "run = pdp_audit.run_audit('laplace', claim_epsilon=1.0, trials=2000)\n"
        f"write_run_reports(run, None, {str(tmp_path / 'r.json')!r})\n"
        "print([m for m in ('matplotlib', 'scipy.stats', 'sklearn', 'pandas') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout
    assert (tmp_path / "r.json").stat().st_size > 0


def _scan_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name.startswith("pdp-audit-")]


def test_a_negative_zero_keeps_its_sign_beside_integers_and_decimals(tmp_path):
    """A column of integers and decimals in one chunk is read as Python's ``float`` reads each cell: "-0" is -0.0.
    Parsed in pieces (pandas' low_memory), a piece of integers was typed int64 and concatenated with a piece of
    decimals into float64, so the sign was lost (row 1 of 30 columns, 60,000 rows of integers before the decimals)."""
    import numpy as np

    columns = 30
    lines = [",".join(f"c{j}" for j in range(columns)), ",".join(["-0"] + ["1"] * (columns - 1))]
    lines += [",".join(["1"] * columns)] * 60_000 + [",".join(["1.5"] * columns)] * 10
    path = tmp_path / "zeros.csv"
    path.write_text("\n".join(lines) + "\n")
    features = datasets.load_csv(path).features
    assert features[0, 0] == 0 and np.signbit(features[0, 0])
    assert features[-1].tolist() == [1.5] * columns


def test_a_computation_beside_gives_its_result_or_its_error_and_leaves_no_thread():
    """``computed_beside``: the value the call returns, or its exception where the result is asked for; on a thread
    or not (``thread=False``: called then, here); the thread joined when the block ends, even unasked."""
    import pytest

    from pdp_audit.verify.core.beside import computed_beside

    for thread in (True, False):
        with computed_beside(divmod, 7, 2, thread=thread) as result:
            assert result() == (3, 1)
        with pytest.raises(ZeroDivisionError):
            with computed_beside(divmod, 7, 0, thread=thread) as result:
                result()
        with computed_beside(divmod, 7, 0, thread=thread):
            pass  # never asked: the error is the caller's only if it asks
        assert _scan_threads() == []


def _outcome(path, pinned: bool = False):
    """What the reader makes of ``path``: its table (values, signs of zero, shape) or its one-line error; pinned, the
    digest it records too."""
    from pdp_audit.verify.inputs.validation import InputError

    try:
        if not pinned:
            values = datasets.load_csv(path).features
            return "table", values.tobytes(), values.shape
        with datasets.pinned_file(path) as pin:
            values = datasets.load_csv(path).features
            return "table", values.tobytes(), values.shape, pin.sha256
    except InputError as error:
        return "error", str(error)


def _random_csv(rng: random.Random) -> bytes:
    """A small CSV of three columns: mostly numbers (integers, "-0", exponents, spaces), now and then a blank line, a
    short or long row, a letter, an empty cell, a quote; a BOM, CRLF or a blank first line at times."""
    cells = ["1", "-0", "0", "1.5", "-2.25e-3", "1e5", "3E2", " 4", "7 ", "-0.0", "12345678901234567890", "+6"]
    odd = ["", "x", "True", "inf", "nan", "1e400", "0x10", "1_0", '"2"', "1,5"]
    newline = rng.choice(["\n", "\r\n"])
    lines = [rng.choice(["a,b,c", '"a","b","c"', "a,a,c"]) if rng.random() < 0.2 else "a,b,c"]
    for _ in range(rng.randint(0, 60)):
        width = 3 if rng.random() < 0.97 else rng.choice([2, 4])
        row = [rng.choice(odd) if rng.random() < 0.004 else rng.choice(cells) for _ in range(width)]
        lines.append("" if rng.random() < 0.03 else ",".join(row))
    text = newline.join(lines) + rng.choice([newline, "", newline * 3])
    head = rng.choice([b"", b"", b"", b"\xef\xbb\xbf", b"\n"])
    return head + text.encode()


def test_a_float64_column_holds_no_letter_but_an_exponent_or_an_infinity():
    """Why a piece whose columns pandas infers as float64 needs no scan for letters: its float parser takes no cell
    with a letter but those of an exponent (a finite value Python's ``float`` reads alike) or of ``inf``/``infinity``
    (refused as non-finite, as the text reader refuses it).  Every letter, in every place of a short number, and the
    words pandas or Python know."""
    import math
    import string

    import pandas as pd

    words = ["inf", "-Inf", "+INFINITY", "nan", "NaN", "-nan", "True", "false", "None", "null", "NA", "n/a", "1.#INF"]
    words += ["0x1p3", "0x10", "1d5", "1.5f", "1_0", "1e5", "1E+05", "-2.5e-3", "١"]
    for letter in string.ascii_letters:
        words += [pattern.replace("L", letter) for pattern in ("L", "1L", "L1", "1.5L", "1L5", "-L1", "1eL", ".L")]
    for word in words:
        column = pd.read_csv(io.BytesIO(f"a\n{word}\n1.5\n".encode()), keep_default_na=False, na_filter=False)["a"]
        if column.dtype != "float64":
            continue
        value = float(column.iloc[0])
        assert not math.isfinite(value) or not any(c.isalpha() and c not in "eE" for c in word), word
        assert value == float(word) or (math.isnan(value) and math.isnan(float(word))), word


@pytest.mark.tier2
def test_the_float_reader_reads_what_the_text_reader_reads(tmp_path, monkeypatch):
    """pandas' parse straight to floats (:func:`datasets._read_csv_numbers`) makes of a file what the reader of text
    cells makes of it -- the same table bit for bit (the sign of every zero with it), or the same one-line error, and
    the same digest of a pinned file: "-0" among integers, a short or long row, a letter, an empty cell, a quote, a
    BOM or a blank line before the header, a repeated name -- in any chunk of rows parsed.  Seen failing with the
    parse of integer columns kept (no second parse as floats: "-0" read as 0.0)."""
    rng = random.Random(45)
    path = tmp_path / "d.csv"
    kinds, floats = set(), 0
    for case in range(300):
        content = _random_csv(rng)
        path.write_bytes(content)
        pinned = case % 3 == 0
        monkeypatch.setattr(datasets, "_PARSE_ROWS", rng.choice([1, 3, 7, 1 << 16]))  # rows parsed at a time
        fast = _outcome(path, pinned)
        with monkeypatch.context() as text_only:
            text_only.setattr(datasets, "_read_csv_numbers", lambda path: None)
            expected = _outcome(path, pinned)
        assert fast == expected, content
        if pinned and fast[0] == "table":
            assert fast[-1] == hashlib.sha256(content).hexdigest()
        kinds.add(fast[0])
        floats += datasets._read_csv_numbers(path) is not None
    assert kinds == {"table", "error"} and floats > 50  # both outcomes, and the float reader's table often


def test_integer_columns_are_read_as_floats(tmp_path):
    """A column pandas types as integers is parsed again as floats: "-0" keeps its sign (pandas' inference alone
    reads it as 0); a short row after it or a word is the text reader's error, naming the line."""
    import numpy as np
    import pandas as pd
    import pytest

    from pdp_audit.verify.inputs.validation import InputError

    path = tmp_path / "d.csv"
    lines = ["a,b"] + ["1,2"] * 40 + ["-0,3"] + ["4,5"] * 40
    path.write_text("\n".join(lines) + "\n")
    features = datasets.load_csv(path).features
    assert features.shape == (81, 2) and features[40, 0] == 0 and np.signbit(features[40, 0])
    assert features.flags.c_contiguous and features[-1].tolist() == [4.0, 5.0]
    inferred = pd.read_csv(io.BytesIO(b"-0,1\n"), header=None).to_numpy(dtype=float)  # pandas' inference alone
    assert not np.signbit(inferred[0, 0])
    lines[70] = "1"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 71, column 'b' is empty"):
        datasets.load_csv(path)
    path.write_text("a,b\n1.5,2\nTrue,2\n")  # as floats, pandas reads True as 1.0
    with pytest.raises(InputError, match=r"line 3, column 'a': 'True' is not a number"):
        datasets.load_csv(path)
