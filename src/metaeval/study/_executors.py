"""Executors: where the tasks of a study run.

An executor takes a list of tasks and yields their results as they finish, in any order.
Workers only compute; the driver (the process that called
:func:`metaeval.study.run_study`) writes every result to the store. Results do not depend
on the executor: seeds come from the task itself and BLAS/OpenMP run on one thread.

* :class:`LocalExecutor` -- processes on this machine. ``jobs=1`` runs the tasks in the
  calling process, one after the other (the time limit interrupts a task by SIGALRM
  where it can). Otherwise a pool of ``jobs`` worker processes (fresh interpreters, see
  :mod:`metaeval.study._worker`: they never import the caller's ``__main__`` and die
  with their parent) takes one task at a time; a task that goes over its time limit has
  its worker killed (SIGKILL) and replaced, and a worker that dies (a crash, the OOM
  killer) fails its task with the exit code (such tasks run again on the next run).
  Tasks whose algorithm or dataset is defined in ``__main__`` run in the calling process.
* :class:`DaskExecutor` -- a Dask distributed cluster: an existing one (``scheduler=
  "tcp://host:8786"``) or a ``LocalCluster`` of ``n_workers`` single-threaded worker
  processes started for the run (and closed at its end, Ctrl-C included). The time
  limit is checked by the task itself between folds: Dask cannot stop a running task, so
  a fold that never returns holds its worker.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import sys
import threading
import time
import types
import warnings
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from metaeval.study._dask_watch import WorkerWatch
from metaeval.study._plan import Task
from metaeval.study._run import LOST_PREFIX, TaskResult, one_thread, run_task
from metaeval.study._units import Unit
from metaeval.study._worker import WorkerProcess

__all__ = ["LocalExecutor", "DaskExecutor"]

# How long after its time limit a local worker is killed (the task may still report a
# clean "time limit exceeded" from between two folds within that grace).
_KILL_GRACE = 2.0


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
        if self.jobs is not None:
            return self.jobs
        from metaeval._validation import usable_cores

        return usable_cores()  # every core this process may run on

    def describe(self) -> str:
        """A few words for the user."""
        return f"{self.n_jobs} local process{'es' if self.n_jobs > 1 else ''}"

    @contextmanager
    def session(self, log_file=None):
        """Yield :meth:`run` (local processes need no connection; see
        :meth:`DaskExecutor.session`)."""
        yield self.run

    def run(self, tasks: Sequence[Task | Unit], skip=None) -> Iterator[TaskResult]:
        """Yield the result of every task or unit as it finishes (any order), in the
        order given as far as workers are free; ``skip(unit)`` true: not run."""
        units = _as_units(tasks)
        if not units:
            return
        tasks = [u.task for u in units]
        in_process = self.n_jobs == 1
        if not in_process:
            defined_in_main = _defined_in_main(tasks)
            if defined_in_main:
                warnings.warn(
                    f"{', '.join(defined_in_main)} {'is' if len(defined_in_main) == 1 else 'are'}"
                    " defined in the __main__ module (the script or notebook), which worker "
                    "processes cannot import: the tasks run in this process, one at a time. "
                    "Define it in a module of its own to run them in parallel.",
                    RuntimeWarning, stacklevel=4,
                )
                in_process = True
        if in_process:
            with one_thread():
                for unit in units:
                    if skip is None or not skip(unit):
                        yield run_task(unit.task, fold=unit.fold)
            return
        yield from _run_pool(units, min(self.n_jobs, len(units)), skip)


def _as_units(items) -> list[Unit]:
    return [item if isinstance(item, Unit) else Unit(item) for item in items]


def _unit_failure(unit: Unit, error: str, **times) -> TaskResult:
    result = TaskResult.failure(unit.task, error, **times)
    result.unit_fold = unit.fold
    return result


def _defined_in_main(tasks: Sequence[Task]) -> list[str]:
    """Names of the tasks' algorithms and datasets whose pickles refer to ``__main__``."""
    found, seen = [], set()
    for task in tasks:
        for what, obj in (("algorithm", task.algorithm), ("dataset", task.data)):
            if obj is None or id(obj) in seen:
                continue
            seen.add(id(obj))
            if what == "algorithm" and str(getattr(obj, "estimator", "")).startswith(
                    ("__main__.", "__main__:")):
                found.append(f"{what} {getattr(obj, 'name', obj)!r}")
                continue
            finder = _MainFinder(io.BytesIO(pickle.dumps(obj)))
            finder.load()
            if finder.uses_main:
                found.append(f"{what} {getattr(obj, 'name', obj)!r}")
    return found


