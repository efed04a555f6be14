"""Regression tests for three bugs a reviewer reproduced.

1. A store path that is not a DuckDB file gave a raw duckdb IOException.
2. CSV labels "True"/"False" fell to the minority rule instead of the 0/1 rule.
3. A ``[[datasets]]`` table with a name but no path silently dropped its other keys.
"""

from __future__ import annotations

import pandas as pd
import pytest

from metaeval.datasets import read_dataset
from metaeval.store import Store
from metaeval.study import LocalExecutor, Study, run_study


# ------------------------------------------------------------------ 1. not-a-store paths
def _not_a_store(tmp_path, kind):
    if kind == "toml":
        path = tmp_path / "study.toml"
        path.write_text('datasets = ["labor"]\n')
        return path, "not a DuckDB database file"
    if kind == "empty":  # what `touch store.duckdb` leaves
        path = tmp_path / "empty.duckdb"
        path.touch()
        return path, "not a DuckDB database file"
    path = tmp_path / "adir.duckdb"
    path.mkdir()
    return path, "is a directory"


@pytest.mark.parametrize("kind", ["toml", "empty", "directory"])
@pytest.mark.parametrize("read", ["status_counts", "tasks", "datasets"])
def test_reading_a_non_store_path_is_a_clear_value_error(tmp_path, kind, read):
    path, problem = _not_a_store(tmp_path, kind)
    with pytest.raises(ValueError, match=problem) as info:
        getattr(Store(path), read)()
    assert str(path) in str(info.value)
    assert "not a metaeval store" in str(info.value)


@pytest.mark.parametrize("kind", ["toml", "empty", "directory"])
def test_writing_a_non_store_path_is_a_clear_value_error(tmp_path, kind):
    path, problem = _not_a_store(tmp_path, kind)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(ValueError, match=problem):
        with Store(path).writing():
            pass  # pragma: no cover - must not be reached
    # a study run fails the same way, before any task runs
    study = Study(datasets=["labor"], algorithms=["NB"], folds=2,
                  executor=LocalExecutor(jobs=1), store=path)
    with pytest.raises(ValueError, match=problem) as info:
        run_study(study)
    assert str(path) in str(info.value)
    # the user's file is left as it was
    if before is not None:
        assert path.read_bytes() == before


def test_a_path_mentioning_lock_is_still_reported_as_not_a_store(tmp_path):
    # The lock detection looks for "lock" in DuckDB's message, which includes the path.
    folder = tmp_path / "blocks"
    folder.mkdir()
    path = folder / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(ValueError, match="not a DuckDB database file"):
        Store(path).tasks()
    with pytest.raises(ValueError, match="not a DuckDB database file"):
        Store(path).locked()


# ------------------------------------------------------------------ 2. True/False labels
@pytest.mark.parametrize("spelling", ["python", "lower", "upper"])
def test_true_false_labels_are_one_and_zero_from_csv_and_parquet(tmp_path, spelling):
    # 3 True, 1 False: the minority rule would make False class 1 (y = [0, 1, 0, 0]);
    # the documented 0/1 rule makes True class 1 (y = [1, 0, 1, 1]).
    frame = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4], "class": [True, False, True, True]})
    csv = tmp_path / "d.csv"
    frame.to_csv(csv, index=False)
    if spelling != "python":
        text = csv.read_text()
        change = str.lower if spelling == "lower" else str.upper
        text = text.replace("True", change("True")).replace("False", change("False"))
        csv.write_text(text)
    parquet = tmp_path / "d.parquet"
    frame.to_parquet(parquet, index=False)
    from_csv = read_dataset(csv)
    from_parquet = read_dataset(parquet)
    assert from_csv.y.tolist() == [1, 0, 1, 1]
    assert from_parquet.y.tolist() == [1, 0, 1, 1]


def test_minority_rule_still_applies_to_other_text_labels(tmp_path):
    # "yes" x3, "no" x1: not 0/1-like, so the minority ("no") is class 1.
    frame = pd.DataFrame({"x": [1, 2, 3, 4], "class": ["yes", "no", "yes", "yes"]})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    assert read_dataset(path).y.tolist() == [0, 1, 0, 0]


# ------------------------------------------------------------------ 3. built-in with keys
def test_builtin_dataset_table_with_file_keys_is_a_problem(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(
        'folds = 3\n'                      # line 1
        'seed = "x"\n'                     # line 2: another problem, reported too
        '\n'                               # line 3
        '[[datasets]]\n'                   # line 4
        'name = "labor"\n'                 # line 5
        'pos_label = "good"\n'             # line 6
    )
    with pytest.raises(ValueError) as info:
        Study.from_toml(path)
    text = str(info.value)
    assert "pos_label" in text and "'labor' is taken as a built-in dataset" in text
    assert "line 6:" in text  # points at the pos_label key
    assert "line 2:" in text and "seed" in text  # all problems at once


def test_builtin_dataset_table_with_only_a_name_is_fine(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('folds = 3\n[[datasets]]\nname = "labor"\n')
    assert Study.from_toml(path).datasets == ("labor",)
