"""The results store: one DuckDB file holding a study's datasets, algorithms, tasks and scores.

This is the only module of metaeval that speaks SQL. A study writes its results here one
task at a time (:meth:`Store.record_task`, one transaction per task), and everything
downstream -- the measures, the report, the command line -- reads them back through the
small read API below (arrays and tidy frames, never SQL).

Schema (compact types; datasets and algorithms are referred to by small integer ids):

===========  ===================================================================
table        columns
===========  ===================================================================
meta         key VARCHAR, value VARCHAR (``schema_version``, ``study`` as JSON)
datasets     id SMALLINT, name, sha256, n_instances INTEGER, n_features INTEGER,
             positive_fraction DOUBLE, family, source
algorithms   id SMALLINT, name, estimator, params (JSON), score_method,
             versions (JSON)
tasks        dataset_id, algorithm_id, repeat SMALLINT, status
             ('pending' | 'done' | 'failed'), error, wall DOUBLE, cpu DOUBLE,
             n_folds SMALLINT, warning, finished TIMESTAMP
scores       dataset_id, algorithm_id, repeat, fold SMALLINT, row INTEGER,
             y TINYINT, score DOUBLE (bit-exact float64)
timings      dataset_id, algorithm_id, repeat, fold, fit_wall, fit_cpu,
             predict_wall, predict_cpu (DOUBLE, seconds)
===========  ===================================================================

Concurrency: DuckDB lets one process write a file, or many processes read it, but not both.
A running study holds the write lock for its whole run, and a reader that comes along
meanwhile gets a :class:`StoreLockedError` with a clear message. While it runs, the study
keeps a small JSON progress file next to the store (``<store>.progress.json``, see
:meth:`Store.progress`) so that ``metaeval status`` can still say how far it got.

Damage: DuckDB checksums every block; a store whose file is damaged or cut short raises
:class:`StoreDamagedError` (naming the file and the problem) from whatever reads the
damaged part, and a cheap check when a :class:`Store` first opens its file reads the
small tables whole and checks that the tables' row counts agree.
:meth:`Store.verify` checks everything. A full disk raises :class:`StoreFullError` (an
``OSError``) naming the file that could not be written.
"""

from metaeval.store._connection import StoreLockedError
from metaeval.store._coverage import Coverage, coverage_of
from metaeval.store._integrity import StoreDamagedError, StoreFullError, StorePermissionError
from metaeval.store._schema import SCHEMA_VERSION, TASK_STATUSES
from metaeval.store._store import Store

__all__ = ["Store", "StoreLockedError", "StoreDamagedError", "StoreFullError",
           "StorePermissionError", "SCHEMA_VERSION", "TASK_STATUSES", "Coverage", "coverage_of"]
