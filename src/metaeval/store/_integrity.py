"""Damage and a full disk: how a store notices them and says so.

DuckDB checksums every block it reads, so a damaged file shows itself as an error when
the damaged block is read; a truncated file as a short read. This module turns those
errors (and "No space left on device") into :class:`StoreDamagedError` and
:class:`StoreFullError`, which name the file and say what to do, and holds the two
checks of a store:

* :func:`quick_problems`, run whenever a :class:`~metaeval.store.Store` first opens its
  file: it reads every small table whole (meta, datasets, algorithms, tasks, timings:
  a few rows per task) and checks that the row counts of the tables agree (scores and
  timings of exactly the finished tasks). It does not read the scores themselves.
* :func:`full_problems` (``metaeval check``): all of that, plus every score read and
  checked, task by task.
"""

from __future__ import annotations

import errno
import json
import re
from pathlib import Path

import duckdb

__all__ = ["StoreDamagedError", "StoreFullError", "StorePermissionError", "translate",
           "quick_problems", "full_problems"]

_TABLES = ("meta", "datasets", "algorithms", "tasks", "scores", "timings")
_SMALL_TABLES = ("meta", "datasets", "algorithms", "tasks", "timings")
_UNIT_TABLES = {"units", "held_folds"}


class StoreDamagedError(RuntimeError):
    """The store file is damaged (a block fails its checksum, the file is cut short, or
    its tables disagree with each other).

    Attributes
    ----------
    path : Path
        The store file.
    problem : str
        What is wrong, in a few words.
    """

    def __init__(self, path, problem: str):
        self.path = Path(path)
        self.problem = problem.rstrip(".")
        super().__init__(
            f"The store {self.path} is damaged: {self.problem}. Its scores can be re-created "
            "by running the study again into a new store (another --store); "
            f"`metaeval export --store {self.path} --parquet DIR` saves the tables that are "
            "still readable."
        )


class StoreFullError(OSError):
    """No space is left on the device (or in the quota) for a file of the store.

    An ``OSError`` with ``errno`` ENOSPC and ``filename`` the file that could not be
    written. Tasks committed before it are safe in the store.
    """

    def __init__(self, filename, detail: str = "No space left on device"):
        super().__init__(errno.ENOSPC, detail, str(filename))

    def __str__(self) -> str:
        return (f"No space left on the device to write {self.filename} ({self.strerror}). "
                "Finished tasks are saved; free some space and run the same command again.")


class StorePermissionError(PermissionError):
    """The store file, or the file DuckDB keeps beside it (``<store>.wal``), cannot be
    written: no permission, a read-only directory or file system, an immutable file.

    A ``PermissionError`` with ``filename`` the file that could not be opened.
    """

    def __init__(self, filename, detail: str = "Permission denied"):
        code = errno.EPERM if "not permitted" in detail else errno.EACCES
        super().__init__(code, detail, str(filename))

    def __str__(self) -> str:
        return (f"Cannot write {self.filename} ({self.strerror}): a store needs a writable "
                "file in a writable directory (DuckDB writes <store>.wal beside it); "
                "copy the store somewhere writable, or pass another --store.")


_DENIED = ("Permission denied", "Operation not permitted", "Read-only file system")
_NO_SPACE = ("No space left on device", "Disk quota exceeded")
_DAMAGE = ("Corrupt database file", "checksum", "Could not read enough bytes",
           "Serialization Error", "INTERNAL Error", "FATAL Error")
_WRITE_FILE = re.compile(r'(?:write|open|create)[^"]* file "([^"]+)"')


def translate(exc: BaseException, path) -> BaseException | None:
    """The :class:`StoreFullError`, :class:`StoreDamagedError` or
    :class:`StorePermissionError` a DuckDB error means.

    None when it means neither (a lock conflict, a bug): the caller re-raises it as is.
    """
    if not isinstance(exc, duckdb.Error):
        return None
    text = str(exc)
    if any(marker in text for marker in _NO_SPACE):
        named = _WRITE_FILE.search(text)
        return StoreFullError(named.group(1) if named else path,
                              "No space left on device" if "quota" not in text
                              else "Disk quota exceeded")
    denied = [marker for marker in _DENIED if marker in text]
    if denied:
        named = _WRITE_FILE.search(text)
        return StorePermissionError(named.group(1) if named else path, denied[0])
    damaged = isinstance(exc, (duckdb.SerializationException, duckdb.InternalException)) \
        or any(marker in text for marker in _DAMAGE)
    if damaged:
        return StoreDamagedError(path, _first_line(text))
    return None


