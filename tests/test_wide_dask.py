"""The wide pool on a real Dask LocalCluster: a small slice gives the local scores."""

from __future__ import annotations

import logging
from dataclasses import replace

import pandas as pd
import pytest

from metaeval.algorithms import family_of
from metaeval.store import Store
from metaeval.study import DaskExecutor, LocalExecutor, Study, run_study

SLICE = ["lr:C=1,penalty=l1", "rf:trees=25,features=sqrt,leaf=5",
         "knn:k=5,weights=distance,metric=manhattan", "svm_rbf:C=1,gamma=0.1",
         "sgd:loss=hinge,alpha=0.001", "knn:k=35"]  # the last cannot fit 28 rows


@pytest.mark.slow
def test_a_wide_slice_on_a_local_dask_cluster_matches_the_local_executor(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    local = Study(datasets=["labor", "fertility"], algorithms=SLICE, folds=2, seed=5,
                  executor=LocalExecutor(jobs=1), store=tmp_path / "local.duckdb")
    expected = run_study(local)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        on_dask = replace(local, executor=DaskExecutor(scheduler=cluster.scheduler_address),
                          store=tmp_path / "dask.duckdb")
        summary = run_study(on_dask)
    assert (summary.n_done, summary.n_failed) == (expected.n_done, expected.n_failed)
    # labor's 2-fold training sets hold 28 rows: k = 35 fails there, and the study goes on
    assert {(d, a) for d, a, _, _ in summary.failed} == {("labor", "knn:k=35")}
    want, got = Store(local.store).scores_frame(), Store(on_dask.store).scores_frame()
    pd.testing.assert_frame_equal(got, want)
    assert {family_of(a) for a in got["algorithm"]} == {"lr", "rf", "knn", "svm_rbf", "sgd"}
