"""The figure builders of :data:`metaeval.report._plots.PLOT_KINDS`: read, compute, draw.

Each builder takes a :class:`~metaeval.report._plots.StudyView` and a kind's options and
returns a figure (or, for the report, its pixels or SVG markup straight away, on a frame
made once per process: :mod:`metaeval.report._backdrop`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    pass

from metaeval.report import data, figures
from metaeval.report.figures import _style as fig_style
from metaeval.report.figures import benchmark as fig_bench
from metaeval.report.figures import cost_curves as fig_cc
from metaeval.report.figures import instance_space as fig_space
from metaeval.report.figures import maps as fig_maps
from metaeval.report.figures import similarity as fig_sim

_SCORE_METHODS = ("score-driven", "rate-driven")


def _all_methods() -> tuple[str, ...]:
    from metaeval.hardness import METHODS

    return tuple(METHODS)


def _axis_labels(explained) -> tuple[str, str]:
    return (f"PC1 ({100 * explained[0]:.0f} % of variance)",
            f"PC2 ({100 * explained[1]:.0f} % of variance)")


#: Most instances a map draws; larger datasets are drawn from a seeded random sample.
MAX_MAP_POINTS = 3000


def _sample(n, max_points):
    """Rows a map draws (all, or a seeded sample) and the note saying so."""
    max_points = int(max_points)
    if max_points < 1:
        raise ValueError(f"max_points must be a positive integer, got {max_points}")
    if n <= max_points:
        return np.arange(n), None
    rows = np.sort(np.random.default_rng(0).choice(n, size=max_points, replace=False))
    return rows, f"{max_points} of {n} instances drawn (random sample)"


def _projection_or_raise(view, dataset):
    proj = view.projection(dataset)
    if proj is None:
        raise ValueError(f"the features of dataset {dataset!r} cannot be reloaded unchanged "
                         "(not a built-in dataset, or its file changed): no map")
    return proj


def _methods_option(view, methods):
    if methods is None:
        return view.methods
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    unknown = set(methods) - set(_all_methods())
    if unknown:
        raise ValueError(f"methods has unknown threshold choice methods {sorted(unknown)}")
    return methods


def _instance_cost_curves(view, *, dataset=None, rows=None, methods=None, algorithms=None):
    return figures.instance_cost_curves(**_instance_cost_curves_input(
        view, dataset=dataset, rows=rows, methods=methods, algorithms=algorithms))


def _on_backdrop(name, checked, frame, content, dpi, inset=None):
    """A figure as pixels, its frame drawn once per process (see
    :mod:`metaeval.report._backdrop`): ``(RGBA image, size in inches, smallest font in
    pt)``. ``checked``: the figure function's validated input, its ``"frame"`` the
    keyword arguments of ``frame``; ``content(fig, axes, checked)`` draws the rest, but
    for ``inset`` (see :meth:`~metaeval.report._backdrop.Backdrop.draw`).

    The image is the frame's canvas itself, not a copy: valid until the next figure of
    the same frame is drawn (the report encodes it at once)."""
    from metaeval.report._backdrop import backdrop

    layout = checked["frame"]
    made = backdrop((name, tuple(sorted(layout.items()))), lambda: frame(**layout), dpi)
    img, small = made.draw(content, checked, inset=inset, copy=False)
    return img, tuple(made.fig.get_size_inches()), small


def _on_frame(name, checked, frame, content, prepare=None, layered=False) -> str:
    """A figure as the report's SVG markup, on panels made once per process (see
    :mod:`metaeval.report._backdrop`); ``prepare(fig, axes)`` finishes a new frame;
    ``layered``: the frame's own markup is printed once (for a frame the content does
    not change)."""
    from metaeval.report._backdrop import frame as kept_frame

    layout = checked["frame"]

    def build():
        made = frame(**layout)
        return made if prepare is None else prepare(*made)
    return kept_frame((name, tuple(sorted(layout.items()))), build,
                      layered=layered).svg(content, checked)


def _instance_cost_curves_png(view, *, dpi, dataset=None, rows=None, methods=None,
                              algorithms=None):
    """:func:`_instance_cost_curves` as pixels, on a frame drawn once per process."""
    checked = fig_cc._instance_cost_curves_checked(**_instance_cost_curves_input(
        view, dataset=dataset, rows=rows, methods=methods, algorithms=algorithms))
    return _on_backdrop("instance-cost-curves", checked,
                        fig_cc._instance_cost_curves_frame,
                        fig_cc._instance_cost_curves_content, dpi)


def _instance_cost_curves_input(view, *, dataset, rows, methods, algorithms) -> dict:
    """The arguments of :func:`metaeval.report.figures.instance_cost_curves`."""
    y, S, algs = view.scores(dataset)
    methods = _methods_option(view, methods)
    if algorithms is not None:
        algorithms = [algorithms] if isinstance(algorithms, str) else list(algorithms)
        missing = [a for a in algorithms if a not in algs]
        if missing:
            raise ValueError(f"algorithms {missing} have no scores on {dataset!r}; it has {algs}")
        idx = [algs.index(a) for a in algorithms]
        S, algs = S[:, idx], algorithms
    if rows is None:
        rows, labels = _hardest_and_typical(y, view.hardness(dataset))
    else:
        rows = [int(r) for r in np.atleast_1d(rows)]
        labels = None
    H = None
    if algorithms is None and set(methods) <= set(view.methods):
        H = view.hardness(dataset)[:, [view.methods.index(m) for m in methods]]
    d = data.cost_curve_data(y, S, rows, methods=methods, t=view.t, hardness=H)
    return {"c": d.c, "curves": d.curves, "methods": d.methods,
            "instances": labels or d.labels, "models": algs,
            "interpolated": d.interpolated, "hardness": d.hardness}


def _hardest_and_typical(y, H):
    """Rows and column heads: per class (0, then 1) its hardest instance, then a typical one.

    Hardest: the highest mean hardness over the methods; typical: the nearest the
    class median (the choice of :func:`metaeval.report.data.choose_instances`),
    in a fixed order, so every dataset's figure reads the same way.
    """
    mean = np.asarray(H, dtype=float).reshape(len(y), -1).mean(axis=1)
    rows, labels = [], []
    for k in (0, 1):
        idx = np.flatnonzero(np.asarray(y) == k)
        if idx.size == 0:
            continue
        v = mean[idx]
        hardest = int(idx[np.argmax(v)])
        typical = int(idx[np.argmin(np.abs(v - np.median(v)))])
        rows.append(hardest)
        labels.append(f"class {k}, hardest\nrow {hardest}")
        if typical != hardest:
            rows.append(typical)
            labels.append(f"class {k}, typical\nrow {typical}")
    return rows, labels


def _class_cost_curves(view, *, dataset=None, methods=None):
    return figures.class_cost_curves(**_class_cost_curves_input(view, dataset=dataset,
                                                                methods=methods))


def _class_cost_curves_svg(view, *, dataset=None, methods=None):
    """:func:`_class_cost_curves` as the report's SVG markup, on a frame made once."""
    checked = fig_cc._class_cost_curves_checked(**_class_cost_curves_input(
        view, dataset=dataset, methods=methods))
    return _on_frame("class-cost-curves", checked, fig_cc._class_cost_curves_frame,
                     fig_cc._class_cost_curves_content, layered=True)


