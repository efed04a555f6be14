"""The report's pixel canvas draws text where matplotlib draws it, and as it draws it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from metaeval.report import _agg
from metaeval.report._agg import TextOnceCanvas, TextOnceRenderer
from metaeval.report.figures import drawing_style

# what the report writes: names, numbers, the middle dot, dashes, Greek, superscripts
ALPHABET = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            " .,:;()[]%=+-_/·–—βσ³×≤≥'")


def _pixels(canvas_class, texts, *, dpi=192, size=(4.0, 3.0), axes=False):
    """RGB pixels of a white figure with ``texts`` (``(x, y, s, kwargs)``, figure
    coordinates) drawn on ``canvas_class``, in the report's style."""
    with drawing_style():
        fig = Figure(figsize=size, dpi=dpi, facecolor="white")
        if axes:
            ax = fig.add_axes((0.2, 0.2, 0.6, 0.6), xlim=(0, 1), ylim=(0, 1))
            for x, y, s, kw in texts:
                ax.text(x, y, s, **kw)
        else:
            for x, y, s, kw in texts:
                fig.text(x, y, s, **kw)
        canvas = canvas_class(fig)
        canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].astype(float)


def _ink(rgb):
    """Per pixel, how much darker than white (0 to 1)."""
    return 1.0 - rgb.mean(axis=2) / 255.0


def _assert_same_text(theirs, ours, *, centre_px=0.75, mass=0.03):
    """The same ink: its amount within ``mass``, its centre and extent within a pixel."""
    a, b = _ink(theirs), _ink(ours)
    assert a.sum() > 0
    assert abs(b.sum() - a.sum()) <= mass * a.sum()
    for axis in (0, 1):
        pa, pb = a.sum(axis=1 - axis), b.sum(axis=1 - axis)
        at = np.arange(pa.size)
        assert abs((pa * at).sum() / pa.sum() - (pb * at).sum() / pb.sum()) <= centre_px
        ia, ib = np.flatnonzero(pa > 0.05), np.flatnonzero(pb > 0.05)
        assert abs(ia[0] - ib[0]) <= 1 and abs(ia[-1] - ib[-1]) <= 1


@pytest.mark.parametrize("angle", [0, 90])
@pytest.mark.parametrize("dpi", [72, 192])
def test_each_line_is_drawn_where_and_as_matplotlib_draws_it(angle, dpi):
    lines = ["class 0 · SF · CH = 0.07", "PC2 (13 % of variance)", "IH = 0.875",
             "Mean loss — β³ × σ", "A3R ≤ 1.05, 'fit' [s]", "Wolf AVA fi"]
    # the lines in bands of their own (rows, or columns when turned), compared band by band
    spots = [(0.1 + 0.13 * i if angle else 0.5, 0.5 if angle else 0.1 + 0.14 * i, s)
             for i, s in enumerate(lines)]
    for ha in ("left", "center", "right"):
        for va in ("baseline", "center", "top"):
            kw = {"rotation": angle, "ha": ha, "va": va, "fontsize": 9}
            theirs = _pixels(FigureCanvasAgg, [(x, y, s, kw) for x, y, s in spots], dpi=dpi)
            ours = _pixels(TextOnceCanvas, [(x, y, s, kw) for x, y, s in spots], dpi=dpi)
            height, width = theirs.shape[:2]
            for x, y, _ in spots:  # half the distance to the next line either side
                if angle:
                    at, half = round(x * width), int(0.065 * width)
                    band = np.s_[:, max(0, at - half):at + half]
                else:
                    at, half = round((1 - y) * height), int(0.07 * height)
                    band = np.s_[max(0, at - half):at + half, :]
                _assert_same_text(theirs[band], ours[band])


