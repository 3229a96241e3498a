"""What ``pdp-audit canaries`` refuses to read rather than misread (each case gave a verdict or hung on the previous
code): a file without a header, a decimal-comma CSV, a FIFO, a device."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from pdp_audit.mechanisms.validation import InputError
from pdp_audit.verify.cli.canaries import read_column


def test_a_file_without_a_header_is_refused(tmp_path):
    """main: np.savetxt's file (no header) lost its first score to the header; the audit ran on the rest."""
    path = tmp_path / "scores.csv"
    np.savetxt(path, np.r_[5.0, np.zeros(50)], fmt="%.3f")
    with pytest.raises(InputError, match=r"the first row is '5.000', a number, not a header"):
        read_column(str(path), "--in-scores", None)


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
