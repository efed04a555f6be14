"""Class balance measures: MV and CB (they read the labels only)."""

from __future__ import annotations

import numpy as np

from metaeval.hardness.classic._checks import _check_y

__all__ = ["minority_value", "class_balance"]


def _mv(y):
    counts = np.bincount(y, minlength=2)
    return 1.0 - counts[y] / counts.max()


def _cb(y):
    n_classes = 2
    share = np.bincount(y, minlength=2)[y] / y.size
    return (1.0 - share + 1.0 / n_classes) * n_classes / (n_classes + 1)


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
