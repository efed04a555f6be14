"""Tests for metaeval.hardness.classic: worked examples, brute-force references, properties."""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn.tree import DecisionTreeClassifier

from metaeval.hardness import classic as C
from metaeval.hardness.classic._search import mst_edges
from metaeval.hardness.classic._tree_fit import c45_added_errors

# --------------------------------------------------------------------------------------
# The worked example on a line. Eight points, gaps 1, 2, 4, 5, 6, 7, 8:
#
#   a    b      c            d              e                f               g          h
#   0    1      3            7              12               18              25         33
#   y=0  y=0    y=0          y=1            y=0              y=1             y=1        y=1
#
# class 0 = {a, b, c, e} (4 points), class 1 = {d, f, g, h} (4 points).
# --------------------------------------------------------------------------------------
LINE_X = np.array([[0.0], [1.0], [3.0], [7.0], [12.0], [18.0], [25.0], [33.0]])
LINE_Y = np.array([0, 0, 0, 1, 0, 1, 1, 1])

# A 1-D tree example (nine points) whose tree can be drawn by hand:
#   x: 0 1 2 3 4 | 5 6 | 7 8
#   y: 0 0 0 0 0 | 1 0 | 1 1
TREE_X = np.arange(9.0)[:, None]
TREE_Y = np.array([0, 0, 0, 0, 0, 1, 0, 1, 1])


def test_kdn_worked_example():
    # two nearest neighbours of each point (no ties):
    #   a: b(1), c(3) -> both class 0 -> 0/2    b: a(1), c(2) -> 0/2
    #   c: b(2), a(3) -> 0/2                    d(1): c(4), e(5) -> both class 0 -> 2/2
    #   e(0): d(5), f(6) -> both class 1 -> 2/2 f(1): e(6), g(7) -> e disagrees -> 1/2
    #   g: f(7), h(8) -> 0/2                    h: g(8), f(15) -> 0/2
    assert_array_equal(C.k_disagreeing_neighbors(LINE_X, LINE_Y, k=2), [0, 0, 0, 1, 1, 0.5, 0, 0])
    # k = 3 adds: a: d(7) -> 1/3; b: d(6) -> 1/3; c: d(4) -> 1/3; d: b(6) -> 3/3;
    # e: c(9) -> 2/3; f: d(11) -> 1/3; g: e(13) -> 1/3; h: e(21) -> 1/3
    assert_allclose(
        C.k_disagreeing_neighbors(LINE_X, LINE_Y, k=3),
        np.array([1, 1, 1, 3, 2, 1, 1, 1]) / 3,
    )


def test_n1_worked_example():
    # in one dimension the minimum spanning tree is the chain a-b-c-d-e-f-g-h
    #   a: {b} -> 0     b: {a, c} -> 0    c: {b, d} -> 1/2   d: {c, e} -> 2/2
    #   e: {d, f} -> 2/2  f: {e, g} -> 1/2  g: {f, h} -> 0   h: {g} -> 0
    expected = [0, 0, 0.5, 1, 1, 0.5, 0, 0]
    assert_array_equal(C.borderline_points(LINE_X, LINE_Y), expected)
    # the k-NN-graph route (forced with exact_max=0) finds the same chain
    assert_array_equal(C.borderline_points(LINE_X, LINE_Y, exact_max=0, n_neighbors=2), expected)


def test_n2_worked_example():
    # nearest friend / nearest enemy distances, N2 = friend / (friend + enemy):
    #   a: 1 / (1 + 7)   b: 1 / (1 + 6)   c: 2 / (2 + 4)   d: 11 / (11 + 4)
    #   e: 9 / (9 + 5)   f: 7 / (7 + 6)   g: 7 / (7 + 13)  h: 8 / (8 + 21)
    expected = [1 / 8, 1 / 7, 2 / 6, 11 / 15, 9 / 14, 7 / 13, 7 / 20, 8 / 29]
    assert_allclose(C.intra_extra_ratio(LINE_X, LINE_Y), expected)


def test_local_set_measures_worked_example():
    # nearest enemy (distance): a->d (7), b->d (6), c->d (4), e->d (5),
    #                           d->c (4), f->e (6), g->e (13), h->e (21)
    # local sets (strictly closer than the nearest enemy, the point itself included):
    #   LS(a) = {a, b, c}  LS(b) = {a, b, c}  LS(c) = {a, b, c}  LS(e) = {e}
    #   LS(d) = {d}        LS(f) = {f}        LS(g) = {f, g, h}  LS(h) = {f, g, h}
    # LSC = 1 - |LS| / 4
    assert_allclose(
        C.local_set_cardinality(LINE_X, LINE_Y), [0.25, 0.25, 0.25, 0.75, 0.75, 0.75, 0.25, 0.25]
    )
    # usefulness: in how many local sets is each point? a, b, c: 3; e: 1; d: 1; f: 3;
    # g: 2; h: 2  ->  U = 1 - count / 4
    assert_allclose(C.usefulness(LINE_X, LINE_Y), [0.25, 0.25, 0.25, 0.75, 0.75, 0.25, 0.5, 0.5])
    # harmfulness: d is the nearest enemy of a, b, c, e (4 of the 4 class-0 points),
    # c of d (1/4), e of f, g, h (3/4)
    assert_allclose(C.harmfulness(LINE_X, LINE_Y), [0, 0, 0.25, 1, 0.75, 0, 0, 0])
    # LSR ("farthest"): 1 - enemy / farthest same-class point
    #   a: 1 - 7/12  b: 1 - 6/11  c: 1 - 4/9  d: 1 - 4/26  e: 1 - 5/12
    #   f: 1 - 6/15  g: 1 - 13/18  h: 1 - 21/26
    assert_allclose(
        C.local_set_radius(LINE_X, LINE_Y),
        [5 / 12, 5 / 11, 5 / 9, 22 / 26, 7 / 12, 9 / 15, 5 / 18, 5 / 26],
    )
    # LSR ("class-max"): 1 - enemy / largest enemy distance in the class
    #   class 0 radii 7, 6, 4, 5 (max 7); class 1 radii 4, 6, 13, 21 (max 21)
    assert_allclose(
        C.local_set_radius(LINE_X, LINE_Y, normalize="class-max"),
        [0, 1 / 7, 3 / 7, 17 / 21, 2 / 7, 15 / 21, 8 / 21, 0],
    )


