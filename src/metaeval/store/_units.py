"""The SQL of a study's units of work: its parallel profile, and the folds held for resuming.

Three tables (created by ``_schema._SCHEMA`` when a store is opened for writing; stores
written before they existed still open, and read as "not recorded"):

============  ==================================================================
table         columns
============  ==================================================================
units         run (the run's id), dataset_id, algorithm_id, repeat, fold (NULL:
              the whole task), status ('done' | 'failed'), worker (``host:pid``),
              started, finished (Unix seconds, the worker's clock), wall, cpu
              (seconds), estimate (the cost estimated before the run): one row per
              unit of work run, the study's parallel profile
held_folds    dataset_id, algorithm_id, repeat, fold, n_folds, wall, cpu, fit_wall,
              fit_cpu, predict_wall, predict_cpu, warning_lines (JSON), note: the
              finished folds of a task split into folds whose other folds are not
              finished yet (removed when the task is recorded)
held_scores   dataset_id, algorithm_id, repeat, fold, row, y, score: their scores
============  ==================================================================

A stopped run keeps its held folds, and the next run runs only the task's other folds.
"""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from metaeval.store._connection import table_names

TABLES = ("units", "held_folds", "held_scores")
UNIT_COLUMNS = ("run", "dataset", "algorithm", "repeat", "fold", "status", "worker",
                "started", "finished", "wall", "cpu", "estimate")
_UNIT_VALUES = ("run", "fold", "status", "worker", "started", "finished", "wall", "cpu",
                "estimate")
_TIME_COLUMNS = ("fit_wall", "fit_cpu", "predict_wall", "predict_cpu")

SQL_UNITS = """
SELECT u.run, d.name AS dataset, a.name AS algorithm, u.repeat, u.fold, u.status, u.worker,
       u.started, u.finished, u.wall, u.cpu, u.estimate
FROM units u JOIN datasets d ON d.id = u.dataset_id JOIN algorithms a ON a.id = u.algorithm_id
ORDER BY u.started, u.dataset_id, u.algorithm_id, u.repeat, u.fold
"""


def present(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether this store has the unit tables (not one written before them)."""
    return set(TABLES) <= table_names(con)


def write_unit(con, key: list, unit: dict) -> None:
    """Insert one unit's row (inside the caller's transaction)."""
    values = [unit.get(c) for c in _UNIT_VALUES]
    con.execute("INSERT INTO units (run, dataset_id, algorithm_id, repeat, fold, status, "
                "worker, started, finished, wall, cpu, estimate) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values[:1] + key + values[1:])


def drop_held(con, key: list) -> None:
    """Remove a task's held folds (inside the caller's transaction)."""
    for table in ("held_folds", "held_scores"):
        con.execute(f"DELETE FROM {table} WHERE dataset_id = ? AND algorithm_id = ? "
                    "AND repeat = ?", key)


def write_fold(con, key: list, fold: int, *, n_folds: int, rows, y, score, times: dict,
               wall: float, cpu: float, warning_lines, note: str | None) -> None:
    """Hold one finished fold of a task (inside the caller's transaction)."""
    rows = np.asarray(rows, dtype=np.int32)
    n = rows.shape[0]
    where = key + [int(fold)]
    for table in ("held_folds", "held_scores"):
        con.execute(f"DELETE FROM {table} WHERE dataset_id = ? AND algorithm_id = ? "
                    "AND repeat = ? AND fold = ?", where)
    con.execute("INSERT INTO held_folds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                where + [int(n_folds), float(wall), float(cpu)]
                + [float(times[c]) for c in _TIME_COLUMNS]
                + [json.dumps(list(warning_lines)), note])
    frame = pa.table({
        "dataset_id": np.full(n, key[0], dtype=np.int16),
        "algorithm_id": np.full(n, key[1], dtype=np.int16),
        "repeat": np.full(n, key[2], dtype=np.int16),
        "fold": np.full(n, fold, dtype=np.int16),
        "row": rows,
        "y": np.asarray(y, dtype=np.int8),
        "score": np.asarray(score, dtype=np.float64),
    })
    con.register("metaeval_held", frame)
    con.execute("INSERT INTO held_scores SELECT * FROM metaeval_held")
    con.unregister("metaeval_held")


def read_units(con) -> pd.DataFrame:
    """The parallel profile: one row per unit of work run (empty for an older store)."""
    if not present(con):
        return pd.DataFrame({c: pd.Series(dtype=object) for c in UNIT_COLUMNS})
    return con.execute(SQL_UNITS).df()


def read_held(con) -> dict:
    """The held folds of pending tasks: ``{(dataset, algorithm, repeat): [fold, ...]}``,
    each fold a dict of its fields, with ``rows``, ``y`` and ``score`` arrays."""
    if not present(con):
        return {}
    folds = con.execute("""
        SELECT d.name, a.name, h.repeat, h.fold, h.n_folds, h.wall, h.cpu, h.fit_wall,
               h.fit_cpu, h.predict_wall, h.predict_cpu, h.warning_lines, h.note
        FROM held_folds h JOIN datasets d ON d.id = h.dataset_id
        JOIN algorithms a ON a.id = h.algorithm_id
        JOIN tasks t ON t.dataset_id = h.dataset_id AND t.algorithm_id = h.algorithm_id
             AND t.repeat = h.repeat AND t.status = 'pending'
        ORDER BY h.dataset_id, h.algorithm_id, h.repeat, h.fold
    """).fetchall()
    if not folds:
        return {}
    scores = con.execute("""
        SELECT d.name AS dataset, a.name AS algorithm, s.repeat, s.fold, s.row, s.y, s.score
        FROM held_scores s JOIN datasets d ON d.id = s.dataset_id
        JOIN algorithms a ON a.id = s.algorithm_id
        ORDER BY s.dataset_id, s.algorithm_id, s.repeat, s.fold, s.row
    """).df()
    groups = {k: g for k, g in scores.groupby(["dataset", "algorithm", "repeat", "fold"],
                                              sort=False)}
    held: dict = {}
    for (dataset, algorithm, repeat, fold, n_folds, wall, cpu, *times, lines, note) in folds:
        part = groups.get((dataset, algorithm, repeat, fold))
        if part is None:  # pragma: no cover - written in one transaction with its fold
            continue
        held.setdefault((dataset, algorithm, int(repeat)), []).append({
            "fold": int(fold), "n_folds": int(n_folds), "wall": wall, "cpu": cpu,
            **dict(zip(_TIME_COLUMNS, times, strict=True)),
            "warning_lines": json.loads(lines), "note": note,
            "rows": part["row"].to_numpy(np.int64), "y": part["y"].to_numpy(np.int8),
            "score": part["score"].to_numpy(np.float64),
        })
    return held
