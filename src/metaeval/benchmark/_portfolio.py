"""Greedy algorithm portfolios that capture value quickly.

After the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval.benchmark._checks import check_frame, check_numeric
from metaeval.benchmark._frames import oriented_tensor
from metaeval.benchmark._value import _check_captured


def _captured_matrix(value_captured_frame):
    """Value captured as a (cells, algorithms) matrix, cells = (dataset, metric)."""
    _check_captured(value_captured_frame)
    datasets, metrics, algorithms, X, _ = oriented_tensor(
        value_captured_frame,
        name="value_captured_frame",
        higher_is_better={m: True for m in pd.unique(value_captured_frame["metric"])},
        complete=True,
    )
    return datasets, algorithms, X.reshape(-1, len(algorithms))


def coverage(V, members):
    """f(S) on a (cells, algorithms) matrix: mean over cells of the best member (0 if empty)."""
    members = np.asarray(members, dtype=np.intp)
    if members.size == 0:
        return 0.0
    return float(V[:, members].max(axis=1).mean())


def portfolio_value(value_captured_frame, algorithms):
    """Value of a portfolio: mean over (dataset, metric) of its best member's value captured.

    .. math::

        f(S) = \\frac{1}{|D||M|} \\sum_{d, m} \\max_{a \\in S} \\mathrm{VC}_{d,m}(a),
        \\qquad f(\\emptyset) = 0.

    :math:`f` is monotone and submodular (a facility-location / coverage function
    of non-negative weights).

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
        Output of :func:`value_captured`, complete over (dataset, metric, algorithm).
    algorithms : sequence of str
        The portfolio :math:`S`.

    Returns
    -------
    float
        :math:`f(S)`, in percent.

    References
    ----------
    The algorithm-benchmark web page: "select a sequence of algorithms that will capture
    value as we've defined it as quickly as possible"; Nemhauser, Wolsey & Fisher
    (1978).

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d", "d", "e", "e"], "metric": "auc",
    ...                    "algorithm": ["A", "B", "A", "B"], "value": [100, 0, 50, 100]})
    >>> portfolio_value(vc, ["A"]), portfolio_value(vc, ["A", "B"])
    (75.0, 100.0)
    """
    _, names, V = _captured_matrix(value_captured_frame)
    if isinstance(algorithms, str):
        raise ValueError("algorithms must be a sequence of names, not a single string.")
    pos = {a: i for i, a in enumerate(names)}
    unknown = [a for a in algorithms if a not in pos]
    if unknown:
        raise ValueError(f"algorithms contains unknown name(s) {unknown}; known: {names}.")
    return coverage(V, [pos[a] for a in dict.fromkeys(algorithms)])


def greedy_order(V, cost=None):
    """Greedy order on a (cells, algorithms) matrix: (order, gains, values).

    Each step adds the algorithm with the largest marginal gain (or, with
    ``cost``, the largest gain per unit cost, ties to the cheaper); remaining
    ties go to the earlier column.
    """
    n_cells, n_alg = V.shape
    best = np.zeros(n_cells)
    current = 0.0
    remaining = list(range(n_alg))
    order, gains, values = [], [], []
    for _ in range(n_alg):
        cand = np.asarray(remaining)
        f_new = np.maximum(best[:, None], V[:, cand]).mean(axis=0)
        gain = np.maximum(f_new - current, 0.0)
        if cost is None:
            pick = int(np.argmax(gain))
        else:
            c = cost[cand]
            pick = int(np.lexsort((np.arange(cand.size), c, -(gain / c)))[0])
        a = int(cand[pick])
        order.append(a)
        gains.append(float(gain[pick]))
        best = np.maximum(best, V[:, a])
        current = float(best.mean())
        values.append(current)
        remaining.remove(a)
    return order, gains, values


def greedy_portfolio(value_captured_frame, times=None, *, cost_aware=False):
    """Greedy sequence of algorithms that captures value as quickly as possible.

    Step :math:`k` adds

    .. math::

        a_k = \\arg\\max_{a \\notin S_{k-1}} f(S_{k-1} \\cup \\{a\\}) - f(S_{k-1})
        \\quad\\left(\\text{cost-aware: } \\frac{f(S_{k-1} \\cup \\{a\\}) -
        f(S_{k-1})}{T_a}\\right),

    with :math:`f` as in :func:`portfolio_value` and :math:`T_a` the total
    runtime of algorithm :math:`a` over the datasets. Since :math:`f` is monotone
    submodular, :math:`f(S_k) \\ge (1 - 1/e) \\max_{|S| = k} f(S)` for the plain
    greedy order.

    Parameters
    ----------
    value_captured_frame : pandas.DataFrame
        Output of :func:`value_captured`, complete over (dataset, metric, algorithm).
    times : pandas.DataFrame, optional
        ``[dataset, algorithm, time]`` with a positive time for every (dataset,
        algorithm) of ``value_captured_frame`` (other datasets are ignored).
        Needed when ``cost_aware``; when given, time columns are added.
    cost_aware : bool, default=False
        Maximise the marginal gain per second instead of the gain.

    Returns
    -------
    pandas.DataFrame
        One row per step: ``step`` (1-based), ``algorithm``, ``gain`` (marginal
        gain of that step), ``value`` (:math:`f(S_k)`); with ``times`` also
        ``time`` (:math:`T_a`), ``gain_per_second`` and ``cumulative_time``.

    Notes
    -----
    All algorithms are ordered, so steps with zero gain come last. Ties go to the
    algorithm that appears first in the frame (cost-aware: to the cheaper one
    first). The cost-aware ratio rule has no constant-factor guarantee on its
    own (a budgeted variant needs partial enumeration, Khuller, Moss & Naor 1999);
    it is the natural "value per second" heuristic.

    References
    ----------
    The algorithm-benchmark web page: "we use techniques from submodular optimization to
    select a sequence of algorithms that will capture value ... as quickly as possible";
    Nemhauser, Wolsey & Fisher (1978), Math. Programming 14, the (1 - 1/e) bound.

    Examples
    --------
    >>> import pandas as pd
    >>> vc = pd.DataFrame({"dataset": ["d", "d", "d", "e", "e", "e"], "metric": "auc",
    ...                    "algorithm": ["A", "B", "C"] * 2,
    ...                    "value": [100, 90, 0, 0, 60, 100]})
    >>> greedy_portfolio(vc)
       step algorithm  gain  value
    0     1         B  75.0   75.0
    1     2         C  20.0   95.0
    2     3         A   5.0  100.0
    """
    if not isinstance(cost_aware, bool):
        raise ValueError(f"cost_aware must be a bool, got {cost_aware!r}.")
    datasets, names, V = _captured_matrix(value_captured_frame)
    cost = None
    if times is not None:
        check_frame(times, "times", ("dataset", "algorithm", "time"))
        t = check_numeric(times["time"].to_numpy(), "times", "time")
        if t.min() <= 0.0:
            raise ValueError("times['time'] must be positive.")
        frame = times.loc[:, ["dataset", "algorithm"]].assign(time=t)
        frame = frame[frame["dataset"].isin(datasets)]
        if frame.duplicated(["dataset", "algorithm"]).any():
            raise ValueError("times has more than one row for some (dataset, algorithm).")
        have = set(zip(frame["dataset"], frame["algorithm"], strict=True))
        missing = [(d, a) for d in datasets for a in names if (d, a) not in have]
        if missing:
            raise ValueError(
                f"times lacks {len(missing)} (dataset, algorithm) pair(s) of "
                f"value_captured_frame, e.g. {missing[0]}."
            )
        cost = frame.groupby("algorithm")["time"].sum().reindex(names).to_numpy()
    elif cost_aware:
        raise ValueError("cost_aware=True needs times.")
    order, gains, values = greedy_order(V, cost if cost_aware else None)
    out = pd.DataFrame(
        {
            "step": np.arange(1, len(order) + 1),
            "algorithm": [names[a] for a in order],
            "gain": gains,
            "value": values,
        }
    )
    if cost is not None:
        out["time"] = cost[order]
        out["gain_per_second"] = out["gain"] / out["time"]
        out["cumulative_time"] = np.cumsum(cost[order])
    return out
