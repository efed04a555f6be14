"""The DuckDB schema of a store and the SQL that reads it back as frames with names."""

from __future__ import annotations

import re

SCHEMA_VERSION = "1"
TASK_STATUSES = ("pending", "done", "failed")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS datasets (
    id SMALLINT PRIMARY KEY,
    name VARCHAR NOT NULL UNIQUE,
    sha256 VARCHAR,
    n_instances INTEGER NOT NULL,
    n_features INTEGER NOT NULL,
    positive_fraction DOUBLE,
    family VARCHAR,
    source VARCHAR
);
CREATE TABLE IF NOT EXISTS algorithms (
    id SMALLINT PRIMARY KEY,
    name VARCHAR NOT NULL UNIQUE,
    estimator VARCHAR NOT NULL,
    params VARCHAR NOT NULL,
    score_method VARCHAR NOT NULL,
    versions VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
    dataset_id SMALLINT NOT NULL,
    algorithm_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    status VARCHAR NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    error VARCHAR,
    wall DOUBLE,
    cpu DOUBLE,
    n_folds SMALLINT,
    warning VARCHAR,
    finished TIMESTAMP,
    PRIMARY KEY (dataset_id, algorithm_id, repeat)
);
CREATE TABLE IF NOT EXISTS scores (
    dataset_id SMALLINT NOT NULL,
    algorithm_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    fold SMALLINT NOT NULL,
    row INTEGER NOT NULL,
    y TINYINT NOT NULL,
    score DOUBLE NOT NULL
);
CREATE TABLE IF NOT EXISTS timings (
    dataset_id SMALLINT NOT NULL,
    algorithm_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    fold SMALLINT NOT NULL,
    fit_wall DOUBLE NOT NULL,
    fit_cpu DOUBLE NOT NULL,
    predict_wall DOUBLE NOT NULL,
    predict_cpu DOUBLE NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    started TIMESTAMP NOT NULL,
    finished TIMESTAMP,
    environment VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS algorithm_hyperparameters (
    algorithm_id SMALLINT PRIMARY KEY,
    hyperparameters VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS fold_seeds (
    dataset_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    seed BIGINT NOT NULL,
    PRIMARY KEY (dataset_id, repeat)
);
CREATE TABLE IF NOT EXISTS metafeature_groups (
    dataset_id SMALLINT NOT NULL,
    feature_group VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    wall DOUBLE,
    cpu DOUBLE,
    n_features INTEGER,
    n_failed INTEGER,
    error VARCHAR,
    settings VARCHAR,
    PRIMARY KEY (dataset_id, feature_group)
);
CREATE TABLE IF NOT EXISTS metafeatures (
    dataset_id SMALLINT NOT NULL,
    feature_group VARCHAR NOT NULL,
    feature VARCHAR NOT NULL,
    value DOUBLE,
    error VARCHAR
);
CREATE TABLE IF NOT EXISTS units (
    run INTEGER,
    dataset_id SMALLINT NOT NULL,
    algorithm_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    fold SMALLINT,
    status VARCHAR NOT NULL,
    worker VARCHAR,
    started DOUBLE,
    finished DOUBLE,
    wall DOUBLE,
    cpu DOUBLE,
    estimate DOUBLE
);
CREATE TABLE IF NOT EXISTS held_folds (
    dataset_id SMALLINT NOT NULL,
    algorithm_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    fold SMALLINT NOT NULL,
    n_folds SMALLINT NOT NULL,
    wall DOUBLE,
    cpu DOUBLE,
    fit_wall DOUBLE NOT NULL,
    fit_cpu DOUBLE NOT NULL,
    predict_wall DOUBLE NOT NULL,
    predict_cpu DOUBLE NOT NULL,
    warning_lines VARCHAR NOT NULL,
    note VARCHAR,
    PRIMARY KEY (dataset_id, algorithm_id, repeat, fold)
);
CREATE TABLE IF NOT EXISTS held_scores (
    dataset_id SMALLINT NOT NULL,
    algorithm_id SMALLINT NOT NULL,
    repeat SMALLINT NOT NULL,
    fold SMALLINT NOT NULL,
    row INTEGER NOT NULL,
    y TINYINT NOT NULL,
    score DOUBLE NOT NULL
);
CREATE TABLE IF NOT EXISTS landmark_scores (
    dataset_id SMALLINT NOT NULL,
    landmarker VARCHAR NOT NULL,
    row INTEGER NOT NULL,
    y TINYINT NOT NULL,
    score DOUBLE NOT NULL
);
"""

#: the tables ``_SCHEMA`` creates (a store opened for writing that has them all skips it)
_SCHEMA_TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", _SCHEMA))

_DATASET_COLUMNS = (
    "name", "sha256", "n_instances", "n_features", "positive_fraction", "family", "source",
)
_ALGORITHM_COLUMNS = ("name", "estimator", "params", "score_method", "versions")
_TASK_COLUMNS = (
    "dataset", "algorithm", "repeat", "status", "error", "wall", "cpu", "n_folds", "warning",
)
_SCORE_COLUMNS = ("dataset", "algorithm", "repeat", "fold", "row", "y", "score")
_TIMING_COLUMNS = (
    "dataset", "algorithm", "repeat", "fold", "fit_wall", "fit_cpu", "predict_wall",
    "predict_cpu",
)

# Queries shared by the frame readers and the Parquet export (names instead of ids).
_SQL_DATASETS = f"SELECT {', '.join(_DATASET_COLUMNS)} FROM datasets ORDER BY id"
_SQL_ALGORITHMS = f"SELECT {', '.join(_ALGORITHM_COLUMNS)} FROM algorithms ORDER BY id"
_SQL_TASKS = """
SELECT d.name AS dataset, a.name AS algorithm, t.repeat, t.status, t.error, t.wall, t.cpu,
       t.n_folds, t.warning
FROM tasks t JOIN datasets d ON d.id = t.dataset_id JOIN algorithms a ON a.id = t.algorithm_id
{where}
ORDER BY t.dataset_id, t.algorithm_id, t.repeat
"""
_SQL_SCORES = """
SELECT d.name AS dataset, a.name AS algorithm, s.repeat, s.fold, s.row, s.y, s.score
FROM scores s JOIN datasets d ON d.id = s.dataset_id JOIN algorithms a ON a.id = s.algorithm_id
{where}
ORDER BY s.dataset_id, s.algorithm_id, s.repeat, s.row
"""
_SQL_TIMINGS = """
SELECT d.name AS dataset, a.name AS algorithm, m.repeat, m.fold, m.fit_wall, m.fit_cpu,
       m.predict_wall, m.predict_cpu
FROM timings m JOIN datasets d ON d.id = m.dataset_id JOIN algorithms a ON a.id = m.algorithm_id
ORDER BY m.dataset_id, m.algorithm_id, m.repeat, m.fold
"""
