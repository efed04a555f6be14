"""The report's worker processes die with the report.

The report draws on a pool of worker processes started through ``multiprocessing``'s
fork server (:func:`metaeval.report._render.worker_pool`): the report starts the fork
server and the resource tracker, the fork server starts the workers. When the report is
killed (SIGTERM, SIGHUP, SIGKILL: no ``finally`` runs), none of them may live on,
re-parented, holding hundreds of megabytes and the caller's standard output and error.
As the study's workers do (the report does not import the study: the same few lines):

- the fork server imports this module first (its preload, :data:`PARENT_VARIABLE`
  naming the report's process): on Linux the kernel kills it when the report dies
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``);
- each worker, from the moment it is forked, is killed by the kernel when its parent
  (the fork server) dies, and at its start (:func:`die_with_report`, the pool's
  initializer) a watcher thread ends it within :data:`PARENT_CHECK` seconds of its
  parent's or the report's death, on every platform.

The resource tracker ends by itself once every process holding its pipe has ended.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

__all__ = ["PARENT_CHECK", "PARENT_VARIABLE", "die_with_report"]

#: Seconds between two checks, in a worker, that its parent and the report are alive.
PARENT_CHECK = 0.5

#: environment variable naming the process id of the report that starts the fork server
PARENT_VARIABLE = "METAEVAL_REPORT_PARENT"


def _kill_with_parent() -> None:  # pragma: no cover - runs in the fork server
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a process of another user has the id
        return True
    return True


def die_with_report(report_pid: int) -> None:  # pragma: no cover - runs in a worker
    """End this worker when its parent or the report (``report_pid``) ends."""
    _kill_with_parent()  # the fork server (or the report, when spawned)
    parent = os.getppid()
    if not _alive(report_pid):
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK)
            if os.getppid() != parent or not _alive(report_pid):
                os._exit(0)

    threading.Thread(target=watch, name="metaeval-report-watch", daemon=True).start()


#: the fork server's process id, in the fork server (None elsewhere, and in its children
#: once they have started)
_SERVER: int | None = None


def _forked() -> None:  # pragma: no cover - runs in a worker, right after its fork
    """Kill a worker when the fork server dies, from its first instruction on (before
    it imports what its jobs need, seconds under load, and before the pool's initializer
    runs); once: the worker's own children are left alone."""
    global _SERVER
    server, _SERVER = _SERVER, None
    if server is None:
        return
    _kill_with_parent()
    if os.getppid() != server:  # the fork server died before prctl took effect
        os._exit(0)


# imported as the fork server's preload: die with the report that started it, and make
# every worker it forks die with it
if os.environ.get(PARENT_VARIABLE) == str(os.getppid()):  # pragma: no cover
    _kill_with_parent()
    _SERVER = os.getpid()
    os.register_at_fork(after_in_child=_forked)
