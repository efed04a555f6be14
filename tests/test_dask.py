"""The Dask executor on a real LocalCluster gives the local executor's scores, bit for bit
(the seeds' algorithms, and a slice of the wide pool)."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from dataclasses import replace

import pandas as pd
import pytest

from metaeval.algorithms import family_of, get_algorithm
from metaeval.store import Store
from metaeval.study import DaskExecutor, LocalExecutor, Study, run_study

#: a slice of the wide pool, one configuration of five families
WIDE_SLICE = ["lr:C=1,penalty=l1", "rf:trees=25,features=sqrt,leaf=5",
              "knn:k=5,weights=distance,metric=manhattan", "svm_rbf:C=1,gamma=0.1",
              "sgd:loss=hinge,alpha=0.001", "knn:k=35"]  # the last cannot fit 28 rows


@pytest.mark.slow
def test_dask_local_cluster_matches_the_local_executor(tmp_path):
    # two studies on one LocalCluster (starting one costs some 5 CPU-s): the seeds'
    # algorithms with one that fails, then a slice of the wide pool
    distributed = pytest.importorskip("dask.distributed")
    bad = replace(get_algorithm("LR", C=-1.0), name="LR_bad")
    # RF of 10 trees: seeded from the study as the seeds' RF of 100 is (the same code
    # path, one random_state per fold), a tenth of the fitting: it ran three times over
    # (locally, on Dask, in folds on Dask), 3.3 CPU-s of the test's 15 with 100 trees
    rf = get_algorithm("RF", n_estimators=10)
    local = Study(datasets=["labor", "fertility", "haberman"],
                  algorithms=["NB", "DT", rf, bad], folds=3, seed=3,
                  executor=LocalExecutor(jobs=1), store=tmp_path / "local.duckdb")
    expected = run_study(local)
    assert (expected.n_done, expected.n_failed) == (9, 3)
    wide = Study(datasets=["labor", "fertility"], algorithms=WIDE_SLICE, folds=2, seed=5,
                 executor=LocalExecutor(jobs=1), store=tmp_path / "wide-local.duckdb")
    wide_expected = run_study(wide)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        on_dask = replace(local, executor=DaskExecutor(scheduler=cluster.scheduler_address),
                          store=tmp_path / "dask.duckdb")
        summary = run_study(on_dask)
        wide_on_dask = replace(wide,
                               executor=DaskExecutor(scheduler=cluster.scheduler_address),
                               store=tmp_path / "wide-dask.duckdb")
        wide_summary = run_study(wide_on_dask)
        # every fold a unit of its own: the same store as whole tasks
        in_folds = replace(on_dask, store=tmp_path / "dask-folds.duckdb")
        folds_summary = run_study(in_folds, units="fold")
        cancelled = _units_after_the_first_need_not_run(cluster.scheduler_address)
    assert folds_summary.n_units >= 9 * 2
    # the ten folds of one task, every one needless once the first is back: those not
    # yet finished are cancelled (2 workers hold at most a few at a time)
    assert 1 <= cancelled["returned"] < 10, cancelled
    _the_same_without_clocks(Store(local.store), Store(in_folds.store))
    _the_wide_slice_matches(wide, wide_expected, wide_on_dask, wide_summary)
    assert (summary.n_done, summary.n_failed, summary.exit_code) == (9, 3, 1)
    assert {a for _, a, _, _ in summary.failed} == {"LR_bad"}
    want, got = Store(local.store), Store(on_dask.store)
    pd.testing.assert_frame_equal(got.scores_frame(), want.scores_frame())
    assert (got.scores_frame()["score"].to_numpy().tobytes()
            == want.scores_frame()["score"].to_numpy().tobytes())
    timings = got.timings()
    assert len(timings) == 9 * 3 and (timings[["fit_wall", "fit_cpu"]] >= 0).all().all()
    failed = got.tasks().set_index(["dataset", "algorithm"])
    assert "InvalidParameterError" in failed.at[("labor", "LR_bad"), "error"]


def _units_after_the_first_need_not_run(address):
    from metaeval.study._plan import plan_tasks
    from metaeval.study._units import Unit

    task, = plan_tasks(Study(datasets=["haberman"], algorithms=["RF"], folds=10, seed=1))
    units = [Unit(task, fold=k) for k in range(10)]
    returned = []
    for result in DaskExecutor(scheduler=address).run(units, skip=lambda unit: bool(returned)):
        returned.append(result.unit_fold)
    return {"returned": len(returned), "folds": returned}


def _the_same_without_clocks(want, got):
    for read in (lambda s: s.tasks().drop(columns=["wall", "cpu"]), Store.scores_frame,
                 Store.fold_seeds):
        pd.testing.assert_frame_equal(read(got), read(want), check_exact=True)


def _the_wide_slice_matches(local, expected, on_dask, summary):
    """The wide pool on a real Dask LocalCluster: a small slice gives the local scores."""
    assert (summary.n_done, summary.n_failed) == (expected.n_done, expected.n_failed)
    # labor's 2-fold training sets hold 28 rows: k = 35 fails there, and the study goes on
    assert {(d, a) for d, a, _, _ in summary.failed} == {("labor", "knn:k=35")}
    want, got = Store(local.store).scores_frame(), Store(on_dask.store).scores_frame()
    pd.testing.assert_frame_equal(got, want)
    assert {family_of(a) for a in got["algorithm"]} == {"lr", "rf", "knn", "svm_rbf", "sgd"}


def test_an_unreachable_scheduler_creates_nothing(tmp_path):
    pytest.importorskip("dask.distributed")
    import socket

    from typer.testing import CliRunner

    from metaeval.cli import app

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    store = tmp_path / "new" / "s.duckdb"
    import dask

    from metaeval.study._executors import SCHEDULER_TIMEOUT_KEY

    # a shorter wait than the default 10 s: the outcome is the same, sooner (nothing
    # listens on the port: every try is refused at once, until the wait is over)
    with dask.config.set({SCHEDULER_TIMEOUT_KEY: "0.5s"}):
        result = CliRunner().invoke(app, ["run", "--datasets", "labor", "--algorithms", "NB",
                                          "--folds", "2", "--scheduler",
                                          f"tcp://127.0.0.1:{port}", "--store", str(store),
                                          "-q"])
    assert result.exit_code == 2, result.output
    assert "Cannot reach the Dask scheduler" in result.output
    # the configured wait, not the default 10 s (Dask's own words name the wait)
    assert "after 0.5 s" in result.output, result.output
    assert not (tmp_path / "new").exists()  # no store, no tasks, no folder


@pytest.mark.slow
def test_a_plain_script_on_dask_logs_beside_the_store_and_a_lost_worker_is_one_line(
        tmp_path):
    # a plain script without a main guard: Dask starts its workers with multiprocessing's
    # spawn, which would import the script again in each of them, and each would start the
    # study (and a cluster) anew. (This was a test of its own, a script of one NB task on
    # one worker; this script is one too, beside the killer on a second worker: one
    # LocalCluster started, not two, some 4 CPU-s less.)
    pytest.importorskip("dask.distributed")
    (tmp_path / "killer.py").write_text(textwrap.dedent("""\
        import os

        from sklearn.base import BaseEstimator, ClassifierMixin


        class Killer(ClassifierMixin, BaseEstimator):
            def fit(self, X, y):
                os._exit(3)  # the worker process dies

            def predict_proba(self, X):
                raise AssertionError("never fitted")
        """))
    # two workers, one task each: the killer runs first (longest first), and a task
    # queued behind it on its worker would die with it (Dask's allowed failures: 0)
    (tmp_path / "on_dask.py").write_text(textwrap.dedent("""\
        from metaeval.algorithms import Algorithm
        from metaeval.study import DaskExecutor, Study, run_study

        killer = Algorithm(name="killer", estimator="killer.Killer")
        summary = run_study(Study(datasets=["labor"], algorithms=["NB", killer], folds=2,
                                  store="dask.duckdb", timeout=None,
                                  executor=DaskExecutor(n_workers=2)))
        print(summary.message())
        """))
    env = {**__import__("os").environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0",
           "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "on_dask.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "1 done, 1 failed" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "A Dask worker was lost while running labor x killer" in lines[0]
    log = (tmp_path / "dask.duckdb.dask.log").read_text()
    assert "distributed" in log


_SLEEPY = '''
import os, time
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class Sleepy(ClassifierMixin, BaseEstimator):
    """Sleeps $SLEEPY_SECONDS in fit, or until the file $SLEEPY_STOP exists."""

    def fit(self, X, y):
        end = time.monotonic() + float(os.environ.get("SLEEPY_SECONDS", "3"))
        stop = os.environ.get("SLEEPY_STOP")
        while time.monotonic() < end and not (stop and os.path.exists(stop)):
            time.sleep(0.05)
        self.classes_ = np.unique(y)
        self.p_ = float(np.mean(y))
        return self

    def predict_proba(self, X):
        p = np.full(len(X), self.p_)
        return np.column_stack([1 - p, p])
'''


def _watched_run(tmp_path, monkeypatch, cluster):
    """Start a study of sleeping fits on ``cluster`` in a thread; return the thread, its
    outcome, the messages said, and an event set once the watcher saw a unit running."""
    import threading

    from metaeval.algorithms import Algorithm
    from metaeval.study import _dask_watch

    said, seen = [], threading.Event()
    original_check = _dask_watch.WorkerWatch.check

    def check(self, *args, **kw):
        self.say = said.append
        original_check(self, *args, **kw)
        if any(self.running.values()):
            seen.set()

    monkeypatch.setattr(_dask_watch.WorkerWatch, "check", check)
    study = Study(datasets=["labor", "fertility"],
                  algorithms=[Algorithm(name="Sleepy", estimator="sleepy_dask.Sleepy")],
                  folds=2, timeout=None, store=tmp_path / "watch.duckdb",
                  executor=DaskExecutor(scheduler=cluster.scheduler_address))
    outcome = {}

    def target():
        try:
            outcome["summary"] = run_study(study, units="task")
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, outcome, said, seen


@pytest.fixture
def sleepy(tmp_path, monkeypatch):
    (tmp_path / "sleepy_dask.py").write_text(_SLEEPY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the cluster's worker processes
    yield
    sys.modules.pop("sleepy_dask", None)


def _wait_until(condition, what, timeout=180.0):
    """Poll ``condition``; a hang guard only (generous), never a measure of speed."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            pytest.fail(f"{what} did not happen within {timeout} s")
        time.sleep(0.1)


