"""The report's family view: algorithm families as a first-class grouping.

With the wide pool (hundreds of configurations named ``family:key=value``), per-algorithm
tables and dendrograms stop being legible. This section summarises by family
(:func:`metaeval.algorithms.family_of`):

* a family table: configurations, mean instance hardness of the family's members and of
  its best member, under each threshold choice method (Melo & Prudêncio 2014), and the
  best average rank (AR, Abdulrahman & Brazdil 2014) of a member;
* the top-k algorithms by average rank, with their family;
* the average-linkage dendrogram of the aggregated dissimilarity between algorithms
  (Melo & Prudêncio 2014, eq. 25), its leaves coloured by family -- a colour strip
  instead of labels when there are too many leaves to read -- and the dendrogram of the
  families themselves (mean dissimilarity between their members).

:func:`family_summary` and :func:`family_dissimilarity` (from :mod:`metaeval.similarity`)
are pure (frames and arrays in and out); :func:`family_dendrogram` draws;
:func:`families_section` writes the HTML.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report.figures import FONT, TITLE
from metaeval.similarity import family_dissimilarity

__all__ = ["family_summary", "family_dissimilarity", "family_dendrogram", "top_k",
           "families_section", "MAX_LABELLED_LEAVES"]

#: Above this many leaves the dendrogram shows a family colour strip instead of names.
MAX_LABELLED_LEAVES = 60


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def family_summary(mean_hardness: pd.DataFrame, families: dict[str, str],
                   average_rank: pd.Series | None = None) -> pd.DataFrame:
    """One row per family: size, mean and best member's mean hardness, best rank.

    Parameters
    ----------
    mean_hardness : DataFrame
        Index: algorithms; columns: threshold choice methods; values: mean instance
        hardness (averaged over instances and datasets).
    families : dict of algorithm -> family
    average_rank : Series, optional
        Average rank (1 = best) of each algorithm.

    Returns
    -------
    DataFrame
        Index ``family``, sorted by the best member's hardness under the first method;
        columns ``configurations``, ``mean <method>``, ``best <method>``,
        ``best member`` (under the first method) and, with ranks, ``best rank``.

    Examples
    --------
    >>> H = pd.DataFrame({"m": [0.2, 0.4, 0.3]}, index=["a:1", "a:2", "b:1"])
    >>> family_summary(H, {"a:1": "a", "a:2": "a", "b:1": "b"}).round(3).to_dict("index")
    ... # doctest: +NORMALIZE_WHITESPACE
    {'a': {'configurations': 2, 'mean m': 0.3, 'best m': 0.2, 'best member': 'a:1'},
     'b': {'configurations': 1, 'mean m': 0.3, 'best m': 0.3, 'best member': 'b:1'}}
    """
    if mean_hardness.empty:
        raise ValueError("mean_hardness is empty: no algorithm to summarise.")
    missing = [a for a in mean_hardness.index if a not in families]
    if missing:
        raise ValueError(f"families has no family for {missing[:3]}.")
    fam = pd.Series([families[a] for a in mean_hardness.index], index=mean_hardness.index)
    methods = list(mean_hardness.columns)
    grouped = mean_hardness.groupby(fam, sort=False)
    out = pd.DataFrame({"configurations": grouped.size().astype(int)})
    for m in methods:
        out[f"mean {m}"] = grouped[m].mean()
        out[f"best {m}"] = grouped[m].min()
    first = methods[0]
    out["best member"] = grouped[first].idxmin()
    if average_rank is not None:
        ranks = average_rank.reindex(mean_hardness.index)
        out["best rank"] = ranks.groupby(fam, sort=False).min()
    out.index.name = "family"
    return out.sort_values(f"best {first}", kind="stable")


def top_k(average_rank: pd.Series, families: dict[str, str], k: int = 20) -> pd.DataFrame:
    """The ``k`` algorithms of best average rank, with their family."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}.")
    best = average_rank.sort_values(kind="stable").head(k)
    return pd.DataFrame({"family": [families[a] for a in best.index], "average rank": best},
                        index=pd.Index(best.index, name="algorithm"))


def _palette(names):
    """One colour per family, each legible as text on white (contrast at least 4.5:1,
    WCAG AA): tab20's colours, those too pale darkened (tab20's light blue, orange and
    green were lost on white)."""
    from matplotlib import colormaps

    cmap = colormaps["tab20"]
    # the dark half of tab20 first, then its light half, darkened as needed
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    return {f: _darkened(cmap(order[i % 20])) for i, f in enumerate(names)}


def _luminance(rgb) -> float:
    c = np.asarray(rgb[:3], dtype=float)
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def _contrast_on_white(rgb) -> float:
    return 1.05 / (_luminance(rgb) + 0.05)


def _darkened(rgba, contrast=4.5):
    """``rgba`` scaled towards black until its contrast on white is ``contrast``."""
    rgb = np.asarray(rgba[:3], dtype=float)
    while _contrast_on_white(rgb) < contrast:
        rgb = rgb * 0.95
    return (*rgb, 1.0)


