"""Figures of the cited papers, drawn from precomputed arrays and frames.

Every public function here only draws: it takes arrays or tidy frames that a
computing function (:mod:`metaeval.report.data`, :mod:`metaeval.hardness`,
:mod:`metaeval.ranking`, :mod:`metaeval.benchmark`) produced and returns a new
:class:`matplotlib.figure.Figure`. No function touches pyplot's global state
and none saves anything: ``fig.savefig(path)`` is the caller's.

The figures follow Prudêncio (2019) [1]_ (cost curves, hardness maps), Melo & Prudêncio
(2014) [2]_ [3]_ (dendrograms), Abdulrahman & Brazdil (2014) [4]_ (ARR and A3R) and
the algorithm-benchmark web page on value captured, metric disagreement and bootstrap
stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).

References
----------
.. [1] R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
   learning", ECML PKDD 2019.
.. [2] C. E. C. de Melo and R. B. C. Prudêncio, "Cost-sensitive measures of algorithm
   similarity for meta-learning", BRACIS 2014.
.. [3] C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
   performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
   Vol-1201, paper 4).
.. [4] S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
   meta-learning", MetaSel workshop at ECAI 2014.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

__all__ = [
    "METHOD_ABBREVIATIONS",
    "a3r_curves",
    "arr_curves",
    "class_cost_curves",
    "correlation_heatmap",
    "cost_hardness_maps",
    "critical_difference_diagram",
    "dendrograms",
    "hardness_maps",
    "heatmap",
    "instance_cost_curves",
    "instance_space_map",
    "iso_a3r_curves",
    "portfolio_curve",
    "projection_map",
    "rank_table",
    "ranked_bars",
    "smallest_font_pt",
    "stability_grid",
]

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

    Titles sit at the top of their axes (``axes.titley = 1``) instead of matplotlib
    measuring every tick label to lift them over decorations on top: none of these
    figures has any there that its title's ``pad`` does not already clear, and the
    measuring took about a fifth of a multi-panel figure's drawing time.
    """
    import matplotlib

    return matplotlib.rc_context({"axes.titley": 1.0})


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
    ax.set_xticks([])
    ax.set_yticks([])


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
    """Black or white, whichever reads better on a cell of colour ``rgba``."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


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
    if not single:  # the models' lines as the content draws them (see _curve_style)
        handles = [Line2D([], [], label=model, **_legend_style(model, models))
                   for model in models]
        fig.legend(handles, list(models), loc="lower center", ncols=legend_cols,
                   fontsize=FONT, frameon=False, borderaxespad=0.1)
    return fig, axes


def _legend_style(model, models) -> dict:
    """What a legend shows of a model's instance cost curves: all a legend copies from
    a line (:meth:`matplotlib.lines.Line2D.update_from`), so the legend made with the frame
    is the one the drawn lines would give."""
    return {"color": _algorithm_colours(models)[model], "lw": 1.4,
            "marker": _algorithm_markers(models)[model], "markersize": 4}


def _fill_down(ax, x, y, where, **style):
    """``ax.fill_between(x, 0, y, where=where, **style)``: the same polygons in a plain
    :class:`~matplotlib.collections.PolyCollection`, without the checks and unit handling
    that are most of ``fill_between``'s time (tested pixel for pixel against it).

    A polygon per stretch where ``where`` holds and both are finite, in
    ``fill_between``'s order: from the stretch's first point of ``y``, along 0, up to
    its last point of ``y``, and back along ``y``.
    """
    from matplotlib import cbook
    from matplotlib.collections import PolyCollection

    polygons = []
    for i0, i1 in cbook.contiguous_regions(where & np.isfinite(y) & np.isfinite(x)):
        n = i1 - i0
        pts = np.zeros((2 * n + 2, 2))
        pts[0] = x[i0], y[i0]
        pts[1:n + 1, 0] = x[i0:i1]
        pts[n + 1] = x[i1 - 1], y[i1 - 1]
        pts[n + 2:, 0], pts[n + 2:, 1] = x[i0:i1][::-1], y[i0:i1][::-1]
        polygons.append(pts)
    return ax.add_collection(PolyCollection(polygons, **style))


def _curve_style(model, k, models, n_c) -> dict:
    """How :func:`_instance_cost_curves_content` draws model ``k``'s solid line."""
    every = max(n_c // 5, 1)
    return {**_legend_style(model, models), "gid": "solid", "zorder": _CURVE_Z,
            "markevery": (int(k * every / max(len(models), 1)), every)}


#: zorders of the content of an instance cost curve panel: over the spines (2.5), so the
#: panels' frame can be drawn first, once (the fills, as before, under the curves)
_FILL_Z, _HATCH_Z, _CURVE_Z = 2.51, 2.52, 2.6


def _instance_cost_curves_content(fig, axes, checked) -> None:
    """The curves, panel titles and column heads of :func:`instance_cost_curves`."""
    c, curves, single = checked["c"], checked["curves"], checked["single"]
    models, interpolated = checked["models"], checked["interpolated"]
    hardness, instances = checked["hardness"], checked["instances"]
    n_methods, n_instances, n_models, n_c = curves.shape
    styles = [{"color": "black", "lw": 1.4, "gid": "solid", "zorder": _CURVE_Z} if single
              else _curve_style(model, k, models, n_c) for k, model in enumerate(models)]
    for i in range(n_methods):
        for j in range(n_instances):
            ax = axes[i, j]
            for k, model in enumerate(models):
                q = curves[i, j, k]
                style = styles[k]
                colour = style["color"]
                lo, hi = interpolated[i, j, k]
                if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
                    inside = (c >= lo) & (c <= hi)
                    ax.plot(c, np.where(inside, np.nan, q), label=model or None, **style)
                    # the interpolated stretch, boundary points shared with the solid part
                    ax.plot(c[inside], q[inside], color=colour, lw=1.4, ls="--",
                            gid="interpolated", zorder=_CURVE_Z)
                    _fill_down(ax, c, q, inside, facecolor="none", edgecolor=colour,
                               hatch="///", lw=0, alpha=0.6, zorder=_HATCH_Z)
                else:
                    ax.plot(c, q, label=model or None, **style)
                if single:
                    ax.fill_between(c, 0, q, color="0.85", lw=0, zorder=_FILL_Z)
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
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()  # class 0: the figure's legend
    'CH = 0.500'
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
    return {"c": c, "curves": curves, "class_hardness": class_hardness, "classes": classes,
            "frame": {"methods": tuple(methods)}}


def _class_cost_curves_frame(*, methods):
    """The panels of :func:`class_cost_curves`: titles, x axes and labels (the y limits
    follow the data). Returns the figure and ``(panels, spare slots)``."""
    from matplotlib.ticker import FixedLocator

    n_methods = len(methods)
    ncols = min(n_methods, 3)
    spare_slot = n_methods % ncols != 0
    fig, panels, spare = _wrapped_grid(n_methods, ncols_max=3, panel=(1.95, 1.55), left=0.75,
                                       right=0.15, bottom=0.55 if spare_slot else 0.85,
                                       top=0.3, wgap=0.2, hgap=0.85, sharey=True)
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


def _class_cost_curves_fixed(fig, frame) -> list:
    """The artists of :func:`_class_cost_curves_frame` that the content leaves as they
    are, for a given y range: each panel's background, axes, spines and title."""
    panels, _ = frame
    return [a for ax in panels
            for a in (ax.patch, *ax.spines.values(), ax.xaxis, ax.yaxis, ax.title)]


def _class_cost_curves_content(fig, frame, checked) -> None:
    """The curves, limits and legends of :func:`class_cost_curves`."""
    panels, spare = frame
    c, curves, class_hardness = checked["c"], checked["curves"], checked["class_hardness"]
    classes = checked["classes"]
    finite = curves[np.isfinite(curves)]
    # room above the highest curve for the legend, rounded up to a quarter: a round top
    # tick, and a few y ranges in all (their axes are drawn once: _class_cost_curves_fixed)
    y_top = (float(np.clip(np.ceil(1.45 * finite.max() * 4) / 4, 0.5, 2.05))
             if finite.size else 2.05)
    handles = {}
    for i, ax in enumerate(panels):
        drawn, labels = [], []
        for k in range(2):
            if not np.isfinite(curves[i, k]).any():
                continue
            (line,) = ax.plot(c, curves[i, k], color=_CLASS_COLOURS[k], ls=_CLASS_STYLES[k],
                              lw=1.6)
            handles.setdefault(k, line)
            drawn.append(line)
            labels.append(f"CH = {class_hardness[i, k]:.3f}")
        ax.set_ylim(0, y_top)
        # each panel's own class hardness; which class is which: the one legend below
        ax.legend(drawn, labels, fontsize=FONT, loc="upper center", frameon=False,
                  handlelength=1.6, borderaxespad=0.1, labelspacing=0.15)
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


def projection_map(xy, y, *, classes=("class 0", "class 1"), axis_labels=("PC1", "PC2"),
                   title=None, note=None) -> Figure:
    """Instances on a 2-D projection, coloured by class (Prudêncio 2019, Fig. 8).

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
        Projected coordinates, e.g. from :func:`metaeval.report.data.pca_projection`.
    y : array-like of shape (n_instances,)
        Class labels 0/1.
    classes : pair of str
        Legend names of class 0 and class 1.
    axis_labels : pair of str
        Axis names, e.g. with the explained variance.
    title : str, optional

    note : str, optional
        A line printed under the panels (e.g. how many instances are drawn).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = projection_map([[0, 0], [1, 1], [2, 0]], [0, 1, 1])
    >>> len(fig.axes[0].collections)
    2
    """
    checked = _projection_map_checked(xy, y, classes=classes, axis_labels=axis_labels,
                                      title=title, note=note)
    fig, axes = _projection_map_frame(**checked["frame"])
    _projection_map_content(fig, axes, checked)
    return fig


def _projection_map_checked(xy, y, *, classes=("class 0", "class 1"),
                            axis_labels=("PC1", "PC2"), title=None, note=None) -> dict:
    """The validated input of :func:`projection_map`; ``"frame"``: its frame's layout."""
    xy = _array(xy, "xy", ndim=2)
    if xy.shape[1] != 2:
        raise ValueError(f"xy must have 2 columns, got {xy.shape[1]}")
    y = _binary(y, xy.shape[0])
    classes = _labels(classes, 2, "classes")
    return {"xy": xy, "y": y, "classes": classes, "axis_labels": axis_labels,
            "title": title, "note": note, "frame": {}}


def _projection_map_frame():
    """The empty panel of :func:`projection_map`."""
    fig, axes = _grid(1, 1, panel=(3.6, 3.0), left=0.35, bottom=0.35, top=0.3)
    _clear_ticks(axes[0, 0])
    return fig, axes


def _projection_map_content(fig, axes, checked) -> list:
    """What :func:`projection_map` draws on its frame; returns the frame's artists it
    changed (see :func:`_hardness_maps_content`)."""
    ax = axes[0, 0]
    xy, y, classes = checked["xy"], checked["y"], checked["classes"]
    _fix_shared_limits([ax], xy)
    size = _point_size(xy.shape[0])
    for k in range(2):
        m = y == k
        ax.scatter(xy[m, 0], xy[m, 1], s=size, color=_CLASS_COLOURS[k], alpha=0.7, lw=0,
                   label=f"{classes[k]} ({int(m.sum())})", zorder=_POINTS_Z)
    ax.set_xlabel(checked["axis_labels"][0], fontsize=FONT)
    ax.set_ylabel(checked["axis_labels"][1], fontsize=FONT)
    ax.legend(fontsize=FONT, markerscale=2)
    if checked["title"]:
        ax.set_title(checked["title"], fontsize=FONT)
    _note(fig, checked["note"])
    return [_AxisLabel(ax.xaxis), _AxisLabel(ax.yaxis)]


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
        self.axis._update_label_position(renderer)  # as Axis.draw places it
        self.axis.label.draw(renderer)


#: zorder of the points of a map: over the panel's frame (spines 2.5), so the frame can be
#: drawn once for many maps (:mod:`metaeval.report._backdrop`)
_POINTS_Z = 2.6


def _map_panel(ax, xy, values, mask, *, vmax, size, cmap=None):
    # the other class: small, light and underneath, so it frames without hiding
    ax.scatter(xy[~mask, 0], xy[~mask, 1], s=size * 0.5, color="0.9", lw=0, zorder=_POINTS_Z)
    order = np.argsort(values[mask], kind="stable")  # hardest drawn on top
    pts = xy[mask][order]
    return ax.scatter(pts[:, 0], pts[:, 1], c=values[mask][order], s=size,
                      cmap=cmap or _hardness_cmap(), vmin=0.0, vmax=vmax, lw=0,
                      zorder=_POINTS_Z)


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


def hardness_maps(xy, y, hardness, *, methods, classes=("class 0", "class 1"),
                  axis_labels=("PC1", "PC2"), vmax=1.0, note=None) -> Figure:
    """Hardness maps: instances of each class coloured by hardness (Prudêncio 2019, Figs. 9, 12).

    Rows are the threshold choice methods, columns the two classes (``fig.axes`` runs
    through class 0, then class 1). Instances of
    the other class are drawn in light grey for context; the hardest instances
    are drawn on top.

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
        Projected coordinates.
    y : array-like of shape (n_instances,)
        Class labels 0/1.
    hardness : array-like of shape (n_instances, n_methods)
        Instance (pool) hardness under each method.
    methods : sequence of str of length n_methods
        Column titles.
    classes : pair of str
        Row names.
    axis_labels : pair of str
    vmax : float, default 1.0
        Top of the shared colour scale (instance hardness lies in [0, 1]).

    note : str, optional
        A line printed under the panels (e.g. how many instances are drawn).

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Section 4, Figs. 9 and 12.

    Examples
    --------
    >>> import numpy as np
    >>> fig = hardness_maps(np.eye(3)[:, :2], [0, 1, 1], np.full((3, 2), 0.5),
    ...                     methods=["score-driven", "rate-driven"])
    >>> len(fig.axes)  # 2 x 2 panels and the colour bar
    5
    """
    checked = _hardness_maps_checked(xy, y, hardness, methods=methods, classes=classes,
                                     axis_labels=axis_labels, vmax=vmax, note=note)
    fig, axes = _hardness_maps_frame(**checked["frame"])
    _hardness_maps_content(fig, axes, checked)
    return fig


def _hardness_maps_checked(xy, y, hardness, *, methods, classes=("class 0", "class 1"),
                           axis_labels=("PC1", "PC2"), vmax=1.0, note=None) -> dict:
    """The validated input of :func:`hardness_maps`; ``"frame"``: its frame's layout."""
    xy = _array(xy, "xy", ndim=2)
    if xy.shape[1] != 2:
        raise ValueError(f"xy must have 2 columns, got {xy.shape[1]}")
    n = xy.shape[0]
    y = _binary(y, n)
    hardness = _array(hardness, "hardness", ndim=2)
    if hardness.shape[0] != n:
        raise ValueError(f"hardness has {hardness.shape[0]} rows, xy has {n}")
    methods = _labels(methods, hardness.shape[1], "methods")
    classes = _labels(classes, 2, "classes")
    return {"xy": xy, "y": y, "hardness": hardness, "methods": methods, "classes": classes,
            "axis_labels": axis_labels, "vmax": vmax, "note": note,
            "frame": {"n_methods": len(methods), "with_note": bool(note),
                      "vmax": float(vmax)}}


def _hardness_maps_frame(*, n_methods, with_note, vmax):
    """The empty panels of :func:`hardness_maps` and their colour bar (a scale fixed in
    advance: nothing here depends on the data)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    # one row per method, class 0 left of class 1: the classes compare side by side and
    # the figure stays narrow enough for a small screen (axes run class 0, then class 1)
    bottom = 0.4 + (0.2 if with_note else 0.0)
    fig, axes = _class_major_grid(n_methods, 2, panel=(2.3, 1.7), left=0.3, right=1.25,
                                  bottom=bottom, top=0.3, wgap=0.12, hgap=0.32)
    for ax in axes.flat:
        _clear_ticks(ax)
    scale = ScalarMappable(norm=Normalize(0.0, vmax), cmap=_hardness_cmap())
    _side_colorbar(fig, scale, right=1.25, top=0.3, bottom=bottom,
                   label="instance hardness (0 = easy)")
    return fig, axes


def _hardness_maps_content(fig, axes, checked) -> list:
    """Points, titles, axis labels, colour bar and note of :func:`hardness_maps`.

    Returns the frame's artists it changed (the axes that got a label), to be drawn
    again on a frame drawn once.
    """
    xy, y, hardness = checked["xy"], checked["y"], checked["hardness"]
    methods, classes, axis_labels = checked["methods"], checked["classes"], checked["axis_labels"]
    n_m = len(methods)
    size = _point_size(xy.shape[0])
    _fix_shared_limits(axes, xy)
    changed = []
    for k in range(2):
        for j, method in enumerate(methods):
            ax = axes[j, k]
            mask = y == k
            _map_panel(ax, xy, hardness[:, j], mask, vmax=checked["vmax"], size=size)
            ch = hardness[mask, j].mean() if mask.any() else float("nan")
            ax.set_title(f"{classes[k]} · {METHOD_ABBREVIATIONS.get(method, method)}"
                         f" · CH = {ch:.2f}", fontsize=FONT)
            if j == n_m - 1:
                ax.set_xlabel(axis_labels[0], fontsize=FONT)
                changed.append(_AxisLabel(ax.xaxis))
            if k == 0:
                ax.set_ylabel(axis_labels[1], fontsize=FONT)
                changed.append(_AxisLabel(ax.yaxis))
    _note(fig, checked["note"])
    return changed


def cost_hardness_maps(xy, y, losses, *, methods, cost_proportions, target_class,
                       classes=("class 0", "class 1"), axis_labels=("PC1", "PC2"),
                       vmax=None, note=None) -> Figure:
    """Instance loss at chosen cost proportions for one class (Prudêncio 2019, Figs. 10-11).

    Rows are cost proportions, columns are methods; the instances of
    ``target_class`` are coloured by their loss :math:`QI(x, T(c), c)` (pool
    mean), which lies in [0, 2].

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
    y : array-like of shape (n_instances,)
    losses : array-like of shape (n_instances, n_methods, n_c)
        Pool-mean instance loss at each cost proportion.
    methods : sequence of str of length n_methods
    cost_proportions : sequence of float of length n_c
    target_class : {0, 1}
        The class whose instances are coloured.
    classes : pair of str
    axis_labels : pair of str
    vmax : float, optional
        Top of the colour scale; default: the largest loss of ``target_class``
        rounded up to 0.1 (a loss lies in [0, 2], but a fixed 0-2 scale hides
        differences on easy data).

    note : str, optional
        A line printed under the panels (e.g. how many instances are drawn).

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Section 4, Figs. 10 and 11.

    Examples
    --------
    >>> import numpy as np
    >>> fig = cost_hardness_maps(np.eye(3)[:, :2], [0, 1, 1], np.zeros((3, 1, 2)),
    ...                          methods=["rate-driven"], cost_proportions=[0.2, 0.8],
    ...                          target_class=1)
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['class 1 · RD · c = 0.2', 'class 1 · RD · c = 0.8']
    """
    checked = _cost_hardness_maps_checked(
        xy, y, losses, methods=methods, cost_proportions=cost_proportions,
        target_class=target_class, classes=classes, axis_labels=axis_labels, vmax=vmax,
        note=note)
    fig, axes = _cost_hardness_maps_frame(**checked["frame"])
    _cost_hardness_maps_content(fig, axes, checked)
    _cost_hardness_maps_colorbar(fig, checked)
    return fig


def _cost_hardness_maps_checked(xy, y, losses, *, methods, cost_proportions, target_class,
                                classes=("class 0", "class 1"), axis_labels=("PC1", "PC2"),
                                vmax=None, note=None) -> dict:
    """The validated input of :func:`cost_hardness_maps`; ``"frame"``: its frame's layout."""
    xy = _array(xy, "xy", ndim=2)
    if xy.shape[1] != 2:
        raise ValueError(f"xy must have 2 columns, got {xy.shape[1]}")
    n = xy.shape[0]
    y = _binary(y, n)
    losses = _array(losses, "losses", ndim=3)
    cost_proportions = _array(cost_proportions, "cost_proportions", ndim=1)
    if losses.shape[0] != n or losses.shape[2] != cost_proportions.size:
        raise ValueError(f"losses must have shape ({n}, n_methods, {cost_proportions.size}), "
                         f"got {losses.shape}")
    methods = _labels(methods, losses.shape[1], "methods")
    if target_class not in (0, 1):
        raise ValueError(f"target_class must be 0 or 1, got {target_class!r}")
    classes = _labels(classes, 2, "classes")
    mask = y == target_class
    if vmax is None:  # the scale of this class's losses, not the 0-2 range of any loss
        top_loss = float(losses[mask].max()) if mask.any() else 0.0
        vmax = max(np.ceil(top_loss * 10) / 10, 0.1)
    titles = tuple(tuple(f"{classes[target_class]} · {METHOD_ABBREVIATIONS.get(m, m)}"
                         f" · c = {cp:g}" for m in methods) for cp in cost_proportions)
    return {"xy": xy, "mask": mask, "losses": losses, "methods": methods,
            "cost_proportions": cost_proportions, "axis_labels": axis_labels, "vmax": vmax,
            "note": note, "frame": {"titles": titles, "with_note": bool(note)}}


def _cost_hardness_maps_frame(*, titles, with_note):
    """The panels of :func:`cost_hardness_maps` and their titles (a row per cost)."""
    bottom = 0.4 + (0.2 if with_note else 0.0)
    fig, axes = _grid(len(titles), len(titles[0]), panel=(2.0, 1.7), left=0.3, right=1.25,
                      bottom=bottom, top=0.3, wgap=0.12, hgap=0.32, sharex=True, sharey=True)
    for ax, title in zip(axes.flat, (t for row in titles for t in row), strict=True):
        _clear_ticks(ax)
        ax.set_title(title, fontsize=FONT)
    return fig, axes


def _cost_hardness_maps_content(fig, axes, checked) -> list:
    """The points, axis labels and note of :func:`cost_hardness_maps` (its colour bar:
    :func:`_cost_hardness_maps_colorbar`); returns the artists of the frame it changed
    (see :func:`_hardness_maps_content`)."""
    xy, mask, losses = checked["xy"], checked["mask"], checked["losses"]
    axis_labels = checked["axis_labels"]
    n_c, n_m = axes.shape
    size = _point_size(xy.shape[0])
    _fix_shared_limits(axes, xy)
    changed = []
    for i in range(n_c):
        for j in range(n_m):
            ax = axes[i, j]
            _map_panel(ax, xy, losses[:, j, i], mask, vmax=checked["vmax"], size=size)
            if i == n_c - 1:
                ax.set_xlabel(axis_labels[0], fontsize=FONT)
                changed.append(_AxisLabel(ax.xaxis))
            if j == 0:
                ax.set_ylabel(axis_labels[1], fontsize=FONT)
                changed.append(_AxisLabel(ax.yaxis))
    _note(fig, checked["note"])
    return changed


def _cost_hardness_maps_colorbar(fig, checked) -> list:
    """The colour bar of :func:`cost_hardness_maps` (0 to ``vmax``); returns its axes."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    bottom = 0.4 + (0.2 if checked["note"] else 0.0)
    scale = ScalarMappable(norm=Normalize(0.0, checked["vmax"]), cmap=_hardness_cmap())
    return [_side_colorbar(fig, scale, right=1.25, top=0.3, bottom=bottom,
                           label="loss QI at c").ax]


# ------------------------------------------------------------ Melo & Prudêncio (2014)
def dendrograms(linkages, labels, *, cut_height=None, titles=None, ylabel="dissimilarity",
                title=None, max_labelled=60) -> Figure:
    """Dendrograms of algorithm dissimilarity, one panel per method (Melo & Prudêncio 2014).

    Draws each average-linkage tree with :func:`scipy.cluster.hierarchy.dendrogram`
    on its own axes; clusters below the cut height are coloured and the cut is a
    dashed horizontal line.

    Parameters
    ----------
    linkages : mapping of str to array-like of shape (n_models - 1, 4)
        Linkage matrix per method (e.g. from
        :func:`metaeval.similarity.average_linkage`).
    labels : sequence of str of length n_models
        Leaf names, in the order of the dissimilarity matrix rows.
    cut_height : float or mapping of str to float, optional
        Where the tree is cut into clusters; None draws no cut.
    titles : mapping of str to str, optional
        Panel titles per method (default: the method with its abbreviation).
    ylabel : str
    title : str, optional
        Figure title, above the panels.
    max_labelled : int, default 60
        With more leaves than this (a wide pool), the leaves are not named: hundreds
        of names on a panel a few inches wide only overprint each other. A note says
        how many leaves there are.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
    performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
    Vol-1201, paper 4), Sections 7-8, Figs. 3-8; C. E. C. de Melo and R. B. C.
    Prudêncio, "Cost-sensitive measures of algorithm similarity for meta-learning",
    BRACIS 2014, Sections VII-VIII, Figs. 2-5 (score-driven and rate-driven only).

    Examples
    --------
    >>> from scipy.cluster.hierarchy import linkage
    >>> Z = linkage([0.1, 0.5, 0.45], method="average")
    >>> fig = dendrograms({"score-driven": Z}, ["3NN", "5NN", "NB"], cut_height=0.3)
    >>> [line.get_gid() for line in fig.axes[0].lines]
    ['cut']
    """
    checked = _dendrograms_checked(linkages, labels, cut_height=cut_height, titles=titles,
                                   ylabel=ylabel, title=title, max_labelled=max_labelled)
    fig, axes = _dendrograms_frame(**checked["frame"])
    _dendrograms_content(fig, axes, checked)
    return fig


def _dendrograms_checked(linkages, labels, *, cut_height=None, titles=None,
                         ylabel="dissimilarity", title=None, max_labelled=60) -> dict:
    """The validated input of :func:`dendrograms`; ``"frame"``: its frame's layout."""
    from scipy.cluster.hierarchy import is_valid_linkage

    if not isinstance(linkages, Mapping) or not linkages:
        raise ValueError("linkages must be a non-empty mapping of method to linkage matrix")
    labels = [str(v) for v in labels]
    named = len(labels) <= max_labelled
    longest = max((len(v) for v in labels), default=1) if named else 0
    checked = {}
    for method, Z in linkages.items():
        Z = _array(Z, f"linkages[{method!r}]", ndim=2)
        if not is_valid_linkage(Z) or Z.shape[0] + 1 != len(labels):
            raise ValueError(f"linkages[{method!r}] is not a valid linkage matrix for "
                             f"{len(labels)} labels")
        checked[method] = Z
    cuts = {m: (cut_height.get(m) if isinstance(cut_height, Mapping) else cut_height)
            for m in checked}
    note = ("Coloured branches: the clusters below the dashed cut; grey: merges above it."
            if any(c is not None for c in cuts.values()) else None)
    if not named:
        note = (f"{len(labels)} leaves, not named (more than {max_labelled}). " + (note or ""))
    return {"linkages": checked, "labels": labels, "named": named, "cuts": cuts,
            "titles": titles, "ylabel": ylabel, "title": title, "note": note,
            "frame": {"n": len(checked), "longest": longest, "with_note": bool(note),
                      "with_title": bool(title)}}


