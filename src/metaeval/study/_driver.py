"""Run a study: plan its tasks, skip the finished ones, execute the rest, store each result.

Resuming is the normal path (as with Optuna's ``load_if_exists``): the store records the
study and the status of every task, each finished task is committed in its own
transaction, and running the same study again only runs what is not finished yet.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import queue
import signal
import socket
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from metaeval._signals import stop_on_signals
from metaeval.store import Store, StoreFullError
from metaeval.study._config import Study
from metaeval.study._executors import DaskExecutor
from metaeval.study._plan import plan_tasks
from metaeval.study._provenance import environment, fold_seeds, hyperparameters
from metaeval.study._run import TaskResult, _load_builtin, failure_kind
from metaeval.study._units import UNIT_MODES, Assembler, plan_units

__all__ = ["run_study", "StudySummary", "Interrupted"]


class Interrupted(KeyboardInterrupt):
    """A study stopped by a signal: SIGINT (Ctrl-C), SIGTERM (``kill``) or SIGHUP.

    A ``KeyboardInterrupt``, so ``except KeyboardInterrupt`` catches it. By the time it
    reaches the caller the tasks finished before the signal are committed, the worker
    processes are gone and the store is closed; running the study again continues it.

    Attributes
    ----------
    signum : int
        The signal.
    exit_code : int
        The conventional exit status of a process ended by that signal, 128 + signum
        (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
    """

    def __init__(self, signum: int):
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        super().__init__(f"stopped by {signal.Signals(self.signum).name}")


def _stop_on_signals():
    """Turn SIGINT, SIGTERM and SIGHUP into :class:`Interrupted` while a study runs.

    Only in the main thread, and only for signals whose handler is Python's default (a
    handler of the caller's own is left alone; ``nohup``'s ignored SIGHUP stays ignored).
    The first signal stops the run; more signals while it is stopping are ignored, so
    that a second Ctrl-C cannot cut the clean-up short. A signal that lands where an
    exception would be lost (a hook of ``os.fork`` as a worker process starts, a
    ``__del__``) is delivered again a moment later (:mod:`metaeval._signals`).
    """
    return stop_on_signals(exception=Interrupted)


@dataclass
class StudySummary:
    """What :func:`run_study` did.

    Attributes
    ----------
    store : Path
        The results file.
    n_tasks : int
        Tasks of the study (datasets x algorithms x repeats).
    n_skipped : int
        Tasks already finished (done or failed) before this run, not run again.
    n_done, n_failed : int
        Tasks of this run that finished, that failed.
    failed : list of (dataset, algorithm, repeat, error)
        Every failed task of the study in the store, this run's and earlier ones.
    n_lost_rerun : int
        Tasks run again by this call because their worker process had died in an
        earlier run (counted in ``n_done`` / ``n_failed``).
    reduced_folds : dict of str to int
        Datasets on which fewer folds than the study's were used (a class has fewer
        instances than ``folds``), with the folds actually used.
    folds : int
        The folds the study asked for.
    not_checkpointed : str or None
        Why the store's write-ahead log could not be merged into the store file at the
        end of the run (no space left); the results are safe in the log all the same.
    wall : float
        Seconds this run took.
    executor : str
        Where the tasks ran, in words.
    n_units : int
        Units of work this run ran: whole tasks, or single folds of the tasks split into
        folds (see :func:`run_study`'s ``units``).
    unit_cpu : float
        CPU seconds of those units (the work done), as measured by the workers.
    workers : int
        Workers the units ran on.
    """

    store: Path
    n_tasks: int
    n_skipped: int = 0
    n_done: int = 0
    n_failed: int = 0
    failed: list = field(default_factory=list)
    n_lost_rerun: int = 0
    reduced_folds: dict = field(default_factory=dict)
    folds: int = 0
    not_checkpointed: str | None = None
    wall: float = 0.0
    executor: str = ""
    n_units: int = 0
    unit_cpu: float = 0.0
    workers: int = 0

    @property
    def efficiency(self) -> float | None:
        """The parallel efficiency of this run: CPU seconds of work / (wall x workers)."""
        if self.n_units == 0 or self.wall <= 0 or self.workers < 1:
            return None
        return self.unit_cpu / (self.wall * self.workers)

    @property
    def n_run(self) -> int:
        """Tasks run by this call."""
        return self.n_done + self.n_failed

    @property
    def complete(self) -> bool:
        """Every task of the study is finished (done or failed)."""
        return self.n_skipped + self.n_run == self.n_tasks

    @property
    def exit_code(self) -> int:
        """0 when every task of the study is done, 1 when some failed (or are unfinished),
        4 when the disk is too full to merge the store's write-ahead log."""
        if self.not_checkpointed:
            return 4
        return 0 if self.complete and not self.failed else 1

    def message(self) -> str:
        """A short report for the user."""
        if self.n_run == 0:
            text = (
                f"Nothing to do: all {self.n_tasks} tasks of this study are already in "
                f"{self.store}."
            )
        else:
            text = (
                f"Ran {self.n_run} task{'s' if self.n_run != 1 else ''}"
                + (f" ({self.n_units} units of work)" if self.n_units > self.n_run else "")
                + f" on {self.executor} in "
                f"{self.wall:.1f} s: {self.n_done} done, {self.n_failed} failed"
                f"{f' ({self.n_skipped} finished earlier)' if self.n_skipped else ''}. "
                f"Results in {self.store}."
            )
        if self.n_lost_rerun:
            text += (f"\n{self.n_lost_rerun} of them had failed earlier because their worker "
                     "process died, and were run again.")
        if self.reduced_folds:
            shown = ", ".join(f"{name} {k}" for name, k in self.reduced_folds.items())
            text += (f"\nNote: fewer folds than the {self.folds} asked, because a class has "
                     f"fewer instances than that: {shown}.")
        if self.failed:
            lost = sum(failure_kind(error) == "lost" for *_, error in self.failed)
            sticky = len(self.failed) - lost
            text += (
                f"\n{len(self.failed)} task{'s' if len(self.failed) != 1 else ''} failed "
                "(`metaeval status` lists them with their errors)."
            )
            if lost:
                text += (f" {lost} will run again on the next run: their worker process "
                         "died.")
            if sticky:
                text += (f" {sticky} stay{'s' if sticky == 1 else ''} failed until the study "
                         "is run with `--retry-failed` (`retry_failed=True`): the estimator "
                         "raised an error or ran out of time.")
        if self.efficiency is not None:  # the last line, but for a warning
            workers = f"{self.workers} worker{'s' if self.workers != 1 else ''}"
            text += (f"\nParallel efficiency {self.efficiency:.0%}: {self.unit_cpu:.1f} CPU-s "
                     f"of work / ({self.wall:.1f} s x {workers}).")
        if self.not_checkpointed:  # what the user must act on comes last
            text += f"\nWarning: {self.not_checkpointed}"
        return text


def run_study(study: Study, *, progress=None, retry_failed: bool = False,
              units: str = "auto") -> StudySummary:
    """Run every unfinished task of a study and record the results in its store.

    The store (``study.store``) is created if needed. A store that already holds this
    study, or a study this one extends (more datasets, algorithms or repeats with the
    same folds and seed), is continued: finished tasks are skipped and only pending
    ones are run, with the failed tasks whose worker process died (a crash, a kill, the
    OOM killer). Tasks whose estimator raised an error or ran out of time stay failed
    unless ``retry_failed=True``. Each finished task is committed in its own
    transaction, so a run killed at any moment loses nothing already reported done.

    Works from a plain script (with or without an ``if __name__ == "__main__":``
    guard), a notebook or an interactive session: worker processes are fresh
    interpreters that never import the caller's ``__main__`` module. Algorithms or
    datasets of classes defined in ``__main__`` cannot be sent to them, so their tasks
    run in the calling process (with a warning).

    SIGINT (Ctrl-C), SIGTERM and SIGHUP stop the run cleanly when it is called from
    the main thread: the finished tasks are committed, the worker processes are
    stopped, and :class:`Interrupted` (a ``KeyboardInterrupt``) is raised.

    Parameters
    ----------
    study : Study
    progress : bool or object, optional
        True to show a rich progress bar on standard error; or an object with
        ``start(total, description)``, ``advance(result)`` and ``stop()``.
    retry_failed : bool, default=False
        Also run again the tasks whose estimator raised an error or ran out of time.
    units : {'auto', 'fold', 'task'}, default='auto'
        The unit of work given to a worker: ``'task'`` a whole task (every fold),
        ``'fold'`` one fold of a task, ``'auto'`` one fold of the tasks whose estimated
        cost is large against the work of one worker and whole tasks otherwise. The
        units run longest first. The scores do not depend on it: a fold run alone has
        the same folds and the same model seed as in the whole task. A task split into
        folds is stored when its last fold finishes; a run stopped before that keeps the
        finished folds, and the next run runs the others only. With a time limit, a split
        task fails when the time its folds took to fit and score adds up to more than the
        limit.

    Returns
    -------
    summary : StudySummary

    Raises
    ------
    ValueError
        When the store holds a study with other folds or another seed, or a dataset or
        algorithm of the same name but different content.
    metaeval.store.StoreLockedError
        When another process is using the store.
    metaeval.store.StoreDamagedError
        When the store file is damaged.
    metaeval.store.StoreFullError
        When the disk holding the store is full.
    Interrupted
        When a signal stopped the run.
    """
    if not isinstance(study, Study):
        raise ValueError(f"study must be a Study, got {type(study).__name__}.")
    if progress is True:
        from metaeval.study._progress import RichProgress

        progress = RichProgress()
    elif progress is False:
        progress = None

    if units not in UNIT_MODES:
        raise ValueError(f"units must be one of {', '.join(map(repr, UNIT_MODES))}, got "
                         f"{units!r}.")
    with _stop_on_signals():
        return _run_study(study, progress, retry_failed, units)


def _run_study(study: Study, progress, retry_failed: bool, units: str) -> StudySummary:
    t0 = time.perf_counter()
    tasks = plan_tasks(study)
    datasets = [_dataset_row(entry) for entry in study.datasets]
    algorithms = [_algorithm_row(a) for a in study.algorithms]
    store = Store(study.store)
    summary = StudySummary(store=store.path, n_tasks=len(tasks), folds=study.folds,
                           executor=study.executor.describe())
    # the executor first: nothing is created (no store, no tasks) while it is unreachable
    with _session(study.executor, store.path) as run_tasks, store.writing():
        _check_compatible(store, study, datasets, algorithms)
        config = _merge_config(store.study_config(), study.config())
        for row, algorithm in zip(algorithms, study.algorithms, strict=True):
            row["hyperparameters"] = hyperparameters(algorithm)
        status = store.sync_study(config, datasets=datasets, algorithms=algorithms,
                                  tasks=[t.key for t in tasks],
                                  fold_seeds=fold_seeds(study))["status"].tolist()
        lost = set()
        if "failed" in status and not retry_failed:
            # a task whose worker process died never finished: it runs again by default
            recorded = store.tasks()
            lost = {(r.dataset, r.algorithm, int(r.repeat))
                    for r in recorded.itertuples(index=False)
                    if r.status == "failed" and failure_kind(r.error) == "lost"}
        todo = [t for t, s in zip(tasks, status, strict=True)
                if s == "pending" or (s == "failed" and (retry_failed or t.key in lost))]
        summary.n_skipped = len(tasks) - len(todo)
        summary.n_lost_rerun = sum(t.key in lost for t in todo)
        if todo:
            sizes = {row["name"]: (row["n_instances"], row["n_features"],
                                   _n_folds(study.folds, row["smallest_class"]))
                     for row in datasets}
            run_id = store.start_run(environment(summary.executor))
            _execute(run_tasks, store, todo, summary, progress,
                     _Schedule(study, store, todo, sizes, units, run_id, run_tasks))
            store.finish_run(run_id)
        recorded = store.tasks()
        if todo:
            try:
                store.checkpoint()
            except StoreFullError:
                summary.not_checkpointed = (
                    f"the disk is full: the results are safe in {store.path}.wal but could "
                    f"not be merged into {store.path}; free some space, then any metaeval "
                    "command that writes the store merges them (e.g. run the study again)."
                )
    keys = {t.key for t in tasks}
    mine = [r for r in recorded.itertuples(index=False)
            if (r.dataset, r.algorithm, int(r.repeat)) in keys]
    summary.failed = [(r.dataset, r.algorithm, int(r.repeat), r.error)
                      for r in mine if r.status == "failed"]
    for r in mine:
        if r.status == "done" and r.n_folds is not None and 0 < r.n_folds < study.folds:
            summary.reduced_folds.setdefault(r.dataset, int(r.n_folds))
    summary.wall = time.perf_counter() - t0
    return summary


@contextmanager
def _session(executor, store_path: Path):
    """The executor's session (a Dask cluster reached first, its log beside the store), or
    its ``run`` for an executor without one."""
    session = getattr(executor, "session", None)
    if session is None:
        yield executor.run
        return
    log_file = None
    if isinstance(executor, DaskExecutor):
        log_file = store_path.with_name(store_path.name + ".dask.log")
    with session(log_file=log_file) as run_tasks:
        yield run_tasks


class _Schedule:
    """The units of work of a run, longest first, and what puts split tasks together."""

    def __init__(self, study: Study, store: Store, todo, sizes: dict, mode: str, run_id: int,
                 run_tasks=None):
        self.run_id = run_id
        keys = {t.key for t in todo}
        held = {}
        for key, folds in store.held_folds().items():
            if key not in keys:
                continue
            n, _, n_folds = sizes[key[0]]
            parts = [_held_part(key, fold, n) for fold in folds if fold["n_folds"] == n_folds]
            if parts:
                held[key] = parts
        self.n_held = sum(map(len, held.values()))
        seen = getattr(run_tasks, "workers", None)
        self.workers = (seen() if callable(seen) else 0) or _workers(study.executor)
        self.units = plan_units(todo, sizes, workers=self.workers, mode=mode,
                                held={k: {p.unit_fold for p in v} for k, v in held.items()})
        split = {u.task.key for u in self.units if u.fold is not None} | set(held)
        self.assembler = Assembler(
            {key: sizes[key[0]][2] for key in split}, held=held,
            timeouts={t.key: t.timeout for t in todo if t.key in split})
        self.estimate = {u.key: u.cost for u in self.units}
        # tasks whose every fold was held (stopped between the last fold and the task)
        self.ready = [self.assembler.close(key) for key, parts in held.items()
                      if len(parts) >= sizes[key[0]][2]]

    def skip(self, unit) -> bool:
        """Whether a unit need not run any more (a fold of its task before it failed)."""
        return unit.fold is not None and self.assembler.needless(unit.task.key, unit.fold)

    def unit_row(self, result: TaskResult) -> dict:
        return {"run": self.run_id, "fold": result.unit_fold, "status": result.status,
                "worker": result.worker or None, "started": result.started or None,
                "finished": result.finished or None, "wall": result.wall, "cpu": result.cpu,
                "estimate": self.estimate.get((*result.key, result.unit_fold))}


def _held_part(key, fold: dict, n: int) -> TaskResult:
    """A held fold (as the store gives it back) as the result of its unit."""
    k, n_folds = fold["fold"], fold["n_folds"]
    score, fold_of, y = np.full(n, np.nan), np.full(n, -1, dtype=np.int16), np.zeros(n, np.int8)
    score[fold["rows"]], fold_of[fold["rows"]], y[fold["rows"]] = fold["score"], k, fold["y"]
    times = {}
    for name in ("fit_wall", "fit_cpu", "predict_wall", "predict_cpu"):
        times[name] = np.zeros(n_folds)
        times[name][k] = fold[name]
    part = TaskResult(*key, "done", n_folds=n_folds, fold=fold_of, y=y, score=score,
                      wall=fold["wall"] or 0.0, cpu=fold["cpu"] or 0.0, unit_fold=k, **times)
    part.warning_lines, part.note = list(fold["warning_lines"]), fold["note"]
    return part


def _this_process() -> str:
    """How a result names the process that ran it, for this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _workers(executor) -> int:
    """The workers an executor runs units on (a remote Dask cluster: as many as it has
    now, at least one)."""
    if isinstance(executor, DaskExecutor):
        if executor.scheduler is None:
            return executor.n_workers or os.cpu_count() or 1
        return 1  # until the run has seen them (the summary then says how many)
    return int(getattr(executor, "n_jobs", 1) or 1)


def _n_folds(folds: int, smallest_class: int) -> int:
    """The folds a dataset's tasks use (0: it cannot be cross-validated)."""
    return min(folds, smallest_class) if smallest_class >= 2 else 0


def _execute(run_tasks, store, todo, summary, progress, schedule: _Schedule) -> None:
    """Run the units of ``schedule`` on the study's executor; a writer thread commits each
    result (a task whole, or a fold held until its task is complete)."""
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")

    def report(last: TaskResult | None) -> None:
        finished = summary.n_done + summary.n_failed
        store.write_progress({
            "pid": os.getpid(), "started": started,
            "updated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "total": summary.n_tasks, "to_run": len(todo), "skipped": summary.n_skipped,
            "done": summary.n_done, "failed": summary.n_failed,
            "remaining": len(todo) - finished, "executor": summary.executor,
            "last": None if last is None else list(last.key),
        })

    def commit(item) -> None:
        kind, result, unit = item
        if kind == "fold":
            rows = np.flatnonzero(result.fold == result.unit_fold)
            k = result.unit_fold
            store.record_fold(
                result.dataset, result.algorithm, result.repeat, k, n_folds=result.n_folds,
                rows=rows, y=result.y[rows], score=result.score[rows],
                times={name: float(getattr(result, name)[k]) for name in
                       ("fit_wall", "fit_cpu", "predict_wall", "predict_cpu")},
                wall=result.wall, cpu=result.cpu, warning_lines=result.warning_lines,
                note=result.note, unit=unit)
            return
        if kind == "unit":
            store.record_unit(result.dataset, result.algorithm, result.repeat, unit)
            return
        _record(store, result, unit)
        if result.status == "done":
            summary.n_done += 1
        else:
            summary.n_failed += 1
        report(result)
        if progress is not None:
            progress.advance(result)

    report(None)
    if progress is not None:
        progress.start(len(todo), f"{len(todo)} tasks")
    writer = _Writer(commit)
    summary.workers = min(schedule.workers, max(len(schedule.units), 1))
    assembler = schedule.assembler
    for task_result in schedule.ready:
        writer.put(("task", task_result, None))
    results = run_tasks(schedule.units, skip=schedule.skip)
    ran_on = set()  # the worker processes that ran units (one: run in this process)
    try:
        try:
            for result in results:
                summary.n_units += 1
                summary.unit_cpu += result.cpu
                if result.worker:
                    ran_on.add(result.worker)
                unit = schedule.unit_row(result)
                if result.unit_fold is None:
                    writer.put(("task", result, unit))
                    continue
                whole = assembler.add(result)
                if whole is not None:
                    writer.put(("task", whole, unit))
                elif result.status == "done" and not assembler.needless(result.key, None):
                    writer.put(("fold", result, unit))
                else:  # a failed fold waiting for those before it, or a needless one
                    writer.put(("unit", result, unit))
        except BaseException:
            # Stop the workers first (nothing may outlive the run), then commit what
            # is finished, then let the error out.
            results.close()
            writer.close(check=False)
            raise
        writer.close(check=True)
    finally:
        results.close()
        if progress is not None:
            progress.stop()
        store.write_progress(None)
    seen = getattr(run_tasks, "workers", None)
    if callable(seen) and seen():  # a Dask cluster: the most workers it had at once
        summary.workers = seen()
    elif len(ran_on) == 1 and summary.workers > 1:  # every unit ran in one process
        summary.workers = 1
        if ran_on == {_this_process()}:  # the local executor's fallback, warned about
            summary.executor = "1 process (this one, one unit at a time)"


class _Writer(threading.Thread):
    """Commit results in the background, so that the store's transactions (and their
    fsync) overlap the computation of the next task instead of adding to it.

    Only this thread touches the store while tasks run; a task counts as finished once
    its transaction is committed (a run killed before that redoes it).
    """

    def __init__(self, commit):
        super().__init__(name="metaeval-store-writer", daemon=True)
        self._commit = commit
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        while True:
            result = self._queue.get()
            if result is None:
                return
            if self.error is None:
                try:
                    self._commit(result)
                except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                    self.error = exc

    def put(self, result) -> None:
        if self.error is not None:
            raise self.error
        self._queue.put(result)

    def close(self, *, check: bool) -> None:
        self._queue.put(None)
        self.join()
        if check and self.error is not None:
            raise self.error


def _record(store: Store, r: TaskResult, unit: dict | None = None) -> None:
    if r.status == "done":
        store.record_task(
            r.dataset, r.algorithm, r.repeat, status="done", wall=r.wall, cpu=r.cpu,
            n_folds=r.n_folds, warning=r.warning, fold=r.fold, y=r.y, score=r.score,
            timings=r.timings(), unit=unit,
        )
    else:
        store.record_task(
            r.dataset, r.algorithm, r.repeat, status="failed", error=r.error, wall=r.wall,
            cpu=r.cpu, n_folds=r.n_folds, warning=r.warning, unit=unit,
        )


def _dataset_row(entry) -> dict:
    data = _load_builtin(entry) if isinstance(entry, str) else entry
    return {
        "smallest_class": int(np.bincount(data.y, minlength=2).min()),
        "name": data.name,
        "sha256": data.sha256,
        "n_instances": int(data.n_instances),
        "n_features": int(data.n_features),
        "positive_fraction": float(data.positive_fraction),
        "family": data.family,
        "source": data.source,
    }


def algorithm_versions(estimator: str) -> dict:
    """Versions of Python and of the libraries an estimator's results depend on."""
    versions = {"python": platform.python_version()}
    packages = ["numpy", "scipy", "scikit-learn"]
    top = estimator.split(".")[0]
    packages.append({"sklearn": "scikit-learn"}.get(top, top))
    for package in packages:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "unknown"
    return versions


def _algorithm_row(algorithm) -> dict:
    return {
        "name": algorithm.name,
        "estimator": algorithm.estimator,
        "params": json.dumps(dict(algorithm.params), sort_keys=True, default=repr),
        "score_method": algorithm.score_method,
        "versions": json.dumps(
            algorithm.versions() if hasattr(algorithm, "versions")
            else algorithm_versions(algorithm.estimator),
            sort_keys=True,
        ),
    }


def _check_compatible(store: Store, study: Study, datasets, algorithms) -> None:
    problems = []
    config = store.study_config()
    if config is not None:
        for key in ("folds", "seed"):
            if config.get(key) != getattr(study, key):
                problems.append(
                    f"{key}: the store's study has {config.get(key)!r}, this one "
                    f"{getattr(study, key)!r}"
                )
    stored = store.datasets().set_index("name")
    for row in datasets:
        if row["name"] in stored.index and stored.at[row["name"], "sha256"] != row["sha256"]:
            problems.append(
                f"dataset {row['name']!r}: the store's data has sha256 "
                f"{stored.at[row['name'], 'sha256'][:12]}..., this one {row['sha256'][:12]}..."
            )
    stored = store.algorithms().set_index("name")
    for row in algorithms:
        if row["name"] not in stored.index:
            continue
        old = stored.loc[row["name"]]
        before = (config or {}).get("algorithm_specs", {}).get(row["name"])
        now = study.config()["algorithm_specs"][row["name"]]
        for key in ("estimator", "params", "score_method", "scale"):
            if before is not None and json.dumps(before.get(key)) != json.dumps(now.get(key)):
                problems.append(
                    f"algorithm {row['name']!r}: {key} is {before.get(key)!r} in the store, "
                    f"{now.get(key)!r} in this study"
                )
        if old["versions"] != row["versions"]:
            before, now = json.loads(old["versions"]), json.loads(row["versions"])
            changed = [f"{k} {before.get(k)} -> {now.get(k)}" for k in now
                       if before.get(k) != now.get(k)]
            warnings.warn(
                f"algorithm {row['name']!r} was registered in {store.path} with other "
                f"library versions ({', '.join(changed)}); new tasks may not be bit-identical "
                "to the old ones.",
                RuntimeWarning, stacklevel=3,
            )
    if problems:
        raise ValueError(
            f"The store {store.path} holds a different study, which this one cannot "
            "continue:\n" + "\n".join(f"  - {p}" for p in problems)
            + "\nUse another --store (or remove that file) to start afresh."
        )


def _merge_config(old: dict | None, new: dict) -> dict:
    if old is None:
        return new
    merged = dict(old)
    merged["repeats"] = max(old.get("repeats", 1), new["repeats"])
    for key in ("datasets", "algorithms"):
        merged[key] = list(old.get(key, [])) + [x for x in new[key] if x not in old.get(key, [])]
    merged["algorithm_specs"] = {**new["algorithm_specs"], **old.get("algorithm_specs", {})}
    return merged
