"""The worker processes of the local executor, and how they die with their parent.

A worker is a fresh Python interpreter started with ``python -c`` (never through
:mod:`multiprocessing`'s ``spawn``, which imports the parent's ``__main__`` module again
in every child: a plain script that calls :func:`metaeval.study.run_study` without an
``if __name__ == "__main__":`` guard would then run its study once more in every worker).
It gets the parent's ``sys.path``, talks to the parent through one end of a socket pair
(pickled messages, :class:`multiprocessing.connection.Connection`) and runs one task at
a time.

A worker must not outlive the process that started it: on Linux the kernel kills it when
its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and on every platform a watcher
thread ends it within :data:`PARENT_CHECK` seconds of its parent's death. Terminal
signals (Ctrl-C, a hang-up) are the parent's to handle, so workers ignore them.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection

__all__ = ["WorkerProcess", "PARENT_CHECK"]

#: Seconds between two checks, in a worker, that its parent is still alive.
PARENT_CHECK = 0.5

_PATH_VARIABLE = "METAEVAL_WORKER_SYS_PATH"
_BOOT = (
    "import json, os, sys; "
    f"sys.path[:] = json.loads(os.environ.pop({_PATH_VARIABLE!r})); "
    "from metaeval.study._worker import main; main(int(sys.argv[1]), int(sys.argv[2]))"
)


class WorkerProcess:
    """A worker process and the connection to it (parent side).

    Parameters
    ----------
    target_env : dict, optional
        Extra environment variables for the worker.
    """

    def __init__(self):
        parent_end, child_end = socket.socketpair()
        env = dict(os.environ)
        env[_PATH_VARIABLE] = json.dumps([p for p in sys.path if isinstance(p, str)])
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(child_end.fileno()), str(os.getpid())],
                pass_fds=(child_end.fileno(),), env=env, stdin=subprocess.DEVNULL,
                close_fds=True,
            )
        finally:
            child_end.close()
        self.conn = Connection(parent_end.detach())

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, message) -> None:
        self.conn.send(message)

    def is_alive(self) -> bool:
        return self.proc.poll() is None

    def exit_code(self, wait: float = 1.0) -> int | None:
        """The exit code (negative: killed by that signal), waiting up to ``wait`` s."""
        try:
            return self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except ProcessLookupError:  # pragma: no cover - it just ended
                pass

    def close(self, *, kill: bool, wait: float = 2.0) -> None:
        """Stop the worker: ask it to finish (``kill=False``) or kill it; reap it."""
        if not kill and self.proc.poll() is None:
            try:
                self.conn.send(None)
                self.proc.wait(timeout=wait)
            except (OSError, EOFError, subprocess.TimeoutExpired):
                pass
        self.kill()
        try:
            self.proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            pass
        self.conn.close()


# ---------------------------------------------------------------------- the child's side
def die_with_parent(parent_pid: int) -> None:  # pragma: no cover - runs in the child
    """End this process when ``parent_pid`` dies (see the module documentation)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK)
            if os.getppid() != parent_pid:
                os._exit(0)

    threading.Thread(target=watch, name="metaeval-parent-watch", daemon=True).start()


def main(fd: int, parent_pid: int) -> None:  # pragma: no cover - runs in the child
    """Worker loop: receive units of work, send ``("started", None)`` then ``("result", r)``.

    A ``None`` message (or the parent closing the connection) ends the worker.
    """
    die_with_parent(parent_pid)
    for name in ("SIGINT", "SIGHUP"):  # the parent's to handle
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    from metaeval.study._run import TaskResult, run_task, warm_up

    conn = Connection(fd)
    warm_up(None)
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):  # the parent is gone
            return
        try:
            unit = pickle.loads(data)
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            conn.send(("unreadable", f"{type(exc).__name__}: {exc}"))
            continue
        if unit is None:
            return
        # a unit of work: a whole task, or one fold of it (metaeval.study._units.Unit)
        task, fold = getattr(unit, "task", unit), getattr(unit, "fold", None)
        try:
            warm_up(task)
            conn.send(("started", None))
            result = run_task(task, pin_threads=True, fold=fold)
            try:
                conn.send(("result", result))
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                failure = TaskResult.failure(
                    task, f"{type(exc).__name__} while sending the result: {exc}")
                failure.unit_fold = fold
                conn.send(("result", failure))
        except (EOFError, OSError):  # the parent is gone
            return
