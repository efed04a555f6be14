"""The report cache kept inside a store: what the store holds, summed up, and a cache table.

``metaeval report`` draws each figure and writes each section once, and keeps them in the
store file, in the table ``report_cache``, under a key made from everything they depend on
(see :mod:`metaeval.report._cache`). This module is the SQL of it:

- :func:`content_digests`: one digest per dataset (its scores, tasks and catalogue row and
  the algorithm names) and one of the whole store (every table a report reads), from one
  scan of each table: a changed score changes its dataset's digest and the store's, nothing
  else.
- :func:`read_cache` and :func:`write_cache`: the cached entries of this layout and version,
  and their replacement by the entries one report used (so the table holds one report's
  worth, never more).

A store opened by a running study, a read-only file or a cache table of another layout is
not an error: reading gives nothing, writing says why it could not.
"""

from __future__ import annotations

import hashlib
import json

import duckdb
import numpy as np
import pandas as pd

from metaeval.store._connection import table_names

__all__ = ["CACHE_TABLE", "all_scores", "content_digests", "read_cache", "write_cache"]

CACHE_TABLE = "report_cache"
_COLUMNS = ("key", "kind", "version", "value")
_CREATE = f"""
CREATE TABLE IF NOT EXISTS {CACHE_TABLE} (
    key VARCHAR PRIMARY KEY,
    kind VARCHAR NOT NULL,
    version VARCHAR NOT NULL,
    value VARCHAR NOT NULL
)
"""

# order-independent sums of row hashes: one scan, no sort
_SQL_DATASET_PARTS = """
WITH s AS (
    SELECT dataset_id, count(*) AS n,
           sum(hash(algorithm_id, repeat, fold, row, y, score)::HUGEINT)::VARCHAR AS h
    FROM scores GROUP BY dataset_id),
t AS (
    SELECT dataset_id, sum(hash(algorithm_id, repeat, status, n_folds)::HUGEINT)::VARCHAR AS h
    FROM tasks GROUP BY dataset_id)
SELECT d.name, d.sha256, d.n_instances, d.n_features, d.positive_fraction, d.family,
       d.source, s.n, s.h, t.h
FROM datasets d LEFT JOIN s ON s.dataset_id = d.id LEFT JOIN t ON t.dataset_id = d.id
ORDER BY d.id
"""
_WHOLE_TABLES = ("meta", "algorithms", "tasks", "timings", "metafeature_groups",
                 "metafeatures", "landmark_scores")


def _sha(obj) -> str:
    return hashlib.sha256(json.dumps(obj, default=str).encode()).hexdigest()


def content_digests(store) -> tuple[dict[str, str], str]:
    """Digests of what a store holds: per dataset, and of the whole store.

    A dataset's digest covers its catalogue row (name, SHA-256 of its file, sizes),
    its scores and tasks, and the algorithm names; the store's covers every
    dataset's and every other table a report reads (timings, tasks with their
    errors, the study configuration, meta-features, landmarkers), not the cache.

    Parameters
    ----------
    store : metaeval.store.Store

    Returns
    -------
    per_dataset : dict of str to str
    whole : str
    """
    with store._reading() as con:
        tables = table_names(con)
        algorithms = con.execute("SELECT id, name FROM algorithms ORDER BY id").fetchall()
        rows = con.execute(_SQL_DATASET_PARTS).fetchall()
        whole = {}
        for table in _WHOLE_TABLES:
            if table not in tables:
                continue
            where = " WHERE key <> 'progress'" if table == "meta" else ""
            whole[table] = con.execute(
                f"SELECT count(*), sum(hash(t)::HUGEINT)::VARCHAR FROM {table} t{where}"
            ).fetchall()[0]
    per_dataset = {str(r[0]): _sha([list(r), algorithms]) for r in rows}
    return per_dataset, _sha([per_dataset, whole])


