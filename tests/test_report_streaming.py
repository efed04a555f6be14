"""The report's view reads a store dataset by dataset: same numbers as the whole frame.

The success per fold (rankings) and the pooled metrics (benchmark) are computed from
each dataset's score matrix and repeat (``matrix_metrics``) instead of one long frame of
the whole store; checked against ``compute_metrics`` of that frame, on a store with two
repeats and an algorithm that failed everywhere. The scores a view reads one dataset at a
time are kept within a byte budget.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from metaeval.benchmark import SKLEARN_METRICS, compute_metrics
from metaeval.report import _plots
from metaeval.report._plots import StudyView
from metaeval.store import Store


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    from metaeval.algorithms import custom_algorithm
    from metaeval.study import LocalExecutor, Study, run_study

    bad = custom_algorithm("BAD", "sklearn.linear_model.LogisticRegression",
                           params={"C": -1.0})
    path = tmp_path_factory.mktemp("repeated") / "study.duckdb"
    study = Study(datasets=["labor", "fertility", "appendicitis"],
                  algorithms=["NB", "LR", "DT", bad], folds=3, repeats=2,
                  executor=LocalExecutor(jobs=1), store=str(path))
    summary = run_study(study)
    assert summary.n_failed == 6
    return path


def _whole_frame(store: Store, view: StudyView) -> pd.DataFrame:
    """The old path: the long frame of every done score of the usable datasets."""
    sf = store.scores_frame()
    keep = sf["dataset"].isin(view.usable_datasets()) & sf["algorithm"].isin(
        view.common_algorithms())
    tasks = store.tasks()
    done = tasks[tasks["status"] == "done"][["dataset", "algorithm", "repeat"]]
    return sf[keep].merge(done, on=["dataset", "algorithm", "repeat"], how="inner")


def test_success_per_fold_equals_the_whole_frame(repeated):
    store = Store(repeated)
    view = StudyView(store)
    for measure in ("accuracy", "auc", "hardness:rate-driven"):
        got, hib = view.success(measure)
        m = compute_metrics(_whole_frame(store, view), metrics=[measure], level="fold")
        n_folds = int(m["fold"].max()) + 1
        m = m.assign(fold=m["repeat"].astype(int) * n_folds + m["fold"].astype(int))
        want = m[["dataset", "algorithm", "fold", "value"]].reset_index(drop=True)
        if measure.startswith("hardness:"):
            want = want.assign(value=1.0 - want["value"])
        assert sorted(got["fold"].unique()) == list(range(6))  # 2 repeats x 3 folds
        assert_frame_equal(got, want, check_dtype=False, rtol=1e-12, atol=1e-12)
        assert "BAD" not in set(got["algorithm"])


def test_pooled_metrics_equal_the_whole_frame(repeated):
    store = Store(repeated)
    view = StudyView(store)
    got = view.metrics()
    want = compute_metrics(_whole_frame(store, view), metrics=list(SKLEARN_METRICS))
    want = want[["dataset", "algorithm", "metric", "value"]]
    assert_frame_equal(got, want, check_dtype=False, rtol=1e-12, atol=1e-12)


def test_scores_read_one_dataset_at_a_time_stay_within_the_budget(repeated, monkeypatch):
    store = Store(repeated)
    one = store.scores("labor")
    size = one[0].nbytes + one[1].nbytes
    monkeypatch.setattr(_plots, "SCORES_BUDGET", int(size * 1.5))
    view = StudyView(store)
    for name in ("labor", "fertility", "appendicitis", "labor"):
        y, S, algs = view.scores(name)
        np.testing.assert_array_equal(S, store.scores(name)[1])
    kept = view.__dict__["_scores_lru"]
    assert len(kept) == 1 and ("scores", "labor") in kept  # the others were dropped