def _class_cost_curves_input(view, *, dataset, methods) -> dict:
    y, S, _ = view.scores(dataset)
    methods = _methods_option(view, methods)
    H = view.hardness(dataset)[:, [view.methods.index(m) for m in methods]] \
        if set(methods) <= set(view.methods) else None
    d = data.class_cost_curve_data(y, S, methods=methods, t=view.t, hardness=H)
    return {"c": d.c, "curves": d.curves, "class_hardness": d.hardness, "methods": d.methods}


def _projection(view, *, dataset=None, max_points=MAX_MAP_POINTS):
    return figures.projection_map(**_projection_input(view, dataset=dataset,
                                                      max_points=max_points))


def _projection_png(view, *, dpi, dataset=None, max_points=MAX_MAP_POINTS):
    """:func:`_projection` as pixels, on a frame drawn once per process."""
    checked = fig_maps._projection_map_checked(**_projection_input(view, dataset=dataset,
                                                                  max_points=max_points))
    return _on_backdrop("projection", checked, fig_maps._projection_map_frame,
                        fig_maps._projection_map_content, dpi)


def _projection_input(view, *, dataset, max_points) -> dict:
    y, _, _ = view.scores(dataset)
    xy, ev = _projection_or_raise(view, dataset)
    rows, note = _sample(y.size, max_points)
    return {"xy": xy[rows], "y": y[rows], "axis_labels": _axis_labels(ev),
            "title": f"{dataset}: PCA of the features", "note": note}