def _layout_ok(con) -> bool | None:
    """True: the table has this layout; False: another; None: no table."""
    cols = [r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position", [CACHE_TABLE]).fetchall()]
    if not cols:
        return None
    return tuple(cols) == _COLUMNS


def has_figures(store) -> bool | None:
    """Whether the store's report cache holds a figure (of any version); None when the
    store cannot be read right now (a study writing it, or not a DuckDB file)."""
    from metaeval.store._connection import StoreLockedError

    try:
        with store._reading() as con:
            if _layout_ok(con) is None:
                return False
            return con.execute(f"SELECT count(*) FROM (SELECT 1 FROM {CACHE_TABLE} "
                               "WHERE kind = 'figure' LIMIT 1)").fetchone()[0] > 0
    except (StoreLockedError, duckdb.Error, OSError):
        return None


def read_cache(store, version: str) -> dict[str, tuple[str, str | None]]:
    """Cached entries written by this ``version``: ``{key: (kind, value)}``.

    The value of an ``intermediate`` entry (written by earlier versions of the report,
    which kept them here; they can be large) is None: they are not read, and are dropped
    when the cache is next written. Empty when the store has no cache table, one of
    another layout, or cannot be read right now (a study writing it).
    """
    from metaeval.store._connection import StoreLockedError

    try:
        with store._reading() as con:
            if not _layout_ok(con):
                return {}
            rows = con.execute(
                f"SELECT key, kind, CASE WHEN kind = 'intermediate' THEN NULL ELSE value END "
                f"FROM {CACHE_TABLE} WHERE version = ?", [version]).fetchall()
    except (StoreLockedError, duckdb.Error, OSError):
        return {}
    return {k: (kind, v) for k, kind, v in rows}


def write_cache(store, version: str, entries: dict[str, tuple[str, str]],
                keep: set[str]) -> str | None:
    """Store ``entries`` and drop every entry not in ``keep`` (or of another version).

    Parameters
    ----------
    store : metaeval.store.Store
    version : str
    entries : dict of str to (kind, value)
        New entries.
    keep : set of str
        Keys of the entries the report used (new ones included).

    Returns
    -------
    str or None
        None when written, else why not (a read-only file, a study writing the
        store, ...): the report is complete either way, only the next one is slower.
    """
    from metaeval.store._connection import StoreLockedError

    try:
        with store.writing():
            con = store._con
            if _layout_ok(con) is False:
                con.execute(f"DROP TABLE {CACHE_TABLE}")
            con.execute(_CREATE)
            con.execute("BEGIN TRANSACTION")
            try:
                present = {r[0] for r in con.execute(
                    f"SELECT key FROM {CACHE_TABLE} WHERE version = ?", [version]).fetchall()}
                # a new entry replaces a present one of its key (one found damaged)
                stale = pd.DataFrame({"key": sorted((present - set(keep))
                                                    | (present & set(entries)))}, dtype=object)
                con.execute(f"DELETE FROM {CACHE_TABLE} WHERE version <> ?", [version])
                if len(stale):
                    con.register("_stale", stale)
                    con.execute(f"DELETE FROM {CACHE_TABLE} WHERE key IN (SELECT key FROM _stale)")
                    con.unregister("_stale")
                new = entries
                if new:
                    frame = pd.DataFrame({
                        "key": list(new), "kind": [e[0] for e in new.values()],
                        "version": version, "value": [e[1] for e in new.values()]})
                    con.register("_new", frame)
                    con.execute(f"INSERT INTO {CACHE_TABLE} SELECT key, kind, version, value "
                                "FROM _new")
                    con.unregister("_new")
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
    except StoreLockedError:
        return "the store is in use by another process"
    except PermissionError:
        return "the store file is read-only"
    except (duckdb.Error, OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def all_scores(store, repeat: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray, list]]:
    """``store.scores(name, repeat=repeat)`` of every dataset, from one query.

    A report process needs the scores of every dataset; one scan instead of two
    connections per dataset. Datasets the per-dataset read would refuse (no
    finished scores, rows missing) are left out, so that read still says why.

    Returns
    -------
    dict of str to (y, S, algorithms)
        As :meth:`metaeval.store.Store.scores` returns them.
    """
    sql = """
        SELECT s.dataset_id, s.algorithm_id, s.row, s.y, s.score FROM scores s
        JOIN tasks t ON t.dataset_id = s.dataset_id AND t.algorithm_id = s.algorithm_id
             AND t.repeat = s.repeat AND t.status = 'done'
        WHERE s.repeat = ?
        ORDER BY s.dataset_id, s.algorithm_id, s.row
    """
    with store._reading() as con:
        got = con.execute(sql, [int(repeat)]).fetchnumpy()
        names = dict(con.execute("SELECT id, name FROM algorithms").fetchall())
        sizes = {int(i): (str(n), int(k)) for i, n, k in con.execute(
            "SELECT id, name, n_instances FROM datasets").fetchall()}
    ids = np.asarray(got["dataset_id"])
    out = {}
    if ids.size == 0:
        return out
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], ids.size]
    for a, b in zip(starts, ends, strict=True):
        name, n = sizes[int(ids[a])]
        alg = np.asarray(got["algorithm_id"][a:b])
        algorithm_ids, counts = np.unique(alg, return_counts=True)
        if n == 0 or np.any(counts != n):
            continue
        k = algorithm_ids.size
        rows = np.asarray(got["row"][a:b]).reshape(k, n)
        if np.any(rows != np.arange(n)):
            continue
        y = np.asarray(got["y"][a:b], dtype=np.int8).reshape(k, n)
        S = np.asarray(got["score"][a:b], dtype=np.float64).reshape(k, n).T.copy()
        out[name] = (y[0].copy(), S, [names[int(i)] for i in algorithm_ids])
    return out