def test_c45_added_errors_worked_values():
    cf = 0.25
    z = NormalDist().inv_cdf(0.75)  # 0.67449
    # no error: N (1 - CF^(1/N))
    assert_allclose(c45_added_errors(1, 0, cf), 1 - 0.25)  # 0.75
    assert_allclose(c45_added_errors(2, 0, cf), 2 * (1 - 0.5))  # 1.0
    assert_allclose(c45_added_errors(5, 0, cf), 5 * (1 - 0.25**0.2))  # 1.21071
    # N = 2, e = 1: f = 1.5/2 = 0.75,
    # r = (f + z^2/4 + z sqrt(f/2 - f^2/2 + z^2/16)) / (1 + z^2/2) = 0.895747
    f = 0.75
    r = (f + z * z / 4 + z * math.sqrt(f / 2 - f * f / 2 + z * z / 16)) / (1 + z * z / 2)
    assert_allclose(c45_added_errors(2, 1, cf), 2 * r - 1)  # 0.79149
    assert_allclose(c45_added_errors(2, 1, cf), 0.79149, atol=1e-5)
    # e + 1/2 >= N: the whole remainder N - e
    assert_allclose(c45_added_errors(3, 3, cf), 0.0)
    # between e = 0 and e = 1 it interpolates linearly
    mid = c45_added_errors(4, 0.5, cf)
    assert_allclose(mid, (c45_added_errors(4, 0, cf) + c45_added_errors(4, 1, cf)) / 2)


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
def test_tree_measures_worked_example(criterion):
    # The full tree (entropy and gini agree here):
    #   root: x <= 4.5?  left {0..4}: pure leaf L1 (depth 1, 5 rows)
    #         right {5, 6, 7, 8} (y = 1, 0, 1, 1): x <= 6.5?
    #             {5, 6}: x <= 5.5? -> leaves {5} and {6} (depth 3, 1 row each)
    #             {7, 8}: pure leaf (depth 2, 2 rows)
    # (root: 4.5 leaves 4/9 * H(1/4) = 0.361 bits, the best; right node: 6.5 leaves
    #  2/4 * 1 = 0.5 bits against 3/4 * H(1/3) = 0.689 for 5.5 and 7.5)
    #
    # DS = 1 - (|leaf| - 1) / (5 - 1): L1 -> 0; {7, 8} -> 1 - 1/4; {5}, {6} -> 1
    assert_allclose(
        C.disjunct_size(TREE_X, TREE_Y, criterion=criterion),
        [0, 0, 0, 0, 0, 1, 1, 0.75, 0.75],
    )
    # TD_U = depth / 3
    assert_allclose(
        C.tree_depth_unpruned(TREE_X, TREE_Y, criterion=criterion),
        [1 / 3] * 5 + [1, 1, 2 / 3, 2 / 3],
    )
    # C4.5 pruning, CF = 0.25 (estimated errors = e + added errors):
    #   node {5, 6}: as a leaf 1 + 0.7915 = 1.7915 > leaves 0.75 + 0.75 + 0.1 -> kept
    #   node {5..8}: as a leaf 1 + 1.1720 = 2.1720 <= 1.5 + 1.0 ({7, 8}) + 0.1 -> pruned
    #   root: as a leaf 3 + 1.5117 = 4.5117 > 1.2107 (L1) + 2.1720 + 0.1 -> kept
    # pruned tree: L1 = {0..4} and R = {5, 6, 7, 8}, both at depth 1.
    # DCP = 1 - own-class share of the pruned leaf: L1 -> 0; in R, y = 1 -> 1 - 3/4 and
    # the class-0 row 6 -> 1 - 1/4
    assert_allclose(
        C.disjunct_class_percentage(TREE_X, TREE_Y, criterion=criterion),
        [0, 0, 0, 0, 0, 0.25, 0.75, 0.25, 0.25],
    )
    assert_allclose(C.tree_depth_pruned(TREE_X, TREE_Y, criterion=criterion), np.ones(9))


def test_tree_measures_with_cost_complexity_pruning():
    # a huge ccp_alpha prunes to the root: one disjunct of 9 rows (6 of class 0)
    # DCP = 1 - 6/9 for class 0 and 1 - 3/9 for class 1; TD_P = 0 for all
    dcp = C.disjunct_class_percentage(TREE_X, TREE_Y, pruning=10.0)
    assert_allclose(dcp, np.where(TREE_Y == 0, 1 / 3, 2 / 3))
    assert_array_equal(C.tree_depth_pruned(TREE_X, TREE_Y, pruning=10.0), np.zeros(9))
    # ccp_alpha = 0 is the full tree: the leaves are pure, DCP = 0, TD_P = TD_U
    assert_array_equal(C.disjunct_class_percentage(TREE_X, TREE_Y, pruning=0.0), np.zeros(9))
    assert_allclose(
        C.tree_depth_pruned(TREE_X, TREE_Y, pruning=0.0), C.tree_depth_unpruned(TREE_X, TREE_Y)
    )


def test_class_likelihood_worked_example():
    # class 0 = {0, 2}: mean 1, variance 1; class 1 = {4, 6}: mean 5, variance 1
    # (GaussianNB adds 1e-9 * var(X) = 5e-9, negligible at rtol 1e-6).
    # Equal priors: P(0 | x) = 1 / (1 + exp(-((x - 5)^2 - (x - 1)^2) / 2))
    #   x = 0: ((25 - 1) / 2 = 12) -> CL = 1 - 1/(1 + e^-12) = 1/(1 + e^12)
    #   x = 2: ((9 - 1) / 2 = 4)   -> CL = 1/(1 + e^4) = 0.017986; x = 4, 6 symmetric
    X, y = [[0.0], [2.0], [4.0], [6.0]], [0, 0, 1, 1]
    expected = [1 / (1 + math.exp(12)), 1 / (1 + math.exp(4))] * 1
    expected = [expected[0], expected[1], expected[1], expected[0]]
    assert_allclose(C.class_likelihood(X, y), expected, rtol=1e-6)
    # two classes: CLD = (1 - (p - (1 - p))) / 2 = 1 - p = CL
    assert_allclose(C.class_likelihood_difference(X, y), expected, rtol=1e-6)
    # a class-0 point placed at the class-1 mean is hard
    X2, y2 = [[0.0], [2.0], [5.0], [4.0], [6.0], [5.5]], [0, 0, 0, 1, 1, 1]
    h = C.class_likelihood(X2, y2)
    assert h[2] > 0.5 > h[0]


def test_class_skew_worked_example():
    # counts: class 0 -> 3, class 1 -> 1 (n = 4)
    # MV = 1 - n_y / 3: class 0 -> 0, class 1 -> 2/3
    assert_allclose(C.minority_value([0, 0, 0, 1]), [0, 0, 0, 2 / 3])
    # CB = (1 - n_y/n + 1/2) * 2/3: class 0 -> 0.75 * 2/3 = 0.5, class 1 -> 1.25 * 2/3
    assert_allclose(C.class_balance([0, 0, 0, 1]), [0.5, 0.5, 0.5, 5 / 6])
    # labels of any kind; balanced classes give MV = 0 and CB = 2/3
    assert_allclose(C.minority_value(["u", "v"]), [0, 0])
    assert_allclose(C.class_balance(["u", "v"]), [2 / 3, 2 / 3])


