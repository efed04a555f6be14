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
import threading
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from metaeval.store import Store
from metaeval.study._config import Study
from metaeval.study._plan import plan_tasks
from metaeval.study._run import TaskResult, _load_builtin

__all__ = ["run_study", "StudySummary"]


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
    wall : float
        Seconds this run took.
    executor : str
        Where the tasks ran, in words.
    """

    store: Path
    n_tasks: int
    n_skipped: int = 0
    n_done: int = 0
    n_failed: int = 0
    failed: list = field(default_factory=list)
    wall: float = 0.0
    executor: str = ""

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
        """0 when every task of the study is done, 1 when some failed (or are unfinished)."""
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
                f"Ran {self.n_run} task{'s' if self.n_run != 1 else ''} on {self.executor} in "
                f"{self.wall:.1f} s: {self.n_done} done, {self.n_failed} failed"
                f"{f' ({self.n_skipped} finished earlier)' if self.n_skipped else ''}. "
                f"Results in {self.store}."
            )
        if self.failed:
            text += (
                f"\n{len(self.failed)} task{'s' if len(self.failed) != 1 else ''} failed "
                "(`metaeval status` lists them; `metaeval run --retry-failed` runs them again)."
            )
        return text


def run_study(study: Study, *, progress=None, retry_failed: bool = False) -> StudySummary:
    """Run every unfinished task of a study and record the results in its store.

    The store (``study.store``) is created if needed. A store that already holds this
    study, or a study this one extends (more datasets, algorithms or repeats with the
    same folds and seed), is continued: finished tasks are skipped and only pending
    ones are run. Each finished task is committed in its own transaction, so a run killed
    at any moment loses nothing already reported done.

    Parameters
    ----------
    study : Study
    progress : bool or object, optional
        True to show a rich progress bar on standard error; or an object with
        ``start(total, description)``, ``advance(result)`` and ``stop()``.
    retry_failed : bool, default=False
        Also run again the tasks recorded as failed.

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
    """
    if not isinstance(study, Study):
        raise ValueError(f"study must be a Study, got {type(study).__name__}.")
    if progress is True:
        from metaeval.study._progress import RichProgress

        progress = RichProgress()
    elif progress is False:
        progress = None

    t0 = time.perf_counter()
    tasks = plan_tasks(study)
    datasets = [_dataset_row(entry) for entry in study.datasets]
    algorithms = [_algorithm_row(a) for a in study.algorithms]
    store = Store(study.store)
    summary = StudySummary(store=store.path, n_tasks=len(tasks),
                           executor=study.executor.describe())
    with store.writing():
        _check_compatible(store, study, datasets, algorithms)
        config = _merge_config(store.study_config(), study.config())
        status = store.sync_study(config, datasets=datasets, algorithms=algorithms,
                                  tasks=[t.key for t in tasks])["status"].tolist()
        rerun = ("pending", "failed") if retry_failed else ("pending",)
        todo = [t for t, s in zip(tasks, status, strict=True) if s in rerun]
        summary.n_skipped = len(tasks) - len(todo)
        if todo:
            size = {row["name"]: row["n_instances"] for row in datasets}
            todo.sort(key=lambda t: (-size[t.dataset], t.dataset))  # big ones first
            _execute(study, store, todo, summary, progress)
        failed = store.tasks()
    keys = {t.key for t in tasks}
    summary.failed = [
        (r.dataset, r.algorithm, int(r.repeat), r.error)
        for r in failed.itertuples(index=False)
        if r.status == "failed" and (r.dataset, r.algorithm, int(r.repeat)) in keys
    ]
    summary.wall = time.perf_counter() - t0
    return summary


def _execute(study, store, todo, summary, progress) -> None:
    """Run ``todo`` on the study's executor; a writer thread commits each result."""
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

    def commit(result: TaskResult) -> None:
        _record(store, result)
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
    try:
        try:
            for result in study.executor.run(todo):
                writer.put(result)
        except BaseException:
            writer.close(check=False)  # commit what is finished, then let the error out
            raise
        writer.close(check=True)
    finally:
        if progress is not None:
            progress.stop()
        store.write_progress(None)


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

    def put(self, result: TaskResult) -> None:
        if self.error is not None:
            raise self.error
        self._queue.put(result)

    def close(self, *, check: bool) -> None:
        self._queue.put(None)
        self.join()
        if check and self.error is not None:
            raise self.error


def _record(store: Store, r: TaskResult) -> None:
    if r.status == "done":
        store.record_task(
            r.dataset, r.algorithm, r.repeat, status="done", wall=r.wall, cpu=r.cpu,
            n_folds=r.n_folds, warning=r.warning, fold=r.fold, y=r.y, score=r.score,
            timings=r.timings(),
        )
    else:
        store.record_task(
            r.dataset, r.algorithm, r.repeat, status="failed", error=r.error, wall=r.wall,
            cpu=r.cpu, n_folds=r.n_folds, warning=r.warning,
        )


def _dataset_row(entry) -> dict:
    data = _load_builtin(entry) if isinstance(entry, str) else entry
    return {
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
