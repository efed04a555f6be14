"""The knowledge base: past results under one condition, plus what describes each dataset.

A :class:`KnowledgeBase` holds dense ``(n_datasets, n_algorithms)`` matrices of success
(under a :class:`Condition`) and running time, each dataset's family (datasets cut from
the same base data are held out together) and, when cached in the store, its pymfe
meta-features and cost-sensitive landmark features. It is read from a store one dataset
at a time (:meth:`KnowledgeBase.from_store`), or built from arrays.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from importlib import metadata

import numpy as np
import pandas as pd

from metaeval.datasets import Dataset, list_datasets, load_dataset
from metaeval.recommend._condition import Condition
from metaeval.recommend.knowledge._describe import (
    Description,
    describe_dataset,
    described_datasets,
    landmark_features,
)
from metaeval.store import Store


@dataclass(frozen=True, eq=False)
class Query:
    """What a strategy may know about the dataset it recommends for, before any test.

    Attributes
    ----------
    name : str
    n_instances : int
    metafeatures : Series or None
        pymfe meta-features (``"<group>.<feature>"``), when described.
    landmarks : Series or None
        Cost-sensitive landmark features under the condition, when described.
    metafeature_time, landmark_time : float
        Seconds the two descriptions took (they count in every time curve).
    """

    name: str
    n_instances: int
    metafeatures: pd.Series | None = None
    landmarks: pd.Series | None = None
    metafeature_time: float = 0.0
    landmark_time: float = 0.0

    @classmethod
    def from_description(cls, description: Description, condition: Condition,
                         n_instances: int, *, clock="cpu") -> Query:
        """The query for a freshly described dataset (times on ``clock``)."""
        land = None
        if description.landmark_scores.shape[1]:
            land = landmark_features(description.landmark_y, description.landmark_scores,
                                     condition)
        return cls(description.dataset, int(n_instances), description.metafeature_vector(),
                   land, description.seconds("pymfe", clock),
                   description.seconds("landmarker", clock))


@dataclass(frozen=True, eq=False)
class KnowledgeBase:
    """Past results of a pool of algorithms on many datasets, under one condition.

    Parameters
    ----------
    datasets : sequence of str, length D
    algorithms : sequence of str, length A
    success : array-like of shape (D, A)
        Success under ``condition`` (higher is better), complete.
    times : array-like of shape (D, A)
        Running time in seconds (> 0).
    families : sequence of str, length D, optional
        Group of each dataset (held out together); default each its own.
    n_instances : array-like of shape (D,), optional
    metafeatures : DataFrame of shape (D, F), optional
        Indexed by dataset; NaN where a feature could not be computed.
    metafeature_time : array-like of shape (D,), optional
    landmarks : DataFrame of shape (D, L), optional
    landmark_time : array-like of shape (D,), optional
    condition : Condition, optional
        The condition ``success`` was computed under.
    notes : tuple of str
        What was imputed or left out while reading.
    imputed_times : array-like of bool, shape (D, A), optional
        Cells whose time was not recorded (failed runs) and was imputed from other
        datasets; an evaluation imputes them again from its training datasets only.
    repetitions : array-like of shape (R, D, A), optional
        The success in each of R >= 2 repetitions of the cross-validation (new folds and
        seeds), complete; ``success`` is then their mean (what strategies learn from).
        An evaluation can score a held-out dataset on one repetition and choose its
        oracle on another (:func:`evaluate_recommenders`, ``scored_on``).

    Examples
    --------
    >>> kb = KnowledgeBase(["d1", "d2", "d3"], ["A", "B"],
    ...                    success=[[0.9, 0.8], [0.7, 0.8], [0.6, 0.5]],
    ...                    times=[[1.0, 2.0], [1.0, 2.0], [3.0, 1.0]])
    >>> kb.subset([True, False, True]).datasets
    ('d1', 'd3')
    """

    datasets: tuple
    algorithms: tuple
    success: np.ndarray
    times: np.ndarray
    families: tuple = None
    n_instances: np.ndarray = None
    metafeatures: pd.DataFrame | None = None
    metafeature_time: np.ndarray | None = None
    landmarks: pd.DataFrame | None = None
    landmark_time: np.ndarray | None = None
    condition: Condition | None = None
    notes: tuple = field(default=())
    imputed_times: np.ndarray | None = None
    repetitions: np.ndarray | None = None

    def __post_init__(self):
        datasets = tuple(str(d) for d in self.datasets)
        algorithms = tuple(str(a) for a in self.algorithms)
        if len(set(datasets)) != len(datasets) or len(set(algorithms)) != len(algorithms):
            raise ValueError("datasets and algorithms must be unique names.")
        shape = (len(datasets), len(algorithms))
        success = np.asarray(self.success, dtype=np.float64)
        times = np.asarray(self.times, dtype=np.float64)
        for name, arr in (("success", success), ("times", times)):
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape {shape} (datasets, algorithms), "
                                 f"got {arr.shape}.")
            if not np.all(np.isfinite(arr)):
                i, j = (int(v[0]) for v in np.nonzero(~np.isfinite(arr)))
                raise ValueError(f"{name} must be finite everywhere (impute failed cells); "
                                 f"dataset {datasets[i]!r}, algorithm {algorithms[j]!r} "
                                 f"has {arr[i, j]}.")
        if np.any(times <= 0):
            raise ValueError("times must be positive (A3R compares time ratios).")
        families = datasets if self.families is None else tuple(
            str(f) if f is not None and f == f and str(f) else d
            for f, d in zip(self.families, datasets, strict=True))
        n = (np.zeros(shape[0], dtype=np.int64) if self.n_instances is None
             else np.asarray(self.n_instances, dtype=np.int64))
        set_ = object.__setattr__
        set_(self, "datasets", datasets)
        set_(self, "algorithms", algorithms)
        set_(self, "success", success)
        set_(self, "times", times)
        set_(self, "families", families)
        set_(self, "n_instances", n)
        for frame, clock in (("metafeatures", "metafeature_time"), ("landmarks", "landmark_time")):
            value = getattr(self, frame)
            if value is None:
                continue
            value = value.reindex(list(datasets)).astype(np.float64)
            set_(self, frame, value)
            seconds = getattr(self, clock)
            set_(self, clock, np.zeros(shape[0]) if seconds is None
                 else np.asarray(seconds, dtype=np.float64))
        set_(self, "notes", tuple(self.notes))
        if self.imputed_times is not None:
            imputed = np.asarray(self.imputed_times, dtype=bool)
            if imputed.shape != shape:
                raise ValueError(f"imputed_times must have shape {shape}, got "
                                 f"{imputed.shape}.")
            set_(self, "imputed_times", imputed)
        if self.repetitions is not None:
            reps = np.asarray(self.repetitions, dtype=np.float64)
            if reps.ndim != 3 or reps.shape[1:] != shape or reps.shape[0] < 2:
                raise ValueError(f"repetitions must have shape (R, {shape[0]}, {shape[1]}) "
                                 f"with R >= 2 repetitions, got {reps.shape}.")
            if not np.all(np.isfinite(reps)):
                r, i, j = (int(v[0]) for v in np.nonzero(~np.isfinite(reps)))
                raise ValueError("repetitions must be finite everywhere (impute failed "
                                 f"cells); dataset {datasets[i]!r}, algorithm "
                                 f"{algorithms[j]!r} has {reps[r, i, j]} in repetition "
                                 f"{r}.")
            set_(self, "repetitions", reps)

    @property
    def n_repetitions(self) -> int:
        """Repetitions of the cross-validation behind ``success`` (1 without
        :attr:`repetitions`)."""
        return 1 if self.repetitions is None else int(self.repetitions.shape[0])

    def __repr__(self) -> str:
        reps = (f", {self.n_repetitions} repetitions" if self.n_repetitions > 1 else "")
        return (f"KnowledgeBase({len(self.datasets)} datasets x {len(self.algorithms)} "
                f"algorithms{reps}, {len(set(self.families))} families, metafeatures="
                f"{self.metafeatures is not None}, landmarks={self.landmarks is not None})")

    @property
    def shape(self) -> tuple[int, int]:
        return self.success.shape

    def subset(self, mask) -> KnowledgeBase:
        """The knowledge base restricted to the datasets where ``mask`` is True."""
        mask = np.asarray(mask, dtype=bool)
        keep = [d for d, m in zip(self.datasets, mask, strict=True) if m]

        def rows(frame):
            return None if frame is None else frame.loc[keep]

        def vec(v):
            return None if v is None else v[mask]

        return KnowledgeBase(
            keep, self.algorithms, self.success[mask], self.times[mask],
            [f for f, m in zip(self.families, mask, strict=True) if m], self.n_instances[mask],
            rows(self.metafeatures), vec(self.metafeature_time), rows(self.landmarks),
            vec(self.landmark_time), self.condition, self.notes,
            None if self.imputed_times is None else self.imputed_times[mask],
            None if self.repetitions is None else self.repetitions[:, mask],
        )

    def query(self, i: int) -> Query:
        """What a strategy may know about dataset ``i`` before testing anything on it."""
        name = self.datasets[i]
        return Query(
            name, int(self.n_instances[i]),
            None if self.metafeatures is None else self.metafeatures.loc[name],
            None if self.landmarks is None else self.landmarks.loc[name],
            0.0 if self.metafeature_time is None else float(self.metafeature_time[i]),
            0.0 if self.landmark_time is None else float(self.landmark_time[i]),
        )

    def long(self, values=None, name="value") -> pd.DataFrame:
        """A ``[dataset, algorithm, name]`` long frame (for :mod:`metaeval.ranking`)."""
        values = self.success if values is None else np.asarray(values)
        d, a = values.shape
        return pd.DataFrame({
            "dataset": np.repeat(np.array(self.datasets, dtype=object), a),
            "algorithm": np.tile(np.array(self.algorithms, dtype=object), d),
            name: values.reshape(-1),
        })

    # ------------------------------------------------------------------ from a store
    @classmethod
    def from_store(cls, store, condition: Condition, *, clock="cpu",
                   scores=None) -> KnowledgeBase:
        """Read a store one dataset at a time and score it under ``condition``.

        Success comes from the out-of-fold scores of every complete repetition of the
        cross-validation (:func:`complete_repeats`; one for a study of one repeat):
        ``success`` is their mean, and with several, :attr:`repetitions` holds each
        one's. Time is the task's ``cpu`` (or ``wall``) seconds (the mean over the
        repetitions that recorded it), and so are the description times. An algorithm
        that failed on a dataset (in any repetition, for the mean; in that repetition,
        for its own) gets that dataset's worst success and its recorded time (else the
        algorithm's median time), and a note says so. Meta-features and landmark
        features are included when every dataset has them cached (see
        :func:`describe_store`).

        ``scores``: optional callable ``name -> (y, S, algorithms)`` read instead of
        ``store.scores(name)`` for repeat 0 (e.g. scores already in memory); other
        repetitions are read from the store.

        Raises
        ------
        ValueError
            When the store holds fewer than 3 datasets with results, or fewer than 2
            algorithms.
        """
        if not isinstance(condition, Condition):
            raise ValueError(f"condition must be a Condition, got {condition!r}.")
        if clock not in ("wall", "cpu"):
            raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}.")
        if scores is not None and not callable(scores):
            raise ValueError(f"scores must be a callable name -> (y, S, algorithms), got "
                             f"{type(scores).__name__}.")
        store = Store(store)
        with store.reading():  # one connection for all its reads (about 15 ms each)
            return cls._from_store(store, condition, clock,
                                   store.scores if scores is None else scores)

    @classmethod
    def _from_store(cls, store, condition, clock, read) -> KnowledgeBase:
        info = store.datasets()
        algorithms = store.algorithms()["name"].tolist()
        all_tasks = store.tasks(include_pending=True)
        tasks = all_tasks[all_tasks["repeat"] == 0]
        done = tasks[tasks["status"] == "done"]
        names = [n for n in info["name"] if n in set(done["dataset"])]
        if len(names) < 3:
            raise ValueError(
                f"The store {store.path} has results on {len(names)} dataset(s); "
                "leave-one-dataset-out recommendation needs at least 3."
            )
        repeats, dropped_repeats = complete_repeats(all_tasks, names)
        col = {a: j for j, a in enumerate(algorithms)}
        at = {r: k for k, r in enumerate(repeats)}
        per = np.full((len(repeats), len(names), len(algorithms)), np.nan)
        for i, name in enumerate(names):
            for k, r in enumerate(repeats):
                y, S, algos = read(name) if r == 0 else store.scores(name, repeat=r)
                per[k, i, [col[a] for a in algos]] = condition.success(y, S)
        success = per.mean(axis=0)  # NaN where a task failed in any repetition
        row = {n: i for i, n in enumerate(names)}
        t = all_tasks[all_tasks["dataset"].isin(row) & all_tasks["repeat"].isin(at)
                      & (all_tasks["status"] != "pending")]
        per_times = np.full_like(per, np.nan)
        per_times[t["repeat"].map(at).to_numpy(), t["dataset"].map(row).to_numpy(),
                  t["algorithm"].map(col).to_numpy()] = t[clock].to_numpy(dtype=np.float64)
        times = _mean_recorded(per_times)  # over the repetitions that recorded one
        keep = ~np.all(np.isnan(per), axis=(0, 1))
        notes = []
        for d in dropped_repeats:
            notes.append(f"left out repetition {d['repeat']} of the cross-validation: "
                         f"{d['why']}")
        if not keep.all():
            dropped = [a for a, k in zip(algorithms, keep, strict=True) if not k]
            notes.append(f"left out {', '.join(dropped)}: no results")
        algorithms = [a for a, k in zip(algorithms, keep, strict=True) if k]
        success, times, per = success[:, keep], times[:, keep], per[:, :, keep]
        if len(algorithms) < 2:
            raise ValueError(f"The store {store.path} has results for fewer than 2 algorithms.")
        failed = np.isnan(success)
        if failed.any():
            notes.append(f"{int(failed.sum())} failed (dataset, algorithm) cell(s) scored as "
                         "the dataset's worst algorithm")
            success = _worst_for_failed(success)
        repetitions = None
        if len(repeats) > 1:
            lost = np.isnan(per)
            some = int((lost.any(axis=0) & ~lost.all(axis=0)).sum())
            if some:
                notes.append(f"{some} (dataset, algorithm) cell(s) failed in some repetitions "
                             "of the cross-validation only: failed in the mean")
            repetitions = _worst_for_failed(per)
        bad = ~(times > 0)
        if bad.any():
            times = impute_times(times, bad, algorithms, notes, what="algorithm")
        _check_finite(success, per if len(repeats) > 1 else None, names,
                      f"the store {store.path}", repeats)
        info = info.set_index("name").loc[names]
        mf, mf_time, land, land_time = _cached_descriptions(store, names, condition, notes,
                                                            clock)
        return cls(names, algorithms, success, times, info["family"].tolist(),
                   info["n_instances"].to_numpy(), mf, mf_time, land, land_time, condition,
                   tuple(notes), _across_datasets(bad), repetitions)


def mean_over_repetitions(metrics, curves, times):
    """The means over the repetitions (axis 0) of per-repetition arrays.

    Metrics and curves: the plain mean, NaN where the task failed in any repetition
    (a configuration that fails on some splits of a dataset is failed there). Times:
    the mean over the repetitions that recorded one (NaN when none did).
    """
    return (np.asarray(metrics, dtype=np.float64).mean(axis=0),
            {m: np.asarray(v, dtype=np.float64).mean(axis=0) for m, v in curves.items()},
            {c: _mean_recorded(v) for c, v in times.items()})


def _mean_recorded(v):
    """The mean over axis 0 of the finite values (NaN where none is)."""
    v = np.asarray(v, dtype=np.float64)
    ok = np.isfinite(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok.any(axis=0), np.where(ok, v, 0.0).sum(axis=0) / ok.sum(axis=0),
                        np.nan)


def impute_times(times, bad, names, notes=None, *, train=None, what="configuration"):
    """``times`` with its ``bad`` cells (no time recorded) imputed.

    A cell takes its configuration's median over the recorded cells of the ``train``
    rows (a mask; default every row). A configuration with no recorded time there takes
    each dataset's median over the configurations recorded on it, and is named in
    ``notes``, so that it is not taken for the fastest; 1 ms where a dataset has no
    recorded time at all.

    Examples
    --------
    >>> t = np.array([[1.0, 4.0, 0.0], [3.0, 0.0, 0.0]])
    >>> notes = []
    >>> impute_times(t, ~(t > 0), ["A", "B", "C"], notes).tolist()
    [[1.0, 4.0, 2.5], [3.0, 4.0, 3.0]]
    >>> notes[0].split(";")[0]
    'C: no time recorded on any dataset'
    """
    times = np.asarray(times, dtype=np.float64)
    bad = np.asarray(bad, dtype=bool)
    train = np.ones(times.shape[0], dtype=bool) if train is None else np.asarray(train)
    recorded = np.where(bad, np.nan, times)
    seen = ~bad[train]
    column = np.full(times.shape[1], np.nan)
    has = seen.any(axis=0)
    column[has] = np.nanmedian(recorded[train][:, has], axis=0)
    out = np.where(bad, np.broadcast_to(column, times.shape), times)
    empty = ~has
    if empty.any():
        row = np.full(times.shape[0], np.nan)
        some = (~bad).any(axis=1)
        row[some] = np.nanmedian(recorded[some], axis=1)
        out[:, empty] = np.where(bad[:, empty], row[:, None], out[:, empty])
        if notes is not None:
            dropped = [str(n) for n, e in zip(names, empty, strict=True) if e]
            notes.append(f"{', '.join(dropped)}: no time recorded on any dataset; each "
                         f"dataset's median time over the other {what}s stands in")
    return np.where(out > 0, out, 1e-3)


def _across_datasets(bad):
    """The cells of ``bad`` that :func:`impute_times` imputed from other datasets (None
    when none): those of configurations with a time recorded somewhere. A configuration
    with none takes each dataset's own median, which an evaluation needs not impute
    again (no other dataset's time enters it)."""
    again = bad & (~bad).any(axis=0)
    return again if again.any() else None


def _check_finite(success, repetitions, names, where, repeats=None):
    """Raise ``ValueError`` naming ``where`` and the dataset on which no configuration
    has a finite success (every run on it failed), in the mean or in a repetition."""
    dead = ~np.isfinite(success).any(axis=1)
    if dead.any():
        raise ValueError(f"{where}: dataset {names[int(np.argmax(dead))]!r} has no finite "
                         "success for any configuration (none finished on it); build "
                         "the knowledge base again without it.")
    if repetitions is not None:
        lost = ~np.isfinite(repetitions).any(axis=2)
        if lost.any():
            r, d = (int(v[0]) for v in np.nonzero(lost))
            rep = r if repeats is None else repeats[r]
            raise ValueError(f"{where}: dataset {names[d]!r} has no finite success for any "
                             f"configuration in repetition {rep} of the cross-validation "
                             "(every run of it failed); build the knowledge base again "
                             "without it.")


def _worst_for_failed(success):
    """``success`` (..., D, A) with each NaN cell set to its row's worst success."""
    failed = ~np.isfinite(success)
    if not failed.any():
        return success
    worst = np.nanmin(np.where(failed, np.inf, success), axis=-1, keepdims=True)
    return np.where(failed, worst, success)


def complete_repeats(tasks, names) -> tuple[list, list]:
    """The repetitions of the cross-validation a knowledge base keeps, and those it drops.

    Repeat 0 is always kept. Another repeat is kept when, on every dataset of
    ``names``, the same (dataset, algorithm) tasks are finished in it (done or failed)
    as in repeat 0, and none of them is pending: a study still running its second
    repetition, or one whose repetitions ran different tasks, gives the repetitions
    that are complete, and every dataset has the same number of them. A task done in
    one repetition and failed in another is kept (failed in that repetition).

    Parameters
    ----------
    tasks : DataFrame
        ``Store.tasks(include_pending=True)``.
    names : sequence of str

    Returns
    -------
    kept : list of int
        The repeats kept, increasing.
    dropped : list of dict
        ``{"repeat": r, "why": text}`` for each repeat left out.
    """
    tasks = tasks[tasks["dataset"].isin(set(names))]
    finished = tasks["status"].isin(("done", "failed"))
    key = tasks["dataset"].astype(str) + "\x00" + tasks["algorithm"].astype(str)
    base = set(key[finished & (tasks["repeat"] == 0)])
    kept, dropped = [0], []
    for r in sorted(int(x) for x in tasks["repeat"].unique() if int(x) != 0):
        here = tasks["repeat"] == r
        have = set(key[finished & here])
        pending = int((here & (tasks["status"] == "pending")).sum())
        missing, extra = len(base - have), len(have - base)
        if not (pending or missing or extra):
            kept.append(r)
            continue
        why = [f"{n} {what}" for n, what in ((pending, "task(s) not finished"),
                                            (missing, "task(s) of repeat 0 missing"),
                                            (extra, "task(s) not in repeat 0")) if n]
        dropped.append({"repeat": r, "why": ", ".join(why)})
    return kept, dropped


def _cached_descriptions(store, names, condition, notes, clock):
    groups = store.metafeature_groups()
    described = set(groups["dataset"])
    missing = [n for n in names if n not in described]
    if missing:
        if len(missing) < len(names):
            notes.append(f"no meta-features: {len(missing)} dataset(s) not described "
                         f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''})")
        return None, None, None, None
    groups = groups.set_index("dataset")
    seconds = groups.groupby(["dataset", "kind"])[clock].sum().unstack(fill_value=0.0)
    seconds = seconds.reindex(names).fillna(0.0)
    features = store.metafeatures()
    mf = None
    if len(features):
        mf = features.assign(name=features["group"] + "." + features["feature"]).pivot(
            index="dataset", columns="name", values="value").reindex(names)
    land_rows = {}
    for name in names:
        long = store.landmark_scores(name)
        if not len(long):
            continue
        wide = long.pivot(index="row", columns="landmarker", values="score")
        y = long.drop_duplicates("row").set_index("row")["y"].reindex(wide.index).to_numpy()
        land_rows[name] = landmark_features(y, wide, condition)
    land = pd.DataFrame(land_rows).T.reindex(names) if len(land_rows) == len(names) else None
    if land is None and land_rows:
        notes.append("no landmark features: some datasets have no landmarker scores")
    get = seconds.get
    mf_time = get("pymfe", pd.Series(0.0, index=names)).to_numpy(dtype=np.float64)
    land_time = get("landmarker", pd.Series(0.0, index=names)).to_numpy(dtype=np.float64)
    return mf, mf_time, land, land_time


