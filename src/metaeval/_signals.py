"""Stopping a command that starts worker processes: SIGINT, SIGTERM and SIGHUP alike.

A command that starts workers (``knowledge build --jobs``, ``report``, ``import``, and
a study's run, which raises its own :class:`~metaeval.study.Interrupted`) runs its work
inside :func:`stop_on_signals`: the first of these signals raises
:class:`Stopped` (a ``KeyboardInterrupt``) in the main thread, so the work unwinds as
from Ctrl-C -- its pool stops its workers, its files are not half written, the resource
tracker is told every semaphore is gone -- and the command line's ``exit_stopped`` prints
one line and exits with the code of the README's table (130, 143, 129). Later signals are
ignored, so a second Ctrl-C cannot cut the clean-up short.

An exception raised inside a callback the interpreter calls on its own -- a hook of
``os.fork`` (logging releases its lock in one, each time a worker process starts), a
``__del__`` method -- cannot reach the work: the interpreter prints "Exception ignored
in ..." and goes on, and the stop would be lost. So the handler does not raise there: it
has the signal delivered to the main thread again a moment later, when the callback has
returned (a helper thread sends it, :func:`signal.pthread_kill`); a stop raised in such a
callback all the same (one this module does not know of) is caught by
:data:`sys.unraisablehook` and delivered again the same way.

Standard library only: imported before the heavy modules.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["Stopped", "stop_on_signals", "ignore_stop_signals", "STOP_SIGNALS"]

#: the signals that stop a command, and Python's handler for each when none is set
STOP_SIGNALS = (("SIGINT", signal.default_int_handler), ("SIGTERM", signal.SIG_DFL),
                ("SIGHUP", signal.SIG_DFL))


class Stopped(KeyboardInterrupt):
    """A command stopped by a signal.

    Attributes
    ----------
    signum : int
    exit_code : int
        128 + signum: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
    """

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = int(signum)
        self.exit_code = 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


@contextmanager
def stop_on_signals(exception=Stopped):
    """Raise ``exception(signum)`` (by default :class:`Stopped`) in the main thread at the
    first SIGINT, SIGTERM or SIGHUP.

    Only signals whose handler is Python's default are taken (``nohup``'s ignored SIGHUP
    stays ignored); the previous handlers are put back on leaving. ``exception`` is a
    ``KeyboardInterrupt`` taking the signal's number, with it as ``signum``.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _watch_forks()
    stopping = []
    pending = []  # a stop to deliver again (a callback would have swallowed it)
    guard = threading.Lock()  # between a delivery again and the context's end

    def handler(signum, frame):
        if stopping:
            return
        if not _safe(frame):  # the callback would swallow it: again in a moment
            pending[:] = [signum]
            _deliver_again(signum, pending, guard)
            return
        pending.clear()
        stopping.append(signum)
        raise exception(signum)

    def unraisable(info):
        if isinstance(info.exc_value, (Stopped, exception)) and stopping:
            stopping.clear()  # it was lost in a callback: deliver it again
            pending[:] = [info.exc_value.signum]
            _deliver_again(info.exc_value.signum, pending, guard)
            return
        previous_hook(info)

    # code that must not be cut short (a store's transaction) may hold these signals
    # back and act on them itself (metaeval.store's import does)
    handler.metaeval_stop = True

    previous = {}
    for name, default in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is default:
            previous[number] = signal.signal(number, handler)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = unraisable
    swallowed, taken = None, []
    try:
        yield
        # the work ended although a stop was raised in it: code that catches every
        # exception (a library's bare ``except:``) took it; the command stops here
        swallowed = stopping[0] if stopping else None
    finally:
        # a delivery still due is called off before the former handlers are back (sent
        # after, it would meet the default action: the process killed without a word)
        try:  # (a stop that lands while the guard is awaited goes on up, as a stop)
            with guard:
                taken, pending[:] = pending[:], []
        finally:
            for number, old in previous.items():
                signal.signal(number, old)
            if sys.unraisablehook is unraisable:
                sys.unraisablehook = previous_hook
    if taken:  # the work ended before the stop came again: it stops here
        swallowed = taken[-1]
    if swallowed is not None:
        raise exception(swallowed)


#: how many ``os.fork`` calls of this process are between their first and last hooks
_forking = [0]
_watching = []


def _fork_starts():
    _forking[0] += 1


def _fork_ends():
    _forking[0] = max(0, _forking[0] - 1)


def _fork_ends_in_child():
    _forking[0] = 0


def _watch_forks() -> None:
    """Know when ``os.fork`` runs its hooks: ours are registered after logging's (and
    those of the modules imported so far), so that ours run first before a fork and last
    after it."""
    if _watching or not hasattr(os, "register_at_fork"):
        return
    import logging  # noqa: F401 - its hooks must be inside ours

    _watching.append(True)
    os.register_at_fork(before=_fork_starts, after_in_parent=_fork_ends,
                        after_in_child=_fork_ends_in_child)


_HOOKS = (_fork_starts.__code__, _fork_ends.__code__, _fork_ends_in_child.__code__)


def _safe(frame) -> bool:
    """Whether an exception raised in ``frame`` reaches the code that called it: not
    while ``os.fork`` runs its hooks, nor in a ``__del__`` method."""
    if _forking[0]:
        return False
    depth = 0
    while frame is not None and depth < 64:
        if frame.f_code in _HOOKS or frame.f_code.co_name == "__del__":
            return False
        frame, depth = frame.f_back, depth + 1
    return True


def _deliver_again(signum: int, pending: list, guard, delay: float = 0.05) -> None:
    """Send ``signum`` to the main thread after ``delay`` seconds, from a new thread (the
    low-level one: starting it takes no lock the interrupted code may hold), unless
    ``pending`` no longer holds it (the stop was raised, or its context left); ``guard``
    makes the check and the sending one step against the context's end."""
    target = threading.main_thread().ident

    def later():
        time.sleep(delay)
        with guard:
            if signum not in pending:
                return
            try:
                signal.pthread_kill(target, signum)
            except (OSError, ValueError):  # pragma: no cover - the process is ending
                pass

    _thread.start_new_thread(later, ())


def ignore_stop_signals() -> None:
    """Ignore further stop signals (while a stopped command says so and exits)."""
    for name, _ in STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
