"""Stopping a command that starts worker processes: SIGINT, SIGTERM and SIGHUP alike.

A command that starts workers (``knowledge build --jobs``, ``report``, ``import``) runs
its work inside :func:`stop_on_signals`: the first of these signals raises
:class:`Stopped` (a ``KeyboardInterrupt``) in the main thread, so the work unwinds as
from Ctrl-C -- its pool stops its workers, its files are not half written, the resource
tracker is told every semaphore is gone -- and :func:`exit_stopped` prints one line and
exits with the code of the README's table (130, 143, 129). Later signals are ignored, so
a second Ctrl-C cannot cut the clean-up short.

Standard library only: imported before the heavy modules.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

__all__ = ["Stopped", "stop_on_signals", "exit_stopped", "ignore_stop_signals", "STOP_SIGNALS"]

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
def stop_on_signals():
    """Raise :class:`Stopped` in the main thread at the first SIGINT, SIGTERM or SIGHUP.

    Only signals whose handler is Python's default are taken (``nohup``'s ignored SIGHUP
    stays ignored); the previous handlers are put back on leaving.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = []

    def handler(signum, frame):
        if stopping:
            return
        stopping.append(signum)
        raise Stopped(signum)

    # code that must not be cut short (a store's transaction) may hold these signals
    # back and act on them itself (metaeval.store's import does)
    handler.metaeval_stop = True

    previous = {}
    for name, default in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is default:
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


def ignore_stop_signals() -> None:
    """Ignore further stop signals (while a stopped command says so and exits)."""
    for name, _ in STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def exit_stopped(exc: KeyboardInterrupt, what: str):
    """Print ``Interrupted (SIGTERM); <what>.`` on standard error (as ``metaeval run``
    does) and exit with the signal's code (a plain ``KeyboardInterrupt`` is SIGINT's:
    130)."""
    import typer

    from metaeval.cli._app import err

    ignore_stop_signals()
    signum = getattr(exc, "signum", signal.SIGINT)
    err.print(f"Interrupted ({signal.Signals(signum).name}); {what}.", markup=False)
    raise typer.Exit(128 + int(signum)) from None