def _hardness_maps(view, *, dataset=None, methods=None, max_points=MAX_MAP_POINTS):
    return figures.hardness_maps(**_hardness_maps_input(view, dataset=dataset,
                                                        methods=methods,
                                                        max_points=max_points))


def _hardness_maps_png(view, *, dpi, dataset=None, methods=None, max_points=MAX_MAP_POINTS):
    """:func:`_hardness_maps` as pixels, on a frame drawn once per process."""
    checked = fig_maps._hardness_maps_checked(**_hardness_maps_input(
        view, dataset=dataset, methods=methods, max_points=max_points))
    return _on_backdrop("hardness-maps", checked, fig_maps._hardness_maps_frame,
                        fig_maps._hardness_maps_content, dpi)


def _hardness_maps_input(view, *, dataset, methods, max_points) -> dict:
    y, _, _ = view.scores(dataset)
    xy, ev = _projection_or_raise(view, dataset)
    methods = _methods_option(view, methods)
    H = view.hardness(dataset)[:, [view.methods.index(m) for m in methods]] \
        if set(methods) <= set(view.methods) else None
    if H is None:
        _, S, _ = view.scores(dataset)
        H = data.hardness_matrix(y, S, methods, t=view.t)
    rows, note = _sample(y.size, max_points)
    return {"xy": xy[rows], "y": y[rows], "hardness": H[rows], "methods": methods,
            "axis_labels": _axis_labels(ev), "note": note}


def _cost_hardness_maps(view, *, dataset=None, target_class=1, cost_proportions=(0.2, 0.5, 0.8),
                        methods=_SCORE_METHODS, max_points=MAX_MAP_POINTS):
    return figures.cost_hardness_maps(**_cost_hardness_maps_input(
        view, dataset=dataset, target_class=target_class, cost_proportions=cost_proportions,
        methods=methods, max_points=max_points))


def _cost_hardness_maps_png(view, *, dpi, dataset=None, target_class=1,
                            cost_proportions=(0.2, 0.5, 0.8), methods=_SCORE_METHODS,
                            max_points=MAX_MAP_POINTS):
    """:func:`_cost_hardness_maps` as pixels, on a frame drawn once per process."""
    checked = fig_maps._cost_hardness_maps_checked(**_cost_hardness_maps_input(
        view, dataset=dataset, target_class=target_class, cost_proportions=cost_proportions,
        methods=methods, max_points=max_points))
    return _on_backdrop("cost-hardness-maps", checked, fig_maps._cost_hardness_maps_frame,
                        fig_maps._cost_hardness_maps_content, dpi,
                        inset=(("colorbar", checked["vmax"]),
                               lambda fig: fig_maps._cost_hardness_maps_colorbar(fig, checked)))


def _cost_hardness_maps_input(view, *, dataset, target_class, cost_proportions, methods,
                              max_points) -> dict:
    y, S, _ = view.scores(dataset)
    xy, ev = _projection_or_raise(view, dataset)
    methods = _methods_option(view, methods)
    target_class = int(target_class)
    cost_proportions = np.atleast_1d(np.asarray(cost_proportions, dtype=float))
    losses = data.loss_at_costs(y, S, cost_proportions, methods, t=view.t)
    rows, note = _sample(y.size, max_points)
    return {"xy": xy[rows], "y": y[rows], "losses": losses[rows], "methods": methods,
            "cost_proportions": cost_proportions, "target_class": target_class,
            "axis_labels": _axis_labels(ev), "note": note}


def _dendrograms(view, *, dataset=None, cut_height=None, how="mean"):
    return figures.dendrograms(**_dendrograms_input(view, dataset=dataset,
                                                    cut_height=cut_height, how=how))


def _dendrograms_svg(view, *, dataset=None, cut_height=None, how="mean"):
    """:func:`_dendrograms` as the report's SVG markup, on a frame made once."""
    checked = fig_sim._dendrograms_checked(**_dendrograms_input(
        view, dataset=dataset, cut_height=cut_height, how=how))
    return _on_frame("dendrograms", checked, fig_sim._dendrograms_frame,
                     fig_sim._dendrograms_content, prepare=fig_sim._dendrograms_unlabelled)


