"""Text sizes and mathtext layouts kept on disk for the next process (pdp_audit.reports.layout_store): the same PDF
bytes cold, warm and without the store, nothing measured or parsed again warm; a file used only under its whole
context; a damaged file read as none; writers at once leave a whole file; the folder in matplotlib's cache, readable
by the user only, bounded, and an unwritable one harmless."""

import os
import shutil
import stat
import threading
from pathlib import Path

import matplotlib
import pytest
from matplotlib.backends.backend_pdf import RendererPdf
from matplotlib.mathtext import MathTextParser

from pdp_audit.reports import layout_store as store
from pdp_audit.reports import render_cache
from tests.test_render_cache import _own, _pdf


@pytest.fixture
def folder(tmp_path, monkeypatch):
    where = tmp_path / "store"
    monkeypatch.setattr(store, "folder", lambda: where)
    store.forget()
    yield where
    store.forget()


def _fresh_process():
    """What a fresh process holds in memory: nothing measured, parsed or read."""
    render_cache._metrics.clear()
    render_cache._layout.cache_clear()
    store.forget()


def test_a_fresh_process_reads_sizes_and_layouts_from_disk_and_writes_the_same_bytes(folder, monkeypatch):
    own = _own()
    measured, parsed = [], []
    measure = RendererPdf.get_text_width_height_descent
    monkeypatch.setattr(
        RendererPdf, "get_text_width_height_descent", lambda self, *a: measured.append(a) or measure(self, *a)
    )
    parse = MathTextParser._parse_cached.__wrapped__
    monkeypatch.setattr(MathTextParser._parse_cached, "__wrapped__", lambda *a: parsed.append(a) or parse(*a))
    _fresh_process()
    assert _pdf(shared=True) == own  # cold: measured, parsed and kept
    assert measured and parsed
    (kept,) = folder.glob("*.layouts")
    assert stat.S_IMODE(kept.stat().st_mode) & 0o077 == 0  # the user's only
    cold = (len(measured), len(parsed))
    sizes = dict(render_cache._metrics)
    _fresh_process()
    assert _pdf(shared=True) == own  # warm: every size and layout from disk
    assert (len(measured), len(parsed)) == cold
    assert render_cache._metrics == sizes  # the very doubles measured
    assert [p.name for p in folder.iterdir()] == [kept.name]  # no temporary left


def _where():
    return store.context(render_cache._rc_names, render_cache._rc_key())