def _dendrograms_frame(*, n, longest, with_note, with_title):
    """The empty panels of :func:`dendrograms` (scipy draws each tree's axes itself)."""
    fig, axes, _ = _wrapped_grid(n, ncols_max=3, panel=(1.95, 1.9), left=0.75, right=0.15,
                                 bottom=0.2 + 0.085 * longest + (0.25 if with_note else 0.0),
                                 top=0.55 + (0.3 if with_title else 0.0), wgap=0.2,
                                 hgap=0.6 + 0.085 * longest, sharey=True)
    return fig, axes


def _dendrograms_content(fig, axes, checked) -> None:
    """The trees, cuts, titles and notes of :func:`dendrograms`."""
    from scipy.cluster.hierarchy import dendrogram

    linkages, cuts, titles = checked["linkages"], checked["cuts"], checked["titles"]
    # one vertical scale for every panel, so heights compare across methods
    top = max([float(Z[:, 2].max()) for Z in linkages.values()]
              + [float(c) for c in cuts.values() if c is not None])
    top = _nice_ceiling(top * 1.08) if top > 0 else 1.0
    for col, (ax, (method, Z)) in enumerate(zip(axes, linkages.items(), strict=True)):
        cut = cuts[method]
        dendrogram(Z, labels=checked["labels"], ax=ax, leaf_rotation=90, leaf_font_size=FONT,
                   link_color_func=_cluster_colours(Z, cut), no_labels=not checked["named"])
        head = titles.get(method, method) if titles else _method_title(method)
        if cut is not None:
            ax.axhline(cut, color="crimson", ls="--", lw=1.0, gid="cut")
            head = f"{head}\ncut at {cut:.2f}"
        ax.set_ylim(0, top)
        ax.set_title(head, fontsize=FONT)
        if col % 3 == 0:
            ax.set_ylabel(checked["ylabel"], fontsize=FONT)
            ax.tick_params(axis="y", labelleft=True)
        ax.tick_params(axis="y", labelsize=FONT)
    if checked["title"]:
        fig.suptitle(checked["title"], fontsize=TITLE,
                     y=1 - 0.06 / fig.get_size_inches()[1], va="top")
    _note(fig, checked["note"])


