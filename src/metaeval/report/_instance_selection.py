"""Where and when each algorithm wins: footprints, per-instance selection and IRT.

Figures (drawing only: arrays and frames in, a new :class:`~matplotlib.figure.Figure`
out) and their builders for :func:`metaeval.report.plot` (reading a
:class:`~metaeval.report._plots.StudyView`, computing with :mod:`metaeval.selection`,
then drawing). The kinds ``footprints``, ``selection`` and ``irt`` are registered in
:data:`metaeval.report.PLOT_KINDS`.

References
----------
.. [1] Muñoz, M. A. & Smith-Miles, K. A. (2017). Performance analysis of continuous
   black-box optimization algorithms via footprints in instance space. Evolutionary
   Computation 25(4), 529-554.
.. [2] R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
   learning", ECML PKDD 2019 (instance cost curves; Sect. 5, selection by region and
   operating condition).
.. [3] Chen, Y., Silva Filho, T., Prudêncio, R. B. C., Diethe, T. & Flach, P. (2019).
   β³-IRT: a new item response model and its applications. AISTATS 2019.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = [
    "footprint_figure",
    "selection_figure",
    "irt_correlation_figure",
    "footprint_data",
    "selection_data",
    "irt_data",
    "PLOT_KINDS",
]

_GOOD, _OTHER, _FILL = "#2ca02c", "#c7c7c7", "#98df8a"
_GROUP_COLOURS = {"classic": "#7f7f7f", "pool": "#1f77b4", "cost-sensitive": "#d62728"}


# ----------------------------------------------------------------------------- figures


def footprint_figure(xy, footprints, *, good=None, axis_labels=("PC1", "PC2"), title=None):
    """Footprints drawn on the instance space, two (or more) conditions side by side.

    Parameters
    ----------
    xy : array-like of shape (n_instances, 2)
    footprints : mapping of condition label to mapping of algorithm to Footprint
        E.g. :func:`metaeval.selection.condition_footprints` (keys: cost proportions);
        a condition's ``"space"`` entry (the footprint of all instances), if any, is not
        drawn: each area is given as a share of it, as
        :func:`metaeval.selection.footprint_table`'s ``area_normalized`` (else in the
        projection's units). Every condition must hold the same algorithms.
    good : mapping of condition label to mapping of algorithm to bool array, optional
        The instances each algorithm handles well, drawn in green.
    axis_labels : pair of str
    title : str, optional

    Returns
    -------
    Figure
        Algorithms two to a row; each gets one panel per condition, next to each other.
    """
    xy = np.asarray(xy, dtype=float)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise ValueError(f"xy must have shape (n, 2), got {xy.shape}")
    conditions = list(footprints)
    if not conditions:
        raise ValueError("footprints is empty: give at least one condition")
    algorithms = [a for a in footprints[conditions[0]] if a != "space"]
    for c in conditions:
        if [a for a in footprints[c] if a != "space"] != algorithms:
            raise ValueError("every condition must hold the same algorithms")
    per_row = 2 if len(algorithms) > 1 else 1
    ncols = per_row * len(conditions)
    nrows = -(-len(algorithms) // per_row)
    # at most 7.2 in wide: full size (10 pt text) inside an 800 px window
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(min(2.6 * ncols, 7.2), 2.5 * nrows + 0.4), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    size = max(1.0, min(12.0, 3000.0 / max(1, xy.shape[0])))
    for i, alg in enumerate(algorithms):
        for j, c in enumerate(conditions):
            ax = axes[i // per_row, (i % per_row) * len(conditions) + j]
            fp = footprints[c][alg]
            if fp.triangles.shape[0]:
                ax.add_collection(PolyCollection(fp.triangles, facecolors=_FILL,
                                                 edgecolors="none", alpha=0.6, zorder=1))
                ax.add_collection(LineCollection(fp.boundary, colors="#1b5e20",
                                                 linewidths=0.8, zorder=3))
            mask = None if good is None else np.asarray(good[c][alg], dtype=bool)
            colours = _OTHER if mask is None else np.where(mask, _GOOD, _OTHER)
            ax.scatter(xy[:, 0], xy[:, 1], s=size, c=colours, linewidths=0, zorder=2)
            label = f"c = {c:g}" if isinstance(c, (int, float)) else str(c)
            # the area as the report's table gives it (a share of the whole space's
            # footprint) where the space is given, and both numbers to 3 decimals; one
            # number a line, so neighbouring panels' titles stay apart
            space = footprints[c].get("space")
            area = (f"area {fp.area / space.area:.3f} of space" if space is not None
                    and space.area > 0 else f"area {fp.area:.3f} (PC units²)")
            ax.set_title(f"{alg}, {label}\n{area}\npurity {fp.purity:.3f}", fontsize=10)
            ax.tick_params(labelsize=10)
            ax.xaxis.set_major_locator(MaxNLocator(3))
            ax.yaxis.set_major_locator(MaxNLocator(4))
    for ax in axes.ravel()[len(algorithms) * len(conditions):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(axis_labels[0], fontsize=10)
    for ax in axes[:, 0]:
        ax.set_ylabel(axis_labels[1], fontsize=10)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def selection_figure(table, *, title=None):
    """Losses and gap closed of per-instance selection against the cost proportion.

    Parameters
    ----------
    table : DataFrame
        One row per ``c`` with columns ``c``, ``single best``, ``oracle`` and one per
        selection strategy (e.g. ``selector``, ``KNORA-E``); mean losses.
    title : str, optional

    Returns
    -------
    Figure
        Left: mean loss against c; right: share of the single best-to-oracle gap closed.
    """
    if not isinstance(table, pd.DataFrame) or not {"c", "single best", "oracle"} <= set(
        table.columns
    ):
        raise ValueError("table must be a DataFrame with columns c, single best and oracle")
    strategies = [s for s in table.columns
                  if s not in ("c", "single best", "oracle") and not s.startswith(("gap", "k"))]
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.2, 3.6), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    c = table["c"].to_numpy(dtype=float)
    ax.plot(c, table["single best"], "k--", marker="o", label="single best")
    ax.plot(c, table["oracle"], "k:", marker="o", label="oracle")
    gap = table["single best"] - table["oracle"]
    for s in strategies:
        line = ax.plot(c, table[s], marker="s", label=s)[0]
        closed = np.where(gap > 1e-12, (table["single best"] - table[s]) / gap.where(gap > 0),
                          np.nan)
        bx.plot(c, closed, marker="s", color=line.get_color(), label=s)
    ax.set_xlabel("cost proportion c")
    ax.set_ylabel("mean loss at c")
    ax.legend(fontsize=10)
    bx.axhline(0, color="k", lw=0.8, ls="--")
    bx.axhline(1, color="k", lw=0.8, ls=":")
    bx.set_xlabel("cost proportion c")
    bx.set_ylabel("gap closed\n(1 = oracle, 0 = single best)")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def irt_correlation_figure(corr, *, groups=None, title=None):
    """Rank correlation of the IRT difficulty with each hardness measure, as bars.

    Parameters
    ----------
    corr : Series
        One correlation per hardness measure (e.g.
        :func:`metaeval.selection.difficulty_correlations`); NaN bars are left out.
    groups : mapping of measure to group name, optional
        ``"classic"``, ``"pool"`` or ``"cost-sensitive"`` colour the bars.
    title : str, optional

    Returns
    -------
    Figure
    """
    if not isinstance(corr, pd.Series):
        raise ValueError("corr must be a pandas Series of correlations")
    corr = corr.dropna().sort_values()
    if corr.empty:
        raise ValueError("corr has no finite correlation to draw")
    groups = dict(groups or {})
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 0.3 * len(corr) + 1.2), layout="constrained")
    ax = fig.subplots()
    colours = [_GROUP_COLOURS.get(groups.get(m), "#9467bd") for m in corr.index]
    ax.barh(np.arange(len(corr)), corr.to_numpy(), color=colours)
    ax.set_yticks(np.arange(len(corr)), [str(m) for m in corr.index], fontsize=10)
    ax.axvline(0, color="k", lw=0.8)
    ax.set_xlim(-1, 1)
    ax.set_xlabel("Spearman correlation with the IRT difficulty")
    for name, colour in _GROUP_COLOURS.items():
        if name in groups.values():
            ax.barh([np.nan], [np.nan], color=colour, label=name)
    if groups:
        ax.legend(fontsize=10, loc="lower right")
    if title:
        ax.set_title(title, fontsize=10)
    return fig


# ----------------------------------------------------------------------------- data


def _xy(view, dataset):
    """The instance-space projection of a dataset (PCA of the encoded features), cached."""

    def compute():
        from metaeval.instance_space import project_instances

        ds = view.dataset(dataset)
        if ds is None:
            raise ValueError(f"the features of dataset {dataset!r} cannot be reloaded "
                             "unchanged: no instance space")
        return project_instances(ds.X, categorical=list(ds.categorical))

    return view._cached(("instance-selection:xy", dataset), compute)


def footprint_data(view, dataset, *, costs=(0.2, 0.8), method="score-driven", epsilon=0.2,
                   kind="good", algorithms=None):
    """``(xy, footprints, good)`` of a dataset at the given cost proportions."""
    from metaeval.hardness import instance_hardness_at
    from metaeval.selection import condition_footprints, good_instances

    dataset = view._check_dataset(dataset)
    y, S, algs = view.scores(dataset)
    xy = _xy(view, dataset)
    include = None if algorithms is None else (
        [algorithms] if isinstance(algorithms, str) else list(algorithms))
    fps = condition_footprints(xy, y, S, costs=costs, method=method, epsilon=epsilon,
                               kind=kind, algorithms=algs, include=include, t=view.t)
    names = include or algs
    good = {}
    for c in fps:
        H = good_instances(instance_hardness_at(y, S, method, c, t=view.t), epsilon=epsilon,
                           kind=kind)
        good[c] = {a: H[:, algs.index(a)] for a in names}
    return xy, fps, good


def _folds(view, dataset, algorithm):
    """The fold of each instance in the study's first repeat, as ``algorithm`` (the first
    that finished) was cross-validated.

    From the store's one-column read (:meth:`metaeval.store.Store.folds`, the first
    finished algorithm's folds: every algorithm of a repeat has the same) where the store
    has it, instead of every score of the dataset in long form (30 ms a dataset).
    """
    folds = getattr(view.store, "folds", None)
    if folds is not None and algorithm == view.scores(dataset)[2][0]:
        return folds(dataset)
    frame = view.store.scores_frame(dataset)
    first = frame[(frame["algorithm"] == algorithm) & (frame["repeat"] == 0)]
    return first.sort_values("row")["fold"].to_numpy()


def _selection_verdict(summary_table) -> str:
    """One sentence: is the per-instance selector better than the single best, at which c?

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"c": [0.2, 0.8], "gap closed": [-0.149, -0.097]})
    >>> text = _selection_verdict(t)
    >>> "(0.2, 0.8) the per-instance selector is worse" in text, "-0.149 to -0.097" in text
    (True, True)
    """
    gap = summary_table["gap closed"].to_numpy(dtype=float)
    costs = ", ".join(f"{c:g}" for c in summary_table["c"])
    span = f"gap closed {gap.min():+.3f} to {gap.max():+.3f}".replace("+-", "-")
    if np.all(gap < 0):
        text = (f"At every cost proportion tried ({costs}) the per-instance selector is worse "
                f"than the single best model ({span}).")
    elif np.all(gap > 0):
        text = (f"At every cost proportion tried ({costs}) the per-instance selector is "
                f"better than the single best model ({span}).")
    else:
        better = ", ".join(f"{c:g}" for c, g in zip(summary_table["c"], gap, strict=True)
                           if g > 0) or "none"
        text = (f"The per-instance selector beats the single best model at c = {better} "
                f"only ({span}).")
    return f'<p class="note">{text}</p>'


def selection_data(view, datasets=None, *, costs=(0.1, 0.3, 0.5, 0.7, 0.9),
                   method="score-driven", max_instances=5000):
    """Per-instance selection on the study's folds: per-dataset rows and the mean table.

    Returns ``(per_dataset, table)``: one row per (dataset, c), and the mean losses over
    datasets per c (columns ``c``, ``single best``, ``selector``, ``oracle``,
    ``gap closed``, ``datasets``). Datasets whose features do not reload, or with more
    than ``max_instances`` rows, are left out.
    """
    from metaeval.selection import evaluate_selection

    names = view.dataset_names() if datasets is None else (
        [datasets] if isinstance(datasets, str) else list(datasets))
    sizes = view.datasets().set_index("name")["n_instances"]

    def compute(name):
        ds = view.dataset(name)
        if ds is None or int(sizes[name]) > max_instances:
            return None
        y, S, algs = view.scores(name)
        X = view.encoded(name)
        table = evaluate_selection(X, y, S, _folds(view, name, algs[0]), c=costs,
                                   method=method, algorithms=algs, t=view.t)
        return table.assign(dataset=name)

    rows = []
    for name in names:  # a loop over datasets
        name = view._check_dataset(name)
        got = view._cached(("instance-selection:selection", name, tuple(costs), method),
                           lambda name=name: compute(name))
        if got is not None:
            rows.append(got)
    if not rows:
        raise ValueError("no dataset with reloadable features (and at most "
                         f"{max_instances} instances) for per-instance selection")
    per = pd.concat(rows, ignore_index=True)
    g = per.groupby("c")
    table = pd.DataFrame({
        "single best": g["loss_single_best"].mean(),
        "selector": g["loss_selected"].mean(),
        "oracle": g["loss_oracle"].mean(),
        "gap closed": (g["loss_single_best"].sum() - g["loss_selected"].sum())
        / (g["loss_single_best"].sum() - g["loss_oracle"].sum()),
        "datasets": g["dataset"].nunique(),
    }).reset_index()
    return per, table


def irt_data(view, dataset, *, response="true-class-probability"):
    """``(fit, corr, groups)``: β³-IRT of a dataset and its difficulty's correlations."""
    from metaeval.selection import difficulty_correlations, fit_beta3_irt, irt_responses

    dataset = view._check_dataset(dataset)

    def compute():
        y, S, algs = view.scores(dataset)
        fit = fit_beta3_irt(irt_responses(y, S, response=response, t=view.t))
        got = view.instance_space(dataset)
        if got is None:
            raise ValueError(f"the features of dataset {dataset!r} cannot be reloaded "
                             "unchanged: no hardness measures to relate the IRT to")
        frame = got[0]
        corr = difficulty_correlations(fit.difficulty, frame)
        groups = {m: "classic" for m in frame.attrs.get("classic", [])}
        groups.update({m: "pool" for m in frame.attrs.get("pool", [])})
        groups.update({m: "cost-sensitive" for m in frame.attrs.get("cost_sensitive", [])})
        return fit, corr, groups

    return view._cached(("instance-selection:irt", dataset, response), compute)