def test_feature_overlap_worked_example():
    # feature 1: class 0 in [0, 2], class 1 in [1.5, 4] -> overlap [1.5, 2]
    # feature 2: class 0 in [0, 11], class 1 in [5, 20] -> overlap [5, 11]
    #   (0, 0): 0/2   (1, 6): 1/2   (2, 11): 2/2   (1.5, 5): 2/2   (3, 7): 1/2   (4, 20): 0/2
    X = [[0, 0], [1, 6], [2, 11], [1.5, 5], [3, 7], [4, 20]]
    y = [0, 0, 0, 1, 1, 1]
    assert_allclose(C.feature_overlap(X, y), [0, 0.5, 1, 1, 0.5, 0])
    # separable feature: empty overlap region
    assert_array_equal(C.feature_overlap([[0], [1], [2], [3]], [0, 0, 1, 1]), np.zeros(4))


def test_overlap_closeness_worked_example():
    # feature 0: overlap [1.5, 2] (width 1/2); do = (2 - x) / (1/2), dot = 1 / (1 + |1/2 - do|)
    #   x = 0: do 4 -> 1/4.5 = 2/9; 1: 2 -> 2/5; 2: 0 -> 2/3; 1.5: 1 -> 2/3; 3: -2 -> 2/7;
    #   4: -4 -> 2/11
    # feature 1: overlap [5, 11] (width 6); do = (11 - x) / 6
    #   x = 0: 11/6 -> 3/7; 6: 5/6 -> 3/4; 11: 0 -> 2/3; 5: 1 -> 2/3; 7: 2/3 -> 6/7;
    #   20: -3/2 -> 1/3
    X = [[0, 0], [1, 6], [2, 11], [1.5, 5], [3, 7], [4, 20]]
    y = [0, 0, 0, 1, 1, 1]
    f0 = np.array([2 / 9, 2 / 5, 2 / 3, 2 / 3, 2 / 7, 2 / 11])
    f1 = np.array([3 / 7, 3 / 4, 2 / 3, 2 / 3, 6 / 7, 1 / 3])
    assert_allclose(C.overlap_closeness_min(X, y), np.minimum(f0, f1))
    assert_allclose(C.overlap_closeness_mean(X, y), (f0 + f1) / 2)
    assert_allclose(C.overlap_closeness_max(X, y), np.maximum(f0, f1))
    frame = C.classic_hardness(X, y, ["F2", "F3", "F4"], encode=False)
    assert_allclose(frame.to_numpy(), np.c_[np.minimum(f0, f1), (f0 + f1) / 2, np.maximum(f0, f1)])
    # overlap [1, 2]: its ends give 2/3, its middle 1.5 gives 1, one width outside 1/2.5
    x, labels = [[0], [2], [1], [3], [1.5]], [0, 0, 1, 1, 0]
    assert_allclose(C.overlap_closeness_max(x, labels), [0.4, 2 / 3, 2 / 3, 0.4, 1])


def test_overlap_closeness_degenerate_features():
    # a constant feature carries no evidence: skipped, so it changes nothing
    X = np.array([[0, 0], [1, 6], [2, 11], [1.5, 5], [3, 7], [4, 20]], dtype=float)
    y = [0, 0, 0, 1, 1, 1]
    with_constant = np.c_[X, np.full(6, 7.0)]
    for f in (C.overlap_closeness_min, C.overlap_closeness_mean, C.overlap_closeness_max):
        assert_allclose(f(with_constant, y), f(X, y))
    # zero-width overlap: class 0 in [0, 1], class 1 in [1, 2]; the two points at x = 1
    # are skipped (0/0); the others face an infinite relative distance -> 0
    x = [[0.0], [1.0], [1.0], [2.0]]
    assert_allclose(C.overlap_closeness_mean(x, [0, 0, 1, 1]), [0, 0, 0, 0])
    assert_allclose(
        C.overlap_closeness_mean(np.c_[x, [0, 1, 2, 3]], [0, 0, 1, 1]),
        [1 / 2.5 / 2, 1 / 1.5, 1 / 1.5, 1 / 2.5 / 2],
    )
    # only constant features: no evidence anywhere -> 0
    assert_array_equal(C.overlap_closeness_max(np.ones((4, 2)), [0, 0, 1, 1]), np.zeros(4))


# Values computed by PyHard 2.2.4 itself (ClassificationMeasures(df, ccp_alpha=0.01) with
# numpy 1.23.5, pandas 1.5.3, scikit-learn 1.5.2, in an environment of its own: its pins
# do not install beside metaeval's) on this 14-row table: f2(), f3(), f4(),
# usefulness(distance="euclidean") and class_likeliood() (its spelling).
PYHARD_X = np.array(
    [[0.3, 1.2], [1.1, 0.4], [2.0, 2.9], [2.6, 0.8], [3.4, 3.1], [0.7, 2.2], [4.1, 1.9],
     [1.9, 3.8], [3.0, 2.0], [4.6, 4.4], [2.2, 1.5], [3.8, 0.2], [1.4, 4.9], [0.2, 3.3]]
)  # fmt: skip
PYHARD_Y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0])
PYHARD_VALUES = {
    "F2": [0.413793103448, 0.571428571429, 0.73417721519, 0.666666666667, 0.461538461538,
           0.48, 0.363636363636, 0.59793814433, 0.545454545455, 0.315789473684,
           0.857142857143, 0.4, 0.487394957983, 0.4],
    "F3": [0.615347255949, 0.619047619048, 0.867088607595, 0.700421940928, 0.580166821131,
           0.686153846154, 0.673343605547, 0.760507533703, 0.748137108793, 0.423949782714,
           0.874725274725, 0.518681318681, 0.577030812325, 0.533333333333],
    "F4": [0.816901408451, 0.666666666667, 1.0, 0.73417721519, 0.698795180723,
           0.892307692308, 0.983050847458, 0.923076923077, 0.950819672131, 0.532110091743,
           0.892307692308, 0.637362637363, 0.666666666667, 0.666666666667],
    "Usefulness": [0.714285714286, 0.714285714286, 0.714285714286, 0.571428571429,
                   0.714285714286, 0.571428571429, 0.714285714286, 0.714285714286,
                   0.571428571429, 1.0, 0.428571428571, 0.857142857143, 1.0, 0.714285714286],
    "CL": [0.065677396321, 0.078035464446, 0.380302546887, 0.396141844741, 0.105393869849,
           0.075288151759, 0.094853943209, 0.305295207709, 0.260781761482, 0.085022327349,
           0.220769601037, 0.111669349976, 0.138850487715, 0.086512961144],
}  # fmt: skip


