"""The :class:`Store` class: writing a study's results and reading them back."""

from __future__ import annotations

import errno
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from metaeval.store import _metafeatures, _provenance
from metaeval.store._coverage import Coverage, coverage_of
from metaeval.store._integrity import (
    StoreDamagedError,
    StoreFullError,
    full_problems,
    quick_problems,
    translate,
)
from metaeval.store._schema import (
    _ALGORITHM_COLUMNS,
    _DATASET_COLUMNS,
    _SCHEMA,
    _SQL_ALGORITHMS,
    _SQL_DATASETS,
    _SQL_SCORES,
    _SQL_TASKS,
    _SQL_TIMINGS,
    SCHEMA_VERSION,
    TASK_STATUSES,
)

#: (size, mtime) of each store file when its quick check last passed in this process, so
#: that several Store objects of one file (a command's checks, then its reads) check once.
_CHECKED: dict[Path, tuple[int, int]] = {}


class StoreLockedError(RuntimeError):
    """The store file is held by another process (usually a ``metaeval run`` in progress)."""


class Store:
    """A metaeval results store: a DuckDB file.

    Reading needs no set-up: each read opens the file read-only for the duration of
    the call, so any number of processes may read a finished store at once. Writing
    happens inside :meth:`writing`, which holds DuckDB's single-writer lock; the study
    runner is the only writer (workers send their results to it).

    Parameters
    ----------
    path : str or path-like
        The DuckDB file. It is created (with its parent directory) on first write.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "study.duckdb")
    >>> store = Store(path)
    >>> with store.writing():
    ...     _ = store.sync_study(
    ...         {"folds": 2, "seed": 0},
    ...         datasets=[{"name": "toy", "sha256": "0" * 64, "n_instances": 4,
    ...                    "n_features": 1, "positive_fraction": 0.5, "family": "toy",
    ...                    "source": "doctest"}],
    ...         algorithms=[{"name": "A", "estimator": "m.A", "params": "{}",
    ...                      "score_method": "predict_proba", "versions": "{}"}],
    ...         tasks=[("toy", "A", 0)])
    ...     store.record_task("toy", "A", 0, status="done", wall=0.1, cpu=0.1, n_folds=2,
    ...                       fold=[0, 1, 0, 1], y=[0, 0, 1, 1],
    ...                       score=[0.1, 0.4, 0.35, 0.8],
    ...                       timings={"fit_wall": [0.01, 0.01], "fit_cpu": [0.01, 0.01],
    ...                                "predict_wall": [0.0, 0.0],
    ...                                "predict_cpu": [0.0, 0.0]})
    >>> y, S, algorithms = store.scores("toy")
    >>> y.tolist(), S[:, 0].tolist(), algorithms
    ([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], ['A'])
    """

    def __init__(self, path):
        if isinstance(path, Store):
            path = path.path
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise ValueError(f"path must be a non-empty path to a DuckDB file, got {path!r}.")
        self.path = Path(path)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._ids: dict[tuple[str, str], int] = {}
        self._checked = None  # (size, mtime) of the file when the quick check passed
        self._read_con: duckdb.DuckDBPyConnection | None = None  # held by reading()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # ------------------------------------------------------------------ connections
    def exists(self) -> bool:
        """Whether the store file exists."""
        return self.path.is_file()

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """Hold the store open for writing (DuckDB's single-writer lock) within a block.

        Creates the file, its directory and the schema when missing.

        Raises
        ------
        StoreLockedError
            When another process has the file open.
        ValueError
            When the path is a directory or a file that is not a DuckDB database.
        """
        if self._con is not None:
            raise RuntimeError(f"{self!r} is already open for writing.")
        existed = self.exists()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _os_error(exc, self.path.parent) from None
        con = _connect(self.path, read_only=False)
        try:
            try:
                con.execute(_SCHEMA)
                row = _first(con.execute("SELECT value FROM meta WHERE key = 'schema_version'"))
                if row is None:
                    con.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                                [SCHEMA_VERSION])
                elif row[0] != SCHEMA_VERSION:
                    raise ValueError(
                        f"The store {self.path} has schema version {row[0]}; this metaeval "
                        f"writes version {SCHEMA_VERSION}. Use a new store path."
                    )
                if existed:
                    self._check(con)
                self._con = con
                self._ids = {}
                yield self
            except duckdb.Error as exc:
                known = translate(exc, self.path)
                if known is None:
                    raise
                raise known from None
        finally:
            self._con = None
            try:
                con.close()
            except duckdb.Error:  # a failed checkpoint on close: the WAL keeps the data
                pass

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

    @contextmanager
    def reading(self) -> Iterator[Store]:
        """Hold one read-only connection for a block of reads.

        Each read otherwise opens and closes the file; a loop over many datasets reads
        faster inside this block. Other processes may read the store meanwhile.
        """
        if self._con is not None or self._read_con is not None:
            yield self
            return
        with self._reading() as con:
            self._read_con = con
            try:
                yield self
            finally:
                held, self._read_con = self._read_con, None
                if held is not con:  # reopened on the way (see scores)
                    held.close()

    @contextmanager
    def _reading(self, check: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._con is not None:  # the writer of this very object: read through it
            yield self._con.cursor()
            return
        if self._read_con is not None:  # inside reading(): its connection
            cursor = self._read_con.cursor()
            try:
                yield cursor
            finally:
                cursor.close()
            return
        if self.path.is_dir():
            raise _not_a_store(self.path)
        if not self.exists():
            raise ValueError(
                f"No metaeval store at {str(self.path)!r}: the file does not exist "
                "(run a study first, or pass the right --store)."
            )
        con = _connect(self.path, read_only=True)
        try:
            try:
                tables = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
                if not {"meta", "datasets", "algorithms", "tasks", "scores"} <= tables:
                    raise ValueError(
                        f"{str(self.path)!r} is a DuckDB file but not a metaeval store.")
                if check:
                    self._check(con)
                yield con
            except duckdb.Error as exc:
                known = translate(exc, self.path)
                if known is None:
                    raise
                raise known from None
        finally:
            con.close()

    def _check(self, con) -> None:
        """The quick integrity check, once per object and file (see ``verify``)."""
        try:
            stamp = self.path.stat()
            stamp = (stamp.st_size, stamp.st_mtime_ns)
        except OSError:
            stamp = None
        if stamp is not None and stamp in (self._checked, _CHECKED.get(self.path.resolve())):
            return
        problems = quick_problems(con, self.path)
        if problems:
            raise StoreDamagedError(self.path, "; ".join(problems))
        self._checked = stamp
        if stamp is not None:
            _CHECKED[self.path.resolve()] = stamp

    def verify(self) -> list[str]:
        """Check the whole store; return what is wrong (an empty list: nothing).

        Reads every table whole (DuckDB verifies each block's checksum as it reads it)
        and checks that the tables agree: each finished task has one score per row of
        its dataset (rows 0..n-1, classes 0/1, scores in [0, 1], folds within its
        n_folds) and one timing per fold; unfinished tasks have none; the class of a row
        is the same for every algorithm. Opening a store for reading already runs a
        cheaper check (the small tables and the row counts, not the scores).

        Returns
        -------
        problems : list of str

        Raises
        ------
        ValueError
            When there is no store at the path.
        StoreDamagedError
            When the file cannot even be opened.
        """
        with self._reading(check=False) as con:
            return full_problems(con, self.path)

    def _frame(self, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        with self._reading() as con:
            return con.execute(sql, list(params)).df()

    # ------------------------------------------------------------------ read API
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
        self._dataset_id(dataset)
        return self._frame(_SQL_SCORES.format(where="WHERE d.name = ?"), [dataset])

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
        dataset_id, n = self._dataset_id(dataset)
        if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or repeat < 0:
            raise ValueError(f"repeat must be a non-negative integer, got {repeat!r}.")
        sql = """
            SELECT s.algorithm_id, s.row, s.y, s.score FROM scores s
            JOIN tasks t ON t.dataset_id = s.dataset_id AND t.algorithm_id = s.algorithm_id
                 AND t.repeat = s.repeat AND t.status = 'done'
            WHERE s.dataset_id = ? AND s.repeat = ?
        """
        # no ORDER BY: sorting took more than half of the read; each score is put at its
        # (row, algorithm) place instead, and every place must be filled exactly once
        with self._reading() as con:
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
        dataset_id, n = self._dataset_id(dataset)
        sql = """
            SELECT s.fold FROM scores s WHERE s.dataset_id = ? AND s.repeat = ?
            AND s.algorithm_id = (SELECT min(t.algorithm_id) FROM tasks t
                                  WHERE t.dataset_id = ? AND t.repeat = ?
                                  AND t.status = 'done')
            ORDER BY s.row
        """
        with self._reading() as con:
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

    # ------------------------------------------------------------------ provenance
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

    def start_run(self, environment: dict) -> int:
        """Record that a run starts now, in ``environment``; return the run's id."""
        return _provenance.start_run(self._writer(), environment)

    def finish_run(self, run: int) -> None:
        """Record that run ``run`` (an id from :meth:`start_run`) ends now."""
        _provenance.finish_run(self._writer(), run)

    # ------------------------------------------------------------------ meta-feature cache
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
        dataset_id, _ = self._dataset_id(dataset)
        with self._reading() as con:
            return _metafeatures.read_landmarks(con, dataset_id)

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

    def export_parquet(self, directory) -> list[Path]:
        """Write every table as a Parquet file in ``directory`` (names instead of ids).

        Parameters
        ----------
        directory : str or path-like
            Created if missing. Files: datasets, algorithms, tasks, scores, timings,
            and the provenance tables runs (with each run's environment as JSON),
            algorithm_hyperparameters and fold_seeds when the store has them
            (``.parquet``), and ``study.json`` (the recorded study configuration).

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
        }
        written, unreadable = [], []
        with self._reading(check=False) as con:  # a damaged store: save what can be read
            missing = set(_provenance.TABLES) - _provenance.present(con)
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

    # ------------------------------------------------------------------ write API
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
            con.commit()
        except BaseException:
            _rollback(con)
            raise

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
        from metaeval.store._import import import_predictions

        return import_predictions(self, source, format=format, dataset=dataset,
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

    # ------------------------------------------------------------------ helpers
    def _progress_path(self) -> Path:
        return self.path.with_name(self.path.name + ".progress.json")

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

    def _dataset_id(self, dataset: str) -> tuple[int, int]:
        if not isinstance(dataset, str):
            raise ValueError(f"dataset must be a dataset name (str), got {dataset!r}.")
        with self._reading() as con:
            rows = con.execute("SELECT name, id, n_instances FROM datasets").fetchall()
        known = {name: (int(i), int(n)) for name, i, n in rows}
        if dataset not in known:
            names = ", ".join(sorted(known)) or "none"
            raise ValueError(f"Unknown dataset {dataset!r} in {self.path}; it holds: {names}.")
        return known[dataset]


def _first(result) -> tuple | None:
    """First row of a result, fetching all of it (DuckDB wants results finished)."""
    rows = result.fetchall()
    return rows[0] if rows else None


def _rollback(con) -> None:
    """Roll back, keeping the original error when there is nothing left to roll back
    (DuckDB ends a transaction itself when its commit fails)."""
    try:
        con.rollback()
    except duckdb.Error:
        pass


def _os_error(exc: OSError, path) -> OSError:
    """A disk-full ``OSError`` as a :class:`StoreFullError` naming ``path``."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return StoreFullError(exc.filename or path, exc.strerror or "No space left on device")
    return exc


def _float(value) -> float | None:
    return None if value is None else float(value)


_LOCK_PID = re.compile(r"PID (\d+)")


def _not_a_store(path: Path) -> ValueError:
    """The error for a path that names a directory or a file that is not a DuckDB database."""
    problem = "is a directory" if path.is_dir() else "not a DuckDB database file"
    return ValueError(
        f"{str(path)!r} is not a metaeval store ({problem}); pass the path of a store "
        "file (--store), or a new path to create one."
    )


def _duckdb_or_new(path: Path) -> bool:
    """Whether ``path`` is missing, empty, or starts as a DuckDB database file does.

    DuckDB opens a CSV or Parquet file given as a database as an in-memory database with
    a view of it: a study "written" there would be lost. A DuckDB file has its magic
    bytes ``DUCK`` at offset 8.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
    except FileNotFoundError:
        return True
    except OSError:  # no permission to read: DuckDB says so (see translate)
        return True
    return len(head) == 0 or head[8:12] == b"DUCK"


#: DuckDB's memory limit for metaeval's read-only connections: the blocks it caches and
#: its operators' memory, which spill to disk beyond it
READ_MEMORY_LIMIT = "256MB"
#: score rows after whose reading a connection held by ``Store.reading`` is reopened
HELD_READ_ROWS = 1 << 20


def _connect(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file, turning DuckDB's lock conflicts into a clear StoreLockedError.

    A directory, or a file that is not a DuckDB database (a TOML file, an empty file),
    is a ValueError naming the path.
    """
    if path.is_dir() or not _duckdb_or_new(path):
        raise _not_a_store(path)
    last = None
    for attempt in range(3):  # a few quick tries: a writer may be closing right now
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            try:
                # DuckDB draws its own progress bar on long queries: metaeval's commands
                # show theirs, and a report's worker processes must not write to the
                # terminal
                con.execute("SET enable_progress_bar = false")
                # DuckDB keeps the blocks it reads cached up to its memory limit (80% of
                # the machine by default) until the database is closed: a scan of a
                # 1.3 GB store would hold 1.3 GB. metaeval's reads stream or take one
                # dataset at a time. (Writes keep DuckDB's default: a checkpoint that
                # cannot pin its blocks fails.)
                if read_only:
                    con.execute(f"SET memory_limit = '{READ_MEMORY_LIMIT}'")
            except BaseException:  # a signal (Ctrl-C) here must not leave the file open
                con.close()
                raise
            return con
        except duckdb.Error as exc:
            text = str(exc)
            # checked first: the message holds the path, which may contain "lock"
            if "not a valid DuckDB database file" in text or path.is_dir():
                raise _not_a_store(path) from None
            known = translate(exc, path)
            if known is not None:
                raise known from None
            if "Permission denied" in text:
                raise PermissionError(errno.EACCES, "Permission denied", str(path)) from None
            if "lock" not in text.lower() and "different configuration" not in text:
                raise
            last = exc
            time.sleep(0.05 * (attempt + 1))
    pid = _LOCK_PID.search(str(last))
    holder = f"process {pid.group(1)}" if pid else "another connection"
    raise StoreLockedError(
        f"The store {path} is in use by {holder} (a `metaeval run` in progress?). "
        "DuckDB allows one writer or many readers at a time: wait for the run to finish "
        "(`metaeval status` shows its progress) or use another --store."
    ) from last
