"""ARR and A3R curves, rank tables and critical difference diagrams
(Abdulrahman & Brazdil 2014; Demšar 2006).

See :mod:`metaeval.report.figures` for what all the figure functions share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures._style import _OKABE_ITO, FONT, TITLE, _array, _figure, _text_colour

__all__ = [
    "a3r_curves",
    "arr_curves",
    "critical_difference_diagram",
    "iso_a3r_curves",
    "rank_table",
]

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