class _Scheduler:
    """What ``Client.processing`` answers: worker address -> keys it runs (set by the
    test), for the watcher's bookkeeping alone (the cluster tests run a real one)."""

    def __init__(self, processing):
        self.now = processing

    def processing(self):
        return {w: list(keys) for w, keys in self.now.items()}


def _unit(name):
    from types import SimpleNamespace

    return SimpleNamespace(task=SimpleNamespace(dataset="labor", repeat=0,
                                                algorithm=SimpleNamespace(name=name)),
                           fold=None)


def test_the_watcher_says_a_unit_that_ran_again_and_ended_between_two_checks():
    """As the executor calls it: the finished unit leaves ``by_key`` first, then the
    watcher hears of it. Worker A, last seen running k, is lost; k ran again on B and
    ended before the watcher's next periodic question: said all the same, once. A unit
    whose worker is still there, or one that failed, is not said."""
    from metaeval.study._dask_watch import WorkerWatch

    said = []
    k, m = _unit("Sleepy"), _unit("Other")
    by_key = {"k": k, "m": m}
    scheduler = _Scheduler({"tcp://A": ["k"], "tcp://B": ["m"]})
    watch = WorkerWatch(scheduler, by_key, "tcp://s", say=said.append)
    scheduler.now = {"tcp://B": ["m"]}  # A lost; k ran again on B, and has ended
    watch.finished("k", by_key.pop("k"), ok=True)
    assert said == ["A Dask worker was lost (tcp://A) while running labor x Sleepy "
                    "(repeat 0); it ran again on another worker."]
    assert watch.rerun == [k]
    scheduler.now = {"tcp://B": []}
    watch.finished("m", by_key.pop("m"), ok=True)  # its worker is still there
    assert len(said) == 1 and watch.rerun == [k]

    said.clear()  # a unit of a lost worker that failed is the executor's to say
    by_key = {"k": k}
    scheduler.now = {"tcp://A": ["k"], "tcp://B": []}
    watch = WorkerWatch(scheduler, by_key, "tcp://s", say=said.append)
    scheduler.now = {"tcp://B": []}
    watch.finished("k", by_key.pop("k"), ok=False)
    assert said == [] and watch.rerun == []


