"""A study killed with SIGKILL and run again loses nothing, duplicates nothing, redoes
only what was unfinished, and ends with the same scores as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.store import Store
from metaeval.study import LocalExecutor, Study, run_study

DATASETS = ["labor", "fertility", "haberman"]
ALGORITHMS = ["NB", "DT", "RF"]


def _command(store):
    return [sys.executable, "-m", "metaeval", "run", "--datasets", ",".join(DATASETS),
            "--algorithms", ",".join(ALGORITHMS), "--folds", "3", "--jobs", "1",
            "--store", str(store), "--quiet"]


@pytest.mark.slow
def test_sigkill_then_rerun_loses_and_duplicates_nothing(tmp_path):
    store_path = tmp_path / "study.duckdb"
    progress = tmp_path / "study.duckdb.progress.json"
    proc = subprocess.Popen(_command(store_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # Wait until two tasks are committed (the runner rewrites the progress file after
    # each commit), then kill the runner without warning.
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            done = json.loads(progress.read_text())["done"]
        except (OSError, ValueError, KeyError):
            done = 0
        if done >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    store = Store(store_path)
    tasks_before = store.tasks(include_pending=True)
    assert len(tasks_before) == 9
    finished = tasks_before[tasks_before["status"] == "done"]
    assert 2 <= len(finished) < 9, "the kill must land in the middle of the run"
    assert (tasks_before["status"] != "failed").all()
    scores_before = store.scores_frame()
    # what is there is whole: every done task has all its rows, nothing else has any
    rows = scores_before.groupby(["dataset", "algorithm"]).size()
    sizes = store.datasets().set_index("name")["n_instances"]
    assert len(rows) == len(finished)
    for (dataset, _), n in rows.items():
        assert n == sizes[dataset]

    # run again: the same command, in this process (the killed one was a real process)
    rerun = CliRunner().invoke(app, _command(store_path)[3:])
    assert rerun.exit_code == 0, rerun.output
    n_left = 9 - len(finished)
    assert f"Ran {n_left} task{'s' if n_left > 1 else ''} " in rerun.stdout
    assert f"({len(finished)} finished earlier)" in rerun.stdout

    tasks = store.tasks(include_pending=True)
    assert len(tasks) == 9 and (tasks["status"] == "done").all()
    scores = store.scores_frame()
    key = ["dataset", "algorithm", "repeat", "row"]
    assert not scores.duplicated(key).any()
    assert len(scores) == 3 * (57 + 100 + 306)
    # the tasks finished before the kill are untouched, bit for bit
    kept = scores_before.merge(scores, on=key, suffixes=("_before", "_after"))
    assert len(kept) == len(scores_before)
    assert (kept["score_before"].to_numpy().tobytes()
            == kept["score_after"].to_numpy().tobytes())
    assert (kept["fold_before"] == kept["fold_after"]).all()

    # and the resumed store equals an uninterrupted run
    clean = Study(datasets=DATASETS, algorithms=ALGORITHMS, folds=3,
                  executor=LocalExecutor(jobs=1), store=tmp_path / "clean.duckdb")
    run_study(clean)
    pd.testing.assert_frame_equal(Store(clean.store).scores_frame(), scores)

    # a third run is a no-op that says so
    third = run_study(Study(datasets=DATASETS, algorithms=ALGORITHMS, folds=3,
                            executor=LocalExecutor(jobs=1), store=store_path))
    assert third.n_run == 0 and third.exit_code == 0
    assert third.message().startswith("Nothing to do: all 9 tasks of this study are already")
    assert not progress.exists()
