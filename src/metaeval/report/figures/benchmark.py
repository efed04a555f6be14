"""Figures of the algorithm-benchmark web page: value captured, runtime scores,
heatmaps, bootstrap stability and greedy portfolios.

See :mod:`metaeval.report.figures` for what all the figure functions share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures._style import _OKABE_ITO, FONT, TITLE, _array, _figure, _text_colour

__all__ = ["heatmap", "portfolio_curve", "ranked_bars", "stability_grid"]

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
    # centred on the figure, not on the axes: long names on the left make the axes
    # narrower than a title or an axis label of two lines (they then ran off the right)
    _centre_on_figure(fig, ax)
    ax.tick_params(axis="x", labelsize=FONT)
    ax.margins(x=0.2)
    return fig


def _fitted(title: str, fig) -> str:
    """``title`` with each line too wide for the figure broken after a colon, or wrapped
    (widths taken at 0.62 em a character, about DejaVu Sans' widest average)."""
    import textwrap

    most = max(int(fig.get_size_inches()[0] * 72 / (0.62 * TITLE)), 12)
    lines = []
    for line in str(title).split("\n"):
        if len(line) > most and ": " in line:
            head, tail = line.split(": ", 1)
            line = f"{head}:\n{tail}"
        lines += [w for part in line.split("\n")
                  for w in (textwrap.wrap(part, most) if len(part) > most else [part])]
    return "\n".join(lines)


def _centre_on_figure(fig, ax) -> None:
    """Centre an axes' title and x label on the figure (their height stays the axes')."""
    from matplotlib.transforms import IdentityTransform, blended_transform_factory

    ax.title.set_transform(blended_transform_factory(fig.transSubfigure, ax.transAxes)
                           + ax.titleOffsetTrans)
    ax.title.set_x(0.5)
    ax.xaxis.label.set_transform(blended_transform_factory(fig.transSubfigure,
                                                           IdentityTransform()))
    ax.xaxis.label.set_x(0.5)


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


def _heatmap_content(fig, frame, checked) -> list:
    """The values of :func:`heatmap`: the image's, and printed in the cells. Returns the
    frame's artist it changed (the image)."""
    ax, im = frame
    values = checked["values"]
    im.set_data(np.ma.masked_invalid(values))
    if checked["annotate"]:
        fmt, missing_label = checked["fmt"], checked["missing_label"]
        n_rows, n_cols = values.shape
        cells = im.cmap(im.norm(values))  # every cell's colour at once, not one by one
        for i in range(n_rows):
            for j in range(n_cols):
                if np.isfinite(values[i, j]):
                    ax.text(j, i, fmt.format(values[i, j]), ha="center", va="center",
                            fontsize=FONT, color=_text_colour(cells[i, j]))
                elif missing_label:
                    ax.text(j, i, missing_label, ha="center", va="center", fontsize=FONT,
                            color="0.3")
    return [im]


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
    ax.set_xticks(ci, [f"{v:g}" for v in cols])
    ax.set_yticks(ri, [f"{v:g}" for v in rows])
    ax.set_xlabel("metrics sampled", fontsize=FONT)
    ax.set_ylabel("datasets sampled", fontsize=FONT)
    ax.set_title(title, fontsize=TITLE)
    ax.tick_params(labelsize=FONT)
    from matplotlib.ticker import PercentFormatter

    # below the grid, its label horizontal (at the right, rotated, the label's second
    # line was cut off)
    cb = fig.colorbar(im, ax=ax, location="bottom", fraction=0.06, aspect=40, pad=0.03,
                      format=PercentFormatter(xmax=1, decimals=0))
    edges = _level_edges(values, 0.1)
    cb.set_label("draws with a different conclusion (%)"
                 + ("\ndashed: the 10 % level" if edges else ""), fontsize=FONT)
    cb.ax.tick_params(labelsize=FONT)
    if edges:
        # the 10 % level along the cells' edges, never across the numbers in them
        from matplotlib.collections import LineCollection

        style = {"colors": "black", "linewidths": 1.6, "linestyles": "--"}
        ax.add_collection(LineCollection(edges, **style))
        if lo < 0.1 < hi:
            cb.ax.axvline(0.1, color="black", lw=1.6, ls="--")
    return fig


def _level_edges(values: np.ndarray, level: float) -> list:
    """The cell edges between a cell under ``level`` and a neighbour at or over it, as
    line segments in the cells' coordinates (cell ``(i, j)`` centred on ``(j, i)``)."""
    below = np.where(np.isfinite(values), values < level, np.nan)
    segments = []
    for i, j in zip(*np.nonzero(below[:, :-1] + below[:, 1:] == 1), strict=True):
        segments.append([(j + 0.5, i - 0.5), (j + 0.5, i + 0.5)])  # left | right
    for i, j in zip(*np.nonzero(below[:-1, :] + below[1:, :] == 1), strict=True):
        segments.append([(j - 0.5, i + 0.5), (j + 0.5, i + 0.5)])  # row i over row i + 1
    return segments


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
    # centred on the figure and broken at its colon where it is wider than the figure
    # (the default title ran past the right edge of a narrow figure)
    ax.set_title(_fitted(title, fig), fontsize=TITLE)
    _centre_on_figure(fig, ax)
    ax.tick_params(axis="y", labelsize=FONT)
    ax.grid(alpha=0.3)
    return fig
