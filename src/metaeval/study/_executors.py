"""Executors: where the tasks of a study run.

An executor takes a list of tasks and yields their results as they finish, in any order.
Workers only compute; the driver (the process that called
:func:`metaeval.study.run_study`) writes every result to the store. Results do not depend
on the executor: seeds come from the task itself and BLAS/OpenMP run on one thread.

* :class:`LocalExecutor` -- processes on this machine. ``jobs=1`` without a time limit
  runs the tasks in the calling process, one after the other. Otherwise a pool of
  ``jobs`` worker processes (started with ``spawn``) takes one task at a time through a
  pipe; a task that goes over its time limit has its worker killed (SIGKILL) and
  replaced, and a worker that dies (a crash, the OOM killer) fails its task with the
  exit code.
* :class:`DaskExecutor` -- a Dask distributed cluster: an existing one (``scheduler=
  "tcp://host:8786"``) or a ``LocalCluster`` of ``n_workers`` single-threaded worker
  processes started for the run. The time limit is checked by the task itself after
  every fold (Dask cannot stop a running task).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait

from metaeval.study._plan import Task
from metaeval.study._run import TaskResult, _load_builtin, one_thread, run_task

__all__ = ["LocalExecutor", "DaskExecutor"]

# How long after its time limit a local worker is killed (the task may still report a
# clean "time limit exceeded" from between two folds within that grace).
_KILL_GRACE = 1.0


def _is_positive_int(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and value >= 1


def local_problems(jobs) -> list[tuple[str | None, str]]:
    """Problems of a local executor's settings, as (setting, message) pairs."""
    if jobs is not None and not _is_positive_int(jobs):
        return [("jobs", f"jobs must be a positive integer, got {jobs!r}.")]
    return []


def dask_problems(scheduler, n_workers) -> list[tuple[str | None, str]]:
    """Problems of a Dask executor's settings, as (setting, message) pairs."""
    problems = []
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        problems.append(("scheduler", "scheduler must be an address like 'tcp://host:8786', "
                                      f"got {scheduler!r}."))
    if n_workers is not None and not _is_positive_int(n_workers):
        problems.append(("dask_workers", "the number of Dask workers must be a positive "
                                         f"integer, got {n_workers!r}."))
    if scheduler is not None and n_workers is not None:
        problems.append((None, "give either a Dask scheduler or a number of Dask workers "
                               "(to start a local cluster), not both."))
    return problems


@dataclass(frozen=True)
class LocalExecutor:
    """Run tasks in processes on this machine.

    Parameters
    ----------
    jobs : int, optional
        Number of worker processes; default ``os.cpu_count()``. With ``jobs=1`` and no
        time limit the tasks run in the calling process (no pool).

    Examples
    --------
    >>> LocalExecutor(jobs=2).n_jobs
    2
    """

    jobs: int | None = None

    def __post_init__(self):
        problems = local_problems(self.jobs)
        if problems:
            raise ValueError(" ".join(message for _, message in problems))

    @property
    def n_jobs(self) -> int:
        """The number of worker processes used."""
        return self.jobs if self.jobs is not None else (os.cpu_count() or 1)

    def describe(self) -> str:
        """A few words for the user."""
        return f"{self.n_jobs} local process{'es' if self.n_jobs > 1 else ''}"

    def run(self, tasks: Sequence[Task]) -> Iterator[TaskResult]:
        """Yield the result of every task as it finishes (any order)."""
        tasks = list(tasks)
        if not tasks:
            return
        in_process = self.n_jobs == 1 and all(t.timeout is None for t in tasks)
        if in_process:
            with one_thread():
                for task in tasks:
                    yield run_task(task)
            return
        yield from _run_pool(tasks, min(self.n_jobs, len(tasks)))


