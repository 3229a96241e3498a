"""The mathtext layouts and font subsets every report of a process shares (pdp_audit.reports.render_cache): the same
PDF bytes, each distinct string parsed and each font subset once, a layout never reused under other rc settings nor a
subset for other glyphs, matplotlib's own functions given back."""

import functools
import io
import threading
from pathlib import Path

import matplotlib
import matplotlib.text

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.mathtext import MathTextParser  # noqa: E402

from pdp_audit.reports import render_cache  # noqa: E402
from pdp_audit.reports.page_text import RC, pdf_document, save_pages, text_block  # noqa: E402

LINES = [
    ("A page of mathematics", {"size": 15, "weight": "bold"}),
    ("Claim: δ_{D‖D'}(ε) ≤ δ for every ε ≥ e^ε − 1 and n^(−1/4)", {"size": 9.5}),
    ("Formula: P_D[L > ε] − e^ε P_D'[L > ε], λ_n^(−1/2), ‖θ‖²_K", {"size": 9.5}),
    ("Claim: δ_{D‖D'}(ε) ≤ δ for every ε ≥ e^ε − 1 and n^(−1/4)", {"size": 9}),
]


def _pages(lines=LINES):
    for _ in range(3):  # three pages with the same lines: a renderer (and a parser) each
        fig = plt.figure(figsize=(8.27, 11.69))
        text_block(fig, lines)
        yield fig


def _pdf(shared: bool, lines=LINES) -> bytes:
    out = io.BytesIO()
    metadata = {"Creator": "pdp-audit", "Producer": "pdp-audit", "CreationDate": None}
    if shared:
        with pdf_document(out, metadata) as pdf:
            save_pages(pdf, _pages(lines))
    else:
        with plt.rc_context(RC), PdfPages(out, metadata=metadata) as pdf:
            save_pages(pdf, _pages(lines))
    return out.getvalue()


@functools.cache
def _own() -> bytes:
    """The PDF of :data:`LINES` as matplotlib writes it without the shared caches (the same bytes at every call:
    written once a process, 0.6 CPU seconds each time)."""
    return _pdf(shared=False)


def test_a_shared_layout_writes_the_same_bytes_and_parses_each_string_once():
    render_cache._layout.cache_clear()
    own = _own()
    assert _pdf(shared=True) == own
    info = render_cache._layout.cache_info()
    assert info.misses > 0 and info.hits >= 2 * info.misses  # three pages: each string parsed on the first only
    assert _pdf(shared=True) == own  # every layout from the cache now
    assert render_cache._layout.cache_info().misses == info.misses


def test_a_font_subset_is_embedded_again_only_for_the_same_glyphs():
    render_cache._subsets.clear()
    own = _own()
    assert _pdf(shared=True) == own
    kept = len(render_cache._subsets)
    assert kept > 0
    assert _pdf(shared=True) == own
    assert len(render_cache._subsets) == kept  # every subset from the cache
    other = [("Other words: ZQJ xkcd 0987 θ_{ij}", {"size": 9.5, "weight": "bold"}), *LINES[1:]]
    assert _pdf(shared=True, lines=other) == _pdf(shared=False, lines=other)  # new glyphs: subset anew
    assert len(render_cache._subsets) > kept


def test_matplotlibs_own_functions_are_given_back_also_after_an_error():
    from matplotlib.backends import _backend_pdf_ps

    own, own_subset = MathTextParser.__dict__["_parse_cached"], _backend_pdf_ps.get_glyphs_subset
    own_metrics = matplotlib.text._get_text_metrics_with_cache
    try:
        with render_cache.shared(), render_cache.shared():
            assert MathTextParser.__dict__["_parse_cached"] is not own
            assert _backend_pdf_ps.get_glyphs_subset is not own_subset
            assert matplotlib.text._get_text_metrics_with_cache is not own_metrics
            raise KeyError("inside")
    except KeyError:
        pass
    assert MathTextParser.__dict__["_parse_cached"] is own
    assert _backend_pdf_ps.get_glyphs_subset is own_subset
    assert matplotlib.text._get_text_metrics_with_cache is own_metrics


