"""Units of work: a task whole or one of its folds, their cost, and their order.

A task (one algorithm cross-validated on one dataset, once) is the unit of the store: its
scores, its status. The unit of *scheduling* can be smaller: a long task is split into
its folds, each run on its own by a worker (:func:`metaeval.study.run_task` with
``fold=k``), so that no single unit holds the study back on many workers. A fold run
alone uses the same folds and the same model seed as in the whole task, so the scores
are bit-identical; the driver puts a task's folds back together and stores the task as
one, as before.

The units are run longest first (the LPT rule of Graham (1969), whose makespan is within
4/3 of the optimum), by a cost estimated before the run from the size of the data and a
per-estimator factor (:func:`estimate_cost`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from metaeval.study._plan import Task
from metaeval.study._run import TaskResult, warning_text

__all__ = ["Unit", "estimate_cost", "plan_units", "lpt_makespan", "Assembler", "UNIT_MODES"]

#: How a study's tasks are cut into units: ``"auto"`` splits the tasks whose estimated
#: cost is large against the share of one worker, ``"fold"`` splits every task into its
#: folds, ``"task"`` splits none.
UNIT_MODES = ("auto", "fold", "task")

# The size term of a 10-fold task by estimator: a factor and the growth with n instances
# and p features ("n2p": n^2 p, kernel machines and nearest neighbours; "forest": n log n
# sqrt(p) per 100 trees; "tree": n log n p; "np": n p). Calibrated on the quick and the
# full suites (a kernel SVM on 9,822 x 85 about 48 CPU-s, a random forest on 19,020 x 10
# about 40 CPU-s, every task on the quick suite's small datasets 0.1-0.3 CPU-s, a forest's
# about 1.6); within a few times, which is all an order needs.
_SIZE = {
    "SVC": (6e-9, "n2p"),
    "NuSVC": (6e-9, "n2p"),
    "KNeighborsClassifier": (1e-9, "n2p"),
    "RandomForestClassifier": (6.7e-5, "forest"),
    "ExtraTreesClassifier": (4e-5, "forest"),
    "BaggingClassifier": (1e-6, "tree"),
    "GradientBoostingClassifier": (1e-6, "tree"),
    "HistGradientBoostingClassifier": (5e-7, "tree"),
    "AdaBoostClassifier": (5e-7, "tree"),
    "DecisionTreeClassifier": (1e-7, "tree"),
    "MLPClassifier": (2e-5, "np"),
    "LogisticRegression": (2e-6, "np"),
    "LinearSVC": (1e-6, "np"),
    "SGDClassifier": (3e-7, "np"),
    "GaussianNB": (5e-8, "np"),
}
_DEFAULT_SIZE = (2e-6, "np")
# Tasks estimated under this many CPU seconds are never split by ``auto``: their folds
# would cost more to send and put back together than they could save.
MIN_SPLIT = 1.0
# A fold's fixed cost (building the pipeline, fitting on little data, scoring), seconds,
# and a tree's in an ensemble.
_FIXED, _PER_TREE = 0.012, 0.0015
_ENSEMBLES = ("RandomForestClassifier", "ExtraTreesClassifier", "BaggingClassifier",
              "GradientBoostingClassifier", "AdaBoostClassifier")


def estimate_cost(algorithm, n_instances: int, n_features: int, folds: int = 10) -> float:
    """A rough CPU cost in seconds of one task, from the data's size and the estimator.

    A fixed cost per fold (more for an ensemble: per tree) plus a size term that grows
    with the instances and features as the estimator's fit does (a kernel SVM or nearest
    neighbours as n^2 p, a forest as n log n sqrt(p), a linear model as n p), scaled to
    ``folds`` folds. Only the order of the units depends on it.

    Examples
    --------
    >>> from metaeval.algorithms import get_algorithm
    >>> svm, nb = get_algorithm("SVM_RBF"), get_algorithm("NB")
    >>> big, small = estimate_cost(svm, 10_000, 80), estimate_cost(svm, 1_000, 80)
    >>> big > small > estimate_cost(nb, 1_000, 80)
    True
    """
    estimator = str(getattr(algorithm, "estimator", "")).replace(":", ".").rpartition(".")[2]
    factor, growth = _SIZE.get(estimator, _DEFAULT_SIZE)
    params = dict(getattr(algorithm, "params", {}) or {})
    fixed = _FIXED
    if estimator in _ENSEMBLES:
        trees = params.get("n_estimators", 100)
        trees = trees if isinstance(trees, (int, float)) and trees > 0 else 100
        fixed += _PER_TREE * trees
        factor *= trees / 100
    if estimator == "SVC" and params.get("kernel") == "linear":
        factor /= 2
    n, p = max(int(n_instances), 2), max(int(n_features), 1)
    size = {"n2p": n * n * p, "forest": n * math.log(n) * math.sqrt(p),
            "tree": n * math.log(n) * p}.get(growth, n * p)
    return folds * fixed + folds / 10 * factor * size


@dataclass(frozen=True)
class Unit:
    """One unit of work: a whole task (``fold`` None) or one fold of it.

    Attributes
    ----------
    task : Task
    fold : int or None
    cost : float
        The estimated CPU seconds (what orders the units).
    """

    task: Task
    fold: int | None = None
    cost: float = 0.0

    @property
    def key(self) -> tuple[str, str, int, int | None]:
        """``(dataset, algorithm, repeat, fold)``."""
        return (*self.task.key, self.fold)


def plan_units(tasks: Sequence[Task], sizes: dict, *, workers: int, mode: str = "auto",
               held: dict | None = None) -> list[Unit]:
    """Cut tasks into units and order them longest first.

    Parameters
    ----------
    tasks : sequence of Task
        The tasks to run.
    sizes : dict of str to (n_instances, n_features, n_folds)
        Per dataset; ``n_folds`` the folds its tasks use (fewer than asked when a class
        is small; 0 when the task cannot be cross-validated, which then runs whole).
    workers : int
        The workers that will run them.
    mode : {'auto', 'fold', 'task'}
        ``'auto'`` splits a task when its estimated cost is over a quarter of the mean
        work per worker: the longest-first schedule ends at most one unit after the even
        share, so within 1.25 times of it. On few workers few tasks are split (their
        overhead is not paid where it buys nothing), and never one estimated under
        :data:`MIN_SPLIT` CPU seconds.
    held : dict of task key to set of int, optional
        Folds already done (kept in the store from a stopped run): not run again.

    Returns
    -------
    units : list of Unit
        Longest first; ties in study order.
    """
    if mode not in UNIT_MODES:
        raise ValueError(f"units must be one of {', '.join(UNIT_MODES)}, got {mode!r}.")
    held = held or {}
    costs = [estimate_cost(t.algorithm, sizes[t.dataset][0], sizes[t.dataset][1],
                           max(sizes[t.dataset][2], 1)) for t in tasks]
    total = sum(costs)
    threshold = max(total / (4 * max(workers, 1)), MIN_SPLIT) if mode == "auto" else 0.0
    units = []
    for task, cost in zip(tasks, costs, strict=True):
        n_folds = sizes[task.dataset][2]
        done = held.get(task.key, set())
        split = n_folds >= 2 and (mode == "fold" or (mode == "auto" and cost > threshold)
                                  or bool(done))
        if not split:
            units.append(Unit(task, None, cost))
            continue
        units.extend(Unit(task, k, cost / n_folds) for k in range(n_folds) if k not in done)
    order = sorted(range(len(units)), key=lambda i: (-units[i].cost, i))
    return [units[i] for i in order]


def lpt_makespan(costs: Iterable[float], workers: int) -> float:
    """The makespan of the longest-first list schedule of ``costs`` on ``workers``.

    Each unit, longest first, goes to the worker that is free first (what a pool that
    hands the next unit to the first idle worker does).

    Examples
    --------
    >>> lpt_makespan([3, 3, 2, 2, 2], 2)
    7.0
    >>> lpt_makespan([5, 1, 1], 4)
    5.0
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}.")
    loads = [0.0] * workers
    for cost in sorted((float(c) for c in costs), reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + cost)
    return max(loads)