def describe_store(store, *, datasets=None, loader=None, progress=None, **describe):
    """Describe (pymfe meta-features and landmarkers) the store's datasets and cache it.

    Datasets already described are skipped. A built-in dataset is loaded by name (and
    its SHA-256 checked against the store's); any other one needs ``loader``.

    Parameters
    ----------
    store : Store or path
        Opened for writing while the results are recorded.
    datasets : sequence of str, optional
        Default: every dataset of the store.
    loader : callable, optional
        ``loader(name) -> Dataset`` for datasets that are not built in.
    progress : callable, optional
        Called as ``progress(name, description)`` after each dataset.
    **describe
        Passed to :func:`describe_dataset` (``groups``, ``time_budget``, ``max_rows``,
        ``landmark_folds``, ``seed``).

    Returns
    -------
    groups : DataFrame
        The cached group rows of the datasets described now (see
        :meth:`Store.metafeature_groups`).

    Raises
    ------
    ValueError
        When a dataset cannot be loaded (not built in and no ``loader``, or its content
        differs from what the store recorded).
    """
    store = Store(store)
    info = store.datasets().set_index("name")
    names = list(info.index) if datasets is None else list(datasets)
    unknown = [n for n in names if n not in info.index]
    if unknown:
        raise ValueError(f"datasets not in the store: {', '.join(unknown)}.")
    # a description whose every group (or every landmarker) failed is described again
    done = described_datasets(store.metafeature_groups())
    todo = [n for n in names if n not in done]
    builtin = set(list_datasets("kb"))
    effective = {k: p.default for k, p in inspect.signature(describe_dataset).parameters.items()
                 if p.default is not inspect.Parameter.empty}
    effective.update(describe)
    settings = {
        "pymfe": metadata.version("pymfe"),
        "clock": "cpu",
        **{k: (list(v) if isinstance(v, tuple) else v) for k, v in effective.items()
           if k != "landmarkers"},
    }
    described = []
    for name in todo:
        dataset = _load(name, info.loc[name], builtin, loader)
        description = describe_dataset(dataset, **describe)
        landmarks = description.landmark_scores.melt(
            ignore_index=False, var_name="landmarker", value_name="score").reset_index(
            names="row")
        landmarks["y"] = description.landmark_y[landmarks["row"].to_numpy()]
        with store.writing():
            store.record_description(name, groups=description.groups,
                                     features=description.features,
                                     landmarks=landmarks, settings=settings)
        described.append(name)
        if progress is not None:
            progress(name, description)
    groups = store.metafeature_groups()
    return groups[groups["dataset"].isin(described)].reset_index(drop=True)


def _load(name, info, builtin, loader) -> Dataset:
    if loader is not None:
        dataset = loader(name)
        if not isinstance(dataset, Dataset):
            raise ValueError(f"loader({name!r}) must return a Dataset.")
        return dataset
    if name not in builtin:
        raise ValueError(
            f"dataset {name!r} is not built in; describe it with a loader "
            "(describe_store(..., loader=...)) that reads the file the study used."
        )
    dataset = load_dataset(name)
    recorded = info.get("sha256")
    if isinstance(recorded, str) and recorded and recorded != dataset.sha256:
        raise ValueError(
            f"the built-in dataset {name!r} differs from the one the store recorded "
            f"(SHA-256 {recorded[:12]}... vs {dataset.sha256[:12]}...)."
        )
    return dataset

