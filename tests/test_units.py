"""Units of work finer than a task: a task split into its folds stores exactly what the
whole task stores, a run stopped between folds resumes with no row missing or twice, the
units are recorded (the parallel profile) and run longest first."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.algorithms import get_algorithm
from metaeval.store import Store
from metaeval.study import LocalExecutor, Study, run_study
from metaeval.study._plan import plan_tasks
from metaeval.study._run import run_task
from metaeval.study._units import Unit, estimate_cost, lpt_makespan, merge_folds, plan_units

DATASETS = ["labor", "fertility", "haberman"]
ALGORITHMS = ["NB", "DT", "RF"]


def _study(path, jobs=1, **kw):
    return Study(datasets=DATASETS, algorithms=ALGORITHMS, folds=4, store=path,
                 executor=LocalExecutor(jobs=jobs), **kw)


def _content(path):
    """Everything a run stores but its clocks."""
    store = Store(path)
    tasks = store.tasks(include_pending=True).drop(columns=["wall", "cpu"])
    timings = store.timings()[["dataset", "algorithm", "repeat", "fold"]]
    return tasks, store.scores_frame(), store.fold_seeds(), timings


@pytest.fixture(scope="module")
def whole_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("whole") / "study.duckdb"
    run_study(_study(path), units="task")
    return path


def _same(a, b):
    for x, y in zip(_content(a), _content(b), strict=True):
        pd.testing.assert_frame_equal(x.reset_index(drop=True), y.reset_index(drop=True),
                                      check_exact=True)


def test_fold_units_store_what_whole_tasks_store(whole_store, tmp_path):
    path = tmp_path / "folds.duckdb"
    summary = run_study(_study(path, jobs=2), units="fold")
    assert summary.n_done == 9 and summary.n_units == 36  # 9 tasks x 4 folds
    _same(whole_store, path)
    scores = Store(path).scores_frame()
    assert len(scores) == len(Store(whole_store).scores_frame())
    units = Store(path).units()
    assert len(units) == 36 and units["fold"].notna().all()
    assert (units["status"] == "done").all() and (units["cpu"] > 0).all()
    assert Store(path).held_folds() == {}  # nothing left held once the tasks are stored
    whole_units = Store(whole_store).units()
    assert len(whole_units) == 9 and whole_units["fold"].isna().all()


def test_a_run_stopped_between_folds_resumes_without_gaps_or_doubles(whole_store, tmp_path):
    path = tmp_path / "stopped.duckdb"
    study = _study(path)
    stop_after = 7  # units: stop in the middle of a split task

    class Stop(BaseException):
        pass

    seen = []

    class Progress:
        def start(self, total, description):
            pass

        def advance(self, result):
            pass

        def stop(self):
            pass

    import metaeval.study._executors as executors

    original = executors.run_task

    def counting(task, **kw):
        if len(seen) == stop_after:
            raise Stop
        seen.append((task.key, kw.get("fold")))
        return original(task, **kw)

    executors.run_task = counting
    try:
        with pytest.raises(Stop):
            run_study(study, units="fold", progress=Progress())
    finally:
        executors.run_task = original
    store = Store(path)
    held = store.held_folds()
    assert sum(map(len, held.values())) > 0, "the stop must land inside a split task"
    assert (store.tasks(include_pending=True)["status"] != "failed").all()
    ran_before = len(store.units())
    assert ran_before == stop_after
    summary = run_study(study, units="fold")
    assert summary.n_done + summary.n_skipped == 9
    # the folds held from the stopped run are not run again
    assert summary.n_units == 36 - ran_before
    assert len(store.units()) == 36
    _same(whole_store, path)
    scores = store.scores_frame()
    assert not scores.duplicated(["dataset", "algorithm", "repeat", "row"]).any()
    assert store.held_folds() == {}


def test_merge_folds_is_the_whole_task_bit_for_bit():
    from metaeval.study._plan import Task

    task = Task("haberman", get_algorithm("RF"), repeat=0, folds=5, seed=3)
    whole = run_task(task)
    parts = [run_task(task, fold=k) for k in (3, 0, 4, 1, 2)]
    merged = merge_folds(parts)
    for name in ("fold", "y", "score"):
        np.testing.assert_array_equal(getattr(merged, name), getattr(whole, name))
    assert merged.warning == whole.warning and merged.n_folds == whole.n_folds
    assert run_task(task, fold=7).status == "failed"


def test_units_run_longest_first_and_split_only_the_long_tasks():
    study = Study(datasets=["labor", "magic"], algorithms=["NB", "SVM_RBF"], folds=10)
    tasks = plan_tasks(study)
    sizes = {"labor": (57, 16, 10), "magic": (19020, 10, 10)}
    units = plan_units(tasks, sizes, workers=4)
    costs = [u.cost for u in units]
    assert costs == sorted(costs, reverse=True)
    split = {u.task.key for u in units if u.fold is not None}
    assert ("magic", "SVM_RBF", 0) in split and ("labor", "NB", 0) not in split
    assert len(plan_units(tasks, sizes, workers=4, mode="fold")) == 40
    assert len(plan_units(tasks, sizes, workers=4, mode="task")) == 4
    held = plan_units(tasks, sizes, workers=4, mode="fold", held={tasks[0].key: {0, 5}})
    assert {u.fold for u in held if u.task.key == tasks[0].key} == set(range(10)) - {0, 5}
    with pytest.raises(ValueError, match="units"):
        plan_units(tasks, sizes, workers=4, mode="folds")
    assert estimate_cost(get_algorithm("SVM_RBF"), 19020, 10) > estimate_cost(
        get_algorithm("NB"), 19020, 10)


def test_lpt_makespan_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(30):
        costs = rng.integers(1, 20, size=int(rng.integers(1, 7))).tolist()
        workers = int(rng.integers(1, 4))
        # the LPT rule simulated by hand: each cost, longest first, to the least loaded
        loads = [0] * workers
        for c in sorted(costs, reverse=True):
            loads[loads.index(min(loads))] += c
        assert lpt_makespan(costs, workers) == max(loads)
        # and never better than the optimum, never worse than 4/3 of it (Graham 1969)
        best = min(max(sum(c for c, w in zip(costs, assign, strict=True) if w == k)
                       for k in range(workers))
                   for assign in np.ndindex(*([workers] * len(costs))))
        assert best <= lpt_makespan(costs, workers) <= 4 / 3 * best + 1e-9


def test_the_last_line_gives_the_parallel_efficiency(tmp_path):
    summary = run_study(Study(datasets=["labor"], algorithms=["NB"], folds=3,
                              store=tmp_path / "s.duckdb", executor=LocalExecutor(jobs=1)))
    last = summary.message().splitlines()[-1]
    assert last.startswith("Parallel efficiency ") and "x 1 worker)." in last
    assert summary.efficiency == pytest.approx(summary.unit_cpu / summary.wall)
    assert Unit(plan_tasks(Study(datasets=["labor"], algorithms=["NB"]))[0], 2).key[-1] == 2
    # but a warning the user must act on (results not saved) stays the very last line
    from dataclasses import replace

    lines = replace(summary, not_checkpointed="the disk is full.").message().splitlines()
    assert lines[-1] == "Warning: the disk is full." and lines[-2] == last


def test_a_split_task_fails_at_its_first_failed_fold_as_the_whole_task_does(tmp_path):
    from dataclasses import replace

    bad = replace(get_algorithm("LR", C=-1.0), name="LR_bad")
    stores = {}
    for mode in ("task", "fold"):
        stores[mode] = tmp_path / f"{mode}.duckdb"
        summary = run_study(Study(datasets=["labor"], algorithms=["NB", bad], folds=3,
                                  store=stores[mode], executor=LocalExecutor(jobs=1)),
                            units=mode)
        assert (summary.n_done, summary.n_failed) == (1, 1)
    _same(stores["task"], stores["fold"])
    failed = Store(stores["fold"]).tasks().set_index("algorithm").at["LR_bad", "error"]
    assert failed.startswith("InvalidParameterError in fit (fold 0 of 3)")
    # folds after the failed one are not run
    assert len(Store(stores["fold"]).units().query("algorithm == 'LR_bad'")) == 1


def test_the_assembler_waits_for_the_folds_before_a_failure():
    from metaeval.study._plan import Task
    from metaeval.study._units import Assembler

    task = Task("labor", get_algorithm("NB"), repeat=0, folds=3, seed=0)
    parts = [run_task(task, fold=k) for k in range(3)]
    failure = {k: replace_status(parts[k], k) for k in range(3)}
    assembler = Assembler({task.key: 3})
    assert assembler.add(failure[2]) is None  # folds 0 and 1 may fail first
    assert assembler.needless(task.key, 2) is False and assembler.needless(task.key, 1) is False
    assert assembler.add(parts[0]) is None
    got = assembler.add(failure[1])
    assert got is failure[1] and assembler.needless(task.key, 0)
    assert assembler.add(parts[2]) is None  # a late fold of a recorded task is dropped
    whole = Assembler({task.key: 3})
    assert [whole.add(p) for p in parts[:2]] == [None, None]
    np.testing.assert_array_equal(whole.add(parts[2]).score, run_task(task).score)


def replace_status(part, k):
    from metaeval.study._run import TaskResult

    failed = TaskResult(part.dataset, part.algorithm, part.repeat, "failed",
                        error=f"ValueError in fit (fold {k} of 3)")
    failed.unit_fold = k
    return failed


def test_a_store_written_before_units_were_recorded_reads_and_continues(tmp_path):
    import duckdb

    path = tmp_path / "old.duckdb"
    study = Study(datasets=["labor"], algorithms=["NB"], folds=3, store=path,
                  executor=LocalExecutor(jobs=1))
    run_study(study)
    con = duckdb.connect(str(path))
    for table in ("units", "held_folds", "held_scores"):
        con.execute(f"DROP TABLE {table}")
    con.close()
    old = Store(path)
    assert old.units().empty and list(old.units().columns)[:3] == ["run", "dataset",
                                                                    "algorithm"]
    assert old.held_folds() == {} and old.verify() == []
    summary = run_study(Study(datasets=["labor"], algorithms=["NB", "DT"], folds=3,
                              store=path, executor=LocalExecutor(jobs=1)), units="fold")
    assert (summary.n_done, summary.n_skipped) == (1, 1)
    units = Store(path).units()
    assert len(units) == 3 and set(units["algorithm"]) == {"DT"}


def test_the_cli_gives_the_unit_of_work(tmp_path):
    from typer.testing import CliRunner

    from metaeval.cli import app

    runner = CliRunner()
    store = tmp_path / "s.duckdb"
    done = runner.invoke(app, ["run", "--datasets", "labor", "--algorithms", "NB,DT",
                               "--folds", "3", "--jobs", "1", "--units", "fold", "--quiet",
                               "--store", str(store)])
    assert done.exit_code == 0, done.output
    units = Store(store).units()
    # every fold a unit of its own: three units a task, numbered 0 to 2
    assert sorted(units.groupby("algorithm")["fold"].apply(sorted).map(tuple)) == [
        (0, 1, 2), (0, 1, 2)]
    assert "(6 units of work)" in done.output
    bad = runner.invoke(app, ["run", "--datasets", "labor", "--units", "folds",
                              "--store", str(tmp_path / "t.duckdb")])
    assert bad.exit_code == 2
    assert "--units must be one of auto, fold, task, got 'folds'" in bad.output
    assert not (tmp_path / "t.duckdb").exists()
