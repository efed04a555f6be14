r"""Many small weighted classification trees grown together (extremely randomised trees).

The pairwise learner needs one forest per pair of candidate configurations: 20
candidates are 190 pairs, and 100 trees each are 19,000 trees per fit, each on a few
dozen training datasets. Grown one at a time, a tree costs far more in bookkeeping than
in splitting; here every tree of every forest grows at once, one depth level at a time,
with array operations over all their nodes.

Each node draws :math:`\lceil\log_2(F + 1)\rceil` features (with replacement) and for each a
threshold uniformly between the values of a class-0 and a class-1 row of the node drawn
at random (as the perfect random tree ensembles of Cutler & Zhao 2001 do; extremely
randomised trees draw it between the node's smallest and largest value), and keeps the
candidate split with the lowest weighted Gini impurity of its two sides,

.. math:: \frac{p_L (w_L - p_L)}{w_L} + \frac{p_R (w_R - p_R)}{w_R},

:math:`w` being the summed weight and :math:`p` the summed weight of class 1 on each side
(Geurts, Ernst & Wehenkel 2006). A node stops when it is pure, holds fewer than two
rows, or eight draws in a row found no candidate that separates its rows; a leaf
predicts the weighted share of class 1. Rows of weight 0 take no part (ties of a pair,
families out of the bootstrap sample).
"""

from __future__ import annotations

import numpy as np


