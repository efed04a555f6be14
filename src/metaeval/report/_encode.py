"""A matplotlib figure as markup for the page: inline SVG, or a palette PNG ``data:`` URI.

The lowest room of the report: it knows figures and bytes, not the page, the store or
the drawing of any one figure.
"""

from __future__ import annotations

import base64
import io
import re
import uuid
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

__all__ = ["SVG_FONTS", "figure_to_png_uri", "figure_to_svg", "stack_svg"]


def figure_to_svg(fig: Figure, *, page_font: bool = False) -> str:
    """SVG markup of a figure, ready to inline in HTML (no XML prolog, unique ids).

    Text stays text (``svg.fonttype = "none"``), so the markup is small and the
    browser's own sans-serif font draws it; every element id (and every
    reference to one) is prefixed per figure so several figures share a page.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    page_font : bool, default False
        Leave the font of the text to the page's style sheet (the report's gives it
        once, in a ``figure svg text`` rule), instead of naming it in every text
        element.

    Returns
    -------
    str
        Markup starting with ``<svg``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(1, 1))
    >>> _ = fig.add_subplot().plot([0, 1])
    >>> figure_to_svg(fig).startswith("<svg")
    True
    """
    import matplotlib
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    buf = io.StringIO()
    # unique on any page, whichever process drew it; write_report renumbers them in page
    # order (f0-, f1-, ...) so a page is the same however it was made
    prefix = f"f{uuid.uuid4().hex[:12]}-"
    # printed by the SVG canvas itself: what savefig does, less the extra walk over every
    # artist that savefig makes first to lay out a figure with a layout engine (the one
    # draw lays it out); the figure's canvas and dpi are given back as they were
    canvas, dpi = fig.canvas, fig.dpi
    try:
        # embedded images at savefig's resolution: savefig.dpi, whose "figure" is the
        # figure's dpi now (savefig's is the dpi it was made with, which only matplotlib's
        # private state keeps: they differ only for a figure whose dpi was changed)
        image_dpi = matplotlib.rcParams["savefig.dpi"]
        fig.dpi = dpi if image_dpi == "figure" else image_dpi
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "metaeval"}):
            _measuring_canvas()(fig).print_svg(buf, metadata={"Date": None})
    finally:
        fig.set_canvas(canvas)
        fig.dpi = dpi
    text = buf.getvalue()
    text = text[text.index("<svg"):].strip()
    text = _compact_svg(text, page_font)
    # every id and every reference to one gets the figure's prefix: unique on the page
    text = re.sub(r'( id="|url\(#|href="#)', lambda m: m.group(1) + prefix, text)
    # artists' gids repeat within a figure (e.g. one "cut" line per panel): number them
    seen: dict[str, int] = {}

    def number(m):
        n = seen[m.group(1)] = seen.get(m.group(1), 0) + 1
        return m.group(0) if n == 1 else f' id="{m.group(1)}-{n}"'
    return re.sub(r' id="([^"]+)"', number, text)


def stack_svg(below: str, above: str) -> str:
    """Two :func:`figure_to_svg` markups of one figure as one: ``above``'s elements drawn
    over ``below``'s, in one ``<svg>`` (``below``'s root; ``above``'s style definitions,
    the same as ``below``'s, left out).

    Each keeps its own ids (their prefixes differ). Raises ``ValueError`` for markups of
    figures of different sizes.
    """
    roots = []
    for text in (below, above):
        if not (text.startswith("<svg") and text.endswith("</svg>")):
            raise ValueError("stack_svg takes the markup of figure_to_svg")
        roots.append(text.index(">") + 1)
    if below[:roots[0]] != above[:roots[1]]:
        raise ValueError("stack_svg: the two markups are of figures of different sizes")
    body = above[roots[1]:-len("</svg>")]
    style = _STYLE.match(body)
    if style and style.group(0) in below:
        body = body[style.end():]
    return below[:-len("</svg>")] + body + "</svg>"


_STYLE = re.compile(r"\s*<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>")

#: text extents the SVG renderer measured: ``{font settings: {(text, font): extents}}``
_EXTENTS: dict = {}
#: most extents kept (some 2 MB); beyond, they are measured afresh
MAX_EXTENTS = 20_000
_CLASSES: list = []


def _font_settings() -> tuple:
    """What, besides a text and its font properties, decides the font it is measured in:
    the font and mathtext settings, and the fonts matplotlib knows (a font added later may
    be found)."""
    import matplotlib
    from matplotlib.font_manager import fontManager

    params = matplotlib.rcParams
    return (len(fontManager.ttflist), len(fontManager.afmlist),
            *((k, repr(params[k])) for k in sorted(params)
              if k.startswith(("font.", "mathtext."))))


