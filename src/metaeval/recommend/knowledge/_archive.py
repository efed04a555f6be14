r"""A knowledge base on disk: past results under *every* operating condition, compactly.

A store holds every out-of-fold score; recommending needs far less. For each (dataset,
configuration) a :class:`KnowledgeArchive` keeps

- the success under each of the ten metrics of the algorithm-benchmark web page (the two
  losses turned into gains, as :class:`Condition` does), at threshold 0.5;
- for each threshold choice method of Prudêncio (2019), the *mean instance cost curve*
  :math:`\overline{QI}(c)` (the mean over the dataset's instances of the instance cost
  curves). Score-fixed, score-uniform and rate-uniform curves are linear in ``c`` (their
  threshold does not depend on ``c``), so their values at ``c = 0`` and ``c = 1`` keep
  them exactly. Score-driven and rate-driven curves are kept on a grid of ``c``
  (:data:`GRID`, 201 points) and read as the piecewise-linear curve through those
  points: exact at the grid's costs (0, 0.005, ..., 1, so 0.1, 0.3, ... included); at
  other costs and under a cost distribution, the error is that of linear interpolation
  between grid points (measured on the shipped knowledge base and stated in its
  provenance);
- CPU and wall seconds of each task (fit and predict over the folds);
- all of the above for every complete repetition of the cross-validation (the study's
  ``repeats``): ``metrics``, ``curves`` and ``times`` are their means (a task failed in
  any repetition is failed in the mean; a time, the mean of those recorded), what
  strategies learn from; ``by_repetition`` keeps each one's, which an evaluation scores
  held-out datasets on (:func:`evaluate_recommenders`, ``scored_on``);
- each dataset's pymfe meta-features and the class cost curves and metrics of its cheap
  landmarkers (cost-sensitive landmarking), with the CPU seconds each took.

The hardness of any cost distribution is then an exact quadrature of the stored curve:
for a Beta(a, b) density :math:`f` and the piecewise-linear :math:`g` through
:math:`(c_k, g_k)`,

.. math::

    \int_0^1 g(c) f(c)\,dc = \sum_k \Big[\alpha_k \big(F_{a,b}(c_{k+1}) - F_{a,b}(c_k)\big)
        + \beta_k \tfrac{a}{a+b} \big(F_{a+1,b}(c_{k+1}) - F_{a+1,b}(c_k)\big)\Big],

with :math:`g(c) = \alpha_k + \beta_k c` on :math:`[c_k, c_{k+1}]` and :math:`F` the
regularized incomplete Beta function -- linear in the grid values, so one weight vector
per distribution.
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from metaeval._validation import check_output_file
from metaeval.benchmark import SKLEARN_METRICS
from metaeval.hardness import METHODS, class_cost_curve
from metaeval.recommend._condition import Condition
from metaeval.recommend.knowledge._archive_file import (
    FORMATS,
    QUANTUM,
    check_members,
    check_some_finished,
    check_threshold,
    decode_curves,
    encode_curves,
    machine,
    package_version,
    quantise_curves,
    read_members,
    read_shipped,
    study_runs,
    write_members,
)
from metaeval.recommend.knowledge._knowledge import (
    KnowledgeBase,
    Query,
    _across_datasets,
    _worst_for_failed,
    complete_repeats,
    impute_times,
    mean_over_repetitions,
)
from metaeval.store import Store

#: The cost proportions at which score-driven and rate-driven curves are kept.
GRID = np.linspace(0.0, 1.0, 201)
#: Methods whose mean instance cost curve is linear in c (kept at c = 0 and c = 1).
LINEAR_METHODS = ("score-fixed", "score-uniform", "rate-uniform")
#: Methods kept on :data:`GRID`.
GRID_METHODS = ("score-driven", "rate-driven")
#: The file format written (format 1, one repetition, is read too; any other is refused).
FORMAT = FORMATS[-1]
#: The file shipped with the package (package data of ``metaeval.recommend``).
SHIPPED = "knowledge.npz"

_ENDS = np.array([0.0, 1.0])


def _method_grid(method):
    return _ENDS if method in LINEAR_METHODS else GRID


@dataclass(frozen=True, eq=False)
class KnowledgeArchive:
    """Past results of a pool of configurations, kept for any operating condition.

    Build one from a store with :func:`build_knowledge`, read one with
    :func:`load_knowledge` (the one shipped with metaeval by default), and turn it into
    the :class:`KnowledgeBase` of one condition with :meth:`knowledge_base`.

    Attributes
    ----------
    datasets, families : tuple of str, length D
    n_instances : ndarray of shape (D,)
    algorithms : tuple of str, length A
    metrics : ndarray of shape (D, A, M)
        Success under each metric of :attr:`metric_names` (NaN: the task failed).
    curves : dict
        Method -> ndarray of shape (D, A, G): mean instance cost curve on the method's
        grid (:data:`GRID`, or ``[0, 1]`` for the linear methods).
    times : dict
        ``"cpu"`` and ``"wall"`` -> ndarray of shape (D, A), seconds (NaN when failed).
    metafeatures : DataFrame of shape (D, F) or None
    landmarkers : tuple of str, length L
    landmark_metrics : ndarray of shape (D, L, M)
    landmark_curves : dict
        Method -> ndarray of shape (D, L, 2, G): the landmarkers' class cost curves.
    description_times : dict
        ``"cpu"``/``"wall"`` -> DataFrame of seconds per dataset: columns ``pymfe`` and
        ``landmarker`` (totals), then each pymfe group's and landmarker's own
        (``"pymfe:general"``, ``"landmarker:NB"``, ...).
    provenance : dict
        How it was made (study, versions, machine, description settings, accuracy).
    by_repetition : dict
        Empty for one repetition of the cross-validation (``metrics``, ``curves`` and
        ``times`` are then its own). With several: ``"repeats"`` (the study's repeat of
        each, length R), ``"metrics"`` (R, D, A, M), ``"curves"`` (method -> (R, D, A, G))
        and ``"times"`` (clock -> (R, D, A)); ``metrics``, ``curves`` and ``times`` are
        then their means over the repetitions (:func:`mean_over_repetitions`).
    """

    datasets: tuple
    families: tuple
    n_instances: np.ndarray
    algorithms: tuple
    metric_names: tuple
    metrics: np.ndarray
    curves: dict
    times: dict
    metafeatures: pd.DataFrame | None = None
    landmarkers: tuple = ()
    landmark_metrics: np.ndarray | None = None
    landmark_curves: dict = field(default_factory=dict)
    description_times: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    by_repetition: dict = field(default_factory=dict)

    def __post_init__(self):
        rep = self.by_repetition
        if not rep:
            return
        if set(rep) != {"repeats", "metrics", "curves", "times"}:
            raise ValueError(f"by_repetition must have the keys repeats, metrics, curves "
                             f"and times, got {sorted(rep)}.")
        RDA = (len(rep["repeats"]), len(self.datasets), len(self.algorithms))
        for name, value, shape in [
                ("metrics", rep["metrics"], (*RDA, len(self.metric_names))),
                *((f"curves[{m!r}]", v, (*RDA, np.shape(self.curves[m])[-1]))
                  for m, v in rep["curves"].items()),
                *((f"times[{c!r}]", v, RDA) for c, v in rep["times"].items())]:
            if np.shape(value) != shape:
                raise ValueError(f"by_repetition {name} must have shape {shape}, got "
                                 f"{np.shape(value)}.")

    @property
    def n_repetitions(self) -> int:
        """Repetitions of the cross-validation kept (1 for a format-1 file)."""
        return len(self.by_repetition["repeats"]) if self.by_repetition else 1

    def __repr__(self) -> str:
        reps = (f", {self.n_repetitions} repetitions of the cross-validation"
                if self.n_repetitions > 1 else "")
        return (f"KnowledgeArchive({len(self.datasets)} datasets x {len(self.algorithms)} "
                f"configurations{reps}, {len(set(self.families))} dataset families, "
                f"{0 if self.metafeatures is None else self.metafeatures.shape[1]} "
                f"meta-features, {len(self.landmarkers)} landmarkers)")

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.datasets), len(self.algorithms))

    # ------------------------------------------------------------------ conditions
    def success(self, condition: Condition) -> np.ndarray:
        """Success of every (dataset, configuration) under ``condition``; NaN if failed.

        Examples
        --------
        A one-dataset archive whose score-driven mean cost curve rises linearly from 0
        to 0.4 (grid values 0.4 c): at c = 0.3 the hardness is 0.12, under uniform
        costs the mean of 0.4 c is 0.2.

        >>> import numpy as np
        >>> arc = KnowledgeArchive(("d",), ("d",), np.array([10]), ("A",), (), np.zeros((1, 1, 0)),
        ...                        {"score-driven": (0.4 * GRID)[None, None]},
        ...                        {"cpu": np.ones((1, 1)), "wall": np.ones((1, 1))})
        >>> float(arc.success(Condition("hardness:score-driven", cost=0.3))[0, 0])
        0.88
        >>> round(float(arc.success(Condition("hardness:score-driven"))[0, 0]), 12)
        0.8
        """
        return _success(self.metric_names, self.metrics, self.curves, condition)

    def repetition_success(self, condition: Condition) -> np.ndarray:
        """Success of every (dataset, configuration) under ``condition`` in each
        repetition of the cross-validation: shape (R, D, A), NaN where the task failed in
        that repetition. :meth:`success` is its mean over the repetitions (NaN where a
        task failed in any)."""
        rep = self.by_repetition
        return (_success(self.metric_names, rep["metrics"], rep["curves"], condition)
                if rep else self.success(condition)[None])

    def knowledge_base(self, condition: Condition | None = None, *,
                       clock: str = "cpu") -> KnowledgeBase:
        """The :class:`KnowledgeBase` of one condition (success, times, descriptions).

        Failed (dataset, configuration) cells get the dataset's worst success and the
        configuration's median time, as :meth:`KnowledgeBase.from_store` does.

        ``success`` is the mean over the repetitions of the cross-validation (failed
        where failed in any); with several, ``repetitions`` holds each one's (R, D, A),
        a cell failed in a repetition scored as the dataset's worst in it. Times are
        the means over the repetitions that recorded them.

        Parameters
        ----------
        condition : Condition, default=Condition()
        clock : {"cpu", "wall"}, default="cpu"
        """
        condition = Condition() if condition is None else condition
        if not isinstance(condition, Condition):
            raise ValueError(f"condition must be a Condition, got {condition!r}.")
        if clock not in self.times:
            raise ValueError(f"clock must be one of {sorted(self.times)}, got {clock!r}.")
        success = self.success(condition)
        times = np.array(self.times[clock], dtype=np.float64)
        notes = []
        failed = ~np.isfinite(success)
        if failed.any():
            notes.append(f"{int(failed.sum())} failed (dataset, configuration) cell(s) "
                         "scored as the dataset's worst configuration")
            success = _worst_for_failed(success)
        repetitions = None
        if self.n_repetitions > 1:
            raw = self.repetition_success(condition)
            lost = ~np.isfinite(raw)
            some = int((lost.any(axis=0) & ~lost.all(axis=0)).sum())
            repetitions = _worst_for_failed(raw)
            if some:
                notes.append(f"{some} (dataset, configuration) cell(s) failed in some "
                             "repetitions of the cross-validation only: failed in the mean")
        bad = ~(times > 0)
        times = impute_times(times, bad, self.algorithms, notes)
        land = mf_time = land_time = None
        if self.landmarkers:
            land = self.landmark_features(condition)
        if self.description_times:
            seconds = self.description_times[clock]
            mf_time = seconds["pymfe"].to_numpy(dtype=np.float64)
            land_time = seconds["landmarker"].to_numpy(dtype=np.float64)
        # the cells whose time was imputed: an evaluation imputes them again from its
        # training datasets only
        return KnowledgeBase(self.datasets, self.algorithms, success, times, self.families,
                             self.n_instances, self.metafeatures, mf_time, land, land_time,
                             condition, tuple(notes), _across_datasets(bad),
                             repetitions)

    def landmark_features(self, condition: Condition) -> pd.DataFrame:
        """Each dataset's cost-sensitive landmark features under ``condition``.

        The same features as :func:`metaeval.recommend.landmark_features` computes from
        a new dataset's landmarker scores: ``<landmarker>.success``, and for a hardness
        measure the mean hardness of each class ``<landmarker>.class0``/``.class1``.
        """
        names = self.landmarkers
        columns = {}
        if condition.method is None:
            success = _success(self.metric_names, self.landmark_metrics, {}, condition)
            for j, n in enumerate(names):
                columns[f"{n}.success"] = success[:, j]
        else:
            check_threshold(condition)
            per_class = _hardness(self.landmark_curves[condition.method], condition.method,
                                  condition)  # (D, L, 2)
            # the landmarkers' own class counts (they may see a sample of the rows)
            counts = np.asarray(self.provenance["landmark_class_counts"],
                                dtype=np.float64)[:, None, :]
            mean = (per_class * counts).sum(axis=2) / counts.sum(axis=2)
            for j, n in enumerate(names):
                columns[f"{n}.success"] = 1.0 - mean[:, j]
            for cls in (0, 1):
                for j, n in enumerate(names):
                    columns[f"{n}.class{cls}"] = per_class[:, j, cls]
        return pd.DataFrame(columns, index=list(self.datasets), dtype=np.float64)

    def query(self, description, condition: Condition, n_instances: int, *,
              clock: str = "cpu") -> Query:
        """The :class:`Query` of a newly described dataset, in this archive's features."""
        return Query.from_description(description, condition, n_instances, clock=clock)

    # ------------------------------------------------------------------ files
    def save(self, path, *, what: str = "path") -> Path:
        """Write the archive as one compressed ``.npz`` file (deterministic bytes).

        The file has format ``metaeval-knowledge/2``: every per-task array with a
        leading repetition axis (one repetition when the archive has no
        :attr:`by_repetition`), the grid curves quantised to multiples of 2**-28 (see
        :mod:`metaeval.recommend.knowledge._archive_file`). The file carries the SHA-256 of its
        arrays (the ``checksum`` member), checked by :func:`load_knowledge`. Only a
        regular file is written: a directory, a device or a FIFO at ``path`` is refused
        (a ``ValueError`` naming ``what``, the option that gave the path), and nothing
        is left behind when writing fails.
        """
        path = check_output_file(path, what)
        rep = self.by_repetition or {
            "repeats": (int((self.provenance.get("repetitions") or [0])[0]),),
            "metrics": np.asarray(self.metrics)[None],
            "curves": {m: np.asarray(v)[None] for m, v in self.curves.items()},
            "times": {c: np.asarray(v)[None] for c, v in self.times.items()}}
        arrays = {
            "datasets": np.array(self.datasets, dtype=str),
            "families": np.array(self.families, dtype=str),
            "n_instances": np.asarray(self.n_instances, dtype=np.int64),
            "algorithms": np.array(self.algorithms, dtype=str),
            "metric_names": np.array(self.metric_names, dtype=str),
            "metrics": np.asarray(rep["metrics"], dtype=np.float64),
            "repetitions": np.asarray(rep["repeats"], dtype=np.int64),
            "landmarkers": np.array(self.landmarkers, dtype=str),
            "provenance": np.array(json.dumps({k: v for k, v in self.provenance.items()
                                               if k != "checksum"}, sort_keys=True)),
            "format": np.array(FORMAT),
        }
        for m, v in rep["curves"].items():
            # the grid curves are the bulk of the file: quantised int32 differences
            arrays[f"curve:{m}"] = (encode_curves(v) if m in GRID_METHODS
                                    else np.asarray(v, dtype=np.float64))
        for clock, v in rep["times"].items():
            arrays[f"time:{clock}"] = np.asarray(v, dtype=np.float64)
        if self.landmark_metrics is not None:
            arrays["landmark_metrics"] = np.asarray(self.landmark_metrics, dtype=np.float64)
        for m, v in self.landmark_curves.items():
            arrays[f"landmark_curve:{m}"] = np.asarray(v, dtype=np.float64)
        for clock, frame in self.description_times.items():
            arrays[f"description_time:{clock}"] = frame.to_numpy(dtype=np.float64)
            arrays["description_time_columns"] = np.array(list(frame.columns), dtype=str)
        if self.metafeatures is not None:
            arrays["metafeature_names"] = np.array(list(self.metafeatures.columns), dtype=str)
            arrays["metafeatures"] = self.metafeatures.to_numpy(dtype=np.float64)
        write_members(path, arrays, what)
        return path

    def with_descriptions(self, store) -> KnowledgeArchive:
        """A copy whose dataset descriptions are read from ``store``'s cache.

        For an archive built where the study ran and described elsewhere (the datasets
        are matched by name; every one must be described in ``store``).
        """
        import dataclasses

        store = Store(store)
        (mf, land_names, land_metrics, land_curves, desc_times, settings,
         land_counts) = _descriptions(store, list(self.datasets), True)
        provenance = {k: v for k, v in self.provenance.items() if k != "checksum"}
        provenance["description_settings"] = settings
        provenance["landmark_class_counts"] = land_counts
        provenance["described_on"] = machine()
        return dataclasses.replace(self, metafeatures=mf, landmarkers=land_names,
                                   landmark_metrics=land_metrics, landmark_curves=land_curves,
                                   description_times=desc_times, provenance=provenance)

    @classmethod
    def load(cls, path=None) -> KnowledgeArchive:
        """Read an archive written by :meth:`save` (default: the shipped one)."""
        return load_knowledge(path)


