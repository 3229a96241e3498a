"""A data file is read only up to a size checked before any read (issue 42: every input runs in bounded memory)."""

from __future__ import annotations

import pytest

from pdp_audit.verify.inputs import datasets
from pdp_audit.verify.inputs.validation import InputError


def test_a_data_file_beyond_the_cap_is_refused_from_its_size_before_any_read(tmp_path):
    """A sparse data file beyond the cap was read until memory ran out: its size is checked first (one line)."""
    path = tmp_path / "huge.csv"
    with open(path, "wb") as handle:
        handle.truncate(datasets.DATA_FILE_CAP + 1)  # sparse: nothing written, and reading it would take minutes
    for read in (datasets.load_csv, lambda p: datasets.pinned_bytes(p).__enter__()):
        with pytest.raises(InputError, match=r"^--data: .*huge\.csv' is 4\.0 GiB; a CSV file is read up to 4 GiB$"):
            read(path)


def test_a_small_data_file_is_read_as_before(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("x,y\n1,2\n3,4\n", encoding="utf-8")
    assert datasets.load_csv(path).features.shape == (2, 2)
