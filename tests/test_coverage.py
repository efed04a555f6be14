"""One definition of "finished on every dataset", shared by status, rank and benchmark."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.datasets import load_dataset
from metaeval.store import Store, coverage_of
from metaeval.study import LocalExecutor, Study, run_study


def test_coverage_of_a_worked_table():
    present = [[True, True, True],    # d0: every algorithm
               [True, False, True],   # d1: B missing
               [False, True, False]]  # d2: one algorithm only -> not usable
    c = coverage_of(present, ["d0", "d1", "d2"], ["A", "B", "C"])
    assert c.usable == ["d0", "d1"] and c.common == ["A", "C"]
    assert c.missing == {"B": ["d1"]} and c.left_out_datasets == ["d2"]


@pytest.fixture(scope="module")
def imported_store(tmp_path_factory):
    """A study of NB and LR on two datasets, and predictions of 'ext' for one of them."""
    path = tmp_path_factory.mktemp("cov") / "s.duckdb"
    run_study(Study(datasets=["labor", "fertility"], algorithms=["NB", "LR"], folds=2,
                    executor=LocalExecutor(jobs=1), store=path))
    y = load_dataset("labor").y.astype(int)
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"dataset": "labor", "row": np.arange(len(y)),
                          "fold": np.arange(len(y)) % 2, "algorithm": "ext",
                          "score": rng.random(len(y)), "y": y})
    store = Store(path)
    with store.writing():
        store.import_predictions(table)
    return path


def test_status_names_what_rank_leaves_out(imported_store):
    runner = CliRunner()
    status = runner.invoke(app, ["status", "--store", str(imported_store)])
    assert status.exit_code == 0, status.output
    assert "5 done, 0 failed, 0 pending" in status.output
    assert "leave out: ext (not finished on fertility)" in status.output
    rank = runner.invoke(app, ["rank", "--store", str(imported_store)])
    assert rank.exit_code == 0, rank.output
    assert "left out ext: not finished on every dataset" in rank.output
    coverage = Store(imported_store).coverage()
    assert coverage.common == ["NB", "LR"] and coverage.missing == {"ext": ["fertility"]}


def test_status_of_a_complete_study_says_nothing_is_left_out(imported_store, tmp_path):
    path = tmp_path / "c.duckdb"
    run_study(Study(datasets=["labor"], algorithms=["NB", "LR"], folds=2,
                    executor=LocalExecutor(jobs=1), store=path))
    status = CliRunner().invoke(app, ["status", "--store", str(path)])
    assert status.exit_code == 0 and "leave out" not in status.output


def test_status_names_left_out_datasets_and_shortens_long_lists(imported_store, capsys):
    from metaeval.cli._study import _print_coverage

    present = np.zeros((3, 14), dtype=bool)
    present[0] = True
    present[1, :2] = True  # 12 algorithms miss d1; d2 has none
    _print_coverage(coverage_of(present, ["d0", "d1", "d2"], [f"a{i}" for i in range(14)]))
    text = capsys.readouterr().out
    assert "compare the 2 algorithm(s)" in text and "a2 (not finished on d1)" in text
    assert "and 2 more algorithms" in text and "a13" not in text
    assert "leave out the dataset(s) where fewer than two algorithms finished: d2." in text
