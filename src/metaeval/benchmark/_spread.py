"""Task times from per-fold timings, and the spread over datasets of the benchmark means.

Each mean the benchmark tables show -- value captured, runtime score, a portfolio's
value -- is a mean over datasets (and metrics); its spread here is the standard
deviation over datasets of the per-dataset mean.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval.benchmark._checks import check_frame
from metaeval.benchmark._value import _check_captured

__all__ = ["CLOCKS", "task_times", "value_spread", "runtime_spread", "portfolio_spread"]

#: The clocks a time can be taken from: CPU time of the thread that ran the fold, or wall.
CLOCKS = ("cpu", "wall")


def task_times(timings, *, clock="cpu"):
    """Fit + predict seconds per (dataset, algorithm), from per-fold timings.

    .. math::

        T_{d,a} = \\operatorname{mean}_r \\sum_f (\\mathrm{fit}_{d,a,r,f} +
        \\mathrm{predict}_{d,a,r,f})

    Parameters
    ----------
    timings : pandas.DataFrame
        ``[dataset, algorithm, repeat, fold, fit_wall, fit_cpu, predict_wall,
        predict_cpu]`` (``Store.timings()``).
    clock : {"cpu", "wall"}, default="cpu"
        CPU time (steady on a shared machine) or wall-clock time.

    Returns
    -------
    pandas.DataFrame
        ``[dataset, algorithm, time]``; a time below the clock's resolution is raised
        to 1e-6 s so that time ratios stay finite.

    Examples
    --------
    >>> import pandas as pd
    >>> tm = pd.DataFrame({"dataset": "d", "algorithm": "A", "repeat": 0, "fold": [0, 1],
    ...                    "fit_wall": [1.0, 1.0], "fit_cpu": [0.5, 0.5],
    ...                    "predict_wall": [0.2, 0.2], "predict_cpu": [0.1, 0.1]})
    >>> task_times(tm, clock="cpu")
      dataset algorithm  time
    0       d         A   1.2
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}.")
    fit, predict = f"fit_{clock}", f"predict_{clock}"
    check_frame(timings, "timings", ("dataset", "algorithm", "repeat", fit, predict))
    if timings.empty:
        return pd.DataFrame({"dataset": pd.Series(dtype=object),
                             "algorithm": pd.Series(dtype=object),
                             "time": pd.Series(dtype=float)})
    tm = timings.assign(time=timings[fit].astype(float) + timings[predict].astype(float))
    if tm["time"].isna().any():
        raise ValueError(f"timings has no {clock} time for some folds (a store written "
                         f"without {clock} times): use the other clock.")
    per_repeat = tm.groupby(["dataset", "algorithm", "repeat"], sort=False)["time"].sum()
    out = per_repeat.groupby(level=["dataset", "algorithm"], sort=False).mean().reset_index()
    out["time"] = out["time"].clip(lower=1e-6)
    return out


def _sd(frame, column):
    grouped = frame.groupby("algorithm", sort=False)[column]
    return pd.DataFrame({"sd": grouped.std(ddof=1), "n_datasets": grouped.size()})


def value_spread(value_captured_frame):
    """Standard deviation over datasets of each algorithm's value captured.

    Per dataset, the value captured is averaged over the metrics; the spread is the
    sample standard deviation of those means over the datasets (NaN for one dataset).

    Returns
    -------
    pandas.DataFrame
        ``[algorithm, sd, n_datasets]``.

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
    ...                    "algorithm": ["A", "B", "A", "B"], "value": [100, 0, 50, 100]})
    >>> value_spread(vc)["sd"].round(2).tolist()
    [35.36, 70.71]
    """
    _check_captured(value_captured_frame)
    per_dataset = value_captured_frame.groupby(["algorithm", "dataset"], sort=False)[
        "value"].mean().reset_index()
    return _sd(per_dataset, "value").reset_index()


def runtime_spread(times, datasets):
    """Standard deviation over ``datasets`` of each algorithm's log2 time ratio to the
    fastest (the terms of :func:`runtime_score`).

    Returns
    -------
    pandas.DataFrame
        ``[algorithm, sd, n_datasets]``.
    """
    check_frame(times, "times", ("dataset", "algorithm", "time"))
    frame = times[times["dataset"].isin(list(datasets))]
    fastest = frame.groupby("dataset", sort=False)["time"].transform("min")
    frame = frame.assign(ratio=np.log2(frame["time"].to_numpy(float) / fastest.to_numpy()))
    return _sd(frame, "ratio").reset_index()


def portfolio_spread(value_captured_frame, order):
    """Standard deviation over datasets of the value of each prefix of a portfolio.

    The value of a set of algorithms on a dataset is the mean over metrics of the best
    value captured among them (:func:`portfolio_value`).

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
    order : sequence of str
        The portfolio, in order (``greedy_portfolio(...)["algorithm"]``).

    Returns
    -------
    ndarray of shape (len(order),)
    """
    _check_captured(value_captured_frame)
    cube = value_captured_frame.pivot_table(index=["dataset", "metric"], columns="algorithm",
                                            values="value", aggfunc="mean")
    out = []
    for k in range(1, len(order) + 1):
        best = cube[list(order[:k])].max(axis=1)
        per_dataset = best.groupby(level="dataset").mean()
        out.append(float(per_dataset.std(ddof=1)) if len(per_dataset) > 1 else np.nan)
    return np.asarray(out)