def test_pyhard_options_reproduce_pyhard_values():
    frame = C.classic_hardness(
        PYHARD_X,
        PYHARD_Y,
        ["F2", "F3", "F4", "Usefulness", "CL", "CLD"],
        encode=False,
        calibration="sigmoid",
        usefulness_include_self=False,
    )
    for name, values in PYHARD_VALUES.items():
        assert_allclose(frame[name], values, atol=2e-12, err_msg=name)
    assert_allclose(frame["CLD"], PYHARD_VALUES["CL"], atol=2e-12)  # two classes: CLD = CL
    # metaeval's defaults differ exactly as documented
    own = C.usefulness(PYHARD_X, PYHARD_Y)
    n_y = np.bincount(PYHARD_Y)[PYHARD_Y]
    assert_allclose(own, np.array(PYHARD_VALUES["Usefulness"]) - 1 / n_y)
    assert not np.allclose(C.class_likelihood(PYHARD_X, PYHARD_Y), PYHARD_VALUES["CL"])


def test_usefulness_without_self_matches_brute_force():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(30, 2)).astype(float)  # ties and duplicates
    y = rng.integers(0, 2, size=30)
    D = cdist(X, X)
    enemy = np.array([D[j, y != y[j]].min() for j in range(30)])
    count = np.array(
        [sum(D[i, j] < enemy[j] for j in range(30) if j != i and y[j] == y[i]) for i in range(30)]
    )
    assert_allclose(
        C.usefulness(X, y, include_self=False), 1 - count / np.bincount(y)[y], atol=1e-12
    )


def test_sigmoid_calibrated_class_likelihood_matches_platt_reference():
    from scipy.optimize import minimize
    from sklearn.model_selection import StratifiedKFold
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(5)
    X = rng.normal(size=(45, 3))
    y = (X[:, 0] + rng.normal(size=45) > 0.3).astype(int)
    f = np.empty(45)  # cross-validated naive-Bayes P(class 1), 3 unshuffled stratified folds
    for train, test in StratifiedKFold(3).split(X, y):
        nb = GaussianNB(priors=[0.5, 0.5]).fit(X[train], y[train])
        f[test] = nb.predict_proba(X[test])[:, 1]
    n1, n0 = y.sum(), (1 - y).sum()
    target = np.where(y == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))  # Platt (1999)

    def loss(ab):
        z = ab[0] * f + ab[1]  # P(1) = 1 / (1 + exp(z))
        return np.sum(np.logaddexp(0, z) - (1 - target) * z)

    a, b = minimize(loss, [0.0, np.log((n0 + 1) / (n1 + 1))], method="BFGS", tol=1e-12).x
    full = GaussianNB(priors=[0.5, 0.5]).fit(X, y).predict_proba(X)[:, 1]
    p1 = 1 / (1 + np.exp(a * full + b))
    expected = 1 - np.where(y == 1, p1, 1 - p1)
    assert_allclose(C.class_likelihood(X, y, calibration="sigmoid"), expected, atol=1e-5)


def test_pool_measures_worked_example():
    # y = [1, 0, 1]; predicted class 1 iff s > 0.5 (class 0 when s <= t)
    #   row 0: 0.9 -> 1 (right), 0.4 -> 0 (wrong)  -> 1/2
    #   row 1: 0.6 -> 1 (wrong), 0.2 -> 0 (right)  -> 1/2
    #   row 2: 0.5 -> 0 (wrong, s <= t), 0.1 -> 0 (wrong) -> 2/2
    S = [[0.9, 0.4], [0.6, 0.2], [0.5, 0.1]]
    assert_allclose(C.pool_misclassification_rate([1, 0, 1], S), [0.5, 0.5, 1.0])
    assert_allclose(C.pool_misclassification_rate([1, 0, 1], S, t=0.45), [0.5, 0.5, 0.5])
    # 1 - mean P(true class): row 0 1 - (0.9 + 0.4)/2; row 1 1 - (0.4 + 0.8)/2;
    # row 2 1 - (0.5 + 0.1)/2
    assert_allclose(C.pool_true_class_probability_loss([1, 0, 1], S), [0.35, 0.4, 0.7])
    # pos_label names class 1; a single model may be a 1-D array
    assert_allclose(
        C.pool_true_class_probability_loss(["b", "a"], [0.8, 0.8], pos_label="b"), [0.2, 0.8]
    )
    assert_allclose(C.pool_misclassification_rate(["b", "a"], [0.8, 0.8], pos_label="b"), [0, 1])


def test_encode_features_worked_example():
    df = pd.DataFrame(
        {
            "age": [20.0, 40.0, np.nan, 30.0],  # median of 20, 40, 30 is 30 -> 0, 1, .5, .5
            "colour": ["red", None, "blue", "red"],  # mode red fills the gap
            "flag": [True, False, True, True],  # booleans are categorical by default
        }
    )
    Z = C.encode_features(df)
    w = 1 / math.sqrt(2)
    expected = [
        [0.0, 0, w, 0, w],
        [1.0, 0, w, w, 0],
        [0.5, w, 0, 0, w],
        [0.5, 0, w, 0, w],
    ]
    assert_allclose(Z, expected)
    # two different categories are at squared distance 2 w^2 = 1, like the two ends of a
    # numeric feature
    assert_allclose(((Z[1, 1:3] - Z[2, 1:3]) ** 2).sum(), 1.0)


def test_encode_features_gower_matches_gower_distance():
    df = pd.DataFrame(
        {"a": [1.0, 3.0, 5.0, 2.0], "b": ["x", "y", "x", "z"], "c": [10.0, 10.0, 0.0, 5.0]}
    )
    Z = C.encode_features(df, ["b"], distance="gower")
    # Gower by hand: mean over 3 features of |diff| / range (a: 4, c: 10) or mismatch
    gower = np.zeros((4, 4))
    a, b, c = df["a"].to_numpy(), df["b"].to_numpy(), df["c"].to_numpy()
    for i in range(4):
        for j in range(4):
            gower[i, j] = (abs(a[i] - a[j]) / 4 + (b[i] != b[j]) + abs(c[i] - c[j]) / 10) / 3
    assert_allclose(cdist(Z, Z, "cityblock") / 3, gower)


