"""What ``certify`` of a large CSV does fast decides as before (issue 44): the scan for letters below the header (the
float reader's gate) is the regular expression's, and a JSON-only report imports no PDF renderer."""

from __future__ import annotations

import hashlib
import io
import random
import subprocess
import sys

from pdp_audit.mechanisms import datasets


def regex_gate(content: bytes) -> bool:
    """The gate as written before: no match of the letter class below the header line."""
    body = content.lstrip(b"\xef\xbb\xbf\r\n\t ")
    return datasets._WORD.search(body, body.find(b"\n") + 1 if b"\n" in body else len(body)) is None


def scanned(content: bytes, buffer: int) -> datasets._Scan:
    """``content`` read to its end through the scan, ``buffer`` bytes at a time (the header line may span reads)."""
    scan = datasets._Scan(io.BytesIO(content), hashed=True)
    while scan.readinto(bytearray(buffer)):
        pass
    return scan


def test_letter_scan_is_the_regular_expression():
    """The scan the float reader's parse goes through decides as the regular expression did, whatever the size of
    the reads, and hashes every byte it hands on."""
    rng = random.Random(44)
    alphabet = b"0123456789.,-+eE \n\r\txyzTrueFalsnaNif\xef\xbb\xbf\xff"
    answers = set()
    for _ in range(3000):
        content = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for buffer in (1, 3, 64):
            scan = scanned(content, buffer)
            assert scan.plain_numbers() == regex_gate(content), (content, buffer)
            assert scan.digest.hexdigest() == hashlib.sha256(content).hexdigest()
        answers.add(regex_gate(content))
    assert answers == {True, False}  # both outcomes were exercised


def test_a_json_only_report_imports_no_pdf_renderer(tmp_path):
    """Nor, for a pure-DP audit of the default data set, scipy.stats (only its beta quantiles' ufuncs are used) or
    scikit-learn (the data set read from mechanisms/shipped_store.py, warmed here)."""
    from pdp_audit.mechanisms.datasets import load_shipped

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


def test_the_float_reader_reads_many_chunks_as_one_table(tmp_path, monkeypatch):
    """The float reader parses a chunk of rows at a time into one array (sized from the first chunk, grown when that
    was short): the table pandas parses whole, bit for bit; a short row in a later chunk still goes to the text
    reader, which names its line."""
    import numpy as np
    import pandas as pd
    import pytest

    from pdp_audit.mechanisms.validation import InputError

    monkeypatch.setattr(datasets, "_PARSE_ROWS", 7)
    cells = np.random.default_rng(3).standard_normal((100, 3)) * 10.0 ** np.arange(-150, 150, 100)
    lines = ["a,b,c"] + ["1,2,3"] * 7 + [",".join(f"{v:.17g}" for v in row) for row in cells]
    path = tmp_path / "d.csv"
    path.write_text("\n".join(lines) + "\n")  # short first rows: the first chunk's estimate is too small
    rounding = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    expected = pd.read_csv(path, dtype=float, **rounding).to_numpy()
    assert np.array_equal(datasets.load_csv(path).features, expected)
    lines[60] = "1,2"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 61, column 'c' is empty"):
        datasets.load_csv(path)


def _scan_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name.startswith("pdp-audit-")]


def test_no_scan_thread_outlives_a_parse(tmp_path):
    """The thread hashing and scanning the bytes beside pandas' parse is joined whatever the parse ends in: a table, a
    column pandas reads as text (parsed again), a cell that is no number (the text reader's one-line error), a pinned
    file's digest (the bytes hashed on the thread are the file's)."""
    import pytest

    from pdp_audit.mechanisms.validation import InputError

    good, text, bad = tmp_path / "good.csv", tmp_path / "text.csv", tmp_path / "bad.csv"
    good.write_text("a,b\n1.5,2\n-3,4e-3\n")
    text.write_text("a,b\n1.5,2\nTrue,4\n")
    bad.write_text("a,b\n1.5,2\n3,x\n")
    with datasets.pinned_file(good) as pin:
        assert datasets.load_csv(good).features.tolist() == [[1.5, 2.0], [-3.0, 0.004]]
        assert pin.sha256 == hashlib.sha256(good.read_bytes()).hexdigest()
    for path, error in ((text, "'True' is not a number"), (bad, "'x' is not a number")):
        with pytest.raises(InputError, match=error):
            datasets.load_csv(path)
    assert _scan_threads() == []


