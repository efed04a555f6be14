"""Checks of the classic measures' arguments (private): labels, features, options."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metaeval._validation import check_binary_target
from metaeval.hardness.classic import _search as _nb


def _check_labels(y, *, name="y"):
    """Map two labels of any type to 0/1 (the larger label becomes 1)."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got an array of shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one instance is needed.")
    try:
        labels = np.unique(arr)
    except TypeError as exc:
        raise ValueError(f"{name} mixes label types that cannot be compared: {exc}") from None
    top = labels[-1] if labels.size == 2 else labels[0]
    return check_binary_target(arr, pos_label=top, name=name, require_both=True)


def _check_y(y, *, min_per_class=2):
    y01 = _check_labels(y)
    counts = np.bincount(y01, minlength=2)
    if counts.min() < min_per_class:
        raise ValueError(
            f"y has {counts.min()} instance(s) in one class; each class needs at least "
            f"{min_per_class} for this measure."
        )
    return y01


def _check_X(X, n_samples):
    if isinstance(X, pd.DataFrame):
        bad = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        if bad:
            raise ValueError(
                f"X has non-numeric columns {bad[:5]!r}; encode them first with "
                "encode_features(X, categorical)."
            )
        X = X.to_numpy(dtype=np.float64)
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        raise ValueError(
            f"X must be numeric, got dtype {X.dtype}; "
            "encode it with encode_features(X, categorical)."
        )
    X = X.astype(np.float64, copy=False)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (n_samples, n_features), got shape {X.shape}.")
    if X.shape[0] != n_samples:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {n_samples} labels; "
            "they must have the same length."
        )
    if X.shape[1] == 0:
        raise ValueError("X has no columns; at least one feature is needed.")
    if not np.all(np.isfinite(X)):
        raise ValueError(
            "X contains NaN or infinite values; impute them first (encode_features does)."
        )
    return X


def _check_metric(metric):
    if metric not in _nb.METRICS:
        raise ValueError(f"metric must be one of {sorted(_nb.METRICS)!r}, got {metric!r}.")
    return metric


def _check_calibration(calibration, y01):
    if calibration not in (None, "sigmoid"):
        raise ValueError(f"calibration must be None or 'sigmoid', got {calibration!r}.")
    if calibration == "sigmoid" and np.bincount(y01, minlength=2).min() < 3:
        raise ValueError(
            "calibration='sigmoid' fits on 3 stratified folds, so each class of y needs at "
            f"least 3 instances; y has {np.bincount(y01, minlength=2).min()} in one class."
        )
    return calibration


def _check_tree_args(pruning, confidence, criterion):
    if criterion not in ("gini", "entropy", "log_loss"):
        raise ValueError(f"criterion must be 'gini' or 'entropy', got {criterion!r}.")
    if isinstance(pruning, str):
        if pruning != "error-based":
            raise ValueError(
                f"pruning must be 'error-based' or a non-negative ccp_alpha, got {pruning!r}."
            )
    elif not (np.isscalar(pruning) and np.isfinite(pruning) and pruning >= 0):
        raise ValueError(
            f"pruning must be 'error-based' or a non-negative ccp_alpha, got {pruning!r}."
        )
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}.")
