r"""Classic and cost-sensitive instance hardness side by side, and the instance space.

For one dataset of a study, :func:`hardness_frame` puts every instance's
classic, data-based hardness measures (:mod:`metaeval.hardness.classic`) next
to the classic pool hardness and the cost-sensitive hardness under each of the
five threshold choice methods, pool-averaged (:func:`metaeval.hardness.pool_hardness`,
Prudêncio 2019 [1]_). :func:`hardness_correlations` gives their rank correlation
matrix and :func:`project_instances` a 2-D projection of the instances (PCA by default,
any ``fit_transform`` object otherwise) to colour by any of these columns.
Every column of the frame is oriented higher = harder.

Pure functions: arrays and frames in, arrays and frames out; no plotting (the
report draws) and no I/O. Uses scikit-learn (through the classic measures and
PCA).

References
----------
.. [1] R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
   learning", ECML PKDD 2019: cost-sensitive instance hardness under threshold choice
   methods, averaged over a pool of models.
.. [2] Smith, M. R., Martinez, T. & Giraud-Carrier, C. (2014). An instance
   level analysis of data complexity. Machine Learning 95(2), 225-256.
.. [3] Paiva, P. Y. A., Moreno, C. C., Smith-Miles, K., Valeriano, M. G. &
   Lorena, A. C. (2022). Relating instance hardness to classification
   performance in a dataset: a visual approach. Machine Learning 111,
   3085-3123 (instance space of one dataset; PyHard).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metaeval._validation import check_binary_target, check_scores
from metaeval.hardness import classic

__all__ = [
    "POOL_COLUMNS",
    "hardness_frame",
    "hardness_correlations",
    "project_instances",
]

#: Columns of :func:`hardness_frame` holding the classic pool hardness.
POOL_COLUMNS = ("misclassification_rate", "true_class_probability_loss")

_CORRELATIONS = ("spearman", "kendall", "pearson")


def hardness_frame(
    X,
    y,
    S,
    algorithms=None,
    categorical=None,
    *,
    pos_label=1,
    t=0.5,
    measures=None,
    distance="euclidean",
    **classic_options,
):
    r"""Every instance's classic hardness measures beside its cost-sensitive hardness.

    Columns, all higher = harder:

    - the classic measures of :func:`metaeval.hardness.classic.classic_hardness`
      (``kDN``, ``DS``, ..., ``F1``, or the subset ``measures``);
    - ``misclassification_rate`` and ``true_class_probability_loss``: the
      classic pool hardness of Smith et al. (2014) from the stored scores;
    - one column per threshold choice method, named by its canonical name
      (``score-fixed``, ``score-driven``, ``rate-driven``, ``score-uniform``,
      ``rate-uniform``): the cost-sensitive instance hardness averaged over
      the pool,

      .. math::

          IH^T_{pool}(x) = \frac{1}{M} \sum_{m=1}^{M} IH^T_{m}(x)

      (Prudêncio 2019, Sects. 1 and 3: the ensemble strategy of its reference [17],
      Smith et al. 2014).

    The frame's ``attrs`` name the groups: ``attrs["classic"]``,
    ``attrs["pool"]``, ``attrs["cost_sensitive"]`` and ``attrs["algorithms"]``.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_columns)
        Raw features of the dataset, in the same row order as ``y`` and ``S``;
        encoded by :func:`metaeval.hardness.classic.encode_features`.
    y : array-like of shape (n_samples,)
        Two labels.
    S : array-like of shape (n_samples, n_models)
        Stored scores of the pool (e.g. from ``Store.scores``), estimates of
        :math:`P(y = \text{class } 1)` in :math:`[0, 1]`.
    algorithms : sequence of str, optional
        Names of the columns of ``S`` (kept in ``attrs["algorithms"]``).
    categorical : sequence, optional
        Categorical columns of ``X``.
    pos_label : scalar, default=1
        The label of class 1 (the class the scores estimate).
    t : float, default=0.5
        Threshold of ``score-fixed`` and of ``misclassification_rate``.
    measures : sequence of str, optional
        Subset of :data:`metaeval.hardness.classic.MEASURES`.
    distance : {"euclidean", "gower"}, default="euclidean"
    **classic_options
        Passed on to :func:`metaeval.hardness.classic.classic_hardness`
        (``k``, ``pruning``, ``exact_max``, ...).

    Returns
    -------
    frame : DataFrame of shape (n_samples, n_columns)
        Indexed like ``X`` (or ``0 .. n_samples - 1``).

    Examples
    --------
    >>> x = [[0], [1], [3], [7], [12], [18], [25], [33]]
    >>> y = [0, 0, 0, 1, 0, 1, 1, 1]
    >>> S = [[0.1, 0.2], [0.2, 0.1], [0.4, 0.3], [0.6, 0.4],
    ...      [0.7, 0.6], [0.8, 0.9], [0.9, 0.8], [0.9, 1.0]]
    >>> frame = hardness_frame(x, y, S, ["LR", "NB"], measures=["kDN", "N1"], k=2)
    >>> list(frame.columns)[:4]
    ['kDN', 'N1', 'misclassification_rate', 'true_class_probability_loss']
    >>> frame["misclassification_rate"].tolist()
    [0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0]
    """
    from metaeval.hardness import METHODS, pool_hardness  # the core measures, lazily

    y01 = check_binary_target(y, pos_label=pos_label, require_both=True)
    S = check_scores(S, n_samples=y01.size, name="S")
    if S.ndim == 1:
        S = S[:, None]
    if S.shape[1] == 0:
        raise ValueError("S has no columns; at least one model's scores are needed.")
    if algorithms is None:
        algorithms = [f"model_{j}" for j in range(S.shape[1])]
    elif isinstance(algorithms, str) or not isinstance(algorithms, Sequence):
        raise ValueError(f"algorithms must be a sequence of names, got {algorithms!r}.")
    elif len(algorithms) != S.shape[1]:
        raise ValueError(
            f"algorithms has {len(algorithms)} names but S has {S.shape[1]} columns; "
            "give one name per column."
        )
    if len(X) != y01.size:
        raise ValueError(
            f"X has {len(X)} rows but y has {y01.size} labels; they must have the same length."
        )
    frame = classic.classic_hardness(
        X, y01, measures, categorical=categorical, distance=distance, **classic_options
    )
    frame["misclassification_rate"] = classic.pool_misclassification_rate(y01, S, t=t)
    frame["true_class_probability_loss"] = classic.pool_true_class_probability_loss(y01, S)
    for method in METHODS:
        frame[method] = pool_hardness(y01, S, method, t=t, pos_label=1)
    frame.attrs["classic"] = list(classic.MEASURES if measures is None else measures)
    frame.attrs["pool"] = list(POOL_COLUMNS)
    frame.attrs["cost_sensitive"] = list(METHODS)
    frame.attrs["algorithms"] = [str(a) for a in algorithms]
    return frame


def hardness_correlations(frame, method="spearman"):
    r"""Rank correlation matrix of the hardness columns of a frame.

    Spearman's :math:`\rho` by default (Pearson's correlation of the
    mid-ranks), or Kendall's :math:`\tau_b`, or Pearson's :math:`r`, between
    every pair of numeric columns. A constant column (e.g. ``MV`` when the
    classes are balanced) has no defined correlation: its row and column are
    NaN.

    Parameters
    ----------
    frame : DataFrame of shape (n_samples, n_columns)
        Typically :func:`hardness_frame`'s result; non-numeric columns are
        ignored.
    method : {"spearman", "kendall", "pearson"}, default="spearman"

    Returns
    -------
    corr : DataFrame of shape (n_numeric, n_numeric)

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"a": [0.1, 0.2, 0.3, 0.4], "b": [0.9, 0.5, 0.4, 0.0],
    ...                   "c": [0.0, 0.5, 0.2, 0.9]})
    >>> hardness_correlations(f)
         a    b    c
    a  1.0 -1.0  0.8
    b -1.0  1.0 -0.8
    c  0.8 -0.8  1.0
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if method not in _CORRELATIONS:
        raise ValueError(f"method must be one of {_CORRELATIONS}, got {method!r}.")
    numeric = frame.select_dtypes(include=[np.number, "bool"]).astype(np.float64)
    if numeric.shape[1] == 0:
        raise ValueError("frame has no numeric columns to correlate.")
    if numeric.shape[0] < 2:
        raise ValueError("frame needs at least two rows to correlate its columns.")
    return numeric.corr(method=method)


