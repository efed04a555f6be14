"""The batched reads of a store give what the one-dataset reads give."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.store import Store


@pytest.fixture(scope="module")
def store(cli_store):
    """labor, fertility and haberman x NB, DT, 3NN, 3-fold CV (``metaeval run``, once per
    test run): only read."""
    return Store(cli_store)


@pytest.mark.parametrize("batch_rows", [1, 200, 2_000_000])
def test_iter_scores_matches_scores_and_folds(store, batch_rows):
    seen = []
    for name, y, S, algorithms, folds in store.iter_scores(["haberman", "labor", "fertility"],
                                                           batch_rows=batch_rows):
        y1, S1, a1 = store.scores(name)
        assert np.array_equal(y, y1) and S.tobytes() == S1.tobytes() and algorithms == a1
        assert np.array_equal(folds, store.folds(name))
        seen.append(name)
    assert seen == ["haberman", "labor", "fertility"]
    assert [n for n, *_ in store.iter_scores()] == ["labor", "fertility", "haberman"]
    with pytest.raises(ValueError, match="Unknown dataset 'nope'"):
        list(store.iter_scores(["nope"]))
    assert list(store.iter_scores(repeat=1)) == []  # nothing finished in that repeat


def test_done_scores_match_the_scores_frame(store):
    import pandas as pd

    columns, datasets, algorithms = store.done_scores()
    got = pd.DataFrame({**columns, "dataset": np.asarray(datasets)[columns["dataset"]],
                        "algorithm": np.asarray(algorithms)[columns["algorithm"]]})
    got = got.sort_values(["dataset", "algorithm", "repeat", "row"]).reset_index(drop=True)
    frame = store.scores_frame().sort_values(["dataset", "algorithm", "repeat", "row"])
    frame = frame.reset_index(drop=True)
    assert got["dataset"].tolist() == frame["dataset"].tolist()
    assert got["algorithm"].tolist() == frame["algorithm"].tolist()
    assert got["score"].to_numpy().tobytes() == frame["score"].to_numpy().tobytes()
    assert np.array_equal(got["fold"], frame["fold"])


def test_reading_holds_one_connection_and_still_reads_everything(store):
    with store.reading():
        first = store.tasks()
        with store.reading():  # nested: the same connection
            assert store.scores("labor")[0].shape == (57,)
        assert store.status_counts()["done"] == len(first)
    assert store._read_con is None


@pytest.mark.parametrize("read", ["scores", "folds", "scores_frame"])
def test_a_read_that_looks_a_dataset_up_opens_the_file_once(store, monkeypatch, read):
    # the dataset's id, then its rows: one DuckDB instance (15-20 ms to make), not two;
    # inside reading(), none of its own
    from metaeval.store import _connection, _store

    opened = []

    def counting(path, *, read_only):
        opened.append(read_only)
        return _connection._connect(path, read_only=read_only)

    monkeypatch.setattr(_store, "_connect", counting)
    alone = getattr(store, read)("labor")
    assert opened == [True]
    with store.reading():
        held = getattr(store, read)("labor")
    assert opened == [True, True]
    if read == "scores":
        assert alone[1].tobytes() == held[1].tobytes() and alone[2] == held[2]
    else:
        assert np.array_equal(np.asarray(alone), np.asarray(held))
    assert store._read_con is None


def test_reads_from_several_threads_at_once_share_no_connection(store):
    # each read holds its own connection (none is left on the Store for another thread
    # to pick up and find closed under it)
    from concurrent.futures import ThreadPoolExecutor

    y, S, algorithms = store.scores("haberman")
    folds = store.folds("haberman")

    def read(i):
        if i % 2:
            return np.array_equal(store.folds("haberman"), folds)
        got = store.scores("haberman")
        return np.array_equal(got[0], y) and got[1].tobytes() == S.tobytes()

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(read, range(80)))
    assert store._read_con is None
