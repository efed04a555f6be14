"""Neighbourhood computations behind the classic hardness measures (private).

Everything here works on an already validated float64 matrix ``X`` of shape
(n, d) and 0/1 labels ``y``. Memory stays linear in ``n``: k-nearest-neighbour
and nearest-enemy queries go through scikit-learn's tree-based
``NearestNeighbors``; the local-set pass compares each class with itself in
row chunks of at most ``_CHUNK_ENTRIES`` distances; the exact minimum spanning
tree (Prim's algorithm) keeps one distance per point, and beyond ``exact_max``
rows a k-NN graph stands in for the complete graph.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

__all__ = [
    "METRICS",
    "knn_indices",
    "nearest_enemy",
    "nearest_friend_distance",
    "local_set_pass",
    "mst_edges",
]

#: metric name accepted by the public functions -> scipy.spatial.distance name
METRICS = {"euclidean": "euclidean", "manhattan": "cityblock"}

# at most this many pairwise distances are held at once (2**20 doubles = 8 MiB)
_CHUNK_ENTRIES = 2**20
# the smallest positive weight; scipy's csgraph reads a zero weight as "no edge"
_TINY = np.finfo(np.float64).tiny
# Prim's Euclidean steps are bounded by a matrix-vector product from this many entries of
# X on (measured: below, e.g. 1000 x 32 or 3000 x 8, the plain step is as fast or faster)
_BOUND_ENTRIES = 40_000
# when the k-NN graph falls into more components than this, k is doubled
_MAX_COMPONENTS = 64


def _neighbors(X, k, metric):
    return NearestNeighbors(n_neighbors=k, metric=metric).fit(X)


def knn_indices(X, k, metric):
    """Indices (n, k) of each row's k nearest other rows (the row itself excluded).

    ``kneighbors()`` without a query drops each point's own index, so an exact
    duplicate of a point still counts as one of its neighbours.
    """
    return _neighbors(X, k, metric).kneighbors(return_distance=False)


def nearest_enemy(X, y, metric):
    """Distance (n,) to, and index (n,) of, each row's nearest row of the other class."""
    dist = np.empty(X.shape[0])
    index = np.empty(X.shape[0], dtype=np.intp)
    for c in (0, 1):
        own = np.flatnonzero(y == c)
        other = np.flatnonzero(y != c)
        d, j = _neighbors(X[other], 1, metric).kneighbors(X[own])
        dist[own] = d[:, 0]
        index[own] = other[j[:, 0]]
    return dist, index


def nearest_friend_distance(X, y, metric):
    """Distance (n,) to each row's nearest other row of its own class (inf when alone)."""
    dist = np.full(X.shape[0], np.inf)
    for c in (0, 1):
        own = np.flatnonzero(y == c)
        if own.size > 1:
            d = _neighbors(X[own], 1, metric).kneighbors(return_distance=True)[0]
            dist[own] = d[:, 0]
    return dist