def test_a_worked_line_lands_on_the_same_pixels_within_one():
    # "IH = 0.875" at 100 dpi: the ink of the two drawings starts and ends on the same
    # columns and rows, give or take the fraction of a pixel that 3.11 keeps
    spot = [(0.3, 0.4, "IH = 0.875", {"fontsize": 10})]
    theirs, ours = (_pixels(c, spot, dpi=100) for c in (FigureCanvasAgg, TextOnceCanvas))
    a, b = _ink(theirs) > 0.5, _ink(ours) > 0.5
    rows_a, cols_a = np.nonzero(a)
    rows_b, cols_b = np.nonzero(b)
    assert abs(rows_a.min() - rows_b.min()) <= 1 and abs(rows_a.max() - rows_b.max()) <= 1
    assert abs(cols_a.min() - cols_b.min()) <= 1 and abs(cols_a.max() - cols_b.max()) <= 1
    # 120 / 400 of the figure's width and 160 of its 300 rows up: where the text starts
    assert abs(cols_a.min() - 120) <= 2 and abs(cols_b.min() - 120) <= 2


@settings(max_examples=40, deadline=None)
@given(s=st.text(alphabet=ALPHABET, min_size=1, max_size=30),
       size=st.sampled_from([6.0, 7.5, 9.0, 12.0]),
       weight=st.sampled_from(["normal", "bold"]), dpi=st.sampled_from([72.0, 160.0, 192.0]))
def test_a_line_measures_as_matplotlib_measures_it_to_the_last_bit(s, size, weight, dpi):
    prop = FontProperties(size=size, weight=weight)
    with drawing_style():
        theirs = RendererAgg(100, 100, dpi).get_text_width_height_descent(s, prop, False)
        ours = TextOnceRenderer(100, 100, dpi).get_text_width_height_descent(s, prop, False)
    assert ours == theirs


@pytest.mark.filterwarnings("ignore:Glyph")  # the CJK character: in no font here
def test_texts_matplotlib_draws_itself_are_its_own_pixels():
    # mathtext, a slanted line, a character the font lacks (a fallback font draws it)
    for s, kw in [("$x^2_i$", {}), ("tilted", {"rotation": 30}), ("漢 x", {}),
                  ("upside", {"rotation": 270})]:
        spot = [(0.2, 0.4, s, {"fontsize": 11, **kw})]
        assert np.array_equal(_pixels(FigureCanvasAgg, spot), _pixels(TextOnceCanvas, spot))


def test_colour_alpha_and_clipping_are_matplotlib_s():
    spots = [(0.1, 0.2, "red, half", {"color": (1, 0, 0, 0.5), "fontsize": 12}),
             (0.1, 0.5, "blue alpha", {"color": "tab:blue", "alpha": 0.4, "fontsize": 12}),
             # running out of its axes, clipped to them
             (0.8, 0.8, "clipped at the edge", {"clip_on": True, "fontsize": 12})]
    for spot in spots:
        theirs = _pixels(FigureCanvasAgg, [spot], axes=True)
        ours = _pixels(TextOnceCanvas, [spot], axes=True)
        _assert_same_text(theirs, ours)
        # the colour of the ink, each pixel weighed by how much ink it has
        a, b = _ink(theirs)[..., None], _ink(ours)[..., None]
        assert np.abs((theirs * a).sum((0, 1)) / a.sum()
                      - (ours * b).sum((0, 1)) / b.sum()).max() < 4
    clipped = _pixels(TextOnceCanvas, [spots[2]], axes=True)
    unclipped = _pixels(TextOnceCanvas, [spots[2][:3] + ({"fontsize": 12},)], axes=True)
    # right of the axes (they end at 0.8 of the width), in the rows of the text (0.68 of
    # the height up; the tick labels are lower down)
    right, rows = int(0.8 * clipped.shape[1]) + 3, slice(130, 300)
    assert _ink(clipped)[rows, right:].max() == 0
    assert _ink(unclipped)[rows, right:].max() > 0.5


