"""Figures whose frame is built once per process and reused: the same output, faster.

Some of the report's figures come in one shape for every dataset: the instance cost
curves are 5 x 4 panels with the same limits, ticks and axis labels everywhere; only
the curves, panel titles, column heads and legend change. Building those panels and
drawing their axes is two thirds of the figure's time. A :class:`Backdrop` builds the
frame once, draws it into an Agg buffer and keeps a copy of the pixels; each figure
then restores that copy and draws only its own content on it, the blitting technique of
matplotlib's animations.

The pixels are those of drawing the whole figure, provided the content lies above the
frame (a higher zorder than the spines and axes, as the figure functions that use this
module arrange) and no panel's content reaches into another panel (it is clipped to its
axes): the drawing operations then happen in the same order on each pixel. The spines are
drawn with the content (where a spine's ends fall depends, by a rounding, on the data
limits). Tests compare the two buffers byte for byte.

A vector (SVG) figure is drawn on a :class:`Frame` too: its panels, ticks and labels are
made once, only the content is added and taken away again, and the markup is the one a
new figure gives (tested). A *layered* frame's own markup (its panels, ticks, labels and
titles) is printed once; each figure then prints only its content and the panels'
spines, with the frame's artists hidden, and the two markups are stacked in one
``<svg>`` (:func:`metaeval.report._encode.stack_svg`): the elements of a new figure,
the frame's below the content's. A figure whose content changes the frame (its limits,
ticks, labels, titles, the panels' places) is drawn whole.

Only matplotlib's public interface is used: the canvas's ``copy_from_bbox`` and
``restore_region``, artists' ``draw``, ``remove`` and ``get_children``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextlib import contextmanager

import numpy as np

__all__ = ["Backdrop", "Frame", "backdrop", "frame", "release"]

#: frames drawn into pixels kept per process (each holds its figure and two copies of
#: its pixels: up to 8 MB each at the report's resolution)
MAX_BACKDROPS = 16
#: vector frames kept per process (a figure and, layered, its markup: some 100 kB each)
MAX_FRAMES = 32
_BACKDROPS: OrderedDict = OrderedDict()
#: insets (e.g. colour bars of several scales) kept per frame, each a small rectangle
MAX_INSETS = 16


class Frame:
    """A figure's frame, built once, on which figures of the same layout are drawn in turn.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The frame: everything the figures drawn on it share.
    axes : object
        What the frame's builder returned besides the figure (e.g. its array of axes),
        handed to the content function.
    """

    def __init__(self, fig, axes, *, layered=False):
        self.fig, self.axes = fig, axes
        self.layered = layered
        self.layer = None  # (frame state, artists drawn with the content, frame's markup)

    @contextmanager
    def holding(self):
        """A block in which content is added to the frame, and taken away after it.

        Yields ``(frame axes, their children before, the figure's children before)``
        (ids). Afterwards the added artists are removed (new axes too) and the texts of
        the frame's titles and axis labels restored, leaving the frame as it was.
        """
        fig = self.fig
        frame_axes = list(fig.axes)
        before = {ax: set(map(id, ax.get_children())) for ax in frame_axes}
        fig_before = set(map(id, fig.get_children()))
        texts = [(t, t.get_text()) for ax in frame_axes
                 for t in _titles(ax) + [ax.xaxis.label, ax.yaxis.label]]
        try:
            yield frame_axes, before, fig_before
        finally:
            for a in fig.get_children():
                if id(a) not in fig_before:
                    a.remove()
            for ax in frame_axes:
                for a in ax.get_children():
                    if id(a) not in before[ax]:
                        a.remove()
            for t, text in texts:
                t.set_text(text)

    def svg(self, content: Callable, *args) -> str:
        """``content(fig, axes, *args)`` on the frame, as the report's SVG markup.

        ``content`` may return artists of the frame it changed (e.g. an image given its
        data): on a layered frame they are drawn with the content, not with the frame.
        """
        from metaeval.report._encode import figure_to_svg, stack_svg

        fig = self.fig
        with self.holding() as (frame_axes, before, fig_before):
            state = _state(fig) if self.layered else None
            changed = content(fig, self.axes, *args) or []
            if not self.layered or not _fixed_layout(fig) or _state(fig) != state:
                return figure_to_svg(fig, page_font=True)
            # with the content: what it added or changed, and the panels' spines (drawn
            # by a whole figure in zorder among the content's artists)
            mine = [a for ax in frame_axes for a in ax.get_children() if id(a) in before[ax]]
            mine += [a for a in fig.get_children()
                     if id(a) in fig_before and a not in frame_axes]
            top = {id(a) for a in changed}
            top |= {id(sp) for ax in frame_axes for sp in ax.spines.values()}
            added = [a for ax in frame_axes for a in ax.get_children()
                     if id(a) not in before[ax]]
            added += [a for a in fig.get_children() if id(a) not in fig_before]
            key = (state, frozenset(top))
            if self.layer is None or self.layer[0] != key:
                with _hidden(added + [a for a in mine if id(a) in top]):
                    self.layer = (key, figure_to_svg(fig, page_font=True))
            with _hidden([a for a in mine if id(a) not in top]):
                return stack_svg(self.layer[1], figure_to_svg(fig, page_font=True))


class Backdrop(Frame):
    """A :class:`Frame` drawn once into pixels; :meth:`draw` puts content on a copy.

    ``dpi``: the resolution of the pixels.
    """

    def __init__(self, fig, axes, dpi):
        from metaeval.report._agg import TextOnceCanvas

        super().__init__(fig, axes)
        self.dpi = dpi
        fig.set_dpi(dpi)
        fig.set_facecolor("white")
        self.canvas = TextOnceCanvas(fig)
        # the spines are drawn with each figure, not in the frame: where their ends fall
        # depends, by a rounding, on the data limits (a spine runs between them)
        self.spines = {ax: [sp for sp in ax.spines.values() if sp.get_visible()]
                       for ax in fig.axes}
        for spine in (sp for spines in self.spines.values() for sp in spines):
            spine.set_visible(False)
        try:
            self.canvas.draw()
        finally:
            for spine in (sp for spines in self.spines.values() for sp in spines):
                spine.set_visible(True)
        self.background = self.canvas.copy_from_bbox(fig.bbox)
        self.insets: OrderedDict = OrderedDict()  # key -> (pixels, smallest pt): see draw
        from metaeval.report.figures import smallest_font_pt

        self.small = smallest_font_pt(fig)  # of the frame's own text (its ticks, titles)

    def draw(self, content: Callable, *args, inset=None, copy=True):
        """``content(fig, axes, *args)`` drawn on the frame: ``(RGBA image, smallest pt)``
        (opaque; a copy of the pixels, which the next figure on the frame overwrites;
        ``copy=False``: the canvas's own pixels, for a caller done with them before the
        frame draws again, e.g. encoding them at once -- a copy is some 2 ms a figure).

        ``content`` adds artists (to the frame's axes or to the figure: new axes too, a
        colour bar) and may return artists of the frame it changed (an axis given a
        label), which are drawn again; everything goes again afterwards (see
        :meth:`Frame.holding`). The smallest font is that of
        :func:`metaeval.report.figures.smallest_font_pt` on the whole figure.

        ``inset``: ``(key, make)``, a part of the figure that takes one of a few forms
        (a colour bar of a few scales): ``make(fig)`` adds its artists (new axes) and
        returns them. Its pixels are kept per ``key`` -- a rectangle around it, which
        nothing else may reach into -- and put back in later figures instead of drawing
        it again.
        """
        from PIL import Image

        fig = self.fig
        with self.holding() as (frame_axes, before, fig_before):
            titles = {t: t.get_text() for ax in frame_axes for t in _titles(ax)}
            changed = content(fig, self.axes, *args) or []
            renderer = self.canvas.get_renderer()
            self.canvas.restore_region(self.background)
            inset_small = self._inset(inset, renderer) if inset is not None else np.inf
            again = {ax: list(spines) for ax, spines in self.spines.items()}
            for a in changed:
                again.setdefault(a.axes, []).append(a)
            # in the order a whole draw takes: each axes' artists by zorder (the frame's
            # all below the content's), then the figure's own by zorder (new axes first)
            added = []
            for ax in frame_axes:
                new = [a for a in ax.get_children() if id(a) not in before[ax]]
                added += new
                # the titles the content gave (the frame's own are in the background)
                new += [t for t in _titles(ax) if t.get_text() != titles[t]]
                for a in sorted(new + again.get(ax, []), key=lambda a: a.get_zorder()):
                    if a.get_visible():
                        a.draw(renderer)
            new = [a for a in fig.get_children() if id(a) not in fig_before]
            added += new
            for a in sorted(new, key=lambda a: a.get_zorder()):
                if a.get_visible():
                    a.draw(renderer)
            small = self._smallest(frame_axes, added, inset_small)
            img = Image.frombuffer("RGBA", self.canvas.get_width_height(),
                                   self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
            if copy:
                img = img.copy()
        return img, small

    def _smallest(self, frame_axes, added, inset_small) -> float:
        """:func:`~metaeval.report.figures.smallest_font_pt` of the whole figure, from the
        frame's (taken once) and the text the content added or gave the frame's titles
        and axis labels: not a walk over every artist of the figure."""
        from matplotlib.text import Text

        texts = [t for a in added for t in a.findobj(Text)]
        texts += [t for ax in frame_axes
                  for t in _titles(ax) + [ax.xaxis.label, ax.yaxis.label]]
        sizes = [self.small, inset_small] + [t.get_fontsize() for t in texts
                                             if t.get_visible() and t.get_text().strip()]
        sizes = [v for v in sizes if np.isfinite(v)]
        return float(min(sizes)) if sizes else float("nan")

    def _inset(self, inset, renderer) -> float:
        """Draw, or put back, an inset of :meth:`draw`; its smallest font (pt)."""
        from matplotlib.text import Text
        from matplotlib.transforms import Bbox

        key, make = inset
        kept = self.insets.get(key)
        if kept is None:
            artists = make(self.fig)
            try:
                for a in sorted(artists, key=lambda a: a.get_zorder()):
                    a.draw(renderer)
                # everything it drew, and a margin for antialiasing, in whole pixels
                box = Bbox.union([a.get_tightbbox(renderer) for a in artists])
                x0, y0 = np.floor(box.p0) - 2
                x1, y1 = np.ceil(box.p1) + 2
                box = Bbox([[max(x0, 0), max(y0, 0)],
                            [min(x1, self.fig.bbox.x1), min(y1, self.fig.bbox.y1)]])
                sizes = [t.get_fontsize() for a in artists for t in a.findobj(Text)
                         if t.get_visible() and t.get_text().strip()]
                kept = (self.canvas.copy_from_bbox(box), float(min(sizes, default=np.inf)))
            finally:
                for a in artists:
                    a.remove()
            self.insets[key] = kept
            while len(self.insets) > MAX_INSETS:
                self.insets.popitem(last=False)
        else:
            self.insets.move_to_end(key)
            self.canvas.restore_region(kept[0])
        return kept[1]

    def rgba(self) -> np.ndarray:
        """The canvas's current pixels (a copy), for comparisons."""
        return np.asarray(self.canvas.buffer_rgba()).copy()


def frame(key: Hashable, build: Callable, *, layered=False) -> Frame:
    """This process's :class:`Frame` for ``key``, built by ``build()`` once (see
    :func:`backdrop`; at most :data:`MAX_FRAMES` are kept). ``layered``: its own markup
    printed once (see :class:`Frame`)."""
    return _kept(("frame", key, bool(layered)),
                 lambda: Frame(*build(), layered=layered), MAX_FRAMES)


def backdrop(key: Hashable, build: Callable, dpi) -> Backdrop:
    """This process's :class:`Backdrop` for ``key`` at ``dpi``, built by ``build()`` once.

    ``build()`` returns ``(fig, axes)``; at most :data:`MAX_BACKDROPS` frames are kept,
    the least recently used dropped first.
    """
    return _kept(("pixels", key, float(dpi)), lambda: Backdrop(*build(), dpi), MAX_BACKDROPS)


def release() -> None:
    """Drop this process's frames (and the pixels they hold: some 90 MB for the report's
    per-dataset figures), e.g. before work that needs none of them."""
    import gc

    if _BACKDROPS:
        _BACKDROPS.clear()
        gc.collect()  # figures are reference cycles: freed now, not at some later pass


def _titles(ax) -> list:
    """An axes' three titles (the texts of ``ax.set_title(loc=...)``): its text children
    that are not among ``ax.texts`` (``ax.text``, ``ax.annotate``); public means only."""
    from matplotlib.text import Text

    own = set(map(id, ax.texts))
    return [a for a in ax.get_children() if isinstance(a, Text) and id(a) not in own]


def _kept(full, make, most):
    """``_BACKDROPS[full]``, made by ``make()`` if missing; at most ``most`` of its kind
    (``full[0]``) are kept, the least recently used dropped first."""
    got = _BACKDROPS.get(full)
    if got is None:
        got = _BACKDROPS[full] = make()
        same = [k for k in _BACKDROPS if k[0] == full[0]]
        for k in same[:max(0, len(same) - most)]:
            del _BACKDROPS[k]
    _BACKDROPS.move_to_end(full)
    return got


def _fixed_layout(fig) -> bool:
    """No layout engine moves the figure's axes when it is drawn (none, or switched off)."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    return engine is None or isinstance(engine, PlaceHolderLayoutEngine)


def _state(fig) -> tuple:
    """What a figure's frame looks like, as far as content could change it: its size, its
    own texts, and each axes' place, limits, scales, ticks (where, and the locator and
    formatter objects that place and write them: new tick labels are a new formatter),
    labels and titles (public getters). An artist of the frame that the content changes
    otherwise (an image's data) is one it returns, drawn with the content."""
    out = [tuple(fig.get_size_inches()), fig.dpi, tuple(t.get_text() for t in fig.texts)]
    for ax in fig.axes:
        ticking = tuple(id(f) for axis in (ax.xaxis, ax.yaxis)
                        for f in (axis.get_major_locator(), axis.get_major_formatter()))
        out.append((tuple(ax.get_position().bounds), tuple(ax.get_xlim()),
                    tuple(ax.get_ylim()), ax.get_xscale(), ax.get_yscale(),
                    ax.get_visible(), ax.axison, ax.xaxis.get_visible(),
                    ax.yaxis.get_visible(), tuple(ax.get_xticks()), tuple(ax.get_yticks()),
                    ticking, ax.get_xlabel(), ax.get_ylabel(),
                    tuple(t.get_text() for t in _titles(ax))))
    return tuple(out)


@contextmanager
def _hidden(artists):
    """Artists made invisible for a block (those already invisible stay so)."""
    shown = [a for a in artists if a.get_visible()]
    for a in shown:
        a.set_visible(False)
    try:
        yield
    finally:
        for a in shown:
            a.set_visible(True)