def _dendrograms_input(view, *, dataset, cut_height, how) -> dict:
    if dataset is None:
        D, algs = view.aggregated_dissimilarity(how)
        label = f"{how} over {_n_datasets(len(view.usable_datasets()))}"
    else:
        D = view.dissimilarities(dataset)
        algs = view.scores(dataset)[2]
        label = str(dataset)
        if len(algs) < 2:
            raise ValueError(f"dataset {dataset!r} has fewer than two algorithms: no dendrogram")
    from metaeval.similarity import average_linkage

    Z = {m: average_linkage(D[m]) for m in view.methods}
    cut = {m: (data.default_cut_height(Z[m]) if cut_height is None else float(cut_height))
           for m in view.methods}
    titles = {m: fig_style._method_title(m) for m in view.methods}
    return {"linkages": Z, "labels": algs, "cut_height": cut, "titles": titles,
            "ylabel": "dissimilarity (mean |ΔIH|)",
            "title": f"Algorithm dissimilarity, {label}"}


def _fine_log2(*must_show):
    """log2 time ratios from 10^-6 to 10^6, widened to show every given point."""
    pts = [p for p in must_show if np.isfinite(p)]
    lo = min([-20.0] + [np.floor(p) - 3.0 for p in pts])
    hi = max([20.0] + [np.ceil(p) + 3.0 for p in pts])
    return np.linspace(lo, hi, int(round((hi - lo) * 20)) + 1)


def _with_used(values, used, name):
    values = [float(v) for v in np.atleast_1d(np.asarray(values, dtype=float))]
    if used is not None and not any(np.isclose(v, float(used)) for v in values):
        values = [float(used), *values]
    if not values:
        raise ValueError(f"{name} must hold at least one value")
    return np.asarray(values)


def _arr(view, *, accd=(0.2, 0.3, 0.7), used=None):
    from metaeval.ranking import arr_pole, arr_sweep

    accd = _with_used(accd, used, "accd")
    with np.errstate(divide="ignore"):
        poles = np.log2(np.atleast_1d(arr_pole(accd)))
    x = _fine_log2(*poles)
    sweep = arr_sweep(accd, log2_ratio=x)
    values = sweep["value"].to_numpy().reshape(accd.size, x.size)
    poles = np.where((poles >= x[0]) & (poles <= x[-1]), poles, np.nan)
    return figures.arr_curves(x, values, accd=accd, poles=poles, used=used)


def _a3r(view, *, n=(4, 8, 16), used=None):
    from metaeval.ranking import a3r_sweep

    n = _with_used(n, used, "n")
    x = _fine_log2()
    values = a3r_sweep(n, log2_ratio=x)["value"].to_numpy().reshape(n.size, x.size)
    return figures.a3r_curves(x, values, n_roots=n, used=used)


def _iso_a3r(view, *, levels=(0.9, 1.0, 1.1), n=8):
    from metaeval.ranking import iso_a3r_curves

    levels = np.atleast_1d(np.asarray(levels, dtype=float))
    x = _fine_log2()
    srr = iso_a3r_curves(levels, n=n, log2_ratio=x)["srr"].to_numpy().reshape(levels.size,
                                                                               x.size)
    return figures.iso_a3r_curves(x, srr, levels=levels, n_root=n)


def _measure_name(view, measure):
    from metaeval.report._glossary import human_name

    return human_name(measure or view.measure)


def _rank_table(view, *, measure=None, accd=0.1, n=8):
    ranks, scores = data.ranks_table(view.rankings(measure, accd=accd, n=n))
    return figures.rank_table(ranks, scores=scores,
                              title=f"Rankings on {_measure_name(view, measure)} (1 = best)")


def _critical_difference(view, *, measure=None, alpha=0.05, algorithms=None):
    from metaeval.ranking import critical_difference_data
    from metaeval.report._topk import only

    success, hib = view.success(measure)
    success = only(success, algorithms)  # these only, ranked among themselves
    cdd = critical_difference_data(success, alpha=alpha, higher_is_better=hib)
    ranks = cdd.average_ranks.set_index("algorithm")["score"]
    return figures.critical_difference_diagram(
        ranks, cdd.cd, cdd.groups,
        title=f"{_measure_name(view, measure)}: average ranks over "
              f"{_n_datasets(cdd.n_datasets)}, "
              f"Nemenyi CD at α = {alpha:g}")


def _value_captured(view, *, algorithms=None):
    from metaeval.benchmark import overall_value
    from metaeval.report._topk import restrict

    ov = overall_value(view.value_captured()).set_index("algorithm")["score"]
    ov = restrict(ov, algorithms)  # these only, valued against the whole pool
    return figures.ranked_bars(ov, xlabel="value captured (%, mean over datasets\nand "
                               "metrics; higher is better)",
                               title="Value captured per algorithm", fmt="{:.1f}")


def _n_datasets(n: int) -> str:
    return f"{n} dataset{'' if n == 1 else 's'}"


