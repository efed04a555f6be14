"""metaeval.similarity: hardness dissimilarity, baselines, clustering.

The dissimilarity is that of Melo & Prudêncio (2014), eqs. 24-25 of the MetaSel version
(eqs. 19-20 of the BRACIS version); the worked example is Table 1 of Prudêncio (2019).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.cluster import hierarchy
from scipy.spatial.distance import squareform

from metaeval.hardness import METHODS, instance_hardness
from metaeval.similarity import (
    aggregate_dissimilarity,
    algorithm_dissimilarity,
    average_linkage,
    classifier_output_difference,
    cophenetic_correlation,
    dissimilarity_matrix,
    error_correlation,
    flat_clusters,
    leaf_order,
)

# Prudêncio (2019), Table 1 (x1-x4 class 1, x5-x10 class 0; models m1..m4)
Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
S = np.array(
    [
        [0.70, 0.60, 0.00, 0.65],
        [0.80, 1.00, 1.00, 0.90],
        [0.80, 0.95, 0.93, 0.88],
        [0.70, 0.25, 0.91, 0.48],
        [0.80, 0.68, 0.78, 0.74],
        [0.75, 0.64, 0.83, 0.70],
        [0.10, 0.37, 0.78, 0.24],
        [0.55, 0.30, 0.95, 0.43],
        [0.80, 0.72, 1.00, 0.76],
        [0.15, 0.25, 0.87, 0.20],
    ]
)

SETTINGS = settings(max_examples=60, deadline=None)
hardness_pools = arrays(
    np.float64,
    st.tuples(st.integers(1, 20), st.integers(1, 6)),
    elements=st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 0.9, 1.0, 1.7]),
)


# ---------------------------------------------------------------------------------------
# dissimilarity matrices
# ---------------------------------------------------------------------------------------


@SETTINGS
@given(H=hardness_pools)
def test_dissimilarity_matrix_is_the_mean_absolute_difference(H):
    n, m = H.shape
    expected = np.array(
        [[np.abs(H[:, a] - H[:, b]).sum() / n for b in range(m)] for a in range(m)]
    )
    D = dissimilarity_matrix(H)
    assert_allclose(D, expected, rtol=0, atol=1e-12)
    assert_array_equal(D, D.T)
    assert_array_equal(np.diag(D), 0.0)
    # an L1 mean is a metric: triangle inequality
    assert np.all(D[:, :, None] <= D[:, None, :] + D.T[None, :, :] + 1e-12)


def test_score_fixed_dissimilarity_of_table_1_by_hand():
    # score-fixed hardness (t = 0.5) is the 0/1 loss:
    # m1 errs on x5 x6 x8 x9; m2 errs on x4 (0.25 <= .5) and x5 x6 x9 (> .5).
    # They disagree on x4 and x8: D(m1, m2) = 2/10.
    D = algorithm_dissimilarity(Y, S, "score-fixed")
    assert D[0, 1] == pytest.approx(0.2)
    # m3 errs on x1 (0.00) and on every class-0 instance (all > .5): 7 errors;
    # m1 and m3 disagree on x1, x7 and x10: 3/10
    assert D[0, 2] == pytest.approx(0.3)


def test_score_fixed_dissimilarity_is_the_classifier_output_difference():
    # with the labels fixed, two models' 0/1 errors differ exactly where their crisp
    # predictions differ (Melo & Prudêncio 2014, MetaSel version: score-fixed similarity =
    # same classifications)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    scores = np.round(rng.random((50, 6)), 1)
    for t in (0.3, 0.5):
        assert_allclose(
            algorithm_dissimilarity(y, scores, "score-fixed", t=t),
            classifier_output_difference(scores, t=t),
            atol=1e-15,
        )


@pytest.mark.parametrize("method", METHODS)
def test_algorithm_dissimilarity_uses_instance_hardness(method):
    H = instance_hardness(Y, S, method, cost_distribution=(2, 5))
    assert_allclose(
        algorithm_dissimilarity(Y, S, method, cost_distribution=(2, 5)), dissimilarity_matrix(H)
    )


def test_rate_driven_dissimilarity_ignores_calibration():
    # a strictly increasing transform of a model's scores keeps its ranking: rate-driven
    # dissimilarity 0, score-driven dissimilarity > 0 (Melo & Prudêncio
    # 2014, MetaSel version, Sect. 5)
    s = S[:, 3]
    pool = np.column_stack([s, s**3])
    assert algorithm_dissimilarity(Y, pool, "rate-driven")[0, 1] == 0.0
    assert algorithm_dissimilarity(Y, pool, "score-driven")[0, 1] > 0.05


# ---------------------------------------------------------------------------------------
# aggregation over datasets (Melo & Prudêncio 2014, MetaSel eq. 25)
# ---------------------------------------------------------------------------------------


def test_aggregation_weighs_each_dataset_once_whatever_its_size():
    # dataset A: 2 instances, the models disagree on both; dataset B: 8 instances,
    # the models disagree on none. Mean over datasets: (1 + 0)/2 = 0.5, whereas pooling
    # the 10 instances would give 2/10.
    ya, Sa = np.array([0, 1]), np.array([[0.9, 0.1], [0.1, 0.9]])
    yb, Sb = np.zeros(8, dtype=int), np.full((8, 2), 0.2)
    Da = algorithm_dissimilarity(ya, Sa, "score-fixed")
    Db = algorithm_dissimilarity(yb, Sb, "score-fixed")
    assert Da[0, 1] == 1.0 and Db[0, 1] == 0.0
    assert aggregate_dissimilarity([Da, Db])[0, 1] == 0.5
    assert aggregate_dissimilarity(np.stack([Da, Db]), "median")[0, 1] == 0.5


def test_mean_and_median_aggregation():
    rng = np.random.default_rng(1)
    mats = []
    for n in (5, 17, 40, 9):  # datasets of different sizes
        mats.append(dissimilarity_matrix(rng.random((n, 4))))
    assert_allclose(aggregate_dissimilarity(mats), np.mean(mats, axis=0), atol=1e-15)
    assert_allclose(
        aggregate_dissimilarity(mats, how="median"), np.median(mats, axis=0), atol=1e-15
    )
    assert_allclose(aggregate_dissimilarity(np.stack(mats)), np.mean(mats, axis=0))
    # the result is itself a valid dissimilarity matrix and can be clustered
    average_linkage(aggregate_dissimilarity(mats, how="median"))


def test_skipna_ignores_missing_pairs():
    D1 = np.array([[0.0, 0.2, np.nan], [0.2, 0.0, np.nan], [np.nan, np.nan, 0.0]])
    D2 = np.array([[0.0, 0.4, 0.6], [0.4, 0.0, 0.8], [0.6, 0.8, 0.0]])
    A = aggregate_dissimilarity([D1, D2], skipna=True)
    assert_allclose(A, [[0.0, 0.3, 0.6], [0.3, 0.0, 0.8], [0.6, 0.8, 0.0]])
    with pytest.raises(ValueError, match=r"matrices\[0\] contains NaN"):
        aggregate_dissimilarity([D1, D2])


# ---------------------------------------------------------------------------------------
# literature baselines
# ---------------------------------------------------------------------------------------


def test_classifier_output_difference_by_hand():
    # crisp predictions at 0.5 (class 1 iff s > 0.5):
    # m1: 1 1 1 1 1 1 0 1 1 0;  m2: 1 1 1 0 1 1 0 0 1 0 -> differ on x4, x8: 0.2
    # m3: 0 1 1 1 1 1 1 1 1 1 -> differs from m1 on x1, x7, x10: 0.3
    cod = classifier_output_difference(S)
    assert cod[0, 1] == pytest.approx(0.2)
    assert cod[0, 2] == pytest.approx(0.3)
    P = S > 0.5
    brute = np.array([[np.mean(P[:, a] != P[:, b]) for b in range(4)] for a in range(4)])
    assert_allclose(cod, brute, atol=1e-15)


def test_error_correlation_matches_pearson_where_defined():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 60)
    scores = rng.random((60, 5))
    r = error_correlation(y, scores, t=0.4)
    errors = ((scores > 0.4) != y[:, None]).astype(float)
    assert_allclose(r, np.corrcoef(errors, rowvar=False), atol=1e-12)
    assert_array_equal(r, r.T)


def test_error_correlation_zero_variance_rule():
    y = np.array([0, 0, 1, 1])
    scores = np.array(
        [
            # m1: never errs; m2: never errs; m3 errs on x1 and x4; m4 errs everywhere
            [0.1, 0.2, 0.9, 0.8],
            [0.2, 0.3, 0.1, 0.9],
            [0.9, 0.6, 0.8, 0.1],
            [0.7, 0.9, 0.2, 0.4],
        ]
    )
    r = error_correlation(y, scores)
    # identical error vectors -> 1 (m1, m2 both constant 0); a constant vector and a
    # different one -> 0; the diagonal is always 1
    assert r[0, 1] == 1.0
    assert r[0, 2] == 0.0 and r[0, 3] == 0.0 and r[2, 3] == 0.0
    assert_array_equal(np.diag(r), 1.0)
    assert np.all(np.isfinite(r))


def test_error_correlation_by_hand():
    y = np.array([0, 0, 1, 1])
    # errors: m1 = (1, 0, 0, 1), m2 = (1, 0, 0, 0): n = 4, k1 = 2, k2 = 1, n12 = 1
    # r = (4*1 - 2*1) / sqrt((4*2 - 4)(4*1 - 1)) = 2 / sqrt(12)
    scores = np.array([[0.9, 0.8], [0.1, 0.2], [0.7, 0.6], [0.3, 0.7]])
    assert error_correlation(y, scores)[0, 1] == pytest.approx(2 / np.sqrt(12))


# ---------------------------------------------------------------------------------------
# clustering
# ---------------------------------------------------------------------------------------

D4 = np.array(
    [
        [0.0, 0.1, 0.4, 0.5],
        [0.1, 0.0, 0.45, 0.55],
        [0.4, 0.45, 0.0, 0.2],
        [0.5, 0.55, 0.2, 0.0],
    ]
)


def test_average_linkage_by_hand():
    Z = average_linkage(D4)
    # join {0, 1} at 0.1, {2, 3} at 0.2, then the two pairs at the mean of the four
    # cross distances (0.4 + 0.5 + 0.45 + 0.55) / 4 = 0.475
    assert_allclose(Z[:, 2], [0.1, 0.2, 0.475])
    assert_allclose(Z, hierarchy.linkage(squareform(D4), "average"))
    assert sorted(leaf_order(Z).tolist()) == [0, 1, 2, 3]
    assert_array_equal(flat_clusters(Z, 0.3), [1, 1, 2, 2])
    assert_array_equal(flat_clusters(Z, 0.5), [1, 1, 1, 1])
    assert len(set(flat_clusters(Z, 0.05))) == 4
    # cophenetic distances: 0.1, 0.475 x4, 0.2 -> correlation with D4's condensed form
    coph = np.array([0.1, 0.475, 0.475, 0.475, 0.475, 0.2])
    expected = np.corrcoef(squareform(D4), coph)[0, 1]
    assert cophenetic_correlation(Z, D4) == pytest.approx(expected)


def test_leaf_order_keeps_close_models_adjacent():
    Z = average_linkage(D4, optimal_ordering=True)
    order = leaf_order(Z).tolist()
    assert abs(order.index(0) - order.index(1)) == 1
    assert abs(order.index(2) - order.index(3)) == 1


BAD_SIMILARITY_CALLS = [
    ("H 1-D", lambda: dissimilarity_matrix([0.1, 0.2]), "2-dimensional"),
    ("H NaN", lambda: dissimilarity_matrix([[0.1, np.nan]]), "NaN or infinite"),
    ("H empty", lambda: dissimilarity_matrix(np.zeros((0, 3))), "at least one instance"),
    (
        "S 1-D",
        lambda: algorithm_dissimilarity([0, 1], [0.1, 0.2], "rate-driven"),
        "S must be 2-dimensional",
    ),
    ("method", lambda: algorithm_dissimilarity(Y, S, "auc"), "not a threshold choice"),
    ("how", lambda: aggregate_dissimilarity([D4], how="max"), "how='max'"),
    ("empty list", lambda: aggregate_dissimilarity([]), "matrices is empty"),
    ("2-D array", lambda: aggregate_dissimilarity(D4), "sequence of"),
    ("shapes", lambda: aggregate_dissimilarity([D4, D4[:3, :3]]), "same models"),
    (
        "asymmetric",
        lambda: aggregate_dissimilarity([D4 + np.triu(np.ones((4, 4)), 1)]),
        "symmetric",
    ),
    ("negative", lambda: average_linkage(-D4), "non-negative"),
    ("diagonal", lambda: average_linkage(D4 + np.eye(4)), "zero diagonal"),
    ("non-square", lambda: average_linkage(D4[:3]), "square"),
    ("one model", lambda: average_linkage([[0.0]]), "at least 2"),
    ("D NaN", lambda: average_linkage(np.where(np.eye(4) == 1, 0, np.nan)), "NaN"),
    ("D text", lambda: average_linkage([["a"]]), "numeric"),
    ("Z invalid", lambda: leaf_order(np.zeros((2, 3))), "not a valid linkage"),
    ("Z text", lambda: flat_clusters([["a"]], 0.1), "not a valid linkage"),
    ("height", lambda: flat_clusters(average_linkage(D4), -0.1), "height must be finite"),
    ("height str", lambda: flat_clusters(average_linkage(D4), "0.3"), "height must be"),
    (
        "Z vs D",
        lambda: cophenetic_correlation(average_linkage(D4), D4[:3, :3]),
        "Z must be built from D",
    ),
    ("COD range", lambda: classifier_output_difference([[1.5, 0.2]]), r"\[0, 1\]"),
    ("COD t", lambda: classifier_output_difference([[0.5, 0.2]], t=2), "t must lie"),
    ("EC lengths", lambda: error_correlation([0, 1, 0], S[:2]), "same length"),
    ("EC labels", lambda: error_correlation([0, 1, 2], S[:3]), "distinct labels"),
    ("skipna", lambda: aggregate_dissimilarity([D4], skipna="yes"), "skipna"),
]


@pytest.mark.parametrize(
    "call, match", [c[1:] for c in BAD_SIMILARITY_CALLS], ids=[c[0] for c in BAD_SIMILARITY_CALLS]
)
def test_bad_inputs_raise_value_error_naming_the_problem(call, match):
    with pytest.raises(ValueError, match=match):
        call()