# ----------------------------------------------------------------------------- plot kinds


def _footprints_plot(view, *, dataset=None, cost_proportions=(0.2, 0.8),
                     method="score-driven", epsilon=0.2, kind="good", algorithms=None):
    costs = [cost_proportions] if np.isscalar(cost_proportions) else list(cost_proportions)
    xy, fps, good = footprint_data(view, dataset, costs=costs, method=method,
                                   epsilon=epsilon, kind=kind, algorithms=algorithms)
    what = f"hardness <= {epsilon:g}" if kind == "good" else "best of the pool"
    return footprint_figure(
        xy, fps, good=good,
        title=f"{dataset}: footprints ({what}, {method}) at c = "
              + ", ".join(f"{c:g}" for c in costs))


def _selection_plot(view, *, datasets=None, cost_proportions=(0.1, 0.3, 0.5, 0.7, 0.9),
                    method="score-driven", max_instances=5000):
    costs = [cost_proportions] if np.isscalar(cost_proportions) else list(cost_proportions)
    _, table = selection_data(view, datasets, costs=costs, method=method,
                              max_instances=max_instances)
    return selection_figure(
        table[["c", "single best", "selector", "oracle"]],
        title=f"Per-instance selection ({method}), mean over {int(table['datasets'].max())} "
              f"dataset{'' if int(table['datasets'].max()) == 1 else 's'}")


