"""Encoding a table of mixed features for the classic measures (private)."""

from __future__ import annotations

import numpy as np
import pandas as pd

#: distance -> (weight of a one-hot indicator, metric of the measures on the encoding)
_DISTANCES = {"euclidean": (1.0 / np.sqrt(2.0), "euclidean"), "gower": (0.5, "manhattan")}


def _min_max(values):
    values = values.astype(np.float64)
    if np.any(np.isinf(values)):
        raise ValueError("X contains infinite values; encode_features imputes only NaN.")
    missing = np.isnan(values)
    if missing.all():
        return np.zeros_like(values)
    values[missing] = np.median(values[~missing])
    lo, hi = values.min(), values.max()
    return (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)


def _one_hot(column, weight):
    text = column.astype("string")  # missing values stay <NA>
    present = text.dropna()
    if present.empty:
        return np.zeros((column.size, 1))
    counts = present.value_counts()
    mode = min(counts.index[counts == counts.max()])  # ties: the smallest category
    filled = text.fillna(mode).to_numpy(dtype=str)
    categories, codes = np.unique(filled, return_inverse=True)
    out = np.zeros((column.size, categories.size))
    out[np.arange(column.size), codes] = weight
    return out


def encode_features(X, categorical=None, *, distance="euclidean"):
    r"""Encode a table of mixed features as a numeric matrix for the classic measures.

    The encoding follows the study's in-fold preprocessing: numeric columns have
    missing values replaced by the column median and are min-max scaled to
    :math:`[0, 1]` (a constant column becomes 0); categorical columns have
    missing values replaced by the most frequent category (ties: the smallest
    category) and are one-hot encoded densely, each indicator multiplied by a
    weight :math:`w`:

    .. math::

        w = 1/\sqrt{2} \ \text{(euclidean)}, \qquad w = 1/2 \ \text{(gower)},

    so that two different categories are as far apart as the two ends of a
    numeric feature: squared Euclidean contribution :math:`2w^2 = 1`, or
    Manhattan contribution :math:`2w = 1`.

    With ``distance="gower"``, the Manhattan distance on the result divided by
    the number of original features is exactly Gower's (1971) distance on the
    imputed table, so the classic measures run with ``metric="manhattan"`` on
    it are Gower-based (all of them are invariant to the constant factor).
    Euclidean is the default because it is the distance of the study's k-NN
    classifiers, so the neighbourhoods agree with the pool's 3NN and 5NN.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_columns)
        The raw features.
    categorical : sequence, optional
        Categorical columns: names for a DataFrame, positions for an array. By
        default a DataFrame's non-numeric and boolean columns, and no column of
        an array.
    distance : {"euclidean", "gower"}, default="euclidean"
        The distance the encoding prepares for (only the one-hot weight differs).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_encoded), float64
        Numeric columns in place, each categorical column replaced by its
        indicator block (categories in sorted order).

    References
    ----------
    Gower, J. C. (1971). A general coefficient of similarity and some of its
    properties. Biometrics 27(4), 857-871.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [20.0, 40.0, None, 30.0],
    ...                    "colour": ["red", None, "blue", "red"]})
    >>> encode_features(df, ["colour"], distance="gower")
    array([[0. , 0. , 0.5],
           [1. , 0. , 0.5],
           [0.5, 0.5, 0. ],
           [0.5, 0. , 0.5]])
    """
    if distance not in _DISTANCES:
        raise ValueError(f"distance must be 'euclidean' or 'gower', got {distance!r}.")
    weight = _DISTANCES[distance][0]
    if isinstance(X, pd.DataFrame):
        frame = X
        if categorical is None:
            categorical = [
                c
                for c in frame.columns
                if not pd.api.types.is_numeric_dtype(frame[c])
                or pd.api.types.is_bool_dtype(frame[c])
            ]
    else:
        arr = np.asarray(X, dtype=object if categorical else None)
        if arr.ndim != 2:
            raise ValueError(
                f"X must be 2-dimensional (n_samples, n_columns), got shape {arr.shape}."
            )
        frame = pd.DataFrame(arr)
        categorical = [] if categorical is None else list(categorical)
    categorical = list(categorical)
    if frame.columns.has_duplicates:
        raise ValueError("X has duplicated column names; they must be unique.")
    unknown = [c for c in categorical if c not in frame.columns]
    if unknown:
        raise ValueError(f"categorical names columns that X does not have: {unknown[:5]!r}.")
    if frame.shape[0] == 0:
        raise ValueError("X has no rows; at least one instance is needed.")
    blocks = []
    for col in frame.columns:  # a loop over columns, not instances
        if col in categorical:
            blocks.append(_one_hot(frame[col], weight))
            continue
        try:
            values = pd.to_numeric(frame[col], errors="raise").to_numpy(dtype=np.float64)
        except (ValueError, TypeError):
            raise ValueError(
                f"column {col!r} of X is not numeric; list it in categorical."
            ) from None
        blocks.append(_min_max(values)[:, None])
    if not blocks:
        raise ValueError("X has no columns; at least one feature is needed.")
    return np.hstack(blocks)
