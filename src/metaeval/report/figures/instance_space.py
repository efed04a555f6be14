"""Instance space maps and correlations of hardness measures.

See :mod:`metaeval.report.figures` for what all the figure functions share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures._style import (
    _POINTS_Z,
    FONT,
    TITLE,
    _array,
    _AxisLabel,
    _clear_ticks,
    _fix_shared_limits,
    _note,
    _point_size,
    _points,
    _side_colorbar,
    _wrapped_grid,
)
from metaeval.report.figures.benchmark import heatmap

__all__ = ["correlation_heatmap", "instance_space_map"]

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
        _points(ax, xy[~ok, 0], xy[~ok, 1], s=size, color="0.8", zorder=_POINTS_Z)
        order = np.argsort(V[ok, j], kind="stable")
        _points(ax, xy[ok][order, 0], xy[ok][order, 1], c=V[ok, j][order], s=size,
                cmap=checked["cmap"], vmin=vmin, vmax=vmax, zorder=_POINTS_Z)
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