def load_knowledge(path=None) -> KnowledgeArchive:
    """Read a knowledge archive; ``None`` reads the one shipped with metaeval.

    The file is validated in full before it is used: every array's shape against the
    counts it declares, every value against its range, names against columns, and the
    SHA-256 of its arrays against the checksum it carries (the shipped one once per
    process while its file is unchanged; each call gets its own copy).

    Raises
    ------
    ValueError
        When the file is missing, not an archive, of another format version, damaged or
        inconsistent; the message names the file and the array.
    """
    if path is None:
        ref = resources.files("metaeval.recommend").joinpath("data", SHIPPED)
        if not ref.is_file():
            raise ValueError("this installation of metaeval has no shipped knowledge base "
                             f"({SHIPPED}); give one with --knowledge or a study with --store.")
        with resources.as_file(ref) as real:
            return read_shipped(real, f"the shipped knowledge base ({real})", _read)
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"knowledge base {path} is a directory; give a knowledge base file "
                         "(.npz, written by `metaeval knowledge build`).")
    if not path.exists():
        raise ValueError(f"knowledge base {path}: no such file.")
    if not path.is_file():
        raise ValueError(f"knowledge base {path} is not a regular file; give a knowledge "
                         "base file (.npz, written by `metaeval knowledge build`).")
    return _read(path, f"knowledge base {path}")


