"""The DESlib comparison of benchmarks/compare_selection.py (KNORA-E, META-DES on stored scores).

DESlib is not a dependency of metaeval: these tests skip without it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

pytest.importorskip("deslib", reason="DESlib is not installed (pip install deslib)")

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_selection.py"
_spec = importlib.util.spec_from_file_location("compare_selection", _PATH)
cs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cs)
cs._patch_deslib()


def test_stored_scores_answer_by_row_id():
    S = np.array([[0.2, 0.9], [0.7, 0.1], [0.5, 0.6]])
    clf = cs.StoredScores(S, 1)
    X = np.c_[np.zeros((3, 2)), np.array([2, 0, 1]) * 1e-12]
    assert_allclose(clf.predict_proba(X)[:, 1], [0.6, 0.9, 0.1])
    assert clf.predict(X).tolist() == [1, 1, 0]  # class 1 iff s > 0.5


def test_knora_e_picks_the_model_that_is_always_right():
    # model 0 is a coin, model 1 knows the labels. Where their predictions agree DESlib
    # returns the pool's mean probability; where they disagree, KNORA-E keeps the models
    # right on all 7 neighbours: model 1 (the coin only with chance 2^-7), so its score
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    S = np.c_[rng.random(60), np.where(y == 1, 0.8, 0.3)]
    folds = np.arange(60) % 3
    got = cs.des_scores(X, y, S, folds)
    agree = (S[:, 0] > 0.5) == (S[:, 1] > 0.5)
    assert 0 < agree.sum() < 60
    assert_allclose(got["KNORA-E"][agree], S[agree].mean(axis=1))
    assert_allclose(got["KNORA-E"][~agree], S[~agree, 1])
    assert_allclose(got["META-DES"][agree], S[agree].mean(axis=1))
    # hard voting: the selected models' vote share, crisp with one model
    hard = cs.des_scores(X, y, S, folds, voting="hard")
    assert_allclose(hard["KNORA-E"][~agree], y[~agree])


def test_summary_gap_closed():
    import pandas as pd

    results = pd.DataFrame(
        {
            "dataset": ["a", "b"],
            "c": [0.5, 0.5],
            "single best": [0.4, 0.2],
            "oracle": [0.0, 0.1],
            "selector": [0.2, 0.2],
        }
    )
    row = cs.summarize(results).iloc[0]
    # pooled: (0.6 - 0.4) / (0.6 - 0.1) = 0.4; per dataset 0.5 and 0.0 -> median 0.25
    assert row["gap selector"] == pytest.approx(0.4)
    assert row["median gap selector"] == pytest.approx(0.25)
    assert (row["wins selector"], row["losses selector"]) == (1, 0)
