"""The report's figures are made smaller without drawing anything differently."""

import re

import numpy as np
import pytest
from matplotlib.figure import Figure

from metaeval.report._encode import SVG_FONTS, figure_to_png_uri, figure_to_svg


def _figure():
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    x = np.linspace(0, 1, 37)
    ax.plot(x, np.sin(7 * x) / 3, marker="o", markevery=5)
    ax.set_ylabel("loss")  # rotated by 90 degrees: that rotation stays
    ax.set_title("title")
    return fig


def _numbers(d: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]


def test_compact_svg_moves_nothing_by_more_than_a_hundredth_of_a_point():
    import io

    import matplotlib

    fig = _figure()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "metaeval"}):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    raw = buf.getvalue()
    small = figure_to_svg(fig, page_font=True)
    assert len(small) < 0.8 * len(raw[raw.index("<svg"):])
    before = re.findall(r' d="([^"]*)"', raw)
    after = re.findall(r' d="([^"]*)"', small)
    assert len(before) == len(after) > 0
    for b, a in zip(before, after, strict=True):
        nb, na = _numbers(b), _numbers(a)
        assert len(nb) == len(na)
        assert np.abs(np.subtract(nb, na)).max() <= 0.01
        assert "\n" not in a
    assert "<metadata>" not in small and "<metadata>" in raw
    assert "rotate(-0 " not in small and "rotate(-90 " in small  # the y label still turns
    assert SVG_FONTS not in small and SVG_FONTS in raw
    assert small.count("<text") == raw.count("<text")


def test_without_page_font_each_text_names_its_font():
    # a figure used outside the report keeps matplotlib's font list
    svg = figure_to_svg(_figure())
    assert svg.count(f"font-family: {SVG_FONTS}") == svg.count("<text")


def test_a_smaller_palette_gives_a_smaller_png():
    import base64
    import io

    from PIL import Image

    fig = _figure()
    sizes = {}
    for colors in (128, 32):
        uri = figure_to_png_uri(fig, dpi=96, colors=colors)
        raw = base64.b64decode(uri.split(",", 1)[1])
        img = Image.open(io.BytesIO(raw))
        assert img.mode == "P" and len(img.getcolors(256)) <= colors
        sizes[colors] = len(raw)
    assert sizes[32] < sizes[128]


@pytest.mark.parametrize("colors", [0, 1, 257, 2.5, True, "32"])
def test_bad_palette_size_is_a_clear_error(colors):
    with pytest.raises(ValueError, match="colors must be an integer from 2 to 256"):
        figure_to_png_uri(_figure(), colors=colors)


@pytest.mark.parametrize("layout", [None, "constrained"])
def test_svg_is_drawn_as_savefig_draws_it_and_the_figure_is_given_back(layout):
    # printed by the SVG canvas directly (one walk over the artists instead of two for a
    # laid-out figure): the same markup as savefig's, the figure's canvas and dpi kept
    import io

    import matplotlib
    from matplotlib.backend_bases import FigureCanvasBase

    from metaeval.report._encode import _compact_svg

    def make():
        fig = _figure()
        fig.set_layout_engine(layout)
        fig.set_dpi(123)
        fig.colorbar(fig.axes[0].imshow(np.arange(6.0).reshape(2, 3)), ax=fig.axes[0])
        return fig

    fig = make()
    canvas = fig.canvas
    ours = figure_to_svg(fig)
    assert fig.canvas is canvas and isinstance(canvas, FigureCanvasBase)
    assert fig.get_dpi() == 123 and fig.get_layout_engine() is not None or layout is None
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "metaeval"}):
        buf = io.StringIO()
        # images at the figure's dpi now (matplotlib's savefig takes the dpi it was made
        # with, which only its private state keeps)
        make().savefig(buf, format="svg", metadata={"Date": None}, dpi=123)
    theirs = _compact_svg(buf.getvalue()[buf.getvalue().index("<svg"):].strip(), False)
    strip = lambda s: re.sub(r'(id="|url\(#|href="#)f[0-9a-f]{12}-', r"\1", s)  # noqa: E731
    assert strip(ours) == strip(theirs)


def test_a_png_quantised_from_the_canvas_buffer_is_opaque_and_as_faithful():
    # the report quantises the canvas's own RGBA buffer (no RGB copy first): the PNG has
    # an RGB palette and no transparency, and differs from the drawn pixels no more than
    # the PNG of the RGB copy does
    import base64
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    from metaeval.report._encode import _png_uri

    fig = _figure()
    fig.set_facecolor("white")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw",
                            "RGBA", 0, 1)
    drawn = np.asarray(rgba)[..., :3].astype(int)
    error = {}
    for mode, img in (("RGBA", rgba), ("RGB", rgba.convert("RGB"))):
        png = Image.open(io.BytesIO(base64.b64decode(_png_uri(img, 32).split(",", 1)[1])))
        assert png.mode == "P" and png.palette.mode == "RGB"
        assert "transparency" not in png.info
        error[mode] = np.abs(np.asarray(png.convert("RGB")).astype(int) - drawn).mean()
    assert error["RGBA"] < 1.1 * error["RGB"] + 0.05
    assert error["RGBA"] < 2.0  # of 255, per channel