@pytest.mark.slow
def test_a_lost_dask_worker_is_said_with_the_units_that_ran_again(tmp_path, monkeypatch,
                                                                 sleepy):
    distributed = pytest.importorskip("dask.distributed")
    # every fit sleeps until the worker is killed (a hang guard of 120 s); then the unit
    # that runs again ends at once, most often before the watcher's next check (every
    # second): the watcher must still say it (it asks the scheduler as the unit ends)
    monkeypatch.setenv("SLEEPY_SECONDS", "120")
    stop = tmp_path / "stop-sleeping"
    monkeypatch.setenv("SLEEPY_STOP", str(stop))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        thread, outcome, said, seen = _watched_run(tmp_path, monkeypatch, cluster)
        assert seen.wait(180), outcome
        busy = [w for w, keys in client.processing().items()
                if any(str(k).startswith("metaeval-") for k in keys)]
        assert busy, "a unit must be running"
        try:  # that worker dies (its answer may never come)
            client.run(__import__("os")._exit, 1, workers=busy[:1])
        except Exception:  # noqa: BLE001, S110 - the worker is gone, as meant
            pass
        stop.touch()  # the unit that ran again and the other worker's fits end now
        thread.join(300)
        assert not thread.is_alive() and "error" not in outcome, outcome
    summary = outcome["summary"]
    assert (summary.n_done, summary.n_failed) == (2, 0)
    lost = [line for line in said if line.startswith("A Dask worker was lost")]
    assert lost and all("ran again on another worker" in line for line in lost), said
    assert any("x Sleepy (repeat 0)" in line for line in lost), said


