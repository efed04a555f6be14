"""A page being drawn: its figures, drawn or found in the cache, and its problems.

:class:`_Page` is what the section functions of :mod:`metaeval.report.html` write
with; :mod:`metaeval.report._render` makes one per job. A figure is written on the page
as a token (:func:`token`) that the render replaces by the figure's markup.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from contextlib import contextmanager
from typing import TYPE_CHECKING

from metaeval.report._encode import _png_uri, figure_to_png_uri, figure_to_svg
from metaeval.report._markup import _esc
from metaeval.report._plots import PLOT_KINDS, StudyView
from metaeval.report.figures import smallest_font_pt

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

__all__ = ["TOKEN", "token"]

TOKEN = re.compile(r"<!--mefig ([0-9a-f]{64})-->")


def token(key: str) -> str:
    return f"<!--mefig {key}-->"


class _Page:
    """Collects figures and the problems met while drawing them.

    ``figure`` returns a token that :func:`write_report` replaces by the figure (see
    :mod:`metaeval.report._render`); a figure whose key is in ``known`` (cached) is
    not drawn again.
    """

    def __init__(self, view: StudyView, *, dpi, strict, known=frozenset()):
        self.view = view
        self.dpi = dpi
        self.strict = strict
        self.known = known
        self.digest = None  # data digest of the piece being written
        self.rendered: dict[str, dict] = {}
        self.problems: list = []
        self.n_figures = 0
        self.reused = False  # the piece shows a figure drawn before, not by it

    def begin(self, digest) -> None:
        """Start a piece of the page whose data have this digest."""
        self.digest = digest
        self.problems = []
        self.reused = False

    def figure(self, kind, caption, *, fmt="svg", alt=None, colors=128, max_dpi=None,
               **options) -> str:
        """``colors``: the palette of a PNG (see :func:`figure_to_png_uri`); ``max_dpi``:
        its resolution at most (the page's otherwise)."""
        from metaeval.report._cache import make_key

        spec = PLOT_KINDS[kind]
        key = make_key("figure", kind, f"{spec.build.__module__}.{spec.build.__qualname__}",
                       fmt, colors, max_dpi, self.dpi, caption, alt, options, self.view.methods,
                       self.view.t, self.view.measure,
                       self.digest if spec.needs_store else None)
        if key in self.known:
            self.reused = True
        elif key not in self.rendered:
            dpi = self.dpi if max_dpi is None else min(self.dpi, max_dpi)
            self.rendered[key] = self._draw(spec.build, kind, caption, fmt, alt, options,
                                            colors, dpi, png=spec.png, svg=spec.svg)
        self.problems.append(["figure", key])  # its problem, if any, in page order
        self.n_figures += 1
        return token(key)

    def _draw(self, build: Callable[..., Figure], kind, caption, fmt, alt, options,
              colors=128, dpi=None, png=None, svg=None) -> dict:
        """``png``, ``svg``: the kind's own faster ways to its pixels or markup, if it
        has them (see ``_Kind``)."""
        try:
            with _young_garbage_after():
                body = self._body(build, fmt, alt or caption, options, colors,
                                  self.dpi if dpi is None else dpi, png, svg)
        except Exception as exc:
            if self.strict:
                raise
            where = f" ({options['dataset']})" if "dataset" in options else ""
            msg = f"{kind}{where}: {type(exc).__name__}: {exc}"
            return {"html": f'<p class="problem">Figure not drawn — {_esc(msg)}</p>',
                    "problem": msg, "transient": isinstance(exc, (MemoryError, OSError))}
        return {"html": f"<figure>{body}<figcaption>{_esc(caption)}</figcaption></figure>",
                "problem": None}

    def _body(self, build, fmt, alt, options, colors, dpi, png=None, svg=None) -> str:
        """The figure's markup: the figure itself is garbage when this returns."""
        from metaeval.report.figures import drawing_style

        if fmt == "svg" and svg is not None:
            with drawing_style():
                return svg(self.view, **options)
        if fmt == "png" and png is not None:
            with drawing_style():
                img, size, small = png(self.view, dpi=dpi, **options)
            uri = _png_uri(img, colors)
        else:
            with drawing_style():  # drawn in it too (see drawing_style)
                fig = build(self.view, **options)
                if fmt == "svg":
                    return figure_to_svg(fig, page_font=True)
                size = fig.get_size_inches()
                uri = figure_to_png_uri(fig, dpi=dpi, colors=colors)
            small = smallest_font_pt(fig)
        # shown at 96 CSS px per inch, the scale of the inline SVG figures; the smallest
        # text, for checks of its size on screen (pt at 96 px/in)
        w, h = (round(float(v) * 96) for v in size)
        return (f'<img src="{uri}" width="{w}" height="{h}" '
                f'data-min-font-pt="{small:g}" alt="{_esc(alt)}">')

    def attempt(self, what, compute, default=None):
        try:
            return compute()
        except Exception as exc:
            if self.strict:
                raise
            self.problems.append(f"{what}: {type(exc).__name__}: {exc}")
            return default


@contextmanager
def _young_garbage_after():
    """Draw a figure with the cyclic garbage collector paused, then collect the young.

    A figure is a web of reference cycles (figure, axes, artists) of some 10^5 objects;
    while it is built, the collector's automatic passes would walk them again and again,
    and now and then every object of the process. Paused, then one pass over the two
    young generations: the figure's objects all sit there, so its memory goes at once.
    Measured: 15-20 % less time per figure, and a lower peak than automatic collection.
    The collector's state is restored (left off if it was off).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
            gc.collect(1)