#: mantissas of :func:`_nice_ceiling`
_NICE = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0)


def _nice_ceiling(x: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8 times a power of ten
    that is at least ``x`` (> 0): a round axis top, and few of them across datasets.

    >>> [_nice_ceiling(v) for v in (0.176, 0.307, 0.93, 1.0, 47.0, 3e-16)]
    [0.2, 0.35, 1.0, 1.0, 50.0, 3e-16]
    """
    decade = 10.0 ** np.floor(np.log10(x))
    mantissa = next(m for m in _NICE if m * decade >= x * (1 - 1e-12))
    return float(f"{mantissa * decade:.12g}")  # 0.30000000000000004 -> 0.3


def _dendrograms_fixed(fig, axes) -> list:
    """The artists of :func:`_dendrograms_frame` that the content leaves as they are, for
    a given y range: each panel's background, spines and y axis (scipy sets the x axis's
    ticks to the leaves)."""
    return [a for ax in axes for a in (ax.patch, *ax.spines.values(), ax.yaxis)]


def _cluster_colours(Z, cut, *, above="#595959"):
    """``link_color_func`` for scipy's dendrogram: one Okabe-Ito colour per cluster below
    the cut, dark grey for the joins above it."""
    n = Z.shape[0] + 1
    parent = {int(c): n + i for i, row in enumerate(Z) for c in row[:2]}
    palette = ("#E69F00", "#56B4E9", "#009E73", "#D55E00", "#CC79A7", "#0072B2")
    colour_of: dict[int, str] = {}

    def root_below_cut(k):  # the highest node below the cut that holds node k
        while k in parent and Z[parent[k] - n, 2] <= cut:
            k = parent[k]
        return k

    def link_colour(k):
        if cut is None or Z[k - n, 2] > cut:
            return above
        root = root_below_cut(k)
        if root not in colour_of:
            colour_of[root] = palette[len(colour_of) % len(palette)]
        return colour_of[root]
    return link_colour


# -------------------------------------------------------- Abdulrahman & Brazdil (2014)
_TIME_AXIS = "time ratio Tp / Tq (log scale)"
_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075"
                                             "\u2076\u2077\u2078\u2079")


def _power_of_ten(k: int) -> str:
    """``10⁻³`` for k = -3 (plain text: no math renderer needed, stays text in SVG)."""
    return "1" if k == 0 else "10" + str(int(k)).translate(_SUPERSCRIPT)


def _time_ratio_axis(ax, x):
    """Tick a log2 time-ratio axis at powers of ten, labelled as ratios."""
    lo, hi = float(np.nanmin(x)), float(np.nanmax(x))
    k_lo, k_hi = int(np.ceil(lo / np.log2(10))), int(np.floor(hi / np.log2(10)))
    step = max(1, int(np.ceil((k_hi - k_lo + 1) / 6)))
    ks = [k for k in range(k_lo, k_hi + 1) if k % step == 0]
    ax.set_xticks([k * np.log2(10) for k in ks], [_power_of_ten(k) for k in ks])
    ax.set_xlim(lo, hi)


def _line_family(x, values, labels, *, xlabel, ylabel, title, ylim=None, legend_title=None,
                 used=None):
    fig, axes = _figure(1, 1, panel=(3.75, 3.0 + 0.2 * len(labels)))
    ax = axes[0, 0]
    for k, label in enumerate(labels):
        ax.plot(x, values[k], lw=2.8 if k == used else 1.4, color=_OKABE_ITO[k % 8],
                label=label)
    ax.set_xlabel(xlabel, fontsize=FONT)
    ax.set_ylabel(ylabel, fontsize=FONT)
    ax.set_title(title, fontsize=TITLE)
    ax.tick_params(labelsize=FONT)
    ax.grid(alpha=0.3)
    _time_ratio_axis(ax, x)
    if ylim is not None:
        ax.set_ylim(*ylim)
    # the key under the axes, never over the curves
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=FONT,
               title=legend_title, title_fontsize=FONT, handlelength=1.5, frameon=False,
               labelspacing=0.3)
    return fig, ax


def _used_index(values, used, name):
    if used is None:
        return None
    hits = np.flatnonzero(np.isclose(values, float(used)))
    if hits.size == 0:
        raise ValueError(f"used must be one of the {name} drawn {values.tolist()}, got {used}")
    return int(hits[0])


def _check_family(log2_time_ratio, values, name):
    x = _array(log2_time_ratio, "log2_time_ratio", ndim=1)
    v = _array(values, name, ndim=(1, 2), allow_nan=True)
    if v.ndim == 1:
        v = v[None]
    if v.shape[1] != x.size:
        raise ValueError(f"{name} must have {x.size} columns (one per time ratio), "
                         f"got shape {v.shape}")
    return x, v


def arr_curves(log2_time_ratio, arr, *, accd, poles=None, ylim=(-4.0, 6.0), used=None
               ) -> Figure:
    r"""ARR against the log time ratio per AccD, pole marked (Abdulrahman & Brazdil Fig. 1).

    .. math::

        ARR = \frac{SR_p / SR_q}{1 + AccD \cdot \log_{10}(T_p / T_q)}

    The denominator vanishes at :math:`T_p/T_q = 10^{-1/AccD}`, where ARR jumps from
    :math:`+\infty` to :math:`-\infty`: that pole is drawn as a dotted vertical line
    and the curve is broken there instead of joined across it.

    Parameters
    ----------
    log2_time_ratio : array-like of shape (n_points,)
        :math:`\log_2(T_p/T_q)`, increasing.
    arr : array-like of shape (n_accd, n_points)
        ARR at SRR = 1 (infinite or NaN values allowed at the pole).
    accd : sequence of float of length n_accd
    poles : sequence of float of length n_accd, optional
        :math:`\log_2` time ratio of each pole (NaN if none in range).
    ylim : pair of float
        Vertical range; values beyond it are clipped away so the pole shows.
    used : float, optional
        The AccD a ranking used: its curve is drawn thick and marked "(used)".

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. 1 and Fig. 1.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(-20, 20, 401)
    >>> arr = 1 / (1 + 0.3 * np.log10(2.0 ** x))
    >>> fig = arr_curves(x, arr[None], accd=[0.3], poles=[-np.log2(10) / 0.3])
    >>> [line.get_gid() for line in fig.axes[0].lines]
    [None, 'pole']
    """
    x, v = _check_family(log2_time_ratio, np.where(np.isinf(arr), np.nan, arr), "arr")
    accd = _array(accd, "accd", ndim=1)
    if accd.size != v.shape[0]:
        raise ValueError(f"accd has {accd.size} values, arr has {v.shape[0]} rows")
    lo, hi = ylim
    span = hi - lo
    v = v.copy()
    v[(v < lo - span) | (v > hi + span)] = np.nan
    # break the line where it jumps across the pole
    jump = np.abs(np.diff(v, axis=1)) > span / 2
    v[:, 1:][jump] = np.nan
    if poles is not None:
        poles = _array(poles, "poles", ndim=1, allow_nan=True)
        if poles.size != accd.size:
            raise ValueError(f"poles has {poles.size} values, accd has {accd.size}")
    k_used = _used_index(accd, used, "accd")
    labels = []
    for k, a in enumerate(accd):
        label = f"AccD = {a:g}"
        if poles is not None and np.isfinite(poles[k]):  # the pole, as a ratio, in the key
            label += f", pole {_power_of_ten(round(poles[k] / np.log2(10)))}"
        labels.append(label + (" (used)" if k == k_used else ""))
    fig, ax = _line_family(x, v, labels, xlabel=_TIME_AXIS, ylabel="ARR (SRR = 1)",
                           title="ARR: not monotonic, with a pole", ylim=ylim, used=k_used)
    if poles is not None:
        for k, p in enumerate(poles):
            if np.isfinite(p):
                ax.axvline(p, color=_OKABE_ITO[k % 8], ls=":", lw=1.2, gid="pole")
    return fig


def a3r_curves(log2_time_ratio, a3r, *, n_roots, used=None) -> Figure:
    r"""A3R against the log time ratio for several n-th roots (Abdulrahman & Brazdil Fig. 2).

    .. math::

        A3R = \frac{SR_p / SR_q}{(T_p / T_q)^{1/n}}

    Parameters
    ----------
    log2_time_ratio : array-like of shape (n_points,)
    a3r : array-like of shape (n_roots, n_points)
        A3R at SRR = 1.
    n_roots : sequence of int of length n_roots
    used : float, optional
        The root a ranking used: its curve is drawn thick and marked "(used)".

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, eq. 2 and Fig. 2.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(-20, 20, 41)
    >>> fig = a3r_curves(x, [2.0 ** (-x / 4), 2.0 ** (-x / 8)], n_roots=[4, 8])
    >>> len(fig.axes[0].lines)
    2
    """
    x, v = _check_family(log2_time_ratio, a3r, "a3r")
    n_roots = _array(n_roots, "n_roots", ndim=1)
    if n_roots.size != v.shape[0]:
        raise ValueError(f"n_roots has {n_roots.size} values, a3r has {v.shape[0]} rows")
    k_used = _used_index(n_roots, used, "n_roots")
    fig, ax = _line_family(x, v, [f"n = {k:g}" + (" (used)" if i == k_used else "")
                                  for i, k in enumerate(n_roots)], xlabel=_TIME_AXIS,
                           ylabel="A3R (SRR = 1)", title="A3R: monotonic in the time ratio",
                           used=k_used)
    ax.set_yscale("log", base=2)
    return fig


def iso_a3r_curves(log2_time_ratio, srr, *, levels, n_root) -> Figure:
    r"""Iso-A3R curves: the SRR that keeps A3R constant (Abdulrahman & Brazdil Fig. 3).

    .. math::

        SRR = A3R \cdot (T_p / T_q)^{1/n}

    Parameters
    ----------
    log2_time_ratio : array-like of shape (n_points,)
    srr : array-like of shape (n_levels, n_points)
        The success rate ratio on each iso-curve.
    levels : sequence of float of length n_levels
        The constant A3R values.
    n_root : int
        The root used.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
    meta-learning", MetaSel workshop at ECAI 2014, Fig. 3.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(-20, 20, 41)
    >>> fig = iso_a3r_curves(x, [0.9 * 2.0 ** (x / 8), 2.0 ** (x / 8)], levels=[0.9, 1.0],
    ...                      n_root=8)
    >>> fig.axes[0].get_title()
    'iso-A3R curves (n = 8)'
    """
    x, v = _check_family(log2_time_ratio, srr, "srr")
    levels = _array(levels, "levels", ndim=1)
    if levels.size != v.shape[0]:
        raise ValueError(f"levels has {levels.size} values, srr has {v.shape[0]} rows")
    fig, _ = _line_family(x, v, [f"A3R = {a:g}" for a in levels], xlabel=_TIME_AXIS,
                          ylabel="success rate ratio SRR",
                          title=f"iso-A3R curves (n = {n_root:g})")
    return fig


def rank_table(ranks, *, scores=None, title="Rankings (1 = best)") -> Figure:
    """A table of ranks: algorithms by ranking method, coloured by rank.

    Parameters
    ----------
    ranks : pandas.DataFrame
        Index: algorithms; columns: ranking methods (e.g. AR, SRR, SW, ARR, A3R);
        values: rank, 1 = best. Rows are drawn in the given order.
    scores : pandas.DataFrame, optional
        Same shape; each cell shows ``rank (score)``.
    title : str

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"AR": [1.0, 2.0], "A3R": [2.0, 1.0]}, index=["LR", "NB"])
    >>> fig = rank_table(r)
    >>> fig.axes[0].get_xticklabels()[1].get_text()
    'A3R'
    """
    if not isinstance(ranks, pd.DataFrame) or ranks.empty:
        raise ValueError("ranks must be a non-empty DataFrame (algorithms x ranking methods)")
    values = _array(ranks.to_numpy(dtype=float), "ranks", ndim=2, allow_nan=True)
    if scores is not None and tuple(scores.shape) != values.shape:
        raise ValueError(f"scores must have the shape of ranks {values.shape}, "
                         f"got {tuple(scores.shape)}")
    n_alg, n_rank = values.shape
    fig, axes = _figure(1, 1, panel=(1.1 * n_rank + 1.6, 0.48 * n_alg + 1.0))
    ax = axes[0, 0]
    # viridis: rank 1 bright, the last rank dark; apart under every colour vision
    im = ax.imshow(values, cmap="viridis_r", vmin=1, vmax=max(n_alg, 2), aspect="auto")
    digits = [None] * n_rank
    if scores is not None:
        digits = [_distinct_digits(scores.iloc[:, j].to_numpy(dtype=float))
                  for j in range(n_rank)]
    for i in range(n_alg):
        for j in range(n_rank):
            text = "–" if not np.isfinite(values[i, j]) else f"{values[i, j]:g}"
            if scores is not None:
                s = float(scores.iat[i, j])
                text += f"\n({s:.{digits[j]}g})" if np.isfinite(s) else ""
            colour = _text_colour(im.cmap(im.norm(values[i, j]))) \
                if np.isfinite(values[i, j]) else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=FONT, color=colour)
    ax.set_xticks(range(n_rank), [str(c) for c in ranks.columns], fontsize=FONT)
    ax.set_yticks(range(n_alg), [str(a) for a in ranks.index], fontsize=FONT)
    ax.xaxis.tick_top()
    ax.set_title(title, fontsize=TITLE, pad=24)  # above the column names
    return fig


def _distinct_digits(values, *, start=3, most=8) -> int:
    """Significant digits (from ``start``) that tell apart every two different values.

    Examples
    --------
    >>> _distinct_digits([1.046, 1.052, 1.049])
    4
    >>> _distinct_digits([0.9, 1.1])
    3
    """
    v = np.asarray(values, dtype=float)
    v = np.unique(np.round(v[np.isfinite(v)], 9))  # ties up to float noise stay ties
    for d in range(start, most + 1):
        if len({f"{x:.{d}g}" for x in v}) == v.size:
            return d
    return most


def critical_difference_diagram(average_ranks, cd, groups=(), *, title=None) -> Figure:
    """Critical-difference diagram (Demšar 2006): best on the left, CD bar drawn.

    Algorithms are placed on a rank axis that increases to the right (rank 1,
    the best, is the left end). The critical difference is drawn as a bar of
    that length above the axis, and each group of algorithms whose ranks are
    not significantly different is joined by a thick horizontal line.

    Parameters
    ----------
    average_ranks : mapping of str to float or pandas.Series
        Average rank of each algorithm over the datasets (1 = best).
    cd : float
        The Nemenyi critical difference, in rank units.
    groups : sequence of sequences of str
        Groups (cliques) not significantly different; groups of one are ignored.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Artists carry gids: ``"cd-bar"``, ``"group"`` and ``"rank:<name>"``.

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets",
    JMLR 7 (2006), Section 3.2.2 and Fig. 1.

    Examples
    --------
    >>> fig = critical_difference_diagram({"RF": 1.5, "LR": 2.0, "NB": 2.5}, 1.2,
    ...                                   [["RF", "LR", "NB"]])
    >>> ax = fig.axes[0]
    >>> [line.get_gid() for line in ax.lines if line.get_gid() == "group"]
    ['group']
    """
    ranks = pd.Series(average_ranks, dtype=float)
    if ranks.empty:
        raise ValueError("average_ranks must name at least one algorithm")
    if not np.isfinite(ranks.to_numpy()).all():
        raise ValueError("average_ranks contains NaN or infinite values")
    cd = float(cd)
    if not np.isfinite(cd) or cd < 0:
        raise ValueError(f"cd must be a finite non-negative number, got {cd}")
    for g in groups:
        missing = set(map(str, g)) - set(map(str, ranks.index))
        if missing:
            raise ValueError(f"groups names unknown algorithms: {sorted(missing)}")
    ranks.index = ranks.index.map(str)
    ranks = ranks.sort_values(kind="stable")
    k = len(ranks)
    lo, hi = 1.0, float(max(k, np.ceil(ranks.max())))
    half = (k + 1) // 2
    n_side = max(half, k - half)
    real_groups = [sorted(map(str, g), key=lambda a: ranks[a]) for g in groups if len(g) > 1]
    height = 1.6 + 0.28 * n_side + 0.12 * len(real_groups)
    fig, axes = _figure(1, 1, panel=(6.4, height))
    ax = axes[0, 0]
    ax.set_xlim(lo - 0.6 * (hi - lo + 1) / 2.5 - 0.3, hi + 0.6 * (hi - lo + 1) / 2.5 + 0.3)
    axis_y = 0.0
    ax.hlines(axis_y, lo, hi, color="black", lw=1.2)
    for t in range(int(lo), int(hi) + 1):
        ax.vlines(t, axis_y, axis_y + 0.12, color="black", lw=1.0)
        ax.text(t, axis_y + 0.17, str(t), ha="center", va="bottom", fontsize=FONT)
    # the CD bar, above the axis, starting at rank 1
    bar_y = axis_y + 0.75
    ax.plot([lo, lo + cd], [bar_y, bar_y], color="black", lw=1.6, gid="cd-bar",
            solid_capstyle="butt")
    ax.vlines([lo, lo + cd], bar_y - 0.07, bar_y + 0.07, color="black", lw=1.2)
    ax.text(lo + cd / 2, bar_y + 0.1, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=FONT)
    # groups joined by thick lines just below the axis
    gy = axis_y - 0.22
    for g in real_groups:
        a, b = ranks[g[0]], ranks[g[-1]]
        ax.plot([a - 0.03, b + 0.03], [gy, gy], color="black", lw=4.0, gid="group",
                solid_capstyle="round")
        gy -= 0.14
    # algorithm labels: best half to the left, the rest to the right
    label_top = gy - 0.15
    for i, (name, r) in enumerate(ranks.items()):
        left = i < half
        row = i if left else k - 1 - i
        y_text = label_top - 0.28 * row
        x_text = ax.get_xlim()[0] + 0.05 if left else ax.get_xlim()[1] - 0.05
        ax.plot([r, r, x_text], [axis_y, y_text, y_text], color="0.3", lw=0.9,
                gid=f"rank:{name}")
        ax.text(x_text, y_text + 0.03, f"{name} ({r:.2f})", fontsize=FONT, va="bottom",
                ha="left" if left else "right")
    ax.set_ylim(label_top - 0.28 * n_side, bar_y + 0.45)
    ax.axis("off")
    ax.set_title(title or "Critical difference (Nemenyi), best on the left", fontsize=FONT)
    return fig


# ------------------------------------------------------ the algorithm-benchmark web page
def ranked_bars(values, *, xlabel, title, higher_is_better=True, fmt="{:.2f}") -> Figure:
    """Horizontal bars, best first (value captured, runtime score, error-case rates).

    Parameters
    ----------
    values : mapping of str to float or pandas.Series
        One value per item (algorithm or metric).
    xlabel : str
    title : str
    higher_is_better : bool, default True
        Orders the bars best first, top to bottom.
    fmt : str
        Format of the value printed at the end of each bar.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    The algorithm-benchmark web page (after Caruana & Niculescu-Mizil 2006): value
    captured, runtime score, metric error cases.

    Examples
    --------
    >>> fig = ranked_bars({"LR": 80.0, "NB": 60.0}, xlabel="value", title="t")
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['LR', 'NB']
    """
    s = pd.Series(values, dtype=float).dropna()
    if s.empty:
        raise ValueError("values must hold at least one finite value")
    s.index = s.index.map(str)
    s = s.sort_values(ascending=not higher_is_better, kind="stable")
    fig, axes = _figure(1, 1, panel=(4.6, 0.34 * len(s) + 1.3))
    ax = axes[0, 0]
    pos = np.arange(len(s))
    ax.barh(pos, s.to_numpy(), color=_OKABE_ITO[4], height=0.7)
    ax.set_yticks(pos, list(s.index), fontsize=FONT)
    ax.invert_yaxis()
    for p, v in zip(pos, s.to_numpy(), strict=True):  # clear of the bar's end
        ax.annotate(fmt.format(v), (v, p), xytext=(4 if v >= 0 else -4, 0),
                    textcoords="offset points", va="center", ha="left" if v >= 0 else "right",
                    fontsize=FONT)
    ax.set_xlabel(xlabel, fontsize=FONT)
    ax.set_title(title, fontsize=TITLE)
    ax.tick_params(axis="x", labelsize=FONT)
    ax.margins(x=0.2)
    return fig


def heatmap(matrix, *, title, value_label, cmap="viridis", vmin=None, vmax=None,
            annotate=None, fmt="{:.2f}", missing_label=None) -> Figure:
    """A labelled heatmap of a frame (algorithm x dataset, algorithm x metric, ...).

    Parameters
    ----------
    matrix : pandas.DataFrame
        Rows and columns are drawn in the given order.
    title : str
    value_label : str
        Colour bar label.
    cmap : str
    vmin, vmax : float, optional
    annotate : bool, optional
        Print values in the cells (default: when the grid has at most 400 cells).
    fmt : str
    missing_label : str, optional
        Text of a missing (NaN) cell, drawn hatched so it reads apart from a zero;
        default: left blank.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    The algorithm-benchmark web page (after Caruana & Niculescu-Mizil 2006): performance
    heat maps by dataset and by metric.

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame([[0.1, 0.9]], index=["LR"], columns=["d1", "d2"])
    >>> fig = heatmap(m, title="t", value_label="v")
    >>> len(fig.axes)  # the heatmap and its colour bar
    2
    """
    checked = _heatmap_checked(matrix, title=title, value_label=value_label, cmap=cmap,
                               vmin=vmin, vmax=vmax, annotate=annotate, fmt=fmt,
                               missing_label=missing_label)
    fig, frame = _heatmap_frame(**checked["frame"])
    _heatmap_content(fig, frame, checked)
    return fig


def _heatmap_checked(matrix, *, title, value_label, cmap="viridis", vmin=None, vmax=None,
                     annotate=None, fmt="{:.2f}", missing_label=None) -> dict:
    """The validated input of :func:`heatmap`; ``"frame"``: its frame (everything but the
    values, which, for a frame made once, need a fixed colour scale: ``vmin``, ``vmax``)."""
    if not isinstance(matrix, pd.DataFrame) or matrix.empty:
        raise ValueError("matrix must be a non-empty DataFrame")
    values = _array(matrix.to_numpy(dtype=float), "matrix", ndim=2, allow_nan=True)
    n_rows, n_cols = values.shape
    if annotate is None:
        annotate = n_rows * n_cols <= 400
    return {"values": values, "annotate": annotate, "fmt": fmt,
            "missing_label": missing_label,
            "frame": {"rows": tuple(str(r) for r in matrix.index),
                      "columns": tuple(str(c) for c in matrix.columns), "title": title,
                      "value_label": value_label, "cmap": cmap, "vmin": vmin, "vmax": vmax,
                      "annotate": bool(annotate), "missing": bool(missing_label)}}


def _heatmap_frame(*, rows, columns, title, value_label, cmap, vmin, vmax, annotate,
                   missing, values=None):
    """The axes, ticks, title and colour bar of :func:`heatmap`; its image holds
    ``values`` (default: none, all masked). Returns ``(fig, (ax, image))``."""
    n_rows, n_cols = len(rows), len(columns)
    longest_col = max(len(c) for c in columns)
    longest_row = max(len(r) for r in rows)
    cell_w = 0.55 if annotate else 0.3
    width = max(cell_w * n_cols + 0.08 * longest_row + 1.6, 3.6)
    height = max(0.3 * n_rows + 0.09 * min(longest_col, 30) + 1.0, 2.4)
    fig, axes = _figure(1, 1, panel=(width, height))
    ax = axes[0, 0]
    if values is None:
        values = np.full((n_rows, n_cols), np.nan)
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax,
                   aspect="auto", interpolation="nearest")
    if missing:  # a missing value is not a zero: hatched, and said in the cell
        ax.set_facecolor("0.93")
        ax.patch.set_hatch("//")
        ax.patch.set_edgecolor("0.75")
    flat = longest_col <= 4
    ax.set_xticks(range(n_cols), list(columns), rotation=0 if flat else 45,
                  ha="center" if flat else "right", fontsize=FONT)
    ax.set_yticks(range(n_rows), list(rows), fontsize=FONT)
    ax.set_title(title, fontsize=TITLE)
    cb = fig.colorbar(im, ax=ax, shrink=0.9, pad=0.02)
    cb.set_label(value_label, fontsize=FONT)
    return fig, (ax, im)


def _heatmap_fixed(fig, frame) -> list:
    """The artists of :func:`_heatmap_frame` that :func:`_heatmap_content` leaves as they
    are: the heatmap's axes but its image, and the colour bar's."""
    ax, _ = frame
    return [ax.patch, *ax.spines.values(), ax.xaxis, ax.yaxis, ax.title,
            *(other for other in fig.axes if other is not ax)]


def _heatmap_content(fig, frame, checked) -> None:
    """The values of :func:`heatmap`: the image's, and printed in the cells."""
    ax, im = frame
    values = checked["values"]
    im.set_data(np.ma.masked_invalid(values))
    if checked["annotate"]:
        fmt, missing_label = checked["fmt"], checked["missing_label"]
        n_rows, n_cols = values.shape
        for i in range(n_rows):
            for j in range(n_cols):
                if np.isfinite(values[i, j]):
                    ax.text(j, i, fmt.format(values[i, j]), ha="center", va="center",
                            fontsize=FONT, color=_text_colour(im.cmap(im.norm(values[i, j]))))
                elif missing_label:
                    ax.text(j, i, missing_label, ha="center", va="center", fontsize=FONT,
                            color="0.3")


