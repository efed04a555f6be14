"""Worked examples and input validation for metaeval.hardness.

The worked examples use Table 1 of Prudêncio (2019), "Cost sensitive evaluation of
instance hardness in machine learning" (ECML PKDD 2019): 10 instances, 4 models. Labels: x1-x4 are
class 1 (the paper's negatives), x5-x10 class 0 (the paper's positives). Every expected
number below is derived by hand in the comment next to it.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from metaeval.hardness import (
    METHODS,
    class_cost_curve,
    class_hardness,
    instance_cost_curve,
    instance_hardness,
    instance_hardness_at,
    instance_hardness_by_method,
    pool_cost_curve,
    pool_hardness,
)

Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
#              m1    m2    m3    m4
S = np.array(
    [
        [0.70, 0.60, 0.00, 0.65],  # x1
        [0.80, 1.00, 1.00, 0.90],  # x2
        [0.80, 0.95, 0.93, 0.88],  # x3
        [0.70, 0.25, 0.91, 0.48],  # x4
        [0.80, 0.68, 0.78, 0.74],  # x5
        [0.75, 0.64, 0.83, 0.70],  # x6
        [0.10, 0.37, 0.78, 0.24],  # x7
        [0.55, 0.30, 0.95, 0.43],  # x8
        [0.80, 0.72, 1.00, 0.76],  # x9
        [0.15, 0.25, 0.87, 0.20],  # x10
    ]
)
M1 = S[:, 0]
X1, X2, X3, X4, X5, X6, X7, X8, X9, X10 = range(10)


# ---------------------------------------------------------------------------------------
# Prudêncio (2019), Table 1, model m1
# ---------------------------------------------------------------------------------------
# m1 sorted: .10 (x7) | .15 (x10) | .55 (x8) | .70 (x1, x4) | .75 (x6) | .80 (x2 x3 x5 x9)
# so R = 0.1, 0.2, 0.3, 0.5, 0.6, 1.0 and L = l/n = 0.1, 0.1, 0.1, 0.2, 0.1, 0.4.


def test_rate_driven_x6_m1_tied_interpolation_by_hand():
    # x6 (class 0): R(0.75) = 0.6, previous rate R(0.7) = 0.5, L = 0.1.
    # int_0^0.5 2c dc = 0.25; int_0.5^0.6 2c (0.6 - c)/0.1 dc
    #   = 20 [0.3 c^2 - c^3/3]_0.5^0.6 = 20 (0.036 - 0.0333...) = 0.05333...
    # total 0.30333... = R^2 + L(L/3 - R) = 0.36 + 0.1 (0.0333... - 0.6)
    h = instance_hardness(Y, M1, "rate-driven")
    assert h[X6] == pytest.approx(0.25 + 0.16 / 3, abs=1e-15)
    assert h[X6] == pytest.approx(0.36 + 0.1 * (0.1 / 3 - 0.6), abs=1e-15)


def test_rate_driven_x4_m1_tied_group_of_two_by_hand():
    # x4 (class 1): R(0.7) = 0.5, two instances score 0.7 so the previous rate is 0.3.
    # int_0.5^1 2(1 - c) dc = 0.25; int_0.3^0.5 2(1 - c)(c - 0.3)/0.2 dc
    #   = 10 int_0^0.2 (0.7 - u) u du = 10 (0.7 * 0.02 - 0.008/3) = 0.11333...
    # total 0.36333... = (1 - R)^2 + L(L/3 + 1 - R) = 0.25 + 0.2 (0.0666... + 0.5)
    h = instance_hardness(Y, M1, "rate-driven")
    assert h[X4] == pytest.approx(0.25 + 0.34 / 3, abs=1e-15)
    assert h[X1] == pytest.approx(h[X4], abs=1e-15)  # x1 shares x4's score and class


def test_rate_driven_m1_every_instance_by_hand():
    h = instance_hardness(Y, M1, "rate-driven")
    expected = [
        0.25 + 0.2 * (0.2 / 3 + 0.5),  # x1: R .5, L .2, class 1
        0.0 + 0.4 * (0.4 / 3 + 0.0),  # x2: R 1, L .4, class 1
        0.0 + 0.4 * (0.4 / 3 + 0.0),  # x3
        0.25 + 0.2 * (0.2 / 3 + 0.5),  # x4
        1.0 + 0.4 * (0.4 / 3 - 1.0),  # x5: R 1, L .4, class 0
        0.36 + 0.1 * (0.1 / 3 - 0.6),  # x6
        0.01 + 0.1 * (0.1 / 3 - 0.1),  # x7: R .1
        0.09 + 0.1 * (0.1 / 3 - 0.3),  # x8: R .3
        1.0 + 0.4 * (0.4 / 3 - 1.0),  # x9
        0.04 + 0.1 * (0.1 / 3 - 0.2),  # x10: R .2
    ]
    assert_allclose(h, expected, rtol=0, atol=1e-15)
    # ties="none" is the uncorrected R^2 / (1 - R)^2 of Melo & Prudêncio (2014)
    R = np.array([0.5, 1.0, 1.0, 0.5, 1.0, 0.6, 0.1, 0.3, 1.0, 0.2])
    expected_none = np.where(Y == 1, (1 - R) ** 2, R**2)
    assert_allclose(
        instance_hardness(Y, M1, "rate-driven", ties="none"), expected_none, atol=1e-15
    )


def test_rate_uniform_m1_by_hand():
    # class 0: R - L/2, class 1: 1 - R + L/2
    expected = [
        1 - 0.5 + 0.1,  # x1
        1 - 1.0 + 0.2,  # x2
        1 - 1.0 + 0.2,  # x3
        1 - 0.5 + 0.1,  # x4
        1.0 - 0.2,  # x5
        0.6 - 0.05,  # x6
        0.1 - 0.05,  # x7
        0.3 - 0.05,  # x8
        1.0 - 0.2,  # x9
        0.2 - 0.05,  # x10
    ]
    assert_allclose(instance_hardness(Y, M1, "rate-uniform"), expected, atol=1e-15)
    R = np.array([0.5, 1.0, 1.0, 0.5, 1.0, 0.6, 0.1, 0.3, 1.0, 0.2])
    assert_allclose(
        instance_hardness(Y, M1, "rate-uniform", ties="none"),
        np.where(Y == 1, 1 - R, R),
        atol=1e-15,
    )


def test_score_based_m1_by_hand():
    # score-fixed at t = 0.5: class 0 errs when s > 0.5 (x5, x6, x8, x9),
    # class 1 errs when s <= 0.5 (none)
    assert_array_equal(instance_hardness(Y, M1, "score-fixed"), [0, 0, 0, 0, 1, 1, 0, 1, 1, 0])
    # at t = 0.72 the class-0 x8 (0.55) becomes correct, the class-1 x1, x4 (0.70) err
    assert_array_equal(
        instance_hardness(Y, M1, "score-fixed", t=0.72), [1, 0, 0, 1, 1, 1, 0, 0, 1, 0]
    )
    # score-driven: (y - s)^2
    assert_allclose(
        instance_hardness(Y, M1, "score-driven"),
        [0.09, 0.04, 0.04, 0.09, 0.64, 0.5625, 0.01, 0.3025, 0.64, 0.0225],
        atol=1e-15,
    )
    # score-uniform: |y - s|
    assert_allclose(
        instance_hardness(Y, M1, "score-uniform"),
        [0.3, 0.2, 0.2, 0.3, 0.8, 0.75, 0.1, 0.55, 0.8, 0.15],
        atol=1e-15,
    )


def test_score_fixed_score_equal_to_threshold_is_class_0():
    # s == t is predicted class 0: correct for class 0, an error for class 1
    assert_array_equal(instance_hardness([0, 1], [0.5, 0.5], "score-fixed"), [0, 1])
    assert_array_equal(instance_hardness([0, 1], [0.3, 0.3], "score-fixed", t=0.3), [0, 1])


def test_rate_driven_cost_curves_of_figures_3_and_4():
    c = np.array([0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.8])
    curves = instance_cost_curve(Y, M1, "rate-driven", c)
    # Fig. 3, x6 (class 0): 2c below 0.5, 2c (0.6 - c)/0.1 on [0.5, 0.6], 0 above
    assert_allclose(curves[X6], [0.4, 0.6, 0.8, 1.0, 1.1 * 0.5, 0.0, 0.0], atol=1e-14)
    # Fig. 4, x4 (class 1): 0 below 0.3, 2(1 - c)(c - 0.3)/0.2 on [0.3, 0.5], 2(1 - c) above
    assert_allclose(curves[X4], [0.0, 0.0, 1.2 * 0.5, 1.0, 0.9, 0.8, 0.4], atol=1e-14)
    # score-driven x6 (s = 0.75): 2c while c < 0.75, then 0
    assert_allclose(
        instance_cost_curve(Y, M1, "score-driven", [0.5, 0.75, 0.8])[X6], [1.0, 0.0, 0.0]
    )
    # scalar c gives one value per instance
    at = instance_hardness_at(Y, M1, "rate-driven", 0.55)
    assert at.shape == (10,)
    assert at[X6] == pytest.approx(0.55)
    assert_allclose(at, curves[:, 4])


def test_pool_of_four_models_by_hand_and_the_papers_reading():
    # score-fixed pool hardness = fraction of models that misclassify
    # x1 (class 1): only m3 (0.00 <= 0.5) errs -> 1/4; x4 (class 1): m2 0.25, m4 0.48 -> 2/4
    sf = pool_hardness(Y, S, "score-fixed")
    assert sf[X1] == 0.25
    assert sf[X4] == 0.5
    # x5, x6, x9 (class 0) are misclassified by all four models (every score > 0.5)
    assert_array_equal(sf[[X5, X6, X9]], [1, 1, 1])
    # m3's ties: 0.78 (x5, x7) and 1.00 (x2, x9); x9 (class 0) has R = 1, L = 0.2:
    # 1 + 0.2 (0.2/3 - 1) = 0.81333...
    rd = instance_hardness(Y, S, "rate-driven")
    assert rd[X9, 2] == pytest.approx(1 + 0.2 * (0.2 / 3 - 1), abs=1e-15)
    assert_allclose(pool_hardness(Y, S, "rate-driven"), rd.mean(axis=1), atol=0)
    # "The hardest negative instances are x1 and x4. In particular, x1 is even harder to
    # rank, given the RD hardness" (Prudêncio 2019, Sect. 4).
    rd_pool = pool_hardness(Y, S, "rate-driven")
    negatives = np.argsort(rd_pool[:4])[::-1]
    assert list(negatives[:2]) == [X1, X4]
    # "By assuming SF and SD, the positive class is relatively more difficult than the
    # negative class. A more balanced difficulty is observed by assuming the RD method."
    gap = {m: np.subtract(*class_hardness(Y, S, m).mean(axis=1)) for m in METHODS}
    assert gap["score-fixed"] > 0 and gap["score-driven"] > 0
    assert abs(gap["rate-driven"]) < min(gap["score-fixed"], gap["score-driven"])


def test_class_hardness_by_hand_and_shapes():
    # m1, score-fixed: class 0 errs on 4 of 6, class 1 on none
    assert_allclose(class_hardness(Y, M1, "score-fixed"), [4 / 6, 0.0])
    ch = class_hardness(Y, S, "score-driven")
    assert ch.shape == (2, 4)
    h = instance_hardness(Y, S, "score-driven")
    assert_allclose(ch[0], h[Y == 0].mean(axis=0))
    assert_allclose(ch[1], h[Y == 1].mean(axis=0))


def test_class_cost_curve_and_pool_cost_curve_shapes():
    c = np.linspace(0, 1, 5)
    assert class_cost_curve(Y, M1, "rate-driven", c).shape == (2, 5)
    assert class_cost_curve(Y, S, "rate-driven", c).shape == (2, 4, 5)
    assert class_cost_curve(Y, S, "rate-driven", 0.5).shape == (2, 4)
    assert pool_cost_curve(Y, S, "rate-driven", c).shape == (10, 5)
    assert pool_cost_curve(Y, S, "rate-driven", 0.5).shape == (10,)
    assert instance_cost_curve(Y, S, "rate-driven", c).shape == (10, 4, 5)
    # c = 0: the desired rate is 0, so every instance is predicted class 1; class 0 errs
    # at cost 2c = 0 and class 1 is right. c = 1: everything is predicted class 0; class 1
    # errs at cost 2(1 - c) = 0 and class 0 is right. Both class curves are 0 at the ends.
    assert_allclose(class_cost_curve(Y, M1, "rate-driven", [0.0, 1.0]), 0.0)


def test_labels_and_pos_label():
    labels = np.where(Y == 1, "neg", "pos")  # the paper's naming: class 1 = negative
    for method in METHODS:
        assert_array_equal(
            instance_hardness(labels, S, method, pos_label="neg"),
            instance_hardness(Y, S, method),
        )
    # swapping pos_label swaps the classes: score-driven becomes s^2 <-> (1 - s)^2
    assert_allclose(
        instance_hardness(Y, M1, "score-driven", pos_label=0),
        np.where(Y == 0, (1 - M1) ** 2, M1**2),
    )


def test_single_class_is_fine_per_instance():
    # R is over the instances given; all class 0
    h = instance_hardness([0, 0, 0, 0], [0.1, 0.2, 0.2, 0.9], "rate-driven")
    # R = .25, .75, .75, 1; L = .25, .5, .5, .25
    assert_allclose(
        h,
        [
            0.0625 + 0.25 * (0.25 / 3 - 0.25),
            0.5625 + 0.5 * (0.5 / 3 - 0.75),
            0.5625 + 0.5 * (0.5 / 3 - 0.75),
            1.0 + 0.25 * (0.25 / 3 - 1.0),
        ],
        atol=1e-15,
    )
    with pytest.raises(ValueError, match="class 1 .* is absent"):
        class_hardness([0, 0, 0], [0.1, 0.2, 0.3], "rate-driven")


def test_rate_based_accept_any_real_scores_and_score_based_do_not():
    s = np.array([-3.0, 10.0, 2.5, 2.5])
    y = np.array([0, 1, 0, 1])
    for method in ("rate-driven", "rate-uniform"):
        assert_allclose(
            instance_hardness(y, s, method), instance_hardness(y, [0.0, 1.0, 0.5, 0.5], method)
        )
    for method in ("score-fixed", "score-driven", "score-uniform"):
        with pytest.raises(ValueError, match=r"\[0, 1\].*rate-based methods accept"):
            instance_hardness(y, s, method)


def test_by_method_matches_single_calls():
    out = instance_hardness_by_method(Y, S, ties="none", cost_distribution=(2, 3))
    assert list(out) == list(METHODS)
    for method in METHODS:
        assert_array_equal(
            out[method],
            instance_hardness(Y, S, method, ties="none", cost_distribution=(2, 3)),
        )
    assert list(instance_hardness_by_method(Y, M1, "rate-driven")) == ["rate-driven"]


def test_beta_uniform_reproduces_the_closed_forms_on_table_1():
    for method in METHODS:
        for ties in ("interpolate", "none"):
            assert_allclose(
                instance_hardness(Y, S, method, ties=ties, cost_distribution=(1, 1)),
                instance_hardness(Y, S, method, ties=ties),
                rtol=0,
                atol=1e-12,
            )


def test_beta_score_fixed_weights_errors_by_expected_cost():
    # Beta(3, 1): E[c] = 3/4; a class-0 error costs 2E[c] = 1.5, a class-1 error 0.5
    h = instance_hardness([0, 1, 0], [0.9, 0.1, 0.1], "score-fixed", cost_distribution=(3, 1))
    assert_allclose(h, [1.5, 0.5, 0.0])
    # score-driven, class 0, s = 0.5, Beta(2, 1) (density 2c):
    # int_0^0.5 2c * 2c dc = 4/3 * 0.125 = 1/6
    h = instance_hardness([0], [0.5], "score-driven", cost_distribution=(2, 1))
    assert h[0] == pytest.approx(1 / 6, abs=1e-15)


# ---------------------------------------------------------------------------------------
# input validation: every bad input raises a ValueError that names the problem
# ---------------------------------------------------------------------------------------

GOOD_Y = [0, 1, 0, 1]
GOOD_S = [0.1, 0.4, 0.6, 0.9]

BAD_CALLS = [
    ("method", lambda: instance_hardness(GOOD_Y, GOOD_S, "RD"), "not a threshold choice"),
    ("method None", lambda: instance_hardness(GOOD_Y, GOOD_S, None), "not a threshold"),
    (
        "ties",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "rate-driven", ties="average"),
        "ties='average'",
    ),
    (
        "t > 1",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-fixed", t=1.5),
        r"t must lie in \[0, 1\]",
    ),
    (
        "t NaN",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-fixed", t=float("nan")),
        r"t must lie in \[0, 1\]",
    ),
    (
        "t str",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-fixed", t="0.5"),
        "t must be a real number",
    ),
    (
        "beta a = 0",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-driven", cost_distribution=(0, 1)),
        "Beta parameter a must be finite and > 0",
    ),
    (
        "beta b < 0",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-driven", cost_distribution=(1, -2)),
        "Beta parameter b must be finite and > 0",
    ),
    (
        "beta inf",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-driven", cost_distribution=(1, np.inf)),
        "Beta parameter b must be finite",
    ),
    (
        "beta length",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-driven", cost_distribution=(1,)),
        "pair .* got 1 values",
    ),
    (
        "beta str",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-driven", cost_distribution="beta"),
        "cost_distribution must be None",
    ),
    (
        "beta bool",
        lambda: instance_hardness(GOOD_Y, GOOD_S, "score-driven", cost_distribution=(True, 1)),
        "Beta parameter a must be a real number",
    ),
    (
        "three labels",
        lambda: instance_hardness([0, 1, 2, 1], GOOD_S, "score-driven"),
        "3 distinct labels",
    ),
    (
        "pos_label",
        lambda: instance_hardness(["a", "b", "a", "b"], GOOD_S, "score-driven"),
        "pos_label=1 is not one of the labels",
    ),
    (
        "NaN label",
        lambda: instance_hardness([0, 1, np.nan, 1], GOOD_S, "score-driven"),
        "NaN or infinite labels",
    ),
    ("lengths", lambda: instance_hardness([0, 1, 0], GOOD_S, "rate-driven"), "same length"),
    (
        "NaN score",
        lambda: instance_hardness(GOOD_Y, [0.1, np.nan, 0.6, 0.9], "rate-driven"),
        "NaN or infinite",
    ),
    (
        "inf score",
        lambda: instance_hardness(GOOD_Y, [0.1, np.inf, 0.6, 0.9], "rate-uniform"),
        "NaN or infinite",
    ),
    (
        "score range",
        lambda: instance_hardness(GOOD_Y, [0.1, 1.2, 0.6, 0.9], "score-driven"),
        r"must lie in \[0, 1\]",
    ),
    (
        "3-D scores",
        lambda: instance_hardness(GOOD_Y, np.zeros((4, 2, 2)), "rate-driven"),
        "1- or 2-dimensional",
    ),
    (
        "no model",
        lambda: instance_hardness(GOOD_Y, np.zeros((4, 0)), "rate-driven"),
        "at least one model",
    ),
    (
        "text scores",
        lambda: instance_hardness(GOOD_Y, ["a", "b", "c", "d"], "rate-driven"),
        "numeric",
    ),
    ("empty", lambda: instance_hardness([], [], "rate-driven"), "empty"),
    ("2-D y", lambda: instance_hardness([[0, 1]], [[0.1, 0.2]], "rate-driven"), "1-dimensional"),
    (
        "c > 1",
        lambda: instance_cost_curve(GOOD_Y, GOOD_S, "rate-driven", [0.2, 1.2]),
        r"c must lie in \[0, 1\]",
    ),
    (
        "c NaN",
        lambda: instance_cost_curve(GOOD_Y, GOOD_S, "rate-driven", [np.nan]),
        "c contains NaN",
    ),
    (
        "c 2-D",
        lambda: instance_cost_curve(GOOD_Y, GOOD_S, "rate-driven", [[0.2]]),
        "scalar or 1-dimensional",
    ),
    (
        "c not scalar",
        lambda: instance_hardness_at(GOOD_Y, GOOD_S, "rate-driven", [0.2, 0.3]),
        "single cost proportion",
    ),
    (
        "class absent",
        lambda: class_hardness([1, 1, 1, 1], GOOD_S, "rate-driven"),
        "class 0 .* is absent from y",
    ),
    (
        "class absent curve",
        lambda: class_cost_curve([0, 0, 0, 0], GOOD_S, "score-driven", [0.5]),
        "class 1 .* is absent from y",
    ),
    ("no methods", lambda: instance_hardness_by_method(GOOD_Y, GOOD_S, []), "methods is empty"),
    (
        "bad method in list",
        lambda: instance_hardness_by_method(GOOD_Y, GOOD_S, ["rate-driven", "auc"]),
        "'auc' is not a threshold choice",
    ),
    (
        "pool 3-D",
        lambda: pool_hardness(GOOD_Y, np.zeros((4, 1, 1)), "rate-driven"),
        "S must be 1- or 2-dimensional",
    ),
]


@pytest.mark.parametrize("call, match", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_bad_inputs_raise_value_error_naming_the_problem(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_methods_are_the_five_canonical_names():
    assert METHODS == (
        "score-fixed",
        "score-driven",
        "rate-driven",
        "score-uniform",
        "rate-uniform",
    )