class _MainFinder(pickle.Unpickler):
    """Unpickle, noting whether anything comes from the ``__main__`` module."""

    uses_main = False

    def find_class(self, module, name):
        if module in ("__main__", "__mp_main__"):
            self.uses_main = True
        return super().find_class(module, name)


class _Slot:
    """One worker process and the unit it is running."""

    __slots__ = ("worker", "unit", "started")

    def __init__(self):
        self.worker = WorkerProcess()
        self.unit: Unit | None = None
        self.started: float | None = None  # when the worker began the unit

    @property
    def task(self) -> Task | None:
        return None if self.unit is None else self.unit.task

    def assign(self, unit: Unit) -> None:
        self.unit = unit
        self.started = None
        self.worker.send(unit)

    def deadline(self) -> float | None:
        if self.unit is None or self.task.timeout is None or self.started is None:
            return None
        return self.started + self.task.timeout + _KILL_GRACE

    def elapsed(self, now: float) -> float:
        return 0.0 if self.started is None else now - self.started

    def poll(self, now: float) -> tuple[TaskResult | None, bool]:
        """Read what the worker sent; return (result or None, whether to replace it)."""
        task, unit = self.task, self.unit
        conn = self.worker.conn
        try:
            while conn.poll():
                kind, payload = conn.recv()
                if kind == "started":
                    self.started = now
                elif kind == "unreadable":
                    return _unit_failure(
                        unit, f"the task could not be sent to a worker process ({payload}); "
                        "an algorithm or dataset object must be importable by name in a "
                        "fresh Python process (define it in a module, not in the script)."
                    ), False
                else:
                    return payload, False
        except (EOFError, OSError):
            return _unit_failure(unit, _died(self.worker), wall=self.elapsed(now)), True
        if not self.worker.is_alive():
            return _unit_failure(unit, _died(self.worker), wall=self.elapsed(now)), True
        deadline = self.deadline()
        if deadline is not None and now >= deadline:
            self.worker.kill()
            return _unit_failure(
                unit,
                f"time limit of {task.timeout:g} s exceeded ({self.elapsed(now):.1f} s "
                "elapsed; worker process killed).",
                wall=self.elapsed(now),
            ), True
        return None, False


def _run_pool(units: list[Unit], n_workers: int, skip=None) -> Iterator[TaskResult]:
    queue = deque(units)

    def next_unit() -> Unit | None:
        while queue:
            unit = queue.popleft()
            if skip is None or not skip(unit):
                return unit
        return None

    slots: list[_Slot] = []
    finished = False
    try:
        for _ in range(n_workers):
            slots.append(_Slot())
        for slot in slots:
            unit = next_unit()
            if unit is not None:
                slot.assign(unit)
        while True:
            busy = [s for s in slots if s.unit is not None]
            if not busy:
                finished = True
                return
            deadlines = [d for d in (s.deadline() for s in busy) if d is not None]
            timeout = None
            if deadlines:
                timeout = max(0.0, min(deadlines) - time.perf_counter())
            wait([s.worker.conn for s in busy], timeout)
            now = time.perf_counter()
            for i, slot in enumerate(slots):
                if slot.unit is None:
                    continue
                result, replace = slot.poll(now)
                if result is None:
                    continue
                slot.unit = None
                if replace:
                    slot.worker.close(kill=True)
                    slot = slots[i] = _Slot()
                yield result
                # after the result is taken in: a unit it made useless is skipped
                unit = next_unit()
                if unit is not None:
                    slot.assign(unit)
    finally:
        # Finished: let idle workers exit. Stopped early (an error, Ctrl-C, the generator
        # closed): kill them all at once, so that nothing outlives the run.
        if not finished:
            for slot in slots:
                slot.worker.kill()
        for slot in slots:
            slot.worker.close(kill=not finished)


def _died(worker: WorkerProcess) -> str:
    code = worker.exit_code(wait=1.0)
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return f"{LOST_PREFIX} ({how}) while running the task."


# Dask errors that mean the worker running the task died (the task never finished).
_DASK_LOST = ("KilledWorker", "CommClosedError", "WorkerLost")


