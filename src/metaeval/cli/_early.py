"""Before the command line imports anything heavy: start ``metaeval report``'s workers.

``metaeval report`` draws on worker processes forked from a server that first imports
what they draw with (:mod:`metaeval.report._preload`, some 1.6 CPU-s). Started here, as
the ``metaeval`` command begins, the server imports on another core while this process
imports the command line itself (half a second: NumPy, pandas, SciPy) and checks the
store, instead of after it; the report's workers then start half a second sooner.

This module imports only the standard library. It looks at the command's arguments
alone, without the command line's parser: a report with one job, ``--help``, or a store
with a report cache beside it (whose sections may all be cached: the report starts the
server itself when it knows there is something to draw) starts nothing here. Whatever
it gets wrong costs time only: the report checks its arguments and starts what it needs
as before.
"""

from __future__ import annotations

import os
import sys

__all__ = ["PARENT_VARIABLE", "PRELOAD", "DEFAULT_STORE", "DEFAULT_TIMEOUT", "report_arguments",
           "start_report_workers"]

#: environment variable naming the report's process for its fork server (the same as
#: :data:`metaeval.report._lifeline.PARENT_VARIABLE`, tested)
PARENT_VARIABLE = "METAEVAL_REPORT_PARENT"
#: what the fork server imports first (the same as the report's own list, tested)
PRELOAD = ["__main__", "metaeval.report._lifeline", "metaeval.report._preload"]
#: the store the command line reads by default (:data:`metaeval.study.DEFAULT_STORE`)
DEFAULT_STORE = "metaeval-results/study.duckdb"
#: a study's default time limit per task, in seconds (:data:`metaeval.study.DEFAULT_TIMEOUT`)
DEFAULT_TIMEOUT = 1800.0


def report_arguments(argv) -> dict | None:
    """``{"store", "jobs", "cache"}`` of a ``metaeval report`` command line, or None for
    any other command (or a report's ``--help``)."""
    argv = list(argv)
    if not argv:
        return None
    program = os.path.basename(argv[0])
    if not (program == "metaeval" or argv[0].endswith(os.path.join("metaeval", "__main__.py"))):
        return None
    if len(argv) < 2 or argv[1] != "report":
        return None
    got = {"store": DEFAULT_STORE, "jobs": None, "cache": True}
    rest = argv[2:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        name, eq, value = arg.partition("=")
        if arg in ("--help", "-h"):
            return None
        if arg == "--no-cache":
            got["cache"] = False
        elif name in ("--store", "--jobs"):
            if not eq:
                i += 1
                value = rest[i] if i < len(rest) else ""
            if name == "--store":
                got["store"] = value
            else:
                try:
                    got["jobs"] = int(value)
                except ValueError:
                    return None  # the command line says what is wrong
        i += 1
    return got


def start_report_workers(argv=None) -> bool:
    """Start the report's fork server now for a ``metaeval report`` that will draw on
    workers (see the module's description); True when started."""
    if sys.modules.get("__mp_main__", sys.modules.get("__main__")) \
            is not sys.modules.get("__main__"):
        # a worker of the report's pool running the program's file again, as
        # "__mp_main__" and with the report's arguments, before it runs (multiprocessing
        # does so; elsewhere "__mp_main__" is absent or "__main__" itself): a process
        # started there is refused ("before the current process has finished its
        # bootstrapping phase"), and the report's own server runs already
        return False
    got = report_arguments(sys.argv if argv is None else argv)
    if got is None:
        return False
    from metaeval._validation import usable_cores

    cores = usable_cores()
    workers = cores if got["jobs"] is None else got["jobs"]
    store = got["store"]
    if workers < 2 or cores < 2 or not os.path.isfile(store):
        return False
    if got["cache"] and os.path.isdir(f"{store}.report-cache"):
        return False  # a report was cached before: perhaps nothing to draw
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver

    os.environ[PARENT_VARIABLE] = str(os.getpid())
    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
    forkserver.ensure_running()
    return True
