"""Watch a Dask cluster's workers while a study runs on it, and say what happens to them.

Dask runs again, on another worker, the tasks a lost worker was running, and waits
without a word when no worker is left. The watcher asks the scheduler which worker runs
what (``Client.processing``, a public call) about once a second. When a unit of work
that a lost worker was running finishes elsewhere, it says so on standard error (a unit
that Dask gives up on fails, and the executor says that); when no worker has been left
for :data:`SAY_WAITING` seconds, it says that the run waits for workers, and how to stop
or continue it (a worker restarted at once is not worth a word).
"""

from __future__ import annotations

import sys
import time

__all__ = ["WorkerWatch", "CHECK_EVERY", "SAY_WAITING"]

#: Seconds between two questions to the scheduler.
CHECK_EVERY = 1.0
#: Seconds without any worker before the run says it waits for workers.
SAY_WAITING = 5.0


class WorkerWatch:
    """Follow the workers of ``client`` while the units in ``by_key`` run.

    Parameters
    ----------
    client : dask.distributed.Client
    by_key : dict of future key to Unit
        The run's units (a key no longer here is finished).
    address : str
        The scheduler's address (for the message on how to add a worker).
    say : callable, optional
        Where the messages go (default: a line on standard error).
    """

    def __init__(self, client, by_key: dict, address: str, say=None):
        self.client = client
        self.by_key = by_key
        self.address = address
        self.say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        self.running: dict = {}  # worker address -> keys of ours it was running
        self.where: dict = {}  # key of ours -> the worker last seen running it
        self.workers: set = set()
        self.max_workers = 0
        self.lost: dict = {}  # key of a unit a lost worker was running -> that worker
        self.rerun: list = []  # such units finished on another worker
        self.waiting_since: float | None = None
        self.said_waiting = False
        self._next = 0.0
        self.check(force=True)

    def check(self, force: bool = False, pending: int | None = None,
              ending=None) -> None:
        """Ask the scheduler (at most every :data:`CHECK_EVERY` s unless ``force``);
        ``ending``: the key of a unit that has just finished (the executor has already
        taken it out of ``by_key``), still noted if a lost worker was running it."""
        now = time.monotonic()
        if not force and now < self._next:
            return
        self._next = now + CHECK_EVERY
        try:
            processing = self.client.processing()
        except Exception:  # noqa: BLE001 - the scheduler is busy or gone: ask again later
            return
        workers = set(processing)
        for gone in self.workers - workers:
            for key in self.running.get(gone, ()):
                if key in self.by_key or key == ending:
                    self.lost[key] = gone
        self.running = {w: [k for k in keys if k in self.by_key]
                        for w, keys in processing.items()}
        self.where = {k: w for w, keys in self.running.items() for k in keys}
        self.workers = workers
        self.max_workers = max(self.max_workers, len(workers))
        if workers:
            if self.said_waiting:
                self.say(f"{_plural(len(workers), 'Dask worker')} again: the run goes on.")
            self.waiting_since, self.said_waiting = None, False
        elif self.waiting_since is None:
            self.waiting_since = now
        elif not self.said_waiting and now - self.waiting_since >= SAY_WAITING:
            self.said_waiting = True
            left = "" if pending is None else f" ({_plural(pending, 'unit')} of work left)"
            self.say(f"No Dask worker is left{left}: the run waits for workers to join "
                     f"the scheduler at {self.address} (start one with `dask worker "
                     f"{self.address}`). Press Ctrl-C to stop it: the finished tasks are "
                     "saved, and running the same command again continues.")

    def finished(self, key, unit, ok: bool) -> None:
        """A unit finished (``ok``: with a result): say so if a lost worker ran it.

        A unit last seen running on a worker is checked at once (one question to the
        scheduler): a worker lost since the last check, whose unit ran again and ended
        within the second between two checks, is noticed too. (A worker lost in the
        moment after its unit's result reached the client, before that question, is
        taken for one lost while running it: the unit is said to have run again.)"""
        if key not in self.lost and key in self.where:
            self.check(force=True, ending=key)
        gone = self.lost.pop(key, None)
        if gone is not None and ok:
            self.rerun.append(unit)
            self.say(f"A Dask worker was lost ({gone}) while running {_name(unit)}; it ran "
                     "again on another worker.")


def _name(unit) -> str:
    task = unit.task
    fold = "" if unit.fold is None else f", fold {unit.fold}"
    return f"{task.dataset} x {task.algorithm.name} (repeat {task.repeat}{fold})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"
