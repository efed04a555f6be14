"""Commands that start worker processes stop them at SIGINT, SIGTERM and SIGHUP alike.

The signal is sent while ``metaeval knowledge build --jobs 2`` waits on its two workers
(still starting, so the test costs little): the command prints one line, exits with the
signal's code, and no worker is left.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.cli._signals import Stopped, stop_on_signals

# the handlers a terminal gives, whatever launched the test run (see the fixture)
pytestmark = pytest.mark.usefixtures("default_stop_handlers")


@pytest.mark.parametrize("name, code", [("SIGTERM", 143), ("SIGHUP", 129)])
def test_stop_signals_raise_stopped_with_the_exit_code_of_the_signal(name, code):
    number = getattr(signal, name)
    before = signal.getsignal(number)
    with pytest.raises(Stopped) as info:
        with stop_on_signals():
            os.kill(os.getpid(), number)
            time.sleep(5)  # the handler raises at once
    assert info.value.exit_code == code and info.value.name == name
    assert signal.getsignal(number) is before


def tiny_store(path, names=("a", "b", "c")):
    """A finished study of two 'algorithms' on datasets of 20 instances (no description)."""
    import numpy as np

    from metaeval.store import Store

    store = Store(path)
    y = np.tile([0, 1], 10)
    with store.writing():
        store.sync_study(
            {"folds": 2, "seed": 0},
            datasets=[{"name": n, "sha256": n * 64, "n_instances": 20, "n_features": 1,
                       "positive_fraction": 0.5, "family": n, "source": "test"}
                      for n in names],
            algorithms=[{"name": a, "estimator": f"m.{a}", "params": "{}",
                         "score_method": "predict_proba", "versions": "{}"}
                        for a in ("A", "B")],
            tasks=[(n, a, 0) for n in names for a in ("A", "B")])
        for n in names:
            for j, a in enumerate(("A", "B")):
                store.record_task(n, a, 0, status="done", wall=0.2, cpu=0.1, n_folds=2,
                                  fold=np.arange(20) % 2, y=y, score=(y + j) / 2,
                                  timings={k: [0.01, 0.01] for k in
                                           ("fit_wall", "fit_cpu", "predict_wall",
                                            "predict_cpu")})
    return store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return tiny_store(tmp_path_factory.mktemp("stops") / "s.duckdb")


def test_knowledge_build_stopped_while_its_workers_start_leaves_none(store, tmp_path):
    out = tmp_path / "k.npz"
    sent = threading.Event()
    before = set(multiprocessing.active_children())  # another test's, in this process

    def stop_when_workers_run():
        deadline = time.monotonic() + 60  # only catches a hang
        while time.monotonic() < deadline:
            if len(set(multiprocessing.active_children()) - before) >= 2:
                os.kill(os.getpid(), signal.SIGINT)
                sent.set()
                return
            time.sleep(0.01)

    watcher = threading.Thread(target=stop_when_workers_run, daemon=True)
    watcher.start()
    result = CliRunner().invoke(app, ["knowledge", "build", "--store", str(store.path),
                                      "--out", str(out), "--jobs", "2", "-q"])
    watcher.join()
    assert sent.is_set()
    assert result.exit_code == 130, (result.exit_code, result.output, result.exception)
    lines = result.output.strip().splitlines()
    assert lines == [f"Interrupted (SIGINT); no knowledge base was written ({out} is as it "
                     "was)."], result.output
    assert set(multiprocessing.active_children()) - before == set()
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_import_holds_sigterm_until_between_queries_then_says_so(tmp_path, monkeypatch):
    """SIGTERM during the import's transaction: rolled back, one line, exit 143."""
    import pyarrow
    from tests.test_import import _long

    from metaeval.store import Store

    store = tiny_store(tmp_path / "s.duckdb", names=("labor",))
    y = __import__("numpy").tile([0, 1], 10)
    path = tmp_path / "l.csv"
    _long(y, algorithms=("ext", "ext2")).to_csv(path, index=False)
    real, went_on = pyarrow.table, []

    def table_then_sigterm(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        went_on.append(True)  # not stopped here: held until between two queries
        return real(*args, **kwargs)

    def guard(signum, frame):  # a SIGTERM the command did not take: fail, never die
        raise RuntimeError("SIGTERM reached the test's guard")

    guard.metaeval_stop = True  # what the command line's stop handler is marked with
    saved = signal.signal(signal.SIGTERM, guard)
    try:
        monkeypatch.setattr(pyarrow, "table", table_then_sigterm)
        result = CliRunner().invoke(app, ["import", str(path), "--store", str(store.path)])
    finally:
        signal.signal(signal.SIGTERM, saved)
    assert result.exit_code == 143, (result.output, result.exception)
    assert result.output.strip().splitlines() == [
        f"Interrupted (SIGTERM); nothing was imported: {store.path} is as it was."]
    assert Store(store.path).algorithms()["name"].tolist() == ["A", "B"]
    assert went_on == [True, True]
