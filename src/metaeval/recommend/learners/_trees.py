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
        labels = _classes(labels)
        weights = np.asarray(weights, dtype=np.float64)
        n_trees, n_rows = weights.shape
        index_type = _index_type(np.shape(X)[1], n_rows, weights.size)
        use = weights > 0
        use &= (use.sum(axis=1) >= 2)[:, None]
        tree, row = np.nonzero(use)  # grouped by tree: node t is tree t's root
        tree, row = tree.astype(index_type), row.astype(index_type)
        cls = labels[tree, row] > 0.5
        first = np.lexsort((cls, tree))  # within a node: class 0 rows, then class 1
        tree, row, cls = tree[first], row[first], cls[first]
        items = [tree, row, cls, weights[tree, row]]
        del tree, row, cls, first
        self._grow(X, n_trees, items, rng, features, index_type)

    @classmethod
    def forests(cls, X, labels, cost, bags, rng, features=None):
        """One forest per row of ``labels``: tree :math:`b` of forest :math:`p` (tree
        :math:`p B + b` of the batch) grown on ``labels[p]``, each row weighted
        ``cost[p] * bags[b]``.

        The trees of ``TreeBatch(X, np.repeat(labels, B, axis=0), (cost[:, None, :] *
        bags[None]).reshape(P * B, -1), rng, features)`` (the same numbers), without
        making those two arrays of ``P * B`` rows.

        Parameters
        ----------
        X : ndarray of shape (n_rows, n_features)
        labels, cost : ndarray of shape (n_forests, n_rows)
        bags : ndarray of shape (n_bags, n_rows)
        rng : numpy Generator
        features : int, optional
        """
        labels = _classes(labels)
        cost = np.asarray(cost, dtype=np.float64)
        bags = np.asarray(bags, dtype=np.float64)
        n_forests, n_rows = labels.shape
        n_bags = bags.shape[0]
        if cost.shape != labels.shape or bags.ndim != 2 or bags.shape[1] != n_rows:
            raise ValueError(f"labels and cost must be of one shape (n_forests, n_rows) "
                             f"and bags (n_bags, n_rows), got {labels.shape}, "
                             f"{cost.shape} and {bags.shape}.")
        index_type = _index_type(np.shape(X)[1], n_rows, n_forests * n_bags * n_rows)
        parts = []
        for p in range(n_forests):  # a forest's rows: those of class 0, then class 1
            order = np.argsort(labels[p] > 0.5, kind="stable")
            weights = cost[p, order] * bags[:, order]  # (n_bags, n_rows), reordered
            use = weights > 0
            use &= (use.sum(axis=1) >= 2)[:, None]
            bag, at = np.nonzero(use)
            w = weights[bag, at]
            row = order[at]
            parts.append(((bag + p * n_bags).astype(index_type), row.astype(index_type), w,
                          labels[p, row] > 0.5))
        # (tree, row, class, weight), each part freed once joined: only the joined arrays
        # go on to _grow, which frees what it no longer needs
        items = []
        for i, d in ((0, index_type), (1, index_type), (3, bool), (2, float)):
            items.append(np.concatenate([q[i] for q in parts]) if parts else
                         np.zeros(0, dtype=d))
            for j, q in enumerate(parts):
                parts[j] = tuple(None if k == i else v for k, v in enumerate(q))
        del parts
        batch = cls.__new__(cls)
        batch._grow(X, n_forests * n_bags, items, rng, features, index_type)
        return batch

    def _grow(self, X, n_trees, items, rng, features, index_type):
        """Grow the trees from their items (``items``: the list of arrays ``tree``,
        ``row``, class ``cls`` and weight ``w``, emptied here so that no caller keeps
        them), grouped by tree, class 0 first in each, each class in the order of its
        rows. An item's weight of class 1 is ``w * cls``, computed where it is summed
        (the numbers ``w * label`` gives for labels 0 and 1) rather than carried along:
        one array less to gather and scatter at every level."""
        tree, row, cls, w = items
        items.clear()
        X = np.asarray(X, dtype=np.float64)
        XT = np.ascontiguousarray(X.T, dtype=np.float32)
        n_rows, n_features = X.shape
        k = (max(1, int(np.ceil(np.log2(n_features + 1)))) if features is None
             else int(features))
        starts = np.flatnonzero(np.r_[tree.size > 0, tree[1:] != tree[:-1]])
        ids = tree[starts].astype(np.int64)
        counts = np.diff(np.r_[starts, tree.size])
        del tree
        cap = max(4 * n_trees, 16)
        # node arrays in the fewest bytes their values need (features, node ids: a node
        # splits only items, so there are at most n_trees + 2 items nodes)
        feature = np.full(cap, -1, dtype=np.int16 if n_features < 2**15 else np.int32)
        threshold = np.zeros(cap, dtype=np.float32)
        left = np.full(cap, -1, dtype=np.int32 if n_trees + 2 * row.size < 2**31
                       else np.int64)
        value = np.full(cap, 0.5)
        tries = np.zeros(cap, dtype=np.int8)  # failed draws of a node, at most 8
        n_nodes = n_trees
        flat = XT.ravel()
        # the items' arrays, and spare buffers into which the next level's are written
        # (no fresh memory for each level)
        items = [row, w, cls]
        spare = [np.empty_like(a) for a in items]
        arange = np.arange(row.size, dtype=index_type)  # _regrouped's, for every level
        work = np.empty_like(arange)
        # each level: the nodes (ids ascending, their rows contiguous in that order, class
        # 0 rows first within a node) and their counts of rows
        while ids.size:
            starts = np.r_[0, np.cumsum(counts)[:-1]]
            total = np.add.reduceat(w, starts)
            positive = np.add.reduceat(w * cls, starts)
            value[ids] = positive / total
            tol = 1e-12 * total
            impure = (counts >= 2) & (positive > tol) & (positive < total - tol)
            feats = rng.integers(0, n_features, size=(k, ids.size))
            base = feats.astype(index_type)
            base *= n_rows
            # the threshold: between the values of a class-0 and a class-1 row of the
            # node drawn at random (a node whose draws all tie is drawn again, up to 8
            # times). The (k, nodes) arrays are worked on in place: the same numbers as
            # the expressions in the comments, without as many fresh arrays of that size
            # (millions of items at the widest levels, whose new pages cost system time)
            n1 = np.add.reduceat(cls, starts, dtype=np.int64)
            n0 = counts - n1
            # one = starts + min(int(random * n0), max(n0 - 1, 0))
            one = _drawn_item(rng.random((k, ids.size)), n0, starts)
            # two = min(starts + n0 + min(int(random * n1), max(n1 - 1, 0)),
            #           starts + counts - 1)
            two = _drawn_item(rng.random((k, ids.size)), n1, starts + n0)
            np.minimum(two, starts + counts - 1, out=two)
            # a = flat[base + row[one]], b = flat[base + row[two]]
            # (summed as NumPy's index type, which take would convert them to)
            a = flat.take(np.add(row[one], base, dtype=np.intp))
            b = flat.take(np.add(row[two], base, dtype=np.intp))
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            # thr = lo + random * (hi - lo)
            thr = rng.random((k, ids.size), dtype=np.float32)
            np.subtract(hi, lo, out=a)
            thr *= a
            thr += lo
            del a, b, one, two
            if not impure.any():  # every node is a leaf: no row goes on
                break
            # a pure node (or one of a single row) is a leaf: it was drawn for all the
            # same (so that the draws do not depend on it), and its items leave now, into
            # the spare buffers (at the deeper levels some two in five nodes, whose
            # candidate splits cost as much as the others')
            if not impure.all():
                # positions as NumPy's own index type: a take converts any other first
                kept = np.flatnonzero(np.repeat(impure, counts))
                for j in range(3):
                    np.take(items[j], kept, out=spare[j][:kept.size])
                n_impure = kept.size
                del kept
                items, spare = [b[:n_impure] for b in spare], items
                row, w, cls = items
                nodes = np.flatnonzero(impure)
                ids, counts, total, positive = (a.take(nodes) for a in (ids, counts, total,
                                                                        positive))
                feats, base, thr, lo, hi = (a.take(nodes, axis=1)
                                            for a in (feats, base, thr, lo, hi))
                starts = np.r_[0, np.cumsum(counts)[:-1]]
            best, split, side = _best_splits(flat, row, w, cls, starts, counts, total,
                                             positive, base, thr, lo, hi)
            again = ~split & (tries[ids] < 8)
            tries[ids[again]] += 1
            n_split = int(split.sum())
            if n_nodes + 2 * n_split > cap:
                cap = max(2 * cap, n_nodes + 2 * n_split)
                feature, threshold, left, value, tries = _grown(
                    cap, n_nodes, feature, threshold, left, value, tries)
            first = n_nodes + 2 * np.arange(n_split)
            chosen = best[split]
            feature[ids[split]] = feats.T[split, chosen]
            threshold[ids[split]] = thr.T[split, chosen]
            left[ids[split]] = first
            n_nodes += 2 * n_split
            # rows stay class 0 first within each child (a child keeps its parent's rows
            # in their order)
            place, n_kept, n_left = _regrouped(starts, counts, again, split, side,
                                               index_type, arange, work)
            # into the spare buffers; the places converted to NumPy's index type once
            # (each assignment converts 32-bit places anew: four times the conversion)
            place = place.astype(np.intp, copy=False)
            for j in range(3):
                spare[j][:place.size][place] = items[j]
            items, spare = [b[:n_kept] for b in spare], items
            row, w, cls = items
            children = np.stack([first, first + 1], axis=1).ravel()
            sizes = np.stack([n_left[split], counts[split] - n_left[split]], axis=1).ravel()
            ids = np.concatenate([ids[again], children])
            counts = np.concatenate([counts[again], sizes])
            ids, counts = ids[counts > 0], counts[counts > 0]
        del items, spare, row, w, cls, arange, work, tries
        self.n_trees = n_trees
        # copies of the grown part: views would keep the whole capacity (up to twice)
        self.feature, self.threshold, self.left, self.value = (
            a[:n_nodes].copy() if a.size > n_nodes else a
            for a in (feature, threshold, left, value))

    def predict(self, X) -> np.ndarray:
        """Each tree's leaf value for each row of ``X``, shape (n_trees, n_points)."""
        n_points = np.shape(X)[0]
        tree = np.repeat(np.arange(self.n_trees), n_points)  # (tree, point), flat
        point = np.tile(np.arange(n_points), self.n_trees)
        return self.predict_at(X, tree, point).reshape(self.n_trees, n_points)

    def predict_at(self, X, tree, point) -> np.ndarray:
        """The leaf value of tree ``tree[i]`` for row ``point[i]`` of ``X``, each ``i``
        (what :meth:`predict` gives at those entries, without walking the others)."""
        return self.value.take(_leaves(X, tree, point, self.feature, self.threshold,
                                       self.left))