def stability_grid(grid, *, title="Bootstrap stability") -> Figure:
    """The bootstrap stability grid of the algorithm-benchmark web page (datasets x metrics).

    Parameters
    ----------
    grid : pandas.DataFrame
        Index: number of datasets sampled; columns: number of metrics sampled;
        values: share of draws whose conclusion differs from the full one.
    title : str

    Returns
    -------
    matplotlib.figure.Figure
        One equal row per number of datasets sampled and one equal column per number
        of metrics, each cell printing its share in percent; the colour scale spans
        the data; a dashed contour marks the 10 % level the web page discusses.

    References
    ----------
    The algorithm-benchmark web page (after Caruana & Niculescu-Mizil 2006): bootstrap
    of datasets and metrics.

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.DataFrame([[0.4, 0.3], [0.2, 0.05]], index=[1, 2], columns=[1, 2])
    >>> fig = stability_grid(g)
    >>> fig.axes[0].get_xlabel()
    'metrics sampled'
    """
    if not isinstance(grid, pd.DataFrame) or grid.empty:
        raise ValueError("grid must be a non-empty DataFrame (datasets x metrics)")
    values = _array(grid.to_numpy(dtype=float), "grid", ndim=2, allow_nan=True)
    n_rows, n_cols = values.shape
    fig, axes = _figure(1, 1, panel=(max(0.5 * n_cols + 2.2, 4.2), 0.34 * n_rows + 1.5))
    ax = axes[0, 0]
    rows = np.asarray(grid.index, dtype=float)
    cols = np.asarray(grid.columns, dtype=float)
    # one equal row (column) per sampled size, whatever the sizes are, each labelled
    ri, ci = np.arange(n_rows, dtype=float), np.arange(n_cols, dtype=float)
    finite = values[np.isfinite(values)]
    lo = np.floor(finite.min() * 20) / 20 if finite.size else 0.0
    hi = np.ceil(finite.max() * 20) / 20 if finite.size else 1.0
    if hi <= lo:
        hi = lo + 0.05
    im = ax.pcolormesh(_edges(ci), _edges(ri), values, cmap="magma_r", vmin=lo, vmax=hi,
                       shading="flat")
    if n_rows * n_cols <= 240:  # the share in each cell, in percent
        for i in range(n_rows):
            for j in range(n_cols):
                if np.isfinite(values[i, j]):
                    ax.text(j, i, f"{100 * values[i, j]:.0f}", ha="center", va="center",
                            fontsize=FONT,
                            color=_text_colour(im.cmap(im.norm(values[i, j]))))
    if n_rows > 1 and n_cols > 1 and np.nanmin(values) < 0.1 < np.nanmax(values):
        cs = ax.contour(ci, ri, values, levels=[0.1], colors="black", linewidths=1.6,
                        linestyles="--")
        labels = ax.clabel(cs, fmt={0.1: "10 %"}, fontsize=FONT)
        for t in labels:
            t.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 1})
    ax.set_xticks(ci, [f"{v:g}" for v in cols])
    ax.set_yticks(ri, [f"{v:g}" for v in rows])
    ax.set_xlabel("metrics sampled", fontsize=FONT)
    ax.set_ylabel("datasets sampled", fontsize=FONT)
    ax.set_title(title, fontsize=TITLE)
    ax.tick_params(labelsize=FONT)
    from matplotlib.ticker import PercentFormatter

    cb = fig.colorbar(im, ax=ax, pad=0.02, format=PercentFormatter(xmax=1, decimals=0))
    cb.set_label("draws with a different\nconclusion (%)", fontsize=FONT)
    return fig