def test_encode_features_arrays_and_errors():
    # numeric arrays: median imputation and min-max scaling; a constant column -> 0
    Z = C.encode_features([[1.0, 5.0], [np.nan, 5.0], [3.0, 5.0]])
    assert_allclose(Z, [[0, 0], [0.5, 0], [1, 0]])
    # categorical positions for arrays
    Z = C.encode_features(np.array([[1.0, "p"], [2.0, "q"]], dtype=object), [1])
    assert_allclose(Z, [[0, 1 / math.sqrt(2), 0], [1, 0, 1 / math.sqrt(2)]])
    with pytest.raises(ValueError, match="not numeric"):
        C.encode_features(pd.DataFrame({"a": ["x", "y"]}), categorical=[])
    with pytest.raises(ValueError, match="categorical names columns"):
        C.encode_features(pd.DataFrame({"a": [1, 2]}), ["zzz"])
    with pytest.raises(ValueError, match="distance"):
        C.encode_features([[1.0]], distance="cosine")
    with pytest.raises(ValueError, match="infinite"):
        C.encode_features([[1.0], [np.inf]])


def test_classic_hardness_frame_and_gower():
    frame = C.classic_hardness(LINE_X, LINE_Y, k=2, encode=False)
    assert list(frame.columns) == list(C.MEASURES)
    assert_array_equal(frame["kDN"], C.k_disagreeing_neighbors(LINE_X, LINE_Y, k=2))
    # encode=True min-max scales a single feature: every measure is scale invariant here
    assert_allclose(C.classic_hardness(LINE_X, LINE_Y, k=2).to_numpy(), frame.to_numpy())
    # a DataFrame keeps its index; gower on one numeric feature = manhattan = euclidean
    df = pd.DataFrame({"x": LINE_X[:, 0]}, index=list("abcdefgh"))
    g = C.classic_hardness(df, LINE_Y, ["N1", "LSC"], distance="gower")
    assert list(g.index) == list("abcdefgh")
    assert_allclose(g.to_numpy(), frame[["N1", "LSC"]].to_numpy())


# --------------------------------------------------------------------------------------
# brute-force references: the definitions written out with full distance matrices
# --------------------------------------------------------------------------------------


def _brute(X, y, k):
    X = np.asarray(X, dtype=float)
    n = len(y)
    D = cdist(X, X)
    out = {}
    kdn, n2, lsc, lsr, lsr_cm, harm, use = (np.zeros(n) for _ in range(7))
    ne = np.zeros(n, dtype=int)
    radius = np.zeros(n)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        order = sorted(others, key=lambda j: D[i, j])
        kdn[i] = sum(y[j] != y[i] for j in order[:k]) / k
        enemies = [j for j in range(n) if y[j] != y[i]]
        friends = [j for j in others if y[j] == y[i]]
        ne[i] = min(enemies, key=lambda j: D[i, j])
        radius[i] = D[i, ne[i]]
        nearest_friend = min(D[i, j] for j in friends)
        n2[i] = 1 - 1 / (nearest_friend / radius[i] + 1)
    n_class = np.array([np.sum(y == y[i]) for i in range(n)])
    for i in range(n):
        local_set = [j for j in range(n) if D[i, j] < radius[i]]
        lsc[i] = 1 - len(local_set) / n_class[i]
        farthest = max(D[i, j] for j in range(n) if y[j] == y[i])
        lsr[i] = 1 - min(1, radius[i] / farthest)
        lsr_cm[i] = 1 - min(1, radius[i] / max(radius[j] for j in range(n) if y[j] == y[i]))
        harm[i] = sum(ne[j] == i for j in range(n)) / (n - n_class[i])
        use[i] = 1 - sum(D[i, j] < radius[j] for j in range(n)) / n_class[i]
    out.update(kDN=kdn, N2=n2, LSC=lsc, LSR=lsr, LSR_cm=lsr_cm, Harmfulness=harm, Usefulness=use)
    # N1 from Prim's algorithm on the complete graph
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best, parent = D[0].copy(), np.zeros(n, dtype=int)
    neighbours = [[] for _ in range(n)]
    for _ in range(n - 1):
        j = int(np.argmin(np.where(in_tree, np.inf, best)))
        neighbours[j].append(parent[j])
        neighbours[parent[j]].append(j)
        in_tree[j] = True
        closer = D[j] < best
        best, parent = np.where(closer, D[j], best), np.where(closer, j, parent)
    out["N1"] = np.array([np.mean([y[j] != y[i] for j in neighbours[i]]) for i in range(n)])
    # F1 from the per-class ranges
    f1 = np.zeros(n)
    for f in range(X.shape[1]):
        lo = max(X[y == 0, f].min(), X[y == 1, f].min())
        hi = min(X[y == 0, f].max(), X[y == 1, f].max())
        f1 += (X[:, f] >= lo) & (X[:, f] <= hi)
    out["F1"] = f1 / X.shape[1]
    return out


def _random_data(seed, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, size=n)
    y[:2], y[2:4] = 0, 1
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_neighbourhood_measures_match_brute_force(seed):
    X, y = _random_data(seed)
    ref = _brute(X, y, k=5)
    assert_allclose(C.k_disagreeing_neighbors(X, y), ref["kDN"])
    assert_allclose(C.intra_extra_ratio(X, y), ref["N2"])
    assert_allclose(C.local_set_cardinality(X, y), ref["LSC"])
    assert_allclose(C.local_set_radius(X, y), ref["LSR"])
    assert_allclose(C.local_set_radius(X, y, normalize="class-max"), ref["LSR_cm"])
    assert_allclose(C.harmfulness(X, y), ref["Harmfulness"])
    assert_allclose(C.usefulness(X, y), ref["Usefulness"])
    assert_allclose(C.borderline_points(X, y), ref["N1"])
    assert_allclose(C.feature_overlap(X, y), ref["F1"])


def test_local_set_pass_chunks_agree(monkeypatch):
    # the chunked pass gives the same counts when forced to one row per chunk
    from metaeval.hardness.classic import _search as nb

    X, y = _random_data(5, n=60)
    whole = C.classic_hardness(X, y, ["LSC", "LSR", "Usefulness"], encode=False)
    monkeypatch.setattr(nb, "_CHUNK_ENTRIES", 1)
    chunked = C.classic_hardness(X, y, ["LSC", "LSR", "Usefulness"], encode=False)
    assert_allclose(chunked.to_numpy(), whole.to_numpy())


def test_manhattan_metric_matches_brute_force():
    X, y = _random_data(3, n=30)
    D = cdist(X, X, "cityblock")
    np.fill_diagonal(D, np.inf)
    expected = np.array([np.mean(y[np.argsort(D[i])[:5]] != y[i]) for i in range(len(y))])
    assert_allclose(C.k_disagreeing_neighbors(X, y, metric="manhattan"), expected)


