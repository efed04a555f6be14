"""How often a metric's verdict on a pair of algorithms is a lonely one.

After the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from metaeval.benchmark._frames import oriented_tensor


@dataclass(frozen=True)
class MetricDisagreement:
    """Result of :func:`metric_disagreement`.

    Attributes
    ----------
    per_metric : pandas.DataFrame
        ``[metric, error_cases, preferences, comparisons, error_rate]``, lowest
        error rate first: ``preferences`` counts the comparisons where the metric
        prefers one algorithm, ``error_rate = error_cases / comparisons``.
    n_comparisons : int
        Number of comparisons: datasets times unordered pairs of algorithms.
    all_agree : float
        Share of comparisons on which every metric gives the same verdict.
    k : int
        The minority size used.
    """

    per_metric: pd.DataFrame
    n_comparisons: int
    all_agree: float
    k: int


def preferences(X, *, tol=0.0):
    """Verdicts of every metric on every pair: array (n_datasets, n_pairs, n_metrics).

    ``X[dataset, metric, algorithm]`` is oriented (higher is better). For the
    pair (a, b), a < b, the verdict is +1 when a is better by more than ``tol``,
    -1 when b is, 0 for a tie.
    """
    a, b = np.triu_indices(X.shape[2], k=1)
    diff = X[:, :, a] - X[:, :, b]
    pref = (diff > tol).astype(np.int8)
    pref -= diff < -tol
    return np.moveaxis(pref, 1, 2)


def metric_disagreement(metrics, *, k=2, tol=0.0, higher_is_better=None):
    """Error-case rate of each metric and the share of comparisons all metrics agree on.

    For every dataset and every unordered pair of algorithms, each metric
    :math:`m` gives a verdict :math:`v_m \\in \\{-1, 0, +1\\}` (which algorithm is
    better, losses flipped; 0 for a tie). With :math:`M` metrics, :math:`m` has
    an *error case* on that comparison when

    .. math::

        v_m \\neq 0 \\quad\\text{and}\\quad
        \\#\\{j \\neq m : v_j = v_m\\} \\le k .

    Parameters
    ----------
    metrics : pandas.DataFrame
        ``[dataset, algorithm, metric, value]`` with a finite value for every
        (dataset, algorithm, metric).
    k : int, default=2
        Minority size: an error case needs at most ``k`` of the other metrics to agree.
    tol : float, default=0.0
        Differences with absolute value at most ``tol`` are ties.
    higher_is_better : mapping of str to bool, optional
        Direction of metrics not in :data:`METRICS`.

    Returns
    -------
    MetricDisagreement

    Notes
    -----
    Ties: a metric that ties the two algorithms expresses no preference, so it
    has no error case on that comparison and does not count as agreeing with
    a metric that prefers one of them. The error-case rate is over all
    comparisons (``error_cases / n_comparisons``); ``preferences`` gives the
    denominator of the rate among comparisons where the metric has a verdict.
    All metrics *agree* on a comparison when their verdicts are identical (the
    same winner, or a tie for all).

    References
    ----------
    The algorithm-benchmark web page: "a metric m has an 'Error Case' if ... m suggests
    that the former algorithm is better, and only a minority of size k or less of the
    other metrics agree with m"; "all metrics agree in only (%) of those comparisons".

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame({"dataset": "d", "algorithm": ["A", "B"] * 3,
    ...                   "metric": ["accuracy"] * 2 + ["auc"] * 2 + ["brier"] * 2,
    ...                   "value": [0.9, 0.8, 0.7, 0.8, 0.1, 0.2]})
    >>> r = metric_disagreement(m, k=0)
    >>> r.per_metric[["metric", "error_cases", "error_rate"]]
         metric  error_cases  error_rate
    0  accuracy            0         0.0
    1     brier            0         0.0
    2       auc            1         1.0
    >>> r.all_agree
    0.0
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}.")
    if not (np.isscalar(tol) and np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}.")
    _, names, algorithms, X, _ = oriented_tensor(
        metrics, higher_is_better=higher_is_better, complete=True
    )
    if len(algorithms) < 2:
        raise ValueError("metrics must hold at least two algorithms to compare.")
    if len(names) < 2:
        raise ValueError("metrics must hold at least two metrics to disagree.")
    # counted one dataset at a time: 500 algorithms make 124,750 pairs, and their
    # differences for 100 datasets and 10 metrics a gigabyte
    errors = np.zeros(len(names), dtype=np.int64)
    preferring = np.zeros(len(names), dtype=np.int64)
    n = agreeing = 0
    for d in range(X.shape[0]):
        pref = preferences(X[d:d + 1], tol=tol).reshape(-1, len(names))  # (pairs, metrics)
        n_pos = (pref == 1).sum(axis=1, keepdims=True)
        n_neg = (pref == -1).sum(axis=1, keepdims=True)
        others_agreeing = np.where(pref == 1, n_pos, n_neg) - 1
        error = (pref != 0) & (others_agreeing <= k)
        errors += error.sum(axis=0)
        preferring += (pref != 0).sum(axis=0)
        agreeing += int((pref == pref[:, :1]).all(axis=1).sum())
        n += pref.shape[0]
    per_metric = pd.DataFrame(
        {
            "metric": names,
            "error_cases": errors,
            "preferences": preferring,
            "comparisons": n,
            "error_rate": errors / n,
        }
    )
    per_metric = per_metric.sort_values("error_rate", kind="stable").reset_index(drop=True)
    return MetricDisagreement(per_metric, int(n), agreeing / n, int(k))
