"""Decision-tree structure behind DS, DCP, TD_P and TD_U (private).

One fully grown scikit-learn tree serves the unpruned measures. The pruned
tree is either that tree pruned by C4.5's error-based rule (Quinlan 1993,
ch. 4; the estimate of Weka's ``Stats.addErrs``), without subtree raising, or
a scikit-learn tree grown with a given cost-complexity ``ccp_alpha``. All
passes over the tree are vectorised per depth level (a loop over levels, not
over instances or nodes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm
from sklearn.tree import DecisionTreeClassifier

__all__ = ["TreeLeaves", "grow_tree", "unpruned_leaves", "pruned_leaves", "c45_added_errors"]


@dataclass(frozen=True)
class TreeLeaves:
    """Leaf (disjunct) of every training row, its depth, and the deepest leaf."""

    leaf: np.ndarray  # (n,) node id of the leaf holding each row
    depth: np.ndarray  # (n,) depth of that leaf (root = 0)
    max_depth: int  # depth of the deepest leaf of the tree


def grow_tree(X, y, *, criterion, random_state, ccp_alpha=0.0):
    return DecisionTreeClassifier(
        criterion=criterion, random_state=random_state, ccp_alpha=ccp_alpha
    ).fit(X, y)


def _structure(tree):
    """Parent and depth of every node, and node ids grouped by depth."""
    left, right = tree.children_left, tree.children_right
    n_nodes = left.size
    parent = np.full(n_nodes, -1, dtype=np.intp)
    depth = np.zeros(n_nodes, dtype=np.intp)
    levels = [np.array([0], dtype=np.intp)]
    while True:
        frontier = levels[-1]
        internal = frontier[left[frontier] != -1]
        if internal.size == 0:
            break
        kids = np.concatenate([left[internal], right[internal]])
        parent[kids] = np.concatenate([internal, internal])
        depth[kids] = depth[parent[kids]] + 1
        levels.append(kids)
    return parent, depth, levels


def unpruned_leaves(clf, X):
    _, depth, _ = _structure(clf.tree_)
    leaf = clf.apply(X)
    return TreeLeaves(leaf=leaf, depth=depth[leaf], max_depth=int(depth[leaf].max()))


def c45_added_errors(N, e, confidence):
    """C4.5's pessimistic extra errors for a leaf with ``N`` rows and ``e`` errors.

    The upper limit of a one-sided ``confidence`` interval on the binomial error
    rate, times ``N``, minus ``e`` (Quinlan 1993, sec. 4.2; Weka
    ``Stats.addErrs``): ``N (1 - CF^(1/N))`` when ``e = 0``, linear between
    ``e = 0`` and ``e = 1``, ``N - e`` once ``e + 1/2 >= N``, and the
    continuity-corrected normal (Wilson) bound otherwise.
    """
    N = np.asarray(N, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    z = norm.ppf(1.0 - confidence)

    def wilson(ee):
        f = (ee + 0.5) / N
        r = (f + z * z / (2 * N) + z * np.sqrt(f / N - f * f / N + z * z / (4 * N * N))) / (
            1 + z * z / N
        )
        return r * N - ee

    base = N * (1.0 - confidence ** (1.0 / N))
    with np.errstate(invalid="ignore", divide="ignore"):  # masked-out branches
        at_one = np.where(1.5 >= N, np.maximum(N - 1.0, 0.0), wilson(np.ones_like(N)))
        general = np.where(e + 0.5 >= N, np.maximum(N - e, 0.0), wilson(e))
    return np.where(e < 1.0, base + e * (at_one - base), general)


def _c45_collapsed(tree, counts, levels, confidence):
    """Nodes that C4.5's error-based pruning turns into leaves (bottom-up)."""
    left, right = tree.children_left, tree.children_right
    N = counts.sum(axis=1)
    e = N - counts.max(axis=1)
    leaf_err = e + c45_added_errors(N, e, confidence)
    err = leaf_err.copy()  # estimated errors of the (pruned) subtree at each node
    collapsed = np.zeros(left.size, dtype=bool)
    for level in reversed(levels):
        internal = level[left[level] != -1]
        if internal.size == 0:
            continue
        subtree = err[left[internal]] + err[right[internal]]
        prune = leaf_err[internal] <= subtree + 0.1
        collapsed[internal] = prune
        err[internal] = np.where(prune, leaf_err[internal], subtree)
    return collapsed


def pruned_leaves(clf, X, y, *, confidence):
    """Leaves of ``clf`` after C4.5 error-based pruning (no subtree raising)."""
    tree = clf.tree_
    parent, depth, levels = _structure(tree)
    # class counts per node from the training rows' decision paths
    path = clf.decision_path(X)
    onehot = np.zeros((y.size, 2))
    onehot[np.arange(y.size), y] = 1.0
    counts = np.asarray(path.T @ onehot)
    collapsed = _c45_collapsed(tree, counts, levels, confidence)
    # top-down: each node maps to the shallowest collapsed ancestor (or itself)
    effective = np.arange(parent.size)
    below = collapsed.copy()  # at or below a collapsed node
    for level in levels[1:]:
        p = parent[level]
        effective[level] = np.where(below[p], effective[p], level)
        below[level] = below[p] | collapsed[level]
    leaf = effective[clf.apply(X)]
    return TreeLeaves(leaf=leaf, depth=depth[leaf], max_depth=int(depth[leaf].max()))
