"""The SQL of the meta-feature cache: pymfe meta-features, landmarker scores, group times.

Three tables (created by ``_schema._SCHEMA`` when a store is opened for writing; stores
written before they existed still open, and read as an empty cache):

==================  ==================================================================
table               columns
==================  ==================================================================
metafeature_groups  dataset_id, feature_group, kind ('pymfe' | 'landmarker'), status
                    ('ok' | 'failed' | 'timeout'), wall, cpu, n_features, n_failed,
                    error, settings (JSON)
metafeatures        dataset_id, feature_group, feature, value (NULL when not
                    computable), error
landmark_scores     dataset_id, landmarker, row, y, score (out-of-fold)
==================  ==================================================================
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from metaeval.store._connection import table_names

GROUP_COLUMNS = ("dataset", "group", "kind", "status", "wall", "cpu", "n_features",
                 "n_failed", "error", "settings")
FEATURE_COLUMNS = ("dataset", "group", "feature", "value", "error")
LANDMARK_COLUMNS = ("landmarker", "row", "y", "score")
TABLES = ("metafeature_groups", "metafeatures", "landmark_scores")

_SQL_GROUPS = """
SELECT d.name AS dataset, g.feature_group AS "group", g.kind, g.status, g.wall, g.cpu,
       g.n_features, g.n_failed, g.error, g.settings
FROM metafeature_groups g JOIN datasets d ON d.id = g.dataset_id
ORDER BY g.dataset_id, g.kind DESC, g.feature_group
"""
_SQL_FEATURES = """
SELECT d.name AS dataset, f.feature_group AS "group", f.feature, f.value, f.error
FROM metafeatures f JOIN datasets d ON d.id = f.dataset_id
ORDER BY f.dataset_id, f.feature_group, f.feature
"""
_SQL_LANDMARKS = """
SELECT landmarker, row, y, score FROM landmark_scores
WHERE dataset_id = ? ORDER BY landmarker, row
"""


def _has_cache(con: duckdb.DuckDBPyConnection) -> bool:
    tables = table_names(con)
    return set(TABLES) <= tables


def _empty(columns) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


def read_groups(con) -> pd.DataFrame:
    """Every described group, one row per (dataset, group)."""
    if not _has_cache(con):
        return _empty(GROUP_COLUMNS)
    return con.execute(_SQL_GROUPS).df()


def read_features(con) -> pd.DataFrame:
    """Every cached meta-feature, one row per (dataset, group, feature)."""
    if not _has_cache(con):
        return _empty(FEATURE_COLUMNS)
    return con.execute(_SQL_FEATURES).df()


def read_landmarks(con, dataset_id: int) -> pd.DataFrame:
    """Landmarker scores of one dataset in long form (empty when not cached)."""
    if not _has_cache(con):
        return _empty(LANDMARK_COLUMNS)
    return con.execute(_SQL_LANDMARKS, [dataset_id]).df()


def _text(column) -> pa.Array:
    """Strings, with None for anything missing (None, NaN, pd.NA)."""
    return pa.array([v if isinstance(v, str) else None for v in column.tolist()],
                    type=pa.string())


def write_description(con, dataset_id: int, groups: pd.DataFrame, features: pd.DataFrame,
                      landmarks: pd.DataFrame, settings: str) -> None:
    """Replace a dataset's cached description in one transaction.

    ``groups`` has columns group, kind, status, wall, cpu, n_features, n_failed, error;
    ``features`` group, feature, value, error; ``landmarks`` landmarker, row, y, score.
    """
    n_g, n_f, n_l = len(groups), len(features), len(landmarks)
    tables = {
        "metafeature_groups": pa.table({
            "dataset_id": np.full(n_g, dataset_id, dtype=np.int16),
            "feature_group": groups["group"].astype(str).to_numpy(),
            "kind": groups["kind"].astype(str).to_numpy(),
            "status": groups["status"].astype(str).to_numpy(),
            "wall": groups["wall"].to_numpy(dtype=np.float64),
            "cpu": groups["cpu"].to_numpy(dtype=np.float64),
            "n_features": groups["n_features"].to_numpy(dtype=np.int32),
            "n_failed": groups["n_failed"].to_numpy(dtype=np.int32),
            "error": _text(groups["error"]),
            "settings": pa.array([settings] * n_g, type=pa.string()),
        }),
        "metafeatures": pa.table({
            "dataset_id": np.full(n_f, dataset_id, dtype=np.int16),
            "feature_group": pa.array(features["group"].astype(str).tolist(), type=pa.string()),
            "feature": pa.array(features["feature"].astype(str).tolist(), type=pa.string()),
            "value": pa.array(features["value"].to_numpy(dtype=np.float64), from_pandas=True),
            "error": _text(features["error"]),
        }),
        "landmark_scores": pa.table({
            "dataset_id": np.full(n_l, dataset_id, dtype=np.int16),
            "landmarker": pa.array(landmarks["landmarker"].astype(str).tolist(),
                                   type=pa.string()),
            "row": landmarks["row"].to_numpy(dtype=np.int32),
            "y": landmarks["y"].to_numpy(dtype=np.int8),
            "score": landmarks["score"].to_numpy(dtype=np.float64),
        }),
    }
    con.begin()
    try:
        for table, frame in tables.items():
            con.execute(f"DELETE FROM {table} WHERE dataset_id = ?", [dataset_id])
            con.register("metaeval_cache", frame)
            con.execute(f"INSERT INTO {table} SELECT * FROM metaeval_cache")
            con.unregister("metaeval_cache")
        con.commit()
    except BaseException:
        con.rollback()
        raise