def _runtime_scores(view, *, n_slowest=20, algorithms=None):
    from metaeval.benchmark import runtime_score
    from metaeval.report._topk import restrict

    times = view.times()
    times = times[times["algorithm"].isin(view.common_algorithms())
                  & times["dataset"].isin(view.usable_datasets())]
    out = runtime_score(times, n_slowest=n_slowest)
    rs = restrict(out.set_index("algorithm")["score"], algorithms)
    used = len(out.attrs.get("datasets", ())) or times["dataset"].nunique()
    total = times["dataset"].nunique()
    over = (f"over all {_n_datasets(total)}" if used >= total
            else f"over the {used} slowest of {total} datasets")
    c = "CPU" if view.clock == "cpu" else "wall"
    return figures.ranked_bars(rs, xlabel=f"mean log2({c} time / fastest {c} time)\n0 = "
                               "always the fastest; lower is faster",
                               title=f"Runtime score ({over})", higher_is_better=False)


def _in_size_order(view, names):
    """Dataset names in the store's order (by size, as every table shows them)."""
    order = {n: i for i, n in enumerate(view.dataset_names())}
    return sorted(names, key=lambda n: order.get(n, len(order)))


def _heatmap_datasets(view, *, algorithms=None):
    from metaeval.benchmark import value_heatmap
    from metaeval.report._topk import restrict

    m = restrict(value_heatmap(view.value_captured(), by="dataset"), algorithms)
    m = m[_in_size_order(view, list(m.columns))]
    # datasets down, algorithms across: as many datasets as a study has, never too wide
    return figures.heatmap(m.T, title="Value captured by dataset\n(mean over metrics; "
                           "datasets by size)",
                           value_label="value captured (%)", vmin=0, vmax=100, fmt="{:.0f}")


def _heatmap_metrics(view, *, algorithms=None):
    from metaeval.benchmark import value_heatmap
    from metaeval.report._glossary import human_name
    from metaeval.report._topk import restrict

    m = restrict(value_heatmap(view.value_captured(), by="metric"), algorithms)
    m = m.rename(columns=human_name)
    return figures.heatmap(m.T, title="Value captured by metric\n(mean over datasets)",
                           value_label="value captured (%)", vmin=0, vmax=100, fmt="{:.0f}")


def _error_cases(view, *, k=2):
    from metaeval.benchmark import metric_disagreement
    from metaeval.report._glossary import human_name

    md = metric_disagreement(view.metrics(), k=k)
    rates = md.per_metric.set_index("metric")["error_rate"] * 100
    rates.index = rates.index.map(human_name)
    return figures.ranked_bars(
        rates, xlabel=f"error-case rate (%): at most {k} other\nmetrics agree; lower is better",
        title=f"Metric error cases\n(all metrics agree on {100 * md.all_agree:.0f} % "
              f"of {md.n_comparisons} comparisons)", higher_is_better=False, fmt="{:.1f}")


def _bootstrap(view, *, draws=2000, seed=0):
    from metaeval.benchmark import bootstrap_stability

    metrics = view.metrics()
    n_d = metrics["dataset"].nunique()
    n_m = metrics["metric"].nunique()
    d_values = sorted(set(np.unique(np.linspace(1, n_d, min(n_d, 12)).round().astype(int))))
    m_values = list(range(1, n_m + 1))
    grid = bootstrap_stability(metrics, d_values, m_values, B=int(draws), seed=seed)
    table = grid.pivot(index="n_datasets", columns="n_metrics", values="p_different")
    return figures.stability_grid(table, title=f"Bootstrap stability ({draws} draws per cell)")


def _portfolio(view, *, cost_aware=False):
    from metaeval.benchmark import greedy_portfolio

    times = view.times()
    steps = greedy_portfolio(view.value_captured(), times if cost_aware else None,
                             cost_aware=cost_aware)
    return figures.portfolio_curve(steps)


def has_instance_space() -> bool:
    """Whether :mod:`metaeval.instance_space` can be imported."""
    try:
        import metaeval.instance_space  # noqa: F401
    except ImportError:
        return False
    return True


def _instance_space_or_raise(view, dataset):
    if not has_instance_space():
        raise ValueError("metaeval.instance_space is not available")
    got = view.instance_space(dataset)
    if got is None:
        raise ValueError(f"the features of dataset {dataset!r} cannot be reloaded unchanged: "
                         "no instance-space view")
    return got


