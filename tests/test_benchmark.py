"""Tests for metaeval.benchmark (the analytics of the algorithm-benchmark web page)."""

from __future__ import annotations

import itertools
import math
import re
import sys
import types

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from metaeval.benchmark import (
    HARDNESS_METRICS,
    METRICS,
    SKLEARN_METRICS,
    bootstrap_stability,
    compute_metrics,
    greedy_portfolio,
    metric_disagreement,
    overall_value,
    portfolio_value,
    random_paper_abstract,
    runtime_score,
    value_captured,
    value_heatmap,
)
from metaeval.benchmark._bootstrap import (
    draw_indices,
    independent_counts,
    nested_counts,
    pair_differences,
)
from metaeval.benchmark._portfolio import coverage, greedy_order
from metaeval.benchmark._value import _capture


def long_frame(values, metric="accuracy", dataset="d"):
    """One (dataset, metric) cell: algorithms A, B, C, ... with the given values."""
    names = [chr(ord("A") + i) for i in range(len(values))]
    return pd.DataFrame({"dataset": dataset, "algorithm": names, "metric": metric,
                         "value": values})


def random_metrics(rng, n_datasets, n_metrics, n_algorithms, names=None):
    names = names or [f"m{j}" for j in range(n_metrics)]
    rows = [
        (f"d{i}", f"a{a}", names[j], rng.random())
        for i in range(n_datasets) for j in range(n_metrics) for a in range(n_algorithms)
    ]
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "metric", "value"])


HIB = {f"m{j}": True for j in range(20)}

# --------------------------------------------------------------------- registry


def test_registry_has_ten_sklearn_metrics_and_five_hardness_losses():
    assert SKLEARN_METRICS == ("accuracy", "balanced_accuracy", "f1", "mcc", "precision",
                               "recall", "auc", "average_precision", "brier", "log_loss")
    assert HARDNESS_METRICS == ("hardness:score-fixed", "hardness:score-driven",
                                "hardness:rate-driven", "hardness:score-uniform",
                                "hardness:rate-uniform")
    losses = {m for m, spec in METRICS.items() if not spec.higher_is_better}
    assert losses == {"brier", "log_loss", *HARDNESS_METRICS}
    assert METRICS["auc"].implementation is skm.roc_auc_score


# -------------------------------------------------------------- compute_metrics


def test_compute_metrics_worked_example():
    # y = 0 0 1 1, s = .1 .6 .4 .9; predictions (s > .5) = 0 1 0 1
    # accuracy 2/4; precision 1/2 (one of two predicted 1 is right); recall 1/2
    # AUC: class-1 scores .4, .9 vs class-0 .1, .6: .4>.1, .4<.6, .9>.1, .9>.6 -> 3/4
    # Brier: (.1^2 + .6^2 + .6^2 + .1^2) / 4 = .74 / 4 = .185
    scores = pd.DataFrame({"dataset": "toy", "algorithm": "A",
                           "y": [0, 0, 1, 1], "score": [0.1, 0.6, 0.4, 0.9]})
    out = compute_metrics(scores, metrics=["accuracy", "precision", "recall", "auc", "brier"])
    got = dict(zip(out["metric"], out["value"], strict=True))
    assert got == pytest.approx({"accuracy": 0.5, "precision": 0.5, "recall": 0.5,
                                 "auc": 0.75, "brier": 0.185})
    assert list(out.columns) == ["dataset", "algorithm", "metric", "value"]


def test_threshold_convention_score_equal_to_t_is_class_0():
    # s = t = 0.5 predicts class 0 for both: accuracy 1/2, no predicted class 1
    scores = pd.DataFrame({"dataset": "d", "algorithm": "A", "y": [0, 1], "score": [0.5, 0.5]})
    out = compute_metrics(scores, metrics=["accuracy", "precision", "recall", "f1"])
    assert out["value"].tolist() == [0.5, 0.0, 0.0, 0.0]  # zero_division=0
    out = compute_metrics(scores, metrics=["accuracy"], threshold=0.4)
    assert out["value"].tolist() == [0.5]  # now both predicted class 1


