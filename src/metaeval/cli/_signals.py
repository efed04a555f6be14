"""Stopping a command: :mod:`metaeval._signals` (standard library only, shared with the
study's run), and :func:`exit_stopped`, which says so and exits with the signal's code."""

from __future__ import annotations

import signal
from contextlib import contextmanager

from metaeval._signals import STOP_SIGNALS, Stopped, ignore_stop_signals, stop_on_signals

__all__ = ["Stopped", "stop_on_signals", "exit_stopped", "ignore_stop_signals", "STOP_SIGNALS"]


@contextmanager
def workers_said():
    """While an evaluation runs: a worker process killed and its folds evaluated again
    with fewer (:class:`~metaeval.recommend.evaluation._parallel.WorkerLostWarning`) is
    one line on standard error, ``Note: ...``, when it happens; other warnings as
    Python shows them."""
    import warnings

    from metaeval.cli._app import err
    from metaeval.recommend.evaluation._parallel import WorkerLostWarning

    with warnings.catch_warnings():  # showwarning is put back as it was on leaving
        shown = warnings.showwarning

        def show(message, category, *args, **kwargs):
            if issubclass(category, WorkerLostWarning):
                err.print(f"Note: {' '.join(str(message).split())}", markup=False,
                          highlight=False, soft_wrap=True)
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        warnings.simplefilter("always", WorkerLostWarning)
        yield


def exit_worker_lost(exc: Exception):
    """Print the message of a worker process the system killed (most often for memory)
    as one line on standard error and exit with code 1: nothing was evaluated."""
    import typer

    from metaeval.cli._app import err

    err.print(f"Error: {' '.join(str(exc).split())}", markup=False)
    raise typer.Exit(1) from None


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