def _irt_plot(view, *, dataset=None, response="true-class-probability"):
    from metaeval.report._glossary import human_name

    fit, corr, groups = irt_data(view, dataset, response=response)
    corr = corr.rename(index=human_name)  # measures in words
    groups = {human_name(k): v for k, v in groups.items()}
    return irt_correlation_figure(corr, groups=groups,
                                  title=f"{dataset}: β³-IRT difficulty vs hardness measures")


#: (builder, needs_store, per_dataset, description) of the kinds this module adds.
PLOT_KINDS: Mapping[str, tuple] = {
    "footprints": (_footprints_plot, True, True,
                   "algorithm footprints in the instance space at two cost proportions "
                   "(Muñoz & Smith-Miles 2017; Prudêncio 2019); options: dataset, "
                   "cost_proportions, method, epsilon, kind (good|best), algorithms"),
    "selection": (_selection_plot, True, False,
                  "cost-sensitive per-instance selection vs single best and oracle, nested "
                  "CV on the study's folds (Prudêncio 2019, Sect. 5); options: datasets, "
                  "cost_proportions, method, max_instances"),
    "irt": (_irt_plot, True, True,
            "β³-IRT difficulty against the classic and cost-sensitive hardness measures "
            "(Chen et al. 2019); options: dataset, response"),
}