def test_compute_metrics_matches_sklearn_per_group_and_mean_over_repeats():
    rng = np.random.default_rng(3)
    rows = []
    for d, n in (("d1", 40), ("d2", 25)):
        y = rng.integers(0, 2, n)
        for a in ("A", "B"):
            for r in range(3):
                s = np.clip(0.5 * y + 0.6 * rng.random(n) - 0.05, 0, 1)
                s[:3] = [0.0, 1.0, 0.5]
                rows.append(pd.DataFrame({"dataset": d, "algorithm": a, "repeat": r,
                                          "fold": np.arange(n) % 5, "y": y, "score": s}))
    scores = pd.concat(rows, ignore_index=True)
    names = list(SKLEARN_METRICS)
    out = compute_metrics(scores, metrics=names)
    assert len(out) == 2 * 2 * 10
    for (d, a), g in scores.groupby(["dataset", "algorithm"]):
        per_repeat = []
        for _, gr in g.groupby("repeat"):
            y, s = gr["y"].to_numpy(), gr["score"].to_numpy()
            p = (s > 0.5).astype(int)
            per_repeat.append([
                skm.accuracy_score(y, p), skm.balanced_accuracy_score(y, p),
                skm.f1_score(y, p, zero_division=0), skm.matthews_corrcoef(y, p),
                skm.precision_score(y, p, zero_division=0),
                skm.recall_score(y, p, zero_division=0), skm.roc_auc_score(y, s),
                skm.average_precision_score(y, s), skm.brier_score_loss(y, s),
                skm.log_loss(y, s, labels=[0, 1]),
            ])
        expected = np.mean(per_repeat, axis=0)
        got = out[(out.dataset == d) & (out.algorithm == a)].set_index("metric")["value"]
        np.testing.assert_allclose(got.loc[names].to_numpy(), expected, rtol=1e-12)


def test_compute_metrics_per_fold_keeps_repeat_and_fold():
    y = np.array([0, 1] * 6)
    scores = pd.DataFrame({"dataset": "d", "algorithm": "A", "repeat": 0,
                           "fold": np.repeat([0, 1, 2], 4), "y": y,
                           "score": np.linspace(0, 1, 12)})
    out = compute_metrics(scores, metrics=["accuracy", "auc"], level="fold")
    assert list(out.columns) == ["dataset", "algorithm", "repeat", "fold", "metric", "value"]
    assert len(out) == 3 * 2
    first = scores[scores.fold == 0]
    assert out.iloc[1]["value"] == pytest.approx(skm.roc_auc_score(first.y, first.score))


def test_degenerate_one_class_and_clipped_log_loss():
    # one class present: AUC and average precision undefined -> NaN
    scores = pd.DataFrame({"dataset": "d", "algorithm": "A", "y": [1, 1], "score": [0.0, 0.8]})
    out = compute_metrics(scores, metrics=["auc", "average_precision", "log_loss", "mcc"])
    got = dict(zip(out["metric"], out["value"], strict=True))
    assert math.isnan(got["auc"]) and math.isnan(got["average_precision"])
    # log loss: score 0 on a class-1 instance is clipped to eps: (-ln eps - ln .8) / 2
    eps = np.finfo(np.float64).eps
    assert got["log_loss"] == pytest.approx((-math.log(eps) - math.log(0.8)) / 2)
    assert got["mcc"] == 0.0  # undefined denominator -> 0 (sklearn's rule)


def test_compute_metrics_pos_label_and_validation():
    scores = pd.DataFrame({"dataset": "d", "algorithm": "A", "y": ["no", "yes", "yes"],
                           "score": [0.2, 0.7, 0.4]})
    out = compute_metrics(scores, metrics=["recall"], pos_label="yes")
    assert out["value"].tolist() == [0.5]  # one of the two "yes" has s > .5
    with pytest.raises(ValueError, match="pos_label"):
        compute_metrics(scores, metrics=["recall"])
    with pytest.raises(ValueError, match="unknown"):
        compute_metrics(scores, metrics=["kappa"], pos_label="yes")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        compute_metrics(scores.assign(score=[0.2, 1.5, 0.1]), pos_label="yes")
    with pytest.raises(ValueError, match="lacks"):
        compute_metrics(scores.drop(columns="score"), pos_label="yes")
    with pytest.raises(ValueError, match="fold"):
        compute_metrics(scores, metrics=["recall"], pos_label="yes", level="fold")
    with pytest.raises(ValueError, match="threshold"):
        compute_metrics(scores, metrics=["recall"], pos_label="yes", threshold="0.5")


