"""Report files: atomic for regular files, links followed, special files never replaced, outputs published together."""

import os
import stat
import threading

import pytest

from pdp_audit.reports.files import TEMP_MARK, atomic_path, atomic_paths


def test_regular_file_is_replaced_only_when_complete(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.json"]  # no temporary left
    with atomic_path(target) as tmp:
        tmp.write_text("new")
    assert target.read_text() == "new"


def test_symlink_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with atomic_path(link) as tmp:
        tmp.write_text("new")
    assert link.is_symlink() and real.read_text() == "new"


def test_fifo_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
    reader.start()
    with atomic_path(fifo) as tmp:
        tmp.write_text("payload")
    reader.join(timeout=10)
    assert received == ["payload"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_outputs_are_published_together(tmp_path):
    pdf, js = tmp_path / "out.pdf", tmp_path / "out.json"
    with pytest.raises(KeyboardInterrupt):
        with atomic_paths(pdf, js) as (tmp_pdf, tmp_json):
            tmp_json.write_text("{}")
            raise KeyboardInterrupt  # while the PDF is still being written
    assert not pdf.exists() and not js.exists() and os.listdir(tmp_path) == []
    with atomic_paths(pdf, js) as (tmp_pdf, tmp_json):
        tmp_pdf.write_text("pdf")
        tmp_json.write_text("{}")
    assert pdf.read_text() == "pdf" and js.read_text() == "{}"


def test_temporaries_of_killed_writers_are_swept(tmp_path):
    target = tmp_path / "out.pdf"
    dead_pid = 2**22 + 12345  # above the default pid_max: no such process
    stale = tmp_path / f".out.pdf{TEMP_MARK}{dead_pid}.abc123"
    stale.write_text("partial")
    alive = tmp_path / f".out.pdf{TEMP_MARK}{os.getppid()}.def456"  # a live writer's: kept
    alive.write_text("in progress")
    with atomic_path(target) as tmp:
        tmp.write_text("done")
    assert not stale.exists() and alive.exists() and target.read_text() == "done"


def test_the_temporary_of_a_fifo_is_readable_by_its_owner_only(tmp_path):
    """Written through, never renamed into place: it stays 0600 in the temporary folder (it took the FIFO's 0644)."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo, 0o644)
    os.chmod(fifo, 0o644)
    reader = threading.Thread(target=lambda: open(fifo).read())
    reader.start()
    with atomic_path(fifo) as tmp:
        mode = stat.S_IMODE(os.stat(tmp).st_mode)
        tmp.write_text("payload")
    reader.join(timeout=10)
    assert mode == 0o600 and not tmp.exists()


def test_outputs_interrupted_by_sigterm_leave_no_temporary(tmp_path):
    """SIGTERM reaches the writers as :class:`Terminated` (the command's handler): the same cleanup as Ctrl-C."""
    from pdp_audit.verify.core.processes import Terminated

    with pytest.raises(Terminated):
        with atomic_paths(tmp_path / "out.pdf", tmp_path / "out.json") as (tmp_pdf, tmp_json):
            tmp_json.write_text("{}")
            raise Terminated(15)
    assert os.listdir(tmp_path) == []