_SHORT_READ = re.compile(r"Could not read enough bytes from file .*: attempted to read (\d+) "
                         r"bytes from location (\d+)")
_CHECKSUM = re.compile(r"Corrupt database file: computed checksum \d+ does not match stored "
                       r"checksum \d+ in block at location (\d+)")


def _first_line(text: str) -> str:
    """DuckDB's message in a few words: what is wrong and where in the file."""
    line = text.strip().splitlines()[0] if text.strip() else "unreadable"
    for prefix in ("IO Error: ", "Error: ", "FATAL Error: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
    short = _SHORT_READ.search(line)
    if short:
        return (f"the file ends before byte {int(short.group(1)) + int(short.group(2))} "
                "that its contents need (cut short?)")
    checksum = _CHECKSUM.search(line)
    if checksum:
        return f"the block at byte {checksum.group(1)} fails its checksum (overwritten?)"
    return line


def _scan(con, table: str) -> None:
    """Read every column of every row of ``table`` (DuckDB verifies each block read)."""
    con.execute(f"SELECT count(*), bit_xor(hash(COLUMNS(*))) FROM {table}").fetchall()


def _read(con, table: str, problems: list[str], path) -> bool:
    try:
        _scan(con, table)
    except duckdb.Error as exc:
        known = translate(exc, path)
        if known is None:
            raise
        problems.append(f"table {table}: {_first_line(str(exc))}")
        return False
    return True


def quick_problems(con, path) -> list[str]:
    """What a cheap check finds wrong with an open store (empty: nothing).

    Reads the small tables whole and checks that scores and timings hold rows for
    exactly the finished tasks (counts only; the scores are not read).
    """
    return _quick(con, path)[0]


def _quick(con, path) -> tuple[list[str], bool]:
    """(problems, whether every small table could be read)."""
    problems: list[str] = []
    # the small tables of the parallel profile too, where the store has them
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND schema_name = current_schema()"
    ).fetchall()}
    tables = _SMALL_TABLES + tuple(sorted(_UNIT_TABLES & present))
    readable = {t for t in tables if _read(con, t, problems, path)}
    if problems:
        return problems, False
    try:
        version = con.execute("SELECT count(*) FROM meta WHERE key = 'schema_version'")
        if version.fetchall()[0][0] != 1:
            problems.append("table meta has no schema version")
        counts = con.execute(
            """
            SELECT (SELECT count(*) FROM scores),
                   (SELECT coalesce(sum(d.n_instances), 0) FROM tasks t
                    JOIN datasets d ON d.id = t.dataset_id WHERE t.status = 'done'),
                   (SELECT count(*) FROM timings),
                   (SELECT coalesce(sum(t.n_folds), 0) FROM tasks t WHERE t.status = 'done'),
                   (SELECT count(*) FROM tasks t ANTI JOIN datasets d ON d.id = t.dataset_id),
                   (SELECT count(*) FROM tasks t ANTI JOIN algorithms a
                    ON a.id = t.algorithm_id)
            """
        ).fetchall()[0]
    except duckdb.Error as exc:
        known = translate(exc, path)
        if known is None:
            raise
        return problems + [_first_line(str(exc))], False
    scores, want_scores, timings, want_timings, no_dataset, no_algorithm = map(int, counts)
    if scores != want_scores:
        problems.append(f"table scores has {scores} rows, but the finished tasks need "
                        f"{want_scores}")
    if "timings" in readable and timings != want_timings:
        problems.append(f"table timings has {timings} rows, but the finished tasks need "
                        f"{want_timings}")
    if no_dataset or no_algorithm:
        problems.append(f"{no_dataset + no_algorithm} tasks refer to a dataset or algorithm "
                        "that is not in the store")
    return problems, True


