"""matrix_metrics: compute_metrics of a score matrix, checked against the long-frame path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from metaeval.benchmark import compute_metrics, matrix_metrics


def _long(y, S, algorithms, folds, dataset="d"):
    n, a = S.shape
    return pd.DataFrame({
        "dataset": dataset, "algorithm": np.repeat(np.asarray(algorithms, dtype=object), n),
        "fold": np.tile(folds, a), "row": np.tile(np.arange(n), a),
        "y": np.tile(y, a), "score": S.T.ravel()})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.integers(1, 4), st.integers(1, 4),
       st.sampled_from([2, 5, 1000]))
def test_matrix_metrics_equal_compute_metrics_of_the_long_frame(seed, n, a, k, grid):
    # coarse scores (many ties, scores at the threshold) and folds of one class only
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    S = rng.integers(0, grid + 1, (n, a)) / grid
    algorithms = [f"alg{j}" for j in rng.permutation(a)]  # not in sorted order
    folds = rng.integers(0, k, n)
    long = _long(y, S, algorithms, folds)
    for level, f in (("pooled", None), ("fold", folds)):
        expected = compute_metrics(long, level=level)
        got = matrix_metrics(y, S, algorithms, dataset="d", folds=f)
        assert_frame_equal(got, expected[got.columns.tolist()], check_dtype=False,
                           rtol=1e-12, atol=1e-12)


def test_matrix_metrics_by_hand():
    # A: predictions 0, 1, 0, 1 -> 2 of 4 right; B: 1, 0, 1, 1 -> 3 of 4 right
    S = np.array([[0.1, 0.7], [0.6, 0.2], [0.4, 0.9], [0.9, 0.8]])
    got = matrix_metrics([0, 0, 1, 1], S, ["B", "A"], dataset="toy", metrics=["accuracy"])
    assert got["algorithm"].tolist() == ["A", "B"]
    assert got["value"].tolist() == [0.75, 0.5]
    per_fold = matrix_metrics([0, 0, 1, 1], S, ["A", "B"], dataset="toy",
                              folds=[0, 1, 0, 1], metrics=["accuracy"])
    # A: fold 0 rows (0.1 -> 0 right, 0.4 -> 0 wrong), fold 1 rows (0.6 wrong, 0.9 right)
    assert per_fold["value"].tolist() == [0.5, 0.5, 0.5, 1.0]


@pytest.mark.parametrize("kwargs, message", [
    ({"S": np.ones((3, 1))}, "S must have shape"),
    ({"S": np.full((4, 1), 1.5)}, "S must lie in"),
    ({"S": np.full((4, 1), np.nan)}, "NaN"),
    ({"algorithms": ["A", "A"], "S": np.ones((4, 2)) / 2}, "algorithms must name"),
    ({"metrics": ["nope"]}, "unknown"),
    ({"folds": [0, 1]}, "folds must have shape"),
])
def test_matrix_metrics_bad_input(kwargs, message):
    args = {"y": [0, 1, 0, 1], "S": np.ones((4, 1)) / 2, "algorithms": ["A"]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        matrix_metrics(args.pop("y"), args.pop("S"), args.pop("algorithms"), dataset="d",
                       **args)