def test_hardness_metrics_are_mean_instance_hardness(monkeypatch):
    calls = []

    def fake(y, s, method, *, t=0.5):
        calls.append((method, t))
        return np.abs(np.asarray(y) - np.asarray(s))  # an absolute-error "hardness"

    monkeypatch.setitem(sys.modules, "metaeval.hardness",
                        types.SimpleNamespace(instance_hardness=fake))
    scores = pd.DataFrame({"dataset": "d", "algorithm": "A", "y": [0, 1, 1],
                           "score": [0.2, 0.9, 0.3]})
    out = compute_metrics(scores, metrics=list(HARDNESS_METRICS), threshold=0.4)
    # mean |y - s| = (.2 + .1 + .7) / 3 = 1/3 under every method
    np.testing.assert_allclose(out["value"], 1 / 3)
    assert calls == [(m.split(":")[1], 0.4) for m in HARDNESS_METRICS]


def test_hardness_metrics_with_the_real_module():
    from metaeval.hardness import METHODS, instance_hardness

    assert tuple(f"hardness:{m}" for m in METHODS) == HARDNESS_METRICS
    y, s = np.array([0, 1, 1, 0]), np.array([0.2, 0.9, 0.3, 0.6])
    expected = [float(np.mean(instance_hardness(y, s, m.split(":")[1])))
                for m in HARDNESS_METRICS]
    out = compute_metrics(pd.DataFrame({"dataset": "d", "algorithm": "A", "y": y, "score": s}))
    got = out.set_index("metric")["value"]
    np.testing.assert_allclose(got.loc[list(HARDNESS_METRICS)], expected)
    # Melo & Prudêncio (2014): score-fixed hardness is the 0/1 loss, score-driven hardness
    # the Brier score
    assert got["hardness:score-fixed"] == pytest.approx(1 - got["accuracy"])
    assert got["hardness:score-driven"] == pytest.approx(got["brier"])


# --------------------------------------------------------------- value captured


def test_value_captured_worked_example_four_algorithms():
    # values .6 .7 .8 1.0; Q1 (linear) at position .25 * (4 - 1) = .75 between
    # .6 and .7: Q1 = .6 + .75 * .1 = .675; max = 1.0; range = .325
    # A: .6 < Q1 -> 0;  B: (.7 - .675) / .325 = 7.6923%;  C: .125 / .325 = 38.4615%;  D: 100
    out = value_captured(long_frame([0.6, 0.7, 0.8, 1.0]))
    np.testing.assert_allclose(out["value"], [0.0, 100 * 0.025 / 0.325, 100 * 0.125 / 0.325,
                                              100.0])


def test_value_captured_flips_losses():
    # Brier .4 .3 .2 0 is, negated, -.4 -.3 -.2 0: the accuracies above shifted by -1
    # (an increasing affine map), so the value captured is the same
    acc = value_captured(long_frame([0.6, 0.7, 0.8, 1.0]))["value"]
    brier = value_captured(long_frame([0.4, 0.3, 0.2, 0.0], metric="brier"))["value"]
    np.testing.assert_allclose(brier, acc)
    as_gain = value_captured(long_frame([0.4, 0.3, 0.2, 0.0], metric="x"),
                             higher_is_better={"x": True})["value"]
    # read as a gain instead: sorted 0 .2 .3 .4, Q1 = 0 + .75 * .2 = .15, range .4 - .15 = .25
    # -> .4: 100, .3: .15 / .25 = 60%, .2: .05 / .25 = 20%, 0: clipped to 0
    np.testing.assert_allclose(as_gain, [100.0, 60.0, 20.0, 0.0])


def test_value_captured_ties():
    # all tie: Q1 = max -> every algorithm 100
    assert value_captured(long_frame([0.7] * 4))["value"].tolist() == [100.0] * 4
    # 5 algorithms, top four tie: Q1 at position .25 * 4 = 1 -> the second smallest = .9 = max
    out = value_captured(long_frame([0.5, 0.9, 0.9, 0.9, 0.9]))["value"].tolist()
    assert out == [0.0, 100.0, 100.0, 100.0, 100.0]
    # one algorithm alone: it is the best -> 100
    assert value_captured(long_frame([0.3]))["value"].tolist() == [100.0]


def _reference_capture(values):
    """Plain-Python value captured for one cell (higher is better)."""
    v = sorted(values)
    pos = 0.25 * (len(v) - 1)
    lo = math.floor(pos)
    q1 = v[lo] + (pos - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])
    best = v[-1]
    if best - q1 <= 1e-12 * max(1.0, abs(best)):
        return [100.0 if x >= q1 - 1e-12 * max(1.0, abs(best)) else 0.0 for x in values]
    return [max(0.0, 100.0 * (x - q1) / (best - q1)) for x in values]


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 7)),
              elements=st.sampled_from([0.0, 0.25, 0.5, 0.6, 0.75, 1.0])
              | st.floats(0, 1, allow_subnormal=False)))
