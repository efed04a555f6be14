"""Private helpers: turn long metric frames into oriented tensors (higher = better)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from metaeval.benchmark._checks import check_frame, check_numeric
from metaeval.benchmark._metrics import METRICS


def directions(metric_names, higher_is_better):
    """Return a bool array: True where the metric is higher-is-better."""
    if higher_is_better is not None and not isinstance(higher_is_better, Mapping):
        raise ValueError(
            "higher_is_better must be a mapping from metric name to bool, "
            f"got {type(higher_is_better).__name__}."
        )
    extra = dict(higher_is_better or {})
    out = np.empty(len(metric_names), dtype=bool)
    for i, m in enumerate(metric_names):
        if m in extra:
            out[i] = bool(extra[m])
        elif m in METRICS:
            out[i] = METRICS[m].higher_is_better
        else:
            raise ValueError(
                f"metric {m!r} is not in metaeval.benchmark.METRICS; say whether higher is "
                "better with higher_is_better={name: bool}."
            )
    return out


def oriented_tensor(metrics, *, name="metrics", higher_is_better=None, complete=False):
    """Pivot a long metric frame to a tensor ``X[dataset, metric, algorithm]``, higher = better.

    Loss metrics are negated. Labels keep their order of first appearance.
    Missing combinations and NaN values are NaN, or a ``ValueError`` when
    ``complete`` is true. Also returns, per input row, its flat position.
    """
    check_frame(metrics, name, ("dataset", "algorithm", "metric", "value"))
    values = check_numeric(metrics["value"].to_numpy(), name, "value", allow_nan=True)
    codes, labels = [], []
    for column in ("dataset", "metric", "algorithm"):
        c, u = pd.factorize(metrics[column], sort=False)
        if (c < 0).any():
            raise ValueError(f"{name}[{column!r}] contains missing labels.")
        codes.append(c)
        labels.append(list(u))
    datasets, metric_names, algorithms = labels
    shape = (len(datasets), len(metric_names), len(algorithms))
    flat = np.ravel_multi_index(tuple(codes), shape)
    if np.unique(flat).size != flat.size:
        raise ValueError(
            f"{name} has more than one row for some (dataset, algorithm, metric); "
            "aggregate repeats or folds first (e.g. compute_metrics(..., level='pooled'))."
        )
    sign = np.where(directions(metric_names, higher_is_better), 1.0, -1.0)
    X = np.full(shape, np.nan)
    X.reshape(-1)[flat] = values * sign[codes[1]]
    if complete and np.isnan(X).any():
        d, m, a = np.argwhere(np.isnan(X))[0]
        raise ValueError(
            f"{name} does not hold a finite value for every (dataset, metric, algorithm); "
            f"e.g. dataset={datasets[d]!r}, metric={metric_names[m]!r}, "
            f"algorithm={algorithms[a]!r} is missing or NaN. Drop that dataset or metric first."
        )
    return datasets, metric_names, algorithms, X, flat
