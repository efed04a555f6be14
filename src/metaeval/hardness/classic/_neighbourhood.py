"""Neighbourhood measures: kDN, N1, N2, LSC, LSR, Harmfulness and Usefulness."""

from __future__ import annotations

import numpy as np

from metaeval.hardness.classic import _search as _nb
from metaeval.hardness.classic._checks import _check_metric, _check_X, _check_y
from metaeval.hardness.classic._shared import _Data

__all__ = [
    "k_disagreeing_neighbors",
    "borderline_points",
    "intra_extra_ratio",
    "local_set_cardinality",
    "local_set_radius",
    "harmfulness",
    "usefulness",
]


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