@pytest.mark.slow
def test_with_no_dask_worker_left_the_run_says_it_waits_and_goes_on(tmp_path, monkeypatch,
                                                                   sleepy):
    distributed = pytest.importorskip("dask.distributed")
    from metaeval.study import _dask_watch

    monkeypatch.setenv("SLEEPY_SECONDS", "2")
    # the run says it waits after SAY_WAITING s without a worker (5 s): 0.5 s here, the
    # same message and the same path, 4.5 s less idle
    monkeypatch.setattr(_dask_watch, "SAY_WAITING", 0.5)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        thread, outcome, said, seen = _watched_run(tmp_path, monkeypatch, cluster)
        assert seen.wait(180), outcome
        cluster.scale(0)  # the last worker goes
        _wait_until(lambda: any(line.startswith("No Dask worker is left") for line in said),
                    "the message that the run waits for workers")
        waiting = next(line for line in said if line.startswith("No Dask worker is left"))
        assert cluster.scheduler_address in waiting and "Ctrl-C" in waiting
        assert "dask worker" in waiting and thread.is_alive()
        # the worker that comes back is a new process, started with this environment: its
        # fits need not sleep (the run's 8 s of sleeping fits would only wait)
        monkeypatch.setenv("SLEEPY_SECONDS", "0")
        cluster.scale(1)  # a worker comes back: the run goes on and ends
        thread.join(300)
        assert not thread.is_alive() and "error" not in outcome, outcome
    assert outcome["summary"].n_done == 2
    assert any(line.endswith("again: the run goes on.") for line in said), said