def test_imports_beside_a_body_are_joined_and_their_errors_left_to_the_caller():
    """``imported_beside``: the thread is joined when the body ends, raising or not; a module that cannot be imported
    is not reported there -- the caller's own import of it raises, on its thread, as it did without the thread."""
    import sys

    import pytest

    from pdp_audit.verify.core.background_imports import imported_beside

    with pytest.raises(ZeroDivisionError):
        with imported_beside(("json",)):
            1 / 0
    assert _scan_threads() == []
    with imported_beside(("pdp_audit_no_such_module", "json")):
        pass
    assert _scan_threads() == [] and "pdp_audit_no_such_module" not in sys.modules
    with pytest.raises(ModuleNotFoundError, match="pdp_audit_no_such_module"):
        __import__("pdp_audit_no_such_module")


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


def _outcome(path, pinned: bool = False, read_ahead: bool = False):
    """What the reader makes of ``path``: its table (values, signs of zero, shape) or its one-line error; pinned, the
    digest it records too (``read_ahead``: the pin reads and hashes the bytes on a thread from the start)."""
    from pdp_audit.mechanisms.validation import InputError

    try:
        if not pinned:
            values = datasets.load_csv(path).features
            return "table", values.tobytes(), values.shape
        with datasets.pinned_file(path, read_ahead=read_ahead) as pin:
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


def test_pieces_read_what_the_whole_file_parse_reads(tmp_path, monkeypatch):
    """The float reader's parse in pieces (cut after newlines, each piece typed on its own, on two threads) makes of
    a file what the parse of the whole file made of it -- the same table bit for bit (the sign of every zero with
    it), or the same one-line error, and the same digest of a pinned file (read ahead by the pin or not) -- whatever
    the size of the pieces: "-0"
    in a piece of integers, a short row, a letter or a quote in a late piece, a BOM or a blank line before the
    header.  A reader typing pieces by inference alone fails it ("-0" in a piece of integers: checked below too)."""
    from pdp_audit.mechanisms import csv_pieces

    rng = random.Random(45)
    path = tmp_path / "d.csv"
    kinds = set()
    for case in range(150):
        content = _random_csv(rng)
        path.write_bytes(content)
        monkeypatch.setattr(csv_pieces, "PIECE_BYTES", rng.choice([8, 40, 200, 1 << 20]))
        pinned = case % 3 == 0
        split = _outcome(path, pinned, read_ahead=case % 6 == 0)
        with monkeypatch.context() as serial:
            serial.setattr(datasets, "_parse_split", lambda path: (_ for _ in ()).throw(csv_pieces.Unsplit))
            expected = _outcome(path, pinned)
        assert split == expected, content
        if pinned and split[0] == "table":
            assert split[-1] == hashlib.sha256(content).hexdigest()
        kinds.add(split[0])
    assert kinds == {"table", "error"}
    assert _scan_threads() == []


