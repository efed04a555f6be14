"""The SQL of a store's provenance: the runs that wrote it, full hyperparameters, fold seeds.

Three tables (created by ``_schema._SCHEMA`` when a store is opened for writing; stores
written before they existed still open, and read as "not recorded"):

==========================  ==============================================================
table                       columns
==========================  ==============================================================
runs                        id INTEGER, started TIMESTAMP, finished TIMESTAMP (NULL while
                            running or when the run was killed), environment (JSON: the
                            versions of metaeval, Python and the libraries, the CPU model,
                            the cores, where the tasks ran)
algorithm_hyperparameters   algorithm_id, hyperparameters (JSON: the estimator's full
                            ``get_params()`` when it was registered)
fold_seeds                  dataset_id, repeat, seed (random state of the stratified
                            k-fold shuffle of that dataset and repeat)
==========================  ==============================================================

A task was computed by the run whose time span holds the task's ``finished`` time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import duckdb
import pandas as pd

from metaeval.store._connection import table_names

TABLES = ("runs", "algorithm_hyperparameters", "fold_seeds")
RUN_COLUMNS = ("run", "started", "finished", "environment")
HYPERPARAMETER_COLUMNS = ("algorithm", "hyperparameters")
FOLD_SEED_COLUMNS = ("dataset", "repeat", "seed")

SQL_RUNS = "SELECT id AS run, started, finished, environment FROM runs ORDER BY id"
SQL_HYPERPARAMETERS = """
SELECT a.name AS algorithm, h.hyperparameters
FROM algorithm_hyperparameters h JOIN algorithms a ON a.id = h.algorithm_id
ORDER BY h.algorithm_id
"""
SQL_FOLD_SEEDS = """
SELECT d.name AS dataset, f.repeat, f.seed
FROM fold_seeds f JOIN datasets d ON d.id = f.dataset_id
ORDER BY f.dataset_id, f.repeat
"""
SQL_TASK_RUNS = """
SELECT d.name AS dataset, a.name AS algorithm, t.repeat,
       (SELECT max(r.id) FROM runs r WHERE r.started <= t.finished) AS run
FROM tasks t JOIN datasets d ON d.id = t.dataset_id JOIN algorithms a ON a.id = t.algorithm_id
WHERE t.status <> 'pending'
ORDER BY t.dataset_id, t.algorithm_id, t.repeat
"""


def present(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The provenance tables this store has (none for a store written before them)."""
    tables = table_names(con)
    return set(TABLES) & tables


def _empty(columns) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


def read_runs(con) -> pd.DataFrame:
    """One row per run that wrote the store; ``environment`` parsed into a dict."""
    if "runs" not in present(con):
        return _empty(RUN_COLUMNS)
    frame = con.execute(SQL_RUNS).df()
    frame["environment"] = [json.loads(v) for v in frame["environment"]]
    return frame


def read_hyperparameters(con) -> pd.DataFrame:
    """``[algorithm, hyperparameters]`` (a dict), for the algorithms that have them."""
    if "algorithm_hyperparameters" not in present(con):
        return _empty(HYPERPARAMETER_COLUMNS)
    frame = con.execute(SQL_HYPERPARAMETERS).df()
    frame["hyperparameters"] = [json.loads(v) for v in frame["hyperparameters"]]
    return frame


def read_fold_seeds(con) -> pd.DataFrame:
    """``[dataset, repeat, seed]`` of the (dataset, repeat) pairs that have one."""
    if "fold_seeds" not in present(con):
        return _empty(FOLD_SEED_COLUMNS)
    return con.execute(SQL_FOLD_SEEDS).df()


def read_task_runs(con) -> pd.DataFrame:
    """``[dataset, algorithm, repeat, run]``: the run that computed each finished task
    (``run`` is missing for a task finished before the store recorded its runs)."""
    if "runs" not in present(con):
        frame = con.execute(
            "SELECT d.name AS dataset, a.name AS algorithm, t.repeat FROM tasks t "
            "JOIN datasets d ON d.id = t.dataset_id JOIN algorithms a ON a.id = t.algorithm_id "
            "WHERE t.status <> 'pending' ORDER BY t.dataset_id, t.algorithm_id, t.repeat"
        ).df()
        return frame.assign(run=pd.Series([pd.NA] * len(frame), dtype="Int64"))
    frame = con.execute(SQL_TASK_RUNS).df()
    frame["run"] = frame["run"].astype("Int64")
    return frame


def start_run(con, environment: dict) -> int:
    """Record the start of a run; return its id."""
    row = con.execute("SELECT coalesce(max(id) + 1, 0) FROM runs").fetchall()[0]
    run_id = int(row[0])
    con.execute("INSERT INTO runs VALUES (?, now(), NULL, ?)",
                [run_id, json.dumps(environment, sort_keys=True, default=repr)])
    return run_id


def finish_run(con, run_id: int) -> None:
    """Record the end of a run."""
    con.execute("UPDATE runs SET finished = now() WHERE id = ?", [int(run_id)])


def write_hyperparameters(con, rows: Sequence[tuple[int, dict]]) -> None:
    """Record the full hyperparameters of algorithms that have none recorded yet."""
    for algorithm_id, params in rows:
        con.execute(
            "INSERT INTO algorithm_hyperparameters VALUES (?, ?) ON CONFLICT DO NOTHING",
            [int(algorithm_id), json.dumps(params, sort_keys=True, default=repr)],
        )


def write_fold_seeds(con, rows: Sequence[tuple[int, int, int]]) -> None:
    """Record the fold seed of each (dataset id, repeat) that has none recorded yet."""
    for dataset_id, repeat, seed in rows:
        con.execute("INSERT INTO fold_seeds VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                    [int(dataset_id), int(repeat), int(seed)])