class Assembler:
    """Put the folds of split tasks back together as the whole task's result.

    Parameters
    ----------
    n_folds : dict of task key to int
        The folds of each split task.
    held : dict of task key to list of TaskResult, optional
        Fold results kept from an earlier run.
    timeouts : dict of task key to float or None, optional
        The time limit of each task: a task fails once its folds took longer than that
        to fit and score, all together.
    """

    def __init__(self, n_folds: dict, held: dict | None = None, timeouts: dict | None = None):
        self.n_folds = dict(n_folds)
        self.parts: dict = {key: list(parts) for key, parts in (held or {}).items()}
        self.timeouts = dict(timeouts or {})
        self.closed: set = set()  # tasks already recorded (a fold failed, or all done)
        self.failed: dict = {}  # task key -> the failed fold of lowest index so far

    def close(self, key) -> TaskResult:
        """The result of a task whose folds are all there."""
        self.closed.add(key)
        return merge_folds(self.parts.pop(key))

    def needless(self, key, fold: int | None) -> bool:
        """Whether a fold need not run: its task is recorded, or a fold before it failed
        (the whole task stops at its first failed fold, and records that one)."""
        if key in self.closed:
            return True
        failed = self.failed.get(key)
        return fold is not None and failed is not None and fold > failed.unit_fold

    def add(self, part: TaskResult) -> TaskResult | None:
        """Add one fold's result; return the task's result once it is known, else None.

        A task fails as the whole task would: at its failed fold of lowest index, once
        every fold before that one is done (so the recorded error is the same).
        """
        key = part.key
        if key in self.closed:
            return None
        parts = self.parts.setdefault(key, [])
        if part.status != "done":
            if self.needless(key, part.unit_fold):
                return None
            self.failed[key] = part
        else:
            parts.append(part)
            limit = self.timeouts.get(key)
            spent = math.fsum(p.fit_wall[p.unit_fold] + p.predict_wall[p.unit_fold]
                              for p in parts)
            if limit is not None and spent > limit and key not in self.failed:
                self.failed[key] = TaskResult(
                    part.dataset, part.algorithm, part.repeat, "failed",
                    error=f"time limit of {limit:g} s exceeded after {len(parts)} of "
                    f"{self.n_folds[key]} folds ({spent:.1f} s of fitting and scoring).",
                    wall=math.fsum(p.wall for p in parts), cpu=math.fsum(p.cpu for p in parts),
                    unit_fold=-1)
        done = {p.unit_fold for p in parts}
        failed = self.failed.get(key)
        if failed is not None:
            if failed.unit_fold >= 0 and not set(range(failed.unit_fold)) <= done:
                return None  # a fold before the failed one may fail too
            self.closed.add(key)
            self.parts.pop(key, None)
            self.failed.pop(key)
            return failed
        if len(done) < self.n_folds[key]:
            return None
        return self.close(key)


