"""A stop signal that arrives while the interpreter runs a callback of its own.

An exception raised in a hook of ``os.fork`` (logging releases its lock in one each time
a worker process starts) or in a ``__del__`` method cannot reach the command: the
interpreter prints "Exception ignored in ..." and goes on. The stop must not be lost
there (the command went on and exited 0), nor leave logging's lock held.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from metaeval.cli._signals import Stopped, stop_on_signals

pytestmark = [pytest.mark.skipif(not hasattr(signal, "pthread_kill"),
                                 reason="POSIX signals"),
              pytest.mark.usefixtures("default_stop_handlers")]


def _call():
    return None


class _Dropped:
    """Raises SIGTERM while it is collected, and runs Python code after it (the handler
    runs at that call, inside ``__del__``)."""

    def __del__(self):
        signal.raise_signal(signal.SIGTERM)
        _call()


def test_a_stop_that_arrives_in_a_del_method_still_stops(capfd):
    with pytest.raises(Stopped) as info:
        with stop_on_signals():
            _Dropped()  # collected at once
            for _ in range(1200):  # a minute at most; the stop comes long before
                time.sleep(0.05)
    assert info.value.signum == signal.SIGTERM
    assert "Exception ignored" not in capfd.readouterr().err


FORK = textwrap.dedent("""
    import functools, os, signal, threading, time
    # a hook with no Python frame, registered before logging's: the signal is handled
    # at the next Python code, logging's own hook that releases its lock (as when a
    # worker process starts)
    os.register_at_fork(after_in_parent=functools.partial(signal.raise_signal,
                                                          signal.SIGTERM))
    import logging
    from metaeval.cli._signals import Stopped, stop_on_signals
    try:
        with stop_on_signals():
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            for _ in range(1200):
                time.sleep(0.05)
        print("not stopped")
    except Stopped as exc:
        print("stopped", exc.signum)
    worker = threading.Thread(target=logging.getLogger, args=("after-the-stop",),
                              daemon=True)
    worker.start()
    worker.join(60)
    print("logging locked" if worker.is_alive() else "logging free")
    os._exit(0)
""")


def test_a_stop_that_arrives_while_a_worker_process_starts_still_stops():
    done = subprocess.run([sys.executable, "-c", FORK], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.split("\n")[:2] == [f"stopped {int(signal.SIGTERM)}",
                                           "logging free"], (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr, done.stderr


def test_a_stop_swallowed_just_before_the_work_ends_stops_when_it_ends():
    """The stop comes back after the work is over: it is raised as the context is left,
    never sent to the handler put back then (SIGTERM's default would kill the process
    without a word)."""
    with pytest.raises(Stopped) as info:
        with stop_on_signals():
            _Dropped()  # the stop is due again in a moment; the work ends before
    assert info.value.signum == signal.SIGTERM
    time.sleep(0.3)  # the late delivery, if any, would end this process here


def test_a_stop_caught_by_code_that_catches_everything_stops_when_the_work_ends():
    """A library's bare ``except:`` around the point the signal came takes the stop; the
    work then ends normally, and the command stops there instead of exiting 0."""
    went_on = []
    with pytest.raises(Stopped) as info:
        with stop_on_signals():
            try:
                signal.raise_signal(signal.SIGINT)
                _call()
            except BaseException:  # noqa: BLE001 - what the library does
                pass
            went_on.append(True)
    assert info.value.signum == signal.SIGINT and went_on == [True]


def test_a_delivery_still_due_is_called_off_when_the_work_fails():
    # a stop taken inside a callback is sent again 50 ms later; if the work fails with
    # another error before then, the delivery must be called off before the former
    # (default) handlers are back, or SIGTERM would kill the process without a word
    code = textwrap.dedent("""\
        import signal, time
        import metaeval._signals as S
        S._safe = lambda frame: False  # every stop taken as if inside a fork hook
        try:
            with S.stop_on_signals():
                signal.raise_signal(signal.SIGTERM)
                raise ValueError("the work failed")
        except ValueError as error:
            print("failed:", error)
        time.sleep(0.5)
        print("alive")
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert done.stdout.split("\n")[:2] == ["failed: the work failed", "alive"]


def test_a_study_run_keeps_a_stop_that_lands_in_a_fork_hook():
    # metaeval run's own handler: a SIGTERM raised while os.fork runs its hooks (as a
    # worker process starts) was printed as "Exception ignored" and the run went on
    code = textwrap.dedent("""\
        import os, signal, time
        from metaeval.study._driver import Interrupted, _stop_on_signals
        try:
            with _stop_on_signals():
                os.register_at_fork(before=lambda: signal.raise_signal(signal.SIGTERM))
                pid = os.fork()
                if pid == 0:
                    os._exit(0)
                os.waitpid(pid, 0)
                time.sleep(2)
            print("went on")
        except Interrupted as stop:
            print("stopped", stop.exit_code)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stopped 143", (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr
