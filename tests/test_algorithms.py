"""Tests for metaeval.algorithms: the pool, in-fold preprocessing and score procedures."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.model_selection import StratifiedKFold

from metaeval.algorithms import (
    DEFAULT_POOL,
    MISSING_CATEGORY,
    SCORE_METHODS,
    Algorithm,
    custom_algorithm,
    get_algorithm,
    list_algorithms,
)
from metaeval.algorithms._core import _minmax
from metaeval.datasets import load_dataset


def _mixed_frame(n=80, seed=0):
    """Numeric + categorical features with missing values; y depends on both."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = rng.normal(size=n) * 10 + 3
    colour = rng.choice(["red", "green", "blue"], size=n).astype(object)
    y = ((a + (colour == "red") + 0.5 * rng.normal(size=n)) > 0.5).astype(np.int8)
    a[rng.random(n) < 0.1] = np.nan
    colour[rng.random(n) < 0.1] = np.nan
    X = pd.DataFrame({"a": a, "b": b, "colour": colour})
    return X, y


def _fit(alg, X, y, categorical, numeric, seed=0):
    return alg.build(categorical, numeric, random_state=seed).fit(X, y)


# --------------------------------------------------------------------------- the pool


def test_pool_names_and_lookup():
    assert (
        list_algorithms()
        == list(DEFAULT_POOL)
        == [
            "3NN",
            "5NN",
            "DT",
            "NB",
            "LR",
            "RF",
            "SVM_LIN",
            "SVM_RBF",
        ]
    )
    assert get_algorithm("svm_rbf").name == "SVM_RBF"
    expected = {
        "3NN": "knn_fraction",
        "5NN": "knn_fraction",
        "DT": "predict_proba",
        "NB": "predict_proba",
        "LR": "predict_proba",
        "RF": "tree_votes",
        "SVM_LIN": "decision_minmax",
        "SVM_RBF": "decision_minmax",
    }
    assert {n: get_algorithm(n).score_method for n in DEFAULT_POOL} == expected
    assert [n for n in DEFAULT_POOL if get_algorithm(n).scale] == [
        "3NN",
        "5NN",
        "LR",
        "SVM_LIN",
        "SVM_RBF",
    ]
    for n in DEFAULT_POOL:
        get_algorithm(n).validate()


def test_get_algorithm_overrides_and_errors():
    rf = get_algorithm("RF", n_estimators=7, max_depth=3)
    assert dict(rf.params) == {"max_depth": 3, "n_estimators": 7} and rf.name == "RF"
    assert get_algorithm("SVM_LIN", score_method="decision_platt").score_method == (
        "decision_platt"
    )
    with pytest.raises(ValueError, match="not a built-in algorithm"):
        get_algorithm("XGB")
    with pytest.raises(ValueError, match="does not accept params"):
        get_algorithm("DT", no_such_param=1)
    with pytest.raises(ValueError, match="score_method must be one of"):
        get_algorithm("DT", score_method="votes")
    with pytest.raises(ValueError, match="has no decision_function"):
        get_algorithm("NB", score_method="decision_minmax")
    with pytest.raises(ValueError, match="not a plain value"):
        custom_algorithm("X", "sklearn.tree.DecisionTreeClassifier", {"class_weight": {0: 1}})
    with pytest.raises(ValueError, match="import path"):
        Algorithm("X", "DecisionTree")


def test_custom_algorithm_lazy_import_and_votes():
    ghost = custom_algorithm("G", "no_such_package.Model", {"k": 1})
    assert ghost.params == (("k", 1),)  # defined without importing anything
    with pytest.raises(ValueError, match="cannot be imported"):
        ghost.build([], ["a"], 0)
    from sklearn.ensemble import ExtraTreesClassifier

    et = custom_algorithm("ET", ExtraTreesClassifier, [("n_estimators", 9)], "tree_votes")
    assert et.estimator == "sklearn.ensemble.ExtraTreesClassifier"
    X, y = _mixed_frame()
    s = et.score(_fit(et, X, y, ["colour"], ["a", "b"]), X)
    # 9 trees: every score is a multiple of 1/9
    np.testing.assert_allclose(s * 9, np.round(s * 9), atol=1e-12)


def test_pickle_round_trip():
    X, y = _mixed_frame()
    for name in DEFAULT_POOL:
        alg = get_algorithm(name)
        clone = pickle.loads(pickle.dumps(alg))
        assert clone == alg and hash(clone) == hash(alg)
        model = _fit(alg, X, y, ["colour"], ["a", "b"])
        model2 = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(alg.score(model, X), clone.score(model2, X))


def test_versions_and_to_dict():
    v = get_algorithm("RF").versions()
    assert v["scikit-learn"] == sklearn.__version__ and "numpy" in v and "python" in v
    d = get_algorithm("3NN").to_dict()
    assert d["params"] == {"n_neighbors": 3, "weights": "uniform"} and d["scale"] is True


# --------------------------------------------------------------------------- scores


@pytest.mark.parametrize("name", DEFAULT_POOL + ("platt",))
def test_scores_are_probabilities_on_mixed_data(name):
    alg = (
        get_algorithm("SVM_RBF", score_method="decision_platt")
        if name == "platt"
        else get_algorithm(name)
    )
    X, y = _mixed_frame(120)
    tr, te = np.arange(80), np.arange(80, 120)
    model = _fit(alg, X.iloc[tr], y[tr], ["colour"], ["a", "b"])
    s = alg.score(model, X.iloc[te])
    assert s.dtype == np.float64 and s.shape == (40,)
    assert np.all((s >= 0) & (s <= 1))
    # informative: class-1 rows score higher on average
    assert s[y[te] == 1].mean() > s[y[te] == 0].mean()


@pytest.mark.parametrize("k", [3, 5])
def test_knn_fraction_equals_brute_force_count(k):
    rng = np.random.default_rng(k)
    Xtr = rng.normal(size=(60, 3)) * [1.0, 5.0, 0.1] + [0.0, 2.0, -1.0]
    ytr = rng.integers(0, 2, size=60)
    Xte = rng.normal(size=(25, 3)) * [1.0, 5.0, 0.1] + [0.0, 2.0, -1.0]
    cols = ["x0", "x1", "x2"]
    alg = get_algorithm(f"{k}NN")
    model = _fit(alg, pd.DataFrame(Xtr, columns=cols), ytr, [], cols)
    s = alg.score(model, pd.DataFrame(Xte, columns=cols))
    # Brute force: standardise with the training mean/std (ddof=0), Euclidean
    # distances, the k closest training rows, count those in class 1, divide by k.
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    Ztr, Zte = (Xtr - mu) / sd, (Xte - mu) / sd
    ref = []
    for z in Zte:
        dist = np.sqrt(((Ztr - z) ** 2).sum(axis=1))
        nearest = np.argsort(dist)[:k]
        ref.append(sum(ytr[j] == 1 for j in nearest) / k)
    np.testing.assert_allclose(s, ref, rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="weights='uniform'"):
        a2 = get_algorithm(f"{k}NN", weights="distance")
        a2.score(
            _fit(a2, pd.DataFrame(Xtr, columns=cols), ytr, [], cols),
            pd.DataFrame(Xte, columns=cols),
        )


def test_rf_scores_are_hard_tree_votes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(70, 2)).round(1)
    y = (X[:, 0] + 0.8 * rng.normal(size=70) > 0).astype(int)
    # duplicated points with opposite labels make impure leaves (50/50 ties)
    X = np.vstack([X, X[:10]])
    y = np.concatenate([y, 1 - y[:10]])
    frame = pd.DataFrame(X, columns=["u", "v"])
    alg = get_algorithm("RF", n_estimators=25)
    model = _fit(alg, frame, y, [], ["u", "v"], seed=3)
    s = alg.score(model, frame)
    # Reference: walk each tree by hand (Python loops), read the leaf's class
    # weights, vote class 1 only when it strictly outweighs class 0.
    forest = model[-1]
    Xt = model[:-1].transform(frame)
    ref = np.zeros(len(frame))
    for tree in forest.estimators_:
        t = tree.tree_
        for i, x in enumerate(Xt):
            node = 0
            while t.children_left[node] != -1:
                go_left = np.float32(x[t.feature[node]]) <= t.threshold[node]
                node = t.children_left[node] if go_left else t.children_right[node]
            w0, w1 = t.value[node, 0]
            ref[i] += w1 > w0
    ref /= len(forest.estimators_)
    np.testing.assert_array_equal(s, ref)
    assert np.any(s != forest.predict_proba(Xt)[:, 1])  # not the averaged probabilities


@pytest.mark.parametrize("name", ["SVM_LIN", "SVM_RBF"])
def test_svm_minmax_over_the_test_fold(name):
    X, y = _mixed_frame(150, seed=2)
    alg = get_algorithm(name)
    tr, te = np.arange(100), np.arange(100, 150)
    model = _fit(alg, X.iloc[tr], y[tr], ["colour"], ["a", "b"])
    s = alg.score(model, X.iloc[te])
    assert s.min() == 0.0 and s.max() == 1.0
    d = model.decision_function(X.iloc[te])
    np.testing.assert_allclose(s, (d - d.min()) / (d.max() - d.min()), rtol=0, atol=1e-15)
    # a single row (constant decision over the scored set) gets 0.5
    assert alg.score(model, X.iloc[te[:1]]).tolist() == [0.5]


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.integers(1, 30), elements=st.floats(-1e6, 1e6)))
def test_minmax_properties(d):
    s = _minmax(d)
    assert np.all((s >= 0) & (s <= 1))
    if d.max() > d.min():
        assert s[np.argmin(d)] == 0.0 and s[np.argmax(d)] == 1.0
        order = np.argsort(d, kind="stable")
        assert np.all(np.diff(s[order]) >= 0)  # order preserved
    else:
        assert np.all(s == 0.5)


def test_platt_option():
    alg = get_algorithm("SVM_LIN", score_method="decision_platt")
    X, y = _mixed_frame(120)
    model = _fit(alg, X, y, ["colour"], ["a", "b"])
    cal = model[-1]
    assert type(cal).__name__ == "CalibratedClassifierCV" and cal.ensemble is False
    assert cal.method == "sigmoid"
    s = alg.score(model, X)
    np.testing.assert_allclose(s, model.predict_proba(X)[:, 1])


