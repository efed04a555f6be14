"""Outer folds of an evaluation spread over worker processes (joblib).

Each fold (a held-out family, or an ASlib ``cv.arff`` fold) is independent: the workers
fit and score whole folds and the caller puts the results back in fold order, so any
number of workers gives the same evaluation as one.
"""

from __future__ import annotations

import warnings

import numpy as np


class WorkerLostError(RuntimeError):
    """A worker process evaluating folds ended without its result (killed by the system,
    most often for want of memory); nothing was evaluated."""


class WorkerLostWarning(RuntimeWarning):
    """A worker process evaluating folds was killed (SIGKILL: most often the system's
    out-of-memory killer); the folds not finished are evaluated again with half as many
    worker processes (the figures do not depend on their number)."""


def _n_jobs(n_jobs, n_folds) -> int:
    """The worker processes for ``n_folds`` folds: scikit-learn's convention (None: 1,
    or the ``n_jobs`` of an enclosing :func:`joblib.parallel_config`; -1: every usable
    core; -2: all but one), never more than the folds."""
    if n_jobs is not None and (isinstance(n_jobs, bool)
                               or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0):
        raise ValueError(f"n_jobs must be a nonzero integer (-1: every core) or None, got "
                         f"{n_jobs!r}.")
    if n_jobs == 1 or n_folds < 2:
        return 1
    import joblib

    return max(1, min(int(joblib.effective_n_jobs(n_jobs)), n_folds))