@contextmanager
def _starting_children():
    """While a Dask ``LocalCluster`` starts its worker processes.

    They ignore Ctrl-C and hang-ups: a terminal sends those to every process of its
    foreground group, and the run handles them (and closes the cluster). And they do not
    import the caller's ``__main__`` script (multiprocessing's ``spawn`` would, and a
    script without an ``if __name__ == "__main__":`` guard would start its study again in
    every worker); Dask sends functions and classes of ``__main__`` by value anyway.
    """
    saved = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGHUP"):
            if hasattr(signal, name):
                number = getattr(signal, name)
                saved[number] = signal.signal(number, signal.SIG_IGN)
    try:
        with _without_main():
            yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


@contextmanager
def _without_main():
    """An empty ``__main__`` module, so that processes spawned meanwhile do not import
    the caller's script."""
    main = sys.modules.get("__main__")
    if main is not None:
        sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


#: Dask configuration key of the wait for a scheduler to answer (default 10 s)
SCHEDULER_TIMEOUT_KEY = "metaeval.scheduler-timeout"


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

    Notes
    -----
    A scheduler that does not answer within 10 seconds is an error. Dask's configuration
    key ``metaeval.scheduler-timeout`` (e.g. ``dask.config.set({"metaeval.scheduler-timeout":
    "60s"})``, or ``DASK_METAEVAL__SCHEDULER_TIMEOUT=60s``) gives another wait.

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

    def run(self, tasks: Sequence[Task | Unit], skip=None) -> Iterator[TaskResult]:
        """Yield the result of every task or unit as it finishes (any order); they are
        given to the scheduler at once, with priorities in the order given. After each
        result, the units of the same task for which ``skip(unit)`` is true are cancelled
        (the folds after a failed fold: not run, or their results not waited for when a
        worker already runs them)."""
        with self.session() as run:
            yield from run(tasks, skip)

    @contextmanager
    def session(self, log_file=None):
        """Reach the cluster first; yield a function that runs tasks on it.

        With ``scheduler``, the connection is made on entering (a ``ValueError`` when
        the scheduler cannot be reached), so that a study creates nothing -- no store,
        no tasks -- until its executor is there. A local cluster is started when the
        first tasks are run. With ``log_file``, Dask's own logging (heartbeats, workers
        restarted) goes to that file, not to the terminal, and one line on standard
        error says when a worker was lost.
        """
        held = {}
        if self.scheduler is not None:
            held["client"] = self._connect()
        try:
            # for the whole session: a worker the nanny restarts after a loss, even as the
            # run ends, logs to the file and does not import the caller's script either
            # (see _starting_children)
            with _dask_logging(log_file), _without_main():
                try:
                    def run(tasks, skip=None):
                        return self._run(tasks, held, log_file, skip)

                    run.workers = lambda: _workers_of(held)
                    yield run
                except BaseException:
                    _end_local_workers(held)  # stopped: their fits are not waited for
                    raise
                finally:
                    _close(held)
        finally:
            _close(held)

    def _connect(self):
        import dask
        from dask.distributed import Client

        try:
            return Client(self.scheduler,
                          timeout=dask.config.get(SCHEDULER_TIMEOUT_KEY, "10s"))
        except OSError as exc:
            raise ValueError(
                f"Cannot reach the Dask scheduler at {self.scheduler}: {exc}"
            ) from exc

    def _run(self, tasks, held, log_file, skip=None) -> Iterator[TaskResult]:
        units = _as_units(tasks)
        if not units:
            return
        yield from self._run_logged(units, held, log_file, skip)

    def _run_logged(self, units, held, log_file, skip) -> Iterator[TaskResult]:
        import logging

        from dask.distributed import Client, LocalCluster, as_completed

        if "client" not in held:
            with _starting_children():
                held["cluster"] = LocalCluster(
                    n_workers=self.n_workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR if log_file is None else False,
                )
            held["client"] = Client(held["cluster"])
        client = held["client"]
        futures, by_key, of_task = [], {}, {}
        try:
            for i, unit in enumerate(units):
                task = unit.task
                fold = "" if unit.fold is None else f"-fold{unit.fold}"
                future = client.submit(
                    run_task, task, pin_threads=True, fold=unit.fold, pure=False,
                    priority=len(units) - i,
                    key=f"metaeval-{i}-{task.dataset}-{task.algorithm.name}-{task.repeat}{fold}",
                )
                futures.append(future)
                by_key[future.key] = unit
                of_task.setdefault(task.key, []).append(future)
            watch = WorkerWatch(client, by_key, client.scheduler.address)
            held["watch"] = watch
            completed = as_completed(futures)
            while not completed.is_empty():
                ready = completed.next_batch(block=False)
                if not ready:
                    watch.check(pending=len(by_key))
                    time.sleep(0.05)
                    continue
                for future in ready:
                    unit = by_key.pop(future.key)
                    task = unit.task
                    if future.cancelled():
                        continue
                    try:
                        result = future.result()
                    except Exception as exc:  # noqa: BLE001 - a lost worker, a pickling error
                        watch.finished(future.key, unit, ok=False)
                        what = f"{type(exc).__name__}: {exc}"
                        lost = type(exc).__name__ in _DASK_LOST
                        result = _unit_failure(
                            unit, f"{LOST_PREFIX} (Dask {what})" if lost else f"Dask: {what}")
                        if lost and log_file is not None:
                            print(f"A Dask worker was lost while running {task.dataset} x "
                                  f"{task.algorithm.name} (repeat {task.repeat}); it runs "
                                  f"again on the next run. Dask's log: {log_file}",
                                  file=sys.stderr, flush=True)
                    else:  # outside the try: the watcher's words never make a result a failure
                        watch.finished(future.key, unit, ok=True)
                    future.release()
                    yield result
                    if skip is not None:  # the caller has taken the result in
                        _cancel_needless(of_task.get(task.key, ()), by_key, skip)
        finally:
            for future in futures:
                future.release()


