"""Decision-tree measures: DS, DCP, TD_P and TD_U."""

from __future__ import annotations

import numpy as np

from metaeval.hardness.classic._checks import _check_tree_args, _check_X, _check_y
from metaeval.hardness.classic._shared import _Data

__all__ = [
    "disjunct_size",
    "disjunct_class_percentage",
    "tree_depth_pruned",
    "tree_depth_unpruned",
]


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
