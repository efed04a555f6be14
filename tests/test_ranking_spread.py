"""ranking_intervals: the same draws aggregated one by one with rank_algorithms agree."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.ranking import rank_algorithms, ranking_intervals


def _frames(seed=0, n_datasets=6, algorithms=("A", "B", "C", "D"), folds=4):
    rng = np.random.default_rng(seed)
    rows, times = [], []
    for d in range(n_datasets):
        base = rng.uniform(0.6, 0.9)
        for k, a in enumerate(algorithms):
            for f in range(folds):
                rows.append((f"d{d}", a, f, base + 0.03 * k * rng.standard_normal()
                             + 0.01 * rng.standard_normal()))
            times.append((f"d{d}", a, float(rng.uniform(0.1, 10.0))))
    success = pd.DataFrame(rows, columns=["dataset", "algorithm", "fold", "value"])
    return success, pd.DataFrame(times, columns=["dataset", "algorithm", "time"])


def _naive(success, times, method, B, seed, **kw):
    datasets = success["dataset"].unique()
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(datasets), size=(B, len(datasets)))
    scores = []
    for draw in idx:
        parts_s, parts_t = [], []
        for j, i in enumerate(draw):  # a dataset drawn twice counts twice
            name = f"{datasets[i]}#{j}"
            parts_s.append(success[success["dataset"] == datasets[i]].assign(dataset=name))
            parts_t.append(times[times["dataset"] == datasets[i]].assign(dataset=name))
        frame = rank_algorithms(pd.concat(parts_s), pd.concat(parts_t), method=method, **kw)
        scores.append(frame.set_index("algorithm")["score"])
    return pd.DataFrame(scores)


@pytest.mark.parametrize("method, kw", [("ar", {}), ("srr", {}), ("sw", {}),
                                        ("arr", {"accd": 0.1}), ("a3r", {"n": 8})])
def test_intervals_match_a_naive_bootstrap(method, kw):
    success, times = _frames()
    B = 40
    got = ranking_intervals(success, times, method=method, B=B, seed=3, **kw)
    naive = _naive(success, times, method, B, 3, **kw)
    for r in got.itertuples(index=False):
        col = naive[r.algorithm].to_numpy()
        np.testing.assert_allclose([r.low, r.high], np.percentile(col, [2.5, 97.5]),
                                   rtol=1e-10, atol=1e-12)
        assert r.se == pytest.approx(col.std(ddof=1), rel=1e-9, abs=1e-12)


def test_identical_datasets_give_an_interval_of_zero_width():
    success, times = _frames(n_datasets=1)
    many = pd.concat([success.assign(dataset=f"d{i}") for i in range(5)])
    t = pd.concat([times.assign(dataset=f"d{i}") for i in range(5)])
    for method in ("ar", "srr", "a3r"):
        got = ranking_intervals(many, t, method=method, B=50)
        score = rank_algorithms(many, t, method=method).set_index("algorithm")["score"]
        np.testing.assert_allclose(got["low"], score[got["algorithm"]].to_numpy())
        np.testing.assert_allclose(got["high"], score[got["algorithm"]].to_numpy())


@pytest.mark.parametrize("kw, message", [
    ({"method": "best"}, "method must be one of"),
    ({"method": "a3r", "times": None}, "needs times"),
    ({"B": 0}, "B must be a positive integer"),
    ({"level": 1.5}, "level must lie"),
])
def test_bad_arguments_are_value_errors(kw, message):
    success, times = _frames()
    kw = {"times": times, **kw}
    with pytest.raises(ValueError, match=message):
        ranking_intervals(success, **kw)


def test_the_paired_t_test_is_scipys():
    import warnings

    from scipy import stats

    from metaeval.ranking._methods import _paired_t

    rng = np.random.default_rng(0)
    for trial in range(300):
        x = np.round(rng.random((int(rng.integers(2, 12)), 4)), int(rng.integers(1, 4)))
        if trial % 7 == 0:
            x[:, 1] = x[:, 0]  # identical: NaN
        if trial % 11 == 0:
            x[:, 1] = x[:, 0] + 0.1  # a constant difference: +-inf, p = 0
        a, b = np.broadcast_arrays(x[:, :, None], x[:, None, :])
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = stats.ttest_rel(a, b, axis=0)
        t, p = _paired_t(x[:, :, None] - x[:, None, :])
        np.testing.assert_allclose(t, expected.statistic, rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(p, expected.pvalue, rtol=1e-10, atol=1e-300,
                                   equal_nan=True)