def _folds_in_workers(fold, order, work, n_jobs, progress=None) -> list:
    """``fold(group, **work)`` for each fold of ``order``, in ``n_jobs`` worker processes (joblib's
    process backend), returned in the order of ``order``; the largest folds are handed
    out first, so that the last one to finish is a small one. ``progress(done, total)``,
    if given, is called in this process as each fold's result arrives."""
    from joblib import Parallel, delayed

    groups = work["groups"]
    sizes = {g: int(np.sum(groups == g)) for g in order}
    start = sorted(range(len(order)), key=lambda j: -sizes[order[j]])  # stable: ties kept
    # no memory mapping: every worker gets its own writable copy of the knowledge base.
    # joblib's process executor restarts a worker whose memory grew by a few hundred MB
    # (its leak check) after a fold, and warns from its own thread that "a worker
    # stopped"; it finishes its fold first and no fold is lost, so that one warning is not
    # shown during these calls.
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                message="A worker stopped while some jobs were given")
        done = [None] * len(order)
        n_done = 0
        while n_done < len(order):
            todo = [j for j in start if done[j] is None]
            try:
                # the results as the folds end (each with its place), so that progress
                # can be said; every one is put back in its place
                out = (Parallel(n_jobs=n_jobs, prefer="processes", batch_size=1,
                                max_nbytes=None, return_as="generator_unordered")(
                    delayed(_fold_in_worker)(fold, order[j], **work, _place=j) for j in todo)
                    if n_jobs > 1 else _in_one_worker(fold, order, work, todo))
                for j, result in out:
                    done[j] = result
                    n_done += 1
                    if progress is not None:
                        progress(n_done, len(order))
            except TerminatedWorkerError as exc:
                codes = _exit_codes(str(exc))
                if n_jobs == 1 or "SIGKILL" not in codes:
                    raise WorkerLostError(_lost_message(str(exc), n_jobs)) from exc
                # killed, most often for want of memory: the folds not finished again,
                # with half the workers (each holds a fold's fitted models)
                n_jobs = max(1, n_jobs // 2)
                warnings.warn(
                    f"A worker process evaluating the folds was killed ({codes}), most "
                    "often because the machine ran out of memory: the "
                    f"{len(order) - n_done} fold(s) not finished are evaluated again with "
                    f"{n_jobs} worker process(es) (the figures do not depend on their "
                    "number).", WorkerLostWarning, stacklevel=2)
    return done


def _in_one_worker(fold, order, work, todo):
    """``(j, fold(order[j], **work))`` for each ``j`` of ``todo``, as they end, in one
    worker process (joblib runs ``n_jobs=1`` in the calling process: loky's executor,
    which joblib's process backend uses, with one worker); any exception, a stop
    included, ends that worker, and so does the end of the folds."""
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    # an executor of its own (joblib's reusable one is shared with its Parallel calls)
    executor = ProcessPoolExecutor(max_workers=1)
    futures = [executor.submit(_fold_in_worker, fold, order[j], **work, _place=j)
               for j in todo]
    try:
        for future in as_completed(futures):
            yield future.result()
    except BaseException:
        executor.shutdown(wait=False, kill_workers=True)
        raise
    executor.shutdown(wait=True)


def _exit_codes(text: str) -> str:
    """The exit codes in loky's ``TerminatedWorkerError`` text (``{SIGKILL(-9), ...}``),
    each once, or "" where the system gives none."""
    import re

    found = re.search(r"exit codes of the workers are \{([^}]*)\}", text)
    return (", ".join(dict.fromkeys(c.strip() for c in found.group(1).split(",")))
            if found else "")


def _lost_message(text: str, n_jobs: int) -> str:
    """What to say of a worker process that ended without its result, from the text of
    loky's ``TerminatedWorkerError`` (its exit codes, e.g. ``{SIGKILL(-9)}``, where the
    system gives them), without loky's own advice."""
    codes = _exit_codes(text)
    said = f" ({codes})" if codes else ""
    if not codes or "SIGKILL" in codes:  # what the system's out-of-memory killer sends
        then = ("run again with fewer worker processes (n_jobs, --jobs)" if n_jobs > 1
                else "even with one worker process: free memory, or run on a machine with "
                "more")
        return (f"A worker process evaluating the folds was killed{said}, most often "
                f"because the machine ran out of memory: each of the {n_jobs} worker "
                "process(es) holds a fold's fitted models (several GB on scenarios of "
                f"thousands of instances). Nothing was evaluated; {then}.")
    return (f"A worker process evaluating the folds ended without its result{said}: a "
            "crash in compiled code, or a signal from outside. Nothing was evaluated; "
            "run again, with one worker process (n_jobs=1, --jobs 1) to see the error "
            "where it happens.")


def _fold_in_worker(fold, group, *, _place, **work) -> tuple:
    """``(_place, fold(group, **work))`` in a worker process, BLAS and OpenMP on one thread
    (as the caller runs the folds itself), freed memory kept for the next arrays
    (:func:`keep_freed_memory`)."""
    from threadpoolctl import threadpool_limits

    keep_freed_memory()
    with threadpool_limits(limits=1):
        return _place, fold(group, **work)


#: glibc's ``mallopt`` parameters (``malloc.h``) and the values set in the workers: no
#: array mapped on its own (every one from the heap), and up to 1 GB of freed heap kept.
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4
_TRIM_THRESHOLD = 1 << 30


def keep_freed_memory() -> bool:
    """Let this worker process keep the memory its arrays free, for the next ones (glibc's
    ``mallopt``; elsewhere nothing is changed). Returns whether it was set.

    The forests and curves of a fold make and free large temporary arrays many thousands
    of times. By default glibc maps each one of more than 128 KB to 32 MB afresh and
    returns freed memory at the heap's top beyond 128 KB to the system, so the same
    pages are faulted in and zeroed again and again: on SAT12-INDU's ASlib evaluation,
    26 of its 252 CPU-seconds were the system's. Every array from the heap and the freed
    memory kept (``M_MMAP_MAX`` 0, ``M_TRIM_THRESHOLD`` 1 GB), the figures are the same
    (memory reuse changes no number); a worker returns its memory when it exits. Only in
    the evaluation's own worker processes: the calling process is left as it is.
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_MAX, 0) and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
