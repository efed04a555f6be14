"""A model of each configuration's time from a dataset's rows and columns, and its error
leave-one-family-out (the first step towards plans within a time budget).

Per configuration :math:`c`, the log of the recorded time of one cross-validation is
modelled as linear in the log of the rows :math:`n` and of the columns :math:`p`,

.. math:: \\log T_c = a_c + b_c \\log n + g_c \\log p,

fitted by least squares over the training datasets. The error is measured as the median
over (held-out dataset, configuration) cells of :math:`|\\log(\\hat T / T)|`, each
dataset's family held out whole, beside the same error of the prediction
``recommend`` shows today (the geometric mean over the past datasets of their times
scaled linearly by rows).
"""

from __future__ import annotations

import warnings

import numpy as np


def fit_time_model(rows, columns, times) -> np.ndarray:
    """Least-squares coefficients (A, 3) of :math:`\\log T = a + b \\log n + g \\log p`
    for each configuration (column of ``times``, shape (D, A)).

    Examples
    --------
    Times exactly ``2 n p**0.5``:

    >>> n, p = np.array([100., 1000, 10000, 500]), np.array([4., 16, 9, 25])
    >>> fit_time_model(n, p, (2 * n * p**0.5)[:, None]).round(6).tolist()
    [[0.693147, 1.0, 0.5]]
    """
    X = _design(rows, columns)
    coef, *_ = np.linalg.lstsq(X, np.log(np.asarray(times, dtype=np.float64)), rcond=None)
    return coef.T


def predict_times(coef, rows, columns) -> np.ndarray:
    """Predicted times (N, A) of every configuration on datasets of ``rows`` x
    ``columns``."""
    return np.exp(_design(rows, columns) @ np.asarray(coef).T)


def time_model_errors(rows, columns, times, families) -> dict:
    """Median :math:`|\\log(\\hat T / T)|` leave-one-family-out of :func:`fit_time_model`
    (``"rows and columns"``) and of the linear-in-rows geometric mean (``"rows,
    linear"``), over every (dataset, configuration) cell with a recorded time (a failed
    cell, NaN or not positive, is scored nowhere; a configuration is fitted on its
    recorded training cells, and the linear prediction imputes its median)."""
    rows = np.asarray(rows, dtype=np.float64)
    columns = np.asarray(columns, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    families = np.asarray(families, dtype=object)
    ok = np.isfinite(times) & (times > 0)
    model = np.full(times.shape, np.nan)
    linear = np.full(times.shape, np.nan)
    for family in dict.fromkeys(families):
        out = families == family
        train = np.where(ok[~out], times[~out], np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a configuration never ran
            median = np.nanmedian(train, axis=0)
        full = np.where(np.isnan(train), np.where(np.isnan(median), 1.0, median), train)
        coef = fit_time_model(rows[~out], columns[~out], full)
        for c in np.flatnonzero(np.isnan(train).any(axis=0)):  # on its recorded cells
            seen = ~np.isnan(train[:, c])
            if seen.sum() >= 3:
                coef[c] = fit_time_model(rows[~out][seen], columns[~out][seen],
                                         train[seen, c][:, None])[0]
        model[out] = predict_times(coef, rows[out], columns[out])
        per_row = np.exp(np.mean(np.log(full / rows[~out, None]), axis=0))
        linear[out] = rows[out, None] * per_row
    return {name: float(np.median(np.abs(np.log(pred[ok] / times[ok]))))
            for name, pred in (("rows and columns", model), ("rows, linear", linear))}


def _design(rows, columns):
    rows = np.asarray(rows, dtype=np.float64)
    columns = np.asarray(columns, dtype=np.float64)
    return np.column_stack([np.ones(rows.size), np.log(rows), np.log(columns)])