def local_set_pass(X, y, radius, metric):
    """One chunked pass over the same-class pairs of each class.

    With ``radius[j]`` the distance from ``x_j`` to its nearest enemy, the local
    set is ``LS(x_j) = {x_i : d(x_i, x_j) < radius[j]}`` (Leyva et al., 2015);
    only same-class rows can lie in it. Returns, per row,

    - ``ls_size[j] = |LS(x_j)|`` (``x_j`` itself included when ``radius[j] > 0``),
    - ``reached[i] = #{j : x_i in LS(x_j)}`` (the count behind usefulness),
    - ``farthest[j] = max_i d(x_i, x_j)`` over rows of ``x_j``'s class.

    Memory: one (chunk, n_c) block at a time, chunk * n_c <= 2**20.
    """
    n = X.shape[0]
    ls_size = np.zeros(n, dtype=np.int64)
    reached = np.zeros(n, dtype=np.int64)
    farthest = np.zeros(n)
    scipy_metric = METRICS[metric]
    for c in (0, 1):
        own = np.flatnonzero(y == c)
        Xc, rc = X[own], radius[own]
        m = own.size
        chunk = max(1, _CHUNK_ENTRIES // m)
        ls_c = np.empty(m, dtype=np.int64)
        reached_c = np.zeros(m, dtype=np.int64)
        far_c = np.empty(m)
        for start in range(0, m, chunk):
            stop = min(start + chunk, m)
            D = cdist(Xc[start:stop], Xc, metric=scipy_metric)
            inside = D < rc[start:stop, None]
            ls_c[start:stop] = np.count_nonzero(inside, axis=1)
            reached_c += np.count_nonzero(inside, axis=0)
            far_c[start:stop] = D.max(axis=1)
        ls_size[own] = ls_c
        reached[own] = reached_c
        farthest[own] = far_c
    return ls_size, reached, farthest


def _prim_mst(X, metric):
    """Exact minimum spanning tree by Prim's algorithm, O(n) memory, O(n^2 d) time.

    The loop runs over the n - 1 tree-growing steps (each depends on the one
    before), each step vectorised over the points not yet in the tree, which
    are kept in the leading block of a row-permuted copy of ``X``. Squared
    Euclidean distances order the edges as Euclidean ones do.

    Euclidean steps first bound every distance from below by one matrix-vector
    product (``|a|^2 + |b|^2 - 2 a.b`` of the centred rows, less a bound on its
    rounding): only the points whose bound is below their shortest edge so far can
    get a shorter one, and only their distances are computed as before, row
    difference by row difference. The tree is the one the plain loop gives (tested
    against it on data with many ties), several times faster in many dimensions; below
    ``_BOUND_ENTRIES`` entries in ``X`` the extra calls per step cost more than they save.
    """
    n, dims = X.shape
    Xr = np.array(X, dtype=np.float64, copy=True)
    euclidean = metric == "euclidean"
    bounded = euclidean and n * dims >= _BOUND_ENTRIES
    if bounded:  # centred copy for the bounds; sq: its rows' squared norms
        Xg = Xr - Xr.mean(axis=0)
        sq = np.einsum("ij,ij->i", Xg, Xg)
        # squares beyond the float range (|x| ~ 1e154) would make the bounds NaN: the
        # plain loop takes such data as it did
        bounded = bool(np.isfinite(sq).all())
        # |computed - exact| of |a|^2 + |b|^2 - 2 a.b (any order of summation) and of
        # the plain loop's squared distance are each below 2 (d + 2) eps (|a|^2 + |b|^2)
        # and the centring adds 4 eps (|a|^2 + |b|^2): a margin of 8 (d + 4) eps keeps every
        # point whose plain-loop distance could beat its shortest edge
        slack = 8.0 * (dims + 4) * np.finfo(np.float64).eps
        g = np.empty(n)
    idx = np.arange(n)
    best = np.full(n, np.inf)  # shortest edge from each outside point into the tree
    parent = np.zeros(n, dtype=np.intp)
    u = np.empty(n - 1, dtype=np.intp)
    v = np.empty(n - 1, dtype=np.intp)
    if not bounded:  # the plain loop's buffers
        diff = np.empty_like(Xr)
        d = np.empty(n)
        closer = np.empty(n, dtype=bool)
    pos = 0  # position (in the leading block) of the point that joins next
    for m in range(n - 1, -1, -1):  # m = number of points still outside afterwards
        if pos != m:  # move the joining point just past the leading block
            Xr[[pos, m]] = Xr[[m, pos]]
            if bounded:
                Xg[[pos, m]] = Xg[[m, pos]]
                sq[pos], sq[m] = sq[m], sq[pos]
            idx[pos], idx[m] = idx[m], idx[pos]
            best[pos], best[m] = best[m], best[pos]
            parent[pos], parent[m] = parent[m], parent[pos]
        j = idx[m]
        if m < n - 1:
            u[n - 2 - m], v[n - 2 - m] = parent[m], j
        if m == 0:
            break
        if bounded:
            np.dot(Xg[:m], Xg[m], out=g[:m])
            g[:m] *= -2.0
            g[:m] += (sq[:m] + sq[m]) * (1.0 - slack)  # the bound, less its margin
            cand = np.flatnonzero(g[:m] < best[:m])
            if cand.size:
                rows = np.subtract(Xr[cand], Xr[m])
                dc = np.einsum("ij,ij->i", rows, rows)
                near = dc < best[cand]
                cand, dc = cand[near], dc[near]
                best[cand] = dc
                parent[cand] = j
        else:
            np.subtract(Xr[:m], Xr[m], out=diff[:m])
            if euclidean:
                np.einsum("ij,ij->i", diff[:m], diff[:m], out=d[:m])
            else:
                np.abs(diff[:m], out=diff[:m])
                diff[:m].sum(axis=1, out=d[:m])
            np.less(d[:m], best[:m], out=closer[:m])
            np.copyto(best[:m], d[:m], where=closer[:m])
            np.copyto(parent[:m], j, where=closer[:m])
        pos = int(best[:m].argmin())
    return u, v


def _bridges(X, labels, n_comp, metric):
    """Shortest edge between every pair of k-NN-graph components (exact)."""
    rows, cols, weights = [], [], []
    for comp in range(n_comp):  # loop over components, not instances
        inside = np.flatnonzero(labels == comp)
        outside = np.flatnonzero(labels != comp)
        d, j = _neighbors(X[inside], 1, metric).kneighbors(X[outside])
        d, j = d[:, 0], inside[j[:, 0]]
        # shortest edge from `comp` to each other component
        order = np.lexsort((d, labels[outside]))
        first = np.ones(order.size, dtype=bool)
        first[1:] = labels[outside][order][1:] != labels[outside][order][:-1]
        pick = order[first]
        rows.append(outside[pick])
        cols.append(j[pick])
        weights.append(d[pick])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(weights)


def _knn_graph_mst(X, metric, n_neighbors):
    n = X.shape[0]
    k = min(n_neighbors, n - 1)
    while True:
        d, j = _neighbors(X, k, metric).kneighbors()
        rows = np.repeat(np.arange(n), k)
        cols = j.ravel()
        w = np.maximum(d.ravel(), _TINY)
        graph = coo_matrix((w, (rows, cols)), shape=(n, n)).tocsr()
        n_comp, labels = connected_components(graph, directed=False)
        if n_comp <= _MAX_COMPONENTS or k >= n - 1:
            break
        k = min(2 * k, n - 1)
    if n_comp > 1:
        br, bc, bw = _bridges(X, labels, n_comp, metric)
        rows = np.concatenate([rows, br])
        cols = np.concatenate([cols, bc])
        w = np.concatenate([w, np.maximum(bw, _TINY)])
        graph = coo_matrix((w, (rows, cols)), shape=(n, n)).tocsr()
    T = minimum_spanning_tree(graph).tocoo()
    return T.row.astype(np.intp), T.col.astype(np.intp)


def mst_edges(X, metric, exact_max, n_neighbors):
    """Edges (u, v) of a minimum spanning tree of the rows of ``X``.

    Up to ``exact_max`` rows the tree is exact (Prim's algorithm). Beyond,
    it is the minimum spanning tree of the symmetrised ``n_neighbors``-NN graph,
    made connected with the exact shortest edge between each pair of its
    components: an approximation that equals the exact tree whenever every
    edge of the exact tree joins two points of which one is among the other's
    ``n_neighbors`` nearest neighbours.
    """
    if X.shape[0] <= exact_max:
        return _prim_mst(X, metric)
    return _knn_graph_mst(X, metric, n_neighbors)