# --------------------------------------------------------------------------- preprocessing


def test_preprocessing_is_fitted_on_training_rows_only():
    X, y = _mixed_frame(100)
    tr, te = np.arange(60), np.arange(60, 100)
    X = X.copy()
    X.loc[te, "b"] = 1e6  # a leak would move the median and the mean
    X.loc[te, "colour"] = "purple"  # a category seen only in the test rows
    alg = get_algorithm("LR")
    model = _fit(alg, X.iloc[tr], y[tr], ["colour"], ["a", "b"])
    numeric = model.named_steps["preprocess"].named_transformers_["numeric"]
    np.testing.assert_allclose(
        numeric.named_steps["impute"].statistics_, np.nanmedian(X.iloc[tr][["a", "b"]], axis=0)
    )
    imputed_a = X.iloc[tr]["a"].fillna(np.nanmedian(X.iloc[tr]["a"]))
    np.testing.assert_allclose(numeric.named_steps["scale"].mean_[0], imputed_a.mean())
    onehot = model.named_steps["preprocess"].named_transformers_["categorical"]["onehot"]
    assert "purple" not in set(onehot.categories_[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "unknown categories" notice
        Z = model.named_steps["preprocess"].transform(X.iloc[te])
        s = alg.score(model, X.iloc[te])
    # unseen category -> all-zero one-hot block (the last columns)
    assert np.all(Z[:, -len(onehot.categories_[0]) :] == 0)
    assert np.all((s >= 0) & (s <= 1))


def test_missing_category_and_edge_column_sets():
    X, y = _mixed_frame(60)
    alg = get_algorithm("NB")
    model = _fit(alg, X, y, ["colour"], ["a", "b"])
    cats = model.named_steps["preprocess"].named_transformers_["categorical"]["onehot"]
    assert MISSING_CATEGORY in set(cats.categories_[0])
    # only numeric, only categorical, and an all-missing numeric column
    for cat, num in ([], ["a", "b"]), (["colour"], []):
        m = _fit(alg, X, y, cat, num)
        assert alg.score(m, X).shape == (60,)
    X2 = X.assign(empty=np.nan)
    for name in DEFAULT_POOL:
        a = get_algorithm(name)
        s = a.score(_fit(a, X2, y, ["colour"], ["a", "b", "empty"]), X2)
        assert np.all(np.isfinite(s)) and np.all((s >= 0) & (s <= 1))
    with pytest.raises(ValueError, match="both empty"):
        alg.build([], [], 0)
    with pytest.raises(ValueError, match="both categorical and numeric"):
        alg.build(["a"], ["a"], 0)
    with pytest.raises(ValueError, match="random_state"):
        alg.build([], ["a"], random_state=1.5)


def test_single_class_training_fold():
    X, _ = _mixed_frame(40)
    ones = np.ones(40, dtype=int)
    for name in ("DT", "RF", "NB", "3NN"):
        alg = get_algorithm(name)
        s = alg.score(_fit(alg, X, ones, ["colour"], ["a", "b"]), X)
        assert np.all(s == 1.0)  # the only class seen is class 1
        s0 = alg.score(_fit(alg, X, 0 * ones, ["colour"], ["a", "b"]), X)
        assert np.all(s0 == 0.0)
    with pytest.raises(ValueError, match="class"):
        _fit(get_algorithm("LR"), X, ones, ["colour"], ["a", "b"])


def test_random_state_makes_fits_reproducible():
    X, y = _mixed_frame(80)
    alg = get_algorithm("RF", n_estimators=10)
    s1 = alg.score(_fit(alg, X, y, ["colour"], ["a", "b"], seed=5), X)
    s2 = alg.score(_fit(alg, X, y, ["colour"], ["a", "b"], seed=5), X)
    s3 = alg.score(_fit(alg, X, y, ["colour"], ["a", "b"], seed=6), X)
    np.testing.assert_array_equal(s1, s2)
    assert not np.array_equal(s1, s3)


@pytest.mark.parametrize("dataset", ["breast-cancer", "hepatitis"])
def test_real_data_with_categoricals_and_missing(dataset):
    ds = load_dataset(dataset)
    assert ds.categorical and ds.X.isna().any().any()
    tr, te = next(StratifiedKFold(3, shuffle=True, random_state=0).split(ds.X, ds.y))
    for name in DEFAULT_POOL:
        alg = get_algorithm(name)
        model = alg.build(ds.categorical, ds.numeric, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # unseen categories in test fold
            model.fit(ds.X.iloc[tr], ds.y[tr])
            s = alg.score(model, ds.X.iloc[te])
        assert s.shape == (len(te),) and s.dtype == np.float64
        assert np.all((s >= 0) & (s <= 1)), name


def test_score_methods_constant():
    assert SCORE_METHODS == (
        "predict_proba",
        "knn_fraction",
        "tree_votes",
        "decision_minmax",
        "decision_platt",
    )
