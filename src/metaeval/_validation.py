"""Input validation shared by the measure modules.

Every public measure validates its inputs first and raises a ``ValueError``
whose message names the argument and what is wrong, as scikit-learn does.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "check_binary_target",
    "check_scores",
    "check_cost_proportions",
]


def check_binary_target(y, *, pos_label=1, name="y", require_both=False):
    """Return ``y`` as an int8 array of 0/1, where 1 marks ``pos_label``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels with at most two distinct values.
    pos_label : scalar, default=1
        The label that becomes class 1 (the papers' "negative" class; the
        score estimates P(y = class 1)). When ``y`` holds two labels,
        ``pos_label`` must be one of them. When it holds one label, that
        label is class 1 if it equals ``pos_label`` and class 0 otherwise.
    name : str, default="y"
        The argument's name, used in error messages.
    require_both : bool, default=False
        Raise when only one class is present.

    Returns
    -------
    y01 : ndarray of shape (n_samples,), dtype int8

    Examples
    --------
    >>> check_binary_target(["b", "a", "b"], pos_label="b")
    array([1, 0, 1], dtype=int8)
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got an array of shape {y.shape}.")
    if y.size == 0:
        raise ValueError(f"{name} is empty; at least one instance is needed.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinite labels.")
    if y.dtype.kind == "O" and any(v is None for v in y.tolist()):
        raise ValueError(f"{name} contains missing labels (None).")
    if y.dtype.kind in "biuf":
        # O(n) fast path for numeric labels (no sort): valid when every label that is
        # not pos_label is one and the same value. Anything else falls through to the
        # exact checks below, which name the problem.
        is_pos = y == pos_label
        rest = y[~is_pos]
        valid = rest.size == 0 or rest.min() == rest.max()
        if valid and (not require_both or 0 < rest.size < y.size):
            return is_pos.astype(np.int8)
    labels = np.unique(y)
    if labels.size > 2:
        shown = ", ".join(repr(v) for v in labels[:5].tolist())
        raise ValueError(
            f"{name} has {labels.size} distinct labels ({shown}"
            f"{', ...' if labels.size > 5 else ''}); "
            "metaeval handles binary classification only, with two labels."
        )
    if labels.size == 2 and pos_label not in labels.tolist():
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels in {name}: "
            f"{labels.tolist()!r}."
        )
    if require_both and labels.size < 2:
        raise ValueError(
            f"Only one class is present in {name} ({labels[0]!r}); "
            "this measure needs instances of both classes."
        )
    return (y == pos_label).astype(np.int8)


def check_scores(s, *, n_samples=None, name="s", bounded=True, allow_2d=True):
    """Return scores as a float64 array, checked for shape, finiteness and range.

    Parameters
    ----------
    s : array-like of shape (n_samples,) or (n_samples, n_models)
    n_samples : int, optional
        Required first dimension (the length of ``y``).
    name : str, default="s"
    bounded : bool, default=True
        Require every score to lie in [0, 1] (score-based methods).
    allow_2d : bool, default=True
        Accept a pool of models, one column each.

    Examples
    --------
    >>> check_scores([0.2, 1.0], n_samples=2)
    array([0.2, 1. ])
    """
    s = np.asarray(s)
    if s.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {s.dtype}.")
    s = s.astype(np.float64, copy=False)
    if s.ndim not in ((1, 2) if allow_2d else (1,)):
        expected = "1- or 2-dimensional" if allow_2d else "1-dimensional"
        raise ValueError(f"{name} must be {expected}, got an array of shape {s.shape}.")
    if n_samples is not None and s.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {s.shape[0]} rows but y has {n_samples} labels; "
            "they must have the same length."
        )
    if s.size and not np.all(np.isfinite(s)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if bounded and s.size and (s.min() < 0.0 or s.max() > 1.0):
        raise ValueError(
            f"{name} must lie in [0, 1] for score-based methods "
            f"(found values in [{s.min():g}, {s.max():g}])."
        )
    return s


def check_cost_proportions(c, *, name="c"):
    """Return cost proportions as a float64 array, each in [0, 1].

    Examples
    --------
    >>> check_cost_proportions(0.3)
    array(0.3)
    """
    c = np.asarray(c, dtype=np.float64)
    if c.size and not np.all(np.isfinite(c)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if c.size and (c.min() < 0.0 or c.max() > 1.0):
        raise ValueError(
            f"{name} must lie in [0, 1] (cost proportions); got [{c.min():g}, {c.max():g}]."
        )
    return c
