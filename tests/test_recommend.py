"""Recommendation: conditions, loss curves and strategies, checked by hand and by brute force."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import integrate
from sklearn.metrics import accuracy_score, brier_score_loss, roc_auc_score

from metaeval.hardness import instance_cost_curve
from metaeval.ranking import a3r, average_ranks
from metaeval.recommend import (
    ActiveTesting,
    AverageRanking,
    Condition,
    CostLandmarking,
    KnnMetafeatures,
    KnowledgeBase,
    Oracle,
    Query,
    SingleBest,
    get_strategy,
    loss_at,
    loss_by_time,
    loss_curve,
    mean_interval_loss,
)

# ----------------------------------------------------------------------------- Condition


def test_condition_rejects_bad_input_naming_the_problem():
    with pytest.raises(ValueError, match="Unknown measure 'acc'"):
        Condition("acc")
    with pytest.raises(ValueError, match="hardness measures only"):
        Condition("accuracy", cost=0.3)
    with pytest.raises(ValueError, match="not both"):
        Condition("hardness:rate-driven", cost=0.3, cost_beta=(2, 2))
    with pytest.raises(ValueError, match=r"cost must be a cost proportion in \[0, 1\]"):
        Condition("hardness:rate-driven", cost=1.5)
    with pytest.raises(ValueError, match="time_weight"):
        Condition(time_weight=-1)
    with pytest.raises(ValueError, match="cost_beta"):
        Condition("hardness:score-driven", cost_beta="2")
    with pytest.raises(ValueError, match="> 0"):
        Condition("hardness:score-driven", cost_beta=(0, 1))
    with pytest.raises(ValueError, match="time_budget"):
        Condition(time_budget=0)


def test_condition_parses_fractions_and_describes_itself():
    cond = Condition("hardness:rate-driven", cost_beta="2,5", time_weight="1/64")
    assert cond.time_weight == 1 / 64
    assert cond.cost_beta == (2.0, 5.0)
    assert cond.label == "1 - rate-driven hardness under Beta(2, 5), P = 1/64"
    assert cond.to_dict()["cost_beta"] == [2.0, 5.0]
    assert Condition().label == "accuracy, P = 0"
    assert cond.replace(time_weight=0).time_weight == 0.0


def test_condition_success_matches_scikit_learn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 40)
    S = rng.random((40, 3))
    for measure, fn in (
        ("accuracy", lambda s: accuracy_score(y, (s > 0.5).astype(int))),
        ("auc", lambda s: roc_auc_score(y, s)),
        ("brier", lambda s: 1.0 - brier_score_loss(y, s)),
    ):
        got = Condition(measure).success(y, S)
        np.testing.assert_allclose(got, [fn(S[:, j]) for j in range(3)])


def test_point_cost_success_is_one_minus_the_literal_cost_at_c():
    # score-driven at c: the threshold is c; a class-0 instance scored above c costs 2c,
    # a class-1 instance scored at or below c costs 2(1 - c).
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    s = np.array([0.1, 0.35, 0.7, 0.2, 0.3, 0.6, 0.9])
    c = 0.3
    cost = np.where(y == 0, 2 * c * (s > c), 2 * (1 - c) * (s <= c))
    assert cost.tolist() == pytest.approx([0, 0.6, 0.6, 1.4, 1.4, 0, 0])
    got = Condition("hardness:score-driven", cost=c).success(y, s[:, None])
    assert got[0] == pytest.approx(1 - cost.mean())


def test_beta_cost_success_matches_numerical_integration_of_the_cost_curve():
    y = np.array([0, 0, 1, 1, 1])
    s = np.array([0.2, 0.6, 0.3, 0.3, 0.8])
    a, b = 2.0, 5.0
    from scipy.stats import beta

    def mean_cost(c):
        return instance_cost_curve(y, s, "rate-driven", c).mean()

    expected, _ = integrate.quad(lambda c: mean_cost(c) * beta.pdf(c, a, b), 0, 1, limit=200,
                                 points=[0.2, 0.4, 0.6, 0.8])
    got = Condition("hardness:rate-driven", cost_beta=(a, b)).success(y, s[:, None])
    assert got[0] == pytest.approx(1 - expected, abs=1e-6)


def test_a3r_values_are_the_pairwise_a3r_of_metaeval_ranking():
    success = np.array([0.9, 0.6])
    times = np.array([4.0, 0.5])
    for p in (0.0, 1 / 64, 1 / 8, 1.0):
        v = Condition(time_weight=p).a3r_values(success, times)
        frame = a3r(pd.DataFrame({"dataset": "d", "algorithm": ["A", "B"], "value": success}),
                    pd.DataFrame({"dataset": "d", "algorithm": ["A", "B"], "time": times}), p=p)
        score = dict(zip(frame["algorithm"], frame["score"], strict=True))
        assert score["A"] == pytest.approx(v[0] / v[1])
        assert score["B"] == pytest.approx(v[1] / v[0])


# ----------------------------------------------------------------------------- curves


def test_loss_curve_worked_example():
    # success 0.9 / 0.7 / 0.8, tested in the order 2nd, 3rd, 1st after 1 s of description
    loss, elapsed = loss_curve([0.9, 0.7, 0.8], [10.0, 1.0, 2.0], [1, 2, 0], overhead=1.0)
    assert loss.tolist() == pytest.approx([0.2, 0.1, 0.0])
    assert elapsed.tolist() == [2.0, 4.0, 14.0]
    assert loss_at(loss, 1) == pytest.approx(0.2)
    assert loss_at(loss, 5) == 0.0
    assert loss_by_time(loss, elapsed, 0.5, 1.9) == 0.5
    assert loss_by_time(loss, elapsed, 0.5, 4.0) == pytest.approx(0.1)


def test_mean_interval_loss_worked_example():
    # loss 0.2 (L0) until 1 s, 0.1 until 10 s, then 0; interval [0.1, 100] s spans
    # three decades: (0.2 * 1 + 0.1 * 1 + 0 * 1) / 3 = 0.1
    assert mean_interval_loss([0.1, 0.0], [1.0, 10.0], 0.2, (0.1, 100.0)) == pytest.approx(0.1)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 50.0), min_size=1, max_size=6),
    st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6),
    st.floats(0.0, 1.0),
    st.floats(0.01, 5.0),
    st.floats(1.5, 1e4),
)
def test_mean_interval_loss_equals_a_numerical_integral(times, losses, loss0, lo, width):
    elapsed = np.cumsum(times)
    loss = np.array(losses[: len(times)])
    hi = lo * width
    grid = np.exp(np.linspace(np.log(lo), np.log(hi), 20001))
    mid = np.sqrt(grid[:-1] * grid[1:])
    done = np.searchsorted(elapsed, mid, side="right")  # tests completed by each t
    values = np.concatenate([[loss0], loss])[done]
    expected = values.mean()  # equal steps in log t
    got = mean_interval_loss(loss, elapsed, loss0, (lo, hi))
    assert got == pytest.approx(expected, abs=2e-3)


def test_mean_interval_loss_rejects_a_bad_interval():
    with pytest.raises(ValueError, match="time_range"):
        mean_interval_loss([0.0], [1.0], 1.0, (10.0, 1.0))


# ----------------------------------------------------------------------------- strategies


def _kb(**extra):
    # d1 and d2 disagree about B and C; D is fast everywhere
    return KnowledgeBase(
        ["d1", "d2", "d3"], ["A", "B", "C", "D"],
        success=[[0.8, 0.9, 0.7, 0.85], [0.8, 0.7, 0.95, 0.6], [0.7, 0.8, 0.9, 0.75]],
        times=[[2.0, 8.0, 4.0, 0.5], [2.0, 8.0, 4.0, 0.5], [2.0, 8.0, 4.0, 0.5]],
        **extra,
    )


def _names(kb, ranking):
    return [kb.algorithms[j] for j in ranking.order]


def test_average_ranking_by_hand_and_as_metaeval_ranking():
    kb = _kb()
    # ranks: d1 B1 D2 A3 C4; d2 C1 A2 B3 D4; d3 C1 B2 D3 A4 -> A 3, B 2, C 2, D 3
    ranking = AverageRanking().rank(kb, Query("new", 10), Condition())
    assert _names(kb, ranking) == ["B", "C", "A", "D"]
    assert ranking.score.tolist() == [2.0, 2.0, 3.0, 3.0]
    expected = average_ranks(kb.long())["algorithm"].tolist()
    assert _names(kb, ranking) == expected


def test_average_ranking_with_time_weight_favours_the_fast_algorithm():
    kb = _kb()
    # P = 1/2: A3R = SR / sqrt(T): D (T = 0.5) gets 0.85 / 0.707 = 1.20 on d1, etc.
    ranking = AverageRanking().rank(kb, Query("new", 10), Condition(time_weight=0.5))
    assert _names(kb, ranking)[0] == "D"


def test_single_best_orders_by_mean_success():
    kb = _kb()
    # means: A 0.767, B 0.8, C 0.85, D 0.733
    assert _names(kb, SingleBest().rank(kb, Query("new", 10), Condition())) == ["C", "B", "A",
                                                                                "D"]


def test_oracle_orders_by_true_success_then_time():
    ranking = Oracle().rank_truth([0.8, 0.9, 0.9, 0.1], [1.0, 5.0, 2.0, 0.1])
    assert ranking.order.tolist() == [2, 1, 0, 3]
    with pytest.raises(ValueError, match="oracle"):
        Oracle().rank(_kb(), Query("new", 10), Condition())


def test_knn_metafeatures_uses_the_nearest_datasets_by_standardised_features():
    mf = pd.DataFrame({"f": [0.0, 10.0, 9.0], "g": [1.0, 1.0, 1.0]}, index=["d1", "d2", "d3"])
    kb = _kb(metafeatures=mf)
    query = Query("new", 10, metafeatures=pd.Series({"f": 9.5, "g": 1.0}))
    ranking = KnnMetafeatures(k=2).rank(kb, query, Condition())
    # f standardised on the training datasets: mean 19/3, sd sqrt(182/9) = 4.497, so
    # |9.5 - f| / 4.497 is d1 2.11, d2 0.111, d3 0.111; g is constant and left out
    assert ranking.drivers == ("d2", "d3")
    sub = kb.subset([False, True, True])
    expected = a3r(sub.long(), sub.long(sub.times, "time"), p=0.0)["algorithm"].tolist()
    # geometric means over d2, d3: A = B = sqrt(0.56), C = sqrt(0.855), D = sqrt(0.45);
    # A and B tie and keep label order
    assert _names(kb, ranking) == expected == ["C", "A", "B", "D"]


def test_cost_landmarking_uses_the_landmark_features():
    land = pd.DataFrame({"NB.success": [0.9, 0.5, 0.55]}, index=["d1", "d2", "d3"])
    kb = _kb(landmarks=land)
    query = Query("new", 10, landmarks=pd.Series({"NB.success": 0.88}), landmark_time=2.5)
    strategy = CostLandmarking(k=1)
    ranking = strategy.rank(kb, query, Condition())
    assert ranking.drivers == ("d1",)
    assert _names(kb, ranking) == ["B", "D", "A", "C"]
    assert strategy.overhead(query) == 2.5
    with pytest.raises(ValueError, match="landmark"):
        CostLandmarking().rank(_kb(), Query("new", 10), Condition())


def test_active_testing_worked_example():
    kb = _kb()
    truth = {0: (0.8, 1.0), 1: (0.7, 1.0), 2: (0.9, 1.0), 3: (0.95, 1.0)}
    calls = []

    def test(j):
        calls.append(j)
        return truth[j]

    ActiveTesting().run(kb, Query("new", 10), Condition(), test)
    # 1st: B, the top of the average ranking (B and C tie at 2, B first by label).
    # Against B, Delta P sums max(0, SR_k / SR_B - 1) over d1..d3 (weights 1):
    #   A: 0 + (0.8/0.7 - 1) + 0 = 0.143;  C: 0 + (0.95/0.7 - 1) + (0.9/0.8 - 1) = 0.482;
    #   D: 0 + 0 + 0 = 0  ->  2nd: C.
    # On the new dataset C (0.9) beats B (0.7): d1 disagrees, d2 and d3 agree -> w = (0, 1, 1).
    # Against C: A: 0 + 0 + 0; D: 0 + 0 + 0 -> no expected gain: average-ranking order, A then D.
    assert [kb.algorithms[j] for j in calls] == ["B", "C", "A", "D"]


def _reference_active_testing(success, times, p, truth_s, truth_t):
    """Active testing written out literally, loop by loop, from its description."""
    D, A = success.shape
    val = np.maximum(success, 1e-3) / times**p
    ranks = np.array([pd.Series(-val[d]).rank(method="average").to_numpy() for d in range(D)])
    mean_rank = ranks.mean(axis=0)
    ar = sorted(range(A), key=lambda j: (mean_rank[j], j))
    new = np.maximum(np.asarray(truth_s), 1e-3) / np.asarray(truth_t) ** p
    tested = [ar[0]]
    best = ar[0]
    while len(tested) < A:
        weights = []
        for d in range(D):
            agree = total = 0
            for x in range(len(tested)):
                for z in range(x + 1, len(tested)):
                    i, j = tested[x], tested[z]
                    total += 1
                    agree += np.sign(val[d, j] - val[d, i]) == np.sign(new[j] - new[i])
            weights.append(agree / total if total else 1.0)
        if sum(weights) == 0:
            weights = [1.0] * D
        candidates = [j for j in ar if j not in tested]
        gains = [sum(weights[d] * max(0.0, val[d, c] / val[d, best] - 1) for d in range(D))
                 for c in candidates]
        # equal gains (within rounding: 1e-9 of the largest) go to the average ranking
        top = max(gains)
        pick = next(c for c, g in zip(candidates, gains, strict=True)
                    if g >= top - 1e-9 * top) if top > 0 else candidates[0]
        tested.append(pick)
        if new[pick] > new[best]:
            best = pick
    return tested


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.0, 1 / 64, 0.5]))
@example(542, 0.0)  # two equal gains that rounding told apart (see the test below)
def test_active_testing_matches_a_literal_reference(seed, p):
    rng = np.random.default_rng(seed)
    D, A = 4, 5
    success = np.round(rng.uniform(0.5, 1.0, (D, A)), 2)
    times = np.round(rng.uniform(0.1, 10.0, (D, A)), 1)
    kb = KnowledgeBase([f"d{i}" for i in range(D)], [f"a{j}" for j in range(A)], success, times)
    truth_s = np.round(rng.uniform(0.5, 1.0, A), 2)
    truth_t = np.round(rng.uniform(0.1, 10.0, A), 1)
    calls = []

    def test(j):
        calls.append(j)
        return truth_s[j], truth_t[j]

    ActiveTesting().run(kb, Query("new", 10), Condition(time_weight=p), test)
    assert calls == _reference_active_testing(success, times, p, truth_s, truth_t)


def test_active_testing_breaks_equal_gains_by_the_average_ranking():
    # times all 1: A3R is the success rate. Mean ranks over d0..d3: a0 2.125, a1 2.25,
    # a2 2.625, a4 3.5, a3 4.5. Expected gains over a0, the first pick:
    #   a1: 0 + (0.87/0.83 - 1) + (0.87/0.83 - 1) + 0 = 0.08/0.83 = 0.0964
    #   a2: 0 + (0.91/0.83 - 1) + 0 + 0            = 0.08/0.83 = 0.0964
    # equal, though in floating point they differ in the last bit (which way depends on
    # the order of the sums): a1 goes first, as in the average ranking
    success = np.array([[0.99, 0.95, 0.51, 0.52, 0.77],
                        [0.83, 0.87, 0.91, 0.65, 0.85],
                        [0.83, 0.87, 0.73, 0.70, 0.54],
                        [0.84, 0.60, 0.84, 0.52, 0.66]])
    kb = KnowledgeBase([f"d{i}" for i in range(4)], [f"a{j}" for j in range(5)], success,
                       np.ones_like(success))
    ranking = ActiveTesting().rank(kb, Query("new", 10), Condition())
    assert ranking.order.tolist() == [0, 1, 2, 4, 3]
    np.testing.assert_allclose(ranking.score[1:3], 0.08 / 0.83, rtol=1e-12)
    calls = []

    def test(j):
        calls.append(j)
        return 0.9 if j == 0 else 0.5, 1.0  # a0 stays the best on the new dataset

    ActiveTesting().run(kb, Query("new", 10), Condition(), test)
    assert calls[:2] == [0, 1]


def test_get_strategy_names_every_strategy_and_refuses_unknown_ones():
    assert get_strategy("knn-metafeatures", k=3).k == 3
    with pytest.raises(ValueError, match="Unknown strategy 'best'"):
        get_strategy("best")
    with pytest.raises(ValueError, match="k must be a positive integer"):
        get_strategy("knn-metafeatures", k=0)


def test_knowledge_base_validates_its_matrices():
    with pytest.raises(ValueError, match="shape"):
        KnowledgeBase(["d1"], ["A", "B"], [[0.9]], [[1.0]])
    with pytest.raises(ValueError, match="finite"):
        KnowledgeBase(["d1"], ["A"], [[math.nan]], [[1.0]])
    with pytest.raises(ValueError, match="positive"):
        KnowledgeBase(["d1"], ["A"], [[0.9]], [[0.0]])