def test_a_layout_is_reused_only_for_the_line_it_holds():
    # measured A, then B, then A drawn: A's glyphs, not B's (the font holds B's layout)
    prop = FontProperties(size=10)
    with drawing_style():
        r = TextOnceRenderer(400, 100, 100)
        r.get_text_width_height_descent("AAAA", prop, False)
        r.get_text_width_height_descent("wwwwwwww", prop, False)
        gc = r.new_gc()
        gc.set_foreground("black")
        r.draw_text(gc, 10, 50, "AAAA", prop, 0)
        fresh = TextOnceRenderer(400, 100, 100)
        fresh.draw_text(gc, 10, 50, "AAAA", prop, 0)
        gc.restore()
    assert np.array_equal(np.asarray(r.buffer_rgba()), np.asarray(fresh.buffer_rgba()))
    assert np.asarray(r.buffer_rgba())[..., 3].any()


def test_the_layout_a_drawing_leaves_is_not_reused():
    # a drawing turns the font's glyphs into bitmaps: the next drawing of the same line
    # (no measure between) lays it out again, and gives the pixels of a first drawing
    prop = FontProperties(size=10)
    images = []
    with drawing_style():
        for _ in range(2):
            _agg._FONTS.lines.clear()  # nothing kept of the line: laid out and drawn
            r = TextOnceRenderer(300, 80, 100)
            gc = r.new_gc()
            gc.set_foreground("black")
            if not images:
                r.get_text_width_height_descent("A3R", prop, False)
            r.draw_text(gc, 10, 40, "A3R", prop, 0)
            assert _agg._FONTS.laid_out is None
            gc.restore()
            images.append(np.asarray(r.buffer_rgba()).copy())
    assert images[0][..., 3].any() and np.array_equal(*images)


def test_a_kept_line_draws_the_pixels_of_a_new_one_and_few_are_kept(monkeypatch):
    # the same line on new canvases, at other places (whole pixels): its bitmap kept, the
    # same pixels as when nothing is kept; other sizes, resolutions and antialiasing are
    # other lines
    spots = [(0.1, 0.2, "IH = 0.875", {"fontsize": 10}),
             (0.33, 0.6, "IH = 0.875", {"fontsize": 10}),
             (0.5, 0.4, "IH = 0.875", {"fontsize": 12}),
             (0.2, 0.8, "IH = 0.875", {"fontsize": 10, "antialiased": False})]
    _agg._FONTS.lines.clear()
    first = _pixels(TextOnceCanvas, spots, dpi=100)
    kept = len(_agg._FONTS.lines)
    assert kept == 2  # the line at 10 and at 12 points (one with both bitmaps)
    again = _pixels(TextOnceCanvas, spots, dpi=100)
    assert len(_agg._FONTS.lines) == kept and np.array_equal(first, again)
    _pixels(TextOnceCanvas, spots, dpi=120)
    assert len(_agg._FONTS.lines) == 2 * kept
    monkeypatch.setattr(_agg, "MAX_LINES", 3)
    _pixels(TextOnceCanvas, [(0.1, 0.1 * i, f"line {i}", {}) for i in range(1, 9)])
    assert len(_agg._FONTS.lines) == 3  # the latest three
    assert np.array_equal(_pixels(TextOnceCanvas, spots, dpi=100), first)


def test_the_canvas_keeps_one_renderer_per_size_and_dpi():
    fig = Figure(figsize=(2, 1), dpi=50)
    canvas = TextOnceCanvas(fig)
    first = canvas.get_renderer()
    assert isinstance(first, TextOnceRenderer) and canvas.get_renderer() is first
    fig.set_dpi(100)
    assert canvas.get_renderer() is not first


def test_text_without_antialiasing_is_drawn_in_two_levels_as_matplotlib_s():
    spot = [(0.2, 0.5, "mono 0.875", {"fontsize": 12, "antialiased": False})]
    theirs, ours = (_pixels(c, spot, dpi=100) for c in (FigureCanvasAgg, TextOnceCanvas))
    assert set(np.unique(theirs)) == {0.0, 255.0}  # black on white, nothing between
    assert set(np.unique(ours)) == {0.0, 255.0}
    _assert_same_text(theirs, ours, mass=0.05)

