"""How much a ranking's scores would move on other datasets: a bootstrap over datasets.

Every ranking method aggregates per-dataset quantities over the datasets (ranks for AR,
success ratios for SRR, significant wins for SW, adjusted ratios of ratios for ARR and
A3R), so resampling the datasets with replacement and aggregating again gives each
algorithm's score under other draws of datasets from the same population. The interval
is the percentile interval of those scores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval.ranking._frames import _positive, _ranks, _success_matrix, _time_matrix
from metaeval.ranking._methods import (
    RANKING_METHODS,
    _check_accd,
    _root_exponent,
    _significance_per_dataset,
    _success_ratios,
    _time_ratios,
)

__all__ = ["ranking_intervals"]


def _pieces(success, times, method, *, higher_is_better, accd, n, alpha):
    """Per-dataset pieces (n_datasets, ...) and the function aggregating a resample."""
    if method == "sw":
        algorithms, wins, _ = _significance_per_dataset(success, alpha, higher_is_better)
        k = len(algorithms)
        off = ~np.eye(k, dtype=bool)

        def aggregate(piece):  # (B, n_d, k, k) -> (B, k)
            return np.where(off, piece.mean(axis=1), 0.0).sum(axis=-1) / (k - 1)
        return list(algorithms), wins.astype(float), aggregate
    matrix = _success_matrix(success)
    algorithms = list(matrix.algorithms)
    if method == "ar":
        return algorithms, _ranks(matrix.values, higher_is_better), lambda p: p.mean(axis=1)
    _positive(matrix)
    k = len(algorithms)
    off = ~np.eye(k, dtype=bool)
    ratios = _success_ratios(matrix.values, higher_is_better)
    if method == "srr":
        def aggregate(piece):
            return np.where(off, piece.mean(axis=1), 0.0).sum(axis=-1) / (k - 1)
        return algorithms, ratios, aggregate
    t = _time_matrix(times, matrix.datasets, matrix.algorithms)
    if method == "arr":
        denominator = 1.0 + accd * np.log10(_time_ratios(t))
        with np.errstate(divide="ignore", invalid="ignore"):
            per_dataset = np.where(denominator <= 0, np.nan, ratios / denominator)
    else:
        per_dataset = ratios / _time_ratios(t) ** _root_exponent(n, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(per_dataset)

    def aggregate(piece):  # geometric mean over datasets, arithmetic over rivals
        return np.where(off, np.exp(piece.mean(axis=1)), 0.0).sum(axis=-1) / (k - 1)
    return algorithms, logs, aggregate


def ranking_intervals(success, times=None, method="ar", *, higher_is_better=True, accd=0.1,
                      n=8, alpha=0.05, B=1000, level=0.95, seed=0):
    r"""Bootstrap interval of each algorithm's ranking score, resampling the datasets.

    The datasets are drawn :math:`B` times with replacement; each draw is aggregated as
    the method aggregates the study's datasets (:func:`rank_algorithms`), giving
    :math:`B` scores per algorithm, of which the percentile interval at ``level`` is
    returned, with their standard deviation (the bootstrap standard error).

    Parameters
    ----------
    success : DataFrame
        Long frame ``[dataset, algorithm, (fold,) value]`` as for :func:`rank_algorithms`.
    times : DataFrame, optional
        Long frame ``[dataset, algorithm, (fold,) time]``; needed by ``"arr"`` and
        ``"a3r"``.
    method : {"ar", "srr", "sw", "arr", "a3r"}, default="ar"
    higher_is_better : bool, default=True
    accd : float, default=0.1
        ARR's accuracy traded for a ten-fold speed-up.
    n : float, default=8
        A3R's root of the time ratio.
    alpha : float, default=0.05
        SW's significance level.
    B : int, default=1000
        Bootstrap draws.
    level : float, default=0.95
        Coverage of the interval.
    seed : int, default=0
        Random seed of the draws.

    Returns
    -------
    DataFrame
        Columns ``algorithm``, ``low``, ``high``, ``se``, one row per algorithm in the
        order of the success frame. An ARR draw that meets the method's pole (a
        non-positive denominator) gives NaN and is left out of its algorithm's interval.

    References
    ----------
    Abdulrahman & Brazdil (2014), "Measures for combining accuracy and time for
    meta-learning", for the methods; Efron & Tibshirani (1993), *An Introduction to the
    Bootstrap*, ch. 13, for the percentile interval.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2", "d3", "d3"],
    ...                     "algorithm": ["A", "B"] * 3,
    ...                     "value": [0.9, 0.6, 0.8, 0.7, 0.7, 0.8]})
    >>> ci = ranking_intervals(acc, method="ar", B=200)
    >>> ci["algorithm"].tolist(), float(ci["low"].min()) >= 1.0
    (['A', 'B'], True)
    """
    if method not in RANKING_METHODS:
        raise ValueError(f"method must be one of {RANKING_METHODS}, got {method!r}.")
    if method in ("arr", "a3r") and times is None:
        raise ValueError(f"method={method!r} needs times (a [dataset, algorithm, time] frame).")
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise ValueError(f"B must be a positive integer, got {B!r}.")
    if not (isinstance(level, (int, float)) and 0 < level < 1):
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}.")
    if method == "arr":
        accd = _check_accd(accd)
    algorithms, pieces, aggregate = _pieces(success, times, method,
                                            higher_is_better=higher_is_better,
                                            accd=accd, n=n, alpha=alpha)
    rng = np.random.default_rng(seed)
    n_datasets = pieces.shape[0]
    scores = np.empty((int(B), len(algorithms)))
    chunk = max(1, 2_000_000 // max(1, pieces[0].size * n_datasets))
    for start in range(0, int(B), chunk):
        stop = min(int(B), start + chunk)
        idx = rng.integers(0, n_datasets, size=(stop - start, n_datasets))
        with np.errstate(invalid="ignore", over="ignore"):
            scores[start:stop] = aggregate(pieces[idx])
    tail = 100 * (1 - level) / 2
    with np.errstate(invalid="ignore"):
        low, high = np.nanpercentile(scores, [tail, 100 - tail], axis=0) if np.isfinite(
            scores).any() else (np.full(len(algorithms), np.nan),) * 2
        se = np.nanstd(scores, axis=0, ddof=1) if B > 1 else np.full(len(algorithms), np.nan)
    return pd.DataFrame({"algorithm": algorithms, "low": low, "high": high, "se": se})
