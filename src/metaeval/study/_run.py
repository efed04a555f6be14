"""Run one task: stratified k-fold cross-validation of one algorithm on one dataset.

This is the code every executor runs in its workers. It never raises: whatever goes
wrong (an exception in fit or score, scores outside [0, 1], the time limit) becomes a
failed :class:`TaskResult` carrying the message, so that the study goes on.
"""

from __future__ import annotations

import functools
import os
import signal
import socket
import threading
import time
import traceback
import warnings
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from metaeval.study._plan import Task

__all__ = ["TaskResult", "run_task", "TaskTimeout", "failure_kind", "LOST_PREFIX"]

_MAX_TEXT = 2000

#: How the error of a task whose worker process died (a crash, a kill, the OOM killer, a
#: lost Dask worker) begins. Such tasks are run again by default on the next run.
LOST_PREFIX = "worker process died"
_TIMEOUT_PREFIX = "time limit of "


def failure_kind(error: str | None) -> str:
    """Why a task failed, from its recorded error: 'lost', 'timeout' or 'error'.

    'lost': its worker process died (the task never finished; run again by default).
    'timeout': it went over its time limit. 'error': the estimator (or its data) raised.
    The last two stay failed until a run with ``retry_failed=True`` (``--retry-failed``).
    An estimator's error always begins with an exception's name, so it cannot be
    mistaken for the other two.

    Examples
    --------
    >>> failure_kind("worker process died (killed by signal 9) while running the task.")
    'lost'
    >>> failure_kind("ValueError in fit (fold 0 of 3): bad C")
    'error'
    """
    text = (error or "").lstrip()
    if text.startswith(LOST_PREFIX):
        return "lost"
    if text.startswith(_TIMEOUT_PREFIX):
        return "timeout"
    return "error"


class TaskTimeout(BaseException):
    """A task went over its time limit.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that an ``except Exception``
    inside the estimator's own code cannot swallow it.
    """


@dataclass
class TaskResult:
    """What a worker sends back for one task.

    Attributes
    ----------
    dataset, algorithm : str
    repeat : int
    status : {'done', 'failed'}
    error : str or None
        Why the task failed.
    wall, cpu : float
        Seconds the whole task took (loading the data included): wall clock
        (``time.perf_counter``) and CPU time of the thread that ran it
        (``time.thread_time``; BLAS and OpenMP are held to that one thread).
    n_folds : int or None
        Folds actually used (fewer than asked when a class is smaller than that).
    warning : str or None
        Warnings raised while fitting and scoring (deduplicated), and fold reductions.
    fold : ndarray of shape (n_instances,), dtype int16
        The fold in which each instance was scored (in the test part).
    y : ndarray of shape (n_instances,), dtype int8
    score : ndarray of shape (n_instances,), dtype float64
        Out-of-fold score of each instance, an estimate of P(y = 1).
    fit_wall, fit_cpu, predict_wall, predict_cpu : ndarray of shape (n_folds,)
        Seconds per fold.
    """

    dataset: str
    algorithm: str
    repeat: int
    status: str
    error: str | None = None
    wall: float = 0.0
    cpu: float = 0.0
    n_folds: int | None = None
    warning: str | None = None
    fold: np.ndarray | None = None
    y: np.ndarray | None = None
    score: np.ndarray | None = None
    fit_wall: np.ndarray | None = field(default=None, repr=False)
    fit_cpu: np.ndarray | None = field(default=None, repr=False)
    predict_wall: np.ndarray | None = field(default=None, repr=False)
    predict_cpu: np.ndarray | None = field(default=None, repr=False)
    #: For a unit of one fold (see :class:`metaeval.study.Unit`): that fold; None for a
    #: whole task. ``fold``, ``score`` and ``y`` then hold that fold's test rows only
    #: (-1, NaN, 0 elsewhere) and the per-fold times are 0 except at that fold.
    unit_fold: int | None = None
    #: Every distinct warning line (not clipped), in the order raised, and the note on
    #: folds fewer than asked (what ``warning`` is made of).
    warning_lines: list = field(default_factory=list, repr=False)
    note: str | None = field(default=None, repr=False)
    #: Where and when the unit ran: ``host:pid`` and Unix times of its start and end.
    worker: str = ""
    started: float = 0.0
    finished: float = 0.0

    @property
    def key(self) -> tuple[str, str, int]:
        """``(dataset, algorithm, repeat)``."""
        return (self.dataset, self.algorithm, self.repeat)

    @classmethod
    def failure(cls, task: Task, error: str, *, wall: float = 0.0, cpu: float = 0.0):
        """A failed result for ``task`` with message ``error``."""
        return cls(task.dataset, task.algorithm.name, task.repeat, "failed",
                   error=_clip(error), wall=wall, cpu=cpu)

    def timings(self) -> dict[str, np.ndarray]:
        """Per-fold times as a dict of arrays (the store's ``timings`` argument)."""
        return {
            "fit_wall": self.fit_wall,
            "fit_cpu": self.fit_cpu,
            "predict_wall": self.predict_wall,
            "predict_cpu": self.predict_cpu,
        }


