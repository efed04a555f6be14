"""Instance hardness, instance cost curves, class hardness and pool hardness.

Public functions of :mod:`metaeval.hardness` (re-exported there). All of them return a
loss: lower is easier.
"""

from __future__ import annotations

import numpy as np

from metaeval._validation import check_binary_target, check_cost_proportions, check_scores
from metaeval.hardness._rates import rank_statistics
from metaeval.hardness._threshold import (
    METHODS,
    RATE_METHODS,
    SCORE_METHODS,
    check_cost_distribution,
    check_method,
    check_threshold,
    check_ties,
    class1_probability,
    cost_curve_block,
    rate_hardness_table,
    rate_hardness_values,
    score_hardness,
)

__all__ = [
    "instance_hardness",
    "instance_hardness_by_method",
    "instance_hardness_at",
    "instance_cost_curve",
    "pool_hardness",
    "pool_cost_curve",
    "class_hardness",
    "class_cost_curve",
]

# Hardness tables are gathered in blocks of about this many scores.
_GATHER_BLOCK = 1 << 16

# Cost curves are computed in blocks of at most this many (instance, model, c) values,
# which bounds their temporary memory (a few arrays of 8 bytes per value).
_CURVE_BLOCK = 1 << 20

_CLASS_NAMES = ("class 0 (the labels other than pos_label)", "class 1 (pos_label)")


# ---------------------------------------------------------------------------------------
# shared preparation
# ---------------------------------------------------------------------------------------


def _prepare(y, s, methods, *, t, pos_label, ties, cost_distribution=None, name="s"):
    """Validate every argument; return ``(y01, s, t, ties, beta)``."""
    for method in methods:
        check_method(method)
    ties = check_ties(ties)
    t = check_threshold(t)
    beta = check_cost_distribution(cost_distribution)
    y01 = check_binary_target(y, pos_label=pos_label)
    bounded = any(method in SCORE_METHODS for method in methods)
    try:
        s = check_scores(s, n_samples=y01.shape[0], name=name, bounded=bounded)
    except ValueError as exc:
        if bounded and "must lie in [0, 1]" in str(exc):
            score_methods = [m for m in methods if m in SCORE_METHODS]
            raise ValueError(
                f"{exc} The score-based method(s) {', '.join(map(repr, score_methods))} "
                "need scores in [0, 1]; the rate-based methods accept any real scores."
            ) from None
        raise
    if s.ndim == 2 and s.shape[1] == 0:
        raise ValueError(f"{name} has shape {s.shape}: a pool needs at least one model column.")
    return y01, s, t, ties, beta


def _broadcast_labels(y01, s):
    """Class indicators shaped to broadcast against ``s`` (one row per instance)."""
    return y01 if s.ndim == 1 else y01[:, None]


