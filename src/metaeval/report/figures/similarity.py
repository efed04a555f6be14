"""Dendrograms of algorithm dissimilarity (Melo & Prudêncio 2014).

See :mod:`metaeval.report.figures` for what all the figure functions share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures._style import (
    FONT,
    TITLE,
    _array,
    _method_title,
    _note,
    _place_unlabelled,
    _wrapped_grid,
)

__all__ = ["dendrograms"]

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


def _dendrograms_unlabelled(fig, axes):
    """``prepare`` of the dendrograms' report frame: the axes :func:`_dendrograms_content`
    never labels (every x axis, the y axes but the first of each row of three) get a fixed
    label position (:func:`~metaeval.report.figures._style._place_unlabelled`)."""
    _place_unlabelled([ax.xaxis for ax in axes]
                      + [ax.yaxis for col, ax in enumerate(axes) if col % 3])
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