def _read(path, label) -> KnowledgeArchive:
    data = read_members(path, label)
    provenance = check_members(
        data, label, fmt=FORMATS, methods=METHODS, grid_size=GRID.size,
        linear_methods=LINEAR_METHODS, metric_names_known=SKLEARN_METRICS)
    datasets = tuple(str(d) for d in data["datasets"])
    metrics = data["metrics"].astype(np.float64)
    curves = {m: data[f"curve:{m}"].astype(np.float64) for m in METHODS}
    times = {clock: data[f"time:{clock}"].astype(np.float64) for clock in ("cpu", "wall")}
    by_repetition = {}
    if "repetitions" in data:  # format 2: a leading repetition axis
        curves = {m: decode_curves(data[f"curve:{m}"]) if m in GRID_METHODS else v
                  for m, v in curves.items()}
        repeats = tuple(int(r) for r in data["repetitions"])
        if len(repeats) > 1:
            by_repetition = {"repeats": repeats, "metrics": metrics, "curves": curves,
                             "times": times}
            metrics, curves, times = mean_over_repetitions(metrics, curves, times)
        else:
            metrics, curves = metrics[0], {m: v[0] for m, v in curves.items()}
            times = {c: v[0] for c, v in times.items()}
    check_some_finished(metrics, by_repetition, curves, datasets, label)
    mf = None
    if "metafeatures" in data:
        mf = pd.DataFrame(data["metafeatures"].astype(np.float64), index=list(datasets),
                          columns=[str(c) for c in data["metafeature_names"]])
    desc = {}
    if "description_time_columns" in data:
        columns = [str(c) for c in data["description_time_columns"]]
        for clock in ("cpu", "wall"):
            desc[clock] = pd.DataFrame(data[f"description_time:{clock}"].astype(np.float64),
                                       index=list(datasets), columns=columns)
    landmarkers = tuple(str(x) for x in data["landmarkers"])
    return KnowledgeArchive(
        datasets, tuple(str(f) for f in data["families"]),
        data["n_instances"].astype(np.int64), tuple(str(a) for a in data["algorithms"]),
        tuple(str(m) for m in data["metric_names"]), metrics,
        curves, times, mf, landmarkers,
        data["landmark_metrics"].astype(np.float64) if landmarkers else None,
        {m: data[f"landmark_curve:{m}"].astype(np.float64) for m in METHODS}
        if landmarkers else {},
        desc, provenance, by_repetition,
    )