def test_value_captured_matches_reference_and_properties(X):
    D, M, A = X.shape
    frame = pd.DataFrame(
        [(f"d{i}", f"a{a}", f"m{j}", X[i, j, a])
         for i in range(D) for j in range(M) for a in range(A)],
        columns=["dataset", "algorithm", "metric", "value"])
    out = value_captured(frame, higher_is_better=HIB)
    V = out["value"].to_numpy().reshape(D, M, A)
    for i, j in itertools.product(range(D), range(M)):
        np.testing.assert_allclose(V[i, j], _reference_capture(list(X[i, j])), atol=1e-9)
        assert V[i, j].max() == 100.0  # the best algorithm captures everything
    assert ((V >= 0) & (V <= 100)).all()
    # invariant under an increasing affine map; a loss of -x equals a gain of x. Except
    # where a cell's best is within the tie tolerance of its first quartile (1e-12 of the
    # values' magnitude, at least 1e-12): a map that changes the magnitude can move a gap
    # of about 1e-12 across it (X = [0, 1.5e-12]: 0 and 100, mapped by 3x + 7 a tie)
    lower = np.quantile(X, 0.25, axis=-1, method="linear")
    gap = X.max(axis=-1) - lower
    clear = np.repeat(((gap == 0) | (gap > 1e-10)).reshape(-1), A)
    again = value_captured(frame.assign(value=3 * frame["value"] + 7), higher_is_better=HIB)
    np.testing.assert_allclose(again["value"][clear], out["value"][clear], atol=1e-7)
    flipped = value_captured(frame.assign(value=-frame["value"]),
                             higher_is_better={f"m{j}": False for j in range(M)})
    np.testing.assert_allclose(flipped["value"][clear], out["value"][clear], atol=1e-9)


def test_value_captured_drops_nan_and_validates():
    frame = pd.concat([long_frame([0.6, 0.7, 0.8, 1.0]),
                       long_frame([np.nan] * 4, metric="auc")], ignore_index=True)
    out = value_captured(frame)
    assert len(out) == 4 and set(out["metric"]) == {"accuracy"}
    with pytest.raises(ValueError, match="more than one row"):
        value_captured(pd.concat([long_frame([0.1, 0.2])] * 2))
    with pytest.raises(ValueError, match="higher_is_better"):
        value_captured(long_frame([0.1, 0.2], metric="mystery"))
    with pytest.raises(ValueError, match="numeric"):
        value_captured(long_frame(["a", "b"]))


def test_overall_value_and_heatmaps():
    rng = np.random.default_rng(0)
    frame = random_metrics(rng, 3, 2, 4)
    vc = value_captured(frame, higher_is_better=HIB)
    overall = overall_value(vc)
    expected = vc.groupby("algorithm")["value"].mean()
    assert overall["score"].is_monotonic_decreasing
    np.testing.assert_allclose(overall.set_index("algorithm")["score"].loc[expected.index],
                               expected)
    assert overall["rank"].tolist() == [1.0, 2.0, 3.0, 4.0]
    by_d = value_heatmap(vc, by="dataset")
    by_m = value_heatmap(vc, by="metric")
    assert by_d.index.tolist() == overall["algorithm"].tolist()
    assert by_d.shape == (4, 3) and by_m.shape == (4, 2)
    a, d = "a2", "d1"
    assert by_d.loc[a, d] == pytest.approx(vc[(vc.algorithm == a) & (vc.dataset == d)]
                                           ["value"].mean())
    # every cell has the same number of metrics, so the means of rows agree with overall
    np.testing.assert_allclose(by_d.mean(axis=1), overall["score"])
    np.testing.assert_allclose(by_m.mean(axis=1), overall["score"])
    with pytest.raises(ValueError, match="by"):
        value_heatmap(vc, by="fold")


def test_overall_value_ties_share_average_rank():
    vc = pd.DataFrame({"dataset": "d", "metric": "m", "algorithm": ["A", "B", "C"],
                       "value": [50.0, 100.0, 50.0]})
    out = overall_value(vc)
    assert out["algorithm"].tolist() == ["B", "A", "C"]
    assert out["rank"].tolist() == [1.0, 2.5, 2.5]


# ---------------------------------------------------------------- runtime score


