"""Pool hardness from stored scores: the share of models that misclassify, and 1 - p(true)."""

from __future__ import annotations

import numpy as np

from metaeval._validation import check_binary_target, check_scores

__all__ = ["pool_misclassification_rate", "pool_true_class_probability_loss"]


def _pool(y, S, pos_label):
    y01 = check_binary_target(y, pos_label=pos_label)
    S = check_scores(S, n_samples=y01.size, name="S")
    if S.ndim == 1:
        S = S[:, None]
    if S.shape[1] == 0:
        raise ValueError("S has no columns; at least one model's scores are needed.")
    return y01, S


def pool_misclassification_rate(y, S, *, t=0.5, pos_label=1):
    r"""Share of a pool of models that misclassify each instance, from stored scores.

    A model predicts class 1 when its score exceeds the threshold
    (:math:`s > t`) and class 0 when :math:`s \le t`:

    .. math::

        MR(x_i) = \frac{1}{M} \sum_{m=1}^{M} I\left(\hat y_m(x_i) \neq y_i\right),
        \qquad \hat y_m(x_i) = I(s_m(x_i) > t)

    Smith et al.'s instance hardness with the classifiers' crisp outputs;
    higher is harder, in :math:`[0, 1]`. No model is refitted.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples,) or (n_samples, n_models)
        Scores in :math:`[0, 1]`, estimates of :math:`P(y = \text{class } 1)`.
    t : float, default=0.5
        Decision threshold.
    pos_label : scalar, default=1
        The label of class 1.

    Returns
    -------
    rate : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), the definition of instance hardness over a set of
    learning algorithms, with crisp outputs (reference [17] of Prudêncio 2019).

    Examples
    --------
    >>> pool_misclassification_rate([1, 0, 1], [[0.9, 0.4], [0.6, 0.2], [0.5, 0.1]])
    array([0.5, 0.5, 1. ])
    """
    y01, S = _pool(y, S, pos_label)
    if not (np.isscalar(t) and np.isfinite(t) and 0.0 <= t <= 1.0):
        raise ValueError(f"t must be a threshold in [0, 1], got {t!r}.")
    predicted = S > t
    return np.mean(predicted != (y01[:, None] == 1), axis=1)


def pool_true_class_probability_loss(y, S, *, pos_label=1):
    r"""1 minus the pool's mean probability of the true class, from stored scores.

    .. math::

        IH(x_i) = 1 - \frac{1}{M} \sum_{m=1}^{M} p_m(y_i \mid x_i), \qquad
        p_m(1 \mid x_i) = s_m(x_i), \ p_m(0 \mid x_i) = 1 - s_m(x_i)

    Smith et al.'s instance hardness (their definition over a set of learning
    algorithms); higher is harder, in :math:`[0, 1]`. No model is refitted.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples,) or (n_samples, n_models)
        Scores in :math:`[0, 1]`, estimates of :math:`P(y = \text{class } 1)`.
    pos_label : scalar, default=1

    Returns
    -------
    loss : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of the instance hardness :math:`IH_L(x)` over a
    set of learning algorithms :math:`L`.

    Examples
    --------
    >>> pool_true_class_probability_loss([1, 0, 1], [[0.9, 0.4], [0.6, 0.2], [0.5, 0.1]])
    array([0.35, 0.4 , 0.7 ])
    """
    y01, S = _pool(y, S, pos_label)
    p_true = np.where(y01[:, None] == 1, S, 1.0 - S)
    return 1.0 - p_true.mean(axis=1)