def test_mst_approximation():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 2, size=200)
    exact = C.borderline_points(X, y)
    # with 10 neighbours the k-NN graph contains this exact tree
    assert_array_equal(C.borderline_points(X, y, exact_max=0), exact)
    # three far-apart blobs and 3 neighbours: the graph is disconnected, the bridges make
    # a spanning tree (n - 1 edges, one component)
    blobs = np.vstack([rng.normal(size=(30, 2)) + c for c in ([0, 0], [60, 0], [0, 90])])
    n = blobs.shape[0]
    assert _is_spanning_tree(*mst_edges(blobs, "euclidean", 0, 3), n)
    # and it is the exact tree once each blob's graph holds its own tree
    yb = rng.integers(0, 2, size=n)
    assert_array_equal(
        C.borderline_points(blobs, yb, exact_max=0, n_neighbors=10),
        C.borderline_points(blobs, yb),
    )


def _is_spanning_tree(u, v, n):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(u.size), (u, v)), shape=(n, n))
    return u.size == n - 1 and connected_components(graph, directed=False)[0] == 1


@pytest.mark.parametrize(
    ("metric", "scipy_metric"), [("euclidean", "euclidean"), ("manhattan", "cityblock")]
)
def test_exact_mst_matches_scipy(metric, scipy_metric):
    # Prim's algorithm (no stored matrix) against scipy on the dense distance matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial.distance import pdist, squareform

    X = np.random.default_rng(11).normal(size=(300, 4))
    u, v = mst_edges(X, metric, 10_000, 10)
    tree = minimum_spanning_tree(squareform(pdist(X, scipy_metric))).tocoo()
    assert set(map(frozenset, zip(u.tolist(), v.tolist(), strict=True))) == set(
        map(frozenset, zip(tree.row.tolist(), tree.col.tolist(), strict=True))
    )


@pytest.mark.parametrize("data", ["grid", "one-hot", "offset", "duplicates", "huge"])
def test_bounded_prim_steps_give_the_plain_loop_s_tree(monkeypatch, data):
    # the Euclidean steps' lower bounds (a matrix-vector product) against the plain loop
    # (every distance, row difference by row difference), on data full of tied distances
    from metaeval.hardness.classic import _search

    rng = np.random.default_rng(5)
    X = {"grid": lambda: rng.integers(0, 3, size=(300, 6)).astype(float),
         "one-hot": lambda: rng.integers(0, 2, size=(250, 40)) / np.sqrt(2.0),
         # far from the origin: the bounds are of the centred rows
         "offset": lambda: rng.integers(0, 4, size=(200, 5)) * 1e-3 + 1e6,
         "duplicates": lambda: np.repeat(rng.normal(size=(60, 3)), 4, axis=0),
         # two tight clusters whose norms square beyond the float range: no bounds (the
         # plain loop still joins each cluster by its finite distances)
         "huge": lambda: np.vstack([rng.normal(size=(40, 30)) + 1e155,
                                    rng.normal(size=(40, 30)) - 1e155])}[data]()
    monkeypatch.setattr(_search, "_BOUND_ENTRIES", 0)
    bounded = _search.mst_edges(X, "euclidean", 10_000, 10)
    monkeypatch.setattr(_search, "_BOUND_ENTRIES", np.inf)
    plain = _search.mst_edges(X, "euclidean", 10_000, 10)
    assert_array_equal(bounded[0], plain[0])
    assert_array_equal(bounded[1], plain[1])
    assert _is_spanning_tree(*bounded, X.shape[0])


def test_mst_keeps_zero_length_edges():
    # duplicates: the tree must still span every point (scipy reads a 0 weight as
    # "no edge", so the k-NN graph stores them as the smallest positive float)
    X = np.array([[0.0], [0.0], [0.0], [5.0], [5.0]])
    y = np.array([0, 1, 0, 1, 1])
    # duplicates in both classes: a at 0 has neighbours b (class 1) and/or c (class 0)
    assert np.all(np.isfinite(C.borderline_points(X, y)))
    assert _is_spanning_tree(*mst_edges(X, "euclidean", 100, 10), 5)
    # a clique of 15 copies is its own component of the 3-NN graph: bridged
    X = np.vstack([np.zeros((15, 2)), np.random.default_rng(0).normal(size=(20, 2)) + 4])
    assert _is_spanning_tree(*mst_edges(X, "euclidean", 0, 3), 35)


def _add_errs(N, e, cf):
    """Weka's Stats.addErrs, scalar, written independently of the module."""
    if e < 1:
        base = N * (1 - cf ** (1 / N))
        return base if e == 0 else base + e * (_add_errs(N, 1, cf) - base)
    if e + 0.5 >= N:
        return max(N - e, 0)
    z = NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / N
    r = (f + z * z / (2 * N) + z * math.sqrt(f / N - f * f / N + z * z / (4 * N * N))) / (
        1 + z * z / N
    )
    return r * N - e


def _reference_pruned(X, y, cf, criterion="entropy"):
    """Recursive C4.5 error-based pruning of the same scikit-learn tree."""
    clf = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y)
    t = clf.tree_
    paths = clf.decision_path(X).toarray().astype(bool)  # (n, n_nodes)
    counts = [np.bincount(y[paths[:, node]], minlength=2) for node in range(t.node_count)]

    def prune(node):
        N, e = counts[node].sum(), counts[node].sum() - counts[node].max()
        as_leaf = e + _add_errs(N, e, cf)
        if t.children_left[node] == -1:
            return as_leaf, {node}
        el, ll = prune(t.children_left[node])
        er, lr = prune(t.children_right[node])
        if as_leaf <= el + er + 0.1:
            return as_leaf, {node}
        return el + er, ll | lr

    _, leaves = prune(0)
    leaf, depth = np.zeros(len(y), dtype=int), np.zeros(len(y), dtype=int)
    for i in range(len(y)):
        nodes = np.flatnonzero(paths[i])  # root first (children have larger ids)
        pos = next(p for p, node in enumerate(nodes) if node in leaves)
        leaf[i], depth[i] = nodes[pos], pos
    dcp = np.array([1 - np.mean(y[leaf == leaf[i]] == y[i]) for i in range(len(y))])
    return dcp, depth / depth.max() if depth.max() else depth * 0.0, clf, paths


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_tree_measures_match_reference(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 3))
    # noisy labels so that pruning has work to do
    y = ((X[:, 0] + 0.8 * rng.normal(size=80)) > 0).astype(int)
    dcp, tdp, clf, paths = _reference_pruned(X, y, 0.25)
    assert_allclose(C.disjunct_class_percentage(X, y), dcp)
    assert_allclose(C.tree_depth_pruned(X, y), tdp)
    # unpruned: depth = nodes on the path - 1 (as PyHard counts it), leaf sizes from apply
    depth = paths.sum(axis=1) - 1
    assert_allclose(C.tree_depth_unpruned(X, y), depth / depth.max())
    leaf = clf.apply(X)
    size = np.array([np.sum(leaf == leaf[i]) for i in range(80)])
    assert_allclose(C.disjunct_size(X, y), 1 - (size - 1) / (size.max() - 1))


