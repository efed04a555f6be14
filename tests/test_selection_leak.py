"""Per-instance selection: nothing of an outer fold's own rows chooses for them.

The choices for the rows of an outer fold may depend on their features (the
neighbourhoods) but never on their stored scores or labels. The rate-based
threshold choice methods rank scores, so a rank taken over every row would let the
fold's own scores move the training rows' losses.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from metaeval.hardness import instance_hardness_at
from metaeval.selection import evaluate_selection


def _data(seed=0, n=240, m=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    # models good in different regions, so that local selection has something to choose
    S = np.clip(0.5 + 0.3 * (2 * y - 1)[:, None] * np.sign(X[:, [1]] - [[-0.5, 0.0, 0.5]])
                + 0.25 * rng.normal(size=(n, m)), 0, 1)
    folds = np.arange(n) % 6
    return X, y, S, folds


@pytest.mark.parametrize("method", ["rate-driven", "rate-uniform", "score-driven"])
def test_fold_rows_scores_and_labels_never_choose_for_them(method):
    X, y, S, folds = _data()
    kwargs = dict(c=[0.3, 0.7], method=method, k_grid=(1, 5, 15, None), inner_folds=3,
                  return_choices=True)
    _, base = evaluate_selection(X, y, S, folds, **kwargs)
    rng = np.random.default_rng(1)
    for fold in (0, 3):
        rows = folds == fold
        S2, y2 = S.copy(), y.copy()
        S2[rows] = rng.uniform(size=(rows.sum(), S.shape[1]))  # any scores
        y2[rows] = rng.integers(0, 2, size=rows.sum())  # any labels
        _, moved = evaluate_selection(X, y2, S2, folds, **kwargs)
        assert_array_equal(moved[:, rows], base[:, rows])


def test_train_scores_replace_the_stored_scores_of_the_training_rows():
    X, y, S, folds = _data(seed=2)
    kwargs = dict(c=[0.4], method="score-driven", k_grid=(1, 5, None), inner_folds=3,
                  return_choices=True)
    same = {f: S[folds != f] for f in np.unique(folds)}
    t0, c0 = evaluate_selection(X, y, S, folds, **kwargs)
    t1, c1 = evaluate_selection(X, y, S, folds, train_scores=same, **kwargs)
    assert_array_equal(c0, c1)
    assert t0.equals(t1)
    # scores that make model 2 perfect on every training row: it is chosen everywhere
    L = instance_hardness_at(y, S, "score-driven", 0.4)
    perfect = {}
    for f in np.unique(folds):
        s = S[folds != f].copy()
        s[:, 2] = y[folds != f]
        perfect[int(f)] = s
    _, c2 = evaluate_selection(X, y, S, folds, train_scores=perfect, **kwargs)
    assert np.all(c2 == 2)
    table = evaluate_selection(X, y, S, folds, train_scores=perfect, c=[0.4],
                               method="score-driven", k_grid=(1, 5, None), inner_folds=3)
    assert table.loc[0, "loss_selected"] == pytest.approx(L[:, 2].mean())


@pytest.mark.parametrize(
    "train_scores, message",
    [
        ([[0.1]], "train_scores must be a mapping"),
        ({0: np.zeros((200, 3))}, "no entry for fold 1"),
        ({f: np.zeros((7, 3)) for f in range(6)}, r"train_scores\[0\] has 7 rows"),
        ({f: np.zeros((200, 2)) for f in range(6)}, r"train_scores\[0\] has 2 columns"),
    ],
)
def test_bad_train_scores_raise(train_scores, message):
    X, y, S, folds = _data()
    with pytest.raises(ValueError, match=message):
        evaluate_selection(X, y, S, folds, c=[0.5], train_scores=train_scores,
                           k_grid=(1, None), inner_folds=2)
