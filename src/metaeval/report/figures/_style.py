"""What every figure of the report shares: sizes, fonts, colours, grids and checks.

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure


__all__ = ["METHOD_ABBREVIATIONS", "smallest_font_pt"]

#: Short names Prudêncio (2019) uses for the threshold choice methods.
METHOD_ABBREVIATIONS = {
    "score-fixed": "SF",
    "score-driven": "SD",
    "rate-driven": "RD",
    "score-uniform": "SU",
    "rate-uniform": "RU",
}

#: Smallest text of every figure, in points: at 96 CSS px per inch (the report's scale)
#: 10 pt is 13.3 px, legible down to a two-thirds shrink on a narrow screen.
FONT = 10.0
#: Figure titles, in points.
TITLE = 11.0
#: Widest figure, in inches: 7.2 in is 691 CSS px, inside an 800 px window at full size.
MAX_WIDTH = 7.2

_CLASS_COLOURS = ("#0072B2", "#D55E00")  # class 0 (the papers' positive), class 1: Okabe-Ito
_CLASS_STYLES = ("-", "--")
# hardness maps: dark (easy) to bright (hard), never near white, so easy instances stay
# visible beside the grey other class; perceptually uniform and colour-blind safe
_HARDNESS_CMAP = "plasma"
_HARDNESS_CMAP_RANGE = (0.0, 0.88)
#: Okabe & Ito's colour-blind-safe palette, its pale yellow swapped for Tol's wine (legible
#: on white, and apart from the others under deuteranopia)
_OKABE_ITO = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7",
              "#882255")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*")


# --------------------------------------------------------------------------- helpers
def drawing_style():
    """Context for drawing the report's figures faster, with the same look.

    - Titles sit at the top of their axes (``axes.titley = 1``) instead of matplotlib
      measuring every tick label to lift them over decorations on top: none of these
      figures has any there that its title's ``pad`` does not already clear, and the
      measuring took about a fifth of a multi-panel figure's drawing time.
    - Pixel text is drawn from the fonts' outlines as they are (``text.hinting =
      "no_hinting"``), as the vector figures' text is measured: at the report's
      192 dpi, the hinter's snapping of stems to the pixel grid does not show, and it
      took a third of the time of every label drawn (1.9 against 1.2 ms).

    The figure must be drawn (``canvas.draw``, ``savefig``) inside the context too: the
    text's hinting is read when it is drawn.
    """
    import matplotlib

    return matplotlib.rc_context({"axes.titley": 1.0, "text.hinting": "no_hinting"})


def _method_title(method: str) -> str:
    abbrev = METHOD_ABBREVIATIONS.get(method)
    return f"{method} ({abbrev})" if abbrev else str(method)


def _figure(nrows: int, ncols: int, *, panel=(3.2, 2.6), sharex=False, sharey=False):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(panel[0] * ncols, panel[1] * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False)
    return fig, axes


def _grid(nrows: int, ncols: int, *, panel=(2.5, 2.2), left=0.55, right=0.15, bottom=0.5,
          top=0.35, wgap=0.25, hgap=0.45, sharex=False, sharey=False):
    """A grid of panels with fixed margins in inches (no layout engine: fast to draw)."""
    pw, ph = panel
    width = left + ncols * pw + (ncols - 1) * wgap + right
    height = top + nrows * ph + (nrows - 1) * hgap + bottom
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height,
                        top=1 - top / height, wspace=wgap / pw, hspace=hgap / ph)
    axes = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False)
    return fig, axes


def _side_colorbar(fig, mappable, *, right, top, bottom, label):
    """A colour bar in the right margin reserved by :func:`_grid`."""
    width, height = fig.get_size_inches()
    cax = fig.add_axes([(width - right + 0.2) / width, bottom / height, 0.14 / width,
                        (height - top - bottom) / height])
    cb = fig.colorbar(mappable, cax=cax)
    cb.set_label(label, fontsize=FONT)
    cb.ax.tick_params(labelsize=FONT)
    return cb


def _short_number(x, _pos=None) -> str:
    """Tick text without trailing zeros: 0, 0.5, 1 (not 0.00, 0.50, 1.00)."""
    return f"{x:g}"


def _note(fig, note):
    if note:
        fig.text(0.995, 0.005, str(note), ha="right", va="bottom", fontsize=FONT, color="0.35",
                 wrap=True)


def _clear_ticks(ax):
    """A map panel: no ticks, and its border a rectangle in axes coordinates instead of
    its four spines.

    The border looks the same (the spines' colour, width and zorder), but it does not
    follow the data limits, as a spine's ends do (by a rounding): a frame drawn once
    (:mod:`metaeval.report._backdrop`) keeps it in its pixels, where spines are drawn
    again with every figure.
    """
    from matplotlib.patches import Rectangle

    ax.set_xticks([])
    ax.set_yticks([])
    spine = ax.spines["left"]
    border = Rectangle((0, 0), 1, 1, transform=ax.transAxes, fill=False,
                       edgecolor=spine.get_edgecolor(), linewidth=spine.get_linewidth(),
                       zorder=spine.get_zorder(), clip_on=False)
    ax.add_artist(border)  # in axes coordinates: no data limits to update
    for side in ax.spines.values():
        side.set_visible(False)
    # the axes (no ticks: their labels alone) just over the border, as a frame drawn once
    # draws them, over its pixels: where a label touches the border, the same pixels
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_zorder(border.get_zorder() + 0.05)


def _array(x, name: str, *, ndim=None, allow_nan=False) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {type(x).__name__}") from exc
    if ndim is not None:
        ndims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if a.ndim not in ndims:
            raise ValueError(f"{name} must have {' or '.join(map(str, ndims))} dimensions, "
                             f"got shape {a.shape}")
    if allow_nan:
        if np.isinf(a).any():
            raise ValueError(f"{name} contains infinite values")
    elif not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def _labels(labels, n: int, name: str) -> list[str]:
    labels = [str(v) for v in labels]
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels, expected {n}")
    return labels


def _binary(y, n: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must have shape ({n},), got {y.shape}")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("y must hold the labels 0 and 1 only")
    return y.astype(np.int8)


def _algorithm_colours(names: Sequence[str]) -> dict[str, str]:
    return {name: _OKABE_ITO[i % len(_OKABE_ITO)] for i, name in enumerate(names)}


def _algorithm_markers(names: Sequence[str]) -> dict[str, str]:
    """A marker per algorithm besides its colour: lines stay apart under any colour vision."""
    return {name: _MARKERS[i % len(_MARKERS)] for i, name in enumerate(names)}


def _hardness_cmap():
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    lo, hi = _HARDNESS_CMAP_RANGE
    return ListedColormap(colormaps[_HARDNESS_CMAP](np.linspace(lo, hi, 256)),
                          name="hardness")


def _wrapped_grid(n: int, *, ncols_max=3, **grid):
    """``n`` panels in rows of at most ``ncols_max``; empty slots are removed.

    Returns the figure, the ``n`` axes in reading order, and the figure-fraction
    rectangles ``[x0, y0, x1, y1]`` of the removed slots (room for a legend or a note).
    """
    ncols = max(1, min(n, ncols_max))
    nrows = int(np.ceil(n / ncols))
    fig, axes = _grid(nrows, ncols, **grid)
    flat = list(axes.ravel())
    spare = []
    for ax in flat[n:]:
        spare.append(ax.get_position().extents)
        ax.remove()
    for i, ax in enumerate(flat[:n]):  # a panel with no panel below shows its x tick labels
        if i + ncols >= n:
            ax.xaxis.set_tick_params(labelbottom=True)
    return fig, flat[:n], spare


def _text_colour(rgba) -> str:
    """Black or white, whichever has the higher contrast (WCAG 2) on a cell of colour
    ``rgba``: at least 4.58:1 on any colour. (A brightness threshold put white on
    mid-tone cells at under 3:1.)"""
    c = np.asarray(rgba[:3], dtype=float)
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    luminance = float(c @ [0.2126, 0.7152, 0.0722])
    # contrast with black (L + 0.05) / 0.05 against with white 1.05 / (L + 0.05)
    return "black" if (luminance + 0.05) ** 2 >= 0.05 * 1.05 else "white"


def smallest_font_pt(fig: Figure) -> float:
    """The smallest font size, in points, of the visible text of a figure.

    What the report needs to know of a raster (PNG) figure to tell how large its
    text is on screen: points x 96/72 x the display scale = CSS pixels.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> _ = fig.add_subplot().set_title("t", fontsize=12)
    >>> smallest_font_pt(fig)  # tick labels get their text when the figure is drawn
    12.0
    """
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return float(min(sizes)) if sizes else float("nan")


def _point_size(n: int) -> float:
    return float(np.clip(3000.0 / max(n, 1), 1.5, 24.0))


def _fix_shared_limits(axes, xy):
    """Autoscale shared map panels once, to all of ``xy``, and stop autoscaling.

    The limits are matplotlib's own (data limits plus its margins); computed once for
    the shared group instead of again after every scatter of every panel, which walks
    all the shared panels each time.
    """
    axes = list(np.ravel(axes))
    for ax in axes:  # panels reused for other data (a frame drawn once) forget the old
        ax.relim()
        ax.set_autoscale_on(True)
    finite = np.asarray(xy, dtype=float)
    finite = finite[np.isfinite(finite).all(axis=1)]
    if finite.size:
        axes[0].update_datalim(finite)
        axes[0].autoscale_view()
    for ax in axes:
        ax.set_autoscale_on(False)


def _place_unlabelled(axis_list) -> None:
    """Give each :class:`matplotlib.axis.Axis` of ``axis_list`` that has no label, and
    never gets one, a fixed label position: matplotlib otherwise measures its tick labels
    a second time at every draw, to place a label that is empty. An empty label draws
    nothing, so the figure is the same (its SVG markup too: tested); for the report's
    frames only, as a label set later on such an axis would stay where it was put."""
    for axis in axis_list:
        if not axis.label.get_text():
            axis.set_label_coords(0.5, 0.5)


class _AxisLabel:
    """An axis's label alone, drawn as the axis draws it: what a content function that
    only labels an axis of a frame drawn once asks to be drawn again (the ticks are in the
    frame's pixels already; see :meth:`metaeval.report._backdrop.Backdrop.draw`)."""

    def __init__(self, axis):
        self.axis, self.axes = axis, axis.axes

    def get_zorder(self):
        return self.axis.get_zorder()

    def get_visible(self):
        return self.axis.get_visible()

    def draw(self, renderer):
        # where the axis placed it when the frame was drawn whole: the place depends on
        # the tick labels (the frame's, unchanged), not on the label's text
        self.axis.label.draw(renderer)


#: zorder of the points of a map: over the panel's frame (spines 2.5), so the frame can be
#: drawn once for many maps (:mod:`metaeval.report._backdrop`)
_POINTS_Z = 2.6


def _points(ax, x, y, *, s, zorder, color=None, c=None, cmap=None, vmin=None, vmax=None,
            alpha=None, label=None):
    """``ax.scatter(x, y, s=s, color=color | c=c, cmap=cmap, vmin=vmin, vmax=vmax,
    alpha=alpha, lw=0, label=label, zorder=zorder)`` for a panel whose limits are fixed
    (:func:`_fix_shared_limits`): the collection ``scatter`` makes (round markers, no
    edge, points with a non-finite coordinate or value left out), without its argument
    processing and data-limit update, three quarters of its time (tested against it,
    pixel for pixel).
    """
    from matplotlib.collections import PathCollection
    from matplotlib.markers import MarkerStyle
    from matplotlib.transforms import IdentityTransform

    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    keep = np.isfinite(x) & np.isfinite(y)
    if c is not None:
        c = np.asarray(c, dtype=float).ravel()
        keep &= np.isfinite(c)
        c = c[keep]
    marker = MarkerStyle("o")
    points = PathCollection(
        (marker.get_path().transformed(marker.get_transform()),), [s],
        facecolors=color, edgecolors="face", linewidths=0,
        offsets=np.column_stack([x[keep], y[keep]]), offset_transform=ax.transData,
        alpha=alpha, zorder=zorder, label=label)
    points.set_transform(IdentityTransform())
    if c is not None:
        points.set_cmap(cmap)
        points.set_array(c)
        points.set_clim(vmin, vmax)
    return ax.add_collection(points, autolim=False)


def _map_panel(ax, xy, values, mask, *, vmax, size, cmap=None):
    # the other class: small, light and underneath, so it frames without hiding
    _points(ax, xy[~mask, 0], xy[~mask, 1], s=size * 0.5, color="0.9", zorder=_POINTS_Z)
    order = np.argsort(values[mask], kind="stable")  # hardest drawn on top
    pts = xy[mask][order]
    return _points(ax, pts[:, 0], pts[:, 1], c=values[mask][order], s=size,
                   cmap=cmap or _hardness_cmap(), vmin=0.0, vmax=vmax, zorder=_POINTS_Z)


def _class_major_grid(n_rows, n_cols, *, panel, left, right, bottom, top, wgap, hgap):
    """A grid whose axes are created column by column (``fig.axes`` runs down columns)."""
    pw, ph = panel
    width = left + n_cols * pw + (n_cols - 1) * wgap + right
    height = top + n_rows * ph + (n_rows - 1) * hgap + bottom
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    gs = fig.add_gridspec(n_rows, n_cols, left=left / width, right=1 - right / width,
                          bottom=bottom / height, top=1 - top / height, wspace=wgap / pw,
                          hspace=hgap / ph)
    axes = np.empty((n_rows, n_cols), dtype=object)
    first = None
    for k in range(n_cols):
        for j in range(n_rows):
            axes[j, k] = fig.add_subplot(gs[j, k], sharex=first, sharey=first)
            first = first or axes[j, k]
    return fig, axes
