"""Figures of a study by name: read the store, compute, then draw.

:func:`plot` is what ``metaeval plot KIND`` calls; :mod:`metaeval.report.html`
draws the report through the same builders and the same cached
:class:`StudyView`, so a figure in the report and its ``metaeval plot`` twin are
one and the same.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn, not to read a cache
    from matplotlib.figure import Figure

from metaeval.report import data, figures

__all__ = ["PLOT_KINDS", "StudyView", "parse_plot_options", "plot"]

_SCORE_METHODS = ("score-driven", "rate-driven")


#: bytes of scores a view keeps when it reads them dataset by dataset
SCORES_BUDGET = 64 * 2**20


def _all_methods() -> tuple[str, ...]:
    from metaeval.hardness import METHODS

    return tuple(METHODS)


class StudyView:
    """Cached, read-only view of a results store for figures and the report.

    Parameters
    ----------
    store : metaeval.store.Store or path-like
        The store (a DuckDB file written by ``metaeval run``).
    methods : sequence of str, optional
        Threshold choice methods shown (default all five).
    t : float, default 0.5
        Threshold of the score-fixed method.
    measure : str, default "accuracy"
        Success measure of the rankings: a metric of
        :data:`metaeval.benchmark.METRICS` (e.g. ``"auc"``,
        ``"hardness:rate-driven"``).
    clock : {"cpu", "wall"}, default "cpu"
        The time of ARR, A3R and the runtime score, as ``metaeval rank --time``.

    Examples
    --------
    >>> StudyView("missing.duckdb").store.path.name
    'missing.duckdb'
    """

    def __init__(self, store, *, methods=None, t=0.5, measure="accuracy", clock="cpu"):
        if isinstance(store, StudyView):
            store = store.store
        if isinstance(store, (str, os.PathLike)):
            from metaeval.store import Store

            store = Store(store)
        for attr in ("scores", "scores_frame", "timings", "datasets", "algorithms", "tasks"):
            if not callable(getattr(store, attr, None)):
                raise ValueError(f"store must be a metaeval Store or a path to one, got "
                                 f"{type(store).__name__} without {attr}()")
        self.store = store
        self.methods = tuple(methods) if methods is not None else _all_methods()
        unknown = set(self.methods) - set(_all_methods())
        if unknown or not self.methods:
            raise ValueError(f"methods must be threshold choice methods of {_all_methods()}, "
                             f"got {list(self.methods)}")
        self.t = float(t)
        self.measure = measure
        self.clock = data.check_clock(clock)  # the time of ARR, A3R and the runtime score
        self._cache: dict = {}

    def _cached(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # ------------------------------------------------------------------ store reads
    def datasets(self) -> pd.DataFrame:
        return self._cached("datasets", self.store.datasets)

    def dataset_names(self) -> list[str]:
        return [str(v) for v in self.datasets()["name"]]

    def algorithms(self) -> pd.DataFrame:
        return self._cached("algorithms", self.store.algorithms)

    def tasks(self) -> pd.DataFrame:
        return self._cached("tasks", self.store.tasks)

    def _check_dataset(self, dataset) -> str:
        if dataset is None:
            raise ValueError("dataset must name a dataset of the store")
        names = self.dataset_names()
        if str(dataset) not in names:
            raise ValueError(f"dataset {dataset!r} is not in the store; it holds {names}")
        return str(dataset)

    def scores(self, dataset):
        """``(y, S, algorithms)`` of a dataset (repeat 0), cached.

        Scores read one dataset at a time are kept up to :data:`SCORES_BUDGET` bytes,
        the least recently used dropped beyond it, so a store of any size streams
        through a view (scores put in the cache at once, see
        :func:`metaeval.report._render.prefill`, stay).
        """
        dataset = self._check_dataset(dataset)
        key = ("scores", dataset)
        if key in self._cache:
            return self._cache[key]
        lru = self.__dict__.setdefault("_scores_lru", OrderedDict())
        if key in lru:
            lru.move_to_end(key)
            return lru[key]
        got = self.store.scores(dataset)
        lru[key] = got
        total = sum(v[1].nbytes + v[0].nbytes for v in lru.values())
        while total > SCORES_BUDGET and len(lru) > 1:
            _, old = lru.popitem(last=False)
            total -= old[1].nbytes + old[0].nbytes
        return got

    def scores_frame(self) -> pd.DataFrame:
        return self._cached("scores_frame", self.store.scores_frame)

    def times(self) -> pd.DataFrame:
        """``[dataset, algorithm, time]``: fit + predict seconds on the view's clock
        (:func:`metaeval.report.data.task_times_on`)."""
        return self._cached("times", lambda: data.task_times_on(self.store.timings(), self.clock))

    # ------------------------------------------------------------------ features
    def dataset(self, dataset):
        """The :class:`metaeval.datasets.Dataset` when it reloads unchanged, else None.

        Built-in datasets are reloaded by name and used only when their SHA-256
        matches the one recorded in the store.
        """
        dataset = self._check_dataset(dataset)

        def compute():
            from metaeval.datasets import load_dataset

            row = self.datasets().set_index("name").loc[dataset]
            try:
                ds = load_dataset(dataset)
            except ValueError:
                return None
            if str(ds.sha256) != str(row["sha256"]):
                return None
            return ds
        return self._cached(("dataset", dataset), compute)

    def features(self, dataset):
        """The dataset's features (a DataFrame) when they reload unchanged, else None."""
        ds = self.dataset(dataset)
        return None if ds is None else ds.X

    def projection(self, dataset):
        """``(xy, explained)`` of the PCA projection, or None without features."""
        dataset = self._check_dataset(dataset)

        def compute():
            X = self.features(dataset)
            if X is None:
                return None
            y, _, _ = self.scores(dataset)
            if X.shape[0] != y.shape[0]:
                return None
            return data.pca_projection(X)
        return self._cached(("projection", dataset), compute)

    # ------------------------------------------------------------------ hardness
    def hardness(self, dataset) -> np.ndarray:
        """Pool hardness, shape (n_instances, n_methods)."""
        y, S, _ = self.scores(dataset)
        return self._cached(("hardness", dataset),
                            lambda: data.hardness_matrix(y, S, self.methods, t=self.t))

    def mean_hardness(self, dataset) -> pd.DataFrame:
        y, S, algs = self.scores(dataset)
        return self._cached(("mean_hardness", dataset),
                            lambda: data.mean_hardness_table(y, S, algs, self.methods, t=self.t))

    def dissimilarities(self, dataset) -> dict:
        y, S, _ = self.scores(dataset)
        return self._cached(("dissimilarity", dataset),
                            lambda: data.dissimilarity_matrices(y, S, self.methods, t=self.t))

    def usable_datasets(self) -> list[str]:
        """Datasets with finished scores of at least two algorithms."""
        def compute():
            ok = []
            for name in self.dataset_names():
                try:
                    _, S, _ = self.scores(name)
                except ValueError:
                    continue
                if S.shape[1] >= 2:
                    ok.append(name)
            return ok
        return self._cached("usable", compute)

    def common_algorithms(self) -> list[str]:
        """Algorithms with finished scores on every usable dataset, in store order."""
        def compute():
            names = self.usable_datasets()
            if not names:
                return []
            common = set(self.scores(names[0])[2])
            for name in names[1:]:
                common &= set(self.scores(name)[2])
            return [a for a in self.scores(names[0])[2] if a in common]
        return self._cached("common", compute)

    def aggregated_dissimilarity(self, how="mean") -> tuple[dict, list[str]]:
        """Per-method dissimilarity aggregated over datasets.

        Eq. 25 of Melo & Prudêncio (2014, MetaSel version); eq. 20 of the BRACIS version.
        """
        def compute():
            from metaeval.similarity import aggregate_dissimilarity

            algs = self.common_algorithms()
            names = self.usable_datasets()
            if len(algs) < 2 or not names:
                raise ValueError("fewer than two algorithms finished on every dataset: "
                                 "no aggregated dissimilarity")
            index = {}
            for name in names:
                own = self.scores(name)[2]
                index[name] = np.ix_(*[[own.index(a) for a in algs]] * 2)

            def per_dataset(m):  # one dataset's matrix at a time (the mean is streamed)
                for name in names:
                    yield self.dissimilarities(name)[m][index[name]]

            out = {m: np.asarray(aggregate_dissimilarity(per_dataset(m), how=how), dtype=float)
                   for m in self.methods}
            return out, algs
        return self._cached(("aggregated", how), compute)

    def instance_space(self, dataset):
        """``(frame, xy)``: classic and cost-sensitive hardness, and the 2-D projection.

        Uses :mod:`metaeval.instance_space`; ``xy`` is the projection of
        :meth:`projection` (one PCA for every map of the dataset). None when the features
        are unavailable.
        """
        dataset = self._check_dataset(dataset)

        def compute():
            from metaeval.instance_space import hardness_frame

            ds = self.dataset(dataset)
            projected = self.projection(dataset)
            if ds is None or projected is None:
                return None
            y, S, algs = self.scores(dataset)
            frame = hardness_frame(ds.X, y, S, algs, categorical=list(ds.categorical),
                                   t=self.t)
            return frame, projected[0]
        return self._cached(("instance_space", dataset), compute)

    # ------------------------------------------------------------------ rankings
    def _metric(self, name):
        from metaeval.benchmark import METRICS

        if name not in METRICS:
            raise ValueError(f"measure must be one of {list(METRICS)}, got {name!r}")
        return METRICS[name]

    def _metrics_by_dataset(self, metrics, *, folds) -> pd.DataFrame:
        """``matrix_metrics`` of the common algorithms, dataset by dataset and repeat by
        repeat (never the whole store in memory); a ``repeat`` column added."""
        from metaeval.benchmark import matrix_metrics

        common = self.common_algorithms()
        keep_names = set(common)
        tasks = self.tasks()
        done = tasks[tasks["status"] == "done"]
        frames = []
        for name in self.usable_datasets():
            for r in sorted(done.loc[done["dataset"] == name, "repeat"].unique()):
                r = int(r)
                y, S, algs = self.scores(name) if r == 0 else self.store.scores(name, repeat=r)
                keep = [j for j, a in enumerate(algs) if a in keep_names]
                if not keep:
                    continue
                m = matrix_metrics(y, S[:, keep], [algs[j] for j in keep], dataset=name,
                                   folds=self.store.folds(name, repeat=r) if folds else None,
                                   metrics=metrics, threshold=self.t)
                frames.append(m.assign(repeat=r))
        if not frames:
            raise ValueError("no dataset has finished scores of the common algorithms")
        return pd.concat(frames, ignore_index=True)

    def success(self, measure=None) -> tuple[pd.DataFrame, bool]:
        """``[dataset, algorithm, fold, value]`` per fold and whether higher is better.

        A ``hardness:<method>`` measure becomes the success ``1 - mean hardness``.
        """
        measure = measure or self.measure

        def compute():
            metric = self._metric(measure)
            m = self._metrics_by_dataset([measure], folds=True)
            n_folds = int(m["fold"].max()) + 1
            m = m.assign(fold=m["repeat"].astype(int) * n_folds + m["fold"].astype(int))
            m = m.sort_values(["dataset", "algorithm", "fold"], kind="stable")
            m = m[["dataset", "algorithm", "fold", "value"]].reset_index(drop=True)
            if measure.startswith("hardness:"):
                # the success of a hardness measure is 1 - mean instance hardness,
                # so that the ratio methods (SRR, ARR, A3R) see a success rate
                return m.assign(value=1.0 - m["value"]), True
            return m, bool(metric.higher_is_better)
        return self._cached(("success", measure), compute)

    def rankings(self, measure=None, *, accd=0.1, n=8) -> dict[str, pd.DataFrame]:
        """The five rankings (AR, SRR, SW, ARR, A3R), each a tidy frame best first."""
        measure = measure or self.measure

        def compute():
            import warnings

            from metaeval.ranking import rank_algorithms

            success, hib = self.success(measure)
            times = self.times()
            times = times[times["dataset"].isin(success["dataset"].unique())
                          & times["algorithm"].isin(success["algorithm"].unique())]
            out = {"AR": rank_algorithms(success, method="ar", higher_is_better=hib),
                   "SRR": rank_algorithms(success, method="srr", higher_is_better=hib),
                   "SW": rank_algorithms(success, method="sw", higher_is_better=hib)}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # ARR's pole, shown in the table
                out[f"ARR (AccD={accd:g})"] = rank_algorithms(
                    success, times, method="arr", accd=accd, higher_is_better=hib)
            out[f"A3R (n={n:g})"] = rank_algorithms(success, times, method="a3r", n=n,
                                                    higher_is_better=hib)
            return out
        return self._cached(("rankings", measure, accd, n), compute)

    # ------------------------------------------------------------------ benchmark
    def metrics(self) -> pd.DataFrame:
        """The ten metrics of the algorithm-benchmark web page, folds pooled."""
        def compute():
            from metaeval.benchmark import SKLEARN_METRICS

            m = self._metrics_by_dataset(list(SKLEARN_METRICS), folds=False)
            # each metric on the pooled folds of a repeat, then the mean over repeats
            m = m.groupby(["dataset", "algorithm", "metric"], sort=False)["value"].mean()
            m = m.reset_index()
            order = {name: i for i, name in enumerate(SKLEARN_METRICS)}
            m = m.assign(_o=m["metric"].map(order)).sort_values(
                ["dataset", "algorithm", "_o"], kind="stable")
            return m[["dataset", "algorithm", "metric", "value"]].reset_index(drop=True)
        return self._cached("metrics", compute)

    def value_captured(self) -> pd.DataFrame:
        def compute():
            from metaeval.benchmark import value_captured

            return value_captured(self.metrics())
        return self._cached("value_captured", compute)


