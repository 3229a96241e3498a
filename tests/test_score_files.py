"""What ``pdp-audit canaries`` refuses to read rather than misread (each case gave a verdict or hung on the previous
code): a decimal-comma CSV, a FIFO, a device; and what it reads as a file without a header (np.savetxt's)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from pdp_audit.cli.canaries import read_column
from pdp_audit.verify.inputs.validation import InputError


def test_a_file_without_a_header_is_read_as_data(tmp_path):
    """np.savetxt's file (no header, its default format): the first row was refused as "a number, not a header"
    (before that, taken for the column's name and lost); every row is a score."""
    path = tmp_path / "scores.csv"
    scores = np.r_[5.0, np.linspace(-1, 1, 50)]
    np.savetxt(path, scores)
    assert read_column(str(path), "--in-scores", None).tolist() == scores.tolist()


def test_the_first_row_of_a_file_without_a_header_is_checked_as_any_row(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("5.0\ninf\n")
    with pytest.raises(InputError, match=r"row 2 \(line 2\), column 1 \(no header\): inf; scores must be finite"):
        read_column(str(path), "--in-scores", None)


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("1.5,2\n3,4\n", None, "2 columns and no header"),
        ("1.5\n3\n", "score", "the file has no header, so no column is named 'score'"),
        ("1.5\n3,4\n", None, r"row 2 \(line 2\) has 2 field\(s\) and the first row 1"),
    ],
)
def test_a_file_without_a_header_names_no_column(tmp_path, text, column, message):
    path = tmp_path / "scores.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_column(str(path), "--in-scores", column)


def test_np_savetxt_files_are_audited_by_the_command(tmp_path, monkeypatch, capsys):
    from pdp_audit.cli.main import main

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    np.savetxt("in.csv", rng.normal(1.0, 1.0, 200))
    np.savetxt("out.csv", rng.normal(0.0, 1.0, 200))
    argv = ["canaries", "--in-scores", "in.csv", "--out-scores", "out.csv", "--delta", "1e-5", "--report", "none"]
    assert main(argv) == 3, capsys.readouterr().err  # no claim: the bound is reported, never certified


def test_a_decimal_comma_is_refused(tmp_path):
    """main: "0,75" under a one-column header was read as 0, every score's integer part."""
    path = tmp_path / "scores.csv"
    path.write_text("score\n" + "".join(f"{i},75\n" for i in range(50)))
    with pytest.raises(InputError, match=r"row 1 \(line 2\) has 2 field\(s\) and the header 1; .*decimal comma"):
        read_column(str(path), "--in-scores", None)


def test_a_row_with_fewer_fields_than_the_header_is_refused(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("id,score\n1,0.5\n2\n")
    with pytest.raises(InputError, match=r"row 2 \(line 3\) has 1 field\(s\) and the header 2"):
        read_column(str(path), "--in-scores", "score")


def test_a_well_formed_file_reads_as_before(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("id,score\n1,0.5\n\n2,0.25\n")
    assert read_column(str(path), "--in-scores", "score").tolist() == [0.5, 0.25]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_named_and_never_opened(tmp_path):
    """main: reading the FIFO blocked forever (no writer)."""
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"is not a regular file \(a FIFO, a socket or a device\)"):
        read_column(str(fifo), "--in-scores", None)


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform == "win32", reason="no /dev/zero here")
def test_a_device_is_named_and_never_read():
    """main: /dev/zero was read until MemoryError (exit 4)."""
    with pytest.raises(InputError, match=r"/dev/zero is not a regular file"):
        read_column("/dev/zero", "--in-scores", None)
