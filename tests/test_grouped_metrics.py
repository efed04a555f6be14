"""The vectorised metrics of many groups agree with scikit-learn, group by group."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.benchmark import METRICS, compute_metrics
from metaeval.benchmark._grouped import GROUPED, grouped_metrics


def _groups(seed):
    rng = np.random.default_rng(seed)
    frames = []
    for d in range(6):
        for a in ("A", "B"):  # two algorithms: every group edge case is per (d, fold)
            for fold in range(4):
                n = int(rng.integers(1, 30))
                y = rng.integers(0, 2, n)
                if (d + fold) % 5 == 0:
                    y[:] = d % 2  # one class only
                s = np.round(rng.random(n), 1)  # many ties
                if fold == 3:
                    s[: n // 2] = 0.5  # ties at the threshold
                if d == 5:
                    s = np.where(rng.random(n) < 0.2, float(d % 2), s)  # scores of 0 and 1
                frames.append(pd.DataFrame({"dataset": f"d{d}", "algorithm": a,
                                            "fold": fold, "y": y, "score": s}))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.filterwarnings("ignore:A single label was found:UserWarning")
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", ["fold", "pooled"])
def test_compute_metrics_matches_sklearn_group_by_group(seed, level):
    scores = _groups(seed)
    got = compute_metrics(scores, metrics=list(METRICS)[:10], level=level)
    keys = ["dataset", "algorithm"] + (["fold"] if level == "fold" else [])
    rows = []
    for key, g in scores.groupby(keys, sort=True):
        for name in list(METRICS)[:10]:
            rows.append((*key, name, METRICS[name](g["y"].to_numpy(), g["score"].to_numpy())))
    expected = pd.DataFrame(rows, columns=[*keys, "metric", "value"])
    assert got[keys + ["metric"]].astype(str).equals(expected[keys + ["metric"]].astype(str))
    np.testing.assert_allclose(got["value"], expected["value"], rtol=1e-12, atol=1e-12,
                               equal_nan=True)


def test_grouped_metrics_one_instance_per_group_and_bad_names():
    y = np.array([0, 1, 1])
    s = np.array([0.2, 0.7, 0.4])
    out = grouped_metrics(y, s, np.arange(3), 3, GROUPED)
    assert out["accuracy"].tolist() == [1.0, 1.0, 0.0]
    assert np.isnan(out["auc"]).all()
    with pytest.raises(ValueError, match="not computed here"):
        grouped_metrics(y, s, np.arange(3), 3, ["hardness:rate-driven"])