def _hardness(y01, s, method, *, t, ties, beta, ranks=None):
    """Instance hardness for validated inputs; ``ranks`` may be shared between methods."""
    if method in SCORE_METHODS:
        return score_hardness(_broadcast_labels(y01, s), s, method, t=t, beta=beta), ranks
    if ranks is None:
        ranks = rank_statistics(s)
    n = s.shape[0]
    n_groups = ranks.below.size
    # With fewer tied groups than scores, evaluate the hardness once per group and class
    # (a small table that stays in cache; under a Beta distribution this also saves
    # incomplete Beta evaluations) and gather it; otherwise evaluate it per score.
    table = None
    if 2 * n_groups <= s.size:
        table = rate_hardness_table(
            ranks.below, ranks.size, ranks.n, method, ties=ties, beta=beta
        ).reshape(-1)
    out = np.empty(s.shape)
    block = min(_GATHER_BLOCK, max(1024, s.size // 16))
    if beta is not None:  # Beta kernels cost far more than a gather: fewer, larger calls
        block = _GATHER_BLOCK
    step = max(1, block // max(1, out[:1].size))
    for r0 in range(0, n, step):  # blocks of instances bound the temporary memory
        rows = slice(r0, min(n, r0 + step))
        labels = np.broadcast_to(_broadcast_labels(y01[rows], s), out[rows].shape)
        group = ranks.group[rows]
        if table is not None:  # entry class * n_groups + group of the (2, n_groups) table
            index = group.astype(np.intp)
            index += labels * np.intp(n_groups)
            np.take(table, index, out=out[rows])
        else:
            out[rows] = rate_hardness_values(
                ranks.below[group],
                ranks.size[group],
                labels,
                ranks.n,
                method,
                ties=ties,
                beta=beta,
            )
    return out, ranks


# ---------------------------------------------------------------------------------------
# instance hardness
# ---------------------------------------------------------------------------------------


def instance_hardness(
    y, s, method, *, t=0.5, pos_label=1, ties="interpolate", cost_distribution=None
):
    r"""Instance hardness: the area under an instance cost curve.

    The expected loss of one instance over the operating conditions ``c`` (cost
    proportions) when the decision threshold is chosen by ``method``; with a pool of
    models, one value per model.

    .. math::

        IH^T(x) = \int_0^1 QI(x, T(c), c)\, w(c)\, dc,\qquad
        QI = \begin{cases} 2c\,[x \text{ predicted class 1}] & y = 0\\
                           2(1-c)\,[x \text{ predicted class 0}] & y = 1 \end{cases}

    With ``w`` uniform (the default), ``R`` the fraction of the ``n`` instances with a
    score ``<= s`` and ``L = l/n`` the share of the tied group containing ``s``:

    ============== ============================== ====================================
    method         class 0                        class 1
    ============== ============================== ====================================
    score-fixed    :math:`[s > t]`                :math:`[s \le t]`  (0/1 loss)
    score-driven   :math:`s^2`                    :math:`(1-s)^2`
    rate-driven    :math:`R^2 + L(L/3 - R)`       :math:`(1-R)^2 + L(L/3 + 1 - R)`
    score-uniform  :math:`s`                      :math:`1 - s`
    rate-uniform   :math:`R - L/2`                :math:`1 - R + L/2`
    ============== ============================== ====================================

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Two labels; ``pos_label`` names class 1 (the papers' negative class).
    s : array-like of shape (n_samples,) or (n_samples, n_models)
        Scores estimating P(y = class 1); an instance is predicted class 0 iff
        ``s <= t``. The score-based methods need ``s`` in [0, 1]; the rate-based ones
        use ranks only and accept any finite reals. A 2-D array is a pool of models,
        one column each; ``R`` is computed per column over the instances given.
    method : {"score-fixed", "score-driven", "rate-driven", "score-uniform", \
"rate-uniform"}
        Threshold choice method: ``T(c) = t``, ``T(c) = c``, ``T(c) = R^{-1}(c)``,
        ``T ~ U[0, 1]``, or a positive rate drawn from ``U[0, 1]``.
    t : float in [0, 1], default=0.5
        The fixed threshold of "score-fixed" (ignored by the other methods).
    pos_label : scalar, default=1
        The label of class 1.
    ties : {"interpolate", "none"}, default="interpolate"
        Rate-based methods only. "interpolate" splits a tied group stochastically
        between the rates ``R - L`` and ``R`` (Prudêncio 2019, eqs. 21-26); "none" uses
        the uncorrected forms ``R^2, (1-R)^2`` (rate-driven, as in Melo & Prudêncio 2014)
        and ``R, 1-R`` (rate-uniform).
    cost_distribution : None or (a, b), default=None
        Distribution ``w`` of the cost proportion: None is uniform; a pair is
        Beta(a, b). Since ``c w_{a,b}(c) = E[c] w_{a+1,b}(c)``, the error of a
        score-fixed, score-uniform or rate-uniform instance weighs ``2E[c]`` (class 0)
        or ``2E[1 - c]`` (class 1) instead of 1; score-driven is
        ``2E[c] I_s(a + 1, b)`` (class 0) or ``2E[1 - c] (1 - I_s(a, b + 1))``
        (class 1), with ``I`` the regularised incomplete Beta function; rate-driven is
        ``2E[c]`` times the mean of ``I_x(a + 1, b)`` over the tied group's rates
        ``x`` in ``[R - L, R]`` (class 1 mirrored: ``c -> 1 - c``, ``a <-> b``), in
        closed form through incomplete Beta functions, their integral, a continued
        fraction and a series, chosen so that nothing cancels catastrophically. The
        one quadrature is for tied groups narrow on the scale of the density, where
        the closed form would be a small difference of large numbers: there
        Gauss-Legendre has a proven relative error below 1e-15. Relative error below
        1e-10 (typically 1e-15) for a, b from 0.01 to 10**6, checked against 50-digit
        integration; values below the float range underflow to 0.

    Returns
    -------
    hardness : ndarray of shape (n_samples,) or (n_samples, n_models)
        In [0, 2]; in [0, 1] under the uniform distribution.

    See Also
    --------
    instance_hardness_by_method : several methods at once, sharing one sort.
    pool_hardness : the mean over a pool of models.
    instance_cost_curve : the curve whose area this is.

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, eqs. 6 and 9; score-fixed eqs. 13-14, score-driven eqs.
    16/18, rate-driven eqs. 22/26 (with the interpolation weight ``(c - R + l/n)/(l/n)``
    in eq. 25), score-uniform eqs. 28/30, rate-uniform eqs. 32/34 (made tie-aware by the
    same interpolation).

    Examples
    --------
    >>> from metaeval.hardness import instance_hardness
    >>> y = [1, 1, 0, 0]
    >>> s = [0.9, 0.4, 0.4, 0.2]
    >>> instance_hardness(y, s, "score-driven")
    array([0.01, 0.36, 0.16, 0.04])
    >>> instance_hardness(y, s, "rate-driven")  # the two 0.4s share a group of L = 1/2
    array([0.02083333, 0.27083333, 0.27083333, 0.02083333])
    >>> instance_hardness(y, s, "rate-driven", ties="none")
    array([0.    , 0.0625, 0.5625, 0.0625])
    """
    y01, s, t, ties, beta = _prepare(
        y,
        s,
        (method,),
        t=t,
        pos_label=pos_label,
        ties=ties,
        cost_distribution=cost_distribution,
    )
    hardness, _ = _hardness(y01, s, method, t=t, ties=ties, beta=beta)
    return hardness


def instance_hardness_by_method(
    y, s, methods=METHODS, *, t=0.5, pos_label=1, ties="interpolate", cost_distribution=None
):
    """Instance hardness under several threshold choice methods, sharing one sort.

    The rate-based methods share the rank statistics (one ``argsort`` per column),
    so all five methods cost about as much as one rate-based method.

    Parameters
    ----------
    y, s, t, pos_label, ties, cost_distribution
        As in :func:`instance_hardness`.
    methods : sequence of str, default=METHODS
        Canonical method names.

    Returns
    -------
    hardness : dict of str to ndarray
        ``{method: instance_hardness(y, s, method, ...)}``, in the order given.

    See Also
    --------
    instance_hardness

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Sect. 3: one hardness measure per threshold choice
    method.

    Examples
    --------
    >>> from metaeval.hardness import instance_hardness_by_method
    >>> h = instance_hardness_by_method([0, 1, 1], [0.2, 0.6, 0.4])
    >>> list(h)
    ['score-fixed', 'score-driven', 'rate-driven', 'score-uniform', 'rate-uniform']
    >>> h["rate-uniform"]
    array([0.16666667, 0.16666667, 0.5       ])
    """
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    if not methods:
        raise ValueError("methods is empty; name at least one threshold choice method.")
    y01, s, t, ties, beta = _prepare(
        y, s, methods, t=t, pos_label=pos_label, ties=ties, cost_distribution=cost_distribution
    )
    out, ranks = {}, None
    for method in methods:
        if method not in out:
            out[method], ranks = _hardness(y01, s, method, t=t, ties=ties, beta=beta, ranks=ranks)
    return out


def pool_hardness(y, S, method, *, t=0.5, pos_label=1, ties="interpolate", cost_distribution=None):
    r"""Instance hardness averaged over a pool of models (ensemble strategy, Prudêncio 2019).

    .. math::

        IH^T_{pool}(x) = \frac{1}{M} \sum_{j=1}^{M} IH^T_{m_j}(x)

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples, n_models)
        Scores of each model (a 1-D array is one model).
    method, t, pos_label, ties, cost_distribution
        As in :func:`instance_hardness`.

    Returns
    -------
    hardness : ndarray of shape (n_samples,)

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Sects. 1 and 3.1: "the average instance hardness" over a
    pool of models, following Smith et al. (2014). For score-fixed it is the fraction of
    models that misclassify the instance.

    Examples
    --------
    >>> from metaeval.hardness import pool_hardness
    >>> S = [[0.7, 0.6, 0.0, 0.65], [0.8, 1.0, 1.0, 0.9]]  # Prudêncio (2019), Table 1, x1, x2
    >>> pool_hardness([1, 1], S, "score-fixed")  # x1 is misclassified by m3 only
    array([0.25, 0.  ])
    """
    y01, S, t, ties, beta = _prepare(
        y,
        S,
        (method,),
        t=t,
        pos_label=pos_label,
        ties=ties,
        cost_distribution=cost_distribution,
        name="S",
    )
    h, _ = _hardness(y01, S, method, t=t, ties=ties, beta=beta)
    return h if h.ndim == 1 else h.mean(axis=1)


# ---------------------------------------------------------------------------------------
# instance cost curves
# ---------------------------------------------------------------------------------------


def _check_c(c, *, scalar=False):
    c = check_cost_proportions(c)
    if scalar and c.ndim != 0:
        raise ValueError(f"c must be a single cost proportion, got an array of shape {c.shape}.")
    if c.ndim > 1:
        raise ValueError(f"c must be a scalar or 1-dimensional, got an array of shape {c.shape}.")
    return c


def _curve_blocks(y01, s, method, c, *, t, ties, only=None):
    """Yield ``(rows, cols, QI)`` blocks covering ``QI`` of shape ``s.shape + (k,)``.

    Rows are instances, cols index ``c``; each block holds at most about
    ``_CURVE_BLOCK`` values (never less than one row by one cost proportion).
    ``only``: indices of the instances to compute (rows then index ``only``); the
    rates of the rate-based methods are still those among all instances.
    """
    rate = width = None
    if method in RATE_METHODS:
        ranks = rank_statistics(s)
        rate, width = ranks.rate(), ranks.width()
    if only is not None:
        y01, s = y01[only], s[only]
        if rate is not None:
            rate, width = rate[only], width[only]
    n = s.shape[0]
    per_row = int(np.prod(s.shape[1:], dtype=np.int64))
    k = c.shape[0]
    cells = n * per_row
    if cells * k <= _CURVE_BLOCK:
        n_rows, n_c = n, k
    elif cells <= _CURVE_BLOCK:
        n_rows, n_c = n, _CURVE_BLOCK // cells
    else:
        n_rows, n_c = max(1, _CURVE_BLOCK // per_row), 1
    for r0 in range(0, n, n_rows):
        rows = slice(r0, min(n, r0 + n_rows))
        s_rows = s[rows]
        y_rows = _broadcast_labels(y01[rows], s_rows)
        extra = {}
        if rate is not None:
            extra = {"rate": rate[rows], "width": width[rows]}
        for c0 in range(0, k, n_c):
            cols = slice(c0, min(k, c0 + n_c))
            p1 = class1_probability(method, c[cols], s=s_rows, t=t, ties=ties, **extra)
            yield rows, cols, cost_curve_block(y_rows, p1, c[cols])


def instance_cost_curve(y, s, method, c, *, t=0.5, pos_label=1, ties="interpolate",
                        rows=None):
    r"""Instance cost curves: the loss of each instance at each cost proportion ``c``.

    .. math::

        QI_0(s, T(c), c) = 2c\,(1 - \delta(s, T(c))), \qquad
        QI_1(s, T(c), c) = 2(1 - c)\,\delta(s, T(c)),

    with :math:`\delta(s, t) = [s \le t]` averaged over the randomness of the method:
    the threshold for score-uniform, the desired rate for rate-uniform, and for
    rate-driven the share of a tied group that a quota of ``c n`` class-0 predictions
    reaches, ``clip((c - R + L)/L, 0, 1)``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    s : array-like of shape (n_samples,) or (n_samples, n_models)
    method : str
        A threshold choice method, as in :func:`instance_hardness`.
    c : float or array-like of shape (n_costs,)
        Cost proportions in [0, 1]; ``c0 = 2c`` is the cost of a class-0 instance
        predicted class 1 and ``c1 = 2(1 - c)`` the converse.
    t, pos_label, ties
        As in :func:`instance_hardness`.
    rows : array-like of int, optional
        Only these instances' curves (the rows of the result, in this order); the rates
        of the rate-based methods are still computed among all instances, so the
        result equals ``instance_cost_curve(y, s, method, c)[rows]`` at the cost of
        ``len(rows)`` instances.

    Returns
    -------
    curves : ndarray of shape ``s.shape + (n_costs,)``, or ``s.shape`` for a scalar c
        (the first axis of length ``len(rows)`` when ``rows`` is given). Computed in
        bounded blocks: the temporary memory beyond the result is about
        ``O(n_samples * n_models)``.

    See Also
    --------
    instance_hardness_at, class_cost_curve, pool_cost_curve

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, eqs. 5 and 8; per method eqs. 11-12 (score-fixed), 15/17
    (score-driven), 19/21/23/25 (rate-driven), 27/29 (score-uniform) and 31/33
    (rate-uniform).

    Examples
    --------
    Prudêncio (2019), Fig. 3: instance x6 (class 0) with model m1 has R = 0.6 and a
    previous rate of 0.5, so its rate-driven curve is 2c up to c = 0.5, interpolates to
    0 at 0.6.

    >>> from metaeval.hardness import instance_cost_curve
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> m1 = [0.70, 0.80, 0.80, 0.70, 0.80, 0.75, 0.10, 0.55, 0.80, 0.15]
    >>> instance_cost_curve(y, m1, "rate-driven", [0.3, 0.55, 0.7])[5]
    array([0.6 , 0.55, 0.  ])
    """
    y01, s, t, ties, _ = _prepare(y, s, (method,), t=t, pos_label=pos_label, ties=ties)
    c = _check_c(c)
    scalar = c.ndim == 0
    c = np.atleast_1d(c)
    only = None
    if rows is not None:
        only = np.asarray(rows)
        if only.ndim != 1 or (only.size and not np.issubdtype(only.dtype, np.integer)):
            raise ValueError(f"rows must be a 1-dimensional array of instance indices, got "
                             f"{rows!r}")
        if only.size and (only.min() < -s.shape[0] or only.max() >= s.shape[0]):
            raise ValueError(f"rows must index the {s.shape[0]} instances, got "
                             f"{only.min()}..{only.max()}")
        only = only.astype(np.intp)
    shape = s.shape if only is None else (only.size,) + s.shape[1:]
    out = np.empty(shape + c.shape)
    for block_rows, cols, block in _curve_blocks(y01, s, method, c, t=t, ties=ties,
                                                 only=only):
        out[block_rows, ..., cols] = block
    return out[..., 0] if scalar else out


def instance_hardness_at(y, s, method, c, *, t=0.5, pos_label=1, ties="interpolate"):
    r"""Instance hardness at one operating condition: the cost curve evaluated at ``c``.

    .. math::

        IH^T(x; c) = QI(x, T(c), c)

    Parameters
    ----------
    y, s, method, t, pos_label, ties
        As in :func:`instance_hardness`.
    c : float in [0, 1]
        The cost proportion.

    Returns
    -------
    hardness : ndarray, same shape as ``s``
        In [0, 2].

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Sect. 4 and Figs. 10-11 (hardness at c = 0.2, 0.5, 0.8).

    Examples
    --------
    >>> from metaeval.hardness import instance_hardness_at

    At c = 0.5 the threshold is 0.5: the class-0 instance (s = 0.6 > 0.5) is predicted
    class 1 and costs 2c = 1; the class-1 instance is right.

    >>> instance_hardness_at([0, 1], [0.6, 0.6], "score-driven", 0.5)
    array([1., 0.])

    At c = 0.65 both err: 2c = 1.3 for class 0 (0.7 > 0.65), 2(1 - c) = 0.7 for class 1
    (0.6 <= 0.65).

    >>> instance_hardness_at([0, 1], [0.7, 0.6], "score-driven", 0.65)
    array([1.3, 0.7])
    """
    _check_c(c, scalar=True)
    return instance_cost_curve(y, s, method, c, t=t, pos_label=pos_label, ties=ties)


def pool_cost_curve(y, S, method, c, *, t=0.5, pos_label=1, ties="interpolate"):
    r"""Instance cost curves averaged over a pool of models.

    .. math::

        QI_{pool}(x, c) = \frac{1}{M} \sum_{j=1}^{M} QI(x, T_{m_j}(c), c)

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    S : array-like of shape (n_samples, n_models)
    method, c, t, pos_label, ties
        As in :func:`instance_cost_curve`.

    Returns
    -------
    curves : ndarray of shape (n_samples, n_costs), or (n_samples,) for a scalar c

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Sect. 1: the ensemble strategy applied to cost curves.

    Examples
    --------
    >>> from metaeval.hardness import pool_cost_curve
    >>> pool_cost_curve([0], [[0.2, 0.6]], "score-fixed", [0.0, 0.5, 1.0])
    array([[0. , 0.5, 1. ]])
    """
    y01, S, t, ties, _ = _prepare(y, S, (method,), t=t, pos_label=pos_label, ties=ties, name="S")
    c = _check_c(c)
    scalar = c.ndim == 0
    c = np.atleast_1d(c)
    out = np.empty((S.shape[0], c.shape[0]))
    for rows, cols, block in _curve_blocks(y01, S, method, c, t=t, ties=ties):
        out[rows, cols] = block if S.ndim == 1 else block.mean(axis=1)
    return out[:, 0] if scalar else out


# ---------------------------------------------------------------------------------------
# class hardness
# ---------------------------------------------------------------------------------------


def _class_counts(y01):
    counts = np.bincount(y01, minlength=2)
    for k in (0, 1):
        if counts[k] == 0:
            raise ValueError(
                f"{_CLASS_NAMES[k]} is absent from y; its class hardness is undefined. "
                "Class measures need instances of both classes."
            )
    return counts


def class_hardness(
    y, s, method, *, t=0.5, pos_label=1, ties="interpolate", cost_distribution=None
):
    r"""Class hardness: the mean instance hardness of each class.

    .. math::

        CH_k = \frac{1}{n_k} \sum_{x:\, y(x) = k} IH^T(x), \qquad k \in \{0, 1\}

    an estimate of the class loss :math:`L_k / \pi_k` (Prudêncio 2019, eqs. 7 and 10).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Must contain both classes.
    s : array-like of shape (n_samples,) or (n_samples, n_models)
    method, t, pos_label, ties, cost_distribution
        As in :func:`instance_hardness`.

    Returns
    -------
    hardness : ndarray of shape (2,) or (2, n_models)
        Row 0 is class 0 (the labels other than ``pos_label``), row 1 is class 1.

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Sect. 4: "Class hardness (CH) is defined as the average
    instance hardness in a given class", eqs. 7 and 10.

    Examples
    --------
    Prudêncio (2019), Table 1, model m1, score-fixed at t = 0.5: four of the six class-0
    instances (x5, x6, x8, x9) score above 0.5; no class-1 instance scores <= 0.5.

    >>> from metaeval.hardness import class_hardness
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> m1 = [0.70, 0.80, 0.80, 0.70, 0.80, 0.75, 0.10, 0.55, 0.80, 0.15]
    >>> class_hardness(y, m1, "score-fixed")
    array([0.66666667, 0.        ])
    """
    y01, s, t, ties, beta = _prepare(
        y,
        s,
        (method,),
        t=t,
        pos_label=pos_label,
        ties=ties,
        cost_distribution=cost_distribution,
    )
    _class_counts(y01)
    h, _ = _hardness(y01, s, method, t=t, ties=ties, beta=beta)
    return np.stack([h[y01 == 0].mean(axis=0), h[y01 == 1].mean(axis=0)])


def class_cost_curve(y, s, method, c, *, t=0.5, pos_label=1, ties="interpolate"):
    r"""Class cost curves: the mean instance cost curve of each class.

    .. math::

        QC_k(c) = \frac{1}{n_k} \sum_{x:\, y(x) = k} QI(x, T(c), c)

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Must contain both classes.
    s : array-like of shape (n_samples,) or (n_samples, n_models)
    method, c, t, pos_label, ties
        As in :func:`instance_cost_curve`.

    Returns
    -------
    curves : ndarray of shape ``(2,) + s.shape[1:] + (n_costs,)``
        Row 0 is class 0, row 1 is class 1; the cost axis is dropped for a scalar c.
        Computed in bounded blocks, without materialising every instance's curve.

    References
    ----------
    R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
    learning", ECML PKDD 2019, Sect. 4 and Fig. 7 (class cost curves).

    Examples
    --------
    At c = 0.5 the class-0 instance scored 0.8 errs at cost 2c = 1, the one scored 0.2
    does not: the class-0 mean is 0.5.

    >>> from metaeval.hardness import class_cost_curve
    >>> class_cost_curve([0, 0, 1], [0.2, 0.8, 0.6], "score-driven", [0.1, 0.5, 0.9])
    array([[0.2, 0.5, 0. ],
           [0. , 0. , 0.2]])
    """
    y01, s, t, ties, _ = _prepare(y, s, (method,), t=t, pos_label=pos_label, ties=ties)
    counts = _class_counts(y01)
    c = _check_c(c)
    scalar = c.ndim == 0
    c = np.atleast_1d(c)
    fast = _class_p1_sums(y01, s, method, c, t=t, ties=ties)
    if fast is not None:
        # QI is 2c p1 for class 0 and 2(1 - c)(1 - p1) for class 1: linear in p1, so the
        # class sums follow from the sums of p1 over each class
        p0, p1 = fast
        sums = np.stack([2.0 * c * p0, 2.0 * (1.0 - c) * (counts[1] - p1)])
    else:
        sums = np.zeros((2,) + s.shape[1:] + c.shape)
        for rows, cols, block in _curve_blocks(y01, s, method, c, t=t, ties=ties):
            onehot = np.stack([y01[rows] == 0, y01[rows] == 1]).astype(np.float64)
            sums[..., cols] += np.tensordot(onehot, block, axes=1)
    out = sums / counts.reshape((2,) + (1,) * (sums.ndim - 1))
    return out[..., 0] if scalar else out


def _class_p1_sums(y01, s, method, c, *, t, ties):
    """Per class, the sum over its instances of ``p1(c)``, shape ``s.shape[1:] + c.shape``.

    Without the ``n * k`` table of every instance's curve: the score-fixed and uniform
    methods' ``p1`` does not depend on ``c``, the score-driven one is a count of the
    scores above ``c`` (sorted scores, searched), and the rate-driven one is a count of
    the tied groups above ``c`` plus the share of the one group whose interpolated
    stretch ``(R - L, R)`` holds ``c`` (the groups' stretches tile [0, 1]).
    """
    if method == "rate-driven":
        return _rate_driven_p1_sums(y01, s, c, ties=ties)
    extra = {}
    if method in RATE_METHODS:
        ranks = rank_statistics(s)
        extra = {"rate": ranks.rate(), "width": ranks.width()}
    out = []
    for k in (0, 1):
        mask = y01 == k
        if method == "score-driven":  # p1 = [s > c]
            sk = np.sort(s[mask], axis=0)
            n_k = sk.shape[0]
            if sk.ndim == 1:
                above = n_k - np.searchsorted(sk, c, side="right")
            else:
                above = np.stack([n_k - np.searchsorted(sk[:, j], c, side="right")
                                  for j in range(sk.shape[1])])
            out.append(above.astype(np.float64))
            continue
        p1 = class1_probability(method, c[:1], s=s[mask], t=t, ties=ties,
                                **{key: v[mask] for key, v in extra.items()})[..., 0]
        total = p1.sum(axis=0)
        out.append(np.multiply.outer(total, np.ones(c.shape)))
    return out


def _rate_driven_p1_sums(y01, s, c, *, ties):
    """:func:`_class_p1_sums` for the rate-driven method, one model column at a time."""
    ranks = rank_statistics(s)
    rate, width = ranks.rate(), ranks.width()
    one = s.ndim == 1
    R = rate[:, None] if one else rate
    L = width[:, None] if one else width
    out = [np.empty((R.shape[1], c.size)) for _ in (0, 1)]
    for j in range(R.shape[1]):  # a loop over models, vectorised over groups and costs
        his, first, group = np.unique(R[:, j], return_index=True, return_inverse=True)
        widths = L[first, j]
        g = np.searchsorted(his, c, side="right")  # the first group with R > c
        inside = np.minimum(g, his.size - 1)
        for k in (0, 1):
            n_g = np.bincount(group[y01 == k], minlength=his.size).astype(np.float64)
            above = np.concatenate([np.cumsum(n_g[::-1])[::-1], [0.0]])  # groups >= g
            if ties == "none":  # p1 = [R > c]
                out[k][j] = above[g]
                continue
            # p1 = clip((R - c) / L, 0, 1): 1 above the group holding c, 0 below it
            share = np.clip((his[inside] - c) / widths[inside], 0.0, 1.0)
            out[k][j] = above[np.minimum(g + 1, his.size)] + np.where(
                g < his.size, n_g[inside] * share, 0.0)
    return [o[0] for o in out] if one else out
