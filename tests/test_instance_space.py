"""Tests for metaeval.instance_space: the side-by-side frame, correlations, projections."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import pdist
from scipy.stats import kendalltau, spearmanr

from metaeval import instance_space as isp
from metaeval.hardness import METHODS, pool_hardness
from metaeval.hardness import classic as C

# the worked line of tests/test_classic.py, with a pool of two models
LINE_X = np.array([[0.0], [1.0], [3.0], [7.0], [12.0], [18.0], [25.0], [33.0]])
LINE_Y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
LINE_S = np.array(
    [
        [0.1, 0.2],
        [0.2, 0.1],
        [0.4, 0.3],
        [0.6, 0.4],
        [0.7, 0.6],
        [0.8, 0.9],
        [0.9, 0.8],
        [0.9, 1.0],
    ]
)


def test_hardness_frame_worked_example():
    frame = isp.hardness_frame(LINE_X, LINE_Y, LINE_S, ["LR", "NB"], k=2)
    assert list(frame.columns) == list(C.MEASURES) + list(isp.POOL_COLUMNS) + list(METHODS)
    assert frame.attrs["algorithms"] == ["LR", "NB"]
    assert frame.attrs["cost_sensitive"] == list(METHODS)
    # classic columns as in test_classic's worked example
    assert_array_equal(frame["kDN"], [0, 0, 0, 1, 1, 0.5, 0, 0])
    assert_array_equal(frame["N1"], [0, 0, 0.5, 1, 1, 0.5, 0, 0])
    # row 3 (y = 1): 0.6 right, 0.4 wrong -> 1/2; row 4 (y = 0): 0.7, 0.6 both wrong -> 1
    assert_array_equal(frame["misclassification_rate"], [0, 0, 0, 0.5, 1, 0, 0, 0])
    # 1 - mean P(true class): row 0 (y = 0): 1 - (0.9 + 0.8) / 2 = 0.15
    assert_allclose(frame["true_class_probability_loss"].iloc[0], 0.15)
    # score-fixed cost-sensitive hardness = share of models misclassifying (Prudêncio 2019):
    # two independent implementations agree
    assert_allclose(frame["score-fixed"], frame["misclassification_rate"])
    for method in METHODS:
        assert_allclose(frame[method], pool_hardness(LINE_Y, LINE_S, method))


def test_hardness_frame_labels_index_and_subset():
    df = pd.DataFrame({"x": LINE_X[:, 0]}, index=[f"r{i}" for i in range(8)])
    labels = np.where(LINE_Y == 1, "pos", "neg")
    frame = isp.hardness_frame(df, labels, LINE_S, pos_label="pos", measures=["LSC", "F1"])
    assert list(frame.index) == list(df.index)
    assert list(frame.columns[:2]) == ["LSC", "F1"]
    assert frame.attrs["algorithms"] == ["model_0", "model_1"]
    reference = isp.hardness_frame(LINE_X, LINE_Y, LINE_S, measures=["LSC", "F1"])
    assert_allclose(frame.to_numpy(), reference.to_numpy())
    # pos_label names the class the scores estimate: flipped labels with pos_label=0 are
    # the same task ...
    flipped = isp.hardness_frame(LINE_X, 1 - LINE_Y, LINE_S, pos_label=0, measures=["F1"])
    assert_allclose(flipped.to_numpy(), reference.drop(columns="LSC").to_numpy())
    # ... while with pos_label=1 the scores now estimate the other class: every row that
    # was right is wrong
    other = isp.hardness_frame(LINE_X, 1 - LINE_Y, LINE_S, measures=["F1"])
    assert_allclose(other["misclassification_rate"], 1 - reference["misclassification_rate"])
    assert_allclose(other["F1"], reference["F1"])  # the classic measures ignore pos_label


def _builtin(name):
    """A built-in dataset (features, 0/1 labels, categorical columns)."""
    try:
        from metaeval.datasets import load_dataset

        ds = load_dataset(name)
        return ds.X, np.asarray(ds.y), list(ds.categorical)
    except Exception:  # the datasets module is written concurrently: read the file
        root = Path(C.__file__).resolve().parents[2] / "datasets" / "data"
        frame = pd.read_csv(root / f"{name}.csv.gz")
        row = pd.read_csv(root / "manifest.csv").set_index("name").loc[name]
        categorical = (
            [] if pd.isna(row["categorical_columns"]) else row["categorical_columns"].split("|")
        )
        for col in categorical:
            frame[col] = frame[col].astype("string").astype(object)
        y = frame.pop("class").to_numpy()
        return frame, (y == np.unique(y)[-1]).astype(int), categorical


def test_hardness_frame_on_a_builtin_dataset_with_missing_values():
    X, y, categorical = _builtin("hepatitis")  # 155 rows, 13 categorical, missing values
    assert X.isna().any().any()
    rng = np.random.default_rng(0)
    S = rng.uniform(size=(len(y), 3))
    frame = isp.hardness_frame(X, y, S, ["a", "b", "c"], categorical)
    values = frame.to_numpy()
    assert values.shape == (len(y), len(C.MEASURES) + 2 + len(METHODS))
    assert np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= 1))
    corr = isp.hardness_correlations(frame)
    assert corr.shape == (values.shape[1], values.shape[1])
    assert_allclose(corr.to_numpy(), corr.to_numpy().T, equal_nan=True)
    # kDN and N1 both measure class overlap in the neighbourhood: positively related
    assert corr.loc["kDN", "N1"] > 0.3
    xy = isp.project_instances(X, categorical=categorical)
    assert xy.shape == (len(y), 2) and np.all(np.isfinite(xy))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: isp.hardness_frame(LINE_X, LINE_Y, LINE_S, ["a"]), "one name per column"),
        (lambda: isp.hardness_frame(LINE_X, LINE_Y, LINE_S, "ab"), "sequence of names"),
        (lambda: isp.hardness_frame(LINE_X, LINE_Y, LINE_S[:5]), "rows"),
        (lambda: isp.hardness_frame(LINE_X[:5], LINE_Y, LINE_S), "same length"),
        (lambda: isp.hardness_frame(LINE_X, LINE_Y, LINE_S + 1), r"\[0, 1\]"),
        (lambda: isp.hardness_frame(LINE_X, LINE_Y, np.ones((8, 0))), "no columns"),
        (lambda: isp.hardness_frame(LINE_X, [0] * 8, LINE_S), "Only one class"),
        (lambda: isp.hardness_correlations(LINE_S), "DataFrame"),
        (lambda: isp.hardness_correlations(pd.DataFrame({"a": [1, 2]}), "cosine"), "method"),
        (lambda: isp.hardness_correlations(pd.DataFrame({"a": ["x", "y"]})), "numeric"),
        (lambda: isp.hardness_correlations(pd.DataFrame({"a": [1.0]})), "two rows"),
        (lambda: isp.project_instances(LINE_X, "tsne"), "method"),
        (lambda: isp.project_instances(LINE_X, 42), "method"),
        (lambda: isp.project_instances(LINE_X, lambda Z: np.hstack([Z, Z, Z])), "shape"),
        (lambda: isp.project_instances(LINE_X, lambda Z: Z[:, [0, 0]] * np.nan), "NaN"),
        (lambda: isp.project_instances([[np.nan, 1.0], [1.0, 2.0]], encode=False), "NaN"),
        (lambda: isp.project_instances([["a"], ["b"]], encode=False), "numeric"),
        (lambda: isp.project_instances([[1.0]]), "at least 2 rows"),
    ],
)
def test_invalid_inputs_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_hardness_correlations_match_scipy():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.uniform(size=(30, 3)), columns=["a", "b", "c"])
    frame["c"] = frame["a"] + 0.1 * frame["c"]  # related to a
    frame["tag"] = "x"  # non-numeric columns are ignored
    frame["const"] = 0.5  # no defined correlation
    corr = isp.hardness_correlations(frame)
    assert list(corr.columns) == ["a", "b", "c", "const"]
    assert_allclose(corr.loc["a", "c"], spearmanr(frame["a"], frame["c"])[0])
    assert_allclose(corr.loc["a", "b"], spearmanr(frame["a"], frame["b"])[0])
    assert corr["const"].isna().all()
    tau = isp.hardness_correlations(frame, method="kendall")
    assert_allclose(tau.loc["b", "c"], kendalltau(frame["b"], frame["c"])[0])
    # monotone transforms keep rank correlations
    transformed = frame.assign(a=np.exp(5 * frame["a"]))
    assert_allclose(isp.hardness_correlations(transformed), corr, equal_nan=True)


def test_project_instances_pca():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(50, 2)) @ [[3.0, 0.0], [1.0, 0.5]]
    xy = isp.project_instances(Z, encode=False)
    # two features: PCA is a rotation (or reflection) about the mean, distances stay
    assert_allclose(pdist(xy), pdist(Z))
    # components are centred, uncorrelated and ordered by variance
    assert_allclose(xy.mean(axis=0), 0, atol=1e-12)
    assert abs(np.corrcoef(xy.T)[0, 1]) < 1e-10
    assert xy[:, 0].var() >= xy[:, 1].var()
    # one feature: the second coordinate is 0, distances along the line stay
    line = isp.project_instances(Z[:, :1], encode=False)
    assert_array_equal(line[:, 1], 0)
    assert_allclose(pdist(line), pdist(Z[:, :1]))
    # encode=True projects the min-max scaled features
    scaled = (Z - Z.min(axis=0)) / (Z.max(axis=0) - Z.min(axis=0))
    assert_allclose(pdist(isp.project_instances(Z)), pdist(scaled))


def test_project_instances_is_pluggable():
    from sklearn.decomposition import TruncatedSVD

    rng = np.random.default_rng(3)
    Z = rng.uniform(size=(20, 4))

    class FirstTwo:
        def fit_transform(self, A):
            return A[:, :2] * 2

    assert_allclose(isp.project_instances(Z, FirstTwo(), encode=False), Z[:, :2] * 2)
    assert_allclose(isp.project_instances(Z, lambda A: A[:, 1:3], encode=False), Z[:, 1:3])
    # an unseeded estimator is seeded with random_state, on a clone
    svd = TruncatedSVD(n_components=2, algorithm="randomized", random_state=None)
    got = isp.project_instances(Z, svd, random_state=7, encode=False)
    assert svd.random_state is None and not hasattr(svd, "components_")
    expected = TruncatedSVD(n_components=2, algorithm="randomized", random_state=7)
    assert_allclose(got, expected.fit_transform(Z))
    # a hardness frame (all numeric) can be projected too
    frame = C.classic_hardness(LINE_X, LINE_Y, ["kDN", "N1", "N2"], k=2)
    assert isp.project_instances(frame, encode=False).shape == (8, 2)


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 30), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_projection_is_row_permutation_equivariant(n, d, seed):
    # pairwise distances between projected points do not depend on the row order
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, d))
    perm = rng.permutation(n)
    a = isp.project_instances(Z, encode=False)
    b = isp.project_instances(Z[perm], encode=False)
    D = np.zeros((n, n))
    D[np.triu_indices(n, 1)] = pdist(a)
    D = D + D.T
    Dp = np.zeros((n, n))
    Dp[np.triu_indices(n, 1)] = pdist(b)
    Dp = Dp + Dp.T
    scale = max(1.0, np.abs(D).max())
    # when the 2nd and 3rd principal variances tie, the plane is not unique: skip those
    s = np.linalg.svd(Z - Z.mean(axis=0), compute_uv=False)
    if len(s) > 2 and abs(s[1] - s[2]) < 1e-6 * max(s[0], 1.0):
        return
    assert_allclose(Dp, D[np.ix_(perm, perm)], atol=1e-8 * scale)