def _clip(text: str | None) -> str | None:
    if text is None or len(text) <= _MAX_TEXT:
        return text
    return text[: _MAX_TEXT - 3] + "..."


@functools.lru_cache(maxsize=64)
def _load_builtin(name: str):
    # A worker keeps the datasets it has loaded: units of work come longest first, so
    # several datasets alternate (one load per worker and dataset, not one per unit).
    from metaeval.datasets import load_dataset

    return load_dataset(name)


_PINNED = False  # BLAS/OpenMP already held to one thread in this process


def _pin_threads_in_this_process():
    """Hold BLAS/OpenMP to one thread for good (worker processes only)."""
    global _PINNED
    if not _PINNED:
        threadpool_limits(limits=1)
        _PINNED = True


@contextmanager
def one_thread():
    """Hold BLAS/OpenMP to one thread within a block (tasks run in this process).

    Saves :func:`run_task` from setting and restoring the limits for every task.
    """
    global _PINNED
    if _PINNED:
        yield
        return
    with threadpool_limits(limits=1):
        _PINNED = True
        try:
            yield
        finally:
            _PINNED = False


def run_task(task: Task, *, pin_threads: bool = False, fold: int | None = None) -> TaskResult:
    """Cross-validate ``task.algorithm`` on ``task.dataset``; never raises.

    Folds come from ``StratifiedKFold(k, shuffle=True, random_state=task.fold_seed)``
    where k is ``task.folds``, or the size of the smaller class when that is smaller
    (recorded in the result's ``warning``; a class with fewer than 2 instances fails the
    task). On each fold a fresh model, ``algorithm.build(..., random_state=
    task.model_seed(fold))``, is fitted on the training part and scores the test part.
    BLAS and OpenMP run on one thread while it does (bit-identical results whatever the
    executor, and no oversubscription when several workers share a machine).

    The time limit (``task.timeout``) counts the cross-validation (not loading the data).
    It is checked after every fold; in the main thread of a POSIX process it also
    interrupts a running fold (SIGALRM), and the local executor's process pool kills a
    worker process whose task runs past it.

    Parameters
    ----------
    task : Task
    pin_threads : bool, default=False
        Limit BLAS/OpenMP to one thread for the rest of the process's life (for worker
        processes) instead of for the duration of the call only.
    fold : int, optional
        Run only this fold (a unit of work of one fold): the folds, the model's seed and
        the scores are those of the same fold in the whole task, bit for bit.

    Returns
    -------
    result : TaskResult

    Examples
    --------
    >>> from metaeval.algorithms import get_algorithm
    >>> result = run_task(Task("labor", get_algorithm("NB"), repeat=0, folds=3, seed=0))
    >>> result.status, result.n_folds, result.score.shape, sorted(set(result.fold.tolist()))
    ('done', 3, (57,), [0, 1, 2])
    """
    wall0, cpu0, started = time.perf_counter(), time.thread_time(), time.time()
    stage = "loading the dataset"
    if pin_threads:
        _pin_threads_in_this_process()
    limits = nullcontext() if _PINNED else threadpool_limits(limits=1)
    try:
        with limits, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = task.data if task.data is not None else _load_builtin(task.dataset)
            stage = "splitting"
            n_folds, splits, note = _folds(task, data.y)
            # the time limit counts the cross-validation, not loading the data
            if fold is not None and not 0 <= fold < n_folds:
                raise _FoldError(f"fold {fold} does not exist: the task has {n_folds} folds.")
            with _alarm(task.timeout):
                result = _cross_validate(task, data, n_folds, splits, time.perf_counter(),
                                         only=fold)
            stage = "done"
        result.unit_fold = fold
        result.warning_lines, result.note = _distinct_lines(caught), note
        result.warning = warning_text(note, result.warning_lines)
        result.wall = time.perf_counter() - wall0
        result.cpu = time.thread_time() - cpu0
        _stamp(result, started)
        return result
    except TaskTimeout as exc:
        message = str(exc)
    except _FoldError as exc:
        message = str(exc)
    except Exception as exc:  # noqa: BLE001 - any failure of the user's model is recorded
        message = f"{type(exc).__name__} while {stage}: {exc}\n" + "".join(
            traceback.format_exception(exc)[-3:]
        )
    result = TaskResult.failure(
        task, message, wall=time.perf_counter() - wall0, cpu=time.thread_time() - cpu0
    )
    result.unit_fold = fold
    _stamp(result, started)
    return result