class RegressionTreeBatch:
    r"""Extremely randomised regression trees, one per (bag, column), grown together.

    Tree :math:`(b, a)` is grown on the rows of bag :math:`b` (``weights[b]``, the
    bootstrap counts: row multiplicities, 0 = left out) to column :math:`a` of
    ``target``. Each node draws ``features`` features (with replacement) and for each a
    threshold uniformly between the smallest and largest value of the node's rows
    (Geurts, Ernst & Wehenkel 2006), and keeps the candidate split with the lowest
    weighted sum of squares within its two sides; with the node's targets centred on
    their weighted mean, the one with the largest

    .. math:: \frac{s_L^2\, w}{w_L\, w_R},

    :math:`w` being the summed weight of the node and of each side, :math:`s_L` the
    weighted sum of the left side's centred targets. Rows go left when their value is at
    most the threshold. A node is a leaf when its targets are all equal, it holds fewer
    than two rows, its weight is below ``min_split`` (the node size of Breiman's random
    forest; Liaw & Wiener 2002 count the bootstrap's duplicates, as here) or below
    ``2 * min_leaf``, or eight draws in a row found no candidate leaving a weight of at
    least ``min_leaf`` on each side. A leaf predicts the weighted mean of its targets.

    Every tree of every column grows at once, one depth level at a time, with array
    operations over all their nodes: a few dozen rows make a tree whose bookkeeping, one
    at a time, costs far more than its splits.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
    target : ndarray of shape (n_rows, n_columns) or (n_rows,)
    weights : ndarray of shape (n_bags, n_rows)
        Non-negative weight of each row in each bag; every bag needs a positive total.
    rng : numpy Generator
    min_leaf : float, default=1
        Least weight on each side of a split.
    min_split : float, default=5
        Least weight of a node that is split.
    features : int, optional
        Features drawn at each node (with replacement; at least ``F``: every feature
        once). Default :math:`\max(\lceil\sqrt{F}\rceil, \min(F, 8))`: the square
        root, as random forests draw, but every feature up to 8 (Geurts et al. 2006
        recommend every feature for regression, :math:`K = F`; it costs :math:`F`
        candidates a node, so beyond a few features the square root is kept). With
        few features, the square root leaves a node little chance of drawing the one
        that matters: on 32 datasets of 7 features of which one decides the best of 12
        configurations, 3 of 7 lost 0.55 of the single best's first-pick loss (mean of 8
        draws) against 0.35 for all 7 and 0.39 for CART with 2 of 7.

    References
    ----------
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees", Machine Learning
    63(1):3-42 (2006); L. Breiman, "Random forests", Machine Learning 45 (2001);
    A. Liaw and M. Wiener, "Classification and regression by randomForest", R News 2(3)
    (2002).

    Examples
    --------
    Two levels of one feature: every tree of both columns splits until its leaves are
    pure, so a point below 1 reaches a leaf of the first two rows, one above 2 a leaf
    of the last two (a threshold lies between the values of its node's rows).

    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([[1.0, 5.0], [1.0, 5.0], [3.0, 7.0], [3.0, 7.0]])
    >>> trees = RegressionTreeBatch(X, y, np.ones((2, 4)), np.random.default_rng(0),
    ...                             min_split=2)
    >>> trees.predict(np.array([[0.5], [2.5]])).tolist()
    [[[1.0, 5.0], [3.0, 7.0]], [[1.0, 5.0], [3.0, 7.0]]]
    """

    #: Draws of a node in a row that found no valid split before it is made a leaf.
    TRIES = 8
    #: Features drawn at each node, at least (every feature when there are fewer).
    AT_LEAST = 8

    def __init__(self, X, target, weights, rng, min_leaf=1, min_split=5, features=None):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or not np.isfinite(X).all():
            raise ValueError(f"X must be a finite 2-D array, got shape {X.shape}.")
        target = np.asarray(target, dtype=np.float64)
        if target.ndim == 1:
            target = target[:, None]
        weights = np.asarray(weights, dtype=np.float64)
        if target.ndim != 2 or target.shape[0] != X.shape[0] or not np.isfinite(
                target).all():
            raise ValueError(f"target must be finite with one row per row of X "
                             f"({X.shape[0]}), got shape {target.shape}.")
        if weights.ndim != 2 or weights.shape[1] != X.shape[0] or not (
                np.isfinite(weights).all() and (weights >= 0).all()):
            raise ValueError(f"weights must be non-negative, of shape (n_bags, "
                             f"{X.shape[0]}), got shape {weights.shape}.")
        if not (weights.sum(axis=1) > 0).all():
            raise ValueError("weights: every bag needs a positive total weight.")
        for name, v in (("min_leaf", min_leaf), ("min_split", min_split)):
            if isinstance(v, bool) or not np.isfinite(v) or v <= 0:
                raise ValueError(f"{name} must be a positive number, got {v!r}.")
        n_features = X.shape[1]
        k = (max(int(np.ceil(np.sqrt(n_features))), min(n_features, self.AT_LEAST))
             if features is None else features)
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"features must be a positive integer, got {features!r}.")
        k = int(k)
        n_bags, _ = weights.shape
        n_cols = target.shape[1]
        n_trees = n_bags * n_cols
        XT = np.ascontiguousarray(X.T, dtype=np.float32)
        # items, grouped by tree (tree b * n_cols + a is node b * n_cols + a, its root)
        trees, rows = [], []
        for b in range(n_bags):
            r = np.flatnonzero(weights[b] > 0)
            trees.append(np.repeat(b * n_cols + np.arange(n_cols), r.size))
            rows.append(np.tile(r, n_cols))
        # 32-bit row and node indices where they fit (less memory to read per gather)
        index_type = (np.int32 if max(X.size, 64 * n_trees * X.shape[0]) < 2**31
                      else np.int64)
        node = np.concatenate(trees).astype(index_type)
        row = np.concatenate(rows).astype(index_type)
        y = target[row, node % n_cols]
        w = weights[node // n_cols, row]
        cap = max(4 * n_trees, 16)
        feature = np.full(cap, -1, dtype=np.int64)
        threshold = np.zeros(cap, dtype=np.float32)
        left = np.full(cap, -1, dtype=np.int64)
        value = np.zeros(cap)
        tries = np.zeros(cap, dtype=np.int64)
        n_nodes = n_trees
        while node.size:
            starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
            ids = node[starts]
            counts = np.diff(np.r_[starts, node.size])
            total = np.add.reduceat(w, starts)
            mean = np.add.reduceat(w * y, starts) / total
            value[ids] = mean
            spread = np.maximum.reduceat(y, starts) - np.minimum.reduceat(y, starts)
            active = ((counts >= 2) & (total >= min_split) & (total >= 2 * min_leaf)
                      & (spread > 0))
            if not active.all():  # leaves: their rows leave
                keep = np.repeat(active, counts)
                node, row, w, y = node[keep], row[keep], w[keep], y[keep]
                ids, counts, total, mean = ids[active], counts[active], total[active], \
                    mean[active]
                starts = np.r_[0, np.cumsum(counts)[:-1]]
                if not node.size:
                    break
            m = ids.size
            seg = np.repeat(np.arange(m), counts)
            centred = (w * (y - mean[seg])).astype(np.float32)
            gain, feats, thr, goes_left = _draws(XT, row, w.astype(np.float32), centred,
                                                 starts, counts, total, min_leaf, k, rng)
            best = np.argmax(gain, axis=1)
            split = np.isfinite(gain[np.arange(m), best])
            again = ~split & (tries[ids] < self.TRIES)
            tries[ids[again]] += 1
            n_split = int(split.sum())
            if n_nodes + 2 * n_split > cap:
                cap = max(2 * cap, n_nodes + 2 * n_split)
                feature, threshold, left, value, tries = _grown(
                    cap, n_nodes, feature, threshold, left, value, tries)
            first = np.full(m, -1, dtype=index_type)
            first[split] = n_nodes + 2 * np.arange(n_split)
            chosen = best[split]
            feature[ids[split]] = feats[split, chosen]
            threshold[ids[split]] = thr[split, chosen]
            left[ids[split]] = first[split]
            n_nodes += 2 * n_split
            keep = (split | again)[seg]
            child = np.where(again[seg], node, first[seg] + (~goes_left(best)))
            kept = np.flatnonzero(keep)
            at = kept[np.argsort(child[kept], kind="stable")]  # one gather per array
            node, row, w, y = (a.take(at) for a in (child, row, w, y))
        self.n_bags, self.n_columns = n_bags, n_cols
        self.feature = feature[:n_nodes]
        self.threshold = threshold[:n_nodes]
        self.left = left[:n_nodes]
        self.value = value[:n_nodes]

    def apply(self, X, n_bags=None) -> np.ndarray:
        """The leaf of each tree of the first ``n_bags`` bags (default all) reached by
        each row of ``X``, shape (n_bags, n_points, n_columns)."""
        n_bags = self.n_bags if n_bags is None else min(int(n_bags), self.n_bags)
        n_trees = n_bags * self.n_columns
        n_points = np.shape(X)[0]
        node = _leaves(X, np.repeat(np.arange(n_trees), n_points),
                       np.tile(np.arange(n_points), n_trees), self.feature,
                       self.threshold, self.left)
        return node.reshape(n_bags, self.n_columns, n_points).transpose(0, 2, 1)

    def predict(self, X, n_bags=None) -> np.ndarray:
        """Each tree's prediction of each row of ``X``: the trees of the first ``n_bags``
        bags (default all), shape (n_bags, n_points, n_columns)."""
        return self.value[self.apply(X, n_bags)]



#: (tree, point) pairs that descend their trees together (their arrays stay in the
#: processor's cache: twice as fast as all at once on the pairwise learner's 7 million).
_BLOCK_PAIRS = 1 << 15


def _leaves(X, tree, point, feature, threshold, left):
    """The leaf of tree ``tree[i]`` that row ``point[i]`` of ``X`` reaches, each ``i``
    (int64): each node sends a row right when its value of the node's ``feature`` is
    above the ``threshold`` (to ``left + 1``, else to ``left``; ``left < 0``: a leaf).

    A block of pairs at a time, each block's pairs leaving as they reach their leaves;
    indices of 32 bits where they fit (less memory to read in each gather)."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    flat = X.ravel()  # X[i, f] is flat[i * n_features + f]: one gather a step
    kind = np.int32 if max(left.size, flat.size) < 2**31 else np.int64
    left, feature = left.astype(kind, copy=False), feature.astype(kind, copy=False)
    tree, point = np.asarray(tree), np.asarray(point)
    stride = kind(X.shape[1])
    out = np.empty(tree.size, dtype=np.int64)
    for a in range(0, tree.size, _BLOCK_PAIRS):
        node = tree[a:a + _BLOCK_PAIRS].astype(kind)
        offset = point[a:a + _BLOCK_PAIRS].astype(kind) * stride
        where = np.arange(a, a + node.size)
        below = left.take(node)  # each node's left child
        while node.size:
            done = below < 0
            if done.any():
                out[where[done]] = node[done]
                going = ~done
                node, offset, where, below = (v[going] for v in (node, offset, where,
                                                                 below))
            node = below + (flat.take(offset + feature.take(node)) > threshold.take(node))
            below = left.take(node)
    return out


def _classes(labels):
    """``labels`` as float64, checked to be classes 0 and 1 (a ``ValueError`` naming it)."""
    labels = np.asarray(labels, dtype=np.float64)
    if not ((labels == 0) | (labels == 1)).all():
        raise ValueError("labels must be classes 0 and 1, got values "
                         f"{np.unique(labels[(labels != 0) & (labels != 1)])[:5].tolist()}.")
    return labels


def _index_type(n_features, n_rows, n_weights):
    """The type of a tree batch's row indices, flat (feature, row) positions and item
    positions (at most ``n_weights``, the (tree, row) weights): 32 bits where they fit
    (less memory to read in every gather and to hold at every level)."""
    return np.int32 if max(n_features * n_rows, n_weights) < 2**31 else np.int64


#: Rows of a tree batch's level whose candidate splits are evaluated at once (their
#: arrays stay in the processor's cache).
_BLOCK_ROWS = 1 << 16


def _best_splits(flat, row, w, cls, starts, counts, total, positive, base, thr, lo, hi):
    """The candidate split of lowest weighted Gini impurity of each node of a
    :class:`TreeBatch` level, a block of nodes at a time.

    ``flat``: the (feature, row) values, flat; ``row``, ``w``, ``cls``: each item's row,
    weight and class, grouped by node (``starts``, ``counts``); ``total``,
    ``positive``: their sums per node; ``base``, ``thr``, ``lo``, ``hi``: (k, nodes), the
    drawn features' offsets in ``flat``, the thresholds and the values they lie between.
    Returns the index of the best candidate of each node, whether it is a valid split,
    and whether each item goes left under its node's best candidate."""
    k, m = base.shape
    best = np.empty(m, dtype=np.int64)
    split = np.empty(m, dtype=bool)
    side = np.empty(row.size, dtype=bool)
    ends = starts + counts
    a = 0
    while a < m:  # nodes a..b-1: about _BLOCK_ROWS items
        b = max(int(np.searchsorted(ends, starts[a] + _BLOCK_ROWS, "right")), a + 1)
        first, last = starts[a], ends[b - 1]
        s, n = starts[a:b] - first, counts[a:b]
        rows = row[first:last]
        w32 = w[first:last].astype(np.float32)
        wy32 = w32 * cls[first:last]  # the weight of class 1, float32(w * label)
        goes_left = np.empty((k, last - first), dtype=bool)
        wl = np.empty((k, b - a), dtype=np.float32)
        pl = np.empty((k, b - a), dtype=np.float32)
        for j in range(k):  # one feature at a time: arrays of one row's size
            np.less_equal(flat.take(np.repeat(base[j, a:b], n) + rows),
                          np.repeat(thr[j, a:b], n), out=goes_left[j])
            # a product by the booleans: the numbers np.where(..., w, 0) gives, in
            # about a third of its time
            wl[j] = np.add.reduceat(goes_left[j] * w32, s)
            pl[j] = np.add.reduceat(goes_left[j] * wy32, s)
        wr, pr = total[a:b] - wl, positive[a:b] - pl
        with np.errstate(invalid="ignore", divide="ignore"):
            impurity = pl * (wl - pl) / wl + pr * (wr - pr) / wr
        valid = (hi[:, a:b] > lo[:, a:b]) & (wl > 0) & (wr > 0)
        impurity = np.where(valid, impurity, np.inf)  # (k, nodes)
        chosen = np.argmin(impurity, axis=0)
        best[a:b] = chosen
        split[a:b] = np.isfinite(impurity[chosen, np.arange(b - a)])
        # the chosen candidate's side of each item: one flat gather (a third of the
        # time of indexing with two arrays)
        seg = np.repeat(np.arange(b - a), n)
        side[first:last] = goes_left.ravel().take(chosen[seg] * seg.size
                                                  + np.arange(seg.size))
        a = b
    return best, split, side


def _drawn_item(random, n, start):
    """``start + min(int(random * n), max(n - 1, 0))``, in place in ``random``'s
    integers: the item of a node (``start``, ``n`` of its items) that a uniform draw
    picks, each column a node."""
    random *= n
    out = random.astype(np.int64)
    np.minimum(out, np.maximum(n - 1, 0), out=out)
    out += start
    return out


def _regrouped(starts, counts, again, split, side, index_type, arange=None, work=None):
    """Where each item of a tree batch's level goes in the next level, in linear time.

    ``starts``, ``counts``: the level's nodes (ids ascending) and their items;
    ``again``: the nodes drawn again (they keep their ids); ``split``: those split, their
    children numbered two by two above every id so far, in the order of their parents;
    ``side``: whether each item goes left. The kept items take the places that a stable
    sort by their next node gives them: the items of the nodes drawn again first, then
    each split node's left child's items and its right child's, each in their order;
    the items of the other nodes (leaves from now on) follow. Returns the places, the
    number of items kept, and each split node's items going left. ``arange``: the
    integers from 0, and ``work``: a spare array, each of ``index_type`` and at least as
    long as ``side`` (a level's full-length temporaries then take no fresh memory).
    """
    n = side.size
    left_row = np.repeat(split, counts)
    left_row &= side
    cl = np.cumsum(left_row, dtype=index_type,  # left items up to each, inclusive
                   out=None if work is None else work[:n])
    before = cl[starts] - left_row[starts]  # left items before each node
    n_left = cl[starts + counts - 1] - before
    dropped = ~(again | split)
    sizes = [counts * again, counts * split, counts * dropped]
    # where each kind of node's items start: those drawn again, split, then dropped
    offset = np.cumsum([0, sizes[0].sum(), sizes[1].sum()])
    start = np.choose(np.where(again, 0, np.where(split, 1, 2)),
                      [offset[g] + np.cumsum(z) - z for g, z in enumerate(sizes)])
    # an item's place: a left item's is its node's start plus the left items before it
    # in the node; any other's, its node's start (plus its node's left items when split)
    # plus the other items before it in the node (the items of a node not split are
    # none of them left)
    # (in 32 bits, other + arange may pass 2**31 before cl is taken off, from some 0.7e9
    # items on: NumPy's fixed-width integers wrap around, modulo 2**32, and every final
    # place lies in [0, n), so the places are exact all the same)
    on_left = (start - before - 1).astype(index_type)
    other = (start - starts + before + np.where(split, n_left, 0)).astype(index_type)
    place = np.repeat(other, counts)
    place += np.arange(n, dtype=index_type) if arange is None else arange[:n]
    place -= cl
    cl += np.repeat(on_left, counts)  # cl is not read again
    np.copyto(place, cl, where=left_row)
    return place, int(offset[2]), n_left

def _gain(wl, sl, total, min_leaf, valid):
    """The decrease of the weighted sum of squares of each candidate split, -inf where
    it is not valid: :math:`s_L^2 w / (w_L w_R)`, shapes (nodes, candidates)."""
    wl = wl.astype(np.float64)
    wr = total[:, None] - wl
    valid = valid & (wl >= min_leaf) & (wr >= min_leaf)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        gain = sl.astype(np.float64) ** 2 * total[:, None] / (wl * wr)
    return np.where(valid, gain, -np.inf)


#: Candidate values (features x rows) evaluated at once (memory: a few arrays of this
#: many float32).
_CHUNK = 1 << 18


def _draws(XT, row, w, centred, starts, counts, total, min_leaf, k, rng):
    """Candidate splits of each node: ``k`` features drawn with replacement (every
    feature once when ``k`` is at least their number), each with a threshold uniform
    between the node's smallest and largest value. A block of nodes at a time.

    Returns the gains (nodes, k), the features and thresholds (nodes, k), and a function
    of each node's chosen candidate giving whether each row goes left."""
    m, n_features = starts.size, XT.shape[0]
    every = k >= n_features
    k = n_features if every else k
    feats = (np.broadcast_to(np.arange(n_features)[:, None], (k, m)) if every
             else rng.integers(0, n_features, size=(k, m)))
    ends = starts + counts
    gain = np.empty((m, k))
    thr = np.empty((k, m), dtype=np.float32)
    blocks, parts = [], []
    a = 0
    while a < m:  # nodes a..b-1: about _CHUNK values
        b = int(np.searchsorted(ends, starts[a] + max(_CHUNK // k, 1), "right"))
        blocks.append((a, max(b, a + 1)))
        a = max(b, a + 1)
    for a, b in blocks:
        first, last = starts[a], ends[b - 1]
        s = starts[a:b] - first
        seg = np.repeat(np.arange(b - a), counts[a:b])
        rows = row[first:last]
        if every:
            v = np.take(XT, rows, axis=1)  # (k, items)
        else:
            # each drawn feature's offset repeated over its node's rows (a repeat, not
            # a gather), plus the rows
            v = np.take(XT, np.repeat(feats[:, a:b] * XT.shape[1], counts[a:b], axis=1)
                        + rows)
        lo = np.minimum.reduceat(v, s, axis=1)
        hi = np.maximum.reduceat(v, s, axis=1)
        t = lo + rng.random((k, b - a), dtype=np.float32) * (hi - lo)
        left = v <= np.take(t, seg, axis=1)
        wl = np.add.reduceat(left * w[first:last], s, axis=1)
        sl = np.add.reduceat(left * centred[first:last], s, axis=1)
        gain[a:b] = _gain(wl.T, sl.T, total[a:b], min_leaf, (hi > lo).T)
        thr[:, a:b] = t
        parts.append(left)

    def goes_left(best):
        out = np.empty(row.size, dtype=bool)
        for (a, b), left in zip(blocks, parts, strict=True):
            seg = np.repeat(np.arange(a, b), counts[a:b])
            out[starts[a]:ends[b - 1]] = left.ravel().take(best[seg] * seg.size
                                                           + np.arange(seg.size))
        return out

    return gain, feats.T, thr.T, goes_left


def _grown(cap, n_nodes, feature, threshold, left, value, tries):
    """The node arrays of a tree batch resized to ``cap`` nodes, the new ones blank (no
    feature, no children, no failed draws); the thresholds and values as ``np.resize``
    leaves them (repeated), without its temporary copies."""
    blank = []
    for a, fill in ((feature, -1), (left, -1), (tries, 0)):
        out = np.full(cap, fill, dtype=a.dtype)
        out[:n_nodes] = a[:n_nodes]
        blank.append(out)
    threshold, value = _repeated(threshold, cap), _repeated(value, cap)
    return blank[0], threshold, blank[1], value, blank[2]


def _repeated(a, size):
    """``np.resize(a, size)``: ``a`` repeated (or cut) to ``size`` items."""
    out = np.empty(size, dtype=a.dtype)
    n = min(a.size, size)
    out[:n] = a[:n]
    while n < size:  # the filled part doubles
        m = min(n, size - n)
        out[n:n + m] = out[:m]
        n += m
    return out
