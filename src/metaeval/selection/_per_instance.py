r"""Cost-sensitive per-instance algorithm selection from stored out-of-fold scores.

For an instance :math:`x` and an operating condition (a cost proportion
:math:`c` and a threshold choice method), the selector picks the model with
the lowest expected instance hardness among the :math:`k` nearest training
instances, i.e. the lowest mean value of their instance cost curves at
:math:`c` (Prudêncio 2019, Sect. 5: "instance cost curves can be adopted to
select algorithms for specific regions in the instance space given the
operating condition"):

.. math::

    \hat m(x) = \arg\min_{m} \frac{1}{k} \sum_{x_j \in kNN(x)} QI_m(x_j, c).

It is evaluated by nested cross-validation on the stored scores: the outer
folds are the study's folds, :math:`k` is chosen by an inner cross-validation
on each outer training part, and the selector is compared with the single best
model (lowest mean loss on the outer training part) and the per-instance
oracle through the share of the gap it closes.

Pure functions: arrays in, arrays and small frames out; scipy's k-d tree for the
neighbour queries (exact, single-threaded).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist
from sklearn.model_selection import KFold

__all__ = ["select_per_instance", "nested_cv_selection", "evaluate_selection"]

#: default grid of neighbourhood sizes searched by the inner cross-validation
#: (``None``: all training instances, i.e. the single best model)
K_GRID = (1, 3, 5, 9, 15, 25, None)
# neighbour losses gathered in blocks of at most this many (row, neighbour, model) values
_BLOCK = 1 << 21
# metric name -> Minkowski p of scipy's k-d tree (single-threaded, exact)
_METRICS = {"euclidean": 2.0, "manhattan": 1.0}
#: up to this many features the neighbours come from scipy's k-d tree (beyond, a tree
#: prunes little: exact distances in blocks)
_TREE_DIMENSIONS = 16


def _check_metric(metric):
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {sorted(_METRICS)}, got {metric!r}.")
    return metric


def _check_matrix(a, name, *, n_rows=None):
    a = np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {a.dtype}.")
    a = a.astype(np.float64, copy=False)
    if a.ndim != 2 or 0 in a.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {a.shape}.")
    if n_rows is not None and a.shape[0] != n_rows:
        raise ValueError(f"{name} has {a.shape[0]} rows; expected {n_rows}, one per instance.")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return a


def _check_k(k, n_train, *, name="k"):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"{name} must be a positive integer, got {k!r}.")
    if k > n_train:
        raise ValueError(
            f"{name}={k} nearest neighbours were asked for, but only {n_train} training "
            "instances are available; use a smaller k or more instances."
        )
    return int(k)


def _choose(neighbor_loss_sums, order):
    """argmin over models of (..., m) sums, ties broken by ``order`` (best model first).

    Sums within a relative 1e-9 of the minimum tie (rounding of e.g. 0.4 + 1.2).
    """
    vals = neighbor_loss_sums[..., order]
    low = vals.min(axis=-1, keepdims=True)
    tied = vals <= low + 1e-9 * np.maximum(1.0, np.abs(low))
    return order[np.argmax(tied, axis=-1)]


def _first(D, w):
    """Column indices (rows, w) of each row's ``w`` smallest values, in (value, column) order.

    Exact with ties: every column strictly below the ``w``-th value is kept, and equal
    values are taken in column order -- the first ``w`` of a stable sort of the row.
    """
    n_rows, n = D.shape
    if w < n:
        kth = np.partition(D, w - 1, axis=1)[:, w - 1:w]
        r, j = np.nonzero(D <= kth)  # row-major: columns increase within a row
    else:
        r, j = np.divmod(np.arange(n_rows * n), n)
    order = np.lexsort((D[r, j], r))  # stable: equal values keep column order
    r, j = r[order], j[order]
    start = np.searchsorted(r, np.arange(n_rows))
    return j[start[:, None] + np.arange(w)[None, :]]


def _knn(X_train, X_test, k, metric):
    """Indices (n_test, k) of each test row's k nearest training rows, nearest first.

    Ties in distance go to the lower training index (the order of a stable sort). A
    k-d tree (scipy, single-threaded) in up to 16 dimensions, its rows with a tie at the
    k-th distance recomputed exactly; beyond, where a tree prunes little, exact
    distances in bounded chunks of test rows.
    """
    n_train = X_train.shape[0]
    if X_train.shape[1] <= _TREE_DIMENSIONS:
        extra = min(k + 1, n_train)
        d, idx = cKDTree(X_train).query(X_test, k=extra, p=_METRICS[metric])
        d, idx = d.reshape(-1, extra), idx.reshape(-1, extra)
        # equal distances in index order; a tie across the k-th place needs every row
        order = np.lexsort((idx, d), axis=1)
        d, idx = np.take_along_axis(d, order, 1), np.take_along_axis(idx, order, 1)
        out = idx[:, :k].copy()
        tied = np.flatnonzero(d[:, k - 1] == d[:, k]) if extra > k else np.array([], int)
        step = max(1, _BLOCK // max(1, n_train))
        for r0 in range(0, tied.size, step):  # blocks of tied rows bound the memory
            rows = tied[r0:r0 + step]
            out[rows] = _first(_distances(X_test[rows], X_train, metric), k)
        return out
    out = np.empty((X_test.shape[0], k), dtype=np.intp)
    step = max(1, _BLOCK // max(1, n_train))
    sq_train = np.einsum("ij,ij->i", X_train, X_train) if metric == "euclidean" else None
    for r0 in range(0, X_test.shape[0], step):  # blocks of test rows bound the memory
        rows = slice(r0, min(X_test.shape[0], r0 + step))
        out[rows] = _first(_distances(X_test[rows], X_train, metric, sq_train), k)
    return out


def _select_grid(idx, L_train, ks, order):
    """Choices (n_test, len(ks)) for every k of the grid from shared neighbour indices.

    ``idx`` (n_test, kmax) lists each test row's nearest training rows; ``k=None``
    stands for all training instances: the single best, ``order[0]``.
    """
    n_test, m = idx.shape[0], L_train.shape[1]
    out = np.empty((n_test, len(ks)), dtype=np.intp)
    local = [j for j, k in enumerate(ks) if k is not None]
    out[:, [j for j, k in enumerate(ks) if k is None]] = order[0]
    if not local:
        return out
    kmax = max(ks[j] for j in local)
    step = max(1, _BLOCK // (kmax * m))
    cols = np.array([ks[j] for j in local]) - 1
    for r0 in range(0, n_test, step):  # blocks of test rows bound the memory
        rows = slice(r0, min(n_test, r0 + step))
        cum = np.cumsum(L_train[idx[rows, :kmax]], axis=1)  # (rows, kmax, m)
        out[rows, local] = _choose(cum[:, cols, :], order)
    return out


def _select_grid_many(idx, losses, ks, orders, rows=None):
    """:func:`_select_grid` for several loss matrices (conditions) of the same rows.

    ``rows``: the training rows of each matrix to use (default: all). The conditions are
    taken in groups, side by side, as many at once as fit in :data:`_BLOCK` values (all
    of them for a few models; one at a time for hundreds): one sparse product per group
    instead of one per condition. Only the sums over the first k neighbours for the
    grid's k are formed (:func:`_prefix_sums`; ``ks`` increasing after any ``None``, as
    :func:`_check_grid` orders them), to the last bit :func:`_select_grid`'s running
    sums: the choices are the same (tested against it on data with many ties).
    """
    n_q = len(losses)
    n_test, m = idx.shape[0], losses[0].shape[1]
    outs = [np.empty((n_test, len(ks)), dtype=np.intp) for _ in range(n_q)]
    local = [j for j, k in enumerate(ks) if k is not None]
    for q in range(n_q):
        outs[q][:, [j for j, k in enumerate(ks) if k is None]] = orders[q][0]
    if not local:
        return outs
    n_train = losses[0].shape[0] if rows is None else len(rows)
    kmax = max(ks[j] for j in local)
    sizes = np.array([ks[j] for j in local])
    group = max(1, min(n_q, _BLOCK // max(1, n_train * m)))
    for g0 in range(0, n_q, group):
        qs = range(g0, min(n_q, g0 + group))
        # (n_train, |qs| * m): condition q in block q - g0
        L = np.concatenate([losses[q] if rows is None else losses[q][rows] for q in qs],
                           axis=1)
        step = max(1, _BLOCK // (kmax * L.shape[1]))
        for r0 in range(0, n_test, step):  # blocks of test rows bound the memory
            block = slice(r0, min(n_test, r0 + step))
            # the sums over the first k neighbours, for the grid's k only
            # (rows, |local|, |qs| * m)
            cum = _prefix_sums(idx[block, :kmax], sizes, L)
            for b, q in enumerate(qs):
                outs[q][block, local] = _choose(cum[:, :, b * m:(b + 1) * m], orders[q])
    return outs


def _prefix_sums(neighbours, sizes, L):
    """``(rows, len(sizes), L.shape[1])``: for each row and each ``k`` of ``sizes``, the
    sum of ``L``'s rows over its first ``k`` neighbours (``neighbours[i, :k]``).

    One sparse product: a row of ones per (row, k) at its first ``k`` neighbours'
    columns, times ``L``, adding the neighbours' rows one after another in their order:
    to the last bit the running sums ``np.cumsum(L[neighbours], axis=1)`` at ``k - 1``
    (tested), without making that array of ``kmax`` rows of ``L`` per row, and only for
    the ``k`` asked for: 1.1 ms against 10 ms for 500 rows of 25 neighbours and 120 loss
    columns (the gather, ``np.add.reduceat`` and ``np.cumsum`` it replaces).
    """
    from scipy import sparse

    r = neighbours.shape[0]
    n_s = sizes.size
    columns = np.concatenate([np.arange(k) for k in sizes])  # each k's first neighbours
    ends = np.cumsum(np.tile(sizes, r))
    A = sparse.csr_matrix((np.ones(r * columns.size), neighbours[:, columns].ravel(),
                           np.r_[0, ends]), shape=(r * n_s, L.shape[0]))
    return np.asarray(A @ L).reshape(r, n_s, L.shape[1])


def _distances(A, B, metric, sq_b=None):
    """Distances (or, for euclidean, ``|b|^2 - 2 a.b``: the same order within a row)."""
    if metric == "euclidean":
        sq_b = np.einsum("ij,ij->i", B, B) if sq_b is None else sq_b
        return sq_b[None, :] - 2.0 * A @ B.T
    return cdist(A, B, metric="cityblock")


class _Ranked:
    """Each row's nearest rows of ``X`` in (distance, row index) order: an exact prefix.

    The neighbours of a row among any subset of the rows (an outer or inner
    training part) are then the first members of that subset in its list: the
    distances are computed once per dataset instead of once per fold and inner
    fold. ``prefix[i]`` holds the first ``width`` rows of row ``i``'s full order
    (itself included): every row strictly nearer than the ``width``-th is in it, and
    rows at the same distance in index order, so it is exactly the prefix of a
    stable sort by distance. A query that finds fewer than ``k`` members of its
    subset there is answered from the full row of distances.
    """

    def __init__(self, X, metric, width):
        n = X.shape[0]
        self.X, self.metric = X, metric
        self.width = w = min(int(width), n)
        self.sq = np.einsum("ij,ij->i", X, X) if metric == "euclidean" else None
        if X.shape[1] <= _TREE_DIMENSIONS:  # one k-d tree query of every row
            self.prefix = _knn(X, X, w, metric)
            return
        self.prefix = np.empty((n, w), dtype=np.intp)
        step = max(1, _BLOCK // max(1, n))
        for r0 in range(0, n, step):  # blocks of rows bound the memory
            rows = slice(r0, min(n, r0 + step))
            self.prefix[rows] = _first(_distances(X[rows], X, metric, self.sq), w)

    def query(self, train, test, k):
        """Positions in ``train`` of the ``k`` nearest training rows of each test row."""
        n = self.X.shape[0]
        position = np.full(n, -1, dtype=np.intp)
        position[train] = np.arange(train.size)
        cand = position[self.prefix[test]]  # -1: not a training row
        inside = cand >= 0
        out = np.empty((test.size, k), dtype=np.intp)
        enough = np.count_nonzero(inside, axis=1) >= k
        if enough.any():
            first = np.argsort(~inside[enough], axis=1, kind="stable")[:, :k]
            out[enough] = np.take_along_axis(cand[enough], first, axis=1)
        for i in np.flatnonzero(~enough):  # rare: the prefix holds too few of them
            d = _distances(self.X[test[i]][None, :], self.X[train], self.metric,
                           None if self.sq is None else self.sq[train])[0]
            out[i] = _first(d[None, :], k)[0]
        return out


def _neighbours(X, train, test, ks, metric, ranked=None):
    """Nearest rows of ``X[train]`` (positions in ``train``) for the rows ``X[test]``."""
    kmax = max([k for k in ks if k is not None], default=0)
    if kmax == 0:
        return np.zeros((test.size, 0), dtype=np.intp)
    if ranked is not None:
        return ranked.query(train, test, kmax)
    return _knn(X[train], X[test], kmax, metric)


def _model_order(L_train):
    """Models by increasing mean training loss (stable): the tie-breaking order."""
    return np.argsort(L_train.mean(axis=0), kind="stable")


def select_per_instance(X_train, loss_train, X_test, *, k=5, metric="euclidean"):
    r"""Pick, for each test instance, the model with the lowest loss around it.

    .. math::

        \hat m(x) = \arg\min_m \frac{1}{k} \sum_{x_j \in kNN(x)} L_{jm}

    with :math:`L_{jm}` the loss of model :math:`m` on training instance :math:`j`
    at the operating condition (its instance cost curve at :math:`c`, from
    :func:`metaeval.hardness.instance_hardness_at`). Ties go to the model with the
    lower mean training loss (the single best first).

    Parameters
    ----------
    X_train : array-like of shape (n_train, n_features)
        Numeric features (e.g. :func:`metaeval.hardness.classic.encode_features`).
    loss_train : array-like of shape (n_train, n_models)
        Loss of each model on each training instance.
    X_test : array-like of shape (n_test, n_features)
    k : int, default=5
        Neighbours, ``1 <= k <= n_train``.
    metric : {"euclidean", "manhattan"}, default="euclidean"

    Returns
    -------
    choice : ndarray of shape (n_test,), int
        Column of ``loss_train`` chosen for each test instance.

    References
    ----------
    R. B. C. Prudêncio (2019), "Cost sensitive evaluation of instance hardness in
    machine learning", ECML PKDD 2019, Sect. 5.

    Examples
    --------
    Model 0 errs on the left, model 1 on the right:

    >>> X = [[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]]
    >>> L = [[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 1]]
    >>> select_per_instance(X, L, [[0.5], [11.5]], k=3)
    array([1, 0])
    """
    X_train = _check_matrix(X_train, "X_train")
    L = _check_matrix(loss_train, "loss_train", n_rows=X_train.shape[0])
    X_test = _check_matrix(X_test, "X_test")
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(
            f"X_test has {X_test.shape[1]} features but X_train has {X_train.shape[1]}."
        )
    k = _check_k(k, X_train.shape[0])
    _check_metric(metric)
    return _select_grid(_knn(X_train, X_test, k, metric), L, [k], _model_order(L))[:, 0]


def _check_folds(folds, n):
    folds = np.asarray(folds)
    if folds.shape != (n,):
        raise ValueError(f"folds must have shape ({n},), one fold id per instance.")
    ids = np.unique(folds)
    if ids.size < 2:
        raise ValueError("folds must hold at least two distinct fold ids.")
    return folds, ids


def nested_cv_selection(
    X, loss, folds, *, k_grid=K_GRID, inner_folds=5, metric="euclidean", random_state=0
):
    """Out-of-fold choices of the per-instance selector, k tuned by inner cross-validation.

    For each outer fold, every ``k`` of ``k_grid`` is scored by ``inner_folds``-fold
    cross-validation on the other folds (mean loss of the chosen models); the best
    ``k`` (among ties: ``None``, then the smallest) then selects for the outer fold's
    instances from all of the outer training part. ``None`` in ``k_grid`` stands for all training
    instances, i.e. the single best model (lowest mean loss on the outer training
    part): the inner cross-validation falls back on it where local selection does not
    pay. The single best model of each outer training part is recorded too.

    Parameters
    ----------
    X : array-like of shape (n_instances, n_features)
    loss : array-like of shape (n_instances, n_models)
    folds : array-like of shape (n_instances,)
        Outer fold of each instance (e.g. the study's cross-validation folds).
    k_grid : sequence of int or None, default=(1, 3, 5, 9, 15, 25, None)
    inner_folds : int, default=5
    metric : {"euclidean", "manhattan"}, default="euclidean"
    random_state : int, default=0
        Seeds the inner folds (scikit-learn's shuffled ``KFold``).

    Returns
    -------
    choice : ndarray of shape (n_instances,), int
        Model chosen for each instance by the selector trained without its fold.
    single_best : ndarray of shape (n_instances,), int
        The single best model of the outer training part of each instance's fold.
    k_chosen : dict of fold id to int or None

    Examples
    --------
    Two groups of instances, far apart; model 0 errs on the first, model 1 on the second:

    >>> X = [[0], [1], [2], [3], [4], [5], [20], [21], [22], [23], [24], [25]]
    >>> L = [[1, 0]] * 6 + [[0, 1]] * 6
    >>> choice, single_best, ks = nested_cv_selection(X, L, [0, 1] * 6, k_grid=(1, 3),
    ...                                               inner_folds=2)
    >>> choice.tolist()
    [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    """
    X = _check_matrix(X, "X")
    L = _check_matrix(loss, "loss", n_rows=X.shape[0])
    folds, ids = _check_folds(folds, X.shape[0])
    _check_metric(metric)
    ks = _check_grid(X, folds, k_grid, inner_folds)
    return _nested(X, lambda fold, train: [L[train]], folds, ids, ks, inner_folds, metric,
                   random_state, 1)[0]


def _check_grid(X, folds, k_grid, inner_folds):
    """The validated grid, ``None`` first (ties go to it, then to the smaller k)."""
    if isinstance(k_grid, (int, np.integer)) or len(k_grid) == 0:
        raise ValueError(f"k_grid must be a non-empty sequence of integers, got {k_grid!r}.")
    if isinstance(inner_folds, bool) or not isinstance(inner_folds, (int, np.integer)):
        raise ValueError(f"inner_folds must be an integer >= 2, got {inner_folds!r}.")
    if inner_folds < 2:
        raise ValueError(f"inner_folds must be an integer >= 2, got {inner_folds!r}.")
    smallest_train = X.shape[0] - np.bincount(np.unique(folds, return_inverse=True)[1]).max()
    if inner_folds > smallest_train:
        raise ValueError(
            f"inner_folds={inner_folds} exceeds the {smallest_train} instances of the "
            "smallest outer training part."
        )
    smallest_inner = smallest_train - -(-smallest_train // inner_folds)
    ks = sorted({_check_k(k, smallest_inner, name="k in k_grid") for k in k_grid if k is not None})
    return [None] * any(k is None for k in k_grid) + ks


def _nested(X, train_losses, folds, ids, ks, inner_folds, metric, random_state, n_q):
    """Nested CV for several conditions at once, sharing every neighbour query.

    ``train_losses(fold, train)`` gives, for the outer training rows ``train`` of
    ``fold``, one ``(train.size, m)`` loss matrix per condition, computed without
    anything of the fold's own rows: the choices for a fold's rows never depend on
    their scores or labels.
    """
    n = X.shape[0]
    out = [(np.empty(n, dtype=np.intp), np.empty(n, dtype=np.intp), {}) for _ in range(n_q)]
    kmax = max([k for k in ks if k is not None], default=0)
    # every row's nearest rows listed once (one k-d tree query, or every distance beyond
    # a tree's dimensions), then each fold's and inner fold's query reads the lists; they
    # are long enough that an inner training part (about 72% of the rows) almost always
    # has kmax members in them: kmax + 32 rows (57 for the default grid) left one query
    # row of 449,220 to the full row of distances on the built-in suite, and 2 kmax + 32
    # took 0.3 CPU-s more (longer lists to sort and search)
    ranked = _Ranked(X, metric, kmax + 32) if kmax else None
    for fold in ids:  # a loop over folds, not instances
        test = np.flatnonzero(folds == fold)
        train = np.flatnonzero(folds != fold)
        key = fold.item() if hasattr(fold, "item") else fold
        losses = train_losses(fold, train)
        inner_loss = np.zeros((n_q, len(ks)))
        if len(ks) > 1:
            splits = KFold(inner_folds, shuffle=True, random_state=random_state).split(train)
            for itr, ite in splits:
                idx = _neighbours(X, train[itr], train[ite], ks, metric, ranked)
                picks = _select_grid_many(idx, losses, ks,  # all conditions at once
                                          [_model_order(L[itr]) for L in losses], rows=itr)
                for q, L in enumerate(losses):
                    inner_loss[q] += L[ite[:, None], picks[q]].sum(axis=0)
        idx = _neighbours(X, train, test, ks, metric, ranked)
        orders = [_model_order(L) for L in losses]
        best = [int(np.argmin(inner_loss[q])) for q in range(n_q)]
        used = sorted(set(best))  # the grid's k that some condition chose
        picks = _select_grid_many(idx, losses, [ks[j] for j in used], orders)
        for q in range(n_q):
            choice, single_best, k_chosen = out[q]
            single_best[test] = orders[q][0]
            k_chosen[key] = ks[best[q]]
            choice[test] = picks[q][:, used.index(best[q])]
    return out


def evaluate_selection(
    X,
    y,
    S,
    folds,
    *,
    c=(0.2, 0.5, 0.8),
    method="score-driven",
    algorithms=None,
    k_grid=K_GRID,
    inner_folds=5,
    pos_label=1,
    t=0.5,
    random_state=0,
    train_scores=None,
    return_choices=False,
):
    r"""Per-instance selection against the single best model and the oracle, per condition.

    At each cost proportion :math:`c` the loss of model :math:`m` on instance
    :math:`i` is its instance cost curve :math:`L_{im} = QI_m(x_i, c)` under
    ``method`` (:func:`metaeval.hardness.instance_hardness_at`, from the stored
    out-of-fold scores). With mean losses over all instances,

    .. math::

        \text{gap closed} = \frac{L_{SB} - L_{sel}}{L_{SB} - L_{oracle}}, \qquad
        L_{oracle} = \frac{1}{n} \sum_i \min_m L_{im}

    (1 = as good as the oracle, 0 = no better than the single best, negative =
    worse; NaN when the single best is already the oracle).

    Nothing of an outer fold's own rows -- their scores or labels -- is used to
    choose for them: the training losses of each outer fold are computed from
    the training rows alone (for the rate-based methods the rates are ranks, so
    they are ranked among the training rows only). The stored score of a
    training instance, however, comes from a model that was fitted on the outer
    test fold's rows (the study's cross-validation), so by default the selector
    sees their labels indirectly, through the neighbours' losses of local models
    such as k-NN. Give ``train_scores`` -- scores of the training rows from
    models fitted without the outer fold (an inner cross-validation) -- for a
    fully nested evaluation.

    Parameters
    ----------
    X : array-like of shape (n_instances, n_features)
        Numeric features for the neighbourhoods.
    y : array-like of shape (n_instances,)
    S : array-like of shape (n_instances, n_models)
        Stored out-of-fold scores.
    folds : array-like of shape (n_instances,)
        Outer folds (the study's).
    c : float or sequence of float, default=(0.2, 0.5, 0.8)
    method : str, default="score-driven"
        A threshold choice method.
    algorithms : sequence of str, optional
        Names of the columns of ``S``.
    k_grid, inner_folds, random_state
        As in :func:`nested_cv_selection`.
    pos_label : scalar, default=1
    t : float, default=0.5
        Threshold of ``score-fixed``.
    train_scores : mapping of fold id to array-like, optional
        For each outer fold, the ``(n_train, n_models)`` scores of its training rows
        (those of the other folds, in row order) from models fitted without the
        fold's rows. Default: the stored scores ``S`` of those rows.
    return_choices : bool, default=False
        Also return the model chosen for each instance at each ``c``.

    Returns
    -------
    table : DataFrame
        One row per ``c``: ``c``, ``loss_single_best``, ``loss_selected``,
        ``loss_oracle``, ``gap_closed``, ``k`` (the most frequent chosen k; 0 for
        all training instances, the single best),
        ``single_best`` (the model most often single best) and
        ``share_switched`` (instances given another model than their single best).
    choices : ndarray of shape (len(c), n_instances), int
        Only with ``return_choices``: the column of ``S`` chosen for each instance.

    Examples
    --------
    >>> X = [[0], [1], [2], [3], [4], [5], [20], [21], [22], [23], [24], [25]]
    >>> y = [0] * 6 + [1] * 6
    >>> S = [[0.2, 0.7]] * 6 + [[0.3, 0.9]] * 6  # model 0 errs on class 1, model 1 on 0
    >>> table = evaluate_selection(X, y, S, [0, 1] * 6, c=[0.5], k_grid=(1, 3),
    ...                            inner_folds=2, algorithms=["A", "B"])
    >>> table[["loss_single_best", "loss_selected", "loss_oracle", "gap_closed"]]
       loss_single_best  loss_selected  loss_oracle  gap_closed
    0               0.5            0.0          0.0         1.0
    """
    from metaeval.hardness import instance_hardness_at

    X = _check_matrix(X, "X")
    S = _check_matrix(S, "S", n_rows=X.shape[0])
    names = _names(algorithms, S.shape[1])
    cs = np.atleast_1d(np.asarray(c, dtype=np.float64))
    if cs.ndim != 1 or cs.size == 0 or np.any((cs < 0) | (cs > 1)) or np.any(np.isnan(cs)):
        raise ValueError(f"c must be cost proportions in [0, 1], got {c!r}.")
    losses = [instance_hardness_at(y, S, method, float(cost), t=t, pos_label=pos_label)
              for cost in cs]  # fmt: skip
    folds, ids = _check_folds(folds, X.shape[0])
    ks = _check_grid(X, folds, k_grid, inner_folds)
    y = np.asarray(y)
    nested = _check_train_scores(train_scores, folds, ids, S.shape[1])

    def train_losses(fold, train):
        S_train = S[train] if nested is None else nested[fold]
        return [instance_hardness_at(y[train], S_train, method, float(cost), t=t,
                                     pos_label=pos_label) for cost in cs]

    fitted = _nested(X, train_losses, folds, ids, ks, inner_folds, "euclidean", random_state,
                     cs.size)
    rows = []
    n = np.arange(X.shape[0])
    for cost, L, (choice, single_best, k_chosen) in zip(cs, losses, fitted, strict=True):
        sb, sel, oracle = L[n, single_best].mean(), L[n, choice].mean(), L.min(axis=1).mean()
        gap = (sb - sel) / (sb - oracle) if sb > oracle else np.nan
        ks_chosen = pd.Series([0 if k is None else k for k in k_chosen.values()])
        rows.append(
            {
                "c": float(cost),
                "loss_single_best": sb,
                "loss_selected": sel,
                "loss_oracle": oracle,
                "gap_closed": gap,
                "k": int(ks_chosen.mode().min()),
                "single_best": names[int(np.bincount(single_best).argmax())],
                "share_switched": float(np.mean(choice != single_best)),
            }
        )
    table = pd.DataFrame(rows)
    if return_choices:
        return table, np.stack([choice for choice, _, _ in fitted])
    return table


def _names(algorithms, m):
    if algorithms is None:
        return [f"model_{j}" for j in range(m)]
    if isinstance(algorithms, str) or len(algorithms) != m:
        raise ValueError(
            f"algorithms must be a sequence of {m} names, one per column of S, got {algorithms!r}."
        )
    return [str(a) for a in algorithms]


def _check_train_scores(train_scores, folds, ids, m):
    """``train_scores`` as a dict fold id -> (n_train, m) float array, validated."""
    if train_scores is None:
        return None
    if not hasattr(train_scores, "keys"):
        raise ValueError("train_scores must be a mapping of fold id to the scores of that "
                         f"fold's training rows, got {type(train_scores).__name__}.")
    out = {}
    for fold in ids:
        key = fold.item() if hasattr(fold, "item") else fold
        if key not in train_scores:
            raise ValueError(f"train_scores has no entry for fold {key!r}.")
        n_train = int(np.sum(folds != fold))
        a = _check_matrix(train_scores[key], f"train_scores[{key!r}]", n_rows=n_train)
        if a.shape[1] != m:
            raise ValueError(f"train_scores[{key!r}] has {a.shape[1]} columns; S has {m}.")
        out[fold] = a
    return out