# ----------------------------------------------------------------------------- quadrature
def beta_weights(grid, a, b) -> np.ndarray:
    r"""Weights :math:`w` with :math:`\int_0^1 g(c)\,Beta(c; a, b)\,dc = w \cdot g(grid)`.

    ``g`` is the piecewise-linear curve through ``(grid[k], g_k)``; the integral is exact
    (regularized incomplete Beta functions).

    Examples
    --------
    Uniform costs weigh a grid of three points as the trapezoid rule does:

    >>> beta_weights(np.array([0.0, 0.5, 1.0]), 1, 1).tolist()
    [0.25, 0.5, 0.25]
    """
    grid = np.asarray(grid, dtype=np.float64)
    F0 = special.betainc(a, b, grid)
    F1 = special.betainc(a + 1, b, grid)
    mass = np.diff(F0)  # P(c in segment k)
    first = a / (a + b) * np.diff(F1)  # E[c; c in segment k]
    width = np.diff(grid)
    # on segment k: g = g_k (c_{k+1} - c)/w + g_{k+1} (c - c_k)/w
    left = (grid[1:] * mass - first) / width
    right = (first - grid[:-1] * mass) / width
    w = np.zeros(grid.size)
    w[:-1] += left
    w[1:] += right
    return w


def _hardness(curves, method, condition) -> np.ndarray:
    """Mean hardness under ``condition`` from curves on the method's grid (last axis)."""
    grid = _method_grid(method)
    curves = np.asarray(curves, dtype=np.float64)
    if condition.cost is not None:
        c = condition.cost
        k = min(int(np.searchsorted(grid, c, side="right")) - 1, grid.size - 2)
        lam = (c - grid[k]) / (grid[k + 1] - grid[k])
        if lam == 0.0:
            return curves[..., k]
        return curves[..., k] * (1.0 - lam) + curves[..., k + 1] * lam
    a, b = condition.cost_beta if condition.cost_beta is not None else (1.0, 1.0)
    return curves @ beta_weights(grid, a, b)


