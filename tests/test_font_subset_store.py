"""Font subsets kept on disk for the next process (pdp_audit.reports.font_subset_store): the same PDF bytes cold,
warm and without the store; an entry used only under its whole key; a damaged entry read as none; the folder in
matplotlib's cache, bounded, and an unwritable one harmless."""

import os
import shutil
import threading
from pathlib import Path

import fontTools
import matplotlib
import pytest
from matplotlib.backends import _backend_pdf_ps
from matplotlib.font_manager import FontPath

from pdp_audit.reports import font_subset_store as store
from pdp_audit.reports import render_cache
from tests.test_render_cache import _own, _pdf

DATA, MAP = b"subset bytes", {3: 1, 7: 2}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    where = tmp_path / "store"
    monkeypatch.setattr(store, "folder", lambda: where)
    return where


@pytest.fixture
def font(tmp_path):
    """A font file of our own, to change."""
    copy = tmp_path / "Font.ttf"
    shutil.copyfile(Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf", copy)
    return str(copy)


def test_a_fresh_process_embeds_the_subsets_on_disk_and_writes_the_same_bytes(folder, monkeypatch):
    own = _own()
    subsetting = _backend_pdf_ps.get_glyphs_subset
    calls = []
    monkeypatch.setattr(
        _backend_pdf_ps, "get_glyphs_subset", lambda *args: calls.append(args) or subsetting(*args)
    )  # matplotlib's function as the store's context finds it
    render_cache._subsets.clear()  # a fresh process: nothing in memory
    assert _pdf(shared=True) == own  # cold: subset and kept
    cold = len(calls)
    assert cold > 0 and len(list(folder.glob("*.subset"))) == cold
    render_cache._subsets.clear()
    assert _pdf(shared=True) == own  # warm: every subset from disk
    assert len(calls) == cold
    assert not [p for p in folder.iterdir() if not p.name.endswith(".subset")]  # no temporary left


def test_an_entry_is_used_only_under_its_whole_key(folder, font, tmp_path, monkeypatch):
    glyphs = {3, 7}
    store.write(font, glyphs, DATA, MAP)
    assert store.read(font, glyphs) == (DATA, MAP)
    assert store.read(FontPath(font, 0), glyphs) == (DATA, MAP)
    elsewhere = str(tmp_path / "Copy.ttf")
    shutil.copy2(font, elsewhere)
    assert store.read(elsewhere, glyphs) == (DATA, MAP)  # the same bytes elsewhere: the same subset
    assert store.read(font, {3}) is None and store.read(font, {3, 7, 8}) is None
    assert store.read(FontPath(font, 1), glyphs) is None
    with monkeypatch.context() as patch:
        patch.setattr(matplotlib, "__version__", "0.0.1")
        assert store.read(font, glyphs) is None
    with monkeypatch.context() as patch:
        patch.setattr(fontTools, "version", "0.0.1")
        assert store.read(font, glyphs) is None
    stat = os.stat(font)
    with open(font, "r+b") as file:  # another font of the same size and time
        file.seek(1000)
        byte = file.read(1)
        file.seek(1000)
        file.write(bytes([byte[0] ^ 1]))
    os.utime(font, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    store._file_digest.cache_clear()  # (as in a fresh process)
    assert store.read(font, glyphs) is None


def test_a_damaged_entry_is_read_as_none_and_written_again(folder, font):
    glyphs = {3, 7}
    store.write(font, glyphs, DATA, MAP)
    (entry,) = folder.glob("*.subset")
    whole = entry.read_bytes()
    for damaged in (whole[:-1], whole[: len(whole) // 2], whole[:-1] + b"X", b"", b"{}\n" + DATA, b"\xff" * 40):
        entry.write_bytes(damaged)
        assert store.read(font, glyphs) is None, damaged
    store.write(font, glyphs, DATA, MAP)
    assert store.read(font, glyphs) == (DATA, MAP)


def test_writers_at_once_leave_one_whole_entry(folder, font):
    start = threading.Barrier(4)

    def write():
        start.wait()
        for _ in range(20):
            store.write(font, {3, 7}, DATA, MAP)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.read(font, {3, 7}) == (DATA, MAP)
    assert [p.suffix for p in folder.iterdir()] == [".subset"]


def test_the_store_keeps_the_entries_last_used(folder, font, monkeypatch):
    monkeypatch.setattr(store, "ENTRIES_KEPT", 4)
    for k in range(4):
        store.write(font, {k}, DATA, MAP)
        entry = max(folder.glob("*.subset"), key=os.path.getmtime)
        os.utime(entry, (1000 + k, 1000 + k))  # written in this order
    assert store.read(font, {0}) == (DATA, MAP)  # used: the newest now
    store.write(font, {4}, DATA, MAP)  # five entries: down to three
    assert [k for k in range(5) if store.read(font, {k})] == [0, 3, 4]


def test_a_killed_writers_temporary_file_is_removed_once_old(folder, font):
    store.write(font, {3}, DATA, MAP)
    old, young = folder / ".killed.tmp", folder / ".writing.tmp"
    for path in (old, young):
        path.write_bytes(DATA[:3])
    os.utime(old, (1000, 1000))
    store.write(font, {4}, DATA, MAP)
    assert not old.exists() and young.exists()


def test_the_folder_is_matplotlibs_cache_and_an_unwritable_one_is_harmless(tmp_path, font, monkeypatch):
    assert store.folder().parent == Path(matplotlib.get_cachedir())
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setattr(store, "folder", lambda: blocked / "store")
    store.write(font, {3}, DATA, MAP)
    assert store.read(font, {3}) is None
