"""SVG markup of a frame's fixed artists, written once and replayed in later figures.

A :class:`~metaeval.report._backdrop.Frame` is drawn again as a whole for each SVG
figure (the markup must hold every element), yet most of what it draws is the same
each time: the axes, their ticks and tick labels, titles, a colour bar. Laying out and
writing those is half of such a figure's time. :func:`install` wraps the ``draw`` of
artists the frame declares fixed: in an SVG drawing, the first draw of an artist in a
given state (the figure's size, its axes' place and limits, its text) is recorded --
the markup it writes and what it adds to the renderer's bookkeeping -- and a later
draw in the same state writes that markup again instead of drawing.

The markup is the one drawing gives, ids included: the renderer numbers groups in
drawing order (``text_3``), so a replayed piece is renumbered from the renderer's
counters; the definitions a piece shares with the rest of the figure (tick markers,
clip rectangles, hatches) are registered with the renderer as drawing would, and a
piece whose markers the renderer would have defined elsewhere is drawn instead. Other
renderers (pixels) always draw. Tests compare the markup with a new figure's.
"""

from __future__ import annotations

import io
import re
from collections import OrderedDict

__all__ = ["install", "MAX_STATES"]

#: states (figure size, limits, text) recorded per artist, the least recent dropped
MAX_STATES = 16

_MARKER_REF = re.compile(r'xlink:href="#(m[0-9a-f]+)"')
_CLIP_REF = re.compile(r"url\(#(p[0-9a-f]+)\)")
_HATCH_REF = re.compile(r"url\(#(h[0-9a-f]+)\)")
_COLLECTION_ID = re.compile(r'(id="|href="#)C([0-9a-f]+)_')


def install(artists) -> None:
    """Record and replay the SVG markup of each of ``artists`` (see the module)."""
    for artist in artists:
        if not isinstance(artist.__dict__.get("draw"), _Replayed):
            artist.draw = _Replayed(artist)


class _Record:
    """The markup one artist wrote in one state, and its dealings with the renderer."""

    __slots__ = ("chunk", "groups", "group_ids", "defined", "needed", "clips", "hatches",
                 "collections")

    def fits(self, svg) -> bool:
        """Whether writing it again gives the markup drawing would give."""
        return (all(key not in svg._markers for key in self.defined)
                and all(key in svg._markers for key in self.needed)
                and not svg.writer._XMLWriter__data)

    def replay(self, svg) -> None:
        chunk = self.chunk
        if self.group_ids is not None:
            shift = {name: svg._groupd.get(name, 0) - start
                     for name, (start, _) in self.groups.items()}
            if any(shift.values()):
                chunk = self.group_ids.sub(
                    lambda m: f' id="{m.group(1)}_{int(m.group(2)) + shift[m.group(1)]}"',
                    chunk)
            for name, (_, count) in self.groups.items():
                svg._groupd[name] = svg._groupd.get(name, 0) + count
        if self.collections:
            start, count = self.collections
            shift = svg._path_collection_id - start
            if shift:
                chunk = _COLLECTION_ID.sub(
                    lambda m: f"{m.group(1)}C{int(m.group(2), 16) + shift:x}_", chunk)
            svg._path_collection_id += count
        writer = svg.writer
        if chunk:
            writer._XMLWriter__flush()  # closes an open start tag, as the first start would
            writer._XMLWriter__write(chunk)
        svg._markers.update(self.defined)
        for key, value in self.clips:
            svg._clipd.setdefault(key, value)
        for key, value in self.hatches:
            svg._hatchd.setdefault(key, value)


class _Replayed:
    """An artist's ``draw``: drawn, or written again from a record of the same state."""

    def __init__(self, artist):
        self.artist = artist
        self.draw = artist.draw
        self.records: OrderedDict = OrderedDict()

    def __call__(self, renderer, *args, **kwargs):
        from matplotlib.backends.backend_svg import RendererSVG

        svg = getattr(renderer, "_renderer", renderer)
        if args or kwargs or not isinstance(svg, RendererSVG) or not _knows(svg):
            return self.draw(renderer, *args, **kwargs)
        out = getattr(svg.writer._XMLWriter__write, "__self__", None)
        if not isinstance(out, io.StringIO):
            return self.draw(renderer)
        state = _state(self.artist, svg)
        record = self.records.get(state)
        if record is not None and record.fits(svg):
            self.records.move_to_end(state)
            record.replay(svg)
            return None
        record = _draw_recording(svg, out, lambda: self.draw(renderer))
        if record is not None:
            self.records[state] = record
            self.records.move_to_end(state)
            while len(self.records) > MAX_STATES:
                self.records.popitem(last=False)
        return None


