r"""Classic, data-based instance hardness measures.

Every measure here returns one value per instance where a higher value means a
harder instance, as with a ``*_loss`` in :mod:`sklearn.metrics`; each docstring
states how the published quantity was oriented to get there. The measures are
those of Smith, Martinez & Giraud-Carrier (2014) and the instance-level
complexity measures of Lorena et al. (2019) in the form given by Arruda et al.
(2020) and Paiva et al. (2022, the PyHard package), plus the pool hardness of
Smith et al. computed from stored scores.

Inputs are pure arrays: ``X`` of shape (n, d), already numeric (use
:func:`encode_features` for raw tables), and ``y`` with two labels. The
measures are symmetric in the two classes, so they need no ``pos_label``; the
pool measures, which read scores of class 1, do. Distances are Euclidean on
min-max scaled features by default (``metric="manhattan"`` on features encoded
with ``distance="gower"`` gives Gower's distance). Neighbour queries use
scikit-learn's tree-based ``NearestNeighbors``; memory stays linear in the
number of rows (no n-by-n distance matrix is ever formed: pairwise passes are
chunked and the minimum spanning tree of N1 is grown by Prim's algorithm).

All 19 of PyHard's classification measures are here (:data:`MEASURES`). Where
metaeval's default differs from PyHard's, PyHard's choice is an option:

- CL, CLD: PyHard calibrates the naive Bayes posterior (sigmoid, 3 folds);
  ``calibration="sigmoid"`` does so, the default uses it uncalibrated.
- Usefulness: PyHard leaves the instance out of the count of local sets that
  hold it; ``include_self=False`` (``usefulness_include_self=False``).
- DS, TD_U: PyHard grows a gini tree (``criterion="gini"``); DCP, TD_P: PyHard
  prunes by cost complexity with a grid-searched ``ccp_alpha`` (pass a float
  ``pruning``); metaeval's default is C4.5's error-based pruning.
- kDN, N1, N2, LSC, LSR, Harmfulness, Usefulness: PyHard uses Gower's
  distance and ``k=10``; use ``distance="gower"`` and ``k=10``.
- F2, F3, F4: as PyHard (NaN-producing degenerate features are skipped, and an
  instance left with no feature gets 0 where PyHard gives NaN).

This module is imported explicitly (``from metaeval.hardness import classic``)
and, unlike :mod:`metaeval.hardness`, uses scikit-learn.

References
----------
.. [1] Smith, M. R., Martinez, T. & Giraud-Carrier, C. (2014). An instance
   level analysis of data complexity. Machine Learning 95(2), 225-256
   (reference [17] of Prudêncio 2019).
.. [2] Lorena, A. C., Garcia, L. P. F., Lehmann, J., Souto, M. C. P. & Ho, T. K.
   (2019). How complex is your classification problem? A survey on measuring
   classification complexity. ACM Computing Surveys 52(5), 107.
.. [3] Arruda, J. L. M., Prudencio, R. B. C. & Lorena, A. C. (2020). Measuring
   instance hardness using data complexity measures. BRACIS 2020, LNCS 12320,
   483-497.
.. [4] Paiva, P. Y. A., Moreno, C. C., Smith-Miles, K., Valeriano, M. G. &
   Lorena, A. C. (2022). Relating instance hardness to classification
   performance in a dataset: a visual approach. Machine Learning 111,
   3085-3123 (the PyHard package).
.. [5] Leyva, E., Gonzalez, A. & Perez, R. (2015). Three new instance selection
   methods based on local sets. Pattern Recognition 48(4), 1523-1537.
.. [6] Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Morgan
   Kaufmann, ch. 4 (error-based pruning).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np
import pandas as pd
from sklearn.naive_bayes import GaussianNB

from metaeval._validation import check_binary_target, check_scores
from metaeval.hardness import _classic_neighbors as _nb
from metaeval.hardness import _classic_overlap as _ov
from metaeval.hardness import _classic_trees as _tr

__all__ = [
    "MEASURES",
    "encode_features",
    "k_disagreeing_neighbors",
    "disjunct_size",
    "disjunct_class_percentage",
    "tree_depth_pruned",
    "tree_depth_unpruned",
    "class_likelihood",
    "class_likelihood_difference",
    "minority_value",
    "class_balance",
    "borderline_points",
    "intra_extra_ratio",
    "local_set_cardinality",
    "local_set_radius",
    "harmfulness",
    "usefulness",
    "feature_overlap",
    "overlap_closeness_min",
    "overlap_closeness_mean",
    "overlap_closeness_max",
    "classic_hardness",
    "pool_misclassification_rate",
    "pool_true_class_probability_loss",
]

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

_DISTANCES = {"euclidean": (1.0 / np.sqrt(2.0), "euclidean"), "gower": (0.5, "manhattan")}


# --------------------------------------------------------------------------- validation


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


# --------------------------------------------------------------------------- encoding


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


# --------------------------------------------------------------------------- shared work


class _Data:
    """Validated inputs plus lazily computed, shared intermediate results."""

    def __init__(
        self,
        X,
        y01,
        *,
        metric="euclidean",
        criterion="entropy",
        pruning="error-based",
        confidence=0.25,
        random_state=0,
        exact_max=20000,
        n_neighbors=10,
        calibration=None,
    ):
        self.X, self.y = X, y01
        self.metric = metric
        self.criterion, self.pruning, self.confidence = criterion, pruning, confidence
        self.random_state = random_state
        self.exact_max, self.n_neighbors = exact_max, n_neighbors
        self.calibration = calibration

    @cached_property
    def class_size(self):
        """n_{y_i}: the size of each instance's class, shape (n,)."""
        return np.bincount(self.y, minlength=2)[self.y]

    @cached_property
    def enemy(self):
        return _nb.nearest_enemy(self.X, self.y, self.metric)

    @cached_property
    def friend_distance(self):
        return _nb.nearest_friend_distance(self.X, self.y, self.metric)

    @cached_property
    def local_sets(self):
        return _nb.local_set_pass(self.X, self.y, self.enemy[0], self.metric)

    @cached_property
    def full_tree(self):
        return _tr.grow_tree(
            self.X, self.y, criterion=self.criterion, random_state=self.random_state
        )

    @cached_property
    def unpruned(self):
        return _tr.unpruned_leaves(self.full_tree, self.X)

    @cached_property
    def pruned(self):
        if isinstance(self.pruning, str):
            return _tr.pruned_leaves(self.full_tree, self.X, self.y, confidence=self.confidence)
        clf = _tr.grow_tree(
            self.X,
            self.y,
            criterion=self.criterion,
            random_state=self.random_state,
            ccp_alpha=float(self.pruning),
        )
        return _tr.unpruned_leaves(clf, self.X)

    @cached_property
    def true_class_posterior(self):
        if not np.any(np.ptp(self.X, axis=0) > 0):  # no feature varies: no evidence
            return np.full(self.y.size, 0.5)
        nb = GaussianNB(priors=[0.5, 0.5])
        if self.calibration == "sigmoid":  # PyHard: Platt scaling fitted on 3 folds
            from sklearn.calibration import CalibratedClassifierCV

            nb = CalibratedClassifierCV(nb, method="sigmoid", cv=3, ensemble=False)
        nb.fit(self.X, self.y)
        return nb.predict_proba(self.X)[np.arange(self.y.size), self.y]

    @cached_property
    def closeness(self):
        return _ov.overlap_closeness(self.X, self.y)


