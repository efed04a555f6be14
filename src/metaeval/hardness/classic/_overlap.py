"""Feature overlap measures: F1, F2, F3 and F4."""

from __future__ import annotations

from metaeval.hardness.classic import _overlap_region as _ov
from metaeval.hardness.classic._checks import _check_X, _check_y

__all__ = [
    "feature_overlap",
    "overlap_closeness_min",
    "overlap_closeness_mean",
    "overlap_closeness_max",
]


def _f1(X, y):
    return _ov.inside_overlap(X, y).mean(axis=1)


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