def _cancel_needless(siblings, by_key: dict, skip) -> None:
    """Cancel the pending futures among ``siblings`` (the units of one task) whose unit
    ``skip`` says need not run any more."""
    for future in siblings:
        unit = by_key.get(future.key)
        if unit is not None and not future.done() and skip(unit):
            future.cancel()


def _workers_of(held: dict) -> int:
    """The most workers the run has seen at once (the parallel efficiency's divisor), or
    before it, those of the connected scheduler (0: not known)."""
    watch = held.get("watch")
    if watch is not None:
        return watch.max_workers
    client = held.get("client")
    if client is None:
        return 0
    try:
        return len(client.scheduler_info()["workers"])
    except Exception:  # noqa: BLE001 - not known; the caller has a default
        return 0


def _end_local_workers(held: dict) -> None:
    """End the worker processes of this session's own local cluster at once.

    For a run that stops (Ctrl-C, a signal, an error): closing a cluster whose workers
    are running fits waits some 4 s for each to finish gracefully. The scheduler's
    complaints about the workers it lost are not shown. Never a remote scheduler's
    workers.
    """
    import logging

    client = held.get("client")
    if client is None or "cluster" not in held:
        return
    logging.disable(logging.CRITICAL)
    try:
        client.run(os._exit, 1, on_error="ignore")
        _close(held)
    except Exception:  # noqa: BLE001 - the cluster is closed again below, as usual
        pass
    finally:
        logging.disable(logging.NOTSET)


def _close(held: dict) -> None:
    """Close the session's client, then its local cluster (once)."""
    client, cluster = held.pop("client", None), held.pop("cluster", None)
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()


@contextmanager
def _dask_logging(log_file):
    """Send Dask's logging to ``log_file`` while a study runs on Dask (this process's
    loggers, and the worker processes' through Dask's ``logging`` setting, which they
    read from the environment when they start)."""
    if log_file is None:
        yield
        return
    import logging

    names = ("distributed", "dask", "tornado", "bokeh")
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)  # the executor is reachable
    handler = logging.FileHandler(log_file, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    saved = {}
    for name in names:
        logger = logging.getLogger(name)
        saved[name] = (list(logger.handlers), logger.propagate)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.propagate = False
    setting = {"version": 1, "disable_existing_loggers": False,
               "formatters": {"plain": {"format": "%(asctime)s %(process)d %(name)s "
                                                  "%(levelname)s %(message)s"}},
               "handlers": {"file": {"class": "logging.FileHandler", "filename": str(log_file),
                                     "formatter": "plain", "encoding": "utf-8"}},
               "loggers": {name: {"handlers": ["file"], "level": "INFO", "propagate": False}
                           for name in names}}
    previous = os.environ.get("DASK_LOGGING")
    os.environ["DASK_LOGGING"] = repr(setting)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("DASK_LOGGING", None)
        else:
            os.environ["DASK_LOGGING"] = previous
        for name, (handlers, propagate) in saved.items():
            logger = logging.getLogger(name)
            logger.removeHandler(handler)
            for old in handlers:
                logger.addHandler(old)
            logger.propagate = propagate
        handler.close()