def _ratio(num, den, *, zero_by_zero):
    """num / den with x/0 = inf (x > 0) and 0/0 = ``zero_by_zero``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(num.shape, np.inf)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    out[~ok & (num == 0)] = zero_by_zero
    return out


def _kdn(d, k):
    idx = _nb.knn_indices(d.X, k, d.metric)
    return np.count_nonzero(d.y[idx] != d.y[:, None], axis=1) / k


def _ds(d):
    leaf = d.unpruned.leaf
    size = np.bincount(leaf)[leaf]
    biggest = size.max()
    if biggest == 1:
        return np.ones(leaf.size)
    return 1.0 - (size - 1) / (biggest - 1)


def _dcp(d):
    leaf = d.pruned.leaf
    counts = np.bincount(leaf * 2 + d.y, minlength=2 * (leaf.max() + 1)).reshape(-1, 2)
    return 1.0 - counts[leaf, d.y] / counts[leaf].sum(axis=1)


def _td(leaves):
    if leaves.max_depth == 0:
        return np.zeros(leaves.depth.size)
    return leaves.depth / leaves.max_depth


def _cl(d):
    return 1.0 - d.true_class_posterior


def _cld(d):
    p = d.true_class_posterior
    return (1.0 - (p - (1.0 - p))) / 2.0


def _mv(y):
    counts = np.bincount(y, minlength=2)
    return 1.0 - counts[y] / counts.max()


def _cb(y):
    n_classes = 2
    share = np.bincount(y, minlength=2)[y] / y.size
    return (1.0 - share + 1.0 / n_classes) * n_classes / (n_classes + 1)


def _n1(d):
    u, v = _nb.mst_edges(d.X, d.metric, d.exact_max, d.n_neighbors)
    n = d.y.size
    degree = np.bincount(u, minlength=n) + np.bincount(v, minlength=n)
    cross = d.y[u] != d.y[v]
    enemies = np.bincount(u[cross], minlength=n) + np.bincount(v[cross], minlength=n)
    return enemies / degree


def _n2(d):
    # 1 - 1 / (intra/extra + 1) = intra / (intra + extra); 0/0 (duplicates) -> 1/2
    intra, extra = d.friend_distance, d.enemy[0]
    total = intra + extra
    return np.divide(intra, total, out=np.full(total.shape, 0.5), where=total > 0)


def _lsc(d):
    return 1.0 - d.local_sets[0] / d.class_size


def _lsr(d, normalize):
    radius = d.enemy[0]
    if normalize == "farthest":
        reference = d.local_sets[2]
    else:
        best = np.zeros(2)
        np.maximum.at(best, d.y, radius)
        reference = best[d.y]
    return 1.0 - np.minimum(1.0, _ratio(radius, reference, zero_by_zero=0.0))


def _harmfulness(d):
    times_nearest_enemy = np.bincount(d.enemy[1], minlength=d.y.size)
    return times_nearest_enemy / (d.y.size - d.class_size)


def _usefulness(d, include_self=True):
    reached = d.local_sets[1]
    if not include_self:  # x_i lies in its own local set unless an enemy duplicates it
        reached = reached - (d.enemy[0] > 0)
    return 1.0 - reached / d.class_size


def _f1(X, y):
    return _ov.inside_overlap(X, y).mean(axis=1)


# --------------------------------------------------------------------------- measures


def k_disagreeing_neighbors(X, y, k=5, *, metric="euclidean"):
    r"""k-Disagreeing Neighbours (kDN): share of the k nearest neighbours from another class.

    .. math::

        kDN(x_i) = \frac{\#\{x_j \in kNN(x_i) : y_j \neq y_i\}}{k}

    Higher is harder (the measure is already oriented that way), in
    :math:`[0, 1]`. The instance itself is not its own neighbour; an exact
    duplicate of it is.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric, already encoded features (see :func:`encode_features`).
    y : array-like of shape (n_samples,)
        Two labels; each class needs at least two instances.
    k : int, default=5
        Number of neighbours, ``1 <= k < n_samples``.
    metric : {"euclidean", "manhattan"}, default="euclidean"

    Returns
    -------
    kdn : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of kDN; Paiva et al. (2022), list of
    hardness measures (see the module references).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> k_disagreeing_neighbors(x, [0, 0, 0, 1, 0, 1, 1, 1], k=2)
    array([0. , 0. , 0. , 1. , 1. , 0.5, 0. , 0. ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    if not (isinstance(k, (int, np.integer)) and 1 <= k < y01.size):
        raise ValueError(
            f"k must be an integer in [1, n_samples - 1] = [1, {y01.size - 1}], got {k!r}."
        )
    return _kdn(_Data(X, y01, metric=_check_metric(metric)), int(k))


def disjunct_size(X, y, *, criterion="entropy", random_state=0):
    r"""Disjunct Size (DS) hardness: 1 minus the normalised size of the instance's leaf.

    An unpruned decision tree is grown on :math:`D`; the disjunct of
    :math:`x_i` is the leaf that holds it. Smith et al.'s DS (higher = easier)
    is complemented:

    .. math::

        DS(x_i) = 1 - \frac{|disjunct(x_i)| - 1}{\max_{x_j \in D} |disjunct(x_j)| - 1}

    in :math:`[0, 1]`; when every leaf holds one instance, DS is 1 for all.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    criterion : {"entropy", "gini"}, default="entropy"
        Split criterion of the scikit-learn tree (entropy is the closest to
        C4.5, which Smith et al. used; PyHard uses gini).
    random_state : int, default=0
        Seeds scikit-learn's choice among equally good splits.

    Returns
    -------
    ds : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of DS (unpruned C4.5 tree); Paiva et al. (2022),
    hardness measures.

    Examples
    --------
    >>> x = [[0], [1], [2], [3], [4], [5], [6], [7], [8]]
    >>> disjunct_size(x, [0, 0, 0, 0, 0, 1, 0, 1, 1])
    array([0.  , 0.  , 0.  , 0.  , 0.  , 1.  , 1.  , 0.75, 0.75])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    _check_tree_args("error-based", 0.25, criterion)
    return _ds(_Data(X, y01, criterion=criterion, random_state=random_state))


def disjunct_class_percentage(
    X, y, *, pruning="error-based", confidence=0.25, criterion="entropy", random_state=0
):
    r"""Disjunct Class Percentage (DCP) hardness: share of the pruned leaf from another class.

    .. math::

        DCP(x_i) = 1 - \frac{\#\{x_j \in disjunct(x_i) : y_j = y_i\}}{|disjunct(x_i)|}

    with the disjunct taken in a pruned tree; Smith et al.'s DCP (higher =
    easier) is complemented, giving :math:`[0, 1]`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    pruning : "error-based" or float, default="error-based"
        ``"error-based"``: the fully grown tree pruned bottom-up by C4.5's rule
        (a subtree becomes a leaf when the leaf's pessimistic error estimate is
        at most the subtree's plus 0.1; no subtree raising). A float: the
        scikit-learn tree grown with that ``ccp_alpha`` (cost-complexity
        pruning, as PyHard does).
    confidence : float, default=0.25
        C4.5's confidence factor CF for the pessimistic error estimate.
    criterion : {"entropy", "gini"}, default="entropy"
    random_state : int, default=0

    Returns
    -------
    dcp : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of DCP (pruned C4.5 tree); Quinlan (1993), ch. 4;
    Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> x = [[0], [1], [2], [3], [4], [5], [6], [7], [8]]
    >>> disjunct_class_percentage(x, [0, 0, 0, 0, 0, 1, 0, 1, 1])
    array([0.  , 0.  , 0.  , 0.  , 0.  , 0.25, 0.75, 0.25, 0.25])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    _check_tree_args(pruning, confidence, criterion)
    data = _Data(
        X,
        y01,
        criterion=criterion,
        pruning=pruning,
        confidence=confidence,
        random_state=random_state,
    )
    return _dcp(data)


def tree_depth_pruned(
    X, y, *, pruning="error-based", confidence=0.25, criterion="entropy", random_state=0
):
    r"""Tree Depth, pruned (TD_P): depth of the instance's leaf in a pruned tree, normalised.

    .. math::

        TD_P(x_i) = \frac{depth(x_i)}{\max_{x_j \in D} depth(x_j)}

    Deeper leaves are harder (the orientation of Smith et al.), in
    :math:`[0, 1]`; normalising by the deepest leaf follows PyHard. A tree
    pruned to its root gives 0 for all.

    Parameters
    ----------
    X, y, pruning, confidence, criterion, random_state
        As in :func:`disjunct_class_percentage`.

    Returns
    -------
    td_p : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of TD; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> x = [[0], [1], [2], [3], [4], [5], [6], [7], [8]]
    >>> tree_depth_pruned(x, [0, 0, 0, 0, 0, 1, 0, 1, 1])
    array([1., 1., 1., 1., 1., 1., 1., 1., 1.])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    _check_tree_args(pruning, confidence, criterion)
    data = _Data(
        X,
        y01,
        criterion=criterion,
        pruning=pruning,
        confidence=confidence,
        random_state=random_state,
    )
    return _td(data.pruned)


def tree_depth_unpruned(X, y, *, criterion="entropy", random_state=0):
    r"""Tree Depth, unpruned (TD_U): depth of the instance's leaf in a full tree, normalised.

    .. math::

        TD_U(x_i) = \frac{depth(x_i)}{\max_{x_j \in D} depth(x_j)}

    Higher is harder, in :math:`[0, 1]`.

    Parameters
    ----------
    X, y, criterion, random_state
        As in :func:`disjunct_size`.

    Returns
    -------
    td_u : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of TD; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> x = [[0], [1], [2], [3], [4], [5], [6], [7], [8]]
    >>> tree_depth_unpruned(x, [0, 0, 0, 0, 0, 1, 0, 1, 1]).round(3)
    array([0.333, 0.333, 0.333, 0.333, 0.333, 1.   , 1.   , 0.667, 0.667])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    _check_tree_args("error-based", 0.25, criterion)
    return _td(_Data(X, y01, criterion=criterion, random_state=random_state).unpruned)


def class_likelihood(X, y, *, calibration=None):
    r"""Class Likelihood (CL) hardness: 1 minus the naive-Bayes posterior of the true class.

    Smith et al.'s class likelihood :math:`CL(x_i, y) = \prod_f P(x_{if} \mid y)`
    (features independent, here Gaussian per feature and class) is normalised
    over the two classes with equal priors, as in PyHard, and complemented:

    .. math::

        CL(x_i) = 1 - \frac{CL(x_i, y_i)}{\sum_{c} CL(x_i, c)}

    Higher is harder, in :math:`[0, 1]`. By default the posterior is used as
    it is (nothing is refitted). PyHard calibrates it instead: with
    ``calibration="sigmoid"`` the naive Bayes posterior is passed through
    Platt's sigmoid fitted on 3-fold cross-validated posteriors, the naive
    Bayes refitted on all rows (scikit-learn's ``CalibratedClassifierCV(...,
    method="sigmoid", cv=3, ensemble=False)``, PyHard's settings).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    calibration : {None, "sigmoid"}, default=None
        ``"sigmoid"`` gives PyHard's calibrated CL; each class then needs at
        least 3 instances.

    Returns
    -------
    cl : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of CL; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> class_likelihood([[0], [2], [4], [6]], [0, 0, 1, 1]).round(4)
    array([0.   , 0.018, 0.018, 0.   ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _cl(_Data(X, y01, calibration=_check_calibration(calibration, y01)))


def class_likelihood_difference(X, y, *, calibration=None):
    r"""Class Likelihood Difference (CLD) hardness: own-class minus best other-class likelihood.

    With :math:`p(c \mid x_i)` the normalised class likelihood of
    :func:`class_likelihood`, Smith et al.'s CLD is mapped to :math:`[0, 1]`,
    higher = harder, as in PyHard:

    .. math::

        CLD(x_i) = \frac{1 - \left(p(y_i \mid x_i) - \max_{c \neq y_i} p(c \mid x_i)\right)}{2}

    With two classes :math:`p(c \mid x_i) = 1 - p(y_i \mid x_i)`, so CLD equals
    CL exactly; both are kept for comparability with the literature.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    calibration : {None, "sigmoid"}, default=None
        As in :func:`class_likelihood` (``"sigmoid"``: PyHard's calibrated posterior).

    Returns
    -------
    cld : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of CLD; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> class_likelihood_difference([[0], [2], [4], [6]], [0, 0, 1, 1]).round(4)
    array([0.   , 0.018, 0.018, 0.   ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _cld(_Data(X, y01, calibration=_check_calibration(calibration, y01)))


def minority_value(y):
    r"""Minority Value (MV): how much smaller the instance's class is than the largest class.

    .. math::

        MV(x_i) = 1 - \frac{\#\{x_j : y_j = y_i\}}{\max_c \#\{x_j : y_j = c\}}

    Higher is harder (minority class), in :math:`[0, 1)`; 0 for the majority
    class.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Two labels, both present.

    Returns
    -------
    mv : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of MV; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> minority_value([0, 0, 0, 1])
    array([0.        , 0.        , 0.        , 0.66666667])
    """
    return _mv(_check_y(y, min_per_class=1))


def class_balance(y):
    r"""Class Balance (CB) hardness: the skew of the instance's class, complemented.

    Smith et al.'s :math:`CB(x_i) = n_{y_i}/n - 1/C` (higher = more frequent
    class = easier) is turned into a hardness as in PyHard:

    .. math::

        CB(x_i) = \left(1 - \frac{n_{y_i}}{n} + \frac{1}{C}\right)\frac{C}{C + 1},
        \qquad C = 2,

    which lies in :math:`[1/3, 1]` for two classes (2/3 when balanced).

    Parameters
    ----------
    y : array-like of shape (n_samples,)

    Returns
    -------
    cb : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of CB; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> class_balance([0, 0, 0, 1])
    array([0.5       , 0.5       , 0.5       , 0.83333333])
    """
    return _cb(_check_y(y, min_per_class=1))


def borderline_points(X, y, *, metric="euclidean", exact_max=20000, n_neighbors=10):
    r"""Instance-level N1: share of the minimum-spanning-tree neighbours from another class.

    .. math::

        N1(x_i) = \frac{\#\{x_j : (x_i, x_j) \in MST(D),\ y_j \neq y_i\}}
                       {\#\{x_j : (x_i, x_j) \in MST(D)\}}

    Higher is harder, in :math:`[0, 1]`. Up to ``exact_max`` rows the tree is
    the exact minimum spanning tree of the complete distance graph, grown by
    Prim's algorithm without storing the graph: memory linear in rows, time
    quadratic (about 0.4 s for 5,000 rows and 5 s for 19,000 rows of 10
    features on one core). Beyond, it is the minimum spanning tree of the
    symmetrised ``n_neighbors``-nearest-neighbour graph, joined across its
    components by the exact shortest edge between each pair of them: an
    approximation, exact whenever each edge of the true tree links a point to
    one of its ``n_neighbors`` nearest neighbours. Zero-length edges between
    duplicates are kept. When the tree is not unique (tied distances), N1
    depends on which one is found.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    metric : {"euclidean", "manhattan"}, default="euclidean"
    exact_max : int, default=20000
        Largest number of rows for the exact tree.
    n_neighbors : int, default=10
        Neighbours per point in the approximating graph.

    Returns
    -------
    n1 : ndarray of shape (n_samples,)

    References
    ----------
    Lorena et al. (2019), neighbourhood measures, N1; Arruda et al. (2020);
    Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> borderline_points(x, [0, 0, 0, 1, 0, 1, 1, 1])
    array([0. , 0. , 0.5, 1. , 1. , 0.5, 0. , 0. ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    if not (isinstance(exact_max, (int, np.integer)) and exact_max >= 0):
        raise ValueError(f"exact_max must be a non-negative integer, got {exact_max!r}.")
    if not (isinstance(n_neighbors, (int, np.integer)) and n_neighbors >= 1):
        raise ValueError(f"n_neighbors must be a positive integer, got {n_neighbors!r}.")
    data = _Data(
        X,
        y01,
        metric=_check_metric(metric),
        exact_max=int(exact_max),
        n_neighbors=int(n_neighbors),
    )
    return _n1(data)


def intra_extra_ratio(X, y, *, metric="euclidean"):
    r"""Instance-level N2: nearest same-class distance against nearest-enemy distance.

    With :math:`NN(x_i)` the nearest other instance of the same class and
    :math:`ne(x_i)` the nearest instance of the other class (nearest enemy),

    .. math::

        IntraExtra(x_i) = \frac{d(x_i, NN(x_i))}{d(x_i, ne(x_i))}, \qquad
        N2(x_i) = 1 - \frac{1}{IntraExtra(x_i) + 1}
                = \frac{d(x_i, NN(x_i))}{d(x_i, NN(x_i)) + d(x_i, ne(x_i))}

    Higher is harder, in :math:`[0, 1]`. When both distances are 0 (duplicates
    in both classes), N2 is 1/2.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    metric : {"euclidean", "manhattan"}, default="euclidean"

    Returns
    -------
    n2 : ndarray of shape (n_samples,)

    References
    ----------
    Lorena et al. (2019), neighbourhood measures, N2; Arruda et al. (2020);
    Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> intra_extra_ratio(x, [0, 0, 0, 1, 0, 1, 1, 1]).round(3)
    array([0.125, 0.143, 0.333, 0.733, 0.643, 0.538, 0.35 , 0.276])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _n2(_Data(X, y01, metric=_check_metric(metric)))


def local_set_cardinality(X, y, *, metric="euclidean"):
    r"""Local Set Cardinality (LSC) hardness: 1 minus the relative size of the local set.

    The local set of :math:`x_i` holds the instances closer to it than its
    nearest enemy (Leyva et al., 2015); it includes :math:`x_i` itself:

    .. math::

        LS(x_i) = \{x_j : d(x_i, x_j) < d(x_i, ne(x_i))\}, \qquad
        LSC(x_i) = 1 - \frac{|LS(x_i)|}{\#\{x_j : y_j = y_i\}}

    Higher is harder, in :math:`[0, 1]` (at most :math:`1 - 1/n_{y_i}` unless
    an enemy duplicates :math:`x_i`). Counted exactly by a chunked pass over
    same-class pairs (memory linear in rows, time quadratic per class).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    metric : {"euclidean", "manhattan"}, default="euclidean"

    Returns
    -------
    lsc : ndarray of shape (n_samples,)

    References
    ----------
    Lorena et al. (2019), neighbourhood measures, LSC; Arruda et al. (2020);
    Paiva et al. (2022), hardness measures; Leyva et al. (2015).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> local_set_cardinality(x, [0, 0, 0, 1, 0, 1, 1, 1])
    array([0.25, 0.25, 0.25, 0.75, 0.75, 0.75, 0.25, 0.25])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _lsc(_Data(X, y01, metric=_check_metric(metric)))


def local_set_radius(X, y, *, metric="euclidean", normalize="farthest"):
    r"""Local Set Radius (LSR) hardness: 1 minus the normalised radius of the local set.

    The radius of :math:`LS(x_i)` is the nearest-enemy distance. With
    ``normalize="farthest"`` (PyHard; Paiva et al. 2022) it is divided by the
    distance from :math:`x_i` to the farthest instance of its class:

    .. math::

        LSR(x_i) = 1 - \min\left\{1,
            \frac{d(x_i, ne(x_i))}{\max_{y_j = y_i} d(x_i, x_j)}\right\}

    With ``normalize="class-max"`` it is divided instead by the largest local-set
    radius in the class, :math:`\max_{y_j = y_i} d(x_j, ne(x_j))`. Higher is
    harder, in :math:`[0, 1]`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    metric : {"euclidean", "manhattan"}, default="euclidean"
    normalize : {"farthest", "class-max"}, default="farthest"

    Returns
    -------
    lsr : ndarray of shape (n_samples,)

    References
    ----------
    Arruda et al. (2020), LSR; Paiva et al. (2022), hardness measures; Leyva et al. (2015).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> local_set_radius(x, [0, 0, 0, 1, 0, 1, 1, 1]).round(3)
    array([0.417, 0.455, 0.556, 0.846, 0.583, 0.6  , 0.278, 0.192])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    if normalize not in ("farthest", "class-max"):
        raise ValueError(f"normalize must be 'farthest' or 'class-max', got {normalize!r}.")
    return _lsr(_Data(X, y01, metric=_check_metric(metric)), normalize)


def harmfulness(X, y, *, metric="euclidean"):
    r"""Harmfulness: share of the other class that has the instance as its nearest enemy.

    .. math::

        H(x_i) = \frac{\#\{x_j : ne(x_j) = x_i\}}{\#\{x_j : y_j \neq y_i\}}

    Higher is harder, in :math:`[0, 1]`. When several enemies tie as nearest,
    one of them (scikit-learn's choice) is counted.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    metric : {"euclidean", "manhattan"}, default="euclidean"

    Returns
    -------
    h : ndarray of shape (n_samples,)

    References
    ----------
    Arruda et al. (2020), harmfulness; Paiva et al. (2022), hardness measures; Leyva
    et al. (2015).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> harmfulness(x, [0, 0, 0, 1, 0, 1, 1, 1])
    array([0.  , 0.  , 0.25, 1.  , 0.75, 0.  , 0.  , 0.  ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _harmfulness(_Data(X, y01, metric=_check_metric(metric)))


def usefulness(X, y, *, metric="euclidean", include_self=True):
    r"""Usefulness hardness: 1 minus the share of its class whose local sets hold the instance.

    .. math::

        U(x_i) = 1 - \frac{\#\{x_j : d(x_i, x_j) < d(x_j, ne(x_j))\}}{\#\{x_j : y_j = y_i\}}

    By default the count includes :math:`j = i` (as :math:`x_i \in LS(x_i)`),
    consistent with :func:`local_set_cardinality`, so that per class
    :math:`\sum_i (1 - U(x_i))\, n_{y_i} = \sum_j |LS(x_j)|`. PyHard leaves
    :math:`j = i` out (``include_self=False``), which adds :math:`1/n_{y_i}`
    to every instance not duplicated by an enemy. Higher is harder, in
    :math:`[0, 1]`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    metric : {"euclidean", "manhattan"}, default="euclidean"
    include_self : bool, default=True
        Count the instance's own local set; False gives PyHard's Usefulness.

    Returns
    -------
    u : ndarray of shape (n_samples,)

    References
    ----------
    Arruda et al. (2020), usefulness; Paiva et al. (2022), hardness measures; Leyva
    et al. (2015).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> usefulness(x, [0, 0, 0, 1, 0, 1, 1, 1])
    array([0.25, 0.25, 0.25, 0.75, 0.75, 0.25, 0.5 , 0.5 ])
    >>> usefulness(x, [0, 0, 0, 1, 0, 1, 1, 1], include_self=False)
    array([0.5 , 0.5 , 0.5 , 1.  , 1.  , 0.5 , 0.75, 0.75])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    if not isinstance(include_self, (bool, np.bool_)):
        raise ValueError(f"include_self must be True or False, got {include_self!r}.")
    return _usefulness(_Data(X, y01, metric=_check_metric(metric)), bool(include_self))


def feature_overlap(X, y):
    r"""Instance-level F1: share of features on which the instance lies in the classes' overlap.

    For feature :math:`f`, the overlap region is
    :math:`[\max_c \min f^{c}, \ \min_c \max f^{c}]` (empty when the classes
    are separable on :math:`f`), and

    .. math::

        F1(x_i) = \frac{1}{m} \sum_{f=1}^{m}
            I\left(\max_c \min f^{c} \le x_{if} \le \min_c \max f^{c}\right)

    Higher is harder, in :math:`[0, 1]`. Closed interval as in the current
    PyHard; it depends only on each feature's order, not on scaling.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    f1 : ndarray of shape (n_samples,)

    References
    ----------
    Lorena et al. (2019), feature-based measures (overlap region of F2/F3);
    Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> X = [[0, 0], [1, 6], [2, 11], [1.5, 5], [3, 7], [4, 20]]
    >>> feature_overlap(X, [0, 0, 0, 1, 1, 1])
    array([0. , 0.5, 1. , 1. , 0.5, 0. ])
    """
    y01 = _check_y(y, min_per_class=1)
    X = _check_X(X, y01.size)
    return _f1(X, y01)


_CLOSENESS_DOC = r"""Instance-level {label}: {how} over features of the closeness to mid-overlap.

    For feature :math:`f` with overlap bounds :math:`\max\min_f = \max_c \min f^c`
    and :math:`\min\max_f = \min_c \max f^c` (as in :func:`feature_overlap`),
    the relative position of :math:`x_{{if}}` in the overlap region and its
    closeness to the region's middle are

    .. math::

        do_f(x_i) = \frac{{\min\max_f - x_{{if}}}}{{\min\max_f - \max\min_f}}, \qquad
        dot_f(x_i) = \frac{{1}}{{1 + |1/2 - do_f(x_i)|}},

    and {formula}

    :math:`dot_f` is 1 in the middle of the overlap, 2/3 at its ends, and
    falls towards 0 away from it (the formula is applied as it is when the
    classes are separable on :math:`f`). Higher is harder, in :math:`[0, 1]`;
    :math:`F2 \le F3 \le F4`; invariant to increasing affine rescaling of any
    feature. These are PyHard's F2, F3 and F4 (min, mean and max of
    :math:`dot_f`; Paiva et al. 2022, the PyHard package). A constant feature
    carries no evidence and is skipped, and so is a feature whose overlap
    region has zero width for the instances lying exactly on it (0/0, which
    PyHard's NaN-skipping reductions also skip); other instances facing a
    zero-width region get :math:`dot_f = 0`. An instance with no feature left
    gets 0.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    {name} : ndarray of shape (n_samples,)

    See Also
    --------
    feature_overlap, overlap_closeness_min, overlap_closeness_mean, overlap_closeness_max

    References
    ----------
    Lorena et al. (2019), feature-based measures (the overlap region of F2/F3);
    Paiva et al. (2022), the PyHard package (instance-level F2, F3, F4).

    Examples
    --------
    Feature 0 overlaps on :math:`[1.5, 2]` (width 1/2) and feature 1 on
    :math:`[5, 11]` (width 6); e.g. the first row has :math:`do = 4` and
    :math:`11/6`, so :math:`dot = 1/4.5 = 2/9` and :math:`1/(1 + 4/3) = 3/7`.

    >>> X = [[0, 0], [1, 6], [2, 11], [1.5, 5], [3, 7], [4, 20]]
    >>> {func}(X, [0, 0, 0, 1, 1, 1]).round(4)
    {example}
    """


def _closeness_measure(X, y, how):
    y01 = _check_y(y, min_per_class=1)
    X = _check_X(X, y01.size)
    return _ov.reduce_closeness(_ov.overlap_closeness(X, y01), how)


def overlap_closeness_min(X, y):
    return _closeness_measure(X, y, "min")


def overlap_closeness_mean(X, y):
    return _closeness_measure(X, y, "mean")


def overlap_closeness_max(X, y):
    return _closeness_measure(X, y, "max")


overlap_closeness_min.__doc__ = _CLOSENESS_DOC.format(
    label="F2",
    how="the minimum",
    formula=r""":math:`F2(x_i) = \min_f dot_f(x_i)`: hard only when every feature
    places the instance near the middle of its overlap.""",
    name="f2",
    func="overlap_closeness_min",
    example="array([0.2222, 0.4   , 0.6667, 0.6667, 0.2857, 0.1818])",
)
overlap_closeness_mean.__doc__ = _CLOSENESS_DOC.format(
    label="F3",
    how="the mean",
    formula=r""":math:`F3(x_i) = \frac{1}{m} \sum_f dot_f(x_i)`.""",
    name="f3",
    func="overlap_closeness_mean",
    example="array([0.3254, 0.575 , 0.6667, 0.6667, 0.5714, 0.2576])",
)
overlap_closeness_max.__doc__ = _CLOSENESS_DOC.format(
    label="F4",
    how="the maximum",
    formula=r""":math:`F4(x_i) = \max_f dot_f(x_i)`: hard when any one feature
    places the instance near the middle of its overlap.""",
    name="f4",
    func="overlap_closeness_max",
    example="array([0.4286, 0.75  , 0.6667, 0.6667, 0.8571, 0.3333])",
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


# --------------------------------------------------------------------------- pool hardness


def _pool(y, S, pos_label):
    y01 = check_binary_target(y, pos_label=pos_label)
    S = check_scores(S, n_samples=y01.size, name="S")
    if S.ndim == 1:
        S = S[:, None]
    if S.shape[1] == 0:
        raise ValueError("S has no columns; at least one model's scores are needed.")
    return y01, S


def pool_misclassification_rate(y, S, *, t=0.5, pos_label=1):
    r"""Share of a pool of models that misclassify each instance, from stored scores.

    A model predicts class 1 when its score exceeds the threshold
    (:math:`s > t`) and class 0 when :math:`s \le t`:

    .. math::

        MR(x_i) = \frac{1}{M} \sum_{m=1}^{M} I\left(\hat y_m(x_i) \neq y_i\right),
        \qquad \hat y_m(x_i) = I(s_m(x_i) > t)

    Smith et al.'s instance hardness with the classifiers' crisp outputs;
    higher is harder, in :math:`[0, 1]`. No model is refitted.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples,) or (n_samples, n_models)
        Scores in :math:`[0, 1]`, estimates of :math:`P(y = \text{class } 1)`.
    t : float, default=0.5
        Decision threshold.
    pos_label : scalar, default=1
        The label of class 1.

    Returns
    -------
    rate : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), the definition of instance hardness over a set of
    learning algorithms, with crisp outputs (reference [17] of Prudêncio 2019).

    Examples
    --------
    >>> pool_misclassification_rate([1, 0, 1], [[0.9, 0.4], [0.6, 0.2], [0.5, 0.1]])
    array([0.5, 0.5, 1. ])
    """
    y01, S = _pool(y, S, pos_label)
    if not (np.isscalar(t) and np.isfinite(t) and 0.0 <= t <= 1.0):
        raise ValueError(f"t must be a threshold in [0, 1], got {t!r}.")
    predicted = S > t
    return np.mean(predicted != (y01[:, None] == 1), axis=1)


def pool_true_class_probability_loss(y, S, *, pos_label=1):
    r"""1 minus the pool's mean probability of the true class, from stored scores.

    .. math::

        IH(x_i) = 1 - \frac{1}{M} \sum_{m=1}^{M} p_m(y_i \mid x_i), \qquad
        p_m(1 \mid x_i) = s_m(x_i), \ p_m(0 \mid x_i) = 1 - s_m(x_i)

    Smith et al.'s instance hardness (their definition over a set of learning
    algorithms); higher is harder, in :math:`[0, 1]`. No model is refitted.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples,) or (n_samples, n_models)
        Scores in :math:`[0, 1]`, estimates of :math:`P(y = \text{class } 1)`.
    pos_label : scalar, default=1

    Returns
    -------
    loss : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of the instance hardness :math:`IH_L(x)` over a
    set of learning algorithms :math:`L`.

    Examples
    --------
    >>> pool_true_class_probability_loss([1, 0, 1], [[0.9, 0.4], [0.6, 0.2], [0.5, 0.1]])
    array([0.35, 0.4 , 0.7 ])
    """
    y01, S = _pool(y, S, pos_label)
    p_true = np.where(y01[:, None] == 1, S, 1.0 - S)
    return 1.0 - p_true.mean(axis=1)