_INSTANCE_SPACE_MEASURES = ("kDN", "rate-driven")


def _instance_space(view, *, dataset=None, measures=_INSTANCE_SPACE_MEASURES,
                    max_points=MAX_MAP_POINTS):
    return figures.instance_space_map(**_instance_space_input(
        view, dataset=dataset, measures=measures, max_points=max_points))


def _instance_space_png(view, *, dpi, dataset=None, measures=_INSTANCE_SPACE_MEASURES,
                        max_points=MAX_MAP_POINTS):
    """:func:`_instance_space` as pixels, on a frame drawn once per process."""
    checked = fig_space._instance_space_map_checked(**_instance_space_input(
        view, dataset=dataset, measures=measures, max_points=max_points))
    return _on_backdrop("instance-space", checked, fig_space._instance_space_map_frame,
                        fig_space._instance_space_map_content, dpi)


def _instance_space_input(view, *, dataset, measures, max_points) -> dict:
    frame, _ = _instance_space_or_raise(view, dataset)
    # the same PCA as the hardness maps (with its % of variance), not a second one
    xy, ev = _projection_or_raise(view, dataset)
    rows, note = _sample(len(frame), max_points)
    frame, xy = frame.iloc[rows], xy[rows]
    measures = [measures] if isinstance(measures, str) else list(measures)
    missing = [m for m in measures if m not in frame.columns]
    if missing:
        raise ValueError(f"measures {missing} are not columns of the hardness frame; "
                         f"choose from {list(frame.columns)}")
    shown = frame[measures].rename(columns=_measure_title)
    return {"xy": xy, "values": shown, "axis_labels": _axis_labels(ev),
            "title": f"{dataset}: classic and cost-sensitive hardness", "note": note,
            "colorbar_label": "hardness (0 = easy, 1 = hard)"}


def _measure_title(name: str) -> str:
    """A panel title: a classic measure's abbreviation, or a method with its own."""
    abbrev = figures.METHOD_ABBREVIATIONS.get(name)
    if abbrev:
        return f"{abbrev} pool hardness"
    from metaeval.report._glossary import TERMS, human_name

    return f"{name} ({TERMS[name][0]})" if name in TERMS else human_name(name)


def _instance_space_correlation(view, *, dataset=None, method="spearman", title=None):
    corr, title = _instance_space_correlation_input(view, dataset=dataset, method=method,
                                                    title=title)
    return figures.correlation_heatmap(corr, title=title)


def _instance_space_correlation_svg(view, *, dataset=None, method="spearman", title=None):
    """:func:`_instance_space_correlation` as the report's SVG markup, on a frame made and
    laid out once per process: the layout depends on the labels and the title only, the
    same for every dataset when the title does not name it (as in the report)."""
    corr, title = _instance_space_correlation_input(view, dataset=dataset, method=method,
                                                    title=title)
    checked = fig_bench._heatmap_checked(corr, title=title, **fig_space._correlation_options(corr))
    return _on_frame("correlation", checked, fig_bench._heatmap_frame,
                     fig_bench._heatmap_content, prepare=_laid_out, layered=True)


def _laid_out(fig, axes):
    """A frame whose layout engine has run once and is then switched off: the content
    drawn on it (inside its axes) moves nothing, and is drawn without laying it out again."""
    from metaeval.report._encode import figure_to_svg

    figure_to_svg(fig)  # lays it out as the report's SVG is drawn (its text measures)
    fig.set_layout_engine("none")
    # the content labels no axis: the empty labels need no place worked out at each draw
    fig_style._place_unlabelled([axis for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)])
    return fig, axes


def _instance_space_correlation_input(view, *, dataset, method, title):
    from metaeval.instance_space import hardness_correlations
    from metaeval.report._glossary import human_name

    frame, _ = _instance_space_or_raise(view, dataset)
    corr = hardness_correlations(frame, method=method)
    # the comparison that matters: classic measures (rows) x cost-sensitive (columns)
    classic = [c for c in (frame.attrs.get("classic", []) + frame.attrs.get("pool", []))
               if c in corr.index]
    cost = [c for c in frame.attrs.get("cost_sensitive", []) if c in corr.columns]
    if classic and cost:
        corr = corr.loc[classic, cost]
        corr = corr.rename(index=human_name,
                           columns=lambda m: figures.METHOD_ABBREVIATIONS.get(m, m))
    if title is None:
        title = (f"{dataset}: {method.capitalize()} correlation,\nclassic measures × "
                 "cost-sensitive hardness")
    return corr, title
