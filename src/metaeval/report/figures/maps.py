"""Projections of a dataset coloured by instance hardness (Prudêncio 2019).

See :mod:`metaeval.report.figures` for what all the figure functions share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures._style import (
    _CLASS_COLOURS,
    _POINTS_Z,
    FONT,
    METHOD_ABBREVIATIONS,
    _array,
    _AxisLabel,
    _binary,
    _class_major_grid,
    _clear_ticks,
    _fix_shared_limits,
    _grid,
    _hardness_cmap,
    _labels,
    _map_panel,
    _note,
    _point_size,
    _points,
    _side_colorbar,
)

__all__ = ["cost_hardness_maps", "hardness_maps", "projection_map"]

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
        _points(ax, xy[m, 0], xy[m, 1], s=size, color=_CLASS_COLOURS[k], alpha=0.7,
                label=f"{classes[k]} ({int(m.sum())})", zorder=_POINTS_Z)
    ax.set_xlabel(checked["axis_labels"][0], fontsize=FONT)
    ax.set_ylabel(checked["axis_labels"][1], fontsize=FONT)
    ax.legend(fontsize=FONT, markerscale=2)
    if checked["title"]:
        ax.set_title(checked["title"], fontsize=FONT)
    _note(fig, checked["note"])
    return [_AxisLabel(ax.xaxis), _AxisLabel(ax.yaxis)]


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