def _edges(centres: np.ndarray) -> np.ndarray:
    if centres.size == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    mid = (centres[1:] + centres[:-1]) / 2
    return np.concatenate([[centres[0] - (mid[0] - centres[0])], mid,
                           [centres[-1] + (centres[-1] - mid[-1])]])


def portfolio_curve(steps, *, title="Greedy portfolio: value captured by the best so far"
                    ) -> Figure:
    """The greedy portfolio curve: value of the best-of-portfolio after each step.

    Parameters
    ----------
    steps : pandas.DataFrame
        One row per step in order, with columns ``algorithm`` and ``value``
        (the portfolio's value after adding it); optional ``cost`` (cumulative
        seconds) adds a second axis.
    title : str

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    The algorithm-benchmark web page (after Caruana & Niculescu-Mizil 2006): submodular
    selection of a sequence of algorithms.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"algorithm": ["RF", "NB"], "value": [80.0, 90.0]})
    >>> fig = portfolio_curve(s)
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['1. RF', '2. NB']
    """
    if not isinstance(steps, pd.DataFrame) or steps.empty:
        raise ValueError("steps must be a non-empty DataFrame")
    for col in ("algorithm", "value"):
        if col not in steps.columns:
            raise ValueError(f"steps must have a column {col!r}")
    v = _array(steps["value"].to_numpy(dtype=float), "steps['value']", ndim=1)
    fig, axes = _figure(1, 1, panel=(max(4.2, 0.55 * len(v) + 1.5), 3.4))
    ax = axes[0, 0]
    x = np.arange(1, len(v) + 1)
    ax.plot(x, v, marker="o", markersize=5, color=_OKABE_ITO[4], lw=1.6)
    for xi, vi in zip(x, v, strict=True):  # above the marker, clear of it
        ax.annotate(f"{vi:.1f}", (xi, vi), textcoords="offset points", xytext=(0, 7),
                    ha="center", va="bottom", fontsize=FONT)
    labels = [f"{i}. {a}" for i, a in zip(x, steps["algorithm"].astype(str), strict=True)]
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=FONT)
    ax.set_xlim(0.5, len(v) + 0.5)
    span = float(v.max() - v.min()) or 1.0
    ax.set_ylim(v.min() - 0.1 * span, v.max() + 0.3 * span)  # room for the top labels
    ax.set_xlabel("algorithms in the portfolio (greedy order)", fontsize=FONT)
    ax.set_ylabel("value captured (%)", fontsize=FONT)
    ax.set_title(title, fontsize=TITLE)
    ax.tick_params(axis="y", labelsize=FONT)
    ax.grid(alpha=0.3)
    return fig


