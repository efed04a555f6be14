"""Tests for metaeval.selection per-instance selection: worked examples, brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.model_selection import KFold

from metaeval.hardness import instance_hardness_at
from metaeval.selection import evaluate_selection, nested_cv_selection, select_per_instance

# five training instances on a line; losses of three models
#   x:    0     1     2     3     10
#   L0:   1     1     0     0     0
#   L1:   0     0     1     1     0
#   L2:   0.5   0.5   0.5   0.5   0.5
LINE_X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0]])
LINE_L = np.array([[1, 0, 0.5], [1, 0, 0.5], [0, 1, 0.5], [0, 1, 0.5], [0, 0, 0.5]])


def test_select_per_instance_worked_example():
    # x = 0.4, k = 2: neighbours 0 and 1 -> mean losses (1, 0, 0.5) -> model 1
    # x = 2.6, k = 2: neighbours 2 and 3 -> (0, 1, 0.5) -> model 0
    # x = 1.4, k = 4: neighbours 0..3 -> (0.5, 0.5, 0.5): a three-way tie, broken by
    #   the mean training loss (0.4, 0.4, 0.5): models 0 and 1 tie again -> the first, 0
    # x = 9, k = 1: neighbour 10 -> (0, 0, 0.5) -> tie between 0 and 1 -> 0
    got = [
        select_per_instance(LINE_X, LINE_L, [[0.4]], k=2)[0],
        select_per_instance(LINE_X, LINE_L, [[2.6]], k=2)[0],
        select_per_instance(LINE_X, LINE_L, [[1.4]], k=4)[0],
        select_per_instance(LINE_X, LINE_L, [[9.0]], k=1)[0],
    ]
    assert got == [1, 0, 0, 0]
    # make model 1 the better one on average: ties now go to it
    L = LINE_L.copy()
    L[4] = [1, 0, 0.5]  # mean losses 0.6, 0.4, 0.5
    assert select_per_instance(LINE_X, L, [[1.4], [9.0]], k=4).tolist() == [1, 1]


def _brute_select(X_train, L, X_test, k, p=2):
    order = np.argsort(L.mean(axis=0), kind="stable")
    out = []
    for x in X_test:
        d = (np.abs(X_train - x) ** p).sum(axis=1) ** (1 / p)
        near = np.argsort(d, kind="stable")[:k]
        mean = L[near].mean(axis=0)
        out.append(next(m for m in order if mean[m] <= mean.min() + 1e-9))
    return np.array(out)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 12),
    st.integers(1, 6),
    st.sampled_from([3, 20]),  # a k-d tree up to 16 dimensions, chunked distances beyond
    st.sampled_from(["euclidean", "manhattan"]),
)
def test_select_per_instance_matches_brute_force(seed, k, m, d, metric):
    rng = np.random.default_rng(seed)
    X_train = rng.normal(size=(30, d))
    X_test = rng.normal(size=(20, d))
    L = rng.choice([0.0, 0.4, 1.0, 1.6], size=(30, m))  # many ties between models
    p = 2 if metric == "euclidean" else 1
    assert_array_equal(
        select_per_instance(X_train, L, X_test, k=k, metric=metric),
        _brute_select(X_train, L, X_test, k, p),
    )


def _brute_nested(X, L, folds, ks, inner, seed):
    choice = np.empty(len(X), dtype=int)
    for f in np.unique(folds):
        train = np.flatnonzero(folds != f)
        test = np.flatnonzero(folds == f)
        scores = []
        for k in ks:
            total = 0.0
            for itr, ite in KFold(inner, shuffle=True, random_state=seed).split(train):
                a, b = train[itr], train[ite]
                if k is None:  # all training instances: the single best of a
                    picks = np.full(b.size, np.argmin(L[a].mean(axis=0)))
                else:
                    picks = _brute_select(X[a], L[a], X[b], k)
                total += L[b, picks].sum()
            scores.append(total)
        best_k = ks[int(np.argmin(scores))]
        if best_k is None:
            choice[test] = np.argmin(L[train].mean(axis=0))
        else:
            choice[test] = _brute_select(X[train], L[train], X[test], best_k)
    return choice


def test_nested_cv_matches_brute_force():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 2))
    # model 0 is right where x0 < 0, model 1 where x0 > 0, model 2 is mediocre everywhere
    L = np.c_[(X[:, 0] > 0) * 1.0, (X[:, 0] < 0) * 1.0, rng.random(60) * 0.8]
    folds = np.arange(60) % 4
    choice, single_best, k_chosen = nested_cv_selection(
        X, L, folds, k_grid=(1, 3, 7), inner_folds=3, random_state=5
    )
    assert_array_equal(choice, _brute_nested(X, L, folds, [1, 3, 7], 3, 5))
    for f in range(4):
        train = folds != f
        assert np.all(single_best[folds == f] == np.argmin(L[train].mean(axis=0)))
    assert set(k_chosen) == {0, 1, 2, 3}
    # the selector beats every single model here
    n = np.arange(60)
    assert L[n, choice].mean() < L.mean(axis=0).min()
    # with "all instances" (None) in the grid the same brute force still agrees
    choice, _, _ = nested_cv_selection(
        X, L, folds, k_grid=(1, 7, None), inner_folds=3, random_state=5
    )
    assert_array_equal(choice, _brute_nested(X, L, folds, [None, 1, 7], 3, 5))  # None first
    # noise only: model 2 is better on average and nothing local to learn -> None wins
    noise = np.c_[rng.random(60), rng.random(60), rng.random(60) * 0.5]
    choice, single_best, k_chosen = nested_cv_selection(X, noise, folds, inner_folds=3)
    assert set(k_chosen.values()) == {None}
    assert_array_equal(choice, single_best)


def test_evaluate_selection_worked_example_and_conditions():
    # two groups; model A is right on class 0 only, B on class 1 only
    X = [[0], [1], [2], [3], [4], [5], [20], [21], [22], [23], [24], [25]]
    y = np.array([0] * 6 + [1] * 6)
    S = np.array([[0.2, 0.7]] * 6 + [[0.3, 0.9]] * 6)
    folds = [0, 1] * 6
    table = evaluate_selection(
        X, y, S, folds, c=[0.2, 0.5], k_grid=(1, 3), inner_folds=2, algorithms=["A", "B"]
    )
    # score-driven, c = 0.2: threshold 0.2. A: class 0 s=0.2 <= 0.2 right; class 1 s=0.3
    #   > 0.2 right -> A is perfect; B: class 0 s=0.7 wrong, cost 2c = 0.4 -> mean 0.2
    # c = 0.5: A wrong on class 1 (cost 1), B wrong on class 0 (cost 1): both 0.5
    assert_allclose(table["loss_single_best"], [0.0, 0.5])
    assert_allclose(table["loss_oracle"], [0.0, 0.0])
    assert_allclose(table["loss_selected"], [0.0, 0.0])
    assert np.isnan(table["gap_closed"][0]) and table["gap_closed"][1] == 1.0
    assert table["single_best"][0] == "A"
    assert_allclose(table["share_switched"], [0.0, 0.5])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["score-driven", "rate-driven", "score-fixed"]))
def test_evaluate_selection_bounds(seed, method):
    rng = np.random.default_rng(seed)
    n, m = 50, 3
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    S = np.clip(rng.normal(0.5 + 0.3 * (2 * y[:, None] - 1), 0.3, (n, m)), 0, 1)
    table = evaluate_selection(
        X, y, S, np.arange(n) % 5, c=[0.3, 0.7], method=method, k_grid=(1, 5), inner_folds=3
    )
    for cost, row in zip([0.3, 0.7], table.itertuples(), strict=True):
        L = instance_hardness_at(y, S, method, cost)
        assert row.loss_oracle == pytest.approx(L.min(axis=1).mean())
        assert row.loss_oracle <= row.loss_selected + 1e-12
        assert row.loss_oracle <= row.loss_single_best + 1e-12
        if not np.isnan(row.gap_closed):
            expected = (row.loss_single_best - row.loss_selected) / (
                row.loss_single_best - row.loss_oracle
            )
            assert row.gap_closed == pytest.approx(expected) and row.gap_closed <= 1 + 1e-12


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: select_per_instance(LINE_X, LINE_L, [[0.0]], k=6), "only 5 training"),
        (lambda: select_per_instance(LINE_X, LINE_L, [[0.0]], k=0), "positive integer"),
        (lambda: select_per_instance(LINE_X, LINE_L[:3], [[0.0]]), "rows"),
        (lambda: select_per_instance(LINE_X, LINE_L, [[0.0, 1.0]]), "features"),
        (lambda: select_per_instance(LINE_X, LINE_L * np.nan, [[0.0]]), "NaN"),
        (lambda: select_per_instance([["a"]], [[1]], [["a"]]), "numeric"),
        (lambda: select_per_instance(LINE_X, LINE_L, [[0.0]], metric="cosine"), "metric"),
        (
            lambda: nested_cv_selection(
                np.ones((20, 1)), np.ones((20, 2)), np.arange(20) % 2, k_grid=(3, 9), inner_folds=2
            ),
            "k in k_grid=9",
        ),
        (
            lambda: nested_cv_selection(np.ones((20, 1)), np.ones((20, 2)), np.zeros(20)),
            "two distinct",
        ),
        (lambda: nested_cv_selection(np.ones((20, 1)), np.ones((20, 2)), [0, 1]), "shape"),
        (
            lambda: nested_cv_selection(
                np.ones((20, 1)), np.ones((20, 2)), np.arange(20) % 2, inner_folds=1
            ),
            "inner_folds",
        ),
        (
            lambda: nested_cv_selection(
                np.ones((20, 1)), np.ones((20, 2)), np.arange(20) % 2, k_grid=[]
            ),
            "k_grid",
        ),
        (
            lambda: evaluate_selection(
                np.ones((20, 1)), np.arange(20) % 2, np.ones((20, 2)) / 2, np.arange(20) % 2, c=1.5
            ),
            "cost proportions",
        ),
        (
            lambda: evaluate_selection(
                np.ones((20, 1)),
                np.arange(20) % 2,
                np.ones((20, 2)) / 2,
                np.arange(20) % 2,
                algorithms=["a"],
            ),
            "2 names",
        ),
        (
            lambda: evaluate_selection(
                np.ones((20, 1)),
                np.arange(20) % 2,
                np.ones((20, 2)) / 2,
                np.arange(20) % 2,
                method="cost-driven",
            ),
            "method",
        ),
    ],
)
def test_invalid_inputs_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["euclidean", "manhattan"]),
       st.integers(1, 12), st.sampled_from([3, 20]))
def test_ranked_neighbour_lists_are_the_stable_brute_force_order(seed, metric, k, d):
    # 0/1 features: distances tie in large groups, and duplicates abound; 3 dimensions
    # make the lists from a k-d tree (ties across their end recomputed), 20 from every
    # distance
    from metaeval.selection._per_instance import _Ranked

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(40, d)).astype(float)
    X[5] = X[3]  # an exact duplicate
    ranked = _Ranked(X, metric, width=k + 3)  # short lists: the fallback runs too
    p = 2 if metric == "euclidean" else 1
    for _ in range(5):
        train = np.flatnonzero(rng.random(40) < 0.6)
        test = np.setdiff1d(np.arange(40), train)
        if train.size < k or test.size == 0:
            continue
        got = ranked.query(train, test, k)
        for i, t in enumerate(test):
            d = (np.abs(X[train] - X[t]) ** p).sum(axis=1)
            assert_array_equal(got[i], np.argsort(d, kind="stable")[:k])


def test_nested_selection_on_tied_high_dimensional_data_matches_brute_force():
    # beyond 16 dimensions the neighbours come from the ranked lists: same choices as a
    # brute force that breaks distance ties by row order
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(80, 24)).astype(float)
    L = np.c_[X[:, 0], 1 - X[:, 0], rng.choice([0.0, 0.5, 1.0], size=80)]
    folds = np.arange(80) % 4
    for grid in ([1, 3, 9], [None, 1, 5]):
        choice, _, _ = nested_cv_selection(X, L, folds, k_grid=grid, inner_folds=3,
                                           random_state=2)
        assert_array_equal(choice, _brute_nested(X, L, folds, grid, 3, 2))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.sampled_from([3, 20]),
       st.sampled_from(["euclidean", "manhattan"]))
def test_select_per_instance_breaks_distance_ties_by_row_order(seed, k, d, metric):
    # a coarse lattice: many training rows at the same distance, duplicates included,
    # for the k-d tree (3 dimensions) and the chunked distances (20)
    rng = np.random.default_rng(seed)
    X_train = rng.integers(0, 3, size=(30, d)).astype(float)
    X_test = rng.integers(0, 3, size=(15, d)).astype(float)
    L = rng.choice([0.0, 0.4, 1.0, 1.6], size=(30, 3))
    p = 2 if metric == "euclidean" else 1
    assert_array_equal(select_per_instance(X_train, L, X_test, k=k, metric=metric),
                       _brute_select(X_train, L, X_test, k, p))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), width=st.integers(1, 9), n_rows=st.integers(1, 12),
       n_sizes=st.integers(1, 6))
def test_prefix_sums_are_the_running_sums_over_the_first_k_neighbours(seed, width, n_rows,
                                                                      n_sizes):
    from metaeval.selection._per_instance import _prefix_sums

    rng = np.random.default_rng(seed)
    n_train = 30
    sizes = np.sort(rng.choice(np.arange(1, 26), n_sizes, replace=False))
    neighbours = np.argsort(rng.random((n_rows, n_train)), axis=1)[:, :sizes[-1]]
    for L in (rng.integers(0, 5, (n_train, width)).astype(float),  # sums exact
              rng.integers(0, 5, (n_train, width)) * 0.1,  # sums that round
              rng.random((n_train, width))):
        got = _prefix_sums(neighbours, sizes, L)
        assert got.shape == (n_rows, n_sizes, width)
        running = np.cumsum(L[neighbours], axis=1)[:, sizes - 1]
        np.testing.assert_array_equal(got, running)  # to the last bit
        for i in range(n_rows):
            for s, k in enumerate(sizes):
                plain = np.zeros(width)
                for j in neighbours[i, :k]:  # one neighbour after another
                    plain = plain + L[j]
                np.testing.assert_array_equal(got[i, s], plain)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 6), n_q=st.integers(1, 4),
       levels=st.integers(1, 5))
def test_the_grid_of_several_conditions_at_once_chooses_as_one_at_a_time(seed, m, n_q, levels):
    # losses on a coarse grid (many equal sums, ties everywhere) and values such as 0.1
    # whose sums round differently in another order
    from metaeval.selection._per_instance import (
        _model_order,
        _select_grid,
        _select_grid_many,
    )

    rng = np.random.default_rng(seed)
    n_train, n_test = 40, 17
    losses = [rng.integers(0, levels + 1, (n_train, m)) * (0.1 if q % 2 else 2.0 / levels)
              for q in range(n_q)]
    idx = np.argsort(rng.random((n_test, n_train)), axis=1)[:, :25]
    rows = np.sort(rng.choice(n_train + 10, n_train, replace=False))  # of longer matrices
    longer = [np.vstack([L, rng.random((10, m))])[np.argsort(np.r_[rows, np.setdiff1d(
        np.arange(n_train + 10), rows)])] for L in losses]
    assert all(np.array_equal(big[rows], L) for big, L in zip(longer, losses, strict=True))
    for ks in ([None, 1, 3, 5, 9, 15, 25], [2, 7], [None], [4]):
        orders = [_model_order(L) for L in losses]
        expected = [_select_grid(idx, L, ks, order)
                    for L, order in zip(losses, orders, strict=True)]
        for block in (1 << 21, 1):  # every condition at once, and one at a time
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr("metaeval.selection._per_instance._BLOCK", block)
                many = _select_grid_many(idx, losses, ks, orders)
                picked = _select_grid_many(idx, longer, ks, orders, rows=rows)
            for want, got, got_rows in zip(expected, many, picked, strict=True):
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(got_rows, want)
