"""Instance and class cost curves (Prudêncio 2019).

See :mod:`metaeval.report.figures` for what all the figure functions share.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures._style import (
    _CLASS_COLOURS,
    _CLASS_STYLES,
    FONT,
    METHOD_ABBREVIATIONS,
    _algorithm_colours,
    _algorithm_markers,
    _array,
    _grid,
    _labels,
    _method_title,
    _short_number,
    _wrapped_grid,
)

__all__ = ["class_cost_curves", "instance_cost_curves"]

# ------------------------------------------------------------------- Prudêncio (2019)
def instance_cost_curves(c, curves, *, methods, instances, models=None, interpolated=None,
                         hardness=None) -> Figure:
    r"""Instance cost curves, one panel per (threshold choice method, instance).

    Draws :math:`QI(x, T(c), c)` against the cost proportion :math:`c`, as in Prudêncio
    (2019), Figs. 1-6: rows are methods, columns are instances, one line per model.
    Where ``interpolated`` gives an interval, the stretch of the curve inside it is
    dashed and hatched: for the rate-driven method that is :math:`[R(s) - l/n, R(s)]`,
    the rates no threshold can produce, whose loss is the stochastic interpolation of
    Prudêncio (2019), eqs. 21 and 25.

    .. math::

        IH^T(x) = \int_0^1 QI(x, T(c), c)\, dc

    Parameters
    ----------
    c : array-like of shape (n_c,)
        Increasing cost proportions in [0, 1].
    curves : array-like of shape (n_methods, n_instances, n_models, n_c)
        The losses; shape (n_methods, n_instances, n_c) for one model.
    methods : sequence of str of length n_methods
        Row titles (canonical method names are shown with their abbreviation).
    instances : sequence of str of length n_instances
        Column titles, e.g. ``"row 17 (class 0)"``.
    models : sequence of str of length n_models, optional
        Legend entries; omitted for a single model.
    interpolated : array-like of shape (n_methods, n_instances, n_models, 2), optional
        ``[low, high]`` of the interpolated stretch, NaN where there is none;
        shape (n_methods, n_instances, 2) for one model.
    hardness : array-like of shape (n_methods, n_instances), optional
        Pool hardness (area under the mean curve), shown in each panel title.

    Returns
    -------
    matplotlib.figure.Figure
        A panel's curves are collections, in the models' order and colours: the solid
        curves (gid ``"solid"``, a segment per model, NaN where interpolated), the
        interpolated stretches (``"interpolated"``, dashed, a segment per model, empty
        where it has none) and the markers (``"markers"``, over every curve).

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, eqs. 5-34 and Figs. 1-6.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.linspace(0, 1, 11)
    >>> curves = np.stack([2 * c * (c < 0.6)])[None]  # one method, one instance
    >>> fig = instance_cost_curves(c, curves, methods=["score-driven"], instances=["x1"])
    >>> len(fig.axes)
    1
    """
    checked = _instance_cost_curves_checked(c, curves, methods=methods, instances=instances,
                                            models=models, interpolated=interpolated,
                                            hardness=hardness)
    fig, axes = _instance_cost_curves_frame(**checked["frame"])
    _instance_cost_curves_content(fig, axes, checked)
    return fig


def _instance_cost_curves_checked(c, curves, *, methods, instances, models, interpolated,
                                  hardness) -> dict:
    """The validated input of :func:`instance_cost_curves`, and the layout of its frame.

    ``"frame"``: the keyword arguments of :func:`_instance_cost_curves_frame`, all the
    figure depends on besides its curves and texts (hashable: a key for a frame drawn
    once and reused, see :mod:`metaeval.report._backdrop`).
    """
    c = _array(c, "c", ndim=1)
    if c.size < 2 or np.any(np.diff(c) < 0) or c[0] < 0 or c[-1] > 1:
        raise ValueError("c must be an increasing array of at least 2 values in [0, 1]")
    curves = _array(curves, "curves", ndim=(3, 4))
    single = curves.ndim == 3
    if single:
        curves = curves[:, :, None, :]
    n_methods, n_instances, n_models, n_c = curves.shape
    if n_c != c.size:
        raise ValueError(f"curves has {n_c} cost proportions on its last axis, c has {c.size}")
    methods = _labels(methods, n_methods, "methods")
    instances = _labels(instances, n_instances, "instances")
    if models is None:
        if n_models != 1:
            raise ValueError("models must name the models when curves holds more than one")
        models = [""]
    models = _labels(models, n_models, "models")
    if interpolated is None:
        interpolated = np.full((n_methods, n_instances, n_models, 2), np.nan)
    else:
        interpolated = _array(interpolated, "interpolated", ndim=(3, 4), allow_nan=True)
        if interpolated.ndim == 3:
            interpolated = interpolated[:, :, None, :]
        expected = (n_methods, n_instances, n_models, 2)
        if interpolated.shape != expected:
            raise ValueError(f"interpolated must have shape {expected}, "
                             f"got {interpolated.shape}")
    if hardness is not None:
        hardness = _array(hardness, "hardness", ndim=2)
        if hardness.shape != (n_methods, n_instances):
            raise ValueError(f"hardness must have shape {(n_methods, n_instances)}, "
                             f"got {hardness.shape}")
    # as many legend columns (at most 4) as the longest name lets fit across the figure
    fig_width = 0.9 + n_instances * 1.45 + (n_instances - 1) * 0.14 + 0.12
    per_column = 0.085 * max(len(m) for m in models) + 0.65  # inches: marker and text
    legend_cols = max(1, min(n_models, 4, int(fig_width // per_column)))
    legend_rows = 0 if single else int(np.ceil(n_models / legend_cols))
    head_lines = max(len(str(v).split("\n")) for v in instances)
    frame = {"methods": tuple(methods), "n_instances": n_instances,
             "models": tuple(models), "single": single,
             "legend_rows": legend_rows, "legend_cols": legend_cols,
             "head_lines": head_lines, "with_hardness": hardness is not None}
    return {"c": c, "curves": curves, "single": single, "methods": methods,
            "instances": instances, "models": models, "interpolated": interpolated,
            "hardness": hardness, "legend_cols": legend_cols, "frame": frame}


def _instance_cost_curves_frame(*, methods, n_instances, models, single, legend_rows,
                                legend_cols, head_lines, with_hardness):
    """The panels of :func:`instance_cost_curves`: axes, limits, ticks, axis labels and
    the legend of the models.

    Everything here is the same for any curves of this shape; everything
    :func:`_instance_cost_curves_content` adds is drawn above it (zorder over the
    spines') or beside it, so drawing the frame once and then the content gives the very
    pixels of drawing the whole figure.
    """
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator

    n_methods = len(methods)
    title_h = 0.2 if with_hardness else 0.0
    fig, axes = _grid(n_methods, n_instances, panel=(1.45, 1.2), left=0.9, right=0.12,
                      bottom=0.55 + 0.24 * legend_rows, top=0.12 + 0.19 * head_lines + title_h,
                      wgap=0.14, hgap=0.12 + title_h, sharex=True, sharey=True)
    # the panels share both axes: limits and ticks set once, before any line (no
    # autoscaling), reach every panel; set on each, every call walks all the panels
    first = axes[0, 0]
    first.set_xlim(0, 1)
    first.set_ylim(-0.1, 2.1)  # a zero loss (IH = 0) draws above the axis, not on it
    first.xaxis.set_major_locator(FixedLocator([0, 0.5, 1]))
    first.xaxis.set_major_formatter(_short_number)
    first.yaxis.set_major_locator(FixedLocator([0, 1, 2]))
    for i, method in enumerate(methods):
        for j in range(n_instances):
            ax = axes[i, j]
            ax.tick_params(labelsize=FONT)
            if j == 0:
                ax.set_ylabel(f"{METHOD_ABBREVIATIONS.get(method, method)}\nloss QI",
                              fontsize=FONT)
            if i == n_methods - 1:
                ax.set_xlabel("cost c", fontsize=FONT)
                # the end labels inside their panel: a panel's "1" beside the next
                # one's "0" read "10" (three fixed ticks: their labels stay as set)
                ends = ax.get_xticklabels()
                ends[0].set_horizontalalignment("left")
                ends[-1].set_horizontalalignment("right")
    if not single:  # the models' lines as the content draws them (see _curve_style)
        handles = [Line2D([], [], label=model, **_legend_style(model, models))
                   for model in models]
        fig.legend(handles, list(models), loc="lower center", ncols=legend_cols,
                   fontsize=FONT, frameon=False, borderaxespad=0.1)
    return fig, axes


def _legend_style(model, models) -> dict:
    """What a legend shows of a model's instance cost curves, and how they are drawn: the
    colour, width, marker and marker size of its curve and markers (the legend's handles,
    made with the frame, are lines of this style)."""
    return {"color": _algorithm_colours(models)[model], "lw": 1.4,
            "marker": _algorithm_markers(models)[model], "markersize": 4}


def _fill_down(ax, x, y, where, **style):
    """``ax.fill_between(x, 0, y, where=where, **style)``: the same polygons
    (:func:`_fill_polygons`) in a plain :class:`~matplotlib.collections.PolyCollection`,
    without the checks and unit handling that are most of ``fill_between``'s time (tested
    pixel for pixel against it), and without updating the data limits: the panels it
    fills have fixed limits (that update was 6 % of an instance cost curve figure's time).
    """
    from matplotlib.collections import PolyCollection

    return ax.add_collection(PolyCollection(_fill_polygons(x, y, where), **style),
                             autolim=False)


def _fill_polygons(x, y, where) -> list:
    """The polygons of ``fill_between(x, 0, y, where=where)``.

    A polygon per stretch where ``where`` holds and both are finite, in
    ``fill_between``'s order: from the stretch's first point of ``y``, along 0, up to
    its last point of ``y``, and back along ``y``.
    """
    from matplotlib import cbook

    polygons = []
    for i0, i1 in cbook.contiguous_regions(where & np.isfinite(y) & np.isfinite(x)):
        n = i1 - i0
        pts = np.zeros((2 * n + 2, 2))
        pts[0] = x[i0], y[i0]
        pts[1:n + 1, 0] = x[i0:i1]
        pts[n + 1] = x[i1 - 1], y[i1 - 1]
        pts[n + 2:, 0], pts[n + 2:, 1] = x[i0:i1][::-1], y[i0:i1][::-1]
        polygons.append(pts)
    return polygons


def _curve_style(model, k, models, n_c) -> dict:
    """How :func:`_instance_cost_curves_content` draws model ``k``'s curve: its legend
    style, and its markers at every ``every``-th cost from ``start`` (the models'
    markers staggered, so that coinciding curves still show each one's)."""
    every = max(n_c // 5, 1)
    return {**_legend_style(model, models),
            "markevery": (int(k * every / max(len(models), 1)), every)}


#: zorders of the content of an instance cost curve panel: over the spines (2.5), so the
#: panels' frame can be drawn first, once (the fills, as before, under the curves; the
#: markers over every curve)
_FILL_Z, _HATCH_Z, _CURVE_Z, _MARKER_Z = 2.51, 2.52, 2.6, 2.61


def _instance_cost_curves_content(fig, axes, checked) -> None:
    """The curves, panel titles and column heads of :func:`instance_cost_curves`.

    A panel's curves are three collections, not a line per model (some 200 lines a
    figure were half its drawing time): the solid curves (gid ``"solid"``, one segment
    per model in the models' order, broken where the curve is interpolated), the
    interpolated stretches (``"interpolated"``, dashed, one segment per model, empty
    where it has none), and the models' markers over all of them (``"markers"``).
    """
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection

    c, curves, single = checked["c"], checked["curves"], checked["single"]
    models, interpolated = checked["models"], checked["interpolated"]
    hardness, instances = checked["hardness"], checked["instances"]
    n_methods, n_instances, n_models, n_c = curves.shape
    styles = [{"color": "black", "lw": 1.4} if single
              else _curve_style(model, k, models, n_c) for k, model in enumerate(models)]
    colours = [st["color"] for st in styles]
    marks = [_marker_path(st["marker"], st["markersize"]) if "marker" in st else None
             for st in styles]
    for i in range(n_methods):
        for j in range(n_instances):
            ax = axes[i, j]
            solid, dashed = [], []
            hatched, hatch_colours = [], []  # the panel's interpolated stretches
            mark_paths, mark_at, mark_colours = [], [], []
            for k in range(n_models):
                q = curves[i, j, k]
                lo, hi = interpolated[i, j, k]
                drawn = q
                stretch = np.empty((0, 2))
                if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
                    inside = (c >= lo) & (c <= hi)
                    drawn = np.where(inside, np.nan, q)
                    # the interpolated stretch, boundary points shared with the solid part
                    stretch = np.column_stack([c[inside], q[inside]])
                    stretches = _fill_polygons(c, q, inside)
                    hatched += stretches
                    hatch_colours += [colours[k]] * len(stretches)
                solid.append(np.column_stack([c, drawn]))
                dashed.append(stretch)
                if marks[k] is not None:
                    start, every = styles[k]["markevery"]
                    at = np.arange(start, n_c, every)
                    at = at[np.isfinite(drawn[at])]
                    mark_at.append(np.column_stack([c[at], drawn[at]]))
                    mark_paths += [marks[k]] * at.size
                    mark_colours += [colours[k]] * at.size
                if single:
                    ax.fill_between(c, 0, q, color="0.85", lw=0, zorder=_FILL_Z)
            # as a line per model drew them: projecting ends and round joins when solid,
            # plain ends when dashed (matplotlib's defaults for lines)
            ax.add_collection(LineCollection(
                solid, colors=colours, linewidths=1.4, capstyle="projecting",
                joinstyle="round", zorder=_CURVE_Z, gid="solid"), autolim=False)
            ax.add_collection(LineCollection(
                dashed, colors=colours, linewidths=1.4, linestyles="--", capstyle="butt",
                joinstyle="round", zorder=_CURVE_Z, gid="interpolated"), autolim=False)
            if mark_paths:
                # marker paths in inches, placed by the data and scaled by the figure's dpi
                points = PathCollection(
                    mark_paths, offsets=np.concatenate(mark_at), offset_transform=ax.transData,
                    facecolors=mark_colours, edgecolors=mark_colours, linewidths=1.0,
                    zorder=_MARKER_Z, gid="markers")
                points.set_transform(fig.dpi_scale_trans)
                ax.add_collection(points, autolim=False)
            if hatched:
                # every model's stretches in one collection, each in its model's colour,
                # in the models' order: the pixels of one collection per model (tested)
                ax.add_collection(PolyCollection(
                    hatched, facecolor="none", edgecolors=hatch_colours, hatch="///", lw=0,
                    alpha=0.6, zorder=_HATCH_Z), autolim=False)
            if n_models > 1 and np.ptp(curves[i, j], axis=0).max() < 1e-9:
                # e.g. score-fixed when every algorithm puts the instance on one side of t
                q = curves[i, j, 0]
                third = max(len(q) // 3, 1)
                left = q[:third].mean() <= q[-third:].mean()  # the emptier top corner
                ax.text(0.04 if left else 0.96, 1.98, f"all {n_models}\ncoincide",
                        ha="left" if left else "right", va="top", fontsize=FONT, color="0.3",
                        linespacing=1.0,
                        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8,
                              "pad": 0.5})
            if hardness is not None:
                ax.set_title(f"IH = {hardness[i, j]:.3f}", fontsize=FONT, pad=2)
    title_h = 0.2 if hardness is not None else 0.0
    width, height = fig.get_size_inches()
    for j, instance in enumerate(instances):  # column heads: which instance, of which class
        x0, _, x1, y1 = axes[0, j].get_position().extents
        fig.text((x0 + x1) / 2, y1 + (title_h + 0.06) / height, str(instance), ha="center",
                 va="bottom", fontsize=FONT, fontweight="bold")


def _marker_path(marker, size):
    """A marker's outline in inches, ``size`` points across, as a line draws it."""
    from matplotlib.markers import MarkerStyle

    style = MarkerStyle(marker)
    return style.get_path().transformed(style.get_transform().frozen().scale(size / 72.0))


def class_cost_curves(c, curves, class_hardness, *, methods,
                      classes=("class 0", "class 1")) -> Figure:
    r"""Class cost curves with each panel's class hardness (Prudêncio 2019, Fig. 7).

    A class cost curve is the mean of the instance cost curves of the class; its
    area is the class hardness, the mean instance hardness of the class:

    .. math::

        CH_k = \frac{1}{|D_k|} \sum_{x \in D_k} IH^T(x)
             = \int_0^1 \frac{1}{|D_k|} \sum_{x \in D_k} QI(x, T(c), c)\, dc

    Parameters
    ----------
    c : array-like of shape (n_c,)
        Increasing cost proportions in [0, 1].
    curves : array-like of shape (n_methods, 2, n_c)
        Mean loss of each class at each ``c``.
    class_hardness : array-like of shape (n_methods, 2)
        Class hardness of class 0 and class 1 under each method (NaN for a class
        absent from the data).
    methods : sequence of str of length n_methods
        Panel titles.
    classes : pair of str, default ("class 0", "class 1")
        Legend names of the two classes.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Section 4 and Fig. 7.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.linspace(0, 1, 5)
    >>> curves = np.stack([2 * c, 2 * (1 - c)])[None] / 2
    >>> fig = class_cost_curves(c, curves, [[0.5, 0.5]], methods=["score-fixed"])
    >>> [t.get_text() for t in fig.axes[0].texts]  # each class's hardness, in class order
    ['CH = 0.500', 'CH = 0.500']
    """
    checked = _class_cost_curves_checked(c, curves, class_hardness, methods=methods,
                                         classes=classes)
    fig, panels = _class_cost_curves_frame(**checked["frame"])
    _class_cost_curves_content(fig, panels, checked)
    return fig


def _class_cost_curves_checked(c, curves, class_hardness, *, methods,
                               classes=("class 0", "class 1")) -> dict:
    """The validated input of :func:`class_cost_curves`; ``"frame"``: its frame's layout."""
    c = _array(c, "c", ndim=1)
    curves = _array(curves, "curves", ndim=3, allow_nan=True)
    class_hardness = _array(class_hardness, "class_hardness", ndim=2, allow_nan=True)
    n_methods = curves.shape[0]
    if curves.shape[1:] != (2, c.size):
        raise ValueError(f"curves must have shape (n_methods, 2, {c.size}), got {curves.shape}")
    if class_hardness.shape != (n_methods, 2):
        raise ValueError(f"class_hardness must have shape {(n_methods, 2)}, "
                         f"got {class_hardness.shape}")
    methods = _labels(methods, n_methods, "methods")
    classes = _labels(classes, 2, "classes")
    finite = curves[np.isfinite(curves)]
    # room above the highest curve for the legend, rounded up to a quarter: a round top
    # tick, and a few y ranges in all (a frame each)
    y_top = (float(np.clip(np.ceil(1.45 * finite.max() * 4) / 4, 0.5, 2.05))
             if finite.size else 2.05)
    return {"c": c, "curves": curves, "class_hardness": class_hardness, "classes": classes,
            "frame": {"methods": tuple(methods), "y_top": y_top}}


def _class_cost_curves_frame(*, methods, y_top):
    """The panels of :func:`class_cost_curves`: titles, axes (y from 0 to ``y_top``) and
    labels. Returns the figure and ``(panels, spare slots)``."""
    from matplotlib.ticker import FixedLocator

    n_methods = len(methods)
    ncols = min(n_methods, 3)
    spare_slot = n_methods % ncols != 0
    fig, panels, spare = _wrapped_grid(n_methods, ncols_max=3, panel=(1.95, 1.55), left=0.75,
                                       right=0.15, bottom=0.55 if spare_slot else 0.85,
                                       top=0.3, wgap=0.2, hgap=0.85, sharey=True)
    panels[0].set_ylim(0, y_top)  # shared by every panel
    for i, method in enumerate(methods):
        ax = panels[i]
        ax.set_title(_method_title(method), fontsize=FONT)
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_locator(FixedLocator([0, 0.5, 1]))
        ax.xaxis.set_major_formatter(_short_number)
        ax.set_xlabel("cost proportion c", fontsize=FONT)
        ax.tick_params(labelsize=FONT)
        if i % ncols == 0:
            ax.set_ylabel("mean loss", fontsize=FONT)
    return fig, (panels, spare)


def _class_cost_curves_content(fig, frame, checked) -> None:
    """The curves, each panel's class hardness and the legend of :func:`class_cost_curves`.

    A panel's class hardness is a key of its own, in the panel's upper centre: per class
    drawn, a short line of the class's style and the text ``CH = ...`` (gid
    ``"class-hardness"``), placed where a legend of the panel puts them
    (:func:`_panel_key_places`), at a fifth of a legend's drawing time.
    """
    from matplotlib.lines import Line2D

    panels, spare = frame
    c, curves, class_hardness = checked["c"], checked["curves"], checked["class_hardness"]
    classes = checked["classes"]
    handles = {}
    for i, ax in enumerate(panels):
        places = _panel_key_places(tuple(ax.get_position().size * fig.get_size_inches()),
                                   FONT, _key_settings())
        row = 0
        for k in range(2):
            if not np.isfinite(curves[i, k]).any():
                continue
            (line,) = ax.plot(c, curves[i, k], color=_CLASS_COLOURS[k], ls=_CLASS_STYLES[k],
                              lw=1.6)
            handles.setdefault(k, line)
            # each panel's own class hardness; which class is which: the one legend below
            (x0, x1, y), (tx, ty) = places[row]
            ax.add_line(Line2D([x0, x1], [y, y], transform=ax.transAxes, clip_on=False,
                               color=_CLASS_COLOURS[k], ls=_CLASS_STYLES[k], lw=1.6,
                               gid="class-hardness"))
            ax.text(tx, ty, f"CH = {class_hardness[i, k]:.3f}", transform=ax.transAxes,
                    fontsize=FONT, ha="left", va="bottom", gid="class-hardness")
            row += 1
    key = [handles[k] for k in sorted(handles)]
    names = [classes[k] for k in sorted(handles)]
    if spare:
        x0, y0, x1, y1 = spare[0]
        fig.legend(key, names, loc="center", bbox_to_anchor=((x0 + x1) / 2, (y0 + y1) / 2),
                   fontsize=FONT, frameon=False, title="CH = class hardness",
                   title_fontsize=FONT)
    else:
        fig.legend(key, names, loc="lower center", ncols=2, fontsize=FONT, frameon=False,
                   borderaxespad=0.1, title="CH = class hardness", title_fontsize=FONT)


def _key_settings() -> tuple:
    """The settings a legend's layout depends on besides its panel (fonts, text, legend)."""
    import matplotlib

    params = matplotlib.rcParams
    return tuple((k, repr(params[k])) for k in sorted(params)
                 if k.startswith(("font.", "text.", "legend.")))


@functools.lru_cache(maxsize=8)
def _panel_key_places(size, fontsize, settings):
    """Where ``ax.legend(lines, labels, loc="upper center", frameon=False,
    handlelength=1.6, borderaxespad=0.1, labelspacing=0.15)`` puts two entries
    ``CH = 0.000`` wide in a panel of ``size`` inches: per row, ``((x0, x1, y) of the
    handle's line, (x, y) of the text's lower left)``, in the panel's axes fraction.

    Measured once per panel size and settings (:func:`_key_settings`, in force) on a
    legend drawn for the purpose at 72 dpi, the points of an SVG figure (the digits of
    the report's font are all as wide: every ``CH = d.ddd`` takes the same room).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    fig = Figure(figsize=size, dpi=72)
    ax = fig.add_axes((0, 0, 1, 1))
    lines = [Line2D([], [], lw=1.6) for _ in range(2)]
    leg = ax.legend(lines, ["CH = 0.000"] * 2, fontsize=fontsize, loc="upper center",
                    frameon=False, handlelength=1.6, borderaxespad=0.1, labelspacing=0.15)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    to_axes = ax.transAxes.inverted()
    places = []
    for line, text in zip(leg.get_lines(), leg.get_texts(), strict=True):
        ends = line.get_transform().transform(np.column_stack(line.get_data()))
        (x0, y), (x1, _) = to_axes.transform(ends[[0, -1]])
        tx, ty = to_axes.transform(text.get_window_extent(canvas.get_renderer()).p0)
        places.append(((float(x0), float(x1), float(y)), (float(tx), float(ty))))
    return tuple(places)