def test_a_text_size_is_shared_by_pdf_renderers_only_and_not_under_other_rc_settings():
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.backends.backend_pdf import PdfFile, RendererPdf

    size = matplotlib.text._get_text_metrics_with_cache  # patched inside the context: looked up there
    words, prop = "Wide words WWW", FontProperties(family="sans-serif", size=10)
    with render_cache.shared_text_metrics():
        render_cache._metrics.clear()
        first = matplotlib.text._get_text_metrics_with_cache(
            RendererPdf(PdfFile(io.BytesIO()), 72, 8, 8), words, prop, False, 72
        )
        second = matplotlib.text._get_text_metrics_with_cache(
            RendererPdf(PdfFile(io.BytesIO()), 72, 8, 8), words, prop, False, 72
        )
        assert second == first and len(render_cache._metrics) == 1  # a second page's renderer: from the cache
        with plt.rc_context({"font.sans-serif": ["DejaVu Sans Mono"]}):
            mono = matplotlib.text._get_text_metrics_with_cache(
                RendererPdf(PdfFile(io.BytesIO()), 72, 8, 8), words, prop, False, 72
            )
        assert mono != first
        raster = matplotlib.text._get_text_metrics_with_cache(RendererAgg(80, 80, 720), words, prop, False, 720)
        assert raster != first and len(render_cache._metrics) == 2  # an Agg renderer's size: not kept here
    assert matplotlib.text._get_text_metrics_with_cache is size


def test_a_pdf_pages_text_sizes_are_shared_by_its_pages():
    """``print_pdf`` draws a page through a mixed-mode renderer around the PDF renderer: its sizes are kept too."""
    render_cache._metrics.clear()
    own = _own()
    assert _pdf(shared=True) == own
    kept = len(render_cache._metrics)
    assert kept > 0
    assert _pdf(shared=True) == own and len(render_cache._metrics) == kept


def test_reports_drawn_in_two_threads_are_the_reports_drawn_alone():
    """The patches are counted under a lock and one report is drawn at a time: a thread closing its report neither
    gives matplotlib's functions back nor its rc settings while the other still draws."""
    from matplotlib.backends import _backend_pdf_ps

    own, own_subset = _own(), _backend_pdf_ps.get_glyphs_subset
    start, out = threading.Barrier(2), {}

    def draw(k):
        start.wait()
        out[k] = _pdf(shared=True)

    threads = [threading.Thread(target=draw, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert out == {0: own, 1: own}
    assert _backend_pdf_ps.get_glyphs_subset is own_subset


def test_a_patch_lives_until_the_last_thread_holding_it_leaves():
    own = MathTextParser.__dict__["_parse_cached"]
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def first():
        with render_cache.shared_mathtext():
            first_in.set()
            second_in.wait()
        first_out.set()

    def second():
        first_in.wait()
        with render_cache.shared_mathtext():
            second_in.set()
            first_out.wait()
            seen.append(MathTextParser.__dict__["_parse_cached"] is not own)  # the first has left: still patched

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [True] and MathTextParser.__dict__["_parse_cached"] is own


def test_a_text_size_is_measured_again_once_a_font_is_added(tmp_path):
    """``fontManager.addfont`` may change the file a family resolves to: the sizes measured before are not reused."""
    import shutil

    from matplotlib import font_manager
    from matplotlib.backends.backend_pdf import PdfFile, RendererPdf

    words, prop = "Wide words WWW", FontProperties(family="sans-serif", size=10)
    fonts = font_manager.fontManager
    copy = tmp_path / "Copy.ttf"
    shutil.copyfile(Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf", copy)
    with render_cache.shared_text_metrics():
        render_cache._metrics.clear()
        measure = matplotlib.text._get_text_metrics_with_cache
        measure(RendererPdf(PdfFile(io.BytesIO()), 72, 8, 8), words, prop, False, 72)
        fonts.addfont(str(copy))
        try:
            measure(RendererPdf(PdfFile(io.BytesIO()), 72, 8, 8), words, prop, False, 72)
        finally:
            fonts.ttflist.pop()
            fonts._findfont_cached.cache_clear()
        assert len(render_cache._metrics) == 2


def test_a_layout_is_not_reused_under_other_rc_settings():
    prop = FontProperties(family="DejaVu Sans", size=10)
    with render_cache.shared_mathtext():
        parser = MathTextParser("path")
        upright = parser.parse("$x_{n}$", 72, prop)
        with plt.rc_context({"mathtext.default": "rm"}):
            roman = parser.parse("$x_{n}$", 72, prop)
        with plt.rc_context({"mathtext.fontset": "stix"}):
            stix = MathTextParser("path").parse("$x_{n}$", 72, FontProperties(family="DejaVu Sans", size=10))
    fonts = {tuple(g[0].fname for g in layout.glyphs) for layout in (upright, roman, stix)}
    assert len(fonts) == 3
