"""Value captured, overall value, heat-map data and the runtime score.

After the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval.benchmark._checks import check_frame, check_numeric
from metaeval.benchmark._frames import oriented_tensor


def _ranked(algorithms, score, *, higher_is_better):
    """Tidy (algorithm, score, rank) frame, best first; ties share the average rank."""
    out = pd.DataFrame({"algorithm": list(algorithms), "score": np.asarray(score, float)})
    out["rank"] = out["score"].rank(ascending=not higher_is_better, method="average")
    out = out.sort_values(["rank", "algorithm"], kind="stable").reset_index(drop=True)
    return out


def _capture(X):
    """Value captured along the last axis of an oriented tensor (NaN = absent)."""
    absent = np.isnan(X)
    empty = absent.all(axis=-1, keepdims=True)
    Xf = np.where(empty, 0.0, X)
    q1 = np.nanpercentile(Xf, 25, axis=-1, method="linear", keepdims=True)
    best = np.nanmax(Xf, axis=-1, keepdims=True)
    span = best - q1
    tol = 1e-12 * np.maximum(1.0, np.abs(best))
    tied = span <= tol
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = 100.0 * np.clip((Xf - q1) / np.where(tied, 1.0, span), 0.0, 1.0)
    V = np.where(tied, np.where(Xf >= q1 - tol, 100.0, 0.0), ratio)
    return np.where(absent, np.nan, V)


def value_captured(metrics, *, higher_is_better=None):
    """Value captured by each algorithm on each (dataset, metric), in percent.

    Per (dataset, metric), with the metric oriented so that higher is better
    (losses negated first), :math:`Q_1` the bottom quartile and :math:`p^*`
    the best value over algorithms:

    .. math::

        \\mathrm{VC}(p) = 100 \\cdot \\max\\left(0, \\frac{p - Q_1}{p^* - Q_1}\\right).

    Parameters
    ----------
    metrics : pandas.DataFrame
        Long frame ``[dataset, algorithm, metric, value]``, one row per
        (dataset, algorithm, metric), e.g. from :func:`compute_metrics`.
    higher_is_better : mapping of str to bool, optional
        Direction of metrics not in :data:`METRICS` (or overrides).

    Returns
    -------
    pandas.DataFrame
        ``[dataset, algorithm, metric, value]`` in the input's row order, value in
        [0, 100]; rows whose metric value is NaN (undefined, e.g. AUC on a
        one-class dataset) are dropped.

    Notes
    -----
    - :math:`Q_1` is ``np.percentile(p, 25, method="linear")`` over the algorithms
      with a finite value in the cell (linear interpolation between order statistics:
      position :math:`0.25 (n - 1)` in the sorted values).
    - Values below :math:`Q_1` are clipped to 0; the best algorithm gets 100.
    - Ties: when :math:`p^* = Q_1` (up to a relative 1e-12) -- all algorithms tie,
      or the top ones tie and interpolation lands on them -- an algorithm gets
      100 when :math:`p \\ge Q_1` (it is at the best value) and 0 otherwise. So
      when all tie every algorithm gets 100: the cell does not separate them and
      shifts every overall value by the same amount.
    - The measure is invariant under increasing affine maps of the metric.

    References
    ----------
    The algorithm-benchmark web page: "the amount of value captured is the percentage of
    the range of performances ... The minimum of the calculated range is the bottom
    quartile of all performances, and the maximum is the maximum performance" (after
    Caruana & Niculescu-Mizil, 2006).

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame({"dataset": "d", "metric": "accuracy",
    ...                   "algorithm": ["A", "B", "C", "D"],
    ...                   "value": [0.6, 0.7, 0.8, 1.0]})
    >>> value_captured(m)["value"].round(2).tolist()   # Q1 = 0.675
    [0.0, 7.69, 38.46, 100.0]
    """
    _, _, _, X, flat = oriented_tensor(metrics, higher_is_better=higher_is_better)
    V = _capture(X).reshape(-1)[flat]
    out = metrics.loc[:, ["dataset", "algorithm", "metric"]].copy()
    out["value"] = V
    return out[np.isfinite(V)].reset_index(drop=True)


def _check_captured(value_captured_frame, name="value_captured_frame"):
    check_frame(value_captured_frame, name, ("dataset", "algorithm", "metric", "value"))
    v = check_numeric(value_captured_frame["value"].to_numpy(), name, "value")
    if v.min() < 0.0 or v.max() > 100.0:
        raise ValueError(f"{name}['value'] must lie in [0, 100] (value captured, in percent).")


def overall_value(value_captured_frame):
    """Overall value of each algorithm: mean value captured over datasets and metrics.

    .. math::

        \\mathrm{value}(a) = \\frac{1}{|C_a|} \\sum_{(d, m) \\in C_a} \\mathrm{VC}_{d,m}(a),

    :math:`C_a` the (dataset, metric) cells where algorithm :math:`a` has a value.

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
        Output of :func:`value_captured`.

    Returns
    -------
    pandas.DataFrame
        ``[algorithm, score, rank]``, best (highest) first; ties share the average rank.

    References
    ----------
    The algorithm-benchmark web page: "The final value is an average over all datasets
    and metrics."

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
    ...                    "algorithm": ["A", "B", "A", "B"], "value": [100, 0, 50, 100]})
    >>> overall_value(vc)
      algorithm  score  rank
    0         A   75.0   1.0
    1         B   50.0   2.0
    """
    _check_captured(value_captured_frame)
    mean = value_captured_frame.groupby("algorithm", sort=False)["value"].mean()
    return _ranked(mean.index, mean.to_numpy(), higher_is_better=True)


def value_heatmap(value_captured_frame, *, by="dataset"):
    """Heat-map data: mean value captured per algorithm and dataset (or metric).

    .. math::

        H_{a, d} = \\operatorname{mean}_m \\mathrm{VC}_{d,m}(a)
        \\quad\\text{or}\\quad
        H_{a, m} = \\operatorname{mean}_d \\mathrm{VC}_{d,m}(a).

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
        Output of :func:`value_captured`.
    by : {"dataset", "metric"}, default="dataset"
        The columns of the heat map; the other axis is averaged out.

    Returns
    -------
    pandas.DataFrame
        Wide frame, index ``algorithm`` (best overall value first), one column
        per dataset (or metric) in order of first appearance.

    References
    ----------
    The algorithm-benchmark web page: heat maps of "all algorithms against all datasets
    ... aggregated over all metrics" and "comparing algorithms on different metrics and
    aggregating across all datasets".

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
    ...                    "algorithm": ["A", "B", "A", "B"], "value": [100, 0, 50, 100]})
    >>> value_heatmap(vc, by="dataset")  # doctest: +NORMALIZE_WHITESPACE
    dataset        d      e
    algorithm
    A          100.0   50.0
    B            0.0  100.0
    """
    if by not in ("dataset", "metric"):
        raise ValueError(f"by must be 'dataset' or 'metric', got {by!r}.")
    _check_captured(value_captured_frame)
    order = overall_value(value_captured_frame)["algorithm"].tolist()
    columns = pd.unique(value_captured_frame[by])
    wide = value_captured_frame.pivot_table(
        index="algorithm", columns=by, values="value", aggfunc="mean", sort=False
    )
    return wide.reindex(index=order, columns=columns).astype(float)


def runtime_score(times, *, n_slowest=20, slowest_by="median"):
    """Runtime score: mean log2 ratio to the fastest algorithm over the slowest datasets.

    .. math::

        r(a) = \\frac{1}{|D^*|} \\sum_{d \\in D^*} \\log_2 \\frac{t_{d,a}}{\\min_b t_{d,b}},

    :math:`D^*` the ``n_slowest`` datasets with the largest median (or maximum)
    time over algorithms, or all datasets when there are fewer. Lower is faster.

    Parameters
    ----------
    times : pandas.DataFrame
        ``[dataset, algorithm, time]``, one positive time per (dataset, algorithm)
        (e.g. total fit + predict seconds over the folds).
    n_slowest : int, default=20
        How many of the slowest datasets to average over.
    slowest_by : {"median", "max"}, default="median"
        The statistic over algorithms that ranks the datasets by slowness. The
        median is robust to one pathologically slow algorithm deciding which
        datasets count; ties are broken by order of first appearance.

    Returns
    -------
    pandas.DataFrame
        ``[algorithm, score, rank]``, fastest (lowest score) first; ties share the
        average rank. ``attrs["datasets"]`` lists the datasets averaged over. An
        algorithm without a time on some of those datasets is averaged over the
        ones it has.

    References
    ----------
    The algorithm-benchmark web page: "the log (base 2) of the ratio of the given
    algorithm on a dataset to the minimum time on that dataset ... averaged over the 20
    'slowest' datasets".

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"dataset": "d", "algorithm": ["fast", "slow"], "time": [2.0, 8.0]})
    >>> runtime_score(t)
      algorithm  score  rank
    0      fast    0.0   1.0
    1      slow    2.0   2.0
    """
    check_frame(times, "times", ("dataset", "algorithm", "time"))
    if isinstance(n_slowest, bool) or not isinstance(n_slowest, (int, np.integer)):
        raise ValueError(f"n_slowest must be a positive integer, got {n_slowest!r}.")
    if n_slowest < 1:
        raise ValueError(f"n_slowest must be a positive integer, got {n_slowest!r}.")
    if slowest_by not in ("median", "max"):
        raise ValueError(f"slowest_by must be 'median' or 'max', got {slowest_by!r}.")
    t = check_numeric(times["time"].to_numpy(), "times", "time")
    if t.min() <= 0.0:
        raise ValueError("times['time'] must be positive (a log ratio of times is taken).")
    if times.duplicated(["dataset", "algorithm"]).any():
        raise ValueError(
            "times has more than one row for some (dataset, algorithm); "
            "sum or average the folds first."
        )
    frame = times.loc[:, ["dataset", "algorithm"]].assign(time=t)
    per_dataset = frame.groupby("dataset", sort=False)["time"]
    slowness = per_dataset.median() if slowest_by == "median" else per_dataset.max()
    chosen = slowness.sort_values(ascending=False, kind="stable").index[:n_slowest]
    frame = frame[frame["dataset"].isin(chosen)]
    fastest = frame.groupby("dataset", sort=False)["time"].transform("min")
    frame = frame.assign(score=np.log2(frame["time"].to_numpy() / fastest.to_numpy()))
    mean = frame.groupby("algorithm", sort=False)["score"].mean()
    out = _ranked(mean.index, mean.to_numpy(), higher_is_better=False)
    out.attrs["datasets"] = list(chosen)
    return out