# --------------------------------------------------------------------------- instance space
def instance_space_map(xy, values, *, label=None, axis_labels=("PC1", "PC2"), title=None,
                       cmap="viridis", note=None, colorbar_label=None) -> Figure:
    """Instances on a 2-D projection coloured by per-instance measures, one panel each.

    The instance-space view: the same projection coloured by each measure (classic
    data-based hardness such as kDN, or cost-sensitive hardness), on one shared,
    labelled colour scale; NaN values are drawn grey.

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
    values : pandas.DataFrame of shape (n_instances, n_measures)
        One column per panel, named by the measure (or one array-like of shape
        (n_instances,), named by ``label``).
    label : str, optional
        Name of the measure when ``values`` is one array.
    axis_labels : pair of str
    title : str, optional
        Figure title.
    cmap : str

    note : str, optional
        A line printed under the panels (e.g. how many instances are drawn).
    colorbar_label : str, optional
        Label of the shared colour bar (default "hardness (0 = easy, 1 = hard)").

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    Smith, Martinez & Giraud-Carrier (2014); Paiva et al. (2022), instance space.

    Examples
    --------
    >>> fig = instance_space_map([[0, 0], [1, 1]], [0.2, 0.8], label="kDN")
    >>> fig.axes[0].get_title(), len(fig.axes)  # the panel and the colour bar
    ('kDN', 2)
    """
    checked = _instance_space_map_checked(xy, values, label=label, axis_labels=axis_labels,
                                          title=title, cmap=cmap, note=note,
                                          colorbar_label=colorbar_label)
    fig, panels = _instance_space_map_frame(**checked["frame"])
    _instance_space_map_content(fig, panels, checked)
    return fig