def _success(metric_names, metrics, curves, condition) -> np.ndarray:
    check_threshold(condition)
    if condition.method is None:
        if condition.measure not in metric_names:
            raise ValueError(f"the knowledge base has no {condition.measure!r} results.")
        return np.asarray(metrics[..., list(metric_names).index(condition.measure)],
                          dtype=np.float64)
    if condition.method not in curves:
        raise ValueError(f"the knowledge base has no {condition.method} curves.")
    return 1.0 - _hardness(curves[condition.method], condition.method, condition)


# ----------------------------------------------------------------------------- building
def summarise_scores(y, S, *, metric_names=SKLEARN_METRICS):
    """Metrics ``(A, M)`` and mean cost curves ``{method: (A, G)}`` of a score matrix.

    Also returns the class cost curves ``{method: (A, 2, G)}`` (for landmarkers).
    """
    y = np.asarray(y)
    S = np.asarray(S, dtype=np.float64)
    metrics = np.column_stack([Condition(m).success(y, S) for m in metric_names])
    counts = np.bincount(y.astype(np.int64), minlength=2).astype(np.float64)
    mean, per_class = {}, {}
    for method in METHODS:
        cc = class_cost_curve(y, S, method, _method_grid(method))  # (2, A, G)
        per_class[method] = np.moveaxis(cc, 0, 1)
        mean[method] = (cc[0] * counts[0] + cc[1] * counts[1]) / counts.sum()
    return metrics, mean, per_class