def test_an_entry_is_used_only_under_its_whole_context(folder, tmp_path, monkeypatch):
    key = ["size", "x", [], False, 72.0]
    render_cache._rc_key()
    store.put(_where(), key, [1.0, 2.0, 0.5])
    store.flush()
    store.forget()
    assert store.get(_where(), key) == [1.0, 2.0, 0.5]
    with monkeypatch.context() as patch:
        patch.setattr(matplotlib, "__version__", "0.0.1")
        store.forget()
        assert store.get(_where(), key) is None
    with matplotlib.rc_context({"mathtext.fontset": "stix"}):
        store.forget()
        assert store.get(_where(), key) is None
    fonts = matplotlib.font_manager.fontManager
    copy = tmp_path / "Copy.ttf"
    shutil.copyfile(Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf", copy)
    fonts.addfont(str(copy))
    try:
        store.forget()
        assert store.get(_where(), key) is None  # a font added
        store.put(_where(), key, [1.0, 2.0, 0.5])
        store.flush()
        store.forget()
        assert store.get(_where(), key) == [1.0, 2.0, 0.5]
        os.utime(copy, ns=(10**18, 10**18))  # the font rewritten: another modification time
        store._fonts_digest.cache_clear()  # (as in a fresh process)
        store.forget()
        assert store.get(_where(), key) is None
    finally:
        fonts.ttflist.pop()
        fonts._findfont_cached.cache_clear()
        store._fonts_digest.cache_clear()
    store.forget()
    assert store.get(_where(), key) == [1.0, 2.0, 0.5]


def test_a_damaged_file_is_read_as_none_and_written_again(folder):
    key = ["size", "x", [], False, 72.0]
    render_cache._rc_key()
    store.put(_where(), key, [1.0, 2.0, 0.5])
    store.flush()
    (kept,) = folder.glob("*.layouts")
    whole = kept.read_bytes()
    head, _, data = whole.partition(b"\n")
    foreign = head.replace(b'"format": 1', b'"format": 0')
    other = head + b"\n" + data.replace(b"0.5]", b"0.25]")  # whole JSON, not the bytes written
    for damaged in (whole[:-1], whole[: len(whole) // 2], whole[:-2] + b"X}", b"", foreign + b"\n" + data, other):
        kept.write_bytes(damaged)
        store.forget()
        assert store.get(_where(), key) is None, damaged
    store.put(_where(), key, [1.0, 2.0, 0.5])
    store.flush()
    store.forget()
    assert store.get(_where(), key) == [1.0, 2.0, 0.5]


def test_writers_at_once_leave_one_whole_file(folder):
    render_cache._rc_key()
    where = _where()
    start = threading.Barrier(4)

    def write(k):
        start.wait()
        for j in range(20):
            store._write(where[0], where[1], {f'["size", "{k}-{j}"]': [float(k), float(j), 0.0]})

    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = store._load(*where)
    assert entries and all(value[1] <= 19 for value in entries.values())  # whole, and each writer's own
    assert [p.suffix for p in folder.iterdir()] == [".layouts"]


def test_the_store_keeps_the_files_last_used_and_its_entries_bounded(folder, monkeypatch):
    monkeypatch.setattr(store, "FILES_KEPT", 2)
    monkeypatch.setattr(store, "ENTRIES_KEPT", 3)
    for k in range(3):
        store._write(f"{k}.layouts", {"k": k}, {f"e{j}": j for j in range(5)})
        os.utime(folder / f"{k}.layouts", (1000 + k, 1000 + k))
    old = folder / ".killed.tmp"
    old.write_bytes(b"{")
    os.utime(old, (1000, 1000))
    store._write("3.layouts", {"k": 3}, {"e0": 0})
    assert sorted(p.name for p in folder.iterdir()) == ["2.layouts", "3.layouts"]
    assert store._load("2.layouts", {"k": 2}) == {"e2": 2, "e3": 3, "e4": 4}  # the last written


def test_the_folder_is_matplotlibs_cache_and_an_unwritable_one_is_harmless(tmp_path, monkeypatch):
    assert store.folder().parent == Path(matplotlib.get_cachedir())
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setattr(store, "folder", lambda: blocked / "store")
    store.forget()
    key = ["size", "x", [], False, 72.0]
    render_cache._rc_key()
    store.put(_where(), key, [1.0, 2.0, 0.5])
    store.flush()  # nothing written, nothing raised
    store.forget()
    assert store.get(_where(), key) is None and not (blocked / "store").exists()


def test_a_process_writes_at_its_first_report_then_in_batches_and_at_its_exit(folder, monkeypatch):
    monkeypatch.setattr(store, "FLUSH_FROM", 3)
    render_cache._rc_key()
    where = _where()
    store.put(where, ["size", "first"], [1.0, 1.0, 1.0])
    store.flush()  # the first report's: written
    for k in range(2):
        store.put(where, ["size", k], [1.0, 1.0, 1.0])
        store.flush()  # fewer than FLUSH_FROM waiting: kept for later
    assert len(store._load(*where)) == 1
    store.put(where, ["size", 2], [1.0, 1.0, 1.0])
    store.flush()
    assert len(store._load(*where)) == 4
    store.put(where, ["size", 3], [1.0, 1.0, 1.0])
    store.flush(force=True)  # (what the process's exit runs)
    assert len(store._load(*where)) == 5


def test_a_key_json_cannot_state_is_not_kept(folder):
    render_cache._rc_key()
    for key in (["size", object()], ["size", float("nan")]):
        store.put(_where(), key, [1.0, 1.0, 1.0])
        assert store.get(_where(), key) is None
    assert not store._added