def test_runtime_score_web_page_example_and_selection():
    # the web page: fastest 2 minutes, another 8 minutes: log2(8 / 2) = 2 (its prose says
    # "a score of three", which contradicts its own formula; the formula is the spec)
    times = pd.DataFrame({"dataset": "d", "algorithm": ["fast", "slow"], "time": [120., 480.]})
    assert runtime_score(times).set_index("algorithm")["score"].to_dict() == {"fast": 0.0,
                                                                            "slow": 2.0}
    # three datasets; medians over (A, B, C): big 10, mid 4, small 1 -> n_slowest=2 uses big, mid
    rows = {"big": (10, 10, 80), "mid": (1, 4, 4), "small": (1, 1, 1)}
    times = pd.DataFrame([(d, a, t) for d, ts in rows.items() for a, t in zip("ABC", ts,
                                                                              strict=True)],
                         columns=["dataset", "algorithm", "time"])
    out = runtime_score(times, n_slowest=2)
    assert out.attrs["datasets"] == ["big", "mid"]
    # A: (0 + 0)/2 = 0; B: (0 + 2)/2 = 1; C: (3 + 2)/2 = 2.5
    assert out["algorithm"].tolist() == ["A", "B", "C"]
    np.testing.assert_allclose(out["score"], [0.0, 1.0, 2.5])
    # by max: big 80, mid 4, small 1 -> same two; fewer than 20 datasets -> all three
    assert runtime_score(times, n_slowest=2, slowest_by="max").attrs["datasets"] == ["big",
                                                                                    "mid"]
    assert len(runtime_score(times).attrs["datasets"]) == 3
    with pytest.raises(ValueError, match="positive"):
        runtime_score(times.assign(time=0.0))
    with pytest.raises(ValueError, match="n_slowest"):
        runtime_score(times, n_slowest=0)
    with pytest.raises(ValueError, match="more than one row"):
        runtime_score(pd.concat([times, times]))


def test_runtime_score_median_versus_max_choose_differently():
    # 'spiky': one algorithm very slow (max 100, median 1); 'even': all 5 (max 5, median 5)
    times = pd.DataFrame({"dataset": ["spiky"] * 3 + ["even"] * 3, "algorithm": list("ABC") * 2,
                          "time": [1, 1, 100, 5, 5, 5]})
    assert runtime_score(times, n_slowest=1).attrs["datasets"] == ["even"]
    assert runtime_score(times, n_slowest=1, slowest_by="max").attrs["datasets"] == ["spiky"]


# ----------------------------------------------------------- metric disagreement


def _reference_disagreement(frame, k, hib):
    """Loop over datasets, pairs and metrics."""
    err, agree, n = {}, 0, 0
    metrics = list(pd.unique(frame["metric"]))
    algs = list(pd.unique(frame["algorithm"]))
    val = frame.set_index(["dataset", "metric", "algorithm"])["value"]
    for d in pd.unique(frame["dataset"]):
        for a, b in itertools.combinations(algs, 2):
            n += 1
            v = {}
            for m in metrics:
                diff = val[(d, m, a)] - val[(d, m, b)]
                if not hib[m]:
                    diff = -diff
                v[m] = int(diff > 0) - int(diff < 0)
            agree += len(set(v.values())) == 1
            for m in metrics:
                others = sum(v[j] == v[m] for j in metrics if j != m)
                err[m] = err.get(m, 0) + (v[m] != 0 and others <= k)
    return err, agree / n, n


def test_metric_disagreement_worked_example_with_ties():
    # one dataset, algorithms A, B; A better on accuracy and Brier (loss, .1 < .2),
    # B better on AUC, F1 ties. With k = 1: accuracy has 1 other agreeing (Brier) <= 1 -> error;
    # AUC 0 others <= 1 -> error; F1 ties -> no preference, no error. With k = 0 only AUC errs.
    m = pd.DataFrame({"dataset": "d", "algorithm": ["A", "B"] * 4,
                      "metric": np.repeat(["accuracy", "auc", "brier", "f1"], 2),
                      "value": [0.9, 0.8, 0.7, 0.8, 0.1, 0.2, 0.5, 0.5]})
    r1 = metric_disagreement(m, k=1).per_metric.set_index("metric")
    assert r1["error_cases"].to_dict() == {"accuracy": 1, "auc": 1, "brier": 1, "f1": 0}
    assert r1.loc["f1", "preferences"] == 0
    r0 = metric_disagreement(m, k=0)
    assert r0.per_metric.set_index("metric")["error_cases"].to_dict() == {
        "accuracy": 0, "auc": 1, "brier": 0, "f1": 0}
    assert r0.n_comparisons == 1 and r0.all_agree == 0.0
    assert r0.per_metric["metric"].iloc[-1] == "auc"  # highest error rate last
    # all metrics tie -> they agree
    tie = m.assign(value=0.5)
    assert metric_disagreement(tie).all_agree == 1.0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(2, 5), st.integers(2, 4), st.integers(0, 4),
       st.integers(0, 2**32 - 1))