def merge_folds(parts: Sequence[TaskResult]) -> TaskResult:
    """The whole task's result from the results of its folds (one each)."""
    parts = sorted(parts, key=lambda p: p.unit_fold)
    first = parts[0]
    n_folds = len(parts)
    if [p.unit_fold for p in parts] != list(range(n_folds)):  # one result per fold, each once
        raise RuntimeError(f"the folds of {first.key} are not each given once: "
                           f"{[p.unit_fold for p in parts]}.")
    n = first.score.shape[0]
    score = np.full(n, np.nan)
    fold_of = np.full(n, -1, dtype=np.int16)
    y = np.zeros(n, dtype=np.int8)
    times = np.zeros((4, n_folds))
    lines: list = []
    for k, part in zip(range(n_folds), parts, strict=True):  # part.unit_fold == k
        mask = part.fold == k
        score[mask], fold_of[mask], y[mask] = part.score[mask], k, part.y[mask]
        for i, name in enumerate(("fit_wall", "fit_cpu", "predict_wall", "predict_cpu")):
            times[i, k] = getattr(part, name)[k]
        lines.extend(line for line in part.warning_lines if line not in lines)
    if (fold_of < 0).any():  # pragma: no cover - folds partition the rows
        raise RuntimeError(f"the folds of {first.key} do not cover every row.")
    result = TaskResult(
        first.dataset, first.algorithm, first.repeat, "done", n_folds=first.n_folds,
        fold=fold_of, y=y, score=score, fit_wall=times[0], fit_cpu=times[1],
        predict_wall=times[2], predict_cpu=times[3],
        wall=math.fsum(p.wall for p in parts), cpu=math.fsum(p.cpu for p in parts),
    )
    result.warning_lines, result.note = lines, first.note
    result.warning = warning_text(first.note, lines)
    return result
