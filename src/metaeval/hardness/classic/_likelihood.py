"""Class likelihood measures: CL and CLD (a naive Bayes posterior of the true class)."""

from __future__ import annotations

from metaeval.hardness.classic._checks import _check_calibration, _check_X, _check_y
from metaeval.hardness.classic._shared import _Data

__all__ = ["class_likelihood", "class_likelihood_difference"]


def _cl(d):
    return 1.0 - d.true_class_posterior


def _cld(d):
    p = d.true_class_posterior
    return (1.0 - (p - (1.0 - p))) / 2.0


def class_likelihood(X, y, *, calibration=None):
    r"""Class Likelihood (CL) hardness: 1 minus the naive-Bayes posterior of the true class.

    Smith et al.'s class likelihood :math:`CL(x_i, y) = \prod_f P(x_{if} \mid y)`
    (features independent, here Gaussian per feature and class) is normalised
    over the two classes with equal priors, as in PyHard, and complemented:

    .. math::

        CL(x_i) = 1 - \frac{CL(x_i, y_i)}{\sum_{c} CL(x_i, c)}

    Higher is harder, in :math:`[0, 1]`. By default the posterior is used as
    it is (nothing is refitted). PyHard calibrates it instead: with
    ``calibration="sigmoid"`` the naive Bayes posterior is passed through
    Platt's sigmoid fitted on 3-fold cross-validated posteriors, the naive
    Bayes refitted on all rows (scikit-learn's ``CalibratedClassifierCV(...,
    method="sigmoid", cv=3, ensemble=False)``, PyHard's settings).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    calibration : {None, "sigmoid"}, default=None
        ``"sigmoid"`` gives PyHard's calibrated CL; each class then needs at
        least 3 instances.

    Returns
    -------
    cl : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of CL; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> class_likelihood([[0], [2], [4], [6]], [0, 0, 1, 1]).round(4)
    array([0.   , 0.018, 0.018, 0.   ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _cl(_Data(X, y01, calibration=_check_calibration(calibration, y01)))


def class_likelihood_difference(X, y, *, calibration=None):
    r"""Class Likelihood Difference (CLD) hardness: own-class minus best other-class likelihood.

    With :math:`p(c \mid x_i)` the normalised class likelihood of
    :func:`class_likelihood`, Smith et al.'s CLD is mapped to :math:`[0, 1]`,
    higher = harder, as in PyHard:

    .. math::

        CLD(x_i) = \frac{1 - \left(p(y_i \mid x_i) - \max_{c \neq y_i} p(c \mid x_i)\right)}{2}

    With two classes :math:`p(c \mid x_i) = 1 - p(y_i \mid x_i)`, so CLD equals
    CL exactly; both are kept for comparability with the literature.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    calibration : {None, "sigmoid"}, default=None
        As in :func:`class_likelihood` (``"sigmoid"``: PyHard's calibrated posterior).

    Returns
    -------
    cld : ndarray of shape (n_samples,)

    References
    ----------
    Smith et al. (2014), definition of CLD; Paiva et al. (2022), hardness measures.

    Examples
    --------
    >>> class_likelihood_difference([[0], [2], [4], [6]], [0, 0, 1, 1]).round(4)
    array([0.   , 0.018, 0.018, 0.   ])
    """
    y01 = _check_y(y)
    X = _check_X(X, y01.size)
    return _cld(_Data(X, y01, calibration=_check_calibration(calibration, y01)))