def _summarise_dataset(path, name, repeat=0):
    """:func:`_summarise` of a dataset's repetition read from the store at ``path`` (in a
    worker)."""
    return (*_summarise(name, *Store(path).scores(name, repeat=repeat)), repeat)


def _summarise_dataset_of(task):
    return _summarise_dataset(*task)


def _worker_start(parent: int) -> None:  # pragma: no cover - runs in a worker
    """A build worker leaves the stop signals to its parent (which ends the pool) and
    ends itself when its parent is gone, however the parent ended."""
    import os
    import signal
    import threading
    import time

    for name in ("SIGINT", "SIGHUP"):  # sent to the whole process group by a terminal
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="metaeval-build-watch", daemon=True).start()


def _summarise(name, y, S, algos):
    met, mean, _ = summarise_scores(y, S)
    return name, algos, met, mean, np.bincount(np.asarray(y, dtype=np.int64), minlength=2)


def build_knowledge(store, *, progress=None, require_descriptions=True,
                    jobs=1) -> KnowledgeArchive:
    """Build a :class:`KnowledgeArchive` from a finished study (deterministic).

    Every dataset with results in repeat 0 contributes its out-of-fold scores of every
    complete repetition of the cross-validation (:func:`complete_repeats`: the same
    tasks finished as in repeat 0 on every dataset; another is left out whole, named in
    the provenance's ``dropped_repetitions``); failed tasks are NaN in their repetition,
    grid curves kept as the file keeps them (multiples of 2**-28). The descriptions must
    be cached in the store (``metaeval describe --store``) unless
    ``require_descriptions=False``.

    Parameters
    ----------
    store : Store or path
    progress : callable, optional
        ``progress(name)`` after each dataset (all its repetitions).
    require_descriptions : bool, default=True
    jobs : int, default=1
        Worker processes summarising datasets in parallel (each reads the store).

    Raises
    ------
    ValueError
        When the store has fewer than 3 datasets with results or 2 configurations, or
        (by default) a dataset is not described.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}.")
    store = Store(store)
    with store.reading():  # one connection for all its reads (about 15 ms each)
        return _build_knowledge(store, progress, require_descriptions, jobs)


def _build_knowledge(store, progress, require_descriptions, jobs) -> KnowledgeArchive:
    info = store.datasets()
    algorithms = store.algorithms()["name"].tolist()
    all_tasks = store.tasks(include_pending=True)
    tasks = all_tasks[all_tasks["repeat"] == 0]
    done = set(tasks.loc[tasks["status"] == "done", "dataset"])
    names = [n for n in info["name"] if n in done]
    if len(names) < 3 or len(algorithms) < 2:
        raise ValueError(f"the store {store.path} has results on {len(names)} dataset(s) and "
                         f"{len(algorithms)} algorithm(s); a knowledge base needs at least 3 "
                         "and 2.")
    repeats, dropped = complete_repeats(all_tasks, names)
    R, D, A, M = len(repeats), len(names), len(algorithms), len(SKLEARN_METRICS)
    col = {a: j for j, a in enumerate(algorithms)}
    at = {r: k for k, r in enumerate(repeats)}
    metrics = np.full((R, D, A, M), np.nan)
    curves = {m: np.full((R, D, A, _method_grid(m).size), np.nan) for m in METHODS}
    class_counts = np.full((D, 2), -1, dtype=np.int64)
    row = {n: i for i, n in enumerate(names)}
    left = dict.fromkeys(names, R)

    def put(result):
        name, algos, met, mean, counts, repeat = result
        i, k, cols = row[name], at[repeat], [col[a] for a in algos]
        metrics[k, i, cols] = met
        for m in METHODS:
            curves[m][k, i, cols] = mean[m]
        if class_counts[i, 0] >= 0 and not np.array_equal(class_counts[i], counts):
            raise ValueError(f"the store {store.path} is inconsistent: dataset {name!r} has "
                             f"class counts {class_counts[i].tolist()} in one repetition and "
                             f"{counts.tolist()} in repeat {repeat}.")
        class_counts[i] = counts
        left[name] -= 1
        if progress is not None and not left[name]:
            progress(name)

    work = [(n, r) for n in names for r in repeats]
    if jobs == 1:
        for name, r in work:
            put((*_summarise(name, *store.scores(name, repeat=r)), r))
    else:
        import multiprocessing
        import os
        import threading

        ctx = multiprocessing.get_context("spawn")
        made: dict = {}

        started = threading.Event()

        def start():  # in a thread: a signal's handler (main thread) cannot cut it short
            try:
                made["pool"] = ctx.Pool(min(int(jobs), len(work)),
                                        initializer=_worker_start, initargs=(os.getpid(),))
            except BaseException as exc:  # noqa: BLE001 - raised in the main thread
                made["error"] = exc
            finally:
                started.set()

        before = set(multiprocessing.active_children())
        starter = threading.Thread(target=start, name="metaeval-build-pool")
        try:
            starter.start()
            # an Event, not Thread.join: a join cut short by a signal's exception marks
            # the thread as ended while it runs (CPython 3.11), and the wait after the
            # stop would then not wait for the pool
            started.wait()
            if "error" in made:
                raise made["error"]
            for result in made["pool"].imap(_summarise_dataset_of,
                                            [(store.path, n, r) for n, r in work]):
                put(result)
            made["pool"].close()
        except BaseException:
            # stopped (a signal, Ctrl-C) or failed: no worker goes on with its dataset,
            # also when the stop came while the pool was starting them
            if starter.ident is not None:
                started.wait()
            if "pool" in made:
                made["pool"].terminate()
            for worker in set(multiprocessing.active_children()) - before:
                worker.terminate()  # any the pool did not end (none seen: a safety net)
                worker.join(5)
            raise
        finally:
            if "pool" in made:
                made["pool"].join()
    for m in GRID_METHODS:  # as the file keeps them: a build and its file read the same
        curves[m] = quantise_curves(curves[m])
    times = {}
    t = all_tasks[all_tasks["dataset"].isin(row) & (all_tasks["status"] == "done")
                  & all_tasks["repeat"].isin(at)]
    for clock in ("cpu", "wall"):
        arr = np.full((R, D, A), np.nan)
        arr[t["repeat"].map(at).to_numpy(), t["dataset"].map(row).to_numpy(),
            t["algorithm"].map(col).to_numpy()] = t[clock].to_numpy(dtype=np.float64)
        times[clock] = arr
    failed = np.isnan(metrics[..., 0])
    meta = info.set_index("name").loc[names]
    (mf, land_names, land_metrics, land_curves, desc_times, settings,
     land_counts) = _descriptions(store, names, require_descriptions)
    provenance = {
        "format": FORMAT,
        "built_with": {"metaeval": package_version("metaeval"), "numpy": np.__version__,
                       "python": platform.python_version()},
        "study": store.study_config(),
        "runs": study_runs(store),
        "description_settings": settings,
        "described_on": machine() if settings is not None else None,
        "grid": {"methods": list(GRID_METHODS), "points": int(GRID.size),
                 "quantum": QUANTUM},
        "class_counts": class_counts.tolist(),
        "landmark_class_counts": land_counts,
        "repetitions": [int(r) for r in repeats],
        "dropped_repetitions": dropped,
        # failed in any repetition (failed in the mean), and in each repetition
        "failed_cells": int(failed.any(axis=0).sum()),
        "failed_cells_by_repetition": [int(f.sum()) for f in failed],
    }
    by_repetition = {}
    if R > 1:
        by_repetition = {"repeats": tuple(int(r) for r in repeats), "metrics": metrics,
                         "curves": curves, "times": times}
        metrics, curves, times = mean_over_repetitions(metrics, curves, times)
    else:
        metrics, curves = metrics[0], {m: v[0] for m, v in curves.items()}
        times = {c: v[0] for c, v in times.items()}
    return KnowledgeArchive(tuple(names), tuple(meta["family"].astype(str)),
                            meta["n_instances"].to_numpy(dtype=np.int64), tuple(algorithms),
                            tuple(SKLEARN_METRICS), metrics, curves, times, mf, land_names,
                            land_metrics, land_curves, desc_times, provenance, by_repetition)


def _descriptions(store, names, required):
    groups = store.metafeature_groups()
    described = set(groups["dataset"])
    missing = [n for n in names if n not in described]
    if missing:
        if required:
            raise ValueError(
                f"{len(missing)} dataset(s) of the store are not described "
                f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); run "
                f"`metaeval describe --store {store.path}` first.")
        return None, (), None, {}, {}, None, None
    settings = None
    if "settings" in groups.columns:
        values = [json.loads(v) for v in groups["settings"].dropna().unique()]
        settings = values[0] if len(values) == 1 else values
    g = groups.set_index("dataset")
    desc_times = {}
    g = g.assign(part=g["kind"] + ":" + g["group"])
    parts = sorted(g["part"].unique())
    for clock in ("cpu", "wall"):
        seconds = g.groupby(["dataset", "kind"])[clock].sum().unstack(fill_value=0.0)
        seconds = seconds.reindex(index=names, columns=["pymfe", "landmarker"]).fillna(0.0)
        # and each pymfe group's and landmarker's own seconds ("pymfe:general", ...)
        each = g.groupby(["dataset", "part"])[clock].sum().unstack(fill_value=0.0)
        each = each.reindex(index=names, columns=parts).fillna(0.0)
        desc_times[clock] = pd.concat([seconds, each], axis=1).rename_axis(
            index=None, columns=None)
    features = store.metafeatures()
    mf = None
    if len(features):
        mf = features.assign(name=features["group"] + "." + features["feature"]).pivot(
            index="dataset", columns="name", values="value").reindex(names)
        mf = mf[sorted(mf.columns)].astype(np.float64).rename_axis(index=None, columns=None)
    land_names = None
    metrics, curves, counts = [], {m: [] for m in METHODS}, []
    for name in names:
        long = store.landmark_scores(name)
        wide = long.pivot(index="row", columns="landmarker", values="score")
        if land_names is None:
            land_names = tuple(str(c) for c in wide.columns)
        wide = wide.reindex(columns=list(land_names))
        y = long.drop_duplicates("row").set_index("row")["y"].reindex(wide.index).to_numpy()
        S = wide.to_numpy(dtype=np.float64)
        ok = np.isfinite(S).all(axis=0)
        counts.append(np.bincount(y.astype(np.int64), minlength=2).tolist())
        met = np.full((len(land_names), len(SKLEARN_METRICS)), np.nan)
        per = {m: np.full((len(land_names), 2, _method_grid(m).size), np.nan) for m in METHODS}
        if ok.any() and np.unique(y).size == 2:
            m_ok, _, pc = summarise_scores(y, S[:, ok])
            met[ok] = m_ok
            for m in METHODS:
                per[m][ok] = pc[m]
        metrics.append(met)
        for m in METHODS:
            curves[m].append(per[m])
    land_curves = {m: np.stack(v) for m, v in curves.items()}
    return (mf, land_names or (), np.stack(metrics), land_curves, desc_times, settings,
            counts)
