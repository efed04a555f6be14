"""Feature-overlap computations behind the classic measures F1 to F4 (private).

Everything here works on an already validated float64 matrix ``X`` of shape
(n, d) and 0/1 labels ``y`` holding both classes; one pass over the features,
vectorised over instances.
"""

from __future__ import annotations

import numpy as np

__all__ = ["overlap_bounds", "inside_overlap", "overlap_closeness", "reduce_closeness"]


def overlap_bounds(X, y):
    """Per feature, ``max_min = max_c min f^c`` and ``min_max = min_c max f^c``, shape (d,)."""
    lo = np.stack([X[y == c].min(axis=0) for c in (0, 1)])
    hi = np.stack([X[y == c].max(axis=0) for c in (0, 1)])
    return lo.max(axis=0), hi.min(axis=0)


def inside_overlap(X, y):
    """(n, d) indicator of ``max_min <= x_f <= min_max`` (the F1 overlap region)."""
    max_min, min_max = overlap_bounds(X, y)
    return (X >= max_min) & (X <= min_max)


def overlap_closeness(X, y):
    r"""(n, d) closeness of each value to the middle of the feature's overlap region.

    With :math:`do_f(x) = (\min\max_f - x_f) / (\min\max_f - \max\min_f)`, the
    relative position of :math:`x_f` in the overlap region (0 and 1 at its
    ends), the closeness is :math:`1 / (1 + |1/2 - do_f(x)|)`. A constant
    feature, and a value lying exactly on an overlap region of zero width
    (0/0), give NaN: no evidence, skipped by :func:`reduce_closeness`. Any
    other value facing a zero-width region gives 0 (the limit of an infinite
    relative distance).
    """
    max_min, min_max = overlap_bounds(X, y)
    width = min_max - max_min
    offset = min_max - X
    with np.errstate(divide="ignore", invalid="ignore"):
        do = offset / width
    closeness = 1.0 / (1.0 + np.abs(0.5 - do))  # inf -> 0, nan stays nan
    constant = np.ptp(X, axis=0) == 0
    closeness[:, constant] = np.nan
    return closeness


def reduce_closeness(closeness, how):
    """Min (F2), mean (F3) or max (F4) over the features with evidence; 0 when none has."""
    valid = ~np.isnan(closeness)
    count = valid.sum(axis=1)
    if how == "min":
        out = np.where(valid, closeness, np.inf).min(axis=1)
    elif how == "max":
        out = np.where(valid, closeness, -np.inf).max(axis=1)
    else:
        out = np.where(valid, closeness, 0.0).sum(axis=1) / np.maximum(count, 1)
    out[count == 0] = 0.0
    return out
