"""Tests of metaeval.study: configuration, seeds, cross-validation of a task, executors."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from metaeval.algorithms import custom_algorithm, get_algorithm
from metaeval.datasets import Dataset, load_dataset
from metaeval.store import Store
from metaeval.study import (
    DaskExecutor,
    LocalExecutor,
    Study,
    Task,
    derive_seed,
    failure_kind,
    plan_tasks,
    run_study,
    run_task,
)

# Estimators that misbehave on purpose. They live in a module on sys.path so that the
# spawned worker processes of the local executor can import them by name.
_HELPERS = '''
import os, time
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class Sleepy(ClassifierMixin, BaseEstimator):
    """Sleeps in fit, then predicts the training prior."""

    def __init__(self, seconds=1.0):
        self.seconds = seconds

    def fit(self, X, y):
        time.sleep(self.seconds)
        self.classes_ = np.unique(y)
        self.p_ = float(np.mean(y))
        return self

    def predict_proba(self, X):
        p = np.full(len(X), self.p_)
        return np.column_stack([1 - p, p])


class Crash(Sleepy):
    """Kills its own process in fit (a segfault, the OOM killer...) on small data."""

    def fit(self, X, y):
        if len(X) < 60:
            os._exit(3)
        return super().fit(X, y)


class Hang(Sleepy):
    """Sleeps for a minute in fit on small data."""

    def fit(self, X, y):
        self.seconds = 60.0 if len(X) < 60 else 0.0
        return super().fit(X, y)


class Swallow(Sleepy):
    """Sleeps a minute inside ``try: ... except Exception: pass``."""

    def fit(self, X, y):
        try:
            time.sleep(60.0)
        except Exception:
            pass
        return super().fit(X, y)


class Stubborn(Sleepy):
    """Blocks SIGALRM and sleeps for a minute in fit on small data (a fit stuck in C)."""

    def fit(self, X, y):
        self.seconds = 0.0
        if len(X) < 60:
            import signal
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
            time.sleep(60.0)
        return super().fit(X, y)


class NotANumber(Sleepy):
    def predict_proba(self, X):
        p = np.full(len(X), np.nan)
        return np.column_stack([1 - p, p])
'''


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    directory = tmp_path_factory.mktemp("helpers")
    (directory / "metaeval_test_helpers.py").write_text(_HELPERS)
    sys.path.insert(0, str(directory))
    yield directory
    sys.path.remove(str(directory))
    sys.modules.pop("metaeval_test_helpers", None)


def _study(tmp_path, **kw):
    kw.setdefault("datasets", ["labor", "fertility"])
    kw.setdefault("algorithms", ["NB", "DT"])
    kw.setdefault("folds", 3)
    kw.setdefault("executor", LocalExecutor(jobs=1))
    kw.setdefault("store", tmp_path / "study.duckdb")
    return Study(**kw)


# ------------------------------------------------------------------------------ seeds
def test_derive_seed_follows_the_documented_encoding():
    # entropy = [seed, len(key1), *utf8(key1), len(key2), *utf8(key2)]; "ab" = 97, 98
    expected = np.random.SeedSequence([7, 2, 97, 98, 1, 48]).generate_state(1, np.uint32)[0]
    assert derive_seed(7, "ab", 0) == int(expected)
    assert derive_seed(7, "ab", 0) == derive_seed(7, "ab", "0")
    assert len({derive_seed(0, "folds", d, r) for d in ("labor", "sonar") for r in range(3)}) == 6
    assert derive_seed(0, "ab", "c") != derive_seed(0, "a", "bc")
    assert 0 <= derive_seed(2**40, "x") < 2**32
    with pytest.raises(ValueError, match="seed"):
        derive_seed(-1, "x")


def test_derive_seed_does_not_depend_on_the_process():
    code = "from metaeval.study import derive_seed; print(derive_seed(3, 'folds', 'labor', 1))"
    outs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": h}, check=True).stdout.strip()
        for h in ("1", "2")
    }
    assert outs == {str(derive_seed(3, "folds", "labor", 1))}


# ------------------------------------------------------------------------------ one task
def test_run_task_matches_cross_val_predict():
    # Independent reference: scikit-learn's cross_val_predict with the same folds.
    data = load_dataset("labor")
    for name in ("NB", "3NN"):
        algorithm = get_algorithm(name)
        task = Task("labor", algorithm, 0, 3, 0)
        result = run_task(task)
        assert result.status == "done", result.error
        cv = StratifiedKFold(3, shuffle=True, random_state=derive_seed(0, "folds", "labor", 0))
        model = algorithm.build(list(data.categorical), list(data.numeric), random_state=0)
        reference = cross_val_predict(model, data.X, data.y, cv=cv, method="predict_proba")
        np.testing.assert_array_equal(result.score, reference[:, 1])
        np.testing.assert_array_equal(result.y, data.y)
        for k, (_, test) in enumerate(cv.split(data.X, data.y)):
            assert (result.fold[test] == k).all()
        assert result.n_folds == 3 and result.fit_wall.shape == (3,)
        times = np.concatenate([result.fit_wall, result.fit_cpu, result.predict_wall,
                                result.predict_cpu])
        assert np.all(times >= 0) and np.all(np.isfinite(times))


def test_run_task_seeds_each_fold_model_from_the_study_seed():
    # A plain loop with the documented seeds gives the same random-forest scores.
    data = load_dataset("fertility")
    rf = get_algorithm("RF", n_estimators=10)
    result = run_task(Task("fertility", rf, 1, 4, 5))
    cv = StratifiedKFold(4, shuffle=True, random_state=derive_seed(5, "folds", "fertility", 1))
    expected = np.empty(data.n_instances)
    for k, (train, test) in enumerate(cv.split(data.X, data.y)):
        model = rf.build(list(data.categorical), list(data.numeric),
                         random_state=derive_seed(5, "model", "fertility", "RF", 1, k))
        model.fit(data.X.iloc[train], data.y[train])
        expected[test] = rf.score(model, data.X.iloc[test])
    np.testing.assert_array_equal(result.score, expected)
    other = run_task(Task("fertility", rf, 1, 4, 6))  # another seed, other folds and trees
    assert not np.array_equal(other.fold, result.fold)


def _tiny(name, n_class1):
    # 12 instances, n_class1 of them in class 1, one numeric feature.
    y = np.zeros(12, dtype=np.int8)
    y[:n_class1] = 1
    return Dataset(name, pd.DataFrame({"x": np.arange(12.0)}), y)


def test_folds_shrink_to_the_smaller_class_and_one_instance_fails():
    nb = get_algorithm("NB")
    result = run_task(Task("tiny3", nb, 0, 5, 0, data=_tiny("tiny3", 3)))
    assert result.status == "done" and result.n_folds == 3
    assert "3 folds used instead of 5" in result.warning
    # each of the 3 folds holds exactly one class-1 instance (stratified)
    assert sorted(result.fold[:3].tolist()) == [0, 1, 2]
    failed = run_task(Task("tiny1", nb, 0, 5, 0, data=_tiny("tiny1", 1)))
    assert failed.status == "failed" and "at least 2 per class" in failed.error


def test_run_task_records_failures_instead_of_raising(helpers):
    labor = "labor"
    bad_param = run_task(Task(labor, get_algorithm("LR", C=-1.0), 0, 3, 0))
    assert bad_param.status == "failed"
    assert "in fit (fold 0 of 3)" in bad_param.error and "C" in bad_param.error
    nan = custom_algorithm("NaN", "metaeval_test_helpers.NotANumber")
    result = run_task(Task(labor, nan, 0, 3, 0))
    assert result.status == "failed" and "in score (fold 0 of 3)" in result.error
    assert "NaN" in result.error
    # Outside the main thread (a Dask worker's thread) the time limit is checked between
    # folds: with fits of 0.4 s and a 0.5 s limit the task stops after fold 1 (if that
    # fold took over 0.5 s) or fold 2 (>= 0.8 s), not 5.
    sleepy = custom_algorithm("Sleepy", "metaeval_test_helpers.Sleepy", {"seconds": 0.4})
    results = []
    thread = threading.Thread(
        target=lambda: results.append(run_task(Task(labor, sleepy, 0, 5, 0, timeout=0.5))))
    thread.start()
    thread.join()
    result = results[0]
    assert result.status == "failed"
    match = re.fullmatch(r"time limit of 0.5 s exceeded after fold (\d) of 5 \(([\d.]+) s "
                         r"elapsed\)\.", result.error)
    assert match is not None, result.error
    assert match.group(1) in ("1", "2") and float(match.group(2)) >= 0.5
    assert failure_kind(result.error) == "timeout"


def test_time_limit_interrupts_a_fold_in_the_main_thread(helpers):
    # In the main thread (tasks run in this process, or in a worker process) the limit
    # interrupts the running fit: a 30 s sleep under a 0.5 s limit ends after 0.5 s.
    sleepy = custom_algorithm("Sleepy", "metaeval_test_helpers.Sleepy", {"seconds": 30.0})
    result = run_task(Task("labor", sleepy, 0, 3, 0, timeout=0.5))
    # interrupted, not waited out: the recorded elapsed time is under a second (the
    # regular expression below) where the sleep would have taken 30 s
    assert result.status == "failed" and failure_kind(result.error) == "timeout"
    assert re.fullmatch(r"time limit of 0.5 s exceeded \(0\.\d s elapsed; the task was "
                        r"interrupted\)\.", result.error), result.error
    # the alarm is gone afterwards, and an estimator's own `except Exception` cannot
    # swallow it
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    swallow = custom_algorithm("Swallow", "metaeval_test_helpers.Swallow")
    result = run_task(Task("labor", swallow, 0, 3, 0, timeout=0.3))
    assert failure_kind(result.error) == "timeout", result.error


# ------------------------------------------------------------------------------ the study
def test_study_validation_reports_every_problem_at_once():
    with pytest.raises(ValueError) as info:
        Study(datasets=["labor", "nope", "labor"], algorithms=["NB", "KNN3", 7],
              folds=1, repeats=0, seed=-2, timeout=-1, store="")
    message = str(info.value)
    lines = message.splitlines()
    assert lines[0] == "Invalid study:"
    for expected in ("folds: must be an integer >= 2, got 1",
                     "repeats: must be an integer >= 1, got 0",
                     "seed: must be an integer >= 0, got -2",
                     "timeout: must be a number of seconds >= 0 (0: no limit), got -1",
                     "store: must be a file path",
                     "datasets[1]: unknown dataset 'nope'",
                     "datasets[2]: dataset 'labor' is listed twice",
                     "algorithms[1]: unknown algorithm 'KNN3'",
                     "algorithms[2]: must be an algorithm name or an Algorithm"):
        assert any(expected in line for line in lines), expected
    assert len(lines) == 10


def test_study_defaults_and_plan():
    study = Study()
    assert len(study.datasets) == 15 and study.algorithm_names[:2] == ["3NN", "5NN"]
    assert (study.folds, study.repeats, study.seed) == (10, 1, 0)
    assert study.executor == LocalExecutor()
    small = Study(datasets=["labor", "sonar"], algorithms=["NB", "DT", "RF"], repeats=2)
    tasks = plan_tasks(small)
    assert len(tasks) == small.n_tasks == 12
    assert [t.key for t in tasks[:4]] == [("labor", "NB", 0), ("labor", "DT", 0),
                                          ("labor", "RF", 0), ("sonar", "NB", 0)]
    assert tasks[-1].key == ("sonar", "RF", 1)
    assert replace(small, folds=5).folds == 5
    with pytest.raises(ValueError, match="folds"):
        replace(small, folds=1)


def test_from_toml_points_at_the_lines(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(textwrap.dedent("""\
        datasets = ["labor",
                    "nope"]
        folds = 1
        algorithms = ["NB", "KNN"]
        colour = "blue"

        [executor]
        jobs = 0

        [[datasets_extra]]
        x = 1
    """))
    with pytest.raises(ValueError) as info:
        Study.from_toml(path)
    lines = str(info.value).splitlines()
    assert lines[0] == f"Invalid study file {path}:"
    for expected in ("line 2: datasets[1]: unknown dataset 'nope'",
                     "line 3: folds: must be an integer >= 2",
                     "line 4: algorithms[1]: unknown algorithm 'KNN'",
                     "line 5: colour: unknown key 'colour'",
                     "line 8: executor.jobs: jobs must be a positive integer",
                     "line 10: datasets_extra: unknown key"):
        assert any(line.strip().startswith(f"- {expected}") for line in lines), expected


def test_from_toml_reads_custom_algorithms_and_datasets(tmp_path):
    frame = pd.DataFrame({"a": np.arange(20.0), "colour": ["red", "blue"] * 10,
                          "target": ["yes"] * 6 + ["no"] * 14})
    (tmp_path / "data").mkdir()
    frame.to_csv(tmp_path / "data" / "mine.csv", index=False)
    path = tmp_path / "study.toml"
    path.write_text(textwrap.dedent("""\
        folds = 3
        repeats = 2
        seed = 11
        timeout = 30
        store = "out/results.duckdb"

        [executor]
        dask_workers = 2

        [[datasets]]
        name = "labor"

        [[datasets]]
        name = "mine"
        path = "data/mine.csv"
        target = "target"
        pos_label = "yes"

        [[algorithms]]
        name = "NB"

        [[algorithms]]
        name = "RF10"
        base = "RF"
        params = { n_estimators = 10 }

        [[algorithms]]
        name = "ET"
        estimator = "sklearn.ensemble.ExtraTreesClassifier"
        params = { n_estimators = 5 }
        score = "tree_votes"
    """))
    study = Study.from_toml(path)
    assert (study.folds, study.repeats, study.seed, study.timeout) == (3, 2, 11, 30)
    assert study.store == tmp_path / "out" / "results.duckdb"
    assert study.executor == DaskExecutor(n_workers=2)
    assert study.dataset_names == ["labor", "mine"]
    mine = study.datasets[1]
    assert mine.y.sum() == 6 and mine.n_instances == 20
    assert study.algorithm_names == ["NB", "RF10", "ET"]
    assert dict(study.algorithms[1].params) == {"n_estimators": 10}
    assert study.algorithms[2].score_method == "tree_votes"

    path.write_text(textwrap.dedent("""\
        [[algorithms]]
        name = "ET"
        estimator = "sklearn.ensemble.NoSuchForest"

        [[algorithms]]
        name = "X"
        estimator = "sklearn.ensemble.ExtraTreesClassifier"
        score = "tree_votes"
        colour = 3

        [[datasets]]
        name = "gone"
        path = "nowhere.csv"
    """))
    with pytest.raises(ValueError) as info:
        Study.from_toml(path)
    text = str(info.value)
    assert "line 1: algorithms[0]: " in text and "NoSuchForest" in text
    assert "line 9: algorithms[1].colour: unknown key 'colour'" in text
    assert "line 13: datasets[0].path: cannot read 'nowhere.csv'" in text
    path.write_text("folds = 3\nseed = = 1\n")
    with pytest.raises(ValueError, match="not a valid TOML file.*line 2"):
        Study.from_toml(path)


def test_run_study_resumes_extends_and_refuses_conflicts(tmp_path):
    study = _study(tmp_path)
    first = run_study(study)
    assert (first.n_done, first.n_failed, first.n_skipped, first.exit_code) == (4, 0, 0, 0)
    store = Store(study.store)
    before = store.scores_frame()
    again = run_study(study)
    assert again.n_run == 0 and again.message().startswith("Nothing to do: all 4 tasks")
    # an extension (a new dataset and a second repeat) runs only the new tasks
    bigger = replace(study, datasets=["labor", "fertility", "haberman"], repeats=2)
    extended = run_study(bigger)
    assert (extended.n_skipped, extended.n_done) == (4, 8)
    after = store.scores_frame()
    assert len(after) == 2 * 2 * (57 + 100 + 306)
    kept = after.merge(before, on=["dataset", "algorithm", "repeat", "row"])
    assert len(kept) == len(before)
    assert kept["score_x"].to_numpy().tobytes() == kept["score_y"].to_numpy().tobytes()
    assert store.study_config()["datasets"] == ["labor", "fertility", "haberman"]
    assert store.study_config()["repeats"] == 2
    # different folds or seed, or an algorithm changed under the same name: refused
    for change in ({"folds": 4}, {"seed": 1},
                   {"algorithms": [get_algorithm("NB", var_smoothing=0.1), "DT"]}):
        with pytest.raises(ValueError, match="holds a different study"):
            run_study(replace(study, **change))
    assert len(store.scores_frame()) == len(after)


def test_failed_tasks_are_recorded_and_can_be_retried(tmp_path):
    bad = replace(get_algorithm("LR", C=-1.0), name="LR_bad")
    study = _study(tmp_path, datasets=["labor"], algorithms=["NB", bad])
    summary = run_study(study)
    assert (summary.n_done, summary.n_failed, summary.exit_code) == (1, 1, 1)
    assert summary.failed[0][:3] == ("labor", "LR_bad", 0)
    assert "C" in summary.failed[0][3]
    tasks = Store(study.store).tasks()
    assert tasks.set_index("algorithm").at["LR_bad", "status"] == "failed"
    y, S, algorithms = Store(study.store).scores("labor")
    assert algorithms == ["NB"]
    # not retried by default (still exit code 1), retried on request
    again = run_study(study)
    assert again.n_run == 0 and again.exit_code == 1
    retried = run_study(study, retry_failed=True)
    assert (retried.n_run, retried.n_failed) == (1, 1)
    assert len(Store(study.store).tasks()) == 2


@pytest.mark.slow
def test_local_pool_gives_the_same_scores_and_survives_crashes_and_hangs(tmp_path, helpers):
    # jobs=2 must reproduce jobs=1 bit for bit; a worker that dies and a task that hangs
    # past its time limit are recorded as failed, and the other tasks still complete.
    algorithms = ["NB", "DT", "3NN"]
    reference = _study(tmp_path, algorithms=algorithms, store=tmp_path / "ref.duckdb")
    run_study(reference)
    # Crash and Hang misbehave on labor (57 rows: training folds of 38) only.
    crash = custom_algorithm("Crash", "metaeval_test_helpers.Crash", {"seconds": 0.0})
    hang = custom_algorithm("Hang", "metaeval_test_helpers.Hang")
    stubborn = custom_algorithm("Stubborn", "metaeval_test_helpers.Stubborn")
    pooled = _study(tmp_path, algorithms=[*algorithms, crash, hang, stubborn], timeout=3,
                    executor=LocalExecutor(jobs=2), store=tmp_path / "pool.duckdb")
    summary = run_study(pooled)
    assert (summary.n_done, summary.n_failed) == (9, 3), summary.failed
    errors = {(d, a): e for d, a, _, e in summary.failed}
    assert set(errors) == {("labor", "Crash"), ("labor", "Hang"), ("labor", "Stubborn")}
    assert "worker process died (exit code 3)" in errors[("labor", "Crash")]
    # a sleeping fit is interrupted in its worker; one that blocks the alarm (as a fit
    # stuck in compiled code would) has its worker killed
    assert "time limit of 3 s exceeded" in errors[("labor", "Hang")]
    assert "the task was interrupted" in errors[("labor", "Hang")]
    assert "time limit of 3 s exceeded" in errors[("labor", "Stubborn")]
    assert "worker process killed" in errors[("labor", "Stubborn")]
    assert [failure_kind(errors[("labor", a)]) for a in ("Crash", "Hang", "Stubborn")] \
        == ["lost", "timeout", "timeout"]
    expected = Store(reference.store).scores_frame()
    got = Store(pooled.store).scores_frame()
    got = got[got["algorithm"].isin(algorithms)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected)
    assert got["score"].to_numpy().tobytes() == expected["score"].to_numpy().tobytes()


def test_a_task_whose_worker_died_runs_again_by_default_an_estimator_error_does_not(tmp_path):
    bad = replace(get_algorithm("LR", C=-1.0), name="LR_bad")
    study = _study(tmp_path, datasets=["labor"], algorithms=["NB", "DT", bad])
    store = Store(study.store)
    first = run_study(study)
    assert (first.n_done, first.n_failed) == (2, 1)
    # as if NB's worker process had been killed (the OOM killer) in that run
    with store.writing():
        store.record_task("labor", "NB", 0, status="failed",
                          error="worker process died (killed by signal 9) while running "
                          "the task.")
    again = run_study(study)
    assert (again.n_run, again.n_done, again.n_lost_rerun) == (1, 1, 1)
    assert "1 of them had failed earlier because their worker process died" in again.message()
    tasks = store.tasks().set_index("algorithm")
    assert tasks.at["NB", "status"] == "done" and tasks.at["LR_bad", "status"] == "failed"
    assert "stays failed until the study is run with `--retry-failed`" in again.message()
    assert run_study(study).n_run == 0
    assert run_study(study, retry_failed=True).n_run == 1


def test_a_study_file_without_store_writes_to_a_store_named_after_it(tmp_path):
    path = tmp_path / "churn-2024.toml"
    path.write_text('datasets = ["labor"]\nalgorithms = ["NB"]\n')
    assert Study.from_toml(path).store == Path("metaeval-results") / "churn-2024.duckdb"
    path.write_text('datasets = ["labor"]\nstore = "out/s.duckdb"\n')
    assert Study.from_toml(path).store == tmp_path / "out" / "s.duckdb"


def test_default_time_limit_and_zero_for_none():
    from metaeval.study import DEFAULT_TIMEOUT

    assert DEFAULT_TIMEOUT == 1800 and Study(datasets=["labor"]).timeout == 1800
    assert Study(datasets=["labor"], timeout=0).timeout is None
    assert Study(datasets=["labor"], timeout=None).timeout is None
    assert Study(datasets=["labor"], timeout=60).timeout == 60.0


def test_a_plain_script_with_an_estimator_class_of_its_own_runs(tmp_path):
    # No __main__ guard, workers asked for, and an estimator defined in the script
    # itself: worker processes cannot import it, so the tasks run in the script's
    # process, with a warning that says why.
    script = tmp_path / "mine.py"
    script.write_text(textwrap.dedent("""\
        import warnings
        import numpy as np
        from sklearn.base import BaseEstimator, ClassifierMixin
        from metaeval.algorithms import custom_algorithm
        from metaeval.study import LocalExecutor, Study, run_study

        class Prior(ClassifierMixin, BaseEstimator):
            def fit(self, X, y):
                self.classes_ = np.unique(y)
                self.p_ = float(np.mean(y))
                return self

            def predict_proba(self, X):
                p = np.full(len(X), self.p_)
                return np.column_stack([1 - p, p])

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            summary = run_study(Study(datasets=["labor"], algorithms=[
                "NB", custom_algorithm("Prior", Prior)], folds=2,
                executor=LocalExecutor(jobs=2), store="mine.duckdb"))
        print(summary.message())
        print([str(w.message)[:60] for w in caught])
        """))
    done = subprocess.run([sys.executable, script.name], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "2 done, 0 failed" in done.stdout, done.stdout
    assert "algorithm 'Prior' is defined in the __main__ module" in done.stdout
    # said as it ran: in this process, and the efficiency over one worker, not two
    assert "on 1 process (this one, one unit at a time) in" in done.stdout, done.stdout
    assert "x 1 worker)." in done.stdout, done.stdout
