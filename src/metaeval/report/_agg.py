"""The report's pixel canvas: matplotlib's Agg canvas, with plain text laid out once.

matplotlib 3.11's Agg renderer lays out a line of text (FreeType, with HarfBuzz shaping:
some 0.3 ms a label) when the text is measured and again when it is drawn, then renders
and blends its glyphs one at a time in Python: about 1.9 ms a new label at the report's
192 dpi, against 1.0 ms here (measured on 600 labels, each drawn once). A
:class:`TextOnceRenderer` measures a plain line with its own copy of the font and draws
it from that same layout, the whole line in one call (``FT2Font.draw_glyphs_to_bitmap``,
as matplotlib's Agg renderer did up to 3.10), blended with the renderer's public
``draw_image``; the measures and bitmap of the last :data:`MAX_LINES` lines are kept (per
thread) for the next figure, whose axis labels, legends and ticks are often the same.

The measures are matplotlib's to the last bit (tested), so every text is placed where
matplotlib places it; the line is drawn at a whole pixel, as before 3.11 (3.11 keeps a
fraction of a pixel: glyph edges move by up to half a pixel, tested). Anything else --
mathtext, TeX, a line at an angle other than 0 or 90 degrees, a character the font lacks
(matplotlib's fallback fonts draw it), font features or a language, a kerning factor --
is matplotlib's own drawing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from matplotlib import rcParams
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
from matplotlib.font_manager import findfont
from matplotlib.ft2font import FT2Font

__all__ = ["TextOnceCanvas", "TextOnceRenderer"]


#: most lines whose measures and bitmaps are kept per thread (a line's bitmap: some 8 kB)
MAX_LINES = 2048


class _Fonts(threading.local):
    """This thread's own copies of the fonts (no other code lays text out in them), and
    the lines it measured and drew."""

    def __init__(self):
        # (font file, hinting factor) -> (FT2Font, {character: missing from it})
        self.fonts: dict = {}
        self.laid_out = None  # the key of the line a font holds the layout of, if any
        # line key -> {"measures": (w, h, d), "ascent", "x_min" (pixels), and per
        # antialiasing (True, False) the line's bitmap once drawn}
        self.lines: OrderedDict = OrderedDict()


_FONTS = _Fonts()


class TextOnceRenderer(RendererAgg):
    """Matplotlib's Agg renderer, drawing a plain line of text from the layout that
    measured it (see the module's description)."""

    def plain_font(self, s, prop, ismath, mtext=None):
        """This renderer's own font for a plain line ``s`` and its file, or None where
        matplotlib's drawing is needed (see the module's description)."""
        if ismath or rcParams["text.kerning_factor"] or not s:
            return None
        if mtext is not None and (_call(mtext, "get_fontfeatures")
                                  or _call(mtext, "get_language")):
            return None
        path = findfont(prop)
        factor = rcParams["text.hinting_factor"]
        own = _FONTS.fonts.get((path, factor))
        if own is None:
            own = _FONTS.fonts[(path, factor)] = (FT2Font(path, hinting_factor=factor), {})
        font, lacks = own
        for ch in s:  # what the font has, asked once per character
            missing = lacks.get(ch)
            if missing is None:
                missing = lacks[ch] = font.get_char_index(ord(ch)) == 0
            if missing:
                return None
        return font, path

    def line(self, font, path, s, prop) -> tuple[tuple, dict]:
        """``(key, kept)``: what decides the line's layout, and what is kept of it (its
        measures at least; made with the font's layout if new)."""
        key = (path, rcParams["text.hinting_factor"], s, prop.get_size_in_points(),
               self.dpi, get_hinting_flag())
        kept = _FONTS.lines.get(key)
        if kept is None:
            self.lay_out(font, key)
            w, h = font.get_width_height()  # as RendererAgg measures: 1/64 pixel
            kept = {"measures": (w / 64.0, h / 64.0, font.get_descent() / 64.0),
                    "ascent": (h - font.get_descent()) / 64.0,
                    "x_min": font.get_bitmap_offset()[0] / 64.0}
            _FONTS.lines[key] = kept
            while len(_FONTS.lines) > MAX_LINES:
                _FONTS.lines.popitem(last=False)
        else:
            _FONTS.lines.move_to_end(key)
        return key, kept

    @staticmethod
    def lay_out(font, key) -> None:
        """Have ``font`` hold the layout of the line ``key`` (made once for a measure and
        the drawing that follows it)."""
        if _FONTS.laid_out != key:
            font.clear()
            font.set_size(key[3], key[4])
            font.set_text(key[2], 0.0, flags=key[5])
            _FONTS.laid_out = key

    def get_text_width_height_descent(self, s, prop, ismath):
        # docstring inherited
        got = self.plain_font(s, prop, ismath)
        if got is None:
            return super().get_text_width_height_descent(s, prop, ismath)
        return self.line(*got, s, prop)[1]["measures"]

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        # docstring inherited
        got = self.plain_font(s, prop, ismath, mtext) if angle in (0, 90) else None
        if got is None:
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        key, kept = self.line(*got, s, prop)
        antialiased = bool(gc.get_antialiased())
        cover = kept.get(antialiased)
        if cover is None:
            font = got[0]
            self.lay_out(font, key)
            font.draw_glyphs_to_bitmap(antialiased=antialiased)
            _FONTS.laid_out = None  # the glyphs are bitmaps now: a new layout next time
            cover = kept[antialiased] = np.array(font.get_image())
        if not cover.any():
            return None
        # where the bitmap puts the line's start: the baseline lies above its row
        # floor(ascent) + 1 (the glyph rows ``FT2Font.draw_glyphs_to_bitmap`` fills, in
        # whole pixels), the pen ceil(x_min) columns right of its first column
        below = int(np.floor(kept["ascent"])) + 1
        pen = int(np.ceil(kept["x_min"]))
        # (x, y): the start of the baseline, y downwards
        if angle == 0:
            left, top = round(x) + pen, round(y) - below
        else:  # turned a quarter anticlockwise: the baseline runs up, the ascent left
            cover = np.rot90(cover)
            left, top = round(x) - below, round(y) - cover.shape[0] - pen
        rgba = gc.get_rgb()
        image = np.empty(cover.shape + (4,), dtype=np.uint8)
        image[..., :3] = np.round(np.multiply(rgba[:3], 255.0)).astype(np.uint8)
        # the colour's alpha (a text's own alpha, where it has one, is there: tested)
        weight = rgba[3] if len(rgba) > 3 else 1.0
        image[..., 3] = cover if weight == 1.0 else np.round(cover * weight)
        # draw_image takes the bottom row first, at (left, distance from the bottom)
        self.draw_image(gc, left, self.height - top - cover.shape[0],
                        np.ascontiguousarray(image[::-1]))
        return None


def _call(obj, name):
    method = getattr(obj, name, None)  # font features and languages: matplotlib >= 3.10
    return method() if method is not None else None


class TextOnceCanvas(FigureCanvasAgg):
    """Matplotlib's Agg canvas, drawing with a :class:`TextOnceRenderer`."""

    def get_renderer(self):
        # docstring inherited; a renderer per size and dpi, kept as FigureCanvasAgg does
        w, h = self.get_width_height(physical=True)
        key = (w, h, self.figure.dpi)
        if getattr(self, "renderer_key", None) != key:
            self.renderer = TextOnceRenderer(w, h, self.figure.dpi)
            self.renderer_key = key
        return self.renderer