#: the SVG renderer's bookkeeping a replay reads and updates (as in matplotlib 3.11; a
#: renderer without it, of another version, is left to draw)
_RENDERER_STATE = ("_groupd", "_markers", "_clipd", "_hatchd", "_path_collection_id",
                   "_n_gradients", "_has_gouraud", "_image_counter")
_WRITER_STATE = ("_XMLWriter__write", "_XMLWriter__flush", "_XMLWriter__open",
                 "_XMLWriter__data")


def _knows(svg) -> bool:
    return (all(hasattr(svg, name) for name in _RENDERER_STATE)
            and all(hasattr(svg.writer, name) for name in _WRITER_STATE))


def _state(artist, svg) -> tuple:
    """What an artist's markup depends on, besides what its frame keeps fixed."""
    import matplotlib as mpl
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    ax = artist if isinstance(artist, Axes) else artist.axes
    key = (svg.width, svg.height, svg.image_dpi, mpl.rcParams["svg.fonttype"],
           mpl.rcParams["svg.hashsalt"], mpl.rcParams["svg.id"])
    if ax is not None:
        key += (ax.bbox.bounds, tuple(ax.viewLim.bounds))
    if isinstance(artist, Text):
        key += (artist.get_text(), tuple(artist.get_position()), str(artist.get_color()),
                artist.get_fontsize())
    if isinstance(artist, Axis):
        key += (artist.label.get_text(), artist.get_label_position())
    return key


def _draw_recording(svg, out, draw):
    """``draw()``, recording what it writes: a :class:`_Record`, or None where the
    markup cannot be written again as is (images kept in files, gradients, clip paths,
    text that was pending). An image inlined in the markup (a colour bar's rasterised
    solids) is part of it."""
    writer = svg.writer
    if writer._XMLWriter__data:
        draw()
        return None
    was_open = writer._XMLWriter__open
    groups = dict(svg._groupd)
    markers = dict(svg._markers)
    collections = svg._path_collection_id
    gradients, gouraud = svg._n_gradients, svg._has_gouraud
    image_counter = repr(svg._image_counter)
    start = out.tell()
    draw()
    out.seek(start)
    chunk = out.read()  # the piece alone (getvalue would copy the whole markup)
    if (writer._XMLWriter__open or writer._XMLWriter__data or svg._n_gradients != gradients
            or svg._has_gouraud != gouraud or repr(svg._image_counter) != image_counter):
        return None
    if was_open and chunk:
        if not chunk.startswith(">\n"):
            return None
        chunk = chunk[2:]
    record = _Record()
    record.chunk = chunk
    record.groups = {name: (groups.get(name, 0), count - groups.get(name, 0))
                     for name, count in svg._groupd.items() if count != groups.get(name, 0)}
    record.group_ids = (re.compile(r' id="(' + "|".join(map(re.escape, record.groups))
                                   + r')_(\d+)"') if record.groups else None)
    record.defined = {key: oid for key, oid in svg._markers.items() if key not in markers}
    by_oid = {oid: key for key, oid in markers.items()}
    record.needed = [by_oid[oid] for oid in dict.fromkeys(_MARKER_REF.findall(chunk))
                     if oid in by_oid]
    clips = {value[1]: (key, value) for key, value in svg._clipd.items()}
    record.clips = [clips[oid] for oid in dict.fromkeys(_CLIP_REF.findall(chunk))]
    if any(len(value[0]) == 2 for _, value in record.clips):
        return None  # a clip path (not a rectangle): numbered in the order first seen
    hatches = {value[1]: (key, value) for key, value in svg._hatchd.items()}
    record.hatches = [hatches[oid] for oid in dict.fromkeys(_HATCH_REF.findall(chunk))]
    count = svg._path_collection_id - collections
    record.collections = (collections, count) if count else None
    return record