def test_pieces_of_integers_are_read_as_floats(tmp_path, monkeypatch):
    """A piece whose column pandas types as integers is parsed again as floats: "-0" keeps its sign (a piece typed
    int64 and stored as float64 read it as 0.0); a short row or a letter in a later piece is the text reader's
    error."""
    import numpy as np
    import pandas as pd
    import pytest

    from pdp_audit.mechanisms import csv_pieces
    from pdp_audit.mechanisms.validation import InputError

    monkeypatch.setattr(csv_pieces, "PIECE_BYTES", 64)
    path = tmp_path / "d.csv"
    lines = ["a,b"] + ["1,2"] * 40 + ["-0,3", "1.5,2"] + ["4,5"] * 40
    path.write_text("\n".join(lines) + "\n")
    features = datasets.load_csv(path).features
    assert features.shape == (82, 2) and features[40, 0] == 0 and np.signbit(features[40, 0])
    assert features.flags.c_contiguous and features[-1].tolist() == [4.0, 5.0]
    inferred = pd.read_csv(io.BytesIO(b"-0,1\n"), header=None).to_numpy(dtype=float)  # pandas' inference alone
    assert not np.signbit(inferred[0, 0]) and np.signbit(csv_pieces.parse_piece(b"-0,1\n", {"names": range(2)})[0, 0])
    lines[70] = "1"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 71, column 'b' is empty"):
        datasets.load_csv(path)
    monkeypatch.setattr(csv_pieces, "PIECE_BYTES", 8)
    path.write_text("a,b\n1.5,2\nTrue,2\n")  # "True,2" a piece of its own: as floats, pandas reads it as 1.0
    with pytest.raises(InputError, match=r"line 3, column 'a': 'True' is not a number"):
        datasets.load_csv(path)


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


def test_a_read_failing_midway_leaves_the_file_to_the_text_reader(tmp_path, monkeypatch):
    """An OSError while the pieces are read is not the float reader's to report: the text reader reads the file
    (here it can: the failure was the pieces reader's alone) or names the error in one line; no thread is left."""
    from pdp_audit.mechanisms import csv_pieces

    path = tmp_path / "d.csv"
    path.write_text("a,b\n" + "1.5,2\n" * 50)
    monkeypatch.setattr(csv_pieces, "PIECE_BYTES", 32)
    reads = iter(range(100))

    def failing(source, size):
        if next(reads) == 3:
            raise OSError(5, "Input/output error")
        return source.read(size)

    monkeypatch.setattr(csv_pieces, "read_full", failing)
    assert datasets.load_csv(path).features.tolist() == [[1.5, 2.0]] * 50
    assert _scan_threads() == []


def test_mapping_a_tables_pages_changes_no_value():
    """The float reader maps its table's pages in one call (``MADV_POPULATE_WRITE``) as its rows are copied in: the
    values are untouched whether the kernel did it or not, and an array with no whole page is left alone."""
    import numpy as np

    from pdp_audit.mechanisms import csv_pieces

    values = np.arange(3 * 2**18, dtype=float).reshape(-1, 3)  # 6 MB: many whole pages
    before = values.copy()
    assert csv_pieces.map_pages(values) in (True, False)
    assert np.array_equal(values, before)
    assert csv_pieces.map_pages(np.empty((0, 3))) is False


def test_a_file_read_ahead_is_the_file_and_leaves_no_thread(tmp_path, monkeypatch):
    """The blocks a pin reads ahead on a thread are the file's bytes in order, their digest its SHA-256; closed
    before they are all taken (the thread waiting for room), or after a read failed midway (raised where the parse
    reads, and the text reader then reads the file), no thread is left."""
    from pdp_audit.mechanisms import csv_pieces

    rng = random.Random(46)
    content = bytes(rng.getrandbits(8) for _ in range(5000))
    path = tmp_path / "d.bin"
    path.write_bytes(content)
    monkeypatch.setattr(csv_pieces, "PIECE_BYTES", 64)
    monkeypatch.setattr(csv_pieces, "READ_AHEAD_BLOCKS", 2)
    with csv_pieces.ReadAhead(path) as ahead:
        read = b"".join(iter(lambda: csv_pieces.read_full(ahead, 64), b""))
        assert ahead.read(64) == b""
    assert read == content and ahead.digest.hexdigest() == hashlib.sha256(content).hexdigest()
    with csv_pieces.ReadAhead(path) as ahead:
        assert ahead.read(64) == content[:64]
    assert _scan_threads() == []

    csv = tmp_path / "d.csv"
    csv.write_text("a,b\n" + "1.5,2\n" * 50)
    reads = iter(range(100))
    real = csv_pieces.read_full

    def failing(source, size):
        if isinstance(source, csv_pieces.ReadAhead) or next(reads) != 2:
            return real(source, size)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(csv_pieces, "read_full", failing)
    assert _outcome(csv, pinned=True, read_ahead=True)[0] == "table"
    assert _scan_threads() == []