def _stamp(result: TaskResult, started: float) -> None:
    result.worker = f"{socket.gethostname()}:{os.getpid()}"
    result.started, result.finished = started, time.time()


def warning_text(note: str | None, lines: list) -> str | None:
    """A task's recorded warning: the fold reduction, then at most 5 distinct lines."""
    if len(lines) > 5:
        lines = list(lines[:5]) + [f"... and {len(lines) - 5} more"]
    notes = ([note] if note else []) + list(lines)
    return _clip("; ".join(notes)) if notes else None


class _FoldError(Exception):
    pass


@contextmanager
def _alarm(timeout: float | None):
    """Interrupt the block with :class:`TaskTimeout` after ``timeout`` seconds.

    Uses SIGALRM, so only where it can: on POSIX, in the main thread, when nobody else
    handles SIGALRM. It interrupts Python code and sleeps at once, and C code (a long
    fit inside a compiled library) when that returns. Elsewhere (a Dask worker's thread)
    the limit is checked between folds.
    """
    usable = (
        timeout is not None and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    )
    if not usable:
        yield
        return
    clock0 = time.perf_counter()

    def expire(signum, frame):
        signal.setitimer(signal.ITIMER_REAL, 0)
        raise TaskTimeout(
            f"time limit of {timeout:g} s exceeded ({time.perf_counter() - clock0:.1f} s "
            "elapsed; the task was interrupted)."
        )

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _folds(task: Task, y: np.ndarray):
    from sklearn.model_selection import StratifiedKFold

    counts = np.bincount(y, minlength=2)
    smallest = int(counts.min())
    if smallest < 2:
        raise _FoldError(
            f"class {int(counts.argmin())} of dataset {task.dataset!r} has {smallest} "
            "instance(s); stratified cross-validation needs at least 2 per class."
        )
    n_folds = min(task.folds, smallest)
    note = None
    if n_folds < task.folds:
        note = (
            f"class {int(counts.argmin())} has only {smallest} instances: "
            f"{n_folds} folds used instead of {task.folds}"
        )
    cv = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=task.fold_seed)
    return n_folds, list(cv.split(np.zeros((y.shape[0], 1)), y)), note