def _worker_main(conn) -> None:  # pragma: no cover - runs in the child process
    """Worker process: receive tasks, send results, until told to stop or orphaned.

    For each task it first sends ``("started", None)`` (the time limit counts from
    then, not from the process start-up), then ``("result", TaskResult)``.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    _warm_up(None)
    while True:
        try:
            task = conn.recv()
            if task is None:
                return
            _warm_up(task)
            conn.send(("started", None))
            conn.send(("result", run_task(task, pin_threads=True)))
        except (EOFError, OSError):  # the driver is gone
            return


def _warm_up(task: Task | None) -> None:  # pragma: no cover - runs in the child process
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


class _Slot:
    """One worker process and the task it is running."""

    __slots__ = ("proc", "conn", "task", "started")

    def __init__(self, ctx):
        parent, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child,), name="metaeval-worker")
        self.proc.start()
        child.close()
        self.conn = parent
        self.task: Task | None = None
        self.started: float | None = None  # when the worker began the task

    def assign(self, task: Task) -> None:
        self.task = task
        self.started = None
        self.conn.send(task)

    def deadline(self) -> float | None:
        if self.task is None or self.task.timeout is None or self.started is None:
            return None
        return self.started + self.task.timeout + _KILL_GRACE

    def elapsed(self, now: float) -> float:
        return 0.0 if self.started is None else now - self.started

    def poll(self, now: float) -> tuple[TaskResult | None, bool]:
        """Read what the worker sent; return (result or None, whether to replace it)."""
        task = self.task
        try:
            while self.conn.poll():
                kind, payload = self.conn.recv()
                if kind == "started":
                    self.started = now
                else:
                    return payload, False
        except (EOFError, OSError):
            return TaskResult.failure(task, _died(self), wall=self.elapsed(now)), True
        if not self.proc.is_alive():
            return TaskResult.failure(task, _died(self), wall=self.elapsed(now)), True
        deadline = self.deadline()
        if deadline is not None and now >= deadline:
            self.proc.kill()
            return TaskResult.failure(
                task,
                f"time limit of {task.timeout:g} s exceeded ({self.elapsed(now):.1f} s "
                "elapsed; worker process killed).",
                wall=self.elapsed(now),
            ), True
        return None, False

    def stop(self, *, kill: bool) -> None:
        if not kill:
            try:
                self.conn.send(None)
            except (OSError, EOFError):
                pass
            self.proc.join(timeout=2.0)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5.0)
        self.conn.close()


def _run_pool(tasks: list[Task], n_workers: int) -> Iterator[TaskResult]:
    ctx = multiprocessing.get_context("spawn")
    queue = deque(tasks)
    slots = [_Slot(ctx) for _ in range(n_workers)]
    try:
        for slot in slots:
            if queue:
                slot.assign(queue.popleft())
        while True:
            busy = [s for s in slots if s.task is not None]
            if not busy:
                return
            deadlines = [d for d in (s.deadline() for s in busy) if d is not None]
            timeout = None
            if deadlines:
                timeout = max(0.0, min(deadlines) - time.perf_counter())
            wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout)
            now = time.perf_counter()
            for i, slot in enumerate(slots):
                if slot.task is None:
                    continue
                result, replace = slot.poll(now)
                if result is None:
                    continue
                slot.task = None
                if replace:
                    slot.stop(kill=True)
                    slot = slots[i] = _Slot(ctx)
                if queue:
                    slot.assign(queue.popleft())
                yield result
    finally:
        for slot in slots:
            slot.stop(kill=slot.task is not None)


def _died(slot: _Slot) -> str:
    slot.proc.join(timeout=1.0)
    code = slot.proc.exitcode
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return f"worker process died ({how}) while running the task."


@dataclass(frozen=True)
class DaskExecutor:
    """Run tasks on a Dask distributed cluster.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler, e.g. ``"tcp://10.0.0.5:8786"``; metaeval must
        be importable on its workers.
    n_workers : int, optional
        Without ``scheduler``: start a ``LocalCluster`` of this many single-threaded
        worker processes for the run (default ``os.cpu_count()``).

    Examples
    --------
    >>> DaskExecutor(n_workers=2).describe()
    'a local Dask cluster of 2 workers'
    """

    scheduler: str | None = None
    n_workers: int | None = None

    def __post_init__(self):
        problems = dask_problems(self.scheduler, self.n_workers)
        if problems:
            raise ValueError(" ".join(message for _, message in problems))

    def describe(self) -> str:
        """A few words for the user."""
        if self.scheduler is not None:
            return f"the Dask scheduler at {self.scheduler}"
        n = self.n_workers or os.cpu_count() or 1
        return f"a local Dask cluster of {n} worker{'s' if n > 1 else ''}"

    def run(self, tasks: Sequence[Task]) -> Iterator[TaskResult]:
        """Yield the result of every task as it finishes (any order)."""
        tasks = list(tasks)
        if not tasks:
            return
        import logging

        from dask.distributed import Client, LocalCluster, as_completed

        cluster = None
        if self.scheduler is not None:
            try:
                client = Client(self.scheduler, timeout="10s")
            except OSError as exc:
                raise ValueError(
                    f"Cannot reach the Dask scheduler at {self.scheduler}: {exc}"
                ) from exc
        else:
            cluster = LocalCluster(
                n_workers=self.n_workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
        try:
            futures, by_key = [], {}
            for i, task in enumerate(tasks):
                future = client.submit(
                    run_task, task, pin_threads=True, pure=False, priority=len(tasks) - i,
                    key=f"metaeval-{i}-{task.dataset}-{task.algorithm.name}-{task.repeat}",
                )
                futures.append(future)
                by_key[future.key] = task
            for future in as_completed(futures):
                task = by_key[future.key]
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost worker, a pickling error
                    result = TaskResult.failure(task, f"Dask: {type(exc).__name__}: {exc}")
                future.release()
                yield result
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