def project_instances(X, method="pca", random_state=0, *, categorical=None, encode=True):
    """Project the instances to two dimensions for the instance-space view.

    With ``encode=True`` the features are first encoded as for the classic
    measures (:func:`metaeval.hardness.classic.encode_features`: min-max
    scaling, weighted one-hot), so the projection shows the space in which the
    neighbourhood measures are computed. ``method="pca"`` is principal
    component analysis (scikit-learn, exact SVD, deterministic signs); any
    object with ``fit_transform`` (t-SNE, UMAP, Isomap, ...) or a callable
    ``f(Z) -> (n, 2)`` can be given instead. An estimator whose
    ``random_state`` is None is cloned with ``random_state`` set; the object
    passed in is never modified.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_columns)
        Features (or any numeric description of the instances, e.g. a frame of
        hardness measures, the "hardness embedding" of Paiva et al. 2022).
    method : "pca", object with ``fit_transform``, or callable, default="pca"
    random_state : int, default=0
        Seed for PCA and for a stochastic ``method`` left unseeded.
    categorical : sequence, optional
        Categorical columns of ``X`` (for the encoding).
    encode : bool, default=True
        Encode ``X`` first; with False it must already be numeric.

    Returns
    -------
    xy : ndarray of shape (n_samples, 2)
        With a single feature, the second coordinate is 0.

    Examples
    --------
    >>> xy = project_instances([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], encode=False)
    >>> xy.shape
    (3, 2)
    >>> bool(abs(xy[:, 1]).max() < 1e-12)  # the points lie on a line
    True
    """
    from sklearn.base import clone
    from sklearn.decomposition import PCA

    n = len(X)
    if encode:
        Z = classic.encode_features(X, categorical)
    else:
        Z = np.asarray(X.to_numpy() if isinstance(X, pd.DataFrame) else X)
        if Z.dtype.kind not in "biuf":
            raise ValueError(f"X must be numeric when encode=False, got dtype {Z.dtype}.")
        Z = Z.astype(np.float64)
    if Z.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (n_samples, n_columns), got shape {Z.shape}.")
    if Z.shape[0] < 2 or Z.shape[1] < 1:
        raise ValueError(f"X needs at least 2 rows and 1 column to project, got shape {Z.shape}.")
    if not np.all(np.isfinite(Z)):
        raise ValueError("X contains NaN or infinite values; use encode=True to impute them.")
    if isinstance(method, str):
        if method != "pca":
            raise ValueError(
                f"method must be 'pca', an object with fit_transform or a callable, "
                f"got {method!r}."
            )
        n_components = min(2, Z.shape[1], Z.shape[0])
        xy = PCA(n_components=n_components, svd_solver="full", random_state=random_state)
        xy = xy.fit_transform(Z)
    elif hasattr(method, "fit_transform"):
        estimator = method
        if hasattr(method, "get_params") and method.get_params().get("random_state", 0) is None:
            estimator = clone(method).set_params(random_state=random_state)
        xy = estimator.fit_transform(Z)
    elif callable(method):
        xy = method(Z)
    else:
        raise ValueError(
            f"method must be 'pca', an object with fit_transform or a callable, got {method!r}."
        )
    xy = np.asarray(xy, dtype=np.float64)
    if xy.ndim == 2 and xy.shape[0] == n and xy.shape[1] == 1:
        xy = np.hstack([xy, np.zeros((n, 1))])
    if xy.shape != (n, 2):
        raise ValueError(f"the projection must return shape ({n}, 2), got {xy.shape}.")
    if not np.all(np.isfinite(xy)):
        raise ValueError("the projection returned NaN or infinite coordinates.")
    return xy