# ----------------------------------------------------------------------------- report section


def _featured(view, datasets, max_rows):
    """The first usable dataset whose features reload, with at most ``max_rows`` rows."""
    sizes = view.datasets().set_index("name")["n_instances"]
    usable = set(view.usable_datasets())
    for name in datasets:
        if name in usable and int(sizes[name]) <= max_rows and view.dataset(name) is not None:
            return name
    return None


def _shown_algorithms(page, dataset, max_algorithms):
    """The algorithms whose footprints are drawn, and a note saying how they were picked.

    All of them up to ``max_algorithms``; beyond that (a wide pool: one panel per
    algorithm and condition would take minutes to draw and be unreadable) the best
    ``max_algorithms`` by average rank (AR), in rank order.
    """
    from metaeval.report._markup import _esc

    algs = list(page.view.scores(dataset)[2])
    if len(algs) <= max_algorithms:
        return None, ""
    ranks = page.attempt("rankings", lambda: page.view.rankings())
    if ranks:
        ar = next(iter(ranks.values())).set_index("algorithm")["rank"].astype(float)
        order = [a for a in ar.sort_values(kind="stable").index if a in algs]
        how = "best by average rank (AR)"
    else:
        order, how = algs, "first in the store"
    shown = order[:max_algorithms]
    return shown, (f'<p class="note">The {max_algorithms} of {len(algs)} algorithms {how}: '
                   f"{_esc(', '.join(shown))}.</p>")


