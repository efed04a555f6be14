"""The selectors at full strength: one forest per configuration (log cost on runtime
scenarios; scikit-learn's CART trees one by one, or extremely randomised trees grown
together), k-NN on standardised meta-features with k by the one-SE rule and SUNNY's
portfolio, and the parameters auto and the ASlib evaluation give their candidates.

Every expected value is worked out by hand or by scikit-learn's public API beside the
code under test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor

from metaeval.recommend import Condition, KnowledgeBase, Query
from metaeval.recommend._condition import SUCCESS_FLOOR
from metaeval.recommend.learners._auto import Auto
from metaeval.recommend.learners._learners import family_bags
from metaeval.recommend.learners._learners_forest import ColumnForests, ConfigurationRegression
from metaeval.recommend.learners._neighbours import KnnMetafeatures


def _kb(success, features, families=None, times=None):
    success = np.asarray(success, dtype=np.float64)
    names = [f"d{i + 1}" for i in range(success.shape[0])]
    algorithms = [chr(ord("A") + j) for j in range(success.shape[1])]
    meta = pd.DataFrame(features, index=names)
    times = np.ones_like(success) if times is None else times
    return KnowledgeBase(names, algorithms, success, times, families=families,
                         metafeatures=meta, metafeature_time=np.full(len(names), 0.1))


def _query(**values):
    return Query("new", 10, metafeatures=pd.Series(values, dtype=np.float64))


# ------------------------------------------------------------ regression per configuration
def test_each_configuration_s_forest_is_sklearn_s_trees_on_that_column():
    """Tree (b, a) is DecisionTreeRegressor(max_features="sqrt", min_samples_split=5)
    fitted on bag b's rows (bootstrap counts as sample weights) to column a only."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4)).astype(np.float32)
    Y = np.column_stack([X[:, 0] * 2 + rng.normal(0, 0.1, 30), -X[:, 1], X[:, 2] ** 2])
    codes = np.arange(30)
    weights, _ = family_bags(codes, 30, 4, rng)
    seeds = rng.integers(0, 2**31 - 1, size=(4, 3))
    forests = ColumnForests(X, Y, weights, seeds)
    new = rng.normal(size=(5, 4)).astype(np.float32)
    got = forests.predict(new)
    assert got.shape == (4, 5, 3)
    for b in range(4):
        rows = weights[b] > 0
        for a in range(3):
            tree = DecisionTreeRegressor(max_features="sqrt", min_samples_split=5,
                                         random_state=int(seeds[b, a]))
            tree.fit(X[rows], Y[rows, a], sample_weight=weights[b][rows])
            np.testing.assert_allclose(got[b, :, a], tree.predict(new))
    # the prediction of column a does not depend on the other columns
    alone = ColumnForests(X, Y[:, [1]], weights, seeds[:, [1]]).predict(new)
    np.testing.assert_allclose(alone[:, :, 0], got[:, :, 1])


def test_regression_learns_the_log_cost_under_a_ceiling():
    """success = ceiling - cost (PAR10 under 10 x cutoff): the target is -log cost; the
    A3R target otherwise."""
    kb = _kb([[49990.0, 0.0], [45000.0, 49999.0]], {"f": [0.0, 1.0]})
    target = ConfigurationRegression(cost_ceiling=50000).target(kb, Condition())
    np.testing.assert_allclose(target, -np.log([[10.0, 50000.0], [5000.0, 1.0]]))
    np.testing.assert_allclose(ConfigurationRegression().target(kb, Condition()),
                               np.log(np.maximum(kb.success, SUCCESS_FLOOR)), rtol=1e-9)
    with pytest.raises(ValueError, match="cost_ceiling must be a positive number"):
        ConfigurationRegression(cost_ceiling=0)
    with pytest.raises(ValueError, match="splitter must be one of"):
        ConfigurationRegression(splitter="cart")
    assert ConfigurationRegression().splitter == "random"


@pytest.mark.parametrize("splitter", ["random", "best"])
def test_regression_orders_by_its_forests_when_trusted(splitter):
    """Configuration A wins where f < 0.5, B elsewhere: with blend 1 the forests'
    predictions order the new dataset (the training mean would say A everywhere), with
    extremely randomised trees (the default) or CART trees."""
    f = np.linspace(0, 1, 24)
    success = np.column_stack([np.where(f < 0.5, 0.9, 0.6), np.where(f < 0.5, 0.5, 0.7)])
    kb = _kb(success, {"f": f})
    fitted = ConfigurationRegression(blend=(1.0,), features=("metafeatures",),
                                     splitter=splitter).fit(kb)
    assert fitted.selection_["params"]["blend"] == 1.0
    assert fitted.selection_["splitter"] == splitter
    low, high = fitted.rank_many([_query(f=0.1), _query(f=0.9)])
    assert [kb.algorithms[j] for j in low.order] == ["A", "B"]
    assert [kb.algorithms[j] for j in high.order] == ["B", "A"]


# ------------------------------------------------------------------------------ k-NN
def test_knn_standardises_with_the_training_datasets_only():
    """f has standard deviation 5 and g 0.5 over the training datasets. Standardised,
    (4, 0.9) is nearest to d2 (0.64 + 0.04) then d4 (1.44 + 0.04); unscaled it would be
    d2 then d1. A far query ranked with it changes neither its neighbours nor the scale."""
    kb = _kb([[0.9, 0.1]] * 4, {"f": [0.0, 0.0, 10.0, 10.0], "g": [0.0, 1.0, 0.0, 1.0]})
    fitted = KnnMetafeatures(k=2).fit(kb)
    near, far = fitted.rank_many([_query(f=4.0, g=0.9), _query(f=1e6, g=0.9)])
    assert near.drivers == ("d2", "d4")
    assert far.drivers == ("d4", "d3")
    alone = fitted.rank(_query(f=4.0, g=0.9))
    assert alone.drivers == near.drivers
    np.testing.assert_array_equal(alone.order, near.order)