def test_texts_measured_once_per_process_give_the_markup_of_savefig():
    # the SVG renderer keeps the extents of the texts it measured for the next figure,
    # mathtext ones too: the markup is still savefig's, figure after figure, for other
    # fonts and settings too (a font or mathtext setting that changes the font measures
    # anew: the alpha of the stix fonts is not DejaVu's)
    import io

    import matplotlib

    from metaeval.report import _encode

    def make(size, weight):
        fig = Figure(figsize=(3.2, 2.4), layout="constrained")
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 2], label="alg 1")
        ax.plot([0, 1], [1, 0], label=r"$\alpha$ = 0.5")
        ax.legend(fontsize=size, title="CH = class hardness")
        ax.set_title("score-driven (SD)", fontsize=size, fontweight=weight)
        ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
        return fig

    def savefig(fig):
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "metaeval"}):
            buf = io.StringIO()
            fig.savefig(buf, format="svg", metadata={"Date": None})
        text = buf.getvalue()
        return _encode._compact_svg(text[text.index("<svg"):].strip(), False)

    strip = lambda s: re.sub(r'(id="|url\(#|href="#)f[0-9a-f]{12}-', r"\1", s)  # noqa: E731
    _encode._EXTENTS.clear()
    for setting in ({"font.family": "sans-serif"}, {"font.family": "serif"},
                    {"mathtext.fontset": "stix"}):
        with matplotlib.rc_context(setting):
            for again, (size, weight) in enumerate(((8, "normal"), (10, "bold"),
                                                    (8, "normal"))):
                before = sum(map(len, _encode._EXTENTS.values()))
                assert strip(figure_to_svg(make(size, weight))) == strip(
                    savefig(make(size, weight)))
                grown = sum(map(len, _encode._EXTENTS.values())) - before
                assert grown == 0 if again == 2 else grown > 0  # the third: all known
    assert len(_encode._EXTENTS) == 3  # one set of extents per font or mathtext setting


def test_recommendation_figures_in_the_drawing_style_have_the_same_markup():
    # the recommendation section is made in the report's drawing style (titles at the
    # top of their axes, not measured over the tick labels): its figures, a log time
    # axis, a step axis and a critical-difference diagram, with and without titles,
    # are drawn as they were without it
    import pandas as pd

    from metaeval.report._recommend import loss_curves_figure
    from metaeval.report.figures import critical_difference_diagram, drawing_style

    x = np.geomspace(0.01, 1, 12)
    data = pd.DataFrame({"strategy": np.repeat(["A3R", "average-ranking"], 12),
                         "x": np.tile(x, 2), "loss": np.r_[0.3 * (1 - x), 0.2 * (1 - x)]})
    data.attrs["time_axis"] = "relative"
    makers = [lambda title=title, axis=axis: loss_curves_figure(data, axis=axis, title=title)
              for title in (None, "Loss against time") for axis in ("time", "tests")]
    makers.append(lambda: critical_difference_diagram(
        pd.Series({"NB": 1.4, "DT": 2.1, "3NN": 2.5}), 0.9, groups=[("NB", "DT")]))
    strip = lambda s: re.sub(r'(id="|url\(#|href="#)f[0-9a-f]{12}-', r"\1", s)  # noqa: E731
    for make in makers:
        plain = figure_to_svg(make(), page_font=True)
        with drawing_style():
            styled = figure_to_svg(make(), page_font=True)
        assert "<text" in plain and strip(styled) == strip(plain)


@pytest.mark.parametrize("n", [4, 70])  # leaves labelled, and a strip of colours instead
def test_family_dendrograms_in_the_drawing_style_have_the_same_markup(n):
    # the family section's dendrograms (titled, leaves below the axes) are made in the
    # report's drawing style too: drawn as they were without it
    from metaeval.report._families import family_dendrogram
    from metaeval.report.figures import drawing_style

    rng = np.random.default_rng(3)
    points = rng.random((n, 2))
    D = np.abs(points[:, None, 0] - points[None, :, 0]) + 0.1 * (1 - np.eye(n))
    np.fill_diagonal(D, 0.0)
    algs = [f"{'NB' if i % 3 else 'DT'}:{i}" for i in range(n)]
    fams = {a: a.split(":")[0] for a in algs}

    def make():
        return family_dendrogram(D, algs, fams, title="SD · mean over 3 datasets")

    strip = lambda s: re.sub(r'(id="|url\(#|href="#)f[0-9a-f]{12}-', r"\1", s)  # noqa: E731
    plain = figure_to_svg(make(), page_font=True)
    with drawing_style():
        styled = figure_to_svg(make(), page_font=True)
    assert "mean over 3 datasets" in plain and strip(styled) == strip(plain)
