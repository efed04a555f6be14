"""``Store.scores``: each score at its (row, algorithm) place, whatever order DuckDB returns."""

import duckdb
import numpy as np
import pandas as pd
import pytest

from metaeval.datasets import load_dataset
from metaeval.store import Store
from metaeval.store._integrity import StoreDamagedError

ALGORITHMS = ["knn:k=1", "lr:C=1", "rf:trees=10"]


def _store(path, seed=0):
    rng = np.random.default_rng(seed)
    y = load_dataset("labor").y.astype(int)
    n = len(y)
    frames = [pd.DataFrame({"dataset": "labor", "algorithm": a, "row": np.arange(n),
                            "fold": np.arange(n) % 2, "score": rng.random(n)})
              for a in ALGORITHMS]
    frame = pd.concat(frames).sample(frac=1.0, random_state=seed)  # inserted in any order
    store = Store(path)
    with store.writing():
        store._writer().execute("INSERT INTO meta VALUES ('study', ?)", ['{"folds": 2}'])
        store.import_predictions(frame, format="long")
    return store, frame, y


def test_the_matrix_puts_every_score_at_its_row_and_algorithm(tmp_path):
    store, frame, y = _store(tmp_path / "s.duckdb")
    got_y, S, algs = store.scores("labor")
    assert sorted(algs) == sorted(ALGORITHMS)  # in registration order (first seen)
    assert S.shape == (len(y), 3) and S.flags["C_CONTIGUOUS"]
    assert got_y.dtype == np.int8 and (got_y == y).all()
    for j, a in enumerate(algs):  # brute force: look each score up by its keys
        mine = frame[frame["algorithm"] == a].set_index("row")["score"]
        assert all(S[r, j] == mine[r] for r in range(len(y)))


FIRST = "algorithm_id = (SELECT min(algorithm_id) FROM scores)"


@pytest.mark.parametrize("change, error, match", [
    # a count that disagrees with the tasks: the integrity check refuses the file
    (f"DELETE FROM scores WHERE {FIRST} AND row = 3", StoreDamagedError,
     "scores has 170 rows, but the finished"),
    # the right count, but row 3 of one algorithm became a second row 4
    (f"UPDATE scores SET row = 4 WHERE {FIRST} AND row = 3", ValueError,
     "incomplete rows for 'labor'"),
])
def test_a_missing_or_repeated_row_is_an_error(tmp_path, change, error, match):
    store, _, _ = _store(tmp_path / "s.duckdb")
    con = duckdb.connect(str(store.path))
    con.execute(change)
    con.close()
    with pytest.raises(error, match=match):
        store.scores("labor")


def test_a_held_connection_is_opened_anew_after_a_large_read(tmp_path, monkeypatch):
    # DuckDB caches what a connection read until it closes: a loop over a wide study's
    # datasets inside Store.reading() must not hold every dataset's blocks at once
    from metaeval.store import _reading as store_module

    store, _, y = _store(tmp_path / "s.duckdb")
    expected = store.scores("labor")
    with store.reading():
        first = store._read_con
        store.scores("labor")
        assert store._read_con is first  # 171 rows: kept
        monkeypatch.setattr(store_module, "HELD_READ_ROWS", 100)
        got = store.scores("labor")
        second = store._read_con
        assert second is not first  # reopened ...
        with pytest.raises(duckdb.ConnectionException):
            first.execute("SELECT 1")  # ... the old one closed
        assert store.folds("labor") is not None  # and the new one reads
        np.testing.assert_array_equal(got[1], expected[1])
    assert store._read_con is None
    with pytest.raises(duckdb.ConnectionException):
        second.execute("SELECT 1")  # closed with the block