def test_class_likelihood_matches_gaussian_formula():
    X, y = _random_data(4, n=50, d=3)
    eps = 1e-9 * X.var(axis=0).max()
    log_lik = np.zeros((50, 2))
    for c in (0, 1):
        mu, var = X[y == c].mean(axis=0), X[y == c].var(axis=0) + eps
        log_lik[:, c] = -0.5 * np.sum(np.log(2 * np.pi * var) + (X - mu) ** 2 / var, axis=1)
    post = np.exp(log_lik - log_lik.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    assert_allclose(C.class_likelihood(X, y), 1 - post[np.arange(50), y], rtol=1e-7, atol=1e-12)


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------

NON_TREE = [m for m in C.MEASURES if m not in ("DS", "DCP", "TD_P", "TD_U")]
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def datasets(draw, discrete=None):
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    if discrete is None:
        discrete = draw(st.booleans())
    rng = np.random.default_rng(seed)
    # discrete values give ties and duplicates (also across classes)
    X = rng.integers(0, 3, size=(n, d)).astype(float) if discrete else rng.normal(size=(n, d))
    y = rng.integers(0, 2, size=n)
    y[:2], y[2:4] = 0, 1
    return X, y


@pytest.mark.slow
@SETTINGS
@given(datasets())
def test_all_measures_lie_in_unit_interval(data):
    X, y = data
    frame = C.classic_hardness(X, y, encode=False)
    values = frame.to_numpy()
    assert np.all(np.isfinite(values))
    assert np.all((values >= 0) & (values <= 1))
    # the shared computation gives what each function gives on its own
    assert_allclose(frame["kDN"], C.k_disagreeing_neighbors(X, y))
    assert_allclose(frame["LSR"], C.local_set_radius(X, y))
    assert_allclose(frame["DCP"], C.disjunct_class_percentage(X, y))
    # CL and CLD coincide for two classes; CB = 1 - (2/3) n_y / n
    assert_allclose(frame["CL"], frame["CLD"])
    assert_allclose(frame["CB"], 1 - (2 / 3) * np.bincount(y)[y] / len(y))


@SETTINGS
@given(datasets(discrete=False), st.randoms(use_true_random=False))
def test_row_permutation_permutes_values(data, rnd):
    X, y = data
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    base = C.classic_hardness(X, y, encode=False)
    permuted = C.classic_hardness(X[perm], y[perm], encode=False)
    assert_allclose(permuted.to_numpy(), base.to_numpy()[perm], rtol=1e-9, atol=1e-12)


@SETTINGS
@given(datasets(discrete=False), st.randoms(use_true_random=False))
def test_feature_order_does_not_matter(data, rnd):
    # tree measures are left out: scikit-learn breaks ties between equally good splits
    # on different features by its random feature order
    X, y = data
    cols = np.array(rnd.sample(range(X.shape[1]), X.shape[1]))
    base = C.classic_hardness(X, y, NON_TREE, encode=False)
    permuted = C.classic_hardness(X[:, cols], y, NON_TREE, encode=False)
    assert_allclose(permuted.to_numpy(), base.to_numpy(), rtol=1e-9, atol=1e-12)


@SETTINGS
@given(
    st.integers(7, 16),
    st.integers(7, 16),
    st.floats(0.0, 2 * np.pi),
    st.floats(0.5, 2.0),
    st.floats(10.0, 50.0),
)
def test_own_class_surroundings_are_easier(n0, n1, phi, r, gap):
    # class 0 on a circle around (0, 0), class 1 on a circle around (gap, 0); probe_in is
    # a class-0 point at the centre of its own class, probe_out a class-0 point at the
    # centre of the other class
    def ring(m, centre):
        angle = phi + 2 * np.pi * np.arange(m) / m
        return np.column_stack([np.cos(angle), np.sin(angle)]) * r + centre

    X = np.vstack([ring(n0, [0, 0]), ring(n1, [gap, 0]), [[0, 0]], [[gap, 0]]])
    y = np.array([0] * n0 + [1] * n1 + [0, 0])
    frame = C.classic_hardness(X, y, NON_TREE, encode=False)
    inside, outside = frame.iloc[-2], frame.iloc[-1]
    assert np.all(inside.to_numpy() <= outside.to_numpy() + 1e-12)
    # and strictly for the neighbourhood and likelihood measures
    for m in ("kDN", "N1", "N2", "LSC", "LSR", "Harmfulness", "Usefulness", "CL", "F1"):
        assert inside[m] < outside[m], m


def test_tree_measures_orientation():
    # a class-0 point among class-1 points sits in a small, deep, impure region
    rng = np.random.default_rng(0)
    X = np.vstack([rng.uniform(0, 1, size=(30, 2)), rng.uniform(2, 3, size=(30, 2))])
    y = np.array([0] * 30 + [1] * 30)
    X = np.vstack([X, [[0.5, 0.5]], [[2.5, 2.5]]])
    y = np.append(y, [0, 0])
    frame = C.classic_hardness(X, y, ["DS", "DCP", "TD_P", "TD_U"], encode=False)
    inside, outside = frame.iloc[-2], frame.iloc[-1]
    # the pruned tree keeps one split: both probes sit at depth 1 (TD_P ties)
    assert (inside <= outside).all(), frame.iloc[-2:]
    assert (inside[["DS", "DCP", "TD_U"]] < outside[["DS", "DCP", "TD_U"]]).all()


@SETTINGS
@given(
    st.integers(1, 30),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
    st.floats(0.0, 1.0),
)
def test_pool_measures_properties(n, m, seed, t):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    S = rng.uniform(size=(n, m))
    rate = C.pool_misclassification_rate(y, S, t=t)
    assert np.all((rate >= 0) & (rate <= 1))
    assert_allclose(rate * m, np.round(rate * m))  # a share of the m models
    loss = C.pool_true_class_probability_loss(y, S)
    assert_allclose(loss, np.abs(y[:, None] - S).mean(axis=1))
    # a perfect pool: scores equal to the labels
    assert_array_equal(C.pool_misclassification_rate(y, np.repeat(y[:, None], m, 1)), 0)


@SETTINGS
@given(datasets(discrete=False))
def test_scaling_one_feature_changes_no_tree_or_overlap_measure(data):
    # trees, naive Bayes and F1 depend only on each feature's order / affine scale
    X, y = data
    scaled = X * np.arange(1, X.shape[1] + 1) * 7.0 + 3.0
    keep = ["DS", "DCP", "TD_P", "TD_U", "F1", "MV", "CB"]
    base = C.classic_hardness(X, y, keep, encode=False)
    assert_allclose(C.classic_hardness(scaled, y, keep, encode=False), base)
    # Gaussian naive Bayes adds var_smoothing x (the largest feature variance) to every
    # variance, so it is invariant to one affine map of all features, not to a different
    # scale per feature (hypothesis found a 2.8e-7 difference that way)
    common = X * 7.0 + 3.0
    assert_allclose(C.class_likelihood(common, y), C.class_likelihood(X, y), atol=1e-9)


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: C.k_disagreeing_neighbors(LINE_X, [0, 1, 2, 0, 1, 2, 0, 1]), "distinct labels"),
        (lambda: C.k_disagreeing_neighbors(LINE_X, [0] * 8), "Only one class"),
        (lambda: C.k_disagreeing_neighbors(LINE_X, [0] * 7 + [1]), "at least 2"),
        (lambda: C.k_disagreeing_neighbors(LINE_X, LINE_Y, k=8), "k must be"),
        (lambda: C.k_disagreeing_neighbors(LINE_X, LINE_Y, k=0), "k must be"),
        (lambda: C.k_disagreeing_neighbors(LINE_X[:5], LINE_Y), "same length"),
        (lambda: C.intra_extra_ratio(LINE_X, LINE_Y, metric="cosine"), "metric"),
        (lambda: C.harmfulness(np.full((8, 1), np.nan), LINE_Y), "NaN"),
        (lambda: C.usefulness(np.ones(8), LINE_Y), "2-dimensional"),
        (lambda: C.usefulness(np.array([["a"]] * 8), LINE_Y), "numeric"),
        (lambda: C.usefulness(pd.DataFrame({"a": ["x"] * 8}), LINE_Y), "non-numeric"),
        (lambda: C.local_set_radius(LINE_X, LINE_Y, normalize="max"), "normalize"),
        (lambda: C.disjunct_class_percentage(LINE_X, LINE_Y, pruning="c45"), "pruning"),
        (lambda: C.disjunct_class_percentage(LINE_X, LINE_Y, pruning=-1.0), "pruning"),
        (lambda: C.tree_depth_pruned(LINE_X, LINE_Y, confidence=1.5), "confidence"),
        (lambda: C.disjunct_size(LINE_X, LINE_Y, criterion="mse"), "criterion"),
        (lambda: C.borderline_points(LINE_X, LINE_Y, exact_max=-1), "exact_max"),
        (lambda: C.borderline_points(LINE_X, LINE_Y, n_neighbors=0), "n_neighbors"),
        (lambda: C.classic_hardness(LINE_X, LINE_Y, ["kDN", "XYZ"]), "unknown"),
        (lambda: C.classic_hardness(LINE_X, LINE_Y, "kDN"), "sequence"),
        (lambda: C.classic_hardness(LINE_X, LINE_Y, distance="cosine"), "distance"),
        (lambda: C.classic_hardness(LINE_X, LINE_Y, lsr_normalize="x"), "lsr_normalize"),
        (lambda: C.classic_hardness(LINE_X[:3], LINE_Y), "same length"),
        (lambda: C.class_likelihood(LINE_X, LINE_Y, calibration="isotonic"), "calibration"),
        (lambda: C.class_likelihood(LINE_X[:5], [0, 0, 1, 1, 1], calibration="sigmoid"), "3"),
        (lambda: C.classic_hardness(LINE_X, LINE_Y, calibration="platt"), "calibration"),
        (lambda: C.usefulness(LINE_X, LINE_Y, include_self="no"), "include_self"),
        (
            lambda: C.classic_hardness(LINE_X, LINE_Y, usefulness_include_self=1),
            "usefulness_include_self",
        ),
        (lambda: C.overlap_closeness_min(LINE_X, [0] * 8), "Only one class"),
        (lambda: C.minority_value([[0, 1]]), "1-dimensional"),
        (lambda: C.pool_misclassification_rate([0, 1], [[0.2], [1.2]]), r"\[0, 1\]"),
        (lambda: C.pool_misclassification_rate([0, 1], [0.2, 0.7], t=2), "t must"),
        (lambda: C.pool_true_class_probability_loss([0, 1], [0.2]), "rows"),
        (lambda: C.pool_true_class_probability_loss([0, 1], np.ones((2, 0))), "no columns"),
        (lambda: C.pool_true_class_probability_loss(["a", "b"], [0.2, 0.3]), "pos_label"),
    ],
)
def test_invalid_inputs_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _pyhard_closeness(X, y):
    """PyHard's F2/F3/F4 written out literally from its published definition (binary y)."""
    n, d = X.shape
    dot = np.full((n, d), np.nan)
    for f in range(d):
        col = X[:, f]
        max_min = max(col[y == 0].min(), col[y == 1].min())
        min_max = min(col[y == 0].max(), col[y == 1].max())
        for i in range(n):
            num, den = min_max - col[i], min_max - max_min
            if den == 0 and num == 0:
                continue  # 0/0: NaN, skipped by pandas' min/mean/max
            do = num / den if den != 0 else math.copysign(math.inf, num)
            dot[i, f] = 1 / (1 + abs(0.5 - do))
    with warnings.catch_warnings():  # rows with no feature left: NaN, as in PyHard
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmin(dot, axis=1), np.nanmean(dot, axis=1), np.nanmax(dot, axis=1)


@SETTINGS
@given(datasets())
def test_overlap_closeness_matches_pyhard_definition(data):
    X, y = data
    keep = np.ptp(X, axis=0) > 0  # PyHard skips a constant feature (0/0 for every row)
    reference = _pyhard_closeness(X[:, keep], y)
    frame = C.classic_hardness(X, y, ["F2", "F3", "F4"], encode=False)
    for name, ref in zip(["F2", "F3", "F4"], reference, strict=True):
        ok = ~np.isnan(ref)  # rows with no feature left: PyHard NaN, metaeval 0
        assert_allclose(frame[name].to_numpy()[ok], ref[ok], rtol=1e-12)
        assert_array_equal(frame[name].to_numpy()[~ok], 0.0)
    assert np.all(frame["F2"] <= frame["F3"] + 1e-12)
    assert np.all(frame["F3"] <= frame["F4"] + 1e-12)