def test_metric_disagreement_matches_loop(D, M, A, k, seed):
    rng = np.random.default_rng(seed)
    frame = random_metrics(rng, D, M, A)
    frame["value"] = np.round(frame["value"] * 3) / 3  # plenty of ties
    hib = {f"m{j}": bool(j % 2) for j in range(M)}
    r = metric_disagreement(frame, k=k, higher_is_better=hib)
    err, agree, n = _reference_disagreement(frame, k, hib)
    assert r.n_comparisons == n
    assert r.all_agree == pytest.approx(agree)
    got = r.per_metric.set_index("metric")
    assert got["error_cases"].to_dict() == err
    np.testing.assert_allclose(got["error_rate"], got["error_cases"] / n)


def test_metric_disagreement_validation():
    m = random_metrics(np.random.default_rng(0), 2, 2, 2)
    with pytest.raises(ValueError, match="k must"):
        metric_disagreement(m, k=-1, higher_is_better=HIB)
    with pytest.raises(ValueError, match="every"):
        metric_disagreement(m.iloc[1:], higher_is_better=HIB)


# ------------------------------------------------------------ bootstrap stability


def _loop_share(delta, ds, ms, pair, d, m):
    """Per-draw Python loop: mean over the d x m product of one pair's differences."""
    full_mean = delta.mean(axis=(0, 1))
    differ = 0
    for b in range(len(pair)):
        p = pair[b]
        total = 0.0
        for i in ds[b, :d]:
            for j in ms[b, :m]:
                total += delta[i, j, p]
        mean = total / (d * m)
        c = int(mean > 1e-9) - int(mean < -1e-9)
        c_all = int(full_mean[p] > 1e-9) - int(full_mean[p] < -1e-9)
        differ += c != c_all
    return differ


def _tiny_delta(seed, D=4, M=3, A=4):
    rng = np.random.default_rng(seed)
    X = rng.random((D, M, A))
    X[0, 0] = 0.5  # a cell where all tie
    return pair_differences(_capture(X))


def test_nested_counts_match_per_draw_loop_with_same_draws():
    delta = _tiny_delta(1)
    D, M, P = delta.shape
    ds, ms, pair = draw_indices(np.random.default_rng(5), 300, D, M, P, 5, 3)
    d_values, m_values = np.array([1, 2, 5]), np.array([1, 3])
    counts = nested_counts(delta, ds, ms, pair, d_values, m_values)
    for i, d in enumerate(d_values):
        for j, m in enumerate(m_values):
            assert counts[i, j] == _loop_share(delta, ds, ms, pair, d, m)


def test_independent_counts_match_per_draw_loop_with_same_draws():
    delta = _tiny_delta(2)
    D, M, P = delta.shape
    ds, ms, pair = draw_indices(np.random.default_rng(6), 200, D, M, P, 3, 2)
    assert independent_counts(delta, ds, ms, pair) == _loop_share(delta, ds, ms, pair, 3, 2)


def test_bootstrap_stability_uses_seeded_draws_and_is_reproducible():
    rng = np.random.default_rng(0)
    frame = random_metrics(rng, 4, 3, 4)
    out = bootstrap_stability(frame, [1, 3], [1, 2], B=400, seed=11, higher_is_better=HIB)
    assert list(out.columns) == ["n_datasets", "n_metrics", "p_different"]
    assert out[["n_datasets", "n_metrics"]].values.tolist() == [[1, 1], [1, 2], [3, 1], [3, 2]]
    # the public function = the loop reference fed with the same seeded draws
    X = frame["value"].to_numpy().reshape(4, 3, 4)
    delta = pair_differences(_capture(X))
    ds, ms, pair = draw_indices(np.random.default_rng(11), 400, 4, 3, 6, 3, 2)
    expected = [_loop_share(delta, ds, ms, pair, d, m) / 400 for d in (1, 3) for m in (1, 2)]
    np.testing.assert_allclose(out["p_different"], expected)
    again = bootstrap_stability(frame, [1, 3], [1, 2], B=400, seed=11, higher_is_better=HIB)
    pd.testing.assert_frame_equal(out, again)
    other = bootstrap_stability(frame, [1, 3], [1, 2], B=400, seed=12, higher_is_better=HIB)
    assert not out["p_different"].equals(other["p_different"])
    indep = bootstrap_stability(frame, [1, 3], [1, 2], B=400, seed=11, draws="independent",
                                higher_is_better=HIB)
    pd.testing.assert_frame_equal(
        indep, bootstrap_stability(frame, [1, 3], [1, 2], B=400, seed=11,
                                   draws="independent", higher_is_better=HIB))