def test_sunny_portfolio_follows_the_first_pick():
    """Five neighbours. Mean log success: A -0.340, E -0.354, D -0.421, B = C -0.576; A
    first. After A only d3 and d4 lose (0.4 each): D cuts the mean loss to 0.06 (B or C
    0.08, E nothing); then B and C each to 0.03 (B, the earlier); then C to 0. E, never
    a neighbour's best, comes last, though second by its mean."""
    success = [[0.9, 0.5, 0.5, 0.6, 0.88],
               [0.9, 0.5, 0.5, 0.6, 0.88],
               [0.5, 0.9, 0.5, 0.75, 0.5],
               [0.5, 0.5, 0.9, 0.75, 0.5],
               [0.9, 0.5, 0.5, 0.6, 0.88]]
    kb = _kb(success, {"f": [0.0, 1.0, 2.0, 3.0, 4.0]})
    ranked = KnnMetafeatures(k=5).fit(kb).rank(_query(f=2.0))
    assert [kb.algorithms[j] for j in ranked.order] == ["A", "D", "B", "C", "E"]
    assert ranked.score[0] == pytest.approx(np.mean(np.log([0.9, 0.9, 0.5, 0.5, 0.9])))


def test_knn_chooses_the_largest_k_within_one_standard_error():
    """Two far clusters of three datasets (each its own family), A best in one, B in the
    other. Held out, each dataset's two nearest of other families are its cluster's
    (loss 0 for k = 1 and 2); with five, the other cluster outvotes them (loss 0.4 on
    every dataset). The largest k with the lowest loss, 2, is chosen and reported."""
    success = [[0.9, 0.5]] * 3 + [[0.5, 0.9]] * 3
    kb = _kb(success, {"f": [0.0, 0.1, 0.2, 10.0, 10.1, 10.2]})
    fitted = KnnMetafeatures(k=(1, 2, 5)).fit(kb)
    assert fitted.selection_["params"] == {"k": 2}
    assert fitted.selection_["rule"] == "one-SE"
    assert fitted.selection_["inner_loss"] == pytest.approx({5: 0.4, 2: 0.0, 1: 0.0})
    assert fitted.k == 2
    with pytest.raises(ValueError, match="k must be a positive integer"):
        KnnMetafeatures(k=(0, 3))


def test_auto_judges_knn_by_its_own_inner_orders():
    """The inner orders auto reads are those of the k chosen: each held-out dataset's
    cluster's best configuration first."""
    success = [[0.9, 0.5]] * 3 + [[0.5, 0.9]] * 3
    kb = _kb(success, {"f": [0.0, 0.1, 0.2, 10.0, 10.1, 10.2]})
    fitted = KnnMetafeatures(k=(1, 2, 5)).fit(kb)
    assert fitted.inner_orders_[:, 0].tolist() == [0, 0, 0, 1, 1, 1]


# --------------------------------------------------------------- parameters of candidates
def test_auto_passes_parameters_to_its_candidates():
    kb = _kb([[0.9, 0.5], [0.5, 0.9], [0.8, 0.6]], {"f": [0.0, 1.0, 2.0]})
    auto = Auto(candidates=("single-best", "regression"),
                params={"regression": {"cost_ceiling": 2.0}})
    regression = auto.strategies(kb)[1]
    assert regression.cost_ceiling == 2.0 and regression.features == ("metafeatures",)
    with pytest.raises(ValueError, match="params must map candidate names"):
        Auto(candidates=("single-best",), params={"regression": {}})


def test_family_bags_draw_the_size_asked():
    """Each bag draws two families with replacement; a dataset's weight is the count of
    its family (family 0 holds datasets 0 and 1)."""
    codes = np.array([0, 0, 1, 2, 3, 4])
    weights, in_bag = family_bags(codes, 5, 7, np.random.default_rng(0), size=2)
    per_family = weights[:, [0, 2, 3, 4, 5]]
    assert (per_family.sum(axis=1) == 2).all()
    np.testing.assert_array_equal(weights[:, 0], weights[:, 1])
    np.testing.assert_array_equal(in_bag, per_family > 0)


def test_auto_s_inner_average_rankings_are_those_of_each_training_part():
    """The inner A3R average ranking of each family, computed from the totals of the
    ranks, is the ranking of the datasets outside it (ties included: integer successes)."""
    from metaeval.recommend.learners._auto_inner import _family_a3r_orders, _View
    from metaeval.recommend.learners._learners import family_codes
    from metaeval.recommend.learners._strategies import _a3r_order

    rng = np.random.default_rng(7)
    success = rng.integers(1, 4, size=(13, 5)).astype(np.float64)
    times = rng.integers(1, 3, size=(13, 5)).astype(np.float64)
    families = [f"f{i % 4}" for i in range(13)]
    kb = _kb(success, {"f": np.arange(13.0)}, families=families, times=times)
    codes, n_families = family_codes(kb)
    for condition in (Condition(), Condition(time_weight=1.0)):
        fast = _family_a3r_orders(kb, condition, codes, n_families)
        for f in range(n_families):
            slow = _a3r_order(_View(kb, codes != f), condition)[0]
            np.testing.assert_array_equal(fast[f], slow)
