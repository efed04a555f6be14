"""Every classic measure at once, sharing the work between them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metaeval.hardness.classic import _overlap_region as _ov
from metaeval.hardness.classic._balance import _cb, _mv
from metaeval.hardness.classic._checks import (
    _check_calibration,
    _check_tree_args,
    _check_X,
    _check_y,
)
from metaeval.hardness.classic._encoding import _DISTANCES, encode_features
from metaeval.hardness.classic._likelihood import _cl, _cld
from metaeval.hardness.classic._neighbourhood import (
    _harmfulness,
    _kdn,
    _lsc,
    _lsr,
    _n1,
    _n2,
    _usefulness,
)
from metaeval.hardness.classic._overlap import _f1
from metaeval.hardness.classic._shared import _Data
from metaeval.hardness.classic._trees import _dcp, _ds, _td

__all__ = ["MEASURES", "classic_hardness"]

#: Short names of the classic measures, in the order :func:`classic_hardness` returns them.
MEASURES = (
    "kDN",
    "DS",
    "DCP",
    "TD_P",
    "TD_U",
    "CL",
    "CLD",
    "MV",
    "CB",
    "N1",
    "N2",
    "LSC",
    "LSR",
    "Harmfulness",
    "Usefulness",
    "F1",
    "F2",
    "F3",
    "F4",
)


def classic_hardness(
    X,
    y,
    measures=None,
    *,
    categorical=None,
    distance="euclidean",
    encode=True,
    k=5,
    pruning="error-based",
    confidence=0.25,
    criterion="entropy",
    random_state=0,
    exact_max=20000,
    n_neighbors=10,
    lsr_normalize="farthest",
    calibration=None,
    usefulness_include_self=True,
):
    r"""All (or some) classic hardness measures, one column each, sharing the work.

    The k-NN, nearest-enemy, local-set, tree and naive-Bayes computations are
    done once and shared between the measures that need them. Every column is
    oriented higher = harder; see each measure's function for its formula.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_columns)
        Raw features (encoded here when ``encode=True``) or, with
        ``encode=False``, an already numeric matrix used as given.
    y : array-like of shape (n_samples,)
        Two labels; each class needs at least two instances.
    measures : sequence of str, optional
        A subset of :data:`MEASURES` (default: all, in that order).
    categorical : sequence, optional
        Categorical columns, passed to :func:`encode_features`.
    distance : {"euclidean", "gower"}, default="euclidean"
        Euclidean on the encoded features, or Gower's distance (Manhattan on
        features encoded for it).
    encode : bool, default=True
        Pass ``X`` through :func:`encode_features` first.
    k : int, default=5
        Neighbours for kDN.
    pruning, confidence, criterion, random_state
        Tree settings, as in :func:`disjunct_class_percentage`.
    exact_max, n_neighbors
        Minimum spanning tree settings, as in :func:`borderline_points`.
    lsr_normalize : {"farthest", "class-max"}, default="farthest"
        As ``normalize`` in :func:`local_set_radius`.
    calibration : {None, "sigmoid"}, default=None
        Naive Bayes posterior behind CL and CLD, as in :func:`class_likelihood`
        (``"sigmoid"``: PyHard's calibrated one).
    usefulness_include_self : bool, default=True
        As ``include_self`` in :func:`usefulness` (False: PyHard's Usefulness).

    Returns
    -------
    frame : DataFrame of shape (n_samples, n_measures)
        Columns named as in :data:`MEASURES`; index ``0 .. n_samples - 1`` (or
        the index of a DataFrame ``X``).

    References
    ----------
    Smith et al. (2014); Lorena et al. (2019); Arruda et al. (2020); Paiva
    et al. (2022) (see the module references).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> classic_hardness(x, [0, 0, 0, 1, 0, 1, 1, 1], ["kDN", "N1", "Harmfulness"], k=2)
       kDN   N1  Harmfulness
    0  0.0  0.0         0.00
    1  0.0  0.0         0.00
    2  0.0  0.5         0.25
    3  1.0  1.0         1.00
    4  1.0  1.0         0.75
    5  0.5  0.5         0.00
    6  0.0  0.0         0.00
    7  0.0  0.0         0.00
    """
    if measures is None:
        measures = MEASURES
    elif isinstance(measures, str) or not isinstance(measures, Sequence):
        raise ValueError(
            f"measures must be a sequence of names from {MEASURES}, got {measures!r}."
        )
    unknown = [m for m in measures if m not in MEASURES]
    if unknown:
        raise ValueError(f"measures has unknown names {unknown!r}; choose from {MEASURES}.")
    if distance not in _DISTANCES:
        raise ValueError(f"distance must be 'euclidean' or 'gower', got {distance!r}.")
    if lsr_normalize not in ("farthest", "class-max"):
        raise ValueError(
            f"lsr_normalize must be 'farthest' or 'class-max', got {lsr_normalize!r}."
        )
    _check_tree_args(pruning, confidence, criterion)
    y01 = _check_y(y)
    if {"CL", "CLD"} & set(measures):
        _check_calibration(calibration, y01)
    if not isinstance(usefulness_include_self, (bool, np.bool_)):
        raise ValueError(
            f"usefulness_include_self must be True or False, got {usefulness_include_self!r}."
        )
    index = X.index if isinstance(X, pd.DataFrame) else None
    if encode:
        if len(X) != y01.size:
            raise ValueError(
                f"X has {len(X)} rows but y has {y01.size} labels; they must have the same length."
            )
        X = encode_features(X, categorical, distance=distance)
    X = _check_X(X, y01.size)
    if "kDN" in measures and not (isinstance(k, (int, np.integer)) and 1 <= k < y01.size):
        raise ValueError(f"k must be an integer in [1, {y01.size - 1}], got {k!r}.")
    data = _Data(
        X,
        y01,
        metric=_DISTANCES[distance][1],
        criterion=criterion,
        pruning=pruning,
        confidence=confidence,
        random_state=random_state,
        exact_max=int(exact_max),
        n_neighbors=int(n_neighbors),
        calibration=calibration,
    )
    compute = {
        "kDN": lambda: _kdn(data, int(k)),
        "DS": lambda: _ds(data),
        "DCP": lambda: _dcp(data),
        "TD_P": lambda: _td(data.pruned),
        "TD_U": lambda: _td(data.unpruned),
        "CL": lambda: _cl(data),
        "CLD": lambda: _cld(data),
        "MV": lambda: _mv(y01),
        "CB": lambda: _cb(y01),
        "N1": lambda: _n1(data),
        "N2": lambda: _n2(data),
        "LSC": lambda: _lsc(data),
        "LSR": lambda: _lsr(data, lsr_normalize),
        "Harmfulness": lambda: _harmfulness(data),
        "Usefulness": lambda: _usefulness(data, bool(usefulness_include_self)),
        "F1": lambda: _f1(X, y01),
        "F2": lambda: _ov.reduce_closeness(data.closeness, "min"),
        "F3": lambda: _ov.reduce_closeness(data.closeness, "mean"),
        "F4": lambda: _ov.reduce_closeness(data.closeness, "max"),
    }
    return pd.DataFrame({m: compute[m]() for m in measures}, index=index)
