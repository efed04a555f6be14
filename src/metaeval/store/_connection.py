"""Opening a store's DuckDB file, and the small helpers every part of the Store uses."""

from __future__ import annotations

import errno
import re
import time
from pathlib import Path

import duckdb

from metaeval.store._integrity import StoreFullError, translate


class StoreLockedError(RuntimeError):
    """The store file is held by another process (usually a ``metaeval run`` in progress)."""


def _first(result) -> tuple | None:
    """First row of a result, fetching all of it (DuckDB wants results finished)."""
    rows = result.fetchall()
    return rows[0] if rows else None


def table_names(con) -> set[str]:
    """The names of the tables in the connection's database (its ``main`` schema).

    What ``SHOW TABLES`` gives a store (it has no views), five times faster: checked on
    every connection a read opens.
    """
    return {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND schema_name = current_schema()"
    ).fetchall()}


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
