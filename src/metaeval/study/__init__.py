"""Run a meta-learning study: every algorithm cross-validated on every dataset.

A :class:`Study` says what to run (datasets, algorithms, folds, repeats, seed, a time
limit per task) and where (an executor and a results store); :func:`run_study` runs the
unfinished tasks and records every instance's out-of-fold score and every fold's fit and
predict times in the store (:class:`metaeval.store.Store`). Running the same study
again continues where it stopped.

Examples
--------
>>> import os, tempfile
>>> from metaeval.study import Study, LocalExecutor, run_study
>>> study = Study(datasets=["labor"], algorithms=["NB"], folds=3,
...               executor=LocalExecutor(jobs=1),
...               store=os.path.join(tempfile.mkdtemp(), "study.duckdb"))
>>> summary = run_study(study)
>>> summary.n_done, summary.exit_code
(1, 0)
>>> run_study(study).message().startswith("Nothing to do")
True
"""

from metaeval.study._config import DEFAULT_STORE, DEFAULT_TIMEOUT, SUITES, Study
from metaeval.study._driver import Interrupted, StudySummary, algorithm_versions, run_study
from metaeval.study._executors import DaskExecutor, LocalExecutor
from metaeval.study._plan import Task, derive_seed, plan_tasks
from metaeval.study._progress import RichProgress
from metaeval.study._run import TaskResult, failure_kind, run_task

__all__ = [
    "Study",
    "run_study",
    "StudySummary",
    "Interrupted",
    "failure_kind",
    "LocalExecutor",
    "DaskExecutor",
    "Task",
    "TaskResult",
    "plan_tasks",
    "run_task",
    "derive_seed",
    "algorithm_versions",
    "RichProgress",
    "DEFAULT_STORE",
    "DEFAULT_TIMEOUT",
    "SUITES",
]