def _measuring_canvas():
    """matplotlib's SVG canvas, printing with a renderer that measures a text once.

    A figure's texts are laid out from their extents, which matplotlib keeps per renderer;
    ``FigureCanvasSVG.print_svg`` makes a new renderer for every figure (and a layout
    engine one more), so every tick label, legend entry and title of every figure was
    measured again, most of them the same strings (the algorithms, the axes' ticks).
    ``print_svg`` here is matplotlib 3.11's, step for step, with a renderer that keeps the
    extents of the plain texts it measured for the next figure: the markup is the same
    (tested against savefig).
    """
    if _CLASSES:
        return _CLASSES[0]
    import codecs

    from matplotlib import cbook
    from matplotlib.backends.backend_mixed import MixedModeRenderer
    from matplotlib.backends.backend_svg import FigureCanvasSVG, RendererSVG

    class MeasuringOnce(RendererSVG):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if sum(map(len, _EXTENTS.values())) > MAX_EXTENTS:
                _EXTENTS.clear()
            self.known = _EXTENTS.setdefault(_font_settings(), {})

        def get_text_width_height_descent(self, s, prop, ismath):
            if ismath == "TeX":  # TeX: measured each time
                return super().get_text_width_height_descent(s, prop, ismath)
            # FontProperties hash (and compare) by their value; a copy is kept as the
            # key, the one given may change later
            got = self.known.get((s, prop, ismath))
            if got is None:
                got = super().get_text_width_height_descent(s, prop, ismath)
                self.known[(s, prop.copy(), ismath)] = got
            return got

    class MeasuringCanvas(FigureCanvasSVG):
        def print_svg(self, filename, *, bbox_inches_restore=None, metadata=None):
            with cbook.open_file_cm(filename, "w", encoding="utf-8") as fh:
                if not cbook.file_requires_unicode(fh):
                    fh = codecs.getwriter("utf-8")(fh)
                dpi = self.figure.dpi
                self.figure.dpi = 72
                width, height = self.figure.get_size_inches()
                renderer = MixedModeRenderer(
                    self.figure, width, height, dpi,
                    MeasuringOnce(width * 72, height * 72, fh, image_dpi=dpi,
                                  metadata=metadata),
                    bbox_inches_restore=bbox_inches_restore)
                self.figure.draw(renderer)
                renderer.finalize()

    _CLASSES.append(MeasuringCanvas)
    return MeasuringCanvas


_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_PATH_DATA = re.compile(r' d="([^"]*)"')
_LONG_DECIMAL = re.compile(r"(-?\d+\.\d\d)\d+")


_XY = re.compile(r' (x|y)="(-?\d+\.\d\d)\d+"')
_NO_ROTATION = re.compile(r' transform="rotate\(-?0 [^)]*\)"')
#: the font list matplotlib writes into every text element; the page's style sheet
#: gives it once (``figure svg text`` in :mod:`metaeval.report._template`)
SVG_FONTS = ("'DejaVu Sans', 'Bitstream Vera Sans', 'Computer Modern Sans Serif', "
             "'Lucida Grande', 'Verdana', 'Geneva', 'Lucid', 'Arial', 'Helvetica', "
             "'Avant Garde', sans-serif")


def _compact_svg(text: str, page_font: bool) -> str:
    """Matplotlib's SVG, smaller, drawing the same.

    Path and position coordinates to 0.01 pt (a fifth of a pixel at 1,600% zoom), each
    path on one line, no metadata, no rotation by zero degrees; with ``page_font``, the
    default font list left to the page's style sheet rather than repeated in every text
    element.
    """
    text = _METADATA.sub("", text, count=1)

    def path(m):
        d = _LONG_DECIMAL.sub(r"\1", m.group(1))
        return ' d="' + " ".join(d.split()) + '"'
    text = _PATH_DATA.sub(path, text)
    text = _XY.sub(r' \1="\2"', text)
    text = _NO_ROTATION.sub("", text)
    return text.replace(f"; font-family: {SVG_FONTS}", "") if page_font else text


def figure_to_png_uri(fig: Figure, *, dpi=72, colors=128) -> str:
    """A ``data:image/png;base64,...`` URI of a figure, as a palette PNG.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : float, default 72
    colors : int, default 128
        Size of the palette: 32 keep a figure of lines and text as it is (its
        anti-aliased edges a little coarser) at about two thirds of the bytes; maps of a
        continuous colour scale need more.

    Returns
    -------
    str

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> figure_to_png_uri(Figure(figsize=(1, 1))).startswith("data:image/png;base64,")
    True
    """
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    from PIL import Image

    from metaeval.report._agg import TextOnceCanvas

    colors = _check_colors(colors)
    # drawn straight into Agg's buffer and quantised from it: no PNG encoded and decoded
    # on the way; zlib level 6 is about 8x faster than 9 for a few % more bytes
    old_dpi, old_face = fig.get_dpi(), fig.get_facecolor()
    try:
        fig.set_dpi(dpi)
        fig.set_facecolor("white")
        canvas = TextOnceCanvas(fig)
        canvas.draw()
        img = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(),
                               "raw", "RGBA", 0, 1)
    finally:
        fig.set_dpi(old_dpi)
        fig.set_facecolor(old_face)
    return _png_uri(img, colors)


def _check_colors(colors) -> int:
    if isinstance(colors, bool) or not isinstance(colors, (int, np.integer)) \
            or not 2 <= colors <= 256:
        raise ValueError(f"colors must be an integer from 2 to 256, got {colors!r}")
    return int(colors)


def _png_uri(img, colors) -> str:
    """A palette PNG ``data:`` URI of an opaque RGB or RGBA PIL image.

    An RGBA image (a canvas's own buffer) is quantised as it is, a fifth faster than
    converting it to RGB first, and its palette, opaque, then written as RGB (no
    transparency chunk): as faithful (tested), and no larger.
    """
    from PIL import Image

    buf = io.BytesIO()
    quantized = img.quantize(colors=_check_colors(colors), method=Image.Quantize.FASTOCTREE)
    if quantized.palette.mode == "RGBA":
        quantized.putpalette(quantized.getpalette("RGB"), "RGB")
        quantized.info.pop("transparency", None)
    quantized.save(buf, format="PNG", compress_level=6)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