def _instance_space_map_checked(xy, values, *, label=None, axis_labels=("PC1", "PC2"),
                                title=None, cmap="viridis", note=None,
                                colorbar_label=None) -> dict:
    """The validated input of :func:`instance_space_map`; ``"frame"``: its frame's layout."""
    xy = _array(xy, "xy", ndim=2)
    if xy.shape[1] != 2:
        raise ValueError(f"xy must have 2 columns, got {xy.shape[1]}")
    if not isinstance(values, pd.DataFrame):
        v = _array(values, "values", ndim=1, allow_nan=True)
        values = pd.DataFrame({label or "value": v})
    if values.shape[0] != xy.shape[0] or values.shape[1] == 0:
        raise ValueError(f"values must have {xy.shape[0]} rows and at least one column, "
                         f"got shape {values.shape}")
    V = _array(values.to_numpy(dtype=float), "values", ndim=2, allow_nan=True)
    finite = V[np.isfinite(V)]
    # one scale for every panel, so colours compare: [0, 1] holds every hardness measure
    # here; wider data widen it
    vmin = min(0.0, float(finite.min())) if finite.size else 0.0
    vmax = max(1.0, float(finite.max())) if finite.size else 1.0
    return {"xy": xy, "V": V, "axis_labels": axis_labels, "title": title, "note": note,
            "cmap": cmap, "vmin": vmin, "vmax": vmax,
            "frame": {"names": tuple(str(c) for c in values.columns), "with_note": bool(note),
                      "with_title": bool(title), "cmap": cmap, "vmin": vmin, "vmax": vmax,
                      "colorbar_label": colorbar_label or "hardness (0 = easy, 1 = hard)"}}


