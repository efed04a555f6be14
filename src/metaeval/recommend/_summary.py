r"""Summaries of a leave-one-dataset-out evaluation, with uncertainty.

Means over held-out datasets with percentile bootstrap intervals (datasets resampled
with replacement), the closed gap of the first pick,

.. math::

    CG = \frac{\bar S_{first} - \bar S_{SB}}{\bar S_{oracle} - \bar S_{SB}}

(0 for the single best algorithm of the training datasets, 1 for the oracle; the bars
are means over held-out datasets), the paired comparison of each strategy with the
random order (the null), and Friedman/Nemenyi over held-out datasets on MIL.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from metaeval.ranking import critical_difference_data

_MEANS = ("mil", "loss_at_1", "loss_at_3", "loss_at_5")


def summarise(per_dataset, names, *, n_boot=1000, alpha=0.05, seed=0):
    """Summary table, comparison with random, and critical-difference data.

    Parameters
    ----------
    per_dataset : DataFrame
        One row per (dataset, strategy), as :attr:`RecommenderEvaluation.per_dataset`.
    names : sequence of str
        The strategies, in table order.
    n_boot : int, default=1000
    alpha : float, default=0.05
    seed : int, default=0

    Returns
    -------
    summary, versus_random : DataFrame
    critical_difference : CriticalDifferenceData or None
        None with fewer than 2 strategies or 2 datasets.
    """
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    columns = [c for c in (*_MEANS, "loss_at_budget") if c in per_dataset.columns]
    wide = {c: per_dataset.pivot(index="dataset", columns="strategy", values=c)[list(names)]
            for c in (*columns, "first_success")}
    datasets = wide["mil"].index
    base = per_dataset.drop_duplicates("dataset").set_index("dataset").loc[datasets]
    sb = base["single_best_success"].to_numpy()
    oracle = base["oracle_success"].to_numpy()
    n = len(datasets)
    rng = np.random.default_rng(seed)
    boot = rng.integers(0, n, size=(n_boot, n))
    q = (100 * alpha / 2, 100 * (1 - alpha / 2))
    rows = {"strategy": list(names), "n_datasets": n}
    for c in columns:
        values = wide[c].to_numpy()
        rows[c] = values.mean(axis=0)
        low, high = np.percentile(values[boot].mean(axis=1), q, axis=0)
        rows[f"{c}_low"], rows[f"{c}_high"] = low, high
    first = wide["first_success"].to_numpy()
    rows["closed_gap"] = _closed_gap(first.mean(axis=0), sb.mean(), oracle.mean())
    gaps = _closed_gap(first[boot].mean(axis=1), sb[boot].mean(axis=1, keepdims=True),
                       oracle[boot].mean(axis=1, keepdims=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN when oracle = SB
        rows["closed_gap_low"], rows["closed_gap_high"] = np.nanpercentile(gaps, q, axis=0)
    summary = pd.DataFrame(rows)
    versus = _versus_random(wide["mil"], names, boot, q)
    cd = None
    if len(names) >= 2 and n >= 2:
        long = wide["mil"].stack().rename("value").reset_index().rename(
            columns={"strategy": "algorithm"})
        cd = critical_difference_data(long, alpha=alpha, higher_is_better=False)
    return summary, versus, cd


def _closed_gap(first, sb, oracle):
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = (first - sb) / (oracle - sb)
    return np.where(np.isclose(oracle - sb, 0.0) * np.ones_like(gap, dtype=bool), np.nan, gap)


def _versus_random(mil, names, boot, q):
    """Paired MIL differences (random minus strategy): positive means better than random."""
    columns = ["strategy", "mil_difference", "low", "high", "wins", "losses", "p_value"]
    if "random" not in mil.columns:
        return pd.DataFrame(columns=columns)
    rows = []
    for name in names:
        if name == "random":
            continue
        d = (mil["random"] - mil[name]).to_numpy()
        low, high = np.percentile(d[boot].mean(axis=1), q)
        if np.allclose(d, 0.0):
            p = 1.0
        else:
            p = float(stats.wilcoxon(d, zero_method="wilcox").pvalue)
        rows.append((name, d.mean(), low, high, int((d > 0).sum()), int((d < 0).sum()), p))
    return pd.DataFrame(rows, columns=columns)