class TreeBatch:
    """Extremely randomised classification trees, grown together on one design matrix.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
    labels : ndarray of shape (n_trees, n_rows)
        Class (0 or 1) of each row for each tree.
    weights : ndarray of shape (n_trees, n_rows)
        Weight of each row for each tree (0: left out). A tree with fewer than two
        weighted rows predicts 0.5 everywhere.
    rng : numpy Generator
    features : int, optional
        Features drawn at each node (default ceil(log2(F + 1)): 7 of the shipped
        knowledge base's 110, which grows its 19,000 trees of a fit in about half the
        time of ceil(sqrt(F)) = 11).

    References
    ----------
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees", Machine Learning
    63(1):3-42 (2006); A. Cutler and G. Zhao, "PERT - perfect random tree ensembles",
    Computing Science and Statistics 33 (2001).

    Examples
    --------
    One feature separates the classes: every tree predicts them.

    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> trees = TreeBatch(X, np.array([[0, 0, 1, 1]] * 3), np.ones((3, 4)),
    ...                   np.random.default_rng(0))
    >>> trees.predict(np.array([[0.5], [2.5]])).tolist()
    [[0.0, 1.0], [0.0, 1.0], [0.0, 1.0]]
    """

    def __init__(self, X, labels, weights, rng, features=None):
        X = np.asarray(X, dtype=np.float64)
        XT = np.ascontiguousarray(X.T, dtype=np.float32)
        labels = np.asarray(labels, dtype=np.float64)
        weights = np.asarray(weights, dtype=np.float64)
        n_trees, n_rows = weights.shape
        n_features = X.shape[1]
        k = (max(1, int(np.ceil(np.log2(n_features + 1)))) if features is None
             else int(features))
        use = weights > 0
        use &= (use.sum(axis=1) >= 2)[:, None]
        tree, row = np.nonzero(use)  # grouped by tree: node t is tree t's root
        cls = labels[tree, row] > 0.5
        first = np.lexsort((cls, tree))  # within a node: class 0 rows, then class 1
        tree, row, cls = tree[first], row[first], cls[first]
        node = tree.copy()
        w = weights[tree, row]
        wy = w * labels[tree, row]
        cap = max(4 * n_trees, 16)
        feature = np.full(cap, -1, dtype=np.int64)
        threshold = np.zeros(cap, dtype=np.float32)
        left = np.full(cap, -1, dtype=np.int64)
        value = np.full(cap, 0.5)
        tries = np.zeros(cap, dtype=np.int64)
        n_nodes = n_trees
        while node.size:
            wboth = np.stack([w, wy]).astype(np.float32)
            starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
            ids = node[starts]
            counts = np.diff(np.r_[starts, node.size])
            total = np.add.reduceat(w, starts)
            positive = np.add.reduceat(wy, starts)
            value[ids] = positive / total
            tol = 1e-12 * total
            impure = (counts >= 2) & (positive > tol) & (positive < total - tol)
            seg = np.repeat(np.arange(ids.size), counts)
            feats = rng.integers(0, n_features, size=(k, ids.size))
            v = XT[feats[:, seg], row]  # (k, items), each row contiguous
            # the threshold: between the values of a class-0 and a class-1 row of the
            # node drawn at random (a node whose draws all tie is drawn again, up to 8
            # times)
            n0 = np.add.reduceat((~cls).astype(np.int64), starts)
            n1 = counts - n0
            one = starts + np.minimum((rng.random((k, ids.size)) * n0).astype(np.int64),
                                      np.maximum(n0 - 1, 0))
            two = starts + n0 + np.minimum((rng.random((k, ids.size)) * n1).astype(np.int64),
                                           np.maximum(n1 - 1, 0))
            two = np.minimum(two, starts + counts - 1)
            cols = np.arange(k)[:, None]
            a, b = v[cols, one], v[cols, two]
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            thr = lo + rng.random((k, ids.size), dtype=np.float32) * (hi - lo)
            goes_left = v <= thr[:, seg]
            sums = np.add.reduceat(np.where(goes_left[None], wboth[:, None, :], 0.0),
                                   starts, axis=2)
            wl, pl = sums[0], sums[1]
            wr, pr = total - wl, positive - pl
            with np.errstate(invalid="ignore", divide="ignore"):
                impurity = pl * (wl - pl) / wl + pr * (wr - pr) / wr
            valid = (hi > lo) & (wl > 0) & (wr > 0)
            impurity = np.where(valid, impurity, np.inf).T  # (nodes, k)
            feats, thr = feats.T, thr.T
            best = np.argmin(impurity, axis=1)
            split = impure & np.isfinite(impurity[np.arange(ids.size), best])
            again = impure & ~split & (tries[ids] < 8)
            tries[ids[again]] += 1
            n_split = int(split.sum())
            if n_nodes + 2 * n_split > cap:
                cap = max(2 * cap, n_nodes + 2 * n_split)
                feature = np.resize(feature, cap)
                threshold = np.resize(threshold, cap)
                left = np.resize(left, cap)
                value = np.resize(value, cap)
                tries = np.resize(tries, cap)
                tries[n_nodes:] = 0
                feature[n_nodes:] = -1
                left[n_nodes:] = -1
            first = np.full(ids.size, -1, dtype=np.int64)
            first[split] = n_nodes + 2 * np.arange(n_split)
            chosen = best[split]
            feature[ids[split]] = feats[split, chosen]
            threshold[ids[split]] = thr[split, chosen]
            left[ids[split]] = first[split]
            n_nodes += 2 * n_split
            keep = (split | again)[seg]
            child = np.where(again[seg], node,
                             first[seg] + (~goes_left[best[seg], np.arange(seg.size)]))
            order = np.lexsort((cls[keep], child[keep]))
            node = child[keep][order]
            row, w, wy = row[keep][order], w[keep][order], wy[keep][order]
            cls = cls[keep][order]
        self.n_trees = n_trees
        self.feature = feature[:n_nodes]
        self.threshold = threshold[:n_nodes]
        self.left = left[:n_nodes]
        self.value = value[:n_nodes]

    def predict(self, X) -> np.ndarray:
        """Each tree's leaf value for each row of ``X``, shape (n_trees, n_points)."""
        X = np.asarray(X, dtype=np.float32)
        n_points = X.shape[0]
        node = np.repeat(np.arange(self.n_trees), n_points).reshape(self.n_trees, n_points)
        point = np.broadcast_to(np.arange(n_points), node.shape)
        inner = self.left[node] >= 0
        while inner.any():
            at = node[inner]
            go_right = X[point[inner], self.feature[at]] > self.threshold[at]
            node[inner] = self.left[at] + go_right
            inner = self.left[node] >= 0
        return self.value[node]