def _instance_space_map_frame(*, names, with_note, with_title, cmap, vmin, vmax,
                              colorbar_label):
    """The panels of :func:`instance_space_map`, their titles and the colour bar (its
    scale is the data's, known before they are drawn)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    bottom = 0.45 + (0.2 if with_note else 0.0)
    top = 0.6 if with_title else 0.3
    fig, panels, _ = _wrapped_grid(len(names), ncols_max=2, panel=(2.5, 2.3), left=0.35,
                                   right=1.3, bottom=bottom, top=top, wgap=0.15, hgap=0.6)
    for ax, name in zip(panels, names, strict=True):
        _clear_ticks(ax)
        ax.set_title(name, fontsize=FONT)
    _side_colorbar(fig, ScalarMappable(norm=Normalize(vmin, vmax), cmap=cmap), right=1.3,
                   top=top, bottom=bottom, label=colorbar_label)
    return fig, panels


def _instance_space_map_content(fig, panels, checked) -> list:
    """What :func:`instance_space_map` draws on its frame; returns the frame's artists it
    changed (see :func:`_hardness_maps_content`)."""
    xy, V, axis_labels = checked["xy"], checked["V"], checked["axis_labels"]
    vmin, vmax = checked["vmin"], checked["vmax"]
    size = _point_size(xy.shape[0])
    changed = []
    for j, ax in enumerate(panels):
        _fix_shared_limits([ax], xy)  # every panel the same points: the same limits
        ok = np.isfinite(V[:, j])
        ax.scatter(xy[~ok, 0], xy[~ok, 1], s=size, color="0.8", lw=0, zorder=_POINTS_Z)
        order = np.argsort(V[ok, j], kind="stable")
        ax.scatter(xy[ok][order, 0], xy[ok][order, 1], c=V[ok, j][order], s=size,
                   cmap=checked["cmap"], vmin=vmin, vmax=vmax, lw=0, zorder=_POINTS_Z)
        ax.set_xlabel(axis_labels[0], fontsize=FONT)
        changed.append(_AxisLabel(ax.xaxis))
        if j % 2 == 0:
            ax.set_ylabel(axis_labels[1], fontsize=FONT)
            changed.append(_AxisLabel(ax.yaxis))
    if checked["title"]:
        fig.suptitle(checked["title"], fontsize=TITLE,
                     y=1 - 0.06 / fig.get_size_inches()[1], va="top")
    _note(fig, checked["note"])
    return changed


def correlation_heatmap(corr, *, title="Rank correlation") -> Figure:
    """A correlation matrix, or a block of one, on a diverging scale from -1 to 1.

    Values are printed in the cells; a missing correlation (a constant column)
    is hatched and reads "n/a", never a zero.

    Parameters
    ----------
    corr : pandas.DataFrame
        Correlations: a square matrix, or a rectangular block (rows of one group
        of measures against columns of another).
    title : str

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame([[1.0, -0.5], [-0.5, 1.0]], index=["a", "b"], columns=["a", "b"])
    >>> correlation_heatmap(m).axes[0].get_title()
    'Rank correlation'
    """
    return heatmap(corr, title=title, **_correlation_options(corr))


def _correlation_options(corr) -> dict:
    """The :func:`heatmap` options of :func:`correlation_heatmap`."""
    if not isinstance(corr, pd.DataFrame) or corr.empty:
        raise ValueError("corr must be a non-empty DataFrame")
    square = corr.shape[0] == corr.shape[1] and list(corr.index) == list(corr.columns)
    return {"value_label": "correlation", "cmap": "RdBu_r", "vmin": -1, "vmax": 1,
            "annotate": not square or corr.size <= 100, "missing_label": "n/a"}
