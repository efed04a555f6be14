"""Reading a store back: the read API of :class:`~metaeval.store.Store`.

Every read opens the file read-only for the duration of the call (or uses the
connection held by ``Store.reading``/``Store.writing``), see ``_store``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from metaeval.store import _metafeatures, _provenance, _units
from metaeval.store._connection import (
    HELD_READ_ROWS,
    StoreLockedError,
    _connect,
    _first,
)
from metaeval.store._coverage import Coverage, coverage_of
from metaeval.store._integrity import StoreDamagedError, translate
from metaeval.store._schema import (
    _SQL_ALGORITHMS,
    _SQL_DATASETS,
    _SQL_SCORES,
    _SQL_TASKS,
    _SQL_TIMINGS,
    TASK_STATUSES,
)


def _check_name(dataset) -> None:
    if not isinstance(dataset, str):
        raise ValueError(f"dataset must be a dataset name (str), got {dataset!r}.")


class StoreReading:
    """The read API of :class:`~metaeval.store.Store` (a part of it, not used alone)."""

    def _frame(self, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        with self._reading() as con:
            return con.execute(sql, list(params)).df()

    def study_config(self) -> dict | None:
        """The study configuration recorded in the store (a dict), or None if none yet."""
        with self._reading() as con:
            row = _first(con.execute("SELECT value FROM meta WHERE key = 'study'"))
        return None if row is None else json.loads(row[0])

    def datasets(self) -> pd.DataFrame:
        """Datasets of the store, in registration order.

        Returns
        -------
        frame : DataFrame with columns name, sha256, n_instances, n_features,
            positive_fraction, family, source
        """
        return self._frame(_SQL_DATASETS)

    def algorithms(self) -> pd.DataFrame:
        """Algorithms of the store, in registration order.

        Returns
        -------
        frame : DataFrame with columns name, estimator, params (JSON text), score_method,
            versions (JSON text: library versions at registration)
        """
        return self._frame(_SQL_ALGORITHMS)

    def tasks(self, *, include_pending: bool = False) -> pd.DataFrame:
        """Tasks (dataset, algorithm, repeat) with their status, error and times.

        Parameters
        ----------
        include_pending : bool, default=False
            Also list tasks planned but not finished (status 'pending').

        Returns
        -------
        frame : DataFrame with columns dataset, algorithm, repeat, status ('done' or
            'failed', and 'pending' when asked), error, wall, cpu (seconds, whole task),
            n_folds (folds actually used), warning
        """
        where = "" if include_pending else "WHERE t.status <> 'pending'"
        return self._frame(_SQL_TASKS.format(where=where))

    def status_counts(self) -> dict[str, int]:
        """Number of tasks per status: ``{'pending': .., 'done': .., 'failed': ..}``."""
        with self._reading() as con:
            rows = con.execute("SELECT status, count(*) FROM tasks GROUP BY status").fetchall()
        counts = dict.fromkeys(TASK_STATUSES, 0)
        counts.update({status: int(n) for status, n in rows})
        return counts

    def coverage(self) -> Coverage:
        """Which datasets and algorithms the cross-dataset analyses use.

        The one definition of "finished on every dataset" that ``rank``, ``benchmark``,
        the report and ``status`` share: the datasets where at least two algorithms
        finished (repeat 0), and the algorithms finished on every one of them. See
        :class:`~metaeval.store.Coverage`.
        """
        with self._reading() as con:
            datasets = con.execute("SELECT id, name FROM datasets ORDER BY id").fetchall()
            algorithms = con.execute("SELECT id, name FROM algorithms ORDER BY id").fetchall()
            done = con.execute("SELECT dataset_id, algorithm_id FROM tasks "
                               "WHERE status = 'done' AND repeat = 0").fetchall()
        row = {i: k for k, (i, _) in enumerate(datasets)}
        col = {i: k for k, (i, _) in enumerate(algorithms)}
        present = np.zeros((len(datasets), len(algorithms)), dtype=bool)
        for d, a in done:
            present[row[d], col[a]] = True
        return coverage_of(present, [n for _, n in datasets], [n for _, n in algorithms])

    def scores_frame(self, dataset: str | None = None) -> pd.DataFrame:
        """Out-of-fold scores in long form, one row per (dataset, algorithm, repeat, row).

        Parameters
        ----------
        dataset : str, optional
            Only this dataset.

        Returns
        -------
        frame : DataFrame with columns dataset, algorithm, repeat, fold, row, y, score
        """
        if dataset is None:
            return self._frame(_SQL_SCORES.format(where=""))
        _check_name(dataset)
        with self._reading() as con:  # one connection for the lookup and the rows
            self._dataset_id(dataset, con)
            return con.execute(_SQL_SCORES.format(where="WHERE d.name = ?"), [dataset]).df()

    def scores(self, dataset: str, *, repeat: int = 0) -> tuple[np.ndarray, np.ndarray, list]:
        """Scores of every finished algorithm on one dataset, as a matrix.

        Parameters
        ----------
        dataset : str
            Dataset name.
        repeat : int, default=0
            Which repetition of the cross-validation.

        Returns
        -------
        y : ndarray of shape (n_instances,), dtype int8
            Class (0/1) of each instance, in the dataset's row order.
        S : ndarray of shape (n_instances, n_models), dtype float64
            Out-of-fold score (estimate of P(y = 1)) of each instance by each algorithm.
        algorithms : list of str
            The algorithms (columns of ``S``) whose task is done, in registration order.
            Failed or unfinished algorithms are left out.
        """
        _check_name(dataset)
        if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or repeat < 0:
            raise ValueError(f"repeat must be a non-negative integer, got {repeat!r}.")
        sql = """
            SELECT s.algorithm_id, s.row, s.y, s.score FROM scores s
            JOIN tasks t ON t.dataset_id = s.dataset_id AND t.algorithm_id = s.algorithm_id
                 AND t.repeat = s.repeat AND t.status = 'done'
            WHERE s.dataset_id = ? AND s.repeat = ?
        """
        # no ORDER BY: sorting took more than half of the read; each score is put at its
        # (row, algorithm) place instead, and every place must be filled exactly once.
        # One connection for the lookup and the rows: opening the file is 15-20 ms
        with self._reading() as con:
            dataset_id, n = self._dataset_id(dataset, con)
            got = con.execute(sql, [dataset_id, int(repeat)]).fetchnumpy()
            names = dict(con.execute("SELECT id, name FROM algorithms").fetchall())
        ids = np.asarray(got["algorithm_id"])
        if self._read_con is not None and ids.size > HELD_READ_ROWS:
            # DuckDB keeps the blocks a connection read cached until it closes (up to its
            # memory limit): a held connection is opened anew after a large read, so a
            # loop over every dataset of a wide study holds one dataset's blocks at most
            self._read_con.close()
            self._read_con = _connect(self.path, read_only=True)
        if ids.size == 0:
            raise ValueError(
                f"No finished scores for dataset {dataset!r}, repeat {repeat} in {self.path}."
            )
        per_id = np.bincount(ids)  # algorithm ids are small non-negative integers
        algorithm_ids = np.flatnonzero(per_id)
        k = algorithm_ids.size
        counts = per_id[algorithm_ids]
        lookup = np.zeros(per_id.size, dtype=np.int64)
        lookup[algorithm_ids] = np.arange(k)
        column = lookup[ids]
        if np.any(counts != n):
            raise ValueError(
                f"The store {self.path} is inconsistent: dataset {dataset!r} has "
                f"{n} instances but some algorithm has {counts[counts != n][0]} scores."
            )
        rows = np.asarray(got["row"], dtype=np.int64)
        if rows.min() < 0 or rows.max() >= n or np.any(
                np.bincount(column * n + rows, minlength=k * n) != 1):
            raise ValueError(f"The store {self.path} has incomplete rows for {dataset!r}.")
        S = np.empty((n, k), dtype=np.float64)
        S[rows, column] = np.asarray(got["score"], dtype=np.float64)
        first = column == 0  # the class of each row, as the first algorithm's rows give it
        y = np.empty(n, dtype=np.int8)
        y[rows[first]] = np.asarray(got["y"], dtype=np.int8)[first]
        return y, S, [names[int(i)] for i in algorithm_ids]

    def done_scores(self) -> tuple[dict[str, np.ndarray], list[str], list[str]]:
        """The scores of every finished task as arrays, in one query (no names per row).

        Returns
        -------
        columns : dict of str to ndarray
            ``dataset`` and ``algorithm`` (int codes: positions in the two name lists),
            ``repeat``, ``fold``, ``row``, ``y``, ``score``; each task's rows in row
            order, the tasks in the order they were recorded (sort them when an order
            matters).
        datasets, algorithms : list of str
            The names of the codes, in registration order.
        """
        # A plain scan keeps the order rows were inserted in (and costs a third of a
        # join with ORDER BY); the finished tasks are picked out here.
        sql = ("SELECT dataset_id AS dataset, algorithm_id AS algorithm, repeat, fold, row, "
               "y, score FROM scores")
        with self._reading() as con:
            got = con.execute(sql).fetchnumpy()
            done = np.asarray(con.execute(
                "SELECT dataset_id, algorithm_id, repeat FROM tasks WHERE status = 'done'"
            ).fetchall(), dtype=np.int64).reshape(-1, 3)
            datasets = con.execute("SELECT id, name FROM datasets ORDER BY id").fetchall()
            algorithms = con.execute("SELECT id, name FROM algorithms ORDER BY id").fetchall()
        columns = {k: np.asarray(v) for k, v in got.items()}
        key = (columns["dataset"].astype(np.int64) << 32) | (
            columns["algorithm"].astype(np.int64) << 16) | columns["repeat"].astype(np.int64)
        finished = (done[:, 0] << 32) | (done[:, 1] << 16) | done[:, 2]
        keep = np.isin(key, finished)
        if not keep.all():
            columns = {k: v[keep] for k, v in columns.items()}
        for key, names in (("dataset", datasets), ("algorithm", algorithms)):
            lookup = np.full(max([i for i, _ in names], default=-1) + 2, -1, dtype=np.int64)
            lookup[[i for i, _ in names]] = np.arange(len(names))
            columns[key] = lookup[columns[key].astype(np.int64)]
        return columns, [n for _, n in datasets], [n for _, n in algorithms]

    def iter_scores(self, datasets: Sequence[str] | None = None, *, repeat: int = 0,
                    batch_rows: int = 2_000_000):
        """Yield the scores of one dataset after another, reading several per query.

        Like calling :meth:`scores` and :meth:`folds` for each dataset, but each query
        reads as many whole datasets as fit in ``batch_rows`` scores, so a loop over
        many small datasets costs a few queries while memory stays bounded.

        Parameters
        ----------
        datasets : sequence of str, optional
            The datasets, in the order to yield them [default: all, registration order].
        repeat : int, default=0
        batch_rows : int, default=2_000_000
            Most scores read by one query (a larger dataset is read alone).

        Yields
        ------
        dataset : str
        y : ndarray of shape (n_instances,), dtype int8
        S : ndarray of shape (n_instances, n_models)
        algorithms : list of str
        folds : ndarray of shape (n_instances,)
            As from :meth:`scores` and :meth:`folds`; a dataset without finished scores
            in that repeat is left out.
        """
        with self._reading() as con:
            info = con.execute(
                "SELECT d.name, d.id, d.n_instances, count(t.algorithm_id) FROM datasets d "
                "LEFT JOIN tasks t ON t.dataset_id = d.id AND t.repeat = ? "
                "AND t.status = 'done' GROUP BY d.name, d.id, d.n_instances ORDER BY d.id",
                [int(repeat)]).fetchall()
            names = dict(con.execute("SELECT id, name FROM algorithms").fetchall())
        known = {name: (int(i), int(n), int(k)) for name, i, n, k in info}
        order = list(known) if datasets is None else list(datasets)
        for name in order:
            if name not in known:
                raise ValueError(f"Unknown dataset {name!r} in {self.path}; it holds: "
                                 f"{', '.join(sorted(known)) or 'none'}.")
        order = [name for name in order if known[name][2] > 0]
        batches, batch, size = [], [], 0
        for name in order:
            rows = known[name][1] * known[name][2]
            if batch and size + rows > batch_rows:
                batches.append(batch)
                batch, size = [], 0
            batch.append(name)
            size += rows
        if batch:
            batches.append(batch)
        sql = """
            SELECT s.dataset_id, s.algorithm_id, s.row, s.y, s.score, s.fold FROM scores s
            JOIN tasks t ON t.dataset_id = s.dataset_id AND t.algorithm_id = s.algorithm_id
                 AND t.repeat = s.repeat AND t.status = 'done'
            WHERE s.repeat = ? AND s.dataset_id IN ({marks})
            ORDER BY s.dataset_id, s.algorithm_id, s.row
        """
        for batch in batches:
            ids = [known[name][0] for name in batch]
            with self._reading() as con:
                got = con.execute(sql.format(marks=", ".join("?" * len(ids))),
                                  [int(repeat), *ids]).fetchnumpy()
            got = {k: np.asarray(v) for k, v in got.items()}
            for name, dataset_id in zip(batch, ids, strict=True):
                # the result is ordered by dataset id: each dataset is one slice
                lo = np.searchsorted(got["dataset_id"], dataset_id, side="left")
                hi = np.searchsorted(got["dataset_id"], dataset_id, side="right")
                yield (name, *self._matrix(name, repeat, known[name][1], names,
                                           {k: v[lo:hi] for k, v in got.items()}))

    def _matrix(self, dataset, repeat, n, names, got):
        """(y, S, algorithms, folds) from the rows of one dataset, checked."""
        ids = got["algorithm_id"]
        algorithm_ids, counts = np.unique(ids, return_counts=True)
        if np.any(counts != n):
            raise ValueError(
                f"The store {self.path} is inconsistent: dataset {dataset!r} has "
                f"{n} instances but some algorithm has {counts[counts != n][0]} scores."
            )
        k = algorithm_ids.size
        rows = got["row"].reshape(k, n)
        if np.any(rows != np.arange(n)):
            raise ValueError(f"The store {self.path} has incomplete rows for {dataset!r}.")
        y = np.asarray(got["y"], dtype=np.int8).reshape(k, n)
        S = np.asarray(got["score"], dtype=np.float64).reshape(k, n).T.copy()
        folds = np.asarray(got["fold"], dtype=np.int64).reshape(k, n)[0].copy()
        return y[0].copy(), S, [names[int(i)] for i in algorithm_ids], folds

    def folds(self, dataset: str, *, repeat: int = 0) -> np.ndarray:
        """The fold of each instance of a dataset in a repeat, in row order.

        Every algorithm of a repeat uses the same folds (one fold seed per dataset and
        repeat), so they are read from the first algorithm that finished.

        Raises
        ------
        ValueError
            For an unknown dataset, or when no algorithm finished on it in that repeat.
        """
        _check_name(dataset)
        sql = """
            SELECT s.fold FROM scores s WHERE s.dataset_id = ? AND s.repeat = ?
            AND s.algorithm_id = (SELECT min(t.algorithm_id) FROM tasks t
                                  WHERE t.dataset_id = ? AND t.repeat = ?
                                  AND t.status = 'done')
            ORDER BY s.row
        """
        with self._reading() as con:  # one connection for the lookup and the rows
            dataset_id, n = self._dataset_id(dataset, con)
            got = con.execute(sql, [dataset_id, int(repeat)] * 2).fetchnumpy()
        fold = np.asarray(got["fold"], dtype=np.int64)
        if fold.size != n:
            raise ValueError(
                f"No finished scores for dataset {dataset!r}, repeat {repeat} in {self.path}.")
        return fold

    def timings(self) -> pd.DataFrame:
        """Per-fold fit and predict times of every finished task.

        Returns
        -------
        frame : DataFrame with columns dataset, algorithm, repeat, fold, fit_wall, fit_cpu,
            predict_wall, predict_cpu (seconds; wall = time.perf_counter, cpu =
            time.thread_time of the thread that ran the fold); a store written without
            CPU times has them missing (NaN)
        """
        with self._reading() as con:
            columns = {r[0] for r in con.execute("DESCRIBE timings").fetchall()}
            sql = _SQL_TIMINGS
            for column in ("fit_cpu", "predict_cpu"):
                if column not in columns:
                    sql = sql.replace(f"m.{column}", f"CAST(NULL AS DOUBLE) AS {column}")
            return con.execute(sql).df()

    def runs(self) -> pd.DataFrame:
        """The runs that wrote the store, oldest first.

        Returns
        -------
        frame : DataFrame with columns run, started, finished (missing while running or
            when the run was killed), environment (dict: versions of metaeval, Python,
            scikit-learn, NumPy, SciPy, DuckDB..., CPU model, cores, executor); empty for
            a store written before metaeval recorded its runs
        """
        with self._reading() as con:
            return _provenance.read_runs(con)

    def hyperparameters(self) -> pd.DataFrame:
        """Full hyperparameters (``get_params()``) of each algorithm, as registered.

        Returns
        -------
        frame : DataFrame with columns algorithm, hyperparameters (dict); algorithms
            registered before metaeval recorded them are left out
        """
        with self._reading() as con:
            return _provenance.read_hyperparameters(con)

    def fold_seeds(self) -> pd.DataFrame:
        """Random state of the stratified k-fold shuffle per dataset and repeat.

        Returns
        -------
        frame : DataFrame with columns dataset, repeat, seed; pairs registered before
            metaeval recorded them are left out
        """
        with self._reading() as con:
            return _provenance.read_fold_seeds(con)

    def task_runs(self) -> pd.DataFrame:
        """Which run computed each finished task: columns dataset, algorithm, repeat, run
        (missing when the task finished before the store recorded its runs)."""
        with self._reading() as con:
            return _provenance.read_task_runs(con)

    def metafeature_groups(self) -> pd.DataFrame:
        """Cached dataset descriptions: one row per (dataset, pymfe group or landmarker).

        Returns
        -------
        frame : DataFrame with columns dataset, group, kind ('pymfe' or 'landmarker'),
            status ('ok', 'failed', 'timeout'), wall, cpu (seconds), n_features, n_failed,
            error, settings (JSON); empty for a store that has no cache yet
        """
        with self._reading() as con:
            return _metafeatures.read_groups(con)

    def metafeatures(self) -> pd.DataFrame:
        """Cached pymfe meta-features: columns dataset, group, feature, value, error."""
        with self._reading() as con:
            return _metafeatures.read_features(con)

    def landmark_scores(self, dataset: str) -> pd.DataFrame:
        """Cached out-of-fold landmarker scores of one dataset.

        Returns
        -------
        frame : DataFrame with columns landmarker, row, y, score (empty when not cached)
        """
        _check_name(dataset)
        with self._reading() as con:  # one connection for the lookup and the rows
            dataset_id, _ = self._dataset_id(dataset, con)
            return _metafeatures.read_landmarks(con, dataset_id)

    def export_parquet(self, directory) -> list[Path]:
        """Write every table as a Parquet file in ``directory`` (names instead of ids).

        Parameters
        ----------
        directory : str or path-like
            Created if missing. Files: datasets, algorithms, tasks, scores, timings,
            and the provenance tables runs (with each run's environment as JSON),
            algorithm_hyperparameters and fold_seeds, and the units of work run (the
            parallel profile), when the store has them (``.parquet``), and
            ``study.json`` (the recorded study configuration).

        Returns
        -------
        paths : list of Path
            The files written.

        Raises
        ------
        StoreDamagedError
            When some tables could not be read; the others are written all the same
            (this is the way to save what a damaged store still holds).
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        queries = {
            "datasets": _SQL_DATASETS,
            "algorithms": _SQL_ALGORITHMS,
            "tasks": _SQL_TASKS.format(where=""),
            "scores": _SQL_SCORES.format(where=""),
            "timings": _SQL_TIMINGS,
            "runs": _provenance.SQL_RUNS,
            "algorithm_hyperparameters": _provenance.SQL_HYPERPARAMETERS,
            "fold_seeds": _provenance.SQL_FOLD_SEEDS,
            "units": _units.SQL_UNITS,
        }
        written, unreadable = [], []
        with self._reading(check=False) as con:  # a damaged store: save what can be read
            missing = set(_provenance.TABLES) - _provenance.present(con)
            if not _units.present(con):
                missing.add("units")
            queries = {k: v for k, v in queries.items() if k not in missing}
            for name, sql in queries.items():
                target = out / f"{name}.parquet"
                quoted = str(target).replace("'", "''")
                try:
                    con.execute(f"COPY ({sql}) TO '{quoted}' (FORMAT PARQUET)")
                except duckdb.Error as exc:
                    known = translate(exc, self.path)
                    if not isinstance(known, StoreDamagedError):
                        raise
                    target.unlink(missing_ok=True)
                    unreadable.append(f"{name} ({known.problem})")
                    continue
                written.append(target)
            try:
                row = _first(con.execute("SELECT value FROM meta WHERE key = 'study'"))
            except duckdb.Error as exc:
                if not isinstance(translate(exc, self.path), StoreDamagedError):
                    raise
                row = None
                unreadable.append("meta")
        config = out / "study.json"
        config.write_text(json.dumps(json.loads(row[0]) if row else None, indent=2) + "\n")
        written.append(config)
        if unreadable:
            raise StoreDamagedError(
                self.path, f"these tables could not be read: {'; '.join(unreadable)} (the "
                f"others were exported to {out})")
        return written

    def units(self) -> pd.DataFrame:
        """The study's parallel profile: one row per unit of work run, in start order.

        A unit is a whole task (``fold`` missing) or one fold of a task split into folds.
        Empty for a store written before units were recorded.

        Returns
        -------
        frame : DataFrame with columns run, dataset, algorithm, repeat, fold, status,
            worker (``host:pid``), started, finished (Unix seconds), wall, cpu (seconds),
            estimate (the cost estimated before the run)
        """
        with self._reading() as con:
            return _units.read_units(con)

    def held_folds(self) -> dict:
        """The finished folds of unfinished tasks split into folds (see
        :meth:`record_fold`): ``{(dataset, algorithm, repeat): [fold, ...]}``, each fold a
        dict of the arguments it was recorded with."""
        with self._reading() as con:
            return _units.read_held(con)

    def progress(self) -> dict | None:
        """The progress of a run in progress, from ``<store>.progress.json``, or None.

        Written by the study runner after each committed task (and removed at the end
        of the run); a stale file left by a killed run is only a hint.
        """
        try:
            return json.loads(self._progress_path().read_text())
        except (OSError, ValueError):
            return None

    def locked(self) -> bool:
        """Whether another process holds the store open for writing right now."""
        if not self.exists() or self._con is not None:
            return False
        try:
            _connect(self.path, read_only=True).close()
        except StoreLockedError:
            return True
        return False

    def _progress_path(self) -> Path:
        return self.path.with_name(self.path.name + ".progress.json")

    def _dataset_id(self, dataset: str, con=None) -> tuple[int, int]:
        """``(id, n_instances)`` of a dataset, read through ``con`` (default: its own)."""
        _check_name(dataset)
        if con is None:
            with self._reading() as con:
                return self._dataset_id(dataset, con)
        rows = con.execute("SELECT name, id, n_instances FROM datasets").fetchall()
        known = {name: (int(i), int(n)) for name, i, n in rows}
        if dataset not in known:
            names = ", ".join(sorted(known)) or "none"
            raise ValueError(f"Unknown dataset {dataset!r} in {self.path}; it holds: {names}.")
        return known[dataset]
