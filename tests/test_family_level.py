"""Family-level rankings, benchmark analytics and dissimilarity.

Worked examples small enough to check by hand (two families of two members on three
datasets), invariants checked with hypothesis, and bad input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.benchmark import (
    family_metrics,
    family_value,
    family_value_captured,
    overall_value,
    value_captured,
)
from metaeval.ranking import (
    family_members,
    family_success,
    family_times,
    rank_algorithms,
    rank_families,
)
from metaeval.similarity import family_dissimilarity

FAMS = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}


def _acc():
    """Accuracy of a1, a2 (family a) and b1, b2 (family b) on d1, d2, d3.

    ========  ====  ====  ====  ====
    dataset    a1    a2    b1    b2
    ========  ====  ====  ====  ====
    d1         0.9   0.5   0.8   0.8
    d2         0.6   0.6   0.7   0.3
    d3         0.75  0.25  0.625 0.375  (exact in binary: the means tie exactly)
    ========  ====  ====  ====  ====
    """
    values = {"d1": [.9, .5, .8, .8], "d2": [.6, .6, .7, .3], "d3": [.75, .25, .625, .375]}
    return pd.DataFrame([(d, a, v) for d, row in values.items()
                         for a, v in zip(["a1", "a2", "b1", "b2"], row, strict=True)],
                        columns=["dataset", "algorithm", "value"])


# ---------------------------------------------------------------------------- worked examples
def test_best_member_and_mean_of_each_family_by_hand():
    best = family_success(_acc(), FAMS).set_index(["dataset", "algorithm"])["value"]
    # best member: a = max(a1, a2), b = max(b1, b2) on each dataset
    assert best.to_dict() == pytest.approx({("d1", "a"): .9, ("d1", "b"): .8,
                                            ("d2", "a"): .6, ("d2", "b"): .7,
                                            ("d3", "a"): .75, ("d3", "b"): .625})
    mean = family_success(_acc(), FAMS, how="mean").set_index(["dataset", "algorithm"])
    assert mean["value"].to_dict() == pytest.approx({("d1", "a"): .7, ("d1", "b"): .8,
                                                     ("d2", "a"): .6, ("d2", "b"): .5,
                                                     ("d3", "a"): .5, ("d3", "b"): .5})
    members = family_members(_acc(), FAMS)
    # d2: a1 and a2 tie at 0.6 -> the first name in sorted order
    assert members["member"].tolist() == ["a1", "b1", "a1", "b1", "a1", "b1"]


def test_family_average_ranks_by_hand_best_and_mean_disagree():
    # best: a wins d1 and d3, b wins d2 -> AR a = (1 + 2 + 1) / 3, b = (2 + 1 + 2) / 3
    best = rank_families(_acc(), FAMS).set_index("family")
    assert best["score"].to_dict() == pytest.approx({"a": 4 / 3, "b": 5 / 3})
    assert best.index.tolist() == ["a", "b"]
    assert best["configurations"].tolist() == [2, 2]
    # mean: b wins d1, a wins d2, tie on d3 (0.5 each: 1.5 both) -> 1.5 each, a tie
    mean = rank_families(_acc(), FAMS, how="mean").set_index("family")
    assert mean["score"].to_dict() == pytest.approx({"a": 1.5, "b": 1.5})
    assert mean["rank"].tolist() == [1.5, 1.5]


def test_family_srr_by_hand():
    # SRR with two families: the mean over datasets of SR_a / SR_b (its one rival)
    out = rank_families(_acc(), FAMS, method="srr").set_index("family")["score"]
    assert out["a"] == pytest.approx(np.mean([.9 / .8, .6 / .7, .75 / .625]))
    assert out["b"] == pytest.approx(np.mean([.8 / .9, .7 / .6, .625 / .75]))


def test_folds_follow_the_member_best_on_average_and_times_follow_the_member():
    # a1 is a's best member on d (mean 0.85 vs 0.55); its per-fold values represent a
    acc = pd.DataFrame({"dataset": "d", "fold": [0, 1] * 3,
                        "algorithm": ["a1", "a1", "a2", "a2", "b1", "b1"],
                        "value": [.8, .9, .5, .6, .7, .7]})
    fams = {"a1": "a", "a2": "a", "b1": "b"}
    out = family_success(acc, fams)
    assert out.columns.tolist() == ["dataset", "algorithm", "fold", "value"]
    assert out["value"].tolist() == pytest.approx([.8, .9, .7, .7])
    assert out["fold"].tolist() == [0, 1, 0, 1]
    mean = family_success(acc, fams, how="mean")
    assert mean["value"].tolist() == pytest.approx([.65, .75, .7, .7])
    t = pd.DataFrame({"dataset": "d", "algorithm": ["a1", "a2", "b1"], "time": [4.0, 1.0, 2.0]})
    assert family_times(t, acc, fams)["time"].tolist() == [4.0, 2.0]
    assert family_times(t, acc, fams, how="mean")["time"].tolist() == [2.5, 2.0]
    # A3R, n = 1: (SR_a / SR_b) / (T_a / T_b) = (0.85 / 0.7) / 2 for a
    a3r = rank_families(acc, fams, t, method="a3r", n=1).set_index("family")["score"]
    assert a3r["a"] == pytest.approx((.85 / .7) / 2.0)


def test_losses_pick_the_smallest_member():
    loss = _acc().assign(value=lambda f: 1 - f["value"])
    out = family_success(loss, FAMS, higher_is_better=False)
    assert out["value"].tolist() == pytest.approx([.1, .2, .4, .3, .25, .375])
    assert rank_families(loss, FAMS, higher_is_better=False)["family"].tolist() == ["a", "b"]


def test_family_metrics_and_value_captured_by_hand():
    m = _acc().assign(metric="accuracy")
    fm = family_metrics(m, FAMS)
    assert fm.set_index(["dataset", "algorithm"])["value"].to_dict() == pytest.approx(
        family_success(_acc(), FAMS).set_index(["dataset", "algorithm"])["value"].to_dict())
    vc = value_captured(m)
    # d1: values .9 .5 .8 .8, Q1 = .725 -> a1 100, a2 0, b1 = b2 = 100 * .075 / .175
    d1 = vc[vc["dataset"] == "d1"].set_index("algorithm")["value"]
    assert d1["b1"] == pytest.approx(100 * .075 / .175)
    fvc = family_value_captured(vc, FAMS).set_index(["dataset", "algorithm"])["value"]
    assert fvc[("d1", "a")] == pytest.approx(100.0)
    assert fvc[("d1", "b")] == pytest.approx(100 * .075 / .175)
    fvc_mean = family_value_captured(vc, FAMS, how="mean").set_index(["dataset", "algorithm"])
    assert fvc_mean.loc[("d1", "a"), "value"] == pytest.approx(50.0)
    table = family_value(vc, FAMS).set_index("family")
    ov = overall_value(vc).set_index("algorithm")["score"]
    assert table.loc["a", "best member"] == ov[["a1", "a2"]].idxmax()
    assert table.loc["a", "mean"] == pytest.approx(ov[["a1", "a2"]].mean())
    assert table.loc["a", "score"] == pytest.approx(fvc.xs("a", level="algorithm").mean())


def test_family_metrics_take_the_smallest_loss():
    m = pd.DataFrame({"dataset": "d", "algorithm": ["a1", "a2", "b1"], "metric": "log_loss",
                      "value": [0.3, 0.2, 0.5]})
    out = family_metrics(m, {"a1": "a", "a2": "a", "b1": "b"})
    assert out["value"].tolist() == [0.2, 0.5]


def test_family_dissimilarity_by_hand():
    D = np.array([[0, 1, 3, 5],
                  [1, 0, 7, 9],
                  [3, 7, 0, 2],
                  [5, 9, 2, 0]], dtype=float)
    F, names = family_dissimilarity(D, ["a1", "a2", "b1", "b2"], FAMS)
    assert names == ["a", "b"]
    np.testing.assert_allclose(F, [[1.0, 6.0], [6.0, 2.0]])  # (3 + 5 + 7 + 9) / 4 = 6


# ---------------------------------------------------------------------------- invariants
@st.composite
def _pools(draw, folds=False):
    sizes = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
    n_d = draw(st.integers(2, 4))
    names = [f"f{i}:c={j}" for i, s in enumerate(sizes) for j in range(s)]
    fams = {n: n.split(":")[0] for n in names}
    n_f = 2 if folds else 1
    values = draw(st.lists(st.floats(0.05, 1.0, allow_nan=False),
                           min_size=n_d * len(names) * n_f, max_size=n_d * len(names) * n_f))
    rows = []
    it = iter(values)
    for d in range(n_d):
        for a in names:
            for k in range(n_f):
                rows.append({"dataset": f"d{d}", "algorithm": a, "fold": k, "value": next(it)})
    frame = pd.DataFrame(rows)
    return (frame if folds else frame.drop(columns="fold")), fams


@settings(max_examples=40, deadline=None)
@given(_pools(), st.sampled_from(["ar", "srr"]))
def test_a_family_of_one_member_ranks_as_that_member(pool, method):
    success, _ = pool
    fams = {a: f"F<{a}>" for a in success["algorithm"].unique()}
    fam = rank_families(success, fams, method=method).set_index("family")
    alg = rank_algorithms(success, method=method).set_index("algorithm")
    alg.index = [fams[a] for a in alg.index]
    np.testing.assert_allclose(fam.loc[alg.index, "score"], alg["score"])
    np.testing.assert_allclose(fam.loc[alg.index, "rank"], alg["rank"])


@settings(max_examples=40, deadline=None)
@given(_pools(folds=True), st.booleans())
def test_best_is_never_worse_than_mean(pool, higher_is_better):
    success, fams = pool
    keys = ["dataset", "algorithm", "fold"]
    best = family_success(success, fams, higher_is_better=higher_is_better).set_index(keys)
    mean = family_success(success, fams, how="mean",
                          higher_is_better=higher_is_better).set_index(keys)
    # per fold the best member may lose; averaged over the folds it never does
    b = best["value"].groupby(level=[0, 1]).mean()
    m = mean["value"].groupby(level=[0, 1]).mean()
    sign = 1 if higher_is_better else -1
    assert np.all(sign * (b - m.loc[b.index]) >= -1e-12)
    metrics = success.drop(columns="fold").groupby(["dataset", "algorithm"], as_index=False)[
        "value"].mean().assign(metric="accuracy" if higher_is_better else "log_loss")
    fb = family_metrics(metrics, fams).set_index(["dataset", "algorithm"])["value"]
    fm = family_metrics(metrics, fams, how="mean").set_index(["dataset", "algorithm"])["value"]
    assert np.all(sign * (fb - fm.loc[fb.index]) >= -1e-12)
    vc = value_captured(metrics)
    vb = family_value_captured(vc, fams).set_index(["dataset", "algorithm"])["value"]
    vm = family_value_captured(vc, fams, how="mean").set_index(["dataset", "algorithm"])["value"]
    assert np.all(vb - vm.loc[vb.index] >= -1e-9)
    table = family_value(vc, fams)
    assert np.all(table["score"] >= table["best member score"] - 1e-9)
    assert np.all(table["best member score"] >= table["mean"] - 1e-9)


@settings(max_examples=40, deadline=None)
@given(_pools(), st.sampled_from(["best", "mean"]), st.randoms(use_true_random=False))
def test_relabelling_members_changes_nothing(pool, how, rnd):
    success, fams = pool
    names = list(fams)
    shuffled = names[:]
    rnd.shuffle(shuffled)
    rename = {old: f"zz{new}" for old, new in zip(names, shuffled, strict=True)}
    fams2 = {rename[a]: f for a, f in fams.items()}
    success2 = success.assign(algorithm=success["algorithm"].map(rename)).sample(
        frac=1.0, random_state=rnd.randint(0, 10**6))
    for method in ("ar", "srr"):
        one = rank_families(success, fams, method=method, how=how)
        two = rank_families(success2, fams2, method=method, how=how)
        pd.testing.assert_frame_equal(one, two)
    m1 = success.assign(metric="auc")
    m2 = success2.assign(metric="auc")
    key = ["dataset", "algorithm", "metric"]
    v1 = family_value_captured(value_captured(m1), fams, how=how).sort_values(key)
    v2 = family_value_captured(value_captured(m2), fams2, how=how).sort_values(key)
    np.testing.assert_allclose(v1["value"], v2["value"])
    D = np.abs(np.subtract.outer(np.arange(len(names)), np.arange(len(names)))).astype(float)
    F1, n1 = family_dissimilarity(D, names, fams)
    perm = np.argsort([rename[a] for a in names])
    F2, n2 = family_dissimilarity(D[np.ix_(perm, perm)], [rename[names[i]] for i in perm],
                                  fams2)
    order = [n2.index(f) for f in n1]
    np.testing.assert_allclose(F1, F2[np.ix_(order, order)])


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call", [
    lambda: family_success(_acc(), FAMS, how="median"),
    lambda: family_times(_acc().rename(columns={"value": "time"}), _acc(), FAMS, how="max"),
    lambda: rank_families(_acc(), FAMS, how="worst"),
    lambda: family_metrics(_acc().assign(metric="auc"), FAMS, how="median"),
    lambda: family_value_captured(value_captured(_acc().assign(metric="auc")), FAMS,
                                  how="median"),
])
def test_an_unknown_how_is_named(call):
    with pytest.raises(ValueError, match="how must be one of"):
        call()


@pytest.mark.parametrize("call", [
    lambda f: family_success(_acc(), f),
    lambda f: family_members(_acc(), f),
    lambda f: rank_families(_acc(), f),
    lambda f: family_times(_acc().rename(columns={"value": "time"}), _acc(), f, how="mean"),
    lambda f: family_metrics(_acc().assign(metric="auc"), f),
    lambda f: family_value_captured(value_captured(_acc().assign(metric="auc")), f),
    lambda f: family_value(value_captured(_acc().assign(metric="auc")), f),
    lambda f: family_dissimilarity(np.zeros((4, 4)), ["a1", "a2", "b1", "b2"], f),
])
def test_an_algorithm_missing_from_families_is_named(call):
    fams = {k: v for k, v in FAMS.items() if k != "b2"}
    with pytest.raises(ValueError, match=r"families has no family for 1 algorithm.*b2"):
        call(fams)


def test_other_bad_input():
    with pytest.raises(ValueError, match="families must be a mapping"):
        family_success(_acc(), ["a", "b"])
    with pytest.raises(ValueError, match="at least two"):
        rank_families(_acc(), dict.fromkeys(FAMS, "one"))
    with pytest.raises(ValueError, match="method must be one of"):
        rank_families(_acc(), FAMS, method="best")
    with pytest.raises(ValueError, match="D must be 4 x 4"):
        family_dissimilarity(np.zeros((3, 3)), ["a1", "a2", "b1", "b2"], FAMS)
    with pytest.raises(ValueError, match="D must be symmetric"):
        family_dissimilarity(np.triu(np.ones((4, 4)), 1), ["a1", "a2", "b1", "b2"], FAMS)