# ---------------------------------------------------------------------------- builders
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
    for ``inset`` (see :meth:`~metaeval.report._backdrop.Backdrop.draw`)."""
    from metaeval.report._backdrop import backdrop

    layout = checked["frame"]
    made = backdrop((name, tuple(sorted(layout.items()))), lambda: frame(**layout), dpi)
    img, small = made.draw(content, checked, inset=inset)
    return img, tuple(made.fig.get_size_inches()), small


def _on_frame(name, checked, frame, content, prepare=None, fixed=None) -> str:
    """A figure as the report's SVG markup, on panels made once per process (see
    :mod:`metaeval.report._backdrop`); ``prepare(fig, axes)`` finishes a new frame,
    ``fixed(fig, axes)`` names its artists that the content leaves as they are (their
    markup is replayed: :mod:`metaeval.report._replay`)."""
    from metaeval.report._backdrop import frame as kept_frame

    layout = checked["frame"]

    def build():
        made = frame(**layout)
        return made if prepare is None else prepare(*made)
    return kept_frame((name, tuple(sorted(layout.items()))), build,
                      fixed).svg(content, checked)


def _instance_cost_curves_png(view, *, dpi, dataset=None, rows=None, methods=None,
                              algorithms=None):
    """:func:`_instance_cost_curves` as pixels, on a frame drawn once per process."""
    checked = figures._instance_cost_curves_checked(**_instance_cost_curves_input(
        view, dataset=dataset, rows=rows, methods=methods, algorithms=algorithms))
    return _on_backdrop("instance-cost-curves", checked,
                        figures._instance_cost_curves_frame,
                        figures._instance_cost_curves_content, dpi)


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
    checked = figures._class_cost_curves_checked(**_class_cost_curves_input(
        view, dataset=dataset, methods=methods))
    return _on_frame("class-cost-curves", checked, figures._class_cost_curves_frame,
                     figures._class_cost_curves_content,
                     fixed=figures._class_cost_curves_fixed)


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
    checked = figures._projection_map_checked(**_projection_input(view, dataset=dataset,
                                                                  max_points=max_points))
    return _on_backdrop("projection", checked, figures._projection_map_frame,
                        figures._projection_map_content, dpi)


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
    checked = figures._hardness_maps_checked(**_hardness_maps_input(
        view, dataset=dataset, methods=methods, max_points=max_points))
    return _on_backdrop("hardness-maps", checked, figures._hardness_maps_frame,
                        figures._hardness_maps_content, dpi)


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
    checked = figures._cost_hardness_maps_checked(**_cost_hardness_maps_input(
        view, dataset=dataset, target_class=target_class, cost_proportions=cost_proportions,
        methods=methods, max_points=max_points))
    return _on_backdrop("cost-hardness-maps", checked, figures._cost_hardness_maps_frame,
                        figures._cost_hardness_maps_content, dpi,
                        inset=(("colorbar", checked["vmax"]),
                               lambda fig: figures._cost_hardness_maps_colorbar(fig, checked)))


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
    checked = figures._dendrograms_checked(**_dendrograms_input(
        view, dataset=dataset, cut_height=cut_height, how=how))
    return _on_frame("dendrograms", checked, figures._dendrograms_frame,
                     figures._dendrograms_content, fixed=figures._dendrograms_fixed)


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
    titles = {m: figures._method_title(m) for m in view.methods}
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
    checked = figures._instance_space_map_checked(**_instance_space_input(
        view, dataset=dataset, measures=measures, max_points=max_points))
    return _on_backdrop("instance-space", checked, figures._instance_space_map_frame,
                        figures._instance_space_map_content, dpi)


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
    checked = figures._heatmap_checked(corr, title=title, **figures._correlation_options(corr))
    return _on_frame("correlation", checked, figures._heatmap_frame,
                     figures._heatmap_content, prepare=_laid_out,
                     fixed=figures._heatmap_fixed)


def _laid_out(fig, axes):
    """A frame whose layout engine has run once and is then switched off: the content
    drawn on it (inside its axes) moves nothing, and is drawn without laying it out again."""
    from metaeval.report.html import figure_to_svg

    figure_to_svg(fig)  # lays it out as the report's SVG is drawn (its text measures)
    fig.set_layout_engine("none")
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


@dataclass(frozen=True)
class _Kind:
    build: Callable[..., Figure]
    needs_store: bool
    per_dataset: bool
    description: str
    #: the same figure straight to pixels, faster: ``png(view, dpi=, **options)`` ->
    #: ``(RGBA image, size in inches, smallest font in pt)`` (the report's PNG figures)
    png: Callable | None = None
    #: the same figure straight to the report's SVG markup, faster:
    #: ``svg(view, **options)`` -> str
    svg: Callable | None = None


#: Figure kinds for :func:`plot` (and ``metaeval plot KIND``), with their options.
PLOT_KINDS: dict[str, _Kind] = {
    "instance-cost-curves": _Kind(_instance_cost_curves, True, True,
                                  "instance cost curves of chosen rows under each method "
                                  "(Prudêncio 2019, Figs 1-6); options: dataset, rows, methods, "
                                  "algorithms", _instance_cost_curves_png),
    "class-cost-curves": _Kind(_class_cost_curves, True, True,
                               "class cost curves with class hardness (Prudêncio 2019, Fig 7); "
                               "options: dataset, methods", svg=_class_cost_curves_svg),
    "projection": _Kind(_projection, True, True,
                        "PCA of the features coloured by class (Prudêncio 2019, Fig 8); "
                        "options: dataset", _projection_png),
    "hardness-maps": _Kind(_hardness_maps, True, True,
                           "PCA maps coloured by hardness per class and method (Prudêncio "
                           "2019, Figs 9, 12); options: dataset, methods",
                           _hardness_maps_png),
    "cost-hardness-maps": _Kind(_cost_hardness_maps, True, True,
                                "PCA maps of the loss at chosen cost proportions for one class "
                                "(Prudêncio 2019, Figs 10-11); options: dataset, target_class, "
                                "cost_proportions, methods", _cost_hardness_maps_png),
    "dendrograms": _Kind(_dendrograms, True, False,
                         "dendrograms of algorithm dissimilarity per method, cut marked (Melo "
                         "& Prudêncio 2014, Figs 3-8 of the MetaSel version); options: "
                         "dataset (default: aggregated), cut_height, how",
                         svg=_dendrograms_svg),
    "arr": _Kind(_arr, False, False,
                 "ARR against the time ratio with its pole (Abdulrahman & Brazdil 2014, "
                 "Fig 1); options: accd, used"),
    "a3r": _Kind(_a3r, False, False,
                 "A3R against the time ratio (Abdulrahman & Brazdil 2014, Fig 2); options: n, "
                 "used"),
    "iso-a3r": _Kind(_iso_a3r, False, False,
                     "iso-A3R curves (Abdulrahman & Brazdil 2014, Fig 3); options: levels, n"),
    "rank-table": _Kind(_rank_table, True, False,
                        "ranks under AR, SRR, SW, ARR, A3R; options: measure, accd, n"),
    "critical-difference": _Kind(_critical_difference, True, False,
                                 "critical-difference diagram, best on the left; options: "
                                 "measure, alpha, algorithms"),
    "value-captured": _Kind(_value_captured, True, False,
                            "value captured per algorithm (algorithm-benchmark web page); "
                            "options: algorithms"),
    "runtime-scores": _Kind(_runtime_scores, True, False,
                            "runtime score per algorithm (algorithm-benchmark web page); "
                            "options: n_slowest, algorithms"),
    "heatmap-datasets": _Kind(_heatmap_datasets, True, False,
                              "value captured, algorithm x dataset "
                              "(algorithm-benchmark web page); options: algorithms"),
    "heatmap-metrics": _Kind(_heatmap_metrics, True, False,
                             "value captured, algorithm x metric "
                             "(algorithm-benchmark web page); options: algorithms"),
    "error-cases": _Kind(_error_cases, True, False,
                         "error-case rate per metric (algorithm-benchmark web page); options: k"),
    "bootstrap-stability": _Kind(_bootstrap, True, False,
                                 "bootstrap stability grid (algorithm-benchmark web page); "
                                 "options: draws, seed"),
    "portfolio": _Kind(_portfolio, True, False,
                       "greedy portfolio curve (algorithm-benchmark web page); "
                       "options: cost_aware"),
    "instance-space": _Kind(_instance_space, True, True,
                            "instance space: PCA coloured by classic and cost-sensitive "
                            "hardness (after Paiva et al. 2022); options: dataset, measures",
                            _instance_space_png),
    "instance-space-correlation": _Kind(_instance_space_correlation, True, True,
                                        "rank correlation of classic and cost-sensitive "
                                        "hardness; options: dataset, method, title",
                                        svg=_instance_space_correlation_svg),
}


# footprints, per-instance selection and IRT (metaeval.report._instance_selection)
from metaeval.report import _instance_selection as _isel  # noqa: E402

PLOT_KINDS.update({name: _Kind(*spec) for name, spec in _isel.PLOT_KINDS.items()})


def _scalar(text: str):
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text.strip()


def parse_plot_options(pairs) -> dict:
    """Turn ``KEY=VALUE`` strings (a command line's) into :func:`plot` options.

    Values are read as int, float, true/false or none where they parse as one,
    else kept as text; a value with commas is a list. Dashes in keys become
    underscores.

    Parameters
    ----------
    pairs : sequence of str
        E.g. ``["dataset=ecoli1", "cost_proportions=0.2,0.5", "target-class=0"]``.

    Returns
    -------
    dict

    Examples
    --------
    >>> parse_plot_options(["dataset=ecoli1", "cost_proportions=0.2,0.5", "target-class=0"])
    {'dataset': 'ecoli1', 'cost_proportions': [0.2, 0.5], 'target_class': 0}
    """
    out = {}
    for pair in pairs:
        if not isinstance(pair, str) or "=" not in pair:
            raise ValueError(f"plot options must be KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        key = key.strip().replace("-", "_")
        if not key.isidentifier():
            raise ValueError(f"plot option name {key!r} is not a valid name")
        out[key] = [_scalar(v) for v in value.split(",")] if "," in value else _scalar(value)
    return out


def _check_options(kind, spec, options) -> None:
    """A ValueError naming the options a kind takes, for an option it does not take."""
    import inspect

    params = inspect.signature(spec.build).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    takes = [name for name in params if name != "view"]
    unknown = [name for name in options if name not in takes]
    if unknown:
        raise ValueError(
            f"plot kind {kind!r} has no option {', '.join(map(repr, unknown))}; it takes "
            f"{', '.join(takes) or 'none'}"
            + (" (and t, threshold_methods for the store's view)." if spec.needs_store else "."))


def plot(kind, store=None, **options) -> Figure:
    """Draw one figure of a study by name.

    Parameters
    ----------
    kind : str
        One of :data:`PLOT_KINDS` (``sorted(PLOT_KINDS)`` lists them with
        ``PLOT_KINDS[kind].description``).
    store : metaeval.store.Store, path-like or StudyView, optional
        The results store; not needed by ``"arr"``, ``"a3r"`` and ``"iso-a3r"``.
    **options
        Options of the kind (e.g. ``dataset="ecoli1"``, ``methods=[...]``,
        ``cut_height=0.3``), plus ``t`` (score-fixed threshold) and
        ``threshold_methods`` (the methods a view shows) for the store.

    Returns
    -------
    matplotlib.figure.Figure
        Save it with ``fig.savefig("out.svg")`` (png, svg or pdf).

    Examples
    --------
    >>> fig = plot("arr", accd=[0.2, 0.7])
    >>> fig.axes[0].get_xlabel()
    'time ratio Tp / Tq (log scale)'
    """
    if kind not in PLOT_KINDS:
        raise ValueError(f"kind must be one of {sorted(PLOT_KINDS)}, got {kind!r}")
    spec = PLOT_KINDS[kind]
    view_options = {k: options.pop(k) for k in ("t", "threshold_methods") if k in options}
    if store is None:
        if spec.needs_store:
            raise ValueError(f"plot kind {kind!r} needs a store")
        view = None
    else:
        view = store if isinstance(store, StudyView) and not view_options else StudyView(
            store, methods=view_options.get("threshold_methods"), t=view_options.get("t", 0.5))
    _check_options(kind, spec, options)
    if spec.per_dataset and options.get("dataset") is None:
        raise ValueError(f"plot kind {kind!r} needs dataset=<name>")
    try:
        with figures.drawing_style():
            return spec.build(view, **options)
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc):
            raise ValueError(f"plot kind {kind!r}: {exc}") from None
        raise