#: cost proportions of the report's per-instance selection table
SELECTION_COSTS = (0.1, 0.3, 0.5, 0.7, 0.9)


def warm_selection(view, dataset, *, max_rows=5000) -> None:
    """Compute one dataset's per-instance selection for :func:`report_section`, if it can.

    Called from the dataset's own section, so the datasets' selections are computed in
    parallel and the whole-study section only reads them; a failure is left for that
    section to meet and report.
    """
    try:
        selection_data(view, [dataset], costs=SELECTION_COSTS, max_instances=max_rows)
    except Exception:  # noqa: BLE001 - reported where the section computes it again
        pass


def report_section(page, datasets, *, costs=(0.2, 0.8),
                   selection_costs=SELECTION_COSTS, max_rows=5000,
                   max_algorithms=8):
    """HTML of the report section on footprints, per-instance selection and IRT.

    ``page`` is the report's page (figures through :data:`PLOT_KINDS`, problems noted,
    not fatal); ``datasets`` the report's datasets. Footprints and IRT are shown for
    the first dataset whose features reload (at most ``max_rows`` rows), footprints for
    at most ``max_algorithms`` algorithms (the best by average rank); selection runs on
    every such dataset.
    """
    from metaeval.report._markup import _esc, _row, _table

    view = page.view
    featured = _featured(view, list(datasets), max_rows)
    if featured is None:
        return ('<p class="note">No dataset with reloadable features and at most '
                f"{max_rows} instances: no footprints, selection or IRT.</p>")
    costs = tuple(float(c) for c in costs)
    shown, shown_note = _shown_algorithms(page, featured, max_algorithms)
    parts = [
        "<p>Where each algorithm does well, and whether choosing one per instance pays, at "
        "a given operating condition (cost proportion c; losses are instance cost curves "
        "under the score-driven method, Prudêncio 2019).</p>",
        f"<h3>Footprints on {_esc(featured)}</h3>",
        shown_note,
        page.figure("footprints", "Footprints (Muñoz & Smith-Miles 2017): the union of the "
                    "Delaunay triangles of each algorithm's good instances (hardness at c at "
                    "most 0.2, green points), without triangles with an edge over twice the "
                    "median Delaunay edge or with under 55% good instances; two cost "
                    "proportions side by side.",
                    fmt="png", dataset=featured, cost_proportions=costs, algorithms=shown),
    ]

    def footprint_table():
        from metaeval.selection import footprint_table as summary

        _, fps, _ = footprint_data(view, featured, costs=costs, algorithms=shown)
        cols = {}
        for c in costs:
            t = summary(fps[c])
            cols[f"area c={c:g}"] = t["area_normalized"]
            cols[f"purity c={c:g}"] = t["purity"]
            cols[f"regions c={c:g}"] = t["n_regions"]
        return pd.DataFrame(cols)

    table = page.attempt(f"footprint table ({featured})", footprint_table)
    if table is not None:
        parts.append("<p>Area as a share of the space's footprint; purity = share of good "
                     "instances inside.</p>")
        regions = {c: "{:.0f}" for c in table.columns if c.startswith("regions")}
        parts.append(_table(table, fmt="{:.3f}", index_name="algorithm", formats=regions))
    parts.append("<h3>Cost-sensitive per-instance selection</h3>")
    got = page.attempt("per-instance selection", lambda: selection_data(
        view, datasets, costs=selection_costs, max_instances=max_rows))
    if got is not None:
        per, summary_table = got
        parts.append(
            f"<p>Nested cross-validation on the study's folds over {per['dataset'].nunique()} "
            "datasets: for each instance, the model with the lowest mean loss at c among its "
            "k nearest training instances (k, or the single best, chosen by inner 5-fold "
            "cross-validation). Mean loss per instance, averaged over datasets; gap closed = "
            "(single best − selector) / (single best − oracle), from the summed losses. "
            "Nothing of an outer fold's own rows chooses for them; the stored score of a "
            "training instance, though, comes from a model fitted with the outer fold's rows "
            "(the study's cross-validation), so this is not a fully nested refit of the pool "
            "(the <code>train_scores</code> option of the selection takes one).</p>")
        parts.append(_selection_verdict(summary_table))
        parts.append(_table(summary_table.set_index("c"), fmt="{:.3f}", index_name="c",
                            formats={"datasets": "{:.0f}"}))
        parts.append(page.figure("selection", "Per-instance selection against the single "
                                 "best model and the per-instance oracle.", fmt="png",
                                 datasets=list(datasets), cost_proportions=selection_costs,
                                 max_instances=max_rows))
    parts.append(f"<h3>β³-IRT on {_esc(featured)}</h3>")
    irt = page.attempt(f"IRT ({featured})", lambda: irt_data(view, featured))
    if irt is not None:
        fit, corr, groups = irt
        from metaeval.report._glossary import human_name

        corr = corr.rename(index=human_name)  # measures in words, not code names
        algs = view.scores(featured)[2]
        abilities = pd.DataFrame({"ability": fit.ability}, index=algs)
        weak = corr[corr.abs() < 0.3].dropna().index.tolist()
        parts.append(
            "<p>β³-IRT (Chen, Silva Filho, Prudêncio et al. 2019) fitted to the probability "
            "each model gives to each instance's class: an ability per model, a difficulty "
            "and a discrimination per instance. "
            f"Difficulty agrees best with {_esc(corr.idxmax())} (Spearman "
            f"{corr.max():.2f}) and least with {_esc(corr.idxmin())} ({corr.min():.2f})"
            + (f"; |ρ| < 0.3 for {_esc(', '.join(map(str, weak)))}" if weak else "")
            + ".</p>")
        parts.append(_row(_table(abilities, fmt="{:.3f}", index_name="algorithm"),
                          _table(corr.to_frame("Spearman ρ"), fmt="{:.3f}",
                                 index_name="measure")))
        parts.append(page.figure("irt", "Spearman correlation of the IRT difficulty with "
                                 "the classic (grey), pool (blue) and cost-sensitive (red) "
                                 "hardness measures.", fmt="png", dataset=featured))
    return "\n".join(parts)