def family_dendrogram(D, algorithms, families: dict[str, str], *, title: str = "",
                      max_labelled: int = MAX_LABELLED_LEAVES) -> Figure:
    """Average-linkage dendrogram whose leaves are coloured by family.

    Up to ``max_labelled`` leaves, each leaf's name is written in its family's colour;
    above, names are left out and a strip of family colours runs under the leaves, with
    a legend, so that 500 leaves stay readable.
    """
    from scipy.cluster.hierarchy import dendrogram

    from metaeval.similarity import average_linkage

    algorithms = list(algorithms)
    if len(algorithms) < 2:
        raise ValueError("a dendrogram needs at least two algorithms.")
    Z = average_linkage(np.asarray(D, dtype=float))
    fam_names = list(dict.fromkeys(families[a] for a in algorithms))
    colour = _palette(fam_names)
    n = len(algorithms)
    labelled = n <= max_labelled
    width = min(max(6.0, 0.2 * n + 2), 24.0)  # leaf labels of 10 pt side by side
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 4.6 if labelled else 4.0), layout="constrained")
    grid = fig.add_gridspec(2 if not labelled else 1, 1,
                            height_ratios=[12, 1] if not labelled else [1])
    ax = fig.add_subplot(grid[0])
    d = dendrogram(Z, ax=ax, no_labels=not labelled, labels=algorithms if labelled else None,
                   color_threshold=0, above_threshold_color="0.35", leaf_rotation=90,
                   leaf_font_size=FONT)
    order = [algorithms[i] for i in d["leaves"]]
    if labelled:
        for tick in ax.get_xticklabels():
            tick.set_color(colour[families[tick.get_text()]])
    else:
        strip = fig.add_subplot(grid[1], sharex=ax)
        xs = 5 + 10 * np.arange(n)
        strip.bar(xs, 1, width=10, color=[colour[families[a]] for a in order], linewidth=0)
        strip.set_yticks([])
        strip.set_xticks([])
        strip.set_xlim(ax.get_xlim())
        for side in ("top", "right", "left", "bottom"):
            strip.spines[side].set_visible(False)
        strip.set_xlabel(f"{n} algorithms, coloured by family", fontsize=FONT)
    from matplotlib.patches import Patch

    # under the figure, not in the axes (there it lay on the root merge)
    fig.legend(handles=[Patch(color=colour[f], label=f) for f in fam_names], fontsize=FONT,
               ncols=min(len(fam_names), max(1, int(width // 1.6))), loc="outside lower center",
               frameon=False)
    ax.set_ylabel("dissimilarity (mean |ΔIH|)", fontsize=FONT)
    ax.tick_params(axis="y", labelsize=FONT)
    if title:
        ax.set_title(title, fontsize=TITLE)
    return fig


def families_section(page, *, k: int = 20) -> str:
    """HTML of the report's family section (``page`` is the report's page object)."""
    from metaeval.algorithms import families as family_map
    from metaeval.report._encode import figure_to_svg
    from metaeval.report._markup import _table
    from metaeval.report.figures import METHOD_ABBREVIATIONS, drawing_style

    view = page.view
    names = view.usable_datasets()
    algs = view.common_algorithms()
    if not names or len(algs) < 2:
        return '<p class="note">Fewer than two algorithms finished on every dataset.</p>'
    fams = family_map(algs)
    out = []
    tables = [view.mean_hardness(n).loc[algs] for n in names]
    mean = sum(tables) / len(tables)
    mean = mean.rename(columns=lambda m: METHOD_ABBREVIATIONS.get(m, m))
    ranks = page.attempt("rankings", lambda: view.rankings())
    average_rank = None
    if ranks:
        ar = next(iter(ranks.values()))
        average_rank = ar.set_index("algorithm")["rank"].astype(float)
    summary = page.attempt("family summary", lambda: family_summary(mean, fams, average_rank))
    if summary is not None:
        out.append(f'<p class="note">{len(algs)} algorithms in {summary.shape[0]} families '
                   "(the part of a name before the colon). Mean instance hardness over "
                   f"{len(names)} dataset{'' if len(names) == 1 else 's'}: of the family's "
                   "members (mean) and of its best member (best); lower is easier. Best "
                   "rank: the best average rank (AR) of a member.</p>")
        first = next(iter(mean.columns))
        out.append(_table(summary, fmt="{:.3f}", text_columns=("best member",),
                          formats={"configurations": "{:g}", "best rank": "{:.1f}"},
                          index_name="family"))
        out.append(f'<p class="note">Sorted by the best member under {_esc(first)}.</p>')
    if average_rank is not None and len(algs) > k:
        out.append(f"<h3>Top {k} of {len(algs)} algorithms by average rank</h3>")
        out.append(_table(top_k(average_rank, fams, k), fmt="{:.2f}", text_columns=("family",),
                          index_name="algorithm"))

    agg = page.attempt("aggregated dissimilarity", lambda: view.aggregated_dissimilarity("mean"))
    if agg:
        D, order = agg
        method = view.methods[0]
        label = METHOD_ABBREVIATIONS.get(method, method)
        figs = []
        for build, caption in (
            (lambda: family_dendrogram(D[method], order, fams,
                                       title=f"{label} · mean over {len(names)} dataset"
                                       f"{'' if len(names) == 1 else 's'}"),
             "Average-linkage dendrogram of the algorithms (dissimilarity of Melo & Prudêncio "
             "2014, eq. 25, averaged over datasets), leaves coloured by family."),
            (lambda: _family_level_figure(D[method], order, fams, label),
             "Dendrogram of the families: mean dissimilarity between their members."),
        ):
            # made and drawn in the report's drawing style, as its other figures: nothing
            # sits above these axes, the same markup, the title not measured over the ticks
            with drawing_style():
                fig = page.attempt("family dendrogram", build)
                svg = None if fig is None else figure_to_svg(fig, page_font=True)
            if svg is not None:
                figs.append(f"<figure>{svg}<figcaption>{_esc(caption)}"
                            "</figcaption></figure>")
        out.append('<div class="row">' + "".join(figs) + "</div>")
    return "\n".join(out)


def _family_level_figure(D, algorithms, fams, label) -> Figure:
    F, names = family_dissimilarity(D, algorithms, fams)
    if len(names) < 2:
        raise ValueError("one family only: no family dendrogram")
    G = F.copy()
    np.fill_diagonal(G, 0.0)
    return family_dendrogram(G, names, {f: f for f in names},
                             title=f"{label} · families")
