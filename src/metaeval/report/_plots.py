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
from metaeval.report._builders import (
    _a3r,
    _all_methods,
    _arr,
    _bootstrap,
    _class_cost_curves,
    _class_cost_curves_svg,
    _cost_hardness_maps,
    _cost_hardness_maps_png,
    _critical_difference,
    _dendrograms,
    _dendrograms_svg,
    _error_cases,
    _hardness_maps,
    _hardness_maps_png,
    _heatmap_datasets,
    _heatmap_metrics,
    _instance_cost_curves,
    _instance_cost_curves_png,
    _instance_space,
    _instance_space_correlation,
    _instance_space_correlation_svg,
    _instance_space_png,
    _iso_a3r,
    _portfolio,
    _projection,
    _projection_png,
    _rank_table,
    _runtime_scores,
    _value_captured,
)

__all__ = ["PLOT_KINDS", "StudyView", "parse_plot_options", "plot"]



#: bytes of scores a view keeps when it reads them dataset by dataset
SCORES_BUDGET = 64 * 2**20


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
        self._clock = data.check_clock(clock)  # the time of ARR, A3R and the runtime score
        #: how many times the clock was asked for: a report's piece that never asks for it
        #: is the same on either clock (its cache entry serves both)
        self.clock_reads = 0
        self._cache: dict = {}

    @property
    def clock(self) -> str:
        """The clock of ARR, A3R and the runtime score (``"cpu"`` or ``"wall"``)."""
        self.clock_reads += 1
        return self._clock

    def _cached(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # ------------------------------------------------------------------ store reads
    def datasets(self) -> pd.DataFrame:
        return self._cached("datasets", self.store.datasets)

    def dataset_names(self) -> list[str]:
        return list(self._cached("dataset-names",
                                 lambda: tuple(str(v) for v in self.datasets()["name"])))

    def algorithms(self) -> pd.DataFrame:
        return self._cached("algorithms", self.store.algorithms)

    def tasks(self) -> pd.DataFrame:
        return self._cached("tasks", self.store.tasks)

    def _check_dataset(self, dataset) -> str:
        if dataset is None:
            raise ValueError("dataset must name a dataset of the store")
        if str(dataset) not in self._cached("dataset-name-set",
                                            lambda: frozenset(self.dataset_names())):
            raise ValueError(f"dataset {dataset!r} is not in the store; it holds "
                             f"{self.dataset_names()}")
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
        clock = self.clock  # asked for each time: the caller depends on it
        return self._cached("times", lambda: data.task_times_on(self.store.timings(), clock))

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
            frame = hardness_frame(self.encoded(dataset), y, S, algs, t=self.t, encode=False)
            frame.index = ds.X.index
            return frame, projected[0]
        return self._cached(("instance_space", dataset), compute)

    def encoded(self, dataset):
        """The dataset's features as the classic measures and the per-instance selection
        measure distances in (:func:`metaeval.hardness.classic.encode_features`), or None
        when they are unavailable. The latest dataset's are kept: its section asks twice."""
        dataset = self._check_dataset(dataset)
        last = self.__dict__.get("_encoded_last")
        if last is not None and last[0] == dataset:
            return last[1]
        from metaeval.hardness.classic import encode_features

        ds = self.dataset(dataset)
        X = None if ds is None else encode_features(ds.X, list(ds.categorical))
        self._encoded_last = (dataset, X)
        return X

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
        clock = self.clock  # ARR and A3R weigh the time: the caller depends on the clock

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
        return self._cached(("rankings", measure, accd, n, clock), compute)

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
