"""The :class:`Store` class: opening a store, and checking it when opened.

Its read API is in ``_reading`` and its write API in ``_writing`` (both parts of
:class:`Store`); opening the DuckDB file in ``_connection``; the checks in ``_integrity``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from metaeval.store._connection import (
    _connect,
    _first,
    _not_a_store,
    _os_error,
    table_names,
)
from metaeval.store._integrity import (
    StoreDamagedError,
    full_problems,
    quick_problems,
    translate,
)
from metaeval.store._reading import StoreReading
from metaeval.store._schema import _SCHEMA, _SCHEMA_TABLES, SCHEMA_VERSION
from metaeval.store._writing import StoreWriting

#: (size, mtime) of each store file when its quick check last passed in this process, so
#: that several Store objects of one file (a command's checks, then its reads) check once.
_CHECKED: dict[Path, tuple[int, int]] = {}


class Store(StoreReading, StoreWriting):
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
                # every statement of the schema is a CREATE TABLE IF NOT EXISTS: with all
                # its tables there it would change nothing, and it costs 4.5 ms (the names
                # 0.8), on every writing() of a store that exists
                if not existed or not _SCHEMA_TABLES <= table_names(con):
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
                tables = table_names(con)
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