def test_bootstrap_hand_cases():
    # two algorithms; d: A wins (VC 100 vs 0), e: B wins -> mean difference 0, a tie.
    m = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
                      "algorithm": ["A", "B", "A", "B"], "value": [0.9, 0.8, 0.7, 0.8]})
    out = bootstrap_stability(m, [1, 2], [1], B=20_000, seed=0)
    # d = 1: every draw has a winner, never the tie -> 1; d = 2: a tie iff one of each, P = 1/2
    assert out["p_different"].iloc[0] == 1.0
    assert out["p_different"].iloc[1] == pytest.approx(0.5, abs=0.02)
    # A dominates everywhere -> no draw can differ
    dom = m.assign(value=[0.9, 0.8, 0.9, 0.8])
    assert bootstrap_stability(dom, [1, 2, 7], [1, 3], B=500)["p_different"].eq(0).all()


def test_nested_and_independent_agree_statistically():
    frame = random_metrics(np.random.default_rng(4), 6, 3, 4)
    kw = dict(B=20_000, higher_is_better=HIB)
    a = bootstrap_stability(frame, [1, 2, 4], [1, 3], seed=1, **kw)["p_different"]
    b = bootstrap_stability(frame, [1, 2, 4], [1, 3], seed=2, draws="independent",
                            **kw)["p_different"]
    # binomial standard error <= .5 / sqrt(20000) = .0035 each; allow ~5 joint sigmas
    np.testing.assert_allclose(a, b, atol=0.025)


def test_bootstrap_validation():
    frame = random_metrics(np.random.default_rng(0), 2, 2, 2)
    with pytest.raises(ValueError, match="d_values"):
        bootstrap_stability(frame, [0, 1], [1], higher_is_better=HIB)
    with pytest.raises(ValueError, match="m_values"):
        bootstrap_stability(frame, [1], [1.5], higher_is_better=HIB)
    with pytest.raises(ValueError, match="draws"):
        bootstrap_stability(frame, [1], [1], draws="fresh", higher_is_better=HIB)
    with pytest.raises(ValueError, match="every"):
        bootstrap_stability(frame.iloc[1:], [1], [1], higher_is_better=HIB)


# ---------------------------------------------------------------- portfolio


def test_greedy_portfolio_worked_example_and_cost_aware():
    # cells (d), (e): A 100, 0; B 90, 60; C 0, 100
    # step 1: f(A) = 50, f(B) = 75, f(C) = 50 -> B (+75)
    # step 2: A -> (100 + 60)/2 = 80 (+5); C -> (90 + 100)/2 = 95 (+20) -> C; step 3: A (+5)
    vc = pd.DataFrame({"dataset": ["d", "d", "d", "e", "e", "e"], "metric": "auc",
                       "algorithm": ["A", "B", "C"] * 2, "value": [100, 90, 0, 0, 60, 100]})
    out = greedy_portfolio(vc)
    assert out["algorithm"].tolist() == ["B", "C", "A"]
    np.testing.assert_allclose(out["gain"], [75, 20, 5])
    np.testing.assert_allclose(out["value"], [75, 95, 100])
    # times: A 1 + 1 = 2 s, B 50 + 50 = 100 s, C 5 + 5 = 10 s
    # step 1 gain per second: A 50/2 = 25, B .75, C 5 -> A; step 2: B +30/100, C +50/10 -> C;
    times = pd.DataFrame({"dataset": ["d", "d", "d", "e", "e", "e", "x"],
                          "algorithm": ["A", "B", "C"] * 2 + ["A"],
                          "time": [1, 50, 5, 1, 50, 5, 999]})
    ca = greedy_portfolio(vc, times, cost_aware=True)
    assert ca["algorithm"].tolist() == ["A", "C", "B"]
    np.testing.assert_allclose(ca["time"], [2, 10, 100])
    np.testing.assert_allclose(ca["cumulative_time"], [2, 12, 112])
    np.testing.assert_allclose(ca["gain_per_second"], [25, 5, 0])
    assert greedy_portfolio(vc, times)["algorithm"].tolist() == ["B", "C", "A"]
    with pytest.raises(ValueError, match="needs times"):
        greedy_portfolio(vc, cost_aware=True)
    with pytest.raises(ValueError, match="lacks"):
        greedy_portfolio(vc, times.iloc[1:], cost_aware=True)
    assert portfolio_value(vc, ["C", "A"]) == 100.0
    with pytest.raises(ValueError, match="unknown"):
        portfolio_value(vc, ["Z"])