def _cross_validate(task: Task, data, n_folds: int, splits, clock0: float,
                    only: int | None = None) -> TaskResult:
    algorithm = task.algorithm
    X, y = data.X, data.y
    n = y.shape[0]
    categorical = list(data.categorical)
    cats = set(categorical)
    numeric = [c for c in X.columns if c not in cats]
    score = np.full(n, np.nan)
    fold_of = np.full(n, -1, dtype=np.int16)
    times = np.zeros((4, n_folds))
    for k, (train, test) in enumerate(splits):
        if only is not None and k != only:
            continue
        model = algorithm.build(categorical, numeric, random_state=task.model_seed(k))
        w0, c0 = time.perf_counter(), time.thread_time()
        try:
            model.fit(X.iloc[train], y[train])
        except Exception as exc:
            raise _FoldError(_describe(exc, "fit", k, n_folds)) from exc
        w1, c1 = time.perf_counter(), time.thread_time()
        try:
            s = algorithm.score(model, X.iloc[test])
        except Exception as exc:
            raise _FoldError(_describe(exc, "score", k, n_folds)) from exc
        w2, c2 = time.perf_counter(), time.thread_time()
        times[:, k] = (w1 - w0, c1 - c0, w2 - w1, c2 - c1)
        s = np.asarray(s, dtype=np.float64)
        if s.shape != (test.shape[0],):
            raise _FoldError(
                f"{algorithm.name}.score returned shape {s.shape} for {test.shape[0]} "
                f"instances (fold {k} of {n_folds})."
            )
        if not np.all(np.isfinite(s)) or s.min() < 0.0 or s.max() > 1.0:
            raise _FoldError(
                f"{algorithm.name}.score returned values outside [0, 1] or not finite "
                f"(fold {k} of {n_folds}); scores must estimate P(y = 1)."
            )
        score[test] = s
        fold_of[test] = k
        if task.timeout is not None and time.perf_counter() - clock0 > task.timeout:
            raise TaskTimeout(
                f"time limit of {task.timeout:g} s exceeded after fold {k + 1} of {n_folds} "
                f"({time.perf_counter() - clock0:.1f} s elapsed)."
            )
    y_out = y.astype(np.int8, copy=True)
    if only is not None:
        y_out[fold_of != only] = 0
    return TaskResult(
        task.dataset, algorithm.name, task.repeat, "done", n_folds=n_folds,
        fold=fold_of, y=y_out, score=score,
        fit_wall=times[0], fit_cpu=times[1], predict_wall=times[2], predict_cpu=times[3],
    )


def _describe(exc: Exception, stage: str, k: int, n_folds: int) -> str:
    tail = "".join(traceback.format_exception(exc)[-3:])
    return f"{type(exc).__name__} in {stage} (fold {k} of {n_folds}): {exc}\n{tail}"


def _distinct_lines(caught) -> list[str]:
    seen = []
    for w in caught:
        line = f"{w.category.__name__}: {str(w.message).splitlines()[0] if str(w.message) else ''}"
        if line not in seen:
            seen.append(line)
    return seen


def warm_up(task: Task | None) -> None:  # pragma: no cover - runs in the child process
    """Import what tasks need (and load the task's data) before the clock starts.

    Module imports are a one-off cost of a fresh worker process and data loading is not
    the algorithm's time, so neither counts against a task's time limit.
    """
    import importlib

    try:
        if task is None:
            for module in ("sklearn.model_selection", "sklearn.pipeline", "sklearn.compose",
                           "sklearn.impute", "sklearn.preprocessing", "metaeval.algorithms",
                           "metaeval.datasets"):
                importlib.import_module(module)
            return
        estimator = str(task.algorithm.estimator).replace(":", ".")
        importlib.import_module(estimator.rpartition(".")[0])
        if task.data is None:
            _load_builtin(task.dataset)
    except Exception:  # noqa: BLE001 - run_task reports the problem properly
        pass
