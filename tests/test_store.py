"""Tests of metaeval.store: schema, one transaction per task, read API, Parquet export."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from metaeval.store import Store, StoreLockedError


def _dataset(name, n, positive_fraction=0.5):
    return {"name": name, "sha256": "ab" * 32, "n_instances": n, "n_features": 2,
            "positive_fraction": positive_fraction, "family": name, "source": "test"}


def _algorithm(name):
    return {"name": name, "estimator": f"pkg.{name}", "params": "{}",
            "score_method": "predict_proba", "versions": json.dumps({"python": "3"})}


def _timings(k):
    return {"fit_wall": np.arange(k) + 0.5, "fit_cpu": np.arange(k) + 0.25,
            "predict_wall": np.full(k, 0.125), "predict_cpu": np.full(k, 0.0625)}


def _toy_store(path):
    """Two datasets (4 and 3 rows), algorithms A, B, C; tasks of A and B done, C failed."""
    store = Store(path)
    with store.writing():
        store.sync_study(
            {"folds": 2, "seed": 0},
            datasets=[_dataset("four", 4), _dataset("three", 3, 1 / 3)],
            algorithms=[_algorithm("A"), _algorithm("B"), _algorithm("C")],
            tasks=[(d, a, 0) for d in ("four", "three") for a in "ABC"],
        )
        store.record_task("four", "B", 0, status="done", wall=1.0, cpu=0.5, n_folds=2,
                          fold=[0, 1, 1, 0], y=[0, 1, 0, 1], score=[0.2, 0.9, 0.4, 0.6],
                          timings=_timings(2))
        store.record_task("four", "A", 0, status="done", wall=1.0, cpu=0.5, n_folds=2,
                          fold=[1, 0, 0, 1], y=[0, 1, 0, 1], score=[0.1, 0.7, 0.3, 1.0],
                          timings=_timings(2))
        store.record_task("four", "C", 0, status="failed", error="ValueError: boom",
                          wall=0.1, cpu=0.1)
        store.record_task("three", "A", 0, status="done", wall=1.0, cpu=0.5, n_folds=2,
                          fold=[0, 1, 0], y=[1, 0, 0], score=[0.5, 0.5, 0.0],
                          timings=_timings(2))
    return store


def test_scores_matrix_is_rows_by_algorithms_in_registration_order(tmp_path):
    store = _toy_store(tmp_path / "s.duckdb")
    y, S, algorithms = store.scores("four")
    # A was recorded after B but registered before it; C failed and is left out.
    assert algorithms == ["A", "B"]
    assert y.dtype == np.int8 and y.tolist() == [0, 1, 0, 1]
    assert S.dtype == np.float64 and S.shape == (4, 2)
    np.testing.assert_array_equal(S[:, 0], [0.1, 0.7, 0.3, 1.0])
    np.testing.assert_array_equal(S[:, 1], [0.2, 0.9, 0.4, 0.6])
    y3, S3, algorithms3 = store.scores("three")
    assert algorithms3 == ["A"] and y3.tolist() == [1, 0, 0] and S3.shape == (3, 1)


def test_frames_have_the_contract_columns(tmp_path):
    store = _toy_store(tmp_path / "s.duckdb")
    scores = store.scores_frame()
    assert list(scores.columns) == ["dataset", "algorithm", "repeat", "fold", "row", "y",
                                    "score"]
    assert len(scores) == 4 + 4 + 3  # three done tasks
    assert scores.duplicated(["dataset", "algorithm", "repeat", "row"]).sum() == 0
    assert len(store.scores_frame("three")) == 3
    timings = store.timings()
    assert list(timings.columns) == ["dataset", "algorithm", "repeat", "fold", "fit_wall",
                                     "fit_cpu", "predict_wall", "predict_cpu"]
    assert len(timings) == 3 * 2
    np.testing.assert_array_equal(timings["fit_wall"].to_numpy()[:2], [0.5, 1.5])
    datasets = store.datasets()
    assert list(datasets.columns) == ["name", "sha256", "n_instances", "n_features",
                                      "positive_fraction", "family", "source"]
    assert datasets["name"].tolist() == ["four", "three"]
    algorithms = store.algorithms()
    assert list(algorithms.columns) == ["name", "estimator", "params", "score_method",
                                        "versions"]
    tasks = store.tasks()
    assert list(tasks.columns)[:7] == ["dataset", "algorithm", "repeat", "status", "error",
                                       "wall", "cpu"]
    # Finished tasks only: 4 of the 6 planned; the other two are pending.
    assert sorted(tasks["status"]) == ["done", "done", "done", "failed"]
    assert tasks.loc[tasks["status"] == "failed", "error"].tolist() == ["ValueError: boom"]
    assert len(store.tasks(include_pending=True)) == 6
    assert store.status_counts() == {"pending": 2, "done": 3, "failed": 1}
    assert store.study_config() == {"folds": 2, "seed": 0}


def test_recording_a_task_again_replaces_it(tmp_path):
    store = _toy_store(tmp_path / "s.duckdb")
    with store.writing():
        store.record_task("four", "A", 0, status="done", wall=2.0, cpu=1.0, n_folds=2,
                          fold=[0, 0, 1, 1], y=[0, 1, 0, 1], score=[0.0, 0.25, 0.5, 0.75],
                          timings=_timings(2))
        # sync again with the same plan: nothing is added, statuses come back in order
        status = store.sync_study({"folds": 2, "seed": 0}, datasets=[_dataset("four", 4)],
                                  algorithms=[_algorithm("A"), _algorithm("C")],
                                  tasks=[("four", "C", 0), ("four", "A", 0)])
    assert status["status"].tolist() == ["failed", "done"]
    frame = store.scores_frame("four")
    assert len(frame) == 8
    assert frame.duplicated(["dataset", "algorithm", "repeat", "row"]).sum() == 0
    _, S, _ = store.scores("four")
    np.testing.assert_array_equal(S[:, 0], [0.0, 0.25, 0.5, 0.75])
    assert len(store.tasks(include_pending=True)) == 6
    assert len(store.timings()) == 6


def test_a_failed_transaction_leaves_nothing_behind(tmp_path):
    store = _toy_store(tmp_path / "s.duckdb")
    before = store.scores_frame()
    with store.writing():
        with pytest.raises(duckdb.Error):
            # the scores and timings are inserted, then the task row cannot be written
            # (DuckDB cannot store an object() as text): all must be rolled back
            store.record_task("three", "B", 0, status="done", wall=1.0, cpu=1.0,
                              n_folds=2, warning=object(), fold=[0, 1, 0], y=[1, 0, 0],
                              score=[0.1, 0.2, 0.3], timings=_timings(2))
        assert len(store.timings()) == 6
    pd.testing.assert_frame_equal(store.scores_frame(), before)
    counts = store.status_counts()
    assert counts == {"pending": 2, "done": 3, "failed": 1}


def test_read_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        Store(tmp_path / "missing.duckdb").tasks()
    store = _toy_store(tmp_path / "s.duckdb")
    with pytest.raises(ValueError, match="Unknown dataset 'nope'.*four, three"):
        store.scores("nope")
    with pytest.raises(ValueError, match="No finished scores"):
        store.scores("four", repeat=3)
    with pytest.raises(ValueError, match="repeat"):
        store.scores("four", repeat=-1)
    with pytest.raises(ValueError, match="status"):
        with store.writing():
            store.record_task("four", "A", 0, status="running")
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE TABLE x (a INTEGER)").close()
    with pytest.raises(ValueError, match="not a metaeval store"):
        Store(other).tasks()


def test_export_parquet_round_trips(tmp_path):
    store = _toy_store(tmp_path / "s.duckdb")
    paths = store.export_parquet(tmp_path / "out")
    assert sorted(p.name for p in paths) == sorted(
        ["datasets.parquet", "algorithms.parquet", "tasks.parquet", "scores.parquet",
         "timings.parquet", "runs.parquet", "algorithm_hyperparameters.parquet",
         "fold_seeds.parquet", "units.parquet", "study.json"])
    scores = pd.read_parquet(tmp_path / "out" / "scores.parquet")
    expected = store.scores_frame()
    assert scores["score"].to_numpy().tobytes() == expected["score"].to_numpy().tobytes()
    assert scores["dataset"].tolist() == expected["dataset"].tolist()
    tasks = pd.read_parquet(tmp_path / "out" / "tasks.parquet")
    assert sorted(tasks["status"]) == ["done"] * 3 + ["failed"] + ["pending"] * 2
    assert json.loads((tmp_path / "out" / "study.json").read_text()) == {"folds": 2, "seed": 0}


def test_a_store_written_by_another_process_is_reported_locked(tmp_path):
    path = tmp_path / "s.duckdb"
    _toy_store(path)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from metaeval.store import Store
            store = Store({str(path)!r})
            with store.writing():
                store.write_progress({{"pid": 1, "done": 1}})
                print("locked", flush=True)
                sys.stdin.readline()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        store = Store(path)
        assert store.locked()
        assert store.progress() == {"pid": 1, "done": 1}
        with pytest.raises(StoreLockedError, match="in use by process"):
            store.tasks()
    finally:
        holder.communicate("\n", timeout=30)
    assert not Store(path).locked()
    assert len(Store(path).tasks()) == 4


@pytest.fixture(scope="module")
def round_trip_store(tmp_path_factory):
    """A store with datasets d1..d30 (d<n> has n rows) and one algorithm."""
    store = Store(tmp_path_factory.mktemp("rt") / "s.duckdb")
    with store.writing():
        store.sync_study({}, datasets=[_dataset(f"d{n}", n) for n in range(1, 31)],
                         algorithms=[_algorithm("A")],
                         tasks=[(f"d{n}", "A", 0) for n in range(1, 31)])
    return store


@settings(max_examples=25, deadline=None)
@given(scores=arrays(np.float64, st.integers(1, 30),
                     elements=st.floats(0.0, 1.0, allow_subnormal=True)))
def test_scores_round_trip_bit_exactly(round_trip_store, scores):
    store = round_trip_store
    n = scores.shape[0]
    y = np.arange(n) % 2
    with store.writing():
        store.record_task(f"d{n}", "A", 0, status="done", wall=0.0, cpu=0.0, n_folds=1,
                          fold=np.zeros(n), y=y, score=scores, timings=_timings(1))
    y_back, S, _ = store.scores(f"d{n}")
    assert S[:, 0].tobytes() == scores.tobytes()
    np.testing.assert_array_equal(y_back, y)


def test_many_hard_doubles_survive_compression_and_reopening(tmp_path):
    # DuckDB compresses DOUBLE columns when it checkpoints (ALP, Chimp, ...); 20,000
    # values of every kind must still come back bit for bit after the file is reopened.
    rng = np.random.default_rng(0)
    special = np.array([0.0, 1.0, 0.1, 1 / 3, 2 / 3, 5e-324, 2.2250738585072014e-308,
                        np.nextafter(1.0, 0.0), np.nextafter(0.0, 1.0), 0.5, 0.25])
    scores = np.concatenate([
        rng.random(8000),                              # full-precision values
        np.round(rng.random(6000), 3),                 # decimal-looking (ALP's case)
        rng.random(3000) ** 40,                        # tiny exponents
        np.tile(special, 273)[:3000],
    ])
    n = scores.shape[0]
    store = Store(tmp_path / "s.duckdb")
    with store.writing():
        store.sync_study({}, datasets=[_dataset("big", n)], algorithms=[_algorithm("A")],
                         tasks=[("big", "A", 0)])
        store.record_task("big", "A", 0, status="done", wall=0.0, cpu=0.0, n_folds=10,
                          fold=np.arange(n) % 10, y=np.arange(n) % 2, score=scores,
                          timings=_timings(10))
    _, S, _ = Store(tmp_path / "s.duckdb").scores("big")
    assert S[:, 0].tobytes() == scores.tobytes()


def test_the_tables_listed_on_every_read_are_those_show_tables_gives(tmp_path):
    # the check every read makes (are the store's tables there?) uses duckdb_tables(),
    # five times faster than SHOW TABLES: the same names for a store (which has no
    # views), and a table of another schema is not one of the store's
    import duckdb

    from metaeval.store._connection import table_names

    path = tmp_path / "s.duckdb"
    with Store(path).writing():
        pass
    con = duckdb.connect(str(path))
    try:
        shown = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
        assert {"meta", "datasets", "algorithms", "tasks", "scores"} <= shown
        assert table_names(con) == shown
        con.execute("CREATE SCHEMA other; CREATE TABLE other.scores_copy (x INTEGER)")
        assert table_names(con) == shown
    finally:
        con.close()


def test_a_store_opened_for_writing_gets_every_table_it_lacks(tmp_path):
    # writing() skips the schema's CREATE TABLE IF NOT EXISTS when every table is there
    # (``_SCHEMA_TABLES``, read from the schema itself): a store that lacks one, as a
    # store of an older metaeval lacks the newer tables, still gets it, empty, and keeps
    # its rows
    from metaeval.store._schema import _SCHEMA_TABLES

    path = tmp_path / "s.duckdb"
    _toy_store(path)
    con = duckdb.connect(str(path))
    try:
        assert {r[0] for r in con.execute("SHOW TABLES").fetchall()} == _SCHEMA_TABLES
        con.execute("DROP TABLE units; DROP TABLE landmark_scores")
    finally:
        con.close()
    store = Store(path)
    with store.writing():
        pass
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert {r[0] for r in con.execute("SHOW TABLES").fetchall()} == _SCHEMA_TABLES
        assert con.execute("SELECT count(*) FROM units").fetchone() == (0,)
    finally:
        con.close()
    assert len(store.tasks()) > 0
