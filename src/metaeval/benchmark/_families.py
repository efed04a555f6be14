"""Benchmark analytics by algorithm family: metrics and value captured per family.

A family (``knn``, ``rf``, ... the part of a configuration's name before the colon, see
:func:`metaeval.algorithms.family_of`) is represented in each (dataset, metric) cell by
its best member there (the family as tuned for that metric on that dataset; the
default) or by the mean of its members. The frames returned have the shape of the
per-algorithm ones, with family names in the ``algorithm`` column, so
:func:`overall_value`, :func:`value_heatmap`, :func:`value_spread` and
:func:`greedy_portfolio` apply to families unchanged. Pure: frames in, frames out.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from metaeval.benchmark._checks import check_frame
from metaeval.benchmark._frames import directions, oriented_tensor
from metaeval.benchmark._value import _check_captured, overall_value

#: How a family is represented in a cell: its best member, or the mean of its members.
FAMILY_HOW = ("best", "mean")


def _check_how(how):
    if not isinstance(how, str) or how not in FAMILY_HOW:
        raise ValueError(f"how must be one of {FAMILY_HOW}, got {how!r}.")
    return how


def _family_of(algorithms, families, name):
    """Family of each algorithm, in order; a ValueError naming ``families`` on a gap."""
    if not isinstance(families, Mapping):
        raise ValueError(
            f"families must be a mapping of algorithm -> family, got {type(families).__name__}."
        )
    missing = [a for a in algorithms if a not in families]
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (" ..." if len(missing) > 5 else "")
        raise ValueError(f"families has no family for {len(missing)} algorithm(s) of {name}: "
                         f"{shown}.")
    out = [families[a] for a in algorithms]
    bad = [a for a, f in zip(algorithms, out, strict=True) if not isinstance(f, str) or not f]
    if bad:
        raise ValueError(f"families must map each algorithm to a non-empty str; "
                         f"{bad[:5]} are not.")
    return out


def family_metrics(metrics, families, *, how="best", higher_is_better=None):
    """Metric values of each family: its best member's per (dataset, metric), or the mean.

    Parameters
    ----------
    metrics : pandas.DataFrame
        Long frame ``[dataset, algorithm, metric, value]`` (e.g. from
        :func:`compute_metrics`), one row per (dataset, algorithm, metric).
    families : mapping of str to str
        The family of each algorithm (e.g. :func:`metaeval.algorithms.families`); it
        must name every algorithm of ``metrics``.
    how : {"best", "mean"}, default="best"
        ``"best"``: the value of the family's best member on that metric and dataset
        (the largest, or the smallest for a loss); ``"mean"``: the mean over its members.
    higher_is_better : mapping of str to bool, optional
        Direction of metrics not in :data:`METRICS` (or overrides).

    Returns
    -------
    pandas.DataFrame
        ``[dataset, algorithm, metric, value]``, ``algorithm`` holding family names, one
        row per (dataset, family, metric) with at least one member's value (NaN values
        of members are left out); datasets, families and metrics in order of first
        appearance.

    Examples
    --------
    Two families of two members on one dataset; log loss is lower-is-better:

    >>> import pandas as pd
    >>> m = pd.DataFrame({"dataset": "d", "algorithm": ["a1", "a2", "b1", "b2"] * 2,
    ...                   "metric": ["accuracy"] * 4 + ["log_loss"] * 4,
    ...                   "value": [0.9, 0.7, 0.8, 0.6, 0.3, 0.5, 0.2, 0.4]})
    >>> fams = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    >>> family_metrics(m, fams)
      dataset algorithm    metric  value
    0       d         a  accuracy    0.9
    1       d         a  log_loss    0.3
    2       d         b  accuracy    0.8
    3       d         b  log_loss    0.2
    >>> family_metrics(m, fams, how="mean")["value"].round(2).tolist()
    [0.8, 0.4, 0.7, 0.3]
    """
    how = _check_how(how)
    datasets, names, algorithms, X, _ = oriented_tensor(
        metrics, higher_is_better=higher_is_better)
    fam = _family_of(algorithms, families, "metrics")
    codes, fam_names = pd.factorize(np.asarray(fam, dtype=object), sort=False)
    direction = np.where(directions(names, higher_is_better), 1.0, -1.0)
    out = np.full(X.shape[:2] + (len(fam_names),), np.nan)  # (datasets, metrics, families)
    with warnings.catch_warnings():  # an all-NaN cell: NaN, dropped below
        warnings.simplefilter("ignore", RuntimeWarning)
        for f in range(len(fam_names)):
            block = X[:, :, codes == f]
            out[:, :, f] = np.nanmax(block, axis=2) if how == "best" else np.nanmean(block,
                                                                                  axis=2)
    raw = out * direction[None, :, None]  # back to the metric's own sign
    d, m, f = np.nonzero(np.isfinite(raw))
    frame = pd.DataFrame({
        "dataset": np.asarray(datasets, dtype=object)[d],
        "algorithm": np.asarray(fam_names, dtype=object)[f],
        "metric": np.asarray(names, dtype=object)[m],
        "value": raw[d, m, f],
    })
    order = np.lexsort((m, f, d))
    return frame.iloc[order].reset_index(drop=True)


def family_value_captured(value_captured_frame, families, *, how="best"):
    """Value captured by each family in each (dataset, metric) cell, in percent.

    The value captured of a family's best member in the cell (``how="best"``), or the
    mean over its members (``how="mean"``), both measured against the whole pool (the
    bottom quartile and the best value of every algorithm, as in :func:`value_captured`).

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
        Output of :func:`value_captured` over the algorithms.
    families : mapping of str to str
        The family of each algorithm; it must name every algorithm of the frame.
    how : {"best", "mean"}, default="best"

    Returns
    -------
    pandas.DataFrame
        ``[dataset, algorithm, metric, value]`` with family names in ``algorithm``, in
        [0, 100]; it feeds :func:`overall_value`, :func:`value_heatmap`,
        :func:`value_spread` and :func:`greedy_portfolio` as is.

    References
    ----------
    The algorithm-benchmark web page on value captured (after Caruana &
    Niculescu-Mizil 2006).

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d"] * 4 + ["e"] * 4, "metric": "auc",
    ...                    "algorithm": ["a1", "a2", "b1", "b2"] * 2,
    ...                    "value": [100, 0, 40, 60, 0, 20, 100, 50]})
    >>> fams = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    >>> overall_value(family_value_captured(vc, fams))
      algorithm  score  rank
    0         b   80.0   1.0
    1         a   60.0   2.0
    """
    how = _check_how(how)
    _check_captured(value_captured_frame)
    algorithms = pd.unique(value_captured_frame["algorithm"])
    mapping = dict(zip(algorithms, _family_of(list(algorithms), families,
                                              "value_captured_frame"), strict=True))
    frame = value_captured_frame.assign(
        algorithm=value_captured_frame["algorithm"].map(mapping))
    grouped = frame.groupby(["dataset", "algorithm", "metric"], sort=False)["value"]
    out = grouped.max() if how == "best" else grouped.mean()
    return out.reset_index()[["dataset", "algorithm", "metric", "value"]]


def family_value(value_captured_frame, families):
    """One row per family: its value captured with its best member per cell, and more.

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
        Output of :func:`value_captured` over the algorithms.
    families : mapping of str to str
        The family of each algorithm; it must name every algorithm of the frame.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``; ``score``, the overall value (%) of the family with its best
        member in each (dataset, metric) cell; ``rank`` (by ``score``, 1 = best);
        ``configurations``; ``mean``, the mean of its members' overall values;
        ``best member``, its member of highest overall value, and ``best member score``,
        that value. Best first. ``score >= best member score >= mean`` always: a
        member tuned per cell does at least as well as any one member, which does at
        least as well as the average member.

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d"] * 4 + ["e"] * 4, "metric": "auc",
    ...                    "algorithm": ["a1", "a2", "b1", "b2"] * 2,
    ...                    "value": [100, 0, 40, 60, 0, 20, 100, 50]})
    >>> fams = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    >>> family_value(vc, fams).to_dict("records")[0]
    ... # doctest: +NORMALIZE_WHITESPACE
    {'family': 'b', 'score': 80.0, 'rank': 1.0, 'configurations': 2, 'mean': 62.5,
     'best member': 'b1', 'best member score': 70.0}
    """
    check_frame(value_captured_frame, "value_captured_frame",
                ("dataset", "algorithm", "metric", "value"))
    best = overall_value(family_value_captured(value_captured_frame, families, how="best"))
    members = overall_value(value_captured_frame)
    fam = dict(zip(members["algorithm"],
                   _family_of(members["algorithm"].tolist(), families, "value_captured_frame"),
                   strict=True))
    members = members.assign(family=members["algorithm"].map(fam))
    grouped = members.groupby("family", sort=False)
    top = members.loc[grouped["score"].idxmax()].set_index("family")  # best first: ties
    out = best.rename(columns={"algorithm": "family"})
    out["configurations"] = out["family"].map(grouped.size()).astype(int)
    out["mean"] = out["family"].map(grouped["score"].mean())
    out["best member"] = out["family"].map(top["algorithm"])
    out["best member score"] = out["family"].map(top["score"])
    return out.reset_index(drop=True)