def full_problems(con, path) -> list[str]:
    """Everything :func:`quick_problems` checks, then every score, task by task."""
    problems, readable = _quick(con, path)
    if not _read(con, "scores", problems, path) or not readable:
        return problems
    try:
        config = con.execute("SELECT value FROM meta WHERE key = 'study'").fetchall()
        if config:
            try:
                json.loads(config[0][0])
            except ValueError:
                problems.append("the recorded study configuration is not valid JSON")
        per_task = con.execute(
            """
            WITH s AS (
                SELECT dataset_id, algorithm_id, repeat, count(*) AS n,
                       count(DISTINCT row) AS n_rows, min(row) AS lo, max(row) AS hi,
                       count(*) FILTER (WHERE y NOT IN (0, 1)) AS bad_y,
                       count(*) FILTER (WHERE NOT (score >= 0 AND score <= 1)) AS bad_score,
                       min(fold) AS fold_lo, max(fold) AS fold_hi
                FROM scores GROUP BY ALL
            ), m AS (
                SELECT dataset_id, algorithm_id, repeat, count(*) AS n_timings,
                       count(*) FILTER (WHERE least(fit_wall, fit_cpu, predict_wall,
                                                    predict_cpu) < 0
                                        OR NOT isfinite(fit_wall + fit_cpu + predict_wall
                                                        + predict_cpu)) AS bad_time
                FROM timings GROUP BY ALL
            )
            SELECT d.name, a.name, t.repeat, t.status, t.n_folds, d.n_instances,
                   coalesce(s.n, 0), coalesce(s.n_rows, 0), s.lo, s.hi,
                   coalesce(s.bad_y, 0), coalesce(s.bad_score, 0), s.fold_lo, s.fold_hi,
                   coalesce(m.n_timings, 0), coalesce(m.bad_time, 0)
            FROM tasks t
            JOIN datasets d ON d.id = t.dataset_id JOIN algorithms a ON a.id = t.algorithm_id
            LEFT JOIN s USING (dataset_id, algorithm_id, repeat)
            LEFT JOIN m USING (dataset_id, algorithm_id, repeat)
            ORDER BY t.dataset_id, t.algorithm_id, t.repeat
            """
        ).fetchall()
        orphans = con.execute(
            """
            SELECT count(*) FROM (SELECT DISTINCT dataset_id, algorithm_id, repeat FROM scores)
            s ANTI JOIN tasks t USING (dataset_id, algorithm_id, repeat)
            """
        ).fetchall()[0][0]
        labels = con.execute(
            """
            SELECT d.name, s.repeat, count(*) FROM (
                SELECT dataset_id, repeat, row FROM scores GROUP BY ALL
                HAVING min(y) <> max(y)) s
            JOIN datasets d ON d.id = s.dataset_id GROUP BY ALL ORDER BY ALL
            """
        ).fetchall()
    except duckdb.Error as exc:
        known = translate(exc, path)
        if known is None:
            raise
        return problems + [_first_line(str(exc))]
    for (dataset, algorithm, repeat, status, n_folds, n, got, distinct, lo, hi, bad_y,
         bad_score, fold_lo, fold_hi, n_timings, bad_time) in per_task:
        task = f"task {dataset} / {algorithm} / repeat {repeat}"
        if status != "done":
            if got or n_timings:
                problems.append(f"{task} is {status} but has {got} scores and {n_timings} "
                                "timings")
            continue
        if got != n or distinct != n or lo != 0 or hi != n - 1:
            problems.append(f"{task}: {got} scores for rows {lo}..{hi} ({distinct} distinct), "
                            f"the dataset has {n} rows")
        if bad_y:
            problems.append(f"{task}: {bad_y} classes other than 0 and 1")
        if bad_score:
            problems.append(f"{task}: {bad_score} scores outside [0, 1] or not numbers")
        if n_folds is None or fold_lo is None or fold_lo < 0 or fold_hi >= n_folds:
            problems.append(f"{task}: folds {fold_lo}..{fold_hi} do not fit n_folds = "
                            f"{n_folds}")
        if n_folds is not None and n_timings != n_folds:
            problems.append(f"{task}: {n_timings} timings for {n_folds} folds")
        if bad_time:
            problems.append(f"{task}: {bad_time} negative or missing times")
    if orphans:
        problems.append(f"table scores holds rows of {orphans} tasks that are not in table "
                        "tasks")
    for dataset, repeat, n in labels:
        problems.append(f"dataset {dataset}, repeat {repeat}: {n} rows whose class differs "
                        "between algorithms")
    return problems
