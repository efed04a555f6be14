"""Writing a store: the write API of :class:`~metaeval.store.Store`.

Every write happens inside ``Store.writing`` (DuckDB's single-writer lock), each
one in its own transaction.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from metaeval.store import _metafeatures, _provenance, _units
from metaeval.store._connection import (
    _first,
    _float,
    _os_error,
    _rollback,
)
from metaeval.store._import import import_predictions as _import_predictions
from metaeval.store._integrity import translate
from metaeval.store._schema import _ALGORITHM_COLUMNS, _DATASET_COLUMNS


class StoreWriting:
    """The write API of :class:`~metaeval.store.Store` (a part of it, not used alone)."""

    def checkpoint(self) -> None:
        """Merge DuckDB's write-ahead log (``<store>.wal``) into the store file now.

        DuckDB does this when the last connection closes, but silently gives up when the
        disk is full; the study runner calls it at the end of a run to find out.

        Raises
        ------
        StoreFullError
            When there is no space left for it (the data are safe in the log, and the
            next writer merges it).
        """
        try:
            self._writer().execute("CHECKPOINT")
        except duckdb.Error as exc:
            known = translate(exc, self.path)
            if known is None:
                raise
            raise known from None

    def start_run(self, environment: dict) -> int:
        """Record that a run starts now, in ``environment``; return the run's id."""
        return _provenance.start_run(self._writer(), environment)

    def finish_run(self, run: int) -> None:
        """Record that run ``run`` (an id from :meth:`start_run`) ends now."""
        _provenance.finish_run(self._writer(), run)

    def record_description(self, dataset: str, *, groups: pd.DataFrame,
                           features: pd.DataFrame, landmarks: pd.DataFrame,
                           settings: dict) -> None:
        """Cache one dataset's description (replacing any older one) in one transaction.

        Parameters
        ----------
        dataset : str
            A registered dataset.
        groups : DataFrame
            Columns group, kind, status, wall, cpu, n_features, n_failed, error.
        features : DataFrame
            Columns group, feature, value, error.
        landmarks : DataFrame
            Columns landmarker, row, y, score.
        settings : dict
            JSON-serialisable settings of the description (library versions, sizes).
        """
        con = self._writer()
        _metafeatures.write_description(
            con, self._id("datasets", dataset), groups, features, landmarks,
            json.dumps(settings, sort_keys=True),
        )

    def sync_study(
        self,
        config: dict,
        *,
        datasets: Sequence[dict],
        algorithms: Sequence[dict],
        tasks: Sequence[tuple[str, str, int]],
        fold_seeds: Sequence[tuple[str, int, int]] = (),
    ) -> pd.DataFrame:
        """Record a study plan in one transaction; return the status of its tasks.

        New datasets and algorithms are registered (existing ones are kept as they are:
        comparing them is the caller's job), tasks not yet in the store are added as
        'pending', and ``config`` replaces the recorded study configuration.

        Parameters
        ----------
        config : dict
            JSON-serialisable study configuration.
        datasets : sequence of dict
            Keys as :meth:`datasets` columns.
        algorithms : sequence of dict
            Keys as :meth:`algorithms` columns (params and versions as JSON text), and
            optionally ``hyperparameters`` (a dict: the estimator's full
            ``get_params()``), recorded for an algorithm that has none yet when its
            recorded versions are these ones.
        tasks : sequence of (dataset, algorithm, repeat)
        fold_seeds : sequence of (dataset, repeat, seed), optional
            Random states of the fold shuffles, recorded where none is yet.

        Returns
        -------
        frame : DataFrame with columns dataset, algorithm, repeat, status
            One row per task given, in the order given.
        """
        con = self._writer()
        con.begin()
        try:
            for table, rows, columns in (
                ("datasets", datasets, _DATASET_COLUMNS),
                ("algorithms", algorithms, _ALGORITHM_COLUMNS),
            ):
                known = {r[0] for r in con.execute(f"SELECT name FROM {table}").fetchall()}
                next_id = _first(con.execute(f"SELECT coalesce(max(id) + 1, 0) FROM {table}"))
                next_id = int(next_id[0])
                for row in rows:
                    if row["name"] in known:
                        continue
                    if next_id > np.iinfo(np.int16).max:
                        raise ValueError(f"Too many {table} for one store.")
                    values = [next_id] + [row.get(c) for c in columns]
                    marks = ", ".join("?" * len(values))
                    con.execute(f"INSERT INTO {table} VALUES ({marks})", values)
                    known.add(row["name"])
                    next_id += 1
            stored = {name: (int(i), versions) for name, i, versions in con.execute(
                "SELECT name, id, versions FROM algorithms").fetchall()}
            _provenance.write_hyperparameters(con, [
                (stored[row["name"]][0], row["hyperparameters"]) for row in algorithms
                if row.get("hyperparameters") is not None
                and stored[row["name"]][1] == row.get("versions")])
            dataset_ids = dict(con.execute("SELECT name, id FROM datasets").fetchall())
            _provenance.write_fold_seeds(con, [
                (dataset_ids[name], repeat, seed) for name, repeat, seed in fold_seeds
                if name in dataset_ids])
            plan = pd.DataFrame(
                {
                    "dataset": [t[0] for t in tasks],
                    "algorithm": [t[1] for t in tasks],
                    "repeat": np.asarray([t[2] for t in tasks], dtype=np.int16),
                    "position": np.arange(len(tasks), dtype=np.int64),
                }
            )
            con.register("metaeval_plan", plan)
            con.execute(
                """
                INSERT INTO tasks (dataset_id, algorithm_id, repeat, status)
                SELECT d.id, a.id, p.repeat, 'pending' FROM metaeval_plan p
                JOIN datasets d ON d.name = p.dataset JOIN algorithms a ON a.name = p.algorithm
                ANTI JOIN tasks t ON t.dataset_id = d.id AND t.algorithm_id = a.id
                     AND t.repeat = p.repeat
                """
            )
            status = con.execute(
                """
                SELECT p.dataset, p.algorithm, p.repeat, t.status FROM metaeval_plan p
                JOIN datasets d ON d.name = p.dataset JOIN algorithms a ON a.name = p.algorithm
                JOIN tasks t ON t.dataset_id = d.id AND t.algorithm_id = a.id
                     AND t.repeat = p.repeat
                ORDER BY p.position
                """
            ).df()
            con.unregister("metaeval_plan")
            con.execute(
                "INSERT OR REPLACE INTO meta VALUES ('study', ?)",
                [json.dumps(config, sort_keys=True)],
            )
            con.commit()
        except BaseException:
            _rollback(con)
            raise
        if len(status) != len(tasks):
            raise ValueError("Every task's dataset and algorithm must be registered.")
        return status

    def record_task(
        self,
        dataset: str,
        algorithm: str,
        repeat: int,
        *,
        status: str,
        error: str | None = None,
        wall: float | None = None,
        cpu: float | None = None,
        n_folds: int | None = None,
        warning: str | None = None,
        fold=None,
        y=None,
        score=None,
        timings: dict | None = None,
        unit: dict | None = None,
    ) -> None:
        """Record one finished task -- scores, timings and status -- in one transaction.

        Any scores or timings already stored for the task are replaced, so recording a
        task twice never duplicates rows.

        Parameters
        ----------
        dataset, algorithm : str
            Registered names (see :meth:`sync_study`).
        repeat : int
        status : {'done', 'failed'}
        error : str, optional
            Why the task failed.
        wall, cpu : float, optional
            Seconds the whole task took.
        n_folds : int, optional
            Folds actually used.
        warning : str, optional
            Warnings raised while fitting, or a fold reduction.
        fold, y, score : array-like of shape (n_instances,), optional
            For a done task: each instance's fold, class (0/1) and out-of-fold score, in
            row order (row i of the dataset is element i).
        timings : dict of array-like of shape (n_folds,), optional
            ``fit_wall``, ``fit_cpu``, ``predict_wall``, ``predict_cpu`` per fold.
        unit : dict, optional
            The unit of work that finished the task, recorded in the parallel profile
            (see :meth:`record_unit`). The task's held folds are removed.
        """
        if status not in ("done", "failed"):
            raise ValueError(f"status must be 'done' or 'failed', got {status!r}.")
        con = self._writer()
        dataset_id = self._id("datasets", dataset)
        algorithm_id = self._id("algorithms", algorithm)
        key = [dataset_id, algorithm_id, int(repeat)]
        frames = {}
        if status == "done":
            if score is None or fold is None or y is None or timings is None:
                raise ValueError("A done task needs fold, y, score and timings.")
            score = np.asarray(score, dtype=np.float64)
            n = score.shape[0]
            frames["scores"] = pa.table(
                {
                    "dataset_id": np.full(n, dataset_id, dtype=np.int16),
                    "algorithm_id": np.full(n, algorithm_id, dtype=np.int16),
                    "repeat": np.full(n, repeat, dtype=np.int16),
                    "fold": np.asarray(fold, dtype=np.int16),
                    "row": np.arange(n, dtype=np.int32),
                    "y": np.asarray(y, dtype=np.int8),
                    "score": score,
                }
            )
            k = len(timings["fit_wall"])
            frames["timings"] = pa.table(
                {
                    "dataset_id": np.full(k, dataset_id, dtype=np.int16),
                    "algorithm_id": np.full(k, algorithm_id, dtype=np.int16),
                    "repeat": np.full(k, repeat, dtype=np.int16),
                    "fold": np.arange(k, dtype=np.int16),
                    **{
                        c: np.asarray(timings[c], dtype=np.float64)
                        for c in ("fit_wall", "fit_cpu", "predict_wall", "predict_cpu")
                    },
                }
            )
        values = [
            status, error, _float(wall), _float(cpu),
            None if n_folds is None else int(n_folds), warning,
        ]
        con.begin()
        try:
            row = _first(con.execute(
                "SELECT status FROM tasks WHERE dataset_id = ? AND algorithm_id = ? "
                "AND repeat = ?", key))
            if row is None or row[0] == "done":
                # Only a done task can have rows (they are committed with its status).
                for table in ("scores", "timings"):
                    con.execute(
                        f"DELETE FROM {table} WHERE dataset_id = ? AND algorithm_id = ? "
                        "AND repeat = ?",
                        key,
                    )
            for table, frame in frames.items():
                con.register("metaeval_new", frame)
                con.execute(f"INSERT INTO {table} SELECT * FROM metaeval_new")
                con.unregister("metaeval_new")
            if row is None:
                con.execute(
                    "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, now())", key + values
                )
            else:
                con.execute(
                    """
                    UPDATE tasks SET status = ?, error = ?, wall = ?, cpu = ?, n_folds = ?,
                        warning = ?, finished = now()
                    WHERE dataset_id = ? AND algorithm_id = ? AND repeat = ?
                    """,
                    values + key,
                )
            _units.drop_held(con, key)
            if unit is not None:
                _units.write_unit(con, key, unit)
            con.commit()
        except BaseException:
            _rollback(con)
            raise

    def record_fold(self, dataset: str, algorithm: str, repeat: int, fold: int, *,
                    n_folds: int, rows, y, score, times: dict, wall: float, cpu: float,
                    warning_lines=(), note: str | None = None,
                    unit: dict | None = None) -> None:
        """Hold one finished fold of a task whose other folds are not finished yet, in
        one transaction (with its unit's row, when given).

        A task split into folds is recorded whole (:meth:`record_task`) once its last
        fold is finished; a run stopped before that keeps the folds held here, and
        :meth:`held_folds` gives them to the next run.

        Parameters
        ----------
        dataset, algorithm : str
        repeat, fold, n_folds : int
        rows, y, score : array-like of shape (n_test,)
            The fold's test rows, their classes and out-of-fold scores.
        times : dict of float
            ``fit_wall``, ``fit_cpu``, ``predict_wall``, ``predict_cpu`` of the fold.
        wall, cpu : float
            Seconds the unit took.
        warning_lines : sequence of str
            Distinct warnings raised in the fold.
        note : str, optional
            The note on folds fewer than asked.
        unit : dict, optional
            See :meth:`record_unit`.
        """
        con = self._writer()
        key = [self._id("datasets", dataset), self._id("algorithms", algorithm), int(repeat)]
        con.begin()
        try:
            _units.write_fold(con, key, fold, n_folds=n_folds, rows=rows, y=y, score=score,
                              times=times, wall=wall, cpu=cpu, warning_lines=warning_lines,
                              note=note)
            if unit is not None:
                _units.write_unit(con, key, unit)
            con.commit()
        except BaseException:
            _rollback(con)
            raise

    def record_unit(self, dataset: str, algorithm: str, repeat: int, unit: dict) -> None:
        """Record one unit of work in the store's parallel profile (table ``units``).

        Parameters
        ----------
        dataset, algorithm : str
        repeat : int
        unit : dict
            ``run`` (id from :meth:`start_run`), ``fold`` (None: the whole task),
            ``status``, ``worker``, ``started``, ``finished`` (Unix seconds), ``wall``,
            ``cpu`` (seconds), ``estimate`` (the cost estimated before the run).
        """
        con = self._writer()
        key = [self._id("datasets", dataset), self._id("algorithms", algorithm), int(repeat)]
        _units.write_unit(con, key, unit)

    def import_predictions(self, source, *, format: str | None = None,
                           dataset: str | None = None, algorithm: str | None = None,
                           pos_label=None, folds: int | None = None) -> pd.DataFrame:
        """Import out-of-fold predictions made elsewhere (no refit), in one transaction.

        Formats (see :mod:`metaeval.store._import`): ``"openml"`` (an OpenML run's
        ``predictions.arff``; give ``dataset``, ``algorithm`` and, unless the dataset is
        built in, ``pos_label``), ``"long"`` and ``"wide"`` tables (CSV or Parquet, or a
        DataFrame); guessed from the file when not given. Must be called inside
        :meth:`writing`. ``folds``: the folds that exist (default: the study's, else the
        file's). Returns one row per imported task.

        Raises
        ------
        ValueError
            Naming the first offending rows; nothing is imported then.
        """
        return _import_predictions(self, source, format=format, dataset=dataset,
                                  algorithm=algorithm, pos_label=pos_label, folds=folds)

    def write_progress(self, progress: dict | None) -> None:
        """Replace (atomically) or, with None, remove the run's progress file."""
        target = self._progress_path()
        if progress is None:
            target.unlink(missing_ok=True)
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".progress-", suffix=".json")
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(progress, fh)
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            exc.filename = exc.filename or str(target)
            raise _os_error(exc, target) from None

    def _writer(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            raise RuntimeError(f"{self!r} is not open for writing: use `with store.writing():`.")
        return self._con

    def _id(self, table: str, name: str) -> int:
        key = (table, name)
        if key not in self._ids:
            row = _first(self._writer().execute(f"SELECT id FROM {table} WHERE name = ?", [name]))
            if row is None:
                raise ValueError(f"Unknown {table[:-1]} {name!r}: register it with sync_study.")
            self._ids[key] = int(row[0])
        return self._ids[key]