matrices = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)),
                  elements=st.sampled_from([0.0, 10.0, 50.0, 100.0]) | st.floats(0, 100))


@settings(max_examples=100, deadline=None)
@given(matrices, st.data())
def test_coverage_is_monotone_and_submodular(V, data):
    A = V.shape[1]
    T = data.draw(st.sets(st.integers(0, A - 1)))
    S = data.draw(st.sets(st.sampled_from(sorted(T)))) if T else set()
    for a in set(range(A)) - T:
        gain_S = coverage(V, sorted(S | {a})) - coverage(V, sorted(S))
        gain_T = coverage(V, sorted(T | {a})) - coverage(V, sorted(T))
        assert gain_S >= -1e-9 and gain_T >= -1e-9  # monotone
        assert gain_S >= gain_T - 1e-9  # diminishing returns


@settings(max_examples=100, deadline=None)
@given(matrices)
def test_greedy_within_one_minus_one_over_e_of_best(V):
    A = V.shape[1]
    order, gains, values = greedy_order(V)
    assert sorted(order) == list(range(A))
    np.testing.assert_allclose(np.cumsum(gains), values, atol=1e-9)
    for k in range(1, A + 1):
        best = max(coverage(V, list(c)) for c in itertools.combinations(range(A), k))
        assert values[k - 1] >= (1 - 1 / math.e) * best - 1e-9
        assert values[k - 1] <= best + 1e-9
    assert values[0] == pytest.approx(V.mean(axis=0).max())  # step 1 is the best single


# ---------------------------------------------------------------- abstract


def test_random_paper_abstract_quotes_only_wins():
    rng = np.random.default_rng(0)
    frame = random_metrics(rng, 6, 3, 3, names=["accuracy", "auc", "brier"])
    text = random_paper_abstract(frame, "a0", "a1", seed=3)
    assert text == random_paper_abstract(frame, "a0", "a1", seed=3)
    assert "a0 outperforms a1" in text
    val = frame.set_index(["dataset", "metric", "algorithm"])["value"]
    labels = {"accuracy": "accuracy", "AUC": "auc", "Brier score": "brier"}
    claims = re.findall(r"(accuracy|AUC|Brier score) ([0-9.]+) vs\. ([0-9.]+) on (d\d)", text)
    assert 1 <= len(claims) <= 3
    assert text.count(" vs. ") == len(claims)
    seen = set()
    for name, va, vr, rest in claims:
        metric = labels[name]
        assert float(va) == pytest.approx(val[(rest, metric, "a0")], abs=5e-4)
        assert float(vr) == pytest.approx(val[(rest, metric, "a1")], abs=5e-4)
        # a win: higher for gains, lower for the Brier loss
        assert (float(va) < float(vr)) if metric == "brier" else (float(va) > float(vr))
        seen.add(rest)
    assert len(seen) == len(claims)  # distinct datasets


def test_random_paper_abstract_raises_when_never_winning():
    m = pd.DataFrame({"dataset": "d", "metric": "auc", "algorithm": ["A", "B"],
                      "value": [0.5, 0.9]})
    with pytest.raises(ValueError, match="no \\(dataset, metric\\)"):
        random_paper_abstract(m, "A", "B")
    assert "B outperforms A" in random_paper_abstract(m, "B", "A")
    with pytest.raises(ValueError, match="rival"):
        random_paper_abstract(m, "A", "Z")


def test_only_the_drawn_pairs_are_differenced_with_the_full_tensors_values():
    from metaeval.benchmark._bootstrap import drawn_pair_differences

    rng = np.random.default_rng(4)
    V = rng.random((5, 3, 40))  # 780 pairs, 50 drawn
    pair = rng.integers(0, 780, size=50)
    delta, positions = drawn_pair_differences(V, pair)
    assert delta.shape[2] == np.unique(pair).size <= 50
    np.testing.assert_array_equal(delta[:, :, positions], pair_differences(V)[:, :, pair])
